// The outbox (services/publish.h, ABI 1.4) against a plugin written to the C header alone
// (Tests/Fixtures/plugins/hostile_publish.c), in process and isolated: plugin SQL cannot read or
// change the outbox; a record exists exactly when its data was committed; undeclared topics, bad
// keys, malformed, unrepresentable and oversize bodies are refused with one line; the outbox is
// bounded; `clubhouse outbox` lists the records in canonical form with their SHA-256.

import ClubhouseJSON
import Foundation
import XCTest

final class OutboxEndToEndTests: XCTestCase {
    /// "hp" in process, "hpp" isolated (process), each its own build and database.
    private func site(_ c: Clubhouse, federation: String = "") throws -> String {
        let inProcess = try FixturePlugins.build("PUBLISH", id: "org.tests.publish.a", file: "hostile_publish.c")
        let isolated = try FixturePlugins.build("PUBLISH", id: "org.tests.publish.b", file: "hostile_publish.c")
        return try c.write("outbox.json", """
            {"sites": {"default": {\(federation)"plugins": {
              "hp": {"path": "\(inProcess)", "grants": ["storage"], "isolation": "in-process"},
              "hpp": {"path": "\(isolated)", "grants": ["storage"], "isolation": "process"}
            }}}}
            """)
    }

    private func waiting(_ c: Clubhouse, _ config: String) throws -> [String: Int] {
        let json = try c.succeed(["--config", config, "outbox", "--json"]).json()
        var counts: [String: Int] = [:]
        for plugin in json["plugins"]?.arrayValue ?? [] {
            counts[plugin["plugin"]?.stringValue ?? "?"] = plugin["waiting"]?.intValue
        }
        return counts
    }

    private func rows(_ c: Clubhouse, _ config: String, _ alias: String) throws -> String {
        try c.succeed(["--config", config, alias, "query", "--sql", "SELECT count(*) FROM t", "--json"]).json().stringValue ?? "?"
    }

    func testPluginSQLCannotReadOrChangeTheOutbox() throws {
        let c = try Clubhouse()
        let config = try site(c)
        let attacks = [
            "SELECT * FROM _clubhouse_outbox",
            "SELECT body FROM main._CLUBHOUSE_OUTBOX",
            "SELECT last_seq FROM _clubhouse_outbox_state",
            "SELECT (SELECT count(*) FROM _clubhouse_outbox) + 1",
            "WITH x AS (SELECT * FROM _clubhouse_outbox) SELECT count(*) FROM x",
            "UPDATE _clubhouse_outbox SET body = x'00'",
            "DELETE FROM _clubhouse_outbox",
            "INSERT INTO _clubhouse_outbox(seq, site, plugin, plugin_version, topic, key, body, sha256) VALUES (99, 's', 'p', 'v', 'round', 'k', x'00', 'h')",
            "UPDATE _clubhouse_outbox_state SET shipped_seq = 1000",
            "DROP TABLE _clubhouse_outbox",
            "ALTER TABLE _clubhouse_outbox RENAME TO mine",
            "CREATE TRIGGER steal AFTER INSERT ON _clubhouse_outbox BEGIN SELECT 1; END",
        ]
        for alias in ["hp", "hpp"] {
            try c.succeed(["--config", config, alias, "publish", "--topic", "round", "--key", "round/1"])
            for sql in attacks {
                let result = try c.run(["--config", config, alias, "query", "--sql", sql])
                XCTAssertNotEqual(result.exitCode, 0, "\(alias): \(sql) was allowed: \(result.stdout)")
                XCTAssertTrue(result.stderr.contains("_clubhouse_outbox") || result.stderr.contains("_CLUBHOUSE_OUTBOX"), "\(alias): \(sql): \(result.stderr)")
            }
            // A view or a trigger of its own that reaches the outbox fails where it is used.
            _ = try c.run(["--config", config, alias, "sql", "--sql", "CREATE VIEW peek AS SELECT * FROM _clubhouse_outbox"])
            let viaView = try c.run(["--config", config, alias, "query", "--sql", "SELECT count(*) FROM peek"])
            XCTAssertNotEqual(viaView.exitCode, 0, "\(alias): the outbox was read through a view: \(viaView.stdout)")
            _ = try c.run(["--config", config, alias, "sql", "--sql", "CREATE TRIGGER wipe AFTER INSERT ON t BEGIN DELETE FROM _clubhouse_outbox; END"])
            _ = try c.run(["--config", config, alias, "sql", "--sql", "INSERT INTO t(value) VALUES ('x')"])
        }
        // Nothing was read, lost or rewritten: one record each, as published.
        XCTAssertEqual(try waiting(c, config), ["org.tests.publish.a": 1, "org.tests.publish.b": 1])
    }

    func testARecordExistsExactlyWhenItsDataWasCommitted() throws {
        let c = try Clubhouse()
        let config = try site(c)
        for alias in ["hp", "hpp"] {
            try c.succeed(["--config", config, alias, "publish", "--topic", "round", "--key", "round/1", "--mode", "commit"])
            XCTAssertEqual(try rows(c, config, alias), "1")
            let rolledBack = try c.run(["--config", config, alias, "publish", "--topic", "round", "--key", "round/2", "--mode", "rollback", "--count", "3"])
            XCTAssertEqual(rolledBack.exitCode, 0, rolledBack.stderr)
            let leftOpen = try c.run(["--config", config, alias, "publish", "--topic", "shot", "--key", "shot/1", "--mode", "open"])
            XCTAssertEqual(leftOpen.exitCode, 0, leftOpen.stderr)
            // A savepoint rolled back takes its record; the data before it commits.
            try c.succeed(["--config", config, alias, "publish", "--topic", "shot", "--key", "shot/2", "--mode", "savepoint"])
            XCTAssertEqual(try rows(c, config, alias), "2")
            try c.fail(["--config", config, alias, "publish", "--topic", "round", "--key", "round/3", "--mode", "none"], exitCode: 2,
                       contains: ["published outside a transaction", "begin … publish … commit"])
        }
        XCTAssertEqual(try waiting(c, config), ["org.tests.publish.a": 1, "org.tests.publish.b": 1])
    }

    func testBadRecordsAreRefusedWithOneLine() throws {
        let c = try Clubhouse()
        let config = try site(c)
        for alias in ["hp", "hpp"] {
            let cases: [([String], [String])] = [
                (["--topic", "score", "--key", "k"], ["topic 'score', which its catalogue does not declare", "'round', 'shot'"]),
                (["--topic", "round", "--key", "a b"], ["a key is printable ASCII without spaces"]),
                (["--topic", "round", "--key", String(repeating: "k", count: 300)], ["a key is at most 256"]),
                (["--topic", "round", "--key", "k", "--body", "{\"a\":"], ["is not one JSON value"]),
                (["--topic", "round", "--key", "k", "--body", "{\"a\":1,\"a\":2}"], ["duplicate key"]),
                (["--topic", "round", "--key", "k", "--body", "{\"far\":1e400}"], ["number 1e400 at /far is outside the range of a double"]),
                (["--topic", "round", "--key", "k", "--pad", "70000"], ["a record's body is at most 65536 bytes"]),
                (["--topic", "round", "--key", "k", "--pad", "300000"], ["a record's body is at most 65536 bytes"]),
            ]
            for (arguments, fragments) in cases {
                try c.fail(["--config", config, alias, "publish"] + arguments, exitCode: 2, contains: fragments)
            }
        }
        XCTAssertEqual(try waiting(c, config), [:])
    }

    func testTheOutboxIsBounded() throws {
        let c = try Clubhouse()
        let config = try site(c, federation: #""federation": {"service": "clubfed", "site_id": "club-a", "outbox_max_records": 3}, "#)
        for alias in ["hp", "hpp"] {
            try c.succeed(["--config", config, alias, "publish", "--topic", "round", "--key", "r", "--count", "3"])
            try c.fail(["--config", config, alias, "publish", "--topic", "round", "--key", "r4"],
                       contains: ["is full (3 records waiting, at most 3)", "clubhouse federation push --site default"])
            // The call that was refused wrote nothing: its data went with the record.
            XCTAssertEqual(try rows(c, config, alias), "1")
        }
        let listed = try c.succeed(["--config", config, "outbox"]).stdout
        XCTAssertTrue(listed.contains("6 records wait in the outbox of site 'default' (federation site id 'club-a')"), listed)
    }

    func testTheOutboxListsCanonicalBodiesAndTheirHashes() throws {
        let c = try Clubhouse()
        let config = try site(c)
        try c.succeed(["--config", config, "hp", "publish", "--topic", "round", "--key", "round/7",
                       "--body", #"{"b": 2, "a": [1.50, 1e2, "\u20ac"], "\u00e9": null}"#])
        try c.succeed(["--config", config, "hp", "publish", "--topic", "shot", "--key", "shot/1", "--count", "2"])
        let json = try c.succeed(["--config", config, "outbox", "--json"]).json()
        let records = json["records"]?.arrayValue ?? []
        XCTAssertEqual(records.map { $0["seq"]?.intValue ?? 0 }, [1, 2, 3])
        XCTAssertEqual(records.map { $0["key"]?.stringValue ?? "" }, ["round/7", "shot/1-1", "shot/1-2"])
        XCTAssertEqual(records.first?["version"]?.stringValue, "1.0.0")
        XCTAssertEqual(records.first?["plugin"]?.stringValue, "org.tests.publish.a")
        let canonical = #"{"a":[1.5,100,"€"],"b":2,"é":null}"#
        XCTAssertEqual(records.first?["bytes"]?.intValue, canonical.utf8.count)
        XCTAssertEqual(records.first?["sha256"]?.stringValue, try sha256sum(canonical))
        let text = try c.succeed(["--config", config, "outbox"]).stdout
        XCTAssertTrue(text.contains("3 records wait in the outbox of site 'default' (no \"federation\" configured"), text)
        XCTAssertTrue(text.contains("round/7"), text)
    }

    /// The SHA-256 of `text` by coreutils' sha256sum (an implementation other than the host's).
    private func sha256sum(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
