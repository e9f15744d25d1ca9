// The globe plugin as a user meets it through the built `clubhouse` binary: marks kept across
// runs, stats, where, pictures and mesh written to files, triangulation oracles, the daily
// challenge's rules across processes, the demo, a configured alternative country set, and the
// messages of every mistake a user can make.

import ClubhouseJSON
import Foundation
import XCTest

final class GlobeEndToEndTests: XCTestCase {
    func testMarksPersistAcrossRunsPerUser() throws {
        let c = try Clubhouse()
        XCTAssertEqual(try c.succeed(["globe", "visit", "France"]).stdout, "France (FR) marked visited\n")
        XCTAssertEqual(try c.succeed(["globe", "visit", "pe", "--city", "Lima,Cusco"]).stdout,
                       "Peru (PE) marked visited\nPeru (PE) checked (Lima)\nPeru (PE) checked (Cusco)\n")
        try c.succeed(["globe", "wish", "Japan"])
        try c.succeed(["globe", "visit", "DE", "--user", "bo"])
        let visited = try c.succeed(["globe", "list", "--visited", "--json"]).json()
        XCTAssertEqual(visited["user"]?.stringValue, "me", "the default user comes from plugins.json")
        XCTAssertEqual(visited["countries"]?.arrayValue?.compactMap { $0["code"]?.stringValue }, ["FR", "PE"])
        XCTAssertEqual(try c.succeed(["globe", "list", "--wishlist"]).stdout, "JP  Japan                              Asia           wishlist\n")
        let stats = try c.succeed(["globe", "stats", "--json"]).json()
        XCTAssertEqual(stats["visited"]?.intValue, 2)
        XCTAssertEqual(stats["total"]?.intValue, 195)
        XCTAssertEqual(stats["citiesChecked"]?.intValue, 2)
        XCTAssertTrue(try c.succeed(["globe", "stats"]).stdout.hasPrefix("visited 2 of 195 countries (1.0%); wishlist 1\n"))
        XCTAssertEqual(try c.succeed(["globe", "stats", "--user", "bo", "--json"]).json()["visited"]?.intValue, 1)
        // The denominators: 193, 195 (the default, said so), 249.
        XCTAssertTrue(try c.succeed(["globe", "stats"]).stdout.contains("\ncounted against: 195 UN member states and observers (--of un+observers; also un, iso)\n"))
        XCTAssertEqual(try c.succeed(["globe", "stats", "--of", "un", "--json"]).json()["total"]?.intValue, 193)
        let iso = try c.succeed(["globe", "stats", "--of", "iso", "--json"]).json()
        XCTAssertEqual(iso["total"]?.intValue, 249)
        XCTAssertEqual(iso["denominator"]?.stringValue, "iso")
        XCTAssertEqual(iso["continents"]?.arrayValue?.compactMap { $0["total"]?.intValue }.reduce(0, +), 249)
        try c.fail(["globe", "stats", "--of", "eu"], exitCode: 2,
                   contains: ["invalid denominator for --of 'eu'; expected un (193 UN members), un+observers (195) or iso (249 ISO 3166-1 entries)"])
        let highlights = try c.succeed(["globe", "highlights", "PE", "--json"]).json()
        XCTAssertEqual(highlights["cities"]?.arrayValue?.filter { $0["checked"]?.boolValue == true }.count, 2)
        XCTAssertEqual(try c.succeed(["globe", "unvisit", "PE", "--city", "Cusco"]).stdout, "Peru (PE) unchecked (Cusco)\n")
        XCTAssertEqual(try c.succeed(["globe", "unvisit", "PE"]).stdout, "Peru (PE) no longer visited (1 checked place unchecked)\n")
        XCTAssertEqual(try c.succeed(["globe", "unwish", "JP"]).stdout, "Japan (JP) removed from the wishlist\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: c.dataDirectory.path + "/default/org.clubhouse.globe.sqlite"))
    }

    func testUnvisitIsAllOrNothingAndSaysWhenThereWasNothingToUndo() throws {
        let c = try Clubhouse()
        try c.succeed(["globe", "visit", "PE", "--city", "Lima,Cusco", "--user", "u"])
        func checked() throws -> Int? {
            try c.succeed(["globe", "highlights", "PE", "--user", "u", "--json"]).json()["cities"]?.arrayValue?
                .filter { $0["checked"]?.boolValue == true }.count
        }
        // An unknown city after a known one: nothing is unchecked.
        try c.fail(["globe", "unvisit", "PE", "--user", "u", "--city", "Cusco,Atlantis"], exitCode: 2,
                   contains: ["'Atlantis' is not a city of Peru (PE)"])
        XCTAssertEqual(try checked(), 2)
        try c.fail(["globe", "unvisit", "Perru", "--user", "u"], exitCode: 2, contains: ["unknown country 'Perru'; did you mean Peru?"])
        // Not visited: said so, nothing changes, not an error.
        let japan = try c.succeed(["globe", "unvisit", "JP", "--user", "u", "--json"]).json()
        XCTAssertEqual(japan["changed"]?.boolValue, false)
        XCTAssertEqual(try c.succeed(["globe", "unvisit", "JP", "--user", "u"]).stdout, "Japan (JP) was not visited\n")
        XCTAssertEqual(try c.succeed(["globe", "unvisit", "PE", "--user", "u"]).stdout, "Peru (PE) no longer visited (2 checked places unchecked)\n")
        XCTAssertEqual(try checked(), 0)
        XCTAssertEqual(try c.succeed(["globe", "list", "--visited", "--user", "u", "--json"]).json()["countries"]?.arrayValue?.count, 0)
    }

    func testMistakesGetOneClearLine() throws {
        let c = try Clubhouse()
        try c.fail(["globe", "visit", "Frnace"], exitCode: 2, contains: ["unknown country 'Frnace'; did you mean France?"])
        try c.fail(["globe", "where", "--lat", "91", "--lon", "0"], exitCode: 2, contains: ["latitude 91.0 is outside [-90, 90]"])
        try c.fail(["globe", "where", "--lat", "10"], exitCode: 2, contains: ["--lon"])
        try c.succeed(["globe", "visit", "JP"])
        try c.fail(["globe", "wish", "JP"], exitCode: 1, contains: ["Japan (JP) is already visited; unvisit it first"])
        try c.fail(["globe", "visit", "FR", "--city", "Gotham"], exitCode: 2, contains: ["'Gotham' is not a city of France (FR)"])
        try c.fail(["globe", "list", "--visited", "--wishlist"], exitCode: 2, contains: ["give --visited or --wishlist, not both"])
        try c.fail(["globe", "mesh", "--out", "globe.stl"], exitCode: 2, contains: ["expected a name ending in .gltf or .obj"])
        try c.fail(["globe", "map", "--svg", "/proc/clubhouse/map.svg"], exitCode: 2, contains: ["the folder /proc/clubhouse does not exist"])
        try c.fail(["globe", "challenge", "show", "--date", "2999-01-01"], exitCode: 1, contains: ["locked until that day"])
        try c.fail(["globe", "challenge", "show", "--date", "1/2/2026"], exitCode: 2, contains: ["invalid date '1/2/2026'; use YYYY-MM-DD"])
        let bad = try c.write("bad.geojson", "{\"type\": \"FeatureCollection\",\n \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [200, 0]}}]}")
        // Malformed, missing or non-UTF-8 GeoJSON is a wrong request: exit 2 (issue 30).
        try c.fail(["globe", "triangulate", "--geojson", bad], exitCode: 2,
                   contains: ["bad.geojson:2:81: longitude 200 is outside [-180, 180]"])
        try c.fail(["globe", "triangulate", "--geojson", "nowhere.geojson"], exitCode: 2,
                   contains: ["cannot read ", "/nowhere.geojson: no such file; check the path"])
        let latin1 = c.scratch.appendingPathComponent("latin1.geojson")
        try Data([0x7B, 0x22, 0xE9, 0x22, 0x7D]).write(to: latin1)
        try c.fail(["globe", "triangulate", "--geojson", latin1.path], exitCode: 2,
                   contains: ["cannot read \(latin1.path): it is not UTF-8 text; check the path"])
    }

    func testWhere() throws {
        let c = try Clubhouse()
        XCTAssertEqual(try c.succeed(["globe", "where", "--lat", "-29.5", "--lon", "28.2"]).stdout, "-29.5, 28.2 is in Lesotho (LS)\n")
        let vatican = try c.succeed(["globe", "where", "--lat", "41.9029", "--lon", "12.4534", "--json"]).json()
        XCTAssertEqual(vatican["code"]?.stringValue, "VA")
        XCTAssertEqual(vatican["method"]?.stringValue, "point")
        XCTAssertNil(try c.succeed(["globe", "where", "--lat", "0", "--lon", "-30", "--json"]).json()["code"]?.stringValue)
    }

    func testPicturesAndMeshAreWritten() throws {
        let c = try Clubhouse()
        try c.succeed(["globe", "visit", "BR"])
        let map = try c.succeed(["globe", "map", "--svg", "map.svg", "--select", "AR", "--json"]).json()
        XCTAssertEqual(map["file"]?.stringValue, c.path("map.svg"))
        let svg = try String(contentsOfFile: c.path("map.svg"), encoding: .utf8)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        XCTAssertTrue(svg.contains("<path id=\"BR\" class=\"visited\" fill=\"#F2F013\""))
        XCTAssertTrue(svg.contains("<path id=\"AR\" class=\"none\" fill=\"#85D8B4\" data-selected=\"true\" stroke=\"#E4572E\""))
        XCTAssertTrue(svg.contains("Visited 1 of 195 countries (0.5%)"))
        let printed = try c.succeed(["globe", "silhouette", "Italy", "--svg", "-"]).stdout
        XCTAssertTrue(printed.hasPrefix("<svg") && printed.contains("<title>Italy</title>"))
        let mesh = try c.succeed(["globe", "mesh", "--out", "globe.gltf", "--json"]).json()
        XCTAssertEqual(mesh["parts"]?.intValue, 251, "250 countries (every ISO 3166-1 entry and Kosovo) and the ocean")
        let gltf = try JSONParser.parse(try String(contentsOfFile: c.path("globe.gltf"), encoding: .utf8))
        XCTAssertEqual(gltf["asset"]?["version"]?.stringValue, "2.0")
        XCTAssertEqual(gltf["materials"]?.arrayValue?.count, 251)
        let obj = try c.succeed(["globe", "mesh", "--out", "globe.obj", "--no-ocean", "--json"]).json()
        XCTAssertEqual(obj["files"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, [c.path("globe.obj"), c.path("globe.mtl")])
        XCTAssertTrue(try String(contentsOfFile: c.path("globe.mtl"), encoding: .utf8).contains("newmtl BR\nKd 0.94902 0.941176 0.07451\n"))
    }

    func testTriangulationOracles() throws {
        let c = try Clubhouse()
        let bundled = try c.succeed(["globe", "triangulate", "--json"]).json()
        XCTAssertEqual(bundled["polygons"]?.intValue, 287)
        XCTAssertEqual(bundled["triangles"]?.intValue, 9_783)
        XCTAssertEqual(bundled["polygonsOffCount"]?.intValue, 0)
        XCTAssertLessThanOrEqual(bundled["maxRelativeAreaError"]?.doubleValue ?? 1, 1e-9)
        XCTAssertEqual(bundled["perPolygon"]?.arrayValue?.count, 287)
        let text = try c.succeed(["globe", "triangulate", "--summary"]).stdout
        XCTAssertTrue(text.contains("triangles 9783 (n + 2h − 2 = 9783; polygons off: 0)"), text)
        let summary = try c.succeed(["globe", "triangulate", "--summary", "--json"]).json()
        XCTAssertEqual(summary["triangles"]?.intValue, 9_783)
        XCTAssertEqual(summary["perPolygon"]?.arrayValue?.count ?? 0, 0, "--summary holds with --json")
        XCTAssertEqual(summary["invalidPolygons"]?.intValue, 0)
        // A polygon whose edges cross: reported with the place, triangulated anyway, exit 0.
        let bow = try c.write("bow.geojson", #"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "BOW", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]]}}]}"#)
        let bowText = try c.succeed(["globe", "triangulate", "--geojson", bow, "--summary"]).stdout
        XCTAssertTrue(bowText.contains("  BOW part 0 is not a valid polygon: outer ring edge 0 crosses outer ring edge 2 at (1.000000, 1.000000)\n"), bowText)
        let bowJSON = try c.succeed(["globe", "triangulate", "--geojson", bow, "--json"]).json()
        XCTAssertEqual(bowJSON["invalidPolygons"]?.intValue, 1)
        XCTAssertGreaterThan(bowJSON["triangles"]?.intValue ?? 0, 0)
        let ne = Clubhouse.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/peers/data/naturalearth_lowres_countries.geojson")
        guard FileManager.default.fileExists(atPath: ne.path) else {
            throw XCTSkip("../shared/peers/data/naturalearth_lowres_countries.geojson is absent; skipping its oracle")
        }
        let report = try c.succeed(["globe", "triangulate", "--geojson", ne.path, "--json"]).json()
        XCTAssertEqual(report["features"]?.intValue, 177)
        XCTAssertEqual(report["polygons"]?.intValue, 287)
        XCTAssertEqual(report["holes"]?.intValue, 1)
        XCTAssertEqual(report["triangles"]?.intValue, 9_783)
        XCTAssertLessThanOrEqual(report["maxRelativeAreaError"]?.doubleValue ?? 1, 1e-9)
    }

    func testChallengeRulesHoldAcrossProcesses() throws {
        let c = try Clubhouse()
        // Find a flag challenge in January 2026 of the generated schedule (types rotate, so one of three days).
        let calendar = try c.succeed(["globe", "challenge", "calendar", "--date", "2026-01-15", "--json"]).json()
        let days = calendar["days"]?.arrayValue ?? []
        XCTAssertEqual(days.count, 31)
        let flagDay = try XCTUnwrap(days.first { $0["type"]?.stringValue == "flag" }?["date"]?.stringValue)
        let show = try c.succeed(["globe", "challenge", "show", "--date", flagDay, "--json"]).json()
        let flag = try XCTUnwrap(show["flag"]?.stringValue)
        XCTAssertEqual(flag.unicodeScalars.count, 2)
        XCTAssertTrue(flag.unicodeScalars.allSatisfy { (0x1F1E6...0x1F1FF).contains($0.value) })
        // The flag spells the ISO code; find the country's name through `list`.
        let code = String(String.UnicodeScalarView(flag.unicodeScalars.compactMap { Unicode.Scalar($0.value - 0x1F1E6 + 0x41) }))
        let list = try c.succeed(["globe", "list", "--json"]).json()["countries"]?.arrayValue ?? []
        let name = try XCTUnwrap(list.first { $0["code"]?.stringValue == code }?["name"]?.stringValue)
        let wrong = name == "Atlantis" ? "Lemuria" : "Atlantis"
        let first = try c.succeed(["globe", "challenge", "guess", wrong, "--date", flagDay, "--json"]).json()
        XCTAssertEqual(first["outcome"]?.stringValue, "wrong")
        XCTAssertEqual(first["attemptsLeft"]?.intValue, 4)
        let again = try c.succeed(["globe", "challenge", "guess", wrong.uppercased(), "--date", flagDay]).stdout
        XCTAssertEqual(again, "'\(wrong.uppercased())' was already guessed; it does not count (4 attempts left)\n")
        let right = try c.succeed(["globe", "challenge", "guess", name.lowercased(), "--date", flagDay, "--json"]).json()
        XCTAssertEqual(right["outcome"]?.stringValue, "correct")
        XCTAssertEqual(right["state"]?["finishedOn"]?.stringValue, CivilDay.today, "solved today, not on its own day")
        try c.fail(["globe", "challenge", "guess", name, "--date", flagDay], exitCode: 1, contains: ["is over (solved"])
        let after = try c.succeed(["globe", "challenge", "calendar", "--date", flagDay, "--json"]).json()
        XCTAssertEqual(after["days"]?.arrayValue?.first { $0["date"]?.stringValue == flagDay }?["mark"]?.stringValue, "late")
        XCTAssertEqual(after["solved"]?.intValue, 1)

        // Five misses end a game.
        let other = try XCTUnwrap(days.last { $0["date"]?.stringValue != flagDay }?["date"]?.stringValue)
        for (k, guess) in ["Aaa", "Bbb", "Ccc", "Ddd", "Eee"].enumerated() {
            let r = try c.succeed(["globe", "challenge", "guess", guess, "--date", other, "--json"]).json()
            XCTAssertEqual(r["attemptsLeft"]?.intValue, 4 - k)
        }
        let over = try c.succeed(["globe", "challenge", "show", "--date", other, "--json"]).json()
        XCTAssertEqual(over["status"]?.stringValue, "failed")
        XCTAssertNotNil(over["answer"]?.stringValue)
    }

    func testDemoWritesItsFiles() throws {
        let c = try Clubhouse()
        let out = c.path("demo-out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let demo = try c.succeed(["globe", "demo", "--out", out, "--json"]).json()
        XCTAssertEqual(demo["stats"]?["visited"]?.intValue, 30)
        XCTAssertEqual(demo["challenge"]?["status"]?.stringValue, "solved")
        for name in ["world-map.svg", "silhouette-IT.svg", "globe.gltf"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + name), name)
        }
        let text = try c.succeed(["globe", "demo", "--out", out]).stdout
        XCTAssertTrue(text.contains("(0 new marks)"), text)
    }

    func testAConfiguredCountrySetReplacesTheBundledOne() throws {
        let c = try Clubhouse()
        // A tiny set of our own, named relative to the folder the command runs in.
        try c.write("isles.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "id": "AA", "properties": {"name": "Avalon", "continent": "Europe", "capital": "Glass", "capitalLat": 1, "capitalLon": 1},
               "geometry": {"type": "Polygon", "coordinates": [[[0,0],[3,0],[3,3],[0,3],[0,0]], [[1,1],[1,2],[2,2],[2,1],[1,1]]]}},
              {"type": "Feature", "id": "BB", "properties": {"name": "Brigadoon", "continent": "Europe"},
               "geometry": {"type": "Point", "coordinates": [10, 10]}}]}
            """)
        let config = try c.write("plugins.json", """
            {"sites": {"isles": {"plugins": {
              "globe": {"id": "org.clubhouse.globe", "grants": ["storage"], "config": {"user": "ana", "countries": "isles.geojson"}}
            }}}}
            """)
        let report = try c.succeed(["--config", config, "globe", "triangulate", "--json"]).json()
        XCTAssertEqual(report["features"]?.intValue, 2)
        XCTAssertEqual(report["triangles"]?.intValue, 8, "8 vertices and a hole: 8 + 2 − 2")
        XCTAssertEqual(report["triangleArea"]?.doubleValue, 8)
        XCTAssertEqual(try c.succeed(["--config", config, "globe", "where", "--lat", "1.5", "--lon", "1.5", "--json"]).json()["code"]?.stringValue,
                       nil, "inside Avalon's hole")
        XCTAssertEqual(try c.succeed(["--config", config, "globe", "visit", "Brigadoon", "--json"]).json()["code"]?.stringValue, "BB")
        XCTAssertEqual(try c.succeed(["--config", config, "globe", "stats", "--json"]).json()["total"]?.intValue, 2)
        // The site's default denominator.
        let isoSite = try c.write("iso.json", """
            {"sites": {"iso": {"plugins": {
              "globe": {"id": "org.clubhouse.globe", "grants": ["storage"], "config": {"denominator": "iso"}}
            }}}}
            """)
        XCTAssertEqual(try c.succeed(["--config", isoSite, "globe", "stats", "--json"]).json()["total"]?.intValue, 249)
        XCTAssertEqual(try c.succeed(["--config", isoSite, "globe", "stats", "--of", "un", "--json"]).json()["total"]?.intValue, 193)

        let broken = try c.write("broken.json", """
            {"sites": {"s": {"plugins": {"globe": {"id": "org.clubhouse.globe", "grants": ["storage"], "config": {"colour": "red"}}}}}}
            """)
        try c.fail(["--config", broken, "globe", "stats"], exitCode: 2, contains: ["broken.json:1:", "config \"colour\" is not a setting of this plugin"])
        let missing = try c.write("missing.json", """
            {"sites": {"s": {"plugins": {"globe": {"id": "org.clubhouse.globe", "grants": ["storage"], "config": {"countries": "nowhere.geojson"}}}}}}
            """)
        // A file that is not there is a wrong request (issue 30: the exit-code rule), as a malformed one.
        try c.fail(["--config", missing, "globe", "stats"], exitCode: 2, contains: ["cannot read nowhere.geojson: no such file"])
    }

    func testVoyageDataAsTheAlternativeSet() throws {
        let c = try Clubhouse()
        let world = try Clubhouse.requireSharedData("globe/world.geojson")
        let highlights = try Clubhouse.requireSharedData("globe/country_highlights.json")
        let challenges = try Clubhouse.requireSharedData("globe/daily_challenges.json")
        let config = try c.write("plugins.json", """
            {"sites": {"voyage": {"plugins": {
              "globe": {"id": "org.clubhouse.globe", "grants": ["storage"],
                        "config": {"countries": "\(world.path)", "highlights": "\(highlights.path)", "challenges": "\(challenges.path)"}}
            }}}}
            """)
        let report = try c.succeed(["--config", config, "globe", "triangulate", "--json"]).json()
        XCTAssertEqual(report["features"]?.intValue, 206)
        XCTAssertEqual(report["polygonsOffCount"]?.intValue, 0)
        XCTAssertEqual(try c.succeed(["--config", config, "globe", "stats", "--json"]).json()["total"]?.intValue, 195)
        XCTAssertEqual(try c.succeed(["--config", config, "globe", "where", "--lat", "-29.5", "--lon", "28.2", "--json"]).json()["code"]?.stringValue, "LS")
        let chad = try c.succeed(["--config", config, "globe", "highlights", "TD", "--json"]).json()
        XCTAssertGreaterThan(chad["attractions"]?.arrayValue?.count ?? 0, 0)
        let show = try c.succeed(["--config", config, "globe", "challenge", "show", "--date", "2026-02-17", "--json"]).json()
        XCTAssertEqual(show["type"]?.stringValue, "country")
        try c.fail(["--config", config, "globe", "challenge", "show", "--date", "2026-01-01"], exitCode: 2,
                   contains: ["no daily challenge for 2026-01-01; the schedule covers 2026-02-17 to 2027-02-16"])
    }
}

/// Today as the plugin sees it (the process's local date).
enum CivilDay {
    static var today: String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }
}
