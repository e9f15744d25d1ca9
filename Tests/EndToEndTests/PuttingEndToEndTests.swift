// The putting plugin as a user meets it through the built `clubhouse` binary: importing the
// Presidio greens as they are, the original answer reproduced by the compat model, the physics
// best line with its windows and cache, asynchronous jobs run in the background, pictures, the
// demo, and the errors a user can cause.

import ClubhouseJSON
import Foundation
import XCTest

final class PuttingEndToEndTests: XCTestCase {
    /// The original service's putt on hole 1.
    private let ball = "0.4926911974398753,-5.874042977297358"
    private let flag = "14.254094985568514,-4.302736929024233"

    private func importPresidio(_ c: Clubhouse) throws -> URL {
        let dir = try Clubhouse.requireSharedData("putting/presidio")
        try c.succeed(["putting", "course", "import", dir.path, "--id", "presidio", "--name", "Presidio Golf Course",
                       "--city", "San Francisco", "--state", "CA"])
        return dir
    }

    /// A 20×10 ft plane heightfield (rising 2 % to +x) written as the original .json + .bin pair.
    private func writePlane(_ c: Clubhouse, name: String, dropBytes: Int = 0) throws -> String {
        let nx = 41, nz = 21
        let json = """
            {"units": {"x": "ft", "z": "ft", "y": "ft"},
             "grid": {"nx": \(nx), "nz": \(nz), "resolution_ft": 0.5, "x_min_ft": -10.0, "z_min_ft": -5.0}}
            """
        let path = try c.write(name + ".json", json)
        var bytes: [UInt8] = []
        for _ in 0..<nz {
            for i in 0..<nx {
                let h = Float(1.0 + 0.02 * (-10.0 + 0.5 * Double(i)))
                withUnsafeBytes(of: h.bitPattern.littleEndian) { bytes += $0 }
            }
        }
        try Data(bytes.dropLast(dropBytes)).write(to: URL(fileURLWithPath: c.path(name + ".bin")))
        return path
    }

    func testImportListAndTheOriginalAnswerReproduced() throws {
        let c = try Clubhouse()
        let dir = try importPresidio(c)
        XCTAssertEqual(try c.succeed(["putting", "courses"]).stdout, "presidio  Presidio Golf Course (San Francisco, CA)  9 holes\n")
        let holes = try c.succeed(["putting", "holes", "presidio", "--json"]).json()
        XCTAssertEqual(holes["holes"]?.arrayValue?.count, 9)
        XCTAssertEqual(holes["holes"]?.arrayValue?.first?["grid"]?["nx"]?.intValue, 206)

        let result = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag,
                                    "--model", "compat", "--json"]).json()
        let expected = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("hole_1/Hole_1_bestline.json"), encoding: .utf8))
        let ours = try XCTUnwrap(result["bestLine"]?.objectValue)
        for (key, value) in try XCTUnwrap(expected["bestLine"]?.objectValue) {
            switch value {
            case .number(let n): XCTAssertEqual(ours[key]?.doubleValue, n.double, key)
            case .bool(let b): XCTAssertEqual(ours[key]?.boolValue, b, key)
            case .array(let a): XCTAssertEqual(ours[key]?.arrayValue?.map(\.doubleValue), a.map(\.doubleValue), key)
            default: XCTFail("unexpected field \(key)")
            }
        }
        let text = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag,
                                  "--model", "compat"]).stdout
        XCTAssertTrue(text.hasPrefix("Best line (compat) on presidio hole 1: 13.9 ft putt at stimp 10\n  aim    30.00° left"), text)
        XCTAssertTrue(text.contains("(from the cache)"), "the second run is served from the cache:\n\(text)")
    }

    func testPhysicsBestLineWithWindowsAndCache() throws {
        let c = try Clubhouse()
        _ = try importPresidio(c)
        let first = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag, "--json"]).json()
        let line = try XCTUnwrap(first["bestLine"])
        XCTAssertEqual(line["model"], "physics")
        XCTAssertEqual(line["holed"], .bool(true))
        XCTAssertEqual(line["converged"], .bool(true))
        XCTAssertEqual(first["cached"], .bool(false))
        let aim = try XCTUnwrap(line["aimOffsetDeg"]?.doubleValue)
        let window = try XCTUnwrap(line["tolerance"])
        XCTAssertLessThan(try XCTUnwrap(window["aimMinDeg"]?.doubleValue), aim)
        XCTAssertGreaterThan(try XCTUnwrap(window["aimMaxDeg"]?.doubleValue), aim)
        XCTAssertGreaterThan(line["pathXFt"]?.arrayValue?.count ?? 0, 100)
        let second = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag, "--json"]).json()
        XCTAssertEqual(second["cached"], .bool(true))
        XCTAssertEqual(second["bestLine"], first["bestLine"])
        let fresh = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag,
                                   "--no-cache", "--json"]).json()
        XCTAssertEqual(fresh["cached"], .bool(false))
        // Another finish distance is another content key.
        let longer = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag,
                                    "--past-in", "30", "--json"]).json()
        XCTAssertEqual(longer["cached"], .bool(false))
        XCTAssertGreaterThan(longer["bestLine"]?["speedFps"]?.doubleValue ?? 0, line["speedFps"]?.doubleValue ?? 0)
    }

    func testSkillLevelsFromTheCommandLineAndTheSite() throws {
        // The default golfer is the PGA Tour level; --skill picks another level; a site picks its own with config `skill`.
        let c = try Clubhouse()
        _ = try importPresidio(c)
        let putt = ["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag]
        let tour = try c.succeed(putt + ["--json"]).json()["bestLine"]
        XCTAssertEqual(tour?["strokeErrors"]?["skill"], "tour")
        XCTAssertEqual(tour?["numericallyUnstable"], .bool(false))
        let twenty = try c.succeed(putt + ["--skill", "20", "--json"]).json()
        XCTAssertEqual(twenty["cached"], .bool(false), "another golfer is another content key")
        XCTAssertEqual(twenty["bestLine"]?["strokeErrors"]?["skill"], "20")
        XCTAssertLessThan(try XCTUnwrap(twenty["bestLine"]?["makeProbability"]?.doubleValue),
                          try XCTUnwrap(tour?["makeProbability"]?.doubleValue))
        XCTAssertTrue(try c.succeed(putt + ["--skill", "scratch"]).stdout.contains("of the time with a scratch golfer's stroke (aim ±1.47°"))
        try c.fail(putt + ["--skill", "pro"], exitCode: 2, contains: ["pro"])

        let config = try c.write("plugins.json", """
            {"sites": {"club": {"plugins": {
              "putting": {"id": "org.clubhouse.putting", "grants": ["storage"], "config": {"skill": "10"}}
            }}}}
            """)
        let site = try c.succeed(["--config", config, "putting", "course", "import",
                                  try Clubhouse.requireSharedData("putting/presidio").path, "--id", "presidio"])
        XCTAssertEqual(site.exitCode, 0)
        let ten = try c.succeed(["--config", config] + putt + ["--json"]).json()
        XCTAssertEqual(ten["bestLine"]?["strokeErrors"]?["skill"], "10")
        let bad = try c.write("bad.json", """
            {"sites": {"club": {"plugins": {
              "putting": {"id": "org.clubhouse.putting", "grants": ["storage"], "config": {"skill": "pro"}}
            }}}}
            """)
        let result = try c.run(["--config", bad, "putting", "courses"])
        XCTAssertNotEqual(result.exitCode, 0)
        // The host checks the plugin's config schema before the plugin starts, with the value's place in the file.
        XCTAssertTrue(result.stderr.contains("bad.json:2:89: site 'club': plugin 'putting': config \"skill\" must be one of "
                                             + "\"tour\", \"scratch\", \"10\", \"20\", \"25\", not \"pro\""), result.stderr)
    }

    func testAsyncJobRunsInTheBackgroundAndItsStateIsStored() throws {
        let c = try Clubhouse()
        _ = try importPresidio(c)
        let submitted = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "2", "--ball", "0,0", "--flag", "8,-3",
                                       "--async", "--json"]).json()
        let id = try XCTUnwrap(submitted["job"]?["id"]?.stringValue)
        XCTAssertEqual(submitted["job"]?["existing"], .bool(false))
        // Each `clubhouse` run is a new host process: the job's state comes from storage.
        var status = JSONValue.null
        let deadline = Date().addingTimeInterval(60)
        repeat {
            status = try c.succeed(["putting", "job", id, "--json"]).json()
            if status["job"]?["state"] == "completed" || status["job"]?["state"] == "failed" { break }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < deadline
        XCTAssertEqual(status["job"]?["state"], "completed", "\(status)")
        XCTAssertEqual(status["bestLine"]?["holed"], .bool(true))
        let text = try c.succeed(["putting", "job", id]).stdout
        XCTAssertTrue(text.hasPrefix("Job \(id): completed\nBest line (physics) on presidio hole 2"), text)
        // The same putt again: the cached result at once, no new job.
        let again = try c.succeed(["putting", "bestline", "--course", "presidio", "--hole", "2", "--ball", "0,0", "--flag", "8,-3",
                                   "--async", "--json"]).json()
        XCTAssertEqual(again["cached"], .bool(true))
        XCTAssertEqual(again["bestLine"], status["bestLine"])
    }

    func testPicturesAndMeshes() throws {
        let c = try Clubhouse()
        _ = try importPresidio(c)
        let svg = c.path("out/hole1.svg")
        try FileManager.default.createDirectory(atPath: c.path("out"), withIntermediateDirectories: true)
        let rendered = try c.succeed(["putting", "render", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag,
                                      "--svg", svg, "--width", "600"])
        XCTAssertTrue(rendered.stdout.hasPrefix("Wrote \(svg): SVG of "), rendered.stdout)
        let svgText = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(svgText.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\""))
        for id in ["shading", "contours", "boundary", "path", "aim", "ball", "flag", "legend"] {
            XCTAssertTrue(svgText.contains("id=\"\(id)\""), "SVG lacks \(id)")
        }
        let green = c.path("green.svg")
        try c.succeed(["putting", "render", "--course", "presidio", "--hole", "3", "--svg", green, "--no-shading"])
        XCTAssertFalse(try String(contentsOfFile: green, encoding: .utf8).contains("id=\"path\""))

        let gltf = c.path("hole1.gltf")
        let mesh = try c.succeed(["putting", "mesh", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag,
                                  "--out", gltf, "--exaggeration", "3", "--json"]).json()
        XCTAssertEqual(mesh["format"], "gltf")
        let document = try JSONParser.parse(try String(contentsOfFile: gltf, encoding: .utf8))
        XCTAssertEqual(document["asset"]?["version"], "2.0")
        XCTAssertEqual(document["meshes"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["green", "path", "flag"])
        let obj = c.path("hole1.obj")
        try c.succeed(["putting", "mesh", "--course", "presidio", "--hole", "1", "--out", obj])
        XCTAssertTrue(try String(contentsOfFile: obj, encoding: .utf8).contains("\nf "))
    }

    func testHoleImportFromAHeightfieldFile() throws {
        let c = try Clubhouse()
        let dir = c.path("course")
        try FileManager.default.createDirectory(atPath: dir + "/hole_1", withIntermediateDirectories: true)
        let plane = try writePlane(c, name: "course/hole_1/Hole_1_heightfield")
        try c.succeed(["putting", "course", "import", dir, "--id", "practice-green"])
        let imported = try c.succeed(["putting", "hole", "import", "--course", "practice-green", "--hole", "2", "--heightfield", plane])
        XCTAssertTrue(imported.stdout.hasPrefix("Imported 1 hole into course practice-green"), imported.stdout)
        let line = try c.succeed(["putting", "bestline", "--course", "practice-green", "--hole", "2", "--ball", "-5,0", "--flag", "5,0",
                                  "--json"]).json()
        // 10 ft straight uphill at 2 %, stimp 10, 17 in past: 2.19 m/s (the domain's oracle, ±0.5 %).
        let mps = (line["bestLine"]?["speedFps"]?.doubleValue ?? 0) * 0.3048
        XCTAssertEqual(mps, 2.1905, accuracy: 2.1905 * 0.005)
    }

    func testErrorsAUserCanCause() throws {
        let c = try Clubhouse()
        _ = try importPresidio(c)
        try c.fail(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", "60,0", "--flag", flag], exitCode: 2,
                   contains: ["ball (60, 0) is outside the green of presidio hole 1: the nearest point on the green is (50, 0), 10.0 ft away"])
        try c.fail(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", "0,80"], exitCode: 2,
                   contains: ["flag (0, 80) is outside the green of presidio hole 1"])
        try c.fail(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag, "--stimp", "0"],
                   exitCode: 2, contains: ["stimp 0 ft is out of range"])
        try c.fail(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag, "--stimp", "20"],
                   exitCode: 2, contains: ["stimp 20 ft is out of range", "from 4 to 16 ft"])
        try c.fail(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", ball, "--flag", flag, "--stimp", "0.001"],
                   exitCode: 2, contains: ["stimp 0.001 ft is out of range"])
        try c.fail(["putting", "bestline", "--course", "presidio", "--hole", "1", "--ball", "14.2,-4.3", "--flag", flag],
                   exitCode: 2, contains: ["the ball is on the hole"])
        try c.fail(["putting", "bestline", "--course", "nowhere", "--hole", "1", "--ball", ball, "--flag", flag],
                   exitCode: 2, contains: ["unknown course \"nowhere\""])
        try c.fail(["putting", "bestline", "--course", "presidio", "--hole", "12", "--ball", ball, "--flag", flag],
                   exitCode: 2, contains: ["course \"presidio\" has no hole 12"])
        try c.fail(["putting", "job", "j0000"], exitCode: 2, contains: ["unknown job \"j0000\""])
        try c.fail(["putting", "render", "--course", "presidio", "--hole", "1", "--flag", flag, "--svg", c.path("x.svg")], exitCode: 2,
                   contains: ["give --ball too to draw a best line (or neither for the green alone, with its grid and cup)"])
        try c.fail(["putting", "mesh", "--course", "presidio", "--hole", "1", "--out", c.path("x.stl")], exitCode: 2,
                   contains: ["unknown mesh format"])
        // A .bin of the wrong size: refused, and nothing is written to the catalog.
        let dir = c.path("broken")
        try FileManager.default.createDirectory(atPath: dir + "/Hole_1", withIntermediateDirectories: true)
        _ = try writePlane(c, name: "broken/Hole_1/Hole_1_heightfield", dropBytes: 4)
        try c.fail(["putting", "course", "import", dir, "--id", "broken"], exitCode: 2,
                   contains: ["Hole_1_heightfield.bin: size is 3440 bytes but a 41×21 grid needs 4·nx·nz = 3444 bytes"])
        XCTAssertEqual(try c.succeed(["putting", "courses", "--json"]).json()["courses"]?.arrayValue?.count, 1)
        try c.fail(["putting", "hole", "import", "--course", "presidio", "--hole", "3", "--heightfield", c.path("none.json")],
                   exitCode: 2, contains: ["none.json: cannot read (no such file)"])
    }

    func testDemoWritesPicturesAndFillsTheDemoCourse() throws {
        let c = try Clubhouse()
        let out = c.path("demo")
        let text = try c.succeed(["putting", "demo", "--out", out]).stdout
        XCTAssertTrue(text.hasPrefix("Demo course demo: 3 procedural greens"), text)
        XCTAssertTrue(text.contains("\n  hole 4: rebuilt from "), text)
        for name in ["demo-hole-1-physics.svg", "demo-hole-1-compat.svg", "demo-hole-1.gltf", "demo-hole-3-physics.svg",
                     "demo-hole-4-traced.svg", "demo-traced/hole_4/Hole_4_boundary.json", "demo-traced/hole_4/Hole_4_contours.json"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + name), name)
        }
        let holes = try c.succeed(["putting", "holes", "demo", "--json"]).json()["holes"]?.arrayValue ?? []
        XCTAssertEqual(holes.compactMap { $0["status"]?.stringValue }, ["imported", "imported", "imported", "processed"])
        // The demo's traced files import like a user's and give the same green.
        try c.succeed(["putting", "course", "import", out + "/demo-traced", "--id", "traced", "--process"])
        let traced = try c.succeed(["putting", "holes", "traced", "--json"]).json()["holes"]?.arrayValue?.first
        XCTAssertEqual(traced?["heightfieldHash"], holes.last?["heightfieldHash"])
    }
}
