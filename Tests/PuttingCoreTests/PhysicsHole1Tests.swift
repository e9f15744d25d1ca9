import Foundation
import XCTest
@testable import PuttingCore

final class PhysicsHole1Tests: XCTestCase {
    func testHole1BestLineHolesAndBreaksTheSameWayAsTheOriginal() throws {
        let hf = try SharedData.hole1Heightfield()
        let sim = PhysicsSimulator(surface: GreenSurface(hf), parameters: PhysicsParameters(stimpFt: 10))
        let ball = PointFt(x: 0.4926911974398753, z: -5.874042977297358)
        let hole = PointFt(x: 14.254094985568514, z: -4.302736929024233)
        let start = Date()
        let line = PhysicsSolver(simulator: sim).bestLine(ball: ball, hole: hole)
        print("physics hole 1:", line.aimOffsetDeg, line.aimOffsetIn, line.speedFps, line.roll.holed, line.converged,
              line.tolerance as Any, line.simulations, line.evaluations, Date().timeIntervalSince(start))
        XCTAssertTrue(line.converged)
        XCTAssertTrue(line.roll.holed)
    }
}
