// The plugin's own SQLite database through "clubhouse.storage/1": prepared statements kept in a
// statement cache (GRDB's `cachedStatement(sql:)`: the host's persistent statements are reset and
// reused, never recompiled), parameters bound by position or by name (from a dictionary or an
// Encodable value), rows read by column name or decoded as Decodable values, transactions, and the
// migrator for the `Migration` steps a plugin's core declares (ClubhouseToolkit).

import CClubhouse
import ClubhouseABI
@_exported import ClubhouseToolkit
#if canImport(Glibc)
import Glibc
#endif

/// A value to bind or read.
public enum SQLValue: Sendable, Equatable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByNilLiteral
{
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public init(integerLiteral value: Int) { self = .integer(Int64(value)) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }

    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Int64) { self = .integer(value) }
    public init(_ value: Double) { self = .real(value) }
    public init(_ value: String) { self = .text(value) }
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    public init<T>(_ value: T?) where T: SQLValueConvertible { self = value?.sqlValue ?? .null }

    public var int64: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let d): return d.isFinite && d.rounded() == d ? Int64(exactly: d) : nil
        default: return nil
        }
    }
    public var int: Int? { int64.map { Int($0) } }
    public var double: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return nil
        }
    }
    public var string: String? { if case .text(let s) = self { return s } else { return nil } }
    public var bytes: [UInt8]? {
        switch self {
        case .blob(let b): return b
        case .text(let s): return Array(s.utf8)
        default: return nil
        }
    }
    public var isNull: Bool { self == .null }
}

/// Types that bind as a SQLValue.
public protocol SQLValueConvertible { var sqlValue: SQLValue { get } }
extension Int: SQLValueConvertible { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLValueConvertible { public var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLValueConvertible { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLValueConvertible { public var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLValueConvertible { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }

/// The plugin's database.
/// @unchecked Sendable: immutable pointers; idle statements are kept under the cache's mutex, and the host
/// serializes what reaches one connection (storage.h).
public final class Storage: @unchecked Sendable {
    let host: UnsafePointer<clubhouse_host>
    let table: UnsafePointer<clubhouse_storage_service>
    /// Idle compiled statements by SQL text. A statement is taken out while in use (so nested or
    /// concurrent uses of one SQL each get their own) and put back reset, bindings cleared.
    private let cache = StatementCache()

    init(host: UnsafePointer<clubhouse_host>, table: UnsafePointer<clubhouse_storage_service>) {
        self.host = host
        self.table = table
    }

    private func check(_ status: Int32, _ buffer: ReplyBuffer?) throws {
        guard status != Int32(CLUBHOUSE_OK) else { return }
        let message = buffer.map(\.text).flatMap { $0.isEmpty ? nil : $0 } ?? lastError
        throw PluginError(PluginStatus(rawValue: status) ?? .error, message)
    }

    var lastError: String { Storage.lastError(host, table) }

    static func lastError(_ host: UnsafePointer<clubhouse_host>, _ table: UnsafePointer<clubhouse_storage_service>) -> String {
        table.pointee.last_error.flatMap { $0(host) }.map { String(cString: $0) } ?? "storage error"
    }

    /// True when the host's table has the named-parameter and column-index members.
    var hasNamedParameters: Bool {
        Int(table.pointee.struct_size) >= MemoryLayout<clubhouse_storage_service>.size
    }

    /// Runs SQL without results (one or more statements).
    public func execute(_ sql: String) throws {
        let buffer = ReplyBuffer()
        let status = buffer.withSink { table.pointee.exec(host, sql, $0) }
        try check(status, buffer)
    }

    /// Compiles one statement (not cached: it is finalized when released).
    public func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        let buffer = ReplyBuffer()
        let status = buffer.withSink { table.pointee.prepare(host, sql, &stmt, $0) }
        try check(status, buffer)
        guard let stmt else { throw PluginError.failed("storage returned no statement for: \(sql)") }
        return Statement(host: host, table: table, handle: stmt, named: hasNamedParameters)
    }

    // MARK: statement cache

    /// The cached statement for `sql`, compiled on first use and reused after (reset, bindings
    /// cleared), as GRDB's `cachedStatement(sql:)`. Like GRDB's, it is for one user at a time:
    /// do not iterate it while something else runs the same SQL through it; code that may run
    /// the same SQL nested or from several threads uses `withCachedStatement`, as `query`,
    /// `queryOne` and `run` do.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = cache.withLock({ $0[sql]?.first }) {
            try statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        cache.withLock { $0[sql, default: []].insert(statement, at: 0) }
        return statement
    }

    /// Runs `body` with a statement for `sql` that no one else uses meanwhile, taken from the
    /// cache (or compiled), then reset and put back.
    public func withCachedStatement<R>(sql: String, _ body: (Statement) throws -> R) throws -> R {
        let statement = try cache.withLock({ $0[sql]?.popLast() }) ?? prepare(sql)
        defer {
            _ = try? statement.reset()
            cache.withLock { $0[sql, default: []].append(statement) }
        }
        return try body(statement)
    }

    /// Finalizes every cached statement (they are compiled again on next use).
    public func clearStatementCache() {
        cache.withLock { $0.removeAll() }
    }

    /// How many compiled statements the cache holds (for tests and diagnostics).
    public var cachedStatementCount: Int { cache.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    // MARK: running statements

    /// Runs one statement with parameters, ignoring rows.
    public func run(_ sql: String, _ parameters: [SQLValue] = []) throws {
        try withCachedStatement(sql: sql) { statement in
            try statement.bind(parameters)
            while try statement.step() {}
        }
    }

    /// Runs one statement with named parameters (":name", "@name", "$name"; the key may omit the prefix).
    public func run(_ sql: String, _ parameters: [String: SQLValue]) throws {
        try withCachedStatement(sql: sql) { statement in
            try statement.bind(parameters)
            while try statement.step() {}
        }
    }

    /// Runs one statement with the named parameters an Encodable value's properties give.
    public func run<E: Encodable>(_ sql: String, encoding value: E) throws {
        try run(sql, try SQLParameterEncoder.parameters(value))
    }

    /// Runs a query and collects every row (use `prepare` and `step` for big results).
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [Row] {
        try withCachedStatement(sql: sql) { statement in
            try statement.bind(parameters)
            return try statement.rows()
        }
    }

    /// Runs a query with named parameters and collects every row.
    public func query(_ sql: String, _ parameters: [String: SQLValue]) throws -> [Row] {
        try withCachedStatement(sql: sql) { statement in
            try statement.bind(parameters)
            return try statement.rows()
        }
    }

    /// The first row of a query, or nil.
    public func queryOne(_ sql: String, _ parameters: [SQLValue] = []) throws -> Row? {
        try withCachedStatement(sql: sql) { statement in
            try statement.bind(parameters)
            return try statement.step() ? statement.row() : nil
        }
    }

    /// The first row of a query with named parameters, or nil.
    public func queryOne(_ sql: String, _ parameters: [String: SQLValue]) throws -> Row? {
        try withCachedStatement(sql: sql) { statement in
            try statement.bind(parameters)
            return try statement.step() ? statement.row() : nil
        }
    }

    /// Every row decoded as `T` by column name (see `Row.decode`).
    public func query<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [SQLValue] = []) throws -> [T] {
        try query(sql, parameters).map { try $0.decode(T.self) }
    }

    /// Every row decoded as `T` by column name, with named parameters.
    public func query<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [String: SQLValue]) throws -> [T] {
        try query(sql, parameters).map { try $0.decode(T.self) }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Nested calls become savepoints.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let buffer = ReplyBuffer()
        try check(buffer.withSink { table.pointee.begin(host, $0) }, buffer)
        let result: T
        do {
            result = try body()
        } catch {
            _ = table.pointee.rollback(host)
            throw error
        }
        buffer.removeAll()
        let status = buffer.withSink { table.pointee.commit(host, $0) }
        if status != Int32(CLUBHOUSE_OK) {
            _ = table.pointee.rollback(host)
            try check(status, buffer)
        }
        return result
    }

    /// The migrator: applies the migrations the database does not have yet, each atomically, in
    /// version order (the host records each version and name).
    public func migrate(_ migrations: [Migration]) throws {
        for m in migrations.sorted(by: { $0.version < $1.version }) {
            let buffer = ReplyBuffer()
            let status = buffer.withSink { table.pointee.migrate(host, Int32(m.version), m.name, m.sql, $0) }
            try check(status, buffer)
        }
    }

    public var lastInsertRowID: Int64 { table.pointee.last_insert_rowid(host) }
    public var changes: Int64 { table.pointee.changes(host) }
}

/// Idle statements by SQL text behind a lock (a thread-safe plugin's calls share the Storage).
/// @unchecked Sendable: `idle` is read and written holding `mutex`.
final class StatementCache: @unchecked Sendable {
    private var idle: [String: [Statement]] = [:]
    private var mutex = pthread_mutex_t()

    init() { pthread_mutex_init(&mutex, nil) }
    deinit {
        idle.removeAll()
        pthread_mutex_destroy(&mutex)
    }

    func withLock<R>(_ body: (inout [String: [Statement]]) throws -> R) rethrows -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body(&idle)
    }
}

/// The column names of a statement, and their numbers, shared by every row it returns.
public final class RowColumns: Sendable {
    public let names: [String]
    let numbers: [String: Int]
    /// The names' lengths in UTF-8 bytes: a name of another length is skipped without comparing.
    let lengths: [Int]

    init(_ names: [String]) {
        self.names = names
        var numbers: [String: Int] = [:]
        for (i, name) in names.enumerated() where numbers[name] == nil { numbers[name] = i }
        self.numbers = numbers
        lengths = names.map { $0.utf8.count }
    }

    /// The 0-based number of the column named `name`, nil when there is none. A row of a dozen
    /// columns is searched in order (comparing short names costs less than hashing one), only the
    /// names of the same length compared.
    public func index(of name: String) -> Int? {
        if names.count <= 16 {
            let length = name.utf8.count
            for i in 0..<lengths.count where lengths[i] == length && names[i] == name { return i }
            return nil
        }
        return numbers[name]
    }
}

/// A row copied out of a statement; read it by column name (`row["carry"]`) or decode it.
/// The rows of one query share one buffer of values (a row is its window on it), so reading a
/// result allocates once, not once per row.
public struct Row: Sendable {
    public let layout: RowColumns
    /// The values of this row and, for a row of a query's result, of the others.
    private let buffer: [SQLValue]
    private let start: Int
    private let count: Int

    public init(columns: [String], values: [SQLValue]) {
        self.init(layout: RowColumns(columns), values: values)
    }

    init(layout: RowColumns, values: [SQLValue]) {
        self.init(layout: layout, buffer: values, start: 0, count: values.count)
    }

    init(layout: RowColumns, buffer: [SQLValue], start: Int, count: Int) {
        self.layout = layout
        self.buffer = buffer
        self.start = start
        self.count = count
    }

    /// The row's values in column order.
    public var values: [SQLValue] { Array(buffer[start..<start + count]) }

    public var columns: [String] { layout.names }

    public subscript(index: Int) -> SQLValue { index >= 0 && index < count ? buffer[start + index] : .null }
    /// The value of the column named `name`; `.null` when the row has no such column.
    public subscript(name: String) -> SQLValue {
        guard let i = layout.index(of: name), i < count else { return .null }
        return buffer[start + i]
    }

    /// True when the row has a column named `name`.
    public func has(_ name: String) -> Bool { layout.index(of: name) != nil }

    /// The row as a `T`, its properties read from the columns of the same names (see SQLRowDecoder).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try T(from: SQLRowDecoder(row: self))
    }
}

/// A prepared statement: bind, step, read columns, reset, repeat. Finalized when released (the
/// cache keeps the ones it hands out).
public final class Statement {
    let host: UnsafePointer<clubhouse_host>
    let tablePointer: UnsafePointer<clubhouse_storage_service>
    let handle: OpaquePointer
    let named: Bool
    private var table: clubhouse_storage_service { tablePointer.pointee }
    /// Parameter numbers already looked up, by the name as the caller gave it.
    private var parameterNumbers: [String: Int32] = [:]
    private var layout: RowColumns?

    init(host: UnsafePointer<clubhouse_host>, table: UnsafePointer<clubhouse_storage_service>, handle: OpaquePointer, named: Bool) {
        self.host = host
        tablePointer = table
        self.handle = handle
        self.named = named
    }

    deinit { table.finalize(handle) }

    private var lastError: String { Storage.lastError(host, tablePointer) }

    @inline(__always) private func check(_ status: Int32) throws {
        if status != Int32(CLUBHOUSE_OK) {
            throw PluginError(PluginStatus(rawValue: status) ?? .error, lastError)
        }
    }

    public func bind(_ index: Int32, _ value: Int64) throws { try check(table.bind_int64(handle, index, value)) }
    public func bind(_ index: Int32, _ value: Int) throws { try check(table.bind_int64(handle, index, Int64(value))) }
    public func bind(_ index: Int32, _ value: Double) throws { try check(table.bind_double(handle, index, value)) }
    public func bindNull(_ index: Int32) throws { try check(table.bind_null(handle, index)) }

    public func bind(_ index: Int32, _ value: String) throws {
        let length = value.utf8.count
        let status = value.withCString { chars in table.bind_text(handle, index, chars, length) }
        try check(status)
    }

    public func bind(_ index: Int32, blob: [UInt8]) throws {
        let status = blob.withUnsafeBytes { table.bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), $0.count) }
        try check(status)
    }

    public func bind(_ index: Int32, _ value: SQLValue) throws {
        switch value {
        case .null: try bindNull(index)
        case .integer(let i): try bind(index, i)
        case .real(let d): try bind(index, d)
        case .text(let s): try bind(index, s)
        case .blob(let b): try bind(index, blob: b)
        }
    }

    /// Binds parameters 1...n in order.
    public func bind(_ values: [SQLValue]) throws {
        for (i, v) in values.enumerated() { try bind(Int32(i + 1), v) }
    }

    /// The 1-based number of the parameter `name` (":carry", "@carry", "$carry", or "carry" for
    /// whichever prefix the SQL uses), asked of the host once per statement; nil when the
    /// statement has no such parameter.
    public func parameterIndex(_ name: String) throws -> Int32? {
        if let known = parameterNumbers[name] { return known == 0 ? nil : known }
        guard named, let lookup = table.bind_parameter_index else {
            throw PluginError(.unsupported, "this host's storage service has no named parameters (bind by position, or update the host)")
        }
        var number: Int32 = 0
        if let first = name.utf8.first, first == UInt8(ascii: ":") || first == UInt8(ascii: "@") || first == UInt8(ascii: "$") {
            number = lookup(handle, name)
        } else {
            for prefix in [":", "@", "$"] where number == 0 { number = lookup(handle, prefix + name) }
        }
        parameterNumbers[name] = number
        return number == 0 ? nil : number
    }

    /// Binds `value` to the parameter named `name` (with or without its prefix).
    public func bind(_ name: String, _ value: SQLValue) throws {
        guard let index = try parameterIndex(name) else {
            throw PluginError(.invalidArgument, "the statement has no parameter named '\(name)'")
        }
        try bind(index, value)
    }

    /// Binds parameters by name; every key must name a parameter of the statement.
    public func bind(_ parameters: [String: SQLValue]) throws {
        for (name, value) in parameters { try bind(name, value) }
    }

    /// Binds the named parameters an Encodable value's properties give (nil properties bind NULL).
    public func bind<E: Encodable>(encoding value: E) throws {
        try bind(try SQLParameterEncoder.parameters(value))
    }

    /// Advances: true when a row is ready, false when done.
    @discardableResult
    public func step() throws -> Bool {
        let status = table.step(handle)
        if status == Int32(CLUBHOUSE_ROW) { return true }
        if status == Int32(CLUBHOUSE_DONE) { return false }
        throw PluginError(PluginStatus(rawValue: status) ?? .error, lastError)
    }

    /// Rewinds and clears bindings.
    public func reset() throws { try check(table.reset(handle)) }

    public var columnCount: Int32 { table.column_count(handle) }
    public func columnName(_ column: Int32) -> String {
        table.column_name(handle, column).map { String(cString: $0) } ?? ""
    }
    /// The result columns' names and numbers (read once per statement: they are known at prepare).
    public var columns: RowColumns {
        if let layout { return layout }
        let made = RowColumns((0..<columnCount).map(columnName))
        layout = made
        return made
    }
    /// The 0-based number of the result column `name`, nil when there is none.
    public func columnIndex(_ name: String) -> Int32? { columns.index(of: name).map(Int32.init) }

    public func isNull(_ column: Int32) -> Bool { table.column_type(handle, column) == Int32(CLUBHOUSE_TYPE_NULL) }
    public func int64(_ column: Int32) -> Int64 { table.column_int64(handle, column) }
    public func int(_ column: Int32) -> Int { Int(table.column_int64(handle, column)) }
    public func double(_ column: Int32) -> Double { table.column_double(handle, column) }
    public func string(_ column: Int32) -> String? {
        var length = 0
        guard let p = table.column_text(handle, column, &length) else { return nil }
        return p.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
    public func blob(_ column: Int32) -> [UInt8]? {
        var length = 0
        guard let p = table.column_blob(handle, column, &length) else {
            return isNull(column) ? nil : []
        }
        return Array(UnsafeRawBufferPointer(start: p, count: length))
    }

    /// The column as a SQLValue.
    public func value(_ column: Int32) -> SQLValue {
        switch table.column_type(handle, column) {
        case Int32(CLUBHOUSE_TYPE_INTEGER): return .integer(int64(column))
        case Int32(CLUBHOUSE_TYPE_FLOAT): return .real(double(column))
        case Int32(CLUBHOUSE_TYPE_TEXT): return string(column).map(SQLValue.text) ?? .null
        case Int32(CLUBHOUSE_TYPE_BLOB): return blob(column).map(SQLValue.blob) ?? .null
        default: return .null
        }
    }

    /// The column named `name` of the current row (`.null` when there is none).
    public func value(_ name: String) -> SQLValue {
        guard let i = columns.index(of: name) else { return .null }
        return value(Int32(i))
    }

    /// The current row, copied.
    public func row() -> Row {
        let layout = columns
        var values: [SQLValue] = []
        values.reserveCapacity(layout.names.count)
        for c in 0..<Int32(layout.names.count) { values.append(value(c)) }
        return Row(layout: layout, values: values)
    }

    /// Steps to the end, copying every row (into one buffer the rows share).
    public func rows() throws -> [Row] {
        let layout = columns
        let width = layout.names.count
        var buffer: [SQLValue] = []
        var count = 0
        while try step() {
            for c in 0..<Int32(width) { buffer.append(value(c)) }
            count += 1
        }
        var rows: [Row] = []
        rows.reserveCapacity(count)
        for i in 0..<count { rows.append(Row(layout: layout, buffer: buffer, start: i * width, count: width)) }
        return rows
    }
}
