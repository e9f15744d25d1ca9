// Upgrades that can go back. The first time a newer version of a plugin opens a site's database,
// the host copies the database as the older version left it (`VACUUM INTO`) to
// `<data>/<site>/<id>.backups/<older version>.sqlite` before the plugin runs its new migrations.
// A migration that fails then restores that copy (the recorded version and the migration history
// come back with it, so the older version opens the database again), and
// `clubhouse plugin rollback` restores it on request. Copies are kept per version; a later upgrade
// from the same version replaces its copy.

import ClubhousePlatform
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
}

public enum DatabaseBackups {
    /// `<data>/<site>/<id>.backups` for `<data>/<site>/<id>.sqlite`.
    public static func folder(database path: String) -> String {
        (path.hasSuffix(".sqlite") ? String(path.dropLast(7)) : path) + ".backups"
    }

    public static func file(database path: String, version: String) -> String {
        folder(database: path) + "/" + version + ".sqlite"
    }

    /// The backups kept for a database, highest version first.
    public static func list(database path: String) -> [(version: SemanticVersion, file: String)] {
        FileSystem.files(in: folder(database: path), suffix: ".sqlite").compactMap { file in
            let name = FileSystem.baseName(file)
            return SemanticVersion(String(name.dropLast(7))).map { ($0, file) }
        }.sorted { $1.version < $0.version }
    }

    /// Copies the database open on `db` to the backup of `version` (through a temporary file and a
    /// rename, so a backup is whole or absent). Must run outside a transaction.
    static func vacuumInto(_ db: OpaquePointer, database path: String, version: String) -> String? {
        let target = file(database: path, version: version)
        let folder = FileSystem.directoryName(target)
        do { try FileSystem.createDirectory(folder) } catch { return "cannot create \(folder): \(error.reason)" }
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
            return text
        }
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return reason
        }
        return nil
    }

    /// Backs up the database at `path` as `version` (a plain connection of the host's own).
    public static func backup(database path: String, version: String) throws(StorageError) -> String {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StorageError(message: "\(path): cannot open the database to back it up (\(message))")
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 5000)
        if let failure = vacuumInto(db, database: path, version: version) {
            throw StorageError(message: "\(path): cannot back up the database as \(version) (\(failure))")
        }
        return file(database: path, version: version)
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
}
