// What a user at a terminal sees (issue 20.12), through util-linux `script` (a pseudo-terminal):
// long output goes through the pager ($CLUBHOUSE_PAGER), short output and pipes never do,
// --no-pager turns it off; errors are red on a terminal and plain with NO_COLOR or in pipes.

import ClubhouseJSON
import Foundation
import XCTest

final class TerminalEndToEndTests: XCTestCase {
    private func requireScript() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux 'script' is not installed; it gives the command a terminal")
        }
    }

    func testLongOutputOnATerminalGoesThroughThePager() throws {
        try requireScript()
        let c = try Clubhouse()
        let paged = c.path("paged.txt")
        c.environment["CLUBHOUSE_PAGER"] = "tee \(paged)"
        c.environment["LINES"] = "8"
        // `plugins list` is longer than 8 lines: paged.
        let long = try c.run(["plugins", "list"], onTerminal: true)
        XCTAssertEqual(long.exitCode, 0, long.stdout)
        let through = (try? String(contentsOfFile: paged, encoding: .utf8)) ?? ""
        XCTAssertTrue(through.contains("putting") && through.contains("scorecard"), "the pager got the list: \(through)")
        try? FileManager.default.removeItem(atPath: paged)
        // Shorter than the terminal, --no-pager, or a pipe: printed directly.
        XCTAssertEqual(try c.run(["tennis", "zone", "4.115,6.40"], onTerminal: true).exitCode, 0)
        XCTAssertEqual(try c.run(["--no-pager", "plugins", "list"], onTerminal: true).exitCode, 0)
        XCTAssertTrue(try c.succeed(["plugins", "list"]).stdout.contains("putting"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: paged), "no pager for short output, --no-pager or a pipe")
        // A pager that cannot run never loses the output.
        c.environment["CLUBHOUSE_PAGER"] = "/nonexistent/pager"
        let lost = try c.run(["plugins", "list"], onTerminal: true)
        XCTAssertTrue(lost.stdout.contains("putting"), lost.stdout)
    }

    func testErrorsAreRedOnATerminalOnly() throws {
        try requireScript()
        let c = try Clubhouse()
        c.unsetEnvironment = ["NO_COLOR"]   // whatever the test runner's own environment says
        let red = try c.run(["putting", "holes", "nowhere"], onTerminal: true)
        XCTAssertEqual(red.exitCode, 2)
        XCTAssertTrue(red.stdout.contains("\u{1B}[1;31mclubhouse:\u{1B}[0m "), red.stdout)
        c.environment["NO_COLOR"] = "1"
        let plain = try c.run(["putting", "holes", "nowhere"], onTerminal: true)
        XCTAssertFalse(plain.stdout.contains("\u{1B}["), plain.stdout)
        c.environment["NO_COLOR"] = nil
        XCTAssertFalse(try c.run(["--no-color", "putting", "holes", "nowhere"], onTerminal: true).stdout.contains("\u{1B}["))
        XCTAssertFalse(try c.run(["putting", "holes", "nowhere"]).stderr.contains("\u{1B}["), "never in a pipe")
    }

    /// The third outside attack (a14): text a phone stored (here a drill's name and description, as a write
    /// token stores them) reaches the operator's terminal through `tennis drill list` and error messages.
    /// Every control character but newline and tab, and every bidi override, is printed as "?"; on a terminal
    /// the table's own bold header and colours (SGR) stay, but not conceal (ESC [ 8 m); `--json` stays exact JSON.
    func testStoredTextCarriesNoEscapeSequenceToTheTerminal() throws {
        try requireScript()
        let c = try Clubhouse()
        c.unsetEnvironment = ["NO_COLOR"]
        let hostile = "\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{1B}[8m\u{202E}evil"
        let drill = try JSONWriter.compact(["name": .string("d" + hostile), "description": .string(hostile),
                                            "steps": [["zone": 1, "speed": 50, "delay": 2]]])
        try c.succeed(["tennis", "drill", "save", try c.write("hostile.json", drill)])
        for onTerminal in [false, true] {
            let listed = try c.run(["--no-pager", "tennis", "drill", "list"], onTerminal: onTerminal)
            XCTAssertEqual(listed.exitCode, 0, listed.stderr)
            let out = listed.stdout
            XCTAssertTrue(out.contains("PWNED"), out)
            XCTAssertFalse(out.contains("\u{1B}]") || out.contains("\u{1B}[2J") || out.contains("\u{07}") || out.contains("\u{202E}")
                           || out.contains("\u{1B}[8m"), "terminal \(onTerminal): \(out.debugDescription)")
            XCTAssertTrue(out.contains("?]0;PWNED??[2J?[8m?evil"), "made visible: \(out.debugDescription)")
            if !onTerminal { XCTAssertFalse(out.contains("\u{1B}"), "no escape at all in a pipe") }
        }
        let failed = try c.run(["tennis", "drill", "show", "x" + hostile], onTerminal: true)
        XCTAssertNotEqual(failed.exitCode, 0)
        XCTAssertFalse(failed.stdout.contains("\u{1B}]") || failed.stdout.contains("\u{1B}[2J"), failed.stdout.debugDescription)
        let json = try c.succeed(["--json", "tennis", "drill", "list"])
        XCTAssertTrue(json.stdout.contains(#"\u001b]0;PWNED\u0007"#), "exact JSON: \(json.stdout)")
    }
}
