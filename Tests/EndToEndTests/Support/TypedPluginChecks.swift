// What the typed-arguments and typed-rows tests of every plugin do alike: read the errors of a few
// JSON-RPC calls, and damage a plugin's database from outside the host (with the sqlite3 shell, as
// another program would) before reading it again.

import ClubhouseJSON
import Foundation
import XCTest

extension Clubhouse {
    /// The `error` of each response to `calls` (JSON-RPC requests sent to one `clubhouse serve` on its
    /// standard input), by request id.
    func rpcErrors(_ calls: [String]) throws -> [Int: JSONValue] {
        let result = try succeed(["serve"], stdin: calls.joined(separator: "\n") + "\n")
        var errors: [Int: JSONValue] = [:]
        for line in result.stdout.split(separator: "\n") {
            let response = try JSONParser.parse(String(line))
            if let id = response["id"]?.intValue, let error = response["error"] { errors[id] = error }
        }
        return errors
    }

    /// Runs `sql` on the default site's database of plugin `id` (eg: "org.clubhouse.tennis") with the sqlite3
    /// shell; skips the test when the shell is not installed.
    func damageDatabase(of id: String, _ sql: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let sqlite = ["/usr/bin/sqlite3", "/bin/sqlite3"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw XCTSkip("sqlite3 shell not installed; no row can be damaged from outside")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: sqlite)
        p.arguments = [dataDirectory.appendingPathComponent("default/\(id).sqlite").path, sql]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "sqlite3 \(sql)", file: file, line: line)
    }
}
