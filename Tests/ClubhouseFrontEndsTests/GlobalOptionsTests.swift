// The command-line front end: global options and when a progress bar is drawn.

import ClubhouseHost
import XCTest
@testable import ClubhouseFrontEnds

final class GlobalOptionsTests: XCTestCase {
    func testGlobalOptionsComeFromFlagsAnywhereAndTheEnvironment() throws {
        let env = ["CLUBHOUSE_SITE": "envsite", "CLUBHOUSE_DATA_DIR": "/data", "NO_COLOR": "1"]
        let o = try GlobalOptions.parse(["putting", "--json", "bestline", "-vv", "--site=club", "--hole", "3"]) { env[$0] }
        XCTAssertEqual(o.words, ["putting", "bestline", "--hole", "3"])
        XCTAssertTrue(o.json)
        XCTAssertEqual(o.verbosity, 2)
        XCTAssertEqual(o.site, "club")
        XCTAssertEqual(o.dataDirectory, "/data")
        XCTAssertFalse(o.color)
        let passthrough = try GlobalOptions.parse(["notes", "add", "--", "--json"]) { _ in nil }
        XCTAssertEqual(passthrough.words, ["notes", "add", "--", "--json"])
        XCTAssertFalse(passthrough.json)
    }

    func testTheBarIsDrawnOnlyOnATerminalAndNotWithQuietOrJSON() throws {
        var options = GlobalOptions()
        options.quiet = true
        XCTAssertFalse(Session.wouldShowProgress(options: options, terminal: true))
        options.quiet = false
        options.json = true
        XCTAssertFalse(Session.wouldShowProgress(options: options, terminal: true))
        options.json = false
        XCTAssertFalse(Session.wouldShowProgress(options: options, terminal: false), "quiet in pipes")
        XCTAssertTrue(Session.wouldShowProgress(options: options, terminal: true))
    }

    func testStyledOutputNeedsATerminalAndNothingSayingNo() throws {
        func options(_ arguments: [String], _ env: [String: String]) throws -> GlobalOptions {
            try GlobalOptions.parse(arguments + ["practice", "sessions"]) { env[$0] }
        }
        let term = ["TERM": "xterm-256color"]
        XCTAssertTrue(try options([], term).stylesOutput(terminal: true))
        XCTAssertTrue(try options([], [:]).stylesOutput(terminal: true), "no TERM at all is not 'dumb'")
        XCTAssertFalse(try options([], term).stylesOutput(terminal: false), "never in a pipe or a file")
        XCTAssertFalse(try options(["--no-color"], term).stylesOutput(terminal: true))
        XCTAssertFalse(try options(["--json"], term).stylesOutput(terminal: true))
        XCTAssertFalse(try options([], ["TERM": "dumb"]).stylesOutput(terminal: true))
        XCTAssertFalse(try options([], ["NO_COLOR": "1", "TERM": "xterm"]).stylesOutput(terminal: true))
        XCTAssertTrue(try options([], ["NO_COLOR": "", "TERM": "xterm"]).stylesOutput(terminal: true), "an empty NO_COLOR says nothing (no-color.org)")
    }
}
