// The byte-level pieces of JSON string escapes that every reader of JSON text needs: hex digits of
// `\uXXXX`, surrogate pairs, and UTF-8 encoding of the resulting scalar. Inlinable, so readers in
// other modules (the practice plugin's canonical stream) pay no call.

public enum JSONEscapes {
    /// The value of a hexadecimal digit (`0-9`, `a-f`, `A-F`), or nil.
    @inlinable @inline(__always)
    public static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The scalar of a UTF-16 surrogate pair (high in D800–DBFF, low in DC00–DFFF).
    @inlinable @inline(__always)
    public static func scalar(high: UInt16, low: UInt16) -> UInt32 {
        0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
    }

    /// Appends a Unicode scalar value as UTF-8.
    @inlinable @inline(__always)
    public static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80: out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
