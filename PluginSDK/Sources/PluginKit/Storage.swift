// The plugin's own SQLite database through "clubhouse.storage/1": prepared statements,
// transactions and migrations with the feel of an ordinary database API.

import CClubhouse
import ClubhouseABI

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

/// One schema step. Versions start at 1 and never skip; a shipped migration never changes.
public struct Migration: Sendable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(_ version: Int, _ name: String, _ sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// The plugin's database.
public final class Storage: @unchecked Sendable {
    let host: UnsafePointer<clubhouse_host>
    let table: UnsafePointer<clubhouse_storage_service>

    init(host: UnsafePointer<clubhouse_host>, table: UnsafePointer<clubhouse_storage_service>) {
        self.host = host
        self.table = table
    }

    private func check(_ status: Int32, _ buffer: ReplyBuffer?) throws {
        guard status != Int32(CLUBHOUSE_OK) else { return }
        let message = buffer.map(\.text).flatMap { $0.isEmpty ? nil : $0 } ?? lastError
        throw PluginError(PluginStatus(rawValue: status) ?? .error, message)
    }

    var lastError: String {
        table.pointee.last_error.flatMap { $0(host) }.map { String(cString: $0) } ?? "storage error"
    }

    /// Runs SQL without results (one or more statements).
    public func execute(_ sql: String) throws {
        let buffer = ReplyBuffer()
        let status = buffer.withSink { table.pointee.exec(host, sql, $0) }
        try check(status, buffer)
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        let buffer = ReplyBuffer()
        let status = buffer.withSink { table.pointee.prepare(host, sql, &stmt, $0) }
        try check(status, buffer)
        guard let stmt else { throw PluginError.failed("storage returned no statement for: \(sql)") }
        return Statement(storage: self, handle: stmt)
    }

    /// Runs one statement with parameters, ignoring rows.
    public func run(_ sql: String, _ parameters: [SQLValue] = []) throws {
        let statement = try prepare(sql)
        try statement.bind(parameters)
        while try statement.step() {}
    }

    /// Runs a query and collects every row (use `prepare` and `step` for big results).
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(parameters)
        var rows: [Row] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    /// The first row of a query, or nil.
    public func queryOne(_ sql: String, _ parameters: [SQLValue] = []) throws -> Row? {
        let statement = try prepare(sql)
        try statement.bind(parameters)
        return try statement.step() ? statement.row() : nil
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

    /// Applies the migrations the database does not have yet, each atomically, in order.
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

/// A row copied out of a statement.
public struct Row: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public subscript(index: Int) -> SQLValue { index < values.count ? values[index] : .null }
    public subscript(name: String) -> SQLValue {
        guard let i = columns.firstIndex(of: name) else { return .null }
        return values[i]
    }
}

/// A prepared statement: bind, step, read columns, reset, repeat. Finalized when released.
public final class Statement {
    let storage: Storage
    let handle: OpaquePointer
    private var table: clubhouse_storage_service { storage.table.pointee }

    init(storage: Storage, handle: OpaquePointer) {
        self.storage = storage
        self.handle = handle
    }

    deinit { table.finalize(handle) }

    @inline(__always) private func check(_ status: Int32) throws {
        if status != Int32(CLUBHOUSE_OK) {
            throw PluginError(PluginStatus(rawValue: status) ?? .error, storage.lastError)
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

    /// Advances: true when a row is ready, false when done.
    @discardableResult
    public func step() throws -> Bool {
        let status = table.step(handle)
        if status == Int32(CLUBHOUSE_ROW) { return true }
        if status == Int32(CLUBHOUSE_DONE) { return false }
        throw PluginError(PluginStatus(rawValue: status) ?? .error, storage.lastError)
    }

    /// Rewinds and clears bindings.
    public func reset() throws { try check(table.reset(handle)) }

    public var columnCount: Int32 { table.column_count(handle) }
    public func columnName(_ column: Int32) -> String {
        table.column_name(handle, column).map { String(cString: $0) } ?? ""
    }
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

    /// The current row, copied.
    public func row() -> Row {
        let n = columnCount
        return Row(columns: (0..<n).map(columnName), values: (0..<n).map(value))
    }
}
