// No trap on data (issue 30): extreme values (±1e308, NaN and inf as text, 1e-308, a huge integer,
// negative zero) go into every importer of every plugin, and then every read command of that plugin
// runs. Each import is refused (exit 2, one line naming the file and where) or keeps what is in range;
// no command ever dies on a signal (a carry of 1e308 used to import silently and then stop
// `practice session` with SIGILL). Rows an older version stored with such values are written with
// SQLite directly, and every read command still answers.

import CSQLite
import ClubhouseJSON
import Foundation
import XCTest

final class ExtremeValuesEndToEndTests: XCTestCase {
    /// The values each importer is given, as they are written in a file.
    static let extremes = ["1e308", "-1e308", "NaN", "inf", "1e-308", "99999999999999999999", "-0"]
    /// Those a file may hold as a plain number and that lie in any plausible range.
    static let harmless: Set<String> = ["1e-308", "-0"]

    /// Runs a command that may refuse (exit 2, or 1 for a damaged database when `damaged`) but never
    /// crashes, and refuses with one line.
    @discardableResult
    private func safe(_ c: Clubhouse, _ arguments: [String], damaged: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws
        -> ClubhouseResult
    {
        let result = try c.run(arguments)
        let allowed: Set<Int32> = damaged ? [0, 1, 2] : [0, 2]
        XCTAssertTrue(allowed.contains(result.exitCode),
                      "clubhouse \(arguments.joined(separator: " ")) exited \(result.exitCode):\n\(result.stderr.suffix(800))", file: file, line: line)
        XCTAssertFalse(result.stderr.contains("Fatal error") || result.stderr.contains("Backtrace"), result.stderr.suffix(800).description,
                       file: file, line: line)
        if result.exitCode != 0 {
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("clubhouse: ") && !$0.hasPrefix("clubhouse: warning") }
            XCTAssertEqual(errors.count, 1, "one error line: \(result.stderr.suffix(800))", file: file, line: line)
        }
        return result
    }

    // MARK: practice

    static let csvHeader = #""Club Type","Carry Distance","Total Distance","Ball Speed","Side Carry","Smash Factor","Spin Rate","Descent Angle""#

    static func csvRow(club: String = "7i", carry: String = "150", ball: String = "105", spin: String = "4500") -> String {
        "\"\(club)\",\"\(carry)\",\"158\",\"\(ball)\",\"-3.5\",\"1.30\",\"\(spin)\",\"46\""
    }

    func testPracticeImportsAndEveryReadCommand() throws {
        let c = try Clubhouse()
        let good = (0..<6).map { Self.csvRow(carry: String(140 + 3 * $0)) }
        for (k, value) in Self.extremes.enumerated() {
            for (column, row) in [("carry", Self.csvRow(carry: value)), ("ball", Self.csvRow(ball: value)), ("spin", Self.csvRow(spin: value))] {
                let file = try c.write("x\(k)-\(column).csv", ([Self.csvHeader] + good + [row]).joined(separator: "\n") + "\n")
                let result = try safe(c, ["practice", "import", file])
                if Self.harmless.contains(value) {
                    XCTAssertEqual(result.exitCode, 0, "\(value) in \(column): \(result.stderr)")
                } else {
                    XCTAssertEqual(result.exitCode, 2, "\(value) in \(column) is refused")
                    XCTAssertTrue(result.stderr.contains("\(file):8:"), "file:line:column of the cell: \(result.stderr)")
                }
            }
        }
        // The message of a value out of range names its column and the range (README of the plugin).
        try c.fail(["practice", "import", try c.write("big.csv", Self.csvHeader + "\n" + Self.csvRow(carry: "1e308") + "\n")], exitCode: 2,
                   contains: ["big.csv:2:6: Carry Distance is 1e+308 yd, outside the plausible 0 to 500 yd; fix the cell, or leave it empty or -- for no value"])
        // --skip-bad-rows keeps the good rows and lists the bad one by line and column.
        let skipped = try c.succeed(["practice", "import", try c.write("skip.csv", ([Self.csvHeader] + good + [Self.csvRow(carry: "-1e308")])
            .joined(separator: "\n") + "\n"), "--skip-bad-rows"])
        XCTAssertTrue(skipped.stdout.contains("line 8:6: Carry Distance is -1e+308 yd, outside the plausible 0 to 500 yd"), skipped.stdout)
        // Templates: thresholds are compared, never stored as shots; an extreme one is still a number that prints.
        try safe(c, ["practice", "template", "add", try c.write("t.json", """
            {"schema_version": "1.0", "club": "7i", "aggregation_method": "worst_metric",
             "metrics": {"carry": {"a_min": 1e308, "b_min": -1e308}, "spin_rate": {"direction": "lower_is_better", "a_max": 1e-308, "b_max": 99999999999999999999}}}
            """)])
        try readEveryPracticeCommand(c)
    }

    private func readEveryPracticeCommand(_ c: Clubhouse, damaged: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        let sessions = try safe(c, ["practice", "sessions", "--json"], damaged: damaged, file: file, line: line)
        let ids = (try? sessions.json()["sessions"]?.arrayValue?.compactMap { $0["session"]?["id"]?.intValue }) ?? []
        var commands: [[String]] = [
            ["practice", "sessions"], ["practice", "trends", "--club", "7i"], ["practice", "trends", "--club", "7i", "--svg", c.path("t.svg")],
            ["practice", "trends", "--club", "7i", "--metric", "carry", "--svg", c.path("tc.svg")],
            ["practice", "dispersion", "--club", "7i"], ["practice", "dispersion", "--club", "7i", "--json"],
            ["practice", "dispersion", "--club", "7i", "--svg", c.path("d.svg")], ["practice", "distances"],
            ["practice", "distances", "--svg", c.path("ds.svg")], ["practice", "template", "list"],
        ]
        for id in ids {
            commands += [["practice", "session", String(id)], ["practice", "session", String(id), "--shots"],
                         ["practice", "session", String(id), "--shots", "--json"], ["practice", "export", String(id)],
                         ["practice", "export", String(id), "--json"]]
        }
        for arguments in commands { try safe(c, arguments, damaged: damaged, file: file, line: line) }
    }

    /// An older version stored whatever a file held: 1e308, -1e308, ±∞ (SQLite keeps them), a huge
    /// count. Every read command answers; the dispersion leaves the values out and says so.
    func testPracticeRowsAnOlderVersionStoredReadSafely() throws {
        let c = try Clubhouse()
        let good = (0..<6).map { Self.csvRow(carry: String(140 + 3 * $0)) }
        try c.succeed(["practice", "import", try c.write("s.csv", ([Self.csvHeader] + good).joined(separator: "\n") + "\n")])
        let database = c.dataDirectory.appendingPathComponent("default/org.clubhouse.practice.sqlite").path
        try sqlite(database, """
            INSERT INTO shots (session_id, row_index, club, carry_yd, side_carry_yd, total_yd, ball_speed_mph, spin_rate_rpm, smash_factor, raw_json)
            VALUES (1, 100, '7i', 1e308, -1e308, 9e999, -9e999, 1e308, 1e-308, '[]'),
                   (1, 101, '7i', -1e308, 1e308, -0.0, 9e999, -1e308, 9223372036854775807, '[]'),
                   (1, 102, '7i', 9e999, 9e999, 9e999, 9e999, 9e999, 9e999, '[]');
            INSERT INTO club_subsessions (session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, a_percent, averages_json)
            VALUES (1, 'pw', NULL, 6, NULL, NULL, NULL, 'valid_low_sample', 1e308,
                    '{"all":{"shot_count":6,"means":{"carry":1e308,"ball_speed":-1e308,"spin_rate":1e999}},"a_only":null}');
            """)
        try readEveryPracticeCommand(c)
        let dispersion = try c.succeed(["practice", "dispersion", "--club", "7i"])
        // Row 100: carry, side and spin out of range (total and ball speed are ±∞, read as none); row 101: carry,
        // side, spin and smash factor; row 102: only ±∞.
        XCTAssertTrue(dispersion.stdout.contains("7i: 6 shots kept, 0 mishits excluded, 3 without a carry, 7 stored values outside the plausible range left out"),
                      dispersion.stdout)
        let session = try c.succeed(["practice", "session", "1", "--json"]).json()
        let pw = session["clubs"]?.arrayValue?.first { $0["analysis"]?["club"]?.stringValue == "pw" }
        XCTAssertTrue([nil, .null].contains(pw?["analysis"]?["a_percent"]), "an A% outside 0–100 is none")
        XCTAssertEqual(pw?["analysis"]?["averages_all_shots"]?["means"], .object(JSONObject()), "implausible means are not shown")
        // A count no session can have is a damaged row: named, exit 1, never an overflow.
        try sqlite(database, """
            INSERT INTO club_subsessions (session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, a_percent, averages_json)
            VALUES (1, 'sw', NULL, 9223372036854775807, NULL, NULL, NULL, 'valid', NULL, '{"all":{"shot_count":1,"means":{}},"a_only":null}');
            """)
        try c.fail(["practice", "session", "1"], exitCode: 1,
                   contains: ["club_subsessions row 3 holds a count outside 0…1000000000 (shots, A, B, C: 9223372036854775807, -, -, -)"])
        try readEveryPracticeCommand(c, damaged: true)
    }

    // MARK: scorecard

    static func courseFile(rating: String = "35.6", slope: String = "124", par: String = "4", strokeIndex: String = "1") -> String {
        let holes = (1...9).map { n in
            "{\"number\": \(n), \"par\": \(n == 1 ? par : "4"), \"strokeIndex\": \(n == 1 ? strokeIndex : String(n))}"
        }.joined(separator: ", ")
        return "{\"name\": \"Links\(UUID().uuidString.prefix(6))\", \"tees\": [{\"name\": \"White\", \"rating\": \(rating), \"slope\": \(slope), \"holes\": [\(holes)]}]}"
    }

    func testScorecardImportsAndEveryReadCommand() throws {
        let c = try Clubhouse()
        try c.succeed(["scorecard", "course", "add", try c.write("ok.json", Self.courseFile())])
        for (k, value) in Self.extremes.enumerated() {
            for (field, text) in [("rating", Self.courseFile(rating: value)), ("slope", Self.courseFile(slope: value)),
                                  ("par", Self.courseFile(par: value)), ("si", Self.courseFile(strokeIndex: value))] {
                let result = try safe(c, ["scorecard", "course", "add", try c.write("c\(k)-\(field).json", text)])
                XCTAssertEqual(result.exitCode, 2, "\(value) as \(field): \(result.stdout)")
                XCTAssertTrue(result.stderr.contains("c\(k)-\(field).json:1:"), result.stderr)
            }
            let seed = try c.write("seed\(k).json", """
                {"players": [{"name": "P\(k)", "handicap": \(value)}], "courses": [{"name": "S\(k)", "slopeRating": \(value), "courseRating": 36,
                 "holes": [\((0..<9).map { "{\"index\": \($0), \"par\": 4, \"handicap\": \($0 + 1)}" }.joined(separator: ", "))]}]}
                """)
            let imported = try safe(c, ["scorecard", "import", seed])
            if imported.exitCode == 0 {
                // The slope is never a whole number 55–155 here; a handicap of -0 is an index of 0.0, 1e-308 has too many decimals.
                XCTAssertTrue(imported.stdout.contains("rejected course 'S\(k)'"), imported.stdout)
                XCTAssertEqual(imported.stdout.contains("rejected player 'P\(k)'"), value != "-0", imported.stdout)
            }
            try safe(c, ["scorecard", "player", "add", "Q\(k)", "--index", value])
        }
        try c.succeed(["scorecard", "player", "add", "Ann", "--index", "12.3"])
        try c.succeed(["scorecard", "round", "start", "--course", "1", "--tee", "White", "--players", "Ann,P6,Q6", "--date", "2024-05-01"])
        try c.succeed(["scorecard", "score", "--round", "1", "--player", "Ann", "--hole", "1", "--strokes", "5"])
        try readEveryScorecardCommand(c)
    }

    private func readEveryScorecardCommand(_ c: Clubhouse, damaged: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        for arguments in [["scorecard", "player", "list"], ["scorecard", "player", "list", "--json"], ["scorecard", "course", "list"],
                          ["scorecard", "course", "show", "1"], ["scorecard", "rounds"], ["scorecard", "rounds", "--json"],
                          ["scorecard", "leaderboard", "--round", "1"], ["scorecard", "leaderboard", "--round", "1", "--json"],
                          ["scorecard", "entries", "--round", "1"], ["scorecard", "index", "Ann"], ["scorecard", "index", "Ann", "--json"]] {
            try safe(c, arguments, damaged: damaged, file: file, line: line)
        }
    }

    /// Columns the first schema left without a CHECK, filled by another program: every read command
    /// names the row (exit 1) instead of overflowing (a rating of Int.max stopped `scorecard index`).
    func testScorecardRowsAnOlderVersionStoredReadSafely() throws {
        let c = try Clubhouse()
        try c.succeed(["scorecard", "course", "add", try c.write("ok.json", Self.courseFile())])
        try c.succeed(["scorecard", "player", "add", "Ann"])
        for (k, date) in ["2024-05-01", "2024-05-02", "2024-05-03"].enumerated() {
            try c.succeed(["scorecard", "round", "start", "--course", "1", "--tee", "White", "--players", "Ann", "--date", date])
            for hole in 1...9 { try c.succeed(["scorecard", "score", "--round", String(k + 1), "--player", "Ann", "--hole", String(hole), "--strokes", "5"]) }
            try c.succeed(["scorecard", "round", "finish", String(k + 1)])
        }
        let database = c.dataDirectory.appendingPathComponent("default/org.clubhouse.scorecard.sqlite").path
        try sqlite(database, "UPDATE tees SET rating_tenths = 9223372036854775807")
        try c.fail(["scorecard", "index", "Ann"], exitCode: 1,
                   contains: ["tee 1's rating_tenths is 9223372036854775807 in the database, outside 1…9999; the row was not written by this plugin"])
        try readEveryScorecardCommand(c, damaged: true)
        try sqlite(database, "UPDATE tees SET rating_tenths = 356; UPDATE round_players SET index_tenths = 1e308")
        // index_tenths 1e308 is a REAL no integer equals: the row is refused as a whole, naming the column
        // (rows are read into typed records since scorecard 1.5.0; it used to be read as no index).
        try c.fail(["scorecard", "leaderboard", "--round", "1"], exitCode: 1,
                   contains: ["a row of round_players in the scorecard database does not fit: column 'index_tenths' holds real(1e+308), not an integer that fits Int; restore a backup"])
        try readEveryScorecardCommand(c, damaged: true)
        try sqlite(database, "UPDATE round_players SET index_tenths = NULL, playing_handicap = -9223372036854775808")
        try c.fail(["scorecard", "leaderboard", "--round", "1"], exitCode: 1,
                   contains: ["round 1, player 1: playing_handicap is -9223372036854775808 in the database, outside -100…200"])
        try readEveryScorecardCommand(c, damaged: true)
    }

    // MARK: tennis

    func testTennisImportsAndEveryReadCommand() throws {
        let c = try Clubhouse()
        let taps = #"{"net_left": [430, 200], "net_right": [850, 200], "baseline_left": [160, 640], "baseline_right": [1120, 640], "t": [640, 348.5]}"#
        try c.succeed(["tennis", "calibrate", "--image-points", try c.write("taps.json", taps)])
        let drill = #"{"name": "d", "seed": 11, "steps": [{"zone": 12, "speed": 50, "spin": "topspin", "delay": 2}]}"#
        try c.succeed(["tennis", "drill", "save", try c.write("drill.json", drill)])
        for (k, value) in Self.extremes.enumerated() {
            let bad = try safe(c, ["tennis", "calibrate", "--image-points", try c.write("t\(k).json", taps.replacingOccurrences(of: "850", with: value)),
                                   "--camera", "cam\(k)"])
            XCTAssertEqual(bad.exitCode, 2, "\(value): \(bad.stdout)")
            try safe(c, ["tennis", "homography", "--pairs", try c.write("p\(k).json", """
                {"pairs": [{"image": [0, 0], "court": [0, 0]}, {"image": [100, 0], "court": [\(value), 0]}, {"image": [100, 100], "court": [1, 1]},
                           {"image": [0, 100], "court": [0, 1]}]}
                """)])
            let detections = try c.write("d\(k).jsonl", "{\"t\": 0, \"x\": 640, \"y\": 500}\n{\"t\": 1, \"x\": \(value), \"y\": 500}\n"
                + "{\"t\": \(value), \"x\": 640, \"y\": 510}\n")
            try safe(c, ["tennis", "session", "--detections", detections, "--dry-run"])
            try safe(c, ["tennis", "session", "--detections", detections, "--dry-run", "--skip-bad-rows"])
            for step in [#""speed": \#(value)"#, #""delay": \#(value)"#, #""zone": \#(value)"#] {
                let text = drill.replacingOccurrences(of: #""speed": 50"#, with: step.hasPrefix(#""speed""#) ? step : #""speed": 50"#)
                    .replacingOccurrences(of: #""delay": 2"#, with: step.hasPrefix(#""delay""#) ? step : #""delay": 2"#)
                    .replacingOccurrences(of: #""zone": 12"#, with: step.hasPrefix(#""zone""#) ? step : #""zone": 12"#)
                let zoneZero = step.hasPrefix(#""zone""#) && value == "-0"   // zone -0 is zone 0
                XCTAssertEqual(try safe(c, ["tennis", "drill", "validate", try c.write("dr\(k).json", text)]).exitCode, zoneZero ? 0 : 2, text)
            }
            try safe(c, ["tennis", "table", "validate", try c.write("tb\(k).json", #"{"entries": [{"zone": 0, "upper": \#(value)}]}"#)])
        }
        for arguments in [["tennis", "sessions"], ["tennis", "sessions", "--json"], ["tennis", "drill", "list"], ["tennis", "drill", "show", "d"],
                          ["tennis", "table", "show"], ["tennis", "project", "--point", "640,500"], ["tennis", "zone", "4.1,6.4"]] {
            try safe(c, arguments)
        }
    }

    // MARK: putting

    func testPuttingImportsAndEveryReadCommand() throws {
        let presidio = try Clubhouse.requireSharedData("putting/presidio/hole_1")
        let c = try Clubhouse()
        func copy(_ name: String, _ file: String, _ from: String, _ to: String) throws -> String {
            let folder = c.path("\(name)/hole_1")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for item in try FileManager.default.contentsOfDirectory(atPath: presidio.path) where !item.hasSuffix("bestline.json") {
                let data = try Data(contentsOf: presidio.appendingPathComponent(item))
                var bytes = data
                if item == file, var text = String(data: data, encoding: .utf8) {
                    XCTAssertNotNil(text.range(of: from), "\(from) in \(item)")
                    text = text.replacingOccurrences(of: from, with: to)
                    bytes = Data(text.utf8)
                }
                try bytes.write(to: URL(fileURLWithPath: folder + "/" + item))
            }
            return c.path(name)
        }
        try c.succeed(["putting", "course", "import", try copy("ok", "", "", ""), "--id", "ok"])
        let fields: [(String, String)] = [("Hole_1_heightfield.json", #""resolution_ft": 0.5"#), ("Hole_1_heightfield.json", #""x_min_ft": -51.22300298914547"#),
                                          ("Hole_1_boundary.json", #""green_width_ft": 102.44600597829094"#), ("Hole_1_contours.json", #""height_ft": 0.0"#),
                                          ("Hole_1_contours.json", #""contour_interval_ft": 0.25"#), ("config.json", #""contour_interval_ft": 0.25"#),
                                          ("Hole_1_boundary.json", #""x": 4.123511865406272"#)]
        for (k, value) in Self.extremes.enumerated() {
            for (f, (file, field)) in fields.enumerated() {
                let key = field.split(separator: ":")[0]
                let folder = try copy("c\(k)-\(f)", file, field, "\(key): \(value)")
                let result = try safe(c, ["putting", "course", "import", folder, "--id", "c\(k)-\(f)"])
                if result.exitCode == 2 { XCTAssertTrue(result.stderr.contains(folder + "/hole_1/"), result.stderr) }
            }
        }
        let ids = try c.succeed(["putting", "courses", "--json"]).json()["courses"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        XCTAssertTrue(ids.contains("ok"), "\(ids)")
        let putt = ["--hole", "1", "--ball", "0.5,-5.9", "--flag", "14.25,-4.3"]
        // Two of the courses imported with in-range extremes (1e-308, -0), then "ok".
        for id in ids.filter({ $0 != "ok" }).prefix(2) + ["ok"] {
            for arguments in [["putting", "holes", id], ["putting", "bestline", "--course", id, "--model", "compat"] + putt,
                              ["putting", "render", "--course", id, "--hole", "1", "--svg", c.path("\(id).svg")],
                              ["putting", "mesh", "--course", id, "--hole", "1", "--out", c.path("\(id).gltf")],
                              ["putting", "roll", "--course", id, "--aim", "25", "--pace", "1.5"] + putt] {
                try safe(c, arguments)
            }
        }
        try safe(c, ["putting", "courses"])
    }

    // MARK: globe

    func testGlobeImportsAndEveryReadCommand() throws {
        let c = try Clubhouse()
        let ring = "[[[0, 40], [5, 40], [5, 45], [0, 45], [0, 40]]]"
        func geojson(_ ring: String, capitalLat: String = "48.85") -> String {
            """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "id": "FR", "properties": {"name": "France", "continent": "Europe", "capital": "Paris", "capitalLat": \(capitalLat), "capitalLon": 2.35},
               "geometry": {"type": "Polygon", "coordinates": \(ring)}},
              {"type": "Feature", "id": "ES", "properties": {"name": "Spain", "continent": "Europe", "capital": "Madrid", "capitalLat": 40.4, "capitalLon": -3.7},
               "geometry": {"type": "Polygon", "coordinates": [[[-8, 36], [0, 36], [0, 43], [-8, 43], [-8, 36]]]}}]}
            """
        }
        func site(_ file: String) throws -> String {
            try c.write("site-\(UUID().uuidString.prefix(6)).json", """
                {"sites": {"s": {"plugins": {"globe": {"id": "org.clubhouse.globe", "grants": ["storage"], "config": {"countries": "\(file)"}}}}}}
                """)
        }
        var readable: [String] = []
        for (k, value) in Self.extremes.enumerated() {
            for (n, text) in [geojson(ring.replacingOccurrences(of: "[5, 40]", with: "[\(value), 40]")),
                              geojson(ring.replacingOccurrences(of: "[5, 45]", with: "[5, \(value)]")), geojson(ring, capitalLat: value)].enumerated() {
                let file = try c.write("g\(k)-\(n).json", text)
                let triangulated = try safe(c, ["globe", "triangulate", "--geojson", file])
                let config = try site(file)
                let listed = try safe(c, ["--config", config, "globe", "list", "--user", "me"])
                // triangulate checks the geometry; loading a country set checks every property too.
                if !Self.harmless.contains(value) {
                    XCTAssertEqual(listed.exitCode, 2, "\(value): \(listed.stdout)")
                    if n < 2 { XCTAssertEqual(triangulated.exitCode, 2, "\(value): \(triangulated.stdout)") }
                }
                if listed.exitCode == 0 { readable.append(config) }
            }
        }
        XCTAssertFalse(readable.isEmpty)
        for (i, config) in (readable.prefix(1) + [try site(try c.write("ok.json", geojson(ring)))]).enumerated() {
            let user = "me\(i)"
            for arguments in [["globe", "visit", "FR", "--user", user], ["globe", "list", "--user", user], ["globe", "stats", "--user", user],
                              ["globe", "where", "--lat", "42", "--lon", "2"], ["globe", "map", "--user", user, "--svg", c.path("m.svg")],
                              ["globe", "silhouette", "FR", "--svg", c.path("s.svg")], ["globe", "mesh", "--out", c.path("g.gltf")],
                              ["globe", "mesh", "--out", c.path("g.obj")], ["globe", "challenge", "show", "--date", "2026-01-03"],
                              ["globe", "challenge", "calendar", "--date", "2026-01-03"], ["globe", "highlights", "FR", "--user", user]] {
                try safe(c, ["--config", config] + arguments)
            }
        }
    }

    // MARK: SQLite, directly

    /// Runs SQL on a plugin's database as another program would (no host, no plugin).
    private func sqlite(_ path: String, _ sql: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            XCTFail("cannot open \(path)", file: file, line: line)
            return
        }
        defer { sqlite3_close(db) }
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &error) != SQLITE_OK {
            XCTFail("SQL failed: \(error.map { String(cString: $0) } ?? "?")\n\(sql)", file: file, line: line)
            sqlite3_free(error)
        }
    }
}
