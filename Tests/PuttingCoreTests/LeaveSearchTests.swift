@testable import PuttingCore
import XCTest

/// A putt that cannot be holed: the cheaper search (the centre family leaves out strokes that pass the hole far too
/// fast to drop, the lag scan stops an aim's speeds once they run past the hole and off the green) reports a best leave
/// within 2 in or 5 % of the exhaustive search's, says so with the same verdict, and its reason names only what it
/// rolled. The whole sweep's not-holeable putts: `clubhouse-bench putting-sweep --compare-leave` (BENCHMARKS.md).
final class LeaveSearchTests: XCTestCase {
    func testTheCheaperLeaveSearchAgreesWithTheExhaustiveOne() throws {
        let dir = try SharedData.presidioDirectory()
        // Hole 6's 13.7-ft putt #10 of the sweep (the benchmark's seed): every stroke that reaches the cup crosses it at
        // 4.35 ft/s or faster, and the family's fastest crossings are left out.
        let surface = GreenSurface(try Heightfield.read(jsonPath: dir + "/hole_6/Hole_6_heightfield.json"))
        let putts = PuttSweep.putts(on: surface, count: 16, seed: 1006)
        guard putts.count > 10 else { return XCTFail("the sweep gave \(putts.count) putts on hole 6") }
        let putt = putts[10]
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: 10)))
        solver.strokeErrors = .tour
        solver.lanes = 2
        var full = solver
        full.exhaustiveSearch = true
        let cheap = solver.bestLine(ball: putt.ball, hole: putt.flag)
        let exhaustive = full.bestLine(ball: putt.ball, hole: putt.flag)
        XCTAssertFalse(cheap.holeable)
        XCTAssertFalse(exhaustive.holeable)
        let dc = cheap.roll.final.distance(to: putt.flag), de = exhaustive.roll.final.distance(to: putt.flag)
        XCTAssertLessThanOrEqual(abs(dc - de), Swift.max(2.0 / 12, 0.05 * de), "leave \(dc * 12) in against \(de * 12) in")
        XCTAssertLessThan(cheap.simulations, exhaustive.simulations)
        let reason = try XCTUnwrap(cheap.notHoleableReason)
        XCTAssertTrue(reason.contains("were not rolled with the cup"), reason)
        XCTAssertFalse(try XCTUnwrap(exhaustive.notHoleableReason).contains("not rolled"))
    }

    func testAPuttWhoseEveryCrossingIsTooFastSaysSoWithoutClaimingARimSpeed() throws {
        // Hole 5's 38.4-ft putt #6 of the sweep: the exhaustive search rolls its strokes through the centre with the cup
        // (the slowest 9.90 ft/s at the rim); the cheaper one leaves them all out, and says how fast they pass the hole.
        let dir = try SharedData.presidioDirectory()
        let surface = GreenSurface(try Heightfield.read(jsonPath: dir + "/hole_5/Hole_5_heightfield.json"))
        let putts = PuttSweep.putts(on: surface, count: 16, seed: 1005)
        guard putts.count > 6 else { return XCTFail("the sweep gave \(putts.count) putts on hole 5") }
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: 10)))
        solver.lanes = 2
        solver.checkStability = false
        var full = solver
        full.exhaustiveSearch = true
        let cheap = solver.bestLine(ball: putts[6].ball, hole: putts[6].flag)
        let exhaustive = full.bestLine(ball: putts[6].ball, hole: putts[6].flag)
        let reason = try XCTUnwrap(cheap.notHoleableReason), exhaustiveReason = try XCTUnwrap(exhaustive.notHoleableReason)
        XCTAssertTrue(reason.hasPrefix("every stroke through the centre of the cup passes the hole too fast to drop ("), reason)
        XCTAssertTrue(exhaustiveReason.hasPrefix("every stroke that reaches the cup crosses it too fast to drop (slowest "), exhaustiveReason)
        let dc = cheap.roll.final.distance(to: putts[6].flag), de = exhaustive.roll.final.distance(to: putts[6].flag)
        XCTAssertLessThanOrEqual(abs(dc - de), Swift.max(2.0 / 12, 0.05 * de), "leave \(dc * 12) in against \(de * 12) in")
    }
}
