// Writing pictures (SVG) quickly and correctly: a byte buffer with fixed-decimal numbers without
// Foundation formatting, and XML escaping for text. Shared by every plugin that draws.

public struct SVGText {
    public var bytes: [UInt8] = []

    public init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    public mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }

    public mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func appendByte(_ b: UInt8) { bytes.append(b) }

    /// `v` rounded to `decimals` places (0...6), trailing zeros dropped ("12.5", "3", "-0.25").
    public mutating func appendNumber(_ v: Double, decimals: Int = 2) {
        guard v.isFinite else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let scale = Self.powers[max(0, min(6, decimals))]
        let scaled = (abs(v) * Double(scale)).rounded()
        guard scaled < 9e15 else {
            // Far beyond any picture's coordinates: let Swift spell it.
            bytes.append(contentsOf: v.description.utf8)
            return
        }
        var n = Int(scaled)
        if n == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        var fraction = n % scale
        n /= scale
        appendInteger(n)
        if fraction != 0 {
            var digits = decimals
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            bytes.append(UInt8(ascii: "."))
            var buffer: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (48, 48, 48, 48, 48, 48)
            withUnsafeMutableBytes(of: &buffer) { raw in
                var k = digits - 1
                while k >= 0 {
                    raw[k] = UInt8(48 + fraction % 10)
                    fraction /= 10
                    k -= 1
                }
                bytes.append(contentsOf: raw.prefix(digits))
            }
        }
    }

    public mutating func appendInteger(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendInteger(-value)
            return
        }
        if value < 10 {
            bytes.append(UInt8(48 + value))
            return
        }
        var digits: [UInt8] = []
        var n = value
        while n > 0 {
            digits.append(UInt8(48 + n % 10))
            n /= 10
        }
        bytes.append(contentsOf: digits.reversed())
    }

    /// Text escaped for XML content and attribute values.
    public mutating func appendEscaped(_ s: String) {
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "&"): append("&amp;" as StaticString)
            case UInt8(ascii: "<"): append("&lt;" as StaticString)
            case UInt8(ascii: ">"): append("&gt;" as StaticString)
            case UInt8(ascii: "\""): append("&quot;" as StaticString)
            case UInt8(ascii: "'"): append("&#39;" as StaticString)
            default: bytes.append(b)
            }
        }
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private static let powers = [1, 10, 100, 1000, 10000, 100_000, 1_000_000]

    /// `text` escaped for XML content and attribute values.
    public static func escape(_ text: String) -> String {
        var out = SVGText(capacity: text.utf8.count + 8)
        out.appendEscaped(text)
        return out.string
    }
}
