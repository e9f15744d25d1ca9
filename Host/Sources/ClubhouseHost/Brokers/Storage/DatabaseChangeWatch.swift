// Whether a plugin's database has had a commit since a moment: a connection of the host's own to the file,
// asked `PRAGMA data_version`, which moves whenever any other connection — the plugin's own in this
// process, or another process such as `clubhouse putting job run` — commits to it. `serve --http`'s reply
// cache (a read's reply the plugin declared "cache" for, ABI 1.7) answers a kept reply only while this
// has not moved (SiteRuntime.replyStamp).

import CSQLite
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// One watching connection per database file, opened on first use; never writes.
/// @unchecked Sendable: `connections` and every statement are used holding `lock`.
public final class DatabaseChangeWatch: @unchecked Sendable {
    private let lock = Lock()
    private var connections: [String: (db: OpaquePointer, statement: OpaquePointer)] = [:]

    public init() {}

    deinit {
        for (_, c) in connections {
            sqlite3_finalize(c.statement)
            sqlite3_close_v2(c.db)
        }
    }

    /// The file's data version as this watch sees it; nil when it cannot be read now (no such file yet, or
    /// the file is locked for a moment): the caller then neither answers nor keeps a reply. Never waits.
    public func version(of path: String) -> Int64? {
        lock.withLock { () -> Int64? in
            if connections[path] == nil {
                guard access(path, F_OK) == 0 else { return nil }
                var db: OpaquePointer?
                // Read-write without CREATE: a read-only connection cannot always read a WAL file's index.
                guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK,
                      let db else {
                    sqlite3_close_v2(db)
                    return nil
                }
                var statement: OpaquePointer?
                guard sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK, let statement else {
                    sqlite3_close_v2(db)
                    return nil
                }
                connections[path] = (db, statement)
            }
            guard let c = connections[path] else { return nil }
            defer { sqlite3_reset(c.statement) }
            guard sqlite3_step(c.statement) == SQLITE_ROW else { return nil }
            return sqlite3_column_int64(c.statement, 0)
        }
    }
}
