// `putting roll` and `putting book` through the built `clubhouse` binary on the real Presidio greens.

import ClubhouseJSON
import Foundation
import XCTest

final class PuttingEndToEndRollAndBookTests: XCTestCase {
    private let ball = "0.4926911974398753,-5.874042977297358"
    private let flag = "14.254094985568514,-4.302736929024233"

    private func importPresidio(_ c: Clubhouse) throws {
        let dir = try Clubhouse.requireSharedData("putting/presidio")
        try c.succeed(["putting", "course", "import", dir.path, "--id", "presidio"])
    }

    func testRollingTheBestLinesStrokeReproducesItAndWritesPictures() throws {
        let c = try Clubhouse()
        try importPresidio(c)
        let putt = ["--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag]
        let best = try XCTUnwrap(try c.succeed(["putting", "bestline"] + putt + ["--json"]).json()["bestLine"])
        XCTAssertEqual(best["holeable"], .bool(true))
        let p = try XCTUnwrap(best["makeProbability"]?.doubleValue)
        XCTAssertTrue((0.01...0.99).contains(p), "\(p)")
        let aim = try XCTUnwrap(best["aimOffsetDeg"]?.doubleValue), speed = try XCTUnwrap(best["speedFps"]?.doubleValue)
        let svg = c.path("roll.svg"), gltf = c.path("roll.gltf")
        // Seventeen significant digits give the same doubles back.
        let roll = try c.succeed(["putting", "roll"] + putt + ["--aim", "\(aim)", "--speed", "\(speed)", "--svg", svg, "--out", gltf,
                                                            "--json"]).json()
        let r = try XCTUnwrap(roll["roll"])
        XCTAssertEqual(r["holed"], .bool(true))
        XCTAssertEqual(r["tEndS"], best["tEndS"])
        XCTAssertEqual(r["pathXFt"], best["pathXFt"])
        XCTAssertEqual(try XCTUnwrap(r["makeProbability"]?.doubleValue), p, accuracy: 1e-9)
        XCTAssertEqual(roll["svg"], .string(svg))
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(picture.contains("your stroke on a 13.9 ft putt"))
        XCTAssertTrue(picture.contains("id=\"path\""))
        XCTAssertEqual(try JSONParser.parse(try String(contentsOfFile: gltf, encoding: .utf8))["asset"]?["version"], "2.0")

        // A short pace straight at the hole on this putt: text says where it stopped.
        let text = try c.succeed(["putting", "roll"] + putt + ["--aim", "0", "--pace", "-3"]).stdout
        XCTAssertTrue(text.hasPrefix("Roll on presidio hole 1: 13.9 ft putt at stimp 10\n  stroke 0.00° at "), text)
        XCTAssertTrue(text.contains("  missed: "), text)
        XCTAssertTrue(text.contains("% of the time with a PGA Tour player's stroke (aim ±1.46°, speed ±5.8%)"), text)
    }

    func testRollErrorsNameTheLimit() throws {
        let c = try Clubhouse()
        try importPresidio(c)
        let putt = ["putting", "roll", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag]
        try c.fail(putt + ["--speed", "5"], exitCode: 2,
                   contains: ["say where the stroke goes: --aim DEG (from the line to the hole, positive = left) or --aim-point X,Z"])
        try c.fail(putt + ["--aim", "2", "--aim-point", "3,3", "--speed", "5"], exitCode: 2, contains: ["give either --aim or --aim-point, not both"])
        try c.fail(putt + ["--aim", "2"], exitCode: 2,
                   contains: ["say how hard: --speed FT/S (launch speed) or --pace FT (feet past the hole on flat ground)"])
        try c.fail(putt + ["--aim", "2", "--speed", "5", "--pace", "2"], exitCode: 2, contains: ["give either --speed or --pace, not both"])
        try c.fail(putt + ["--aim", "95", "--speed", "5"], exitCode: 2,
                   contains: ["aim 95 is out of range: it must be within ±90 degrees of the line to the hole (positive = left)"])
        try c.fail(putt + ["--aim", "0", "--speed", "0"], exitCode: 2,
                   contains: ["speed 0 is out of range: it must be above 0 and at most 30 ft/s"])
        try c.fail(putt + ["--aim", "0", "--speed", "250"], exitCode: 2,
                   contains: ["speed 250 is out of range: it must be above 0 and at most 30 ft/s"])
        try c.fail(putt + ["--aim", "0", "--pace", "400"], exitCode: 2, contains: ["pace 400 is out of range"])
        try c.fail(putt + ["--aim", "0", "--speed", "5", "--out", c.path("x.stl")], exitCode: 2, contains: ["unknown mesh format"])
    }

    func testBookWritesTheSheetJSONAndCSVAndGoesOnFromTheCache() throws {
        let c = try Clubhouse()
        try importPresidio(c)
        let svg = c.path("book.svg"), csv = c.path("book.csv"), json = c.path("book.json")
        let args = ["putting", "book", "--course", "presidio", "--hole", "2", "--flag", "7.22,-9.19", "--spacing", "12"]
        let first = try c.succeed(args + ["--svg", svg, "--csv", csv, "--json-file", json, "--json"]).json()
        let book = try XCTUnwrap(first["book"])
        let n = try XCTUnwrap(book["positions"]?.intValue)
        XCTAssertGreaterThan(n, 5)
        XCTAssertEqual(book["cached"]?.intValue, 0)
        XCTAssertEqual(book["entries"]?.arrayValue?.count, n)
        XCTAssertEqual(try JSONParser.parse(try String(contentsOfFile: json, encoding: .utf8))["book"]?["entries"], book["entries"])
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(rows.count, n + 1)
        XCTAssertTrue(rows.first?.hasPrefix("x_ft,z_ft,distance_ft,aim_offset_deg") ?? false)
        let sheet = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(sheet.contains("id=\"book\"") && sheet.contains("green book for the pin at (7.2, -9.2) ft"))
        // The second run takes every position from the cache.
        let text = try c.succeed(args).stdout
        XCTAssertTrue(text.contains("\(n) positions 12 ft apart (\(n) from the cache)"), text)
    }

    func testBookErrorsNameTheLimit() throws {
        let c = try Clubhouse()
        try importPresidio(c)
        let args = ["putting", "book", "--course", "presidio", "--hole", "2"]
        try c.fail(args + ["--flag", "7.22,-9.19", "--spacing", "0"], exitCode: 2,
                   contains: ["grid spacing 0 is out of range: it must be above 0 ft (3 ft is usual)"])
        try c.fail(args + ["--flag", "7.22,-9.19", "--spacing", "0.05"], exitCode: 2,
                   contains: ["grid spacing 0.05 ft gives about ", "positions on this green, more than the limit of 20000: use --spacing "])
        try c.fail(args + ["--flag", "0,90"], exitCode: 2, contains: ["flag (0, 90) is outside the green of presidio hole 2"])
        let svg = c.path("none.svg")
        try c.fail(args + ["--flag", "7.22,-9.19", "--width", "50", "--svg", svg], exitCode: 2, contains: ["--width 50 must be 300–8000 pixels"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: svg))
    }
}
