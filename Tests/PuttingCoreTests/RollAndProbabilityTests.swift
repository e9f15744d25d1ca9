import ClubhouseJSON
import Foundation
import XCTest
@testable import PuttingCore

final class RollAndProbabilityTests: XCTestCase {
    private func makeService() throws -> PuttingService {
        let store = InMemoryPuttingStore()
        let service = PuttingService(store: store, clock: { 1_700_000_000 }, makeJobID: { "job" })
        let plane = try GreenGenerator.plane(widthFt: 60, depthFt: 40, slopeX: 0.01, slopeZ: 0.02)
        let flat = try GreenGenerator.plane(widthFt: 60, depthFt: 40, slopeX: 0, slopeZ: 0)
        try store.replaceCourse(Course(id: "gen", name: "Generated"), holes: [
            Hole(courseID: "gen", number: 1, greenWidthFt: 60, greenHeightFt: 40, heightfield: plane),
            Hole(courseID: "gen", number: 2, greenWidthFt: 60, greenHeightFt: 40, heightfield: flat),
        ])
        return service
    }

    private let ball = PointFt(x: -12, z: -3), flag = PointFt(x: 6, z: 2)

    func testRollingTheBestLinesOwnStrokeReproducesIt() throws {
        let service = try makeService()
        guard case .result(let best, _) = try service.bestLine(BestLineRequest(course: "gen", hole: 1, ball: ball, flag: flag)) else {
            return XCTFail("expected a result")
        }
        XCTAssertTrue(best.holed)
        let roll = try service.roll(RollRequest(course: "gen", hole: 1, ball: ball, flag: flag, aim: .offsetDeg(best.aimOffsetDeg),
                                                pace: .speedFps(best.speedFps)))
        XCTAssertTrue(roll.holed)
        XCTAssertEqual(roll.pathXFt, best.pathXFt)
        XCTAssertEqual(roll.pathZFt, best.pathZFt)
        XCTAssertEqual(roll.tEndS, best.tEndS)
        XCTAssertEqual(roll.rimSpeedFps, best.rimSpeedFps)
        XCTAssertEqual(roll.makeProbability, try XCTUnwrap(best.makeProbability), accuracy: 1e-12)
        // The same stroke given as an aim point on the aim line.
        let byPoint = try service.roll(RollRequest(course: "gen", hole: 1, ball: ball, flag: flag, aim: .point(best.aimPoint),
                                                   pace: .speedFps(best.speedFps)))
        XCTAssertEqual(byPoint.aimOffsetDeg, best.aimOffsetDeg, accuracy: 1e-9)
        XCTAssertTrue(byPoint.holed)
    }

    func testPaceIsTheFlatGroundDistancePastTheHole() throws {
        let service = try makeService()
        // Straight at the hole on the flat green with a 3 ft pace, far left of the line so it misses: stops D + 3 ft away.
        let r = try service.roll(RollRequest(course: "gen", hole: 2, ball: PointFt(x: -10, z: 0), flag: PointFt(x: 10, z: 0),
                                             aim: .offsetDeg(3), pace: .pastFt(3)))
        XCTAssertFalse(r.holed)
        XCTAssertEqual(r.pathXFt.count, r.pathZFt.count)
        let travelled = PointFt(x: r.restXFt, z: r.restZFt).distance(to: PointFt(x: -10, z: 0))
        XCTAssertEqual(travelled, 23, accuracy: 0.01)
        XCTAssertEqual(r.speedFps, (2 * 1.8 * 23).squareRoot(), accuracy: 1e-9)
        XCTAssertTrue(r.text.contains("missed"))
        XCTAssertNotNil(r.json["roll"]?["makeProbability"]?.doubleValue)
    }

    func testBadStrokesNameTheLimit() throws {
        let service = try makeService()
        func message(_ aim: RollAim, _ pace: RollPace) -> String {
            errorMessage { try service.roll(RollRequest(course: "gen", hole: 1, ball: self.ball, flag: self.flag, aim: aim, pace: pace)) }
        }
        XCTAssertEqual(message(.offsetDeg(95), .speedFps(5)),
                       "aim 95 is out of range: it must be within ±90 degrees of the line to the hole (positive = left)")
        XCTAssertEqual(message(.offsetDeg(-90.5), .speedFps(5)),
                       "aim -90.5 is out of range: it must be within ±90 degrees of the line to the hole (positive = left)")
        XCTAssertEqual(message(.offsetDeg(0), .speedFps(0)), "speed 0 is out of range: it must be above 0 and at most 30 ft/s")
        XCTAssertEqual(message(.offsetDeg(0), .speedFps(-2)), "speed -2 is out of range: it must be above 0 and at most 30 ft/s")
        XCTAssertEqual(message(.offsetDeg(0), .speedFps(300)), "speed 300 is out of range: it must be above 0 and at most 30 ft/s")
        XCTAssertEqual(message(.offsetDeg(0), .pastFt(500)),
                       "pace 500 is out of range: it must be more than -18.7 ft (the ball must roll) and at most 100 ft past the hole")
        XCTAssertEqual(message(.point(PointFt(x: -30, z: -3)), .speedFps(5)),
                       "aim (toward the aim point) 164.476 is out of range: it must be within ±90 degrees of the line to the hole")
        XCTAssertEqual(message(.offsetDeg(0), .speedFps(.nan)), "speed nan is out of range: it must be above 0 and at most 30 ft/s")
    }

    func testStrokeErrorSettingsAreChecked() {
        XCTAssertEqual(errorMessage { try StrokeErrors(aimSDDeg: 0, speedSDFraction: 0.04).validated() },
                       "aim spread 0 is out of range: it must be above 0 and at most 10 degrees")
        XCTAssertEqual(errorMessage { try StrokeErrors(aimSDDeg: 1, speedSDFraction: 0.9).validated() },
                       "speed spread 90 is out of range: it must be above 0 and at most 50 percent")
    }

    func testMakeProbabilityOnAFlatGreenMatchesTheGeometry() throws {
        // Flat green, tiny speed error: only the aim error matters, and the holing aims are a window the
        // calculator finds by bisection; the Φ share of that window is the answer.
        let hf = try GreenGenerator.plane(widthFt: 60, depthFt: 40, slopeX: 0, slopeZ: 0)
        let sim = PhysicsSimulator(surface: GreenSurface(hf), parameters: PhysicsParameters(stimpFt: 10))
        var solver = PhysicsSolver(simulator: sim)
        solver.strokeErrors = StrokeErrors(aimSDDeg: 1, speedSDFraction: 0.0001)
        let line = solver.bestLine(ball: PointFt(x: -10, z: 0), hole: PointFt(x: 10, z: 0))
        let p = try XCTUnwrap(line.probability).probability
        let t = try XCTUnwrap(line.tolerance)
        let expected = MakeProbabilityCalculator.phi(t.aimMaxDeg) - MakeProbabilityCalculator.phi(t.aimMinDeg)
        XCTAssertEqual(p, expected, accuracy: 0.005)
        XCTAssertGreaterThan(p, 0.05)
        XCTAssertLessThan(p, 0.9)
        // Wider errors make fewer putts; the literature defaults give a 20 ft flat putt well under one in two.
        solver.strokeErrors = StrokeErrors(aimSDDeg: 2, speedSDFraction: 0.08)
        let worse = try XCTUnwrap(solver.bestLine(ball: PointFt(x: -10, z: 0), hole: PointFt(x: 10, z: 0)).probability).probability
        XCTAssertLessThan(worse, p)
        solver.strokeErrors = .tour
        let lit = try XCTUnwrap(solver.bestLine(ball: PointFt(x: -10, z: 0), hole: PointFt(x: 10, z: 0)).probability).probability
        XCTAssertGreaterThan(lit, 0.05)
        XCTAssertLessThan(lit, 0.5)
    }

    func testBestLineTextJSONAndLegendShowTheMakeProbability() throws {
        let service = try makeService()
        guard case .result(let best, _) = try service.bestLine(BestLineRequest(course: "gen", hole: 1, ball: ball, flag: flag)) else {
            return XCTFail("expected a result")
        }
        let p = try XCTUnwrap(best.makeProbability)
        XCTAssertTrue(best.text.contains("makes \(fixed(p * 100, 1))% of the time"), best.text)
        XCTAssertEqual(best.json["bestLine"]?["makeProbability"]?.doubleValue, p)
        XCTAssertEqual(best.json["bestLine"]?["holeable"]?.boolValue, true)
        let svg = try service.render(RenderRequest(course: "gen", hole: 1, putt: PuttSpec(ball: ball, flag: flag))).svg
        XCTAssertTrue(svg.contains("Make probability \(fixed(p * 100, 1))%"))
        // Read back from the cache with the same fields.
        XCTAssertEqual(try BestLineResult(json: best.json), best)
    }
}
