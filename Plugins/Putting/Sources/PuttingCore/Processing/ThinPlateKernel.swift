// The thin-plate kernel φ(r) = r²·log r, computed from s = r² as ½·s·log s (no square root), with
// φ(0) = 0. Grid evaluation spends nearly all its time here, so the logarithm is a branch-free
// SIMD routine: s = 2^k·m with m in [√½, √2) taken from the bits, then
// log m = 2·atanh(u) = 2u·Σ u^(2i)/(2i+1) with u = (m−1)/(m+1), |u| ≤ 0.1716, summed to i = 10
// (truncation below 1e-17 relative), and log s = k·ln 2 + log m. Error: a few ulp.

enum ThinPlateKernel {
    /// Below this s (r ≈ 1e-154 ft) the kernel is 0: it also stands in for s = 0, where log is −∞.
    static let tinyS = 1e-308

    /// s·log(s) for s ≥ 0 in every lane (0 for s = 0).
    @inline(__always)
    static func sLogS(_ s: SIMD4<Double>) -> SIMD4<Double> {
        let s = pointwiseMax(s, SIMD4(repeating: tinyS))
        let bits = unsafeBitCast(s, to: SIMD4<Int64>.self)
        // k = exponent such that m = s / 2^k lies in [√½, √2): subtract the bits of √½, keep the exponent.
        let k = (bits &- 0x3FE6_A09E_667F_3BCD) &>> 52
        let m = unsafeBitCast(bits &- (k &<< 52), to: SIMD4<Double>.self)
        // k as a double without a (scalarised) int→float conversion: 1.5·2^52 + k, minus 1.5·2^52.
        let kd = unsafeBitCast(k &+ 0x4338_0000_0000_0000, to: SIMD4<Double>.self) - 6_755_399_441_055_744.0
        let u = (m - 1) / (m + 1)
        let u2 = u * u
        var p = SIMD4<Double>(repeating: 1.0 / 21)
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
        let logS = kd * 0.693_147_180_559_945_3 + (u + u) * p
        return s * logS
    }

    /// s·log(s) for one value (same arithmetic as the SIMD form).
    @inline(__always)
    static func sLogS(_ s: Double) -> Double {
        sLogS(SIMD4(repeating: s))[0]
    }

    /// φ(r) = r²·log r from s = r².
    @inline(__always)
    static func phi(squaredDistance s: Double) -> Double {
        0.5 * sLogS(s)
    }
}
