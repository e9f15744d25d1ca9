// A strict RFC 8259 parser over UTF-8 bytes. It keeps number lexemes, rejects what a canonical
// form cannot represent (NaN, Infinity, leading zeros, lone surrogates, duplicate keys, control
// characters in strings, invalid UTF-8, trailing garbage, nesting deeper than a limit) and
// reports every error with its line and column.

/// Where something is in a source text. Lines and columns count from 1; columns count bytes.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let offset: Int

    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// The location of a byte offset in `bytes`.
    public init(offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        var line = 1
        var lineStart = 0
        let end = min(offset, bytes.count)
        var i = 0
        while i < end {
            if bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
            i += 1
        }
        self.init(line: line, column: offset - lineStart + 1, offset: offset)
    }

    public var description: String { "\(line):\(column)" }
}

/// A syntax error with its position. `description` reads `line:column: message`.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let location: SourceLocation

    public init(message: String, location: SourceLocation) {
        self.message = message
        self.location = location
    }

    public var description: String { "\(location): \(message)" }
}

/// A parsed document with the source location of every value, keyed by JSON Pointer (RFC 6901).
///
/// The parse records byte offsets only; a line and column is worked out when one is asked for (one
/// binary search over where the lines start). Most documents — a configuration read at every
/// command — are valid, and their locations are never looked at, or only a few of them.
public struct JSONDocument: Sendable {
    public let value: JSONValue
    /// The byte offset of each value, by pointer (see `locations`).
    let offsets: [String: Int]
    /// The byte offset of each object member's key, by the member's pointer.
    let keyOffsets: [String: Int]
    /// Where each line starts (line 1 at offset 0).
    let lineStarts: [Int]
    /// The keys of the members left unbuilt (`JSONParser.parseDocument(_:skippingMembersOf:except:)`), in order.
    public internal(set) var skippedMembers: [String] = []

    init(value: JSONValue, offsets: [String: Int], keyOffsets: [String: Int], bytes: UnsafeBufferPointer<UInt8>) {
        self.value = value
        self.offsets = offsets
        self.keyOffsets = keyOffsets
        var starts = [0]
        for i in bytes.indices where bytes[i] == 0x0A { starts.append(i + 1) }
        lineStarts = starts
    }

    /// `""` is the root; `"/sites/default/plugins/0"` an array element. Keys are escaped (`~0`, `~1`).
    /// Built when asked for: prefer `location(of:)` for one value.
    public var locations: [String: SourceLocation] { offsets.mapValues(location(atOffset:)) }
    /// Where each object member's key is, by the member's pointer (for "unknown key" messages).
    public var keyLocations: [String: SourceLocation] { keyOffsets.mapValues(location(atOffset:)) }

    /// Line and column (1-based, the column in bytes) of a byte offset.
    func location(atOffset offset: Int) -> SourceLocation {
        // The last line start at or before `offset`.
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return SourceLocation(line: low + 1, column: offset - lineStarts[low] + 1, offset: offset)
    }

    /// The location of the value at `pointer`, or of its nearest recorded ancestor.
    public func location(of pointer: String) -> SourceLocation {
        var p = pointer
        while true {
            if let offset = offsets[p] { return location(atOffset: offset) }
            guard let slash = p.lastIndex(of: "/") else { return SourceLocation(line: 1, column: 1, offset: 0) }
            p = String(p[..<slash])
        }
    }

    /// The location of the value at `pointer` when the document has one there (no ancestor's).
    public func exactLocation(of pointer: String) -> SourceLocation? {
        offsets[pointer].map(location(atOffset:))
    }

    /// The location of the key of the member at `pointer` (its value's location if unknown).
    public func keyLocation(of pointer: String) -> SourceLocation {
        keyOffsets[pointer].map(location(atOffset:)) ?? location(of: pointer)
    }

    /// Escapes one reference token for use in a JSON Pointer.
    public static func escapePointerToken(_ token: String) -> String {
        // Byte checks: the generic substring search of the standard library costs microseconds a key.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        var out = String.UnicodeScalarView()
        for scalar in token.unicodeScalars {
            switch scalar {
            case "~": out.append(contentsOf: "~0".unicodeScalars)
            case "/": out.append(contentsOf: "~1".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}

public struct JSONParser {
    public struct Options: Sendable {
        /// Deepest nesting of arrays and objects accepted (a guard against stack exhaustion).
        public var maxDepth: Int = 512
        /// Accept `{"a":1,"a":2}` (the last wins) instead of reporting the duplicate.
        public var allowDuplicateKeys: Bool = false
        public init(maxDepth: Int = 512, allowDuplicateKeys: Bool = false) {
            self.maxDepth = maxDepth
            self.allowDuplicateKeys = allowDuplicateKeys
        }
    }

    /// Parses one JSON text (surrounding whitespace allowed, nothing else).
    public static func parse(_ text: String, options: Options = Options()) throws(JSONParseError) -> JSONValue {
        var copy = text
        let result = copy.withUTF8 { buffer in
            Result { () throws(JSONParseError) in try parse(buffer, options: options) }
        }
        return try result.get()
    }

    public static func parse(bytes: [UInt8], options: Options = Options()) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in try parse(buffer, options: options) }
    }

    public static func parse<Bytes: Sequence>(bytes: Bytes, options: Options = Options()) throws(JSONParseError)
        -> JSONValue where Bytes.Element == UInt8
    {
        try parse(bytes: Array(bytes), options: options)
    }

    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>, options: Options = Options()) throws(JSONParseError)
        -> JSONValue
    {
        var parser = Parser(buffer, options: options, recorder: nil)
        return try parser.parseDocument()
    }

    /// Parses and records the location of every value (for validators that point at file:line:column).
    public static func parseDocument(_ text: String, options: Options = Options()) throws(JSONParseError) -> JSONDocument {
        var copy = text
        let result = copy.withUTF8 { buffer in
            Result { () throws(JSONParseError) in
                let recorder = LocationRecorder(expectedValues: buffer.count / 16)
                var parser = Parser(buffer, options: options, recorder: recorder)
                let value = try parser.parseDocument()
                return JSONDocument(value: value, offsets: recorder.offsets, keyOffsets: recorder.keyOffsets, bytes: buffer)
            }
        }
        return try result.get()
    }

    /// Which member of the object whose others are skipped is built.
    public enum KeptMember: Sendable {
        /// The member of that name.
        case named(String)
        /// The member named by the string value of this member of the root object, when it comes before the
        /// object (`"default_site": "a"` before `"sites"`); otherwise nothing is skipped.
        case namedByRootMember(String)
    }

    /// Parses and records locations as `parseDocument(_:options:)` does, except the members of the object at
    /// `pointer` other than the one `keep` says: each is checked to be one well-formed value (JSONScanner: strings
    /// and their UTF-8, numbers, literals, nesting no deeper than JSONScanner.maximumDepth below it; duplicate keys
    /// inside it are not looked for) and not built — it stands in its object as `null`, has no location but its
    /// key's, and its key is listed in the document's `skippedMembers`. A member that is not well-formed is parsed,
    /// so the error is the one a whole parse reports. For a reader that needs one member of a large object (one
    /// site of a configuration) and trusts the others, or checks them elsewhere.
    public static func parseDocument(_ text: String, options: Options = Options(), skippingMembersOf pointer: String,
                                     except keep: KeptMember) throws(JSONParseError) -> JSONDocument
    {
        var copy = text
        let result = copy.withUTF8 { buffer in
            Result { () throws(JSONParseError) in
                let recorder = LocationRecorder(expectedValues: buffer.count / 16)
                var parser = Parser(buffer, options: options, recorder: recorder)
                switch keep {
                case .named(let name): parser.skipRule = (pointer, name, nil)
                case .namedByRootMember(let member): parser.skipRule = (pointer, nil, member)
                }
                let value = try parser.parseDocument()
                var document = JSONDocument(value: value, offsets: recorder.offsets, keyOffsets: recorder.keyOffsets, bytes: buffer)
                document.skippedMembers = parser.skipped
                return document
            }
        }
        return try result.get()
    }
}

/// The JSON Pointer of the value being parsed and the offsets of every value and key (only when
/// a JSONDocument is wanted; plain parsing carries none of it).
private final class LocationRecorder {
    /// The pointer of the value being parsed, grown and cut in place as the parser enters and leaves.
    var current = ""
    private var lengths: [Int] = []
    var offsets: [String: Int] = [:]
    var keyOffsets: [String: Int] = [:]

    init(expectedValues: Int) {
        offsets.reserveCapacity(expectedValues)
        keyOffsets.reserveCapacity(expectedValues)
    }

    func push(_ token: String) {
        lengths.append(current.utf8.count)
        current += "/"
        current += token
    }

    func push(index: Int) { push(String(index)) }

    func pop() {
        guard let length = lengths.popLast() else { return }
        // Tokens are whole strings appended after "/", so the cut is on a character boundary.
        current = String(decoding: current.utf8.prefix(length), as: UTF8.self)
    }
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let options: JSONParser.Options
    let recorder: LocationRecorder?
    var index = 0
    var depth = 0
    // Elements and members of the arrays and objects being parsed, innermost last. Each finished
    // container copies its part out once, at its final size, instead of growing its own array.
    var elementStack: [JSONValue] = []
    var memberStack: [(key: String, value: JSONValue)] = []
    /// The object whose other members are scanned, not built (JSONParser.parseDocument(_:skippingMembersOf:except:)):
    /// the member kept (nil: none yet, nothing is skipped), or the root member whose string names it.
    var skipRule: (pointer: String, keep: String?, keepFrom: String?)?
    /// The keys of the members skipped, in document order.
    var skipped: [String] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, options: JSONParser.Options, recorder: LocationRecorder?) {
        self.bytes = bytes
        self.options = options
        self.recorder = recorder
    }

    func fail(_ message: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(message: message, location: SourceLocation(offset: offset ?? index, in: bytes))
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        // A UTF-8 byte order mark is not JSON text (RFC 8259 §8.1); say so instead of "unexpected".
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw fail("byte order mark at the start of the text; save the file as UTF-8 without BOM")
        }
        skipWhitespace()
        guard index < bytes.count else { throw fail("empty input; expected a JSON value") }
        do throws(JSONParseError) {
            let value = try parseValue()
            skipWhitespace()
            if index < bytes.count { throw fail("unexpected \(describeByte(at: index)) after the JSON value") }
            return value
        } catch {
            // A CSV file given where JSON is expected fails on its first line: say what it looks like.
            guard error.location.line == 1, looksLikeCSV() else { throw error }
            throw JSONParseError(message: "this looks like CSV (lines of comma-separated values), not JSON (\(error.message))",
                                 location: error.location)
        }
    }

    /// The first line is not a JSON value's start and holds two or more fields separated by commas,
    /// semicolons or tabs.
    func looksLikeCSV() -> Bool {
        var i = 0
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
        guard i < bytes.count else { return false }
        switch bytes[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return false
        default: break
        }
        var separators = 0
        while i < bytes.count, bytes[i] != 0x0A, bytes[i] != 0x0D, i < 4096 {
            if bytes[i] == UInt8(ascii: ",") || bytes[i] == UInt8(ascii: ";") || bytes[i] == 0x09 { separators += 1 }
            i += 1
        }
        return separators >= 1
    }

    @inline(__always) mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let b = bytes[offset]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        switch b {
        case 0x20: return "space"
        case 0x0A: return "newline"
        default:
            let hex = String(b, radix: 16, uppercase: true)
            return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        if let recorder { recorder.offsets[recorder.current] = index }
        guard index < bytes.count else { throw fail("unexpected end of input; expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"):
            if matches("null") { index += 4; return .null }
            if matches("nan") { throw fail("NaN is not a JSON number") }
            throw fail("unexpected \(describeByte(at: index)); expected a value")
        case UInt8(ascii: "N"):
            throw fail(matches("NaN") ? "NaN is not a JSON number" : "unexpected 'N'; expected a value")
        case UInt8(ascii: "I"):
            throw fail(matches("Infinity") ? "Infinity is not a JSON number" : "unexpected 'I'; expected a value")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw fail("unexpected \(describeByte(at: index)); expected a value")
        }
    }

    func matches(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard index + n <= bytes.count else { return false }
        let p = literal.utf8Start
        for k in 0..<n where bytes[index + k] != p[k] { return false }
        return true
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        guard matches(literal) else {
            throw fail("unexpected \(describeByte(at: index)); expected a value")
        }
        index += literal.utf8CodeUnitCount
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > options.maxDepth {
            throw fail("nesting deeper than \(options.maxDepth) levels")
        }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject())
        }
        let base = memberStack.count
        var seen: Set<ExactKey>? = nil
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input inside an object; expected a key") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw fail("unexpected \(describeByte(at: index)); expected a string key")
            }
            let keyOffset = index
            let key = try parseString()
            // Keys compare by their bytes: Swift's == treats canonically equivalent strings ("\u{E9}"
            // and "e\u{301}") as equal, JSON does not. Small objects: a linear scan beats hashing;
            // switch to a set past 16 members.
            var duplicateIndex: Int? = nil
            if memberStack.count - base < 16 {
                for i in base..<memberStack.count where ExactKey.equal(memberStack[i].key, key) { duplicateIndex = i; break }
            } else {
                if seen == nil { seen = Set(memberStack[base...].map { ExactKey($0.key) }) }
                if seen?.contains(ExactKey(key)) == true {
                    duplicateIndex = memberStack[base...].firstIndex { ExactKey.equal($0.key, key) }
                }
            }
            if duplicateIndex != nil && !options.allowDuplicateKeys {
                throw fail("duplicate key \"\(key)\" in object", at: keyOffset)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("unexpected \(describeByte(at: index)); expected ':' after key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            let value: JSONValue
            if let rule = skipRule, let recorder, let keep = rule.keep, recorder.current == rule.pointer,
               !key.utf8.elementsEqual(keep.utf8), let end = JSONScanner.valueEnd(bytes, from: index) {
                // Well-formed: stands as null, its key located, its value not. (Not well-formed: parsed below for its error.)
                index = end
                skipped.append(key)
                recorder.push(JSONDocument.escapePointerToken(key))
                recorder.keyOffsets[recorder.current] = keyOffset
                recorder.pop()
                value = .null
            } else {
                if let recorder {
                    recorder.push(JSONDocument.escapePointerToken(key))
                    recorder.keyOffsets[recorder.current] = keyOffset
                }
                value = try parseValue()
                recorder?.pop()
                if depth == 1, let rule = skipRule, let from = rule.keepFrom, rule.keep == nil, key.utf8.elementsEqual(from.utf8),
                   case .string(let name) = value {
                    skipRule?.keep = name
                }
            }
            if let i = duplicateIndex {
                memberStack[i].value = value
            } else {
                memberStack.append((key, value))
                seen?.insert(ExactKey(key))
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input; expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw fail("unexpected \(describeByte(at: index)); expected ',' or '}'")
        }
        depth -= 1
        let members = Array(memberStack[base...])
        memberStack.removeSubrange(base...)
        return .object(JSONObject(members))
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        let base = elementStack.count
        while true {
            skipWhitespace()
            recorder?.push(index: elementStack.count - base)
            let element = try parseValue()
            elementStack.append(element)
            recorder?.pop()
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input; expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw fail("unexpected \(describeByte(at: index)); expected ',' or ']'")
        }
        depth -= 1
        let elements = Array(elementStack[base...])
        elementStack.removeSubrange(base...)
        return .array(elements)
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") {
            index += 1
            if matches("Infinity") { throw fail("-Infinity is not a JSON number", at: start) }
        }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw fail("a number needs a digit after '-'", at: start)
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw fail("leading zeros are not allowed in JSON numbers", at: start)
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fail("a number needs a digit after the decimal point", at: start)
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fail("a number needs a digit in its exponent", at: start)
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let lexeme = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return JSONNumber(lexeme: lexeme, isInteger: isInteger)
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    mutating func parseString() throws(JSONParseError) -> String {
        let quote = index
        index += 1
        let start = index
        // Fast path: plain ASCII/UTF-8 without escapes.
        var ascii = true
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii || isValidUTF8(slice) { return String(decoding: slice, as: UTF8.self) }
                throw fail("invalid UTF-8 in string", at: firstInvalidUTF8(in: start..<(index - 1)))
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw fail(controlCharacterMessage(b)) }
            if b >= 0x80 { ascii = false }
            index += 1
        }
        guard index < bytes.count else { throw fail("unterminated string", at: quote) }
        // Slow path: escapes present.
        var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                if out.withUnsafeBufferPointer({ isValidUTF8($0) }) { return String(decoding: out, as: UTF8.self) }
                throw fail("invalid UTF-8 in string", at: firstInvalidUTF8(in: (quote + 1)..<(index - 1)))
            }
            if b < 0x20 { throw fail(controlCharacterMessage(b)) }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                index += 1
                continue
            }
            let escapeStart = index
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                let unit = try parseHex4(escapeStart: escapeStart)
                var scalar: UInt32
                if unit >= 0xD800 && unit <= 0xDBFF {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    else { throw fail("lone high surrogate \\u\(hex4(unit)) (not valid Unicode)", at: escapeStart) }
                    let lowStart = index
                    index += 2
                    let low = try parseHex4(escapeStart: lowStart)
                    guard low >= 0xDC00 && low <= 0xDFFF else {
                        throw fail("high surrogate \\u\(hex4(unit)) not followed by a low surrogate", at: escapeStart)
                    }
                    scalar = JSONEscapes.scalar(high: unit, low: low)
                } else if unit >= 0xDC00 && unit <= 0xDFFF {
                    throw fail("lone low surrogate \\u\(hex4(unit)) (not valid Unicode)", at: escapeStart)
                } else {
                    scalar = UInt32(unit)
                }
                JSONEscapes.appendUTF8(scalar, to: &out)
            default:
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))' in string", at: escapeStart)
            }
        }
        throw fail("unterminated string", at: quote)
    }

    func controlCharacterMessage(_ b: UInt8) -> String {
        "control character U+00\(b < 0x10 ? "0" : "")\(String(b, radix: 16, uppercase: true)) must be escaped in a string"
    }

    func hex4(_ v: UInt16) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - s.count) + s
    }

    mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw fail("incomplete \\u escape", at: escapeStart) }
        var v: UInt16 = 0
        for _ in 0..<4 {
            guard let d = JSONEscapes.hexValue(bytes[index]) else {
                throw fail("invalid \\u escape: expected 4 hex digits", at: escapeStart)
            }
            v = v << 4 | UInt16(d)
            index += 1
        }
        return v
    }


    /// The offset of the first byte that breaks UTF-8 validity in `range` (for the error position).
    func firstInvalidUTF8(in range: Range<Int>) -> Int {
        var i = range.lowerBound
        while i < range.upperBound {
            let b = bytes[i]
            let n: Int
            if b < 0x80 { n = 1 } else if b & 0xE0 == 0xC0 { n = 2 } else if b & 0xF0 == 0xE0 { n = 3 }
            else if b & 0xF8 == 0xF0 { n = 4 } else { return i }
            if i + n > range.upperBound { return i }
            if !isValidUTF8(UnsafeBufferPointer(rebasing: bytes[i..<(i + n)])) { return i }
            i += n
        }
        return range.lowerBound
    }
}

/// Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
@inline(__always)
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = bytes.count
    while i < n {
        let b0 = bytes[i]
        if b0 < 0x80 { i += 1; continue }
        if b0 < 0xC2 { return false }
        if b0 < 0xE0 {
            guard i + 1 < n, bytes[i + 1] & 0xC0 == 0x80 else { return false }
            i += 2
            continue
        }
        if b0 < 0xF0 {
            guard i + 2 < n else { return false }
            let b1 = bytes[i + 1], b2 = bytes[i + 2]
            guard b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80 else { return false }
            if b0 == 0xE0 && b1 < 0xA0 { return false }   // overlong
            if b0 == 0xED && b1 >= 0xA0 { return false }  // UTF-16 surrogates
            i += 3
            continue
        }
        guard b0 < 0xF5, i + 3 < n else { return false }
        let b1 = bytes[i + 1], b2 = bytes[i + 2], b3 = bytes[i + 3]
        guard b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80, b3 & 0xC0 == 0x80 else { return false }
        if b0 == 0xF0 && b1 < 0x90 { return false }  // overlong
        if b0 == 0xF4 && b1 >= 0x90 { return false }  // above U+10FFFF
        i += 4
    }
    return true
}
