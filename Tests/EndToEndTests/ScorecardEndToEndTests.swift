// The scorecard plugin as a user meets it through the built `clubhouse` binary: players, courses,
// a round scored hole by hole, the leaderboard, finishing, the index with its record, the pure
// calculators with --json, the seed import, the demo, and the errors a user can cause.

import ClubhouseJSON
import Foundation
import XCTest

final class ScorecardEndToEndTests: XCTestCase {
    /// A 9-hole course written by the test (par 35, stroke indexes 1–9).
    private let nineHoleCourse = """
        {"name": "Test Nine", "tees": [{"name": "Red", "rating": 34.1, "slope": 118, "holes": [
          {"par": 4, "strokeIndex": 1}, {"par": 3, "strokeIndex": 5}, {"par": 5, "strokeIndex": 3},
          {"par": 4, "strokeIndex": 2}, {"par": 4, "strokeIndex": 8}, {"par": 3, "strokeIndex": 9},
          {"par": 4, "strokeIndex": 4}, {"par": 4, "strokeIndex": 6}, {"par": 4, "strokeIndex": 7}]}]}
        """

    func testCalculatorsMatchTheDomainOraclesWithStableJSON() throws {
        let c = try Clubhouse()
        let d = try c.succeed(["scorecard", "differential", "--ags", "94", "--rating", "73.0", "--slope", "125", "--json"]).json()
        XCTAssertEqual(JSONWriter.compact(d["differential"] ?? .null), "19.0")
        XCTAssertEqual(try c.succeed(["scorecard", "differential", "--ags", "94", "--rating", "73.0", "--slope", "125"]).stdout,
                       "Score Differential 19.0  (113 / 125 × (94 − 73.0 − 0.0) = 18.984)\n")
        let i = try c.succeed(["scorecard", "index-from", "--differentials", "15.3,15.2,16.6", "--json"]).json()
        XCTAssertEqual(JSONWriter.compact(i["index"] ?? .null), "13.2")
        let twenty = (Array(repeating: "11.6", count: 8) + Array(repeating: "30.0", count: 12)).joined(separator: ",")
        let capped = try c.succeed(["scorecard", "index-from", "--differentials", twenty, "--low-index", "6.5", "--json"]).json()
        XCTAssertEqual(JSONWriter.compact(capped["index"] ?? .null), "10.6")
        XCTAssertEqual(capped["softCapApplied"], .bool(true))
        let ch = try c.succeed(["scorecard", "course-handicap", "--index", "8.7", "--slope", "121", "--rating", "35.3",
                                "--par", "36", "--holes", "9", "--json"]).json()
        XCTAssertEqual(ch["courseHandicap"]?.intValue, 4)
        XCTAssertEqual(JSONWriter.compact(ch["nineHoleIndex"] ?? .null), "4.4")
        let strokes = try c.succeed(["scorecard", "strokes", "--course-handicap", "12",
                                     "--stroke-indexes", "7,11,15,1,5,9,17,13,3,8,16,4,12,2,10,18,6,14", "--json"]).json()
        XCTAssertEqual(strokes["strokes"]?.arrayValue?.compactMap(\.intValue), [1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0])
        let plus = try c.succeed(["scorecard", "strokes", "--course-handicap", "+2", "--stroke-indexes", "1,2,3,4,5,6,7,8,9", "--json"]).json()
        XCTAssertEqual(plus["strokes"]?.arrayValue?.compactMap(\.intValue), [0, 0, 0, 0, 0, 0, 0, -1, -1])
        let help = try c.succeed(["scorecard", "index-from", "--help"]).stdout
        XCTAssertTrue(help.contains("softCapApplied"), help)
    }

    func testCalculatorErrorsAreOneLineWithExitCode2() throws {
        let c = try Clubhouse()
        try c.fail(["scorecard", "differential", "--ags", "94", "--rating", "73.0", "--slope", "160"], exitCode: 2,
                   contains: ["--slope 160 is outside 55–155"])
        try c.fail(["scorecard", "differential", "--ags", "94", "--rating", "73.05", "--slope", "125"], exitCode: 2,
                   contains: ["--rating '73.05' is not a decimal with at most one digit after the point"])
        try c.fail(["scorecard", "strokes", "--course-handicap", "10", "--stroke-indexes", "1,2,3,4,5,6,7,8,8"], exitCode: 2,
                   contains: ["stroke index 8 is on holes 8 and 9, stroke index 9 is missing"])
        try c.fail(["scorecard", "differential", "--ags", "42", "--rating", "35.3", "--slope", "121", "--holes", "9"], exitCode: 2,
                   contains: ["--index (the expected score of a 9-hole round needs the Handicap Index) is required"])
    }

    func testPlayersCoursesRoundLeaderboardFinishAndRecord() throws {
        let c = try Clubhouse()
        try c.succeed(["scorecard", "player", "add", "Ann"])
        try c.succeed(["scorecard", "player", "add", "Ben"])
        try c.fail(["scorecard", "player", "add", "ann"], exitCode: 2, contains: ["a player named 'ann' already exists"])
        let file = try c.write("nine.json", nineHoleCourse)
        let added = try c.succeed(["scorecard", "course", "add", file, "--json"]).json()
        XCTAssertEqual(added["id"]?.intValue, 1)
        XCTAssertTrue(try c.succeed(["scorecard", "course", "show", "Test Nine"]).stdout.contains("par    4  3  5"))

        // Four 9-hole rounds for Ann, all holes one over par (no index yet: the nines are held until 54 holes).
        let pars = [4, 3, 5, 4, 4, 3, 4, 4, 4]
        for (n, date) in ["2024-04-01", "2024-04-02", "2024-04-03", "2024-04-04"].enumerated() {
            let started = try c.succeed(["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--players", "Ann,Ben",
                                         "--date", date, "--holes", "9", "--json"]).json()
            let round = started["round"]?["id"]?.intValue ?? 0
            XCTAssertEqual(round, n + 1)
            for (h, par) in pars.enumerated() {
                try c.succeed(["scorecard", "score", "--round", "\(round)", "--player", "Ann", "--hole", "\(h + 1)", "--strokes", "\(par + 1)"])
            }
            try c.succeed(["scorecard", "score", "--round", "\(round)", "--player", "Ben", "--hole", "1", "--strokes", "4"])
            let board = try c.succeed(["scorecard", "leaderboard", "--round", "\(round)", "--json"]).json()
            let ann = board["lines"]?.arrayValue?.first { $0["name"]?.stringValue == "Ann" }
            XCTAssertEqual(ann?["holesPlayed"]?.intValue, 9)
            XCTAssertEqual(ann?["gross"]?.intValue, 44)
            XCTAssertEqual(ann?["toPar"]?.intValue, 9)
            try c.succeed(["scorecard", "round", "finish", "\(round)", "--yes"])
        }
        // 2024 Rules (Rule 5.2a; USGA FAQ on new players' 9-hole scores): 36 holes posted, no index and no
        // expected score yet, so each nine is held without a differential; `index` says which rule applies.
        let record = try c.succeed(["scorecard", "index", "Ann", "--json"]).json()
        XCTAssertEqual(record["index"], .null)
        let diffs = record["scores"]?.arrayValue?.compactMap { $0["outcome"]?["differential"] }.filter { !$0.isNull } ?? []
        XCTAssertEqual(diffs.count, 0)
        XCTAssertEqual(record["scores"]?.arrayValue?.compactMap { $0["outcome"]?["rule"]?.stringValue },
                       Array(repeating: "9 holes held: no index and fewer than 54 holes posted (Rule 5.2a, 2024)", count: 4))
        XCTAssertTrue(try c.succeed(["scorecard", "index", "Ann"]).stdout.contains("9 holes, held until 54 holes"))
        try c.fail(["scorecard", "score", "--round", "1", "--player", "Ann", "--hole", "2", "--strokes", "4"], exitCode: 1,
                   contains: ["round 1 was finished on", "is final"])
        try c.fail(["scorecard", "score", "--round", "4", "--player", "Ann", "--hole", "10", "--strokes", "4"], exitCode: 1,
                   contains: ["is final"])
        let open = try c.succeed(["scorecard", "round", "start", "--course", "Test Nine", "--tee", "Red", "--players", "Ann",
                                  "--holes", "9", "--json"]).json()["round"]?["id"]?.intValue ?? 0
        try c.fail(["scorecard", "score", "--round", "\(open)", "--player", "Ann", "--hole", "10", "--strokes", "4"], exitCode: 2,
                   contains: ["hole 10 is not played in round \(open) (holes 1–9)"])
        try c.fail(["scorecard", "score", "--round", "\(open)", "--player", "Ann", "--hole", "1", "--strokes", "21"], exitCode: 2,
                   contains: ["21 strokes on hole 1 is outside 1–20"])
        try c.fail(["scorecard", "score", "--round", "\(open)", "--player", "Zed", "--hole", "1", "--strokes", "4"], exitCode: 2,
                   contains: ["no player 'Zed'"])
        try c.fail(["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--players", "Ann", "--holes", "18"], exitCode: 2,
                   contains: ["tee 'Red' has 9 holes; an 18-hole round needs an 18-hole tee"])
        let rounds = try c.succeed(["scorecard", "rounds", "--json"]).json()["rounds"]?.arrayValue ?? []
        XCTAssertEqual(rounds.count, 5)
        XCTAssertTrue(try c.succeed(["scorecard", "player", "list"]).stdout.contains("Ann"))
    }

    func testCourseFileErrorsNameTheLine() throws {
        let c = try Clubhouse()
        let bad = try c.write("bad.json", nineHoleCourse.replacingOccurrences(of: "\"slope\": 118", with: "\"slope\": 40"))
        try c.fail(["scorecard", "course", "add", bad], exitCode: 2, contains: ["bad.json:1:73: slope rating 40 is outside 55–155"])
        let par = try c.write("par.json", nineHoleCourse.replacingOccurrences(of: "{\"par\": 3, \"strokeIndex\": 5}",
                                                                              with: "{\"par\": 2, \"strokeIndex\": 5}"))
        try c.fail(["scorecard", "course", "add", par], exitCode: 2, contains: ["hole 2 has par 2; par must be 3 to 6"])
        XCTAssertEqual(try c.succeed(["scorecard", "course", "list", "--json"]).json()["courses"]?.arrayValue?.count, 0)
        try c.fail(["scorecard", "course", "add", c.path("missing.json")], exitCode: 2, contains: ["missing.json: cannot read (No such file or directory); check the path"])
    }

    func testSeedImportReportsTheDefect() throws {
        let seed = try Clubhouse.requireSharedData("scorecard/default_seed.json")
        let c = try Clubhouse()
        let report = try c.succeed(["scorecard", "import", seed.path, "--json"]).json()
        XCTAssertEqual(report["coursesAdded"]?.arrayValue?.count, 2)
        XCTAssertEqual(report["playersAdded"]?.arrayValue?.count, 4)
        let error = report["rejected"]?.arrayValue?.first?["error"]?.stringValue ?? ""
        XCTAssertTrue(error.hasSuffix("default_seed.json:110:18: course 'Augusta National Golf Club': tee 'Default' has invalid stroke indexes: "
            + "stroke index 4 is on holes 13 and 17, stroke index 14 is missing — each of 1–18 must appear exactly once"), error)
    }

    func testDemoWritesItsReportAndFillsTheDatabase() throws {
        let c = try Clubhouse()
        let out = c.path("demo")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let text = try c.succeed(["scorecard", "demo", "--out", out]).stdout
        XCTAssertTrue(text.contains("Live leaderboard"), text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/demo.json"))
        let players = try c.succeed(["scorecard", "player", "list", "--json"]).json()["players"]?.arrayValue ?? []
        XCTAssertEqual(players.count, 4)
        XCTAssertTrue(try c.succeed(["scorecard", "index", "Maren Holt"]).stdout.contains("Low Handicap Index"))
        // A second demo leaves the now non-empty database alone.
        let again = try c.succeed(["scorecard", "demo", "--out", out]).stdout
        XCTAssertTrue(again.contains("the demo ran in memory"), again)
        XCTAssertEqual(try c.succeed(["scorecard", "player", "list", "--json"]).json()["players"]?.arrayValue?.count, 4)
    }
}
