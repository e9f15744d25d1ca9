// The physics model's best line: the aim and launch speed whose path runs through the centre of
// the cup with the pace to finish a set distance (17 in by default) past it, had the cup not been
// there. Found by root finding, not a grid: for a given aim, the speed that finishes the set
// distance past the closest approach is bracketed and solved (Illinois regula falsi); over the aim,
// the signed side by which the path misses the centre is driven to zero the same way, each aim
// warm-starting the next speed solve. Then the tolerances: how far aim and speed may stray (one at
// a time) and the putt still drops under the capture rule, by expanding and bisecting.
//
// Where the nested solve fails, the later stages (scans over aims, the centre family, the lag scan)
// and the windows and make probability are cut into pieces that do not depend on each other and run
// on `lanes` threads (`Lanes.map`); the pieces are combined in one fixed order, so the answer is the
// same, to the last digit, on one lane or several.
import Glibc
import Synchronization

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
    /// False when a search over every aim and speed found no stroke that drops.
    public var holeable: Bool
    /// Why no stroke drops (nil when one does).
    public var notHoleableReason: String?
    public var tolerance: BestLineTolerance?
    /// The chance the putt drops under the stroke errors (nil when not asked for).
    public var probability: MakeProbability?
    public var simulations: Int
    public var evaluations: Int
    /// Which stage of the search gave the answer (for diagnostics and the sweep benchmark).
    public var stage: String = "nested"
    /// Set when the answer is numerically unstable: a second search with another integration step lands elsewhere.
    public var instability: NumericalInstability?
}

/// A best line that depends on the integration, not only on the green: where the search leaves its first stage
/// (no line through the centre finishing the target distance past drops, or its solve stalls on a knife edge over a
/// ridge), the answer is one of several strokes that drop, and which one the search lands on can turn on
/// differences far below a hundredth of an inch in the rolls. Found by searching again with steps of twice the
/// length; the spread is how far apart the two answers are.
public struct NumericalInstability: Sendable, Equatable {
    /// The second search's line and the stage that gave it.
    public var otherAimDeg: Double
    public var otherSpeedFps: Double
    public var otherStage: String
    /// Its make probability (nil when the make probability was not asked for).
    public var otherProbability: Double?
    /// |Δaim| in degrees, |Δspeed| as a fraction of the speed, |Δ make probability| in percentage points.
    public var aimDeg: Double
    public var speedFraction: Double
    public var probabilityPoints: Double?

    /// `otherStage` of the centre family's next stroke that drops (the other line of a centre-family answer).
    public static let familyNext = "centreFamilyNext"

    /// How the answers name the other line.
    public var otherLineName: String {
        otherStage == NumericalInstability.familyNext ? "the centre family's next stroke that drops" : "a search with steps twice as long"
    }
}

/// A solved neighbour's stroke to start a best-line search from.
public struct PhysicsWarmStart: Sendable, Equatable {
    public var ball: PointFt
    public var aimDeg: Double
    public var speedFps: Double

    public init(ball: PointFt, aimDeg: Double, speedFps: Double) {
        self.ball = ball
        self.aimDeg = aimDeg
        self.speedFps = speedFps
    }
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
    /// Compute the make probability under these stroke errors (nil: leave it out).
    public var strokeErrors: StrokeErrors? = nil
    /// Threads one best line may use (the scans over aims, the window edges and the make probability's two halves
    /// run on them). The answer is the same on any number: each piece's result depends only on its own inputs, and
    /// the pieces are combined in one fixed order. A green book, which solves positions side by side, keeps 1.
    public var lanes = 1
    /// Search again with steps twice as long when the answer does not come from the nested solve (or a warm start), and
    /// report the putt as numerically unstable when the two answers differ by more than `instabilityAimDeg` or
    /// `instabilitySpeedFraction` (or one drops and the other not).
    public var checkStability = true
    public var instabilityAimDeg = 0.05
    public var instabilitySpeedFraction = 0.005
    public var instabilityProbabilityPoints = 0.5
    /// The share of those bounds at which the flag goes up (a band below the bounds: see the check).
    public var instabilityBand = 0.5
    /// The second search's step limit, as a multiple of this one's.
    public var probeStepFactor = 2.0
    /// Where no line through the centre drops: roll every stroke through the centre with the cup and scan the lag over
    /// every aim and speed, as up to 1.5.1. Without it (the default) an aim's centre family stops once two speeds in a row
    /// pass the hole at more than `fastArrivalFactor` times the capture limit (a crossing between them cannot drop: it is
    /// noted, not refined or rolled), and an aim's lag scan stops once two speeds in a row run past the hole and off the
    /// green. On the 144-putt sweep both give every answer alike, best leaves included (`clubhouse-bench putting-sweep
    /// --exhaustive-leave` and `--compare-leave`; `LeaveSearchTests`).
    public var exhaustiveSearch = false
    /// How many times the capture limit at the centre a ball must pass the hole at for the centre family to skip it.
    public var fastArrivalFactor = 2.0
    /// The scans' speed solves: the largest factor a step of their bracket's growth may reach (1.25: up to putting 1.6.0).
    public var scanBracketMaxGrowth = 2.0
    /// Run the stability check's second search after a centre-family answer that is flagged whichever way it lands (one
    /// with a next stroke that drops), as up to putting 1.6.0. Without it (the default) that answer names the family's next
    /// stroke as its other line: the flag is the same, and the second search (a fifth to a third of such a putt) is saved.
    public var probesFlaggedFamily = false
    /// Leave out the scan over aims for the line finishing L past, and the arrival scan (the stability check's second
    /// search of an answer found after them).
    var skipAimScan = false
    var skipArrivalScan = false
    /// The stability check's replay: the first search's scans' brackets (re-refined instead of scanned again) and, of a
    /// search that ended not holeable, its centre family and lag start, so the second search re-decides among the same
    /// candidates.
    var replay: SearchTrail?
    /// The stability check's second search runs its Nelder–Mead simplexes mirrored (first steps the other way): where
    /// several strokes drop, which one a minimiser reaches turns on its path as much as on the rolls' last digits.
    var mirrorsSimplex = false

    /// What a search tried, for the stability check's replay (`replay`).
    struct SearchTrail: Sendable {
        /// The scan over aims for the line finishing L past, and the arrival scan (nil when they did not run).
        var aimScan: ScanTrail?
        var arrivalScan: ScanTrail?
        /// The centre family's strokes through the centre, by aim (nil when the family did not run).
        var family: [(aim: Double, speeds: [Double])]?
        /// The lag scan's coarse best before its refinement (nil when it did not run).
        var lag: (aim: Double, speed: Double)?
    }

    public init(simulator: PhysicsSimulator) { self.simulator = simulator }

    /// Counts work (from any lane) and reports progress (from the calling thread only: `fraction` and
    /// `progress` are touched by `advance` alone, which the lanes never call).
    /// @unchecked Sendable: the counters are atomics; `fraction` and `progress` belong to the calling thread.
    final class Tally: @unchecked Sendable {
        private let rolls = Atomic<Int>(0)
        private let steps = Atomic<Int>(0)
        var simulations: Int { rolls.load(ordering: .relaxed) }
        var evaluations: Int { steps.load(ordering: .relaxed) }
        var fraction = 0.0
        let progress: ((Double) -> Void)?
        init(progress: ((Double) -> Void)?) { self.progress = progress }
        func count(_ roll: PhysicsRoll) {
            rolls.add(1, ordering: .relaxed)
            steps.add(roll.evaluations, ordering: .relaxed)
        }
        /// Adds the work of a search of its own (the stability check's).
        func add(_ line: PhysicsBestLine) {
            rolls.add(line.simulations, ordering: .relaxed)
            steps.add(line.evaluations, ordering: .relaxed)
        }
        func advance(to f: Double) {
            if f > fraction { fraction = f; progress?(Swift.min(1, f)) }
        }
    }

    /// The stability check's search, on a thread of its own beside the rest of the best line's (a `LaneThread`, not
    /// libdispatch's pool: see `Lanes`). Where the system refuses a thread, the search runs when its answer is asked for.
    /// @unchecked Sendable: `line` is written by the search's thread before it ends, and read only after joining it (or,
    /// without a thread, written and read by the caller's).
    final class ProbeRun: @unchecked Sendable {
        // Safe: `line` is written once, by the probe's thread, before that thread ends; it is read only after `wait` has
        // joined it.
        private var line: PhysicsBestLine?
        private var thread: LaneThread?
        private var deferred: (@Sendable () -> PhysicsBestLine)?

        static func start(_ solver: PhysicsSolver, ball: PointFt, hole: PointFt) -> ProbeRun {
            let run = ProbeRun()
            run.thread = LaneThread.start { run.line = solver.bestLine(ball: ball, hole: hole) }
            if run.thread == nil { run.deferred = { solver.bestLine(ball: ball, hole: hole) } }
            return run
        }

        /// The probe's answer, once it has one.
        func wait() -> PhysicsBestLine? {
            if let thread { thread.join(); self.thread = nil }
            if let deferred { line = deferred(); self.deferred = nil }
            return line
        }
    }

    /// Finds the best line from `ball` to `hole`. `progress` receives fractions 0…1.
    ///
    /// `warmStart`: a solved neighbouring position's stroke (a green book's grid). Newton's method from it is
    /// tried first; when it does not meet both conditions quickly, or its stroke does not drop, the full search
    /// runs as without it.
    public func bestLine(ball: PointFt, hole: PointFt, warmStart: PhysicsWarmStart? = nil,
                         progress: ((Double) -> Void)? = nil) -> PhysicsBestLine {
        let tally = Tally(progress: progress)
        let baseAngle = atan2(hole.z - ball.z, hole.x - ball.x)
        let distance = ball.distance(to: hole)
        let L = finishPastFt

        // Ghost rolls: no cup, and only the forward trip (to the first stop, or the slowest point once the
        // ball moves away from the hole), which is what "finishes L past" is about even where the slope
        // beyond would roll the ball back or curl it away.
        let ghostOptions = {
            var o = RollOptions(capture: false, recordPath: false, endAtFirstStop: true, endAtApex: true)
            // Ten feet beyond the target is "far past" whatever happens next (the pace is only compared with L).
            o.stopPastFt = finishPastFt + 10
            return o
        }()
        let simulator = simulator, lanes = lanes
        @Sendable func ghost(_ offsetDeg: Double, _ speed: Double) -> PhysicsRoll {
            let a = baseAngle + offsetDeg * .pi / 180
            let r = simulator.roll(from: ball, vx: cos(a) * speed, vz: sin(a) * speed, hole: hole, options: ghostOptions)
            tally.count(r)
            return r
        }

        /// True when the ghost ball went by the hole (its closest approach is not where it stopped).
        @Sendable func passed(_ roll: PhysicsRoll) -> Bool {
            roll.closestArcLength < roll.length - 1e-9 && roll.closestSpeed > 1e-3
        }

        /// How far past the target the ghost ball finishes (negative when short). A ball that leaves the
        /// green after passing the hole counts the flat-green rollout of its exit speed as well.
        @Sendable func pace(_ roll: PhysicsRoll) -> Double {
            guard passed(roll) else { return -L - roll.closestDistance }
            let rollout = roll.end == .offGreen ? (roll.exitSpeed ?? 0) * (roll.exitSpeed ?? 0) / (2 * simulator.ar) : 0
            return roll.lengthPastClosest + rollout - L
        }

        /// The side the hole lies on, signed (positive = left of the ball's course). For a ball that
        /// stopped short, the side of the hole relative to the chord from the ball to where it stopped.
        @Sendable func side(_ roll: PhysicsRoll) -> Double {
            if passed(roll) { return roll.closestSignedOffset }
            let p = roll.closestPoint
            let dx = p.x - ball.x, dz = p.z - ball.z
            let n = (dx * dx + dz * dz).squareRoot()
            guard n > 1e-9 else { return roll.closestSignedOffset }
            return (dx * (hole.z - p.z) - dz * (hole.x - p.x)) / n
        }

        // A first speed from energy: ½v² = a_r·(D + L) + k_g·(h_hole − h_ball).
        let hb = simulator.surface.sample(xFt: ball.x, zFt: ball.z).height
        let hh = simulator.surface.sample(xFt: hole.x, zFt: hole.z).height
        let energyGuess = 2 * (simulator.ar * (distance + L) + simulator.kg * (hh - hb))
        let speedGuess = Swift.max(0.5, energyGuess > 0 ? energyGuess.squareRoot() : 0.5)

        /// For one launch speed, the aim whose path goes through the centre (the hole's side decreases
        /// as the aim turns left), or nil when no aim within the limit brings the ball to the hole.
        var aimGuess = 0.0
        func aimThroughCentre(at v: Double) -> (Double, PhysicsRoll)? {
            let solved = PhysicsSolver.solveDecreasing(start: aimGuess, lower: -aimLimitDeg, upper: aimLimitDeg, firstStep: 1.0,
                                                       tolerance: 1e-8, valueTolerance: 1e-6) { offset -> (Double, PhysicsRoll) in
                let r = ghost(offset, v)
                return (side(r), r)
            }
            guard solved.converged else { return nil }
            aimGuess = solved.x
            return (solved.x, solved.payload)
        }

        /// How far past the target the ball finishes when aimed through the centre at speed v; a speed at
        /// which no aim reaches the hole counts as short by the nearest miss.
        var nearest = Double.infinity
        func paceThroughCentre(_ v: Double) -> (Double, (Double, PhysicsRoll)?) {
            tally.advance(to: Swift.min(0.5, tally.fraction + 0.03))
            guard let (offset, r) = aimThroughCentre(at: v) else { return (-L - Swift.max(nearest, 1), nil) }
            nearest = Swift.min(nearest, r.closestDistance)
            return (pace(r), (offset, r))
        }

        // Solved means: the ghost ball goes through the centre and finishes L past, to a thousandth of a foot.
        @Sendable func solved(_ r: PhysicsRoll) -> Bool { passed(r) && r.closestDistance < 1e-3 && abs(pace(r)) < 1e-3 }
        @Sendable func captured(_ offset: Double, _ v: Double, record: Bool, early: Bool) -> PhysicsRoll {
            let a = baseAngle + offset * .pi / 180
            let r = simulator.roll(from: ball, vx: cos(a) * v, vz: sin(a) * v, hole: hole,
                                   options: RollOptions(capture: true, recordPath: record, earlyExit: early))
            tally.count(r)
            return r
        }

        /// Newton's method on (side, pace) over (aim, speed), finite-difference Jacobian, damped steps.
        func newton(_ a0: Double, _ v0: Double, iterations: Int = 25) -> (Double, Double, PhysicsRoll)? {
            var a = a0, v = v0
            var r = ghost(a, v)
            func residual(_ r: PhysicsRoll) -> (Double, Double) { (side(r), pace(r)) }
            var (f1, f2) = residual(r)
            for _ in 0..<iterations {
                if solved(r) { return (a, v, r) }
                let da = 0.01, dv = Swift.max(1e-3, 1e-3 * v)
                let (g1, g2) = residual(ghost(a + da, v))
                let (h1, h2) = residual(ghost(a, v + dv))
                let j11 = (g1 - f1) / da, j21 = (g2 - f2) / da, j12 = (h1 - f1) / dv, j22 = (h2 - f2) / dv
                let det = j11 * j22 - j12 * j21
                guard det.isFinite, abs(det) > 1e-14 else { return nil }
                var stepA = -(j22 * f1 - j12 * f2) / det, stepV = -(-j21 * f1 + j11 * f2) / det
                let shrink = Swift.min(1, 5 / Swift.max(abs(stepA), 1e-12), 0.3 * v / Swift.max(abs(stepV), 1e-12))
                stepA *= shrink; stepV *= shrink
                let norm = f1 * f1 + f2 * f2
                var accepted = false
                var t = 1.0
                for _ in 0..<6 {
                    let na = a + t * stepA, nv = v + t * stepV
                    guard abs(na) <= aimLimitDeg, nv > 0.1, nv < 60 else { t /= 2; continue }
                    let nr = ghost(na, nv)
                    let (n1, n2) = residual(nr)
                    if n1 * n1 + n2 * n2 < norm {
                        a = na; v = nv; r = nr; f1 = n1; f2 = n2
                        accepted = true
                        break
                    }
                    t /= 2
                }
                if !accepted { return nil }
            }
            return solved(r) ? (a, v, r) : nil
        }

        /// Newton from a solved neighbour's stroke: its aim offset, and its speed scaled by the two positions'
        /// energy guesses (so a ball further away or lower starts faster). Nil when it does not converge quickly.
        func warmNewton(_ w: PhysicsWarmStart) -> (Double, Double, PhysicsRoll)? {
            let hn = simulator.surface.sample(xFt: w.ball.x, zFt: w.ball.z).height
            let en = 2 * (simulator.ar * (w.ball.distance(to: hole) + L) + simulator.kg * (hh - hn))
            let v = en > 0 && energyGuess > 0 ? w.speedFps * (energyGuess / en).squareRoot() : w.speedFps
            guard v.isFinite, v > 0.1, v < 60, w.aimDeg.isFinite, abs(w.aimDeg) <= aimLimitDeg else { return nil }
            return newton(w.aimDeg, v, iterations: 8)
        }

        // The scans' speed solves: a launch speed within 10⁻⁶ of itself from a step (a ball that just crests a ridge
        // or rolls back) while the finish is still 0.05 ft off either side has no root there, only a knife edge.
        let scanJump = JumpGuard(relativeWidth: 1e-6, value: 0.05)
        // Their speeds start from the neighbouring aim's (2° away): a bracket 5 % wide catches most in one roll. Past 25 % a
        // step the bracket grows faster (up to `scanMaxGrowth`): an aim where no speed meets the condition (a ball that runs
        // away down a slope even from 0.3 ft/s, one that never passes the hole up to 40 ft/s) gives up in about 9 rolls, not 15.
        let scanGrowth = 1.05, scanMaxGrowth = scanBracketMaxGrowth
        // A ball that does not pass the hole is on the other branch of the pace (and of the arrival speed): the miss
        // distance, several feet below the passing rolls' values. Their solves bisect while an end of the bracket is one.
        @Sendable func scanOffBranch(_ r: PhysicsRoll) -> Bool { !passed(r) }
        var bestSpeed: Double
        var aim: Double
        var ghostRoll: PhysicsRoll
        var stage = "nested"
        var converged: Bool
        if let warm = warmStart, let (na, nv, nr) = warmNewton(warm), captured(na, nv, record: false, early: true).holed {
            // A solved neighbour's line, carried over and polished by Newton's method: the same conditions met to
            // the same tolerance as the nested solve below, so the same line (verified to drop).
            aim = na; bestSpeed = nv; ghostRoll = nr
            converged = true
            stage = "warm"
        } else {
            // Outer: the speed whose centre line finishes L past. Where no speed can (the slope beyond the hole
            // will not hold the ball), this ends at the slowest speed that still reaches the hole.
            let speedSolution = PhysicsSolver.solveIncreasing(start: speedGuess, lower: 0.3, upper: 40, tolerance: 1e-7,
                                                              valueTolerance: 1e-5, paceThroughCentre)
            bestSpeed = speedSolution.x
            if let (offset, r) = speedSolution.payload ?? aimThroughCentre(at: bestSpeed) {
                aim = offset
                ghostRoll = r
            } else {
                aim = 0
                ghostRoll = ghost(0, bestSpeed)
            }
            converged = solved(ghostRoll)
        }
        /// True when a stroke that drops was found although no line finishing L past does.
        var dropsWithoutTarget = false
        tally.advance(to: 0.4)

        // The stability check: where the nested solve does not answer, a second search with steps `probeStepFactor` times
        // as long runs on its own thread beside the windows and the make probability; a stable answer is the same line to
        // `instabilityAimDeg` and `instabilitySpeedFraction` of its speed. After Newton's method or a scan, the same search
        // (the tolerance as it is), leaving out the scans over aims that came before the answer (they found nothing here; a
        // scan that would find a line with the other steps is the one flip this misses: none on the sweep). After
        // Nelder–Mead, the centre family or the lag, a replay (`SearchTrail`): Newton's method and Nelder–Mead again from
        // the same start, the centre family's strokes and the lag's coarse best rolled again, with the tolerance
        // `replayToleranceFactor` tighter as well; it decides among the same candidates as the first search at a
        // fraction of its rolls.
        var probeRun: ProbeRun?
        var trail = SearchTrail()
        /// True once the search went on past the scans (Nelder–Mead, the centre family, the lag).
        var searchedPastScans = false
        /// The centre family's next stroke that drops, after the one it answers with.
        var familyAlternative: (aim: Double, speed: Double)?
        let needsFallback = !converged || !captured(aim, bestSpeed, record: false, early: true).holed
        func launchProbe(skippingAimScan: Bool, skippingArrival: Bool, replaying: SearchTrail? = nil) -> ProbeRun {
            var parameters = simulator.parameters
            parameters.maxStepCells *= probeStepFactor
            var probe = PhysicsSolver(simulator: PhysicsSimulator(surface: simulator.surface, parameters: parameters))
            probe.replay = replaying
            probe.mirrorsSimplex = true
            probe.finishPastFt = finishPastFt
            probe.aimLimitDeg = aimLimitDeg
            probe.earlyExit = earlyExit
            probe.lanes = lanes
            probe.computeTolerance = false
            probe.exhaustiveSearch = exhaustiveSearch
            probe.fastArrivalFactor = fastArrivalFactor
            probe.scanBracketMaxGrowth = scanBracketMaxGrowth
            probe.checkStability = false
            probe.skipAimScan = skippingAimScan
            probe.skipArrivalScan = skippingArrival
            return ProbeRun.start(probe, ball: ball, hole: hole)
        }
        if needsFallback {
            // The nested solve failed (two ways round a ridge, a path that curls back…). First Newton from
            // its answer; then the other nesting: for aims every 2°, the speed that finishes L past, and the
            // side of the hole along that curve, whose sign changes are refined to the line.
            if let (na, nv, nr) = newton(aim, bestSpeed), captured(na, nv, record: false, early: true).holed {
                aim = na; bestSpeed = nv; ghostRoll = nr
                converged = true
                stage = "newton"
            } else if !skipAimScan {
                @Sendable func paceSpeed(at a: Double, from warm: Double, precise: Bool) -> (Double, PhysicsRoll)? {
                    let root = PhysicsSolver.solveIncreasing(start: warm, lower: 0.3, upper: 40, tolerance: precise ? 1e-7 : 1e-5,
                                                             valueTolerance: precise ? 1e-5 : 3e-4, growth: scanGrowth, maxGrowth: scanMaxGrowth,
                                                             jump: scanJump, offBranch: scanOffBranch) { v -> (Double, PhysicsRoll) in
                        let r = ghost(a, v)
                        return (pace(r), r)
                    }
                    guard root.converged, passed(root.payload) else { return nil }
                    return (root.x, root.payload)
                }
                let (scan, scanned) = PhysicsSolver.scanAims(limit: aimLimitDeg, cupRadius: simulator.parameters.capture.cupRadiusFt,
                                                             lanes: lanes, warm: speedGuess, replay: replay?.aimScan, solve: paceSpeed,
                                                             side: side, solved: solved, met: { passed($0) && abs(pace($0)) < 1e-3 })
                trail.aimScan = scanned
                tally.advance(to: 0.55)
                // The line nearest straight through the centre that drops; else the most centred scan line that
                // drops (a line that stays inside the cup over a range of aims without crossing its centre).
                for c in scan where captured(c.aim, c.speed, record: false, early: true).holed {
                    aim = c.aim; bestSpeed = c.speed; ghostRoll = c.roll
                    converged = true
                    stage = "aimScan"
                    break
                }
            }
        }

        if !converged, !skipArrivalScan {
            // No line that finishes L past drops: the slope beyond the hole runs away (steeper than rolling
            // resistance holds) or curls every such ball off the cup. Then the line that enters the cup
            // through its centre at the speed a ball needs to roll L on flat ground, √(2·a_r·L): for aims every
            // 2°, the launch speed that arrives at the closest approach with that speed, and the aim where the
            // path crosses the centre, as in the scan above.
            let arrivalTarget = (2 * simulator.ar * L).squareRoot()
            @Sendable func arrival(_ r: PhysicsRoll) -> Double { passed(r) ? r.closestSpeed - arrivalTarget : -arrivalTarget - r.closestDistance }
            @Sendable func arrivalSpeed(at a: Double, from warm: Double, precise: Bool) -> (Double, PhysicsRoll)? {
                let root = PhysicsSolver.solveIncreasing(start: warm, lower: 0.3, upper: 40, tolerance: precise ? 1e-7 : 1e-5,
                                                         valueTolerance: precise ? 1e-5 : 3e-4, growth: scanGrowth, maxGrowth: scanMaxGrowth,
                                                         jump: scanJump, offBranch: scanOffBranch) { v -> (Double, PhysicsRoll) in
                    let r = ghost(a, v)
                    return (arrival(r), r)
                }
                guard root.converged, passed(root.payload) else { return nil }
                return (root.x, root.payload)
            }
            @Sendable func arrived(_ r: PhysicsRoll) -> Bool { passed(r) && r.closestDistance < 1e-3 && abs(arrival(r)) < 1e-3 }
            let (scan, scanned) = PhysicsSolver.scanAims(limit: aimLimitDeg, cupRadius: simulator.parameters.capture.cupRadiusFt,
                                                         lanes: lanes, warm: Swift.max(bestSpeed, 0.5), replay: replay?.arrivalScan,
                                                         solve: arrivalSpeed, side: side, solved: arrived,
                                                         met: { passed($0) && abs(arrival($0)) < 1e-3 })
            trail.arrivalScan = scanned
            for c in scan where captured(c.aim, c.speed, record: false, early: true).holed {
                aim = c.aim; bestSpeed = c.speed; ghostRoll = c.roll
                stage = "arrival"
                // A line that happens to finish within ±2 in of L still counts as meeting the target.
                converged = abs(pace(c.roll)) <= 2.0 / 12
                dropsWithoutTarget = true
                break
            }
            tally.advance(to: 0.57)
        }

        // A line through the centre that finishes L past but crosses the cup too fast (a ball curling away
        // on a side slope) is no answer.
        if converged, !dropsWithoutTarget, !captured(aim, bestSpeed, record: false, early: true).holed { converged = false }
        var holeable = true
        var reason: String?
        if !converged, !dropsWithoutTarget {
            searchedPastScans = true
            // No line meets both conditions (a slope beyond the hole too steep to stop on, the green's edge
            // too close…): look for any line that drops, closest to the centre, with Nelder–Mead, then over a grid
            // of aims and speeds that backs a "cannot be holed" claim.
            let scale = Swift.max(bestSpeed, 1)
            var found: (Double, Double)?
            let start = PhysicsSolver.nelderMead(start: [aim, bestSpeed / scale], steps: mirrorsSimplex ? [-2, -0.15] : [2, 0.15],
                                                 iterations: 80) { x in
                let v = x[1] * scale
                guard v > 0.05, v < 60, abs(x[0]) <= aimLimitDeg else { return 1e9 }
                let r = captured(x[0], v, record: false, early: true)
                return r.holed ? -1 + (r.passOffset ?? 0) : r.closestDistance
            }
            let v = start[1] * scale
            if v > 0.05, v < 60, abs(start[0]) <= aimLimitDeg, captured(start[0], v, record: false, early: true).holed {
                found = (start[0], v)
                stage = "nelderMead"
            }
            var bestLeave = (aim: aim, speed: bestSpeed, distance: Double.infinity)
            var reachedCup = false
            var slowestRim = Double.infinity
            /// The centre family's crossings left unrolled as too fast: the slowest their ends passed the hole.
            var fastThrough: Double?
            if found == nil {
                // The centre family: for aims every 2°, every launch speed at which the ghost ball's path runs
                // through the centre of the cup (sign changes of its side over speeds 0.5…30 ft/s, 12 % apart,
                // refined), rolled with the cup. A stroke that drops runs close to one of them; none dropping
                // backs the claim that the putt cannot be holed.
                // Speeds too slow to reach the rim on any path (the energy bound of the rolls' early exit) cannot pass
                // through the centre: the scan starts at the fastest of them, as the bracket's first end.
                let R = simulator.parameters.capture.cupRadiusFt
                let rimLow = simulator.surface.lowestControl(nearXFt: hole.x, zFt: hole.z, radiusFt: R)
                let reachEnergy = simulator.energyDrainPerFoot * Swift.max(0, distance - R) - simulator.kg * (hb - rimLow)
                let reachSpeed = simulator.energyDrainPerFoot > 0 && reachEnergy > 0 ? 0.99 * (2 * reachEnergy).squareRoot() : 0
                var speeds: [Double] = []
                var sp = 0.5
                while sp <= 30 {
                    if sp * 1.12 <= reachSpeed { speeds = [] }
                    speeds.append(sp)
                    sp *= 1.12
                }
                // Each aim on its own (on the lanes), then combined in the order of the aims.
                struct Family {
                    var holing = (aim: 0.0, speed: 0.0, miss: Double.infinity)
                    var leave = (aim: 0.0, speed: 0.0, distance: Double.infinity)
                    var slowestRim: Double?
                    /// The slowest a skipped crossing's ends passed the hole (strokes through the centre not rolled: too fast).
                    var fastThrough: Double?
                    var roots: [Double] = []

                    /// Rolls the stroke through the centre at aim a, speed v (its ghost roll `through`) with the cup.
                    mutating func consider(_ a: Double, _ v: Double, through: PhysicsRoll, captured c: PhysicsRoll, hole: PointFt,
                                           pace: (PhysicsRoll) -> Double) {
                        roots.append(v)
                        if c.holed {
                            // Keep the stroke whose pace is nearest the target.
                            let miss = abs(pace(through))
                            if miss < holing.miss { holing = (a, v, miss) }
                        } else {
                            if let rim = c.rimSpeed { slowestRim = Swift.min(slowestRim ?? rim, rim) }
                            let d = c.final.distance(to: hole)
                            if c.end != .offGreen, d < leave.distance { leave = (a, v, d) }
                        }
                    }
                }
                let familyAims = stride(from: 0, through: Int((aimLimitDeg + 1e-9).rounded(.down)), by: 1).map { -aimLimitDeg + 2 * Double($0) }
                let familySpeeds = speeds
                // A ball passing the hole at twice the capture limit or more: the strokes through the centre between two such
                // speeds cross it too fast to drop (nil: every one is refined and rolled with the cup).
                let fastArrival = exhaustiveSearch ? nil : fastArrivalFactor * simulator.parameters.capture.centreSpeedLimitFps
                let families: [Family]
                if let strokes = replay?.family {
                    // The replay: the first search's strokes through the centre, rolled again.
                    families = Lanes.map(strokes.count, lanes: lanes) { k -> Family in
                        let a = strokes[k].aim
                        var family = Family()
                        for v in strokes[k].speeds {
                            family.consider(a, v, through: ghost(a, v), captured: captured(a, v, record: false, early: false), hole: hole, pace: pace)
                        }
                        return family
                    }
                } else {
                    families = Lanes.map(familyAims.count, lanes: lanes) { k -> Family in
                        let a = familyAims[k]
                        var family = Family()
                        var previous: (v: Double, s: Double, r: PhysicsRoll, fast: Bool)?
                        for v in familySpeeds {
                            let r = ghost(a, v)
                            let sd = side(r)
                            let fast = fastArrival.map { passed(r) && r.closestSpeed > $0 } ?? false
                            if let p = previous, p.fast, fast {
                                // Two speeds in a row pass the hole far too fast (and faster ones faster still): a crossing
                                // between them is noted, not refined, and the faster speeds are not rolled.
                                if (p.s > 0) != (sd > 0) {
                                    family.fastThrough = Swift.min(family.fastThrough ?? .infinity, p.r.closestSpeed, r.closestSpeed)
                                }
                                break
                            }
                            if let p = previous, (p.s > 0) != (sd > 0), passed(r) || passed(p.r) {
                                let root = PhysicsSolver.illinois(p.v, -p.s, p.r, v, -sd, r, tolerance: 1e-6, valueTolerance: 1e-5) { x in
                                    let rr = ghost(a, x)
                                    return (-side(rr), rr)
                                }
                                family.consider(a, root.x, through: root.payload, captured: captured(a, root.x, record: false, early: false),
                                                hole: hole, pace: pace)
                            }
                            previous = (v, sd, r, fast)
                        }
                        return family
                    }
                }
                let rolledAims = replay?.family?.map(\.aim) ?? familyAims
                trail.family = zip(rolledAims, families).map { (aim: $0, speeds: $1.roots) }
                var holing = (aim: 0.0, speed: 0.0, miss: Double.infinity)
                var nextHoling = holing
                for family in families {
                    if let f = family.fastThrough { fastThrough = Swift.min(fastThrough ?? f, f) }
                    // The stroke whose pace is nearest the target, then the aim nearest straight (and the one after it).
                    let h = family.holing
                    if h.miss < holing.miss || (h.miss == holing.miss && abs(h.aim) < abs(holing.aim)) {
                        nextHoling = holing
                        holing = h
                    } else if h.miss < nextHoling.miss || (h.miss == nextHoling.miss && abs(h.aim) < abs(nextHoling.aim)) {
                        nextHoling = h
                    }
                    if let rim = family.slowestRim { reachedCup = true; slowestRim = Swift.min(slowestRim, rim) }
                    if family.leave.distance < bestLeave.distance { bestLeave = family.leave }
                }
                if holing.miss.isFinite { found = (holing.aim, holing.speed); stage = "centreFamily" }
                if nextHoling.miss.isFinite { familyAlternative = (nextHoling.aim, nextHoling.speed) }
                tally.advance(to: 0.58)
            }
            if found == nil {
                // The best leave: the stroke that stops nearest the hole on the green (a lag), from a coarse scan
                // of aims and speeds refined by Nelder–Mead. A stroke that drops here after all is taken.
                /// The leave, and whether the ball ran past its closest approach to the hole and off the green.
                @Sendable func leaveRolled(_ a: Double, _ v: Double) -> (d: Double, ranOff: Bool) {
                    guard abs(a) <= aimLimitDeg, v > 0.1, v < 40 else { return (1e9, false) }
                    let c = captured(a, v, record: false, early: false)
                    if c.holed { return (-1, false) }
                    return c.end == .offGreen ? (1e6 + c.closestDistance, c.closestArcLength > 0 && c.closestArcLength < c.length - 1e-9)
                        : (c.final.distance(to: hole), false)
                }
                @Sendable func leave(_ a: Double, _ v: Double) -> Double { leaveRolled(a, v).d }
                let exhaustiveSearch = exhaustiveSearch
                var lag: (aim: Double, speed: Double, d: Double)
                // The replay starts from the first search's coarse best.
                if let start = replay?.lag { lag = (start.aim, start.speed, leave(start.aim, start.speed)) } else {
                    lag = (aim: aim, speed: bestSpeed, d: leave(aim, bestSpeed))
                    if bestLeave.distance < lag.d { lag = (bestLeave.aim, bestLeave.speed, bestLeave.distance) }
                }
                // Aims every 4° (a wave of one per lane at a time, combined in order), until one drops.
                let lagAims = stride(from: 0, through: Int((2 * aimLimitDeg / 4 + 1e-9).rounded(.down)), by: 1).map { -aimLimitDeg + 4 * Double($0) }
                var next = replay?.lag == nil ? 0 : lagAims.count
                while next < lagAims.count, lag.d >= 0 {
                    let wave = Array(lagAims[next..<Swift.min(lagAims.count, next + Swift.max(1, lanes))])
                    next += wave.count
                    let nearest = Lanes.map(wave.count, lanes: lanes) { k -> (aim: Double, speed: Double, d: Double) in
                        var best = (aim: wave[k], speed: 0.0, d: Double.infinity)
                        var v = 0.5
                        // Rolls that stayed on the green at this aim, and ones in a row since that ran past the hole and off it.
                        var stayedOn = false, ranOff = 0
                        while v <= 30 {
                            let (d, off) = leaveRolled(wave[k], v)
                            if d < best.d { best = (wave[k], v, d) }
                            v *= 1.15
                            if d < 1e6 { stayedOn = true; ranOff = 0 } else { ranOff = off && stayedOn ? ranOff + 1 : 0 }
                            // Once two speeds in a row run past the hole and off the green, faster ones do too: the rest of
                            // this aim's speeds are left out (`exhaustiveSearch` rolls them).
                            if !exhaustiveSearch, ranOff >= 2 { break }
                        }
                        return best
                    }
                    for n in nearest where lag.d >= 0 && n.d < lag.d { lag = n }
                }
                trail.lag = (lag.aim, lag.speed)
                if lag.d > 0 {
                    // Refined until the simplex spans less than 0.005° of aim and 10⁻⁴ of the speed: the leave's minimum is
                    // flat, and a loose stop lands anywhere on it (up to a degree apart between two integrations).
                    let x = PhysicsSolver.nelderMead(start: [lag.aim, lag.speed / scale], steps: mirrorsSimplex ? [-1, -0.05] : [1, 0.05],
                                                     iterations: 200,
                                                     size: [0.005, 1e-4]) {
                        leave($0[0], $0[1] * scale)
                    }
                    let d = leave(x[0], x[1] * scale)
                    if d < lag.d { lag = (x[0], x[1] * scale, d) }
                }
                if lag.d < 0 { found = (lag.aim, lag.speed); stage = "lagScan" } else {
                    bestLeave = (lag.aim, lag.speed, lag.d)
                }
            }
            if let (fa, fv) = found {
                // A stroke drops: centre it in its speed window at that aim, preferring the pace nearest the target.
                let window = PhysicsSolver.window(centre: fv, firstStep: 0.02, maxSpan: Swift.min(fv * 0.9, 20), precision: 0.001) {
                    captured(fa, $0, record: false, early: true).holed
                }
                var best = (speed: fv, miss: Double.infinity)
                for k in 0...8 {
                    let sp = window.lo + (window.hi - window.lo) * Double(k) / 8
                    guard captured(fa, sp, record: false, early: true).holed else { continue }
                    let m = abs(pace(ghost(fa, sp)))
                    if m < best.miss { best = (sp, m) }
                }
                aim = fa
                bestSpeed = best.speed
                ghostRoll = ghost(aim, bestSpeed)
            } else {
                holeable = false
                stage = "notHoleable"
                let limit = simulator.parameters.capture.centreSpeedLimitFps
                // What the centre family rolled: with crossings left out as too fast, the slowest rim speed is of the rest.
                let unrolled = fastThrough.map { _ in "; strokes through the centre that pass the hole faster than \(fixed(fastArrivalFactor * limit, 2)) ft/s "
                    + "were not rolled with the cup" } ?? ""
                if reachedCup {
                    reason = "every stroke that reaches the cup crosses it too fast to drop (slowest \(fixed(slowestRim, 2)) ft/s at the rim; "
                        + "a centre hit drops below \(fixed(limit, 2)) ft/s\(unrolled))"
                } else if let fastThrough {
                    reason = "every stroke through the centre of the cup passes the hole too fast to drop (\(fixed(fastThrough, 2)) ft/s or more "
                        + "on either side of it; a centre hit drops below \(fixed(limit, 2)) ft/s)"
                } else {
                    reason = "no stroke within \(fixed(aimLimitDeg, 0))° of the line reaches the cup (a slope or the green's edge turns every ball away)"
                }
                if bestLeave.distance.isFinite {
                    aim = bestLeave.aim
                    bestSpeed = bestLeave.speed
                }
                ghostRoll = ghost(aim, bestSpeed)
            }
        }
        tally.advance(to: 0.6)
        // A line from Newton's method or the scans: the second search, beside the windows and the make probability.
        // A centre-family answer with a next stroke that drops is flagged whichever way the second search lands (below): unless
        // `probesFlaggedFamily`, the family's next stroke is its other line and the second search does not run.
        let flaggedAnyway = stage == "centreFamily" && familyAlternative != nil && !probesFlaggedFamily
        if checkStability, needsFallback, !flaggedAnyway {
            // After a scan, the probe re-refines the scans' brackets (`ScanTrail`) instead of scanning every aim again.
            probeRun = searchedPastScans ? launchProbe(skippingAimScan: true, skippingArrival: true, replaying: stage == "notHoleable" ? trail : nil)
                : launchProbe(skippingAimScan: stage == "arrival", skippingArrival: false, replaying: trail)
        }
        let angle = baseAngle + aim * .pi / 180
        let v0x = cos(angle) * bestSpeed, v0z = sin(angle) * bestSpeed
        let roll = captured(aim, bestSpeed, record: true, early: false)

        var tolerance: BestLineTolerance?
        if computeTolerance, roll.holed {
            let rule = simulator.parameters.capture
            let earlyExit = earlyExit, aim = aim, bestSpeed = bestSpeed
            @Sendable func margin(_ offset: Double, _ v: Double) -> Double { captured(offset, v, record: false, early: earlyExit).captureMargin(rule) }
            // The four ends (aim low and high at the best speed, speed low and high at the best aim) on the lanes.
            let edges = Lanes.map(4, lanes: lanes) { k -> Double in
                let direction = k % 2 == 0 ? -1.0 : 1.0
                if k < 2 {
                    return PhysicsSolver.marginEdge(direction, centre: aim, firstStep: 0.05, maxSpan: 15, precision: 0.001) { margin($0, bestSpeed) }
                }
                return PhysicsSolver.marginEdge(direction, centre: bestSpeed, firstStep: 0.02, maxSpan: Swift.min(bestSpeed * 0.9, 20),
                                                precision: 0.0002) { margin(aim, $0) }
            }
            let aimWindow = (lo: edges[0], hi: edges[1]), speedWindow = (lo: edges[2], hi: edges[3])
            tally.advance(to: 0.7)
            func inches(_ offset: Double) -> Double { distance * tan(offset * .pi / 180) * 12 }
            tolerance = BestLineTolerance(aimMinDeg: aimWindow.lo, aimMaxDeg: aimWindow.hi,
                                          aimMinIn: inches(aimWindow.lo), aimMaxIn: inches(aimWindow.hi),
                                          speedMinFps: speedWindow.lo, speedMaxFps: speedWindow.hi)
        }
        tally.advance(to: 0.8)
        var probability: MakeProbability?
        if let errors = strokeErrors {
            let rule = simulator.parameters.capture
            let earlyExit = earlyExit
            // The errors at this putt's distance (the sideways scatter widens the aim of short putts); the answer names the level's.
            probability = MakeProbabilityCalculator.probability(aimDeg: aim, speedFps: bestSpeed, errors: errors.atDistance(distance),
                                                                lanes: lanes) { a, v, full in
                captured(a, v, record: false, early: earlyExit && !full).captureMargin(rule)
            }
            probability?.errors = errors
        }
        tally.advance(to: 0.9)
        var instability: NumericalInstability?
        /// Another line's make probability (nil when this one has none).
        func otherProbability(_ otherAim: Double, _ otherSpeed: Double) -> Double? {
            guard let errors = strokeErrors, probability != nil else { return nil }
            let rule = simulator.parameters.capture, earlyExit = earlyExit
            @Sendable func otherMargin(_ a: Double, _ v: Double, _ full: Bool) -> Double {
                let t = baseAngle + a * .pi / 180
                let r = simulator.roll(from: ball, vx: cos(t) * v, vz: sin(t) * v, hole: hole,
                                       options: RollOptions(capture: true, recordPath: false, earlyExit: earlyExit && !full))
                tally.count(r)
                return r.captureMargin(rule)
            }
            return MakeProbabilityCalculator.probability(aimDeg: otherAim, speedFps: otherSpeed, errors: errors.atDistance(distance),
                                                         lanes: lanes, margin: otherMargin).probability
        }
        if let other = probeRun?.wait() {
            // A band, not a line: the flag goes up at `instabilityBand` of the bounds (so two answers about a bound apart are
            // flagged whichever way their last digits fall), and where the other line lies within the band but not on this one,
            // its make probability decides. Its make probability only when it lands elsewhere.
            let dAim = abs(other.aimOffsetDeg - aim), dSpeed = abs(other.speedFps - bestSpeed) / bestSpeed
            let apart = dAim > instabilityBand * instabilityAimDeg || dSpeed > instabilityBand * instabilitySpeedFraction
                || other.holeable != holeable || other.roll.holed != roll.holed
            if apart || dAim > 1e-3 || dSpeed > 1e-4 {
                let otherP = otherProbability(other.aimOffsetDeg, other.speedFps)
                let dP = otherP.flatMap { o in probability.map { abs(o - $0.probability) * 100 } }
                if apart || (dP ?? 0) > instabilityBand * instabilityProbabilityPoints {
                    instability = NumericalInstability(otherAimDeg: other.aimOffsetDeg, otherSpeedFps: other.speedFps, otherStage: other.stage,
                                                       otherProbability: otherP, aimDeg: dAim, speedFraction: dSpeed, probabilityPoints: dP)
                }
            }
            tally.add(other)
        }
        // A centre-family answer is a choice Nelder–Mead did not make: from the nested solve's start it found no stroke that
        // drops, and with rolls that differ in their last digits it can (hole 7's 13th putt of the sweep: the references'
        // Nelder–Mead lands 4.5° away, the probe's does not). Such an answer is flagged whichever way those digits fall, with
        // the family's next stroke that drops as the other line, when the second search did not land elsewhere already.
        if instability == nil, checkStability, stage == "centreFamily", let next = familyAlternative {
            let otherP = otherProbability(next.aim, next.speed)
            instability = NumericalInstability(otherAimDeg: next.aim, otherSpeedFps: next.speed, otherStage: NumericalInstability.familyNext,
                                               otherProbability: otherP, aimDeg: abs(next.aim - aim),
                                               speedFraction: abs(next.speed - bestSpeed) / bestSpeed,
                                               probabilityPoints: otherP.flatMap { o in probability.map { abs(o - $0.probability) * 100 } })
        }
        tally.advance(to: 1)
        return PhysicsBestLine(aimOffsetDeg: aim, aimOffsetIn: distance * tan(aim * .pi / 180) * 12,
                               speedFps: bestSpeed, v0XFps: v0x, v0ZFps: v0z, roll: roll,
                               restPoint: ghostRoll.final, finishPastFt: ghostRoll.lengthPastClosest,
                               centreOffsetFt: ghostRoll.closestSignedOffset,
                               converged: converged, holeable: holeable, notHoleableReason: reason,
                               tolerance: tolerance, probability: probability,
                               simulations: tally.simulations, evaluations: tally.evaluations, stage: stage, instability: instability)
    }

    /// A line found by `scanAims`.
    struct ScanLine {
        var aim: Double
        var speed: Double
        var roll: PhysicsRoll
    }

    /// What `scanAims` found, for the stability check's second search to re-refine (`scanAims(replay:)`).
    struct ScanTrail: Sendable {
        /// The 2° steps over which the hole's side changed sign: their aims and solved speeds, in the order found.
        var brackets: [(a0: Double, v0: Double, a1: Double, v1: Double)] = []
        /// The scanned aims whose line met the condition inside the cup, with their speeds.
        var inside: [(aim: Double, speed: Double)] = []
    }

    /// For aims every 2° within ±limit, `solve(aim, warm)` gives the launch speed meeting one condition (finish L
    /// past, or arrive at a set speed), its root search starting from `warm`; along that curve the hole's side
    /// changes sign where the path crosses the centre, and each sign change is refined (Illinois). The aims are
    /// walked from the straight line outward, one chain each way (each solve warm-started by the chain's last
    /// solved speed; the two chains run on two lanes when there are). Returns the refined lines that `solved`
    /// accepts, nearest straight first, then the scanned lines that `met` the condition and pass inside the cup
    /// (|side| < R) without a sign change (a line that hugs the cup over a range of aims), most centred first; and
    /// the brackets and inside aims it found.
    ///
    /// `replay`: another scan's trail (the stability check's second search, with another integration step). Only its
    /// brackets' ends and inside aims are solved again, warm-started from its speeds, and each bracket whose ends still
    /// differ in sign refined as above: the same candidates decided again with these rolls, at a fraction of a scan's.
    static func scanAims(limit: Double, cupRadius R: Double, lanes: Int, warm start: Double, replay: ScanTrail? = nil,
                         solve: @Sendable (Double, Double, Bool) -> (Double, PhysicsRoll)?,
                         side: @Sendable (PhysicsRoll) -> Double, solved: @Sendable (PhysicsRoll) -> Bool,
                         met: @Sendable (PhysicsRoll) -> Bool) -> (lines: [ScanLine], trail: ScanTrail)
    {
        typealias Inside = (line: ScanLine, side: Double)
        /// The crossing between (a0, side s0, speed v0) and (a1, s1 with its solve), refined; nil when it is not `solved`.
        @Sendable func refine(_ a0: Double, _ s0: Double, _ v0: Double, _ a1: Double, _ s1: Double, _ end: (Double, PhysicsRoll)) -> ScanLine? {
            var refineWarm = v0
            var last: (Double, Double)?
            let root = illinois(a0, s0, nil, a1, s1, end, tolerance: 1e-8,
                                valueTolerance: 1e-6) { x -> (Double, (Double, PhysicsRoll)?) in
                // Where the curve breaks off inside the bracket, keep the sign of the nearer end.
                guard let (vv, rr) = solve(x, refineWarm, true) else { return (last.map { $0.1 } ?? s0, nil) }
                refineWarm = vv
                let s = side(rr)
                last = (x, s)
                return (s, (vv, rr))
            }
            guard let (vv, rr) = root.payload, solved(rr) else { return nil }
            return ScanLine(aim: root.x, speed: vv, roll: rr)
        }
        func ordered(_ crossings: [ScanLine], _ inside: [Inside]) -> [ScanLine] {
            let crossings = crossings.sorted { abs($0.aim) < abs($1.aim) || (abs($0.aim) == abs($1.aim) && $0.aim < $1.aim) }
            let inside = inside.sorted {
                abs($0.side) < abs($1.side) || (abs($0.side) == abs($1.side)
                    && (abs($0.line.aim) < abs($1.line.aim) || (abs($0.line.aim) == abs($1.line.aim) && $0.line.aim < $1.line.aim)))
            }
            return crossings + inside.map(\.line)
        }
        if let replay {
            let b = replay.brackets, n = b.count
            let found = Lanes.map(n + replay.inside.count, lanes: lanes) { k -> (crossing: ScanLine?, inside: Inside?) in
                if k < n {
                    guard let (v0, r0) = solve(b[k].a0, b[k].v0, false), let (v1, r1) = solve(b[k].a1, b[k].v1, false) else { return (nil, nil) }
                    let s0 = side(r0), s1 = side(r1)
                    guard (s0 > 0) != (s1 > 0) else { return (nil, nil) }
                    return (refine(b[k].a0, s0, v0, b[k].a1, s1, (v1, r1)), nil)
                }
                let (a, warm) = replay.inside[k - n]
                guard let (v, r) = solve(a, warm, false) else { return (nil, nil) }
                let sd = side(r)
                return (nil, abs(sd) < R && met(r) ? (ScanLine(aim: a, speed: v, roll: r), sd) : nil)
            }
            return (ordered(found.compactMap(\.crossing), found.compactMap(\.inside)), replay)
        }
        let steps = Int((limit / 2 + 1e-9).rounded(.down))
        let straight = solve(0, start, false)
        typealias Bracket = (a0: Double, v0: Double, a1: Double, v1: Double)
        let chains = Lanes.map(2, lanes: lanes) { chain -> (crossings: [ScanLine], inside: [Inside], brackets: [Bracket]) in
            let direction = chain == 0 ? -1.0 : 1.0
            var crossings: [ScanLine] = []
            var inside: [Inside] = []
            var brackets: [Bracket] = []
            var warm = straight?.0 ?? start
            var previous: (a: Double, s: Double, v: Double)? = straight.map { (0, side($0.1), $0.0) }
            for step in stride(from: 1, through: steps, by: 1) {
                let a = direction * Double(2 * step)
                guard let (v, r) = solve(a, warm, false) else {
                    previous = nil
                    continue
                }
                warm = v
                let sd = side(r)
                if abs(sd) < R, met(r) { inside.append((ScanLine(aim: a, speed: v, roll: r), sd)) }
                if let p = previous, (p.s > 0) != (sd > 0) {
                    brackets.append((p.a, p.v, a, v))
                    if let line = refine(p.a, p.s, p.v, a, sd, (v, r)) { crossings.append(line) }
                }
                previous = (a, sd, v)
            }
            return (crossings, inside, brackets)
        }
        var inside = chains.flatMap(\.inside)
        if let (v, r) = straight, abs(side(r)) < R, met(r) { inside.insert((ScanLine(aim: 0, speed: v, roll: r), side(r)), at: 0) }
        let trail = ScanTrail(brackets: chains.flatMap(\.brackets), inside: inside.map { ($0.line.aim, $0.line.speed) })
        return (ordered(chains.flatMap(\.crossings), inside), trail)
    }

    /// A root of a function, the payload of its last evaluation there, and whether it converged.
    struct Root<Payload> {
        var x: Double
        var payload: Payload
        var converged: Bool
    }

    /// Root of an increasing function on [lower, upper]: bracket outward from `start` by factors of
    /// `growth` (squared after each step when below 1.25, so a far start still brackets in a few rolls; from 1.25 on,
    /// ×1.25 a step up to `maxGrowth`), then Illinois regula falsi. Without a bracket, returns the bound closest to a root.
    static func solveIncreasing<P>(start: Double, lower: Double, upper: Double, tolerance: Double, valueTolerance: Double,
                                   growth: Double = 1.25, maxGrowth: Double = 1.25, jump: JumpGuard? = nil,
                                   offBranch: ((P) -> Bool)? = nil, _ f: (Double) -> (Double, P)) -> Root<P>
    {
        var a = Swift.min(Swift.max(start, lower), upper)
        var (fa, pa) = f(a)
        if abs(fa) < valueTolerance { return Root(x: a, payload: pa, converged: true) }
        var b = a, fb = fa, pb = pa
        var factor = growth
        // Expand until the sign changes.
        while (fa < 0) == (fb < 0) {
            let next = fa < 0 ? Swift.min(b * factor, upper) : Swift.max(b / factor, lower)
            if factor < 1.25 { factor = Swift.min(1.25, factor * factor) } else if factor < maxGrowth { factor = Swift.min(maxGrowth, factor * 1.25) }
            if next == b { return Root(x: b, payload: pb, converged: false) }
            a = b; fa = fb; pa = pb
            b = next
            (fb, pb) = f(b)
            if abs(fb) < valueTolerance { return Root(x: b, payload: pb, converged: true) }
        }
        return illinois(a, fa, pa, b, fb, pb, tolerance: tolerance, valueTolerance: valueTolerance, jump: jump, offBranch: offBranch, f)
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

    /// A function that may jump across zero instead of crossing it (a ball that just fails to crest a ridge rolls
    /// back, one a hair faster goes over and on): once the bracket is narrower than `relativeWidth` of its
    /// position while both ends are still more than `value` from zero, there is no root, only a step.
    struct JumpGuard {
        var relativeWidth: Double
        var value: Double
    }

    /// Illinois regula falsi on a bracket (fa and fb of opposite signs). With a `jump` guard every fourth step
    /// bisects (regula falsi crawls toward a step) and a step is reported as not converged. `offBranch`: an end whose
    /// value comes from another branch of the function (a ghost ball that stopped short of the hole, whose pace is the
    /// miss distance, not the finish past it) says nothing about the slope at the root, so while an end is one the step
    /// bisects (a secant through it lands next to the other end and crawls).
    static func illinois<P>(_ a0: Double, _ fa0: Double, _ pa0: P, _ b0: Double, _ fb0: Double, _ pb0: P,
                            tolerance: Double, valueTolerance: Double, jump: JumpGuard? = nil, offBranch: ((P) -> Bool)? = nil,
                            _ f: (Double) -> (Double, P)) -> Root<P>
    {
        var a = a0, fa = fa0, pa = pa0, b = b0, fb = fb0, pb = pb0
        var side = 0
        for iteration in 1...80 {
            if let jump, abs(b - a) < jump.relativeWidth * Swift.max(abs(a), abs(b)), abs(fa) > jump.value, abs(fb) > jump.value {
                return abs(fa) < abs(fb) ? Root(x: a, payload: pa, converged: false) : Root(x: b, payload: pb, converged: false)
            }
            var c = (a * fb - b * fa) / (fb - fa)
            let straddlesBranches = offBranch.map { $0(pa) || $0(pb) } ?? false
            if !c.isFinite || c <= Swift.min(a, b) || c >= Swift.max(a, b) || (jump != nil && iteration % 4 == 0)
                || straddlesBranches { c = (a + b) / 2 }
            let (fc, pc) = f(c)
            if abs(fc) < valueTolerance || abs(b - a) < tolerance { return Root(x: c, payload: pc, converged: true) }
            if straddlesBranches {
                // A halving step: neither end's value is stale, so Illinois' down-weighting starts afresh.
                if (fc < 0) == (fb < 0) { b = c; fb = fc; pb = pc } else { a = c; fa = fc; pa = pc }
                side = 0
            } else if (fc < 0) == (fb < 0) {
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

    /// Nelder–Mead minimisation from `start` with initial simplex steps; returns the best point. It stops after
    /// `iterations`, once the simplex spans less than `size` in every coordinate, or when a value below −0.5 (a search's
    /// "this stroke drops") turns up.
    public static func nelderMead(start: [Double], steps: [Double], iterations: Int, size: [Double]? = nil, _ f: ([Double]) -> Double) -> [Double] {
        let n = start.count
        var simplex: [[Double]] = [start]
        for i in 0..<n {
            var p = start
            p[i] += steps[i]
            simplex.append(p)
        }
        var values = simplex.map(f)
        for _ in 0..<iterations {
            let order = values.indices.sorted { values[$0] < values[$1] }
            simplex = order.map { simplex[$0] }
            values = order.map { values[$0] }
            if values[0] < -0.5 { break }   // found a line that drops
            if let size, (0..<n).allSatisfy({ k in simplex.allSatisfy { abs($0[k] - simplex[0][k]) < size[k] } }) { break }
            var centroid = [Double](repeating: 0, count: n)
            for p in simplex.dropLast() { for i in 0..<n { centroid[i] += p[i] / Double(n) } }
            func along(_ t: Double) -> [Double] { (0..<n).map { centroid[$0] + t * (simplex[n][$0] - centroid[$0]) } }
            let reflected = along(-1), fr = f(reflected)
            if fr < values[0] {
                let expanded = along(-2), fe = f(expanded)
                if fe < fr { simplex[n] = expanded; values[n] = fe } else { simplex[n] = reflected; values[n] = fr }
            } else if fr < values[n - 1] {
                simplex[n] = reflected; values[n] = fr
            } else {
                let contracted = along(0.5), fc = f(contracted)
                if fc < values[n] {
                    simplex[n] = contracted; values[n] = fc
                } else {
                    for k in 1...n {
                        simplex[k] = (0..<n).map { simplex[0][$0] + 0.5 * (simplex[k][$0] - simplex[0][$0]) }
                        values[k] = f(simplex[k])
                    }
                }
            }
        }
        let best = values.indices.min { values[$0] < values[$1] } ?? 0
        return simplex[best]
    }

    /// One end of the interval around `centre` where the capture margin is ≥ 0 (the stroke drops), `direction` −1
    /// for the low end and +1 for the high end: expand by doubling steps until it fails (or `maxSpan` is reached),
    /// then Illinois regula falsi on the margin (smooth across the edge, see `PhysicsRoll.captureMargin`) until the
    /// bracket is narrower than `precision`; the end returned is a stroke that drops. Same answer as `window` on
    /// "margin ≥ 0", to the precision, in about half the rolls. Assumes the centre drops.
    static func marginEdge(_ direction: Double, centre: Double, firstStep: Double, maxSpan: Double, precision: Double,
                           _ margin: (Double) -> Double) -> Double
    {
        var good = (x: 0.0, f: 1.0)
        var step = firstStep
        var bad: (x: Double, f: Double)?
        while step <= maxSpan {
            let f = margin(centre + direction * step)
            if f >= 0 {
                good = (step, f)
                step *= 2
            } else {
                bad = (step, f)
                break
            }
        }
        guard var b = bad else { return centre + direction * good.x }
        var g = good
        if g.x == 0 { g.f = Swift.max(margin(centre), 1e-12) }
        var side = 0
        var iteration = 0
        while b.x - g.x > precision {
            iteration += 1
            var x = (g.x * b.f - b.x * g.f) / (b.f - g.f)
            let width = b.x - g.x
            // Inside the bracket and away from its ends; every fourth step bisects (an early-exit roll's margin
            // is not smooth everywhere).
            if !x.isFinite || x <= g.x + 0.01 * width || x >= b.x - 0.01 * width || iteration % 4 == 0 { x = (g.x + b.x) / 2 }
            let f = margin(centre + direction * x)
            if f >= 0 {
                g = (x, f)
                if side == 1 { b.f /= 2 }
                side = 1
            } else {
                b = (x, f)
                if side == -1 { g.f /= 2 }
                side = -1
            }
        }
        return centre + direction * g.x
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
