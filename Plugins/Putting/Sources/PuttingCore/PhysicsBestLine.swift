// The physics model's best line: the aim and launch speed whose path runs through the centre of
// the cup with the pace to finish a set distance (17 in by default) past it, had the cup not been
// there. Found by root finding, not a grid: for a given aim, the speed that finishes the set
// distance past the closest approach is bracketed and solved (Illinois regula falsi); over the aim,
// the signed side by which the path misses the centre is driven to zero the same way, each aim
// warm-starting the next speed solve. Then the tolerances: how far aim and speed may stray (one at
// a time) and the putt still drops under the capture rule, by expanding and bisecting.
import Foundation

/// Aim and speed windows that still hole.
public struct BestLineTolerance: Sendable, Equatable, Codable {
    /// Aim offsets (degrees, positive = counter-clockwise/left) between which the putt drops, at the best speed.
    public var aimMinDeg: Double
    public var aimMaxDeg: Double
    /// The same window as lateral inches at the hole's distance.
    public var aimMinIn: Double
    public var aimMaxIn: Double
    /// Launch speeds between which the putt drops, at the best aim.
    public var speedMinFps: Double
    public var speedMaxFps: Double
}

/// The physics model's answer for one putt.
public struct PhysicsBestLine: Sendable {
    /// Aim relative to the straight line to the hole, degrees, positive = counter-clockwise (left).
    public var aimOffsetDeg: Double
    /// The aim as a lateral offset at the hole's distance, inches, positive = left.
    public var aimOffsetIn: Double
    public var speedFps: Double
    public var v0XFps: Double
    public var v0ZFps: Double
    /// The putt with the cup in place (capture rule applied), path recorded.
    public var roll: PhysicsRoll
    /// Where the ball would have stopped without the cup.
    public var restPoint: PointFt
    /// How far past the closest approach it would have stopped (the target is `finishPastFt`).
    public var finishPastFt: Double
    /// Signed distance by which the uncaptured path misses the centre (0 when solved exactly).
    public var centreOffsetFt: Double
    /// True when both conditions were solved to tolerance.
    public var converged: Bool
    public var tolerance: BestLineTolerance?
    public var simulations: Int
    public var evaluations: Int
}

/// Solves the best line on a physics simulator.
public struct PhysicsSolver: Sendable {
    public let simulator: PhysicsSimulator
    /// How far past the hole the best line would finish (default 17 in).
    public var finishPastFt = 17.0 / 12.0
    /// Aims beyond this many degrees either side are not considered.
    public var aimLimitDeg = 60.0
    /// Compute the aim and speed windows (costs about as much as the solve itself).
    public var computeTolerance = true
    /// Use the energy-bound early exit in the tolerance rolls (same answers, fewer steps).
    public var earlyExit = true

    public init(simulator: PhysicsSimulator) { self.simulator = simulator }

    /// Counts work and reports progress.
    final class Tally: @unchecked Sendable {
        var simulations = 0
        var evaluations = 0
        var fraction = 0.0
        let progress: ((Double) -> Void)?
        init(progress: ((Double) -> Void)?) { self.progress = progress }
        func advance(to f: Double) {
            if f > fraction { fraction = f; progress?(Swift.min(1, f)) }
        }
    }

    /// Finds the best line from `ball` to `hole`. `progress` receives fractions 0…1.
    public func bestLine(ball: PointFt, hole: PointFt, progress: ((Double) -> Void)? = nil) -> PhysicsBestLine {
        let tally = Tally(progress: progress)
        let baseAngle = atan2(hole.z - ball.z, hole.x - ball.x)
        let distance = ball.distance(to: hole)
        let L = finishPastFt

        func ghost(_ offsetDeg: Double, _ speed: Double) -> PhysicsRoll {
            let a = baseAngle + offsetDeg * .pi / 180
            let r = simulator.roll(from: ball, vx: cos(a) * speed, vz: sin(a) * speed, hole: hole,
                                   options: RollOptions(capture: false, recordPath: false))
            tally.simulations += 1
            tally.evaluations += r.evaluations
            return r
        }

        /// How far past the target the ghost ball finishes: negative when short.
        func pace(_ roll: PhysicsRoll) -> Double {
            let passed = roll.closestArcLength < roll.length - 1e-9
            return passed ? roll.lengthPastClosest - L : -L - roll.closestDistance
        }

        // A first speed from energy: ½v² = a_r·(D + L) + k_g·(h_hole − h_ball).
        let hb = simulator.surface.sample(xFt: ball.x, zFt: ball.z).height
        let hh = simulator.surface.sample(xFt: hole.x, zFt: hole.z).height
        let energyGuess = 2 * (simulator.ar * (distance + L) + simulator.kg * (hh - hb))
        var speedGuess = Swift.max(0.3, energyGuess > 0 ? energyGuess.squareRoot() : 0.3)

        /// The speed at this aim that finishes L past, and its ghost roll.
        func speed(at offset: Double) -> (Double, PhysicsRoll, Bool) {
            let solved = PhysicsSolver.solveIncreasing(start: speedGuess, lower: 0.05, upper: 60, tolerance: 1e-5,
                                                       valueTolerance: 1e-5) { v -> (Double, PhysicsRoll) in
                let r = ghost(offset, v)
                return (pace(r), r)
            }
            speedGuess = solved.x
            return (solved.x, solved.payload, solved.converged)
        }

        // Outer: the aim whose path passes through the centre (signed miss decreases with the aim).
        var speedConverged = true
        let aimSolution = PhysicsSolver.solveDecreasing(start: 0, lower: -aimLimitDeg, upper: aimLimitDeg,
                                                        firstStep: Swift.max(0.25, 1.0), tolerance: 1e-7,
                                                        valueTolerance: 1e-5) { offset -> (Double, (Double, PhysicsRoll)) in
            let (v, r, ok) = speed(at: offset)
            speedConverged = ok
            tally.advance(to: Swift.min(0.55, tally.fraction + 0.04))
            return (r.closestSignedOffset, (v, r))
        }
        tally.advance(to: 0.6)
        let aim = aimSolution.x
        let (bestSpeed, ghostRoll) = aimSolution.payload
        let angle = baseAngle + aim * .pi / 180
        let v0x = cos(angle) * bestSpeed, v0z = sin(angle) * bestSpeed
        let roll = simulator.roll(from: ball, vx: v0x, vz: v0z, hole: hole, options: RollOptions())
        tally.simulations += 1
        tally.evaluations += roll.evaluations

        var tolerance: BestLineTolerance?
        if computeTolerance, roll.holed {
            let options = RollOptions(capture: true, recordPath: false, earlyExit: earlyExit)
            func holed(_ offset: Double, _ v: Double) -> Bool {
                let a = baseAngle + offset * .pi / 180
                let r = simulator.roll(from: ball, vx: cos(a) * v, vz: sin(a) * v, hole: hole, options: options)
                tally.simulations += 1
                tally.evaluations += r.evaluations
                return r.holed
            }
            let aimWindow = PhysicsSolver.window(centre: aim, firstStep: 0.05, maxSpan: 15, precision: 0.001) { holed($0, bestSpeed) }
            tally.advance(to: 0.8)
            let speedWindow = PhysicsSolver.window(centre: bestSpeed, firstStep: 0.02, maxSpan: Swift.min(bestSpeed * 0.9, 20),
                                                   precision: 0.0002) { holed(aim, $0) }
            func inches(_ offset: Double) -> Double { distance * tan(offset * .pi / 180) * 12 }
            tolerance = BestLineTolerance(aimMinDeg: aimWindow.lo, aimMaxDeg: aimWindow.hi,
                                          aimMinIn: inches(aimWindow.lo), aimMaxIn: inches(aimWindow.hi),
                                          speedMinFps: speedWindow.lo, speedMaxFps: speedWindow.hi)
        }
        tally.advance(to: 1)
        return PhysicsBestLine(aimOffsetDeg: aim, aimOffsetIn: distance * tan(aim * .pi / 180) * 12,
                               speedFps: bestSpeed, v0XFps: v0x, v0ZFps: v0z, roll: roll,
                               restPoint: ghostRoll.final, finishPastFt: ghostRoll.lengthPastClosest,
                               centreOffsetFt: ghostRoll.closestSignedOffset,
                               converged: aimSolution.converged && speedConverged,
                               tolerance: tolerance, simulations: tally.simulations, evaluations: tally.evaluations)
    }

    /// A root of a function, the payload of its last evaluation there, and whether it converged.
    struct Root<Payload> {
        var x: Double
        var payload: Payload
        var converged: Bool
    }

    /// Root of an increasing function on [lower, upper]: bracket outward from `start` by factors of
    /// 1.25, then Illinois regula falsi. Without a bracket, returns the bound closest to a root.
    static func solveIncreasing<P>(start: Double, lower: Double, upper: Double, tolerance: Double, valueTolerance: Double,
                                   _ f: (Double) -> (Double, P)) -> Root<P>
    {
        var a = Swift.min(Swift.max(start, lower), upper)
        var (fa, pa) = f(a)
        if abs(fa) < valueTolerance { return Root(x: a, payload: pa, converged: true) }
        var b = a, fb = fa, pb = pa
        // Expand until the sign changes.
        while (fa < 0) == (fb < 0) {
            let next = fa < 0 ? Swift.min(b * 1.25, upper) : Swift.max(b / 1.25, lower)
            if next == b { return Root(x: b, payload: pb, converged: false) }
            a = b; fa = fb; pa = pb
            b = next
            (fb, pb) = f(b)
            if abs(fb) < valueTolerance { return Root(x: b, payload: pb, converged: true) }
        }
        return illinois(a, fa, pa, b, fb, pb, tolerance: tolerance, valueTolerance: valueTolerance, f)
    }

    /// Root of a decreasing function on [lower, upper]: steps of `firstStep` doubling outward from
    /// `start`, then Illinois regula falsi.
    static func solveDecreasing<P>(start: Double, lower: Double, upper: Double, firstStep: Double, tolerance: Double,
                                   valueTolerance: Double, _ f: (Double) -> (Double, P)) -> Root<P>
    {
        var a = start
        var (fa, pa) = f(a)
        if abs(fa) < valueTolerance { return Root(x: a, payload: pa, converged: true) }
        var step = firstStep
        var b = a, fb = fa, pb = pa
        while (fa < 0) == (fb < 0) {
            // Decreasing: a positive value means the root lies above.
            let next = fa > 0 ? Swift.min(b + step, upper) : Swift.max(b - step, lower)
            if next == b { return Root(x: b, payload: pb, converged: false) }
            a = b; fa = fb; pa = pb
            b = next
            (fb, pb) = f(b)
            if abs(fb) < valueTolerance { return Root(x: b, payload: pb, converged: true) }
            step *= 2
        }
        return illinois(a, fa, pa, b, fb, pb, tolerance: tolerance, valueTolerance: valueTolerance, f)
    }

    /// Illinois regula falsi on a bracket (fa and fb of opposite signs).
    static func illinois<P>(_ a0: Double, _ fa0: Double, _ pa0: P, _ b0: Double, _ fb0: Double, _ pb0: P,
                            tolerance: Double, valueTolerance: Double, _ f: (Double) -> (Double, P)) -> Root<P>
    {
        var a = a0, fa = fa0, pa = pa0, b = b0, fb = fb0, pb = pb0
        var side = 0
        for _ in 0..<80 {
            var c = (a * fb - b * fa) / (fb - fa)
            if !c.isFinite || c <= Swift.min(a, b) || c >= Swift.max(a, b) { c = (a + b) / 2 }
            let (fc, pc) = f(c)
            if abs(fc) < valueTolerance || abs(b - a) < tolerance { return Root(x: c, payload: pc, converged: true) }
            if (fc < 0) == (fb < 0) {
                b = c; fb = fc; pb = pc
                if side == -1 { fa /= 2 }
                side = -1
            } else {
                a = c; fa = fc; pa = pc
                if side == 1 { fb /= 2 }
                side = 1
            }
        }
        return abs(fa) < abs(fb) ? Root(x: a, payload: pa, converged: false) : Root(x: b, payload: pb, converged: false)
    }

    /// The interval around `centre` where `inside` holds: expand each side by doubling steps until it
    /// fails (or `maxSpan` is reached), then bisect to `precision`. Assumes `inside(centre)`.
    static func window(centre: Double, firstStep: Double, maxSpan: Double, precision: Double,
                       _ inside: (Double) -> Bool) -> (lo: Double, hi: Double)
    {
        func edge(_ direction: Double) -> Double {
            var good = 0.0
            var step = firstStep
            var bad: Double?
            while step <= maxSpan {
                if inside(centre + direction * step) {
                    good = step
                    step *= 2
                } else {
                    bad = step
                    break
                }
            }
            guard var b = bad else {
                return centre + direction * good
            }
            var g = good
            while b - g > precision {
                let mid = (g + b) / 2
                if inside(centre + direction * mid) { g = mid } else { b = mid }
            }
            return centre + direction * g
        }
        return (edge(-1), edge(1))
    }
}
