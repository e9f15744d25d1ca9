import ClubhouseJSON
import Foundation
import XCTest
@testable import ScorecardCore

/// The stateful commands over the in-memory store: players, courses, rounds, scores, leaderboards,
/// finishing, history and records, with the message of every error a user can cause.
final class CommandsTests: XCTestCase {
    private func t(_ text: String) -> Tenths { Tenths.parse(text)! }
    private let today = GolfDate("2024-06-01")!

    private func makeCommands() throws -> (ScorecardCommands, InMemoryScorecardStore) {
        let store = InMemoryScorecardStore()
        let commands = ScorecardCommands(store: store)
        for draft in SampleData.courses { _ = try commands.addCourse(AddCourseRequest(file: "c.json", text: CourseFile.render(draft))) }
        for name in ["Ann", "Ben", "Cy"] { _ = try commands.addPlayer(AddPlayerRequest(name: name)) }
        return (commands, store)
    }

    // MARK: Players

    func testPlayersAddAndList() throws {
        let (commands, _) = try makeCommands()
        let added = try commands.addPlayer(AddPlayerRequest(name: "  Dee Lane "))
        XCTAssertEqual(added.player, Player(id: 4, name: "Dee Lane"))
        XCTAssertEqual(added.text, "added player 4: Dee Lane")
        let list = try commands.listPlayers()
        XCTAssertEqual(list.players.map(\.name), ["Ann", "Ben", "Cy", "Dee Lane"])
        XCTAssertNil(list.players[0].index)
        XCTAssertTrue(list.text.contains("Dee Lane"))
    }

    /// `player list` builds its JSON without the Encodable walk (PlayerSummary's JSONValueRepresentable):
    /// it must be exactly what the synthesized Codable form gave — keys in declaration order, a missing
    /// index as null, tenths as exact decimals.
    func testPlayerListJSONIsTheCodableForm() throws {
        struct Mirror: Encodable { var id: Int, name: String, index: Tenths?, indexIsGiven: Bool, finishedRounds: Int }
        struct MirrorList: Encodable { var players: [Mirror] }
        let (commands, _) = try makeCommands()
        _ = try commands.addPlayer(AddPlayerRequest(name: "Dee", index: "12.0"))
        _ = try commands.addPlayer(AddPlayerRequest(name: "Eve \"E\" Ö", index: "+1.2"))
        let list = try commands.listPlayers()
        let mirror = MirrorList(players: list.players.map {
            Mirror(id: $0.id, name: $0.name, index: $0.index, indexIsGiven: $0.indexIsGiven, finishedRounds: $0.finishedRounds)
        })
        XCTAssertEqual(list.jsonValue, ScorecardJSON.value(mirror))
        XCTAssertEqual(ScorecardJSON.value(list), ScorecardJSON.value(mirror))
        XCTAssertEqual(JSONWriter.compact(list.jsonValue),
                       #"{"players":[{"id":1,"name":"Ann","index":null,"indexIsGiven":false,"finishedRounds":0},"#
                       + #"{"id":2,"name":"Ben","index":null,"indexIsGiven":false,"finishedRounds":0},"#
                       + #"{"id":3,"name":"Cy","index":null,"indexIsGiven":false,"finishedRounds":0},"#
                       + #"{"id":4,"name":"Dee","index":12.0,"indexIsGiven":true,"finishedRounds":0},"#
                       + #"{"id":5,"name":"Eve \"E\" Ö","index":-1.2,"indexIsGiven":true,"finishedRounds":0}]}"#)
    }

    /// Issue 30: a player's existing Handicap Index can be given (add, edit, none), it is the index in
    /// force at round start, and an edit is refused once the record here has its own index.
    func testAGivenIndexIsEnteredAndUsed() throws {
        let (commands, store) = try makeCommands()
        let added = try commands.addPlayer(AddPlayerRequest(name: "Dee", index: "12.3"))
        XCTAssertEqual(added.player, Player(id: 4, name: "Dee", givenIndex: t("12.3")))
        XCTAssertEqual(added.text, "added player 4: Dee, Handicap Index 12.3 (given: in force until 3 differentials are recorded here)")
        XCTAssertEqual(try commands.addPlayer(AddPlayerRequest(name: "Eve", index: "+1.2")).player.givenIndex, t("-1.2"))
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "Fay", index: "54.1")) }, "--index 54.1 is outside -10.0–54.0")
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "Fay", index: "1e308")) },
                       "--index '1e308' is not a decimal with at most one digit after the point")
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "Fay", index: "12.34")) },
                       "--index '12.34' is not a decimal with at most one digit after the point")
        XCTAssertEqual(try store.players().count, 5)

        let list = try commands.listPlayers()
        XCTAssertEqual(list.players.map(\.index), [nil, nil, nil, t("12.3"), t("-1.2")])
        XCTAssertEqual(list.players.map(\.indexIsGiven), [false, false, false, true, true])
        XCTAssertTrue(list.text.contains("Dee   12.3 (given)"), list.text)
        XCTAssertTrue(list.text.contains("Eve   +1.2 (given)"), list.text)

        // Round start: Heron Bay White (71.1/125, par 72): 12.3 × 125/113 − 0.9 = 12.71 → 13; 95% → 12.
        let started = try start(commands, players: "Dee,Ann")
        XCTAssertEqual(started.round.players[0].index, t("12.3"))
        XCTAssertEqual(started.round.players[0].courseHandicap, 13)
        XCTAssertEqual(started.round.players[0].playingHandicap, 12)
        XCTAssertTrue(try commands.index("Dee").text.hasPrefix("Dee: Handicap Index 12.3 (given: in force until 3 differentials are recorded here)"))

        // Edit: set, clear; refused once three differentials give Dee an index of her own.
        XCTAssertEqual(try commands.editPlayer(EditPlayerRequest(player: "Dee", index: "14.0")).text, "Dee: given Handicap Index 12.3 → 14.0")
        XCTAssertEqual(try commands.editPlayer(EditPlayerRequest(player: "4", index: "none")).text, "Dee: given Handicap Index 14.0 → —")
        XCTAssertEqual(message { _ = try commands.editPlayer(EditPlayerRequest(player: "Dee", index: nil)) },
                       "--index (the Handicap Index the player comes with, or none) is required")
        XCTAssertEqual(message { _ = try commands.editPlayer(EditPlayerRequest(player: "Zed", index: "3")) },
                       "no player 'Zed' — add them with 'scorecard player add' or see 'scorecard player list'")
        _ = try commands.editPlayer(EditPlayerRequest(player: "Dee", index: "12.3"))
        let pars = SampleData.courses[0].tees[0].holes.map(\.par)
        for (i, over) in [17, 16, 18].enumerated() {
            let id = try start(commands, players: "Dee", date: "2024-0\(i + 1)-10").round.id
            try card(commands, round: id, player: "Dee", strokes: pars.enumerated().map { $0.element + ($0.offset < over ? 1 : 0) })
            _ = try commands.finishRound(FinishRoundRequest(round: id, today: GolfDate("2024-0\(i + 1)-10")!))
        }
        XCTAssertEqual(try commands.index("Dee").index, t("13.3"))
        XCTAssertEqual(message { _ = try commands.editPlayer(EditPlayerRequest(player: "Dee", index: "10.0")) },
                       "Dee has a Handicap Index of 13.3 from 3 differentials recorded here; a given index only starts a record — "
                       + "their scores decide it now")
    }

    /// Issue 30: `round start` without --holes plays all of the tee's holes (9 on a 9-hole tee).
    func testHolesDefaultToTheTee() throws {
        let (commands, _) = try makeCommands()
        XCTAssertEqual(try start(commands, course: "Juniper Hill", tee: "Yellow").round.holes, 9)
        XCTAssertEqual(try start(commands).round.holes, 18)
        XCTAssertEqual(try start(commands, holes: 9).round.holes, 9)
    }

    /// The whitespace-separated cells of the first text line that holds `name`.
    private func fields(_ name: String, _ text: String) -> [String] {
        text.split(separator: "\n").first { $0.split(separator: " ").contains { $0 == name } }?.split(separator: " ").map(String.init) ?? []
    }

    /// Issue 30: a player with no score shows "—" (null in JSON), never gross 0 / net 0, in every format.
    func testNoScoreIsADashAndNullInEveryFormat() throws {
        let (commands, _) = try makeCommands()
        _ = try commands.addPlayer(AddPlayerRequest(name: "Dee"))
        for (round, format) in [("stroke-play", "Ann,Ben"), ("stableford", "Ann,Ben"), ("match-play", "Ann,Ben"),
                                ("four-ball-stroke-play", "Ann,Ben,Cy,Dee"), ("four-ball-match-play", "Ann,Ben,Cy,Dee"), ("skins", "Ann,Ben")]
            .enumerated().map({ ($0.offset + 1, $0.element) }) {
            _ = try start(commands, players: format.1, format: format.0)
            try card(commands, round: round, player: "Ann", strokes: [5])
            let board = try commands.leaderboard(round)
            let ben = try XCTUnwrap(board.lines.first { $0.name == "Ben" })
            XCTAssertEqual(ben.holesPlayed, 0)
            XCTAssertNil(ben.gross)
            XCTAssertNil(ben.net)
            XCTAssertNil(ben.toPar)
            XCTAssertNil(ben.netToPar)
            let json = JSONWriter.compact(ScorecardJSON.value(board))
            XCTAssertTrue(json.contains(#""name":"Ben","holesPlayed":0,"gross":null,"toPar":null,"strokesReceived":0,"net":null,"netToPar":null"#),
                          "\(format.0): \(json)")
            if let stableford = board.stableford {
                let line = try XCTUnwrap(stableford.first { $0.name == "Ben" })
                XCTAssertNil(line.points)
                XCTAssertNil(line.grossPoints)
                XCTAssertEqual(fields("Ben", board.text), ["—", "Ben", "0", "—", "—", "—"], board.text)
            }
            if let sides = board.fourBall {
                let side = try XCTUnwrap(sides.first { $0.side == "Cy & Dee" })
                XCTAssertNil(side.betterBall)
                XCTAssertNil(side.toPar)
                XCTAssertTrue(json.contains(#""side":"Cy & Dee","playerIDs":[3,4],"holesPlayed":0,"betterBall":null,"par":null,"toPar":null"#), json)
            }
            if format.0 == "stroke-play" {
                XCTAssertEqual(fields("Ben", board.text), ["—", "Ben", "0", "—", "—", "—", "—", "—"], board.text)
            }
        }
        let history = try commands.rounds()
        XCTAssertTrue(history.text.contains("Ben: 0 holes, gross —, net —"), history.text)
        let finished = try commands.finishRound(FinishRoundRequest(round: 1, today: today, confirmed: true))
        XCTAssertNil(finished.players.first { $0.name == "Ben" }?.gross)
        XCTAssertTrue(finished.text.contains("Ben: gross —"), finished.text)
    }

    func testPlayerNameErrors() throws {
        let (commands, store) = try makeCommands()
        let before = try store.players()
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "ann")) },
                       "a player named 'ann' already exists — names must be unique (case does not count)")
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "  ")) },
                       "player name '  ' is empty — give the player a name")
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "A,B")) },
                       "player name 'A,B' contains a comma — --players A,B uses commas to separate names")
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "42")) },
                       "player name '42' is a number, which would be read as a player id — use a name")
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: String(repeating: "x", count: 61))) },
                       "player name '\(String(repeating: "x", count: 61))' is longer than 60 characters — shorten it")
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "a\u{7}b")) },
                       "player name 'a\u{7}b' contains control characters — use printable characters only")
        XCTAssertEqual(try store.players(), before)
    }

    func testStorageFailureWritesNothing() throws {
        let (commands, store) = try makeCommands()
        store.failNextWrite = "disk full"
        XCTAssertEqual(message { _ = try commands.addPlayer(AddPlayerRequest(name: "Eve")) },
                       "storage failed: disk full; nothing was written")
        XCTAssertEqual(try store.players().count, 3)
    }

    // MARK: Courses

    private let smallCourse = """
        {
          "name": "Test Nine",
          "tees": [
            {
              "name": "Red",
              "rating": 34.1,
              "slope": 118,
              "holes": [
                {"par": 4, "strokeIndex": 1},
                {"par": 3, "strokeIndex": 5},
                {"par": 5, "strokeIndex": 3},
                {"par": 4, "strokeIndex": 2},
                {"par": 4, "strokeIndex": 8},
                {"par": 3, "strokeIndex": 9},
                {"par": 4, "strokeIndex": 4},
                {"par": 4, "strokeIndex": 6},
                {"par": 4, "strokeIndex": 7}
              ]
            }
          ]
        }
        """

    private func courseError(_ replace: String, with replacement: String) throws -> String {
        let (commands, store) = try makeCommands()
        let text = smallCourse.replacingOccurrences(of: replace, with: replacement)
        XCTAssertNotEqual(text, smallCourse, "replacement applied")
        let result = message { _ = try commands.addCourse(AddCourseRequest(file: "nine.json", text: text)) }
        XCTAssertEqual(try store.courses().count, 3, "nothing written")
        return result
    }

    func testCourseAddListShow() throws {
        let (commands, _) = try makeCommands()
        let added = try commands.addCourse(AddCourseRequest(file: "nine.json", text: smallCourse))
        XCTAssertEqual(added.id, 4)
        XCTAssertEqual(added.tees[0].par, 35)
        XCTAssertEqual(added.text, "course 4: Test Nine\n  Red: 9 holes, par 35, 34.1/118")
        XCTAssertEqual(try commands.listCourses().courses.count, 4)
        let shown = try commands.showCourse("test nine")
        XCTAssertEqual(shown.course.tees[0].holes[2], Hole(number: 3, par: 5, strokeIndex: 3))
        XCTAssertTrue(shown.text.contains("par    4  3  5  4  4  3  4  4  4  35"), shown.text)
        XCTAssertEqual(try commands.showCourse("1").course.name, "Heron Bay Links")
        XCTAssertEqual(message { _ = try commands.showCourse("Nowhere") }, "no course 'Nowhere' — see 'scorecard course list' for ids and names")
    }

    func testCourseFileErrorsNameFileLineAndColumn() throws {
        XCTAssertEqual(try courseError("{\"par\": 3, \"strokeIndex\": 5}", with: "{\"par\": 7, \"strokeIndex\": 5}"),
                       "nine.json:10:17: hole 2 has par 7; par must be 3 to 6 — correct the hole's par")
        XCTAssertEqual(try courseError("\"slope\": 118", with: "\"slope\": 160"),
                       "nine.json:7:16: slope rating 160 is outside 55–155 — use the Slope Rating printed on the scorecard")
        XCTAssertEqual(try courseError("\"rating\": 34.1", with: "\"rating\": 41.0"),
                       "nine.json:6:17: course rating 41.0 is implausible for par 35 over 9 holes (expected 30.0–40.0) — check the rating and the pars")
        XCTAssertEqual(try courseError("\"strokeIndex\": 9}", with: "\"strokeIndex\": 4}"),
                       "nine.json:15:35: tee 'Red' has invalid stroke indexes: stroke index 4 is on holes 6 and 7, stroke index 9 is missing — each of 1–9 must appear exactly once")
        XCTAssertEqual(try courseError("\"strokeIndex\": 9}", with: "\"strokeIndex\": 10}"),
                       "nine.json:14:35: tee 'Red' has invalid stroke indexes: stroke index 9 is missing, stroke index 10 is out of range — each of 1–9 must appear exactly once")
        XCTAssertEqual(try courseError("\"rating\": 34.1", with: "\"rating\": 34.15"),
                       "nine.json:6:17: tee 'Red' \"rating\" must be a decimal with at most one digit after the point (like 71.2), found 34.15")
        XCTAssertEqual(try courseError("\"slope\": 118", with: "\"slop\": 118"),
                       "nine.json:7:15: unknown key \"slop\" in tee 1 — known keys are \"name\", \"rating\", \"slope\", \"front\", \"back\", \"holes\"")
        XCTAssertEqual(try courseError("{\"par\": 4, \"strokeIndex\": 7}\n", with: "{\"par\": 4, \"strokeIndex\": 7},\n"),
                       "nine.json:18:7: unexpected ']'; expected a value — fix the JSON syntax")
        XCTAssertEqual(try courseError("{\"par\": 4, \"strokeIndex\": 7}\n", with: "{\"par\": 4, \"strokeIndex\": 7}, {\"par\": 4, \"strokeIndex\": 10}\n"),
                       "nine.json:8:16: tee 'Red' has 10 holes; a tee has 9 or 18 holes")
        XCTAssertEqual(try courseError("{\"par\": 4, \"strokeIndex\": 1}", with: "{\"number\": 2, \"par\": 4, \"strokeIndex\": 1}"),
                       "nine.json:9:9: tee 'Red': hole number 2 where hole 1 belongs — number the holes 1, 2, 3, … in order")
        XCTAssertEqual(try courseError("\"slope\": 118,", with: "\"slope\": 118, \"front\": {\"rating\": 17.0, \"slope\": 118},"),
                       "nine.json:7:30: tee 'Red' has 9 holes; front and back ratings belong to 18-hole tees — remove them")
        XCTAssertEqual(try courseError("\"name\": \"Red\"", with: "\"name\": 5"),
                       "nine.json:5:15: tee 1's \"name\" must be a string, found an integer")
        XCTAssertEqual(try courseError("\"name\": \"Test Nine\"", with: "\"name\": \"Heron Bay Links\""),
                       "a course named 'Heron Bay Links' already exists — choose another name or use the existing course")
    }

    func testEighteenHoleTeeNineRatingsAreChecked() throws {
        var draft = SampleData.courses[0]
        draft.name = "Copy"
        draft.tees[0].front = Rating(rating: t("30.0"), slope: 133)
        let text = CourseFile.render(draft)
        let (commands, _) = try makeCommands()
        let error = message { _ = try commands.addCourse(AddCourseRequest(file: "copy.json", text: text)) }
        XCTAssertTrue(error.hasSuffix("course rating 30.0 is implausible for par 36 over 9 holes (expected 31.0–41.0) — check the rating and the pars"), error)
        var twice = SampleData.courses[1]
        twice.name = "Twice"
        twice.tees.append(twice.tees[0])
        XCTAssertEqual(message { _ = try commands.addCourse(AddCourseRequest(file: "t.json", text: CourseFile.render(twice))) },
                       "course 'Twice' lists tee 'Yellow' twice — give each tee its own name")
    }

    // MARK: Rounds

    private func start(_ commands: ScorecardCommands, course: String = "Heron Bay Links", tee: String = "White",
                       players: String = "Ann,Ben", date: String? = "2024-05-01", holes: Int? = nil, nine: Nine? = nil,
                       format: String? = nil) throws -> RoundStarted {
        try commands.startRound(StartRoundRequest(course: course, tee: tee, players: names(players), date: date, holes: holes, nine: nine,
                                                  format: format, today: today))
    }

    func testRoundStartErrors() throws {
        let (commands, store) = try makeCommands()
        XCTAssertEqual(message { _ = try self.start(commands, course: "Nowhere") },
                       "no course 'Nowhere' — see 'scorecard course list' for ids and names")
        XCTAssertEqual(message { _ = try self.start(commands, tee: "Green") },
                       "course 'Heron Bay Links' has no tee 'Green' — its tees are Blue, White")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann,Zed") },
                       "no player 'Zed' — add them with 'scorecard player add' or see 'scorecard player list'")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann,ann") },
                       "player 'Ann' is listed twice for the round — list each player once")
        XCTAssertEqual(message { _ = try self.start(commands, players: " , ") },
                       "a round needs at least one player — pass --players A,B")
        XCTAssertEqual(message { _ = try self.start(commands, date: "2024-02-30") },
                       "--date '2024-02-30' is not a date — write it as YYYY-MM-DD, e.g. 2024-06-01")
        XCTAssertEqual(message { _ = try self.start(commands, holes: 12) }, "--holes 12 is not possible — a round is 9 or 18 holes")
        XCTAssertEqual(message { _ = try self.start(commands, course: "Juniper Hill", tee: "Yellow", holes: 18) },
                       "tee 'Yellow' has 9 holes; an 18-hole round needs an 18-hole tee — start the round with --holes 9")
        XCTAssertEqual(message { _ = try self.start(commands, format: "scramble") },
                       "format 'scramble' is unknown — use one of stroke-play, stableford, match-play, four-ball-stroke-play, four-ball-match-play, skins")
        XCTAssertEqual(message { _ = try self.start(commands, holes: 9, nine: .all) }, "--nine 'all' is not front or back")
        var bare = SampleData.courses[2]
        bare.name = "Bare"
        bare.tees[0].back = nil
        _ = try commands.addCourse(AddCourseRequest(file: "b.json", text: CourseFile.render(bare)))
        XCTAssertEqual(message { _ = try self.start(commands, course: "Bare", tee: "Gold", holes: 9, nine: .back) },
                       "tee 'Gold' has no back-nine rating — add \"back\": {\"rating\": …, \"slope\": …} to the tee to play 9 holes on it")
        XCTAssertEqual(try store.rounds().count, 0)
    }

    private func card(_ commands: ScorecardCommands, round: Int, player: String, strokes: [Int], firstHole: Int = 1) throws {
        for (i, s) in strokes.enumerated() {
            _ = try commands.enterScore(ScoreRequest(round: round, player: player, hole: firstHole + i, strokes: s))
        }
    }

    func testScoresLatestEntryWinsAndErrors() throws {
        let (commands, store) = try makeCommands()
        let round = try start(commands).round.id
        let first = try commands.enterScore(ScoreRequest(round: 1, player: "Ann", hole: 1, strokes: 5))
        XCTAssertNil(first.replaced)
        let second = try commands.enterScore(ScoreRequest(round: 1, player: "ann", hole: 1, strokes: 4))
        XCTAssertEqual(second.replaced, 5)
        XCTAssertEqual(second.text, "round 1, Ann, hole 1: 4 (was 5; every entry is kept, the latest counts)")
        XCTAssertEqual(try store.scoreEntries(roundID: round).count, 2)
        XCTAssertEqual(try commands.leaderboard(1).lines.first { $0.name == "Ann" }?.gross, 4)

        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: 1, player: "Ann", hole: 19, strokes: 4)) },
                       "hole 19 is not played in round 1 (holes 1–18)")
        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: 1, player: "Ann", hole: 3, strokes: 0)) },
                       "0 strokes on hole 3 is outside 1–20 — enter the strokes actually taken")
        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: 1, player: "Ann", hole: 3, strokes: 21)) },
                       "21 strokes on hole 3 is outside 1–20 — enter the strokes actually taken")
        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: 1, player: "Cy", hole: 3, strokes: 4)) },
                       "player 'Cy' is not playing in round 1 — see 'scorecard leaderboard --round 1'")
        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: 1, player: "Zed", hole: 3, strokes: 4)) },
                       "no player 'Zed' — add them with 'scorecard player add' or see 'scorecard player list'")
        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: 7, player: "Ann", hole: 3, strokes: 4)) },
                       "no round '7' — see 'scorecard rounds' for round ids")
        XCTAssertEqual(try store.scoreEntries(roundID: round).count, 2)

        XCTAssertEqual(message { _ = try commands.finishRound(FinishRoundRequest(round: 1, today: today)) },
                       "round 1 has unscored holes (Ann 17, Ben 18); finishing makes it final and its incomplete scores "
                       + "cannot count toward an index — finish it anyway?")
        XCTAssertNil(try store.rounds()[0].finishedOn, "an unconfirmed finish changes nothing")
        _ = try commands.finishRound(FinishRoundRequest(round: 1, today: today, confirmed: true))
        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: 1, player: "Ann", hole: 2, strokes: 4)) },
                       "round 1 was finished on 2024-06-01 and is final — scores can no longer change")
        XCTAssertEqual(message { _ = try commands.finishRound(FinishRoundRequest(round: 1, today: today)) },
                       "round 1 was finished on 2024-06-01 and is final — scores can no longer change")
        XCTAssertEqual(try store.scoreEntries(roundID: round).count, 2)
    }

    func testBackNineRoundKnowsItsHoles() throws {
        let (commands, _) = try makeCommands()
        let started = try start(commands, holes: 9, nine: .back)
        XCTAssertEqual(started.round.holes, 9)
        XCTAssertEqual(started.round.nine, .back)
        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: 1, player: "Ann", hole: 3, strokes: 4)) },
                       "hole 3 is not played in round 1 (holes 10–18)")
        XCTAssertEqual(try commands.enterScore(ScoreRequest(round: 1, player: "Ann", hole: 10, strokes: 4)).entry.hole, 10)
    }

    /// Three finished rounds give Ann an index; a fourth round shows the handicaps, the leaderboard and net scores.
    /// Fewer than three differentials: no index, so no score is marked "older than the most recent 20".
    func testHistoryWithoutAnIndexMarksNothing() throws {
        let (commands, _) = try makeCommands()
        let pars = SampleData.courses[0].tees[0].holes.map(\.par)
        for (i, over) in [17, 16].enumerated() {
            let id = try start(commands, players: "Ann", date: "2024-0\(i + 1)-10").round.id
            try card(commands, round: id, player: "Ann", strokes: pars.enumerated().map { $0.element + ($0.offset < over ? 1 : 0) })
            _ = try commands.finishRound(FinishRoundRequest(round: id, today: GolfDate("2024-0\(i + 1)-10")!))
        }
        let record = try commands.index("Ann")
        XCTAssertNil(record.index)
        XCTAssertEqual(record.scores.compactMap { $0.outcome.differential }.count, 2)
        XCTAssertFalse(record.text.contains("·"), record.text)
        XCTAssertFalse(record.text.contains("counted in the index"), record.text)
    }

    func testRoundsIndexLeaderboardAndHistory() throws {
        let (commands, _) = try makeCommands()
        // Heron Bay White (71.1/125, par 72): Ann shoots 89, 88, 90 → differentials
        // 113/125 × (89 − 71.1) = 16.18 → 16.2; (88 − 71.1) → 15.28 → 15.3; (90 − 71.1) → 17.09 → 17.1.
        // Index: lowest 15.3 − 2.0 = 13.3.
        let heronPars = SampleData.courses[0].tees[0].holes.map(\.par)
        func strokes(over: Int) -> [Int] { heronPars.enumerated().map { $0.element + ($0.offset < over ? 1 : 0) } }
        for (i, over) in [17, 16, 18].enumerated() {
            let id = try start(commands, players: "Ann", date: "2024-0\(i + 1)-10").round.id
            try card(commands, round: id, player: "Ann", strokes: strokes(over: over))
            let finished = try commands.finishRound(FinishRoundRequest(round: id, today: GolfDate("2024-0\(i + 1)-10")!))
            XCTAssertEqual(finished.players[0].gross, 72 + over)
        }
        let record = try commands.index("Ann")
        XCTAssertEqual(record.scores.map { $0.outcome.differential }, [t("17.1"), t("15.3"), t("16.2")])
        XCTAssertEqual(record.index, t("13.3"))
        XCTAssertEqual(record.calculation?.adjustment, t("-2.0"))
        XCTAssertTrue(record.text.hasPrefix("Ann: Handicap Index 13.3"), record.text)
        // Three differentials, all among the most recent 20: the legend names only what is marked.
        XCTAssertTrue(record.text.hasSuffix("* counted in the index"), record.text)
        XCTAssertFalse(record.text.contains("·"), record.text)
        XCTAssertEqual(try commands.listPlayers().players[0].index, t("13.3"))

        // Round 4 on 2024-05-01: Course Handicap 13.3 × 125/113 + (71.1 − 72) = 13.81 → 14; 95% → 13.12 → 13.
        let started = try start(commands, players: "Ann,Ben")
        let ann = try XCTUnwrap(started.round.players.first { $0.name == "Ann" })
        XCTAssertEqual(ann.index, t("13.3"))
        XCTAssertEqual(ann.courseHandicap, 14)
        XCTAssertEqual(ann.playingHandicap, 13)
        XCTAssertNil(started.round.players[1].index)
        XCTAssertTrue(started.text.contains("Ben: no Handicap Index yet"), started.text)

        // Ann: holes 1–3 (par 4, 4, 3; stroke indexes 7, 11, 15) in 5, 5, 3 → gross 13, to par +2; she
        // receives strokes on indexes 1–13, so on holes 1 and 2: net 11, net to par E.
        // Ben: 4, 4, 3 → gross 11, E, no handicap: net 11, net to par E.
        try card(commands, round: 4, player: "Ann", strokes: [5, 5, 3])
        try card(commands, round: 4, player: "Ben", strokes: [4, 4])
        var board = try commands.leaderboard(4)
        XCTAssertEqual(board.lines.map(\.name), ["Ben", "Ann"])   // both net E: lower gross to par first
        let annLine = try XCTUnwrap(board.lines.first { $0.name == "Ann" })
        XCTAssertEqual([annLine.holesPlayed, annLine.gross, annLine.toPar, annLine.strokesReceived, annLine.net, annLine.netToPar],
                       [3, 13, 2, 2, 11, 0])
        try card(commands, round: 4, player: "Ben", strokes: [3], firstHole: 3)
        board = try commands.leaderboard(4)
        let benLine = try XCTUnwrap(board.lines.first { $0.name == "Ben" })
        XCTAssertEqual([benLine.holesPlayed, benLine.gross, benLine.toPar, benLine.net, benLine.netToPar], [3, 11, 0, 11, 0])
        XCTAssertEqual(board.lines.map(\.position), ["T1", "T1"])
        XCTAssertEqual(board.lines.map(\.name), ["Ben", "Ann"])   // equal net: lower gross to par first
        XCTAssertTrue(board.text.contains("net to par"), board.text)

        // Finishing an incomplete card: no differential, the index stays.
        let finished = try commands.finishRound(FinishRoundRequest(round: 4, today: GolfDate("2024-05-01")!, confirmed: true))
        XCTAssertEqual(finished.players[0].note, "not every hole was scored: not acceptable for handicap purposes")
        XCTAssertEqual(finished.players[0].indexAfter, t("13.3"))
        let history = try commands.rounds()
        XCTAssertEqual(history.rounds.map(\.round.id), [4, 3, 2, 1])
        XCTAssertEqual(history.rounds[0].round.status, "finished")
        XCTAssertTrue(history.text.contains("round 4 · 2024-05-01 · Heron Bay Links, tee White · 18 holes"), history.text)
        XCTAssertEqual(message { _ = try commands.index("Zed") },
                       "no player 'Zed' — add them with 'scorecard player add' or see 'scorecard player list'")
    }

    func testPlayingHandicapFollowsTheFormat() throws {
        let (commands, _) = try makeCommands()
        for (i, over) in [17, 16, 18].enumerated() {
            let id = try start(commands, players: "Ann", date: "2024-0\(i + 1)-10").round.id
            let pars = SampleData.courses[0].tees[0].holes.map(\.par)
            try card(commands, round: id, player: "Ann", strokes: pars.enumerated().map { $0.element + ($0.offset < over ? 1 : 0) })
            _ = try commands.finishRound(FinishRoundRequest(round: id, today: today))
        }
        // 13.81… × 85% = 11.74 → 12; match play 100% → 14; nine holes (front, 35.7/127, par 36):
        // index/2 = 6.65 → 6.7; 6.7 × 127/113 − 0.3 = 7.23 → 7.
        XCTAssertEqual(try start(commands, players: "Ann,Ben", format: "four-ball-stroke-play").round.players[0].playingHandicap, 12)
        XCTAssertEqual(try start(commands, players: "Ann,Ben", format: "match-play").round.players[0].playingHandicap, 14)
        let nine = try start(commands, players: "Ann", holes: 9)
        XCTAssertEqual(nine.round.nine, .front)
        XCTAssertEqual(nine.round.players[0].courseHandicap, 7)
    }

    // MARK: Demo

    func testDemoIsDeterministicAndShowsRecords() throws {
        let a = try ScorecardCommands(store: InMemoryScorecardStore()).runDemo(today: today)
        let b = try ScorecardCommands(store: InMemoryScorecardStore()).runDemo(today: today)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.players.players.count, 4)
        XCTAssertEqual(a.courses.courses.count, 3)
        XCTAssertEqual(a.finishedRounds, 25)
        let indexes = Dictionary(uniqueKeysWithValues: a.records.map { ($0.player.name, $0.index) })
        XCTAssertNotNil(indexes["Maren Holt"] ?? nil)
        XCTAssertNotNil(indexes["Priya Nandakumar"] ?? nil)
        XCTAssertNil(indexes["Callum Birch"] ?? nil)           // two scores: no index yet
        let maren = try XCTUnwrap(a.records.first { $0.player.name == "Maren Holt" })
        XCTAssertNotNil(maren.lowIndex)
        XCTAssertEqual(maren.calculation?.used, 8)
        let tomas = try XCTUnwrap(a.records.first { $0.player.name == "Tomas Reyes" })
        XCTAssertTrue(tomas.scores.contains { $0.holes == 9 })
        XCTAssertEqual(a.liveRound.round.status, "open")
        XCTAssertEqual(a.liveRound.lines.first { $0.name == "Tomas Reyes" }?.holesPlayed, 10)
        XCTAssertTrue(a.text.contains("Live leaderboard"))
        // The formats: a Stableford round of four, a match played until decided, skins on nine holes.
        XCTAssertEqual(a.stableford.stableford?.count, 4)
        XCTAssertEqual(a.stableford.stableford?.allSatisfy { $0.holesPlayed == 18 }, true)
        let match = try XCTUnwrap(a.match.match)
        XCTAssertTrue(match.decided, match.status)
        XCTAssertEqual(match.holesPlayed + match.holesRemaining, 18)
        let skins = try XCTUnwrap(a.skins.skins)
        XCTAssertEqual(skins.holesDecided, 9)
        XCTAssertEqual(skins.players.reduce(0) { $0 + $1.skins } + skins.carried, 9)   // every skin is won or still carried
        XCTAssertEqual(a.correction.replaced + 1, a.correction.entry.strokes)
        XCTAssertTrue(a.text.contains("Stableford") && a.text.contains("Skins") && a.text.contains("Match play"), a.text)
    }

    func testHandicapRecordIsCodable() throws {
        let report = try ScorecardCommands(store: InMemoryScorecardStore()).runDemo(today: today)
        let maren = try XCTUnwrap(report.records.first)
        let data = try JSONEncoder().encode(maren)
        XCTAssertEqual(try JSONDecoder().decode(HandicapRecord.self, from: data), maren)
        // The ordered encoder writes the same keys in declaration order with exact decimals.
        let json = ScorecardJSON.value(maren)
        XCTAssertEqual(json.objectValue?.keys, ["player", "index", "lowIndex", "calculation", "scores", "revisions"])
        XCTAssertEqual(json["index"].map { JSONWriter.compact($0) }, maren.index?.description)
    }
}

/// "Ann,Ben" as the list a command line makes of it.
func names(_ list: String) -> [String] { list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
