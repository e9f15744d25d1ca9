@testable import PuttingCore
import XCTest

/// The scans' speed solves (w31): a bracket with an end on the other branch of the pace bisects instead of crawling; and
/// the stability check's second search after a scan answer re-refines the first scan's brackets instead of scanning again.
final class SpeedSolveTests: XCTestCase {
    /// A pace with two branches, as a ghost ball's: below 0.98 the ball stops short of the hole and the value is the miss
    /// distance (about −6 ft), from 0.98 up the finish past the target, through its root at 0.99.
    static func pace(_ v: Double) -> (Double, Bool) { v < 0.98 ? (-6 - (0.98 - v), false) : (40 * (v - 0.99), true) }

    func testABracketEndingOnAShortStoppingRollIsBisectedAndTheRootFoundInFiveEvaluations() {
        // As a scan's solve: warm-started 1 % above the root, a first step of 5 % that lands on a roll that stops short.
        let jump = PhysicsSolver.JumpGuard(relativeWidth: 1e-6, value: 0.05)
        var crawling = 0, bisecting = 0
        let before = PhysicsSolver.solveIncreasing(start: 1.0, lower: 0.3, upper: 40, tolerance: 1e-5, valueTolerance: 3e-4,
                                                   growth: 1.05, jump: jump) { v -> (Double, Bool) in
            crawling += 1
            return SpeedSolveTests.pace(v)
        }
        let after = PhysicsSolver.solveIncreasing(start: 1.0, lower: 0.3, upper: 40, tolerance: 1e-5, valueTolerance: 3e-4,
                                                  growth: 1.05, jump: jump, offBranch: { !$0 }) { v -> (Double, Bool) in
            bisecting += 1
            return SpeedSolveTests.pace(v)
        }
        XCTAssertTrue(before.converged)
        XCTAssertTrue(after.converged)
        XCTAssertEqual(before.x, 0.99, accuracy: 1e-5)
        XCTAssertEqual(after.x, 0.99, accuracy: 1e-5)
        XCTAssertTrue(after.payload)
        XCTAssertLessThanOrEqual(bisecting, 5)
        XCTAssertGreaterThan(crawling, bisecting + 3, "regula falsi crawls from the passing end: \(crawling) evaluations")
    }

    func testAJumpWithNoRootOnThePassingBranchIsStillReportedAsNotConverged() {
        // The passing branch starts above zero (a ball that just crests a ridge goes well past): no root, only a step
        // (a refining solve's tolerances, finer than the guard's width).
        let jump = PhysicsSolver.JumpGuard(relativeWidth: 1e-6, value: 0.05)
        let root = PhysicsSolver.solveIncreasing(start: 1.0, lower: 0.3, upper: 40, tolerance: 1e-7, valueTolerance: 1e-5,
                                                 growth: 1.05, jump: jump, offBranch: { !$0 }) { v -> (Double, Bool) in
            v < 0.98 ? (-6, false) : (0.5 + (v - 0.98), true)
        }
        XCTAssertFalse(root.converged)
        XCTAssertEqual(root.x, 0.98, accuracy: 1e-5)
    }

    func testAfterAScanAnswerTheCheckReRefinesTheScansBracketsAtAFractionOfTheSearch() throws {
        // Hole 3's first putt of the sweep (23 ft): the nested solve and Newton's method fail, the aim scan answers. With a
        // probe whose rolls are the search's own (step factor 1), the replayed brackets give the same line back.
        let dir = try SharedData.presidioDirectory()
        let surface = GreenSurface(try Heightfield.read(jsonPath: dir + "/hole_3/Hole_3_heightfield.json"))
        let putt = try XCTUnwrap(PuttSweep.putts(on: surface, count: 1, seed: 1003).first)
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: 10)))
        solver.lanes = 2
        solver.computeTolerance = false
        solver.checkStability = false
        let search = solver.bestLine(ball: putt.ball, hole: putt.flag)
        XCTAssertEqual(search.stage, "aimScan")
        solver.checkStability = true
        solver.probeStepFactor = 1
        let checked = solver.bestLine(ball: putt.ball, hole: putt.flag)
        XCTAssertEqual(checked.aimOffsetDeg, search.aimOffsetDeg)
        XCTAssertEqual(checked.speedFps, search.speedFps)
        XCTAssertNil(checked.instability, "the replay with the same rolls landed elsewhere")
        let checkRolls = checked.simulations - search.simulations
        XCTAssertGreaterThan(checkRolls, 0)
        XCTAssertLessThan(checkRolls, search.simulations / 2, "the check scanned again: \(checkRolls) rolls against the search's \(search.simulations)")
    }

    func testAnAimWhereNoSpeedMeetsTheConditionGivesUpInFewerRollsWithTheSameRoots() {
        // As a scan's solve at an aim where the ball runs away down a slope even from 0.3 ft/s (hole 6 of the sweep): the
        // pace stays above zero all the way down. Growing the bracket ×1.25 a step past 25 % (up to doubling) reaches the
        // bound in 9 rolls instead of 15; where a root exists it is the same root to the solve's tolerance.
        var slow = 0, fast = 0
        let runAway = { (v: Double) -> (Double, Bool) in (10 + 0.01 * v, true) }
        let old = PhysicsSolver.solveIncreasing(start: 9, lower: 0.3, upper: 40, tolerance: 1e-5, valueTolerance: 3e-4,
                                                growth: 1.05) { v -> (Double, Bool) in slow += 1; return runAway(v) }
        let new = PhysicsSolver.solveIncreasing(start: 9, lower: 0.3, upper: 40, tolerance: 1e-5, valueTolerance: 3e-4,
                                                growth: 1.05, maxGrowth: 2) { v -> (Double, Bool) in fast += 1; return runAway(v) }
        XCTAssertFalse(old.converged)
        XCTAssertFalse(new.converged)
        XCTAssertEqual(old.x, 0.3)
        XCTAssertEqual(new.x, 0.3)
        XCTAssertLessThanOrEqual(fast, 10)
        XCTAssertGreaterThanOrEqual(slow, fast + 5, "\(slow) against \(fast) evaluations")
        for root in [0.31, 0.9, 3.7, 12.5, 39.0] {
            let f = { (v: Double) -> (Double, Bool) in (v * v - root * root, true) }
            let a = PhysicsSolver.solveIncreasing(start: 6, lower: 0.3, upper: 40, tolerance: 1e-7, valueTolerance: 1e-9, growth: 1.05, f)
            let b = PhysicsSolver.solveIncreasing(start: 6, lower: 0.3, upper: 40, tolerance: 1e-7, valueTolerance: 1e-9, growth: 1.05,
                                                  maxGrowth: 2, f)
            XCTAssertTrue(a.converged && b.converged, "root \(root)")
            XCTAssertEqual(a.x, root, accuracy: 1e-6)
            XCTAssertEqual(b.x, root, accuracy: 1e-6)
        }
    }

    func testAFlaggedCentreFamilyAnswerSkipsTheSecondSearchAndKeepsItsLineAndFlag() throws {
        // Hole 7's 23-ft putt of the sweep (#7): no line through the centre finishing L past drops, Nelder–Mead finds none, the
        // centre family answers and has a next stroke that drops, so the answer is flagged whichever way a second search lands.
        // Without that search (the default) the flag names the family's next stroke; the line and its make probability are
        // the same as with it, in fewer rolls.
        let dir = try SharedData.presidioDirectory()
        let surface = GreenSurface(try Heightfield.read(jsonPath: dir + "/hole_7/Hole_7_heightfield.json"))
        let putt = try XCTUnwrap(PuttSweep.putts(on: surface, count: 8, seed: 1007).last)
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: 10)))
        solver.strokeErrors = .tour
        solver.lanes = 2
        let line = solver.bestLine(ball: putt.ball, hole: putt.flag)
        XCTAssertEqual(line.stage, "centreFamily")
        let u = try XCTUnwrap(line.instability)
        XCTAssertEqual(u.otherStage, NumericalInstability.familyNext)
        solver.probesFlaggedFamily = true
        let probed = solver.bestLine(ball: putt.ball, hole: putt.flag)
        XCTAssertEqual(probed.stage, "centreFamily")
        XCTAssertNotNil(probed.instability)
        XCTAssertEqual(line.aimOffsetDeg, probed.aimOffsetDeg)
        XCTAssertEqual(line.speedFps, probed.speedFps)
        XCTAssertEqual(line.probability?.probability, probed.probability?.probability)
        XCTAssertLessThan(line.simulations, probed.simulations * 3 / 4, "\(line.simulations) against \(probed.simulations) rolls")
    }
}
