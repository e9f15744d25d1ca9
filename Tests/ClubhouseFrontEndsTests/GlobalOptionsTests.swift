// The command-line front end: global options and when a progress bar is drawn.

import ClubhouseHost
import Foundation
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

    /// A command a message suggests carries the --config and --data-dir this run was given as
    /// flags (quoted for a shell), not those the environment gives it anyway.
    func testSuggestedCommandsNameTheConfigurationAndDataTheRunWasGiven() throws {
        let env = ["CLUBHOUSE_DATA_DIR": "/srv/data"]
        let flags = try GlobalOptions.parse(["--config", "club dir/club.json", "--data-dir", "/d", "lock"]) { env[$0] }
        XCTAssertEqual(flags.commandPrefix { env[$0] }, "clubhouse --config 'club dir/club.json' --data-dir /d")
        let fromEnvironment = try GlobalOptions.parse(["lock"]) { ["CLUBHOUSE_CONFIG": "/etc/club.json", "CLUBHOUSE_DATA_DIR": "/srv/data"][$0] }
        XCTAssertEqual(fromEnvironment.commandPrefix { ["CLUBHOUSE_CONFIG": "/etc/club.json", "CLUBHOUSE_DATA_DIR": "/srv/data"][$0] }, "clubhouse")
        XCTAssertEqual(try GlobalOptions.parse(["lock"]) { _ in nil }.commandPrefix { _ in nil }, "clubhouse")
    }

    /// A plugin's command reads one site of the embedded configuration, but a file given with --config whole:
    /// a problem in another site of it still stops the command, with its file:line:column.
    func testAConfigurationFileIsReadWholeEvenForOneSite() throws {
        let directory = NSTemporaryDirectory() + "clubhouse-one-site-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/club.json"
        try Data("{\"default_site\": \"a\", \"sites\": {\"a\": {\"plugins\": {}},\n \"b\": {\"plugins\": {\"q\": {\"id\": 5}}}}}".utf8)
            .write(to: URL(fileURLWithPath: file))
        let options = try GlobalOptions.parse(["--config", file, "notes", "list"]) { _ in nil }
        for oneSite in [false, true] {
            XCTAssertThrowsError(try options.loadConfiguration(oneSite: oneSite)) { error in
                let message = (error as? CLIError)?.message ?? ""
                XCTAssertTrue(message.hasPrefix("\(file):2:") && message.contains("\"id\""), message)
            }
        }
        let embedded = try GlobalOptions.parse(["--site", "courtside", "tennis"]) { _ in nil }
        let one = try embedded.loadConfiguration(oneSite: true)
        XCTAssertEqual(Array(one.sites.keys), ["courtside"])
        XCTAssertEqual(one.siteOrder.count, try embedded.loadConfiguration().siteOrder.count)
        XCTAssertEqual(try GlobalOptions.parse(["notes"]) { _ in nil }.loadConfiguration(oneSite: true).sites.keys.first, "default")
    }

    /// An error stays one readable line: a huge word is cut, an absolute path is kept whole.
    func testOverlongWordsAreCutButPathsAreKept() {
        let path = "/tmp/" + String(repeating: "d", count: 150) + "/1.0.0@20261127T010237151Z.upgrade-2.0.0.sqlite"
        let message = "restored from (\(path)); and 'x\(String(repeating: "y", count: 500))' is unknown"
        let short = CommandLineTool.shortened(message)
        XCTAssertTrue(short.contains("(\(path));"), short)
        XCTAssertTrue(short.contains("more characters)…"), short)
        XCTAssertLessThan(short.count, path.count + 200)
    }

    /// The man page's OPTIONS are the long options the parser takes, every one of them (read from
    /// its `case "--…"` lines).
    func testTheManPageListsEveryOptionTheParserTakes() throws {
        let man = Completions.manPage()
        let section = man.components(separatedBy: ".SH OPTIONS\n").last?.components(separatedBy: ".SH ").first ?? ""
        let listed = section.split(separator: "\n").filter { $0.hasPrefix(".B ") }.map { $0.dropFirst(3).replacingOccurrences(of: "\\-", with: "-") }
        for option in listed {
            let withValue = ["--site", "--config", "--data-dir"].contains(option) ? [option, "x"] : [option]
            XCTAssertEqual(try GlobalOptions.parse(withValue + ["plugins", "list"]) { _ in nil }.words, ["plugins", "list"], option)
        }
        let source = try String(contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/Host/Sources/FrontEnds/CommandLine/GlobalOptions.swift", encoding: .utf8)
        let parsed = source.components(separatedBy: "case \"--").dropFirst().compactMap { $0.split(separator: "\"").first.map { "--" + $0 } }
        XCTAssertGreaterThanOrEqual(parsed.count, 10, "\(parsed)")
        XCTAssertEqual(Set(parsed).subtracting(listed), [], "options the man page does not list")
        XCTAssertTrue(man.contains("<site>/<id>.backups/"), "the man page names where backups are kept")
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
