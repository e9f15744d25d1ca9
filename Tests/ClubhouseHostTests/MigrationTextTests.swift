// What a plugin's central SQL may hold (MigrationText): psql meta-commands and transaction control are
// refused with line and column; backslashes in quoted text, function bodies (BEGIN … END inside dollar
// quotes or BEGIN ATOMIC), DO blocks and the scorecard's own migrations pass.

import ClubhouseHost
import Foundation
import XCTest

final class MigrationTextTests: XCTestCase {
    private func problem(_ text: String) -> String? {
        MigrationText.problem(in: Array(text.utf8), where: "f.sql")
    }

    func testTheScorecardsMigrationsPass() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Plugins/Scorecard/federation/postgresql")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        XCTAssertEqual(files.count, 4)
        for file in files {
            XCTAssertNil(MigrationText.problem(in: Array(try Data(contentsOf: folder.appendingPathComponent(file))), where: file))
        }
    }

    func testSQLPasses() {
        for text in [
            "SELECT E'a\\\\b', 'c\\d', $$\\! x$$, $t$\n  x \\not first$t$ FROM t; -- \\! in a comment\n",
            "/* \\o in /* a nested */ comment */ SELECT 1;",
            "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  COMMIT;\n  RETURN 1;\nEND $$;\nSELECT f();",
            "CREATE OR REPLACE FUNCTION g() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT CASE WHEN true THEN 1 END;\nEND;\nSELECT g();",
            "DO $$ BEGIN ROLLBACK; END $$;",
            "SELECT \"begin\" FROM \"commit\"; SELECT a$b$ FROM t; SELECT $1;",
            "SELECT x FROM t ORDER BY x;\nREFRESH MATERIALIZED VIEW CONCURRENTLY v;\nCREATE INDEX i ON t (concurrently);",
            "COMMENT ON TABLE t IS 'BEGIN; COMMIT;';",
        ] {
            XCTAssertNil(problem(text), text)
        }
    }

    /// A file of many statements on one line (1 MB) is read in one pass: a column is counted only for the
    /// message (counted for every statement, this took hours; a package is untrusted input).
    func testOneLongLineIsReadInOnePass() {
        let text = Array(String(repeating: "SELECT f(1, 'x'), \"y\" FROM t; ", count: 30_000).utf8) + Array("COMMIT;".utf8)
        let said = MigrationText.problem(in: text)
        XCTAssertEqual(said?.line, 1)
        XCTAssertEqual(said?.column, text.count - 6)
    }

    /// Bytes that are not UTF-8 are refused at the first bad one, by line and column (characters), before
    /// anything else is looked at: decoded, they would be replaced by U+FFFD (b13).
    func testTextThatIsNotUTF8IsRefusedAtItsFirstBadByte() {
        let cases: [([UInt8], String)] = [
            ([0xFF, 0xFE] + Array("SELECT 1;".utf8), "f.sql:1:1: not valid UTF-8 (byte 0xff): central SQL is UTF-8 text; save the file as UTF-8"),
            (Array("SELECT 'é';\nSELECT 'caf".utf8) + [0xE9] + Array("';".utf8), "f.sql:2:12: not valid UTF-8 (byte 0xe9)"),
            (Array("SELECT 'é".utf8) + [0xC0, 0x80] + Array("'; \\! id".utf8), "f.sql:1:10: not valid UTF-8 (byte 0xc0)"),  // overlong, before the meta-command
            (Array("-- ".utf8) + [0xED, 0xA0, 0x80], "f.sql:1:4: not valid UTF-8 (byte 0xed)"),  // a surrogate
            (Array("SELECT 1; -- cut".utf8) + [0xE2, 0x82], "f.sql:1:17: not valid UTF-8 (byte 0xe2)"),  // cut short at the end
        ]
        for (bytes, says) in cases {
            let said = MigrationText.problem(in: bytes, where: "f.sql") ?? "nil"
            XCTAssertTrue(said.hasPrefix(says), said)
        }
        XCTAssertNil(MigrationText.encodingProblem(in: Array("SELECT '😀 é ☃';\n".utf8)))
    }

    func testMetaCommandsAndTransactionControlAreRefusedWithLineAndColumn() {
        let cases: [(String, String)] = [
            ("\\! id", "f.sql:1:1: '\\!' is a psql meta-command"),
            ("SELECT 1;\n   \\o /tmp/x\n", "f.sql:2:4: '\\o' is a psql meta-command"),
            ("SELECT 1; \\gexec", "f.sql:1:11: '\\gexec' is a psql meta-command"),
            ("SELECT $$\n\\! first on a line in a body$$;", "f.sql:2:1: '\\!' is a psql meta-command"),
            ("SELECT 'é'; \\set ON_ERROR_STOP 0", "f.sql:1:13: '\\set' is a psql meta-command"),
            ("CREATE TABLE t (x int);\nCOMMIT;", "f.sql:2:1: COMMIT is transaction control"),
            ("end;", "f.sql:1:1: END is transaction control"),
            ("SELECT 1; Rollback;", "f.sql:1:11: ROLLBACK is transaction control"),
            ("abort", "f.sql:1:1: ABORT is transaction control"),
            ("START TRANSACTION;", "f.sql:1:1: START TRANSACTION is transaction control"),
            ("PREPARE TRANSACTION 'x';", "f.sql:1:1: PREPARE TRANSACTION is transaction control"),
            ("RELEASE SAVEPOINT a;", "f.sql:1:1: RELEASE is transaction control"),
            ("CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;\nBEGIN;", "f.sql:2:1: BEGIN is transaction control"),
            ("CREATE INDEX CONCURRENTLY i ON t (x);", "f.sql:1:1: CREATE INDEX CONCURRENTLY cannot run inside a transaction"),
            ("DROP INDEX CONCURRENTLY i;", "f.sql:1:1: DROP INDEX CONCURRENTLY cannot run inside a transaction"),
            ("REINDEX (VERBOSE) TABLE CONCURRENTLY t;", "f.sql:1:1: REINDEX … CONCURRENTLY cannot run inside a transaction"),
            ("ALTER TABLE t DETACH PARTITION p CONCURRENTLY;", "f.sql:1:1: ALTER TABLE … DETACH PARTITION … CONCURRENTLY cannot run inside a transaction"),
        ]
        for (text, says) in cases {
            let said = problem(text)
            XCTAssertTrue(said?.hasPrefix(says) ?? false, "\(text): \(said ?? "nil")")
        }
    }
}
