import XCTest
@testable import PuttingCore

/// Issue 20, Why 11: a green picture is framed on the green — not on the original map's frame, which
/// cut greens at its edge and left a band of empty grid below others.
final class PictureFrameTests: XCTestCase {
    func testTheMapIsFramedOnTheGreenWithASmallMargin() throws {
        let green = try GreenGenerator.procedural(seed: 11, sizeFt: 50)
        // The hole's map frame (as a catalog would give it) is far larger than the green, and off centre.
        let hole = Hole(courseID: "gen", number: 1, greenWidthFt: 90, greenHeightFt: 140, holePosition: green.hole,
                        heightfield: green.heightfield, boundary: green.boundary, contours: green.contours, contourIntervalFt: 0.25)
        let picture = PuttingService.picture(of: hole, result: nil, widthPx: 900, contours: true, shading: true)
        let boundary = try XCTUnwrap(green.boundary).points
        let pixels = boundary.map { picture.pixel($0) }
        let width = picture.frame.imageWidthPx, height = picture.frame.imageHeightPx
        let margin = 2 * width / picture.frame.greenWidthFt   // 2 ft in pixels
        let us = pixels.map(\.u), vs = pixels.map(\.v)
        XCTAssertGreaterThanOrEqual(us.min() ?? -1, 0)
        XCTAssertLessThanOrEqual(us.max() ?? .infinity, width)
        XCTAssertGreaterThanOrEqual(vs.min() ?? -1, 0)
        XCTAssertLessThanOrEqual(vs.max() ?? .infinity, height)
        // Nothing but the margin (and the shaded cells' half width) is empty on any side.
        let slack = margin + picture.heightfield.resolutionFt * width / picture.frame.greenWidthFt + 1
        XCTAssertLessThanOrEqual(us.min() ?? .infinity, slack)
        XCTAssertGreaterThanOrEqual(us.max() ?? 0, width - slack)
        XCTAssertLessThanOrEqual(vs.min() ?? .infinity, slack)
        XCTAssertGreaterThanOrEqual(vs.max() ?? 0, height - slack)
        // The SVG draws at that frame: its size is the cropped map plus the legend.
        XCTAssertTrue(picture.svg().contains("width=\"900\""))
    }
}
