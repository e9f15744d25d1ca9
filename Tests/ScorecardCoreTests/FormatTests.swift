import XCTest
@testable import ScorecardCore

/// The formats of play on a 9-hole card worked out by hand. The holes: pars 4 3 5 4 4 3 5 4 4, stroke
/// indexes (allocation ranks) 3 9 1 5 7 8 2 4 6; a Playing Handicap c gives ⌊c/9⌋ strokes a hole plus one
/// on the holes ranked ≤ c mod 9 (Rules of Handicapping Rule 6.2 / Appendix E); a plus handicap gives
/// strokes back from rank 9 upward.
final class FormatTests: XCTestCase {
    private let pars = [4, 3, 5, 4, 4, 3, 5, 4, 4]
    private let ranks = [3, 9, 1, 5, 7, 8, 2, 4, 6]

    private func field(_ players: [(String, Int?, [Int])]) -> FormatField {
        let holes = pars.enumerated().map { Hole(number: $0.offset + 1, par: $0.element, strokeIndex: ranks[$0.offset]) }
        var strokes: [Int] = []
        for (_, _, card) in players { strokes += card + [Int](repeating: 0, count: 9 - card.count) }
        return FormatField(holes: holes, ranks: ranks,
                           entrants: players.enumerated().map { .init(playerID: $0.offset + 1, name: $0.element.0, playingHandicap: $0.element.1) },
                           strokes: strokes)
    }

    // R&A Rules of Golf Rule 21.1b: points from the net score against par (the fixed score): 0 for net
    // double bogey or worse, 1 bogey, 2 par, 3 birdie, 4 eagle, 5 albatross.
    func testStablefordPointsRule21_1b() {
        XCTAssertEqual([7, 6, 5, 4, 3, 2, 1].map { Stableford.points(par: 4, net: $0) }, [0, 0, 1, 2, 3, 4, 5])
        XCTAssertEqual(Stableford.points(par: 5, net: 9), 0)
    }

    func testStablefordLeaderboardByHand() {
        // Ann, Playing Handicap 5: a stroke on ranks 1–5 = holes 1, 3, 4, 7, 8.
        //   gross 5 3 6 6 4 4 5 5 7 → net 4 3 5 5 4 4 4 4 7 → points 2 2 2 1 2 1 3 2 0 = 15; gross points
        //   1 2 1 0 2 1 2 1 0 = 10.
        // Ben, 12: one stroke a hole, two on ranks 1–3 (holes 3, 7, 1).
        //   gross 6 4 7 5 6 4 6 6 5 → net 4 3 5 4 5 3 4 5 4 → points 2 2 2 2 1 2 3 1 2 = 17; gross 0 1 0 1 0 1 1 0 1 = 5.
        // Cy, plus 1: gives a stroke back on rank 9 (hole 2). Par everywhere → 2 × 8 + 1 = 17; gross 18.
        let lines = Stableford.leaderboard(field([
            ("Ann", 5, [5, 3, 6, 6, 4, 4, 5, 5, 7]),
            ("Ben", 12, [6, 4, 7, 5, 6, 4, 6, 6, 5]),
            ("Cy", -1, [4, 3, 5, 4, 4, 3, 5, 4, 4]),
            ("Dee", 10, []),
        ]))
        XCTAssertEqual(lines.map(\.name), ["Ben", "Cy", "Ann", "Dee"])
        XCTAssertEqual(lines.map(\.points), [17, 17, 15, nil])
        XCTAssertEqual(lines.map(\.grossPoints), [5, 18, 10, nil])
        XCTAssertEqual(lines.map(\.position), ["T1", "T1", "3", "—"])
        XCTAssertEqual(lines.map(\.holesPlayed), [9, 9, 9, 0])
    }

    // Rules of Golf Rule 3.2a: the lower net score wins the hole, a tie halves it; the match is won when a
    // side leads by more holes than remain. Appendix C: 100 %, strokes off the lower Playing Handicap.
    func testMatchPlayHolesUpDormieAndThreeAndTwo() {
        // Ann 3, Ben 8: Ben receives 5 on ranks 1–5 = holes 1, 3, 4, 7, 8.
        // h1 4 v 6−1=5 Ann (1 up) · h2 3 v 3 halved · h3 4 v 6−1=5
        // Ann (2 up) · h4 4 v 5−1=4 halved · h5 4 v 5 Ann (3 up, 4 to play) · h6 3 v 3 halved (3 up, 3 to
        // play: dormie) · h7 4 v 5−1=4 halved: 3 up with 2 to play → Ann wins 3&2.
        let ann = [4, 3, 4, 4, 4, 3, 4]
        let ben = [6, 3, 6, 5, 5, 3, 5]
        let after5 = MatchPlay.state(field([("Ann", 3, Array(ann.prefix(5))), ("Ben", 8, Array(ben.prefix(5)))]), sideSize: 1)
        XCTAssertEqual(after5.strokes, [0, 5])
        XCTAssertEqual(after5.holes.map(\.winner), [0, nil, 0, nil, 0])
        XCTAssertEqual(after5.holes.map(\.net), [[4, 5], [3, 3], [4, 5], [4, 4], [4, 5]])
        XCTAssertEqual(after5.status, "Ann 3 up thru 5")
        XCTAssertFalse(after5.decided)
        let after6 = MatchPlay.state(field([("Ann", 3, Array(ann.prefix(6))), ("Ben", 8, Array(ben.prefix(6)))]), sideSize: 1)
        XCTAssertTrue(after6.dormie)
        XCTAssertEqual(after6.status, "Ann dormie 3")
        let after7 = MatchPlay.state(field([("Ann", 3, ann), ("Ben", 8, ben)]), sideSize: 1)
        XCTAssertTrue(after7.decided)
        XCTAssertEqual(after7.decidedAfterHole, 7)
        XCTAssertEqual(after7.result, "3&2")
        XCTAssertEqual(after7.status, "Ann wins 3&2")
        XCTAssertEqual(after7.holesRemaining, 2)
    }

    func testMatchPlayOneUpOnTheLastAndHalved() {
        // Equal handicaps, every hole halved but the 9th, which Ben wins: Ben wins 1 up. All halved: halved.
        let par = [4, 3, 5, 4, 4, 3, 5, 4, 4]
        var birdie = par
        birdie[8] = 3
        let oneUp = MatchPlay.state(field([("Ann", 10, par), ("Ben", 10, birdie)]), sideSize: 1)
        XCTAssertEqual(oneUp.result, "1 up")
        XCTAssertEqual(oneUp.status, "Ben wins 1 up")
        XCTAssertEqual(oneUp.up, -1)
        let halved = MatchPlay.state(field([("Ann", nil, par), ("Ben", 0, par)]), sideSize: 1)
        XCTAssertEqual(halved.result, "halved")
        XCTAssertEqual(halved.decidedAfterHole, 9)
        // Holes are played in order: a score on hole 3 without hole 2 does not count yet.
        let gap = MatchPlay.state(field([("Ann", 0, [4, 0, 5]), ("Ben", 0, [5, 3, 5])]), sideSize: 1)
        XCTAssertEqual(gap.status, "Ann 1 up thru 1")
    }

    // Rules of Golf Rule 23.2: a side's hole score is the better of the partners'. Appendix C four-ball
    // match play: 90 %, strokes off the lowest of the four.
    func testFourBallMatchPlayOffTheLowest() {
        // Playing Handicaps Ann 2, Ben 6, Cy 4, Dee 9 → strokes off Ann's 2: 0, 4, 2, 7.
        // Ben: ranks 1–4 (holes 1, 3, 7, 8); Cy: ranks 1–2 (holes 3, 7); Dee: ranks 1–7 (all but 2 and 6).
        // h1: Ann 5, Ben 5−1=4 → 4; Cy 4, Dee 6−1=5 → 4: halved.
        // h2: Ann 3, Ben 4 → 3; Cy 4, Dee 4 → 4: Ann & Ben win.
        // h3: Ann 6, Ben 6−1=5 → 5; Cy 6−1=5, Dee 6−1=5 → 5: halved. Ann & Ben 1 up thru 3.
        let state = MatchPlay.state(field([("Ann", 2, [5, 3, 6]), ("Ben", 6, [5, 4, 6]), ("Cy", 4, [4, 4, 6]), ("Dee", 9, [6, 4, 6])]),
                                    sideSize: 2)
        XCTAssertEqual(state.sides, ["Ann & Ben", "Cy & Dee"])
        XCTAssertEqual(state.strokes, [0, 4, 2, 7])
        XCTAssertEqual(state.holes.map(\.net), [[4, 4], [3, 4], [5, 5]])
        XCTAssertEqual(state.status, "Ann & Ben 1 up thru 3")
    }

    // Appendix C four-ball stroke play: 85 %, each partner receives their full Playing Handicap.
    func testFourBallStrokePlayBetterBall() {
        // Ann 2 (holes 3, 7), Ben 6 (ranks 1–6: holes 1, 3, 4, 7, 8, 9), Cy 4 (holes 1, 3, 7, 8), Dee 9 (every hole).
        // h1 par 4: Ann 5, Ben 5−1=4 → 4; Cy 4−1=3, Dee 6−1=5 → 3.
        // h2 par 3: Ann 3, Ben 4 → 3; Cy 4, Dee 4−1=3 → 3.
        // h3 par 5: Ann 6−1=5, Ben 6−1=5 → 5; Cy 6−1=5, Dee 6−1=5 → 5.
        // h4 par 4: only Cy has a score, 4 (rank 5, no stroke) → 4.
        // Ann & Ben: 12 over par 12 thru 3 = E; Cy & Dee: 15 over par 16 thru 4 = −1.
        let lines = FourBallStroke.leaderboard(field([("Ann", 2, [5, 3, 6]), ("Ben", 6, [5, 4, 6]),
                                                      ("Cy", 4, [4, 4, 6, 4]), ("Dee", 9, [6, 4, 6])]))
        XCTAssertEqual(lines.map(\.side), ["Cy & Dee", "Ann & Ben"])
        XCTAssertEqual(lines.map(\.betterBall), [15, 12])
        XCTAssertEqual(lines.map(\.toPar), [-1, 0])
        XCTAssertEqual(lines.map(\.holesPlayed), [4, 3])
        XCTAssertEqual(lines.map(\.position), ["1", "2"])
    }

    func testSkinsNetGrossAndCarryOvers() {
        // Ann 0, Ben 2 (holes 3, 7), Cy 4 (holes 1, 3, 7, 8). Cy has not played hole 7 yet.
        // Net: h1 4, 4, 5−1=4 tie → 1 carried · h2 3, 2, 3 → Ben wins 2 · h3 5, 6−1=5, 6−1=5 tie → 1 carried ·
        // h4 5, 5, 5 tie → 2 carried · h5 3, 4, 4 → Ann wins 3 · h6 3, 3, 4 tie → 1 carried.
        let players: [(String, Int?, [Int])] = [("Ann", 0, [4, 3, 5, 5, 3, 3, 5]), ("Ben", 2, [4, 2, 6, 5, 4, 3, 5]),
                                                ("Cy", 4, [5, 3, 6, 5, 4, 4])]
        let net = Skins.state(field(players), net: true, carryOvers: true)
        XCTAssertEqual(net.holes.map(\.outcome), ["carried", "won", "carried", "carried", "won", "carried"])
        XCTAssertEqual(net.holes.map(\.value), [1, 2, 1, 2, 3, 1])
        XCTAssertEqual(net.players.map(\.name), ["Ann", "Ben", "Cy"])
        XCTAssertEqual(net.players.map(\.skins), [3, 2, 0])
        XCTAssertEqual(net.players.map(\.holes), [[5], [2], []])
        XCTAssertEqual(net.carried, 1)
        XCTAssertEqual(net.holesDecided, 6)
        // Gross: h1 4, 4, 5 tie → carried · h2 Ben 2 skins · h3 Ann 5 alone → 1 · h4 tie → carried ·
        // h5 Ann 3 → 2 · h6 3, 3, 4 tie → carried.
        let gross = Skins.state(field(players), net: false, carryOvers: true)
        XCTAssertEqual(gross.players.map(\.skins), [3, 2, 0])
        XCTAssertEqual(gross.players[0].holes, [3, 5])
        // Carry-overs off: tied holes are void; Ben wins hole 2 and Ann hole 5, one skin each.
        let void = Skins.state(field(players), net: true, carryOvers: false)
        XCTAssertEqual(void.holes.map(\.value), [0, 1, 0, 0, 1, 0])
        XCTAssertEqual(void.players.map(\.skins), [1, 1, 0])
        XCTAssertEqual(void.carried, 0)
    }

    // Appendix C allowances and the site's overrides.
    func testAllowanceTable() throws {
        let appendix = AllowanceTable.appendixC
        XCTAssertEqual(PlayFormat.allCases.map { appendix.percent(for: $0) }, [95, 95, 100, 85, 90, 100])
        XCTAssertEqual(PlayFormat.allCases.map(\.configKey),
                       ["allowance_stroke_play", "allowance_stableford", "allowance_match_play", "allowance_four_ball_stroke_play",
                        "allowance_four_ball_match_play", "allowance_skins"])
        let site = try AllowanceTable(config: ["allowance_stableford": 90, "allowance_four_ball_match_play": 85])
        XCTAssertEqual(site.percent(for: .stableford), 90)
        XCTAssertEqual(site.percent(for: .fourBallMatchPlay), 85)
        XCTAssertEqual(site.percent(for: .strokePlay), 95)
        XCTAssertThrowsError(try AllowanceTable(config: ["allowance_skins": 120])) { error in
            XCTAssertEqual("\(error)", "config key 'allowance_skins': allowance 120 % is outside 0–100 % — an allowance is a share of "
                + "the Course Handicap (Appendix C), e.g. 95")
        }
        // Index 10.0 on 73.0/125 par 72: Course Handicap 10 × 125/113 + 1 = 12.06; × 90 % = 10.86 → 11.
        XCTAssertEqual(WorldHandicapSystem.playingHandicap(index: Tenths(raw: 100), slope: 125, rating: Tenths(raw: 730), par: 72,
                                                          holes: .eighteen, allowancePercent: 90), 11)
    }
}

/// The benchmark's field gives the same Stableford leaderboard as a plain recomputation from the entries.
final class StablefordWorkloadTests: XCTestCase {
    func testWorkloadLeaderboardMatchesAPlainRecount() throws {
        let store = InMemoryScorecardStore()
        let id = try StablefordWorkload.fill(store, players: 144)
        let board = try ScorecardCommands(store: store).leaderboard(id)
        let lines = try XCTUnwrap(board.stableford)
        XCTAssertEqual(lines.count, 144)
        XCTAssertTrue(lines.allSatisfy { $0.holesPlayed == 18 })
        let round = try XCTUnwrap(try store.rounds().first)
        let tee = try XCTUnwrap(try store.courses().first?.tees.first)
        let entries = try store.scoreEntries(roundID: id)
        XCTAssertEqual(entries.count, 144 * 18)
        for player in round.players {
            let ph = try XCTUnwrap(player.playingHandicap)
            var points = 0
            for hole in tee.holes {
                let strokes = try XCTUnwrap(entries.last { $0.playerID == player.playerID && $0.hole == hole.number }?.strokes)
                // Strokes received: ⌊ph/18⌋ + 1 on stroke indexes ≤ ph mod 18 (ph ≥ 0 here).
                let received = ph / 18 + (hole.strokeIndex <= ph % 18 ? 1 : 0)
                points += max(0, 2 + hole.par - (strokes - received))
            }
            XCTAssertEqual(lines.first { $0.playerID == player.playerID }?.points, points, player.name)
        }
        XCTAssertEqual(lines.map { $0.points ?? 0 }, lines.map { $0.points ?? 0 }.sorted(by: >))
    }
}
