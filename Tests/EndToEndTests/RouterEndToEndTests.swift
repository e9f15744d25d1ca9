// The one router, tried as a hostile plugin and a careless caller would: calls that invoke each other
// at once, background work asked for over serve, a duplicate id, and `--help` on every built-in
// command (which must print help and do nothing else).

import ClubhouseJSON
import Foundation
import XCTest

final class RouterEndToEndTests: XCTestCase {
    private func pingPongSite(_ c: Clubhouse, isolation: String = "in-process") throws -> String {
        let a = try FixturePlugins.build("PINGPONG", id: "org.tests.ping.a", file: "hostile_router.c", peer: "b")
        let b = try FixturePlugins.build("PINGPONG", id: "org.tests.ping.b", file: "hostile_router.c", peer: "a")
        return try c.write("pingpong.json", """
            {"sites": {"t": {"plugins": {
              "a": {"path": "\(a)", "grants": ["invoke:b"], "isolation": "\(isolation)"},
              "b": {"path": "\(b)", "grants": ["invoke:a"], "isolation": "\(isolation)"}
            }}}}
            """)
    }

    /// A→B and B→A at once used to hang both calls and both plugins for good. Now the call that would
    /// close the cycle is refused with the cycle named, the other finishes, and both plugins still work.
    func testCallsThatInvokeEachOtherAtOnceAreRefusedNotDeadlocked() throws {
        for isolation in ["in-process", "process"] {
            let c = try Clubhouse()
            let config = try pingPongSite(c, isolation: isolation)
            let lines = [
                #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"a","command":"ping"}}"#,
                #"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"b","command":"ping"}}"#,
            ]
            let started = Date()
            let result = try c.run(["--config", config, "serve"], stdin: lines.joined(separator: "\n") + "\n", timeout: 30)
            XCTAssertLessThan(Date().timeIntervalSince(started), 30, "\(isolation): serve answered both calls")
            let replies = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
            XCTAssertEqual(replies.count, 2, "\(isolation): \(result.stdout)\n\(result.stderr)")
            let refused = replies.filter { $0["error"]?["message"]?.stringValue?.contains("call cycle refused") ?? false }
            let answered = replies.filter { $0["result"]?.stringValue == "ping got pong" }
            XCTAssertEqual(answered.count + refused.count, 2, "\(isolation): each call either finished or was refused: \(replies)")
            XCTAssertGreaterThanOrEqual(answered.count, 1, "\(isolation): \(replies)")
            for r in refused {
                let message = r["error"]?["message"]?.stringValue ?? ""
                XCTAssertTrue(message.contains("a → b → a") || message.contains("b → a → b"), message)
            }
            // Neither plugin is stuck afterwards.
            XCTAssertEqual(try c.succeed(["--config", config, "a", "ping", "--json"]).json(), "ping got pong")
            XCTAssertEqual(try c.succeed(["--config", config, "b", "ping", "--json"]).json(), "ping got pong")
        }
    }

    /// Background work a reply asks for runs whichever front end made the call (it used to run only
    /// from the command line, and stayed queued forever under serve).
    func testBackgroundWorkRunsWhenAskedForOverServe() throws {
        let c = try Clubhouse()
        let plugin = try FixturePlugins.build("BACKGROUND", id: "org.tests.later", file: "hostile_router.c")
        let config = try c.write("later.json", """
            {"sites": {"t": {"plugins": {"later": {"path": "\(plugin)", "grants": ["storage"]}}}}}
            """)
        let line = #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"later","command":"later"}}"#
        let result = try c.succeed(["--config", config, "serve"], stdin: line + "\n")
        XCTAssertTrue(result.stdout.contains("\"queued\""), result.stdout)
        var count: JSONValue = .null
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let r = try c.run(["--config", config, "later", "count", "--json"])
            if r.exitCode == 0, let n = try? r.json(), n.intValue == 1 { count = n; break }
            usleep(200_000)
        }
        XCTAssertEqual(count.intValue, 1, "the background 'record' ran and wrote its row")
    }

    /// "List the plugins" is answered in one place (issue 33): serve's `clubhouse.plugins` answers the rows
    /// `plugins list --json` prints for the enabled plugins, member for member; `clubhouse.version` the
    /// document `version --json` prints.
    func testPluginsListAndClubhousePluginsAreOneAnswer() throws {
        let c = try Clubhouse()
        let listed = try c.succeed(["plugins", "list", "--json"]).json()
        let enabled = (listed["plugins"]?.arrayValue ?? []).filter { $0["enabled"]?.boolValue == true }
        XCTAssertFalse(enabled.isEmpty, "\(listed)")
        XCTAssertNotNil(enabled.first?["isolated"]?.boolValue, "\(listed)")
        let lines = [#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.plugins"}"#, #"{"jsonrpc":"2.0","id":2,"method":"clubhouse.version"}"#]
        let served = try c.succeed(["serve"], stdin: lines.joined(separator: "\n") + "\n")
        let replies = try served.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        XCTAssertEqual(replies.first { $0["id"]?.intValue == 1 }?["result"], .array(enabled), served.stdout)
        XCTAssertEqual(replies.first { $0["id"]?.intValue == 2 }?["result"], try c.succeed(["version", "--json"]).json(), served.stdout)
    }

    /// `--help` prints help and exits 0 without acting, for every built-in command.
    func testHelpNeverActs() throws {
        let c = try Clubhouse()
        let commands: [[String]] = [["serve"], ["demo"], ["plugins", "list"], ["plugins", "info"], ["plugin", "validate"],
                                    ["config", "validate"], ["config", "schema"], ["device", "simulate"],
                                    ["device", "simulate", "ballmachine", "--listen", "tcp:127.0.0.1:1"]]
        for words in commands {
            let r = try c.run(words + ["--help"], timeout: 20)
            XCTAssertEqual(r.exitCode, 0, "\(words): \(r.stderr)")
            XCTAssertTrue(r.stdout.contains("Usage: clubhouse \(words.prefix(2).filter { !$0.hasPrefix("-") && $0 != "ballmachine" }.joined(separator: " "))"),
                          "\(words): \(r.stdout)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("clubhouse-demo")), "demo --help wrote nothing")
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.dataDirectory.path), "no command opened a data dir")
        // `help TOPIC` shows the topic; an unknown command is an error even with --help.
        XCTAssertTrue(try c.succeed(["help", "notes"]).stdout.contains("Usage: clubhouse notes <command>"))
        XCTAssertTrue(try c.succeed(["help", "notes", "add"]).stdout.contains("Usage: clubhouse notes add"))
        XCTAssertTrue(try c.succeed(["help", "plugins", "list"]).stdout.contains("Usage: clubhouse plugins list"))
        try c.fail(["notes", "teleport", "--help"], exitCode: 2, contains: ["unknown command 'teleport' for plugin 'notes'"])
        try c.fail(["plugins", "teleport"], exitCode: 2, contains: ["unknown command 'clubhouse plugins teleport'", "clubhouse plugins list"])
        try c.fail(["plugin", "validate"], exitCode: 2, contains: ["'clubhouse plugin validate' needs PATH", "clubhouse plugin validate --help"])
    }

    /// A serve client must not make the host read its own standard input (the JSON-RPC channel).
    func testStandardInputIsRefusedAsAPathOutsideTheCommandLine() throws {
        let c = try Clubhouse()
        let request = #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"practice","command":"hash","arguments":{"file":"-"}}}"#
        let result = try c.succeed(["serve"], stdin: request + "\n")
        XCTAssertTrue(result.stdout.contains("standard input is not available to"), result.stdout)
        XCTAssertTrue(result.stdout.contains("pass a file path"), result.stdout)
    }
}
