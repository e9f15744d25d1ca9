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

    /// The rows of `sql` as records; a row that does not fit (a NULL, text in a number's column) is
    /// refused, naming the table, never read as a zero or an empty name.
    private func records<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [SQLValue] = [], of table: String) throws -> [T] {
        try records(T.self, try storage.query(sql, parameters), of: table)
    }

    private func records<T: Decodable>(_ type: T.Type, _ rows: [Row], of table: String) throws -> [T] {
        try rows.map { try $0.record(T.self, of: table, in: "scorecard") }
    }

    /// A stored number the schema does not constrain, checked again on reading (ScorecardStoredRange).
    private func checked(_ value: Int?, _ range: ClosedRange<Int>, _ what: @autoclosure () -> String) throws -> Int? {
        try ScorecardStoredRange.checked(value, range, what())
    }

    func players() throws -> [Player] {
        try records(PlayerRow.self, S.selectPlayers, of: "players").map { row in
            let given = try checked(row.given_index_tenths, ScorecardStoredRange.indexTenths, "player \(row.id)'s given_index_tenths")
            return Player(id: row.id, name: row.name, givenIndex: given.map { Tenths(raw: $0) })
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
        for row in try rows.map(PlayerSummaryRow.read) {
            // A player without a kept summary (added by another program without the trigger) means recomputing.
            guard let isGiven = row.index_is_given, let rounds = row.finished_rounds else { return (generation, nil) }
            let index = try checked(row.index_tenths, ScorecardStoredRange.indexTenths, "player \(row.id)'s kept index_tenths")
            summaries.append(PlayerSummary(id: row.id, name: row.name, index: index.map { Tenths(raw: $0) },
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
        for row in try records(HoleRow.self, S.selectHoles, of: "tee_holes") {
            holes[row.tee_id, default: []].append(Hole(number: row.number, par: row.par, strokeIndex: row.stroke_index))
        }
        var tees: [Int: [Tee]] = [:]
        for row in try records(TeeRow.self, S.selectTees, of: "tees") {
            func rating(_ nine: String, _ tenths: Int?, _ slope: Int?) throws -> Rating? {
                guard let tenths = try checked(tenths, ScorecardStoredRange.ratingTenths, "tee \(row.id)'s \(nine)_rating_tenths"),
                      let slope else { return nil }
                return Rating(rating: Tenths(raw: tenths), slope: slope)
            }
            _ = try checked(row.rating_tenths, ScorecardStoredRange.ratingTenths, "tee \(row.id)'s rating_tenths")
            let tee = Tee(name: row.name, rating: Tenths(raw: row.rating_tenths), slope: row.slope, holes: holes[row.id] ?? [],
                          front: try rating("front", row.front_rating_tenths, row.front_slope),
                          back: try rating("back", row.back_rating_tenths, row.back_slope))
            tees[row.course_id, default: []].append(tee)
        }
        return try records(CourseRow.self, S.selectCourses, of: "courses").map { row in
            Course(id: row.id, name: row.name, tees: tees[row.id] ?? [])
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
        for row in try records(RoundPlayerRow.self, S.selectRoundPlayers, of: "round_players") {
            let what = "round \(row.round_id), player \(row.player_id): "
            players[row.round_id, default: []].append(RoundPlayer(
                playerID: row.player_id, name: row.name,
                index: try checked(row.index_tenths, ScorecardStoredRange.indexTenths, what + "index_tenths").map { Tenths(raw: $0) },
                courseHandicap: try checked(row.course_handicap, ScorecardStoredRange.handicap, what + "course_handicap"),
                playingHandicap: try checked(row.playing_handicap, ScorecardStoredRange.handicap, what + "playing_handicap")))
        }
        return try records(RoundRow.self, S.selectRounds, of: "rounds").map { row in
            guard let date = GolfDate(row.played_on), let nine = Nine(rawValue: row.nine), let format = PlayFormat(rawValue: row.format),
                  row.finished_on.map({ GolfDate($0) != nil }) ?? true else {
                throw CorruptRow(description: "round \(row.id) has an unreadable date, nine or format in the database")
            }
            // Rounds started before migration 3 have no options row: the format's Appendix C allowance.
            var options: RoundOptions?
            switch (row.allowance_percent, row.net_skins, row.carry_overs) {
            case (nil, nil, nil): options = nil
            case let (allowance?, net?, carry?): options = RoundOptions(allowancePercent: allowance, netSkins: net != 0, carryOvers: carry != 0)
            default: throw CorruptRow(description: "round \(row.id)'s options are incomplete in the database")
            }
            let draft = RoundDraft(courseID: row.course_id, teeName: row.tee_name, date: date, nine: nine,
                                   format: format, pcc: Tenths(raw: row.pcc_tenths), players: players[row.id] ?? [], options: options)
            return Round(id: row.id, draft: draft, finishedOn: row.finished_on.flatMap(GolfDate.init))
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
        try records(EntryRow.self, S.selectEntries, [SQLValue(roundID)], of: "score_entries").map(\.entry)
    }

    func allScoreEntries() throws -> [Int: [ScoreEntry]] {
        var byRound: [Int: [ScoreEntry]] = [:]
        for row in try records(EntryRow.self, S.selectAllEntries, of: "score_entries") {
            byRound[row.round_id, default: []].append(row.entry)
        }
        return byRound
    }
}

// The rows the store reads, by column name (PluginKit decodes them; a column of another type throws).
private struct PlayerRow: Decodable {
    var id: Int, name: String, given_index_tenths: Int?
}

private struct PlayerSummaryRow: Decodable {
    var id: Int, name: String, index_tenths: Int?, index_is_given: Int?, finished_rounds: Int?

    /// The row read column by column when every column holds what it should (integers, text, nulls
    /// where allowed) — `player list` reads one per player at every call, and the Decodable walk was
    /// most of it; any other row goes through Decodable, which decodes what it can and words the
    /// error for the rest exactly as before.
    static func read(_ row: Row) throws -> PlayerSummaryRow {
        if case .integer(let id) = row["id"], case .text(let name) = row["name"],
           let index = optional(row["index_tenths"]), let given = optional(row["index_is_given"]),
           let rounds = optional(row["finished_rounds"]) {
            return PlayerSummaryRow(id: Int(id), name: name, index_tenths: index, index_is_given: given, finished_rounds: rounds)
        }
        return try row.record(PlayerSummaryRow.self, of: "player_summaries", in: "scorecard")
    }

    /// An integer column that may be null: .some(nil) for null, nil for anything but an integer.
    private static func optional(_ value: SQLValue) -> Int?? {
        switch value {
        case .null: return .some(nil)
        case .integer(let i): return .some(Int(i))
        default: return nil
        }
    }
}

private struct HoleRow: Decodable {
    var tee_id: Int, number: Int, par: Int, stroke_index: Int
}

private struct TeeRow: Decodable {
    var id: Int, course_id: Int, name: String, rating_tenths: Int, slope: Int
    var front_rating_tenths: Int?, front_slope: Int?, back_rating_tenths: Int?, back_slope: Int?
}

private struct CourseRow: Decodable {
    var id: Int, name: String
}

private struct RoundPlayerRow: Decodable {
    var round_id: Int, player_id: Int, name: String, index_tenths: Int?, course_handicap: Int?, playing_handicap: Int?
}

private struct RoundRow: Decodable {
    var id: Int, course_id: Int, tee_name: String, played_on: String, nine: String, format: String, pcc_tenths: Int
    var finished_on: String?
    /// From round_options, absent for rounds started before migration 3.
    var allowance_percent: Int?, net_skins: Int?, carry_overs: Int?
}

private struct EntryRow: Decodable {
    var sequence: Int, round_id: Int, player_id: Int, hole: Int, strokes: Int, reason: String?, corrected_on: String?

    var entry: ScoreEntry {
        ScoreEntry(sequence: sequence, roundID: round_id, playerID: player_id, hole: hole, strokes: strokes, reason: reason,
                   correctedOn: corrected_on.flatMap(GolfDate.init))
    }
}
