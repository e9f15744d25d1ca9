// The scorecard's SQLite schema as data: migrations the host applies in order (recording the version),
// and the statements a SQL-backed ScorecardStore runs. Decimal quantities are stored as integer tenths
// (`rating_tenths`, `pcc_tenths`, `index_tenths`) so nothing is ever rounded by the database. The
// rules "entries are append-only" and "a finished round is final" are enforced by triggers as well as
// by the Core, so no other writer can break them. Deleting a round is a tombstone (`round_deletions`,
// itself permanent): the round leaves every list, leaderboard and index, its entries stay in the file.

import ClubhouseToolkit

/// The ranges of stored numbers that the schema does not constrain with a CHECK (the columns of version 1,
/// which an older version or another program could fill with anything): the SQL store checks them again
/// on reading, so no value can reach arithmetic that would overflow.
public enum ScorecardStoredRange {
    /// A Course Rating in tenths, as a course file allows: 0.1 to 999.9.
    public static let ratingTenths = 1...9999
    /// A Handicap Index in tenths: plus 10.0 to 54.0.
    public static let indexTenths = -100...540
    /// A Course or Playing Handicap: index 54.0 on slope 155 with a rating 10 over par is 84.
    public static let handicap = -100...200

    /// `value` when it is nil or within `range`; otherwise the one-line error a damaged row gets (a value
    /// another program wrote), which every read path reports instead of computing with it.
    public static func checked(_ value: Int?, _ range: ClosedRange<Int>, _ what: @autoclosure () -> String) throws(ScorecardError) -> Int? {
        guard let value else { return nil }
        guard range.contains(value) else {
            throw .storage("\(what()) is \(value) in the database, outside \(range.lowerBound)…\(range.upperBound); "
                + "the row was not written by this plugin — correct or delete it with sqlite3, or restore a backup")
        }
        return value
    }
}

/// The schema and statements of the scorecard plugin's database.
public enum ScorecardSchema {
    public static let migrations: [Migration] = [
        Migration(version: 1, name: "players, courses, tees, rounds, append-only score entries", sql: """
            CREATE TABLE players (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE COLLATE NOCASE CHECK (length(trim(name)) > 0)
            );
            CREATE TABLE courses (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE COLLATE NOCASE
            );
            CREATE TABLE tees (
                id INTEGER PRIMARY KEY,
                course_id INTEGER NOT NULL REFERENCES courses(id),
                position INTEGER NOT NULL,
                name TEXT NOT NULL COLLATE NOCASE,
                rating_tenths INTEGER NOT NULL,
                slope INTEGER NOT NULL CHECK (slope BETWEEN 55 AND 155),
                front_rating_tenths INTEGER,
                front_slope INTEGER CHECK (front_slope BETWEEN 55 AND 155),
                back_rating_tenths INTEGER,
                back_slope INTEGER CHECK (back_slope BETWEEN 55 AND 155),
                UNIQUE (course_id, name)
            );
            CREATE TABLE tee_holes (
                tee_id INTEGER NOT NULL REFERENCES tees(id),
                number INTEGER NOT NULL CHECK (number BETWEEN 1 AND 18),
                par INTEGER NOT NULL CHECK (par BETWEEN 3 AND 6),
                stroke_index INTEGER NOT NULL CHECK (stroke_index BETWEEN 1 AND 18),
                PRIMARY KEY (tee_id, number),
                UNIQUE (tee_id, stroke_index)
            );
            CREATE TABLE rounds (
                id INTEGER PRIMARY KEY,
                course_id INTEGER NOT NULL REFERENCES courses(id),
                tee_name TEXT NOT NULL,
                played_on TEXT NOT NULL CHECK (played_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                nine TEXT NOT NULL CHECK (nine IN ('all', 'front', 'back')),
                format TEXT NOT NULL,
                pcc_tenths INTEGER NOT NULL DEFAULT 0 CHECK (pcc_tenths BETWEEN -10 AND 30),
                finished_on TEXT
            );
            CREATE TABLE round_players (
                round_id INTEGER NOT NULL REFERENCES rounds(id),
                player_id INTEGER NOT NULL REFERENCES players(id),
                position INTEGER NOT NULL,
                index_tenths INTEGER,
                course_handicap INTEGER,
                playing_handicap INTEGER,
                PRIMARY KEY (round_id, player_id)
            );
            CREATE TABLE score_entries (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                round_id INTEGER NOT NULL,
                player_id INTEGER NOT NULL,
                hole INTEGER NOT NULL CHECK (hole BETWEEN 1 AND 18),
                strokes INTEGER NOT NULL CHECK (strokes BETWEEN 1 AND 20),
                FOREIGN KEY (round_id, player_id) REFERENCES round_players(round_id, player_id)
            );
            CREATE TRIGGER score_entries_no_update BEFORE UPDATE ON score_entries
            BEGIN SELECT RAISE(ABORT, 'score entries are append-only'); END;
            CREATE TRIGGER score_entries_no_delete BEFORE DELETE ON score_entries
            BEGIN SELECT RAISE(ABORT, 'score entries are append-only'); END;
            CREATE TRIGGER score_entries_open_round BEFORE INSERT ON score_entries
            WHEN (SELECT finished_on FROM rounds WHERE id = NEW.round_id) IS NOT NULL
            BEGIN SELECT RAISE(ABORT, 'the round is finished and final'); END;
            CREATE TRIGGER rounds_final BEFORE UPDATE ON rounds WHEN OLD.finished_on IS NOT NULL
            BEGIN SELECT RAISE(ABORT, 'the round is finished and final'); END;
            CREATE TRIGGER round_players_final BEFORE INSERT ON round_players
            WHEN (SELECT finished_on FROM rounds WHERE id = NEW.round_id) IS NOT NULL
            BEGIN SELECT RAISE(ABORT, 'the round is finished and final'); END;
            """),
        Migration(version: 2, name: "latest entry per hole, and lookups by player", sql: """
            CREATE INDEX score_entries_by_hole ON score_entries (round_id, player_id, hole, sequence);
            CREATE INDEX round_players_by_player ON round_players (player_id);
            CREATE VIEW current_scores AS
                SELECT e.round_id, e.player_id, e.hole, e.strokes
                FROM score_entries e
                WHERE e.sequence = (SELECT max(sequence) FROM score_entries
                                    WHERE round_id = e.round_id AND player_id = e.player_id AND hole = e.hole);
            """),
        Migration(version: 3, name: "round options (allowance, skins), score corrections with a reason", sql: """
            CREATE TABLE round_options (
                round_id INTEGER PRIMARY KEY REFERENCES rounds(id),
                allowance_percent INTEGER NOT NULL CHECK (allowance_percent BETWEEN 0 AND 100),
                net_skins INTEGER NOT NULL DEFAULT 1 CHECK (net_skins IN (0, 1)),
                carry_overs INTEGER NOT NULL DEFAULT 1 CHECK (carry_overs IN (0, 1))
            );
            CREATE TRIGGER round_options_fixed BEFORE UPDATE ON round_options
            BEGIN SELECT RAISE(ABORT, 'round options are fixed when the round starts'); END;
            ALTER TABLE score_entries ADD COLUMN reason TEXT CHECK (reason IS NULL OR length(trim(reason)) > 0);
            ALTER TABLE score_entries ADD COLUMN corrected_on TEXT;
            DROP TRIGGER score_entries_open_round;
            CREATE TRIGGER score_entries_open_round BEFORE INSERT ON score_entries
            WHEN NEW.reason IS NULL AND (SELECT finished_on FROM rounds WHERE id = NEW.round_id) IS NOT NULL
            BEGIN SELECT RAISE(ABORT, 'the round is finished and final; only a correction with a reason can change it'); END;
            """),
        Migration(version: 4, name: "round deletions: a logged tombstone, entries kept for the record", sql: """
            CREATE TABLE round_deletions (
                round_id INTEGER PRIMARY KEY REFERENCES rounds(id),
                deleted_on TEXT NOT NULL CHECK (deleted_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                was_final INTEGER NOT NULL CHECK (was_final IN (0, 1)),
                reason TEXT CHECK (reason IS NULL OR length(trim(reason)) > 0)
            );
            CREATE TRIGGER round_deletions_no_update BEFORE UPDATE ON round_deletions
            BEGIN SELECT RAISE(ABORT, 'a round deletion is permanent'); END;
            CREATE TRIGGER round_deletions_no_delete BEFORE DELETE ON round_deletions
            BEGIN SELECT RAISE(ABORT, 'a round deletion is permanent'); END;
            CREATE TRIGGER score_entries_not_deleted BEFORE INSERT ON score_entries
            WHEN EXISTS (SELECT 1 FROM round_deletions WHERE round_id = NEW.round_id)
            BEGIN SELECT RAISE(ABORT, 'the round was deleted'); END;
            """),
        Migration(version: 5, name: "the Handicap Index a player came with", sql: """
            ALTER TABLE players ADD COLUMN given_index_tenths INTEGER
                CHECK (given_index_tenths IS NULL OR given_index_tenths BETWEEN -100 AND 540);
            """),
        Migration(version: 6, name: "the player list kept with the generation of the data it was computed from",
                  sql: playerSummariesSQL),
        Migration(version: 7, name: "federation member ids and the federation's Handicap Index of record", sql: """
            CREATE TABLE federation_members (
                player_id INTEGER PRIMARY KEY REFERENCES players(id),
                member_id TEXT NOT NULL UNIQUE);
            CREATE TABLE federation_indexes (
                member_id TEXT PRIMARY KEY,
                index_tenths INTEGER NOT NULL CHECK (index_tenths BETWEEN -100 AND 540),
                scores INTEGER NOT NULL, clubs TEXT NOT NULL, federation TEXT NOT NULL, received_at TEXT NOT NULL);
            """),
    ]

    /// The tables whose rows a player's index or round count depends on: a write to any of them (by this
    /// plugin or any other program: triggers) moves the data's generation on.
    static let summarizedTables = ["players", "courses", "tees", "tee_holes", "rounds", "round_players", "score_entries",
                                   "round_options", "round_deletions"]

    /// Version 6: `player list` reads players and their kept summaries (index, rounds), computed from every
    /// round only when the data moved on since (`data_generation` against `player_summaries_state`).
    static let playerSummariesSQL: String = {
        var sql = """
            CREATE TABLE data_generation (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
            INSERT INTO data_generation (id, generation) VALUES (1, 1);
            CREATE TABLE player_summaries_state (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
            INSERT INTO player_summaries_state (id, generation) VALUES (1, 0);
            CREATE TABLE player_summaries (
                player_id INTEGER PRIMARY KEY,
                index_tenths INTEGER CHECK (index_tenths IS NULL OR index_tenths BETWEEN -100 AND 540),
                index_is_given INTEGER NOT NULL CHECK (index_is_given IN (0, 1)),
                finished_rounds INTEGER NOT NULL CHECK (finished_rounds >= 0)
            );

            """
        for table in summarizedTables {
            for event in ["INSERT", "UPDATE", "DELETE"] {
                sql += "CREATE TRIGGER \(table)_\(event.lowercased())_moves_generation AFTER \(event) ON \(table) "
                    + "BEGIN UPDATE data_generation SET generation = generation + 1 WHERE id = 1; END;\n"
            }
        }
        return sql
    }()

    /// Statements of a SQL-backed store, with `?` parameters in the order of the comment; the store
    /// reads result columns by name.
    public enum Statement {
        /// name, given_index_tenths → id
        public static let insertPlayer = "INSERT INTO players (name, given_index_tenths) VALUES (?, ?) RETURNING id"
        public static let selectPlayers = "SELECT id, name, given_index_tenths FROM players ORDER BY id"
        /// → generation (of the data), summarized (the generation the kept player list was computed from)
        public static let selectGenerations = """
            SELECT (SELECT generation FROM data_generation WHERE id = 1) AS generation,
                   (SELECT generation FROM player_summaries_state WHERE id = 1) AS summarized
            """
        /// The kept player list: players only, with their summaries, valid when `generation` and
        /// `summarized` agree (one statement, so one snapshot of the database).
        public static let selectPlayerSummaries = """
            SELECT p.id, p.name, s.index_tenths, s.index_is_given, s.finished_rounds,
                   (SELECT generation FROM data_generation WHERE id = 1) AS generation,
                   (SELECT generation FROM player_summaries_state WHERE id = 1) AS summarized
            FROM players p LEFT JOIN player_summaries s ON s.player_id = p.id ORDER BY p.id
            """
        public static let deletePlayerSummaries = "DELETE FROM player_summaries"
        /// player_id, index_tenths, index_is_given, finished_rounds
        public static let insertPlayerSummary = """
            INSERT INTO player_summaries (player_id, index_tenths, index_is_given, finished_rounds) VALUES (?, ?, ?, ?)
            """
        /// generation
        public static let markPlayerSummaries = "UPDATE player_summaries_state SET generation = ? WHERE id = 1"
        /// given_index_tenths, id
        public static let updateGivenIndex = "UPDATE players SET given_index_tenths = ? WHERE id = ?"
        /// name → id
        public static let insertCourse = "INSERT INTO courses (name) VALUES (?) RETURNING id"
        /// course_id, position, name, rating_tenths, slope, front_rating_tenths, front_slope, back_rating_tenths, back_slope → id
        public static let insertTee = """
            INSERT INTO tees (course_id, position, name, rating_tenths, slope, front_rating_tenths, front_slope,
                              back_rating_tenths, back_slope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """
        /// tee_id, number, par, stroke_index
        public static let insertHole = "INSERT INTO tee_holes (tee_id, number, par, stroke_index) VALUES (?, ?, ?, ?)"
        public static let selectCourses = "SELECT id, name FROM courses ORDER BY id"
        public static let selectTees = """
            SELECT id, course_id, name, rating_tenths, slope, front_rating_tenths, front_slope, back_rating_tenths, back_slope
            FROM tees ORDER BY course_id, position
            """
        public static let selectHoles = "SELECT tee_id, number, par, stroke_index FROM tee_holes ORDER BY tee_id, number"
        /// course_id, tee_name, played_on, nine, format, pcc_tenths → id
        public static let insertRound = """
            INSERT INTO rounds (course_id, tee_name, played_on, nine, format, pcc_tenths) VALUES (?, ?, ?, ?, ?, ?) RETURNING id
            """
        /// round_id, player_id, position, index_tenths, course_handicap, playing_handicap
        public static let insertRoundPlayer = """
            INSERT INTO round_players (round_id, player_id, position, index_tenths, course_handicap, playing_handicap)
            VALUES (?, ?, ?, ?, ?, ?)
            """
        public static let selectRounds = """
            SELECT r.id, r.course_id, r.tee_name, r.played_on, r.nine, r.format, r.pcc_tenths, r.finished_on,
                   o.allowance_percent, o.net_skins, o.carry_overs
            FROM rounds r LEFT JOIN round_options o ON o.round_id = r.id
            WHERE r.id NOT IN (SELECT round_id FROM round_deletions) ORDER BY r.id
            """
        /// round_id, deleted_on, was_final, reason
        public static let insertRoundDeletion = """
            INSERT INTO round_deletions (round_id, deleted_on, was_final, reason) VALUES (?, ?, ?, ?)
            """
        /// round_id, allowance_percent, net_skins, carry_overs
        public static let insertRoundOptions = """
            INSERT INTO round_options (round_id, allowance_percent, net_skins, carry_overs) VALUES (?, ?, ?, ?)
            """
        public static let selectRoundPlayers = """
            SELECT rp.round_id, rp.player_id, p.name, rp.index_tenths, rp.course_handicap, rp.playing_handicap
            FROM round_players rp JOIN players p ON p.id = rp.player_id ORDER BY rp.round_id, rp.position
            """
        /// finished_on, pcc_tenths, id
        public static let finishRound = "UPDATE rounds SET finished_on = ?, pcc_tenths = ? WHERE id = ? AND finished_on IS NULL"
        /// round_id, player_id, hole, strokes → sequence
        public static let appendScore = "INSERT INTO score_entries (round_id, player_id, hole, strokes) VALUES (?, ?, ?, ?) RETURNING sequence"
        /// round_id, player_id, hole, strokes, reason, corrected_on → sequence
        public static let appendCorrection = """
            INSERT INTO score_entries (round_id, player_id, hole, strokes, reason, corrected_on) VALUES (?, ?, ?, ?, ?, ?)
            RETURNING sequence
            """
        /// round_id
        public static let selectEntries = """
            SELECT sequence, round_id, player_id, hole, strokes, reason, corrected_on FROM score_entries
            WHERE round_id = ? ORDER BY sequence
            """
        /// Every round's entries in one statement (a season's index reads them all; one query per
        /// round cost a prepare each), in entry order: a plain scan of the table, which the store
        /// groups by round (ordering by round made SQLite walk an index and sort).
        public static let selectAllEntries = """
            SELECT sequence, round_id, player_id, hole, strokes, reason, corrected_on FROM score_entries
            WHERE round_id NOT IN (SELECT round_id FROM round_deletions) ORDER BY sequence
            """
    }
}
