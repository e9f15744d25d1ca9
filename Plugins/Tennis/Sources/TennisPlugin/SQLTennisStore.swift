// TennisStore on the plugin's SQLite database (PluginKit Storage), with TennisSchema's statements:
// cached, bound by position, rows read by column name.

import ClubhouseJSON
import PluginKit
import TennisCore

/// `TennisStore` on the plugin's own database (schema: `TennisSchema`).
final class SQLTennisStore: TennisStore {
    let storage: Storage

    init(storage: Storage) throws {
        self.storage = storage
        try storage.migrate(TennisSchema.migrations)
    }

    func saveCalibration(_ calibration: CameraCalibration, savedAt: String) throws {
        let json = JSONWriter.compact(try JSONBridge.encode(calibration))
        try storage.run(TennisSchema.upsertCalibration, [.text(calibration.camera), .text(json), .real(calibration.rmsError), .text(savedAt)])
    }

    func calibration(camera: String) throws -> CameraCalibration? {
        guard let row = try storage.queryOne(TennisSchema.selectCalibration, [.text(camera)]), let json = row["calibration_json"].string else { return nil }
        return try JSONBridge.decode(CameraCalibration.self, from: JSONParser.parse(json))
    }

    func cameras() throws -> [String] {
        try storage.query(TennisSchema.listCalibrations).compactMap { $0["camera"].string }
    }

    func saveSession(_ log: SessionLog, startedAt: String) throws -> Int {
        let summary = JSONWriter.compact(try JSONBridge.encode(log.summary))
        let s = log.settings
        return try storage.transaction {
            try storage.run(TennisSchema.insertSession, [
                // A drill run is stored as manual-mode commands; `drill_runs` marks it (see TennisSchema).
                .text(startedAt), .text(s.mode == .drill ? SessionSettings.Mode.manual.rawValue : s.mode.rawValue), SQLValue(s.camera), SQLValue(s.device), .text(s.checksum.rawValue),
                .integer(Int64(s.speed.mph)), .text(s.spin.rawValue), .real(s.interval), SQLValue(s.dryRun), .text(summary),
            ])
            let id = storage.lastInsertRowID
            for e in log.events {
                try storage.run(TennisSchema.insertEvent, [
                    .integer(id), SQLValue(e.seq), .text(e.kind.rawValue), .real(e.at), SQLValue(e.launch), SQLValue(e.attempt),
                    SQLValue(e.zone), SQLValue(e.bytes), SQLValue(e.reply?.description), SQLValue(e.latency), SQLValue(e.note),
                ])
            }
            return Int(id)
        }
    }

    func sessions(limit: Int) throws -> [StoredSession] {
        try storage.query(TennisSchema.listSessions, [SQLValue(max(0, limit))]).compactMap { row -> StoredSession? in
            guard let id = row["id"].int, let started = row["started_at"].string,
                  let mode = row["mode"].string.flatMap(SessionSettings.Mode.init(rawValue:)), let json = row["summary_json"].string
            else { return nil }
            return StoredSession(id: id, startedAt: started, mode: mode,
                                 summary: try JSONBridge.decode(SessionSummary.self, from: JSONParser.parse(json)), drill: row["drill_name"].string)
        }
    }

    func saveDrill(_ drill: Drill, savedAt: String) throws {
        try storage.run(TennisSchema.insertDrill, [.text(drill.hash), .text(drill.name), .text(drill.canonicalJSON),
                                                   SQLValue(drill.ballCount), .text(savedAt)])
    }

    func drill(_ name: String) throws -> Drill? {
        var json = try storage.queryOne(TennisSchema.selectDrillByName, [.text(name)])?["canonical_json"].string
        if json == nil, name.count >= 6, name.allSatisfy(\.isHexDigit) {
            let rows = try storage.query(TennisSchema.selectDrillsByHashPrefix, [.text(name.lowercased())])
            if rows.count == 1 { json = rows[0]["canonical_json"].string }
        }
        guard let json else { return nil }
        return try Drill.parse(json, file: "saved drill \(name)")
    }

    func drills() throws -> [StoredDrill] {
        try storage.query(TennisSchema.listDrills).compactMap { row -> StoredDrill? in
            guard let hash = row["hash"].string, let name = row["name"].string, let balls = row["balls"].int,
                  let saved = row["saved_at"].string else { return nil }
            return StoredDrill(hash: hash, name: name, balls: balls, savedAt: saved)
        }
    }

    func saveDrillRun(_ run: TennisCommands.DrillRunReport, session: Int, seed: UInt64) throws {
        try storage.run(TennisSchema.insertDrillRun, [SQLValue(session), .text(run.drill.hash), .text(run.drill.name), .integer(Int64(seed)),
                                                      SQLValue(run.drill.balls), SQLValue(run.medianLateMs), SQLValue(run.maxLateMs)])
    }
}
