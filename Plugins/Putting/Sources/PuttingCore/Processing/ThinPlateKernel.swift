// The thin-plate kernel φ(r) = r²·log r, computed from s = r² as ½·s·log s (no square root), with
// φ(0) = 0. Grid evaluation spends nearly all its time here, so the logarithm is a branch-free
// SIMD routine: s = 2^k·m with m in [√½, √2) taken from the bits, then
// log m = 2·atanh(u) = 2u·Σ u^(2i)/(2i+1) with u = (m−1)/(m+1), |u| ≤ 0.1716, summed to i = 10
// (truncation below 1e-17 relative), and log s = k·ln 2 + log m. Error: a few ulp.

enum ThinPlateKernel {
    /// Below this s (r ≈ 1e-154 ft) the kernel is 0: it also stands in for s = 0, where log is −∞.
    static let tinyS = 1e-308

    /// s·log(s) for s ≥ 0 (0 for s = 0). Plain scalar arithmetic and logical shifts only, so that a
    /// loop calling it vectorises in release builds and stays quick in debug builds.
    @inline(__always)
    static func sLogS(_ s: Double) -> Double {
        let s = s < tinyS ? tinyS : s
        let bits = s.bitPattern
        // Biased exponent of s/√½: k + 1023 where s = 2^k·m, m in [√½, √2).
        let kBiased = (bits &- 0x3FE6_A09E_667F_3BCD &+ 0x3FF0_0000_0000_0000) &>> 52
        let m = Double(bitPattern: bits &- ((kBiased &- 1023) &<< 52))
        // k as a double without an int→float conversion: 2^52 + kBiased, minus 2^52 + 1023.
        let k = Double(bitPattern: 0x4330_0000_0000_0000 | kBiased) - 4_503_599_627_371_519.0
        let u = (m - 1) / (m + 1)
        let u2 = u * u
        var p = 1.0 / 21
        p = p * u2 + 1.0 / 19
        p = p * u2 + 1.0 / 17
        p = p * u2 + 1.0 / 15
        p = p * u2 + 1.0 / 13
        p = p * u2 + 1.0 / 11
        p = p * u2 + 1.0 / 9
        p = p * u2 + 1.0 / 7
        p = p * u2 + 1.0 / 5
        p = p * u2 + 1.0 / 3
        p = p * u2 + 1.0
        return s * (k * 0.693_147_180_559_945_3 + (u + u) * p)
    }

    /// φ(r) = r²·log r from s = r².
    @inline(__always)
    static func phi(squaredDistance s: Double) -> Double {
        0.5 * sLogS(s)
    }
}
