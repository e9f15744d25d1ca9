// Greens built from their traced contours and boundary, through the built `clubhouse` binary: a
// Presidio hole imported without its heightfield, processed, exported and compared with the file
// the original pipeline shipped; a generated green processed at import; and every bad traced input
// refused with its file, line and column while nothing is stored.

import ClubhouseJSON
import Foundation
import XCTest

final class PuttingProcessEndToEndTests: XCTestCase {
    // MARK: traced files made here (the layout puts one point per line, so errors have stable places)

    private typealias Contour = (k: Int, height: Double, points: [(Double, Double)])

    private func contoursJSON(width: Double = 20, height: Double = 16, _ contours: [Contour]) -> String {
        var lines = ["{", "  \"green_width_ft\": \(width),", "  \"green_height_ft\": \(height),",
                     "  \"contour_interval_ft\": 0.25,", "  \"contours\": ["]
        for (c, contour) in contours.enumerated() {
            lines += ["    {", "      \"k\": \(contour.k),", "      \"height_ft\": \(contour.height),", "      \"points_xz_ft\": ["]
            for (i, p) in contour.points.enumerated() {
                lines.append("        {\"x\": \(p.0), \"z\": \(p.1)}" + (i + 1 < contour.points.count ? "," : ""))
            }
            lines += ["      ]", "    }" + (c + 1 < contours.count ? "," : "")]
        }
        return (lines + ["  ]", "}"]).joined(separator: "\n")
    }

    private func boundaryJSON(width: Double = 20, height: Double = 16, _ points: [(Double, Double)]) -> String {
        var lines = ["{", "  \"green_width_ft\": \(width),", "  \"green_height_ft\": \(height),", "  \"points_xz_ft\": ["]
        for (i, p) in points.enumerated() {
            lines.append("    {\"x\": \(p.0), \"z\": \(p.1)}" + (i + 1 < points.count ? "," : ""))
        }
        return (lines + ["  ]", "}"]).joined(separator: "\n")
    }

    /// A 12-sided outline of radius 6 ft around the centre.
    private let outline: [(Double, Double)] = (0..<12).map { i in
        let t = 0.1 + 2 * Double.pi * Double(i) / 12
        return (6 * cos(t), 6 * sin(t))
    }

    /// The plane the generated green is traced from, and its level lines at 0.75, 1.0 and 1.25 ft.
    private func plane(_ x: Double, _ z: Double) -> Double { 1 + 0.05 * x + 0.02 * z }
    private var planeContours: [Contour] {
        [0.75, 1.0, 1.25].enumerated().map { k, h in
            (k: k + 3, height: h, points: [-6.0, 0.5, 6.0].map { z in ((h - 1 - 0.02 * z) / 0.05, z) })
        }
    }

    /// Writes `NAME/hole_1/` with a boundary and contours (no heightfield) and returns the course folder.
    private func writeTracedCourse(_ c: Clubhouse, _ name: String, boundary: String, contours: String) throws -> String {
        try c.write("\(name)/hole_1/Hole_1_boundary.json", boundary)
        try c.write("\(name)/hole_1/Hole_1_contours.json", contours)
        return c.path(name)
    }

    private func floats(_ data: Data) -> [Float] {
        data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
    }

    private func status(_ c: Clubhouse, _ course: String) throws -> [String] {
        try c.succeed(["putting", "holes", course, "--json"]).json()["holes"]?.arrayValue?.compactMap { $0["status"]?.stringValue } ?? []
    }

    // MARK: tests

    func testPresidioHoleRebuiltFromItsTracedContoursMatchesTheShippedHeightfield() throws {
        let c = try Clubhouse()
        let dir = try Clubhouse.requireSharedData("putting/presidio")
        // Keep the traced contours and boundaries, ignore the shipped heightfields.
        let imported = try c.succeed(["putting", "course", "import", dir.path, "--id", "presidio", "--sources-only", "--json"]).json()
        XCTAssertEqual(imported["holes"]?.arrayValue?.compactMap { $0["status"]?.stringValue }, Array(repeating: "source-only", count: 9))
        XCTAssertEqual(imported["holes"]?.arrayValue?.first?["heightfieldHash"], .null)
        let listing = try c.succeed(["putting", "holes", "presidio"]).stdout
        XCTAssertTrue(listing.contains("  hole 2: green "), listing)
        XCTAssertTrue(listing.contains(" contours, source only: build its heightfield with `putting hole process --course presidio --hole 2`\n"), listing)

        let unprocessed = "presidio hole 2 has no heightfield yet (only its traced contours and boundary): build it with `clubhouse putting hole process --course presidio --hole 2`"
        try c.fail(["putting", "bestline", "--course", "presidio", "--hole", "2", "--ball", "0,0", "--flag", "8,-3"], contains: [unprocessed])
        try c.fail(["putting", "hole", "export", "--course", "presidio", "--hole", "2", "--out", c.path("early")], contains: [unprocessed])
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("early")))

        // Hole 2 is the smallest (202 contour samples): processed here in a debug build in well under a second.
        let processed = try c.succeed(["putting", "hole", "process", "--course", "presidio", "--hole", "2", "--json"]).json()
        let hole = try XCTUnwrap(processed["holes"]?.arrayValue?.first)
        XCTAssertEqual(hole["status"], "processed")
        XCTAssertEqual(hole["previous"], "source-only")
        XCTAssertEqual(hole["processing"]?["samples"]?.intValue, 202)
        let hash = try XCTUnwrap(hole["heightfieldHash"]?.stringValue)
        XCTAssertEqual(hash.count, 64)
        let holes = try c.succeed(["putting", "holes", "presidio", "--json"]).json()["holes"]?.arrayValue ?? []
        XCTAssertEqual(holes.map { $0["status"]?.stringValue ?? "" }, ["source-only", "processed"] + Array(repeating: "source-only", count: 7))
        XCTAssertEqual(holes[1]["heightfieldHash"]?.stringValue, hash)
        XCTAssertTrue(try c.succeed(["putting", "holes", "presidio"]).stdout.contains(", processed, hash \(hash.prefix(12))\n"))

        let out = c.path("export")
        let exported = try c.succeed(["putting", "hole", "export", "--course", "presidio", "--hole", "2", "--out", out, "--json"]).json()
        XCTAssertEqual(exported["heightfieldHash"]?.stringValue, hash)
        let ours = try Data(contentsOf: URL(fileURLWithPath: out + "/Hole_2_heightfield.bin"))
        let shipped = try Data(contentsOf: dir.appendingPathComponent("hole_2/Hole_2_heightfield.bin"))
        XCTAssertEqual(ours.count, shipped.count, "same grid size")
        XCTAssertEqual(try String(contentsOfFile: out + "/Hole_2_heightfield.json", encoding: .utf8),
                       try String(contentsOf: dir.appendingPathComponent("hole_2/Hole_2_heightfield.json"), encoding: .utf8))
        let a = floats(ours), b = floats(shipped)
        var worst: Float = 0, inside = 0
        for k in 0..<min(a.count, b.count) {
            worst = max(worst, abs(a[k] - b[k]))
            if b[k] != 0 { inside += 1 }
            XCTAssertEqual(a[k] == 0, b[k] == 0, "cell \(k): on the green in one file only")
        }
        XCTAssertLessThanOrEqual(worst, 1e-5, "largest difference to the shipped heights")
        XCTAssertGreaterThan(inside, 1000)

        // The rebuilt green is putted on like an imported one.
        let line = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "2", "--ball", "0,0", "--flag", "8,-3", "--json"]).json()
        XCTAssertEqual(line["bestLine"]?["heightfieldHash"]?.stringValue, hash)
        XCTAssertEqual(line["bestLine"]?["holed"], .bool(true))

        // A hole still source only is drawn from its traced lines.
        let svg = c.path("hole3.svg")
        try c.succeed(["putting", "render", "--course", "presidio", "--hole", "3", "--svg", svg])
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(text.contains("id=\"contours\"") && text.contains("id=\"boundary\""))
        XCTAssertFalse(text.contains("id=\"shading\""))
    }

    func testAGreenTracedFromAPlaneIsProcessedAtImportAndExportedAsThatPlane() throws {
        let c = try Clubhouse()
        let dir = try writeTracedCourse(c, "plane", boundary: boundaryJSON(outline), contours: contoursJSON(planeContours))
        let imported = try c.succeed(["putting", "course", "import", dir, "--id", "plane", "--process"])
        XCTAssertTrue(imported.stdout.contains("\nProcessed hole 1: heightfield 41 × 33 nodes at 0.5 ft"), imported.stdout)
        XCTAssertEqual(try status(c, "plane"), ["processed"])
        let again = try c.succeed(["putting", "hole", "process", "--course", "plane", "--all"]).stdout
        XCTAssertEqual(again, "Nothing to process in plane: every hole has a heightfield (process one again with `putting hole process --course plane --hole N`)\n")

        let out = c.path("out")
        let text = try c.succeed(["putting", "hole", "export", "--course", "plane", "--hole", "1", "--out", out]).stdout
        XCTAssertTrue(text.hasPrefix("Wrote Hole_1_heightfield.json ("), text)
        let grid = try JSONParser.parse(try String(contentsOfFile: out + "/Hole_1_heightfield.json", encoding: .utf8))["grid"]
        XCTAssertEqual(grid?["nx"]?.intValue, 41)
        XCTAssertEqual(grid?["nz"]?.intValue, 33)
        XCTAssertEqual(grid?["x_min_ft"]?.doubleValue, -10)
        let heights = floats(try Data(contentsOf: URL(fileURLWithPath: out + "/Hole_1_heightfield.bin")))
        XCTAssertEqual(heights.count, 41 * 33)
        guard heights.count == 41 * 33 else { return }
        // Oracle: the spline reproduces a plane, so inside nodes hold the plane minus its lowest inside value.
        func strictlyInside(_ x: Double, _ z: Double) -> Bool {
            var inside = false
            for i in outline.indices {
                let (ax, az) = outline[i], (bx, bz) = outline[(i + outline.count - 1) % outline.count]
                if (az > z) != (bz > z), x < ax + (z - az) / (bz - az) * (bx - ax) { inside.toggle() }
            }
            return inside
        }
        let nodes: [(x: Double, z: Double)] = (0..<heights.count).map { (k: Int) -> (x: Double, z: Double) in
            let x: Double = -10 + 0.5 * Double(k % 41)
            let z: Double = -8 + 0.5 * Double(k / 41)
            return (x, z)
        }
        let lowest = nodes.filter { strictlyInside($0.x, $0.z) }.map { plane($0.x, $0.z) }.min() ?? 0
        for (k, node) in nodes.enumerated() {
            let expected = strictlyInside(node.x, node.z) ? plane(node.x, node.z) - lowest : 0
            XCTAssertEqual(Double(heights[k]), expected, accuracy: 1e-5, "node \(k)")
        }
    }

    func testBadTracedInputIsRefusedWithItsPlaceAndNothingIsStored() throws {
        let c = try Clubhouse()
        let good = boundaryJSON(outline), contours = contoursJSON(planeContours)
        let cases: [(name: String, boundary: String, contours: String, message: String)] = [
            ("one-point", good, contoursJSON([(0, 0, [(1, 1), (2, 2)]), (1, 0.25, [(3, 3)])]),
             "one-point/hole_1/Hole_1_contours.json:17:23: contour 1 (height 0.25 ft) has 1 point; a contour needs at least 2 — retrace it or remove it"),
            ("nan", good, contoursJSON([(0, 0, [(1, 1), (2, 2)])]).replacingOccurrences(of: "\"x\": 2.0", with: "\"x\": NaN"),
             "nan/hole_1/Hole_1_contours.json:11:15: NaN is not a JSON number; every coordinate and height must be a finite number"),
            ("bow-tie", boundaryJSON([(-4, -4), (4, 4), (4, -4), (-4, 4)]), contours,
             "bow-tie/hole_1/Hole_1_boundary.json:5:5: the boundary is not a simple polygon: edge 0→1 meets edge 2→3 near (x 0.0, z 0.0); retrace the outline so it does not cross or touch itself"),
            ("off-grid", good, contoursJSON([(0, 0, [(1, 1), (10.75, 2)])]),
             "off-grid/hole_1/Hole_1_contours.json:11:9: contour 0 (height 0.0 ft) point 1 (x 10.75, z 2.0) lies outside the grid (x -10.0…10.0, z -8.0…8.0 ft); check green_width_ft/green_height_ft or retrace the contour"),
        ]
        for bad in cases {
            let dir = try writeTracedCourse(c, bad.name, boundary: bad.boundary, contours: bad.contours)
            try c.fail(["putting", "course", "import", dir, "--id", "bad"], exitCode: 2, contains: [bad.message])
            XCTAssertEqual(try c.succeed(["putting", "courses", "--json"]).json()["courses"]?.arrayValue?.count, 0, bad.name)
        }

        // Samples on one line: the files are fine, the system is not. Import keeps them (source only);
        // processing fails and stores nothing, with or without --process at import.
        let line = try writeTracedCourse(c, "line", boundary: good, contours: contoursJSON([(0, 0, [(-5, -2), (0, 0)]), (1, 0.25, [(5, 2), (7.5, 3)])]))
        let illConditioned = "the contour samples lie on one line, so the surface's tilt across it is undetermined; trace contours that span the green in two directions"
        try c.fail(["putting", "course", "import", line, "--id", "line", "--process"], exitCode: 2, contains: ["line hole 1: " + illConditioned])
        XCTAssertEqual(try c.succeed(["putting", "courses", "--json"]).json()["courses"]?.arrayValue?.count, 0)
        try c.succeed(["putting", "course", "import", line, "--id", "line"])
        try c.fail(["putting", "hole", "process", "--course", "line", "--hole", "1"], exitCode: 2, contains: ["line hole 1: " + illConditioned])
        try c.fail(["putting", "hole", "process", "--course", "line", "--all"], exitCode: 2, contains: ["line hole 1: " + illConditioned])
        XCTAssertEqual(try status(c, "line"), ["source-only"])

        try c.fail(["putting", "hole", "process", "--course", "line"], exitCode: 2,
                   contains: ["say which hole to process: --hole N, or --all for every hole that has no heightfield yet"])
        try c.fail(["putting", "hole", "process", "--course", "line", "--hole", "1", "--all"], exitCode: 2,
                   contains: ["give either --hole N or --all, not both"])
        try c.fail(["putting", "hole", "process", "--course", "nowhere", "--all"], exitCode: 2, contains: ["unknown course \"nowhere\""])

        // A hole folder with neither a heightfield nor both traced files.
        try c.write("half/hole_1/Hole_1_boundary.json", good)
        try c.fail(["putting", "course", "import", c.path("half"), "--id", "half"], exitCode: 2,
                   contains: ["half/hole_1: no *_heightfield.json found (nor in unity/), and no *_contours.json to build one from: add the files or leave the hole out"])
        XCTAssertEqual(try c.succeed(["putting", "courses", "--json"]).json()["courses"]?.arrayValue?.count, 1)
    }
}
