// Seeded random numbers for every plugin: SplitMix64 (Steele, Lea and Flood 2014), a small, fast,
// well-mixed generator with no global state, so the same seed gives the same demo data, schedules,
// samples and putts on every machine and Swift version.

#if canImport(Glibc)
import Glibc
#endif

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

    /// A uniform double in [0, 1) from the top 53 bits (platform independent, unlike `Double.random(in:)`).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A uniform double in [lo, hi).
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }

    /// A normal deviate (Box–Muller).
    public mutating func normal(mean: Double = 0, sd: Double = 1) -> Double {
        var u = unit()
        while u <= 0 { u = unit() }
        let v = unit()
        return mean + sd * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    /// Uniform in 0..<bound, without modulo bias (rejection sampling).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        let b = UInt64(bound)
        let limit = UInt64.max - UInt64.max % b
        while true {
            let v = next()
            if v < limit { return Int(v % b) }
        }
    }

    /// `next() % bound`: slightly biased towards small values; kept for data that was generated
    /// with it (the scorecard's sample season), which must stay the same. New code uses `below`.
    public mutating func modulo(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// The items in a random order (Fisher–Yates with `below`).
    public mutating func shuffled<T>(_ items: [T]) -> [T] {
        var a = items
        var i = a.count - 1
        while i > 0 {
            a.swapAt(i, below(i + 1))
            i -= 1
        }
        return a
    }
}
