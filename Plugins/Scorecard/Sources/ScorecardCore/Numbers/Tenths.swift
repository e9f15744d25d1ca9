// Every World Handicap System quantity that "rounds to a tenth" is held as an integer count of tenths,
// and every rounding decision is made on exact integer fractions: no binary floating point anywhere
// a rounding happens.

/// A decimal quantity with one fractional digit, held exactly as a count of tenths (13.2 is 132).
public struct Tenths: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The value in tenths.
    public var raw: Int

    public init(raw: Int) { self.raw = raw }

    /// A whole number of strokes.
    public init(whole: Int) { raw = whole * 10 }

    public static let zero = Tenths(raw: 0)

    public static func < (lhs: Tenths, rhs: Tenths) -> Bool { lhs.raw < rhs.raw }
    public static func + (lhs: Tenths, rhs: Tenths) -> Tenths { Tenths(raw: lhs.raw + rhs.raw) }
    public static func - (lhs: Tenths, rhs: Tenths) -> Tenths { Tenths(raw: lhs.raw - rhs.raw) }
    public static prefix func - (value: Tenths) -> Tenths { Tenths(raw: -value.raw) }

    /// Plain decimal text with one digit after the point: `13.2`, `-1.5`, `0.0`.
    public var description: String {
        let sign = raw < 0 ? "-" : ""
        let magnitude = raw.magnitude
        return "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    /// Golf notation for a Handicap Index: a plus handicap (below zero) is written `+2.3`.
    public var handicapNotation: String {
        raw < 0 ? "+" + Tenths(raw: -raw).description : description
    }

    /// True when the value has no tenths (`3.0`).
    public var isWhole: Bool { raw % 10 == 0 }

    /// Parses plain decimal text with at most one fractional digit: `13`, `13.2`, `-1.5`, `.5`, `+2.0`.
    /// A leading `+` is accepted as a sign only; see `parseHandicap` for golf's plus notation.
    /// Returns nil for anything else (two decimals, exponents, spaces, empty).
    public static func parse(_ text: String) -> Tenths? {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var whole = 0
        var digits = 0
        var fraction = 0
        var fractionDigits = 0
        var seenPoint = false
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int(byte - UInt8(ascii: "0"))
            if seenPoint {
                fractionDigits += 1
                // Trailing zeros beyond the first decimal are harmless (`13.20`); other digits are not.
                if fractionDigits == 1 { fraction = digit } else if digit != 0 { return nil }
            } else {
                digits += 1
                if digits > 12 { return nil }
                whole = whole * 10 + digit
            }
        }
        guard digits + fractionDigits > 0 else { return nil }
        let value = whole * 10 + fraction
        return Tenths(raw: negative ? -value : value)
    }

    /// Parses a Handicap Index or Course Handicap as golfers write it: `+2.3` is a plus handicap,
    /// that is -2.3 in arithmetic; `-2.3` is accepted with the same meaning.
    public static func parseHandicap(_ text: String) -> Tenths? {
        guard let value = parse(text) else { return nil }
        if text.hasPrefix("+") { return Tenths(raw: -value.raw) }
        return value
    }
}

extension Tenths: Codable {
    /// Encoded as a JSON number (`13.2`); decoding accepts numbers with at most one decimal.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let whole = try? container.decode(Int.self) {
            // A whole number too large for tenths is refused, not an overflow.
            let (raw, overflow) = whole.multipliedReportingOverflow(by: 10)
            guard !overflow else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(whole) is too large for a number of tenths")
            }
            self.init(raw: raw)
            return
        }
        let double = try container.decode(Double.self)
        // Shortest round-trip text of a double with one decimal is that decimal, so this is exact.
        guard let parsed = Tenths.parse("\(double)") else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(double) has more than one decimal")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Double(raw) / 10)
    }
}

/// Exact rounding of integer fractions.
public enum ExactRounding {
    /// ⌊a / b⌋ for b > 0, also for negative a.
    @inline(__always)
    public static func floorDivide(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// numerator / denominator rounded to the nearest integer, .5 toward +∞ (−15.5 → −15, −15.6 → −16).
    /// The denominator must be positive.
    @inline(__always)
    public static func roundHalfUp(_ numerator: Int, _ denominator: Int) -> Int {
        floorDivide(2 * numerator + denominator, 2 * denominator)
    }
}
