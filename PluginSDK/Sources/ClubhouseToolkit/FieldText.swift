// A plugin core's message that names a command's arguments by their fields, never by a front end's
// word for them: the core writes `"\(field: "date") '\(text)' is not a date"` and each front end says
// the field its way — the plugin's adapter writes `--date` (the command line's word, which the host
// turns into `argument 'date'` over JSON-RPC and `parameter 'date'` over HTTP), a core test reads
// `date`.

/// A one-line message whose argument names are kept apart from its text.
public struct FieldText: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public enum Part: Sendable, Equatable {
        case text(String)
        /// An argument named by its field ("date", "skip-bad-rows").
        case field(String)
    }

    public private(set) var parts: [Part]

    public init(_ text: String) { parts = [.text(text)] }

    public init(stringLiteral value: String) { self.init(value) }

    public init(stringInterpolation: Interpolation) { parts = stringInterpolation.parts }

    /// The message with each field named by `name` (eg: `{ "--" + $0 }` for the command line).
    public func rendered(naming name: (String) -> String) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .field(let field): out += name(field)
            }
        }
        return out
    }

    /// The message with the fields' own names ("date 'x' is not a date").
    public var description: String { rendered { $0 } }

    /// Two messages one after the other, their fields kept.
    public static func + (lhs: FieldText, rhs: FieldText) -> FieldText {
        var joined = lhs
        for part in rhs.parts {
            if case .text(let text) = part, case .text(let previous)? = joined.parts.last {
                joined.parts[joined.parts.count - 1] = .text(previous + text)
            } else {
                joined.parts.append(part)
            }
        }
        return joined
    }

    /// The field the message begins with, or nil.
    public var leadingField: String? {
        for part in parts {
            switch part {
            case .text(let text) where text.isEmpty: continue
            case .text: return nil
            case .field(let field): return field
            }
        }
        return nil
    }

    public struct Interpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { append(literal) }

        public mutating func appendInterpolation<T>(_ value: T) { append(String(describing: value)) }

        /// Another message, its fields kept.
        public mutating func appendInterpolation(_ text: FieldText) {
            for part in text.parts {
                switch part {
                case .text(let t): append(t)
                case .field(let f): parts.append(.field(f))
                }
            }
        }

        /// An argument, named by its field.
        public mutating func appendInterpolation(field name: String) { parts.append(.field(name)) }

        private mutating func append(_ text: String) {
            guard !text.isEmpty else { return }
            if case .text(let previous)? = parts.last {
                parts[parts.count - 1] = .text(previous + text)
            } else {
                parts.append(.text(text))
            }
        }
    }
}
