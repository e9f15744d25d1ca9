// Where the globe keeps each user's marks and challenge games: a small protocol the adapter
// implements on the host's storage service (with the SQL of GlobeSchema), and an in-memory
// implementation for tests and the demo.

import ClubhouseToolkit

public protocol GlobeStore: AnyObject {
    /// The user's marks (empty for a new user).
    func travelLog(user: String) throws(GlobeError) -> TravelLog
    /// Applies row-level edits, all or none.
    func apply(_ changes: [TravelLogChange], user: String) throws(GlobeError)
    func challengeState(user: String, date: CivilDate) throws(GlobeError) -> ChallengeState?
    /// Inserts or replaces the user's game for `state.date`.
    func saveChallengeState(_ state: ChallengeState, user: String) throws(GlobeError)
    /// Every game of the user, oldest first.
    func challengeStates(user: String) throws(GlobeError) -> [ChallengeState]
    /// Every user with a mark, a checked place or a game, sorted.
    func users() throws(GlobeError) -> [String]
}

public final class InMemoryGlobeStore: GlobeStore {
    private var logs: [String: TravelLog] = [:]
    private var games: [String: [Int: ChallengeState]] = [:]
    /// Counts saves, so tests can see that every guess was saved.
    public private(set) var challengeSaves = 0

    public init() {}

    public func travelLog(user: String) throws(GlobeError) -> TravelLog { logs[user] ?? TravelLog() }

    public func apply(_ changes: [TravelLogChange], user: String) throws(GlobeError) {
        var log = logs[user] ?? TravelLog()
        for change in changes { log.apply(change) }
        logs[user] = log
    }

    public func challengeState(user: String, date: CivilDate) throws(GlobeError) -> ChallengeState? {
        games[user]?[date.dayNumber]
    }

    public func saveChallengeState(_ state: ChallengeState, user: String) throws(GlobeError) {
        games[user, default: [:]][state.date.dayNumber] = state
        challengeSaves += 1
    }

    public func challengeStates(user: String) throws(GlobeError) -> [ChallengeState] {
        (games[user] ?? [:]).values.sorted { $0.date < $1.date }
    }

    public func users() throws(GlobeError) -> [String] {
        Set(logs.filter { $0.value != TravelLog() }.keys).union(games.filter { !$0.value.isEmpty }.keys).sorted()
    }
}

/// The globe's tables as SQL for SQLite, and the statements the adapter prepares. Parameters are
/// positional (?1, ?2, …) in the order each statement's comment gives.
public enum GlobeSchema {
    /// Applied in order; the host records which versions ran. (No JSON functions in CHECK
    /// constraints: the host's hardened connection refuses them as unsafe in a schema.)
    public static let migrations: [Migration] = [
        Migration(version: 1, name: "travel marks, checked places and challenge games", sql: """
            CREATE TABLE travel_marks (
                user TEXT NOT NULL CHECK (length(user) > 0),
                code TEXT NOT NULL CHECK (length(code) = 2 AND code = upper(code)),
                kind TEXT NOT NULL CHECK (kind IN ('visited', 'wishlist')),
                marked_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                PRIMARY KEY (user, code, kind)
            ) WITHOUT ROWID;
            CREATE TABLE travel_places (
                user TEXT NOT NULL CHECK (length(user) > 0),
                code TEXT NOT NULL CHECK (length(code) = 2 AND code = upper(code)),
                kind TEXT NOT NULL CHECK (kind IN ('city', 'attraction')),
                item TEXT NOT NULL CHECK (length(item) > 0),
                checked_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                PRIMARY KEY (user, code, kind, item)
            ) WITHOUT ROWID;
            CREATE TABLE challenge_games (
                user TEXT NOT NULL CHECK (length(user) > 0),
                date TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
                status TEXT NOT NULL CHECK (status IN ('playing', 'solved', 'failed')),
                state TEXT NOT NULL CHECK (substr(state, 1, 1) = '{'),
                updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                PRIMARY KEY (user, date)
            ) WITHOUT ROWID;
            """),
    ]

    /// ?1 user → rows (code, kind).
    public static let selectMarks = "SELECT code, kind FROM travel_marks WHERE user = ?1 ORDER BY code, kind"
    /// ?1 user, ?2 code, ?3 kind.
    public static let insertMark = "INSERT OR IGNORE INTO travel_marks (user, code, kind) VALUES (?1, ?2, ?3)"
    /// ?1 user, ?2 code, ?3 kind.
    public static let deleteMark = "DELETE FROM travel_marks WHERE user = ?1 AND code = ?2 AND kind = ?3"
    /// ?1 user → rows (code, kind, item).
    public static let selectPlaces = "SELECT code, kind, item FROM travel_places WHERE user = ?1 ORDER BY code, kind, item"
    /// ?1 user, ?2 code, ?3 kind, ?4 item.
    public static let insertPlace = "INSERT OR IGNORE INTO travel_places (user, code, kind, item) VALUES (?1, ?2, ?3, ?4)"
    /// ?1 user, ?2 code, ?3 kind, ?4 item.
    public static let deletePlace = "DELETE FROM travel_places WHERE user = ?1 AND code = ?2 AND kind = ?3 AND item = ?4"
    /// ?1 user, ?2 date → one row (state).
    public static let selectGame = "SELECT state FROM challenge_games WHERE user = ?1 AND date = ?2"
    /// ?1 user, ?2 date, ?3 status, ?4 state JSON.
    public static let upsertGame = """
        INSERT INTO challenge_games (user, date, status, state) VALUES (?1, ?2, ?3, ?4)
        ON CONFLICT (user, date) DO UPDATE SET status = excluded.status, state = excluded.state,
            updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
        """
    /// ?1 user → rows (state), oldest first.
    public static let selectGames = "SELECT state FROM challenge_games WHERE user = ?1 ORDER BY date"
    /// → rows (user): everyone with a mark, a checked place or a game.
    public static let selectUsers = """
        SELECT user FROM travel_marks UNION SELECT user FROM travel_places UNION SELECT user FROM challenge_games ORDER BY user
        """

    /// The statement and parameters for one change (what an adapter binds and steps).
    public static func statement(for change: TravelLogChange, user: String) -> (sql: String, parameters: [String]) {
        switch change {
        case .mark(let code, let kind, let on):
            return (on ? insertMark : deleteMark, [user, code, kind.rawValue])
        case .place(let code, let kind, let item, let on):
            return (on ? insertPlace : deletePlace, [user, code, kind.rawValue, item])
        }
    }

    /// A travel log from the rows of selectMarks and selectPlaces (unknown kinds are skipped).
    public static func travelLog(marks: [(code: String, kind: String)], places: [(code: String, kind: String, item: String)]) -> TravelLog {
        var log = TravelLog()
        for m in marks {
            guard let kind = MarkKind(rawValue: m.kind) else { continue }
            log.apply(.mark(code: m.code, kind: kind, on: true))
        }
        for p in places {
            guard let kind = PlaceKind(rawValue: p.kind) else { continue }
            log.apply(.place(code: p.code, kind: kind, item: p.item, on: true))
        }
        return log
    }
}
