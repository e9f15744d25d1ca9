// Reading user-supplied JSON with errors that point at file:line:column.

import ClubhouseJSON
import Glibc

/// A mistake in an input file, located at `file:line:column`.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let location: SourceLocation
    public let message: String
    /// For values that came without source text (e.g. a site's plugin config): where in them.
    public let pointer: String?

    public init(file: String, location: SourceLocation, message: String, pointer: String? = nil) {
        self.file = file
        self.location = location
        self.message = message
        self.pointer = pointer
    }

    public var description: String {
        if let pointer { return "\(file) at \(pointer.isEmpty ? "/" : pointer): \(message)" }
        return "\(file):\(location.line):\(location.column): \(message)"
    }
}

/// A parsed JSON document with its file name, and typed accessors that fail with located errors.
public struct JSONInput: Sendable {
    /// The source document (nil for a value that came without text, e.g. a site's plugin config).
    public let document: JSONDocument?
    public let root: JSONValue
    public let file: String
    /// For values without text: errors name this JSON Pointer prefix plus the pointer inside the value.
    private let base: String?

    public init(document: JSONDocument, file: String) {
        self.document = document
        root = document.value
        self.file = file
        base = nil
    }

    /// A value without source locations (a site's plugin config): errors say `file at base/pointer`.
    public init(value: JSONValue, file: String, base: String = "") {
        document = nil
        root = value
        self.file = file
        self.base = base
    }

    /// Parses text; syntax errors become `InputError`s at the parser's location.
    public init(text: String, file: String) throws(InputError) {
        let parsed: JSONDocument
        do {
            parsed = try JSONParser.parseDocument(text)
        } catch {
            throw InputError(file: file, location: error.location, message: error.message)
        }
        self.init(document: parsed, file: file)
    }

    /// Parses text that should be the document `expected` describes ("a JSON drill (schema: …)"):
    /// a file that is not JSON from its first line on (a CSV, a table) is told what was expected.
    public init(text: String, file: String, expecting expected: String) throws(InputError) {
        do {
            try self.init(text: text, file: file)
        } catch {
            guard error.location.line == 1 else { throw error }
            throw InputError(file: error.file, location: error.location, message: error.message + "; expected " + expected)
        }
    }

    private static let start = SourceLocation(line: 1, column: 1, offset: 0)

    public func location(of pointer: String) -> SourceLocation { document?.location(of: pointer) ?? JSONInput.start }

    public func error(at pointer: String, _ message: String) -> InputError {
        if let base { return InputError(file: file, location: JSONInput.start, message: message, pointer: base + pointer) }
        return InputError(file: file, location: location(of: pointer), message: message)
    }

    /// An error located at the key of the member at `pointer` (for unknown keys).
    public func keyError(at pointer: String, _ message: String) -> InputError {
        guard base == nil, let document else { return error(at: pointer, message) }
        return InputError(file: file, location: document.keyLocation(of: pointer), message: message)
    }

    /// The value at a JSON Pointer made of plain tokens (`/entries/3/zone`).
    public func value(at pointer: String) -> JSONValue? {
        var current: JSONValue? = root
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = String(token).replacingTildeEscapes
            if let array = current?.arrayValue {
                guard let i = Int(key), array.indices.contains(i) else { return nil }
                current = array[i]
            } else {
                current = current?[key]
            }
        }
        return current
    }

    public func object(at pointer: String) throws(InputError) -> JSONObject {
        guard let value = value(at: pointer) else { throw error(at: pointer, "missing object") }
        guard let object = value.objectValue else { throw error(at: pointer, "expected an object, found \(value.kindName)") }
        return object
    }

    public func rejectUnknownKeys(_ object: JSONObject, allowed: [String], at pointer: String) throws(InputError) {
        for key in object.keys where !allowed.contains(key) {
            throw keyError(at: pointer + "/" + JSONDocument.escapePointerToken(key),
                        "unknown key \"\(key)\"; expected \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
    }

    public func string(at pointer: String, in value: JSONValue?, default fallback: String) throws(InputError) -> String {
        guard let value else { return fallback }
        guard let s = value.stringValue else { throw error(at: pointer, "expected a string, found \(value.kindName)") }
        return s
    }

    /// An integer (a whole-number literal) within `range`.
    public func integer(at pointer: String, in range: ClosedRange<Int>, what: String) throws(InputError) -> Int {
        guard let value = value(at: pointer) else { throw error(at: pointer, "missing \(what)") }
        guard let number = value.numberValue else { throw error(at: pointer, "\(what) must be a number, found \(value.kindName)") }
        guard let i = number.int, Double(i) == number.double else { throw error(at: pointer, "\(what) must be a whole number, found \(number.lexeme)") }
        guard range.contains(i) else { throw error(at: pointer, "\(what) \(i) is out of range \(range.lowerBound)–\(range.upperBound)") }
        return i
    }

    /// A finite number; within `plausible` (in `unit`) when given.
    public func number(at pointer: String, what: String, plausible: PlausibleRange? = nil) throws(InputError) -> Double {
        guard let value = value(at: pointer) else { throw error(at: pointer, "missing \(what)") }
        guard let number = value.numberValue else { throw error(at: pointer, "\(what) must be a number, found \(value.kindName)") }
        let d = number.double
        guard d.isFinite else { throw error(at: pointer, "\(what) \(number.lexeme) is too large to be a finite number") }
        if let plausible, !plausible.range.contains(d) {
            throw error(at: pointer, "\(what) \(number.lexeme) is outside the plausible \(plausible); check the file's units")
        }
        return d
    }

    /// A point written as `[x, y]`, each coordinate within `plausible` when given.
    public func point(at pointer: String, what: String, plausible: PlausibleRange? = nil) throws(InputError) -> Point2D {
        guard let value = value(at: pointer) else { throw error(at: pointer, "missing \(what)") }
        guard let array = value.arrayValue, array.count == 2 else {
            throw error(at: pointer, "\(what) must be an array of two numbers [x, y], found \(value.kindName == "an array" ? "an array of \(value.arrayValue?.count ?? 0)" : value.kindName)")
        }
        return Point2D(try number(at: pointer + "/0", what: "\(what) x", plausible: plausible),
                       try number(at: pointer + "/1", what: "\(what) y", plausible: plausible))
    }
}

/// The values an input file can plausibly hold, per unit: a file with a value outside is refused (or its
/// line skipped) naming file:line:column, so no later arithmetic meets 1e308. Listed in the tennis
/// CHANGELOG; shown by DetectionFileTests and ExtremeValuesEndToEndTests.
public struct PlausibleRange: Sendable, Equatable, CustomStringConvertible {
    public let range: ClosedRange<Double>
    public let unit: String

    public init(_ range: ClosedRange<Double>, _ unit: String) {
        self.range = range
        self.unit = unit
    }

    /// Image coordinates: a camera's pixels, with room for points a detector places outside the frame.
    public static let imagePixels = PlausibleRange(-100_000...100_000, "px")
    /// Court coordinates: metres around the court.
    public static let courtMetres = PlausibleRange(-1_000...1_000, "m")
    /// A detection's time: seconds on any clock, Unix time included.
    public static let detectionSeconds = PlausibleRange(-10_000_000_000...10_000_000_000, "s")
    /// The longest a detections file may span (a session is hours, not days).
    public static let detectionSpanSeconds = 86_400.0

    public var description: String { "range \(Format.number(range.lowerBound)) to \(Format.number(range.upperBound)) \(unit)" }
}

extension String {
    fileprivate var replacingTildeEscapes: String {
        guard contains("~") else { return self }
        var out = ""
        var it = makeIterator()
        while let c = it.next() {
            if c == "~" {
                switch it.next() {
                case "0": out.append("~")
                case "1": out.append("/")
                case let other?: out.append("~"); out.append(other)
                case nil: out.append("~")
                }
            } else {
                out.append(c)
            }
        }
        return out
    }
}
