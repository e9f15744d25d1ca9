// TennisCore's small interfaces implemented on the host's services: the session log and
// calibrations on the plugin's SQLite database, the ball machine link on a device, a real clock,
// and live detection lines from standard input.

import ClubhouseJSON
import PluginKit
import TennisCore
#if canImport(Glibc)
import Glibc
#endif

/// `TennisStore` on the plugin's own database (schema: `TennisSchema`).
final class SQLiteTennisStore: TennisStore {
    let storage: Storage

    init(storage: Storage) throws {
        self.storage = storage
        try storage.migrate(TennisSchema.migrations.enumerated().map { Migration($0.offset + 1, "tennis schema \($0.offset + 1)", $0.element) })
    }

    func saveCalibration(_ calibration: CameraCalibration, savedAt: String) throws {
        let json = JSONWriter.compact(try JSONBridge.encode(calibration))
        try storage.run(TennisSchema.upsertCalibration, [.text(calibration.camera), .text(json), .real(calibration.rmsError), .text(savedAt)])
    }

    func calibration(camera: String) throws -> CameraCalibration? {
        guard let row = try storage.queryOne(TennisSchema.selectCalibration, [.text(camera)]), let json = row[0].string else { return nil }
        return try JSONBridge.decode(CameraCalibration.self, from: JSONParser.parse(json))
    }

    func cameras() throws -> [String] {
        try storage.query(TennisSchema.listCalibrations).compactMap { $0[0].string }
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
            let insert = try storage.prepare(TennisSchema.insertEvent)
            for e in log.events {
                try insert.bind([.integer(id), SQLValue(e.seq), .text(e.kind.rawValue), .real(e.at), SQLValue(e.launch), SQLValue(e.attempt),
                                 SQLValue(e.zone), SQLValue(e.bytes), SQLValue(e.reply?.description), SQLValue(e.latency), SQLValue(e.note)])
                _ = try insert.step()
                try insert.reset()
            }
            return Int(id)
        }
    }

    func sessions(limit: Int) throws -> [StoredSession] {
        try storage.query(TennisSchema.listSessions, [SQLValue(max(0, limit))]).compactMap { row -> StoredSession? in
            guard let id = row[0].int, let started = row[1].string, let mode = row[2].string.flatMap(SessionSettings.Mode.init(rawValue:)),
                  let json = row[3].string
            else { return nil }
            return StoredSession(id: id, startedAt: started, mode: mode,
                                 summary: try JSONBridge.decode(SessionSummary.self, from: JSONParser.parse(json)), drill: row[4].string)
        }
    }

    func saveDrill(_ drill: Drill, savedAt: String) throws {
        try storage.run(TennisSchema.insertDrill, [.text(drill.hash), .text(drill.name), .text(drill.canonicalJSON),
                                                   SQLValue(drill.ballCount), .text(savedAt)])
    }

    func drill(_ name: String) throws -> Drill? {
        var json = try storage.queryOne(TennisSchema.selectDrillByName, [.text(name)])?[0].string
        if json == nil, name.count >= 6, name.allSatisfy(\.isHexDigit) {
            let rows = try storage.query(TennisSchema.selectDrillsByHashPrefix, [.text(name.lowercased())])
            if rows.count == 1 { json = rows[0][0].string }
        }
        guard let json else { return nil }
        return try Drill.parse(json, file: "saved drill \(name)")
    }

    func drills() throws -> [StoredDrill] {
        try storage.query(TennisSchema.listDrills).compactMap { row -> StoredDrill? in
            guard let hash = row[0].string, let name = row[1].string, let balls = row[2].int, let saved = row[3].string else { return nil }
            return StoredDrill(hash: hash, name: name, balls: balls, savedAt: saved)
        }
    }

    func saveDrillRun(_ run: TennisCommands.DrillRunReport, session: Int, seed: UInt64) throws {
        try storage.run(TennisSchema.insertDrillRun, [SQLValue(session), .text(run.drill.hash), .text(run.drill.name), .integer(Int64(seed)),
                                                      SQLValue(run.drill.balls), SQLValue(run.medianLateMs), SQLValue(run.maxLateMs)])
    }
}

/// The ball machine as the host's device service gives it.
final class DeviceLink: BallMachineLink {
    let device: Device

    init(device: Device) { self.device = device }

    func write(_ bytes: [UInt8]) throws { try device.write(bytes) }

    func read(max: Int, timeout: Double) throws -> [UInt8] {
        let ms = timeout.isFinite ? Int((Swift.max(0, timeout) * 1000).rounded(.up)) : 0
        return try device.read(upTo: max, timeoutMilliseconds: Swift.min(ms, 60_000))
    }
}

/// CLOCK_MONOTONIC in seconds (TennisCore's, so that benchmarks time the same clock).
typealias MonotonicClock = SystemSessionClock

/// Lines from standard input, waiting in short polls so a cancelled call is noticed.
struct StandardInputLines {
    private var buffer: [UInt8] = []
    private var atEnd = false

    /// The next line (without its newline), or nil at end of input or when `cancelled()` turns true.
    mutating func next(cancelled: () -> Bool) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return line
            }
            if cancelled() { return nil }
            var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 200)
            if ready < 0 && errno != EINTR { atEnd = true; continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                atEnd = true
            } else {
                buffer.append(contentsOf: chunk[0..<n])
            }
        }
    }
}

enum Timestamp {
    static func now() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        guard gmtime_r(&now.tv_sec, &parts) != nil else { return "1970-01-01T00:00:00.000Z" }
        func digits(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(digits(Int(parts.tm_year) + 1900, 4))-\(digits(Int(parts.tm_mon) + 1, 2))-\(digits(Int(parts.tm_mday), 2))T"
            + "\(digits(Int(parts.tm_hour), 2)):\(digits(Int(parts.tm_min), 2)):\(digits(Int(parts.tm_sec), 2))."
            + "\(digits(now.tv_nsec / 1_000_000, 3))Z"
    }
}
