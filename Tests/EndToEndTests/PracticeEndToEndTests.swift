// The practice plugin as a user meets it through the built `clubhouse` binary: canonical hashes,
// templates, importing the kernel's exports, sessions, trends with a chart, the export, the demo,
// and the errors a user can cause.

import ClubhouseJSON
import Foundation
import XCTest

final class PracticeEndToEndTests: XCTestCase {
    func testHashAndCanonicalizeMatchTheKernelOracles() throws {
        let c = try Clubhouse()
        let hashes = try JSONParser.parse(String(contentsOf: try Clubhouse.requireSharedData("practice/template_hashes.json"), encoding: .utf8))
        for name in ["fixture_a", "fixture_b", "fixture_c"] {
            let file = try Clubhouse.requireSharedData("practice/templates/\(name).json").path
            XCTAssertEqual(try c.succeed(["practice", "hash", file]).stdout, (hashes[name]?.stringValue ?? "?") + "\n")
        }
        // Standard input, both profiles, exact canonical bytes (no newline added).
        XCTAssertEqual(try c.succeed(["practice", "canonicalize", "-"], stdin: #"{"b":-0.0,"a":1e21,"c":1.0}"#).stdout,
                       #"{"a":1e+21,"b":-0.0,"c":1.0}"#)
        XCTAssertEqual(try c.succeed(["practice", "canonicalize", "-", "--profile", "rfc8785"], stdin: #"{"b":-0.0,"a":1e21,"c":1.0}"#).stdout,
                       #"{"a":1e+21,"b":0,"c":1}"#)
        let json = try c.succeed(["practice", "canonicalize", "-", "--json"], stdin: #"{"z":1,"a":2}"#).json()
        XCTAssertEqual(json["canonical"]?.stringValue, #"{"a":2,"z":1}"#)
        XCTAssertEqual(json["sha256"]?.stringValue, "c2985c5ba6f7d2a55e768f92490ca09388e95bc4cccb9fdf11b15f4d42f93e73")
    }

    func testHashJSONLinesRefusesBadLinesUnlessAskedToSkipThem() throws {
        let c = try Clubhouse()
        let file = try c.write("docs.jsonl", "{\"a\":\"x\u{2028}y\"}\n[NaN]\n\n{\"z\":1,\"a\":2}\n")
        // By default a bad line is an invalid input (exit 2), named with file:line:column; no hash is printed.
        let refused = try c.fail(["practice", "hash", file, "--jsonl"], exitCode: 2,
                                 contains: ["\(file):2:2: NaN is not a JSON number", "1 of 3 lines is not valid JSON", "--skip-bad-lines"])
        XCTAssertEqual(refused.stdout, "")
        let out = try c.succeed(["practice", "hash", file, "--jsonl", "--skip-bad-lines"]).stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(out.count, 3)
        XCTAssertEqual(out[1], "ERROR \(file):2:2: NaN is not a JSON number")
        XCTAssertEqual(out[2], "c2985c5ba6f7d2a55e768f92490ca09388e95bc4cccb9fdf11b15f4d42f93e73")
        let json = try c.succeed(["practice", "hash", file, "--jsonl", "--skip-bad-lines", "--json"]).json()
        XCTAssertEqual(json["documents"]?.arrayValue?.map { $0["line"]?.intValue ?? 0 }, [1, 2, 4])
    }

    func testCanonicalizeErrorsAreOneLineWithFileLineColumn() throws {
        let c = try Clubhouse()
        let bad = try c.write("bad.json", "{\n  \"a\": 1,\n  \"a\": 2\n}")
        try c.fail(["practice", "canonicalize", bad], exitCode: 2, contains: ["\(bad):3:3: duplicate key \"a\" in object"])
        try c.fail(["practice", "hash", "-"], exitCode: 2, stdin: "[1e400]", contains: ["-:1:2: number 1e400 is outside the range of a double"])
        try c.fail(["practice", "canonicalize", c.path("missing.json")], exitCode: 2, contains: ["missing.json: cannot read"])
        try c.fail(["practice", "canonicalize", bad, "--profile", "jcs"], exitCode: 2, contains: ["jcs"])
    }

    func testImportOracleSessionsTrendsAndExport() throws {
        let c = try Clubhouse()
        let sample = try Clubhouse.requireSharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv").path
        let real = try Clubhouse.requireSharedData("practice/sessions/fixture_mlm2pro_shotexport_anonymized.csv").path
        let fixtureA = try Clubhouse.requireSharedData("practice/templates/fixture_a.json").path

        // Two-club sample graded by fixture_a: 7i 6 shots A=5 B=0 C=1.
        let imported = try c.succeed(["practice", "import", sample, "--template", fixtureA, "--date", "2026-01-20", "--json"]).json()
        let seven = imported["clubs"]?.arrayValue?.first { $0["analysis"]?["club"]?.stringValue == "7i" }?["analysis"]
        XCTAssertEqual(seven?["shot_count"]?.intValue, 6)
        XCTAssertEqual(seven?["a_count"]?.intValue, 5)
        XCTAssertEqual(seven?["b_count"]?.intValue, 0)
        XCTAssertEqual(seven?["c_count"]?.intValue, 1)
        XCTAssertEqual(seven?["template_hash"]?.stringValue, "96bf2f0d9540211669916f580aaec0ac26d1a14e8d2fdd35cee2172595f86698")

        // The same file again: refused, nothing written.
        // It is the request that is wrong, not the world: `constraint` (exit 1 by the README's rule, HTTP 409).
        try c.fail(["practice", "import", sample], contains: ["already imported as session 1", "nothing was written",
                                                              "see it with `practice session 1`, or delete it (`practice session delete 1`) to import the file anew"])
        let again = try c.run(["--json", "practice", "import", sample])
        XCTAssertEqual(again.exitCode, 1, again.stderr)
        XCTAssertEqual(try again.json()["error"]?["status"]?.stringValue, "constraint")

        // The real export: 59 shots, footers ignored, title date used.
        let realImport = try c.succeed(["practice", "import", real, "--location", "Home range", "--json"]).json()
        XCTAssertEqual(realImport["session"]?["shot_count"]?.intValue, 59)
        XCTAssertEqual(realImport["session"]?["session_date"]?.stringValue, "2026-01-27T16:30")
        XCTAssertEqual(realImport["footer_rows"]?.intValue, 2)

        let sessions = try c.succeed(["practice", "sessions", "--json"]).json()["sessions"]?.arrayValue ?? []
        XCTAssertEqual(sessions.count, 2)
        let detail = try c.succeed(["practice", "session", "1"]).stdout
        XCTAssertTrue(detail.contains("ALL SHOTS (6)") && detail.contains("A SHOTS ONLY (5)"), detail)

        let svg = c.path("charts/7i.svg")
        try FileManager.default.createDirectory(atPath: c.path("charts"), withIntermediateDirectories: true)
        let trend = try c.succeed(["practice", "trends", "--club", "7I", "--svg", svg, "--json"]).json()
        XCTAssertEqual(trend["points"]?.arrayValue?.count, 2)
        let weighted = trend["weighted_a_percent"]?.doubleValue ?? -1
        let a = (trend["points"]?.arrayValue ?? []).compactMap { $0["a_count"]?.intValue }.reduce(0, +)
        XCTAssertEqual(weighted, Double(a) / 65 * 100, accuracy: 1e-9)
        let chart = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(chart.hasPrefix("<svg") && chart.contains("<polyline"), chart)
        let strict = try c.succeed(["practice", "trends", "--club", "7i", "--min-validity", "valid"]).stdout
        XCTAssertTrue(strict.contains("excluded session 1"), strict)

        // The export is canonical raid-v2 JSON and its hash is the hash of exactly those bytes.
        let exported = try c.succeed(["practice", "export", "1"]).stdout
        let withHash = try c.succeed(["practice", "export", "1", "--json"]).json()
        XCTAssertEqual(exported, (withHash["canonical_json"]?.stringValue ?? "") + "\n")
        let exportFile = try c.write("export.json", String(exported.dropLast()))
        XCTAssertEqual(try c.succeed(["practice", "hash", exportFile]).stdout, (withHash["sha256"]?.stringValue ?? "") + "\n")
    }

    func testTemplateLibraryCommands() throws {
        let c = try Clubhouse()
        let list = try c.succeed(["practice", "template", "list", "--json"]).json()["templates"]?.arrayValue ?? []
        XCTAssertEqual(list.count, 10, "bundled defaults on first use")
        let mine = try c.write("mine.json", #"{"schema_version":"1.0","club":"7 Iron","aggregation_method":"worst_metric","metrics":{"carry":{"a_min":150,"b_min":140}}}"#)
        let added = try c.succeed(["practice", "template", "add", mine, "--json"]).json()
        let hash = added["template"]?["hash"]?.stringValue ?? ""
        XCTAssertEqual(added["activated"], .bool(true))
        XCTAssertEqual(added["template"]?["club"]?.stringValue, "7i")
        try c.succeed(["practice", "template", "rename", String(hash.prefix(8)), "Carry 150"])
        XCTAssertTrue(try c.succeed(["practice", "template", "show", "Carry 150"]).stdout.contains("carry: A ≥ 150 yd, B ≥ 140 yd, else C"))
        let copy = try c.succeed(["practice", "template", "duplicate", hash, "--club", "6i", "--set", "carry.a_min=140,carry.b_min=130", "--json"]).json()
        XCTAssertEqual(copy["template"]?["club"]?.stringValue, "6i")
        let copyHash = copy["template"]?["hash"]?.stringValue ?? ""
        // A name another template has is refused, naming it (constraint, exit 1); nothing changes.
        let taken = "template \(hash.prefix(12)) (7i) is already named 'Carry 150'; choose another name, or rename that one first "
            + "(practice template rename \(hash.prefix(12)) NEW-NAME)"
        try c.fail(["practice", "template", "rename", copyHash, "Carry 150"], contains: [taken])
        let renamed = try c.run(["--json", "practice", "template", "rename", copyHash, "Carry 150"])
        XCTAssertEqual(renamed.exitCode, 1, renamed.stderr)
        XCTAssertEqual(try renamed.json()["error"]?["status"]?.stringValue, "constraint")
        try c.fail(["practice", "template", "duplicate", hash, "--club", "5i", "--name", "Carry 150"], contains: [taken])
        XCTAssertEqual(try c.succeed(["practice", "template", "show", "Carry 150", "--json"]).json()["template"]?["hash"]?.stringValue, hash)
        // An unknown club is refused by every --club (exit 2), listing the clubs; nothing is stored.
        let notAClub = "--club 'not a club' is not a known club; a club is a driver (dr), a wood (3w), a hybrid (4h), an iron (7i), "
            + "a wedge (pw, gw, sw, lw, or a loft of 40–70° such as 56deg) or the putter"
        for command in [["template", "duplicate", hash], ["template", "list"], ["trends"], ["dispersion"], ["live", "--device", "nowhere"]] {
            try c.fail(["practice"] + command + ["--club", "not a club"], exitCode: 2, contains: [notAClub])
        }
        let clubs = Set((try c.succeed(["practice", "template", "list", "--all", "--json"]).json()["templates"]?.arrayValue ?? [])
            .compactMap { $0["club"]?.stringValue })
        XCTAssertFalse(clubs.contains("notaclub"), "\(clubs)")
        try c.fail(["practice", "template", "hide", hash], contains: ["is the active template for 7i"])
        let bundled7i = list.first { $0["club"]?.stringValue == "7i" }?["hash"]?.stringValue ?? ""
        try c.succeed(["practice", "template", "activate", bundled7i])
        try c.succeed(["practice", "template", "hide", hash])
        let visible = try c.succeed(["practice", "template", "list", "--club", "7i", "--json"]).json()["templates"]?.arrayValue ?? []
        XCTAssertEqual(visible.map { $0["hash"]?.stringValue ?? "" }, [bundled7i])
        try c.fail(["practice", "template", "show", "nope"], exitCode: 2, contains: ["no template matches 'nope'"])
        let bad = try c.write("bad-template.json", #"{"schema_version":"1.0","club":"7i","aggregation_method":"average","metrics":{}}"#)
        try c.fail(["practice", "template", "add", bad], exitCode: 2,
                   contains: ["bad-template.json:1:58: aggregation_method \"average\" is not supported"])
    }

    func testImportErrorsNameTheFileAndLine() throws {
        let c = try Clubhouse()
        let noHeader = try c.write("nohead.csv", "a,b\n1,2\n3,4\n5,6\n")
        try c.fail(["practice", "import", noHeader], exitCode: 2, contains: ["nohead.csv:1: no MLM2PRO header in the first 3 rows"])
        let badNumber = try c.write("bad.csv", "\"Club Type\",\"Ball Speed\",\"Smash Factor\",\"Spin Rate\",\"Descent Angle\"\n\"7i\",\"fast\",\"1.3\",\"5000\",\"45\"\n")
        try c.fail(["practice", "import", badNumber], exitCode: 2, contains: ["bad.csv:2:6: Ball Speed is \"fast\", not a number"])
        try c.fail(["practice", "import", badNumber, "--date", "tomorrow"], exitCode: 2, contains: ["--date 'tomorrow' is not a date"])
        try c.fail(["practice", "session", "42"], exitCode: 2, contains: ["no session 42"])
        try c.fail(["practice", "trends", "--club", "7i"], exitCode: 2, contains: ["no sessions have 7i shots; import a session first"])
        XCTAssertEqual(try c.succeed(["practice", "sessions", "--json"]).json()["sessions"]?.arrayValue?.count, 0)
    }

    /// 150 shots: two full batches of the bulk insert and 22 single inserts.
    func testImportOfMoreShotsThanOneInsertBatch() throws {
        let c = try Clubhouse()
        let header = #""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle","Carry Distance""#
        var lines = [header]
        for i in 0..<150 {
            lines.append("\"\(i % 3 == 0 ? "PW" : "7i")\",\"\(95 + i % 15)\",\"1.\(20 + i % 15)\",\"\(4000 + 20 * i)\",\"\(40 + i % 10)\",\"\(130 + i % 25)\"")
        }
        let file = try c.write("many.csv", lines.joined(separator: "\n") + "\n")
        let result = try c.succeed(["practice", "import", file, "--json"]).json()
        XCTAssertEqual(result["session"]?["shot_count"]?.intValue, 150)
        let counts = (result["clubs"]?.arrayValue ?? []).compactMap { $0["analysis"]?["shot_count"]?.intValue }
        XCTAssertEqual(counts, [50, 100])
        let summary = try c.succeed(["practice", "export", "1", "--json"]).json()
        XCTAssertEqual(summary["summary"]?["shot_count"]?.intValue, 150)
        // Every stored shot is the row it came from, in every column (bulk and single inserts alike).
        let shots = try c.succeed(["practice", "session", "1", "--shots", "--json"]).json()["shots"]?.arrayValue ?? []
        XCTAssertEqual(shots.count, 150)
        for (i, shot) in shots.enumerated() {
            XCTAssertEqual(shot["row_index"]?.intValue, i + 2)
            XCTAssertEqual(shot["club"]?.stringValue, i % 3 == 0 ? "pw" : "7i")
            XCTAssertEqual(shot["measurements"]?["spin_rate"]?.doubleValue, Double(4000 + 20 * i))
            XCTAssertEqual(shot["measurements"]?["carry"]?.doubleValue, Double(130 + i % 25))
            XCTAssertEqual(try JSONParser.parse(shot["raw"]?.stringValue ?? "").arrayValue?[3].stringValue, "\(4000 + 20 * i)")
        }
    }

    func testDemoWritesExportsChartAndSummary() throws {
        let c = try Clubhouse()
        let out = c.path("demo-out")
        let demo = try c.succeed(["practice", "demo", "--out", out, "--json"]).json()
        XCTAssertEqual(demo["sessions"]?.arrayValue?.count, 6)
        for file in demo["files"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: file), file)
        }
        let svg = try String(contentsOfFile: out + "/trend-7i.svg", encoding: .utf8)
        XCTAssertTrue(svg.contains("<polyline"))
        // 1.1: the 7-iron's dispersion picture, the distance chart, and a live session from the simulator.
        XCTAssertTrue(try String(contentsOfFile: out + "/dispersion-7i.svg", encoding: .utf8).contains("class=\"ellipse\""))
        XCTAssertTrue(try String(contentsOfFile: out + "/distances.svg", encoding: .utf8).contains("class=\"carry\""))
        XCTAssertEqual(demo["live"]?["shots"]?.arrayValue?.count, 12)
        XCTAssertEqual(demo["live"]?["reason"]?.stringValue, "stream ended")
        // Graded by the demo's live template (the 7i default without descent angle), not all C.
        let liveTemplate = try XCTUnwrap(demo["live_template"]?["hash"]?.stringValue)
        let liveShots = demo["live"]?["shots"]?.arrayValue ?? []
        XCTAssertTrue(liveShots.allSatisfy { $0["template_hash"]?.stringValue == liveTemplate })
        XCTAssertTrue(liveShots.contains { $0["grade"]?.stringValue != "C" }, "\(liveShots.map { $0["grade"] })")
        XCTAssertNotNil(demo["dispersion"]?["ellipse"]?["semi_major"]?.doubleValue)
        // The sessions landed in the site's database (the six imports and the live one): they can be
        // listed and re-imports are refused.
        let sessions = try c.succeed(["practice", "sessions", "--json"]).json()["sessions"]?.arrayValue ?? []
        XCTAssertEqual(sessions.count, 7)
        XCTAssertEqual(sessions.filter { $0["session"]?["source_name"]?.stringValue == "live:simulator" }.count, 1)
        try c.fail(["practice", "import", out + "/demo-session-1.csv"], contains: ["already imported as session 1"])
    }
}
