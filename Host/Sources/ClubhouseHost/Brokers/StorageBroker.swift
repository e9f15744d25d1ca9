// Storage broker: one SQLite database per site per plugin, fenced in by an authorizer, with
// transactions (nested = savepoints) and per-plugin migrations recorded by the host.

import ClubhousePlatform
import CClubhouse
import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// Opens plugin databases under a data directory: `<data>/<site>/<plugin id>.sqlite`.
public final class StorageBroker: @unchecked Sendable {
    public let dataDirectory: String

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    public func databasePath(site: String, pluginID: String) -> String {
        "\(dataDirectory)/\(site)/\(pluginID).sqlite"
    }

    /// Opens (creating on first use) the database of one plugin at one site.
    public func open(site: String, pluginID: String, owner: String) throws(StorageError) -> PluginDatabase {
        let path = databasePath(site: site, pluginID: pluginID)
        do {
            try FileSystem.createDirectory(FileSystem.directoryName(path))
        } catch {
            throw StorageError(message: "cannot create the data directory: \(error); set --data-dir or CLUBHOUSE_DATA_DIR to a writable place")
        }
        return try PluginDatabase(path: path, owner: owner)
    }
}

public struct StorageError: Error, Sendable, CustomStringConvertible {
    public var status: Int32 = Int32(CLUBHOUSE_ERROR)
    public var message: String
    public var description: String { message }
}

/// The table the host keeps in every plugin database (plugins may read it, never write it).
let migrationsTable = "_clubhouse_migrations"

/// One plugin's connection. Used from one thread at a time (the instance's calls are serialized,
/// or the plugin declared itself thread-safe and SQLite's serialized mode protects the handle).
public final class PluginDatabase: @unchecked Sendable {
    public let path: String
    let owner: String
    let db: OpaquePointer
    /// True while the host itself writes its own tables (the authorizer lets it through).
    var hostWriting = false
    /// Open begin() calls; above 1 they are savepoints.
    var transactionDepth = 0
    /// The last failure message, as a C string the plugin may read until the next call.
    private var lastErrorStorage: [CChar] = [0]
    /// Set when the authorizer refused something in the statement being compiled.
    var authorizerDenied = false
    /// Statements still open (finalized at close if the plugin forgot).
    var openStatements = Set<UnsafeMutableRawPointer>()

    init(path: String, owner: String) throws(StorageError) {
        self.path = path
        self.owner = owner
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw StorageError(message: "\(path): cannot open the database: \(message)")
        }
        db = handle
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        guard clubhouse_sqlite_harden(db) == SQLITE_OK else {
            sqlite3_close_v2(db)
            throw StorageError(message: "\(path): cannot configure the database")
        }
        // The authorizer is installed after the host's own set-up statements.
        do {
            try execInternal("PRAGMA journal_mode=WAL")
            try execInternal("PRAGMA foreign_keys=ON")
            try execInternal("PRAGMA synchronous=NORMAL")
            try execInternal("""
                CREATE TABLE IF NOT EXISTS \(migrationsTable) (
                    version INTEGER PRIMARY KEY, name TEXT NOT NULL,
                    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))
                """)
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
        sqlite3_set_authorizer(db, { userData, action, arg1, arg2, _, _ in
            guard let userData else { return SQLITE_DENY }
            let database = Unmanaged<PluginDatabase>.fromOpaque(userData).takeUnretainedValue()
            return database.authorize(action: action, arg1: arg1, arg2: arg2)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { close() }

    private var closed = false

    public func close() {
        guard !closed else { return }
        closed = true
        for statement in openStatements {
            let record = statement.assumingMemoryBound(to: StatementRecord.self)
            sqlite3_finalize(record.pointee.stmt)
            record.deallocate()
        }
        openStatements.removeAll()
        if sqlite3_get_autocommit(db) == 0 { sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
        sqlite3_close_v2(db)
    }

    // MARK: authorizer

    /// Pragmas a plugin may run: introspection and checks only.
    static let allowedPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
        "foreign_key_check", "integrity_check", "quick_check", "user_version", "schema_version", "data_version",
        "page_count", "page_size", "freelist_count", "optimize", "foreign_keys", "journal_mode",
    ]

    func authorize(action: Int32, arg1: UnsafePointer<CChar>?, arg2: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_ATTACH, SQLITE_DETACH:
            return deny("ATTACH and DETACH are not allowed: a plugin reaches only its own database")
        case SQLITE_FUNCTION:
            if let name = arg2.map({ String(cString: $0).lowercased() }), name == "load_extension" {
                return deny("load_extension() is not allowed for plugins")
            }
            return SQLITE_OK
        case SQLITE_PRAGMA:
            let name = arg1.map { String(cString: $0).lowercased() } ?? ""
            let hasArgument = arg2 != nil
            guard PluginDatabase.allowedPragmas.contains(name) else {
                return deny("PRAGMA \(name) is not allowed for plugins (the host manages the connection)")
            }
            // Reading these is fine; changing them is the host's job.
            if hasArgument && ["foreign_keys", "journal_mode", "user_version", "schema_version"].contains(name) && !hostWriting {
                return deny("PRAGMA \(name) cannot be changed by a plugin (the host sets it)")
            }
            return SQLITE_OK
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE, SQLITE_DROP_TABLE, SQLITE_ALTER_TABLE, SQLITE_CREATE_INDEX,
             SQLITE_DROP_INDEX, SQLITE_CREATE_TRIGGER, SQLITE_DROP_TRIGGER:
            // arg1 is the table (arg2 for index/trigger actions names the table too).
            let table = (action == SQLITE_CREATE_INDEX || action == SQLITE_DROP_INDEX || action == SQLITE_CREATE_TRIGGER
                || action == SQLITE_DROP_TRIGGER) ? arg2 : arg1
            if !hostWriting, let table, String(cString: table).lowercased().hasPrefix("_clubhouse") {
                return deny("table \(String(cString: table)) belongs to the host; plugins may read it but not change it")
            }
            return SQLITE_OK
        default:
            return SQLITE_OK
        }
    }

    // MARK: errors

    func deny(_ message: String) -> Int32 {
        authorizerDenied = true
        setError(message)
        return SQLITE_DENY
    }

    func setError(_ message: String) {
        lastErrorStorage = Array(message.utf8CString)
    }

    var lastErrorPointer: UnsafePointer<CChar> {
        lastErrorStorage.withUnsafeBufferPointer { UnsafePointer($0.baseAddress!) }
    }

    public var lastError: String { String(cString: lastErrorPointer) }

    /// Records SQLite's message (keeping an authorizer message that explains a denial better).
    func recordFailure(_ rc: Int32) -> Int32 {
        let sqliteMessage = String(cString: sqlite3_errmsg(db))
        if authorizerDenied {
            authorizerDenied = false
            return Int32(CLUBHOUSE_DENIED)
        }
        setError(sqliteMessage)
        return PluginDatabase.status(for: rc)
    }

    static func status(for rc: Int32) -> Int32 {
        switch rc & 0xFF {
        case SQLITE_OK: return Int32(CLUBHOUSE_OK)
        case SQLITE_ROW: return Int32(CLUBHOUSE_ROW)
        case SQLITE_DONE: return Int32(CLUBHOUSE_DONE)
        case SQLITE_CONSTRAINT: return Int32(CLUBHOUSE_CONSTRAINT)
        case SQLITE_AUTH, SQLITE_PERM, SQLITE_READONLY: return Int32(CLUBHOUSE_DENIED)
        case SQLITE_BUSY, SQLITE_LOCKED: return Int32(CLUBHOUSE_BUSY)
        case SQLITE_RANGE, SQLITE_MISUSE: return Int32(CLUBHOUSE_INVALID_ARGUMENT)
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN: return Int32(CLUBHOUSE_IO)
        default: return Int32(CLUBHOUSE_ERROR)
        }
    }

    // MARK: operations

    func execInternal(_ sql: String) throws(StorageError) {
        hostWriting = true
        defer { hostWriting = false }
        let status = exec(sql)
        if status != Int32(CLUBHOUSE_OK) { throw StorageError(status: status, message: lastError) }
    }

    /// Runs SQL without results. Returns a clubhouse status; the message is in `lastError`.
    func exec(_ sql: String) -> Int32 {
        lastErrorStorage = [0]
        authorizerDenied = false
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if rc == SQLITE_OK { return Int32(CLUBHOUSE_OK) }
        let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
        sqlite3_free(errorMessage)
        if authorizerDenied {
            authorizerDenied = false
            return Int32(CLUBHOUSE_DENIED)
        }
        setError(message)
        return PluginDatabase.status(for: rc)
    }

    func prepare(_ sql: UnsafePointer<CChar>) -> (Int32, UnsafeMutablePointer<StatementRecord>?) {
        lastErrorStorage = [0]
        authorizerDenied = false
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK else { return (recordFailure(rc), nil) }
        guard let stmt else {
            setError("no SQL statement in the text")
            return (Int32(CLUBHOUSE_INVALID_ARGUMENT), nil)
        }
        let record = UnsafeMutablePointer<StatementRecord>.allocate(capacity: 1)
        record.initialize(to: StatementRecord(stmt: stmt, database: Unmanaged.passUnretained(self).toOpaque()))
        openStatements.insert(UnsafeMutableRawPointer(record))
        return (Int32(CLUBHOUSE_OK), record)
    }

    func finalize(_ record: UnsafeMutablePointer<StatementRecord>) {
        guard openStatements.remove(UnsafeMutableRawPointer(record)) != nil else { return }
        sqlite3_finalize(record.pointee.stmt)
        record.deinitialize(count: 1)
        record.deallocate()
    }

    func begin() -> Int32 {
        let status = transactionDepth == 0 ? exec("BEGIN IMMEDIATE") : exec("SAVEPOINT clubhouse_\(transactionDepth)")
        if status == Int32(CLUBHOUSE_OK) { transactionDepth += 1 }
        return status
    }

    func commit() -> Int32 {
        guard transactionDepth > 0 else {
            setError("commit without begin")
            return Int32(CLUBHOUSE_INVALID_ARGUMENT)
        }
        let status = transactionDepth == 1 ? exec("COMMIT") : exec("RELEASE clubhouse_\(transactionDepth - 1)")
        if status == Int32(CLUBHOUSE_OK) { transactionDepth -= 1 }
        return status
    }

    func rollback() -> Int32 {
        guard transactionDepth > 0 else {
            setError("rollback without begin")
            return Int32(CLUBHOUSE_INVALID_ARGUMENT)
        }
        let status: Int32
        if transactionDepth == 1 {
            status = sqlite3_get_autocommit(db) == 0 ? exec("ROLLBACK") : Int32(CLUBHOUSE_OK)
        } else {
            status = exec("ROLLBACK TO clubhouse_\(transactionDepth - 1); RELEASE clubhouse_\(transactionDepth - 1)")
        }
        transactionDepth -= 1
        return status
    }

    /// Rolls back whatever a call left open. Returns true when something was open.
    @discardableResult
    func rollbackAbandoned() -> Bool {
        guard sqlite3_get_autocommit(db) == 0 || transactionDepth > 0 else { return false }
        if sqlite3_get_autocommit(db) == 0 { sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
        transactionDepth = 0
        return true
    }

    /// Applies migration `version` unless recorded; see storage.h.
    func migrate(version: Int32, name: String, sql: String) -> Int32 {
        lastErrorStorage = [0]
        var recorded: [(Int32, String)] = []
        var stmt: OpaquePointer?
        if sqlite3_prepare_v2(db, "SELECT version, name FROM \(migrationsTable) ORDER BY version", -1, &stmt, nil) == SQLITE_OK {
            while sqlite3_step(stmt) == SQLITE_ROW {
                recorded.append((sqlite3_column_int(stmt, 0), String(cString: sqlite3_column_text(stmt, 1))))
            }
        }
        sqlite3_finalize(stmt)
        if let existing = recorded.first(where: { $0.0 == version }) {
            if existing.1 == name { return Int32(CLUBHOUSE_OK) }
            setError("migration \(version) is recorded as '\(existing.1)' in \(path) but the plugin calls it '\(name)'; the database was made by a different build of plugin '\(owner)'")
            return Int32(CLUBHOUSE_ERROR)
        }
        let latest = recorded.last?.0 ?? 0
        guard version == latest + 1 else {
            setError("migration \(version) ('\(name)') cannot follow \(latest == 0 ? "an empty history" : "migration \(latest)"); versions go 1, 2, 3, … without gaps")
            return Int32(CLUBHOUSE_INVALID_ARGUMENT)
        }
        var status = begin()
        guard status == Int32(CLUBHOUSE_OK) else { return status }
        status = exec(sql)
        if status == Int32(CLUBHOUSE_OK) {
            hostWriting = true
            var insert: OpaquePointer?
            sqlite3_prepare_v2(db, "INSERT INTO \(migrationsTable)(version, name) VALUES (?, ?)", -1, &insert, nil)
            sqlite3_bind_int(insert, 1, version)
            sqlite3_bind_text(insert, 2, name, -1, clubhouse_sqlite_transient())
            let rc = sqlite3_step(insert)
            sqlite3_finalize(insert)
            hostWriting = false
            if rc != SQLITE_DONE { status = recordFailure(rc) }
        } else {
            setError("migration \(version) ('\(name)') of plugin '\(owner)' failed: \(lastError)")
        }
        if status == Int32(CLUBHOUSE_OK) {
            status = commit()
        } else {
            let message = lastError
            _ = rollback()
            setError(message)
        }
        return status
    }
}

/// What a `clubhouse_stmt *` points to.
struct StatementRecord {
    var stmt: OpaquePointer
    var database: UnsafeMutableRawPointer

    var owner: PluginDatabase { Unmanaged<PluginDatabase>.fromOpaque(database).takeUnretainedValue() }
}
