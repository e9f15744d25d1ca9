// The outbox: the host tables in each plugin database that hold the records a plugin published
// (services/publish.h, ABI 1.4) until they are shipped to the site's federation. Written only by the
// host, in the plugin's own open transaction (so a record exists exactly when its data was committed);
// plugin SQL can neither read nor change them (StorageAuthorizer.swift). Read and marked shipped by
// the host's own connection (`OutboxFile`: `clubhouse outbox`, `clubhouse federation push`).

import ClubhousePlatform
import CClubhouse
import CSQLite
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

/// The waiting records, oldest first (`seq` is the plugin database's sequence: 1, 2, 3, …).
let outboxTable = "_clubhouse_outbox"
/// One row: the last sequence given and the last one shipped (never reused, even once rows are gone).
let outboxStateTable = "_clubhouse_outbox_state"

public enum Outbox {
    /// Appended to the host's schema steps of every plugin database (PluginDatabase.hostSchema).
    static let hostSchema: [String] = [
        """
        CREATE TABLE IF NOT EXISTS main.\(outboxTable) (
            seq INTEGER PRIMARY KEY, site TEXT NOT NULL, plugin TEXT NOT NULL, plugin_version TEXT NOT NULL,
            topic TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL, sha256 TEXT NOT NULL,
            published_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))
        """,
        """
        CREATE TABLE IF NOT EXISTS main.\(outboxStateTable) (
            id INTEGER PRIMARY KEY CHECK (id = 1), last_seq INTEGER NOT NULL, shipped_seq INTEGER NOT NULL)
        """,
    ]

    /// Whether a table name is one of the outbox's (plugin SQL may not even read these).
    static func isOutboxName(_ name: UnsafePointer<CChar>?) -> Bool {
        guard let name, PluginDatabase.isHostName(name) else { return false }
        return strncasecmp(name, outboxTable, outboxTable.utf8.count) == 0
    }

    /// The default bound of an outbox (services/publish.h's CLUBHOUSE_OUTBOX_MAX_RECORDS).
    public static let maxRecords = Int(CLUBHOUSE_OUTBOX_MAX_RECORDS)
    /// The largest body, canonical (CLUBHOUSE_RECORD_MAX_BYTES).
    public static let maxBodyBytes = Int(CLUBHOUSE_RECORD_MAX_BYTES)
    /// The longest key (CLUBHOUSE_RECORD_KEY_MAX_BYTES).
    public static let maxKeyBytes = Int(CLUBHOUSE_RECORD_KEY_MAX_BYTES)

    /// Why `key` is not a record key, or nil: 1–256 bytes of printable ASCII without spaces.
    public static func keyProblem(_ key: String) -> String? {
        let bytes = key.utf8
        if bytes.isEmpty { return "the key is empty" }
        if bytes.count > maxKeyBytes { return "the key is \(bytes.count) bytes; a key is at most \(maxKeyBytes)" }
        if let bad = bytes.first(where: { $0 < 0x21 || $0 > 0x7E }) {
            return "the key has byte 0x\(String(bad, radix: 16)); a key is printable ASCII without spaces, eg: round/42"
        }
        return nil
    }
}

/// Told each time a transaction that published records commits (any plugin of the site): `serve`'s
/// background push (Federation/FederationPusher.swift) listens. The handler runs on the committing
/// thread, holding the database's connection lock: it must only note the fact and return.
/// @unchecked Sendable: `handler` is read and written holding `lock`.
public final class OutboxCommits: @unchecked Sendable {
    private let lock = Lock()
    private var handler: (@Sendable () -> Void)?

    public init() {}

    public func listen(_ handler: (@Sendable () -> Void)?) { lock.withLock { self.handler = handler } }

    func committed() { lock.withLock { handler }?() }
}

/// A record as the outbox keeps it.
public struct OutboxRecord: Sendable, Equatable {
    public var seq: Int64
    public var site: String
    public var plugin: String
    public var pluginVersion: String
    public var topic: String
    public var key: String
    /// The body in RFC 8785 canonical form.
    public var body: [UInt8]
    /// Lowercase hex SHA-256 of `body`.
    public var sha256: String
    public var publishedAt: String
}

extension PluginDatabase {
    /// Writes one record into the outbox inside the transaction `call` has open. The failure is a status
    /// and the one-line message for the plugin.
    func appendRecord(site: String, plugin: String, version: String, topic: String, key: String, body: [UInt8], sha256: String,
                      limit: Int, call: UInt64, commits: OutboxCommits? = nil) -> (Int32, String)
    {
        if readOnly {
            return (Int32(CLUBHOUSE_DENIED), "publish: \(path) is read-only (the data directory or the file); the record cannot be kept")
        }
        return serialized { () -> (Int32, String) in
            guard transactionDepth > 0, sqlite3_get_autocommit(db) == 0 else {
                return (Int32(CLUBHOUSE_INVALID_ARGUMENT),
                        "publish: record '\(topic)' \(key) was published outside a transaction; publish inside the storage transaction that writes its data (begin … publish … commit), so the record is kept exactly when the data is")
            }
            if transactionOwner != 0 && transactionOwner != call {
                return (Int32(CLUBHOUSE_INVALID_ARGUMENT),
                        "publish: the open transaction belongs to another call of plugin '\(owner)'; publish inside this call's own transaction")
            }
            hostWriting = true
            defer { hostWriting = false }
            var last: Int64 = 0, shipped: Int64 = 0
            var stmt: OpaquePointer?
            guard sqlite3_prepare_v2(db, "SELECT last_seq, shipped_seq FROM main.\(outboxStateTable) WHERE id = 1", -1, &stmt, nil) == SQLITE_OK else {
                return (Int32(CLUBHOUSE_IO), "publish: \(path): \(String(cString: sqlite3_errmsg(db)))")
            }
            if sqlite3_step(stmt) == SQLITE_ROW {
                last = sqlite3_column_int64(stmt, 0)
                shipped = sqlite3_column_int64(stmt, 1)
            }
            sqlite3_finalize(stmt)
            if last - shipped >= Int64(limit) {
                return (Int32(CLUBHOUSE_BUSY),
                        "publish: the outbox of plugin '\(owner)' at site '\(site)' is full (\(last - shipped) records waiting, at most \(limit)); ship them with clubhouse federation push --site \(site), or raise \"outbox_max_records\" in the site's \"federation\"")
            }
            let seq = last + 1
            var insert: OpaquePointer?
            let sql = """
                INSERT INTO main.\(outboxTable)(seq, site, plugin, plugin_version, topic, key, body, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
            guard sqlite3_prepare_v2(db, sql, -1, &insert, nil) == SQLITE_OK else {
                return (Int32(CLUBHOUSE_IO), "publish: \(path): \(String(cString: sqlite3_errmsg(db)))")
            }
            sqlite3_bind_int64(insert, 1, seq)
            for (i, text) in [site, plugin, version, topic, key].enumerated() {
                sqlite3_bind_text(insert, Int32(i + 2), text, -1, clubhouse_sqlite_transient())
            }
            _ = body.withUnsafeBytes { sqlite3_bind_blob(insert, 7, $0.baseAddress, Int32($0.count), clubhouse_sqlite_transient()) }
            sqlite3_bind_text(insert, 8, sha256, -1, clubhouse_sqlite_transient())
            var rc = sqlite3_step(insert)
            sqlite3_finalize(insert)
            if rc == SQLITE_DONE {
                rc = sqlite3_exec(db, """
                    INSERT INTO main.\(outboxStateTable)(id, last_seq, shipped_seq) VALUES (1, \(seq), 0)
                    ON CONFLICT(id) DO UPDATE SET last_seq = \(seq)
                    """, nil, nil, nil) == SQLITE_OK ? SQLITE_DONE : sqlite3_errcode(db)
            }
            guard rc == SQLITE_DONE else {
                let (status, message) = describe(rc, String(cString: sqlite3_errmsg(db)))
                return (status, "publish: \(message)")
            }
            outboxCommits = commits
            publishedInTransaction = true
            return (Int32(CLUBHOUSE_OK), "")
        }
    }
}

/// The host's own connection to a plugin database's outbox (no authorizer: the host reads and marks
/// its own tables). A database or outbox that does not exist yet reads as empty.
public final class OutboxFile {
    public let path: String
    private var db: OpaquePointer?

    public struct Counts: Sendable, Equatable {
        public var waiting: Int
        public var lastSeq: Int64
        public var shippedSeq: Int64
    }

    /// Opens `path` when it exists (nil otherwise). `writable`: to mark records shipped.
    public init?(path: String, writable: Bool) throws(StorageError) {
        self.path = path
        guard FileSystem.exists(path) else { return nil }
        var handle: OpaquePointer?
        let flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw StorageError(status: Int32(CLUBHOUSE_IO), message: "\(path): cannot open the database: \(message)")
        }
        db = handle
        sqlite3_busy_timeout(handle, 5000)
        // Marking a batch shipped needs no fsync of its own (WAL): lost to a power cut, the mark only makes
        // the next push send that batch again, which the federation keeps once (FederationPush.send).
        if writable { sqlite3_exec(handle, "PRAGMA synchronous=NORMAL", nil, nil, nil) }
    }

    deinit { sqlite3_close_v2(db) }

    private var hasOutbox: Bool {
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '\(outboxStateTable)'", -1, &stmt, nil) == SQLITE_OK
        else { return false }
        return sqlite3_step(stmt) == SQLITE_ROW
    }

    private func failure(_ what: String) -> StorageError {
        StorageError(status: PluginDatabase.status(for: sqlite3_errcode(db)), message: "\(path): \(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    public func counts() throws(StorageError) -> Counts {
        guard hasOutbox else { return Counts(waiting: 0, lastSeq: 0, shippedSeq: 0) }
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, """
            SELECT (SELECT count(*) FROM main.\(outboxTable)), coalesce((SELECT last_seq FROM main.\(outboxStateTable)), 0),
                   coalesce((SELECT shipped_seq FROM main.\(outboxStateTable)), 0)
            """, -1, &stmt, nil) == SQLITE_OK, sqlite3_step(stmt) == SQLITE_ROW
        else { throw failure("cannot read the outbox") }
        return Counts(waiting: Int(sqlite3_column_int64(stmt, 0)), lastSeq: sqlite3_column_int64(stmt, 1), shippedSeq: sqlite3_column_int64(stmt, 2))
    }

    /// Up to `limit` waiting records after `seq`, oldest first.
    public func waiting(after seq: Int64 = 0, limit: Int) throws(StorageError) -> [OutboxRecord] {
        guard hasOutbox else { return [] }
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, """
            SELECT seq, site, plugin, plugin_version, topic, key, body, sha256, published_at FROM main.\(outboxTable)
            WHERE seq > ? ORDER BY seq LIMIT ?
            """, -1, &stmt, nil) == SQLITE_OK
        else { throw failure("cannot read the outbox") }
        sqlite3_bind_int64(stmt, 1, seq)
        sqlite3_bind_int64(stmt, 2, Int64(limit))
        var records: [OutboxRecord] = []
        func text(_ i: Int32) -> String { sqlite3_column_text(stmt, i).map { String(cString: $0) } ?? "" }
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw failure("cannot read the outbox") }
            let count = Int(sqlite3_column_bytes(stmt, 6))
            let body = sqlite3_column_blob(stmt, 6).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            records.append(OutboxRecord(seq: sqlite3_column_int64(stmt, 0), site: text(1), plugin: text(2), pluginVersion: text(3),
                                        topic: text(4), key: text(5), body: body, sha256: text(7), publishedAt: text(8)))
        }
        return records
    }

    /// Up to `limit` waiting records after `seq`, oldest first, appended to `out` as rows of COPY text
    /// (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at; the body's
    /// column is its canonical text again), straight from SQLite's column buffers: no record, string or
    /// array per row (the push's fast path, FederationPush). Nil when nothing waits after `seq`.
    public func copyRows(after seq: Int64, limit: Int, siteID: String, into out: inout [UInt8]) throws(StorageError)
        -> (first: Int64, last: Int64, count: Int)?
    {
        guard hasOutbox else { return nil }
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, """
            SELECT seq, plugin, plugin_version, topic, key, body, sha256, published_at FROM main.\(outboxTable)
            WHERE seq > ? ORDER BY seq LIMIT ?
            """, -1, &stmt, nil) == SQLITE_OK
        else { throw failure("cannot read the outbox") }
        sqlite3_bind_int64(stmt, 1, seq)
        sqlite3_bind_int64(stmt, 2, Int64(limit))
        var site: [UInt8] = []
        CopyText.field(Array(siteID.utf8), &site)
        func column(_ i: Int32, last: Bool = false) {
            let count = Int(sqlite3_column_bytes(stmt, i))
            let pointer = i == 5 ? sqlite3_column_blob(stmt, i).map { UnsafeRawPointer($0) } : sqlite3_column_text(stmt, i).map { UnsafeRawPointer($0) }
            let bytes = UnsafeBufferPointer(start: pointer?.assumingMemoryBound(to: UInt8.self), count: pointer == nil ? 0 : count)
            CopyText.field(bytes, &out, last: last)
        }
        var first: Int64 = 0, lastSeq: Int64 = 0, count = 0
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw failure("cannot read the outbox") }
            let n = sqlite3_column_int64(stmt, 0)
            if count == 0 { first = n }
            lastSeq = n
            count += 1
            out += site
            column(1); column(2); column(3); column(4)
            out += String(n).utf8
            out.append(0x09)
            column(5); column(5); column(6); column(7, last: true)
        }
        return count == 0 ? nil : (first, lastSeq, count)
    }

    /// Marks every record up to `seq` shipped and removes it (one transaction: one UPDATE, one DELETE of the
    /// range on the rowid, `seq` being the table's INTEGER PRIMARY KEY).
    public func markShipped(through seq: Int64) throws(StorageError) {
        guard hasOutbox, let db else { return }
        try PluginDatabase.writeTransaction(on: db, failure: { _, _ in failure("cannot mark records shipped") }) { () throws(StorageError) in
            guard sqlite3_exec(db, """
                UPDATE main.\(outboxStateTable) SET shipped_seq = max(shipped_seq, \(seq)) WHERE id = 1;
                DELETE FROM main.\(outboxTable) WHERE seq <= \(seq);
                """, nil, nil, nil) == SQLITE_OK
            else { throw failure("cannot mark records shipped") }
        }
    }
}

extension OutboxFile {
    /// Makes a plugin database at `path` whose outbox holds `count` records of `body(i)` (canonicalized
    /// and hashed as publish does) on `topic`: the push benchmark's input (Benchmarks/federation).
    public static func fillForBenchmark(path: String, site: String, plugin: String, topic: String, count: Int,
                                        body: (Int) -> JSONValue) throws(StorageError) {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw StorageError(message: "\(path): cannot create") }
        defer { sqlite3_close(db) }
        for step in Outbox.hostSchema { sqlite3_exec(db, step, nil, nil, nil) }
        sqlite3_exec(db, "BEGIN", nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO \(outboxTable)(seq, site, plugin, plugin_version, topic, key, body, sha256) VALUES (?, ?, ?, '1.0.0', ?, ?, ?, ?)", -1, &insert, nil)
        for i in 1...max(1, count) {
            let bytes = (try? RecordCanonicalForm.bytes(of: body(i))) ?? Array("{}".utf8)
            sqlite3_bind_int64(insert, 1, Int64(i))
            sqlite3_bind_text(insert, 2, site, -1, clubhouse_sqlite_transient())
            sqlite3_bind_text(insert, 3, plugin, -1, clubhouse_sqlite_transient())
            sqlite3_bind_text(insert, 4, topic, -1, clubhouse_sqlite_transient())
            sqlite3_bind_text(insert, 5, "\(topic)/\(i)", -1, clubhouse_sqlite_transient())
            _ = bytes.withUnsafeBytes { sqlite3_bind_blob(insert, 6, $0.baseAddress, Int32($0.count), clubhouse_sqlite_transient()) }
            sqlite3_bind_text(insert, 7, RecordCanonicalForm.sha256(bytes), -1, clubhouse_sqlite_transient())
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        sqlite3_exec(db, "INSERT INTO \(outboxStateTable)(id, last_seq, shipped_seq) VALUES (1, \(count), 0); COMMIT", nil, nil, nil)
    }
}
