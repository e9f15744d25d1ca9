// Issue 30, scorecard: a player's existing Handicap Index can be entered and edited, the Golfer import
// keeps its players' handicaps, `index-from` applies the exceptional-score reduction, `--holes` comes
// from the tee, and a player without a score shows "—" (null in JSON). The rule for a player whose
// record starts from a given index is in Plugins/Scorecard/README.md.

import ClubhouseJSON
import Foundation
import XCTest

final class ScorecardGivenIndexEndToEndTests: XCTestCase {
    static let nineHoleCourse = """
        {"name": "Tour Links", "tees": [{"name": "White", "rating": 35.6, "slope": 124, "holes": [
          {"number": 1, "par": 4, "strokeIndex": 3}, {"number": 2, "par": 3, "strokeIndex": 9},
          {"number": 3, "par": 5, "strokeIndex": 1}, {"number": 4, "par": 4, "strokeIndex": 5},
          {"number": 5, "par": 4, "strokeIndex": 7}, {"number": 6, "par": 3, "strokeIndex": 8},
          {"number": 7, "par": 4, "strokeIndex": 2}, {"number": 8, "par": 5, "strokeIndex": 4},
          {"number": 9, "par": 4, "strokeIndex": 6}]}]}
        """

    func testAGivenIndexIsEnteredEditedAndPlayedOff() throws {
        let c = try Clubhouse()
        try c.succeed(["scorecard", "course", "add", try c.write("course.json", Self.nineHoleCourse)])
        let added = try c.succeed(["scorecard", "player", "add", "Ann", "--index", "12.3"])
        XCTAssertEqual(added.stdout, "added player 1: Ann, Handicap Index 12.3 (given: in force until 3 differentials are recorded here)\n")
        let plus = try c.succeed(["scorecard", "player", "add", "Ben", "--index", "+1.2", "--json"]).json()
        XCTAssertEqual(plus["player"]?["givenIndex"]?.doubleValue, -1.2)
        try c.fail(["scorecard", "player", "add", "Cy", "--index", "1e308"], exitCode: 2,
                   contains: ["--index '1e308' is not a decimal with at most one digit after the point"])
        try c.fail(["scorecard", "player", "add", "Cy", "--index", "60"], exitCode: 2, contains: ["--index 60.0 is outside -10.0–54.0"])
        let list = try c.succeed(["scorecard", "player", "list"]).stdout
        XCTAssertTrue(list.contains("Ann   12.3 (given)"), list)
        XCTAssertTrue(list.contains("Ben   +1.2 (given)"), list)

        // --holes comes from the tee: 9 holes on this 9-hole tee; Ann plays off her given index.
        let started = try c.succeed(["scorecard", "round", "start", "--course", "Tour Links", "--tee", "White", "--players", "Ann,Ben",
                                     "--date", "2024-05-01", "--json"]).json()
        XCTAssertEqual(started["round"]?["holes"]?.intValue, 9)
        XCTAssertEqual(started["round"]?["players"]?.arrayValue?.first?["index"]?.doubleValue, 12.3)
        XCTAssertEqual(started["round"]?["players"]?.arrayValue?.first?["courseHandicap"]?.intValue, 6)

        // No score yet: "—" in the text, null in JSON, never 0.
        try c.succeed(["scorecard", "score", "--round", "1", "--player", "Ann", "--hole", "1", "--strokes", "5"])
        let board = try c.succeed(["scorecard", "leaderboard", "--round", "1"]).stdout
        let ben = board.split(separator: "\n").first { $0.contains("Ben") }.map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(ben, ["—", "Ben", "0", "—", "—", "+1", "—", "—"], board)
        let json = try c.succeed(["scorecard", "leaderboard", "--round", "1", "--json"]).json()
        let line = json["lines"]?.arrayValue?.first { $0["name"]?.stringValue == "Ben" }
        for key in ["gross", "toPar", "net", "netToPar"] { XCTAssertEqual(line?[key], .null, key) }

        // Edit, clear; an unknown player is not found.
        XCTAssertEqual(try c.succeed(["scorecard", "player", "edit", "Ann", "--index", "14.0"]).stdout, "Ann: given Handicap Index 12.3 → 14.0\n")
        XCTAssertEqual(try c.succeed(["scorecard", "player", "edit", "Ben", "--index", "none"]).stdout, "Ben: given Handicap Index +1.2 → —\n")
        try c.fail(["scorecard", "player", "edit", "Zed", "--index", "3"], exitCode: 2, contains: ["no player 'Zed'"])
        let record = try c.succeed(["scorecard", "index", "Ann"]).stdout
        XCTAssertTrue(record.hasPrefix("Ann: Handicap Index 14.0 (given: in force until 3 differentials are recorded here)"), record)
    }

    func testTheGolferImportKeepsHandicaps() throws {
        let seed = try Clubhouse.requireSharedData("scorecard/default_seed.json")
        let c = try Clubhouse()
        let report = try c.succeed(["scorecard", "import", seed.path]).stdout
        XCTAssertTrue(report.contains("player 1: Jeff Martin, given Handicap Index 2.0"), report)
        let players = try c.succeed(["scorecard", "player", "list", "--json"]).json()["players"]?.arrayValue ?? []
        XCTAssertEqual(players.map { $0["index"]?.doubleValue }, [2.0, 8.0, 8.0, 5.0])
        XCTAssertEqual(players.map { $0["indexIsGiven"] }, Array(repeating: .bool(true), count: 4))
    }

    func testIndexFromAppliesTheExceptionalScoreReduction() throws {
        let c = try Clubhouse()
        let twenty = Array(repeating: "14.8", count: 20).joined(separator: ",")
        let eight = try c.succeed(["scorecard", "index-from", "--differentials", twenty + ",6.8"]).stdout
        XCTAssertTrue(eight.hasPrefix("Handicap Index 12.8\n"), eight)
        XCTAssertTrue(eight.contains("exceptional score (Rule 5.9): differential 21 (6.8) is 8.0 below the index in force 14.8"), eight)
        let ten = try c.succeed(["scorecard", "index-from", "--differentials", twenty + ",4.7", "--json"]).json()
        XCTAssertEqual(ten["index"]?.doubleValue, 11.5)
        XCTAssertEqual(ten["exceptional"]?.arrayValue?.first?["reduction"]?.doubleValue, 2.0)
    }
}
