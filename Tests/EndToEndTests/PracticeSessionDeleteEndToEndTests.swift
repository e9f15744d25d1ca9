// `practice session delete` (issue 20.8): confirmed (asked on a terminal, --yes in scripts), logged,
// all or nothing; the session leaves every list and trend; facts stay immutable otherwise; the same
// file can be imported again afterwards as a new session.

import ClubhouseJSON
import Foundation
import XCTest

final class PracticeSessionDeleteEndToEndTests: XCTestCase {
    private func export(_ c: Clubhouse, _ name: String, carry: Int) throws -> String {
        let header = #""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle","Carry Distance""#
        var lines = [header]
        for i in 0..<12 { lines.append("\"7i\",\"\(100 + i % 5)\",\"1.3\(i % 5)\",\"\(5000 + 40 * i)\",\"\(44 + i % 4)\",\"\(carry + i % 7)\"") }
        return try c.write(name, lines.joined(separator: "\n") + "\n")
    }

    func testDeleteIsConfirmedLoggedAndTakesTheSessionOutOfEveryTrend() throws {
        let c = try Clubhouse()
        let first = try export(c, "monday.csv", carry: 150)
        let second = try export(c, "tuesday.csv", carry: 160)
        try c.succeed(["practice", "import", first, "--date", "2026-03-02"])
        try c.succeed(["practice", "import", second, "--date", "2026-03-03"])
        func sessionIDs() throws -> [Int] {
            try c.succeed(["practice", "sessions", "--json"]).json()["sessions"]?.arrayValue?
                .compactMap { $0["session"]?["id"]?.intValue } ?? []
        }
        XCTAssertEqual(try sessionIDs(), [1, 2])

        // Without --yes (not a terminal): nothing changes, exit 2, the question and how to confirm.
        try c.fail(["practice", "session", "delete", "1"], exitCode: 2,
                   contains: ["session 1 (\(first), 2026-03-02, 12 shots) will be deleted for good", "run it again with --yes"])
        XCTAssertEqual(try sessionIDs(), [1, 2])
        try c.fail(["practice", "session", "delete", "9", "--yes"], exitCode: 2, contains: ["no session 9"])
        try c.fail(["practice", "session", "delete", "1", "--yes", "--reason", " "], exitCode: 2, contains: ["--reason is empty"])

        let deleted = try c.succeed(["practice", "session", "delete", "1", "--yes", "--reason", "test swings", "--json"]).json()
        XCTAssertEqual(deleted["session"]?["id"]?.intValue, 1)
        XCTAssertEqual(deleted["reason"]?.stringValue, "test swings")
        XCTAssertEqual(try sessionIDs(), [2])
        try c.fail(["practice", "session", "1"], exitCode: 2, contains: ["no session 1"])
        let trend = try c.succeed(["practice", "trends", "--club", "7i", "--json"]).json()
        XCTAssertEqual(trend["points"]?.arrayValue?.count, 1, "\(trend)")

        // The same file again is a new session (the content hash is free again).
        let again = try c.succeed(["practice", "import", first, "--date", "2026-03-02", "--json"]).json()
        XCTAssertEqual(again["session"]?["shot_count"]?.intValue, 12)
        XCTAssertEqual(try sessionIDs().count, 2)

        // The log and the immutability of every other fact, read with the sqlite3 shell when present.
        let database = c.dataDirectory.appendingPathComponent("default/org.clubhouse.practice.sqlite").path
        guard let sqlite = ["/usr/bin/sqlite3", "/bin/sqlite3"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw XCTSkip("sqlite3 shell not installed; the log is not read directly")
        }
        func sql(_ text: String) throws -> (out: String, err: String) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: sqlite)
            p.arguments = [database, text]
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            let o = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return (o, e)
        }
        XCTAssertEqual(try sql("SELECT session_id, source_name, shot_count, reason FROM session_deletions").out, "1|\(first)|12|test swings\n")
        XCTAssertTrue(try sql("DELETE FROM shots WHERE session_id = 2").err.contains("shots rows are immutable facts"))
        XCTAssertTrue(try sql("DELETE FROM sessions WHERE id = 2").err.contains("sessions rows are immutable facts"))
        XCTAssertTrue(try sql("DELETE FROM session_deletions").err.contains("session_deletions rows are immutable facts"))
    }
}
