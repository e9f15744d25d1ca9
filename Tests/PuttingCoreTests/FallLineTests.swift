import XCTest
@testable import PuttingCore

/// A ball hovering on a slope whose pull about balances rolling resistance is followed on the fall line in large
/// steps; it ends where the full equations, integrated in the tiny steps their stiffness there needs, end it.
final class FallLineTests: XCTestCase {
    /// A plane whose pull is `ratio` × rolling resistance, falling toward −x.
    private func simulator(pullOverResistance ratio: Double) throws -> PhysicsSimulator {
        let params = PhysicsParameters(stimpFt: 10)
        let s = ratio * params.rollingResistance / (params.rollingFactor * params.gravityFps2)
        let g = s / (1 - s * s).squareRoot()
        let hf = try GreenGenerator.plane(widthFt: 60, depthFt: 60, baseFt: 5, slopeX: g, slopeZ: 0)
        return PhysicsSimulator(surface: GreenSurface(hf), parameters: params)
    }

    private func compare(ratio: Double, vx: Double, vz: Double, end: RollEnd, speedup: Int) throws {
        var sim = try simulator(pullOverResistance: ratio)
        let options = RollOptions(capture: false, recordPath: false)
        let fast = sim.roll(from: PointFt(x: 0, z: 0), vx: vx, vz: vz, hole: nil, options: options)
        sim.followsFallLine = false
        let full = sim.roll(from: PointFt(x: 0, z: 0), vx: vx, vz: vz, hole: nil, options: options)
        print("pull/a_r \(ratio): fall line \(fast.evaluations) evaluations, end \(fast.end) at \(fast.final) after \(fast.tEnd) s;"
            + " full \(full.evaluations), end \(full.end) at \(full.final) after \(full.tEnd) s")
        XCTAssertEqual(fast.end, end)
        XCTAssertEqual(full.end, end)
        XCTAssertEqual(fast.final.distance(to: full.final), 0, accuracy: 1e-3, "the fall-line phase moved the end")
        XCTAssertEqual(fast.length, full.length, accuracy: 1e-3)
        XCTAssertLessThan(fast.evaluations * speedup, full.evaluations, "the hover was not followed on the fall line")
    }

    /// Pull a twentieth of a percent above resistance: the ball goes up, turns and creeps down to the time limit
    /// (on a plane the full equations, once on the fall line, stay there: only the turn is stiff).
    func testAHoverThatRollsOnDownEndsWhereTheFullEquationsEndIt() throws {
        try compare(ratio: 1.0005, vx: 2, vz: 0.3, end: .timeLimit, speedup: 1)
    }

    /// Pull a tenth of a percent below resistance: the ball turns, creeps down and stops.
    func testAHoverThatStopsEndsWhereTheFullEquationsEndIt() throws {
        try compare(ratio: 0.999, vx: 2, vz: 0.3, end: .rest, speedup: 5)
    }
}
