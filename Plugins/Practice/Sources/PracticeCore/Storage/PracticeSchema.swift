import ClubhouseJSON
import ClubhouseToolkit

/// The practice database, as SQL the adapter runs through the host's storage service.
///
/// Sessions, KPI templates, club sub-sessions and shots are facts: inserted once, never changed
/// (triggers abort any UPDATE or DELETE). Template preferences (active per club, hidden, display
/// name) are the only mutable state. Foreign keys are on (the host enables them).
public enum PracticeSchema {
    /// The counts a stored row may hold (shots of a session or sub-session, A/B/C counts); the adapter
    /// refuses a row outside, so sums over many sessions never overflow.
    public static let storedCountRange = 0...1_000_000_000

    public static let migrations: [Migration] = [
        Migration(version: 1, name: "practice kernel: facts, preferences, immutability", sql: version1),
        Migration(version: 2, name: "live sessions: shots as they arrive, closures", sql: version2),
        Migration(version: 3, name: "session deletions: logged, the only way a session's facts leave", sql: version3),
    ]

    /// Deleting an imported session (version 3). Facts stay immutable: no UPDATE ever, and a DELETE
    /// of a session, its sub-sessions or its shots is refused unless the session's deletion is
    /// logged first in `session_deletions` (itself immutable) — which `deleteSession` does in the
    /// same transaction. The log names the session by id, content hash and import time, so a later
    /// import of the same file is a new session that the old log entry does not cover.
    static let version3: String = {
        let logged = """
            EXISTS (SELECT 1 FROM session_deletions d JOIN sessions s
                    ON s.id = d.session_id AND s.content_hash = d.content_hash AND s.imported_at = d.imported_at
                    WHERE d.session_id = OLD.session_id)
            """
        return """
        CREATE TABLE session_deletions (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            imported_at TEXT NOT NULL,
            source_name TEXT NOT NULL,
            shot_count INTEGER NOT NULL,
            deleted_at TEXT NOT NULL,
            reason TEXT CHECK (reason IS NULL OR length(trim(reason)) > 0)
        );
        \(immutabilityTriggers(["session_deletions"]))
        DROP TRIGGER sessions_no_delete;
        CREATE TRIGGER sessions_no_delete BEFORE DELETE ON sessions
        WHEN NOT EXISTS (SELECT 1 FROM session_deletions d
                         WHERE d.session_id = OLD.id AND d.content_hash = OLD.content_hash AND d.imported_at = OLD.imported_at)
        BEGIN SELECT RAISE(ABORT, 'sessions rows are immutable facts and are never deleted'); END;
        DROP TRIGGER club_subsessions_no_delete;
        CREATE TRIGGER club_subsessions_no_delete BEFORE DELETE ON club_subsessions WHEN NOT \(logged)
        BEGIN SELECT RAISE(ABORT, 'club_subsessions rows are immutable facts and are never deleted'); END;
        DROP TRIGGER shots_no_delete;
        CREATE TRIGGER shots_no_delete BEFORE DELETE ON shots WHEN NOT \(logged)
        BEGIN SELECT RAISE(ABORT, 'shots rows are immutable facts and are never deleted'); END;
        """
    }()

    /// The live journal's tables (version 2), immutable like the facts: a live shot is written as
    /// it arrives (one transaction each); closing the session writes the session, its analyses and
    /// its shots into the fact tables and a closure row, in one transaction.
    public static let liveFactTables = ["live_sessions", "live_shots", "live_closures"]

    static func immutabilityTriggers(_ tables: [String]) -> String {
        tables.map { table in
            """
            CREATE TRIGGER \(table)_no_update BEFORE UPDATE ON \(table)
            BEGIN SELECT RAISE(ABORT, '\(table) rows are immutable facts; insert a new row instead'); END;
            CREATE TRIGGER \(table)_no_delete BEFORE DELETE ON \(table)
            BEGIN SELECT RAISE(ABORT, '\(table) rows are immutable facts and are never deleted'); END;
            """
        }.joined(separator: "\n")
    }

    static let version2: String = {
        let shotColumns = ShotMetric.allCases.map { "    \($0.sqlColumn) REAL" }.joined(separator: ",\n")
        return """
        CREATE TABLE live_sessions (
            id INTEGER PRIMARY KEY,
            device TEXT NOT NULL,
            started_at TEXT NOT NULL
        );
        CREATE TABLE live_shots (
            id INTEGER PRIMARY KEY,
            live_session_id INTEGER NOT NULL REFERENCES live_sessions(id),
            shot_number INTEGER NOT NULL,
            club TEXT NOT NULL,
        \(shotColumns),
            grade TEXT CHECK (grade IN ('A', 'B', 'C')),
            template_hash TEXT REFERENCES kpi_templates(hash),
            -- The Open Connect message verbatim.
            raw_json TEXT NOT NULL,
            received_at TEXT NOT NULL,
            UNIQUE (live_session_id, shot_number)
        );
        CREATE TABLE live_closures (
            live_session_id INTEGER PRIMARY KEY REFERENCES live_sessions(id),
            session_id INTEGER REFERENCES sessions(id),
            closed_at TEXT NOT NULL,
            reason TEXT NOT NULL
        );
        \(immutabilityTriggers(liveFactTables))
        """
    }()

    /// The fact tables; each has a BEFORE UPDATE and a BEFORE DELETE trigger that aborts.
    public static let factTables = ["kpi_templates", "sessions", "club_subsessions", "shots"]

    static let version1: String = {
        let shotColumns = ShotMetric.allCases.map { "    \($0.sqlColumn) REAL" }.joined(separator: ",\n")
        let triggers = factTables.map { table in
            """
            CREATE TRIGGER \(table)_no_update BEFORE UPDATE ON \(table)
            BEGIN SELECT RAISE(ABORT, '\(table) rows are immutable facts; insert a new row instead'); END;
            CREATE TRIGGER \(table)_no_delete BEFORE DELETE ON \(table)
            BEGIN SELECT RAISE(ABORT, '\(table) rows are immutable facts and are never deleted'); END;
            """
        }.joined(separator: "\n")
        return """
        CREATE TABLE kpi_templates (
            hash TEXT PRIMARY KEY CHECK (length(hash) = 64 AND hash NOT GLOB '*[^0-9a-f]*'),
            club TEXT NOT NULL CHECK (club <> ''),
            schema_version TEXT NOT NULL,
            canonical_json TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('bundled', 'user')),
            inserted_at TEXT NOT NULL
        );
        CREATE INDEX kpi_templates_club ON kpi_templates(club);

        CREATE TABLE template_preferences (
            hash TEXT PRIMARY KEY REFERENCES kpi_templates(hash),
            display_name TEXT,
            hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1))
        );

        CREATE TABLE active_templates (
            club TEXT PRIMARY KEY,
            hash TEXT NOT NULL REFERENCES kpi_templates(hash)
        );

        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            content_hash TEXT NOT NULL UNIQUE CHECK (length(content_hash) = 64),
            source_name TEXT NOT NULL,
            imported_at TEXT NOT NULL,
            session_date TEXT,
            location TEXT,
            title TEXT,
            shot_count INTEGER NOT NULL CHECK (shot_count >= 0),
            source_columns TEXT NOT NULL
        );

        CREATE TABLE club_subsessions (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            club TEXT NOT NULL,
            template_hash TEXT REFERENCES kpi_templates(hash),
            shot_count INTEGER NOT NULL CHECK (shot_count >= 0),
            a_count INTEGER,
            b_count INTEGER,
            c_count INTEGER,
            validity TEXT NOT NULL CHECK (validity IN ('invalid', 'valid_low_sample', 'valid')),
            a_percent REAL,
            averages_json TEXT NOT NULL,
            CHECK (template_hash IS NULL OR a_count + b_count + c_count = shot_count),
            CHECK (validity <> 'invalid' OR a_percent IS NULL)
        );
        CREATE UNIQUE INDEX club_subsessions_once ON club_subsessions(session_id, club, ifnull(template_hash, ''));
        CREATE INDEX club_subsessions_club ON club_subsessions(club);

        CREATE TABLE shots (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            row_index INTEGER NOT NULL,
            club TEXT NOT NULL,
        \(shotColumns),
            grade TEXT CHECK (grade IN ('A', 'B', 'C')),
            -- The source row verbatim: a JSON array of its cells (columns in sessions.source_columns),
            -- or an object of header → cell for a row under a differing repeated header.
            raw_json TEXT NOT NULL,
            UNIQUE (session_id, row_index)
        );

        \(triggers)
        """
    }()

    /// The statements the adapter prepares (positional parameters in the order documented).
    public enum SQL {
        /// hash, club, schema_version, canonical_json, source, inserted_at
        public static let insertTemplate = """
            INSERT INTO kpi_templates (hash, club, schema_version, canonical_json, source, inserted_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """
        /// Columns: hash, club, canonical_json, source, inserted_at, display_name, hidden.
        public static let selectTemplates = """
            SELECT t.hash, t.club, t.canonical_json, t.source, t.inserted_at, p.display_name, ifnull(p.hidden, 0) AS hidden
            FROM kpi_templates t LEFT JOIN template_preferences p ON p.hash = t.hash
            ORDER BY t.club, t.inserted_at, t.hash
            """
        /// hash, display_name, hidden
        public static let upsertPreference = """
            INSERT INTO template_preferences (hash, display_name, hidden) VALUES (?, ?, ?)
            ON CONFLICT(hash) DO UPDATE SET display_name = excluded.display_name, hidden = excluded.hidden
            """
        /// Columns: club, hash.
        public static let selectActive = "SELECT club, hash FROM active_templates ORDER BY club"
        /// club, hash
        public static let upsertActive = """
            INSERT INTO active_templates (club, hash) VALUES (?, ?)
            ON CONFLICT(club) DO UPDATE SET hash = excluded.hash
            """
        /// content_hash, source_name, imported_at, session_date, location, title, shot_count, source_columns
        public static let insertSession = """
            INSERT INTO sessions (content_hash, source_name, imported_at, session_date, location, title, shot_count,
                                  source_columns)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        /// Columns: id, content_hash, source_name, imported_at, session_date, location, title, shot_count,
        /// source_columns.
        public static let selectSessions = """
            SELECT id, content_hash, source_name, imported_at, session_date, location, title, shot_count, source_columns
            FROM sessions ORDER BY ifnull(session_date, imported_at), id
            """
        /// session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, a_percent, averages_json
        public static let insertSubsession = """
            INSERT INTO club_subsessions (session_id, club, template_hash, shot_count, a_count, b_count, c_count,
                                          validity, a_percent, averages_json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        /// Columns: id, session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity,
        /// a_percent, averages_json.
        public static let selectSubsessions = """
            SELECT id, session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, a_percent,
                   averages_json
            FROM club_subsessions ORDER BY session_id, id
            """
        /// session_id, row_index, club, the metric columns in `ShotMetric.allCases` order, grade, raw_json
        public static let insertShot: String = insertShots(rows: 1)

        /// The columns of one shot in `insertShot` order.
        public static let shotColumns = ["session_id", "row_index", "club"] + ShotMetric.allCases.map(\.sqlColumn) + ["grade", "raw_json"]

        /// `insertShot` for `rows` shots in one statement (parameters row after row): a bulk import
        /// pays SQLite's per-statement cost (cursors, statement journal) once per batch, not per shot.
        public static func insertShots(rows: Int) -> String {
            let one = "(" + shotColumns.map { _ in "?" }.joined(separator: ", ") + ")"
            return "INSERT INTO shots (\(shotColumns.joined(separator: ", "))) VALUES "
                + Array(repeating: one, count: max(rows, 1)).joined(separator: ", ")
        }
        /// Columns: the metric columns (one session's shots of one club, in file order).
        public static let selectClubMeasurements: String = {
            "SELECT \(ShotMetric.allCases.map(\.sqlColumn).joined(separator: ", ")) FROM shots "
                + "WHERE session_id = ? AND club = ? ORDER BY row_index"
        }()
        /// Columns: row_index, club, the metric columns, grade, raw_json (one session, in file order).
        public static let selectShots: String = {
            let columns = ["row_index", "club"] + ShotMetric.allCases.map(\.sqlColumn) + ["grade", "raw_json"]
            return "SELECT \(columns.joined(separator: ", ")) FROM shots WHERE session_id = ? ORDER BY row_index"
        }()
    }
}

extension PracticeSchema.SQL {
    /// device, started_at
    public static let insertLiveSession = "INSERT INTO live_sessions (device, started_at) VALUES (?, ?)"
    /// The columns of one live shot in `insertLiveShot` order.
    public static let liveShotColumns = ["live_session_id", "shot_number", "club"] + ShotMetric.allCases.map(\.sqlColumn)
        + ["grade", "template_hash", "raw_json", "received_at"]
    public static let insertLiveShot = "INSERT INTO live_shots (\(liveShotColumns.joined(separator: ", "))) VALUES ("
        + liveShotColumns.map { _ in "?" }.joined(separator: ", ") + ")"
    /// Columns as `liveShotColumns`; one parameter: live_session_id. In arrival order.
    public static let selectLiveShots = "SELECT \(liveShotColumns.joined(separator: ", ")) FROM live_shots WHERE live_session_id = ? ORDER BY id"
    /// Columns: id, device, started_at of sessions without a closure.
    public static let selectOpenLiveSessions = """
        SELECT id, device, started_at FROM live_sessions
        WHERE id NOT IN (SELECT live_session_id FROM live_closures) ORDER BY id
        """
    /// session_id, content_hash, imported_at, source_name, shot_count, deleted_at, reason
    public static let insertSessionDeletion = """
        INSERT INTO session_deletions (session_id, content_hash, imported_at, source_name, shot_count, deleted_at, reason)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    /// One parameter: session_id (the deletion's children first, then the session).
    public static let deleteSessionRows = [
        "DELETE FROM shots WHERE session_id = ?",
        "DELETE FROM club_subsessions WHERE session_id = ?",
        "DELETE FROM sessions WHERE id = ?",
    ]
    /// One parameter: session_id. A row when a live session's closure wrote it.
    public static let selectLiveClosureOfSession = "SELECT live_session_id FROM live_closures WHERE session_id = ?"
    /// live_session_id, session_id, closed_at, reason
    public static let insertLiveClosure = "INSERT INTO live_closures (live_session_id, session_id, closed_at, reason) VALUES (?, ?, ?, ?)"
    /// One parameter: hash. A row when the template is stored.
    public static let selectTemplateExists = "SELECT 1 FROM kpi_templates WHERE hash = ?"
    /// Parameters: session_id, club, template_hash (NULL matches NULL). A row when that analysis exists.
    public static let selectAnalysisExists = """
        SELECT 1 FROM club_subsessions WHERE session_id = ?1 AND club = ?2 AND template_hash IS ?3
        """
    /// Columns as `selectSessions`; one parameter: content_hash.
    public static let selectSessionByContentHash = """
        SELECT id, content_hash, source_name, imported_at, session_date, location, title, shot_count, source_columns
        FROM sessions WHERE content_hash = ?
        """
    /// Columns as `selectSessions`; one parameter: id.
    public static let selectSessionByID = """
        SELECT id, content_hash, source_name, imported_at, session_date, location, title, shot_count, source_columns
        FROM sessions WHERE id = ?
        """
    /// Columns as `selectSubsessions`; parameters: session_id (NULL for all), club (NULL for all).
    public static let selectSubsessionsWhere = """
        SELECT id, session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, a_percent,
               averages_json
        FROM club_subsessions WHERE (?1 IS NULL OR session_id = ?1) AND (?2 IS NULL OR club = ?2)
        ORDER BY session_id, id
        """
}

extension SubsessionAnalysis {
    /// The averages as stored in `club_subsessions.averages_json`:
    /// `{"a_only":{"means":{…},"shot_count":5},"all":{"means":{…},"shot_count":6}}`.
    public var averagesJSON: String {
        func value(_ a: MetricAverages) -> JSONValue {
            var means = JSONObject()
            for metric in ShotMetric.allCases { if let v = a.means[metric] { means[metric.rawValue] = .double(v) } }
            return ["shot_count": .int(a.shotCount), "means": .object(means)]
        }
        var o = JSONObject()
        o["all"] = value(averagesAll)
        o["a_only"] = averagesAOnly.map(value) ?? .null
        return JSONWriter.compact(.object(o))
    }

    /// An analysis as a row of `club_subsessions` holds it, checked as every read path needs: a count
    /// outside `storedCountRange` is a damaged row (thrown), an A% outside 0–100 is no A%, and stored
    /// averages keep only plausible means (`averages(fromJSON:)`). What another program (or a version
    /// before the checks) wrote is read without any arithmetic meeting it.
    public static func stored(id: Int64, club: String, templateHash: String?, shotCount: Int, aCount: Int?, bCount: Int?, cCount: Int?,
                              validity: Validity, aPercent: Double?, averagesJSON: String) throws(PracticeError) -> SubsessionAnalysis {
        let counts = [shotCount, aCount, bCount, cCount]
        guard counts.allSatisfy({ $0.map(PracticeSchema.storedCountRange.contains) ?? true }) else {
            throw .storage("club_subsessions row \(id) holds a count outside 0…1000000000 (shots, A, B, C: "
                + counts.map { $0.map(String.init) ?? "-" }.joined(separator: ", ") + "); the row was not written by this plugin")
        }
        let averages = try averages(fromJSON: averagesJSON)
        return SubsessionAnalysis(club: club, templateHash: templateHash, shotCount: shotCount, aCount: aCount, bCount: bCount,
                                  cCount: cCount, validity: validity, aPercent: aPercent.flatMap { (0...100).contains($0) ? $0 : nil },
                                  averagesAll: averages.all, averagesAOnly: averages.aOnly)
    }

    /// Reads `averagesJSON` back.
    public static func averages(fromJSON text: String) throws(PracticeError) -> (all: MetricAverages, aOnly: MetricAverages?) {
        func read(_ v: JSONValue?) -> MetricAverages? {
            guard let v, let count = v["shot_count"]?.intValue, PracticeSchema.storedCountRange.contains(count),
                  let means = v["means"]?.objectValue else { return nil }
            var result: [ShotMetric: Double] = [:]
            // A mean outside its metric's plausible range (averaged by a version that stored unchecked values,
            // or ±∞ written as 1e999) is left out: it is not a measurement.
            for (key, value) in means {
                if let m = ShotMetric(rawValue: key), let d = value.doubleValue, m.plausibleRange.contains(d) { result[m] = d }
            }
            return MetricAverages(shotCount: count, means: result)
        }
        guard let document = try? JSONParser.parse(text), let all = read(document["all"]) else {
            throw .storage("a stored sub-session has unreadable averages (\(text.prefix(40))…); the database is damaged")
        }
        return (all, read(document["a_only"]))
    }
}
