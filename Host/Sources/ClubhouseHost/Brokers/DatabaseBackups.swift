// Upgrades that can go back. The first time a newer version of a plugin opens a site's database,
// the host copies the database as the older version left it (`VACUUM INTO`) into
// `<data>/<site>/<id>.backups/` before the plugin runs its new migrations. A migration that fails
// then restores that copy (the recorded version and the migration history come back with it, so
// the older version opens the database again), and `clubhouse plugin rollback` restores one on
// request; `clubhouse lock --release-pin` rolls a site forward again.
//
// Backups are kept per version and time and never overwritten or deleted by the host: each is
// `<version>@<UTC time>.<why>-<other version>.sqlite`, eg `1.0.0@20260103T120000123Z.upgrade-2.0.0.sqlite`
// (1.0.0's data, copied before the upgrade to 2.0.0), written through a temporary file and
// link(2), which refuses an existing name. Why: `upgrade` (before a newer version's migrations),
// `rollback` (the data a site had when it rolled back to the other version), `forward` (the data a
// site had when it rolled forward to the other version). `clubhouse plugin backups` lists them.
// Files named `<version>.sqlite` were made by clubhouse 1.x before this layout; they are listed too.

import ClubhousePlatform
import ClubhouseHashing
import ClubhouseToolkit
import CSQLite
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// An upgrade a database went through when it was opened: from which version, and its backup.
public struct DatabaseUpgrade: Sendable {
    public var from: String
    public var to: String
    public var backup: String
    /// Something the administrator should know about this upgrade (logged as a warning), eg that
    /// newer data kept at a rollback is not what is being migrated.
    public var note: String?
}

/// One kept copy of a plugin's database.
public struct DatabaseBackup: Sendable, Equatable {
    /// Why a copy was made.
    public enum Reason: Sendable, Equatable {
        /// Before the upgrade to `to` ran its migrations.
        case upgrade(to: String)
        /// The data the site had when it rolled back to `to`.
        case rollback(to: String)
        /// The data the site had when it rolled forward to `to`.
        case forward(to: String)
        /// Made by an older clubhouse (before the upgrade to a newer version; name `<version>.sqlite`).
        case legacy

        var word: String {
            switch self {
            case .upgrade(let v): return "upgrade-\(v)"
            case .rollback(let v): return "rollback-\(v)"
            case .forward(let v): return "forward-\(v)"
            case .legacy: return "legacy"
            }
        }

        /// "before the upgrade to 2.0.0", for listings and messages.
        public var description: String {
            switch self {
            case .upgrade(let v): return "before the upgrade to \(v)"
            case .rollback(let v): return "kept at the rollback to \(v)"
            case .forward(let v): return "kept at the roll-forward to \(v)"
            case .legacy: return "before an upgrade (made by an older clubhouse)"
            }
        }
    }

    public var version: SemanticVersion
    public var file: String
    /// ISO 8601 UTC, to the millisecond.
    public var madeAt: String
    /// The time stamp as it sorts (`20260103T120000123Z`; legacy files: from their mtime).
    public var stamp: String
    public var reason: Reason
    public var size: Int64
}

public enum DatabaseBackups {
    /// `<data>/<site>/<id>.backups` for `<data>/<site>/<id>.sqlite`.
    public static func folder(database path: String) -> String {
        (path.hasSuffix(".sqlite") ? String(path.dropLast(7)) : path) + ".backups"
    }

    /// Now, ISO 8601 UTC to the millisecond (what backups and rollback pins are stamped with).
    public static var now: String { UTCClock.iso8601NowMilliseconds() }

    /// `20260103T120000123Z` for now (UTC, milliseconds).
    static func stampNow() -> String {
        let iso = UTCClock.iso8601NowMilliseconds()   // 2026-01-03T12:00:00.123Z
        return String(iso.filter { $0 != "-" && $0 != ":" && $0 != "." })
    }

    /// `2026-01-03T12:00:00.123Z` from `20260103T120000123Z` (nil when it is not one).
    static func iso(fromStamp s: String) -> String? {
        let c = Array(s)
        guard c.count == 19, c[8] == "T", c[18] == "Z",
              c.enumerated().allSatisfy({ i, ch in i == 8 || i == 18 || ch.isASCII && ch.isNumber }) else { return nil }
        let t = String(c)
        func part(_ a: Int, _ b: Int) -> Substring { t[t.index(t.startIndex, offsetBy: a)..<t.index(t.startIndex, offsetBy: b)] }
        return "\(part(0, 4))-\(part(4, 6))-\(part(6, 8))T\(part(9, 11)):\(part(11, 13)):\(part(13, 15)).\(part(15, 18))Z"
    }

    /// Reads one backup's name (`<version>@<stamp>.<why>-<version>.sqlite`, or legacy `<version>.sqlite`).
    public static func parse(_ file: String) -> DatabaseBackup? {
        let name = FileSystem.baseName(file)
        guard name.hasSuffix(".sqlite"), !name.hasPrefix(".") else { return nil }
        let stem = String(name.dropLast(7))
        var st = stat()
        let size: Int64 = stat(file, &st) == 0 ? Int64(st.st_size) : 0
        guard let at = stem.firstIndex(of: "@") else {
            guard let version = SemanticVersion(stem) else { return nil }
            let seconds = Int64(st.st_mtim.tv_sec), ms = Int(st.st_mtim.tv_nsec / 1_000_000)
            let iso = UTCClock.iso8601(seconds: seconds, milliseconds: ms)
            return DatabaseBackup(version: version, file: file, madeAt: iso, stamp: String(iso.filter { $0 != "-" && $0 != ":" && $0 != "." }),
                                  reason: .legacy, size: size)
        }
        guard let version = SemanticVersion(String(stem[..<at])) else { return nil }
        let rest = stem[stem.index(after: at)...]
        guard rest.count > 20, let dot = rest.firstIndex(of: "."), rest.distance(from: rest.startIndex, to: dot) == 19 else { return nil }
        let stamp = String(rest[..<dot])
        guard let madeAt = iso(fromStamp: stamp) else { return nil }
        let why = rest[rest.index(after: dot)...]
        guard let dash = why.firstIndex(of: "-") else { return nil }
        let other = String(why[why.index(after: dash)...])
        guard SemanticVersion(other) != nil else { return nil }
        let reason: DatabaseBackup.Reason
        switch why[..<dash] {
        case "upgrade": reason = .upgrade(to: other)
        case "rollback": reason = .rollback(to: other)
        case "forward": reason = .forward(to: other)
        default: return nil
        }
        return DatabaseBackup(version: version, file: file, madeAt: madeAt, stamp: stamp, reason: reason, size: size)
    }

    /// The backups kept for a database, highest version first, newest first within a version.
    public static func list(database path: String) -> [DatabaseBackup] {
        FileSystem.files(in: folder(database: path), suffix: ".sqlite").compactMap(parse).sorted {
            $0.version != $1.version ? $1.version < $0.version : $0.stamp > $1.stamp
        }
    }

    /// Copies the database open on `db` to a new backup of `version` (through a temporary file and
    /// link(2), so a backup is whole or absent and never replaces another). Must run outside a
    /// transaction. The new file's path, or why it failed.
    static func vacuumInto(_ db: OpaquePointer, database path: String, version: String,
                           reason: DatabaseBackup.Reason) -> Result<String, BackupFailure> {
        let folder = folder(database: path)
        do { try FileSystem.createDirectory(folder) } catch { return .failure(BackupFailure(reason: "cannot create \(folder): \(error.reason)")) }
        let temporary = "\(folder)/.\(version).sqlite.tmp-\(getpid())"
        unlink(temporary)
        // VACUUM INTO attaches its output internally: plugin connections allow no attached
        // database, so one is allowed for this statement only.
        let previous = sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 1)
        defer { sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, previous) }
        var escaped = ""
        for c in temporary { escaped += c == "'" ? "''" : String(c) }
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, "VACUUM INTO '\(escaped)'", nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            unlink(temporary)
            return .failure(BackupFailure(reason: text))
        }
        defer { unlink(temporary) }
        // A name taken (two backups in one millisecond) moves the stamp on: nothing is replaced.
        var stamp = stampNow()
        for _ in 0..<1000 {
            let target = "\(folder)/\(version)@\(stamp).\(reason.word).sqlite"
            if link(temporary, target) == 0 {
                syncDirectory(folder)
                return .success(target)
            }
            guard errno == EEXIST else { return .failure(BackupFailure(reason: "\(target): \(String(cString: strerror(errno)))")) }
            stamp = nextStamp(stamp)
        }
        return .failure(BackupFailure(reason: "\(folder): no free backup name"))
    }

    /// The stamp one millisecond later (the digits as a number: an invalid time only in names
    /// that collide a thousand times, which still sort after the original).
    static func nextStamp(_ stamp: String) -> String {
        let digits = stamp.dropLast().filter { $0 != "T" }
        guard let n = UInt64(digits) else { return stamp + "0" }
        var next = String(n + 1)
        next = String(repeating: "0", count: max(0, digits.count - next.count)) + next
        return String(next.prefix(8)) + "T" + String(next.dropFirst(8)) + "Z"
    }

    public struct BackupFailure: Error, Sendable { public var reason: String }

    /// Backs up the database at `path` as a new backup of `version` (a plain connection of the
    /// host's own); the new file.
    public static func backup(database path: String, version: String, reason: DatabaseBackup.Reason) throws(StorageError) -> String {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StorageError(message: "\(path): cannot open the database to back it up (\(message))")
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 5000)
        switch vacuumInto(db, database: path, version: version, reason: reason) {
        case .success(let file): return file
        case .failure(let f): throw StorageError(message: "\(path): cannot back up the database as \(version) (\(f.reason))")
        }
    }

    /// Replaces the content of the database at `path` by the backup `from`, through SQLite's
    /// online backup (so a WAL database is rewritten consistently; other connections see the
    /// old content or the new, never a mix).
    public static func restore(database path: String, from backup: String) throws(StorageError) {
        var source: OpaquePointer?, target: OpaquePointer?
        defer {
            if let source { sqlite3_close_v2(source) }
            if let target { sqlite3_close_v2(target) }
        }
        guard sqlite3_open_v2(backup, &source, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let source else {
            throw StorageError(message: "\(backup): cannot open the backup (\(source.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"))")
        }
        guard sqlite3_open_v2(path, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let target else {
            throw StorageError(message: "\(path): cannot open the database to restore it (\(target.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"))")
        }
        sqlite3_busy_timeout(target, 5000)
        guard let copy = sqlite3_backup_init(target, "main", source, "main") else {
            throw StorageError(message: "\(path): cannot restore from \(backup) (\(String(cString: sqlite3_errmsg(target))))")
        }
        var rc = sqlite3_backup_step(copy, -1)
        var waited = 0
        while (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && waited < 5000 {
            usleep(10_000)
            waited += 10
            rc = sqlite3_backup_step(copy, -1)
        }
        sqlite3_backup_finish(copy)
        guard rc == SQLITE_DONE else {
            throw StorageError(message: "\(path): cannot restore from \(backup) (\(String(cString: sqlite3_errstr(rc))))")
        }
    }

    /// The plugin version recorded in the database at `path` (nil: none recorded, or no database).
    public static func recordedVersion(database path: String) -> String? {
        guard FileSystem.exists(path) else { return nil }
        var db: OpaquePointer?
        defer { if let db { sqlite3_close_v2(db) } }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let db else { return nil }
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, "SELECT version FROM main.\(pluginVersionTable) WHERE id = 1", -1, &stmt, nil) == SQLITE_OK,
              sqlite3_step(stmt) == SQLITE_ROW, let text = sqlite3_column_text(stmt, 0) else { return nil }
        return String(cString: text)
    }

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// A digest of what the database holds: its schema and every row of every table, in key order
    /// (the host's records of the writing version and of the data's origin left out). Two databases with
    /// the same digest hold the same data, whatever their pages look like; a rollback records it to
    /// tell later whether the older version wrote anything since. nil when the file cannot be read.
    public static func contentDigest(database path: String) -> String? {
        guard FileSystem.exists(path) else { return nil }
        var db: OpaquePointer?
        defer { if let db { sqlite3_close_v2(db) } }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let db else { return nil }
        sqlite3_busy_timeout(db, 5000)
        var hash = SHA256()
        var tables: [String] = []
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, coalesce(sql, '') FROM main.sqlite_schema ORDER BY type, name",
                                 -1, &stmt, nil) == SQLITE_OK else { return nil }
        while sqlite3_step(stmt) == SQLITE_ROW {
            var row: [String] = []
            for i in 0..<4 { row.append(sqlite3_column_text(stmt, Int32(i)).map { String(cString: $0) } ?? "") }
            // Whose data it is (DataOrigin.swift) is not the data: recorded at a first open, changed by adopt.
            if row[2] == originTable { continue }
            hash.update(row.joined(separator: "\u{1F}") + "\u{1E}")
            if row[0] == "table" && !row[1].hasPrefix("sqlite_") && row[1] != pluginVersionTable { tables.append(row[1]) }
        }
        sqlite3_finalize(stmt)
        for table in tables {
            var quoted = "\""
            for c in table { quoted += c == "\"" ? "\"\"" : String(c) }
            quoted += "\""
            // Rows in rowid order; a WITHOUT ROWID table (no rowid to order by) by every column.
            if sqlite3_prepare_v2(db, "SELECT * FROM main.\(quoted) ORDER BY rowid", -1, &stmt, nil) != SQLITE_OK {
                sqlite3_finalize(stmt)
                stmt = nil
                guard sqlite3_prepare_v2(db, "SELECT * FROM main.\(quoted) LIMIT 0", -1, &stmt, nil) == SQLITE_OK else { return nil }
                let n = sqlite3_column_count(stmt)
                sqlite3_finalize(stmt)
                stmt = nil
                let order = (1...max(1, Int(n))).map(String.init).joined(separator: ", ")
                guard sqlite3_prepare_v2(db, "SELECT * FROM main.\(quoted) ORDER BY \(order)", -1, &stmt, nil) == SQLITE_OK else { return nil }
            }
            hash.update("T" + table + "\u{1E}")
            let columns = sqlite3_column_count(stmt)
            while sqlite3_step(stmt) == SQLITE_ROW {
                for i in 0..<columns {
                    let type = sqlite3_column_type(stmt, i)
                    var cell: [UInt8] = [UInt8(truncatingIfNeeded: type)]
                    if type != SQLITE_NULL, let blob = sqlite3_column_blob(stmt, i) {
                        let n = Int(sqlite3_column_bytes(stmt, i))
                        cell += Array(UnsafeRawBufferPointer(start: blob, count: n))
                    } else if type != SQLITE_NULL, let text = sqlite3_column_text(stmt, i) {
                        cell += Array(String(cString: text).utf8)
                    }
                    var length = UInt64(cell.count).littleEndian
                    withUnsafeBytes(of: &length) { hash.update($0) }
                    hash.update(cell)
                }
                hash.update("\u{1E}")
            }
            sqlite3_finalize(stmt)
        }
        return hash.finalize().hex
    }

    /// `PRAGMA integrity_check`'s answer ("ok" for a sound file), or why the file cannot be opened.
    public static func integrity(database path: String) -> String {
        var db: OpaquePointer?
        defer { if let db { sqlite3_close_v2(db) } }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let db else { return "cannot open" }
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nil) == SQLITE_OK else { return String(cString: sqlite3_errmsg(db)) }
        var lines: [String] = []
        while sqlite3_step(stmt) == SQLITE_ROW { lines.append(sqlite3_column_text(stmt, 0).map { String(cString: $0) } ?? "") }
        return lines.joined(separator: "; ")
    }

    /// When the newest backup is newer data kept at a rollback (a site rolled back and is now being
    /// upgraded again from the older data, not rolled forward with `clubhouse lock --release-pin`):
    /// the sentence that says where that data is.
    static func keptNewerData(database path: String, upgradingTo target: SemanticVersion, from recorded: String) -> String? {
        guard let newest = list(database: path).max(by: { $0.stamp < $1.stamp }), case .rollback(let to) = newest.reason,
              newest.version >= target else { return nil }
        return "\(path): the \(newest.version) data this site had when it rolled back to \(to) (\(newest.madeAt)) is kept in \(newest.file) and is not what is upgraded now: \(target) migrates the \(recorded) database; clubhouse plugin backups lists every copy"
    }

    /// The newest backup of `version` whose content is the database's own (so a second copy would
    /// add nothing), or nil.
    static func identicalCopy(database path: String, version: String) -> String? {
        guard let v = SemanticVersion(version), let newest = list(database: path).first(where: { $0.version == v }),
              let live = contentDigest(database: path), contentDigest(database: newest.file) == live else { return nil }
        return newest.file
    }
}
