// The thin-plate kernel φ(r) = r²·log r, computed from s = r² as ½·s·log s (no square root), with
// φ(0) = 0. Grid evaluation spends nearly all its time here, so the logarithm is a branch-free
// routine the compiler vectorises: s = 2^k·m with m in [√½, √2) taken from the bits, then
// log m = 2·atanh(u) with u = (m−1)/(m+1), |u| ≤ 0.1716 (a degree-7 polynomial in u², see below),
// and log s = k·ln 2 + log m. Error: a few ulp.

enum ThinPlateKernel {
    /// s·log(s) for s ≥ 0 (0 for s = 0). Plain scalar arithmetic and logical shifts only, so that a
    /// loop calling it vectorises in release builds. Transparent so that debug builds inline it too
    /// (an outlined debug call zero-fills each of its locals: twice the cost of the arithmetic).
    @_transparent
    static func sLogS(_ s: Double) -> Double {
        // s = 0 (log −∞) and anything below 1e-308 (r ≈ 1e-154 ft) count as 1e-308: a kernel of ~1e-305.
        let s = s < 1e-308 ? 1e-308 : s
        let bits = s.bitPattern
        // Biased exponent of s/√½: k + 1023 where s = 2^k·m, m in [√½, √2).
        let kBiased = (bits &- 0x3FE6_A09E_667F_3BCD &+ 0x3FF0_0000_0000_0000) &>> 52
        let m = Double(bitPattern: bits &- ((kBiased &- 1023) &<< 52))
        // k as a double without an int→float conversion: 2^52 + kBiased, minus 2^52 + 1023.
        let k = Double(bitPattern: 0x4330_0000_0000_0000 | kBiased) - 4_503_599_627_371_519.0
        let u = (m - 1) / (m + 1)
        // log m = u·p(t) with p(t) = 2·atanh(u)/u = 2·(1 + t·q(t)), t = u², q of degree 6 interpolated
        // at Chebyshev nodes of [0, 0.02944] (relative error 5e-18), evaluated by Estrin's scheme for
        // a short dependency chain.
        let t = u * u
        let t2 = t * t
        let t4 = t2 * t2
        let p01 = 2.0 + t * (2 * 0.333_333_333_333_333_54)
        let p23 = 2 * 0.199_999_999_999_482_8 + t * (2 * 0.142_857_143_133_248_07)
        let p45 = 2 * 0.111_111_055_282_796_63 + t * (2 * 0.090_914_468_947_942_92)
        let p67 = 2 * 0.076_657_929_893_980_35 + t * (2 * 0.073_089_846_613_069_61)
        let p = (p01 + t2 * p23) + t4 * (p45 + t2 * p67)
        return s * (k * 0.693_147_180_559_945_3 + u * p)
    }

    /// φ(r) = r²·log r from s = r².
    @inline(__always)
    static func phi(squaredDistance s: Double) -> Double {
        0.5 * sLogS(s)
    }
}
