// The platform as a user meets it: the built `clubhouse` binary with the example plugins and
// the broken-plugin fixtures, every user-visible error message, exit codes and JSON output.

import ClubhouseJSON
import Foundation
import XCTest

final class PlatformEndToEndTests: XCTestCase {
    // MARK: the example plugins

    func testPluginsListShowsTheExamplePluginsWithIdsAndVersions() throws {
        let c = try Clubhouse()
        let json = try c.succeed(["plugins", "list", "--json"]).json()
        let plugins = json["plugins"]?.arrayValue ?? []
        let notes = plugins.first { $0["plugin"]?.stringValue == "notes" }
        let greeter = plugins.first { $0["plugin"]?.stringValue == "greeter" }
        XCTAssertEqual(notes?["id"]?.stringValue, "org.example.notes")
        XCTAssertEqual(notes?["version"]?.stringValue, "1.0.0")
        XCTAssertEqual(notes?["language"]?.stringValue, "c")
        XCTAssertEqual(notes?["status"]?.stringValue, "loaded")
        XCTAssertEqual(greeter?["id"]?.stringValue, "org.example.greeter")
        XCTAssertEqual(greeter?["language"]?.stringValue, "swift")
        let text = try c.succeed(["plugins", "list"]).stdout
        XCTAssertTrue(text.contains("org.example.notes"), text)
        XCTAssertTrue(text.contains("org.example.greeter"), text)
    }

    func testNotesStoresInItsOwnDatabaseAcrossRuns() throws {
        let c = try Clubhouse()
        XCTAssertEqual(try c.succeed(["notes", "add", "first note"]).stdout, "added note 1\n")
        try c.succeed(["notes", "add", "tab\tand \"quotes\" and é 😀"])
        let list = try c.succeed(["notes", "list", "--json"]).json()
        let notes = list["notes"]?.arrayValue ?? []
        XCTAssertEqual(notes.map { $0["text"]?.stringValue ?? "" }, ["first note", "tab\tand \"quotes\" and é 😀"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: c.dataDirectory.path + "/default/org.example.notes.sqlite"))
        try c.succeed(["notes", "remove", "1"])
        try c.fail(["notes", "remove", "1"], exitCode: 2, contains: ["no note 1", "notes list"])
        XCTAssertEqual(try c.succeed(["notes", "list", "--json"]).json()["notes"]?.arrayValue?.count, 1)
    }

    func testGreeterReadsItsConfigAndInvokesNotesWhenGranted() throws {
        let c = try Clubhouse()
        XCTAssertEqual(try c.succeed(["greeter", "hello", "Ann"]).stdout, "Hello, Ann!\n")
        XCTAssertEqual(try c.succeed(["greeter", "hello", "--json"]).json()["greeting"]?.stringValue, "Hello, world!")
        try c.succeed(["greeter", "remember", "buy balls"])
        XCTAssertEqual(try c.succeed(["notes", "list", "--json"]).json()["notes"]?.arrayValue?.first?["text"]?.stringValue,
                       "greeter: buy balls")
        // A site that does not grant invoke:notes gets an error, not data.
        let config = try c.write("plugins.json", """
            {"sites": {"s": {"plugins": {
              "notes": {"id": "org.example.notes", "grants": ["storage"]},
              "greeter": {"id": "org.example.greeter", "config": {"greeting": "Hi"}}
            }}}}
            """)
        try c.fail(["--config", config, "greeter", "remember", "x"], contains: ["calling other plugins is not available", "invoke:notes"])
        XCTAssertEqual(try c.succeed(["--config", config, "greeter", "hello"]).stdout, "Hi, world!\n")
    }

    func testGreeterCountdownHonoursItsArguments() throws {
        let c = try Clubhouse()
        let json = try c.succeed(["greeter", "countdown", "--from", "2", "--step-ms", "1", "--json"]).json()
        XCTAssertEqual(json["counted"]?.intValue, 2)
        try c.fail(["greeter", "countdown", "--from", "-5"], exitCode: 2, contains: ["--from must be 0-1000000"])
    }

    // MARK: help, version, usage errors

    func testHelpAtEveryLevelComesFromTheDeclarations() throws {
        let c = try Clubhouse()
        let top = try c.succeed(["--help"]).stdout
        XCTAssertTrue(top.contains("plugins list") && top.contains("greeter") && top.contains("Exit codes"), top)
        let plugin = try c.succeed(["greeter", "--help"]).stdout
        XCTAssertTrue(plugin.contains("countdown") && plugin.contains("Count down with a progress bar"), plugin)
        let command = try c.succeed(["greeter", "countdown", "--help"]).stdout
        XCTAssertTrue(command.contains("--from N") && command.contains("[default: 3]") && command.contains("With --json: {counted}"), command)
        XCTAssertTrue(try c.succeed(["--version"]).stdout.hasPrefix("clubhouse 1.0.0 (plugin ABI 1.7"))
    }

    func testUsageErrorsExitWithTwoAndNameTheProblem() throws {
        let c = try Clubhouse()
        try c.fail(["greter", "hello"], exitCode: 2, contains: ["unknown plugin 'greter'", "did you mean 'greeter'?"])
        try c.fail(["greeter", "helo"], exitCode: 2, contains: ["unknown command 'helo'", "did you mean 'hello'?"])
        try c.fail(["greeter", "countdown", "--form", "3"], exitCode: 2, contains: ["unknown option '--form'", "did you mean '--from'?"])
        try c.fail(["greeter", "countdown", "--from", "three"], exitCode: 2, contains: ["--from must be an integer, got 'three'"])
        try c.fail(["greeter", "countdown", "--from"], exitCode: 2, contains: ["option --from needs a value"])
        try c.fail(["notes", "add"], exitCode: 2, contains: ["'notes add' needs TEXT"])
        try c.fail(["notes", "remove", "x"], exitCode: 2, contains: ["ID must be an integer, got 'x'"])
        try c.fail(["greeter", "hello", "a", "b"], exitCode: 2, contains: ["unexpected argument 'b'"])
        try c.fail([], exitCode: 2, contains: ["no command given"])
        try c.fail(["--site"], exitCode: 2, contains: ["option --site needs a value"])
        try c.fail(["--site", "nowhere", "plugins", "list"], exitCode: 2, contains: ["no site 'nowhere'", "--site"])
    }

    func testJSONModeReportsErrorsAsOneDocument() throws {
        let c = try Clubhouse()
        let result = try c.fail(["notes", "remove", "42", "--json"], exitCode: 2, contains: ["no note 42"])
        let json = try result.json()
        XCTAssertEqual(json["error"]?["status"]?.stringValue, "not-found")
        XCTAssertEqual(json["error"]?["message"]?.stringValue, "no note 42; see clubhouse notes list")
    }

    func testEnvironmentOverridesConfigSiteAndDataDirectory() throws {
        let c = try Clubhouse()
        let config = try c.write("site.json", """
            {"default_site": "a", "sites": {
              "a": {"plugins": {"notes": {"id": "org.example.notes", "grants": ["storage"]}}},
              "b": {"plugins": {"notes": {"id": "org.example.notes", "grants": ["storage"]}}}
            }}
            """)
        c.environment["CLUBHOUSE_CONFIG"] = config
        c.environment["CLUBHOUSE_SITE"] = "b"
        let other = c.path("elsewhere")
        c.environment["CLUBHOUSE_DATA_DIR"] = other
        try c.succeed(["notes", "add", "in b"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: other + "/b/org.example.notes.sqlite"))
        // Flags win over the environment.
        try c.succeed(["--site", "a", "--data-dir", c.path("flag"), "notes", "add", "in a"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: c.path("flag") + "/a/org.example.notes.sqlite"))
    }

    // MARK: configuration errors

    func testMalformedConfigurationIsReportedWithLineAndColumn() throws {
        let c = try Clubhouse()
        let broken = try c.write("broken.json", "{\n  \"sites\": {\n    \"a\": {\"plugins\": {}},\n  }\n}\n")
        try c.fail(["--config", broken, "plugins", "list"], exitCode: 2, contains: ["broken.json:4:3: unexpected '}'; expected a string key"])
        let unknown = try c.write("unknown.json", """
            {"sites": {"a": {"plugins": {
              "notes": {"id": "org.example.notes", "enabeld": true, "grants": ["storage", "network"]}
            }}}}
            """)
        let result = try c.fail(["--config", unknown, "config", "validate"], exitCode: 2, contains: ["2 problem(s)"])
        XCTAssertTrue(result.stderr.contains("unknown.json:2:40: unknown key 'enabeld' in plugin 'notes' of site 'a'; did you mean 'enabled'?"), result.stderr)
        XCTAssertTrue(result.stderr.contains("unknown.json:2:79: unknown grant 'network'"), result.stderr)
        try c.fail(["--config", unknown, "notes", "list"], exitCode: 2, contains: ["unknown.json:2:40", "(and 1 more problem(s); run: clubhouse config validate)"])
        try c.fail(["--config", c.path("absent.json"), "plugins", "list"], exitCode: 2, contains: ["absent.json: cannot read the configuration"])
    }

    func testConfigValidatePassesOnTheBundledFileAndSchemaMatchesTheRepository() throws {
        let c = try Clubhouse()
        let bundled = Clubhouse.repositoryRoot.appendingPathComponent("plugins.json").path
        let schemaFile = try String(contentsOfFile: Clubhouse.repositoryRoot.appendingPathComponent("PluginSDK/plugins.schema.json").path,
                                    encoding: .utf8)
        let schema = try c.succeed(["config", "schema"]).stdout
        XCTAssertEqual(schema, schemaFile.hasSuffix("\n") ? schemaFile : schemaFile + "\n",
                       "the embedded schema differs from PluginSDK/plugins.schema.json; run Host/Scripts/embed-defaults.sh")
        let result = try c.run(["config", "validate", bundled, "--json"])
        let json = try result.json()
        // Only plugins not built yet may be missing; the structure must be valid.
        for problem in json["problems"]?.arrayValue ?? [] {
            XCTAssertTrue(problem.stringValue?.contains("no plugin with id org.clubhouse.") ?? false, "\(problem)")
        }
        XCTAssertEqual(json["sites"]?.arrayValue?.count, 4)
    }

    func testEmbeddedDefaultIsTheBundledPluginsJSON() throws {
        let c = try Clubhouse()
        // config validate without a file reads the embedded copy; it must name the same sites.
        let embedded = try c.run(["config", "validate", "--json"]).json()
        let sites = embedded["sites"]?.arrayValue?.compactMap { $0["site"]?.stringValue }
        XCTAssertEqual(sites, ["default", "presidio-golf-club", "riverside-tennis-academy", "courtside"])
    }

    // MARK: broken plugins

    private func site(_ c: Clubhouse, _ plugins: [(String, String)]) throws -> String {
        let entries = plugins.map { alias, path in "\"\(alias)\": {\"path\": \"\(path)\", \"grants\": [\"storage\"]}" }
        return try c.write("fixtures.json", "{\"sites\": {\"t\": {\"plugins\": {\(entries.joined(separator: ", "))}}}}")
    }

    func testLoaderRefusesBrokenPluginsWithOneClearLineAndOthersKeepWorking() throws {
        let c = try Clubhouse()
        let notELF = try c.write("notelf.so", "this is text")
        let cases: [(String, String, [String])] = [
            ("missing", c.path("absent.so"), ["absent.so: no such plugin file"]),
            ("notelf", notELF, ["notelf.so: not an ELF shared library"]),
            ("noentry", try FixturePlugins.build("NO_ENTRY"), ["no 'clubhouse_plugin_entry' symbol"]),
            ("badmagic", try FixturePlugins.build("BAD_MAGIC"), ["descriptor magic is 0xDEADBEEF, expected 0x434C5542"]),
            ("abimajor", try FixturePlugins.build("ABI_MAJOR"), ["built for plugin ABI 2.x but this host speaks ABI 1.x"]),
            ("small", try FixturePlugins.build("SMALL_STRUCT"), ["struct_size is 24 bytes"]),
            ("swift", try FixturePlugins.build("SWIFT_MISMATCH"), ["built by Swift 5.9.2", "rebuild the plugin with the host's toolchain"]),
            ("decline", try FixturePlugins.build("DECLINE"), ["declined this host"]),
            ("noinvoke", try FixturePlugins.build("NULL_INVOKE"), ["descriptor field 'invoke' is NULL"]),
            ("catalogue", try FixturePlugins.build("BAD_CATALOGUE"), ["bad command catalogue", "declared twice"]),
            ("hosttopic", try FixturePlugins.build("HOST_TOPIC"),
             ["bad command catalogue: topic 'clubhouse.missed': names beginning with 'clubhouse.' are the host's own signals"]),
            ("createfails", try FixturePlugins.build("CREATE_FAILS", id: "org.tests.createfails"),
             ["could not start: the fixture refuses to start: its licence file is missing"]),
        ]
        let good = try FixturePlugins.build("OK", id: "org.tests.good")
        let config = try site(c, cases.map { ($0.0, $0.1) } + [("good", good)])
        for (alias, _, fragments) in cases {
            try c.fail(["--config", config, alias, "hello"], exitCode: 1, contains: ["plugin '\(alias)'"] + fragments)
        }
        // The good plugin still works beside the broken ones, and plugins list names every failure.
        XCTAssertEqual(try c.succeed(["--config", config, "good", "hello"]).stdout, "hello from org.tests.good\n")
        let list = try c.succeed(["--config", config, "plugins", "list", "--json"]).json()
        let statuses = Dictionary(uniqueKeysWithValues: (list["plugins"]?.arrayValue ?? []).map {
            ($0["plugin"]?.stringValue ?? "", $0["status"]?.stringValue ?? "")
        })
        XCTAssertEqual(statuses["good"], "loaded")
        XCTAssertEqual(statuses["badmagic"], "error")
        XCTAssertEqual(statuses["createfails"], "loaded", "create only runs when a command is called")
        try c.fail(["--config", config, "--strict", "plugins", "list"], contains: ["failed to load (--strict)"])
    }

    func testNewerMinorABIIsAccepted() throws {
        let c = try Clubhouse()
        let config = try site(c, [("future", try FixturePlugins.build("ABI_NEWER_MINOR", id: "org.tests.future"))])
        XCTAssertEqual(try c.succeed(["--config", config, "future", "hello"]).stdout, "hello from org.tests.future\n")
        let info = try c.succeed(["--config", config, "plugins", "info", "future", "--json"]).json()
        XCTAssertEqual(info["abi"]?.stringValue, "1.7")
    }

    func testDuplicateIdsAndUnmetVersionsAreRefused() throws {
        let c = try Clubhouse()
        let one = try FixturePlugins.build("OK", id: "org.tests.same", version: "1.0.0")
        let two = try FixturePlugins.build("OK", id: "org.tests.same", version: "1.0.1")
        let config = try c.write("dup.json", """
            {"sites": {"t": {"plugins": {
              "one": {"path": "\(one)", "grants": ["storage"]},
              "two": {"path": "\(two)", "grants": ["storage"]},
              "old": {"path": "\(one)", "version": "^2.0", "grants": ["storage"]}
            }}}}
            """)
        // The attack: a second file claiming a real plugin's id, called first, must not run (it would
        // migrate the real plugin's database). Refused at call time, both files named, whichever
        // alias is called and whatever was loaded before.
        for alias in ["two", "one"] {
            try c.fail(["--config", config, alias, "hello"],
                       contains: ["duplicate plugin id org.tests.same", one, two, "share one database"])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("data/t/org.tests.same.sqlite")),
                       "a refused duplicate never opens the database")
        let list = try c.succeed(["--config", config, "plugins", "list", "--json"]).json()
        for alias in ["one", "two"] {
            let row = (list["plugins"]?.arrayValue ?? []).first { $0["plugin"]?.stringValue == alias }
            XCTAssertEqual(row?["status"]?.stringValue, "error", "\(list)")
            XCTAssertTrue(row?["error"]?.stringValue?.contains("duplicate plugin id org.tests.same") ?? false, "\(list)")
        }
        try c.fail(["--config", config, "old", "hello"], contains: ["1.0.0", "does not satisfy the site's version requirement '^2.0'", "dup.json:4:"])
    }

    func testACommandThatFailsExitsWithOneAndItsMessage() throws {
        let c = try Clubhouse()
        let config = try site(c, [("fx", try FixturePlugins.build("OK"))])
        try c.fail(["--config", config, "fx", "fail"], exitCode: 1,
                   contains: ["the fixture failed on purpose: no balls left in the hopper; refill it and retry"])
    }

    func testAPluginCannotReachAnotherDatabaseOrTheHostsTables() throws {
        let c = try Clubhouse()
        try c.succeed(["notes", "add", "secret"])
        let other = c.dataDirectory.path + "/default/org.example.notes.sqlite"
        let config = try c.write("nosy.json", """
            {"sites": {"default": {"plugins": {"nosy": {"path": "\(try FixturePlugins.build("OK", id: "org.tests.nosy"))", "grants": ["storage"]}}}}}
            """)
        try c.fail(["--config", config, "nosy", "attach", "--sql", "ATTACH DATABASE '\(other)' AS stolen"],
                   exitCode: 1, contains: ["ATTACH and DETACH are not allowed"])
        try c.fail(["--config", config, "nosy", "attach", "--sql", "DELETE FROM _clubhouse_migrations"],
                   exitCode: 1, contains: ["belongs to the host"])
        try c.fail(["--config", config, "nosy", "attach", "--sql", "SELECT load_extension('x')"],
                   exitCode: 1, contains: ["load_extension() is not allowed"])
        try c.fail(["--config", config, "nosy", "attach", "--sql", "PRAGMA foreign_keys=OFF"],
                   exitCode: 1, contains: ["cannot be changed by a plugin"])
        try c.fail(["--config", config, "nosy", "attach", "--sql", "VACUUM INTO '/tmp/copy.db'"],
                   exitCode: 1, contains: ["ATTACH and DETACH are not allowed"])
        try c.succeed(["--config", config, "nosy", "attach", "--sql", "CREATE TABLE mine(x)"])
    }

    func testPluginsAreFoundByIdInPluginDirsAndTheProbeIsCached() throws {
        let c = try Clubhouse()
        let folder = c.path("plugins")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try FixturePlugins.build("OK", id: "org.tests.found"), toPath: folder + "/libfound.so")
        try c.write("plugins/not-a-plugin.so", "text")
        let config = try c.write("dirs.json", """
            {"plugin_dirs": ["plugins"], "sites": {"s": {"plugins": {"found": {"id": "org.tests.found", "grants": ["storage"]}}}}}
            """)
        XCTAssertEqual(try c.succeed(["--config", config, "found", "hello"]).stdout, "hello from org.tests.found\n")
        // The probe cache lives beside the data: nothing is written under the cache home.
        let registry = try String(contentsOfFile: c.dataDirectory.appendingPathComponent("plugin-registry.json").path, encoding: .utf8)
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("cache/clubhouse")), "nothing outside the data dir")
        XCTAssertTrue(registry.contains("libfound.so") && registry.contains("org.tests.found"), registry)
        XCTAssertTrue(registry.contains("not-a-plugin.so"), "a file that is not a plugin is remembered too")
        // Files outside the build run in a child process by default ("auto").
        XCTAssertEqual(try c.succeed(["--config", config, "plugins", "info", "found", "--json"]).json()["isolation"], "auto")
        let missing = try c.write("missing.json", """
            {"plugin_dirs": ["plugins"], "sites": {"s": {"plugins": {"gone": {"id": "org.tests.gone"}}}}}
            """)
        try c.fail(["--config", missing, "gone", "hello"], contains: ["no plugin with id org.tests.gone in", "plugin_dirs"])
    }

    func testLongWorkShowsAProgressBarOnATerminalAndStaysQuietInAPipe() throws {
        let c = try Clubhouse()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux `script` is not installed; it provides the pseudo-terminal for this test")
        }
        // Under a pseudo-terminal: a bar with a percentage, counts, rate and ETA on stderr.
        let command = "\(Clubhouse.executable.path) greeter countdown --from 4 --step-ms 150"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
        env["XDG_CACHE_HOME"] = c.path("cache")
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let screen = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(screen.contains("counting down  [") && screen.contains("%  2/4") && screen.contains("ETA"), screen)
        XCTAssertTrue(screen.contains("Counted down from 4."), screen)
        // In a pipe: only the result.
        let piped = try c.succeed(["greeter", "countdown", "--from", "2", "--step-ms", "1"])
        XCTAssertEqual(piped.stderr, "")
        XCTAssertEqual(piped.stdout, "Counted down from 2.\n")
    }

    func testVerboseShowsPluginLogMessages() throws {
        let c = try Clubhouse()
        let quiet = try c.succeed(["greeter", "demo", "--out", c.path("out")])
        XCTAssertFalse(quiet.stderr.contains("info:"), quiet.stderr)
        let verbose = try c.succeed(["-v", "greeter", "demo", "--out", c.path("out")])
        XCTAssertTrue(verbose.stderr.contains("[greeter] info: greeter demo writing to \(c.path("out"))"), verbose.stderr)
    }

    // MARK: plugin validate

    func testValidatePassesOnTheExamplesAndFailsWithReasonsOnFixtures() throws {
        let c = try Clubhouse()
        // The Swift greeter declares examples (PluginKit `Command(examples:)`), one long-running.
        for (name, summary) in [("libNotesC.so", "11 checks: 9 passed, 2 skipped"), ("libGreeterPlugin.so", "11 checks: 11 passed, 0 skipped")] {
            let path = Clubhouse.productsDirectory.appendingPathComponent(name).path
            let out = try c.succeed(["plugin", "validate", path]).stdout
            XCTAssertTrue(out.contains(summary + "; the plugin is ready for a site."), out)
        }
        let crash = try c.fail(["plugin", "validate", try FixturePlugins.build("SEGV_CREATE"), "--json"], exitCode: 1,
                               contains: ["create succeeds on a fresh site", "SIGSEGV"])
        XCTAssertEqual(try crash.json()["ok"]?.boolValue, false)
        try c.fail(["plugin", "validate", try FixturePlugins.build("SLOW"), "--timeout", "1"], exitCode: 1,
                   contains: ["did not finish within 1.0 s (a hang)"])
        try c.fail(["plugin", "validate", try FixturePlugins.build("BAD_CATALOGUE")], exitCode: 1,
                   contains: ["describe returns a valid command catalogue", "has no \"summary\""])
        try c.fail(["plugin", "validate"], exitCode: 2, contains: ["'clubhouse plugin validate' needs PATH"])
    }
}
