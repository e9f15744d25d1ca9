// Seeded random putts on a green, for the sweep test and the benchmark: a flag at least `flagMarginFt`
// inside the green (a pin a greenkeeper would cut), a ball on the green `minFt`…`maxFt` from it.

import Glibc


/// One random putt.
public struct SweepPutt: Sendable, Equatable {
    public var ball: PointFt
    public var flag: PointFt
}

public enum PuttSweep {
    /// `count` putts on `surface`, the same for the same seed.
    public static func putts(on surface: GreenSurface, count: Int, seed: UInt64, minFt: Double = 4, maxFt: Double = 40,
                             flagMarginFt: Double = 3) -> [SweepPutt]
    {
        var rng = SplitMix64(seed: seed)
        let hf = surface.heightfield
        func randomPoint() -> PointFt {
            PointFt(x: hf.xMinFt + rng.unit() * (hf.xMaxFt - hf.xMinFt), z: hf.zMinFt + rng.unit() * (hf.zMaxFt - hf.zMinFt))
        }
        func inside(_ p: PointFt, margin: Double) -> Bool {
            guard surface.isOnGreen(xFt: p.x, zFt: p.z) else { return false }
            guard margin > 0 else { return true }
            for k in 0..<8 {
                let a = Double(k) * .pi / 4
                if !surface.isOnGreen(xFt: p.x + margin * cos(a), zFt: p.z + margin * sin(a)) { return false }
            }
            return true
        }
        var out: [SweepPutt] = []
        var attempts = 0
        while out.count < count, attempts < count * 10_000 {
            attempts += 1
            let flag = randomPoint()
            guard inside(flag, margin: flagMarginFt) else { continue }
            for _ in 0..<200 {
                let d = minFt + rng.unit() * (maxFt - minFt), a = rng.unit() * 2 * .pi
                let ball = PointFt(x: flag.x + d * cos(a), z: flag.z + d * sin(a))
                if inside(ball, margin: 0.5) {
                    out.append(SweepPutt(ball: ball, flag: flag))
                    break
                }
            }
        }
        return out
    }
}
