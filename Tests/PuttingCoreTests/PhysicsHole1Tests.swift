import Foundation
import XCTest
@testable import PuttingCore

final class PhysicsHole1Tests: XCTestCase {
    func testHole1BestLineHolesAndBreaksTheSameWayAsTheOriginal() throws {
        let hf = try SharedData.hole1Heightfield()
        let sim = PhysicsSimulator(surface: GreenSurface(hf), parameters: PhysicsParameters(stimpFt: 10))
        let ball = PointFt(x: 0.4926911974398753, z: -5.874042977297358)
        let hole = PointFt(x: 14.254094985568514, z: -4.302736929024233)
        let line = PhysicsSolver(simulator: sim).bestLine(ball: ball, hole: hole)
        XCTAssertTrue(line.converged)
        XCTAssertTrue(line.roll.holed)
        XCTAssertEqual(line.finishPastFt, 17.0 / 12, accuracy: 1e-3)
        // The original's answer aims 30° left; the rolling sphere feels 5/7 of the slope and breaks less, same side.
        XCTAssertGreaterThan(line.aimOffsetDeg, 0)
        XCTAssertLessThan(line.aimOffsetDeg, 30)
        let tol = try XCTUnwrap(line.tolerance)
        XCTAssertTrue((tol.aimMinDeg...tol.aimMaxDeg).contains(line.aimOffsetDeg))
        XCTAssertTrue((tol.speedMinFps...tol.speedMaxFps).contains(line.speedFps))
        // The energy-bound early exit leaves the windows as they are on a real green (to their precision).
        var plain = PhysicsSolver(simulator: sim)
        plain.earlyExit = false
        let slow = plain.bestLine(ball: ball, hole: hole)
        assertWindowsAgree(slow.tolerance, line.tolerance)
        XCTAssertLessThan(line.evaluations, slow.evaluations)
    }
}

/// Two tolerance windows agree to the precision their ends are found to (0.001° of aim, 0.0002 ft/s of speed):
/// the early exit changes the margins of the rolls that miss, so the regula falsi takes other steps.
func assertWindowsAgree(_ a: BestLineTolerance?, _ b: BestLineTolerance?, file: StaticString = #filePath, line: UInt = #line) {
    guard let a, let b else { return XCTAssertEqual(a, b, file: file, line: line) }
    XCTAssertEqual(a.aimMinDeg, b.aimMinDeg, accuracy: 0.001, file: file, line: line)
    XCTAssertEqual(a.aimMaxDeg, b.aimMaxDeg, accuracy: 0.001, file: file, line: line)
    XCTAssertEqual(a.speedMinFps, b.speedMinFps, accuracy: 0.0002, file: file, line: line)
    XCTAssertEqual(a.speedMaxFps, b.speedMaxFps, accuracy: 0.0002, file: file, line: line)
}
