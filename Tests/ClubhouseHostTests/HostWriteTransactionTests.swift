// The host's one write-transaction helper (HostWriteTransaction.swift), which the version record, `plugin
// adopt`, the outbox's shipped mark and the access database share: committed when the work returns; rolled
// back when it throws or when the COMMIT itself fails (the version record's own copy left the transaction
// open then); a write lock held elsewhere fails the BEGIN as busy, before the work runs.

import CClubhouse
import CSQLite
import XCTest
@testable import ClubhouseHost

final class HostWriteTransactionTests: XCTestCase {
    struct Failure: Error, Equatable {
        var rc: Int32
        var message: String
    }

    var directory = ""
    var connections: [OpaquePointer] = []

    override func setUp() {
        directory = NSTemporaryDirectory() + "clubhouse-hostwrite-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        for connection in connections { sqlite3_close_v2(connection) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private var path: String { directory + "/host.sqlite" }

    /// A connection to the test file in WAL mode, with `sql` run on it.
    private func connect(_ sql: String = "", busyMilliseconds: Int32 = 5000) throws -> OpaquePointer {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let handle else { throw Failure(rc: -1, message: "cannot open") }
        connections.append(handle)
        sqlite3_busy_timeout(handle, busyMilliseconds)
        XCTAssertEqual(sqlite3_exec(handle, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; " + sql, nil, nil, nil), SQLITE_OK)
        return handle
    }

    private func count(_ db: OpaquePointer, _ table: String) -> Int64 {
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, "SELECT count(*) FROM \(table)", -1, &stmt, nil) == SQLITE_OK, sqlite3_step(stmt) == SQLITE_ROW else { return -1 }
        return sqlite3_column_int64(stmt, 0)
    }

    private func failure(_ rc: Int32, _ message: String) -> Failure { Failure(rc: rc, message: message) }

    func testTheWorkIsCommittedAndItsResultReturned() throws {
        let db = try connect("CREATE TABLE t(x)")
        let answer = try PluginDatabase.writeTransaction(on: db, failure: self.failure) { () throws(Failure) -> Int in
            XCTAssertEqual(sqlite3_get_autocommit(db), 0, "the work runs inside the transaction")
            XCTAssertEqual(sqlite3_exec(db, "INSERT INTO t VALUES (1)", nil, nil, nil), SQLITE_OK)
            return 42
        }
        XCTAssertEqual(answer, 42)
        XCTAssertEqual(sqlite3_get_autocommit(db), 1)
        XCTAssertEqual(count(try connect(), "t"), 1, "another connection sees the write")
    }

    func testWorkThatThrowsIsRolledBack() throws {
        let db = try connect("CREATE TABLE t(x)")
        XCTAssertThrowsError(try PluginDatabase.writeTransaction(on: db, failure: self.failure) { () throws(Failure) in
            XCTAssertEqual(sqlite3_exec(db, "INSERT INTO t VALUES (1)", nil, nil, nil), SQLITE_OK)
            throw Failure(rc: 0, message: "the work's own")
        }) { XCTAssertEqual($0 as? Failure, Failure(rc: 0, message: "the work's own")) }
        XCTAssertEqual(sqlite3_get_autocommit(db), 1)
        XCTAssertEqual(count(db, "t"), 0)
    }

    /// A COMMIT that fails leaves SQLite's transaction open; the helper rolls it back (the version record's
    /// copy threw and left it open, holding the write lock until the connection closed).
    func testACommitThatFailsIsRolledBackAndReported() throws {
        let db = try connect("""
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)
            """)
        XCTAssertThrowsError(try PluginDatabase.writeTransaction(on: db, failure: self.failure) { () throws(Failure) in
            // Checked at COMMIT, not here: the commit is what fails.
            XCTAssertEqual(sqlite3_exec(db, "INSERT INTO child VALUES (7)", nil, nil, nil), SQLITE_OK)
        }) { error in
            XCTAssertEqual((error as? Failure)?.rc, SQLITE_CONSTRAINT)
            XCTAssertEqual((error as? Failure)?.message, "FOREIGN KEY constraint failed", "SQLite's message of the COMMIT, read before the ROLLBACK")
        }
        XCTAssertEqual(sqlite3_get_autocommit(db), 1, "the failed commit's transaction was left open")
        XCTAssertEqual(count(db, "child"), 0)
        // The write lock is free: another connection writes at once.
        let other = try connect(busyMilliseconds: 0)
        XCTAssertEqual(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO parent VALUES (1); COMMIT", nil, nil, nil), SQLITE_OK)
    }

    /// Another writer's lock held past the busy timeout fails the BEGIN as busy; the work never runs.
    func testAWriteLockHeldElsewhereFailsTheBeginAsBusy() throws {
        let holder = try connect("CREATE TABLE t(x)")
        XCTAssertEqual(sqlite3_exec(holder, "BEGIN IMMEDIATE", nil, nil, nil), SQLITE_OK)
        let db = try connect(busyMilliseconds: 20)
        var ran = false
        XCTAssertThrowsError(try PluginDatabase.writeTransaction(on: db, failure: self.failure) { () throws(Failure) in ran = true }) { error in
            XCTAssertEqual((error as? Failure)?.rc, SQLITE_BUSY)
        }
        XCTAssertFalse(ran)
        XCTAssertEqual(sqlite3_get_autocommit(db), 1)
        XCTAssertEqual(sqlite3_exec(holder, "COMMIT", nil, nil, nil), SQLITE_OK)
    }

    /// On a plugin database: busy says so and names the file; the host's flag is down again after.
    func testAPluginDatabaseReportsABusyLockNamingTheFile() throws {
        let database = try PluginDatabase(path: path, owner: "scorecard")
        defer { database.close() }
        sqlite3_busy_timeout(database.db, 20)
        let holder = try connect()
        XCTAssertEqual(sqlite3_exec(holder, "BEGIN IMMEDIATE", nil, nil, nil), SQLITE_OK)
        XCTAssertThrowsError(try database.hostWriteTransaction { () throws(StorageError) in XCTFail("the work ran without the lock") }) { error in
            XCTAssertEqual((error as? StorageError)?.status, Int32(CLUBHOUSE_BUSY))
            XCTAssertEqual((error as? StorageError)?.message, "\(path): database is locked")
        }
        XCTAssertFalse(database.hostWriting)
        XCTAssertEqual(sqlite3_exec(holder, "COMMIT", nil, nil, nil), SQLITE_OK)
        try database.hostWriteTransaction { () throws(StorageError) in XCTAssertTrue(database.hostWriting) }
        XCTAssertFalse(database.hostWriting)
    }
}
