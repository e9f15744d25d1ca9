// One plugin's SQLite connection: opened, hardened and fenced in by an authorizer
// (StorageAuthorizer.swift), with the plugin's statements, its transactions (nested = savepoints)
// and its migrations recorded by the host. Everything a plugin's calls change here (statements and
// the memory they hold, the last error, the transaction) is changed under the connection's own
// recursive mutex (`serialized`), because a thread-safe plugin's concurrent calls share it.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import CSQLite
import CSQLiteMemory
import Synchronization
import ClubhouseWire
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// The table the host keeps in every plugin database (plugins may read it, never write it).
let migrationsTable = "_clubhouse_migrations"
/// The host's record of the newest plugin version that opened the database for writing.
let pluginVersionTable = "_clubhouse_plugin_version"

/// One plugin's connection. SQLite's serialized mode protects the handle; calls of a plugin that
/// is not thread-safe are serialized by its instance. A thread-safe plugin's concurrent calls share
/// this connection, and so share one transaction: the host rolls back a transaction at the end of
/// the call that opened it (see `rollbackAbandoned(by:)`).
/// @unchecked Sendable: every mutable member below is read and written holding the connection's
/// recursive mutex (`serialized`), except `upgrade`, set while the database opens, and `dataVersionStatement`,
/// made either while it opens or under that mutex.
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
    /// The open transaction published a record (Publish/Outbox.swift): its commit tells `outboxCommits`.
    var publishedInTransaction = false
    var outboxCommits: OutboxCommits?
    /// The last failure of work outside any call (create, migrations at start, the host's own), as
    /// a C string; a call keeps its own (`CallContext.storageError`), so concurrent calls of a
    /// thread-safe plugin never read or free each other's message.
    private var sharedError = PinnedCString.empty
    /// Set when the authorizer refused something in the statement being compiled.
    var authorizerDenied = false
    /// Statements still open (finalized at close if the plugin forgot).
    private(set) var openStatements = Set<UnsafeMutableRawPointer>()
    /// What the plugin's open statements hold: SQLite's memory for each compiled statement plus the
    /// text and blobs bound to them (bounded by `limits.statementBytes`).
    private(set) var heldBytes = 0
    /// What this plugin may make the host hold (the site's "limits"; ServiceLimits).
    let limits: ServiceLimits
    /// Concurrent calls use this connection (a thread-safe plugin in process): statements' binds,
    /// steps and resets then take the connection's mutex too (`guarded`); otherwise the call gates
    /// let one call at a time reach it and those skip the extra lock.
    let shared: Bool
    /// Set when this open moved the database to a newer plugin version (its backup was made first).
    public internal(set) var upgrade: DatabaseUpgrade?
    /// The origin this connection was opened for, checked again while it lives (DataOrigin.swift); nil
    /// when opened without one (the host's own commands).
    var ownership: Ownership?
    /// The re-check's quick answer, read without the connection's mutex (DataOrigin.swift, ownershipRefusal):
    /// the call that last found the binding good (0: none), and when a use outside any call last did
    /// (coarse monotonic nanoseconds; 0: never). Both are 0 while the data belongs to another origin.
    let ownershipVerifiedCall = Atomic<UInt64>(0)
    let ownershipVerifiedOutsideAt = Atomic<UInt64>(0)
    /// `PRAGMA data_version`, compiled at its first use and kept until close (DataOrigin.swift, dataVersion).
    var dataVersionStatement: OpaquePointer?
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
    ] + Outbox.hostSchema  // the outbox (Publish/Outbox.swift, ABI 1.4)
        + [
            // Whose data this is (DataOrigin.swift): the origin of the library that created it.
            """
            CREATE TABLE IF NOT EXISTS main.\(originTable) (
                id INTEGER PRIMARY KEY CHECK (id = 1), origin TEXT NOT NULL, described TEXT NOT NULL,
                library TEXT NOT NULL, recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))
            """,
        ]

    /// Functions that reach outside the database or take raw pointers: refused by the authorizer
    /// whatever SQLite was built with.
    static let deniedFunctions: Set<String> = [
        "load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "fsdir", "zipfile", "lsmode",
        "rtreenode", "rtreedepth",
    ]

    convenience init(path: String, owner: String, limits: ServiceLimits = ServiceLimits(), shared: Bool = true) throws(StorageError) {
        try self.init(path: path, resolvedPath: path, owner: owner, pluginVersion: nil, origin: nil, limits: limits, shared: shared)
    }

    init(path: String, resolvedPath: String, owner: String, pluginVersion: String?, origin: OriginClaim?, limits: ServiceLimits,
         shared: Bool) throws(StorageError) {
        self.path = path
        self.owner = owner
        self.limits = limits
        self.shared = shared
        let folder = FileSystem.directoryName(resolvedPath)
        let exists = FileSystem.exists(resolvedPath)
        if !exists && access(folder, W_OK) != 0 {
            throw StorageError(status: Int32(CLUBHOUSE_IO),
                               message: "\(path): cannot create the database: the data directory \(FileSystem.directoryName(path)) is not writable (\(String(cString: strerror(errno)))); set --data-dir or CLUBHOUSE_DATA_DIR to a writable place")
        }
        readOnly = exists && (access(resolvedPath, W_OK) != 0 || access(folder, W_OK) != 0)
        var handle: OpaquePointer?
        // A connection concurrent calls share runs in SQLite's serialized mode (each call takes its
        // mutex, which `serialized` takes too); one the call gates reach one call at a time runs in
        // multi-thread mode: no mutex at all on each bind, step and column read.
        var flags = (shared ? SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_NOMUTEX) | SQLITE_OPEN_NOFOLLOW
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
        // No value or table row longer than the plugin could ever read or write (reply_mb, bind_mb):
        // zeroblob, randomblob, replace, concatenation and group_concat fail there (printf answers NULL).
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32(clamping: limits.valueBytes))
        StatementInterrupts.install(on: db)
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
            // Whose data it is first: a library of another origin neither upgrades nor backs it up.
            if let origin { try checkOrigin(origin) }
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
        // A committed write transaction is noted on the call that ran it (its thread's current call; an isolated
        // plugin's statements run on the thread serving its call): a 5xx after it lost the answer, not the write.
        sqlite3_commit_hook(db, { userData in
            guard let userData else { return 0 }
            let database = Unmanaged<PluginDatabase>.fromOpaque(userData).takeUnretainedValue()
            if !database.hostWriting { CallContext.current?.noteCommitted() }
            return 0
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
            let note = DatabaseBackups.keptNewerData(database: path, upgradingTo: mine, from: recorded)
            // A copy of exactly this data already kept (an upgrade that failed and is tried again) is reused.
            let made = DatabaseBackups.identicalCopy(database: path, version: recorded).map { Result<String, DatabaseBackups.BackupFailure>.success($0) }
                ?? DatabaseBackups.vacuumInto(db, database: path, version: recorded, reason: .upgrade(to: version))
            switch made {
            case .success(let file): upgrade = DatabaseUpgrade(from: recorded, to: version, backup: file, note: note)
            case .failure(let failure):
                throw StorageError(message: "\(path): cannot back up the database before upgrading plugin '\(owner)' from \(recorded) to \(version) (\(failure.reason)); the upgrade did not start")
            }
        }
        // Under the write lock, so two hosts starting side by side agree.
        try hostWriteTransaction { () throws(StorageError) in
            var current: String?
            if sqlite3_prepare_v2(db, "SELECT version FROM main.\(pluginVersionTable) WHERE id = 1", -1, &stmt, nil) == SQLITE_OK,
               sqlite3_step(stmt) == SQLITE_ROW, let text = sqlite3_column_text(stmt, 0)
            {
                current = String(cString: text)
            }
            sqlite3_finalize(stmt)
            if let current, let theirs = SemanticVersion(current), theirs > mine {
                throw StorageError(status: Int32(CLUBHOUSE_UNSUPPORTED),
                                   message: "\(path) was written by version \(current) of plugin '\(owner)', newer than this version \(version); install \(current) or later, or use another data dir")
            }
            var insert: OpaquePointer?
            sqlite3_prepare_v2(db, """
                INSERT INTO main.\(pluginVersionTable)(id, version) VALUES (1, ?)
                ON CONFLICT(id) DO UPDATE SET version = excluded.version, recorded_at = excluded.recorded_at
                """, -1, &insert, nil)
            sqlite3_bind_text(insert, 1, version, -1, clubhouse_sqlite_transient())
            let rc = sqlite3_step(insert)
            sqlite3_finalize(insert)
            guard rc == SQLITE_DONE else {
                let (_, message) = describe(rc, String(cString: sqlite3_errmsg(db)))
                throw StorageError(status: PluginDatabase.status(for: rc), message: message)
            }
        }
    }

    deinit { close() }

    private var closed = false

    public func close() {
        guard !closed else { return }
        closed = true
        serialized {
            for statement in openStatements {
                let record = statement.assumingMemoryBound(to: StatementRecord.self)
                sqlite3_finalize(record.pointee.stmt)
                record.deinitialize(count: 1)
                record.deallocate()
            }
            openStatements.removeAll()
            heldBytes = 0
            if let kept = dataVersionStatement { sqlite3_finalize(kept) }
            dataVersionStatement = nil
        }
        if sqlite3_get_autocommit(db) == 0 { sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
        sqlite3_close_v2(db)
    }

    // MARK: errors

    func deny(_ message: String) -> Int32 {
        authorizerDenied = true
        setError(message)
        return SQLITE_DENY
    }

    /// Records the message of the last failure: the current call's own (its thread alone reads and
    /// replaces it), or the connection's when no call is running.
    func setError(_ message: String) {
        let pinned = PinnedCString(message)
        if let call = CallContext.current {
            call.storageError = pinned
        } else {
            serialized { sharedError = pinned }
        }
    }

    /// Clears the last failure before an operation that reports its own.
    func clearError() {
        if let call = CallContext.current {
            if !call.storageError.isEmpty { call.storageError = .empty }
        } else {
            serialized { if !sharedError.isEmpty { sharedError = .empty } }
        }
    }

    /// The last failure as a C string (storage.h's `last_error`): the call's own, valid until the
    /// call's next storage operation; outside any call the connection's.
    var lastErrorPointer: UnsafePointer<CChar> {
        if let call = CallContext.current { return call.storageError.pointer }
        return serialized { sharedError.pointer }
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
        case SQLITE_TOOBIG:
            return (Int32(CLUBHOUSE_DENIED), LimitRefusal.valueBytes(owner, limits))
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
        serialized {
            clearError()
            authorizerDenied = false
            var errorMessage: UnsafeMutablePointer<CChar>?
            let (rc, overBudget) = withMemoryBudget { sqlite3_exec(db, sql, nil, nil, &errorMessage) }
            if rc == SQLITE_OK { return Int32(CLUBHOUSE_OK) }
            if overBudget {
                sqlite3_free(errorMessage)
                setError(LimitRefusal.stepMemory(owner, limits))
                return Int32(CLUBHOUSE_DENIED)
            }
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
    }

    /// Compiles one statement, within the plugin's limits on open statements and their memory.
    func prepare(_ sql: UnsafePointer<CChar>) -> (Int32, UnsafeMutablePointer<StatementRecord>?) {
        serialized {
            clearError()
            guard openStatements.count < limits.openStatements else {
                setError(LimitRefusal.openStatements(owner, limits))
                return (Int32(CLUBHOUSE_DENIED), nil)
            }
            authorizerDenied = false
            var stmt: OpaquePointer?
            let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
            guard rc == SQLITE_OK else { return (recordFailure(rc), nil) }
            guard let stmt else {
                setError("no SQL statement in the text")
                return (Int32(CLUBHOUSE_INVALID_ARGUMENT), nil)
            }
            // What SQLite holds for the compiled statement (its program, constants and text).
            let compiled = Int(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_MEMUSED, 0))
            guard heldBytes + compiled <= limits.statementBytes else {
                sqlite3_finalize(stmt)
                setError(LimitRefusal.statementBytes(owner, limits, wanted: Int64(heldBytes + compiled)))
                return (Int32(CLUBHOUSE_DENIED), nil)
            }
            let record = UnsafeMutablePointer<StatementRecord>.allocate(capacity: 1)
            record.initialize(to: StatementRecord(stmt: stmt, database: Unmanaged.passUnretained(self).toOpaque(),
                                                  compiledBytes: compiled))
            openStatements.insert(UnsafeMutableRawPointer(record))
            heldBytes += compiled
            return (Int32(CLUBHOUSE_OK), record)
        }
    }

    func finalize(_ record: UnsafeMutablePointer<StatementRecord>) {
        serialized {
            guard openStatements.remove(UnsafeMutableRawPointer(record)) != nil else { return }
            heldBytes -= record.pointee.compiledBytes + record.pointee.boundBytes
            sqlite3_finalize(record.pointee.stmt)
            record.deinitialize(count: 1)
            record.deallocate()
        }
    }

    /// Accounts for `newBytes` of text or blob about to be bound at `index` of `record` (replacing
    /// what was bound there): nil when within the limits, else the refusal (already recorded as the
    /// last error). Called holding the connection's mutex.
    func admitBind(_ record: UnsafeMutablePointer<StatementRecord>, index: Int32, newBytes: Int) -> Int32? {
        let old = record.pointee.bound(at: index)
        let statementTotal = record.pointee.boundBytes - old + newBytes
        if statementTotal > limits.bindBytes {
            setError(LimitRefusal.bindBytes(owner, limits, wanted: statementTotal))
            return Int32(CLUBHOUSE_DENIED)
        }
        let held = heldBytes - old + newBytes
        if newBytes > old && held > limits.statementBytes {
            setError(LimitRefusal.statementBytes(owner, limits, wanted: Int64(held)))
            return Int32(CLUBHOUSE_DENIED)
        }
        return nil
    }

    /// Records that `bytes` are now bound at `index` (0 for a number or NULL). Holding the mutex.
    func noteBound(_ record: UnsafeMutablePointer<StatementRecord>, index: Int32, bytes: Int) {
        let old = record.pointee.setBound(bytes, at: index, parameters: sqlite3_bind_parameter_count(record.pointee.stmt))
        heldBytes += bytes - old
    }

    /// Records that the statement's bindings were cleared. Holding the mutex.
    func noteCleared(_ record: UnsafeMutablePointer<StatementRecord>) {
        heldBytes -= record.pointee.clearBound()
    }

    /// Runs one step or exec charging what SQLite allocates for it on this thread to the plugin's
    /// `stepMemoryBytes` (CSQLiteMemory): past it the allocation fails and SQLite answers
    /// SQLITE_NOMEM. Returns SQLite's answer and whether it failed because of the budget.
    @inline(__always)
    func withMemoryBudget(_ body: () -> Int32) -> (Int32, overBudget: Bool) {
        let started = clubhouse_sqlite_memory_begin(Int64(limits.stepMemoryBytes)) == 1
        let rc = body()
        guard started else { return (rc, false) }
        let refused = clubhouse_sqlite_memory_end() < 0
        return (rc, refused && rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
    }

    /// `serialized` when concurrent calls share the connection, the body alone otherwise.
    @inline(__always)
    func guarded<R>(_ body: () -> R) -> R { shared ? serialized(body) : body() }

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
            if transactionDepth == 0 {
                transactionOwner = 0
                if status == Int32(CLUBHOUSE_OK) && publishedInTransaction { outboxCommits?.committed() }
                publishedInTransaction = false
            }
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
            if transactionDepth == 0 {
                transactionOwner = 0
                publishedInTransaction = false
            }
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
            publishedInTransaction = false
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
        clearError()
        if readOnly {
            // Nothing can be applied; an already-recorded migration is fine.
            let recorded = migrationHistory()
            if let existing = recorded.first(where: { $0.0 == version }), existing.1 == name { return Int32(CLUBHOUSE_OK) }
            setError("\(path): migration \(version) ('\(name)') of plugin '\(owner)' cannot be applied: the data directory or the file is read-only")
            return Int32(CLUBHOUSE_DENIED)
        }
        // Already applied under this name (every command after the first): one plain read of the
        // history — no BEGIN IMMEDIATE (the write lock), no COMMIT. It reads the database as it is,
        // as the transaction below would; anything else (not recorded, another name, no history
        // table yet) takes that transaction, which checks again and says why.
        if serialized({ migrationHistory() }).contains(where: { $0.0 == version && $0.1 == name }) {
            return Int32(CLUBHOUSE_OK)
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

/// What a `clubhouse_stmt *` points to: the statement, its connection, and what it holds (the
/// compiled statement's memory, and the text and blobs bound to it, by parameter).
struct StatementRecord {
    var stmt: OpaquePointer
    var database: UnsafeMutableRawPointer
    var compiledBytes: Int
    /// Bytes of text or blob bound at each parameter index (made at the first such bind).
    var boundByIndex: [Int]? = nil
    var boundBytes = 0

    init(stmt: OpaquePointer, database: UnsafeMutableRawPointer, compiledBytes: Int) {
        self.stmt = stmt
        self.database = database
        self.compiledBytes = compiledBytes
    }

    var owner: PluginDatabase { Unmanaged<PluginDatabase>.fromOpaque(database).takeUnretainedValue() }

    func bound(at index: Int32) -> Int {
        guard let boundByIndex, index >= 0, Int(index) < boundByIndex.count else { return 0 }
        return boundByIndex[Int(index)]
    }

    /// Sets what is bound at `index` (a valid 1-based index); returns what was bound there.
    mutating func setBound(_ bytes: Int, at index: Int32, parameters: Int32) -> Int {
        guard index >= 1, index <= parameters else { return 0 }
        if boundByIndex == nil {
            guard bytes > 0 else { return 0 }
            boundByIndex = [Int](repeating: 0, count: Int(parameters) + 1)
        }
        let old = boundByIndex?[Int(index)] ?? 0
        boundByIndex?[Int(index)] = bytes
        boundBytes += bytes - old
        return old
    }

    /// Forgets every binding; returns the bytes they held.
    mutating func clearBound() -> Int {
        let was = boundBytes
        if boundBytes > 0 { boundByIndex = nil }
        boundBytes = 0
        return was
    }
}

