// Scorecard 1.1 through the built `clubhouse` binary: a Stableford round, a match decided early, skins,
// a correction with a reason in a finished round, the entry history, a site's allowance from its config,
// and the one-line errors of these commands (nothing written).

import ClubhouseJSON
import Foundation
import XCTest

final class ScorecardFormatsEndToEndTests: XCTestCase {
    /// Pars 4 3 5 4 4 3 4 4 4 (35), stroke indexes 1 5 3 2 8 9 4 6 7; 34.1/118.
    private let nineHoleCourse = """
        {"name": "Test Nine", "tees": [{"name": "Red", "rating": 34.1, "slope": 118, "holes": [
          {"par": 4, "strokeIndex": 1}, {"par": 3, "strokeIndex": 5}, {"par": 5, "strokeIndex": 3},
          {"par": 4, "strokeIndex": 2}, {"par": 4, "strokeIndex": 8}, {"par": 3, "strokeIndex": 9},
          {"par": 4, "strokeIndex": 4}, {"par": 4, "strokeIndex": 6}, {"par": 4, "strokeIndex": 7}]}]}
        """

    private func setUp(_ c: Clubhouse, config: [String]? = nil) throws -> [String] {
        let prefix = config ?? []
        for name in ["Ann", "Ben", "Cy"] { try c.succeed(prefix + ["scorecard", "player", "add", name]) }
        try c.succeed(prefix + ["scorecard", "course", "add", try c.write("nine.json", nineHoleCourse)])
        return prefix
    }

    private func score(_ c: Clubhouse, _ prefix: [String], round: Int, player: String, _ strokes: [Int]) throws {
        for (h, s) in strokes.enumerated() {
            try c.succeed(prefix + ["scorecard", "score", "--round", "\(round)", "--player", player, "--hole", "\(h + 1)", "--strokes", "\(s)"])
        }
    }

    func testStablefordMatchSkinsAndTheirErrors() throws {
        let c = try Clubhouse()
        let p = try setUp(c)
        func start(_ format: String, _ players: String, _ extra: [String] = []) throws -> Int {
            try c.succeed(["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--holes", "9", "--players", players,
                           "--date", "2024-05-01", "--format", format, "--json"] + extra).json()["round"]?["id"]?.intValue ?? 0
        }
        // Stableford without indexes (Rule 21.1b): Ann 4 3 4 → par, par, birdie = 2 + 2 + 3 = 7; Ben 5 5 → 1 + 0 = 1.
        let s = try start("stableford", "Ann,Ben")
        try score(c, p, round: s, player: "Ann", [4, 3, 4])
        try score(c, p, round: s, player: "Ben", [5, 5])
        let board = try c.succeed(["scorecard", "leaderboard", "--round", "\(s)", "--json"]).json()
        XCTAssertEqual(board["stableford"]?.arrayValue?.compactMap { $0["points"]?.intValue }, [7, 1])
        XCTAssertTrue(try c.succeed(["scorecard", "leaderboard", "--round", "\(s)"]).stdout.contains("individual Stableford 95%"))

        // Match play (Rule 3.2): Ann wins holes 1–5 → 5 up with 4 to play → 5&4; hole 6 is refused.
        let m = try start("match-play", "Ann,Ben")
        try score(c, p, round: m, player: "Ann", [4, 3, 5, 4, 4])
        try score(c, p, round: m, player: "Ben", [5, 4, 6, 5, 5])
        let match = try c.succeed(["scorecard", "leaderboard", "--round", "\(m)", "--json"]).json()["match"]
        XCTAssertEqual(match?["result"]?.stringValue, "5&4")
        try c.fail(["scorecard", "score", "--round", "\(m)", "--player", "Ben", "--hole", "6", "--strokes", "3"], exitCode: 2,
                   contains: ["the match of round \(m) is already decided (Ann wins 5&4 after hole 5) — hole 6 is not played"])

        // Skins, gross, carry-overs on: h1 tie (carried), h2 Cy 2 → 2 skins.
        let k = try start("skins", "Ann,Ben,Cy", ["--skins", "gross"])
        try score(c, p, round: k, player: "Ann", [4, 3])
        try score(c, p, round: k, player: "Ben", [4, 3])
        try score(c, p, round: k, player: "Cy", [5, 2])
        let skins = try c.succeed(["scorecard", "leaderboard", "--round", "\(k)"]).stdout
        XCTAssertTrue(skins.contains("gross skins, carry-overs on"), skins)
        XCTAssertTrue(skins.contains("2: Cy (2)"), skins)

        try c.fail(["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--holes", "9", "--players", "Ann", "--format", "scramble"],
                   exitCode: 2, contains: ["format 'scramble' is unknown — use one of stroke-play, stableford"])
        try c.fail(["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--holes", "9", "--players", "Ann",
                    "--format", "stableford", "--allowance", "150"],
                   exitCode: 2, contains: ["--allowance: allowance 150 % is outside 0–100 %"])
        try c.fail(["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--holes", "9", "--players", "Ann", "--format", "match-play"],
                   exitCode: 2, contains: ["individual match play needs exactly 2 players; --players lists 1"])
        XCTAssertEqual(try c.succeed(["scorecard", "rounds", "--json"]).json()["rounds"]?.arrayValue?.count, 3)
    }

    func testCorrectionInAFinishedRoundKeepsHistory() throws {
        let c = try Clubhouse()
        let p = try setUp(c)
        let round = try c.succeed(["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--holes", "9", "--players", "Ann",
                                   "--date", "2024-05-01", "--json"]).json()["round"]?["id"]?.intValue ?? 0
        try score(c, p, round: round, player: "Ann", [5, 4, 6, 5, 5, 4, 5, 5, 5])
        try c.succeed(["scorecard", "round", "finish", "\(round)"])
        try c.fail(["scorecard", "score", "--round", "\(round)", "--player", "Ann", "--hole", "3", "--strokes", "5"], exitCode: 1,
                   contains: ["is final"])
        let fixed = try c.succeed(["scorecard", "correct", "--round", "\(round)", "--player", "Ann", "--hole", "3", "--strokes", "7",
                                   "--reason", "penalty stroke left off", "--json"]).json()
        XCTAssertEqual(fixed["replaced"]?.intValue, 6)
        XCTAssertEqual(fixed["entry"]?["reason"]?.stringValue, "penalty stroke left off")
        let history = try c.succeed(["scorecard", "entries", "--round", "\(round)", "--json"]).json()["entries"]?.arrayValue ?? []
        XCTAssertEqual(history.count, 10)
        XCTAssertEqual(history.filter { $0["hole"]?.intValue == 3 }.compactMap { $0["strokes"]?.intValue }, [6, 7])
        let board = try c.succeed(["scorecard", "leaderboard", "--round", "\(round)", "--json"]).json()
        XCTAssertEqual(board["lines"]?.arrayValue?.first?["gross"]?.intValue, 45)
        try c.fail(["scorecard", "correct", "--round", "\(round)", "--player", "Ann", "--hole", "3", "--strokes", "8", "--reason", " "],
                   exitCode: 2, contains: ["a correction needs a reason"])
        try c.fail(["scorecard", "correct", "--round", "\(round)", "--player", "Ann", "--hole", "3", "--strokes", "7", "--reason", "x"],
                   exitCode: 2, contains: ["already has 7 strokes on hole 3"])
        XCTAssertEqual(try c.succeed(["scorecard", "entries", "--round", "\(round)", "--json"]).json()["entries"]?.arrayValue?.count, 10)
    }

    func testSiteAllowanceFromConfigAndABadOne() throws {
        let c = try Clubhouse()
        let config = try c.write("plugins.json", """
            {"sites": {"club": {"plugins": {
              "scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"], "config": {"allowance_stableford": 80}}
            }}}}
            """)
        let p = try setUp(c, config: ["--config", config])
        let round = try c.succeed(p + ["scorecard", "round", "start", "--course", "1", "--tee", "Red", "--holes", "9", "--players", "Ann",
                                       "--format", "stableford", "--json"]).json()["round"]
        XCTAssertEqual(round?["allowance"]?.intValue, 80)
        let bad = try c.write("bad.json", """
            {"sites": {"club": {"plugins": {
              "scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"], "config": {"allowance_skins": 140}}
            }}}}
            """)
        let result = try c.run(["--config", bad, "scorecard", "player", "list"])
        XCTAssertNotEqual(result.exitCode, 0)
        XCTAssertTrue(result.stderr.contains("bad.json:2:") && result.stderr.contains("config \"allowance_skins\" must be at most 100, not 140"), result.stderr)
    }
}
