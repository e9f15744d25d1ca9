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

    func players() throws -> [Player] {
        try storage.query(S.selectPlayers).map { Player(id: $0[0].int ?? 0, name: $0[1].string ?? "") }
    }

    func insertPlayer(name: String) throws -> Player {
        let row = try storage.queryOne(S.insertPlayer, [.text(name)])
        return Player(id: row?[0].int ?? Int(storage.lastInsertRowID), name: name)
    }

    func courses() throws -> [Course] {
        var holes: [Int: [Hole]] = [:]
        for row in try storage.query(S.selectHoles) {
            holes[row[0].int ?? 0, default: []].append(Hole(number: row[1].int ?? 0, par: row[2].int ?? 0, strokeIndex: row[3].int ?? 0))
        }
        var tees: [Int: [Tee]] = [:]
        for row in try storage.query(S.selectTees) {
            func rating(_ r: Int, _ s: Int) -> Rating? {
                guard let tenths = row[r].int, let slope = row[s].int else { return nil }
                return Rating(rating: Tenths(raw: tenths), slope: slope)
            }
            let tee = Tee(name: row[2].string ?? "", rating: Tenths(raw: row[3].int ?? 0), slope: row[4].int ?? 0,
                          holes: holes[row[0].int ?? 0] ?? [], front: rating(5, 6), back: rating(7, 8))
            tees[row[1].int ?? 0, default: []].append(tee)
        }
        return try storage.query(S.selectCourses).map { row in
            let id = row[0].int ?? 0
            return Course(id: id, name: row[1].string ?? "", tees: tees[id] ?? [])
        }
    }

    func insertCourse(_ draft: CourseDraft) throws -> Course {
        try storage.transaction {
            let courseID = try storage.queryOne(S.insertCourse, [.text(draft.name)])?[0].int ?? Int(storage.lastInsertRowID)
            for (position, tee) in draft.tees.enumerated() {
                let teeID = try storage.queryOne(S.insertTee, [
                    SQLValue(courseID), SQLValue(position), .text(tee.name), SQLValue(tee.rating.raw), SQLValue(tee.slope),
                    SQLValue(tee.front?.rating.raw), SQLValue(tee.front?.slope), SQLValue(tee.back?.rating.raw), SQLValue(tee.back?.slope),
                ])?[0].int ?? Int(storage.lastInsertRowID)
                let insertHole = try storage.prepare(S.insertHole)
                for hole in tee.holes {
                    try insertHole.bind([SQLValue(teeID), SQLValue(hole.number), SQLValue(hole.par), SQLValue(hole.strokeIndex)])
                    _ = try insertHole.step()
                    try insertHole.reset()
                }
            }
            return Course(id: courseID, name: draft.name, tees: draft.tees)
        }
    }

    func rounds() throws -> [Round] {
        var players: [Int: [RoundPlayer]] = [:]
        for row in try storage.query(S.selectRoundPlayers) {
            players[row[0].int ?? 0, default: []].append(RoundPlayer(
                playerID: row[1].int ?? 0, name: row[2].string ?? "", index: row[3].int.map { Tenths(raw: $0) },
                courseHandicap: row[4].int, playingHandicap: row[5].int))
        }
        return try storage.query(S.selectRounds).map { row in
            let id = row[0].int ?? 0
            guard let date = row[3].string.flatMap(GolfDate.init), let nine = row[4].string.flatMap(Nine.init(rawValue:)),
                  let format = row[5].string.flatMap(PlayFormat.init(rawValue:)) else {
                throw CorruptRow(description: "round \(id) has an unreadable date, nine or format in the database")
            }
            // Rounds started before migration 3 have no options row: the format's Appendix C allowance.
            let options = row[8].int.map { RoundOptions(allowancePercent: $0, netSkins: (row[9].int ?? 1) != 0,
                                                        carryOvers: (row[10].int ?? 1) != 0) }
            let draft = RoundDraft(courseID: row[1].int ?? 0, teeName: row[2].string ?? "", date: date, nine: nine, format: format,
                                   pcc: Tenths(raw: row[6].int ?? 0), players: players[id] ?? [], options: options)
            return Round(id: id, draft: draft, finishedOn: row[7].string.flatMap(GolfDate.init))
        }
    }

    func insertRound(_ draft: RoundDraft) throws -> Round {
        try storage.transaction {
            let id = try storage.queryOne(S.insertRound, [
                SQLValue(draft.courseID), .text(draft.teeName), .text(draft.date.description), .text(draft.nine.rawValue),
                .text(draft.format.rawValue), SQLValue(draft.pcc.raw),
            ])?[0].int ?? Int(storage.lastInsertRowID)
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
        let sequence = try storage.queryOne(S.appendScore, [SQLValue(roundID), SQLValue(playerID), SQLValue(hole), SQLValue(strokes)])?[0].int
            ?? Int(storage.lastInsertRowID)
        return ScoreEntry(sequence: sequence, roundID: roundID, playerID: playerID, hole: hole, strokes: strokes)
    }

    func appendCorrection(roundID: Int, playerID: Int, hole: Int, strokes: Int, reason: String, on date: GolfDate) throws -> ScoreEntry {
        let sequence = try storage.queryOne(S.appendCorrection, [SQLValue(roundID), SQLValue(playerID), SQLValue(hole), SQLValue(strokes),
                                                                  .text(reason), .text(date.description)])?[0].int
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
        ScoreEntry(sequence: row[0].int ?? 0, roundID: row[1].int ?? 0, playerID: row[2].int ?? 0, hole: row[3].int ?? 0,
                   strokes: row[4].int ?? 0, reason: row[5].string, correctedOn: row[6].string.flatMap(GolfDate.init))
    }
}
