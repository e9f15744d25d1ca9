import CClubhouse
import CSQLite
import ClubhouseWire
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

    /// A plugin's create runs its migrations at every command: one already applied (same version, same
    /// name) is a plain read, without BEGIN IMMEDIATE — so it neither waits for nor fails on another
    /// connection's write transaction (before: the busy timeout, 5 s, then "database is locked").
    func testAnAppliedMigrationIsCheckedWithoutTheWriteLock() throws {
        let first = try open()
        XCTAssertEqual(first.migrate(version: 1, name: "one", sql: "CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
        let writer = try open()
        XCTAssertEqual(writer.begin(), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(writer.exec("INSERT INTO t VALUES (1)"), Int32(CLUBHOUSE_OK))
        let again = try open()
        let started = Date()
        XCTAssertEqual(again.migrate(version: 1, name: "one", sql: "CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK), again.lastError)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "waited for the writer's lock")
        XCTAssertEqual(writer.commit(), Int32(CLUBHOUSE_OK))
        // What is not applied, or applied under another name, still takes the transaction and says why.
        XCTAssertEqual(again.migrate(version: 1, name: "uno", sql: ""), Int32(CLUBHOUSE_ERROR))
        XCTAssertTrue(again.lastError.contains("recorded as 'one'"), again.lastError)
        XCTAssertEqual(again.migrate(version: 2, name: "two", sql: "CREATE TABLE u(x)"), Int32(CLUBHOUSE_OK), again.lastError)
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

    // MARK: issue 13

    func testTheConnectionIsHardenedAtTheCLevel() throws {
        let db = try open()
        XCTAssertEqual(clubhouse_sqlite_config_value(db.db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER), 0,
                       "two-argument fts3_tokenizer is off")
        XCTAssertEqual(clubhouse_sqlite_config_value(db.db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION), 0)
        XCTAssertEqual(clubhouse_sqlite_config_value(db.db, SQLITE_DBCONFIG_DEFENSIVE), 1)
        XCTAssertEqual(clubhouse_sqlite_config_value(db.db, SQLITE_DBCONFIG_TRUSTED_SCHEMA), 0)
        XCTAssertEqual(sqlite3_limit(db.db, SQLITE_LIMIT_ATTACHED, -1), 0)
        XCTAssertEqual(sqlite3_limit(db.db, SQLITE_LIMIT_SQL_LENGTH, -1), 16_000_000)
        XCTAssertEqual(db.exec("PRAGMA trusted_schema=ON"), Int32(CLUBHOUSE_DENIED))
    }

    /// Issue 27's independent round, a row of huge values: no value SQLite builds for a plugin is
    /// longer than its `reply_mb` (SQLITE_LIMIT_LENGTH), and what SQLite allocates computing one row
    /// is charged to the step or exec (`reply_mb` + 16 MiB): twelve values within the length are
    /// refused together, each refusal names the key, and the connection works on.
    func testWhatSQLiteBuildsForAPluginIsBoundedByItsReplyLimit() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var limits = ServiceLimits()
        limits.replyBytes = 2 << 20
        limits.bindBytes = 1 << 20
        let db = try PluginDatabase(path: directory + "/huge.db", owner: "p", limits: limits)
        XCTAssertEqual(sqlite3_limit(db.db, SQLITE_LIMIT_LENGTH, -1), Int32(2 << 20))
        let denied = Int32(CLUBHOUSE_DENIED)
        for sql in ["SELECT zeroblob(3000000)", "SELECT length(randomblob(3000000))", "SELECT replace(hex(zeroblob(1000000)), '0', 'ab')",
                    "SELECT hex(zeroblob(1000000)) || hex(zeroblob(100000))"] {
            XCTAssertEqual(db.exec(sql), denied, sql)
            XCTAssertEqual(db.lastError, LimitRefusal.valueBytes("p", limits), sql)
        }
        // printf past the length answers NULL rather than failing (SQLite's own choice): still no copy.
        let (printfStatus, printfRecord) = "SELECT printf('%3000000d', 1)".withCString { db.prepare($0) }
        XCTAssertEqual(printfStatus, Int32(CLUBHOUSE_OK))
        let printf = try XCTUnwrap(printfRecord.map(StorageStatement.init))
        XCTAssertEqual(printf.step(), Int32(CLUBHOUSE_ROW))
        XCTAssertEqual(printf.columnType(0), SQLITE_NULL)
        printf.finalize()
        let many = "SELECT " + Array(repeating: "zeroblob(1900000)||x'00'", count: 12).joined(separator: ", ")
        XCTAssertEqual(db.exec(many), denied)
        XCTAssertEqual(db.lastError, LimitRefusal.stepMemory("p", limits))
        XCTAssertTrue(db.lastError.contains(#"("limits": {"reply_mb": 2} in plugins.json): SQLite needed more memory than that"#), db.lastError)
        let (status, record) = many.withCString { db.prepare($0) }
        XCTAssertEqual(status, Int32(CLUBHOUSE_OK))
        let statement = try XCTUnwrap(record.map(StorageStatement.init))
        XCTAssertEqual(statement.step(), denied)
        XCTAssertEqual(db.lastError, LimitRefusal.stepMemory("p", limits))
        statement.finalize()
        // What fits is served, on the same connection.
        let (fitStatus, fitRecord) = "SELECT zeroblob(1000000)||x'00', zeroblob(1000000)||x'00'".withCString { db.prepare($0) }
        XCTAssertEqual(fitStatus, Int32(CLUBHOUSE_OK))
        let fits = try XCTUnwrap(fitRecord.map(StorageStatement.init))
        XCTAssertEqual(fits.step(), Int32(CLUBHOUSE_ROW), db.lastError)
        XCTAssertEqual(fits.columnBlob(0).count + fits.columnBlob(1).count, 2_000_002)
        fits.finalize()
        XCTAssertEqual(db.exec("CREATE TABLE t(v); INSERT INTO t VALUES (zeroblob(100))"), Int32(CLUBHOUSE_OK), db.lastError)
    }

    func testFunctionsThatReachOutsideTheDatabaseAreRefused() throws {
        let db = try open()
        for sql in ["SELECT fts3_tokenizer('t', x'4141414141414141')", "SELECT fts3_tokenizer('simple')",
                    "SELECT load_extension('x')", "SELECT readfile('/etc/passwd')", "SELECT writefile('/tmp/x', 'y')"] {
            let status = db.exec(sql)
            XCTAssertNotEqual(status, Int32(CLUBHOUSE_OK), sql)
            if sql.contains("fts3") || sql.contains("load_extension") {
                XCTAssertEqual(status, Int32(CLUBHOUSE_DENIED), sql)
                XCTAssertTrue(db.lastError.hasSuffix("() is not allowed for plugins: it reaches outside the database"), db.lastError)
            }
        }
        XCTAssertEqual(db.exec("CREATE VIRTUAL TABLE f USING fts4(body)"), Int32(CLUBHOUSE_OK), "FTS itself stays")
    }

    func testHostTablesCannotBeAlteredCreatedOrShadowed() throws {
        let db = try open()
        for sql in ["ALTER TABLE _clubhouse_migrations RENAME TO x", "ALTER TABLE _clubhouse_migrations ADD COLUMN c",
                    "ALTER TABLE _CLUBHOUSE_MIGRATIONS RENAME COLUMN name TO n", "CREATE TABLE _clubhouse_x(a)",
                    "CREATE TEMP TABLE _clubhouse_migrations(version, name)", "CREATE INDEX i ON _clubhouse_migrations(name)",
                    "CREATE VIEW _clubhouse_v AS SELECT 1", "CREATE VIRTUAL TABLE _clubhouse_f USING fts4(body)",
                    "CREATE TRIGGER t AFTER INSERT ON _clubhouse_migrations BEGIN SELECT 1; END",
                    "UPDATE _clubhouse_plugin_version SET version = '9.9.9'"] {
            XCTAssertEqual(db.exec(sql), Int32(CLUBHOUSE_DENIED), sql)
            XCTAssertTrue(db.lastError.contains("_clubhouse") || db.lastError.contains("_CLUBHOUSE"), "\(sql): \(db.lastError)")
        }
        XCTAssertEqual(db.exec("CREATE TABLE mine(a); ALTER TABLE mine ADD COLUMN b; ALTER TABLE mine RENAME TO yours"),
                       Int32(CLUBHOUSE_OK), "the plugin's own tables are its own")
        XCTAssertEqual(db.migrate(version: 1, name: "one", sql: "CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
    }

    func testTheProgressHandlerStopsAStatementOfACancelledOrLateCall() throws {
        let db = try open()
        let runaway = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"
        let cancelled = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { cancelled.cancel() }
        // The message is the call's own (read while it runs, as a plugin reads last_error).
        let (status, message) = cancelled.makeCurrent { (db.exec(runaway), db.lastError) }
        XCTAssertEqual(status, Int32(CLUBHOUSE_CANCELLED))
        XCTAssertEqual(message, "the statement was interrupted: the call was cancelled")
        let late = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        late.limit(milliseconds: 200)
        let (lateStatus, lateMessage) = late.makeCurrent { (db.exec(runaway), db.lastError) }
        XCTAssertEqual(lateStatus, Int32(CLUBHOUSE_TIMEOUT))
        XCTAssertTrue(lateMessage.hasPrefix("the statement was interrupted: the call ran past its deadline (200 ms"), lateMessage)
        // A nested call inherits the outer call's cancellation and deadline.
        let outer = CallContext(flags: 0, progress: SilentProgress(), alias: "a")
        outer.limit(milliseconds: 100)
        let nested = CallContext(flags: 0, progress: SilentProgress(), alias: "p", parent: outer)
        XCTAssertEqual(nested.makeCurrent { db.exec(runaway) }, Int32(CLUBHOUSE_TIMEOUT))
        XCTAssertEqual(db.exec("SELECT 1"), Int32(CLUBHOUSE_OK), "no current call: nothing to stop")
    }

    func testATransactionIsRolledBackOnlyAtTheEndOfTheCallThatOpenedIt() throws {
        let db = try open()
        let first = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        let second = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        XCTAssertEqual(db.exec("CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
        XCTAssertEqual(first.makeCurrent { db.begin() }, Int32(CLUBHOUSE_OK))
        XCTAssertFalse(db.rollbackAbandoned(by: second.id), "another call's transaction is left alone")
        XCTAssertTrue(db.rollbackAbandoned(by: first.id))
        XCTAssertEqual(sqlite3_get_autocommit(db.db), 1)
    }

    func testMigrationsRacingOnOneFileAreAppliedOnce() throws {
        let databases = try (0..<4).map { _ in try open() }
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let db = databases[i]
            XCTAssertEqual(db.migrate(version: 1, name: "one", sql: "CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK), db.lastError)
            XCTAssertEqual(db.migrate(version: 2, name: "two", sql: "CREATE INDEX t_x ON t(x)"), Int32(CLUBHOUSE_OK), db.lastError)
        }
        XCTAssertEqual(databases[0].migrationHistory().map(\.0), [1, 2])
    }

    func testADatabaseFromANewerPluginIsRefusedAndAnOldOneKeepsWorking() throws {
        let broker = StorageBroker(dataDirectory: directory)
        // A database made before the version table existed (only the migrations table).
        try FileManager.default.createDirectory(atPath: directory + "/s", withIntermediateDirectories: true)
        var raw: OpaquePointer?
        sqlite3_open(directory + "/s/org.x.p.sqlite", &raw)
        sqlite3_exec(raw, """
            PRAGMA journal_mode=WAL; CREATE TABLE _clubhouse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
            INSERT INTO _clubhouse_migrations(version, name) VALUES (1, 'one'); CREATE TABLE t(x);
            """, nil, nil, nil)
        sqlite3_close(raw)
        var db: PluginDatabase? = try broker.open(site: "s", pluginID: "org.x.p", owner: "p", pluginVersion: "1.2.0")
        XCTAssertEqual(db?.migrate(version: 1, name: "one", sql: "CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
        db = nil
        db = try broker.open(site: "s", pluginID: "org.x.p", owner: "p", pluginVersion: "2.0.0")
        db = nil
        XCTAssertThrowsError(try broker.open(site: "s", pluginID: "org.x.p", owner: "p", pluginVersion: "1.2.0")) {
            XCTAssertEqual("\($0)", "\(self.directory)/s/org.x.p.sqlite was written by version 2.0.0 of plugin 'p', newer than this version 1.2.0; install 2.0.0 or later, or use another data dir")
        }
        XCTAssertNoThrow(try broker.open(site: "s", pluginID: "org.x.p", owner: "p", pluginVersion: "2.0.1"))
    }

    func testASymlinkedDataDirWorksAndALinkedDatabaseFileDoesNot() throws {
        try FileManager.default.createDirectory(atPath: directory + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: directory + "/real")
        let broker = StorageBroker(dataDirectory: directory + "/link")
        let db = try broker.open(site: "s", pluginID: "org.x.p", owner: "p")
        XCTAssertEqual(db.exec("CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/real/s/org.x.p.sqlite"))
        try FileManager.default.createSymbolicLink(atPath: directory + "/real/s/org.x.q.sqlite",
                                                   withDestinationPath: directory + "/real/s/org.x.p.sqlite")
        XCTAssertThrowsError(try broker.open(site: "s", pluginID: "org.x.q", owner: "q")) {
            XCTAssertTrue("\($0)".hasPrefix("\(self.directory)/link/s/org.x.q.sqlite is a symbolic link"), "\($0)")
        }
    }

    func testFileLevelErrorsNameTheFile() throws {
        let db = try open()
        let other = try open()
        XCTAssertEqual(db.begin(), Int32(CLUBHOUSE_OK))
        sqlite3_busy_timeout(other.db, 10)
        XCTAssertEqual(other.begin(), Int32(CLUBHOUSE_BUSY))
        XCTAssertEqual(other.lastError, "\(directory)/s/org.x.p.sqlite: database is locked")
        XCTAssertEqual(db.rollback(), Int32(CLUBHOUSE_OK))
    }
}
