// The command line a new user meets (issue 20): every message here is user-visible, so each has a
// test; exit codes follow the README's rule (0 ok, 2 usage or invalid input, 1 failure of the
// world, 130 cancelled).

import Foundation
import XCTest

final class CommandLineEndToEndTests: XCTestCase {
    func testAnUnknownGlobalOptionIsAUsageErrorNotAPluginName() throws {
        let c = try Clubhouse()
        let result = try c.fail(["--bogus", "plugins", "list"], exitCode: 2,
                                contains: ["unknown option '--bogus'; global options are --site, --config"])
        XCTAssertFalse(result.stderr.contains("unknown plugin"), result.stderr)
    }

    func testVersionHasThreeSpellingsAndHelpDoesNotPrintIt() throws {
        let c = try Clubhouse()
        let expected = try c.succeed(["--version"]).stdout
        XCTAssertTrue(expected.hasPrefix("clubhouse ") && expected.contains("plugin ABI"), expected)
        XCTAssertEqual(try c.succeed(["-V"]).stdout, expected)
        XCTAssertEqual(try c.succeed(["version"]).stdout, expected)
        let help = try c.succeed(["version", "--help"]).stdout
        XCTAssertTrue(help.contains("Usage: clubhouse version"), help)
        XCTAssertEqual(try c.succeed(["--json", "version"]).json()["version"]?.stringValue?.isEmpty, false)
    }

    func testALongArgumentIsCutInTheMessage() throws {
        let c = try Clubhouse()
        let huge = String(repeating: "y", count: 100_000)
        let result = try c.fail(["globe", "visit", huge, "--user", "pt"], exitCode: 2, contains: ["unknown country 'yyyy", "more characters)…"])
        XCTAssertLessThan(result.stderr.utf8.count, 400, "the error stays one readable line")
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1)
    }

    func testConfigValidateExitsTwoOnAMalformedFileAndNamesMissingDevices() throws {
        let c = try Clubhouse()
        let malformed = try c.write("bad.json", #"{"sites": {"default": {"plugins": []}}}"#)
        try c.fail(["config", "validate", malformed], exitCode: 2, contains: ["bad.json:1:", "1 problem(s) found"])
        let noDevices = try c.write("nodev.json", """
            {"sites": {"s": {"plugins": {"t": {"id": "org.clubhouse.tennis", "grants": ["device:machine"]}}}}}
            """)
        let result = try c.fail(["config", "validate", noDevices], exitCode: 2,
                                contains: ["grant 'device:machine' names a device this site does not define (it defines none); add it under \"devices\" or fix the grant"])
        XCTAssertFalse(result.stderr.contains("(devices: )"), result.stderr)
    }

    func testStrictFailsAPluginCommandWhenAnotherPluginOfTheSiteDoesNotLoad() throws {
        let c = try Clubhouse()
        let config = try c.write("site.json", """
            {"sites": {"s": {"plugins": {
              "greeter": {"id": "org.example.greeter"},
              "ghost": {"id": "org.tests.ghost"}}}}}
            """)
        // Without --strict the working plugin works; with it, the command refuses before running.
        try c.succeed(["--config", config, "greeter", "hello", "--name", "A"])
        try c.fail(["--config", config, "--strict", "greeter", "hello", "--name", "A"], exitCode: 1,
                   contains: ["--strict: plugin 'ghost'", "no plugin with id org.tests.ghost"])
    }

    func testABatchRequestIsAnsweredWithOneArray() throws {
        let c = try Clubhouse()
        let input = """
            [{"jsonrpc":"2.0","id":1,"method":"clubhouse.plugins"},{"jsonrpc":"2.0","id":2,"method":"nope"},{"jsonrpc":"2.0","method":"clubhouse.plugins"}]
            [{"jsonrpc":"2.0","method":"clubhouse.plugins"}]
            {"jsonrpc":"2.0","id":3,"method":"clubhouse.plugins"}

            """
        let result = try c.succeed(["serve"], stdin: input)
        // Lines run on workers: the single reply may come before the batch's.
        let lines = result.stdout.split(separator: "\n").sorted { $0.hasPrefix("[") && !$1.hasPrefix("[") }
        XCTAssertEqual(lines.count, 2, "one array for the batch, nothing for the all-notification batch, one reply: \(result.stdout.prefix(400))")
        let batch = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [[String: Any]]
        XCTAssertEqual(batch?.count, 2, "the notification gets no answer")
        XCTAssertEqual(batch?.compactMap { $0["id"] as? Int }, [1, 2])
        XCTAssertNotNil(batch?.last?["error"])
        XCTAssertTrue(lines[1].contains(#""id":3"#), String(lines[1]))
    }

    func testMessagesThatMisledNowSayWhatIsWrong() throws {
        let c = try Clubhouse()
        // No target at all used to say "… not both".
        let frame = try c.fail(["tennis", "frame", "--speed", "50", "--spin", "flat"], exitCode: 2,
                               contains: ["say where the ball goes: give --zone Z (0–15) or --point X,Y (court metres)"])
        XCTAssertFalse(frame.stderr.contains("not both"), frame.stderr)
        // A folder given where a file is expected used to say "check its permissions".
        try FileManager.default.createDirectory(atPath: c.path("folder"), withIntermediateDirectories: true)
        for arguments in [["tennis", "calibrate", "--image-points", c.path("folder")], ["scorecard", "course", "add", c.path("folder")],
                          ["practice", "import", c.path("folder")]] {
            let result = try c.fail(arguments, exitCode: 2, contains: ["\(c.path("folder")) is a folder, not a file; give the path of the file to read"])
            XCTAssertFalse(result.stderr.contains("permissions"), result.stderr)
        }
    }

    /// Issue 20, Why 3: a failed command keeps none of its work.
    func testAVisitWithAnUnknownCityChangesNothing() throws {
        let c = try Clubhouse()
        try c.fail(["globe", "visit", "France", "--user", "pt", "--city", "Paris,Atlantis"], exitCode: 2,
                   contains: ["'Atlantis' is not a city of France (FR)"])
        let stats = try c.succeed(["globe", "stats", "--user", "pt", "--json"]).json()
        XCTAssertEqual(stats["visited"]?.intValue, 0, "France must not be visited after a refused command: \(stats)")
        XCTAssertEqual(stats["citiesChecked"]?.intValue, 0, "Paris must not be checked: \(stats)")
        try c.succeed(["globe", "visit", "France", "--user", "pt", "--city", "Paris"])
        XCTAssertEqual(try c.succeed(["globe", "stats", "--user", "pt", "--json"]).json()["visited"]?.intValue, 1)
    }
}
