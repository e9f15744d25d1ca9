import XCTest
@testable import PuttingCore

/// Issue 20: the aim's side is named the same way in text, JSON and the SVG legend (positive = left).
final class AimSideTests: XCTestCase {
    func testTheAimAndItsWindowNameTheSameSide() {
        XCTAssertEqual(AimSide.describe(deg: -2.43, inches: -5.5), "2.43° right (5.5 in right of the hole)")
        XCTAssertEqual(AimSide.describe(deg: 1.2, inches: 3.04), "1.20° left (3.0 in left of the hole)")
        XCTAssertEqual(AimSide.describe(deg: 0.001, inches: 0.01), "0.00° (straight at the hole)")
        // A window wholly right of the line: no minus sign, the side named once.
        XCTAssertEqual(AimSide.window(minIn: -7.0, maxIn: -3.9), "3.9–7.0 in right")
        XCTAssertEqual(AimSide.window(minIn: 3.9, maxIn: 7.04), "3.9–7.0 in left")
        XCTAssertEqual(AimSide.window(minIn: -1.2, maxIn: 2.0), "1.2 in right to 2.0 in left")
        XCTAssertEqual(AimSide.window(minDeg: -1.6, maxDeg: -0.85), "0.85–1.60° right")
        XCTAssertEqual(AimSide.name(inches: -5.5), "right")
        XCTAssertEqual(AimSide.name(inches: 5.5), "left")
        XCTAssertEqual(AimSide.name(inches: 0), "straight")
    }

    func testTextJSONAndLegendAgreeOnASideSlope() throws {
        // A plane rising to +z (north): a putt east along +x breaks right (south), so the aim is left.
        let plane = try GreenGenerator.plane(widthFt: 40, depthFt: 30, baseFt: 1, slopeX: 0, slopeZ: 0.02)
        let store = InMemoryPuttingStore()
        try store.replaceCourse(Course(id: "gen", name: "Gen"), holes: [
            Hole(courseID: "gen", number: 1, greenWidthFt: 39.5, greenHeightFt: 29.5, heightfield: plane),
        ])
        let service = PuttingService(store: store)
        let request = BestLineRequest(course: "gen", hole: 1, ball: PointFt(x: -10, z: 0), flag: PointFt(x: 6, z: 0), model: .physics)
        guard case .result(let result, _) = try service.bestLine(request) else { return XCTFail("no result") }
        let side = AimSide.name(inches: result.aimOffsetIn)
        XCTAssertEqual(side, "left")
        XCTAssertTrue(result.text.contains("aim    \(fixed(abs(result.aimOffsetDeg), 2))° \(side)"), result.text)
        XCTAssertEqual(result.json["bestLine"]?["aimSide"]?.stringValue, side)
        let t = try XCTUnwrap(result.tolerance)
        let window = AimSide.window(minIn: t.aimMinIn, maxIn: t.aimMaxIn)
        XCTAssertFalse(window.contains("-"), window)
        XCTAssertTrue(result.text.contains("still holes aimed \(window) of the hole"), result.text)
        XCTAssertEqual(result.json["bestLine"]?["tolerance"]?["aimWindow"]?.stringValue, window)
        let svg = try service.render(RenderRequest(course: "gen", hole: 1, putt: PuttSpec(ball: request.ball, flag: request.flag))).svg
        XCTAssertTrue(svg.contains("Aim \(result.aimDescription)"), svg)
        XCTAssertTrue(svg.contains("Still holes aimed \(window)"), svg)
    }
}
