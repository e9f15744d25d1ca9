import Glibc

/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast, seedable generator, so generated demo
/// data is the same on every machine for the same seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A normal deviate (Box–Muller).
    public mutating func normal(mean: Double = 0, sd: Double = 1) -> Double {
        var u = unit()
        while u <= 0 { u = unit() }
        let v = unit()
        return mean + sd * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
