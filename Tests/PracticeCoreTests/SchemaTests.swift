import Foundation
import XCTest
@testable import PracticeCore

/// Runs the schema on the system SQLite, loaded with dlopen so the test target needs no new
/// dependency (the adapter will run the same SQL through the host's storage service).
final class SQLiteSchemaTests: XCTestCase {
    private var sqlite: SQLite!

    override func setUpWithError() throws {
        sqlite = try SQLite.open()
        try sqlite.exec("PRAGMA foreign_keys = ON")
        for migration in PracticeSchema.migrations { try sqlite.exec(migration.sql) }
    }

    override func tearDown() { sqlite = nil }

    private let hashA = String(repeating: "a", count: 64)
    private let hashB = String(repeating: "b", count: 64)

    private func seed() throws {
        try sqlite.exec("""
        INSERT INTO kpi_templates VALUES ('\(hashA)', '7i', '1.0', '{}', 'user', 't');
        INSERT INTO sessions (content_hash, source_name, imported_at, shot_count, source_columns) VALUES ('\(hashB)', 'x.csv', 't', 1, '[]');
        INSERT INTO club_subsessions (session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity,
                                      a_percent, averages_json)
            VALUES (1, '7i', '\(hashA)', 1, 1, 0, 0, 'invalid', NULL, '{}');
        INSERT INTO shots (session_id, row_index, club, ball_speed_mph, grade, raw_json) VALUES (1, 4, '7i', 101.5, 'A', '{}');
        """)
    }

    private func assertFails(_ sql: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try sqlite.exec(sql), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(fragment), "\(error)", file: file, line: line)
        }
    }

    func testFactTablesRefuseUpdateAndDelete() throws {
        try seed()
        for table in PracticeSchema.factTables {
            assertFails("UPDATE \(table) SET rowid = rowid", "\(table) rows are immutable facts; insert a new row instead")
            assertFails("DELETE FROM \(table)", "\(table) rows are immutable facts and are never deleted")
        }
        XCTAssertEqual(try sqlite.query("SELECT count(*) FROM shots"), [["1"]])
    }

    func testLiveJournalIsImmutableUniqueAndReferenced() throws {
        try seed()
        try sqlite.exec("INSERT INTO live_sessions (device, started_at) VALUES ('lm', 't')")
        try sqlite.exec("INSERT INTO live_shots (live_session_id, shot_number, club, ball_speed_mph, grade, template_hash, raw_json, received_at) VALUES (1, 1, '7i', 101, 'A', '\(hashA)', '{}', 't')")
        assertFails("INSERT INTO live_shots (live_session_id, shot_number, club, raw_json, received_at) VALUES (1, 1, '7i', '{}', 't')",
                    "UNIQUE constraint failed: live_shots.live_session_id, live_shots.shot_number")
        assertFails("INSERT INTO live_shots (live_session_id, shot_number, club, raw_json, received_at) VALUES (7, 1, '7i', '{}', 't')",
                    "FOREIGN KEY constraint failed")
        XCTAssertEqual(try sqlite.query(PracticeSchema.SQL.selectOpenLiveSessions), [["1", "lm", "t"]])
        try sqlite.exec("INSERT INTO live_closures (live_session_id, session_id, closed_at, reason) VALUES (1, 1, 't', 'stream ended')")
        XCTAssertEqual(try sqlite.query(PracticeSchema.SQL.selectOpenLiveSessions), [])
        assertFails("INSERT INTO live_closures (live_session_id, session_id, closed_at, reason) VALUES (1, NULL, 't', 'again')",
                    "UNIQUE constraint failed")
        for table in PracticeSchema.liveFactTables {
            assertFails("UPDATE \(table) SET rowid = rowid", "\(table) rows are immutable facts; insert a new row instead")
            assertFails("DELETE FROM \(table)", "\(table) rows are immutable facts and are never deleted")
        }
    }

    func testUniquenessAndForeignKeys() throws {
        try seed()
        assertFails("INSERT INTO sessions (content_hash, source_name, imported_at, shot_count, source_columns) VALUES ('\(hashB)', 'y.csv', 't', 1, '[]')",
                    "UNIQUE constraint failed: sessions.content_hash")
        assertFails("INSERT INTO shots (session_id, row_index, club, raw_json) VALUES (1, 4, '7i', '{}')",
                    "UNIQUE constraint failed: shots.session_id, shots.row_index")
        assertFails("INSERT INTO shots (session_id, row_index, club, raw_json) VALUES (9, 5, '7i', '{}')", "FOREIGN KEY constraint failed")
        assertFails("INSERT INTO club_subsessions (session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, averages_json) VALUES (1, '5i', '\(String(repeating: "c", count: 64))', 1, 1, 0, 0, 'invalid', '{}')",
                    "FOREIGN KEY constraint failed")
        assertFails("INSERT INTO club_subsessions (session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, averages_json) VALUES (1, '7i', '\(hashA)', 1, 1, 0, 0, 'invalid', '{}')",
                    "UNIQUE constraint failed")
        assertFails("INSERT INTO club_subsessions (session_id, club, shot_count, validity, a_percent, averages_json) VALUES (1, '5i', 3, 'invalid', 50, '{}')",
                    "CHECK constraint failed")
        assertFails("INSERT INTO kpi_templates VALUES ('NOTHEX', '7i', '1.0', '{}', 'user', 't')", "CHECK constraint failed")
        // A re-analysis with another template is a new sub-session, not a change.
        try sqlite.exec("INSERT INTO kpi_templates VALUES ('\(String(repeating: "d", count: 64))', '7i', '1.0', '{}', 'user', 't')")
        try sqlite.exec("INSERT INTO club_subsessions (session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, averages_json) VALUES (1, '7i', '\(String(repeating: "d", count: 64))', 1, 0, 1, 0, 'invalid', '{}')")
    }

    func testPreferencesAreTheMutableState() throws {
        try seed()
        let upsert = PracticeSchema.SQL.upsertPreference.replacingOccurrences(of: "VALUES (?, ?, ?)", with: "VALUES ('\(hashA)', 'Mine', 0)")
        try sqlite.exec(upsert)
        try sqlite.exec(PracticeSchema.SQL.upsertPreference.replacingOccurrences(of: "VALUES (?, ?, ?)", with: "VALUES ('\(hashA)', 'Renamed', 1)"))
        try sqlite.exec(PracticeSchema.SQL.upsertActive.replacingOccurrences(of: "VALUES (?, ?)", with: "VALUES ('7i', '\(hashA)')"))
        XCTAssertEqual(try sqlite.query(PracticeSchema.SQL.selectTemplates),
                       [[hashA, "7i", "{}", "user", "t", "Renamed", "1"]])
        XCTAssertEqual(try sqlite.query(PracticeSchema.SQL.selectActive), [["7i", hashA]])
        try sqlite.exec("DELETE FROM active_templates")
    }

    func testStatementsPrepare() throws {
        let statements = [PracticeSchema.SQL.insertTemplate, PracticeSchema.SQL.selectTemplates, PracticeSchema.SQL.upsertPreference,
                          PracticeSchema.SQL.selectActive, PracticeSchema.SQL.upsertActive, PracticeSchema.SQL.insertSession,
                          PracticeSchema.SQL.selectSessions, PracticeSchema.SQL.insertSubsession, PracticeSchema.SQL.selectSubsessions,
                          PracticeSchema.SQL.insertShot, PracticeSchema.SQL.selectShots]
        for sql in statements { XCTAssertNoThrow(try sqlite.prepareOnly(sql), sql) }
        XCTAssertEqual(PracticeSchema.SQL.insertShot.components(separatedBy: "?").count - 1, 3 + ShotMetric.allCases.count + 2)
    }
}

/// The few SQLite calls the schema tests need, found with dlopen/dlsym.
private final class SQLite {
    typealias OpenFn = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias CloseFn = @convention(c) (OpaquePointer?) -> Int32
    typealias Callback = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                         UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32
    typealias ExecFn = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Callback?, UnsafeMutableRawPointer?,
                                       UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32
    typealias FreeFn = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias PrepareFn = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?,
                                          UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32
    typealias FinalizeFn = @convention(c) (OpaquePointer?) -> Int32
    typealias ErrmsgFn = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let db: OpaquePointer
    private let close: CloseFn, execFn: ExecFn, free: FreeFn, prepare: PrepareFn, finalize: FinalizeFn, errmsg: ErrmsgFn

    static func open() throws -> SQLite {
        guard let handle = dlopen("libsqlite3.so.0", RTLD_NOW) ?? dlopen("libsqlite3.so", RTLD_NOW) else {
            let reason = "the system SQLite library (libsqlite3.so.0) is not installed"
            print("skipped: \(reason)")
            throw XCTSkip(reason)
        }
        func symbol<T>(_ name: String, _ type: T.Type) throws -> T {
            guard let p = dlsym(handle, name) else { throw Failure(description: "SQLite has no \(name)") }
            return unsafeBitCast(p, to: type)
        }
        let open = try symbol("sqlite3_open", OpenFn.self)
        var db: OpaquePointer? = nil
        guard open(":memory:", &db) == 0, let db else { throw Failure(description: "cannot open an in-memory database") }
        return SQLite(db: db, close: try symbol("sqlite3_close", CloseFn.self), execFn: try symbol("sqlite3_exec", ExecFn.self),
                      free: try symbol("sqlite3_free", FreeFn.self), prepare: try symbol("sqlite3_prepare_v2", PrepareFn.self),
                      finalize: try symbol("sqlite3_finalize", FinalizeFn.self), errmsg: try symbol("sqlite3_errmsg", ErrmsgFn.self))
    }

    private init(db: OpaquePointer, close: @escaping CloseFn, execFn: @escaping ExecFn, free: @escaping FreeFn,
                 prepare: @escaping PrepareFn, finalize: @escaping FinalizeFn, errmsg: @escaping ErrmsgFn) {
        self.db = db
        self.close = close
        self.execFn = execFn
        self.free = free
        self.prepare = prepare
        self.finalize = finalize
        self.errmsg = errmsg
    }

    deinit { _ = close(db) }

    func exec(_ sql: String) throws { _ = try query(sql) }

    /// Rows of text cells (NULL as "NULL").
    func query(_ sql: String) throws -> [[String]] {
        final class Rows { var rows: [[String]] = [] }
        let rows = Rows()
        var message: UnsafeMutablePointer<CChar>? = nil
        let callback: Callback = { context, count, values, _ in
            guard let context else { return 1 }
            let rows = Unmanaged<Rows>.fromOpaque(context).takeUnretainedValue()
            rows.rows.append((0..<Int(count)).map { i in values?[i].map { String(cString: $0) } ?? "NULL" })
            return 0
        }
        let status = execFn(db, sql, callback, Unmanaged.passUnretained(rows).toOpaque(), &message)
        if status != 0 {
            let text = message.map { String(cString: $0) } ?? "status \(status)"
            free(message)
            throw Failure(description: text)
        }
        return rows.rows
    }

    func prepareOnly(_ sql: String) throws {
        var statement: OpaquePointer? = nil
        guard prepare(db, sql, -1, &statement, nil) == 0 else {
            throw Failure(description: errmsg(db).map { String(cString: $0) } ?? "prepare failed")
        }
        _ = finalize(statement)
    }
}
