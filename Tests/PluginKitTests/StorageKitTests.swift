// PluginKit's Storage over a storage table backed directly by SQLite (what the host's C face does,
// minus the authorizer), counting prepares and finalizes: the statement cache reuses compiled
// statements, parameters bind by name (dictionary or Encodable), rows read by column name and
// decode as Decodable values, and the migrator applies `Migration` steps once.

import CClubhouse
import CSQLite
import XCTest
@testable import PluginKit

nonisolated(unsafe) private var database: OpaquePointer?
nonisolated(unsafe) private var prepares = 0
nonisolated(unsafe) private var finalizes = 0
nonisolated(unsafe) private var migrated: [Int32: String] = [:]
nonisolated(unsafe) private var shortTable = false

private func transient() -> sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
private func status(_ rc: Int32) -> Int32 {
    switch rc {
    case SQLITE_OK: return Int32(CLUBHOUSE_OK)
    case SQLITE_ROW: return Int32(CLUBHOUSE_ROW)
    case SQLITE_DONE: return Int32(CLUBHOUSE_DONE)
    case SQLITE_RANGE: return Int32(CLUBHOUSE_INVALID_ARGUMENT)
    default: return (rc & 0xFF) == SQLITE_CONSTRAINT ? Int32(CLUBHOUSE_CONSTRAINT) : Int32(CLUBHOUSE_ERROR)
    }
}

private func sqliteTable() -> clubhouse_storage_service {
    var table = clubhouse_storage_service(
        struct_size: UInt32(MemoryLayout<clubhouse_storage_service>.size),
        exec: { _, sql, _ in status(sqlite3_exec(database, sql, nil, nil, nil)) },
        prepare: { _, sql, out, reply in
            prepares += 1
            var stmt: OpaquePointer?
            let rc = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
            if rc != SQLITE_OK { reply?.pointee.write(reply, sqlite3_errmsg(database), strlen(sqlite3_errmsg(database))) }
            out?.pointee = stmt
            return status(rc)
        },
        bind_null: { s, i in status(sqlite3_bind_null(s, i)) },
        bind_int64: { s, i, v in status(sqlite3_bind_int64(s, i, v)) },
        bind_double: { s, i, v in status(sqlite3_bind_double(s, i, v)) },
        bind_text: { s, i, t, n in status(sqlite3_bind_text64(s, i, t, sqlite3_uint64(n), transient(), UInt8(SQLITE_UTF8))) },
        bind_blob: { s, i, b, n in status(sqlite3_bind_blob64(s, i, b, sqlite3_uint64(n), transient())) },
        step: { s in status(sqlite3_step(s)) },
        reset: { s in
            sqlite3_reset(s)
            return status(sqlite3_clear_bindings(s))
        },
        finalize: { s in
            finalizes += 1
            sqlite3_finalize(s)
        },
        column_count: { s in sqlite3_column_count(s) },
        column_type: { s, c in sqlite3_column_type(s, c) },
        column_name: { s, c in sqlite3_column_name(s, c) },
        column_int64: { s, c in sqlite3_column_int64(s, c) },
        column_double: { s, c in sqlite3_column_double(s, c) },
        column_text: { s, c, n in
            n?.pointee = Int(sqlite3_column_bytes(s, c))
            return sqlite3_column_text(s, c).map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
        },
        column_blob: { s, c, n in
            n?.pointee = Int(sqlite3_column_bytes(s, c))
            return sqlite3_column_blob(s, c)
        },
        begin: { _, _ in status(sqlite3_exec(database, "SAVEPOINT t", nil, nil, nil)) },
        commit: { _, _ in status(sqlite3_exec(database, "RELEASE t", nil, nil, nil)) },
        rollback: { _ in status(sqlite3_exec(database, "ROLLBACK TO t; RELEASE t", nil, nil, nil)) },
        last_insert_rowid: { _ in sqlite3_last_insert_rowid(database) },
        changes: { _ in Int64(sqlite3_changes(database)) },
        last_error: { _ in sqlite3_errmsg(database) },
        migrate: { _, version, name, sql, _ in
            guard let name, let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
            if migrated[version] != nil { return Int32(CLUBHOUSE_OK) }
            migrated[version] = String(cString: name)
            return status(sqlite3_exec(database, sql, nil, nil, nil))
        },
        bind_parameter_index: { s, name in sqlite3_bind_parameter_index(s, name) },
        bind_parameter_count: { s in sqlite3_bind_parameter_count(s) },
        bind_parameter_name: { s, i in sqlite3_bind_parameter_name(s, i) },
        column_index: { s, name in
            guard let name else { return -1 }
            for c in 0..<sqlite3_column_count(s) where strcmp(sqlite3_column_name(s, c), name) == 0 { return c }
            return -1
        })
    if shortTable {
        // What a host built before the appended members hands out.
        table.struct_size = UInt32(MemoryLayout.offset(of: \clubhouse_storage_service.bind_parameter_index) ?? 0)
    }
    return table
}

final class StorageKitTests: XCTestCase {
    var host = clubhouse_host()
    var table = clubhouse_storage_service()

    override func setUp() {
        sqlite3_open(":memory:", &database)
        prepares = 0
        finalizes = 0
        migrated = [:]
    }

    override func tearDown() {
        sqlite3_close_v2(database)
        database = nil
        shortTable = false
    }

    func withStorage(_ body: (Storage) throws -> Void) throws {
        table = sqliteTable()
        try withUnsafePointer(to: &host) { h in
            try withUnsafePointer(to: &table) { t in try body(Storage(host: h, table: t)) }
        }
    }

    static let schema = [
        Migration(1, "shots", "CREATE TABLE shots(id INTEGER PRIMARY KEY, club TEXT NOT NULL, carry REAL, raw BLOB)"),
        Migration(2, "shot tags", "ALTER TABLE shots ADD COLUMN tag TEXT"),
    ]

    struct Shot: Codable, Equatable {
        var club: String
        var carry: Double?
        var tag: Kind?
        enum Kind: String, Codable { case fade, draw }
    }

    func testTheMigratorAppliesEachStepOnceInOrder() throws {
        try withStorage { storage in
            try storage.migrate(StorageKitTests.schema.reversed())
            try storage.migrate(StorageKitTests.schema)
            XCTAssertEqual(migrated, [1: "shots", 2: "shot tags"])
            XCTAssertEqual(try storage.query("SELECT tag FROM shots").count, 0)
        }
    }

    func testTheCacheReusesCompiledStatementsAndFinalizesThemWithTheStorage() throws {
        try withStorage { storage in
            try storage.migrate(StorageKitTests.schema)
            let before = prepares
            for carry in [150.0, 160, 170] { try storage.run("INSERT INTO shots(club, carry) VALUES (?, ?)", ["7i", .real(carry)]) }
            for _ in 0..<5 { XCTAssertEqual(try storage.query("SELECT carry FROM shots WHERE club = ?", ["7i"]).count, 3) }
            XCTAssertEqual(prepares - before, 2, "one compile per SQL text, then reset and reused")
            XCTAssertEqual(storage.cachedStatementCount, 2)

            // A bound statement comes back reset with its bindings cleared.
            do {
            let cached = try storage.cachedStatement(sql: "SELECT count(*) AS n FROM shots WHERE carry > ?")
            try cached.bind(1, 155.0)
            XCTAssertTrue(try cached.step())
            XCTAssertEqual(cached.value("n"), .integer(2))
            let again = try storage.cachedStatement(sql: "SELECT count(*) AS n FROM shots WHERE carry > ?")
            XCTAssertTrue(again === cached, "the same compiled statement")
            XCTAssertTrue(try again.step())
            XCTAssertEqual(again.value("n"), .integer(0), "NULL bound after the reset: carry > NULL matches nothing")
            }

            // The same SQL nested: the inner use gets its own statement, the outer one is untouched.
            let outer = try storage.withCachedStatement(sql: "SELECT carry FROM shots ORDER BY carry") { statement -> [Double] in
                var carries: [Double] = []
                while try statement.step() {
                    carries.append(statement.double(0))
                    _ = try storage.query("SELECT carry FROM shots ORDER BY carry")
                }
                return carries
            }
            XCTAssertEqual(outer, [150, 160, 170])
            finalizes = 0
            storage.clearStatementCache()
            XCTAssertEqual(finalizes, 5, "insert, select by club, count, and the ordered select twice (outer and nested)")
        }
    }

    func testParametersBindByNameAndRowsReadByName() throws {
        try withStorage { storage in
            try storage.migrate(StorageKitTests.schema)
            try storage.run("INSERT INTO shots(club, carry, tag) VALUES (:club, :carry, @tag)", ["club": "7i", ":carry": 151.5, "tag": "fade"])
            try storage.run("INSERT INTO shots(club, carry, tag, raw) VALUES (:club, :carry, :tag, $raw)",
                            ["club": "PW", "carry": nil, "tag": nil, "raw": .blob([1, 2])])
            let rows = try storage.query("SELECT club, carry, tag, raw AS bytes FROM shots WHERE id >= :first ORDER BY id", ["first": 1])
            XCTAssertEqual(rows.map { $0["club"] }, ["7i", "PW"])
            XCTAssertEqual(rows[0]["carry"].double, 151.5)
            XCTAssertTrue(rows[1]["carry"].isNull)
            XCTAssertEqual(rows[1]["bytes"].bytes, [1, 2])
            XCTAssertTrue(rows[0]["nothing"].isNull)
            XCTAssertTrue(rows[0].layout === rows[1].layout, "one column layout per statement, shared by its rows")
            XCTAssertThrowsError(try storage.run("INSERT INTO shots(club) VALUES (:club)", ["clubs": "9i"])) { error in
                XCTAssertEqual((error as? PluginError)?.message, "the statement has no parameter named 'clubs'")
            }
        }
    }

    func testTheRowsOfAQueryAreWindowsOnOneBufferWithTheirOwnValues() throws {
        try withStorage { storage in
            try storage.migrate(StorageKitTests.schema)
            for (club, carry) in [("7i", 151.5), ("PW", 112.0), ("D", 251.0)] {
                try storage.run("INSERT INTO shots(club, carry) VALUES (?, ?)", [.text(club), .real(carry)])
            }
            let rows = try storage.query("SELECT club, carry, tag AS tagged, id FROM shots ORDER BY id")
            XCTAssertEqual(rows.map(\.values), [["7i", 151.5, nil, 1], ["PW", 112.0, nil, 2], ["D", 251.0, nil, 3]])
            XCTAssertEqual(rows.map { $0["carry"].double }, [151.5, 112.0, 251.0])
            XCTAssertEqual(rows[2]["id"], 3)
            XCTAssertEqual(rows[1][0], "PW")
            XCTAssertTrue(rows[1][4].isNull, "past the row's last column, not the next row's first")
            XCTAssertTrue(rows[1][-1].isNull)
            // Names of the same length as a column's are compared, not taken for it.
            XCTAssertTrue(rows[0]["clubs"].isNull)
            XCTAssertTrue(rows[0]["tagge"].isNull)
            XCTAssertTrue(rows[0]["taggee"].isNull)
            XCTAssertEqual(rows[0]["tagged"], .null)
            XCTAssertTrue(rows[0].has("tagged"))
            XCTAssertEqual(Row(columns: ["a", "b"], values: [1, "x"])["b"], "x")
        }
    }

    func testEncodableValuesBindAndDecodableRowsRead() throws {
        try withStorage { storage in
            try storage.migrate(StorageKitTests.schema)
            let shots = [Shot(club: "7i", carry: 151.5, tag: .fade), Shot(club: "PW", carry: nil, tag: nil)]
            for shot in shots { try storage.run("INSERT INTO shots(club, carry, tag) VALUES (:club, :carry, :tag)", encoding: shot) }
            XCTAssertEqual(try storage.query(Shot.self, "SELECT club, carry, tag FROM shots ORDER BY id"), shots)
            XCTAssertEqual(try storage.query(Shot.self, "SELECT club FROM shots ORDER BY id").map(\.carry), [nil, nil],
                           "an optional property reads a missing column as nil")
            XCTAssertThrowsError(try storage.query(Shot.self, "SELECT carry FROM shots")) { error in
                XCTAssertEqual("\(error)", "the row has no column 'club' (columns: carry)")
            }
            struct Wrong: Decodable { var club: Int }
            XCTAssertThrowsError(try storage.query(Wrong.self, "SELECT club FROM shots")) { error in
                XCTAssertEqual("\(error)", "column 'club' holds text(\"7i\"), not an integer that fits Int")
            }
        }
    }

    func testAnOlderHostWithoutNamedParametersIsNamedInTheError() throws {
        shortTable = true
        try withStorage { storage in
            try storage.migrate(StorageKitTests.schema)
            XCTAssertNoThrow(try storage.run("INSERT INTO shots(club) VALUES (?)", ["7i"]))
            XCTAssertThrowsError(try storage.run("INSERT INTO shots(club) VALUES (:club)", ["club": "9i"])) { error in
                XCTAssertEqual((error as? PluginError)?.status, .unsupported)
                XCTAssertEqual((error as? PluginError)?.message,
                               "this host's storage service has no named parameters (bind by position, or update the host)")
            }
        }
    }
}

/// A core's error type, as an adapter declares it: the one way errors become replies.
private enum GreenError: Error, DomainError {
    case unknownHole(Int), badSpeed

    var replyStatus: PluginStatus {
        switch self {
        case .unknownHole: return .notFound
        case .badSpeed: return .invalidArgument
        }
    }
    var replyMessage: String {
        switch self {
        case .unknownHole(let n): return "no hole \(n); list the holes with `putting holes`"
        case .badSpeed: return "--stimp must be 6–15"
        }
    }
}

final class DomainErrorTests: XCTestCase {
    func testADomainErrorRepliesWithItsStatusAndOneLineMessage() {
        XCTAssertEqual(describeError(GreenError.unknownHole(7)).0, Int32(CLUBHOUSE_NOT_FOUND))
        XCTAssertEqual(describeError(GreenError.unknownHole(7)).1, "no hole 7; list the holes with `putting holes`")
        XCTAssertEqual(describeError(GreenError.badSpeed).0, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(GreenError.badSpeed.pluginError.message, "--stimp must be 6–15")
        XCTAssertEqual(describeError(PluginError.denied("no")).0, Int32(CLUBHOUSE_DENIED), "PluginError is a DomainError too")
        struct Other: Error {}
        XCTAssertEqual(describeError(Other()).0, Int32(CLUBHOUSE_ERROR), "anything else is a plain failure")
    }
}
