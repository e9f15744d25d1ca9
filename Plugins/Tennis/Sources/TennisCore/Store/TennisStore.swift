// What the tennis plugin keeps per site: camera calibrations and session logs. The schema is data
// (SQL the adapter runs through the host's storage service); `TennisStore` is the interface the
// commands use, implemented by the adapter on SQLite and here in memory.

import ClubhouseToolkit

/// The plugin's SQLite schema: the migrations the host applies in order (recording each version and
/// name; the names are the ones 1.0 and 1.1 recorded, so they never change).
public enum TennisSchema {
    public static let migrations: [Migration] = [
        Migration(1, "tennis schema 1", """
        CREATE TABLE calibrations (
            camera TEXT PRIMARY KEY NOT NULL,
            calibration_json TEXT NOT NULL,
            rms_error REAL NOT NULL,
            saved_at TEXT NOT NULL
        );
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            mode TEXT NOT NULL CHECK (mode IN ('manual', 'interactive')),
            camera TEXT,
            device TEXT,
            checksum TEXT NOT NULL CHECK (checksum IN ('xor', 'modbus')),
            speed_mph INTEGER NOT NULL,
            spin TEXT NOT NULL,
            interval_s REAL NOT NULL,
            dry_run INTEGER NOT NULL,
            summary_json TEXT NOT NULL
        );
        CREATE TABLE session_events (
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            at_s REAL NOT NULL,
            launch INTEGER,
            attempt INTEGER,
            zone INTEGER,
            bytes_hex TEXT,
            reply TEXT,
            latency_s REAL,
            note TEXT,
            PRIMARY KEY (session_id, seq)
        );
        """),
        // 1.1: saved drills (by content hash) and which sessions were drill runs. A drill run's row in
        // `sessions` says mode 'manual' (the first migration's CHECK allows only manual and
        // interactive, and shipped migrations never change): its commands are manual-mode commands,
        // and `drill_runs` marks it as a drill.
        Migration(2, "tennis schema 2", """
        CREATE TABLE drills (
            hash TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            canonical_json TEXT NOT NULL,
            balls INTEGER NOT NULL,
            saved_at TEXT NOT NULL
        );
        CREATE INDEX drills_by_name ON drills (name, saved_at);
        CREATE TABLE drill_runs (
            session_id INTEGER PRIMARY KEY NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            drill_hash TEXT NOT NULL,
            drill_name TEXT NOT NULL,
            seed INTEGER NOT NULL,
            balls_planned INTEGER NOT NULL,
            median_late_ms REAL,
            max_late_ms REAL
        );
        """),
    ]

    public static let upsertCalibration =
        "INSERT INTO calibrations (camera, calibration_json, rms_error, saved_at) VALUES (?1, ?2, ?3, ?4) "
        + "ON CONFLICT(camera) DO UPDATE SET calibration_json = excluded.calibration_json, "
        + "rms_error = excluded.rms_error, saved_at = excluded.saved_at"
    public static let selectCalibration = "SELECT calibration_json FROM calibrations WHERE camera = ?1"
    public static let listCalibrations = "SELECT camera, rms_error, saved_at FROM calibrations ORDER BY camera"
    public static let insertSession =
        "INSERT INTO sessions (started_at, mode, camera, device, checksum, speed_mph, spin, interval_s, dry_run, summary_json) "
        + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
    public static let insertEvent =
        "INSERT INTO session_events (session_id, seq, kind, at_s, launch, attempt, zone, bytes_hex, reply, latency_s, note) "
        + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    public static let listSessions =
        "SELECT s.id, s.started_at, CASE WHEN d.session_id IS NULL THEN s.mode ELSE 'drill' END AS mode, s.summary_json, d.drill_name "
        + "FROM sessions s LEFT JOIN drill_runs d ON d.session_id = s.id ORDER BY s.id DESC LIMIT ?1"
    public static let insertDrill =
        "INSERT INTO drills (hash, name, canonical_json, balls, saved_at) VALUES (?1, ?2, ?3, ?4, ?5) "
        + "ON CONFLICT(hash) DO UPDATE SET name = excluded.name, saved_at = excluded.saved_at"
    public static let selectDrillByName = "SELECT canonical_json FROM drills WHERE name = ?1 ORDER BY saved_at DESC, rowid DESC LIMIT 1"
    public static let selectDrillsByHashPrefix = "SELECT canonical_json FROM drills WHERE substr(hash, 1, length(?1)) = ?1 LIMIT 2"
    public static let listDrills = "SELECT hash, name, balls, saved_at FROM drills ORDER BY name, saved_at DESC"
    public static let insertDrillRun =
        "INSERT INTO drill_runs (session_id, drill_hash, drill_name, seed, balls_planned, median_late_ms, max_late_ms) "
        + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
    public static let updateSummary = "UPDATE sessions SET summary_json = ?1 WHERE id = ?2"
    public static let deleteEvents = "DELETE FROM session_events WHERE session_id = ?1"
    public static let updateDrillRunLateness = "UPDATE drill_runs SET median_late_ms = ?1, max_late_ms = ?2 WHERE session_id = ?3"
    public static let selectEvents =
        "SELECT seq, kind, at_s, launch, attempt, zone, bytes_hex, reply, latency_s, note FROM session_events "
        + "WHERE session_id = ?1 ORDER BY seq"
}

/// A stored session as listed: its header and summary (the events stay in `session_events`).
public struct StoredSession: Sendable, Equatable, Codable {
    public var id: Int
    public var startedAt: String
    public var mode: SessionSettings.Mode
    public var summary: SessionSummary
    /// For a drill run: the drill's name.
    public var drill: String? = nil

    public init(id: Int, startedAt: String, mode: SessionSettings.Mode, summary: SessionSummary, drill: String? = nil) {
        self.id = id
        self.startedAt = startedAt
        self.mode = mode
        self.summary = summary
        self.drill = drill
    }
}

/// Persistence the tennis commands need.
public protocol TennisStore: AnyObject {
    func saveCalibration(_ calibration: CameraCalibration, savedAt: String) throws
    func calibration(camera: String) throws -> CameraCalibration?
    func cameras() throws -> [String]
    /// Stores a session and its events; returns the session's id.
    func saveSession(_ log: SessionLog, startedAt: String) throws -> Int
    func sessions(limit: Int) throws -> [StoredSession]
    /// Stores a drill under its content hash (saving the same drill again only renames it).
    func saveDrill(_ drill: Drill, savedAt: String) throws
    /// The latest drill saved under `name`, else the one whose hash starts with `name` (6+ hex digits).
    func drill(_ name: String) throws -> Drill?
    func drills() throws -> [StoredDrill]
    /// Marks a stored session as a run of `run.drill`.
    func saveDrillRun(_ run: TennisCommands.DrillRunReport, session: Int, seed: UInt64) throws
}

/// A saved drill as listed.
public struct StoredDrill: Sendable, Equatable, Codable {
    public var hash: String
    public var name: String
    public var balls: Int
    public var savedAt: String

    public init(hash: String, name: String, balls: Int, savedAt: String) {
        self.hash = hash
        self.name = name
        self.balls = balls
        self.savedAt = savedAt
    }
}

/// An in-memory store (tests, dry runs).
public final class InMemoryTennisStore: TennisStore {
    private var calibrations: [String: CameraCalibration] = [:]
    private var stored: [StoredSession] = []

    public init() {}

    public func saveCalibration(_ calibration: CameraCalibration, savedAt: String) { calibrations[calibration.camera] = calibration }
    public func calibration(camera: String) -> CameraCalibration? { calibrations[camera] }
    public func cameras() -> [String] { calibrations.keys.sorted() }

    public func saveSession(_ log: SessionLog, startedAt: String) -> Int {
        stored.append(StoredSession(id: stored.count + 1, startedAt: startedAt, mode: log.settings.mode, summary: log.summary))
        return stored.count
    }

    public func sessions(limit: Int) -> [StoredSession] { Array(stored.reversed().prefix(max(0, limit))) }

    private var savedDrills: [(drill: Drill, savedAt: String)] = []

    public func saveDrill(_ drill: Drill, savedAt: String) {
        savedDrills.removeAll { $0.drill.hash == drill.hash }
        savedDrills.append((drill, savedAt))
    }

    public func drill(_ name: String) -> Drill? {
        if let byName = savedDrills.last(where: { $0.drill.name == name }) { return byName.drill }
        guard name.count >= 6 else { return nil }
        let matches = savedDrills.filter { $0.drill.hash.hasPrefix(name.lowercased()) }
        return matches.count == 1 ? matches[0].drill : nil
    }

    public func drills() -> [StoredDrill] {
        savedDrills.map { StoredDrill(hash: $0.drill.hash, name: $0.drill.name, balls: $0.drill.ballCount, savedAt: $0.savedAt) }
            .sorted { ($0.name, $1.savedAt) < ($1.name, $0.savedAt) }
    }

    public func saveDrillRun(_ run: TennisCommands.DrillRunReport, session: Int, seed: UInt64) {
        if let i = stored.firstIndex(where: { $0.id == session }) {
            stored[i].mode = .drill
            stored[i].drill = run.drill.name
        }
    }
}

/// Why a command could not get what it needed from the store.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case noCalibration(camera: String)

    public var description: String {
        switch self {
        case .noCalibration(let camera):
            return "no calibration for camera \"\(camera)\" at this site; run `clubhouse tennis calibrate --image-points FILE.json --camera \(camera)` first"
        }
    }
}
