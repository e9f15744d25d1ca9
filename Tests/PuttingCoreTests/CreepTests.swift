import XCTest
@testable import PuttingCore

/// A ball whose speed hovers just above the rest speed (the slope's pull about balancing rolling resistance)
/// is at rest after half a second of it. Before, such rolls ran on to the 30 s time limit in up to a million
/// integrator steps, and made most of the best line's p95 over the sweep.
final class CreepTests: XCTestCase {
    /// The sweep bench's hole 9, 33.2 ft putt (seed 1009): a nested solve of about 270 rolls that
    /// took 0.7 s, nearly all of it in the creep of a few make-probability rolls.
    func testTheSweepsSlowNestedPuttHasNoCreepingRolls() throws {
        let dir = try SharedData.presidioDirectory()
        let hf = try Heightfield.read(jsonPath: dir + "/hole_9/Hole_9_heightfield.json")
        let surface = GreenSurface(hf)
        let sim = PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: 10))
        var solver = PhysicsSolver(simulator: sim)
        solver.strokeErrors = .tour
        let putts = PuttSweep.putts(on: surface, count: 16, seed: 1009)
        guard let putt = putts.first(where: { abs($0.ball.distance(to: $0.flag) - 33.19) < 0.01 }) else {
            return XCTFail("the sweep's hole 9 has no 33.19 ft putt any more: \(putts.map { $0.ball.distance(to: $0.flag) })")
        }
        let line = solver.bestLine(ball: putt.ball, hole: putt.flag)
        XCTAssertTrue(line.roll.holed)
        XCTAssertTrue(line.converged)
        XCTAssertEqual(line.stage, "nested")
        let perRoll = Double(line.evaluations) / Double(Swift.max(1, line.simulations))
        print("hole 9, 33.2 ft: \(line.simulations) rolls, \(line.evaluations) right-hand-side evaluations (\(Int(perRoll)) a roll)")
        XCTAssertLessThan(perRoll, 3000, "a roll of this putt creeps on to the time limit")
    }

    /// A ball launched gently up a plane steeper than rolling resistance holds turns back and rolls away: the
    /// creep rule does not stop a ball that merely passes through low speed.
    func testABallTurningBackOnASteepSlopeIsNotStoppedByTheCreepRule() throws {
        let hf = try GreenGenerator.plane(widthFt: 60, depthFt: 60, baseFt: 5, slopeX: 0.1, slopeZ: 0)
        let sim = PhysicsSimulator(surface: GreenSurface(hf), parameters: PhysicsParameters(stimpFt: 10))
        // The ball launched toward +x goes up the slope, stops for an instant and rolls back down off the green.
        let roll = sim.roll(from: PointFt(x: -10, z: 0), vx: 3, vz: 0.2, hole: nil,
                            options: RollOptions(capture: false, recordPath: false))
        XCTAssertEqual(roll.end, .offGreen, "the slope pulls harder than rolling resistance holds: the ball cannot rest")
        XCTAssertLessThan(roll.final.x, -29)
    }
}
