// Every error a user can cause in the processing step, with the exact line they read.
import XCTest
@testable import PuttingCore

final class ProcessingErrorTests: XCTestCase {
    private let square = [(-6.0, -5.0), (6.0, -5.0), (6.0, 5.0), (-6.0, 5.0)]

    private func error(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> GreenProcessingError? {
        do {
            try body()
            XCTFail("expected an error", file: file, line: line)
            return nil
        } catch let error as GreenProcessingError {
            return error
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
            return nil
        }
    }

    private func check(_ kind: GreenProcessingError.Kind, _ message: String, file: StaticString = #filePath, line: UInt = #line,
                       _ body: () throws -> Void) {
        guard let e = error(body, file: file, line: line) else { return }
        XCTAssertEqual(e.kind, kind, file: file, line: line)
        XCTAssertEqual(e.description, message, file: file, line: line)
    }

    private func parseContours(_ text: String) throws {
        _ = try TracedContours.parse(text, file: "Hole_3_contours.json")
    }

    private func parseBoundary(_ text: String) throws {
        _ = try TracedBoundary.parse(text, file: "Hole_3_boundary.json")
    }

    // MARK: - files

    func testBrokenJSONNamesLineAndColumn() {
        check(.syntax, "Hole_3_contours.json:3:1: unexpected end of input inside an object; expected a key") {
            try parseContours("{\n  \"green_width_ft\": 20,\n")
        }
    }

    func testNaNLiteralIsRefusedWhereItStands() {
        let text = ProcessingFixture.contoursJSON(contours: [(0, 0, [(1, 1), (2, 2)])]).replacingOccurrences(of: "\"x\": 2.0", with: "\"x\": NaN")
        check(.syntax, "Hole_3_contours.json:11:15: NaN is not a JSON number; every coordinate and height must be a finite number") {
            try parseContours(text)
        }
    }

    func testOverflowingNumberIsNotFinite() {
        let text = ProcessingFixture.boundaryJSON(points: square).replacingOccurrences(of: "\"z\": 5.0}", with: "\"z\": 1e400}")
        check(.notFinite, "Hole_3_boundary.json:7:21: /points_xz_ft/2/z is 1e400, which is not a finite double; write a finite number") {
            try parseBoundary(text)
        }
    }

    func testMissingAndMistypedMembers() {
        check(.schema, "Hole_3_boundary.json:1:1: the document has no \"green_height_ft\"; expected a number of feet") {
            try parseBoundary("{\"green_width_ft\": 20, \"points_xz_ft\": []}")
        }
        check(.schema, "Hole_3_boundary.json:1:1: the document is an array; expected an object") {
            try parseBoundary("[]")
        }
        let text = ProcessingFixture.contoursJSON(contours: [(0, 0, [(1, 1), (2, 2)])]).replacingOccurrences(of: "\"x\": 1.0", with: "\"x\": \"1.0\"")
        check(.schema, "Hole_3_contours.json:10:15: /contours/0/points_xz_ft/0/x is a string; expected a number") {
            try parseContours(text)
        }
        check(.schema, "Hole_3_contours.json:1:1: the document has no \"contours\"; expected an array") {
            try parseContours("{\"green_width_ft\": 20, \"green_height_ft\": 16}")
        }
        check(.schema, "Hole_3_contours.json:1:66: /contours/0/k is a string; expected an integer") {
            try parseContours("{\"green_width_ft\": 20, \"green_height_ft\": 16, \"contours\": [{\"k\": \"0\", \"height_ft\": 0, \"points_xz_ft\": []}]}")
        }
    }

    // MARK: - contours

    func testContourWithOnePointIsRefused() {
        let text = ProcessingFixture.contoursJSON(contours: [(0, 0, [(1, 1), (2, 2)]), (1, 0.25, [(3, 3)])])
        check(.tooFewPoints, "Hole_3_contours.json:17:23: contour 1 (height 0.25 ft) has 1 point; a contour needs at least 2 — retrace it or remove it") {
            try parseContours(text)
        }
    }

    func testNoContourIsRefused() {
        check(.tooFewPoints, "Hole_3_contours.json:1:59: the contours file has no contour; trace at least one contour line") {
            try parseContours("{\"green_width_ft\": 20, \"green_height_ft\": 16, \"contours\": []}")
        }
    }

    func testContourPointOutsideTheGridIsRefused() {
        // The 20 ft wide grid spans x −10 … 10 (numpy's 41 nodes), z −8 … 8.
        let text = ProcessingFixture.contoursJSON(contours: [(0, 0, [(1, 1), (10.75, 2)])])
        check(.outsideGrid, "Hole_3_contours.json:11:9: contour 0 (height 0.0 ft) point 1 (x 10.75, z 2.0) lies outside the grid (x -10.0…10.0, z -8.0…8.0 ft); check green_width_ft/green_height_ft or retrace the contour") {
            try parseContours(text)
        }
    }

    func testNonFiniteValuesBuiltInCodeAreRefused() {
        let nanPoint = ProcessingFixture.contours([(0, 0, [(1, 1), (.nan, 2)])])
        check(.notFinite, "contour 0 (height 0.0 ft) point 1 is (nan, 2.0); every coordinate must be a finite number of feet") {
            try nanPoint.validate()
        }
        let nanHeight = ProcessingFixture.contours([(0, .infinity, [(1, 1), (2, 2)])])
        check(.notFinite, "contour 0 (height inf ft) has height inf; a height must be a finite number of feet") {
            try nanHeight.validate()
        }
        let nanBoundary = ProcessingFixture.boundary([(0, 0), (1, .nan), (1, 1)])
        check(.notFinite, "boundary point 1 is (1.0, nan); every coordinate must be a finite number of feet") {
            try nanBoundary.validate()
        }
        check(.notFinite, "green_width_ft is nan; it must be a finite number of feet") {
            try ProcessingFixture.boundary(square, width: .nan).validate()
        }
        check(.greenSize, "Hole_3_contours.json:3:22: green_height_ft is 30000.0 ft; it must be above 0 and at most 20000 ft") {
            try parseContours(ProcessingFixture.contoursJSON(height: 30000, contours: [(0, 0, [(1, 1), (2, 2)])]))
        }
    }

    // MARK: - boundary

    func testBoundaryNeedsThreeDistinctPoints() {
        check(.tooFewPoints, "Hole_3_boundary.json:4:19: the boundary has 2 distinct points; an outline needs at least 3") {
            try parseBoundary(ProcessingFixture.boundaryJSON(points: [(0, 0), (1, 1), (1, 1), (0, 0)]))
        }
    }

    func testSelfCrossingBoundaryIsRefusedAtTheFirstEdge() {
        // A bow tie: edge 0→1 crosses edge 2→3 at (0, 0).
        check(.boundaryNotSimple, "Hole_3_boundary.json:5:5: the boundary is not a simple polygon: edge 0→1 meets edge 2→3 near (x 0.0, z 0.0); retrace the outline so it does not cross or touch itself") {
            try parseBoundary(ProcessingFixture.boundaryJSON(points: [(-4, -4), (4, 4), (4, -4), (-4, 4)]))
        }
    }

    func testBoundaryTouchingItselfIsRefused() {
        // Vertex 4 (0, −3) lies on edge 0→1.
        check(.boundaryNotSimple, "Hole_3_boundary.json:5:5: the boundary is not a simple polygon: edge 0→1 meets edge 3→4 near (x 0.0, z -3.0); retrace the outline so it does not cross or touch itself") {
            try parseBoundary(ProcessingFixture.boundaryJSON(points: [(-4, -3), (4, -3), (4, 3), (2, 3), (0, -3), (-4, 3)]))
        }
        // A spike: edge 2→3 runs back over edge 1→2.
        check(.boundaryNotSimple, "Hole_3_boundary.json:6:5: the boundary is not a simple polygon: edge 1→2 meets edge 2→3 near (x 4.0, z 4.0); retrace the outline so it does not cross or touch itself") {
            try parseBoundary(ProcessingFixture.boundaryJSON(points: [(-4, -4), (4, -4), (4, 4), (4, 0), (-4, 4)]))
        }
    }

    func testFlatBoundaryFoldsBackOnItself() {
        check(.boundaryNotSimple, "Hole_3_boundary.json:5:5: the boundary is not a simple polygon: edge 0→1 meets edge 2→0 near (x -4.0, z 0.0); retrace the outline so it does not cross or touch itself") {
            try parseBoundary(ProcessingFixture.boundaryJSON(points: [(-4, 0), (0, 0), (4, 0)]))
        }
    }

    func testAClosingVertexAndRepeatedVerticesAreAccepted() throws {
        let closed = try TracedBoundary.parse(ProcessingFixture.boundaryJSON(points: square + [square[0]]), file: "b.json")
        XCTAssertEqual(closed.points.count, 5)
        let repeated = ProcessingFixture.boundary([square[0], square[1], square[1], square[2], square[3]])
        XCTAssertNoThrow(try repeated.validate())
    }

    // MARK: - green size and limits

    func testGreenSizeMustBePositiveAndAgree() {
        check(.greenSize, "Hole_3_boundary.json:2:21: green_width_ft is 0.0 ft; it must be above 0 and at most 20000 ft") {
            try parseBoundary(ProcessingFixture.boundaryJSON(width: 0, points: square))
        }
        let boundary = ProcessingFixture.boundary(square, width: 20)
        let contours = ProcessingFixture.contours(ProcessingFixture.planeContours, width: 21)
        check(.greenSize, "the boundary says the green is 20.0 × 16.0 ft but the contours say 21.0 × 16.0 ft; export both from the same traced image") {
            _ = try GreenProcessor.process(boundary: boundary, contours: contours)
        }
    }

    func testLimitsOnSamplesAndNodes() {
        let boundary = ProcessingFixture.boundary(square)
        let contours = ProcessingFixture.contours(ProcessingFixture.planeContours)
        let count = ContourSamples.count(of: contours.contours)
        check(.tooLarge, "the contours give \(count) samples, more than the limit of 10 (one per foot of contour); simplify or shorten the contours") {
            _ = try GreenProcessor.process(boundary: boundary, contours: contours, options: ProcessingOptions(maxSamples: 10))
        }
        check(.tooLarge, "the grid would have 41 × 33 nodes, more than the limit of 1000; use a coarser resolution") {
            _ = try GreenProcessor.process(boundary: boundary, contours: contours, options: ProcessingOptions(maxNodes: 1000))
        }
    }

    func testBoundaryWithTooManyPoints() {
        let many = ProcessingFixture.polygon(radius: 7, sides: TracedBoundary.maxPoints + 1)
        check(.tooLarge, "the boundary has 20001 points, more than the limit of 20000; simplify the outline") {
            try ProcessingFixture.boundary(many).validate()
        }
    }

    func testOptionsOutsideTheirRange() {
        let boundary = ProcessingFixture.boundary(square)
        let contours = ProcessingFixture.contours(ProcessingFixture.planeContours)
        check(.greenSize, "the grid resolution is 0.0 ft; use at least 0.01 ft (the original uses 0.5)") {
            _ = try GreenProcessor.process(boundary: boundary, contours: contours, options: ProcessingOptions(resolutionFt: 0))
        }
        check(.illConditioned, "the smoothing is -1.0; use a finite value ≥ 0 (the original uses 0.25)") {
            _ = try GreenProcessor.process(boundary: boundary, contours: contours, options: ProcessingOptions(smoothing: -1))
        }
    }

    // MARK: - the system

    func testSamplesOnOneLineLeaveTheTiltUndetermined() {
        let boundary = ProcessingFixture.boundary(square)
        let straight = ProcessingFixture.contours([(0, 0, [(-5, -2), (0, 0)]), (1, 0.25, [(5, 2), (7.5, 3)])])
        check(.illConditioned, "the contour samples lie on one line, so the surface's tilt across it is undetermined; trace contours that span the green in two directions") {
            _ = try GreenProcessor.process(boundary: boundary, contours: straight)
        }
    }

    func testTooFewSamples() {
        let short = ProcessingFixture.contours([(0, 0, [(0, 0), (0.5, 0)])])
        check(.illConditioned, "the contours give 2 samples; a surface needs at least 3 not on one line — trace more contour") {
            _ = try GreenProcessor.process(boundary: ProcessingFixture.boundary(square), contours: short)
        }
    }

    func testCoincidentSamplesAtDifferentHeightsWithoutSmoothing() {
        // Two contours through the same points at different heights: with λ = 0 the system is singular.
        let crossing = ProcessingFixture.contours([(0, 0, [(-4, -3), (4, -3), (4, 3)]), (1, 0.25, [(-4, -3), (4, -3), (4, 3)])])
        check(.illConditioned, "the interpolation system is not positive definite (pivot 13 of 27); samples repeat at different heights or the smoothing is 0 — check for crossing or duplicated contours") {
            _ = try GreenProcessor.process(boundary: ProcessingFixture.boundary(square), contours: crossing, options: ProcessingOptions(smoothing: 0))
        }
    }

    func testNearlyCoincidentSamplesMakeAnIllConditionedSystem() {
        // The same polyline 1e-6 ft apart at two heights, without smoothing.
        let near = ProcessingFixture.contours([(0, 0, [(-4, -3), (4, -3), (4, 3)]), (1, 0.25, [(-4, -3 + 1e-6), (4, -3 + 1e-6), (4, 3 + 1e-6)])])
        check(.illConditioned, "the interpolation system is ill-conditioned (estimated condition number 1.6e13, limit 1e12); check for nearly coincident samples at different heights") {
            _ = try GreenProcessor.process(boundary: ProcessingFixture.boundary(square), contours: near, options: ProcessingOptions(smoothing: 0))
        }
        XCTAssertEqual(ThinPlateSpline.scientific(9.96e5), "1e6")
        XCTAssertEqual(ThinPlateSpline.scientific(2.34e-3), "2.3e-3")
    }

    func testHeightsBeyondAHundredThousandFeet() {
        let text = ProcessingFixture.contoursJSON(contours: [(0, 0, [(-4, -3), (4, -3)]), (1, 2e5, [(-4, 3), (4, 3)])])
        check(.heightOutOfRange, "Hole_3_contours.json:16:20: contour 1 (height 200000.0 ft) lies beyond ±100000 ft; heights are in feet — check the file's units") {
            try parseContours(text)
        }
    }

    func testNonFiniteSurfaceOrCoefficientsAreRefused() {
        // Unreachable through validated input (heights ≤ 1e5 ft, points on the grid); the guards stay.
        check(.illConditioned, "the interpolation produced non-finite coefficients; check the contour heights and coordinates") {
            _ = try ThinPlateSpline.fit(x: [-4, 4, -4, 5], z: [-3, -3, 3, 0], values: [-1.7e308, -1.7e308, 1.7e308, 1.7e308], smoothing: 0.25)
        }
        check(.illConditioned, "the surface is not finite inside the boundary (node 1); check the contour heights") {
            _ = try GreenProcessor.shiftedToZero([1, 1e300, 3], mask: [true, true, false], minimum: 0)
        }
        XCTAssertEqual(try GreenProcessor.shiftedToZero([1, 2.5, 3], mask: [true, true, false], minimum: 1), [0, 1.5, 0])
    }

    func testBoundaryAroundNoNode() {
        // A small triangle between the nodes at x 0 / 0.5 and z 0 / 0.5.
        let tiny = ProcessingFixture.boundary([(0.1, 0.1), (0.4, 0.1), (0.25, 0.4)])
        check(.emptyMask, "no grid node lies inside the boundary; check that the boundary and the contours use the same frame") {
            _ = try GreenProcessor.process(boundary: tiny, contours: ProcessingFixture.contours(ProcessingFixture.planeContours))
        }
    }
}
