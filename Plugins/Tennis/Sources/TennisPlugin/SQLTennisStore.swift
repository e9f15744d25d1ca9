// TennisStore on the plugin's SQLite database (PluginKit Storage), with TennisSchema's statements:
// cached, bound by position, rows read into records by column name (PluginKit StoredRecords: a row
// that does not fit is refused naming its table and column, never skipped or read as 0 or "").

import ClubhouseJSON
import Glibc
import PluginKit
import TennisCore

/// `TennisStore` on the plugin's own database (schema: `TennisSchema`).
/// @unchecked Sendable: the plugin's calls run concurrently (it is thread-safe, MachineUse.swift) and share
/// one connection, so one transaction: every use of `storage` is under `mutex` (recursive: a method may
/// call another), so that no call's statements land in another call's transaction.
final class SQLTennisStore: TennisStore, @unchecked Sendable {
    let storage: Storage
    private var mutex = pthread_mutex_t()

    init(storage: Storage) throws {
        self.storage = storage
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(&mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        try storage.migrate(TennisSchema.migrations)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    private struct CalibrationRecord: Decodable { var calibration_json: String }
    private struct CameraRecord: Decodable { var camera: String }
    private struct SessionRecord: Decodable { var id: Int, started_at: String, mode: String, summary_json: String, drill_name: String? }
    private struct DrillJSONRecord: Decodable { var canonical_json: String }
    private struct DrillRecord: Decodable { var hash: String, name: String, balls: Int, saved_at: String }

    private func records<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [SQLValue] = [], of table: String) throws -> [T] {
        try storage.records(T.self, sql, parameters, of: table, in: "tennis")
    }

    /// Runs `body` with the store to itself (no other call's statement meanwhile).
    func exclusive<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }

    func saveCalibration(_ calibration: CameraCalibration, savedAt: String) throws {
        try exclusive {
            let json = JSONWriter.compact(try JSONBridge.encode(calibration))
            try storage.run(TennisSchema.upsertCalibration, [.text(calibration.camera), .text(json), .real(calibration.rmsError), .text(savedAt)])
        }
    }

    func calibration(camera: String) throws -> CameraCalibration? {
        try exclusive {
            guard let row = try storage.record(CalibrationRecord.self, TennisSchema.selectCalibration, [.text(camera)],
                                               of: "calibrations", in: "tennis") else { return nil }
            return try JSONBridge.decode(CameraCalibration.self, from: JSONParser.parse(row.calibration_json))
        }
    }

    func cameras() throws -> [String] {
        try exclusive {
            try records(CameraRecord.self, TennisSchema.listCalibrations, of: "calibrations").map(\.camera)
        }
    }

    func saveSession(_ log: SessionLog, startedAt: String) throws -> Int {
        try exclusive {
            try storage.transaction {
                let id = try beginSession(log.settings, startedAt: startedAt, drill: nil)
                try completeSession(id, log: log, drill: nil)
                return id
            }
        }
    }

    // MARK: a session stored while it runs (SQLSessionJournal)

    /// The session's row (and its drill-run row) before anything is sent, its summary saying it did
    /// not finish until `completeSession` replaces it.
    func beginSession(_ s: SessionSettings, startedAt: String, drill: DrillRunRow?) throws -> Int {
        try exclusive {
            var unfinished = SessionSummary()
            unfinished.aborted = SQLTennisStore.unfinished
            let summary = JSONWriter.compact(try JSONBridge.encode(unfinished))
            return try storage.transaction {
                try storage.run(TennisSchema.insertSession, [
                    .text(startedAt), .text(s.mode == .drill ? SessionSettings.Mode.manual.rawValue : s.mode.rawValue), SQLValue(s.camera), SQLValue(s.device), .text(s.checksum.rawValue),
                    .integer(Int64(s.speed.mph)), .text(s.spin.rawValue), .real(s.interval), SQLValue(s.dryRun), .text(summary),
                ])
                let id = Int(storage.lastInsertRowID)
                if let drill {
                    try storage.run(TennisSchema.insertDrillRun, [SQLValue(id), .text(drill.hash), .text(drill.name), .integer(Int64(bitPattern: drill.seed)),
                                                                  SQLValue(drill.balls), SQLValue(drill.medianLateMs), SQLValue(drill.maxLateMs)])
                }
                return id
            }
        }
    }

    /// What a session that never reached its end says (its process was killed, the host went away).
    static let unfinished = "did not finish: the plugin was stopped before it could end the session (the events stored show what the machine did)"

    func appendEvent(_ e: SessionEvent, session id: Int) throws {
        try exclusive {
            try storage.run(TennisSchema.insertEvent, [
                .integer(Int64(id)), SQLValue(e.seq), .text(e.kind.rawValue), .real(e.at), SQLValue(e.launch), SQLValue(e.attempt),
                SQLValue(e.zone), SQLValue(e.bytes), SQLValue(e.reply?.description), SQLValue(e.latency), SQLValue(e.note),
            ])
        }
    }

    func updateSummary(_ summary: SessionSummary, session id: Int) throws {
        try exclusive {
            var stored = summary
            if stored.aborted == nil { stored.aborted = SQLTennisStore.unfinished }
            try storage.run(TennisSchema.updateSummary, [.text(JSONWriter.compact(try JSONBridge.encode(stored))), .integer(Int64(id))])
        }
    }

    /// The whole log of a session begun with `beginSession`, in one transaction: its events again
    /// (whatever the journal managed to store before), its summary, its drill run's lateness.
    func completeSession(_ id: Int, log: SessionLog, drill: DrillRunRow?) throws {
        try exclusive {
            let summary = JSONWriter.compact(try JSONBridge.encode(log.summary))
            try storage.transaction {
                try storage.run(TennisSchema.deleteEvents, [.integer(Int64(id))])
                for e in log.events { try appendEvent(e, session: id) }
                try storage.run(TennisSchema.updateSummary, [.text(summary), .integer(Int64(id))])
                if let drill {
                    try storage.run(TennisSchema.updateDrillRunLateness, [SQLValue(drill.medianLateMs), SQLValue(drill.maxLateMs), .integer(Int64(id))])
                }
            }
        }
    }

    func sessions(limit: Int) throws -> [StoredSession] {
        try exclusive {
            try records(SessionRecord.self, TennisSchema.listSessions, [SQLValue(max(0, limit))], of: "sessions").map { row in
                guard let mode = SessionSettings.Mode(rawValue: row.mode) else {
                    throw StoredRowError(table: "sessions", database: "tennis", problem: "column 'mode' holds '\(row.mode)', not a session mode")
                }
                return StoredSession(id: row.id, startedAt: row.started_at, mode: mode,
                                     summary: try JSONBridge.decode(SessionSummary.self, from: JSONParser.parse(row.summary_json)),
                                     drill: row.drill_name)
            }
        }
    }

    func saveDrill(_ drill: Drill, savedAt: String) throws {
        try exclusive {
            try storage.run(TennisSchema.insertDrill, [.text(drill.hash), .text(drill.name), .text(drill.canonicalJSON),
                                                       SQLValue(drill.ballCount), .text(savedAt)])
        }
    }

    func drill(_ name: String) throws -> Drill? {
        try exclusive {
            var json = try storage.record(DrillJSONRecord.self, TennisSchema.selectDrillByName, [.text(name)], of: "drills", in: "tennis")?
                .canonical_json
            if json == nil, name.count >= 6, name.allSatisfy(\.isHexDigit) {
                let rows = try records(DrillJSONRecord.self, TennisSchema.selectDrillsByHashPrefix, [.text(name.lowercased())], of: "drills")
                if rows.count == 1 { json = rows[0].canonical_json }
            }
            guard let json else { return nil }
            return try Drill.parse(json, file: "saved drill \(name)")
        }
    }

    func drills() throws -> [StoredDrill] {
        try exclusive {
            try records(DrillRecord.self, TennisSchema.listDrills, of: "drills").map {
                StoredDrill(hash: $0.hash, name: $0.name, balls: $0.balls, savedAt: $0.saved_at)
            }
        }
    }

    func saveDrillRun(_ run: TennisCommands.DrillRunReport, session: Int, seed: UInt64) throws {
        try exclusive {
            try storage.run(TennisSchema.insertDrillRun, [SQLValue(session), .text(run.drill.hash), .text(run.drill.name), .integer(Int64(seed)),
                                                          SQLValue(run.drill.balls), SQLValue(run.medianLateMs), SQLValue(run.maxLateMs)])
        }
    }
}

/// A drill run's row beside its session.
struct DrillRunRow {
    var hash: String
    var name: String
    var seed: UInt64
    var balls: Int
    var medianLateMs: Double?
    var maxLateMs: Double?
}

/// Stores a session while it runs (TennisCore's `SessionJournal`): its row (and drill-run row) at the
/// start, each launch's events and the counts after it, and the whole log at the end
/// (`complete`). A write that fails meanwhile (eg: interrupted) is not thrown: the end writes
/// everything again. `storing` wraps the writes that must not be lost (Tennis.storing: a cancelled
/// call looks at its cancel and tries again within its grace).
final class SQLSessionJournal: SessionJournal {
    let store: SQLTennisStore
    let startedAt: String
    var drill: DrillRunRow?
    private let storing: (() throws -> Void) throws -> Void
    private(set) var id: Int?

    init(store: SQLTennisStore, startedAt: String, drill: DrillRunRow?, storing: @escaping (() throws -> Void) throws -> Void) {
        self.store = store
        self.startedAt = startedAt
        self.drill = drill
        self.storing = storing
    }

    func begin(_ settings: SessionSettings) throws {
        try storing { id = try store.beginSession(settings, startedAt: startedAt, drill: drill) }
    }

    func record(_ events: [SessionEvent], summary: SessionSummary) {
        guard let id else { return }
        try? store.exclusive {
            try store.storage.transaction {
                for e in events { try store.appendEvent(e, session: id) }
                try store.updateSummary(summary, session: id)
            }
        }
    }

    /// The whole log at the end; the session's id.
    func complete(_ log: SessionLog) throws -> Int {
        guard let id else { throw PluginError.failed("the session was never begun; nothing to store") }
        try storing { try store.completeSession(id, log: log, drill: drill) }
        return id
    }
}
