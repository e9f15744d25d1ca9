import Foundation
import XCTest
@testable import PuttingCore

final class CatalogTests: XCTestCase {
    /// Writes a generated green in the original repository's layout: Hole_N/ with the heightfield in unity/.
    static func writeOriginalLayout(_ green: GeneratedGreen, number: Int, into dir: String, unity: Bool = true) throws {
        let hole = dir + "/Hole_\(number)"
        let hfDir = unity ? hole + "/unity" : hole
        try FileManager.default.createDirectory(atPath: hfDir, withIntermediateDirectories: true)
        try green.heightfield.write(jsonPath: hfDir + "/Hole_\(number)_heightfield.json")
        let width = Double(green.heightfield.nx - 1) * green.heightfield.resolutionFt
        let height = Double(green.heightfield.nz - 1) * green.heightfield.resolutionFt
        let points = green.boundary.points.map { "{\"x\": \($0.x), \"z\": \($0.z)}" }.joined(separator: ", ")
        try write("""
        {"image_w_px": 800, "image_h_px": 800, "green_width_ft": \(width), "green_height_ft": \(height), "points_xz_ft": [\(points)]}
        """, to: hole + "/Hole_\(number)_boundary.json")
        let lines = green.contours.prefix(5).map { line in
            "{\"k\": 0, \"height_ft\": \(line.heightFt), \"points_xz_ft\": [" + line.points.map { "{\"x\": \($0.x), \"z\": \($0.z)}" }.joined(separator: ",") + "]}"
        }.joined(separator: ",")
        try write("""
        {"image_w_px": 800, "image_h_px": 800, "green_width_ft": \(width), "green_height_ft": \(height), "contour_interval_ft": 0.25, "contours": [\(lines)]}
        """, to: hole + "/Hole_\(number)_contours.json")
    }

    func testImportsPresidioFlatLayoutAsIs() throws {
        let dir = try SharedData.presidioDirectory()
        let service = PuttingService(store: InMemoryPuttingStore())
        let report = try service.importCourse(CourseImportRequest(directory: dir, id: "presidio", name: "Presidio Golf Course",
                                                                  city: "San Francisco", state: "CA"))
        XCTAssertEqual(report.holes.map(\.number), Array(1...9))
        XCTAssertFalse(report.replaced)
        let hole1 = try service.hole(course: "presidio", number: 1)
        XCTAssertEqual(hole1.greenWidthFt, 102.44600597829094)
        XCTAssertEqual(hole1.greenHeightFt, 83.70511242648736)
        XCTAssertEqual(hole1.imageWidthPx, 1206)
        XCTAssertEqual(hole1.imageHeightPx, 1140)
        XCTAssertEqual(hole1.heightfield?.nx, 206)
        XCTAssertEqual(hole1.status, .imported)
        XCTAssertEqual(hole1.heightfieldHash, hole1.heightfield?.contentHash)
        XCTAssertGreaterThan(hole1.boundary?.points.count ?? 0, 20)
        XCTAssertEqual(hole1.contours.first?.heightFt, 0.0)
        XCTAssertEqual(hole1.contourIntervalFt, 0.25)
        // The config's hole location, in feet from the mean of the extents.
        let cup = try XCTUnwrap(hole1.holePosition)
        XCTAssertEqual(cup.x, 28.031, accuracy: 0.01)
        XCTAssertEqual(cup.z, -3.459, accuracy: 0.01)
        XCTAssertTrue(report.text.hasPrefix("Imported 9 holes into course presidio (Presidio Golf Course)\n  hole 1: green 102.4×83.7 ft, grid 206×169 at 0.5 ft"))
        XCTAssertEqual(try service.courses().text, "presidio  Presidio Golf Course (San Francisco, CA)  9 holes")
        // Re-import replaces, keeping the name.
        let again = try service.importCourse(CourseImportRequest(directory: dir, id: "presidio"))
        XCTAssertTrue(again.replaced)
        XCTAssertEqual(again.course.name, "Presidio Golf Course")
    }

    /// Oracle for the geodesy: the original tools computed green width/height from the config's extents
    /// with WGS84 geodesics (pyproj) and wrote them into the boundary files.
    func testGreenSizeFromExtentsMatchesTheOriginalGeodesics() throws {
        let dir = try SharedData.presidioDirectory()
        for n in 1...9 {
            let config = try CatalogImporter.readConfig(dir + "/hole_\(n)/config.json")
            let outline = try CatalogImporter.readOutline(dir + "/hole_\(n)/Hole_\(n)_boundary.json", kind: .boundary)
            let size = try XCTUnwrap(config.greenSizeFt)
            // Vincenty against the original's Karney geodesics: equal to 3 µm over 100 ft.
            XCTAssertEqual(size.width, try XCTUnwrap(outline.greenWidthFt), accuracy: 1e-5, "hole \(n)")
            XCTAssertEqual(size.height, try XCTUnwrap(outline.greenHeightFt), accuracy: 1e-5, "hole \(n)")
        }
    }

    func testImportsTheOriginalRepositoryLayoutWithUnityFolders() throws {
        let dir = try temporaryDirectory(self)
        for n in 1...2 {
            try Self.writeOriginalLayout(try GreenGenerator.procedural(seed: UInt64(n), sizeFt: 40), number: n, into: dir, unity: n == 1)
        }
        let store = InMemoryPuttingStore()
        let service = PuttingService(store: store)
        let report = try service.importCourse(CourseImportRequest(directory: dir, id: "gen"))
        XCTAssertEqual(report.holes.map(\.number), [1, 2])
        let hole = try service.hole(course: "gen", number: 1)
        XCTAssertEqual(hole.imageWidthPx, 800)
        XCTAssertEqual(hole.contours.count, 5)
        XCTAssertNil(hole.holePosition)
        XCTAssertEqual(try service.holes(course: "gen").holes.count, 2)
    }

    func testSingleHoleFromAHeightfieldFile() throws {
        let dir = try temporaryDirectory(self)
        let green = try GreenGenerator.procedural(seed: 9, sizeFt: 40)
        try green.heightfield.write(jsonPath: dir + "/g.json")
        let service = PuttingService(store: InMemoryPuttingStore())
        XCTAssertEqual(errorMessage { try service.importHole(HoleImportRequest(course: "nope", hole: 1, heightfieldPath: dir + "/g.json")) },
                       "unknown course \"nope\": list courses with `putting courses` or import one with `putting course import`")
        try service.store.replaceCourse(Course(id: "club", name: "Club"), holes: [])
        let report = try service.importHole(HoleImportRequest(course: "club", hole: 4, heightfieldPath: dir + "/g.json"))
        XCTAssertEqual(report.holes.first?.number, 4)
        XCTAssertEqual(report.holes.first?.heightfieldHash, green.heightfield.contentHash)
        XCTAssertEqual(errorMessage { try service.importHole(HoleImportRequest(course: "club", hole: 100, heightfieldPath: dir + "/g.json")) },
                       "hole number 100 is not valid: use a number from 1 to 99")
        let flat = try Heightfield(nx: 2, nz: 2, resolutionFt: 1, xMinFt: 0, zMinFt: 0, heights: [0, 0, 0, 0])
        try flat.write(jsonPath: dir + "/flat.json")
        XCTAssertEqual(errorMessage { try service.importHole(HoleImportRequest(course: "club", hole: 5, heightfieldPath: dir + "/flat.json")) },
                       "\(dir)/flat.bin: no cell is above 0, so the heightfield has no green: check the file")
    }

    func testImportErrors() throws {
        let dir = try temporaryDirectory(self)
        let service = PuttingService(store: InMemoryPuttingStore())
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "Bad Id")) },
                       "course id \"Bad Id\" is not valid: use 1–64 characters from a–z, 0–9, '-' and '_'")
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir + "/none", id: "c")) },
                       "\(dir)/none: not a directory: give the folder that holds the Hole_N (or hole_N) folders")
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "c")) },
                       "\(dir): no Hole_N or hole_N folders found: give the course folder of the original layout")
        try FileManager.default.createDirectory(atPath: dir + "/Hole_3", withIntermediateDirectories: true)
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "c")) },
                       "\(dir)/Hole_3: no *_heightfield.json found (nor in unity/), and no *_boundary.json or *_contours.json to build one from: add the files or leave the hole out")
        try FileManager.default.createDirectory(atPath: dir + "/hole_3", withIntermediateDirectories: true)
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "c")) },
                       "hole 3 appears twice (\(dir)/Hole_3 and \(dir)/hole_3): keep one folder per hole")
    }

    func testBadGreenFilesPointAtTheField() throws {
        let dir = try temporaryDirectory(self)
        let green = try GreenGenerator.procedural(seed: 3, sizeFt: 40)
        try Self.writeOriginalLayout(green, number: 1, into: dir)
        try write("{\n  \"image_w_px\": 800,\n  \"points_xz_ft\": [{\"x\": 1, \"z\": 2}, {\"x\": \"3\", \"z\": 4}]\n}",
                  to: dir + "/Hole_1/Hole_1_boundary.json")
        let service = PuttingService(store: InMemoryPuttingStore())
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "c")) },
                       "\(dir)/Hole_1/Hole_1_boundary.json:3:44: points_xz_ft[1].x must be a number, found a string")
        try write("{\"extents\": {\"north\": {\"lat\": 137.0, \"lon\": 1}}}", to: dir + "/Hole_1/config.json")
        XCTAssertEqual(errorMessage { try CatalogImporter.readConfig(dir + "/Hole_1/config.json") },
                       "\(dir)/Hole_1/config.json:1:31: extents.north.lat is 137.0: a latitude lies in −90…90")
        try write("{\"contours\": [}", to: dir + "/Hole_1/Hole_1_contours.json")
        XCTAssertTrue(errorMessage { try CatalogImporter.readOutline(dir + "/Hole_1/Hole_1_contours.json", kind: .contours) }
            .hasPrefix("\(dir)/Hole_1/Hole_1_contours.json:1:15: invalid JSON: "))
    }

    /// Issue 30: every number of a course folder is checked against a plausible range in feet, named by
    /// file:line:column (a contour interval of 1e-308 made `putting render` stop the process).
    func testNumbersOutsideThePlausibleRangeAreRefused() throws {
        let dir = try temporaryDirectory(self)
        enum Kind { case config, contours, boundary }
        let cases: [(Kind, String, String)] = [
            (.config, "{\"contour_interval_ft\": 1e308}",
             "1:25: contour_interval_ft is 1e+308 ft: outside the plausible 0.001…1000.0 ft; check the file's units"),
            (.contours, "{\"contours\": [], \"contour_interval_ft\": 1e-308}",
             "1:41: contour_interval_ft is 1e-308 ft: outside the plausible 0.001…1000.0 ft; check the file's units"),
            (.contours, "{\"contours\": [{\"height_ft\": -1e308, \"points_xz_ft\": []}]}",
             "1:29: contours[0].height_ft is -1e+308 ft: outside the plausible -100000.0…100000.0 ft; check the file's units"),
            (.boundary, "{\"points_xz_ft\": [{\"x\": 1, \"z\": 99999999999999999999}]}",
             "1:33: points_xz_ft[0].z is 1e+20 ft: outside the plausible -20000.0…20000.0 ft; check the file's units"),
            (.boundary, "{\"image_w_px\": 1000000, \"points_xz_ft\": []}", "1:16: image_w_px is 1000000 px: outside the plausible 1…100000 px"),
            (.boundary, "{\"green_width_ft\": 1e308, \"points_xz_ft\": []}",
             "1:20: green_width_ft is 1e+308 ft: outside the plausible 0.001…20000.0 ft; check the file's units"),
        ]
        for (kind, text, expected) in cases {
            let path = dir + "/f.json"
            try write(text, to: path)
            let message = errorMessage {
                switch kind {
                case .config: _ = try CatalogImporter.readConfig(path)
                case .contours: _ = try CatalogImporter.readOutline(path, kind: .contours)
                case .boundary: _ = try CatalogImporter.readOutline(path, kind: .boundary)
                }
            }
            XCTAssertEqual(message, "\(path):" + expected)
        }
        // Tiny and negative-zero coordinates are numbers in range.
        try write("{\"points_xz_ft\": [{\"x\": 1e-308, \"z\": -0}, {\"x\": 1, \"z\": 0}, {\"x\": 0, \"z\": 1}]}", to: dir + "/b.json")
        XCTAssertEqual(try CatalogImporter.readOutline(dir + "/b.json", kind: .boundary).boundary?.points.count, 3)
    }

    func testAHeightfieldOfAnotherGreenIsInconsistent() throws {
        let dir = try temporaryDirectory(self)
        try Self.writeOriginalLayout(try GreenGenerator.procedural(seed: 3, sizeFt: 40), number: 1, into: dir)
        // Swap in a small plane: its grid no longer spans the green the boundary file describes.
        let plane = try GreenGenerator.plane(widthFt: 10, depthFt: 10)
        try plane.write(jsonPath: dir + "/Hole_1/unity/Hole_1_heightfield.json")
        let message = errorMessage { try CatalogImporter.readCourse(directory: dir, courseID: "c") }
        XCTAssertTrue(message.hasPrefix("\(dir)/Hole_1/unity/Hole_1_heightfield.json: grid spans 10×10 ft from (-5, -5) but the green is "), message)
        XCTAssertTrue(message.hasSuffix("ft centred on 0: the heightfield does not belong to this hole"), message)
    }

    func testAFailedImportWritesNothing() throws {
        let dir = try temporaryDirectory(self)
        try Self.writeOriginalLayout(try GreenGenerator.procedural(seed: 1, sizeFt: 40), number: 1, into: dir)
        try Self.writeOriginalLayout(try GreenGenerator.procedural(seed: 2, sizeFt: 40), number: 2, into: dir)
        try write(Array((try GreenGenerator.procedural(seed: 2, sizeFt: 40)).heightfield.binaryData().dropLast(4)),
                  to: dir + "/Hole_2/unity/Hole_2_heightfield.bin")
        let store = InMemoryPuttingStore()
        let service = PuttingService(store: store)
        XCTAssertTrue(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "c")) }.contains("does not match its .json"))
        XCTAssertEqual(try store.courses(), [])
        // A storage failure during the write leaves nothing either.
        try Self.writeOriginalLayout(try GreenGenerator.procedural(seed: 2, sizeFt: 40), number: 2, into: dir)
        store.failNextWrite = "disk full"
        XCTAssertEqual(errorMessage { try service.importCourse(CourseImportRequest(directory: dir, id: "c")) }, "putting storage: disk full")
        XCTAssertEqual(try store.courses(), [])
        XCTAssertEqual(try service.importCourse(CourseImportRequest(directory: dir, id: "c")).holes.count, 2)
    }

    func testPixelFrameFollowsTheOriginalHelpers() {
        let frame = PixelFrame(imageWidthPx: 1206, imageHeightPx: 1140, greenWidthFt: 102.44600597829094, greenHeightFt: 83.70511242648736)
        XCTAssertEqual(frame.feet(u: 603, v: 570), PointFt(x: 0, z: 0))
        let corner = frame.feet(u: 0, v: 0)
        XCTAssertEqual(corner.x, -102.44600597829094 / 2, accuracy: 1e-12)
        XCTAssertEqual(corner.z, 83.70511242648736 / 2, accuracy: 1e-12)
        // The frontend's formula: x = (u/W − 0.5)·greenW, z = (0.5 − v/H)·greenH.
        let p = frame.feet(u: 900, v: 200)
        XCTAssertEqual(p.x, (900.0 / 1206 - 0.5) * 102.44600597829094, accuracy: 1e-9)
        XCTAssertEqual(p.z, (0.5 - 200.0 / 1140) * 83.70511242648736, accuracy: 1e-9)
        let back = frame.pixel(p)
        XCTAssertEqual(back.u, 900, accuracy: 1e-9)
        XCTAssertEqual(back.v, 200, accuracy: 1e-9)
        let half = frame.scaled(toWidthPx: 603, heightPx: 570)
        XCTAssertEqual(half.pixel(p).u, 450, accuracy: 1e-9)
    }
}
