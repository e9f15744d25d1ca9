// The validator an author can gate CI on: named checks, each in its own child process, with the
// site's configuration (--site/--config), declared examples run, cancellation bounded, describe
// stable, no descriptor leaked by create/destroy cycles; `list`, `--only`, `--json`. Fixtures:
// Tests/Fixtures/plugins/validate_plugin.c.

import ClubhouseJSON
import Foundation
import XCTest

final class ValidatorPackageEndToEndTests: XCTestCase {
    func fixture(_ variant: String) throws -> String {
        try FixturePlugins.build(variant, id: "org.tests.validate", version: "1.0.0", file: "validate_plugin.c")
    }

    func statuses(_ reply: JSONValue) -> [String: String] {
        var out: [String: String] = [:]
        for check in reply["checks"]?.arrayValue ?? [] {
            if let name = check["name"]?.stringValue { out[name] = check["status"]?.stringValue }
        }
        return out
    }

    func detail(_ reply: JSONValue, _ name: String) -> String {
        (reply["checks"]?.arrayValue ?? []).first { $0["name"]?.stringValue == name }?["detail"]?.stringValue ?? ""
    }

    func testTheSiteConfigurationExamplesCancellationAndEveryCheckPass() throws {
        let c = try Clubhouse()
        let good = try fixture("GOOD")
        let config = try c.write("plugins.json", """
            {"sites": {"club": {"plugins": {"vx": {"id": "org.tests.validate", "config": {"greeting": "hi"}}}}}}
            """)
        // Without its configuration, create fails and everything after it is skipped, not run.
        let bare = try c.run(["plugin", "validate", good, "--json"])
        XCTAssertEqual(bare.exitCode, 1)
        let bareReply = try bare.json()
        XCTAssertEqual(statuses(bareReply)["create"], "failed")
        XCTAssertTrue(detail(bareReply, "create").contains("config key 'greeting' is missing"), detail(bareReply, "create"))
        XCTAssertEqual(statuses(bareReply)["examples"], "skipped")
        XCTAssertEqual(detail(bareReply, "examples"), "needs 'create', which did not pass")
        XCTAssertEqual(statuses(bareReply)["describe-stable"], "passed")

        let reply = try c.succeed(["--config", config, "--site", "club", "plugin", "validate", good, "--json"]).json()
        XCTAssertEqual(reply["ok"]?.boolValue, true)
        let all = statuses(reply)
        XCTAssertEqual(all.count, 11)
        XCTAssertTrue(all.values.allSatisfy { $0 == "passed" }, "\(reply)")
        XCTAssertTrue(detail(reply, "create").contains("site 'club' of \(config) as plugin 'vx'"), detail(reply, "create"))
        XCTAssertEqual(detail(reply, "examples"), "2 example(s): say --word hi; say --word 'two words'")
        XCTAssertTrue(detail(reply, "cancellation").contains("'spin' stopped"), detail(reply, "cancellation"))
        // Checks run in separate processes: each has its own timing.
        XCTAssertTrue((reply["checks"]?.arrayValue ?? []).allSatisfy { $0["ms"]?.intValue != nil })

        let text = try c.succeed(["--config", config, "--site", "club", "plugin", "validate", good, "--only", "create, examples"]).stdout
        XCTAssertTrue(text.hasPrefix("Validating \(good) at site 'club' of \(config)\n"), text)
        XCTAssertTrue(text.contains("  PASS   create    create succeeds on a fresh site"), text)
        XCTAssertTrue(text.hasSuffix("2 checks: 2 passed, 0 skipped; the plugin is ready for a site.\n"), text)

        let list = try c.succeed(["plugin", "validate", "list", "--json"]).json()
        XCTAssertEqual(list["checks"]?.arrayValue?.compactMap { $0["name"]?.stringValue },
                       ["elf", "entry", "descriptor", "describe", "describe-stable", "create", "unknown-command", "examples",
                        "cancellation", "recreate", "fd-leaks"])
        XCTAssertTrue(try c.succeed(["plugin", "validate", "--help"]).stdout.contains("Usage: clubhouse plugin validate PATH"))

        try c.fail(["plugin", "validate", good, "--only", "bogus"], exitCode: 2, contains: ["--only: no check named 'bogus'; checks are elf, entry"])
        try c.fail(["--config", config, "--site", "nowhere", "plugin", "validate", good], exitCode: 2, contains: ["no site 'nowhere' in \(config)"])
        let other = try c.write("other.json", """
            {"sites": {"club": {"plugins": {"notes": {"id": "org.example.notes"}}}}}
            """)
        let missing = try c.run(["--config", other, "--site", "club", "plugin", "validate", good, "--only", "create", "--json"]).json()
        XCTAssertTrue(detail(missing, "create").contains("site 'club' in \(other) has no plugin with id org.tests.validate (its plugins: notes)"),
                      detail(missing, "create"))

        // A site that names the plugin by "path" alone, to another copy (PLUGIN-SDK.md's
        // plugins/libhello.so), is matched by the id in that file: the new build gets its config.
        try FileManager.default.createDirectory(atPath: c.path("plugins"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: good, toPath: c.path("plugins/libvalidate.so"))
        let byPath = try c.write("by-path.json", """
            {"sites": {"club": {"plugins": {"notes": {"id": "org.example.notes"}, "vx": {"path": "plugins/libvalidate.so", "config": {"greeting": "hi"}}}}}}
            """)
        let matched = try c.succeed(["--config", byPath, "--site", "club", "plugin", "validate", good, "--only", "create", "--json"]).json()
        XCTAssertTrue(detail(matched, "create").contains("site 'club' of \(byPath) as plugin 'vx'"), detail(matched, "create"))
    }

    func testEachBrokenPluginFailsTheCheckMadeForIt() throws {
        let c = try Clubhouse()
        let config = try c.write("plugins.json", """
            {"sites": {"club": {"plugins": {"vx": {"id": "org.tests.validate", "config": {"greeting": "hi"}}}}}}
            """)
        let cases: [(String, String, String)] = [
            ("LEAKY", "fd-leaks", "20 file descriptor(s) more after 20 create/destroy cycles (/dev/null"),
            ("UNSTABLE", "describe-stable", "call 2 of describe returned a different catalogue than call 1"),
            ("DEAF", "cancellation", "'spin' did not stop within 2 s of cancellation"),
            ("BAD_EXAMPLE", "examples", "example 'say --word boom' failed (error): the word boom is not allowed"),
        ]
        for (variant, check, fragment) in cases {
            let result = try c.run(["--config", config, "--site", "club", "plugin", "validate", try fixture(variant), "--json"], timeout: 120)
            XCTAssertEqual(result.exitCode, 1, variant)
            let reply = try result.json()
            XCTAssertEqual(statuses(reply)[check], "failed", "\(variant): \(reply)")
            XCTAssertTrue(detail(reply, check).contains(fragment), "\(variant): \(detail(reply, check))")
            let failed = statuses(reply).filter { $0.value != "passed" && $0.value != "skipped" }.map(\.key)
            XCTAssertEqual(failed, [check], "\(variant): only its own check fails")
        }
    }
}
