// The storage service as a plugin sees it: one Swift API (`StorageService` for the database,
// `StorageStatement` for a prepared statement) that both faces call — the C table an in-process
// plugin gets (StorageCFace.swift) and the answers to an isolated plugin's runner
// (StorageWireFace.swift). The plugin's limits (ServiceLimits) are applied here, so both faces
// refuse alike.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import CSQLite
import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

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

    /// Runs SQL without results. The text is checked against the plugin's `sql_kb` first.
    func exec(_ sql: String) -> StorageOutcome {
        withDatabase { db in
            if let refusal = db.refuseSQL(length: sql.utf8.count) ?? db.refuseService() { return refusal }
            return db.exec(sql)
        }
    }

    /// The same for a C string: the host reads at most one byte past the limit of it before refusing.
    func exec(cString sql: UnsafePointer<CChar>) -> StorageOutcome {
        withDatabase { db in
            if let refusal = db.refuseSQL(length: strnlen(sql, db.limits.sqlBytes + 1)) ?? db.refuseService() { return refusal }
            return db.exec(String(cString: sql))
        }
    }

    /// Compiles one statement; the statement lives until `finalize` (or the database closes).
    func prepare(_ sql: UnsafePointer<CChar>) -> (StorageOutcome, StorageStatement?) {
        compile(length: { limit in strnlen(sql, limit + 1) }) { db in
            // The text read as UTF-8, an invalid byte as U+FFFD (`String(cString:)`), as exec and migrate read it
            // and as a runner's faces do: one SQL text compiles to the same statement in process and in a runner
            // (the fourteenth outside round's L3: `SELECT 'é\xff'` gave c3 a9 ff in process, c3 a9 ef bf bd in a runner).
            String(cString: sql).withCString { db.prepare($0) }
        }
    }

    /// The same for a `String` (the wire's prepares): UTF-8 already, its bytes go to SQLite as they are.
    func prepare(_ sql: String) -> (StorageOutcome, StorageStatement?) {
        compile(length: { limit in sql.withCString { strnlen($0, limit + 1) } }) { db in sql.withCString { db.prepare($0) } }
    }

    /// The statement `prepare` compiles, after the refusals (`sql_kb` by `length`, given the limit; the call's gate).
    private func compile(length: (Int) -> Int,
                         _ prepare: (PluginDatabase) -> (Int32, UnsafeMutablePointer<StatementRecord>?)) -> (StorageOutcome, StorageStatement?) {
        var statement: StorageStatement?
        let outcome = withDatabase { db in
            if let refusal = db.refuseSQL(length: length(db.limits.sqlBytes)) ?? db.refuseService() { return refusal }
            let (status, record) = prepare(db)
            statement = record.map(StorageStatement.init)
            return status
        }
        return (outcome, outcome.isOK ? statement : nil)
    }

    func begin() -> StorageOutcome { withDatabase { $0.refuseService(.begin) ?? $0.begin() } }
    /// Past the call's grace a commit is refused (ServiceGate.swift): the transaction stays open until the
    /// plugin rolls it back or the call ends, when the host rolls it back; it is never committed.
    func commit() -> StorageOutcome { withDatabase { $0.refuseService(.commit) ?? $0.commit() } }
    func rollback() -> StorageOutcome { withDatabase { $0.rollback() } }
    func migrate(version: Int32, name: String, sql: String) -> StorageOutcome {
        withDatabase { db in
            if let refusal = db.refuseSQL(length: sql.utf8.count) ?? db.refuseService(.migrate) { return refusal }
            return db.migrate(version: version, name: name, sql: sql)
        }
    }

    /// The same for a C string: measured (sql_kb) before it is copied.
    func migrate(version: Int32, name: String, cString sql: UnsafePointer<CChar>) -> StorageOutcome {
        withDatabase { db in
            if let refusal = db.refuseSQL(length: strnlen(sql, db.limits.sqlBytes + 1)) ?? db.refuseService(.migrate) { return refusal }
            return db.migrate(version: version, name: name, sql: String(cString: sql))
        }
    }

    var lastInsertRowID: Int64 { database.map { sqlite3_last_insert_rowid($0.db) } ?? 0 }
    var changes: Int64 { database.map { sqlite3_changes64($0.db) } ?? 0 }
}

extension PluginDatabase {
    /// CLUBHOUSE_DENIED (with the message recorded) when `length` bytes of SQL are over `sql_kb`.
    func refuseSQL(length: Int) -> Int32? {
        guard length > limits.sqlBytes else { return nil }
        setError(LimitRefusal.sqlBytes(owner, limits))
        return Int32(CLUBHOUSE_DENIED)
    }

    /// Before SQLite runs anything for a prepare, exec, step, begin, commit or migrate: the stop's status
    /// (cancelled, or timeout for a wall-clock limit), with the message recorded, when the running call's
    /// cleanup grace is over (ServiceGate.swift; issue 27); then CLUBHOUSE_DENIED when the data was adopted
    /// away from this library (DataOrigin.swift). The thread's call is looked up once for both.
    @inline(__always)
    func refuseService(_ act: ServiceAct = .statement) -> Int32? {
        let call = CallContext.current
        if let (status, message) = ServiceGate.refusal(act, call: call) {
            setError(message)
            return status
        }
        return ownershipRefusal(call: call?.id ?? 0)
    }
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

    /// A number or NULL: frees whatever text or blob was bound at `index` (no lock unless one was).
    @inline(__always)
    private func bindScalar(_ index: Int32, _ bind: () -> Int32) -> Int32 {
        guard record.pointee.boundByIndex != nil else { return bound(bind()) }
        let db = database
        return db.guarded {
            let rc = bind()
            if rc == SQLITE_OK { db.noteBound(record, index: index, bytes: 0) }
            return bound(rc)
        }
    }

    /// Text or a blob: within the plugin's `bind_mb` (for this statement) and `statement_mb` (for
    /// all its statements), or refused with CLUBHOUSE_DENIED before SQLite copies anything.
    @inline(__always)
    private func bindBytes(_ index: Int32, _ count: Int, _ bind: () -> Int32) -> Int32 {
        let db = database
        return db.guarded {
            if let refusal = db.admitBind(record, index: index, newBytes: count) { return refusal }
            let rc = bind()
            if rc == SQLITE_OK { db.noteBound(record, index: index, bytes: count) }
            return bound(rc)
        }
    }

    func bindNull(_ index: Int32) -> Int32 { bindScalar(index) { sqlite3_bind_null(stmt, index) } }
    func bindInt64(_ index: Int32, _ value: Int64) -> Int32 { bindScalar(index) { sqlite3_bind_int64(stmt, index, value) } }
    func bindDouble(_ index: Int32, _ value: Double) -> Int32 { bindScalar(index) { sqlite3_bind_double(stmt, index, value) } }

    /// Binds UTF-8 text (empty text when `bytes` is empty; NULL is `bindNull`).
    func bindText(_ index: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            return bindBytes(index, 0) { sqlite3_bind_text64(stmt, index, "", 0, clubhouse_sqlite_transient(), UInt8(SQLITE_UTF8)) }
        }
        return bindBytes(index, bytes.count) {
            sqlite3_bind_text64(stmt, index, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
                                clubhouse_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }

    /// Binds a blob (an empty one when `bytes` is empty).
    func bindBlob(_ index: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return bindBytes(index, 0) { sqlite3_bind_zeroblob(stmt, index, 0) } }
        return bindBytes(index, bytes.count) { sqlite3_bind_blob64(stmt, index, base, sqlite3_uint64(bytes.count), clubhouse_sqlite_transient()) }
    }

    /// Binds a value as it came over the wire.
    func bind(_ index: Int32, _ value: WireValue) -> Int32 {
        switch value {
        case .integer(let v): return bindInt64(index, v)
        case .float(let v): return bindDouble(index, v)
        case .text(let bytes): return bytes.withUnsafeBytes { bindText(index, $0) }
        case .blob(let bytes): return bytes.withUnsafeBytes { bindBlob(index, $0) }
        case .null: return bindNull(index)
        }
    }

    /// CLUBHOUSE_ROW, CLUBHOUSE_DONE or a failure (message in the last error). A row over the
    /// plugin's `reply_mb` is refused (CLUBHOUSE_DENIED), in process as over the wire. The step and
    /// the reading of its error happen under the connection's mutex: a concurrent call's failure
    /// cannot replace this one's message.
    func step() -> Int32 {
        let db = database
        return db.guarded {
            if let refusal = db.refuseService() { return refusal }
            let (rc, overBudget) = db.withMemoryBudget { sqlite3_step(stmt) }
            if overBudget {
                db.setError(LimitRefusal.stepMemory(db.owner, db.limits))
                return Int32(CLUBHOUSE_DENIED)
            }
            if rc == SQLITE_ROW {
                let bytes = rowBytes
                if bytes > db.limits.replyBytes {
                    db.setError(LimitRefusal.rowBytes(db.owner, db.limits, wanted: bytes))
                    return Int32(CLUBHOUSE_DENIED)
                }
                return Int32(CLUBHOUSE_ROW)
            }
            if rc == SQLITE_DONE { return Int32(CLUBHOUSE_DONE) }
            return db.recordFailure(rc)
        }
    }

    /// The bytes of the text and blobs of the current row (numbers are not converted).
    private var rowBytes: Int {
        var total = 0
        for column in 0..<sqlite3_column_count(stmt) {
            let type = sqlite3_column_type(stmt, column)
            if type == SQLITE_TEXT || type == SQLITE_BLOB { total += Int(sqlite3_column_bytes(stmt, column)) }
        }
        return total
    }

    /// Rewinds the statement and clears its bindings.
    func reset() -> Int32 {
        let db = database
        return db.guarded {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
            db.noteCleared(record)
            return Int32(CLUBHOUSE_OK)
        }
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

/// The row a statement stands on, as the wire face sends it.
extension StorageStatement: RowSource {
    func valueType(_ column: Int32) -> StorageValueType { StorageValueType(code: sqlite3_column_type(stmt, column)) }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(stmt, column) }
    func bytes(_ column: Int32) -> UnsafeRawBufferPointer { columnBlob(column) }
}
