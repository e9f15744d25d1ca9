// GlobeCore's store on the plugin's SQLite database (PluginKit Storage), with GlobeSchema's
// statements: cached, bound by position, rows read into records by column name (PluginKit
// StoredRecords: a row that does not fit is refused naming its table and column).

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
    /// refused (a storage error naming the table and column), never read as "".
    private struct Mark: Decodable {
        var code: String, kind: String
    }

    private struct Place: Decodable {
        var code: String, kind: String, item: String
    }

    private struct Game: Decodable {
        var state: String
    }

    private struct User: Decodable {
        var user: String
    }

    func travelLog(user: String) throws(GlobeError) -> TravelLog {
        try guarded {
            let marks = try storage.records(Mark.self, GlobeSchema.selectMarks, [.text(user)], of: "travel_marks", in: "globe")
            let places = try storage.records(Place.self, GlobeSchema.selectPlaces, [.text(user)], of: "travel_places", in: "globe")
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
        let text: String? = try guarded {
            try storage.record(Game.self, GlobeSchema.selectGame, [.text(user), .text(date.description)], of: "challenge_games", in: "globe")?.state
        }
        return try text.map { (json: String) throws(GlobeError) in try ChallengeState(jsonText: json) }
    }

    func saveChallengeState(_ state: ChallengeState, user: String) throws(GlobeError) {
        try guarded {
            try storage.run(GlobeSchema.upsertGame, [.text(user), .text(state.date.description), .text(state.status.rawValue),
                                                     .text(state.jsonText())])
        }
    }

    func challengeStates(user: String) throws(GlobeError) -> [ChallengeState] {
        let texts: [String] = try guarded {
            try storage.records(Game.self, GlobeSchema.selectGames, [.text(user)], of: "challenge_games", in: "globe").map(\.state)
        }
        var states: [ChallengeState] = []
        for text in texts { states.append(try ChallengeState(jsonText: text)) }
        return states
    }

    func users() throws(GlobeError) -> [String] {
        try guarded { try storage.records(User.self, GlobeSchema.selectUsers, of: "travel_marks, travel_places or challenge_games", in: "globe").map(\.user) }
    }
}
