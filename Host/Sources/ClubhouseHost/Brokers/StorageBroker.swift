// Storage broker: one SQLite database per site per plugin, fenced in by an authorizer, with
// transactions (nested = savepoints) and per-plugin migrations recorded by the host.
// One implementation (`StorageService` over `PluginDatabase`, `StorageStatement`), reached two
// ways: the C table an in-process plugin gets, and the wire face that answers an isolated plugin's
// runner. Both are thin: pointers or wire fields in, the Swift API, a status (and message) out.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
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

    /// Opens (creating on first use) the database of one plugin at one site. The data directory
    /// may be reached through symbolic links (it is resolved first); the database file itself must
    /// not be one. `pluginVersion`, when given, is checked against the newest version of the
    /// plugin that wrote the database (a newer one is refused) and recorded.
    public func open(site: String, pluginID: String, owner: String, pluginVersion: String? = nil) throws(StorageError)
        -> PluginDatabase
    {
        let path = databasePath(site: site, pluginID: pluginID)
        let folder = FileSystem.directoryName(path)
        do {
            try FileSystem.createDirectory(folder)
        } catch {
            throw StorageError(message: "cannot create the data directory: \(error); set --data-dir or CLUBHOUSE_DATA_DIR to a writable place")
        }
        guard let resolvedFolder = FileSystem.realPath(folder) else {
            throw StorageError(status: Int32(CLUBHOUSE_IO),
                               message: "\(path): cannot resolve the data directory \(folder): \(String(cString: strerror(errno)))")
        }
        let resolved = "\(resolvedFolder)/\(FileSystem.baseName(path))"
        var st = stat()
        if lstat(resolved, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFLNK {
                throw StorageError(status: Int32(CLUBHOUSE_DENIED),
                                   message: "\(path) is a symbolic link; the host opens a plugin database only as a regular file (replace the link with the file it points to)")
            }
            if (st.st_mode & S_IFMT) != S_IFREG {
                throw StorageError(status: Int32(CLUBHOUSE_IO), message: "\(path) is not a regular file; move it away so the host can create the database")
            }
        }
        return try PluginDatabase(path: path, resolvedPath: resolved, owner: owner, pluginVersion: pluginVersion)
    }
}

public struct StorageError: Error, Sendable, CustomStringConvertible {
    public var status: Int32 = Int32(CLUBHOUSE_ERROR)
    public var message: String
    public var description: String { message }
}

/// The table the host keeps in every plugin database (plugins may read it, never write it).
let migrationsTable = "_clubhouse_migrations"
/// The host's record of the newest plugin version that opened the database for writing.
let pluginVersionTable = "_clubhouse_plugin_version"

/// One plugin's connection. SQLite's serialized mode protects the handle; calls of a plugin that
/// is not thread-safe are serialized by its instance. A thread-safe plugin's concurrent calls share
/// this connection, and so share one transaction: the host rolls back a transaction at the end of
/// the call that opened it (see `rollbackAbandoned(by:)`).
public final class PluginDatabase: @unchecked Sendable {
    /// The path as configured (what messages name).
    public let path: String
    let owner: String
    let db: OpaquePointer
    /// True when the data directory or the file is not writable: reads are served, writes refused.
    public let readOnly: Bool
    /// True while the host itself writes its own tables (the authorizer lets it through).
    var hostWriting = false
    /// Open begin() calls; above 1 they are savepoints.
    var transactionDepth = 0
    /// The call that opened the outermost transaction (0: none, or opened outside any call).
    var transactionOwner: UInt64 = 0
    /// The last failure message, as a C string the plugin may read until the next call.
    private var lastErrorStorage: [CChar] = [0]
    /// Set when the authorizer refused something in the statement being compiled.
    var authorizerDenied = false
    /// Statements still open (finalized at close if the plugin forgot).
    var openStatements = Set<UnsafeMutableRawPointer>()
    /// Set when this open moved the database to a newer plugin version (its backup was made first).
    public internal(set) var upgrade: DatabaseUpgrade?
    /// Set when a migration failed on this connection (an upgrade's backup is then restored).
    public internal(set) var migrationFailed = false

    /// The host's own tables, one step per schema change, applied in order with IF NOT EXISTS (a
    /// database made by an older host gets the steps it lacks; never edit a step, append one).
    static let hostSchema: [String] = [
        """
        CREATE TABLE IF NOT EXISTS main.\(migrationsTable) (
            version INTEGER PRIMARY KEY, name TEXT NOT NULL,
            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))
        """,
        """
        CREATE TABLE IF NOT EXISTS main.\(pluginVersionTable) (
            id INTEGER PRIMARY KEY CHECK (id = 1), version TEXT NOT NULL,
            recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))
        """,
    ]

    /// Functions that reach outside the database or take raw pointers: refused by the authorizer
    /// whatever SQLite was built with.
    static let deniedFunctions: Set<String> = [
        "load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "fsdir", "zipfile", "lsmode",
        "rtreenode", "rtreedepth",
    ]

    convenience init(path: String, owner: String) throws(StorageError) {
        try self.init(path: path, resolvedPath: path, owner: owner, pluginVersion: nil)
    }

    init(path: String, resolvedPath: String, owner: String, pluginVersion: String?) throws(StorageError) {
        self.path = path
        self.owner = owner
        let folder = FileSystem.directoryName(resolvedPath)
        let exists = FileSystem.exists(resolvedPath)
        if !exists && access(folder, W_OK) != 0 {
            throw StorageError(status: Int32(CLUBHOUSE_IO),
                               message: "\(path): cannot create the database: the data directory \(FileSystem.directoryName(path)) is not writable (\(String(cString: strerror(errno)))); set --data-dir or CLUBHOUSE_DATA_DIR to a writable place")
        }
        readOnly = exists && (access(resolvedPath, W_OK) != 0 || access(folder, W_OK) != 0)
        var handle: OpaquePointer?
        var flags = SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        var name = resolvedPath
        if readOnly {
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            // In a read-only folder SQLite cannot create the -shm a WAL reader needs; when no -wal is
            // in use no one is writing through one, so the file is read as immutable.
            let walInUse = (FileSystem.signature(resolvedPath + "-wal")?.size ?? 0) > 0
            let immutable = access(folder, W_OK) != 0 && !walInUse
            name = "file:" + PluginDatabase.uriEscaped(resolvedPath) + (immutable ? "?immutable=1" : "")
        } else {
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        let rc = sqlite3_open_v2(name, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw StorageError(status: PluginDatabase.status(for: rc), message: "\(path): cannot open the database: \(message)")
        }
        db = handle
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        guard clubhouse_sqlite_harden(db) == SQLITE_OK else {
            sqlite3_close_v2(db)
            throw StorageError(message: "\(path): cannot configure the database")
        }
        // Every 1000 virtual-machine steps: stop the statement if its call ran past its deadline, or
        // was cancelled and has not seen it or used up its grace for cleaning up
        // (`CallContext.interruptsStatements`: one thread-local read and atomic loads).
        sqlite3_progress_handler(db, 1000, { _ in
            guard let call = CallContext.current else { return 0 }
            return call.interruptsStatements ? 1 : 0
        }, nil)
        // The authorizer is installed after the host's own set-up statements.
        do {
            if readOnly {
                try execInternal("PRAGMA foreign_keys=ON")
            } else {
                try execSettingUp("PRAGMA journal_mode=WAL")
                try execInternal("PRAGMA foreign_keys=ON")
                try execInternal("PRAGMA synchronous=NORMAL")
                for step in PluginDatabase.hostSchema { try execSettingUp(step) }
            }
            if let pluginVersion { try checkWriter(pluginVersion) }
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

    /// `path` for a `file:` URI (SQLite decodes %HH).
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80 && (c.isLetter || c.isNumber || "/-._~".contains(c)) {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The version of the plugin that last wrote the database: newer than `version` is refused;
    /// older (or none) is replaced by `version` (not in a read-only directory).
    func checkWriter(_ version: String) throws(StorageError) {
        guard let mine = SemanticVersion(version) else { return }
        var recorded: String?
        var stmt: OpaquePointer?
        if sqlite3_prepare_v2(db, "SELECT version FROM main.\(pluginVersionTable) WHERE id = 1", -1, &stmt, nil) == SQLITE_OK,
           sqlite3_step(stmt) == SQLITE_ROW, let text = sqlite3_column_text(stmt, 0)
        {
            recorded = String(cString: text)
        }
        sqlite3_finalize(stmt)
        if let recorded, let theirs = SemanticVersion(recorded) {
            if theirs > mine {
                throw StorageError(status: Int32(CLUBHOUSE_UNSUPPORTED),
                                   message: "\(path) was written by version \(recorded) of plugin '\(owner)', newer than this version \(version); install \(recorded) or later, or use another data dir")
            }
            if theirs == mine { return }
        }
        guard !readOnly else { return }
        // An upgrade: the database as the older version left it is kept before anything changes.
        if let recorded, SemanticVersion(recorded) != nil {
            if let failure = DatabaseBackups.vacuumInto(db, database: path, version: recorded) {
                throw StorageError(message: "\(path): cannot back up the database before upgrading plugin '\(owner)' from \(recorded) to \(version) (\(failure)); the upgrade did not start")
            }
            upgrade = DatabaseUpgrade(from: recorded, to: version, backup: DatabaseBackups.file(database: path, version: recorded))
        }
        // Under the write lock, so two hosts starting side by side agree.
        try execInternal("BEGIN IMMEDIATE")
        var current: String?
        if sqlite3_prepare_v2(db, "SELECT version FROM main.\(pluginVersionTable) WHERE id = 1", -1, &stmt, nil) == SQLITE_OK,
           sqlite3_step(stmt) == SQLITE_ROW, let text = sqlite3_column_text(stmt, 0)
        {
            current = String(cString: text)
        }
        sqlite3_finalize(stmt)
        if let current, let theirs = SemanticVersion(current), theirs > mine {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw StorageError(status: Int32(CLUBHOUSE_UNSUPPORTED),
                               message: "\(path) was written by version \(current) of plugin '\(owner)', newer than this version \(version); install \(current) or later, or use another data dir")
        }
        hostWriting = true
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, """
            INSERT INTO main.\(pluginVersionTable)(id, version) VALUES (1, ?)
            ON CONFLICT(id) DO UPDATE SET version = excluded.version, recorded_at = excluded.recorded_at
            """, -1, &insert, nil)
        sqlite3_bind_text(insert, 1, version, -1, clubhouse_sqlite_transient())
        let rc = sqlite3_step(insert)
        sqlite3_finalize(insert)
        hostWriting = false
        guard rc == SQLITE_DONE else {
            let (_, message) = describe(rc, String(cString: sqlite3_errmsg(db)))
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw StorageError(status: PluginDatabase.status(for: rc), message: message)
        }
        try execInternal("COMMIT")
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

    @inline(__always)
    static func isHostName(_ name: UnsafePointer<CChar>?) -> Bool {
        guard let name else { return false }
        // "_clubhouse", compared without building a String (the authorizer runs on every prepare).
        let prefix: [UInt8] = [0x5F, 0x63, 0x6C, 0x75, 0x62, 0x68, 0x6F, 0x75, 0x73, 0x65]
        for (i, expected) in prefix.enumerated() {
            let c = UInt8(bitPattern: name[i])
            if c == 0 { return false }
            let lower = c >= 0x41 && c <= 0x5A ? c + 0x20 : c
            if lower != expected { return false }
        }
        return true
    }

    func authorize(action: Int32, arg1: UnsafePointer<CChar>?, arg2: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_READ, SQLITE_SELECT:
            return SQLITE_OK
        case SQLITE_ATTACH, SQLITE_DETACH:
            return deny("ATTACH and DETACH are not allowed: a plugin reaches only its own database")
        case SQLITE_FUNCTION:
            if let arg2, let name = Optional(String(cString: arg2).lowercased()), PluginDatabase.deniedFunctions.contains(name) {
                return deny("\(name)() is not allowed for plugins: it reaches outside the database")
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
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
            if !hostWriting && PluginDatabase.isHostName(arg1) {
                return deny("table \(String(cString: arg1!)) belongs to the host; plugins may read it but not change it")
            }
            return SQLITE_OK
        case SQLITE_ALTER_TABLE:
            // arg1 is the database ("main"), arg2 the table.
            if !hostWriting && PluginDatabase.isHostName(arg2) {
                return deny("table \(String(cString: arg2!)) belongs to the host; plugins may not alter it")
            }
            return SQLITE_OK
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
             SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
             SQLITE_CREATE_VTABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE,
             SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW, SQLITE_DROP_VTABLE:
            // arg1 names the object; arg2 the table an index or trigger is on (or a vtable's module).
            guard !hostWriting else { return SQLITE_OK }
            for name in [arg1, arg2] where PluginDatabase.isHostName(name) {
                return deny("names starting with _clubhouse belong to the host; plugins may not create, drop or hook \(String(cString: name!))")
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
        if authorizerDenied {
            authorizerDenied = false
            return Int32(CLUBHOUSE_DENIED)
        }
        let (status, message) = describe(rc, String(cString: sqlite3_errmsg(db)))
        setError(message)
        return status
    }

    /// A failure's status and message: an interrupted statement says why (cancelled, deadline);
    /// a failure of the file itself (read-only, I/O, full, corrupt, locked) names the file.
    func describe(_ rc: Int32, _ sqliteMessage: String) -> (Int32, String) {
        switch rc & 0xFF {
        case SQLITE_INTERRUPT:
            let reason = CallContext.current?.stopReason
                ?? (Int32(CLUBHOUSE_CANCELLED), "the host stopped it")
            return (reason.status, "the statement was interrupted: \(reason.why)")
        case SQLITE_READONLY:
            let hint = readOnly ? " (the data directory or the file is read-only: reads work, writes need write access)" : ""
            return (Int32(CLUBHOUSE_DENIED), "\(path): \(sqliteMessage)\(hint)")
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_PERM, SQLITE_BUSY,
             SQLITE_LOCKED:
            return (PluginDatabase.status(for: rc), "\(path): \(sqliteMessage)")
        default:
            return (PluginDatabase.status(for: rc), sqliteMessage)
        }
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
        case SQLITE_INTERRUPT: return Int32(CLUBHOUSE_CANCELLED)
        default: return Int32(CLUBHOUSE_ERROR)
        }
    }

    // MARK: operations

    /// A set-up statement of a database other processes may be opening at the same moment (first
    /// use of a fresh data dir): SQLite answers some of these — switching a new file to WAL, above
    /// all — with SQLITE_BUSY at once, without waiting through the busy handler. Retried for up to
    /// 5 s, like the busy timeout.
    func execSettingUp(_ sql: String) throws(StorageError) {
        var waited = 0
        while true {
            do {
                return try execInternal(sql)
            } catch {
                guard error.status == Int32(CLUBHOUSE_BUSY), waited < 5_000 else { throw error }
                let pause = 5 + Int(UInt32.random(in: 0..<10))
                usleep(UInt32(pause * 1_000))
                waited += pause
            }
        }
    }

    func execInternal(_ sql: String) throws(StorageError) {
        hostWriting = true
        defer { hostWriting = false }
        let status = exec(sql)
        if status != Int32(CLUBHOUSE_OK) {
            let message = lastError
            throw StorageError(status: status, message: message.hasPrefix(path) ? message : "\(path): \(message)")
        }
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
        let (status, described) = describe(rc, message)
        setError(described)
        return status
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

    /// Runs `body` holding the connection's own (recursive) mutex, so the transaction bookkeeping
    /// of concurrent calls of a thread-safe plugin stays consistent with SQLite's state.
    @inline(__always)
    func serialized<R>(_ body: () -> R) -> R {
        let mutex = sqlite3_db_mutex(db)
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        return body()
    }

    func begin() -> Int32 {
        serialized {
            let status = transactionDepth == 0 ? exec("BEGIN IMMEDIATE") : exec("SAVEPOINT clubhouse_\(transactionDepth)")
            if status == Int32(CLUBHOUSE_OK) {
                if transactionDepth == 0 { transactionOwner = CallContext.current?.id ?? 0 }
                transactionDepth += 1
            }
            return status
        }
    }

    func commit() -> Int32 {
        serialized {
            guard transactionDepth > 0 else {
                setError("commit without begin")
                return Int32(CLUBHOUSE_INVALID_ARGUMENT)
            }
            let status = transactionDepth == 1 ? exec("COMMIT") : exec("RELEASE clubhouse_\(transactionDepth - 1)")
            if status == Int32(CLUBHOUSE_OK) { transactionDepth -= 1 }
            if transactionDepth == 0 { transactionOwner = 0 }
            return status
        }
    }

    func rollback() -> Int32 {
        serialized {
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
            if transactionDepth == 0 { transactionOwner = 0 }
            return status
        }
    }

    /// Rolls back whatever a call left open. Returns true when something was open.
    @discardableResult
    func rollbackAbandoned() -> Bool {
        serialized {
            guard sqlite3_get_autocommit(db) == 0 || transactionDepth > 0 else { return false }
            if sqlite3_get_autocommit(db) == 0 { sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
            transactionDepth = 0
            transactionOwner = 0
            return true
        }
    }

    /// At the end of call `id` of a thread-safe plugin: rolls back the transaction if that call
    /// opened it (or it was opened outside any call). A transaction another running call opened is
    /// left to that call's end. Returns true when something was rolled back.
    func rollbackAbandoned(by id: UInt64) -> Bool {
        serialized {
            guard sqlite3_get_autocommit(db) == 0 || transactionDepth > 0 else { return false }
            guard transactionOwner == id || transactionOwner == 0 else { return false }
            return rollbackAbandoned()
        }
    }

    /// Applies migration `version` unless recorded; see storage.h. The write lock is taken before
    /// the history is read, so hosts starting side by side on a fresh data dir never both apply it.
    func migrate(version: Int32, name: String, sql: String) -> Int32 {
        let status = applyMigration(version: version, name: name, sql: sql)
        if status != Int32(CLUBHOUSE_OK) { migrationFailed = true }
        return status
    }

    private func applyMigration(version: Int32, name: String, sql: String) -> Int32 {
        lastErrorStorage = [0]
        if readOnly {
            // Nothing can be applied; an already-recorded migration is fine.
            let recorded = migrationHistory()
            if let existing = recorded.first(where: { $0.0 == version }), existing.1 == name { return Int32(CLUBHOUSE_OK) }
            setError("\(path): migration \(version) ('\(name)') of plugin '\(owner)' cannot be applied: the data directory or the file is read-only")
            return Int32(CLUBHOUSE_DENIED)
        }
        return serialized { () -> Int32 in
            var status = begin()
            guard status == Int32(CLUBHOUSE_OK) else { return status }
            func abandon(_ status: Int32) -> Int32 {
                let message = lastError
                _ = rollback()
                setError(message)
                return status
            }
            let recorded = migrationHistory()
            if let existing = recorded.first(where: { $0.0 == version }) {
                if existing.1 == name { return commit() }
                setError("migration \(version) is recorded as '\(existing.1)' in \(path) but the plugin calls it '\(name)'; the database was made by a different build of plugin '\(owner)'")
                return abandon(Int32(CLUBHOUSE_ERROR))
            }
            let latest = recorded.last?.0 ?? 0
            guard version == latest + 1 else {
                setError("migration \(version) ('\(name)') cannot follow \(latest == 0 ? "an empty history" : "migration \(latest)"); versions go 1, 2, 3, … without gaps")
                return abandon(Int32(CLUBHOUSE_INVALID_ARGUMENT))
            }
            status = exec(sql)
            if status == Int32(CLUBHOUSE_OK) {
                hostWriting = true
                var insert: OpaquePointer?
                sqlite3_prepare_v2(db, "INSERT INTO main.\(migrationsTable)(version, name) VALUES (?, ?)", -1, &insert, nil)
                sqlite3_bind_int(insert, 1, version)
                sqlite3_bind_text(insert, 2, name, -1, clubhouse_sqlite_transient())
                let rc = sqlite3_step(insert)
                sqlite3_finalize(insert)
                hostWriting = false
                if rc != SQLITE_DONE { status = recordFailure(rc) }
            } else {
                setError("migration \(version) ('\(name)') of plugin '\(owner)' failed: \(lastError)")
            }
            return status == Int32(CLUBHOUSE_OK) ? commit() : abandon(status)
        }
    }

    /// (version, name) of the recorded migrations, in order.
    func migrationHistory() -> [(Int32, String)] {
        var recorded: [(Int32, String)] = []
        var stmt: OpaquePointer?
        if sqlite3_prepare_v2(db, "SELECT version, name FROM main.\(migrationsTable) ORDER BY version", -1, &stmt, nil) == SQLITE_OK {
            while sqlite3_step(stmt) == SQLITE_ROW {
                let name = sqlite3_column_text(stmt, 1).map { String(cString: $0) } ?? ""
                recorded.append((sqlite3_column_int(stmt, 0), name))
            }
        }
        sqlite3_finalize(stmt)
        return recorded
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// What a `clubhouse_stmt *` points to.
struct StatementRecord {
    var stmt: OpaquePointer
    var database: UnsafeMutableRawPointer

    var owner: PluginDatabase { Unmanaged<PluginDatabase>.fromOpaque(database).takeUnretainedValue() }
}

// MARK: the storage service: one Swift API, two faces

/// A storage operation's result: a clubhouse status and, when it failed, why.
struct StorageOutcome: Equatable, Sendable {
    var status: Int32
    var message: String

    static let ok = StorageOutcome(status: Int32(CLUBHOUSE_OK), message: "")
    var isOK: Bool { status == Int32(CLUBHOUSE_OK) }
}

/// The storage service as one plugin sees it: every operation of the C table an in-process plugin
/// gets and of the service calls an isolated plugin's runner sends is performed here.
struct StorageService {
    enum Source {
        /// A plugin instance: its grant is checked and its database opened on first use.
        case instance(PluginInstance)
        /// An open database (tests, tools).
        case database(PluginDatabase)
    }

    let source: Source

    init(instance: PluginInstance) { source = .instance(instance) }
    init(database: PluginDatabase) { source = .database(database) }

    /// The database when it is open or can be opened (no grant check: for the counters and
    /// last error, which an ungranted plugin never reaches).
    var database: PluginDatabase? {
        switch source {
        case .database(let db): return db
        case .instance(let instance): return instance.openDatabase
        }
    }

    /// Runs `body` on the database, or says why it cannot be reached (storage not granted, the
    /// file cannot be opened). A failed status carries the database's message.
    @inline(__always)
    func withDatabase(_ body: (PluginDatabase) -> Int32) -> StorageOutcome {
        let db: PluginDatabase
        switch source {
        case .database(let d): db = d
        case .instance(let instance):
            guard instance.entry.isGranted(.storage) else {
                return StorageOutcome(status: Int32(CLUBHOUSE_DENIED), message: "storage is not granted to plugin '\(instance.entry.alias)'")
            }
            guard let d = instance.openDatabase else {
                return StorageOutcome(status: Int32(CLUBHOUSE_IO), message: instance.databaseError ?? "the database is not available")
            }
            db = d
        }
        let status = body(db)
        return status == Int32(CLUBHOUSE_OK) ? .ok : StorageOutcome(status: status, message: db.lastError)
    }

    func exec(_ sql: String) -> StorageOutcome { withDatabase { $0.exec(sql) } }

    /// Compiles one statement; the statement lives until `finalize` (or the database closes).
    func prepare(_ sql: UnsafePointer<CChar>) -> (StorageOutcome, StorageStatement?) {
        var statement: StorageStatement?
        let outcome = withDatabase { db in
            let (status, record) = db.prepare(sql)
            statement = record.map(StorageStatement.init)
            return status
        }
        return (outcome, outcome.isOK ? statement : nil)
    }

    func begin() -> StorageOutcome { withDatabase { $0.begin() } }
    func commit() -> StorageOutcome { withDatabase { $0.commit() } }
    func rollback() -> StorageOutcome { withDatabase { $0.rollback() } }
    func migrate(version: Int32, name: String, sql: String) -> StorageOutcome {
        withDatabase { $0.migrate(version: version, name: name, sql: sql) }
    }

    var lastInsertRowID: Int64 { database.map { sqlite3_last_insert_rowid($0.db) } ?? 0 }
    var changes: Int64 { database.map { sqlite3_changes64($0.db) } ?? 0 }
}

/// A prepared statement (what a `clubhouse_stmt *` points to; a runner holds a handle to it).
struct StorageStatement {
    let record: UnsafeMutablePointer<StatementRecord>

    init(_ record: UnsafeMutablePointer<StatementRecord>) { self.record = record }

    /// The statement behind a C handle.
    @inline(__always)
    init?(_ handle: OpaquePointer?) {
        guard let handle else { return nil }
        record = UnsafeMutablePointer<StatementRecord>(handle)
    }

    var handle: OpaquePointer { OpaquePointer(record) }
    var database: PluginDatabase { record.pointee.owner }
    @inline(__always) private var stmt: OpaquePointer { record.pointee.stmt }

    @inline(__always)
    private func bound(_ rc: Int32) -> Int32 {
        rc == SQLITE_OK ? Int32(CLUBHOUSE_OK) : record.pointee.owner.recordFailure(rc)
    }

    func bindNull(_ index: Int32) -> Int32 { bound(sqlite3_bind_null(stmt, index)) }
    func bindInt64(_ index: Int32, _ value: Int64) -> Int32 { bound(sqlite3_bind_int64(stmt, index, value)) }
    func bindDouble(_ index: Int32, _ value: Double) -> Int32 { bound(sqlite3_bind_double(stmt, index, value)) }

    /// Binds UTF-8 text (empty text when `bytes` is empty; NULL is `bindNull`).
    func bindText(_ index: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            return bound(sqlite3_bind_text64(stmt, index, "", 0, clubhouse_sqlite_transient(), UInt8(SQLITE_UTF8)))
        }
        return bound(sqlite3_bind_text64(stmt, index, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
                                         clubhouse_sqlite_transient(), UInt8(SQLITE_UTF8)))
    }

    /// Binds a blob (an empty one when `bytes` is empty).
    func bindBlob(_ index: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return bound(sqlite3_bind_zeroblob(stmt, index, 0)) }
        return bound(sqlite3_bind_blob64(stmt, index, base, sqlite3_uint64(bytes.count), clubhouse_sqlite_transient()))
    }

    /// CLUBHOUSE_ROW, CLUBHOUSE_DONE or a failure (message in the database's last error).
    func step() -> Int32 {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return Int32(CLUBHOUSE_ROW) }
        if rc == SQLITE_DONE { return Int32(CLUBHOUSE_DONE) }
        return record.pointee.owner.recordFailure(rc)
    }

    /// Rewinds the statement and clears its bindings.
    func reset() -> Int32 {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
        return Int32(CLUBHOUSE_OK)
    }

    func finalize() { record.pointee.owner.finalize(record) }

    var columnCount: Int32 { sqlite3_column_count(stmt) }
    /// The 1-based index of the parameter named `name` (with its prefix), 0 when there is none.
    func parameterIndex(_ name: UnsafePointer<CChar>) -> Int32 { sqlite3_bind_parameter_index(stmt, name) }
    var parameterCount: Int32 { sqlite3_bind_parameter_count(stmt) }
    /// The name of parameter `index` with its prefix, nil for "?" or out of range.
    func parameterName(_ index: Int32) -> UnsafePointer<CChar>? { sqlite3_bind_parameter_name(stmt, index) }
    /// The 0-based number of the result column named `name`, -1 when there is none.
    func columnIndex(_ name: UnsafePointer<CChar>) -> Int32 {
        for column in 0..<sqlite3_column_count(stmt) {
            if let candidate = sqlite3_column_name(stmt, column), strcmp(candidate, name) == 0 { return column }
        }
        return -1
    }
    func columnType(_ column: Int32) -> Int32 { sqlite3_column_type(stmt, column) }
    func columnName(_ column: Int32) -> UnsafePointer<CChar>? { sqlite3_column_name(stmt, column) }
    func columnInt64(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }
    func columnDouble(_ column: Int32) -> Double { sqlite3_column_double(stmt, column) }

    /// The column as UTF-8 text (valid until the next step), nil when it is NULL.
    func columnText(_ column: Int32) -> UnsafeBufferPointer<CChar>? {
        guard let text = sqlite3_column_text(stmt, column) else { return nil }
        let count = Int(sqlite3_column_bytes(stmt, column))
        return UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self), count: count)
    }

    /// The column's bytes (valid until the next step; no start for NULL or empty).
    func columnBlob(_ column: Int32) -> UnsafeRawBufferPointer {
        let blob = sqlite3_column_blob(stmt, column)
        return UnsafeRawBufferPointer(start: blob, count: blob == nil ? 0 : Int(sqlite3_column_bytes(stmt, column)))
    }
}

// MARK: the C face

extension StorageBroker {
    static func makeServiceTable() -> clubhouse_storage_service {
        clubhouse_storage_service(
            struct_size: UInt32(MemoryLayout<clubhouse_storage_service>.size),
            exec: { host, sql, reply in
                guard let instance = PluginInstance.from(host), let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageBroker.answer(StorageService(instance: instance).exec(String(cString: sql)), reply)
            },
            prepare: { host, sql, out, reply in
                guard let instance = PluginInstance.from(host), let sql, let out else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (outcome, statement) = StorageService(instance: instance).prepare(sql)
                out.pointee = statement?.handle
                return StorageBroker.answer(outcome, reply)
            },
            bind_null: { stmt, index in StorageStatement(stmt)?.bindNull(index) ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_int64: { stmt, index, value in StorageStatement(stmt)?.bindInt64(index, value) ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_double: { stmt, index, value in StorageStatement(stmt)?.bindDouble(index, value) ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_text: { stmt, index, text, length in
                guard let s = StorageStatement(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                guard let text else { return s.bindNull(index) }
                return s.bindText(index, UnsafeRawBufferPointer(start: text, count: length))
            },
            bind_blob: { stmt, index, bytes, length in
                guard let s = StorageStatement(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return s.bindBlob(index, UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : length))
            },
            step: { stmt in StorageStatement(stmt)?.step() ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            reset: { stmt in StorageStatement(stmt)?.reset() ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            finalize: { stmt in StorageStatement(stmt)?.finalize() },
            column_count: { stmt in StorageStatement(stmt)?.columnCount ?? 0 },
            column_type: { stmt, column in StorageStatement(stmt)?.columnType(column) ?? Int32(CLUBHOUSE_TYPE_NULL) },
            column_name: { stmt, column in StorageStatement(stmt)?.columnName(column) },
            column_int64: { stmt, column in StorageStatement(stmt)?.columnInt64(column) ?? 0 },
            column_double: { stmt, column in StorageStatement(stmt)?.columnDouble(column) ?? 0 },
            column_text: { stmt, column, length in
                guard let text = StorageStatement(stmt)?.columnText(column) else {
                    length?.pointee = 0
                    return nil
                }
                length?.pointee = text.count
                return text.baseAddress
            },
            column_blob: { stmt, column, length in
                guard let s = StorageStatement(stmt) else { return nil }
                let blob = s.columnBlob(column)
                length?.pointee = blob.count
                return blob.baseAddress
            },
            begin: { host, reply in
                guard let instance = PluginInstance.from(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageBroker.answer(StorageService(instance: instance).begin(), reply)
            },
            commit: { host, reply in
                guard let instance = PluginInstance.from(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageBroker.answer(StorageService(instance: instance).commit(), reply)
            },
            rollback: { host in
                guard let instance = PluginInstance.from(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageService(instance: instance).rollback().status
            },
            last_insert_rowid: { host in
                PluginInstance.from(host).map { StorageService(instance: $0).lastInsertRowID } ?? 0
            },
            changes: { host in
                PluginInstance.from(host).map { StorageService(instance: $0).changes } ?? 0
            },
            last_error: { host in
                PluginInstance.from(host).flatMap { StorageService(instance: $0).database }?.lastErrorPointer
            },
            migrate: { host, version, name, sql, reply in
                guard let instance = PluginInstance.from(host), let name, let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageBroker.answer(
                    StorageService(instance: instance).migrate(version: version, name: String(cString: name), sql: String(cString: sql)),
                    reply)
            },
            bind_parameter_index: { stmt, name in
                guard let s = StorageStatement(stmt), let name else { return 0 }
                return s.parameterIndex(name)
            },
            bind_parameter_count: { stmt in StorageStatement(stmt)?.parameterCount ?? 0 },
            bind_parameter_name: { stmt, index in StorageStatement(stmt)?.parameterName(index) },
            column_index: { stmt, name in
                guard let s = StorageStatement(stmt), let name else { return -1 }
                return s.columnIndex(name)
            })
    }

    /// A status for C, its message (when it failed) in the reply.
    @inline(__always)
    static func answer(_ outcome: StorageOutcome, _ reply: UnsafePointer<clubhouse_reply>?) -> Int32 {
        if !outcome.isOK { reply?.write(outcome.message) }
        return outcome.status
    }
}

// MARK: the wire face

extension StorageBroker {
    /// Answers a runner's storage service call (exec, prepare, step, begin, commit, rollback,
    /// migrate). A prepare answers the handle, the column names and the parameter names. Every reply starts with the storage tail: str message, i64 last insert rowid,
    /// i64 changes. A statement lives in the host; the runner holds its handle in `statements`.
    static func serve(_ operation: WireOperation, _ r: inout WireReader, service: StorageService,
                      statements: inout WireHandles<StorageStatement>) -> (Int32, [UInt8]) {
        var w = WireWriter()
        func tail(_ message: String) {
            w.str(message)
            w.i64(service.lastInsertRowID)
            w.i64(service.changes)
        }
        func answer(_ outcome: StorageOutcome) -> (Int32, [UInt8]) {
            tail(outcome.message)
            return (outcome.status, w.bytes)
        }
        do {
            switch operation {
            case .exec:
                return answer(service.exec(try r.str()))
            case .prepare:
                let sql = try r.str()
                let (outcome, prepared) = service.prepare(sql)
                guard let statement = prepared else { return answer(outcome) }
                tail("")
                w.u32(statements.insert(statement))
                let count = statement.columnCount
                w.u32(UInt32(max(0, count)))
                for c in 0..<count { w.str(statement.columnName(c).map { String(cString: $0) } ?? "") }
                // Then the parameters: u32 count, each name with its prefix ("" for "?"), so the
                // runner answers bind_parameter_index/name without a round trip.
                let parameters = statement.parameterCount
                w.u32(UInt32(max(0, parameters)))
                for p in 0..<parameters { w.str(statement.parameterName(p + 1).map { String(cString: $0) } ?? "") }
                return (outcome.status, w.bytes)
            case .step:
                let handle = try r.u32()
                let resetFirst = try r.u8()
                let binds = try r.u32()
                guard let statement = statements[handle] else {
                    tail("no such statement")
                    return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes)
                }
                if resetFirst != 0 { _ = statement.reset() }
                var bindStatus = Int32(CLUBHOUSE_OK)
                for _ in 0..<binds {
                    let index = try r.i32()
                    let type = try r.u8()
                    let rc: Int32
                    switch type {
                    case 1: rc = statement.bindInt64(index, try r.i64())
                    case 2: rc = statement.bindDouble(index, try r.f64())
                    case 3: rc = try r.data().withUnsafeBytes { statement.bindText(index, $0) }
                    case 4: rc = try r.data().withUnsafeBytes { statement.bindBlob(index, $0) }
                    default: rc = statement.bindNull(index)
                    }
                    if rc != Int32(CLUBHOUSE_OK) && bindStatus == Int32(CLUBHOUSE_OK) { bindStatus = rc }
                }
                if bindStatus != Int32(CLUBHOUSE_OK) {
                    tail(statement.database.lastError)
                    return (bindStatus, w.bytes)
                }
                let status = statement.step()
                tail(status == Int32(CLUBHOUSE_ROW) || status == Int32(CLUBHOUSE_DONE) ? "" : statement.database.lastError)
                if status == Int32(CLUBHOUSE_ROW) {
                    let count = statement.columnCount
                    w.u32(UInt32(max(0, count)))
                    for c in 0..<count {
                        let type = statement.columnType(c)
                        w.u8(UInt8(clamping: type))
                        switch type {
                        case Int32(CLUBHOUSE_TYPE_INTEGER): w.i64(statement.columnInt64(c))
                        case Int32(CLUBHOUSE_TYPE_FLOAT): w.f64(statement.columnDouble(c))
                        case Int32(CLUBHOUSE_TYPE_TEXT), Int32(CLUBHOUSE_TYPE_BLOB): w.data(statement.columnBlob(c))
                        default: break
                        }
                    }
                }
                return (status, w.bytes)
            case .begin:
                return answer(service.begin())
            case .commit:
                return answer(service.commit())
            case .rollback:
                return answer(service.rollback())
            case .migrate:
                let version = try r.i32()
                let name = try r.str()
                let sql = try r.str()
                return answer(service.migrate(version: version, name: name, sql: sql))
            default:
                return answer(StorageOutcome(status: Int32(CLUBHOUSE_INVALID_ARGUMENT), message: "not a storage operation: \(operation)"))
            }
        } catch {
            w = WireWriter()
            tail("malformed service call: \(error)")
            return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes)
        }
    }

    /// A runner's one-way `resetStatement` frame (u32 statement handle): a statement its plugin
    /// reset while it stood on a row (eg a cached statement after a one-row query) is rewound at
    /// once, so it holds no read snapshot and does not keep a COMMIT waiting.
    static func serveReset(_ payload: [UInt8], statements: WireHandles<StorageStatement>) {
        var r = WireReader(payload)
        if let handle = try? r.u32(), let statement = statements[handle] { _ = statement.reset() }
    }

    /// A runner's one-way `finalize` frame (u32 statement handle).
    static func serveFinalize(_ payload: [UInt8], statements: inout WireHandles<StorageStatement>) {
        var r = WireReader(payload)
        if let handle = try? r.u32(), let statement = statements.remove(handle) { statement.finalize() }
    }
}
