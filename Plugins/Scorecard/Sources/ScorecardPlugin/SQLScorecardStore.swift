// ScorecardStore on the plugin's SQLite database (PluginKit Storage), with the statements of
// ScorecardSchema. Decimals are integer tenths in the database; dates are YYYY-MM-DD text.

import PluginKit
import ScorecardCore

final class SQLScorecardStore: ScorecardStore {
    let storage: Storage

    init(storage: Storage) { self.storage = storage }

    struct CorruptRow: Error, CustomStringConvertible {
        let description: String
    }

    private typealias S = ScorecardSchema.Statement

    func transaction<T>(_ body: () throws -> T) throws -> T { try storage.transaction(body) }

    /// A stored number the schema does not constrain, checked again on reading (ScorecardStoredRange).
    private func checked(_ value: Int?, _ range: ClosedRange<Int>, _ what: @autoclosure () -> String) throws -> Int? {
        try ScorecardStoredRange.checked(value, range, what())
    }

    func players() throws -> [Player] {
        try storage.query(S.selectPlayers).map { row in
            let id = row["id"].int ?? 0
            let given = try checked(row["given_index_tenths"].int, ScorecardStoredRange.indexTenths, "player \(id)'s given_index_tenths")
            return Player(id: id, name: row["name"].string ?? "", givenIndex: given.map { Tenths(raw: $0) })
        }
    }

    func keptPlayerSummaries() throws -> (generation: Int64, summaries: [PlayerSummary]?) {
        let rows = try storage.query(S.selectPlayerSummaries)
        // No players: nothing to compute, whatever the rounds say.
        guard let first = rows.first else { return (0, []) }
        guard let generation = first["generation"].int64 else {
            throw CorruptRow(description: "data_generation has no row; restore a backup or recreate the database")
        }
        guard first["summarized"].int64 == generation else { return (generation, nil) }
        var summaries: [PlayerSummary] = []
        for row in rows {
            let id = row["id"].int ?? 0
            // A player without a kept summary (added by another program without the trigger) means recomputing.
            guard let isGiven = row["index_is_given"].int, let rounds = row["finished_rounds"].int else { return (generation, nil) }
            let index = try checked(row["index_tenths"].int, ScorecardStoredRange.indexTenths, "player \(id)'s kept index_tenths")
            summaries.append(PlayerSummary(id: id, name: row["name"].string ?? "", index: index.map { Tenths(raw: $0) },
                                           indexIsGiven: isGiven == 1, finishedRounds: rounds))
        }
        return (generation, summaries)
    }

    func keepPlayerSummaries(_ summaries: [PlayerSummary], generation: Int64) throws {
        try storage.transaction {
            // The data moved on while the list was computed: what it would keep is already stale.
            guard try storage.queryOne(S.selectGenerations)?["generation"].int64 == generation else { return }
            try storage.run(S.deletePlayerSummaries)
            for s in summaries {
                try storage.run(S.insertPlayerSummary, [SQLValue(s.id), SQLValue(s.index?.raw), SQLValue(s.indexIsGiven ? 1 : 0),
                                                        SQLValue(s.finishedRounds)])
            }
            try storage.run(S.markPlayerSummaries, [SQLValue(generation)])
        }
    }

    func insertPlayer(name: String, givenIndex: Tenths?) throws -> Player {
        let row = try storage.queryOne(S.insertPlayer, [.text(name), SQLValue(givenIndex?.raw)])
        return Player(id: row?["id"].int ?? Int(storage.lastInsertRowID), name: name, givenIndex: givenIndex)
    }

    func setGivenIndex(playerID: Int, index: Tenths?) throws {
        try storage.run(S.updateGivenIndex, [SQLValue(index?.raw), SQLValue(playerID)])
        if storage.changes != 1 { throw CorruptRow(description: "player \(playerID) does not exist") }
    }

    func courses() throws -> [Course] {
        var holes: [Int: [Hole]] = [:]
        for row in try storage.query(S.selectHoles) {
            holes[row["tee_id"].int ?? 0, default: []].append(Hole(number: row["number"].int ?? 0, par: row["par"].int ?? 0,
                                                                    strokeIndex: row["stroke_index"].int ?? 0))
        }
        var tees: [Int: [Tee]] = [:]
        for row in try storage.query(S.selectTees) {
            let teeID = row["id"].int ?? 0
            func rating(_ nine: String) throws -> Rating? {
                guard let tenths = try checked(row["\(nine)_rating_tenths"].int, ScorecardStoredRange.ratingTenths,
                                               "tee \(teeID)'s \(nine)_rating_tenths"),
                      let slope = row["\(nine)_slope"].int else { return nil }
                return Rating(rating: Tenths(raw: tenths), slope: slope)
            }
            let ratingTenths = try checked(row["rating_tenths"].int, ScorecardStoredRange.ratingTenths, "tee \(teeID)'s rating_tenths") ?? 0
            let tee = Tee(name: row["name"].string ?? "", rating: Tenths(raw: ratingTenths), slope: row["slope"].int ?? 0,
                          holes: holes[teeID] ?? [], front: try rating("front"), back: try rating("back"))
            tees[row["course_id"].int ?? 0, default: []].append(tee)
        }
        return try storage.query(S.selectCourses).map { row in
            let id = row["id"].int ?? 0
            return Course(id: id, name: row["name"].string ?? "", tees: tees[id] ?? [])
        }
    }

    func insertCourse(_ draft: CourseDraft) throws -> Course {
        try storage.transaction {
            let courseID = try storage.queryOne(S.insertCourse, [.text(draft.name)])?["id"].int ?? Int(storage.lastInsertRowID)
            for (position, tee) in draft.tees.enumerated() {
                let teeID = try storage.queryOne(S.insertTee, [
                    SQLValue(courseID), SQLValue(position), .text(tee.name), SQLValue(tee.rating.raw), SQLValue(tee.slope),
                    SQLValue(tee.front?.rating.raw), SQLValue(tee.front?.slope), SQLValue(tee.back?.rating.raw), SQLValue(tee.back?.slope),
                ])?["id"].int ?? Int(storage.lastInsertRowID)
                for hole in tee.holes {
                    try storage.run(S.insertHole, [SQLValue(teeID), SQLValue(hole.number), SQLValue(hole.par), SQLValue(hole.strokeIndex)])
                }
            }
            return Course(id: courseID, name: draft.name, tees: draft.tees)
        }
    }

    func rounds() throws -> [Round] {
        var players: [Int: [RoundPlayer]] = [:]
        for row in try storage.query(S.selectRoundPlayers) {
            let round = row["round_id"].int ?? 0, player = row["player_id"].int ?? 0
            let what = "round \(round), player \(player): "
            players[round, default: []].append(RoundPlayer(
                playerID: player, name: row["name"].string ?? "",
                index: try checked(row["index_tenths"].int, ScorecardStoredRange.indexTenths, what + "index_tenths").map { Tenths(raw: $0) },
                courseHandicap: try checked(row["course_handicap"].int, ScorecardStoredRange.handicap, what + "course_handicap"),
                playingHandicap: try checked(row["playing_handicap"].int, ScorecardStoredRange.handicap, what + "playing_handicap")))
        }
        return try storage.query(S.selectRounds).map { row in
            let id = row["id"].int ?? 0
            guard let date = row["played_on"].string.flatMap(GolfDate.init), let nine = row["nine"].string.flatMap(Nine.init(rawValue:)),
                  let format = row["format"].string.flatMap(PlayFormat.init(rawValue:)) else {
                throw CorruptRow(description: "round \(id) has an unreadable date, nine or format in the database")
            }
            // Rounds started before migration 3 have no options row: the format's Appendix C allowance.
            let options = row["allowance_percent"].int.map { RoundOptions(allowancePercent: $0, netSkins: (row["net_skins"].int ?? 1) != 0,
                                                                          carryOvers: (row["carry_overs"].int ?? 1) != 0) }
            let draft = RoundDraft(courseID: row["course_id"].int ?? 0, teeName: row["tee_name"].string ?? "", date: date, nine: nine,
                                   format: format, pcc: Tenths(raw: row["pcc_tenths"].int ?? 0), players: players[id] ?? [], options: options)
            return Round(id: id, draft: draft, finishedOn: row["finished_on"].string.flatMap(GolfDate.init))
        }
    }

    func insertRound(_ draft: RoundDraft) throws -> Round {
        try storage.transaction {
            let id = try storage.queryOne(S.insertRound, [
                SQLValue(draft.courseID), .text(draft.teeName), .text(draft.date.description), .text(draft.nine.rawValue),
                .text(draft.format.rawValue), SQLValue(draft.pcc.raw),
            ])?["id"].int ?? Int(storage.lastInsertRowID)
            for (position, player) in draft.players.enumerated() {
                try storage.run(S.insertRoundPlayer, [
                    SQLValue(id), SQLValue(player.playerID), SQLValue(position), SQLValue(player.index?.raw),
                    SQLValue(player.courseHandicap), SQLValue(player.playingHandicap),
                ])
            }
            try storage.run(S.insertRoundOptions, [SQLValue(id), SQLValue(draft.options.allowancePercent),
                                                   SQLValue(draft.options.netSkins ? 1 : 0), SQLValue(draft.options.carryOvers ? 1 : 0)])
            return Round(id: id, draft: draft)
        }
    }

    func finishRound(id: Int, on date: GolfDate, pcc: Tenths) throws {
        try storage.run(S.finishRound, [.text(date.description), SQLValue(pcc.raw), SQLValue(id)])
        if storage.changes != 1 { throw CorruptRow(description: "round \(id) was not open") }
    }

    func deleteRound(id: Int, on date: GolfDate, wasFinal: Bool, reason: String?) throws {
        try storage.run(S.insertRoundDeletion, [SQLValue(id), .text(date.description), SQLValue(wasFinal ? 1 : 0),
                                                reason.map { .text($0) } ?? .null])
    }

    func appendScore(roundID: Int, playerID: Int, hole: Int, strokes: Int) throws -> ScoreEntry {
        let sequence = try storage.queryOne(S.appendScore, [SQLValue(roundID), SQLValue(playerID), SQLValue(hole), SQLValue(strokes)])?["sequence"].int
            ?? Int(storage.lastInsertRowID)
        return ScoreEntry(sequence: sequence, roundID: roundID, playerID: playerID, hole: hole, strokes: strokes)
    }

    func appendCorrection(roundID: Int, playerID: Int, hole: Int, strokes: Int, reason: String, on date: GolfDate) throws -> ScoreEntry {
        let sequence = try storage.queryOne(S.appendCorrection, [SQLValue(roundID), SQLValue(playerID), SQLValue(hole), SQLValue(strokes),
                                                                  .text(reason), .text(date.description)])?["sequence"].int
            ?? Int(storage.lastInsertRowID)
        return ScoreEntry(sequence: sequence, roundID: roundID, playerID: playerID, hole: hole, strokes: strokes,
                          reason: reason, correctedOn: date)
    }

    func scoreEntries(roundID: Int) throws -> [ScoreEntry] {
        try storage.query(S.selectEntries, [SQLValue(roundID)]).map(SQLScorecardStore.entry)
    }

    func allScoreEntries() throws -> [Int: [ScoreEntry]] {
        var byRound: [Int: [ScoreEntry]] = [:]
        for row in try storage.query(S.selectAllEntries) {
            let entry = SQLScorecardStore.entry(row)
            byRound[entry.roundID, default: []].append(entry)
        }
        return byRound
    }

    private static func entry(_ row: Row) -> ScoreEntry {
        ScoreEntry(sequence: row["sequence"].int ?? 0, roundID: row["round_id"].int ?? 0, playerID: row["player_id"].int ?? 0,
                   hole: row["hole"].int ?? 0, strokes: row["strokes"].int ?? 0, reason: row["reason"].string,
                   correctedOn: row["corrected_on"].string.flatMap(GolfDate.init))
    }
}
