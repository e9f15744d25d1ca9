// Checking and slicing JSON without building it: where a value ends (validated against RFC 8259's grammar:
// strings with their escapes and UTF-8, numbers, literals, nesting), and where a member of an object is.
// For passing a document through (a plugin's reply's `data` to an HTTP client) at the cost of one read.
// Stricter or laxer than JSONParser in one way only: duplicate keys are not looked for.

public enum JSONScanner {
    /// Deeper nesting is refused (as JSONParser refuses it).
    public static let maximumDepth = 512

    /// The index just past the JSON value that starts at `start` (after optional whitespace), or nil when
    /// the bytes there are not one well-formed value.
    public static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = skipSpace(bytes, start)
        guard i < bytes.count else { return nil }
        var depth = 0
        // Containers still open: true for an object (a key comes before each value), false for an array.
        var stack: [Bool] = []
        stack.reserveCapacity(16)
        while true {
            // A value at i.
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[i] == UInt8(ascii: "{")
                depth += 1
                if depth > maximumDepth { return nil }
                i = skipSpace(bytes, i + 1)
                guard i < bytes.count else { return nil }
                if bytes[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    depth -= 1
                    i += 1
                } else {
                    stack.append(isObject)
                    if isObject {
                        guard let afterKey = key(bytes, i) else { return nil }
                        i = afterKey
                    }
                    continue
                }
            case UInt8(ascii: "\""):
                guard let end = stringEnd(bytes, i) else { return nil }
                i = end
            case UInt8(ascii: "t"):
                guard literal(bytes, i, "true") else { return nil }
                i += 4
            case UInt8(ascii: "f"):
                guard literal(bytes, i, "false") else { return nil }
                i += 5
            case UInt8(ascii: "n"):
                guard literal(bytes, i, "null") else { return nil }
                i += 4
            default:
                guard let end = numberEnd(bytes, i) else { return nil }
                i = end
            }
            // After a value: close containers, or go on to the next element.
            while true {
                guard let isObject = stack.last else { return i }
                i = skipSpace(bytes, i)
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: ",") {
                    i = skipSpace(bytes, i + 1)
                    if isObject {
                        guard let afterKey = key(bytes, i) else { return nil }
                        i = afterKey
                    }
                    break
                }
                guard bytes[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return nil }
                stack.removeLast()
                depth -= 1
                i += 1
            }
        }
    }

    /// Whether `bytes` are one JSON value, with nothing but whitespace around it.
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let end = valueEnd(bytes, from: 0) else { return false }
        return skipSpace(bytes, end) == bytes.count
    }

    /// The byte range of the value of member `name` of the object `bytes` holds (the whole object is
    /// checked), or nil when `bytes` are not one object or it has no such member.
    public static func member(_ name: String, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        members([name], in: bytes)?[name]
    }

    /// The byte ranges of the values of the top-level members `names` of the object `bytes` holds, in one
    /// pass that checks the whole object; nil when `bytes` are not one well-formed object. A name the object
    /// lacks is absent from the result.
    public static func members(_ names: [String], in bytes: UnsafeBufferPointer<UInt8>) -> [String: Range<Int>]? {
        var i = skipSpace(bytes, 0)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        i = skipSpace(bytes, i + 1)
        let wanted = names.map { Array($0.utf8) }
        var found: [String: Range<Int>] = [:]
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
            return skipSpace(bytes, i + 1) == bytes.count ? found : nil
        }
        while true {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let keyEnd = stringEnd(bytes, i) else { return nil }
            let keyLength = keyEnd - i - 2
            var matched: Int?
            for (k, name) in wanted.enumerated() where name.count == keyLength {
                var same = true
                for j in 0..<keyLength where bytes[i + 1 + j] != name[j] {
                    same = false
                    break
                }
                if same { matched = k }
            }
            i = skipSpace(bytes, keyEnd)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            let valueStart = skipSpace(bytes, i + 1)
            guard let valueEnd = valueEnd(bytes, from: valueStart) else { return nil }
            if let matched { found[names[matched]] = valueStart..<valueEnd }
            i = skipSpace(bytes, valueEnd)
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: "}") { return skipSpace(bytes, i + 1) == bytes.count ? found : nil }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i = skipSpace(bytes, i + 1)
        }
    }

    static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return i
            }
        }
        return i
    }

    /// After an object's key and its colon, at the value.
    static func key(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "\""), let end = stringEnd(bytes, start) else { return nil }
        let colon = skipSpace(bytes, end)
        guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":") else { return nil }
        return skipSpace(bytes, colon + 1)
    }

    static func literal(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard start + count <= bytes.count else { return false }
        let w = word.utf8Start
        for k in 0..<count where bytes[start + k] != w[k] { return false }
        return true
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    static func numberEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        guard let p = bytes.baseAddress else { return nil }
        let n = bytes.count
        var i = start
        @inline(__always) func digit(_ k: Int) -> Bool { k < n && p[k] &- 0x30 < 10 }
        if i < n && p[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else { return nil }
        if p[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while digit(i) { i += 1 }
        }
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            guard digit(i) else { return nil }
            while digit(i) { i += 1 }
        }
        if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) { i += 1 }
            guard digit(i) else { return nil }
            while digit(i) { i += 1 }
        }
        return i
    }

    /// Just past the closing quote of the string at `start`: escapes checked, control characters refused,
    /// UTF-8 checked (no overlongs, no surrogates, nothing above U+10FFFF).
    static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var i = start + 1
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { return i + 1 }
            if b == UInt8(ascii: "\\") {
                guard i + 1 < bytes.count else { return nil }
                switch bytes[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 5 < bytes.count, (2...5).allSatisfy({ isHex(bytes[i + $0]) }) else { return nil }
                    i += 6
                default:
                    return nil
                }
                continue
            }
            if b < 0x20 { return nil }
            if b < 0x80 {
                i += 1
                continue
            }
            guard let length = utf8Length(bytes, i) else { return nil }
            i += length
        }
        return nil
    }

    static func isHex(_ b: UInt8) -> Bool {
        isDigit(b) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F"))
    }

    /// The length of the well-formed UTF-8 sequence at `i` (a lead byte ≥ 0x80), or nil.
    static func utf8Length(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
        let b0 = bytes[i]
        func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < bytes.count && bytes[i + k] >= low && bytes[i + k] <= high
        }
        switch b0 {
        case 0xC2...0xDF: return continuation(1) ? 2 : nil
        case 0xE0: return continuation(1, 0xA0) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : nil
        case 0xED: return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : nil
        case 0xF0: return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4: return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default: return nil
        }
    }
}
