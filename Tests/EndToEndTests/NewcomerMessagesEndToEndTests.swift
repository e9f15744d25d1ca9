// Issue 30 (Why 7, 10, 11) as a new user meets it through the built `clubhouse` binary: each
// message exactly as printed, with its exit code (2: the request is wrong), and what now works
// that did not (every ISO entry visited, the stored cup as the flag, the drill header).

import ClubhouseJSON
import Foundation
import XCTest

final class NewcomerMessagesEndToEndTests: XCTestCase {
    /// The one error line a failing command prints.
    private func errorLine(_ c: Clubhouse, _ arguments: [String], exitCode: Int32 = 2, file: StaticString = #filePath,
                           line: UInt = #line) throws -> String {
        let result = try c.fail(arguments, exitCode: exitCode, contains: [], file: file, line: line)
        return result.stderr.split(separator: "\n").first { $0.hasPrefix("clubhouse: ") }.map { String($0.dropFirst(11)) } ?? ""
    }

    func testPuttingMessages() throws {
        let c = try Clubhouse()
        let dir = try Clubhouse.requireSharedData("putting/presidio")
        try c.succeed(["putting", "course", "import", dir.path, "--id", "presidio", "--name", "Presidio"])
        let hole = ["--course", "presidio", "--hole", "1"]
        XCTAssertEqual(try errorLine(c, ["putting", "bestline", "--course", "Presidio", "--hole", "1", "--ball", "0.5,-5.9"]),
                       "unknown course \"Presidio\": did you mean presidio? --course takes the course's id (`putting courses` lists them)")
        XCTAssertEqual(try errorLine(c, ["putting", "bestline"] + hole + ["--ball", "0,5,-5,9"]),
                       "--ball must be a point X,Y (two numbers), got '0,5,-5,9'; numbers take a decimal point, not a comma: did you mean '0.5,-5.9'?")
        XCTAssertEqual(try errorLine(c, ["putting", "bestline"] + hole + ["--ball", "0.15m,-1.8m"]),
                       "--ball must be a point X,Y (two numbers), got '0.15m,-1.8m'; give plain numbers in feet, without a unit: that is '0.492,-5.906' in feet")
        XCTAssertEqual(try errorLine(c, ["putting", "bestline"] + hole + ["--ball", "0.5,-5.9", "--stimp", "3"]),
                       "stimp 3 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments); if 3 is metres, that is --stimp 9.8 (feet)")
        // Inside the grid's box, outside the green's outline: the nearest point on the green is named.
        XCTAssertEqual(try errorLine(c, ["putting", "bestline"] + hole + ["--ball", "-38,-25"]),
                       "ball (-38, -25) is outside the green of presidio hole 1 (inside the grid's box, but outside the green's outline): the nearest point on the green is (-35, -21), 5.0 ft away, e.g. --ball -35,-21; `putting render --course presidio --hole 1 --svg FILE` draws the green with a grid in feet")
        // No --flag: the hole's stored cup (Presidio hole 1's config has its hole_location).
        let line = try c.succeed(["putting", "bestline"] + hole + ["--ball", "-35,-21", "--json"]).json()
        XCTAssertEqual(line["bestLine"]?["holeXFt"]?.doubleValue ?? 0, 28.03, accuracy: 0.01)
        XCTAssertEqual(line["bestLine"]?["holeZFt"]?.doubleValue ?? 0, -3.46, accuracy: 0.01)
        // The plain green says where things are.
        let svg = c.path("green.svg")
        try c.succeed(["putting", "render"] + hole + ["--svg", svg])
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(text.contains("<g id=\"grid\"") && text.contains(">cup 28.03,-3.46</text>") && text.contains(">x ft (east) →</text>"))
    }

    func testGlobeMessages() throws {
        let c = try Clubhouse()
        try c.succeed(["globe", "visit", "HK", "--user", "ana"])
        try c.succeed(["globe", "visit", "Åland Islands", "--user", "ana"])
        XCTAssertEqual(try c.succeed(["globe", "stats", "--of", "iso", "--user", "ana", "--json"]).json()["visited"]?.intValue, 2)
        XCTAssertEqual(try errorLine(c, ["globe", "map", "--svg", c.path("m.svg"), "--user", "anna"]),
                       "no user 'anna' has marked anything; did you mean ana? known users: ana (a user appears with a first visit, wish or challenge guess)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("m.svg")), "no empty map")
        XCTAssertEqual(try errorLine(c, ["globe", "visit", "Korea", "--user", "ana"]),
                       "unknown country 'Korea'; did you mean North Korea or South Korea? use an ISO 3166-1 alpha-2 code or the country's name (globe list shows them)")
        XCTAssertEqual(try c.succeed(["globe", "visit", "DEU", "--user", "ana"]).stdout, "Germany (DE) marked visited\n")
        let swapped = try c.succeed(["globe", "where", "--lat", "2.35", "--lon", "48.86"])
        XCTAssertTrue(swapped.stdout.hasSuffix("\nwarning: no country at --lat 2.35 --lon 48.86, but --lat 48.86 --lon 2.35 is in France (FR); were latitude and longitude swapped? --lat is degrees north, --lon degrees east\n"), swapped.stdout)
        XCTAssertNotNil(try c.succeed(["globe", "where", "--lat", "2.35", "--lon", "48.86", "--json"]).json()["warning"]?.stringValue)
        XCTAssertEqual(try errorLine(c, ["globe", "where", "--lat", "151.21", "--lon", "-33.87"]),
                       "latitude 151.21 is outside [-90, 90]; were latitude and longitude swapped? (--lat -33.87 --lon 151.21 is in Australia) --lat is degrees north, --lon degrees east")
        // The tour's challenge day is playable on any later day.
        XCTAssertEqual(try c.succeed(["globe", "challenge", "guess", "Portugal", "--date", "2026-02-27", "--user", "ana"]).stdout,
                       "correct: Portugal, solved in 1 guess\n")
    }

    func testTennisMessages() throws {
        let c = try Clubhouse()
        let csv = try c.write("drill.csv", "zone,speed,spin,delay\n6,40,flat,2\n")
        XCTAssertEqual(try errorLine(c, ["tennis", "drill", "validate", csv]),
                       csv + #":1:1: this looks like CSV (lines of comma-separated values), not JSON (unexpected 'z'; expected a value); expected a JSON drill (schema: drill.schema.json in the tennis plugin's folder): {"name": "…", "steps": [{"zone": 0–15, "speed": 20–80, "spin": "topspin", "delay": 2–9}]}"#)
        let drill = try c.write("mixed.json", """
            {"name": "mixed", "steps": [{"zone": 9, "speed": 60, "spin": "topspin", "delay": 2},
              {"zone": 6, "speed": 40, "spin": "flat", "delay": 2, "repeat": 3}]}
            """)
        let run = try c.succeed(["tennis", "drill", "run", drill, "--dry-run", "--svg", c.path("landing.svg")])
        XCTAssertEqual(run.stdout.split(separator: "\n")[1],
                       "drill session: 4 balls (1 × 60 mph topspin, 3 × 40 mph flat), checksum xor, table default, dry run")
        let svg = try String(contentsOfFile: c.path("landing.svg"), encoding: .utf8)
        XCTAssertTrue(svg.contains(">2, 3, 4</text>"), "one label for the three balls on one spot")
        XCTAssertFalse(svg.contains("position (feet, projected)"))
    }
}
