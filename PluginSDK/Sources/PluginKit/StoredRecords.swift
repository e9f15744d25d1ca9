// Stored rows read into a plugin's Decodable records, with one line for a row that does not fit:
// the plugin wrote the row, so a NULL or text where its record wants a number means the database
// was changed underneath (another program, a damaged file) — never a zero or an empty name read in
// its place, never a crash.

/// A stored row that does not fit the record it is read into; says the table, the column and what
/// to do. A failure of the world, not of the request (exit code 1).
public struct StoredRowError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(table: String, database: String, problem: String) {
        description = "a row of \(table) in the \(database) database does not fit: \(problem); restore a backup"
    }
}

extension Row {
    /// The row as a `T` (see `decode`); a row that does not fit throws `StoredRowError` naming `table`.
    public func record<T: Decodable>(_ type: T.Type = T.self, of table: String, in database: String) throws -> T {
        do {
            return try decode(T.self)
        } catch {
            throw StoredRowError(table: table, database: database, problem: "\(error)")
        }
    }
}

extension Storage {
    /// Every row of `sql` as a `T`; a row that does not fit throws `StoredRowError` naming `table`.
    public func records<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [SQLValue] = [],
                                      of table: String, in database: String) throws -> [T] {
        try query(sql, parameters).map { try $0.record(T.self, of: table, in: database) }
    }

    /// The first row of `sql` as a `T`, or nil; a row that does not fit throws `StoredRowError`.
    public func record<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [SQLValue] = [],
                                     of table: String, in database: String) throws -> T? {
        try queryOne(sql, parameters).map { try $0.record(T.self, of: table, in: database) }
    }
}
