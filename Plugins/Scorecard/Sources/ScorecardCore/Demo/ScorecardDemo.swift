// `scorecard demo`: the sample players and courses, a season of finished rounds played through the same
// commands a user runs (start, score hole by hole, finish), the players' indexes with their records, a
// live leaderboard of a round in progress, and the formats: a Stableford round, a match played until it
// is decided, a skins game with carry-overs, and a score corrected with a reason. Deterministic for a
// given date.

/// What the demo built.
public struct DemoReport: Sendable, Codable, Equatable {
    public var players: PlayerList
    public var courses: CourseList
    public var finishedRounds: Int
    public var records: [HandicapRecord]
    public var liveRound: Leaderboard
    public var stableford: Leaderboard
    public var match: Leaderboard
    public var skins: Leaderboard
    public var correction: ScoreCorrected

    public var text: String {
        var lines = ["Scorecard demo: \(players.players.count) players, \(courses.courses.count) courses, "
            + "\(finishedRounds) finished rounds", "", courses.text, "", players.text]
        for record in records {
            lines.append("")
            lines.append(record.text)
        }
        lines.append("")
        lines.append("Live leaderboard")
        lines.append(liveRound.text)
        for (title, board) in [("Stableford", stableford), ("Match play", match), ("Skins", skins)] {
            lines.append("")
            lines.append(title)
            lines.append(board.text)
        }
        lines.append("")
        lines.append("Correction")
        lines.append(correction.text)
        return lines.joined(separator: "\n")
    }
}

extension ScorecardCommands {
    /// Fills the store with the demo's players, courses and rounds, and reports the result.
    /// The store should be empty (the demo's names must not exist yet).
    public func runDemo(today: GolfDate) throws(ScorecardError) -> DemoReport {
        var rng = SplitMix64(seed: 0x5C0_2ECA_2D)
        for name in SampleData.players { _ = try addPlayer(AddPlayerRequest(name: name)) }
        for draft in SampleData.courses {
            try CourseValidation.validate(draft) { _ in "sample course '\(draft.name)': " }
            _ = try insert(draft)
        }
        let (maren, tomas, priya, callum) = (SampleData.players[0], SampleData.players[1], SampleData.players[2], SampleData.players[3])
        var finished = 0

        func play(course: String, tee: String, players: [(String, Int)], date: GolfDate, holes: HoleCount = .eighteen,
                  through: Int? = nil, finish: Bool = true, format: PlayFormat = .strokePlay) throws(ScorecardError) -> Int {
            let started = try startRound(StartRoundRequest(
                course: course, tee: tee, players: players.map(\.0), date: date.description,
                holes: holes.rawValue, format: format.rawValue, today: today))
            let id = started.round.id
            let world = try loadWorld()
            let teeHoles = try self.course(course, in: world.courses).tee(named: tee).map { Array($0.holes(for: started.round.nine)) } ?? []
            if format.isMatch {
                // Hole by hole until the match is decided (later holes are not played).
                for hole in teeHoles.prefix(through ?? teeHoles.count) {
                    for (name, skill) in players {
                        let strokes = SampleData.strokes(par: hole.par, overPerHoleTenths: skill, using: &rng)
                        _ = try enterScore(ScoreRequest(round: id, player: name, hole: hole.number, strokes: strokes))
                    }
                    if try leaderboard(id).match?.decided == true { break }
                }
            } else {
                for (name, skill) in players {
                    for hole in teeHoles.prefix(through ?? teeHoles.count) {
                        let strokes = SampleData.strokes(par: hole.par, overPerHoleTenths: skill, using: &rng)
                        _ = try enterScore(ScoreRequest(round: id, player: name, hole: hole.number, strokes: strokes))
                    }
                }
            }
            if finish {
                _ = try finishRound(FinishRoundRequest(round: id, today: date, confirmed: true))
                finished += 1
            }
            return id
        }

        let tees = [("Heron Bay Links", "White"), ("Heron Bay Links", "Blue"), ("Quarry Ridge", "Gold")]
        for k in 0..<24 {
            let date = today.adding(days: -21 * (24 - k))
            // Maren plays well for a season and then falls away (her caps show); Tomas has one
            // exceptional day; Priya and Callum join late (few scores, or none yet).
            var group: [(String, Int)] = [(maren, k < 14 ? 5 : 16)]
            if k % 2 == 0 { group.append((tomas, k == 16 ? 0 : 8)) }
            if k >= 19 { group.append((priya, 12)) }
            if k >= 22 { group.append((callum, 20)) }
            let (course, tee) = tees[k % 3]
            _ = try play(course: course, tee: tee, players: group, date: date)
            if k == 10 {
                _ = try play(course: "Juniper Hill", tee: "Yellow", players: [(tomas, 8), (maren, 5)], date: date.adding(days: 3), holes: .nine)
            }
        }
        // A round in progress: some players further on than others, one card corrected.
        let live = try play(course: "Heron Bay Links", tee: "White",
                            players: [(maren, 12), (tomas, 8), (priya, 12), (callum, 20)], date: today, through: 9, finish: false)
        _ = try enterScore(ScoreRequest(round: live, player: tomas, hole: 10, strokes: 4))
        _ = try enterScore(ScoreRequest(round: live, player: tomas, hole: 10, strokes: 5))

        // The formats, on today's date and left open (their leaderboards are live): a Stableford round at
        // 95 %, a match at 100 % with strokes off the lower handicap, net skins with carry-overs.
        let stableford = try play(course: "Quarry Ridge", tee: "Gold", players: [(maren, 12), (tomas, 8), (priya, 12), (callum, 20)],
                                  date: today, finish: false, format: .stableford)
        let match = try play(course: "Heron Bay Links", tee: "Blue", players: [(maren, 12), (tomas, 8)], date: today, finish: false,
                             format: .matchPlay)
        let skins = try play(course: "Juniper Hill", tee: "Yellow", players: [(maren, 12), (tomas, 8), (priya, 12)], date: today,
                             holes: .nine, finish: false, format: .skins)
        // A score in the season's last finished round was wrong: corrected with a reason, the record recomputed.
        let lastFinished = try stored { try store.rounds() }.last { $0.isFinished && $0.players.contains { $0.name == maren } }
        let card = Scorecard(entries: try stored { try store.scoreEntries(roundID: lastFinished?.id ?? 0) })
        let wrong = card.strokes(player: 1, hole: 1) ?? 4
        let correction = try correctScore(CorrectionRequest(round: lastFinished?.id ?? 0, player: maren, hole: 1,
                                                            strokes: wrong + 1, reason: "marker wrote the score before a penalty stroke",
                                                            today: today))

        var records: [HandicapRecord] = []
        for name in SampleData.players { records.append(try index(name)) }
        return DemoReport(players: try listPlayers(), courses: try listCourses(), finishedRounds: finished,
                          records: records, liveRound: try leaderboard(live), stableford: try leaderboard(stableford),
                          match: try leaderboard(match), skins: try leaderboard(skins), correction: correction)
    }
}
