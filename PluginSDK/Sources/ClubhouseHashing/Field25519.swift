// Arithmetic in GF(p), p = 2^255 - 19, for Ed25519 (RFC 8032 §5.1). An element is five 51-bit
// limbs (radix 2^51) in UInt64s; products are 128-bit. Every operation runs the same instructions
// whatever the values (no branch, no table index and no early exit on data), so signing with a
// private key leaks nothing through timing: choices are made with masks (`select`, `swap`).
//
// Bounds: every operation returns limbs below 2^52 (a carry pass ends each one), and `mul`/`square`
// accept limbs below 2^54, so any result can feed any operation.

struct Field25519: Sendable {
    var l0, l1, l2, l3, l4: UInt64

    static let mask51: UInt64 = (1 << 51) - 1

    init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64, _ l4: UInt64) {
        (self.l0, self.l1, self.l2, self.l3, self.l4) = (l0, l1, l2, l3, l4)
    }

    static let zero = Field25519(0, 0, 0, 0, 0)
    static let one = Field25519(1, 0, 0, 0, 0)

    init(small value: UInt64) { self.init(value & Field25519.mask51, value >> 51, 0, 0, 0) }

    /// The 255 low bits of 32 little-endian bytes (bit 255 is ignored: the caller reads it as a sign).
    init(bytes b: [UInt8]) {
        precondition(b.count == 32)
        func word(_ i: Int) -> UInt64 {
            var w: UInt64 = 0
            for j in 0..<8 { w |= UInt64(b[i + j]) << (8 * UInt64(j)) }
            return w
        }
        let w0 = word(0), w1 = word(8), w2 = word(16), w3 = word(24)
        self.init(w0 & Field25519.mask51,
                  (w0 >> 51 | w1 << 13) & Field25519.mask51,
                  (w1 >> 38 | w2 << 26) & Field25519.mask51,
                  (w2 >> 25 | w3 << 39) & Field25519.mask51,
                  (w3 >> 12) & Field25519.mask51)
    }

    /// One carry pass: limbs below 2^51 + 2^13·19 (the top carry folds back times 19).
    @inline(__always) mutating func carry() {
        l1 &+= l0 >> 51; l0 &= Field25519.mask51
        l2 &+= l1 >> 51; l1 &= Field25519.mask51
        l3 &+= l2 >> 51; l2 &= Field25519.mask51
        l4 &+= l3 >> 51; l3 &= Field25519.mask51
        l0 &+= (l4 >> 51) &* 19; l4 &= Field25519.mask51
    }

    @inline(__always) static func + (a: Field25519, b: Field25519) -> Field25519 {
        var r = Field25519(a.l0 &+ b.l0, a.l1 &+ b.l1, a.l2 &+ b.l2, a.l3 &+ b.l3, a.l4 &+ b.l4)
        r.carry()
        return r
    }

    /// a − b computed as a + 4p − b (4p's limbs exceed any b below 2^53), then one carry pass.
    @inline(__always) static func - (a: Field25519, b: Field25519) -> Field25519 {
        let p4l0: UInt64 = 0x1F_FFFF_FFFF_FFB4, p4: UInt64 = 0x1F_FFFF_FFFF_FFFC
        var r = Field25519(a.l0 &+ p4l0 &- b.l0, a.l1 &+ p4 &- b.l1, a.l2 &+ p4 &- b.l2, a.l3 &+ p4 &- b.l3, a.l4 &+ p4 &- b.l4)
        r.carry()
        return r
    }

    @inline(__always) static prefix func - (a: Field25519) -> Field25519 { .zero - a }

    @inline(__always) static func wide(_ a: UInt64, _ b: UInt64) -> UInt128 { UInt128(a) &* UInt128(b) }

    /// Folds five 128-bit column sums into limbs (the column above 2^255 was already multiplied by 19).
    @inline(__always) static func reduce(_ c0: UInt128, _ c1: UInt128, _ c2: UInt128, _ c3: UInt128, _ c4: UInt128) -> Field25519 {
        let m = UInt128(mask51)
        var c1 = c1, c2 = c2, c3 = c3, c4 = c4
        let r0 = UInt64(truncatingIfNeeded: c0 & m); c1 &+= c0 >> 51
        let r1 = UInt64(truncatingIfNeeded: c1 & m); c2 &+= c1 >> 51
        let r2 = UInt64(truncatingIfNeeded: c2 & m); c3 &+= c2 >> 51
        let r3 = UInt64(truncatingIfNeeded: c3 & m); c4 &+= c3 >> 51
        let r4 = UInt64(truncatingIfNeeded: c4 & m)
        let top = UInt64(truncatingIfNeeded: c4 >> 51)
        var r = Field25519(r0 &+ top &* 19, r1, r2, r3, r4)
        r.l1 &+= r.l0 >> 51; r.l0 &= mask51
        return r
    }

    static func * (a: Field25519, b: Field25519) -> Field25519 {
        let b1 = b.l1 &* 19, b2 = b.l2 &* 19, b3 = b.l3 &* 19, b4 = b.l4 &* 19
        let c0 = wide(a.l0, b.l0) &+ wide(a.l1, b4) &+ wide(a.l2, b3) &+ wide(a.l3, b2) &+ wide(a.l4, b1)
        let c1 = wide(a.l0, b.l1) &+ wide(a.l1, b.l0) &+ wide(a.l2, b4) &+ wide(a.l3, b3) &+ wide(a.l4, b2)
        let c2 = wide(a.l0, b.l2) &+ wide(a.l1, b.l1) &+ wide(a.l2, b.l0) &+ wide(a.l3, b4) &+ wide(a.l4, b3)
        let c3 = wide(a.l0, b.l3) &+ wide(a.l1, b.l2) &+ wide(a.l2, b.l1) &+ wide(a.l3, b.l0) &+ wide(a.l4, b4)
        let c4 = wide(a.l0, b.l4) &+ wide(a.l1, b.l3) &+ wide(a.l2, b.l2) &+ wide(a.l3, b.l1) &+ wide(a.l4, b.l0)
        return reduce(c0, c1, c2, c3, c4)
    }

    func squared() -> Field25519 {
        let d0 = l0 &* 2, d1 = l1 &* 2, d2 = l2 &* 2 &* 19, d3 = l3 &* 19, d4 = l4 &* 19
        let c0 = Field25519.wide(l0, l0) &+ Field25519.wide(d1, d4) &+ Field25519.wide(d2, l3)
        let c1 = Field25519.wide(d0, l1) &+ Field25519.wide(d2, l4) &+ Field25519.wide(l3, d3)
        let c2 = Field25519.wide(d0, l2) &+ Field25519.wide(l1, l1) &+ Field25519.wide(l3 &* 2, d4)
        let c3 = Field25519.wide(d0, l3) &+ Field25519.wide(d1, l2) &+ Field25519.wide(l4, d4)
        let c4 = Field25519.wide(d0, l4) &+ Field25519.wide(d1, l3) &+ Field25519.wide(l2, l2)
        return Field25519.reduce(c0, c1, c2, c3, c4)
    }

    /// self^(2^n).
    func squared(times n: Int) -> Field25519 {
        var r = self
        for _ in 0..<n { r = r.squared() }
        return r
    }

    /// (self^(2^250 − 1), self^11): the common start of `inverse` and `powP58`.
    private func pow2250() -> (Field25519, Field25519) {
        let z2 = squared()                      // 2
        let z9 = z2.squared(times: 2) * self    // 9
        let z11 = z9 * z2                       // 11
        let z2_5 = z11.squared() * z9           // 2^5 − 1
        let z2_10 = z2_5.squared(times: 5) * z2_5
        let z2_20 = z2_10.squared(times: 10) * z2_10
        let z2_40 = z2_20.squared(times: 20) * z2_20
        let z2_50 = z2_40.squared(times: 10) * z2_10
        let z2_100 = z2_50.squared(times: 50) * z2_50
        let z2_200 = z2_100.squared(times: 100) * z2_100
        let z2_250 = z2_200.squared(times: 50) * z2_50
        return (z2_250, z11)
    }

    /// self^(p − 2) = 1/self (0 for 0), by a fixed chain of squarings and multiplications.
    func inverse() -> Field25519 {
        let (z2_250, z11) = pow2250()
        return z2_250.squared(times: 5) * z11   // 2^255 − 21
    }

    /// self^((p − 5)/8) = self^(2^252 − 3), for square roots (RFC 8032 §5.1.3).
    func powP58() -> Field25519 {
        let (z2_250, _) = pow2250()
        return z2_250.squared(times: 2) * self
    }

    /// The canonical value (0 ≤ v < p) as 32 little-endian bytes; bit 255 is zero.
    var bytes: [UInt8] {
        var t = self
        t.carry()
        t.carry()
        // Now t < 2^255 + a little; one more pass leaves t < 2^255. Then t ≥ p exactly when
        // t + 19 carries out of bit 255: keep t + 19 − 2^255 in that case (chosen by a mask).
        t.carry()
        var u = Field25519(t.l0 &+ 19, t.l1, t.l2, t.l3, t.l4)
        u.l1 &+= u.l0 >> 51; u.l0 &= Field25519.mask51
        u.l2 &+= u.l1 >> 51; u.l1 &= Field25519.mask51
        u.l3 &+= u.l2 >> 51; u.l2 &= Field25519.mask51
        u.l4 &+= u.l3 >> 51; u.l3 &= Field25519.mask51
        let overflow = u.l4 >> 51
        u.l4 &= Field25519.mask51
        let r = Field25519.select(u, t, useFirst: overflow)
        var out = [UInt8](repeating: 0, count: 32)
        let w0 = r.l0 | r.l1 << 51
        let w1 = r.l1 >> 13 | r.l2 << 38
        let w2 = r.l2 >> 26 | r.l3 << 25
        let w3 = r.l3 >> 39 | r.l4 << 12
        for (i, w) in [w0, w1, w2, w3].enumerated() {
            for j in 0..<8 { out[8 * i + j] = UInt8(truncatingIfNeeded: w >> (8 * UInt64(j))) }
        }
        return out
    }

    /// The low bit of the canonical value ("negative" in RFC 8032 §5.1.2).
    var isNegative: UInt64 { UInt64(bytes[0] & 1) }

    /// 1 when the value is 0 mod p, else 0 (no branch on the value).
    var isZero: UInt64 {
        var acc: UInt8 = 0
        for b in bytes { acc |= b }
        return (UInt64(acc) &- 1) >> 63
    }

    /// `a` when `useFirst` is 1, `b` when it is 0, by masks.
    @inline(__always) static func select(_ a: Field25519, _ b: Field25519, useFirst bit: UInt64) -> Field25519 {
        let m = 0 &- (bit & 1)
        return Field25519(b.l0 ^ (m & (a.l0 ^ b.l0)), b.l1 ^ (m & (a.l1 ^ b.l1)), b.l2 ^ (m & (a.l2 ^ b.l2)),
                          b.l3 ^ (m & (a.l3 ^ b.l3)), b.l4 ^ (m & (a.l4 ^ b.l4)))
    }

    /// 1 when both are the same element mod p.
    static func equal(_ a: Field25519, _ b: Field25519) -> UInt64 { (a - b).isZero }
}
