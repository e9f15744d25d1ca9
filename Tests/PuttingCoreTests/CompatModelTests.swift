import ClubhouseJSON
import Foundation
import XCTest
@testable import PuttingCore

final class CompatModelTests: XCTestCase {
    func testHole1ReproducesTheOriginalAnswer() throws {
        let dir = try SharedData.presidioDirectory()
        let hf = try SharedData.hole1Heightfield()
        let text = try String(contentsOfFile: dir + "/hole_1/Hole_1_bestline.json", encoding: .utf8)
        let expected = try JSONParser.parse(text)
        guard let line = expected["bestLine"]?.objectValue else { return XCTFail("no bestLine") }
        func d(_ key: String) -> Double { line[key]?.doubleValue ?? .nan }
        let sim = CompatSimulator(green: CompatGreen(hf), parameters: CompatParameters(stimpFt: d("stimpFt")))
        let best = CompatSearch(simulator: sim).bestLine(ballX: d("ballXFt"), ballZ: d("ballZFt"),
                                                         holeX: d("holeXFt"), holeZ: d("holeZFt"))
        XCTAssertEqual(best.aimOffsetDeg, d("aimOffsetDeg"))
        XCTAssertEqual(best.speedFps, d("speedFps"))
        XCTAssertEqual(best.v0XFps, d("v0XFps"))
        XCTAssertEqual(best.v0ZFps, d("v0ZFps"))
        XCTAssertEqual(best.missFt, d("missFt"))
        XCTAssertEqual(best.roll.tEnd, d("tEndS"))
        XCTAssertEqual(best.roll.holed, line["holed"]?.boolValue)
        let px = line["pathXFt"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        let pz = line["pathZFt"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        let py = line["pathYFt"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        XCTAssertEqual(best.roll.pathX.count, px.count)
        var firstBad = -1
        for i in 0..<min(px.count, best.roll.pathX.count) where best.roll.pathX[i] != px[i] || best.roll.pathZ[i] != pz[i] || best.roll.pathY[i] != py[i] {
            firstBad = i; break
        }
        XCTAssertEqual(firstBad, -1, "first differing path point")
        print("sims", best.simulations, "steps", best.steps)
    }
}
