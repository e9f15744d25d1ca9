// GlobeCore's store on the plugin's SQLite database (PluginKit Storage), with GlobeSchema's
// statements: cached, bound by position, rows read by column name.

import GlobeCore
import PluginKit

/// GlobeCore's store on the site's SQLite database, with GlobeSchema's statements.
final class SQLGlobeStore: GlobeStore {
    let storage: Storage

    init(storage: Storage) { self.storage = storage }

    private func guarded<T>(_ body: () throws -> T) throws(GlobeError) -> T {
        do {
            return try body()
        } catch let error as GlobeError {
            throw error
        } catch {
            throw GlobeError.storage("\(error)")
        }
    }

    /// Rows of travel_marks and travel_places by column name: a NULL or a number where text belongs is
    /// refused (a storage error naming the column), never read as "".
    private struct Mark: Decodable {
        var code: String, kind: String
    }

    private struct Place: Decodable {
        var code: String, kind: String, item: String
    }

    func travelLog(user: String) throws(GlobeError) -> TravelLog {
        try guarded {
            let marks = try storage.query(Mark.self, GlobeSchema.selectMarks, [.text(user)])
            let places = try storage.query(Place.self, GlobeSchema.selectPlaces, [.text(user)])
            return GlobeSchema.travelLog(marks: marks.map { (code: $0.code, kind: $0.kind) },
                                         places: places.map { (code: $0.code, kind: $0.kind, item: $0.item) })
        }
    }

    func apply(_ changes: [TravelLogChange], user: String) throws(GlobeError) {
        try guarded {
            try storage.transaction {
                for change in changes {
                    let (sql, parameters) = GlobeSchema.statement(for: change, user: user)
                    try storage.run(sql, parameters.map { .text($0) })
                }
            }
        }
    }

    func challengeState(user: String, date: CivilDate) throws(GlobeError) -> ChallengeState? {
        let text: String? = try guarded { try storage.queryOne(GlobeSchema.selectGame, [.text(user), .text(date.description)])?["state"].string }
        return try text.map { (json: String) throws(GlobeError) in try ChallengeState(jsonText: json) }
    }

    func saveChallengeState(_ state: ChallengeState, user: String) throws(GlobeError) {
        try guarded {
            try storage.run(GlobeSchema.upsertGame, [.text(user), .text(state.date.description), .text(state.status.rawValue),
                                                     .text(state.jsonText())])
        }
    }

    func challengeStates(user: String) throws(GlobeError) -> [ChallengeState] {
        let texts: [String] = try guarded { try storage.query(GlobeSchema.selectGames, [.text(user)]).compactMap { $0["state"].string } }
        var states: [ChallengeState] = []
        for text in texts { states.append(try ChallengeState(jsonText: text)) }
        return states
    }

    func users() throws(GlobeError) -> [String] {
        try guarded { try storage.query(GlobeSchema.selectUsers, []).compactMap { $0["user"].string } }
    }
}
