// Issue 32, "validation happens too late": what a site would refuse when it first loads a plugin is
// refused where the author or the administrator acts — `plugin pack` and `plugin install` check
// the catalogue and the manifest, `plugin validate --site` runs the plugin under the site's
// isolation, `config validate` creates every enabled plugin (each in a child, bounded in time),
// and a plugin's declared config schema is checked at load and by `config validate`, with the
// value's file:line:column in plugins.json.

import ClubhouseJSON
import Foundation
import XCTest

final class ValidationWhereItCountsEndToEndTests: XCTestCase {
    func installTree(_ c: Clubhouse) -> [String] {
        (FileManager.default.subpaths(atPath: c.dataDirectory.appendingPathComponent("plugins").path) ?? []).sorted()
    }

    func canSandbox(_ c: Clubhouse) throws -> Bool {
        let fixture = try FixturePlugins.build("OK", id: "org.tests.probe")
        let config = try c.write("probe.json", #"{"sites": {"s": {"plugins": {"p": {"path": "\#(fixture)", "isolation": "sandbox", "grants": ["storage"]}}}}}"#)
        return try c.run(["--config", config, "p", "hello"]).exitCode == 0
    }

    /// A catalogue with an argument of type "wat" is refused by pack and by install, naming the
    /// plugin, the command and the argument; a manifest that misdescribes its library is refused
    /// at install. Nothing is written either way.
    func testPackAndInstallRefuseWhatASiteWouldRefuse() throws {
        let c = try Clubhouse()
        let wat = try FixturePlugins.build("WAT_ARGUMENT", id: "org.tests.wat")
        let out = c.path("wat.chpkg")
        try c.fail(["plugin", "pack", wat, "--out", out],
                   contains: ["\(wat): cannot pack org.tests.wat 1.0.0: its command catalogue is invalid: command 'serve ball': argument 'speed' has type \"wat\"; use one of string, integer",
                              "clubhouse plugin validate \(wat) runs every check"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        let odd = try FixturePlugins.build("ODD_DESCRIPTOR", id: "org.tests.odd")
        try c.fail(["plugin", "pack", odd, "--out", out],
                   contains: ["cannot pack org.tests.odd 1.0.0: its descriptor needs the service clubhouse.teleport/1, which this host does not offer (it offers clubhouse.log/1,",
                              "(and 1 more: its descriptor has an empty name)"])

        // The same library packed by hand (as another tool would) is refused at install.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: wat)))
        let sha = try c.succeed(["plugin", "pack", try FixturePlugins.build("OK", id: "org.tests.wat"), "--out", c.path("ok.chpkg"), "--json"]).json()
        var manifest = try XCTUnwrap(sha["manifest"]?.objectValue)
        manifest["library"] = "libwat.so"
        manifest["sha256"] = .string(try sha256(bytes, c))
        let crafted = PackagingEndToEndTests.tar([("manifest.json", Array(JSONWriter.pretty(.object(manifest)).utf8)), ("libwat.so", bytes)])
        let package = c.path("crafted.chpkg")
        try Data(crafted).write(to: URL(fileURLWithPath: package))
        try c.fail(["plugin", "install", package],
                   contains: ["crafted.chpkg: cannot install org.tests.wat 1.0.0: its command catalogue is invalid: command 'serve ball': argument 'speed' has type \"wat\"",
                              "nothing was installed"])
        XCTAssertEqual(installTree(c), [])

        // A manifest whose name is not the library's.
        let good = try XCTUnwrap(try c.succeed(["plugin", "pack", try FixturePlugins.build("OK", id: "org.tests.named"), "--out", c.path("named.chpkg"), "--json"]).json()["manifest"]?.objectValue)
        var lying = good
        lying["name"] = "Totally Official Plugin"
        let library = Array(try Data(contentsOf: URL(fileURLWithPath: try FixturePlugins.build("OK", id: "org.tests.named"))))
        let lyingPackage = c.path("lying.chpkg")
        try Data(PackagingEndToEndTests.tar([("manifest.json", Array(JSONWriter.pretty(.object(lying)).utf8)),
                                             (good["library"]?.stringValue ?? "", library)])).write(to: URL(fileURLWithPath: lyingPackage))
        try c.fail(["plugin", "install", lyingPackage],
                   contains: ["cannot install org.tests.named 1.0.0: the manifest says name \"Totally Official Plugin\" but the library's descriptor says \"Fixture\"",
                              "nothing was installed"])
        XCTAssertEqual(installTree(c), [])
        try c.succeed(["plugin", "install", c.path("named.chpkg")])
    }

    func sha256(_ bytes: [UInt8], _ c: Clubhouse) throws -> String {
        let file = c.path("hash-me")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        p.arguments = [file]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        p.waitUntilExit()
        return String(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64))
    }

    /// A plugin that opens /etc/passwd passes validation in process and fails it at a site where it
    /// would be sandboxed: the site's isolation ("auto" for a plugin from outside: sandbox), or --isolation.
    func testValidateAtASandboxSiteRunsThePluginSandboxed() throws {
        let c = try Clubhouse()
        guard try canSandbox(c) else { throw XCTSkip("this kernel cannot sandbox plugins (no Landlock)") }
        let nosy = try FixturePlugins.build("NOSY_CREATE", id: "org.tests.nosy", file: "validate_plugin.c")
        let config = try c.write("club.json", """
            {"sites": {"club": {"plugins": {"nosy": {"path": "\(nosy)", "config": {"greeting": "hi"}}}},
                       "trusting": {"plugins": {"nosy": {"path": "\(nosy)", "isolation": "process", "config": {"greeting": "hi"}}}}}}
            """)
        func create(_ arguments: [String], _ extra: [String] = []) throws -> (Int32, String) {
            let result = try c.run(arguments + ["plugin", "validate", nosy, "--only", "create", "--json"] + extra)
            let check = (try? result.json())?["checks"]?.arrayValue?.first
            return (result.exitCode, (check?["status"]?.stringValue ?? "?") + ": " + (check?["detail"]?.stringValue ?? result.stderr))
        }
        let atSite = try create(["--config", config, "--site", "club"])
        XCTAssertEqual(atSite.0, 1, atSite.1)
        XCTAssertTrue(atSite.1.hasPrefix("failed: plugin 'nosy' (org.tests.nosy) could not start: cannot read /etc/passwd: Permission denied"), atSite.1)
        XCTAssertTrue(atSite.1.contains("it ran sandbox (auto: from outside the host's folders and the install tree"), atSite.1)
        let processSite = try create(["--config", config, "--site", "trusting"])
        XCTAssertEqual(processSite.0, 0, processSite.1)
        XCTAssertTrue(processSite.1.contains("as plugin 'nosy', process (set in \(config):2:"), processSite.1)
        let asked = try create(["--config", config, "--site", "trusting"], ["--isolation", "sandbox"])
        XCTAssertEqual(asked.0, 1, asked.1)
        XCTAssertTrue(asked.1.contains("cannot read /etc/passwd"), asked.1)
        // Without a site the plugin runs in process (where /etc/passwd is readable) unless asked.
        let bare = try c.run(["plugin", "validate", nosy, "--only", "create", "--json"]).json()
        XCTAssertFalse(bare["checks"]?.arrayValue?.first?["detail"]?.stringValue?.contains("/etc/passwd") ?? true, "\(bare)")
        c.environment["CLUBHOUSE_TEST_LANDLOCK_ABI"] = "0"
        try c.fail(["plugin", "validate", nosy, "--isolation", "sandbox"], contains: ["--isolation sandbox: this kernel", "has no Landlock", "validate with --isolation process instead"])
    }

    /// `config validate` creates each enabled plugin and reports each one that cannot be created
    /// — a config value out of range, a missing grant, a create that fails, crashes or hangs —
    /// with the entry's file:line:column, instead of "every enabled plugin loads".
    func testConfigValidateCreatesEveryEnabledPluginAndReportsEachFailure() throws {
        let c = try Clubhouse()
        let noGreeting = try FixturePlugins.build("GOOD", id: "org.tests.greeting", file: "validate_plugin.c")
        let crashing = try FixturePlugins.build("SEGV_CREATE", id: "org.tests.crash")
        let hanging = try FixturePlugins.build("SLOW", id: "org.tests.slow")
        let text = """
            {"sites": {"club": {"plugins": {
              "putting": {"id": "org.clubhouse.putting", "grants": ["storage"], "config": {"stimp": 11}},
              "scorecard": {"id": "org.clubhouse.scorecard"},
              "greeting": {"path": "\(noGreeting)"},
              "crash": {"path": "\(crashing)", "isolation": "in-process", "grants": ["storage"]},
              "slow": {"path": "\(hanging)", "isolation": "in-process", "grants": ["storage"]},
              "greeter": {"id": "org.example.greeter", "config": {"greeting": "Ahoy"}}
            }}}}
            """
        let config = try c.write("club.json", text)
        /// Where the entry of `alias` starts (its "{"), found independently of the host.
        func entry(_ alias: String) -> String {
            let rows = text.split(separator: "\n", omittingEmptySubsequences: false)
            let line = rows.firstIndex { $0.contains("\"\(alias)\": {") } ?? 0
            let row = rows[line]
            let column = row.distance(from: row.startIndex, to: row.range(of: "\"\(alias)\": {")?.upperBound ?? row.startIndex)
            return "\(config):\(line + 1):\(column)"
        }
        let result = try c.run(["config", "validate", config, "--timeout", "2"], timeout: 60)
        XCTAssertEqual(result.exitCode, 1, result.stderr)
        XCTAssertFalse(result.stdout.contains("valid"), result.stdout)
        let expected = [
            "\(entry("scorecard")): site 'club': plugin 'scorecard' loads but cannot be created: plugin 'scorecard' needs clubhouse.storage/1 but the site does not grant \"storage\"",
            "\(entry("greeting")): site 'club': plugin 'greeting' loads but cannot be created: plugin 'greeting' (org.tests.greeting) could not start: config key 'greeting' is missing",
            "\(entry("crash")): site 'club': plugin 'crash' loads but cannot be created: plugin 'crash' crashed while being created (its process was killed by signal 11 (SIGSEGV, a crash))",
            "\(entry("slow")): site 'club': plugin 'slow' loads but cannot be created: plugin 'slow' did not finish being created within 2.0 s (a hang in its create); config validate --timeout SECONDS allows longer",
        ]
        for line in expected { XCTAssertTrue(result.stderr.contains(line), "lacks:\n\(line)\nin:\n\(result.stderr)") }
        XCTAssertTrue(result.stderr.contains("4 problem(s) found"), result.stderr)
        XCTAssertFalse(result.stderr.contains("'putting'") || result.stderr.contains("'greeter'"), result.stderr)
        let json = try c.run(["config", "validate", config, "--timeout", "2", "--json"], timeout: 60).json()
        XCTAssertEqual(json["sites"]?.arrayValue?.first?["loaded"]?.intValue, 6)
        XCTAssertEqual(json["sites"]?.arrayValue?.first?["created"]?.intValue, 2)
        // Creating never touches the site's own data: no database was written.
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.dataDirectory.appendingPathComponent("club").path))

        let fine = try c.write("fine.json", """
            {"sites": {"club": {"plugins": {"greeter": {"id": "org.example.greeter"}, "notes": {"id": "org.example.notes", "grants": ["storage"]}}}}}
            """)
        XCTAssertEqual(try c.succeed(["config", "validate", fine]).stdout,
                       "\(fine): valid (1 site(s); every enabled plugin loads and was created, each in a child process on a scratch data directory)\n")
        try c.fail(["config", "validate", fine, "--timeout", "0"], exitCode: 2, contains: ["--timeout must be more than 0 and at most 3600 seconds, got 0"])
    }

    /// A plugin's declared config schema is checked when the site loads it and by config validate,
    /// with the value's file:line:column: a Swift plugin (greeter), a C plugin (notes, which reads
    /// its value with clubhouse_helpers.h's clubhouse_config_int), and the bundled plugins.
    func testAPluginsConfigIsCheckedAgainstItsSchemaWithFileLineColumn() throws {
        let c = try Clubhouse()
        let text = """
            {"sites": {"club": {"plugins": {
              "greeter": {"id": "org.example.greeter", "config": {"greeting": 5}},
              "notes": {"id": "org.example.notes", "grants": ["storage"], "config": {"max_length": 0, "colour": "red"}},
              "tennis": {"id": "org.clubhouse.tennis", "grants": ["storage"], "config": {"checksum": "crc"}}
            }}}}
            """
        let config = try c.write("club.json", text)
        // Where each value is, found independently of the host.
        func place(_ needle: String, line: Int) -> String {
            let row = text.split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
            let column = row.distance(from: row.startIndex, to: row.range(of: needle)?.lowerBound ?? row.startIndex) + 1
            return "\(config):\(line):\(column)"
        }
        try c.fail(["--config", config, "greeter", "hello"], exitCode: 2,
                   contains: ["\(place("5}", line: 2)): site 'club': plugin 'greeter': config \"greeting\" must be a string, not an integer (5), as the plugin's config schema says; fix it in \(config)"])
        try c.fail(["--config", config, "notes", "list"], exitCode: 2,
                   contains: ["\(place("0,", line: 3)): site 'club': plugin 'notes': config \"max_length\" must be at least 1, not 0, as the plugin's config schema says (and 1 more: clubhouse config validate lists them)"])
        let validated = try c.run(["config", "validate", config])
        XCTAssertEqual(validated.exitCode, 1)
        for line in ["\(place("5}", line: 2)): site 'club': plugin 'greeter': config \"greeting\" must be a string, not an integer (5)",
                     "\(place("0,", line: 3)): site 'club': plugin 'notes': config \"max_length\" must be at least 1, not 0",
                     "\(place("\"red\"", line: 3)): site 'club': plugin 'notes': config \"colour\" is not a setting of this plugin (it takes max_length)",
                     "\(place("\"crc\"", line: 4)): site 'club': plugin 'tennis': config \"checksum\" must be one of \"xor\", \"modbus\", not \"crc\""] {
            XCTAssertTrue(validated.stderr.contains(line), "lacks:\n\(line)\nin:\n\(validated.stderr)")
        }
        // plugins info shows the schema the site is checked against.
        let info = try c.succeed(["--config", config, "plugins", "info", "notes", "--json"]).json()
        XCTAssertEqual(info["config_schema"]?["properties"]?["max_length"]?["maximum"]?.intValue, 100_000)

        // A value that fits reaches the plugin: notes reads max_length with clubhouse_config_int.
        let fits = try c.write("fits.json", """
            {"sites": {"club": {"plugins": {"notes": {"id": "org.example.notes", "grants": ["storage"], "config": {"max_length": 5}}}}}}
            """)
        try c.fail(["--config", fits, "notes", "add", "too long"], exitCode: 2,
                   contains: ["the note is 8 bytes; this site keeps notes of at most 5 (config \"max_length\")"])
        XCTAssertEqual(try c.succeed(["--config", fits, "notes", "add", "short"]).stdout, "added note 1\n")
        XCTAssertEqual(try c.succeed(["notes", "add", "a note of more than five bytes"]).stdout, "added note 1\n", "the default is 1000")

        // A schema outside the subset the host checks is a catalogue problem, found by validate and pack.
        let badSchema = try FixturePlugins.build("BAD_SCHEMA", id: "org.tests.schema")
        let describe = try c.run(["plugin", "validate", badSchema, "--only", "describe", "--json"]).json()
        XCTAssertTrue(describe["checks"]?.arrayValue?.first?["detail"]?.stringValue?
            .contains("config_schema.properties.code: keyword 'pattern' is not in the subset the host checks (type, properties, required, additionalProperties, enum, minimum, maximum, items, default, description, title)") ?? false, "\(describe)")
        try c.fail(["plugin", "pack", badSchema, "--out", c.path("schema.chpkg")], contains: ["cannot pack org.tests.schema 1.0.0: its command catalogue is invalid: config_schema.properties.code: keyword 'pattern'"])
    }
}
