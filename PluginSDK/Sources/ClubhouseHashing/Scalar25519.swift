// Integers modulo the Ed25519 group order L = 2^252 + 27742317777372353535851937790883648493
// (RFC 8032 §5.1), as four little-endian 64-bit words. Used with secret values when signing
// (the nonce r and the secret scalar s), so reduction and multiplication are constant-time:
// reduction is bit-serial (one shift and one masked subtraction per input bit), products are
// schoolbook with full-width multiplies; nothing branches on or indexes by the values.

enum Scalar25519 {
    typealias Words = (UInt64, UInt64, UInt64, UInt64)

    /// L, little-endian words.
    static let order: Words = (0x5812_631a_5cf5_d3ed, 0x14de_f9de_a2f7_9cd6, 0, 0x1000_0000_0000_0000)

    static func words(_ bytes: [UInt8], at offset: Int = 0, count: Int = 4) -> [UInt64] {
        (0..<count).map { i in
            var w: UInt64 = 0
            for j in 0..<8 { w |= UInt64(bytes[offset + 8 * i + j]) << (8 * UInt64(j)) }
            return w
        }
    }

    static func bytes(_ w: Words) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for (i, word) in [w.0, w.1, w.2, w.3].enumerated() {
            for j in 0..<8 { out[8 * i + j] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(j))) }
        }
        return out
    }

    /// True when the 32 little-endian bytes encode an integer below L (RFC 8032 §5.1.7: a
    /// signature's S must be; a larger one is a malleated signature). Public data: may branch.
    static func isCanonical(_ s: [UInt8]) -> Bool {
        guard s.count == 32 else { return false }
        let w = words(s)
        let l = [order.0, order.1, order.2, order.3]
        for i in stride(from: 3, through: 0, by: -1) where w[i] != l[i] { return w[i] < l[i] }
        return false  // equal to L
    }

    /// The little-endian integer in `input` (any number of 64-bit words) reduced mod L, bit by bit
    /// from the top: r ← 2r + bit, then r − L when that does not borrow (kept by a mask).
    static func reduce(_ input: [UInt64]) -> Words {
        var r0: UInt64 = 0, r1: UInt64 = 0, r2: UInt64 = 0, r3: UInt64 = 0
        for index in stride(from: input.count * 64 - 1, through: 0, by: -1) {
            let bit = (input[index >> 6] >> UInt64(index & 63)) & 1
            // r < L < 2^253, so 2r + 1 < 2^254 fits in four words.
            r3 = r3 << 1 | r2 >> 63
            r2 = r2 << 1 | r1 >> 63
            r1 = r1 << 1 | r0 >> 63
            r0 = r0 << 1 | bit
            var borrow: UInt64 = 0
            func sub(_ a: UInt64, _ b: UInt64) -> UInt64 {
                let (d1, o1) = a.subtractingReportingOverflow(b)
                let (d2, o2) = d1.subtractingReportingOverflow(borrow)
                borrow = (o1 ? 1 : 0) | (o2 ? 1 : 0)
                return d2
            }
            let t0 = sub(r0, order.0), t1 = sub(r1, order.1), t2 = sub(r2, order.2), t3 = sub(r3, order.3)
            let keep = 0 &- borrow   // all ones: r < L, keep r
            r0 = (r0 & keep) | (t0 & ~keep)
            r1 = (r1 & keep) | (t1 & ~keep)
            r2 = (r2 & keep) | (t2 & ~keep)
            r3 = (r3 & keep) | (t3 & ~keep)
        }
        return (r0, r1, r2, r3)
    }

    /// A 64-byte little-endian integer (a SHA-512 digest) mod L.
    static func reduce(bytes64: [UInt8]) -> Words { reduce(words(bytes64, count: 8)) }

    /// (a·b + c) mod L for 32-byte little-endian inputs below 2^256.
    static func mulAdd(_ a: [UInt8], _ b: [UInt8], _ c: [UInt8]) -> Words {
        let x = words(a), y = words(b)
        var product = [UInt64](repeating: 0, count: 9)
        for (i, w) in words(c).enumerated() { product[i] = w }
        for i in 0..<4 {
            var carry: UInt64 = 0
            for j in 0..<4 {
                let (high, low) = x[i].multipliedFullWidth(by: y[j])
                let (s1, o1) = product[i + j].addingReportingOverflow(low)
                let (s2, o2) = s1.addingReportingOverflow(carry)
                product[i + j] = s2
                carry = high &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
            }
            // Propagate into the remaining words (the total stays below 2^513).
            var k = i + 4
            while k < 9 {
                let (s, o) = product[k].addingReportingOverflow(carry)
                product[k] = s
                carry = o ? 1 : 0
                k += 1
            }
        }
        return reduce(product)
    }
}
