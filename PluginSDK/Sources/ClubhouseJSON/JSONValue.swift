// A JSON document model that keeps what the source said: object keys in source order and each
// number's exact lexeme (so `1.0` stays `1.0` and `1e400` is never silently rounded).

/// A JSON number as written in the source: its lexeme and whether it was an integer literal.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The exact source text, e.g. `"-0.0"`, `"1E+30"`, `"42"`.
    public let lexeme: String
    /// True when the lexeme has no fraction and no exponent (`42`, `-7`).
    public let isInteger: Bool

    /// Makes a number from a lexeme the caller vouches for (the parser, or `init(_:)` below).
    public init(lexeme: String, isInteger: Bool) {
        self.lexeme = lexeme
        self.isInteger = isInteger
    }

    public init(_ value: Int) {
        self.init(lexeme: String(value), isInteger: true)
    }

    /// A finite double, written in the shortest form that round-trips; whole values keep `.0`.
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON has no NaN or Infinity")
        self.init(lexeme: value.description, isInteger: false)
    }

    /// The value as a double (may be ±infinity for out-of-range lexemes such as `1e400`).
    public var double: Double { Double(lexeme) ?? .nan }

    /// The value as an Int when it is an integer literal that fits, or a float with an integral value.
    public var int: Int? {
        if isInteger { return Int(lexeme) }
        let d = double
        guard d.isFinite, d.rounded() == d, abs(d) < 9.0e18 else { return nil }
        return Int(d)
    }

    public var description: String { lexeme }
}

/// A key compared and hashed by its UTF-8 bytes. JSON keys are code point sequences; Swift's
/// String == would call canonically equivalent keys ("\u{E9}" and "e\u{301}") the same key.
struct ExactKey: Hashable {
    let key: String
    init(_ key: String) { self.key = key }

    @inline(__always) static func equal(_ a: String, _ b: String) -> Bool {
        let n = a.utf8.count
        guard n == b.utf8.count else { return false }
        if n == 0 { return true }
        var a = a, b = b
        return a.withUTF8 { pa in b.withUTF8 { pb in pa.elementsEqual(pb) } }
    }

    static func == (lhs: ExactKey, rhs: ExactKey) -> Bool { equal(lhs.key, rhs.key) }

    func hash(into hasher: inout Hasher) {
        var key = key
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// An object's members in source order. Keys are unique by their bytes (the parser rejects duplicates).
public struct JSONObject: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }

    public init(_ members: [(key: String, value: JSONValue)]) { self.members = members }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { (key: $0.0, value: $0.1) }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// The member's value, or nil. Setting replaces in place or appends; setting nil removes.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in members where ExactKey.equal(member.key, key) { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { ExactKey.equal($0.key, key) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (l, r) in zip(lhs.members, rhs.members) where !ExactKey.equal(l.key, r.key) || l.value != r.value {
            return false
        }
        return true
    }
}

/// A JSON value.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
    public static func double(_ value: Double) -> JSONValue {
        value.isFinite ? .number(JSONNumber(value)) : .null
    }

    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var numberValue: JSONNumber? { if case .number(let n) = self { return n } else { return nil } }
    public var doubleValue: Double? { numberValue?.double }
    public var intValue: Int? { numberValue?.int }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// Member lookup on objects; nil for anything else.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// A short name of the value's kind for error messages ("an object", "a string", ...).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number(let n): return n.isInteger ? "an integer" : "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String { JSONWriter.compact(self) }
}
