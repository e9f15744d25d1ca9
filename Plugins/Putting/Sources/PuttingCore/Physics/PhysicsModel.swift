// The physics model: a ball rolling without slipping on the green surface.
//
//   a = −(5/7)·g·∇h/√(1+|∇h|²) − a_r·v̂,   a_r = v_s²/(2·S)   (S = stimp in feet, v_s = 6 ft/s)
//
// The 5/7 is the rolling sphere's share of gravity (I = 2/5·m·r²); a_r is not scaled by it because
// a stimpmeter reading already measures a rolling ball. Integrated with the Dormand–Prince 5(4)
// pair: every step's local error estimate is held below the tolerance (absolute plus relative),
// and the step never covers more than one grid cell. Between steps the path is the cubic Hermite
// through both ends' positions and velocities, which is what the cup crossing and the green's
// edge are found on — a ball cannot tunnel through the cup between steps.
import Glibc

/// When a ball crossing the cup drops: its speed at the rim must be below a limit that depends on
/// how far from the centre it passes.
public struct CaptureRule: Sendable, Equatable, Codable {
    /// How the limit falls from the centre to the edge of the cup.
    public enum Falloff: String, Sendable, Codable, CaseIterable {
        /// limit·√(1−(b/R)²): the chord the ball crosses shrinks toward the edge.
        case chord
        /// The same limit across the cup.
        case none
    }

    public var cupRadiusFt: Double = 2.125 / 12
    /// Limit for a ball through the centre: 1.31 m/s = 4.3 ft/s.
    public var centreSpeedLimitFps: Double = 4.3
    public var falloff: Falloff = .chord

    public init(cupRadiusFt: Double = 2.125 / 12, centreSpeedLimitFps: Double = 4.3, falloff: Falloff = .chord) {
        self.cupRadiusFt = cupRadiusFt
        self.centreSpeedLimitFps = centreSpeedLimitFps
        self.falloff = falloff
    }

    /// The fastest a ball passing `offsetFt` from the centre may enter and still drop.
    public func speedLimit(offsetFt b: Double) -> Double {
        guard b < cupRadiusFt else { return 0 }
        switch falloff {
        case .chord:
            let r = b / cupRadiusFt
            return centreSpeedLimitFps * Swift.max(0, 1 - r * r).squareRoot()
        case .none:
            return centreSpeedLimitFps
        }
    }
}

/// Parameters of the physics model.
public struct PhysicsParameters: Sendable, Equatable {
    public var stimpFt: Double
    /// The stimpmeter's release speed, v_s.
    public var stimpLaunchFps = 6.0
    public var gravityFps2 = 32.174
    /// Share of gravity that accelerates a rolling solid sphere.
    public var rollingFactor = 5.0 / 7.0
    public var capture = CaptureRule()
    /// Local error tolerance per step: absolute (ft, ft/s) and relative.
    public var absoluteTolerance = 1e-6
    public var relativeTolerance = 1e-9
    /// Below this speed the ball is at rest.
    public var restSpeedFps = 1e-4
    public var maxTimeS = 30.0
    /// The longest step, in grid cells of travel.
    public var maxStepCells = 1.0
    /// How much looser "does it drop?" rolls (early exit on) hold the local error.
    public var earlyExitToleranceScale = 10.0

    public init(stimpFt: Double) { self.stimpFt = stimpFt }

    /// Rolling resistance deceleration a_r = v_s²/(2·S).
    public var rollingResistance: Double { stimpLaunchFps * stimpLaunchFps / (2 * stimpFt) }
}

/// Why a roll ended.
public enum RollEnd: String, Sendable, Codable {
    case rest
    case holed
    case offGreen
    case timeLimit
    /// Early exit: the cup is out of the ball's reach (an energy bound proves it cannot drop).
    case outOfReach
}

/// A point of a rolled path.
public struct PathPoint: Sendable, Equatable {
    public var t: Double
    public var x: Double
    public var z: Double
    public var y: Double
}

/// The outcome of one physics roll.
public struct PhysicsRoll: Sendable {
    public var path: [PathPoint] = []
    public var end: RollEnd = .rest
    public var holed: Bool { end == .holed }
    /// Where the roll ended (rest, the drop point when holed, the green's edge).
    public var final = PointFt(x: 0, z: 0)
    public var tEnd = 0.0
    /// Path length from the start to the end.
    public var length = 0.0
    /// Closest approach to the hole over the whole roll: distance, point, arc length there, and the
    /// signed side (positive when the hole is to the left of the ball's motion there).
    public var closestDistance = Double.infinity
    public var closestPoint = PointFt(x: 0, z: 0)
    public var closestArcLength = 0.0
    public var closestSignedOffset = 0.0
    /// Speed at the closest approach (near 0 when the ball stopped or turned back there).
    public var closestSpeed = 0.0
    /// Speed when the ball left the green (nil when it did not).
    public var exitSpeed: Double?
    /// Speed at the cup's rim on the first crossing, and the offset of that pass from the centre.
    public var rimSpeed: Double?
    public var passOffset: Double?
    /// Steps taken (accepted) and rejected, and right-hand-side evaluations.
    public var steps = 0
    public var rejectedSteps = 0
    public var evaluations = 0
    /// Path length after the closest approach (how far past the hole the ball finished).
    public var lengthPastClosest: Double { length - closestArcLength }

    /// A continuous measure of how well the stroke drops: ≥ 0 exactly when holed. Under the chord rule a
    /// ball drops when (v/v₀)² + (b/R)² ≤ 1 (v the rim speed, b the pass's offset from the centre), so the
    /// margin is 1 − (v/v₀)² − (b/R)², smooth in aim and speed and continued past the rim with the closest
    /// approach and its speed. Used to find the ends of holing windows by regula falsi instead of bisection.
    public func captureMargin(_ rule: CaptureRule) -> Double {
        let b = rimSpeed != nil ? (passOffset ?? closestDistance) : closestDistance
        let v = rimSpeed ?? closestSpeed
        let r = b / rule.cupRadiusFt, q = v / rule.centreSpeedLimitFps
        var m: Double
        switch rule.falloff {
        case .chord: m = 1 - q * q - r * r
        case .none: m = Swift.min(1 - r, 1 - q)
        }
        if !m.isFinite { m = -1 }
        return holed ? Swift.max(m, 1e-12) : Swift.min(m, -1e-12)
    }
}

/// Options of one roll.
public struct RollOptions: Sendable {
    /// Drop the ball when it crosses the cup slowly enough (false: a "ghost" cup it rolls over).
    public var capture = true
    public var recordPath = true
    /// Stop as soon as an energy bound proves the ball can no longer reach the cup.
    public var earlyExit = false
    /// End at the first moment the ball stops, even where the slope would start it rolling back.
    public var endAtFirstStop = false
    /// End where the ball, moving away from the cup, is slowest (the top of its forward trip on a slope it
    /// would roll back down, or curl away on): where a golfer sees it "finish" past the hole.
    public var endAtApex = false
    /// End (as `.outOfReach`) once the ball has rolled this far past its closest approach to the hole (nil:
    /// never). For ghost rolls that only need to know "how far past": a ball running away down a slope beyond
    /// the hole need not be followed to the green's edge.
    public var stopPastFt: Double? = nil

    public init(capture: Bool = true, recordPath: Bool = true, earlyExit: Bool = false, endAtFirstStop: Bool = false,
                endAtApex: Bool = false)
    {
        self.endAtApex = endAtApex
        self.capture = capture
        self.recordPath = recordPath
        self.earlyExit = earlyExit
        self.endAtFirstStop = endAtFirstStop
    }
}

/// Rolls balls on a green surface.
public struct PhysicsSimulator: Sendable {
    public let surface: GreenSurface
    public let parameters: PhysicsParameters
    let kg: Double
    let ar: Double
    /// a_r minus the most gravity can add to ½v² + k_g·h per foot travelled (≤ 0 disables early exit).
    let energyDrainPerFoot: Double
    /// Follow a hovering ball on the fall line (`quasiStaticStep`); false integrates the full equations all the
    /// way (the reference the tests compare with).
    var followsFallLine = true

    public init(surface: GreenSurface, parameters: PhysicsParameters) {
        self.surface = surface
        self.parameters = parameters
        kg = parameters.rollingFactor * parameters.gravityFps2
        ar = parameters.rollingResistance
        // d/dt(½v² + k_g h) = k_g ∇h·v (1 − 1/√(1+|∇h|²)) − a_r|v|  ≤  −|v|·(a_r − k_g G (1 − 1/√(1+G²)))
        let G = surface.maximumSlope
        energyDrainPerFoot = ar - kg * G * (1 - 1 / (1 + G * G).squareRoot())
    }

    struct State {
        var x, z, vx, vz, s: Double
    }

    struct Derivative {
        var dx, dz, dvx, dvz, ds: Double
        static let zero = Derivative(dx: 0, dz: 0, dvx: 0, dvz: 0, ds: 0)
    }

    @inline(__always)
    func acceleration(_ y: State) -> (Double, Double, SurfaceSample) {
        let sample = surface.sample(xFt: y.x, zFt: y.z)
        let gx = sample.slopeX, gz = sample.slopeZ
        let scale = -kg / (1 + gx * gx + gz * gz).squareRoot()
        var ax = scale * gx, az = scale * gz
        let speed = (y.vx * y.vx + y.vz * y.vz).squareRoot()
        if speed > 0 {
            ax -= ar * y.vx / speed
            az -= ar * y.vz / speed
        }
        return (ax, az, sample)
    }

    @inline(__always)
    func derivative(_ y: State) -> Derivative {
        let (ax, az, _) = acceleration(y)
        return Derivative(dx: y.vx, dz: y.vz, dvx: ax, dvz: az, ds: (y.vx * y.vx + y.vz * y.vz).squareRoot())
    }

    /// y + h·Σ cᵢ·kᵢ (unused terms have c = 0).
    @inline(__always)
    static func add(_ y: State, _ h: Double, _ c1: Double, _ k1: Derivative, _ c2: Double = 0, _ k2: Derivative = .zero,
                    _ c3: Double = 0, _ k3: Derivative = .zero, _ c4: Double = 0, _ k4: Derivative = .zero,
                    _ c5: Double = 0, _ k5: Derivative = .zero) -> State
    {
        func sum(_ f: (Derivative) -> Double) -> Double {
            h * (c1 * f(k1) + c2 * f(k2) + c3 * f(k3) + c4 * f(k4) + c5 * f(k5))
        }
        return State(x: y.x + sum { $0.dx }, z: y.z + sum { $0.dz }, vx: y.vx + sum { $0.dvx },
                     vz: y.vz + sum { $0.dvz }, s: y.s + sum { $0.ds })
    }

    /// Cubic Hermite position between two states at fraction τ of a step of length h.
    @inline(__always)
    static func hermite(_ a: State, _ b: State, _ h: Double, _ tau: Double) -> (x: Double, z: Double, s: Double) {
        let t2 = tau * tau, t3 = t2 * tau
        let h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + tau, h01 = -2 * t3 + 3 * t2, h11 = t3 - t2
        let sa = (a.vx * a.vx + a.vz * a.vz).squareRoot(), sb = (b.vx * b.vx + b.vz * b.vz).squareRoot()
        return (h00 * a.x + h10 * h * a.vx + h01 * b.x + h11 * h * b.vx,
                h00 * a.z + h10 * h * a.vz + h01 * b.z + h11 * h * b.vz,
                h00 * a.s + h10 * h * sa + h01 * b.s + h11 * h * sb)
    }

    /// d/dτ of the Hermite position, divided by h (a velocity).
    @inline(__always)
    static func hermiteVelocity(_ a: State, _ b: State, _ h: Double, _ tau: Double) -> (Double, Double) {
        let t2 = tau * tau
        let d00 = 6 * t2 - 6 * tau, d10 = 3 * t2 - 4 * tau + 1, d01 = -6 * t2 + 6 * tau, d11 = 3 * t2 - 2 * tau
        return ((d00 * a.x + d01 * b.x) / h + d10 * a.vx + d11 * b.vx,
                (d00 * a.z + d01 * b.z) / h + d10 * a.vz + d11 * b.vz)
    }

    /// Closest approach of the Hermite arc of one step to a point: (τ, squared distance).
    static func closestOnStep(_ a: State, _ b: State, _ h: Double, to c: PointFt) -> (Double, Double) {
        func d2(_ tau: Double) -> Double {
            let p = hermite(a, b, h, tau)
            return (p.x - c.x) * (p.x - c.x) + (p.z - c.z) * (p.z - c.z)
        }
        let samples = 12
        var bestTau = 0.0, best = d2(0)
        for k in 1...samples {
            let tau = Double(k) / Double(samples)
            let v = d2(tau)
            if v < best { best = v; bestTau = tau }
        }
        // Golden-section refinement within the neighbouring samples.
        var lo = Swift.max(0, bestTau - 1 / Double(samples)), hi = Swift.min(1, bestTau + 1 / Double(samples))
        let phi = (5.0.squareRoot() - 1) / 2
        var m1 = hi - phi * (hi - lo), m2 = lo + phi * (hi - lo)
        var f1 = d2(m1), f2 = d2(m2)
        for _ in 0..<40 {
            if f1 < f2 {
                hi = m2; m2 = m1; f2 = f1; m1 = hi - phi * (hi - lo); f1 = d2(m1)
            } else {
                lo = m1; m1 = m2; f1 = f2; m2 = lo + phi * (hi - lo); f2 = d2(m2)
            }
            if hi - lo < 1e-12 { break }
        }
        let tau = (lo + hi) / 2
        let v = d2(tau)
        return v < best ? (tau, v) : (bestTau, best)
    }

    /// Squared distance from a point to the box around a step's Bézier control points (the Hermite
    /// arc lies inside their convex hull).
    @inline(__always)
    static func boxDistanceSquared(_ a: State, _ b: State, _ h: Double, to c: PointFt) -> Double {
        let xs = (a.x, a.x + h * a.vx / 3, b.x - h * b.vx / 3, b.x)
        let zs = (a.z, a.z + h * a.vz / 3, b.z - h * b.vz / 3, b.z)
        let x0 = Swift.min(Swift.min(xs.0, xs.1), Swift.min(xs.2, xs.3)), x1 = Swift.max(Swift.max(xs.0, xs.1), Swift.max(xs.2, xs.3))
        let z0 = Swift.min(Swift.min(zs.0, zs.1), Swift.min(zs.2, zs.3)), z1 = Swift.max(Swift.max(zs.0, zs.1), Swift.max(zs.2, zs.3))
        let dx = c.x < x0 ? x0 - c.x : (c.x > x1 ? c.x - x1 : 0)
        let dz = c.z < z0 ? z0 - c.z : (c.z > z1 ? c.z - z1 : 0)
        return dx * dx + dz * dz
    }

    /// Rolls a ball from `start` with launch velocity (vx, vz) toward a cup at `hole` (nil: no cup).
    public func roll(from start: PointFt, vx: Double, vz: Double, hole: PointFt?, options: RollOptions = RollOptions())
        -> PhysicsRoll
    {
        var out = PhysicsRoll()
        let p = parameters
        let R = p.capture.cupRadiusFt
        var y = State(x: start.x, z: start.z, vx: vx, vz: vz, s: 0)
        var t = 0.0
        var k1 = derivative(y)
        out.evaluations = 1
        let startHeight = surface.sample(xFt: start.x, zFt: start.z).height
        if options.recordPath { out.path.append(PathPoint(t: 0, x: start.x, z: start.z, y: startHeight)) }
        if let hole {
            out.closestDistance = start.distance(to: hole)
            out.closestPoint = start
            let s0 = (vx * vx + vz * vz).squareRoot()
            out.closestSpeed = s0
            if s0 > 0 { out.closestSignedOffset = (vx * (hole.z - start.z) - vz * (hole.x - start.x)) / s0 }
        }
        var lastDirection: (Double, Double) = {
            let s = (vx * vx + vz * vz).squareRoot()
            return s > 0 ? (vx / s, vz / s) : (1, 0)
        }()
        // The pass over the cup in progress: rim speed and smallest offset so far.
        var inPass = false
        var passRimSpeed = 0.0
        var passOffset = Double.infinity
        var passPoint = start, passTime = 0.0, passArc = 0.0
        var h = 0.01
        /// When the current spell below ten times the rest speed began (nil: not creeping).
        var creepSince: Double?
        /// When the current spell below `quasiStaticSpeed` began (nil: faster).
        var slowSince: Double?
        // "Does it drop?" rolls (early exit on) hold a tenth of the accuracy: their answer is a yes/no at the cup.
        let toleranceScale = options.earlyExit ? p.earlyExitToleranceScale : 1.0
        let cellLength = surface.resolution * p.maxStepCells
        // A lower bound of the surface's height on the cup's rim (for the early exit).
        let rimLow = hole.map { surface.lowestControl(nearXFt: $0.x, zFt: $0.z, radiusFt: R) } ?? 0

        func finish(_ end: RollEnd, at point: PointFt, time: Double, arc: Double) {
            out.end = end
            out.final = point
            out.tEnd = time
            out.length = arc
            if options.recordPath {
                if let last = out.path.last, last.t > time {
                    while let l = out.path.last, l.t > time { out.path.removeLast() }
                }
                if out.path.last.map({ $0.t < time }) ?? true {
                    out.path.append(PathPoint(t: time, x: point.x, z: point.z,
                                              y: surface.sample(xFt: point.x, zFt: point.z).height))
                }
            }
        }

        /// Decides the pass when the ball has left the cup (or stopped in it): true when holed.
        func decidePass(stoppedInside: Bool) -> Bool {
            inPass = false
            if out.rimSpeed == nil {
                out.rimSpeed = passRimSpeed
                out.passOffset = passOffset
            }
            guard options.capture else { return false }
            if stoppedInside || passRimSpeed <= p.capture.speedLimit(offsetFt: passOffset) {
                finish(.holed, at: passPoint, time: passTime, arc: passArc)
                return true
            }
            return false
        }

        while true {
            let speed = (y.vx * y.vx + y.vz * y.vz).squareRoot()
            // At rest: stay, unless the slope pulls harder than rolling resistance holds.
            if speed < p.restSpeedFps {
                // The last sliver to a stop, at the current deceleration (exact to O(v³)).
                if speed > 0 {
                    let along = -(k1.dvx * y.vx + k1.dvz * y.vz) / speed
                    if along > 0 {
                        let dtRest = speed / along
                        y.x += y.vx * dtRest / 2
                        y.z += y.vz * dtRest / 2
                        y.s += speed * dtRest / 2
                        t += dtRest
                    }
                }
                // It stays, unless the slope pulls harder than rolling resistance holds.
                let sample = surface.sample(xFt: y.x, zFt: y.z)
                let g = (sample.slopeX * sample.slopeX + sample.slopeZ * sample.slopeZ).squareRoot()
                let pull = kg * g / (1 + g * g).squareRoot()
                if pull <= ar || g == 0 || options.endAtFirstStop {
                    let here = PointFt(x: y.x, z: y.z)
                    if inPass, decidePass(stoppedInside: true) { return out }
                    finish(.rest, at: here, time: t, arc: y.s)
                    return out
                }
                y.vx = -sample.slopeX / g * 2 * p.restSpeedFps
                y.vz = -sample.slopeZ / g * 2 * p.restSpeedFps
                k1 = derivative(y)
                out.evaluations += 1
                continue
            }
            // A creeping ball: one that has stayed below ten times the rest speed for half a second (≤ 0.5 mm
            // travelled) is at rest where it is: over the cup, it has stopped inside (holed, as a ball that stops
            // there); elsewhere more than 3 in from the rim, it rests. Such a ball sits where the slope's pull
            // balances rolling resistance, its speed hovering just above the rest speed; integrating that creep
            // to the time limit took up to a million steps a roll. A slope that gentle cannot take it to the cup
            // before the time limit (and none did in the sweep: the creeping balls that dropped crept inside the cup).
            if speed >= 10 * p.restSpeedFps {
                creepSince = nil
            } else if let since = creepSince {
                if t - since > 0.5, inPass || (hole.map({ PointFt(x: y.x, z: y.z).distance(to: $0) > R + 0.25 }) ?? true) {
                    if inPass, decidePass(stoppedInside: true) { return out }
                    finish(.rest, at: PointFt(x: y.x, z: y.z), time: t, arc: y.s)
                    return out
                }
            } else {
                creepSince = t
            }
            if t >= p.maxTimeS {
                finish(.timeLimit, at: PointFt(x: y.x, z: y.z), time: t, arc: y.s)
                return out
            }
            // Early exit: the ball cannot reach the cup's rim any more. E = ½v² + k_g·h falls by at least
            // `energyDrainPerFoot` per foot rolled, and a ball at the rim has E ≥ k_g·h(rim); the path there
            // is at least the straight gap. So E − drain·gap < k_g·min h(rim) proves it never gets there.
            if options.earlyExit, options.capture, !inPass, let hole, out.steps % 4 == 0 {
                let dx = y.x - hole.x, dz = y.z - hole.z
                let gap = (dx * dx + dz * dz).squareRoot() - R
                // A ball that went by within 2 ft of the cup and now runs away from it, more than 8 ft off, is a
                // miss (a slope that brings it back into the cup from there is not a putt anyone plays). This
                // keeps the rolls of windows and make probability short on a slope that runs away past the hole.
                if out.closestDistance < 2, gap > 8, dx * y.vx + dz * y.vz > 0 {
                    finish(.outOfReach, at: PointFt(x: y.x, z: y.z), time: t, arc: y.s)
                    return out
                }
            }
            if options.earlyExit, options.capture, !inPass, let hole, energyDrainPerFoot > 0, out.steps % 4 == 0 {
                let dx = y.x - hole.x, dz = y.z - hole.z
                let gap = (dx * dx + dz * dz).squareRoot() - R
                if gap > 0 {
                    let here = surface.sample(xFt: y.x, zFt: y.z).height
                    let spare = 0.5 * speed * speed + kg * (here - rimLow)
                    if energyDrainPerFoot * gap > spare * 1.01 + 0.01 {
                        finish(.outOfReach, at: PointFt(x: y.x, z: y.z), time: t, arc: y.s)
                        return out
                    }
                }
            }

            // A hovering ball: below `quasiStaticSpeed` for `quasiStaticAfterS` and rolling straight down the
            // fall line, it follows the fall line at the speed the slope's pull minus rolling resistance gives it.
            if speed >= PhysicsSimulator.quasiStaticSpeed {
                slowSince = nil
            } else if slowSince == nil {
                slowSince = t
            }
            var yNew: State
            var k7: Derivative
            var factor: Double
            if followsFallLine, let since = slowSince, t - since >= PhysicsSimulator.quasiStaticAfterS,
               let q = quasiStaticStep(y, speed: speed, timeLeft: p.maxTimeS - t + 1e-9)
            {
                h = q.h
                yNew = q.y
                k7 = derivative(yNew)
                out.evaluations += q.evaluations + 1
                factor = 1
            } else {
                // Step size: the controller's proposal, at most one cell of travel, and never past the
                // moment the ball would stop (it then halves toward the stop instead of overshooting).
                h = Swift.min(h, cellLength / speed, p.maxTimeS - t + 1e-9)
                let along = -(k1.dvx * y.vx + k1.dvz * y.vz) / speed
                if along > 0 { h = Swift.min(h, 0.5 * speed / along) }

                // One Dormand–Prince 5(4) step.
                let k2 = derivative(PhysicsSimulator.add(y, h, 1.0 / 5, k1))
                let k3 = derivative(PhysicsSimulator.add(y, h, 3.0 / 40, k1, 9.0 / 40, k2))
                let k4 = derivative(PhysicsSimulator.add(y, h, 44.0 / 45, k1, -56.0 / 15, k2, 32.0 / 9, k3))
                let k5 = derivative(PhysicsSimulator.add(y, h, 19372.0 / 6561, k1, -25360.0 / 2187, k2, 64448.0 / 6561, k3,
                                                         -212.0 / 729, k4))
                let k6 = derivative(PhysicsSimulator.add(y, h, 9017.0 / 3168, k1, -355.0 / 33, k2, 46732.0 / 5247, k3,
                                                         49.0 / 176, k4, -5103.0 / 18656, k5))
                yNew = PhysicsSimulator.add(y, h, 35.0 / 384, k1, 500.0 / 1113, k3, 125.0 / 192, k4,
                                                -2187.0 / 6784, k5, 11.0 / 84, k6)
                k7 = derivative(yNew)
                out.evaluations += 6
                // Embedded error estimate (5th − 4th order).
                let e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525, e7 = -1.0 / 40
                func err(_ f: (Derivative) -> Double, _ a: Double, _ b: Double) -> Double {
                    let e = h * (e1 * f(k1) + e3 * f(k3) + e4 * f(k4) + e5 * f(k5) + e6 * f(k6) + e7 * f(k7))
                    return abs(e) / (toleranceScale * (p.absoluteTolerance + p.relativeTolerance * Swift.max(abs(a), abs(b))))
                }
                let error = Swift.max(err({ $0.dx }, y.x, yNew.x), err({ $0.dz }, y.z, yNew.z),
                                      err({ $0.dvx }, y.vx, yNew.vx), err({ $0.dvz }, y.vz, yNew.vz))
                // 0.9·error^(−1/5) ≥ 5 for error ≤ (0.9/5)⁵ ≈ 1.89·10⁻⁴: the growth cap without the pow (most steps
                // are held to a cell, far inside the tolerance).
                factor = error <= 1.8e-4 ? 5 : Swift.min(5, Swift.max(0.2, 0.9 * pow(error, -0.2)))
                if error > 1 {
                    out.rejectedSteps += 1
                    h *= factor
                    continue
                }
            }
            out.steps += 1
            let tNew = t + h

            // The green's edge: find where the Hermite arc leaves it and end there.
            if !surface.isOnGreen(xFt: yNew.x, zFt: yNew.z) {
                var lo = 0.0, hi = 1.0
                for _ in 0..<30 {
                    let mid = (lo + hi) / 2
                    let q = PhysicsSimulator.hermite(y, yNew, h, mid)
                    if surface.isOnGreen(xFt: q.x, zFt: q.z) { lo = mid } else { hi = mid }
                }
                let q = PhysicsSimulator.hermite(y, yNew, h, lo)
                if let hole { trackClosest(y, yNew, h, lo, hole: hole, t: t, out: &out, lastDirection: lastDirection) }
                if inPass, decidePass(stoppedInside: false) { return out }
                let ve = PhysicsSimulator.hermiteVelocity(y, yNew, h, lo)
                out.exitSpeed = (ve.0 * ve.0 + ve.1 * ve.1).squareRoot()
                finish(.offGreen, at: PointFt(x: q.x, z: q.z), time: t + lo * h, arc: q.s)
                return out
            }

            if options.endAtApex, let hole {
                // Deceleration at both ends: slowing (> 0) turning to speeding up means a speed minimum inside.
                let sOld = speed, sNew = (yNew.vx * yNew.vx + yNew.vz * yNew.vz).squareRoot()
                let decelOld = -(k1.dvx * y.vx + k1.dvz * y.vz) / sOld
                let decelNew = sNew > 0 ? -(k7.dvx * yNew.vx + k7.dvz * yNew.vz) / sNew : 0
                if decelOld > 0, decelNew <= 0 {
                    let tau = Swift.min(1, Swift.max(0, decelOld / (decelOld - decelNew)))
                    let q = PhysicsSimulator.hermite(y, yNew, h, tau)
                    let vq = PhysicsSimulator.hermiteVelocity(y, yNew, h, tau)
                    if (q.x - hole.x) * vq.0 + (q.z - hole.z) * vq.1 > 0 {
                        trackClosest(y, yNew, h, tau, hole: hole, t: t, out: &out, lastDirection: lastDirection)
                        finish(.rest, at: PointFt(x: q.x, z: q.z), time: t + tau * h, arc: q.s)
                        return out
                    }
                }
            }
            if let hole {
                trackClosest(y, yNew, h, 1, hole: hole, t: t, out: &out, lastDirection: lastDirection)
                if let cap = options.stopPastFt, !inPass, yNew.s - out.closestArcLength > cap {
                    finish(.outOfReach, at: PointFt(x: yNew.x, z: yNew.z), time: tNew, arc: yNew.s)
                    return out
                }
                // The cup: a pass begins when the arc comes within R; it is decided when the ball leaves.
                if inPass || PhysicsSimulator.boxDistanceSquared(y, yNew, h, to: hole) < R * R {
                    let (tau, d2) = PhysicsSimulator.closestOnStep(y, yNew, h, to: hole)
                    if !inPass, d2 < R * R {
                        inPass = true
                        // Entry: where the distance first falls to R (bisection from the step start).
                        let startD2 = (y.x - hole.x) * (y.x - hole.x) + (y.z - hole.z) * (y.z - hole.z)
                        var entry = 0.0
                        if startD2 > R * R {
                            var lo = 0.0, hi = tau
                            for _ in 0..<50 {
                                let mid = (lo + hi) / 2
                                let q = PhysicsSimulator.hermite(y, yNew, h, mid)
                                if (q.x - hole.x) * (q.x - hole.x) + (q.z - hole.z) * (q.z - hole.z) > R * R { lo = mid } else { hi = mid }
                            }
                            entry = hi
                        }
                        let v = PhysicsSimulator.hermiteVelocity(y, yNew, h, entry)
                        passRimSpeed = (v.0 * v.0 + v.1 * v.1).squareRoot()
                        passOffset = .infinity
                    }
                    if inPass, d2.squareRoot() < passOffset {
                        passOffset = d2.squareRoot()
                        let q = PhysicsSimulator.hermite(y, yNew, h, tau)
                        passPoint = PointFt(x: q.x, z: q.z)
                        passTime = t + tau * h
                        passArc = q.s
                    }
                    let endD2 = (yNew.x - hole.x) * (yNew.x - hole.x) + (yNew.z - hole.z) * (yNew.z - hole.z)
                    if inPass, endD2 >= R * R, decidePass(stoppedInside: false) { return out }
                }
            }

            if options.recordPath {
                // The path at least every 0.02 s, from the step's Hermite arc.
                let pieces = Swift.max(1, Int((h / 0.02).rounded(.up)))
                for k in 1...pieces {
                    let tau = Double(k) / Double(pieces)
                    let q = k == pieces ? (x: yNew.x, z: yNew.z, s: yNew.s) : PhysicsSimulator.hermite(y, yNew, h, tau)
                    out.path.append(PathPoint(t: t + tau * h, x: q.x, z: q.z, y: surface.sample(xFt: q.x, zFt: q.z).height))
                }
            }
            y = yNew
            t = tNew
            k1 = k7
            let s = (y.vx * y.vx + y.vz * y.vz).squareRoot()
            if s > 1e-9 { lastDirection = (y.vx / s, y.vz / s) }
            h *= factor
        }
    }

    /// Below this speed, after `quasiStaticAfterS` there, a ball rolling down the fall line is followed on it.
    static let quasiStaticSpeed = 0.02
    static let quasiStaticAfterS = 0.1

    /// One step of a hovering ball: slower than `quasiStaticSpeed` and moving within 2.6° of straight downhill.
    /// There the velocity's direction relaxes to the fall line in about v/a_r (≈ 0.01 s at 0.02 ft/s) and
    /// stays on it, lagging it by about v²κ/a_r (κ the fall line's curvature): ~10⁻⁵ rad. The full equations
    /// are stiff there (that relaxation bounds an explicit step to a few v/a_r: 10⁻⁴ s at 1 mm/s, a million
    /// steps to the time limit); on the fall line they reduce to ẋ = v·d(x), v̇ = k_g·G/√(1+G²) − a_r
    /// (d = −∇h/|∇h|), which is not stiff: one classical Runge–Kutta step covering up to a fifth of a
    /// cell. nil when the ball is not on the fall line (the full step then takes over).
    private func quasiStaticStep(_ y: State, speed: Double, timeLeft: Double)
        -> (y: State, h: Double, evaluations: Int)?
    {
        struct F { var dx, dz, dv: Double }
        func f(_ x: Double, _ z: Double, _ v: Double) -> F? {
            let sample = surface.sample(xFt: x, zFt: z)
            let g = (sample.slopeX * sample.slopeX + sample.slopeZ * sample.slopeZ).squareRoot()
            guard g > 0 else { return nil }
            let pull = kg * g / (1 + g * g).squareRoot()
            return F(dx: -sample.slopeX / g * v, dz: -sample.slopeZ / g * v, dv: pull - ar)
        }
        guard speed > 0, let f1 = f(y.x, y.z, speed) else { return nil }
        // On the fall line: the velocity within 2.6° of straight downhill (cos > 0.999).
        guard (y.vx * f1.dx + y.vz * f1.dz) > 0.999 * speed * speed else { return nil }
        var h = Swift.min(0.2 * surface.resolution / speed, 0.25, timeLeft)
        if f1.dv < 0 { h = Swift.min(h, 0.5 * speed / -f1.dv) }
        if f1.dv > 0 { h = Swift.min(h, PhysicsSimulator.quasiStaticSpeed / f1.dv) }
        guard let f2 = f(y.x + h / 2 * f1.dx, y.z + h / 2 * f1.dz, speed + h / 2 * f1.dv),
              let f3 = f(y.x + h / 2 * f2.dx, y.z + h / 2 * f2.dz, speed + h / 2 * f2.dv),
              let f4 = f(y.x + h * f3.dx, y.z + h * f3.dz, speed + h * f3.dv)
        else { return nil }
        let x = y.x + h / 6 * (f1.dx + 2 * f2.dx + 2 * f3.dx + f4.dx)
        let z = y.z + h / 6 * (f1.dz + 2 * f2.dz + 2 * f3.dz + f4.dz)
        let v = Swift.max(0, speed + h / 6 * (f1.dv + 2 * f2.dv + 2 * f3.dv + f4.dv))
        let s = y.s + h / 6 * (speed + 2 * (speed + h / 2 * f1.dv) + 2 * (speed + h / 2 * f2.dv) + (speed + h * f3.dv))
        guard let fe = f(x, z, v) else { return nil }
        return (State(x: x, z: z, vx: fe.dx, vz: fe.dz, s: s), h, 5)
    }

    /// Updates the roll's closest approach with the arc of one step (up to fraction `upTo`).
    private func trackClosest(_ a: State, _ b: State, _ h: Double, _ upTo: Double, hole: PointFt, t: Double,
                              out: inout PhysicsRoll, lastDirection: (Double, Double))
    {
        let best2 = out.closestDistance * out.closestDistance
        guard PhysicsSimulator.boxDistanceSquared(a, b, h, to: hole) < best2 else { return }
        // The step's ends tell most steps apart without a search (a step covers at most one cell, too short
        // for the arc to turn toward the hole and away again): approaching at both ends, the nearest point is
        // the end; moving away at both, the start, which the previous step already counted. Only a step whose
        // approach turns into a retreat is searched (that is where the closest approach lies).
        if upTo == 1 {
            let startDot = (a.x - hole.x) * a.vx + (a.z - hole.z) * a.vz
            let endDot = (b.x - hole.x) * b.vx + (b.z - hole.z) * b.vz
            if startDot > 0, endDot > 0 { return }
            if startDot < 0, endDot < 0 {
                let d2 = (b.x - hole.x) * (b.x - hole.x) + (b.z - hole.z) * (b.z - hole.z)
                guard d2 < best2 else { return }
                var dx = b.vx, dz = b.vz
                let n = (dx * dx + dz * dz).squareRoot()
                out.closestSpeed = n
                if n > 1e-9 { dx /= n; dz /= n } else { (dx, dz) = lastDirection }
                out.closestDistance = d2.squareRoot()
                out.closestPoint = PointFt(x: b.x, z: b.z)
                out.closestArcLength = b.s
                out.closestSignedOffset = dx * (hole.z - b.z) - dz * (hole.x - b.x)
                return
            }
        }
        var (tau, d2) = PhysicsSimulator.closestOnStep(a, b, h, to: hole)
        if tau > upTo {
            tau = upTo
            let q = PhysicsSimulator.hermite(a, b, h, tau)
            d2 = (q.x - hole.x) * (q.x - hole.x) + (q.z - hole.z) * (q.z - hole.z)
        }
        guard d2 < best2 else { return }
        let q = PhysicsSimulator.hermite(a, b, h, tau)
        var (dx, dz) = PhysicsSimulator.hermiteVelocity(a, b, h, tau)
        let n = (dx * dx + dz * dz).squareRoot()
        out.closestSpeed = n
        if n > 1e-9 { dx /= n; dz /= n } else { (dx, dz) = lastDirection }
        out.closestDistance = d2.squareRoot()
        out.closestPoint = PointFt(x: q.x, z: q.z)
        out.closestArcLength = q.s
        // Positive when the hole lies to the left of the direction of motion.
        out.closestSignedOffset = dx * (hole.z - q.z) - dz * (hole.x - q.x)
    }
}
