// A plugin database belongs to the origin of the library that created it (DataOrigin.swift): the
// storage broker refuses a library of another origin before it changes anything, keeps the data for
// a new library of the same origin (a new host's bundled build, a publisher's new version, a
// library rebuilt in place), adopts the current origin in a database made before the record, and
// `adopt` re-binds it.

import CClubhouse
import CSQLite
import XCTest
@testable import ClubhouseHost

final class DataOriginTests: XCTestCase {
    var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "clubhouse-origin-\(UUID().uuidString)"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    let bundled = DataOrigin(key: "bundled", described: "bundled with the host", library: "/opt/clubhouse/lib/clubhouse/plugins/libScorecardPlugin.so")
    let squatter = DataOrigin(key: "unsigned:/home/eve/libscorecard.so", described: "a library loaded from a path (no package, no signature)",
                              library: "/home/eve/libscorecard.so")

    private func open(_ origin: DataOrigin?, version: String? = "1.0.0") throws(StorageError) -> PluginDatabase {
        try StorageBroker(dataDirectory: directory).open(site: "club", pluginID: "org.clubhouse.scorecard", owner: "scorecard",
                                                         pluginVersion: version, origin: origin,
                                                         adoptCommand: "clubhouse --config c.json plugin adopt")
    }

    private var path: String { directory + "/club/org.clubhouse.scorecard.sqlite" }

    private func bytes() -> Data? { FileManager.default.contents(atPath: path) }

    /// Runs `sql` on the file through the system SQLite, as something other than the host would.
    private func behindTheHost(_ sql: String, file: StaticString = #filePath, line: UInt = #line) {
        var raw: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &raw), SQLITE_OK, file: file, line: line)
        XCTAssertEqual(sqlite3_exec(raw, sql, nil, nil, nil), SQLITE_OK, file: file, line: line)
        sqlite3_close(raw)
    }

    func testALibraryOfAnotherOriginIsRefusedAndNothingChanges() throws {
        do {
            let db = try open(bundled)
            XCTAssertEqual(db.exec("CREATE TABLE rounds(x); INSERT INTO rounds VALUES (1)"), Int32(CLUBHOUSE_OK))
            XCTAssertEqual(db.recordedOrigin(), bundled)
            db.close()
        }
        let before = bytes()
        XCTAssertNotNil(before)
        do {
            _ = try open(squatter, version: "99.0.0")
            XCTFail("a squatter opened the data")
        } catch {
            XCTAssertEqual(error.status, Int32(CLUBHOUSE_DENIED))
            XCTAssertEqual(error.message, "the data of org.clubhouse.scorecard at site 'club' (\(path)) belongs to the library that created it, "
                + "bundled with the host (/opt/clubhouse/lib/clubhouse/plugins/libScorecardPlugin.so); this library, /home/eve/libscorecard.so, "
                + "is a library loaded from a path (no package, no signature), so it may not open that data; if it should take the data over, "
                + "run: clubhouse --config c.json plugin adopt org.clubhouse.scorecard --site club")
        }
        XCTAssertEqual(bytes(), before, "the refused open changed the file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/club/org.clubhouse.scorecard.backups"), "no backup is made")
        let db = try open(bundled)
        XCTAssertNil(db.upgrade)
        XCTAssertEqual(db.exec("SELECT * FROM rounds"), Int32(CLUBHOUSE_OK))
    }

    func testTheSameOriginKeepsItsDataAcrossVersionsAndPaths() throws {
        try open(bundled).close()
        // A new host's build of the bundled plugin (elsewhere, newer) keeps the data and upgrades it.
        let newHost = DataOrigin(key: "bundled", described: "bundled with the host", library: "/usr/lib/clubhouse/plugins/libScorecardPlugin.so")
        let db = try open(newHost, version: "1.1.0")
        XCTAssertEqual(db.upgrade?.to, "1.1.0")
        XCTAssertEqual(db.recordedOrigin()?.library, bundled.library, "the record names the library that created the data")
    }

    func testADatabaseWithoutARecordAdoptsTheFirstOriginThatOpensIt() throws {
        // A database from a host before the record: no origin table at all.
        try open(nil).close()
        behindTheHost("DROP TABLE _clubhouse_origin")
        let db = try open(squatter)
        XCTAssertEqual(db.recordedOrigin(), squatter)
        db.close()
        XCTAssertThrowsError(try open(bundled)) { XCTAssertEqual(($0 as? StorageError)?.status, Int32(CLUBHOUSE_DENIED)) }
    }

    func testAdoptRebindsTheData() throws {
        try open(bundled).close()
        let db = try open(nil)
        try db.adopt(squatter)
        db.close()
        XCTAssertNoThrow(try open(squatter).close())
        XCTAssertThrowsError(try open(bundled)) { error in
            XCTAssertTrue("\(error)".contains("belongs to the library that created it, a library loaded from a path"), "\(error)")
        }
    }

    /// Two adopts side by side (the thirteenth outside round, n25): both had read "bundled" and both said they
    /// took the data from it. Each now reports what its own write transaction replaced.
    func testAnAdoptReportsWhatItsOwnWriteReplacedNotWhatItReadBefore() throws {
        try open(bundled).close()
        let first = try open(nil), second = try open(nil)
        XCTAssertEqual(first.recordedOrigin(), bundled)
        XCTAssertEqual(second.recordedOrigin(), bundled)
        XCTAssertEqual(try first.adopt(squatter), bundled)
        let other = DataOrigin(key: "unsigned:/home/mallory/libscorecard.so", described: "a library loaded from a path (no package, no signature)",
                               library: "/home/mallory/libscorecard.so")
        XCTAssertEqual(try second.adopt(other), squatter, "the second adopt took the data from the first's library, not from the bundled one")
        first.close()
        second.close()
        XCTAssertNoThrow(try open(other).close())
    }

    func testAPluginCannotWriteTheRecord() throws {
        let db = try open(squatter)
        XCTAssertEqual(db.exec("UPDATE _clubhouse_origin SET origin = 'bundled'"), Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(db.exec("DELETE FROM _clubhouse_origin"), Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(db.exec("DROP TABLE _clubhouse_origin"), Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(db.recordedOrigin(), squatter)
    }

    /// A rollback pin's digest of the data (DatabaseBackups.contentDigest) leaves the record out: recording
    /// an origin at a first open, or adopting, is not a write of the plugin's.
    func testTheRecordIsNotPartOfTheDataDigest() throws {
        let db = try open(bundled)
        XCTAssertEqual(db.exec("CREATE TABLE rounds(x); INSERT INTO rounds VALUES (1)"), Int32(CLUBHOUSE_OK))
        db.close()
        let before = try XCTUnwrap(DatabaseBackups.contentDigest(database: path))
        let again = try open(nil)
        try again.adopt(squatter)
        again.close()
        XCTAssertEqual(DatabaseBackups.contentDigest(database: path), before)
        let writer = try open(squatter)
        XCTAssertEqual(writer.exec("INSERT INTO rounds VALUES (2)"), Int32(CLUBHOUSE_OK))
        writer.close()
        XCTAssertNotEqual(DatabaseBackups.contentDigest(database: path), before, "a row of the plugin's is")
    }

    func testARecordThatCannotBeWrittenIsAClearError() throws {
        try open(bundled).close()
        behindTheHost("DROP TABLE _clubhouse_origin; CREATE TABLE _clubhouse_origin(id INTEGER PRIMARY KEY)")
        let db = try open(nil)
        XCTAssertThrowsError(try db.adopt(squatter)) { error in
            XCTAssertEqual("\(error)", "\(path): cannot record whose data it is: table main._clubhouse_origin has no column named origin; "
                + "if the file is damaged, plugin backups lists its kept copies")
        }
    }

    // MARK: the twelfth outside attack (b13, b21, b09)

    private func rawCount(_ table: String) -> Int64 {
        var raw: OpaquePointer?, stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt); sqlite3_close(raw) }
        guard sqlite3_open(path, &raw) == SQLITE_OK, sqlite3_prepare_v2(raw, "SELECT count(*) FROM \(table)", -1, &stmt, nil) == SQLITE_OK,
              sqlite3_step(stmt) == SQLITE_ROW else { return -1 }
        return sqlite3_column_int64(stmt, 0)
    }

    private func installed(_ dataDirectory: String) -> DataOrigin {
        DataOrigin(key: DataOrigin.installedKey(id: "org.clubhouse.scorecard"),
                   described: "a package not signed by a publisher of the site, installed in \(dataDirectory)/plugins/org.clubhouse.scorecard",
                   library: "\(dataDirectory)/plugins/org.clubhouse.scorecard/1.0.0/libscorecard.so")
    }

    /// b13: a record from before package origins were relative — the folder's absolute path in an install
    /// tree wherever the data directory was then — is the same package: accepted and rewritten relative.
    /// A path library's record (the key names the library itself) is not, nor another id's folder.
    func testAnInstalledPackagesAbsoluteRecordIsItsFolderWhereverTheDataDirectoryWas() throws {
        try open(bundled).close()
        behindTheHost("""
            UPDATE _clubhouse_origin SET origin = 'unsigned:/old/data/plugins/org.clubhouse.scorecard',
              described = 'a package not signed by a publisher of the site, installed in /old/data/plugins/org.clubhouse.scorecard',
              library = '/old/data/plugins/org.clubhouse.scorecard/1.0.0/libscorecard.so'
            """)
        let db = try open(installed(directory))
        XCTAssertEqual(db.recordedOrigin(), installed(directory), "rewritten relative")
        db.close()
        XCTAssertThrowsError(try open(squatter)) { XCTAssertEqual(($0 as? StorageError)?.status, Int32(CLUBHOUSE_DENIED)) }

        for (key, library) in [("unsigned:/old/plugins/org.clubhouse.scorecard", "/old/plugins/org.clubhouse.scorecard"),
                               ("unsigned:/old/plugins/org.other", "/old/plugins/org.other/1.0.0/libother.so")] {
            behindTheHost("UPDATE _clubhouse_origin SET origin = '\(key)', described = 'x', library = '\(library)'")
            XCTAssertThrowsError(try open(installed(directory)), key) {
                XCTAssertTrue("\($0)".contains("belongs to the library that created it, x (\(library))"), "\($0)")
            }
        }
    }

    /// b21: a connection opened for one origin is refused once the data is handed to another
    /// (`plugin adopt` in another process), at the next call's first use — and served again when adopted back.
    func testAConnectionIsRefusedOnceTheDataIsAdoptedAwayUnderIt() throws {
        let serving = try open(bundled)
        let service = StorageService(database: serving)
        let first = CallContext(flags: 0, progress: SilentProgress(), alias: "scorecard")
        XCTAssertTrue(first.makeCurrent { service.exec("CREATE TABLE players(name)") }.isOK)
        let other = try open(nil)
        try other.adopt(squatter)
        let second = CallContext(flags: 0, progress: SilentProgress(), alias: "scorecard")
        let refused = second.makeCurrent { service.exec("INSERT INTO players VALUES ('Carol')") }
        XCTAssertEqual(refused.status, Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(refused.message, "the data of org.clubhouse.scorecard at site 'club' (\(path)) belongs to the library that created it, "
            + "a library loaded from a path (no package, no signature) (/home/eve/libscorecard.so); this library, "
            + "/opt/clubhouse/lib/clubhouse/plugins/libScorecardPlugin.so, is bundled with the host, so it may not open that data; "
            + "if it should take the data over, run: clubhouse --config c.json plugin adopt org.clubhouse.scorecard --site club")
        // Every way in: a statement prepared before, a transaction, outside any call.
        XCTAssertEqual(second.makeCurrent { service.begin() }.status, Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(service.prepare("SELECT 1").0.status, Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(rawCount("players"), 0, "nothing was written")
        try other.adopt(bundled)
        other.close()
        let third = CallContext(flags: 0, progress: SilentProgress(), alias: "scorecard")
        XCTAssertTrue(third.makeCurrent { service.exec("INSERT INTO players VALUES ('Dan')") }.isOK, "adopted back")
    }

    /// An in-process plugin's own thread (storage used outside any call) is checked at most every 100 ms,
    /// by the coarse clock: an adopt reaches it once that much has passed, and a call's first use at once.
    func testAThreadOutsideAnyCallIsRefusedWithinTheRecheckInterval() throws {
        let serving = try open(bundled)
        let service = StorageService(database: serving)
        XCTAssertTrue(service.exec("CREATE TABLE players(name)").isOK, "outside any call")
        let other = try open(nil)
        try other.adopt(squatter)
        other.close()
        usleep(150_000)
        let outside = service.exec("INSERT INTO players VALUES ('Dan')")
        XCTAssertEqual(outside.status, Int32(CLUBHOUSE_DENIED), "outside any call, once 100 ms have passed")
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: "scorecard")
        XCTAssertEqual(call.makeCurrent { service.exec("INSERT INTO players VALUES ('Carol')") }.status, Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(rawCount("players"), 0, "nothing was written")
    }

    /// b09: a bundled plugin's id is that plugin's: a library of another origin is refused its data even
    /// when none exists yet, and no file is created; the bundled plugin itself, and any id no bundled
    /// plugin declares, are not.
    func testABundledPluginsIdIsRefusedToAnotherOriginBeforeAnyDataExists() throws {
        let owner: @Sendable () -> String? = { "/opt/clubhouse/lib/clubhouse/plugins/libScorecardPlugin.so" }
        let broker = StorageBroker(dataDirectory: directory)
        XCTAssertThrowsError(try broker.open(site: "club", pluginID: "org.clubhouse.scorecard", owner: "fake", origin: squatter,
                                             adoptCommand: "clubhouse --config c.json plugin adopt", bundledOwner: owner)) { error in
            XCTAssertEqual((error as? StorageError)?.status, Int32(CLUBHOUSE_DENIED))
            XCTAssertEqual((error as? StorageError)?.message, "org.clubhouse.scorecard is the id of a plugin bundled with the host "
                + "(/opt/clubhouse/lib/clubhouse/plugins/libScorecardPlugin.so), so its data at site 'club' (\(self.path)) is that plugin's; "
                + "this library, /home/eve/libscorecard.so, is a library loaded from a path (no package, no signature), so it may not create or open it: "
                + "give this library an id of its own, or, to hand the bundled plugin's data to it, "
                + "run: clubhouse --config c.json plugin adopt org.clubhouse.scorecard --site club")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "no database was created")
        // A database made before the record is not taken either.
        try open(nil).close()
        XCTAssertThrowsError(try broker.open(site: "club", pluginID: "org.clubhouse.scorecard", owner: "fake", origin: squatter, bundledOwner: owner))
        XCTAssertNil(try open(nil).recordedOrigin())
        XCTAssertNoThrow(try broker.open(site: "club", pluginID: "org.clubhouse.scorecard", owner: "scorecard", origin: bundled, bundledOwner: owner).close())
        XCTAssertNoThrow(try broker.open(site: "club", pluginID: "org.example.mine", owner: "mine", origin: squatter, bundledOwner: { nil }).close())
    }
}
