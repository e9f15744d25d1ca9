// Permanent actions in the scorecard (issue 20.8): finishing a round with unscored holes and
// deleting a final round are confirmed — asked on a terminal, `--yes` in scripts — and change
// nothing until then; a deleted round leaves lists, leaderboards and indexes for good.

import ClubhouseJSON
import Foundation
import XCTest

final class ScorecardDeleteEndToEndTests: XCTestCase {
    private let course = """
        {"name": "Short Nine", "tees": [{"name": "Red", "rating": 34.1, "slope": 118, "holes": [
          {"par": 4, "strokeIndex": 1}, {"par": 3, "strokeIndex": 5}, {"par": 5, "strokeIndex": 3},
          {"par": 4, "strokeIndex": 2}, {"par": 4, "strokeIndex": 8}, {"par": 3, "strokeIndex": 9},
          {"par": 4, "strokeIndex": 4}, {"par": 4, "strokeIndex": 6}, {"par": 4, "strokeIndex": 7}]}]}
        """

    /// A course, players Ann and Ben, and one 9-hole round where Ann scores `annHoles` holes and
    /// Ben `benHoles`. Returns the round id.
    private func round(_ c: Clubhouse, date: String, annHoles: Int = 9, benHoles: Int = 9) throws -> Int {
        if try c.run(["scorecard", "course", "show", "Short Nine"]).exitCode != 0 {
            try c.succeed(["scorecard", "player", "add", "Ann"])
            try c.succeed(["scorecard", "player", "add", "Ben"])
            try c.succeed(["scorecard", "course", "add", try c.write("nine.json", course)])
        }
        let id = try c.succeed(["scorecard", "round", "start", "--course", "Short Nine", "--tee", "Red", "--players", "Ann,Ben",
                                "--date", date, "--holes", "9", "--json"]).json()["round"]?["id"]?.intValue ?? 0
        for (player, holes) in [("Ann", annHoles), ("Ben", benHoles)] where holes > 0 {
            for hole in 1...holes {
                try c.succeed(["scorecard", "score", "--round", "\(id)", "--player", player, "--hole", "\(hole)", "--strokes", "5"])
            }
        }
        return id
    }

    func testFinishingWithUnscoredHolesNeedsYesAndChangesNothingWithoutIt() throws {
        let c = try Clubhouse()
        let id = try round(c, date: "2024-05-01", annHoles: 9, benHoles: 1)
        let refused = try c.fail(["scorecard", "round", "finish", "\(id)"], exitCode: 2,
                                 contains: ["round \(id) has unscored holes (Ben 8)", "run it again with --yes to confirm"])
        XCTAssertTrue(refused.stdout.isEmpty, refused.stdout)
        let json = try c.run(["scorecard", "round", "finish", "\(id)", "--json"])
        XCTAssertEqual(json.exitCode, 2)
        XCTAssertEqual(try json.json()["error"]?["status"]?.stringValue, "needs-confirmation")
        // Still open: another score goes in.
        try c.succeed(["scorecard", "score", "--round", "\(id)", "--player", "Ben", "--hole", "2", "--strokes", "4"])
        try c.succeed(["scorecard", "round", "finish", "\(id)", "--yes"])
        try c.fail(["scorecard", "score", "--round", "\(id)", "--player", "Ben", "--hole", "3", "--strokes", "4"], exitCode: 1,
                   contains: ["is final"])
        // A complete round finishes without a question.
        let complete = try round(c, date: "2024-05-02")
        try c.succeed(["scorecard", "round", "finish", "\(complete)"])
    }

    func testDeletingAFinalRoundIsConfirmedAndTakesItOutOfTheIndex() throws {
        let c = try Clubhouse()
        // Six complete 9-hole rounds (54 holes: Ann gets an index), all finished.
        var ids: [Int] = []
        for day in 1...6 {
            let id = try round(c, date: String(format: "2024-05-%02d", day))
            try c.succeed(["scorecard", "round", "finish", "\(id)"])
            ids.append(id)
        }
        let before = try c.succeed(["scorecard", "index", "Ann", "--json"]).json()
        XCTAssertNotNil(before["index"]?.numberValue, "\(before)")
        let open = try round(c, date: "2024-05-07", annHoles: 2, benHoles: 0)

        // A final round: refused without --yes, nothing changes.
        try c.fail(["scorecard", "round", "delete", "\(ids[5])"], exitCode: 2,
                   contains: ["round \(ids[5]) (Short Nine, 2024-05-06) is final", "Ann, Ben", "run it again with --yes"])
        XCTAssertEqual(try c.succeed(["scorecard", "rounds", "--json"]).json()["rounds"]?.arrayValue?.count, 7)

        let deleted = try c.succeed(["scorecard", "round", "delete", "\(ids[5])", "--yes", "--reason", "wrong course", "--json"]).json()
        XCTAssertEqual(deleted["wasFinal"], .bool(true))
        XCTAssertEqual(deleted["reason"]?.stringValue, "wrong course")
        let ann = deleted["players"]?.arrayValue?.first { $0["name"]?.stringValue == "Ann" }
        XCTAssertEqual(ann?["indexBefore"], before["index"])
        XCTAssertEqual(ann?["indexAfter"] ?? .null, .null, "five nines are 45 holes: no index any more")
        XCTAssertEqual(try c.succeed(["scorecard", "index", "Ann", "--json"]).json()["index"] ?? .null, .null)

        // Gone from lists and leaderboards; it cannot be scored, finished or deleted again.
        let rounds = try c.succeed(["scorecard", "rounds", "--json"]).json()["rounds"]?.arrayValue ?? []
        XCTAssertFalse(rounds.contains { $0["round"]?["id"]?.intValue == ids[5] })
        XCTAssertEqual(rounds.count, 6)
        try c.fail(["scorecard", "leaderboard", "--round", "\(ids[5])"], exitCode: 2, contains: ["no round '\(ids[5])'"])
        try c.fail(["scorecard", "round", "delete", "\(ids[5])", "--yes"], exitCode: 2, contains: ["no round '\(ids[5])'"])
        // An open round goes at once, without a question.
        let text = try c.succeed(["scorecard", "round", "delete", "\(open)"]).stdout
        XCTAssertTrue(text.hasPrefix("Deleted round \(open) (Short Nine, Red, 2024-05-07)"), text)
        try c.fail(["scorecard", "round", "delete", "\(ids[0])", "--yes", "--reason", "  "], exitCode: 2, contains: ["reason"])
    }

    /// On a terminal the question is asked; "y" finishes, anything else changes nothing (exit 2).
    func testOnATerminalTheQuestionIsAsked() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux 'script' is not installed; it gives the command a terminal")
        }
        let c = try Clubhouse()
        let id = try round(c, date: "2024-06-01", annHoles: 3, benHoles: 9)
        func onTerminal(_ answer: String) throws -> ClubhouseResult {
            try c.run(["scorecard", "round", "finish", "\(id)"], stdin: answer, timeout: 60, onTerminal: true)
        }
        let no = try onTerminal("n\n")
        XCTAssertEqual(no.exitCode, 2, no.stdout + no.stderr)
        XCTAssertTrue(no.stdout.contains("has unscored holes (Ann 6)") && no.stdout.contains("[y/N]"), no.stdout)
        XCTAssertTrue(no.stdout.contains("not confirmed; nothing was changed"), no.stdout)
        try c.succeed(["scorecard", "score", "--round", "\(id)", "--player", "Ann", "--hole", "4", "--strokes", "4"])
        let yes = try onTerminal("y\n")
        XCTAssertEqual(yes.exitCode, 0, yes.stdout + yes.stderr)
        try c.fail(["scorecard", "score", "--round", "\(id)", "--player", "Ann", "--hole", "5", "--strokes", "4"], exitCode: 1,
                   contains: ["is final"])
    }
}
