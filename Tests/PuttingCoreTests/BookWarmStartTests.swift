import Foundation
import XCTest
@testable import PuttingCore

/// A green book starts most positions from a solved neighbour's stroke (Newton's method from it). Those
/// answers must be the ones a search from scratch gives: the same line to within the solver's tolerance, the
/// same holed/holeable verdict, and the same make probability to well within the 0.5 points two runs may differ.
final class BookWarmStartTests: XCTestCase {
    func testWarmStartedPositionsAgreeWithSearchesFromScratchOnARealGreen() throws {
        let dir = try SharedData.presidioDirectory()
        let hf = try Heightfield.read(jsonPath: dir + "/hole_1/Hole_1_heightfield.json")
        let surface = GreenSurface(hf)
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: 10)))
        solver.computeTolerance = false
        solver.strokeErrors = .tour
        let flag = PointFt(x: 28.03, z: -3.46)
        let request = BookRequest(course: "presidio", hole: 1, flag: flag)
        let positions = try request.positions(on: surface)
        let parents = BookRequest.warmParents(positions, flag: flag, spacingFt: request.spacingFt)
        let warmCount = parents.compactMap { $0 }.count
        XCTAssertGreaterThan(warmCount, positions.count * 3 / 4, "most positions start from a neighbour")
        // Every parent is itself solved from scratch.
        for p in parents.compactMap({ $0 }) { XCTAssertNil(parents[p]) }
        // A sample of warm-started positions, near and far, against searches from scratch.
        let sample = positions.indices.filter { parents[$0] != nil }.enumerated().filter { $0.offset % 40 == 0 }.map(\.element)
        XCTAssertGreaterThanOrEqual(sample.count, 8)
        var warmed = 0
        for k in sample {
            guard let p = parents[k] else { continue }
            let parent = solver.bestLine(ball: positions[p], hole: flag)
            let start = PhysicsWarmStart(ball: positions[p], aimDeg: parent.aimOffsetDeg, speedFps: parent.speedFps)
            let warm = solver.bestLine(ball: positions[k], hole: flag, warmStart: parent.converged && parent.roll.holed ? start : nil)
            let cold = solver.bestLine(ball: positions[k], hole: flag)
            let label = "ball \(positions[k]) from \(positions[p]): warm \(warm.stage) \(warm.aimOffsetDeg)° \(warm.speedFps) ft/s "
                + "\(warm.probability?.probability ?? -1) (\(warm.simulations) rolls), cold \(cold.stage) \(cold.aimOffsetDeg)° "
                + "\(cold.speedFps) ft/s \(cold.probability?.probability ?? -1) (\(cold.simulations) rolls)"
            print(label)
            if warm.stage == "warm" { warmed += 1 }
            XCTAssertEqual(warm.roll.holed, cold.roll.holed, label)
            XCTAssertEqual(warm.holeable, cold.holeable, label)
            XCTAssertEqual(warm.converged, cold.converged, label)
            if warm.converged {
                XCTAssertEqual(warm.finishPastFt, solver.finishPastFt, accuracy: 2.0 / 12, label)
            }
            XCTAssertEqual(warm.aimOffsetDeg, cold.aimOffsetDeg, accuracy: 0.01, label)
            XCTAssertEqual(warm.speedFps, cold.speedFps, accuracy: 0.002, label)
            XCTAssertEqual(warm.probability?.probability ?? -1, cold.probability?.probability ?? -1, accuracy: 0.005, label)
        }
        XCTAssertGreaterThan(warmed, sample.count / 2, "the warm start holds on most positions")
    }
}
