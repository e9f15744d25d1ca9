import XCTest
@testable import ScorecardCore

/// Formats through the commands: allowances per round and per site, the leaderboard per format, a match
/// already decided, corrections with a reason and the record recomputed, and every error they can cause
/// (each one line, nothing written).
final class FormatCommandsTests: XCTestCase {
    private func t(_ text: String) -> Tenths { Tenths.parse(text)! }
    private let today = GolfDate("2024-06-01")!

    private func makeCommands(allowances: AllowanceTable = .appendixC) throws -> (ScorecardCommands, InMemoryScorecardStore) {
        let store = InMemoryScorecardStore()
        let commands = ScorecardCommands(store: store, allowances: allowances)
        for draft in SampleData.courses { _ = try commands.addCourse(AddCourseRequest(file: "c.json", text: CourseFile.render(draft))) }
        for name in ["Ann", "Ben", "Cy", "Dee"] { _ = try commands.addPlayer(AddPlayerRequest(name: name)) }
        return (commands, store)
    }

    private let heronPars = SampleData.courses[0].tees[0].holes.map(\.par)

    private func start(_ commands: ScorecardCommands, players: String, format: String? = nil, date: String = "2024-05-01",
                       allowance: String? = nil, skins: String? = nil, carryOvers: String? = nil) throws -> RoundStarted {
        try commands.startRound(StartRoundRequest(course: "Heron Bay Links", tee: "White", players: names(players), date: date, format: format,
                                                  allowance: allowance, skins: skins, carryOvers: carryOvers, today: today))
    }

    private func card(_ commands: ScorecardCommands, round: Int, player: String, strokes: [Int]) throws {
        for (i, s) in strokes.enumerated() {
            _ = try commands.enterScore(ScoreRequest(round: round, player: player, hole: i + 1, strokes: s))
        }
    }

    /// Ann plays 89, 88, 90 on Heron Bay White (71.1/125, par 72), one stroke over par on the first holes:
    /// differentials 16.2, 15.3, 17.1 → index 15.3 − 2.0 = 13.3.
    private func giveAnnAnIndex(_ commands: ScorecardCommands) throws {
        for (i, over) in [17, 16, 18].enumerated() {
            let id = try start(commands, players: "Ann", date: "2024-0\(i + 1)-10").round.id
            try card(commands, round: id, player: "Ann", strokes: heronPars.enumerated().map { $0.element + ($0.offset < over ? 1 : 0) })
            _ = try commands.finishRound(FinishRoundRequest(round: id, today: GolfDate("2024-0\(i + 1)-10")!))
        }
    }

    func testPlayingHandicapFollowsTheFormatsAllowanceTheSiteAndTheRound() throws {
        // Course Handicap 13.3 × 125/113 + (71.1 − 72) = 13.812: Stableford 95 % → 13.12 → 13; match 100 % → 14;
        // four-ball match 90 % → 12.43 → 12; four-ball stroke 85 % → 11.74 → 12; --allowance 80 → 11.05 → 11.
        let (commands, _) = try makeCommands()
        try giveAnnAnIndex(commands)
        func ph(_ format: String, _ players: String, allowance: String? = nil) throws -> (Int?, Int) {
            let round = try start(commands, players: players, format: format, allowance: allowance).round
            return (round.players[0].playingHandicap, round.allowance)
        }
        XCTAssertEqual(try ph("stableford", "Ann").0, 13)
        XCTAssertEqual(try ph("match-play", "Ann,Ben").0, 14)
        XCTAssertEqual(try ph("four-ball-match-play", "Ann,Ben,Cy,Dee").0, 12)
        XCTAssertEqual(try ph("four-ball-stroke-play", "Ann,Ben").0, 12)
        XCTAssertEqual(try ph("skins", "Ann,Ben").0, 14)
        let custom = try ph("stableford", "Ann", allowance: "80")
        XCTAssertEqual(custom.0, 11)
        XCTAssertEqual(custom.1, 80)
        // A site that plays Stableford at 90 %: 12.43 → 12.
        let (site, _) = try makeCommands(allowances: try AllowanceTable(config: ["allowance_stableford": 90]))
        try giveAnnAnIndex(site)
        let round = try site.startRound(StartRoundRequest(course: "Heron Bay Links", tee: "White", players: ["Ann"], date: "2024-05-01",
                                                          format: "stableford", today: today)).round
        XCTAssertEqual(round.allowance, 90)
        XCTAssertEqual(round.players[0].playingHandicap, 12)
        XCTAssertTrue(try site.leaderboard(round.id).text.contains("individual Stableford 90%"))
    }

    func testFormatErrorsAreOneLineAndWriteNothing() throws {
        let (commands, store) = try makeCommands()
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann", format: "bingo-bango") },
                       "format 'bingo-bango' is unknown — use one of stroke-play, stableford, match-play, four-ball-stroke-play, four-ball-match-play, skins")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann", format: "stableford", allowance: "120") },
                       "--allowance: allowance 120 % is outside 0–100 % — an allowance is a share of the Course Handicap (Appendix C), e.g. 95")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann", format: "stableford", allowance: "-5") },
                       "--allowance: allowance -5 % is outside 0–100 % — an allowance is a share of the Course Handicap (Appendix C), e.g. 95")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann", allowance: "ninety") },
                       "--allowance 'ninety' is not a whole percent, e.g. 95")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann,Ben,Cy", format: "match-play") },
                       "individual match play needs exactly 2 players; --players lists 3")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann,Ben", format: "four-ball-match-play") },
                       "four-ball better ball match play needs exactly 4 players (partners listed together: A,B against C,D); --players lists 2")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann,Ben,Cy", format: "four-ball-stroke-play") },
                       "four-ball better ball stroke play needs an even number of players (partners listed together: A,B,C,D is A & B and C & D); --players lists 3")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann", format: "skins") },
                       "skins needs at least 2 players; --players lists 1")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann,Ben", format: "stableford", skins: "gross") },
                       "--skins applies to skins only, not to individual Stableford — leave it out or start the round with --format skins")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann,Ben", format: "skins", carryOvers: "maybe") },
                       "--carry-overs 'maybe' is not on or off")
        XCTAssertEqual(message { _ = try self.start(commands, players: "Ann,Ben", format: "skins", skins: "both") },
                       "--skins 'both' is not net or gross")
        XCTAssertEqual(try store.rounds().count, 0)
    }

    func testMatchAlreadyDecidedRefusesLaterHoles() throws {
        // No indexes: both play off 0. Ann wins holes 1–9 (par v bogey): 9 up with 9 to play, dormie; she
        // wins hole 10 too: 10 up with 8 to play → "10&8" (Rule 3.2a(3)). A score on hole 11 is refused and
        // nothing is written; hole 10 can still change (halved: 9 up with 8 to play → "9&8").
        let (commands, store) = try makeCommands()
        let id = try start(commands, players: "Ann,Ben", format: "match-play").round.id
        try card(commands, round: id, player: "Ann", strokes: Array(heronPars.prefix(10)))
        try card(commands, round: id, player: "Ben", strokes: heronPars.prefix(9).map { $0 + 1 })
        XCTAssertEqual(try commands.leaderboard(id).match?.status, "Ann dormie 9")   // 9 up with 9 to play
        XCTAssertEqual(try commands.leaderboard(id).match?.dormie, true)
        _ = try commands.enterScore(ScoreRequest(round: id, player: "Ben", hole: 10, strokes: 6))
        let board = try commands.leaderboard(id)
        XCTAssertEqual(board.match?.result, "10&8")
        XCTAssertTrue(board.text.contains("Ann v Ben: Ann wins 10&8"), board.text)
        let entries = try store.scoreEntries(roundID: id).count
        XCTAssertEqual(message { _ = try commands.enterScore(ScoreRequest(round: id, player: "Ann", hole: 11, strokes: 4)) },
                       "the match of round \(id) is already decided (Ann wins 10&8 after hole 10) — hole 11 is not played; "
                        + "use 'scorecard correct' with a reason if an earlier hole's score was wrong")
        XCTAssertEqual(try store.scoreEntries(roundID: id).count, entries)
        _ = try commands.enterScore(ScoreRequest(round: id, player: "Ben", hole: 10, strokes: 4))
        XCTAssertEqual(try commands.leaderboard(id).match?.status, "Ann wins 9&8")   // hole 10 halved
    }

    func testLeaderboardPerFormat() throws {
        let (commands, _) = try makeCommands()
        // Stableford without indexes (gross = net): Ann par, par, birdie → 2 + 2 + 3 = 7; Ben bogey, par → 3.
        let s = try start(commands, players: "Ann,Ben", format: "stableford").round.id
        try card(commands, round: s, player: "Ann", strokes: [4, 4, 2])
        try card(commands, round: s, player: "Ben", strokes: [5, 4])
        let stableford = try commands.leaderboard(s)
        XCTAssertEqual(stableford.stableford?.map(\.points), [7, 3])
        XCTAssertTrue(stableford.text.contains("points"), stableford.text)
        // Skins, gross (no handicaps): h1 4 v 5 Ann; h2 4 v 4 carried; h3 3 v 2 Ben wins 2.
        let k = try start(commands, players: "Ann,Ben", format: "skins", skins: "gross", carryOvers: "on").round.id
        try card(commands, round: k, player: "Ann", strokes: [4, 4, 3])
        try card(commands, round: k, player: "Ben", strokes: [5, 4, 2])
        let skins = try XCTUnwrap(try commands.leaderboard(k).skins)
        XCTAssertEqual(skins.basis, "gross")
        XCTAssertEqual(skins.players.map(\.skins), [2, 1])
        XCTAssertEqual(skins.players.map(\.name), ["Ben", "Ann"])
        // Four-ball stroke play: sides Ann & Ben, Cy & Dee; better ball 4 + 3 = 7 (par 8) v 5 + 4 = 9.
        let f = try start(commands, players: "Ann,Ben,Cy,Dee", format: "four-ball-stroke-play").round.id
        try card(commands, round: f, player: "Ann", strokes: [4, 5])
        try card(commands, round: f, player: "Ben", strokes: [5, 3])
        try card(commands, round: f, player: "Cy", strokes: [5, 4])
        try card(commands, round: f, player: "Dee", strokes: [6, 5])
        let fourBall = try XCTUnwrap(try commands.leaderboard(f).fourBall)
        XCTAssertEqual(fourBall.map(\.side), ["Ann & Ben", "Cy & Dee"])
        XCTAssertEqual(fourBall.map(\.toPar), [-1, 1])
    }

    func testCorrectionKeepsEveryEntryAndRecomputesTheIndex() throws {
        let (commands, store) = try makeCommands()
        try giveAnnAnIndex(commands)
        XCTAssertEqual(try commands.index("Ann").index, t("13.3"))
        // Round 2 (88, differential 15.3): hole 1 was a 5, not a 4 → 89: 113/125 × (89 − 71.1) = 16.18 → 16.2.
        // Differentials 16.2, 16.2, 17.1 → 16.2 − 2.0 = 14.2.
        let corrected = try commands.correctScore(CorrectionRequest(round: 2, player: "Ann", hole: 1, strokes: 6,
                                                                    reason: "marker wrote 5 for a 6", today: today))
        XCTAssertEqual(corrected.replaced, 5)
        XCTAssertEqual(corrected.differential, t("16.2"))
        XCTAssertEqual(corrected.indexBefore, t("13.3"))
        XCTAssertEqual(corrected.indexAfter, t("14.2"))
        XCTAssertEqual(try commands.index("Ann").index, t("14.2"))
        let history = try commands.entries(2)
        XCTAssertEqual(history.entries.count, 19)
        XCTAssertEqual(history.entries.filter { $0.hole == 1 }.map(\.strokes), [5, 6])
        XCTAssertEqual(history.entries.filter { $0.hole == 1 }.map(\.current), [false, true])
        XCTAssertEqual(history.entries.last?.reason, "marker wrote 5 for a 6")
        XCTAssertTrue(history.text.contains("2024-06-01: marker wrote 5 for a 6"), history.text)
        XCTAssertTrue(corrected.text.contains("index 13.3 → 14.2"), corrected.text)

        let before = try store.scoreEntries(roundID: 2).count
        XCTAssertEqual(message { _ = try commands.correctScore(CorrectionRequest(round: 2, player: "Ann", hole: 1, strokes: 5,
                                                                                 reason: "  ", today: self.today)) },
                       "a correction needs a reason — pass --reason \"what was wrong\"")
        XCTAssertEqual(message { _ = try commands.correctScore(CorrectionRequest(round: 2, player: "Ann", hole: 1, strokes: 6,
                                                                                 reason: "again", today: self.today)) },
                       "player 'Ann' already has 6 strokes on hole 1 of round 2 — nothing to correct")
        let open = try start(commands, players: "Ann,Ben").round.id
        XCTAssertEqual(message { _ = try commands.correctScore(CorrectionRequest(round: open, player: "Ben", hole: 3, strokes: 5,
                                                                                 reason: "typo", today: self.today)) },
                       "player 'Ben' has no score on hole 3 of round \(open) to correct — enter it with 'scorecard score'")
        XCTAssertEqual(message { _ = try commands.correctScore(CorrectionRequest(round: 2, player: "Ann", hole: 1, strokes: 25,
                                                                                 reason: "typo", today: self.today)) },
                       "25 strokes on hole 1 is outside 1–20 — enter the strokes actually taken")
        XCTAssertEqual(message { _ = try commands.correctScore(CorrectionRequest(round: 2, player: "Cy", hole: 1, strokes: 5,
                                                                                 reason: "typo", today: self.today)) },
                       "player 'Cy' is not playing in round 2 — see 'scorecard leaderboard --round 2'")
        XCTAssertEqual(try store.scoreEntries(roundID: 2).count, before)
        // A failing store writes nothing.
        store.failNextWrite = "disk full"
        XCTAssertEqual(message { _ = try commands.correctScore(CorrectionRequest(round: 2, player: "Ann", hole: 2, strokes: 6,
                                                                                 reason: "typo", today: self.today)) },
                       "storage failed: disk full; nothing was written")
        XCTAssertEqual(try store.scoreEntries(roundID: 2).count, before)
    }
}
