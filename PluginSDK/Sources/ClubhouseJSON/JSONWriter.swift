// Writes JSON text. Strings use the minimal escaping of RFC 8785 §3.2.2.2 (quote, backslash,
// \b \f \n \r \t, other C0 controls as \u00xx lowercase, everything else raw UTF-8), so the same
// routine serves ordinary output and canonical forms.

public enum JSONWriter {
    /// Compact text: no whitespace, members in stored order.
    public static func compact(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, indent: nil, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Human-readable text with two-space indentation, members in stored order.
    public static func pretty(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, indent: 2, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value` as compact JSON to a byte buffer.
    public static func appendCompact(_ value: JSONValue, to out: inout [UInt8]) {
        write(value, into: &out, indent: nil, level: 0)
    }

    static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int?, level: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.lexeme.utf8)
        case .string(let s): appendQuoted(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            if elements.isEmpty { out.append(UInt8(ascii: "]")); return }
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent: indent, level: level + 1)
                write(element, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent: indent, level: level)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            if object.isEmpty { out.append(UInt8(ascii: "}")); return }
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent: indent, level: level + 1)
                appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(member.value, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent: indent, level: level)
            out.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always) static func newline(_ out: inout [UInt8], indent: Int?, level: Int) {
        guard let indent else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `"s"` with minimal escaping (RFC 8785 §3.2.2.2).
    public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var runStart = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                runStart = i + 1
                out.append(UInt8(ascii: "\\"))
                switch b {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]])
                }
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `s` as a quoted JSON string literal.
    public static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
