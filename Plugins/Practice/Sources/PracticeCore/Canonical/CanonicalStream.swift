import ClubhouseJSON

/// Canonicalizes JSON text in one pass, without building a `JSONValue` tree: the fast path behind
/// `practice canonicalize` and `practice hash` (a tree costs an allocation per container and a
/// teardown per document, several times the work of the canonical form itself).
///
/// It accepts exactly what `JSONParser` accepts and writes exactly what `CanonicalJSON` writes for
/// the parsed value (tests check both over the peers' corpus and the bad-input cases). It never
/// explains a rejection: on any error it returns nil and the caller parses again with
/// `JSONParser` for the message and its line:column.
struct CanonicalStream {
    let profile: CanonicalProfile
    let maxDepth = 512
    /// The canonical bytes of the last document.
    private(set) var output: [UInt8] = []
    /// Decoded keys of the objects being written, innermost last.
    private var keyArena: [UInt8] = []
    private var members: [Member] = []
    /// Holds an object's members while they are written back in order.
    private var reorder: [UInt8] = []
    private var unescaped: [UInt8] = []
    private var input = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var index = 0
    private var depth = 0

    /// One member of an object being written: its decoded key (in the input when it has no
    /// escapes, else in `keyArena`) and its text (`"key":value`) in `output`.
    private struct Member {
        var keyStart: Int
        var keyEnd: Int
        var keyInInput: Bool
        var textStart: Int
        var textEnd: Int
    }

    /// Stops the pass; the caller falls back to `JSONParser` to say why.
    private struct Reject: Error {}

    init(profile: CanonicalProfile) {
        self.profile = profile
        output.reserveCapacity(4096)
        reorder.reserveCapacity(4096)
    }

    /// Writes the canonical form of `text` into `output`; false when the text is not valid JSON or
    /// holds a number no double can represent.
    mutating func canonicalize(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        input = text
        index = 0
        depth = 0
        output.removeAll(keepingCapacity: true)
        keyArena.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        do {
            skipWhitespace()
            try value()
            skipWhitespace()
            return index == input.count
        } catch {
            return false
        }
    }

    @inline(__always) private mutating func skipWhitespace() {
        while index < input.count {
            let b = input[index]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            index += 1
        }
    }

    private mutating func value() throws(Reject) {
        guard index < input.count else { throw Reject() }
        switch input[index] {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""):
            let (start, end, escaped) = try scanString()
            if escaped {
                try unescape(start, end)
                appendQuoted(unescaped)
            } else {
                output.append(UInt8(ascii: "\""))
                output.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<end]))
                output.append(UInt8(ascii: "\""))
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw Reject()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Reject) {
        let n = word.utf8CodeUnitCount
        guard index + n <= input.count else { throw Reject() }
        let p = word.utf8Start
        for k in 0..<n where input[index + k] != p[k] { throw Reject() }
        output.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
        index += n
    }

    private mutating func array() throws(Reject) {
        depth += 1
        guard depth <= maxDepth else { throw Reject() }
        index += 1
        output.append(UInt8(ascii: "["))
        skipWhitespace()
        if index < input.count && input[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                try value()
                skipWhitespace()
                guard index < input.count else { throw Reject() }
                let b = input[index]
                index += 1
                if b == UInt8(ascii: ",") { output.append(b); continue }
                if b == UInt8(ascii: "]") { break }
                throw Reject()
            }
        }
        output.append(UInt8(ascii: "]"))
        depth -= 1
    }

    private mutating func object() throws(Reject) {
        depth += 1
        guard depth <= maxDepth else { throw Reject() }
        index += 1
        let objectStart = output.count
        output.append(UInt8(ascii: "{"))
        skipWhitespace()
        if index < input.count && input[index] == UInt8(ascii: "}") {
            index += 1
            output.append(UInt8(ascii: "}"))
            depth -= 1
            return
        }
        let memberBase = members.count
        let arenaBase = keyArena.count
        // Members are written in source order first, each as `"key":value`, then put in order.
        while true {
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: "\"") else { throw Reject() }
            let (start, end, escaped) = try scanString()
            var keyStart = start, keyEnd = end
            let textStart = output.count
            if escaped {
                try unescape(start, end)
                keyStart = keyArena.count
                keyArena.append(contentsOf: unescaped)
                keyEnd = keyArena.count
                appendQuoted(unescaped)
            } else {
                // Quote, key and quote straight from the input.
                output.append(contentsOf: UnsafeBufferPointer(rebasing: input[(start - 1)..<(end + 1)]))
            }
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: ":") else { throw Reject() }
            index += 1
            output.append(UInt8(ascii: ":"))
            skipWhitespace()
            try value()
            members.append(Member(keyStart: keyStart, keyEnd: keyEnd, keyInInput: !escaped, textStart: textStart, textEnd: output.count))
            skipWhitespace()
            guard index < input.count else { throw Reject() }
            let b = input[index]
            index += 1
            if b == UInt8(ascii: ",") { output.append(b); continue }
            if b == UInt8(ascii: "}") { break }
            throw Reject()
        }
        try writeInOrder(objectStart: objectStart, memberRange: memberBase..<members.count)
        members.removeSubrange(memberBase...)
        keyArena.removeSubrange(arenaBase...)
        depth -= 1
    }

    /// Puts the members written in `output[objectStart...]` (source order, comma-separated) in
    /// UTF-16 key order and closes the object; equal keys reject the document.
    private mutating func writeInOrder(objectStart: Int, memberRange: Range<Int>) throws(Reject) {
        var moved = false
        var duplicate = false
        let source = input
        keyArena.withUnsafeBufferPointer { arena in
            members.withUnsafeMutableBufferPointer { all in
                let m = UnsafeMutableBufferPointer(rebasing: all[memberRange])
                @inline(__always) func key(_ member: Member) -> UnsafeBufferPointer<UInt8> {
                    UnsafeBufferPointer(rebasing: (member.keyInInput ? source : arena)[member.keyStart..<member.keyEnd])
                }
                // Insertion sort: objects are small, and source order is often nearly sorted.
                for i in 1..<max(m.count, 1) {
                    let current = m[i]
                    let currentKey = key(current)
                    var j = i
                    while j > 0 && UTF16KeyOrder.precedes(currentKey, key(m[j - 1])) {
                        m[j] = m[j - 1]
                        j -= 1
                    }
                    if j != i {
                        moved = true
                        m[j] = current
                    }
                }
                for i in 1..<max(m.count, 1) where key(m[i - 1]).elementsEqual(key(m[i])) {
                    duplicate = true
                    break
                }
            }
        }
        if duplicate { throw Reject() }
        if moved {
            let shift = objectStart + 1
            reorder.removeAll(keepingCapacity: true)
            reorder.append(contentsOf: output[shift...])
            output.removeSubrange(shift...)
            reorder.withUnsafeBufferPointer { r in
                var first = true
                for i in memberRange {
                    if !first { output.append(UInt8(ascii: ",")) }
                    first = false
                    let m = members[i]
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: r[(m.textStart - shift)..<(m.textEnd - shift)]))
                }
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Scans a string starting at its opening quote and returns its raw content range and whether
    /// it holds escapes. Rejects control characters, bad escapes and invalid UTF-8.
    private mutating func scanString() throws(Reject) -> (Int, Int, Bool) {
        index += 1
        let start = index
        var high: UInt8 = 0
        var escaped = false
        while index < input.count {
            let b = input[index]
            if b == UInt8(ascii: "\"") {
                let end = index
                index += 1
                if high >= 0x80, !CanonicalStream.isValidUTF8(UnsafeBufferPointer(rebasing: input[start..<end])) {
                    throw Reject()
                }
                return (start, end, escaped)
            }
            if b < 0x20 { throw Reject() }
            if b == UInt8(ascii: "\\") {
                escaped = true
                index += 1
                guard index < input.count else { throw Reject() }
                switch input[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    // Checked in full by unescape(); here only the shape.
                    index += 1
                default:
                    throw Reject()
                }
                continue
            }
            high |= b
            index += 1
        }
        throw Reject()
    }

    /// Decodes the escapes of `input[start..<end]` into `unescaped`; lone surrogates reject.
    private mutating func unescape(_ start: Int, _ end: Int) throws(Reject) {
        unescaped.removeAll(keepingCapacity: true)
        var i = start
        while i < end {
            let b = input[i]
            if b != UInt8(ascii: "\\") {
                unescaped.append(b)
                i += 1
                continue
            }
            let e = input[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\""): unescaped.append(0x22)
            case UInt8(ascii: "\\"): unescaped.append(0x5C)
            case UInt8(ascii: "/"): unescaped.append(0x2F)
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            default:
                let unit = try hex4(at: i, end: end)
                i += 4
                var scalar = UInt32(unit)
                if unit >= 0xD800 && unit <= 0xDBFF {
                    guard i + 6 <= end, input[i] == UInt8(ascii: "\\"), input[i + 1] == UInt8(ascii: "u") else { throw Reject() }
                    let low = try hex4(at: i + 2, end: end)
                    guard low >= 0xDC00 && low <= 0xDFFF else { throw Reject() }
                    i += 6
                    scalar = JSONEscapes.scalar(high: unit, low: low)
                } else if unit >= 0xDC00 && unit <= 0xDFFF {
                    throw Reject()
                }
                JSONEscapes.appendUTF8(scalar, to: &unescaped)
            }
        }
    }

    private func hex4(at i: Int, end: Int) throws(Reject) -> UInt16 {
        guard i + 4 <= end else { throw Reject() }
        var v: UInt16 = 0
        for k in 0..<4 {
            guard let d = JSONEscapes.hexValue(input[i + k]) else { throw Reject() }
            v = v << 4 | UInt16(d)
        }
        return v
    }


    /// Appends `"s"` with the minimal escaping of RFC 8785 §3.2.2.2 (the same as `JSONWriter`).
    private mutating func appendQuoted(_ s: [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for b in s {
            switch b {
            case 0x22: output.append(0x5C); output.append(0x22)
            case 0x5C: output.append(0x5C); output.append(0x5C)
            case 0x08: output.append(0x5C); output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(0x5C); output.append(UInt8(ascii: "f"))
            case 0x0A: output.append(0x5C); output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(0x5C); output.append(UInt8(ascii: "r"))
            case 0x09: output.append(0x5C); output.append(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                output.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30,
                                           hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 0xF)]])
            default: output.append(b)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Scans a number with JSON's grammar and writes its canonical form.
    private mutating func number() throws(Reject) {
        let start = index
        if input[index] == UInt8(ascii: "-") { index += 1 }
        guard index < input.count, isDigit(input[index]) else { throw Reject() }
        if input[index] == UInt8(ascii: "0") {
            index += 1
            if index < input.count, isDigit(input[index]) { throw Reject() }
        } else {
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        var isInteger = true
        if index < input.count, input[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < input.count, isDigit(input[index]) else { throw Reject() }
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") { index += 1 }
            guard index < input.count, isDigit(input[index]) else { throw Reject() }
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        let lexeme = UnsafeBufferPointer(rebasing: input[start..<index])
        guard CanonicalNumber.append(lexeme: lexeme, isInteger: isInteger, profile: profile, to: &output) else {
            throw Reject()
        }
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    /// RFC 3629 UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
    static func isValidUTF8(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = s.count
        while i < n {
            let b = s[i]
            if b < 0x80 { i += 1; continue }
            @inline(__always) func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
                i + k < n && s[i + k] >= lo && s[i + k] <= hi
            }
            switch b {
            case 0xC2...0xDF: guard cont(1) else { return false }; i += 2
            case 0xE0: guard cont(1, 0xA0), cont(2) else { return false }; i += 3
            case 0xE1...0xEC, 0xEE...0xEF: guard cont(1), cont(2) else { return false }; i += 3
            case 0xED: guard cont(1, 0x80, 0x9F), cont(2) else { return false }; i += 3
            case 0xF0: guard cont(1, 0x90), cont(2), cont(3) else { return false }; i += 4
            case 0xF1...0xF3: guard cont(1), cont(2), cont(3) else { return false }; i += 4
            case 0xF4: guard cont(1, 0x80, 0x8F), cont(2), cont(3) else { return false }; i += 4
            default: return false
            }
        }
        return true
    }
}
