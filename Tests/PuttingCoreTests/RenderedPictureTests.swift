import Foundation
import TestSupport
import XCTest
@testable import PuttingCore

/// Issue 20: every putting picture type renders to a PNG with a real SVG renderer (`rsvg-convert` from
/// Debian's librsvg2-bin). Skipped, with the reason, where the renderer is not installed.
final class RenderedPictureTests: XCTestCase {
    private func service() throws -> (PuttingService, PointFt, PointFt) {
        let store = InMemoryPuttingStore()
        let green = try GreenGenerator.procedural(seed: 11, sizeFt: 50)
        try store.replaceCourse(Course(id: "gen", name: "Generated"), holes: [
            Hole(courseID: "gen", number: 1, greenWidthFt: 50, greenHeightFt: 50, holePosition: green.hole,
                 heightfield: green.heightfield, boundary: green.boundary, contours: green.contours, contourIntervalFt: 0.25),
        ])
        return (PuttingService(store: store), try XCTUnwrap(green.balls.first), try XCTUnwrap(green.hole))
    }

    /// Renders `svg` to a PNG of the SVG's size with content (TestSupport's check) after it parses.
    private func assertRenders(_ svg: String, _ name: String) throws {
        _ = try SVGSummary.parse(svg)
        try RenderedPicture.check(svg: svg, name: "putting-\(name)", minimumBytes: 5_000)
    }

    func testTheGreenAloneRenders() throws {
        let (service, _, _) = try service()
        try assertRenders(service.render(RenderRequest(course: "gen", hole: 1)).svg, "green")
    }

    func testABestLinePictureRendersWithItsShadingInsideTheBoundary() throws {
        let (service, ball, flag) = try service()
        let svg = try service.render(RenderRequest(course: "gen", hole: 1, putt: PuttSpec(ball: ball, flag: flag))).svg
        XCTAssertTrue(svg.contains("clip-path=\"url(#green-clip)\""), "shading clipped to the boundary")
        try assertRenders(svg, "bestline")
    }

    func testARollPictureRenders() throws {
        let (service, ball, flag) = try service()
        let result = try service.roll(RollRequest(course: "gen", hole: 1, ball: ball, flag: flag, aim: .offsetDeg(1), pace: .speedFps(6)))
        try assertRenders(service.rollPicture(result), "roll")
    }

    func testABookSheetRenders() throws {
        let (service, _, flag) = try service()
        let book = try service.book(BookRequest(course: "gen", hole: 1, flag: flag, spacingFt: 6), threads: 2)
        try assertRenders(service.bookPicture(book), "book")
    }
}
