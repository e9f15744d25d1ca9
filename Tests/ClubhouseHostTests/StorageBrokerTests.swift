import CClubhouse
import CSQLite
import XCTest
@testable import ClubhouseHost

final class StorageBrokerTests: XCTestCase {
    var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "clubhouse-storage-\(UUID().uuidString)"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func open() throws -> PluginDatabase {
        try StorageBroker(dataDirectory: directory).open(site: "s", pluginID: "org.x.p", owner: "p")
    }

    func testOpensOneWALDatabasePerSitePerPlugin() throws {
        let db = try open()
        XCTAssertEqual(db.path, directory + "/s/org.x.p.sqlite")
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(db.db, "PRAGMA journal_mode", -1, &stmt, nil)
        XCTAssertEqual(sqlite3_step(stmt), SQLITE_ROW)
        XCTAssertEqual(String(cString: sqlite3_column_text(stmt, 0)), "wal")
        sqlite3_finalize(stmt)
        XCTAssertEqual(db.exec("CREATE TABLE a(id INTEGER PRIMARY KEY); CREATE TABLE b(a INTEGER REFERENCES a(id))"), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(db.exec("INSERT INTO b VALUES (7)"), Int32(CLUBHOUSE_CONSTRAINT), "foreign keys are on")
        XCTAssertEqual(db.lastError, "FOREIGN KEY constraint failed")
    }

    func testMigrationsAreRecordedInOrderAndAtomically() throws {
        let db = try open()
        XCTAssertEqual(db.migrate(version: 1, name: "one", sql: "CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(db.migrate(version: 1, name: "one", sql: "CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK), "already applied: no-op")
        XCTAssertEqual(db.migrate(version: 3, name: "three", sql: "CREATE TABLE u(x)"), Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertTrue(db.lastError.contains("cannot follow migration 1"), db.lastError)
        XCTAssertEqual(db.migrate(version: 1, name: "uno", sql: ""), Int32(CLUBHOUSE_ERROR))
        XCTAssertTrue(db.lastError.contains("recorded as 'one'"), db.lastError)
        // A failing migration leaves neither its tables nor its record.
        XCTAssertNotEqual(db.migrate(version: 2, name: "two", sql: "CREATE TABLE v(x); CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
        XCTAssertTrue(db.lastError.contains("migration 2 ('two') of plugin 'p' failed"), db.lastError)
        XCTAssertEqual(db.exec("SELECT * FROM v"), Int32(CLUBHOUSE_ERROR), "v was rolled back")
        XCTAssertEqual(db.migrate(version: 2, name: "two", sql: "CREATE TABLE v(x)"), Int32(CLUBHOUSE_OK))
    }

    func testTheAuthorizerFencesThePluginIn() throws {
        let db = try open()
        XCTAssertEqual(db.exec("ATTACH DATABASE '\(directory)/other.sqlite' AS o"), Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(db.lastError, "ATTACH and DETACH are not allowed: a plugin reaches only its own database")
        XCTAssertEqual(db.exec("INSERT INTO _clubhouse_migrations(version, name) VALUES (99, 'x')"), Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(db.exec("DROP TABLE _clubhouse_migrations"), Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(db.exec("PRAGMA writable_schema=ON"), Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(db.exec("SELECT load_extension('/tmp/x.so')"), Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(db.exec("SELECT * FROM _clubhouse_migrations"), Int32(CLUBHOUSE_OK), "reading is fine")
        XCTAssertEqual(db.exec("PRAGMA integrity_check"), Int32(CLUBHOUSE_OK))
    }

    func testTransactionsNestAsSavepoints() throws {
        let db = try open()
        XCTAssertEqual(db.exec("CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(db.begin(), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(db.exec("INSERT INTO t VALUES (1)"), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(db.begin(), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(db.exec("INSERT INTO t VALUES (2)"), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(db.rollback(), Int32(CLUBHOUSE_OK), "inner rollback undoes only the savepoint")
        XCTAssertEqual(db.commit(), Int32(CLUBHOUSE_OK))
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(db.db, "SELECT group_concat(x) FROM t", -1, &stmt, nil)
        sqlite3_step(stmt)
        XCTAssertEqual(String(cString: sqlite3_column_text(stmt, 0)), "1")
        sqlite3_finalize(stmt)
        XCTAssertEqual(db.commit(), Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(db.lastError, "commit without begin")
        XCTAssertEqual(db.begin(), Int32(CLUBHOUSE_OK))
        XCTAssertTrue(db.rollbackAbandoned(), "an abandoned transaction is found and rolled back")
        XCTAssertFalse(db.rollbackAbandoned())
    }

    func testAnUnwritableDataDirectoryIsAClearError() {
        XCTAssertThrowsError(try StorageBroker(dataDirectory: "/proc/clubhouse").open(site: "s", pluginID: "p.q", owner: "q")) {
            XCTAssertTrue("\($0)".contains("cannot create the data directory"), "\($0)")
            XCTAssertTrue("\($0)".contains("--data-dir or CLUBHOUSE_DATA_DIR"), "\($0)")
        }
    }
}
