// What the tennis plugin keeps per site: camera calibrations and session logs. The schema is data
// (SQL the adapter runs through the host's storage service); `TennisStore` is the interface the
// commands use, implemented by the adapter on SQLite and here in memory.

/// The plugin's SQLite schema, one migration per element (the host records which ones ran).
public enum TennisSchema {
    public static let migrations: [String] = [
        """
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
        """,
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
        "SELECT id, started_at, mode, summary_json FROM sessions ORDER BY id DESC LIMIT ?1"
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

    public init(id: Int, startedAt: String, mode: SessionSettings.Mode, summary: SessionSummary) {
        self.id = id
        self.startedAt = startedAt
        self.mode = mode
        self.summary = summary
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
