#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Number text for the canonical profiles. Both start from the shortest decimal digits that
// round-trip a double (the digits ECMAScript's Number::toString and Python's repr both use) and
// differ only in layout:
//   ECMAScript (rfc8785): 1e21 -> "1e+21", 1e20 -> "100000000000000000000", 1.0 -> "1", -0.0 -> "0",
//                         1e-7 -> "1e-7", 0.000001 -> "0.000001".
//   Python repr (raid-v2): 1e16 -> "1e+16", 1e15 -> "1000000000000000.0", 1.0 -> "1.0", -0.0 -> "-0.0",
//                         1e-5 -> "1e-05", 0.0001 -> "0.0001".

/// A finite double as sign, shortest round-trip digits and decimal point position:
/// value = ±0.d₁d₂…dₖ × 10^pointPosition. Zero has no digits.
struct ShortestDecimal {
    var negative = false
    /// Up to 17 significant digits as ASCII, no leading or trailing zeros.
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var count = 0
    var pointPosition = 0

    var isZero: Bool { count == 0 }

    private init(negative: Bool, digits: (UInt64, UInt64, UInt64), count: Int, pointPosition: Int) {
        self.negative = negative
        self.digits = digits
        self.count = count
        self.pointPosition = pointPosition
    }

    /// Reads `[-]digits[.digits][e[+-]digits]` (a JSON number lexeme or Swift's description of a
    /// double) into sign, significant digits and point position. Nil when there are more than
    /// `maxDigits` significant digits.
    @inline(__always)
    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, maxDigits: Int) -> ShortestDecimal? {
        guard let p = bytes.baseAddress else { return nil }
        let n = bytes.count
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var i = 0
        let negative = n > 0 && p[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var digitsBeforePoint = 0, leadingZeros = 0, pendingZeros = 0, significant = 0
        var pointSeen = false
        // Digits go into a 24-byte stack buffer (17 at most), zeros only once something follows them.
        let fits = withUnsafeMutableBytes(of: &digits) { raw -> Bool in
            guard let store = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            while i < n {
                let b = p[i]
                let d = b &- UInt8(ascii: "0")
                if d < 10 {
                    if !pointSeen { digitsBeforePoint &+= 1 }
                    if d == 0 {
                        if significant == 0 { leadingZeros &+= 1 } else { pendingZeros &+= 1 }
                    } else {
                        // Zeros between significant digits are significant; trailing ones are not.
                        if significant &+ pendingZeros &+ 1 > maxDigits { return false }
                        while pendingZeros > 0 {
                            store[significant] = UInt8(ascii: "0")
                            significant &+= 1
                            pendingZeros &-= 1
                        }
                        store[significant] = b
                        significant &+= 1
                    }
                } else if b == UInt8(ascii: ".") {
                    pointSeen = true
                } else {
                    break
                }
                i &+= 1
            }
            return true
        }
        guard fits else { return nil }
        var exponent = 0
        if i < n {
            // At an 'e' or 'E'.
            i += 1
            var sign = 1
            if i < n && p[i] == UInt8(ascii: "-") { sign = -1; i += 1 } else if i < n && p[i] == UInt8(ascii: "+") { i += 1 }
            while i < n {
                exponent = exponent &* 10 &+ Int(p[i] &- 48)
                if exponent > 100_000 { return nil }
                i += 1
            }
            exponent *= sign
        }
        let point = significant == 0 ? 0 : digitsBeforePoint - leadingZeros + exponent
        return ShortestDecimal(negative: negative, digits: digits, count: significant, pointPosition: point)
    }

    /// The decimal read straight from a JSON number lexeme, when that is provably the shortest
    /// round-trip form of the double the lexeme denotes: at most 15 significant digits (DBL_DIG,
    /// so no two such decimals share a double and none shorter maps to the same one) and a
    /// magnitude well inside the normal range. Nil otherwise (the caller goes through Double).
    init?(lexeme bytes: UnsafeBufferPointer<UInt8>) {
        guard let d = Self.read(bytes, maxDigits: 15), d.pointPosition > -290 && d.pointPosition < 290 else { return nil }
        self = d
    }

    /// The decimal of a lexeme with 16 significant digits, when checking a few neighbours shows it
    /// is the shortest and closest form of its double: no 15-digit decimal (the two around it) and
    /// no other 16-digit decimal (the ones just below and above) maps to the same double. The
    /// doubles come from Clinger's fast path (a mantissa of at most 2^53 times or over an exact
    /// power of ten is one correctly rounded operation), so no strtod is needed. Nil otherwise.
    init?(sixteenDigitLexeme bytes: UnsafeBufferPointer<UInt8>) {
        guard let d = Self.read(bytes, maxDigits: 16), d.count == 16 else { return nil }
        var mantissa: UInt64 = 0
        withUnsafeBytes(of: d.digits) { raw in
            for i in 0..<16 { mantissa = mantissa &* 10 &+ UInt64(raw[i] &- UInt8(ascii: "0")) }
        }
        let exponent = d.pointPosition - 16
        let limit: UInt64 = 1 << 53
        guard mantissa < limit, exponent >= -22, exponent + 1 <= 22 else { return nil }
        let value = Self.exact(mantissa, exponent)
        let below = mantissa / 10
        guard Self.exact(below, exponent + 1) != value, Self.exact(below + 1, exponent + 1) != value,
              Self.exact(mantissa - 1, exponent) != value, Self.exact(mantissa + 1, exponent) != value else { return nil }
        self = d
    }

    /// m × 10^e for m ≤ 2^53 and |e| ≤ 22: exact operands, one rounding.
    @inline(__always) private static func exact(_ m: UInt64, _ e: Int) -> Double {
        let powers: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double,
                      Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double) =
            (1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
             1e20, 1e21, 1e22)
        let p = withUnsafeBytes(of: powers) { $0.load(fromByteOffset: abs(e) * 8, as: Double.self) }
        return e >= 0 ? Double(m) * p : Double(m) / p
    }

    init(_ value: Double) {
        // Swift's description is the shortest round-trip form (closest to the value when several
        // are as short), e.g. "1.2345678901234568e+20", "0.001", "5e-324". Take its digits apart.
        var text = value.description
        let d = text.withUTF8 { Self.read($0, maxDigits: 17) }
        self = d ?? ShortestDecimal(negative: false, digits: (0, 0, 0), count: 0, pointPosition: 0)
        negative = value.sign == .minus
    }

    /// ECMAScript Number::toString (ECMA-262 §6.1.6.1.20), as RFC 8785 §3.2.2.3 requires.
    func appendECMAScript(to out: inout [UInt8]) {
        var text = NumberText()
        if isZero {
            text.append(UInt8(ascii: "0"))
        } else {
            if negative { text.append(UInt8(ascii: "-")) }
            let k = count, n = pointPosition
            if k <= n && n <= 21 {
                text.appendDigits(digits, 0..<k)
                text.appendZeros(n - k)
            } else if 0 < n && n <= 21 {
                text.appendDigits(digits, 0..<n)
                text.append(UInt8(ascii: "."))
                text.appendDigits(digits, n..<k)
            } else if -6 < n && n <= 0 {
                text.append(UInt8(ascii: "0"))
                text.append(UInt8(ascii: "."))
                text.appendZeros(-n)
                text.appendDigits(digits, 0..<k)
            } else {
                text.appendDigits(digits, 0..<1)
                if k > 1 {
                    text.append(UInt8(ascii: "."))
                    text.appendDigits(digits, 1..<k)
                }
                text.appendExponent(n - 1, minimumDigits: 1)
            }
        }
        text.write(to: &out)
    }

    /// Python's `repr(float)`: fixed notation while -4 < pointPosition ≤ 16, always with a fraction
    /// (`1.0`), otherwise `d.ddde±XX` with at least two exponent digits; `-0.0` keeps its sign.
    func appendPythonRepr(to out: inout [UInt8]) {
        var text = NumberText()
        if negative { text.append(UInt8(ascii: "-")) }
        let k = count, n = pointPosition
        if isZero {
            text.append(UInt8(ascii: "0"))
            text.append(UInt8(ascii: "."))
            text.append(UInt8(ascii: "0"))
        } else if -4 < n && n <= 16 {
            if n <= 0 {
                text.append(UInt8(ascii: "0"))
                text.append(UInt8(ascii: "."))
                text.appendZeros(-n)
                text.appendDigits(digits, 0..<k)
            } else if n < k {
                text.appendDigits(digits, 0..<n)
                text.append(UInt8(ascii: "."))
                text.appendDigits(digits, n..<k)
            } else {
                text.appendDigits(digits, 0..<k)
                text.appendZeros(n - k)
                text.append(UInt8(ascii: "."))
                text.append(UInt8(ascii: "0"))
            }
        } else {
            text.appendDigits(digits, 0..<1)
            if k > 1 {
                text.append(UInt8(ascii: "."))
                text.appendDigits(digits, 1..<k)
            }
            text.appendExponent(n - 1, minimumDigits: 2)
        }
        text.write(to: &out)
    }
}

/// A number's text, built in place (at most 26 bytes for any double in either layout) and then
/// appended to the output in one piece.
struct NumberText {
    private var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    private var count = 0

    @inline(__always) mutating func append(_ b: UInt8) {
        withUnsafeMutableBytes(of: &bytes) { $0[count] = b }
        count += 1
    }

    @inline(__always) mutating func appendDigits(_ digits: (UInt64, UInt64, UInt64), _ range: Range<Int>) {
        let at = count
        withUnsafeMutableBytes(of: &bytes) { store in
            withUnsafeBytes(of: digits) { source in
                guard let to = store.baseAddress, let from = source.baseAddress else { return }
                (to + at).copyMemory(from: from + range.lowerBound, byteCount: range.count)
            }
        }
        count += range.count
    }

    @inline(__always) mutating func appendZeros(_ n: Int) {
        var k = 0
        while k < n { append(UInt8(ascii: "0")); k += 1 }
    }

    mutating func appendExponent(_ e: Int, minimumDigits: Int) {
        append(UInt8(ascii: "e"))
        append(e < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        let m = e.magnitude
        let width = max(m >= 100 ? 3 : m >= 10 ? 2 : 1, minimumDigits)
        var divisor: UInt = width == 3 ? 100 : width == 2 ? 10 : 1
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8((m / divisor) % 10))
            divisor /= 10
        }
    }

    @inline(__always) func write(to out: inout [UInt8]) {
        withUnsafeBytes(of: bytes) { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}

/// The canonical text of one JSON number lexeme under a profile.
enum CanonicalNumber {
    /// Appends the canonical form of `lexeme`; false when no double can represent it.
    /// `significantDigitsAtMost` is an upper bound the caller may know from scanning (0 if not).
    static func append(lexeme: UnsafeBufferPointer<UInt8>, isInteger: Bool, profile: CanonicalProfile,
                       to out: inout [UInt8]) -> Bool {
        if isInteger {
            let negative = lexeme.first == UInt8(ascii: "-")
            if negative && lexeme.count == 2 && lexeme[1] == UInt8(ascii: "0") {
                out.append(UInt8(ascii: "0"))  // -0
                return true
            }
            // raid-v2 keeps integers exactly (Python ints). Under RFC 8785 an integer literal is a
            // double too, but one of at most 15 digits is exact and prints as written.
            if profile == .raidV2 || lexeme.count - (negative ? 1 : 0) <= 15 {
                out.append(contentsOf: lexeme)
                return true
            }
        }
        let decimal: ShortestDecimal
        if let exact = ShortestDecimal(lexeme: lexeme) {
            decimal = exact
        } else if let checked = ShortestDecimal(sixteenDigitLexeme: lexeme) {
            decimal = checked
        } else {
            guard let d = parseDouble(lexeme), d.isFinite else { return false }
            decimal = ShortestDecimal(d)
        }
        switch profile {
        case .rfc8785: decimal.appendECMAScript(to: &out)
        case .raidV2: decimal.appendPythonRepr(to: &out)
        }
        return true
    }

    /// The double nearest to a JSON number lexeme (correctly rounded).
    static func parseDouble(_ lexeme: UnsafeBufferPointer<UInt8>) -> Double? {
        if lexeme.count < 64 {
            // strtod on a NUL-terminated copy on the stack: Double(String) would allocate past 15
            // bytes. strtod follows the process locale's decimal point; if that isn't '.', it stops
            // early and the String route (always the C locale) takes over.
            var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &buffer) { raw -> Double? in
                raw.copyMemory(from: UnsafeRawBufferPointer(lexeme))
                guard let start = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else { return nil }
                var end: UnsafeMutablePointer<CChar>? = nil
                let value = strtod(start, &end)
                guard let end, end - start == lexeme.count else { return nil }
                return value
            }
            if let parsed { return parsed }
        }
        return Double(String(decoding: lexeme, as: UTF8.self))
    }
}
