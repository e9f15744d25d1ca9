// Issue 30, Why 10 and 11 for the putting plugin: an off-green position is said precisely (the
// green's outline keeps it off, not the grid's box; the nearest point on the green is named, and
// it is accepted); a course typed by its name gets its id suggested; a hole's stored cup is the
// flag when --flag is left out; a stimp in metres is said to be one; the plain green has the cup,
// a grid in feet and named axes to read --ball and --flag from.

import Foundation
import TestSupport
import XCTest
@testable import PuttingCore

final class NewcomerTests: XCTestCase {
    /// Course "presidio-like" (id "links", name "Old Links"): hole 1 a procedural green with a
    /// stored cup and a boundary, hole 2 a plane without a stored cup.
    private func makeService() throws -> (PuttingService, GeneratedGreen) {
        let store = InMemoryPuttingStore()
        let green = try GreenGenerator.procedural(seed: 5, sizeFt: 60)
        let plane = try GreenGenerator.plane(widthFt: 40, depthFt: 30, slopeX: 0.01, slopeZ: 0.015)
        try store.replaceCourse(Course(id: "links", name: "Old Links"), holes: [
            Hole(courseID: "links", number: 1, greenWidthFt: 60, greenHeightFt: 60, holePosition: green.hole,
                 heightfield: green.heightfield, boundary: green.boundary, contours: green.contours, contourIntervalFt: 0.25),
            Hole(courseID: "links", number: 2, greenWidthFt: 40, greenHeightFt: 30, heightfield: plane),
        ])
        return (PuttingService(store: store), green)
    }

    func testAPositionOffTheGreenNamesTheNearestPointOnIt() throws {
        let (service, green) = try makeService()
        // A corner of the grid: inside its box, outside the green's outline. On today's main the
        // message gave the box (x -30…30, z -30…30 ft), which holds the rejected point.
        let corner = PointFt(x: 28, z: 28)
        for model in PuttingModel.allCases {
            let request = BestLineRequest(course: "links", hole: 1, ball: corner, flag: green.hole, model: model)
            let message = errorMessage { try service.bestLine(request) }
            XCTAssertTrue(message.hasPrefix("ball (28, 28) is outside the green of links hole 1 (inside the grid's box, but outside the green's outline): the nearest point on the green is ("), message)
            XCTAssertFalse(message.contains("…30"), "no box that holds the point: \(message)")
            // The point it names is on the green: the same request from there is accepted.
            guard case .positionOutsideGreen(_, _, _, _, true, let nearest?, let distance?) = service.explained(
                .positionOffGreen(what: "ball", point: corner, course: "links", hole: 1, spanX: -30...30, spanZ: -30...30), model: model)
            else { return XCTFail("no nearest point (\(model))") }
            XCTAssertTrue(message.contains("\(PuttingError.short(nearest.x)),\(PuttingError.short(nearest.z));"), message)
            XCTAssertEqual(distance, nearest.distance(to: corner), accuracy: 1e-9)
            XCTAssertLessThan(distance, 20)
            var moved = request
            moved.ball = nearest
            XCTAssertNoThrow(try BestLineEngine.validate(moved, hole: try service.hole(course: "links", number: 1)), "\(model): \(nearest)")
        }
        // The exact line a user reads, on the plane (the green fills its grid).
        XCTAssertEqual(errorMessage { try service.bestLine(BestLineRequest(course: "links", hole: 2, ball: PointFt(x: 30, z: 0), flag: PointFt(x: 4, z: 1))) },
                       "ball (30, 0) is outside the green of links hole 2: the nearest point on the green is (20, 0), 10.0 ft away, e.g. ball 20,0; "
                       + "`putting render --course links --hole 2 --svg FILE` draws the green with a grid in feet")
    }

    func testACourseTypedByItsNameGetsItsId() throws {
        let (service, _) = try makeService()
        XCTAssertEqual(errorMessage { try service.hole(course: "Old Links", number: 1) },
                       "unknown course \"Old Links\": did you mean links? course takes the course's id (`putting courses` lists them)")
        XCTAssertEqual(errorMessage { try service.holes(course: "Links") },
                       "unknown course \"Links\": did you mean links? course takes the course's id (`putting courses` lists them)")
        XCTAssertEqual(errorMessage { try service.hole(course: "linsk", number: 1) },
                       "unknown course \"linsk\": did you mean links? course takes the course's id (`putting courses` lists them)")
        XCTAssertEqual(errorMessage { try service.hole(course: "augusta", number: 1) },
                       "unknown course \"augusta\": list courses with `putting courses` or import one with `putting course import`")
    }

    func testTheStoredCupIsTheFlagWhenNoneIsGiven() throws {
        let (service, green) = try makeService()
        XCTAssertEqual(try service.storedCup(course: "links", hole: 1), green.hole)
        XCTAssertEqual(errorMessage { try service.storedCup(course: "links", hole: 2) },
                       "links hole 2 has no stored cup position (its config.json has no hole_location): give flag X,Z in feet")
        XCTAssertEqual(errorMessage { try service.storedCup(course: "Old Links", hole: 2) },
                       "unknown course \"Old Links\": did you mean links? course takes the course's id (`putting courses` lists them)")
    }

    func testAStimpInMetresIsSaidToBeOne() {
        XCTAssertEqual(PuttingError.stimpOutOfRange(3).description,
                       "stimp 3 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments); if 3 is metres, that is stimp 9.8 (feet)")
        XCTAssertFalse(PuttingError.stimpOutOfRange(0.5).description.contains("metres"), "0.5 m is no green speed either")
        XCTAssertFalse(PuttingError.stimpOutOfRange(20).description.contains("metres"))
    }

    func testThePlainGreenHasTheCupAGridInFeetAndNamedAxes() throws {
        let (service, green) = try makeService()
        for width in [360.0, 900] {
            let svg = try service.render(RenderRequest(course: "links", hole: 1, widthPx: width)).svg
            XCTAssertTrue(svg.contains("<g id=\"grid\""), "on today's main the plain green has no grid")
            XCTAssertTrue(svg.contains(">x ft (east) →</text>") && svg.contains(">↑ z ft (north)</text>"), "named axes")
            XCTAssertTrue(svg.contains("class=\"axis\""), "x = 0 and z = 0 drawn darker")
            XCTAssertTrue(svg.contains("<g id=\"flag\">"), "the stored cup")
            XCTAssertTrue(svg.contains(">cup \(fixed(green.hole.x, 2)),\(fixed(green.hole.z, 2))</text>"), svg)
            XCTAssertTrue(svg.contains(">Positions are X,Z in feet "), svg)
            // Labels every grid line: 0 among them, in both directions.
            XCTAssertTrue(svg.contains(" text-anchor=\"middle\" stroke=\"#ffffff\" stroke-width=\"3\" stroke-opacity=\"0.85\" paint-order=\"stroke\">0</text>"), svg)
            try RenderedPicture.check(svg: svg, name: "putting-plain-green-\(Int(width))", minimumBytes: 5_000)
        }
        // 5 ft at a desktop width, 20 ft on a phone (labels 40 px apart at least).
        let picture = PuttingService.picture(of: try service.hole(course: "links", number: 1), result: nil, widthPx: 900, contours: true, shading: true)
        XCTAssertEqual(picture.gridSpacingFt, 5)
        XCTAssertEqual(PuttingService.picture(of: try service.hole(course: "links", number: 1), result: nil, widthPx: 360, contours: true,
                                              shading: true).gridSpacingFt, 10)
        // A best line's picture keeps its own legend, without the grid.
        let line = try service.render(RenderRequest(course: "links", hole: 1, putt: PuttSpec(ball: try XCTUnwrap(green.balls.first), flag: green.hole))).svg
        XCTAssertFalse(line.contains("<g id=\"grid\""))
        // The plane without a stored cup: the grid, no flag, and no word of a cup.
        let plane = try service.render(RenderRequest(course: "links", hole: 2)).svg
        XCTAssertTrue(plane.contains("<g id=\"grid\""))
        XCTAssertFalse(plane.contains("<g id=\"flag\">"))
        XCTAssertFalse(plane.contains("stored cup"))
    }
}
