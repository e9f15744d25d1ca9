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
}
