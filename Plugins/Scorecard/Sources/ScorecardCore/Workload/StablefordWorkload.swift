// The Stableford benchmark's field: a 144-player competition on an 18-hole tee with every hole entered,
// players' Handicap Indexes spread over 0.0–36.0 (Playing Handicaps from the Appendix C 95 %), stored
// through the store's own calls so the timed `leaderboard` reads it the way the command does.

public enum StablefordWorkload {
    /// Fills `store` (which should be empty) and returns the round's id.
    public static func fill(_ store: InMemoryScorecardStore, players: Int = 144, seed: UInt64 = 0x57AB_1EF0) throws -> Int {
        var rng = SplitMix64(seed: seed)
        guard let draft = SampleData.courses.first(where: { $0.name == "Quarry Ridge" }), let tee = draft.tees.first else { return 0 }
        let course = try store.insertCourse(draft)
        var field: [RoundPlayer] = []
        var skills: [Int] = []
        for k in 0..<players {
            let player = try store.insertPlayer(name: "Player \(k + 1)")
            let index = Tenths(raw: rng.modulo(361))
            field.append(RoundPlayer(
                playerID: player.id, name: player.name, index: index,
                courseHandicap: WorldHandicapSystem.courseHandicap(index: index, slope: tee.slope, rating: tee.rating, par: tee.par),
                playingHandicap: WorldHandicapSystem.playingHandicap(index: index, slope: tee.slope, rating: tee.rating, par: tee.par,
                                                                     holes: .eighteen, allowancePercent: 95)))
            // About index × 1.2 + 4 strokes over par a round, in tenths per hole.
            skills.append((index.raw * 12 / 10 + 40) / 18)
        }
        let round = try store.insertRound(RoundDraft(courseID: course.id, teeName: tee.name, date: GolfDate(dayNumber: 20_000),
                                                     nine: .all, format: .stableford, pcc: .zero, players: field))
        for (k, player) in field.enumerated() {
            for hole in tee.holes {
                let strokes = SampleData.strokes(par: hole.par, overPerHoleTenths: skills[k], using: &rng)
                _ = try store.appendScore(roundID: round.id, playerID: player.playerID, hole: hole.number, strokes: strokes)
            }
        }
        return round.id
    }
}
