// Holes built from their traced contours and boundary, through the catalog: import keeps the traced
// files (a hole without a heightfield is "source only"), `hole process` builds and stores the
// heightfield all or nothing, `hole export` writes it back in the original format, and bad traced
// files are refused with their line and column before anything is stored. The oracle: a thin-plate
// spline with a linear term reproduces a plane, so a green traced from a plane's level lines must
// come out as that plane shifted to 0.
import Foundation
import XCTest
@testable import PuttingCore

final class HoleProcessingTests: XCTestCase {
    private let outline = ProcessingFixture.polygon(radius: 6, sides: 12)

    private var planeBoundary: String { ProcessingFixture.boundaryJSON(points: outline) }
    private var planeContours: String { ProcessingFixture.contoursJSON(contours: ProcessingFixture.planeContours) }
    /// Two straight contours on one line: the spline's tilt across it is undetermined.
    private var collinearContours: String {
        ProcessingFixture.contoursJSON(contours: [(0, 0, [(-5, -2), (0, 0)]), (1, 0.25, [(5, 2), (7.5, 3)])])
    }

    /// Writes `hole_N/` with whichever files are given.
    private func writeHole(_ dir: String, _ number: Int, boundary: String?, contours: String?, heightfield: Heightfield? = nil) throws {
        let folder = dir + "/hole_\(number)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let boundary { try write(boundary, to: folder + "/Hole_\(number)_boundary.json") }
        if let contours { try write(contours, to: folder + "/Hole_\(number)_contours.json") }
        if let heightfield { try heightfield.write(jsonPath: folder + "/Hole_\(number)_heightfield.json") }
    }

    private func notProcessed(_ course: String, _ hole: Int) -> String {
        "\(course) hole \(hole) has no heightfield yet (only its traced contours and boundary): build it with `clubhouse putting hole process --course \(course) --hole \(hole)`"
    }

    func testASourceOnlyHoleIsProcessedStoredAndExported() throws {
        let dir = try temporaryDirectory(self)
        try writeHole(dir, 1, boundary: planeBoundary, contours: planeContours)
        let service = PuttingService(store: InMemoryPuttingStore())
        let report = try service.importCourse(CourseImportRequest(directory: dir, id: "traced"))
        XCTAssertEqual(report.holes.map(\.status), [.sourceOnly])
        let listing = try service.holes(course: "traced")
        XCTAssertEqual(listing.text, "traced  traced\n  hole 1: green 20.0×16.0 ft, boundary, 3 contours, source only: build its heightfield with `putting hole process --course traced --hole 1`")
        let row = try XCTUnwrap(listing.json["holes"]?.arrayValue?.first)
        XCTAssertEqual(row["status"], "source-only")
        XCTAssertEqual(row["grid"], .null)
        XCTAssertEqual(row["heightfieldHash"], .null)
        XCTAssertEqual(row["traced"], .bool(true))
        let stored = try service.hole(course: "traced", number: 1)
        XCTAssertEqual(stored.traced?.contoursText, planeContours, "the traced file is kept verbatim")
        XCTAssertEqual(stored.traced?.boundaryFile, dir + "/hole_1/Hole_1_boundary.json")

        // Nothing to putt on yet: each command says so and how to process it.
        let request = BestLineRequest(course: "traced", hole: 1, ball: PointFt(x: -2, z: 0), flag: PointFt(x: 2, z: 0))
        XCTAssertEqual(errorMessage { try service.bestLine(request) }, notProcessed("traced", 1))
        XCTAssertEqual(errorMessage { try service.mesh(MeshRequest(course: "traced", hole: 1)) }, notProcessed("traced", 1))
        XCTAssertEqual(errorMessage { try service.exportHole(course: "traced", number: 1) }, notProcessed("traced", 1))

        var fractions: [Double] = []
        let processed = try service.processHoles(HoleProcessRequest(course: "traced", hole: 1)) { fractions.append($0) }
        XCTAssertEqual(fractions.last, 1)
        XCTAssertEqual(fractions, fractions.sorted(), "progress only grows")
        XCTAssertEqual(processed.processed.map(\.previous), [.sourceOnly])
        let hole = try service.hole(course: "traced", number: 1)
        XCTAssertEqual(hole.status, .processed)
        let hf = try XCTUnwrap(hole.heightfield)
        XCTAssertEqual(hole.heightfieldHash, hf.contentHash)
        let hash = try XCTUnwrap(hole.heightfieldHash)
        XCTAssertEqual(processed.text, "Processed traced hole 1: \(processed.processed[0].summary); hash \(hash.prefix(12))")

        // The same as the processing step run directly on the files, and the plane it was traced from.
        let direct = try GreenProcessor.process(boundaryJSON: planeBoundary, boundaryFile: "b", contoursJSON: planeContours, contoursFile: "c")
        XCTAssertEqual(hf.heights, direct.grid.heights)
        XCTAssertEqual([hf.nx, hf.nz], [41, 33])
        var lowest = Double.infinity
        for k in direct.grid.mask.indices where direct.grid.mask[k] {
            lowest = min(lowest, ProcessingFixture.plane(hf.xFt(column: k % hf.nx), hf.zFt(row: k / hf.nx)))
        }
        var inside = 0
        for k in direct.grid.mask.indices {
            let expected = direct.grid.mask[k] ? ProcessingFixture.plane(hf.xFt(column: k % hf.nx), hf.zFt(row: k / hf.nx)) - lowest : 0
            XCTAssertEqual(Double(hf.heights[k]), expected, accuracy: 1e-5)
            if direct.grid.mask[k] { inside += 1 }
        }
        XCTAssertGreaterThan(inside, 300)

        let export = try service.exportHole(course: "traced", number: 1)
        XCTAssertEqual(export.files.map(\.name), ["Hole_1_heightfield.json", "Hole_1_heightfield.bin"])
        XCTAssertEqual(export.files.map(\.bytes), direct.grid.files(hole: 1).map(\.bytes))
        XCTAssertEqual(export.text(directory: "out"),
                       "Wrote Hole_1_heightfield.json (\(export.files[0].bytes.count) bytes) and Hole_1_heightfield.bin (\(4 * 41 * 33) bytes) to out: traced hole 1, processed heightfield, hash \(hash.prefix(12))")
        // Read back by the importer: the same heightfield, the same hash.
        for file in export.files { try write(file.bytes, to: dir + "/" + file.name) }
        XCTAssertEqual(try Heightfield.read(jsonPath: dir + "/Hole_1_heightfield.json"), hf)

        XCTAssertEqual(try service.holes(course: "traced").text,
                       "traced  traced\n  hole 1: green 20.0×16.0 ft, grid 41×33 at 0.5 ft, boundary, 3 contours, processed, hash \(hash.prefix(12))")
        guard case .result(let line, cached: false) = try service.bestLine(request) else { return XCTFail("expected a result") }
        XCTAssertEqual(line.heightfieldHash, hash)
    }

    func testProcessingEveryHoleIsAllOrNothing() throws {
        let dir = try temporaryDirectory(self)
        try writeHole(dir, 1, boundary: planeBoundary, contours: planeContours)
        try writeHole(dir, 2, boundary: planeBoundary, contours: collinearContours)
        let plane = try GreenGenerator.plane(widthFt: 20, depthFt: 16)
        try writeHole(dir, 3, boundary: planeBoundary, contours: planeContours, heightfield: plane)
        let store = InMemoryPuttingStore()
        let service = PuttingService(store: store)
        let imported = try service.importCourse(CourseImportRequest(directory: dir, id: "mixed"))
        XCTAssertEqual(imported.holes.map(\.status), [.sourceOnly, .sourceOnly, .imported])
        XCTAssertEqual(imported.holes.map(\.traced), [true, true, true])

        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "mixed", all: true)) },
                       "mixed hole 2: the contour samples lie on one line, so the surface's tilt across it is undetermined; trace contours that span the green in two directions")
        XCTAssertEqual(try service.holes(course: "mixed").holes.map(\.status), [.sourceOnly, .sourceOnly, .imported],
                       "hole 1 was processed before hole 2 failed, but nothing is stored")
        store.failNextWrite = "disk full"
        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "mixed", hole: 1)) }, "putting storage: disk full")
        XCTAssertEqual(try service.hole(course: "mixed", number: 1).status, .sourceOnly)

        let one = try service.processHoles(HoleProcessRequest(course: "mixed", hole: 1))
        XCTAssertEqual(one.processed.map(\.hole.number), [1])
        XCTAssertEqual(try service.holes(course: "mixed").holes.map(\.status), [.processed, .sourceOnly, .imported])

        // An imported hole with traced files can be processed too; its heightfield is replaced.
        let importedHash = try XCTUnwrap(try service.hole(course: "mixed", number: 3).heightfieldHash)
        let replaced = try service.processHoles(HoleProcessRequest(course: "mixed", hole: 3))
        XCTAssertEqual(replaced.processed.map(\.previous), [.imported])
        XCTAssertTrue(replaced.text.hasPrefix("Processed mixed hole 3 (replacing its imported heightfield): heightfield 41 × 33 nodes"), replaced.text)
        let three = try service.hole(course: "mixed", number: 3)
        XCTAssertEqual(three.status, .processed)
        XCTAssertNotEqual(three.heightfieldHash, importedHash)
        XCTAssertEqual(three.heightfield, try service.hole(course: "mixed", number: 1).heightfield, "same traced files, same green")

        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "mixed", hole: 1, all: true)) },
                       "give either hole N or all, not both")
        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "mixed")) },
                       "say which hole to process: hole N, or all for every hole that has no heightfield yet")
        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "nope", all: true)) },
                       "unknown course \"nope\": list courses with `putting courses` or import one with `putting course import`")
        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "mixed", hole: 9)) },
                       "course \"mixed\" has no hole 9: list its holes with `putting holes mixed`")
        try plane.write(jsonPath: dir + "/plane.json")
        _ = try service.importHole(HoleImportRequest(course: "mixed", hole: 4, heightfieldPath: dir + "/plane.json"))
        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "mixed", hole: 4)) },
                       "mixed hole 4 has no traced contours and boundary to build a heightfield from: re-import its folder with Hole_4_boundary.json and Hole_4_contours.json")

        // --all leaves holes with a heightfield alone, and says when there is nothing to do.
        let good = try temporaryDirectory(self)
        try writeHole(good, 1, boundary: planeBoundary, contours: planeContours)
        try writeHole(good, 2, boundary: planeBoundary, contours: planeContours, heightfield: plane)
        _ = try service.importCourse(CourseImportRequest(directory: good, id: "good"))
        let all = try service.processHoles(HoleProcessRequest(course: "good", all: true))
        XCTAssertEqual(all.processed.map(\.hole.number), [1])
        XCTAssertEqual(all.skipped, [2])
        XCTAssertTrue(all.text.hasSuffix("\nLeft as they were (they have a heightfield): hole 2"), all.text)
        let nothing = try service.processHoles(HoleProcessRequest(course: "good", all: true))
        XCTAssertEqual(nothing.text, "Nothing to process in good: every hole has a heightfield (process one again with `putting hole process --course good --hole N`)")
        XCTAssertEqual(nothing.skipped, [1, 2])
    }

    func testImportWithProcessBuildsTheMissingHeightfieldsOrStoresNothing() throws {
        let dir = try temporaryDirectory(self)
        try writeHole(dir, 1, boundary: planeBoundary, contours: planeContours)
        let plane = try GreenGenerator.plane(widthFt: 20, depthFt: 16)
        try writeHole(dir, 2, boundary: planeBoundary, contours: planeContours, heightfield: plane)
        let store = InMemoryPuttingStore()
        let service = PuttingService(store: store)
        var fractions: [Double] = []
        let report = try service.importCourse(CourseImportRequest(directory: dir, id: "built", process: true)) { fractions.append($0) }
        XCTAssertEqual(report.holes.map(\.status), [.processed, .imported])
        XCTAssertEqual(report.processed.map(\.hole.number), [1])
        XCTAssertEqual(fractions.last, 1)
        XCTAssertTrue(report.text.contains("\nProcessed hole 1: heightfield 41 × 33 nodes at 0.5 ft"), report.text)
        XCTAssertEqual(report.json["processed"]?.arrayValue?.compactMap(\.intValue), [1])

        // --sources-only ignores the heightfield files.
        let traced = try service.importCourse(CourseImportRequest(directory: dir, id: "traced", sourcesOnly: true))
        XCTAssertEqual(traced.holes.map(\.status), [.sourceOnly, .sourceOnly])
        let rebuilt = try service.importCourse(CourseImportRequest(directory: dir, id: "rebuilt", process: true, sourcesOnly: true))
        XCTAssertEqual(rebuilt.holes.map(\.status), [.processed, .processed])
        XCTAssertEqual(rebuilt.holes[0].heightfieldHash, report.holes[0].heightfieldHash)

        // One hole that cannot be processed: the import stores nothing, and an existing course is kept.
        try writeHole(dir, 3, boundary: planeBoundary, contours: collinearContours)
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "built", process: true)) },
                       "built hole 3: the contour samples lie on one line, so the surface's tilt across it is undetermined; trace contours that span the green in two directions")
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "fresh", process: true)) },
                       "fresh hole 3: the contour samples lie on one line, so the surface's tilt across it is undetermined; trace contours that span the green in two directions")
        XCTAssertEqual(try store.courses().map(\.id), ["built", "rebuilt", "traced"])
        XCTAssertEqual(try service.holes(course: "built").holes.map(\.number), [1, 2])
        // Without --process the same folder imports, hole 3 waiting as source only.
        XCTAssertEqual(try service.importCourse(CourseImportRequest(directory: dir, id: "fresh")).holes.map(\.status),
                       [.sourceOnly, .imported, .sourceOnly])
    }

    func testHoleFoldersWithoutTheFilesToBuildAGreen() throws {
        let dir = try temporaryDirectory(self)
        let service = PuttingService(store: InMemoryPuttingStore())
        try writeHole(dir, 1, boundary: planeBoundary, contours: nil)
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "c")) },
                       "\(dir)/hole_1: no *_heightfield.json found (nor in unity/), and no *_contours.json to build one from: add the files or leave the hole out")
        try FileManager.default.removeItem(atPath: dir + "/hole_1")
        try writeHole(dir, 1, boundary: nil, contours: planeContours, heightfield: try GreenGenerator.plane(widthFt: 20, depthFt: 16))
        XCTAssertEqual(try service.importCourse(CourseImportRequest(directory: dir, id: "c")).holes.map(\.traced), [false])
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "c", sourcesOnly: true)) },
                       "\(dir)/hole_1: no *_boundary.json found: sources-only builds each green from its *_boundary.json and *_contours.json; add the file or leave the hole out")
    }

    /// Every bad traced file a hole depends on is refused at import with its file, line and column,
    /// and nothing is stored.
    func testBadTracedFilesAreRefusedWithTheirLocation() throws {
        let dir = try temporaryDirectory(self)
        let store = InMemoryPuttingStore()
        let service = PuttingService(store: store)
        let contours = dir + "/hole_1/Hole_1_contours.json", boundary = dir + "/hole_1/Hole_1_boundary.json"
        let cases: [(boundary: String, contours: String, message: String)] = [
            (planeBoundary, ProcessingFixture.contoursJSON(contours: [(0, 0, [(1, 1), (2, 2)]), (1, 0.25, [(3, 3)])]),
             "\(contours):17:23: contour 1 (height 0.25 ft) has 1 point; a contour needs at least 2 — retrace it or remove it"),
            (planeBoundary, ProcessingFixture.contoursJSON(contours: [(0, 0, [(1, 1), (2, 2)])]).replacingOccurrences(of: "\"x\": 2.0", with: "\"x\": NaN"),
             "\(contours):11:15: NaN is not a JSON number; every coordinate and height must be a finite number"),
            (ProcessingFixture.boundaryJSON(points: [(-4, -4), (4, 4), (4, -4), (-4, 4)]), planeContours,
             "\(boundary):5:5: the boundary is not a simple polygon: edge 0→1 meets edge 2→3 near (x 0.0, z 0.0); retrace the outline so it does not cross or touch itself"),
            (planeBoundary, ProcessingFixture.contoursJSON(contours: [(0, 0, [(1, 1), (10.75, 2)])]),
             "\(contours):11:9: contour 0 (height 0.0 ft) point 1 (x 10.75, z 2.0) lies outside the grid (x -10.0…10.0, z -8.0…8.0 ft); check green_width_ft/green_height_ft or retrace the contour"),
            (ProcessingFixture.boundaryJSON(width: 21, points: outline), planeContours,
             "\(boundary):1:1: the boundary says the green is 21.0 × 16.0 ft but the contours say 20.0 × 16.0 ft; export both from the same traced image"),
        ]
        for (b, c, message) in cases {
            try writeHole(dir, 1, boundary: b, contours: c)
            XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "bad")) }, message)
            XCTAssertEqual(try store.courses(), [])
        }
    }

    func testPicturesOfTracedGreens() throws {
        let dir = try temporaryDirectory(self)
        try writeHole(dir, 1, boundary: planeBoundary, contours: planeContours)
        let service = PuttingService(store: InMemoryPuttingStore())
        _ = try service.importCourse(CourseImportRequest(directory: dir, id: "traced"))
        // Before processing: the traced lines alone, and how to build the green.
        let sources = try service.render(RenderRequest(course: "traced", hole: 1)).svg
        XCTAssertFalse(sources.contains("id=\"shading\""))
        XCTAssertTrue(sources.contains("id=\"boundary\""))
        XCTAssertEqual(sources.components(separatedBy: "<polyline stroke-width").count - 1, 3, "the three traced contours")
        XCTAssertTrue(sources.contains("Build the heightfield with `putting hole process --course traced --hole 1`"))
        XCTAssertFalse(try service.render(RenderRequest(course: "traced", hole: 1, boundary: false)).svg.contains("id=\"boundary\""))
        // After: the traced contours and boundary over the shading.
        _ = try service.processHoles(HoleProcessRequest(course: "traced", hole: 1))
        let processed = try service.render(RenderRequest(course: "traced", hole: 1)).svg
        for id in ["shading", "contours", "boundary"] { XCTAssertTrue(processed.contains("id=\"\(id)\""), id) }
        XCTAssertEqual(processed.components(separatedBy: "<polyline stroke-width").count - 1, 3)
        let traced = try service.hole(course: "traced", number: 1).contours
        for line in traced {
            XCTAssertTrue(processed.contains("<title>\(fixed(line.heightFt, 2)) ft</title>"), "contour at \(line.heightFt) ft")
        }
    }

    func testAStopBeforeAHoleStoresNothing() throws {
        let dir = try temporaryDirectory(self)
        try writeHole(dir, 1, boundary: planeBoundary, contours: planeContours)
        try writeHole(dir, 2, boundary: planeBoundary, contours: planeContours)
        let service = PuttingService(store: InMemoryPuttingStore())
        _ = try service.importCourse(CourseImportRequest(directory: dir, id: "stop"))
        var asked = 0
        let stopAfterOne = { () -> Bool in
            asked += 1
            return asked > 1
        }
        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "stop", all: true), isCancelled: stopAfterOne) },
                       "stopped before processing stop hole 2 as asked: nothing was stored")
        XCTAssertEqual(try service.holes(course: "stop").holes.map(\.status), [.sourceOnly, .sourceOnly])
        asked = 0
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "other", process: true), isCancelled: stopAfterOne) },
                       "stopped before processing other hole 2 as asked: nothing was stored")
        XCTAssertNil(try service.store.course(id: "other"))
    }

    func testTracedFilesWrittenByTheProjectReadBackExactly() throws {
        let boundary = ProcessingFixture.boundary([(0.1, -2.5), (3, 4.000000000000001), (-1e-7, 0)])
        let contours = TracedContours(greenWidthFt: 20, greenHeightFt: 16,
                                      contours: [TracedContour(k: 3, heightFt: 0.75, points: [TracedPoint(x: 1.0 / 3, z: -7.9), TracedPoint(x: 2, z: 2)]),
                                                 TracedContour(heightFt: 1, points: [TracedPoint(x: -9.99, z: 0), TracedPoint(x: 0, z: 0.1)])],
                                      contourIntervalFt: 0.25, imagePath: "green \"A\".png", imageWidthPx: 800, imageHeightPx: 600)
        let b = try TracedBoundary.parse(boundary.fileText, file: "b.json")
        XCTAssertEqual(b.points, boundary.points)
        XCTAssertEqual([b.greenWidthFt, b.greenHeightFt], [20, 16])
        let c = try TracedContours.parse(contours.fileText, file: "c.json")
        XCTAssertEqual(c.contours, contours.contours)
        XCTAssertEqual(c.contourIntervalFt, 0.25)
        XCTAssertEqual(c.imagePath, "green \"A\".png")
        XCTAssertEqual([c.imageWidthPx, c.imageHeightPx], [800, 600])
    }

    /// The demo's extra green: generated traced files, processed, close to the surface they were
    /// traced from, and the same green again when its files are imported like a user's.
    func testTheDemoRebuildsAGreenFromItsGeneratedTracedFiles() throws {
        let service = PuttingService(store: InMemoryPuttingStore())
        let demo = try service.demo(count: 1, seed: 7)
        let traced = try XCTUnwrap(demo.traced)
        XCTAssertEqual(traced.processing.hole.number, 2)
        XCTAssertEqual(try service.holes(course: "demo").holes.map(\.status), [.imported, .processed])
        XCTAssertLessThan(traced.rmsFt, 0.02, "a smooth surface rebuilt from contours 0.1 ft apart")
        XCTAssertGreaterThan(traced.rmsFt, 0, "the spline is not the generator's surface")
        XCTAssertEqual(demo.results.map(\.hole), [1, 1, 2])
        XCTAssertEqual(demo.files.map(\.name).filter { $0.contains("traced") },
                       ["demo-traced/hole_2/Hole_2_boundary.json", "demo-traced/hole_2/Hole_2_contours.json", "demo-hole-2-traced.svg"])
        let svg = try XCTUnwrap(demo.files.first { $0.name == "demo-hole-2-traced.svg" }?.contents)
        for id in ["shading", "contours", "boundary", "path"] { XCTAssertTrue(svg.contains("id=\"\(id)\""), id) }

        let dir = try temporaryDirectory(self)
        for file in demo.files where file.name.hasSuffix(".json") {
            try FileManager.default.createDirectory(atPath: dir + "/" + (file.name as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try write(file.contents, to: dir + "/" + file.name)
        }
        let again = try service.importCourse(CourseImportRequest(directory: dir + "/demo-traced", id: "again", process: true))
        XCTAssertEqual(again.holes.first?.heightfieldHash, traced.processing.hole.heightfieldHash)
    }

    /// The lowest inside node is 0 by construction and 0 means "off the green": a boundary around one
    /// node would leave no green at all.
    func testAGreenWithNothingAboveZeroIsRefused() throws {
        let dir = try temporaryDirectory(self)
        try writeHole(dir, 1, boundary: ProcessingFixture.boundaryJSON(points: [(-0.2, -0.2), (0.2, -0.2), (0.2, 0.2), (-0.2, 0.2)]),
                      contours: planeContours)
        let service = PuttingService(store: InMemoryPuttingStore())
        _ = try service.importCourse(CourseImportRequest(directory: dir, id: "dot"))
        XCTAssertEqual(errorMessage { try service.processHoles(HoleProcessRequest(course: "dot", hole: 1)) },
                       "\(dir)/hole_1/Hole_1_boundary.json:4:19: every node inside the boundary ends at height 0, which the heightfield format reads as off the green (1 node inside); trace a boundary around the whole green and contours at two or more heights")
        XCTAssertEqual(try service.hole(course: "dot", number: 1).status, .sourceOnly)
        // Level contours: the spline is level to rounding (heights of order 1e-16 above the lowest node),
        // which the format still reads as green.
        let level = ProcessingFixture.contoursJSON(contours: [(4, 1, [(-6, -5), (6, -5)]), (4, 1, [(-6, 5), (6, 5)])])
        try writeHole(dir, 2, boundary: planeBoundary, contours: level)
        _ = try service.importCourse(CourseImportRequest(directory: dir, id: "level"))
        let report = try service.processHoles(HoleProcessRequest(course: "level", hole: 2))
        let heights = try XCTUnwrap(report.processed.first?.hole.heightfield?.heights)
        XCTAssertLessThan(heights.max() ?? 1, 1e-9, "a level green stays level")
        XCTAssertGreaterThan(heights.filter { $0 > 0 }.count, 300)
    }
}
