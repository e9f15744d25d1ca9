import Foundation
import XCTest
@testable import PuttingCore

final class PhysicsModelTests: XCTestCase {
    private let metresPerFoot = 0.3048

    private func simulator(slopeX: Double = 0, slopeZ: Double = 0, stimp: Double = 10, size: Double = 60,
                           capture: CaptureRule = CaptureRule()) throws -> PhysicsSimulator {
        let hf = try GreenGenerator.plane(widthFt: size, depthFt: size, baseFt: 5, slopeX: slopeX, slopeZ: slopeZ)
        var p = PhysicsParameters(stimpFt: stimp)
        p.capture = capture
        return PhysicsSimulator(surface: GreenSurface(hf), parameters: p)
    }

    /// 10 ft straight putt at stimp 10 finishing 17 in past; speeds from the domain page (±0.5 %).
    private func straightPutt(slopeX: Double, expectedMps: Double) throws {
        let solver = PhysicsSolver(simulator: try simulator(slopeX: slopeX))
        let line = solver.bestLine(ball: PointFt(x: -5, z: 0), hole: PointFt(x: 5, z: 0))
        let mps = line.speedFps * metresPerFoot
        XCTAssertEqual(mps, expectedMps, accuracy: expectedMps * 0.005, "launch speed \(mps) m/s")
        XCTAssertTrue(line.converged)
        XCTAssertTrue(line.roll.holed)
        XCTAssertEqual(line.aimOffsetDeg, 0, accuracy: 1e-6)
        XCTAssertEqual(line.finishPastFt, 17.0 / 12.0, accuracy: 1e-3)
        // The analytic value for this model (v_s = 6.0 ft/s): v0² = 2·(a_r + k_g·s/√(1+s²))·(D + L).
        let decel = 1.8 + 32.174 * 5 / 7 * slopeX / (1 + slopeX * slopeX).squareRoot()
        XCTAssertEqual(line.speedFps, (2 * decel * (10 + 17.0 / 12)).squareRoot(), accuracy: 1e-4)
    }

    func testFlatTenFootPutt() throws { try straightPutt(slopeX: 0, expectedMps: 1.9553) }
    func testUphillTwoPercent() throws { try straightPutt(slopeX: 0.02, expectedMps: 2.1905) }
    func testDownhillTwoPercent() throws { try straightPutt(slopeX: -0.02, expectedMps: 1.6877) }

    func testStraightRollStopsWhereKinematicsSays() throws {
        let sim = try simulator(slopeX: 0.03)
        let roll = sim.roll(from: PointFt(x: -20, z: 0), vx: 7, vz: 0, hole: nil)
        let decel = 1.8 + 32.174 * 5 / 7 * 0.03 / (1 + 0.0009).squareRoot()
        XCTAssertEqual(roll.end, .rest)
        // Heights are float32, so the plane's slope itself is only good to about 1e-6.
        XCTAssertEqual(roll.final.x - (-20), 49 / (2 * decel), accuracy: 1e-5)
        XCTAssertEqual(roll.final.z, 0, accuracy: 1e-9)
        XCTAssertEqual(roll.tEnd, 7 / decel, accuracy: 1e-5)
        XCTAssertEqual(roll.length, roll.final.x + 20, accuracy: 1e-9)
    }

    /// On any plane, doubling the launch speed quadruples the stopping distance at the same bearing.
    func testScalingLawOnSideSlopes() throws {
        for (sx, sz, heading) in [(0.0, 0.03, 0.0), (0.01, -0.025, 0.7), (-0.02, 0.02, 2.5)] {
            let sim = try simulator(slopeX: sx, slopeZ: sz, size: 120)
            let start = PointFt(x: 0, z: 0)
            let v = 3.0
            let a = sim.roll(from: start, vx: v * cos(heading), vz: v * sin(heading), hole: nil)
            let b = sim.roll(from: start, vx: 2 * v * cos(heading), vz: 2 * v * sin(heading), hole: nil)
            XCTAssertEqual(a.end, .rest)
            XCTAssertEqual(b.end, .rest)
            let da = a.final.distance(to: start), db = b.final.distance(to: start)
            XCTAssertEqual(db / da, 4, accuracy: 4e-5, "slope (\(sx), \(sz))")
            let bearingA = atan2(a.final.z, a.final.x), bearingB = atan2(b.final.z, b.final.x)
            XCTAssertEqual(bearingA, bearingB, accuracy: 1e-5)
            // The side slope really bends the roll: the bearing is not the launch heading.
            XCTAssertGreaterThan(abs(remainder(bearingA - heading, 2 * .pi)), 0.01)
        }
    }

    func testCupCrossingAtSpeedNoTunnelling() throws {
        // Flat: rim speed² = v0² − 2·a_r·(distance to the rim). Ball 6 ft short, straight at the centre.
        let sim = try simulator()
        let R = 2.125 / 12
        func v0(forRimSpeed s: Double) -> Double { (s * s + 2 * 1.8 * (6 - R)).squareRoot() }
        let hole = PointFt(x: 6, z: 0)
        let drop = sim.roll(from: PointFt(x: 0, z: 0), vx: v0(forRimSpeed: 4.25), vz: 0, hole: hole)
        XCTAssertTrue(drop.holed)
        XCTAssertEqual(drop.rimSpeed ?? 0, 4.25, accuracy: 1e-4)
        XCTAssertEqual(drop.final.x, 6, accuracy: 1e-6)
        let lip = sim.roll(from: PointFt(x: 0, z: 0), vx: v0(forRimSpeed: 4.35), vz: 0, hole: hole)
        XCTAssertFalse(lip.holed)
        XCTAssertEqual(lip.rimSpeed ?? 0, 4.35, accuracy: 1e-4)
        XCTAssertGreaterThan(lip.final.x, 6.5)
        // Very fast balls cross the cup within one step; the crossing is still seen.
        let fast = sim.roll(from: PointFt(x: 0, z: 0), vx: 25, vz: 0, hole: hole)
        XCTAssertEqual(fast.rimSpeed ?? 0, v0(forRimSpeed: 0).isNaN ? 0 : (625 - 2 * 1.8 * (6 - R)).squareRoot(), accuracy: 1e-3)
        XCTAssertEqual(fast.passOffset ?? 1, 0, accuracy: 1e-6)
    }

    func testChordFalloffOfTheCaptureLimit() throws {
        // A pass 0.9·R off centre: limit 4.3·√(1 − 0.81) ≈ 1.874 ft/s.
        let R = 2.125 / 12
        let hole = PointFt(x: 6, z: 0.9 * R)
        func rimEntryDistance() -> Double { 6 - (R * R - 0.81 * R * R).squareRoot() }
        func v0(_ rim: Double) -> Double { (rim * rim + 2 * 1.8 * rimEntryDistance()).squareRoot() }
        let chord = try simulator()
        XCTAssertTrue(chord.roll(from: PointFt(x: 0, z: 0), vx: v0(1.80), vz: 0, hole: hole).holed)
        let miss = chord.roll(from: PointFt(x: 0, z: 0), vx: v0(1.95), vz: 0, hole: hole)
        XCTAssertFalse(miss.holed)
        XCTAssertEqual(miss.passOffset ?? 0, 0.9 * R, accuracy: 1e-6)
        XCTAssertEqual(CaptureRule().speedLimit(offsetFt: 0.9 * R), 4.3 * 0.19.squareRoot(), accuracy: 1e-12)
        let flat = try simulator(capture: CaptureRule(falloff: .none))
        XCTAssertTrue(flat.roll(from: PointFt(x: 0, z: 0), vx: v0(1.95), vz: 0, hole: hole).holed)
        XCTAssertEqual(CaptureRule().speedLimit(offsetFt: R), 0)
    }

    func testBallLeavingTheGreenStopsAtTheEdge() throws {
        let sim = try simulator(size: 20)
        let roll = sim.roll(from: PointFt(x: 0, z: 0), vx: 20, vz: 0, hole: nil)
        XCTAssertEqual(roll.end, .offGreen)
        XCTAssertEqual(roll.final.x, 10.25, accuracy: 0.01)   // last cell centre 10 ft, its half-cell edge 10.25
    }

    func testBreakingPuttOnASideSlopeAimsUphillAndHoles() throws {
        // Side slope rising toward +z: a putt along +x breaks toward −z, so the aim is left (positive).
        let sim = try simulator(slopeZ: 0.02)
        var solver = PhysicsSolver(simulator: sim)
        let line = solver.bestLine(ball: PointFt(x: -6, z: 0), hole: PointFt(x: 6, z: 0))
        XCTAssertTrue(line.converged)
        XCTAssertTrue(line.roll.holed)
        XCTAssertGreaterThan(line.aimOffsetDeg, 1)
        XCTAssertEqual(line.aimOffsetIn, 12 * 12 * tan(line.aimOffsetDeg * .pi / 180), accuracy: 1e-9)
        XCTAssertEqual(line.centreOffsetFt, 0, accuracy: 1e-4)
        let tol = try XCTUnwrap(line.tolerance)
        XCTAssertLessThan(tol.aimMinDeg, line.aimOffsetDeg)
        XCTAssertGreaterThan(tol.aimMaxDeg, line.aimOffsetDeg)
        XCTAssertLessThan(tol.speedMinFps, line.speedFps)
        XCTAssertGreaterThan(tol.speedMaxFps, line.speedFps)
        // The early exit changes the work, not the answer (to the windows' precision).
        solver.earlyExit = false
        let slow = solver.bestLine(ball: PointFt(x: -6, z: 0), hole: PointFt(x: 6, z: 0))
        assertWindowsAgree(slow.tolerance, line.tolerance)
        XCTAssertGreaterThan(slow.evaluations, line.evaluations)
    }
}
