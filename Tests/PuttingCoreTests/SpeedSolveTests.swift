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
}
