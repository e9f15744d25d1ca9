// Issue 27's independent attack round: what landed, performed again against the built `clubhouse`.
// The hostile plugin is Tests/Fixtures/plugins/hostile_capabilities.c; each test failed before its fix.
//   - a reply's "background" request naming path arguments its call was never given: the host opened
//     them for a sandboxed plugin (read a secret, overwrote a file);
//   - a catalogue "default" on a path argument: the same, without any background work;
//   - a log message with a newline and escape sequences: a line posing as the host's, and escape
//     sequences on the operator's terminal (the standard-error relay already cleaned them);
//   - a 12 MB request line arriving in many reads: scanned again on every read (a 16 MB line held the
//     event loop for 763 s in a debug build, every client waiting).
// Every wait is bounded.

import ClubhouseJSON
import Foundation
import XCTest

final class AttackRoundEndToEndTests: XCTestCase {
    private func site(_ c: Clubhouse, isolation: String = "sandbox", variant: String = "PLAIN") throws -> String {
        let fixture = try FixturePlugins.build(variant, id: "org.tests.capabilities", file: "hostile_capabilities.c")
        return try c.write("capabilities-\(isolation)-\(variant).json", """
            {"sites": {"default": {"plugins": {
              "hc": {"path": "\(fixture)", "grants": [], "isolation": "\(isolation)"}
            }}}}
            """)
    }

    private func skipWithoutLandlock(_ result: ClubhouseResult) throws {
        if result.stderr.contains("has no Landlock") { throw XCTSkip("this kernel has no Landlock: \(result.stderr)") }
    }

    func testBackgroundWorkCannotNamePathsItsCallWasNotGiven() throws {
        for isolation in ["sandbox", "process", "in-process"] {
            let c = try Clubhouse()
            let config = try site(c, isolation: isolation)
            let secret = try c.write("secret.txt", "TOP SECRET\n")
            let victim = try c.write("victim.txt", "the victim's own text\n")
            let r = try c.run(["--config", config, "hc", "background", "--secret", secret, "--victim", victim], timeout: 60)
            try skipWithoutLandlock(r)
            XCTAssertEqual(r.exitCode, 0, "\(isolation): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("asked for background work ('steal') with path argument 'file' (\(secret)), which its own call was not given; not started"),
                          "\(isolation): \(r.stderr)")
            Thread.sleep(forTimeInterval: 1.5) // a background child, had one started, writes within this
            XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "the victim's own text\n", isolation)
        }
    }

    func testTheSamePluginStillReadsAndWritesWhatItsCallerGives() throws {
        let c = try Clubhouse()
        let config = try site(c)
        let secret = try c.write("secret.txt", "given by the caller\n")
        let out = c.path("out.txt")
        let r = try c.run(["--config", config, "--json", "hc", "steal", "--file", secret, "--outf", out], timeout: 60)
        try skipWithoutLandlock(r)
        XCTAssertEqual(r.exitCode, 0, r.stderr)
        XCTAssertEqual(try r.json()["read"]?.intValue, 0)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "PWNED secret=given by the caller\n")
    }

    func testAPathArgumentWithADefaultIsABadCatalogue() throws {
        let c = try Clubhouse()
        let config = try site(c, variant: "DEFAULTS")
        let r = try c.run(["--config", config, "hc", "defaults"], timeout: 60)
        try skipWithoutLandlock(r)
        XCTAssertEqual(r.exitCode, 1, r.stdout)
        XCTAssertTrue(r.stderr.contains("command 'defaults': path argument 'file' declares a \"default\"; a path is a capability only its caller gives"),
                      r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/clubhouse-never-given-victim"))
    }

    func testAPluginsLogMessageIsOneLineWithoutEscapeSequences() throws {
        for isolation in ["sandbox", "in-process"] {
            let c = try Clubhouse()
            let config = try site(c, isolation: isolation)
            let r = try c.run(["--config", config, "hc", "forge-log"], timeout: 60)
            try skipWithoutLandlock(r)
            XCTAssertEqual(r.exitCode, 0, "\(isolation): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("[hc] error: first?[clubhouse] error: FORGED by the plugin?]0;owned??[2J?END\n"),
                          "\(isolation): \(r.stderr)")
            XCTAssertFalse(r.stderr.split(separator: "\n").contains { $0.hasPrefix("[clubhouse] error: FORGED") }, r.stderr)
            XCTAssertFalse(r.stderr.contains("\u{1B}"), r.stderr)
        }
    }

    /// The descriptor's name and summary and the catalogue's summaries and help reach terminals
    /// (`plugins list`, `plugins info`, `--help`): no escape sequence and no forged line passes.
    func testAPluginsNameSummaryAndHelpCarryNoEscapeSequences() throws {
        let c = try Clubhouse()
        let config = try site(c, isolation: "in-process", variant: "ESCAPES")
        for arguments in [["plugins", "list"], ["plugins", "info", "hc"], ["hc", "--help"], ["hc", "paint", "--help"]] {
            let r = try c.run(["--config", config] + arguments, timeout: 60)
            XCTAssertEqual(r.exitCode, 0, "\(arguments): \(r.stderr)")
            let printed = r.stdout + r.stderr
            XCTAssertFalse(printed.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B },
                           "\(arguments): an escape sequence reached the terminal: \(printed.debugDescription)")
            XCTAssertFalse(printed.split(separator: "\n").contains { $0.hasPrefix("[clubhouse]") || $0.hasPrefix("FORGED") },
                           "\(arguments): a forged line: \(printed)")
        }
        let info = try c.run(["--config", config, "plugins", "info", "hc"], timeout: 60)
        XCTAssertTrue(info.stdout.contains("Hostile ?[31mcapabilities"), info.stdout)
        let help = try c.run(["--config", config, "hc", "paint", "--help"], timeout: 60)
        XCTAssertTrue(help.stdout.contains("of help?[2J"), "help keeps its own lines, without the escape: \(help.stdout)")
    }

    func testALongRequestLineIsScannedOnceNotOncePerRead() throws {
        let c = try Clubhouse()
        let config = try c.write("empty.json", #"{"sites": {"default": {"plugins": {}}}}"#)
        let big = String(repeating: "x", count: 12 << 20)
        let lines = [#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.version","params":{"padding":"\#(big)"}}"#,
                     #"{"jsonrpc":"2.0","id":2,"method":"clubhouse.version"}"#]
        let started = Date()
        let r = try c.run(["--config", config, "serve"], stdin: lines.joined(separator: "\n") + "\n", timeout: 90)
        XCTAssertEqual(r.exitCode, 0, r.stderr)
        let ids = try r.stdout.split(separator: "\n").compactMap { try JSONParser.parse(String($0))["id"]?.intValue }
        XCTAssertEqual(Set(ids), [1, 2], "\(r.stdout.prefix(500)) after \(Date().timeIntervalSince(started)) s")
    }
}
