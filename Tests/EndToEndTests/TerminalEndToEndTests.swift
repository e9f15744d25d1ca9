// What a user at a terminal sees (issue 20.12), through util-linux `script` (a pseudo-terminal):
// long output goes through the pager ($CLUBHOUSE_PAGER), short output and pipes never do,
// --no-pager turns it off; errors are red on a terminal and plain with NO_COLOR or in pipes.

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
}
