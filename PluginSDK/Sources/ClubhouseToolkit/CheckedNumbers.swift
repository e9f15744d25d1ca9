// Floating point to integer without a trap. `Int(x)` on a Double stops the process (SIGILL) when x is
// NaN, infinite or outside Int's range, and in an in-process plugin that is the host's crash (issue 30:
// a carry of 1e308 in a stored shot). Every conversion of a computed or stored value goes through one
// of these instead: `init?(checking:)` when the caller has something to say about a value that does not
// fit, `init(saturating:)` when the nearest representable value will do (pixel rows, loop bounds).
// `DecimalText.fixed` writes a number for people with a fixed number of decimals, for any Double.

extension FixedWidthInteger {
    /// `value` rounded by `rule`, or nil when it is NaN, infinite or outside this type's range.
    @inlinable
    public init?(checking value: Double, rounding rule: FloatingPointRoundingRule = .towardZero) {
        guard value.isFinite else { return nil }
        self.init(exactly: value.rounded(rule))
    }

    /// `value` rounded by `rule` and clamped into this type's range (−∞ and +∞ included); NaN gives
    /// `nan`.
    @inlinable
    public init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .towardZero, nan: Self = 0) {
        guard !value.isNaN else {
            self = nan
            return
        }
        let r = value.rounded(rule)
        // Self.max as a Double may round up past Self.max (2^63 for Int64), so compare with ≥.
        if r >= Double(Self.max) {
            self = Self.max
        } else if r <= Double(Self.min) {
            self = Self.min
        } else {
            self.init(r)
        }
    }
}

/// Numbers written for people.
public enum DecimalText {
    /// `value` rounded half away from zero to `decimals` digits after the point (0–9), without an
    /// exponent ("83.3", "-0.5", "150"); a rounded zero has no sign. A value too large for that
    /// (|value| ≥ 10¹⁵ after scaling) or not finite is written as Swift writes a Double ("1e+308",
    /// "inf", "-inf", "nan"), so any Double — a stored one included — prints.
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        let places = max(0, min(9, decimals))
        var scale: UInt64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero)
        guard scaled < 1e15, let n = UInt64(checking: scaled) else { return "\(value)" }
        var text = String(n / scale)
        if places > 0 {
            let fraction = String(n % scale)
            text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return (value < 0 && n != 0 ? "-" : "") + text
    }
}
