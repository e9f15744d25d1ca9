// `practice import` keeps the data clean, through the built `clubhouse` binary: bad rows (wrong
// width, binary bytes, unknown clubs) refused by file:line with nothing stored, --skip-bad-rows,
// the club label rule in the help, duplicates by canonical content, the empty file.

import ClubhouseJSON
import Foundation
import XCTest

final class PracticeCleanImportEndToEndTests: XCTestCase {
    static let header = #""Club Type","Club Brand","Club Model","Carry Distance","Total Distance","Ball Speed","Launch Angle","Launch Direction","Apex","Side Carry","Club Speed","Smash Factor","Descent Angle","Attack Angle","Club Path","Club Data Est Type","Spin Rate","Spin Axis""#

    static func row(_ club: String, carry: Int = 150) -> String {
        #""\#(club)",,,"\#(carry)","158","100","21","-1","85","-3","82","1.27","45","0","0",0,"4500","-2""#
    }

    static func csv(_ rows: [String]) -> String { ([header] + rows).joined(separator: "\n") + "\n" }

    private func sessionCount(_ c: Clubhouse) throws -> Int? {
        try c.succeed(["practice", "sessions", "--json"]).json()["sessions"]?.arrayValue?.count
    }

    func testBadRowsAreRefusedByLineAndNothingIsStored() throws {
        let c = try Clubhouse()
        let short = try c.write("short.csv", Self.csv([Self.row("7i"), #""7i",,,"150","158","100""#]))
        try c.fail(["practice", "import", short], exitCode: 2,
                   contains: ["short.csv:3: the row has 6 cells but the header (line 1) has 18; fill in the missing cells or delete the row",
                              "nothing was imported (--skip-bad-rows imports the good rows and lists the bad ones)"])
        let binary = try c.write("binary.csv", Self.csv([Self.row("7i"), Self.row("7i")]) + "\u{0}\u{1}binary\u{2}\n")
        try c.fail(["practice", "import", binary], exitCode: 2,
                   contains: ["binary.csv:4: the row holds binary bytes (control byte 0x00), not text"])
        let unknown = try c.write("unknown.csv", Self.csv([Self.row("7i"), Self.row("7i 東京🏌️")]))
        try c.fail(["practice", "import", unknown], exitCode: 2,
                   contains: ["unknown.csv:3: unknown club '7i 東京🏌️'; write a known club such as 7i, 7 Iron, PW"])
        XCTAssertEqual(try sessionCount(c), 0)
    }

    func testSkipBadRowsKeepsTheGoodRowsAndListsTheBad() throws {
        let c = try Clubhouse()
        let file = try c.write("mixed.csv", Self.csv([Self.row("7i"), Self.row("Chipper"), Self.row("7 Iron", carry: 140),
                                                     #""7i",1"#]) + "\u{0}binary\n")
        let text = try c.succeed(["practice", "import", file, "--skip-bad-rows"]).stdout
        XCTAssertTrue(text.contains("2 shots, 1 club"), text)
        XCTAssertTrue(text.contains("left out 3 bad rows (--skip-bad-rows):\n  line 3: unknown club 'Chipper'"), text)
        XCTAssertTrue(text.contains("  line 5: the row has 2 cells but the header (line 1) has 18"), text)
        XCTAssertTrue(text.contains("  line 6: the row holds binary bytes"), text)
        let sessions = try c.succeed(["practice", "sessions", "--json"]).json()["sessions"]?.arrayValue ?? []
        XCTAssertEqual(sessions.count, 1)
        let other = try c.write("other.csv", Self.csv([Self.row("PW", carry: 100), Self.row("Banana")]))
        let json = try c.succeed(["practice", "import", other, "--skip-bad-rows", "--json"]).json()
        let single = try c.write("single.csv", Self.csv([Self.row("SW", carry: 80), Self.row("Banana")]))
        let one = try c.succeed(["practice", "import", single, "--skip-bad-rows"]).stdout
        XCTAssertTrue(one.contains(": 1 shot, 1 club\nleft out 1 bad row (--skip-bad-rows):\n  line 3: unknown club 'Banana'"), one)
        XCTAssertEqual(json["bad_rows"]?.arrayValue?.compactMap { $0["line"]?.intValue }, [3])
        XCTAssertEqual(json["session"]?["shot_count"]?.intValue, 1)
    }

    func testTheHelpStatesTheClubLabelRuleAndTheFlag() throws {
        let c = try Clubhouse()
        let help = try c.succeed(["practice", "import", "--help"]).stdout
        for fragment in ["--skip-bad-rows", "case-folded", "Any other character or club is an error", "never dropped",
                         "BOM, CRLF line endings", "An empty file is an error"] {
            XCTAssertTrue(help.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
                .contains(fragment), "help lacks '\(fragment)':\n\(help)")
        }
    }

    func testTheSameSessionSavedWithBOMCRLFOrTrailingSpacesIsAlreadyImported() throws {
        let c = try Clubhouse()
        let text = Self.csv([Self.row("7i"), Self.row("7i", carry: 152), Self.row("PW", carry: 110)])
        try c.succeed(["practice", "import", try c.write("s.csv", text)])
        let variants = ["\u{FEFF}" + text.replacingOccurrences(of: "\n", with: "\r\n"),
                        text.replacingOccurrences(of: "\n", with: " \t\n") + "\n\n"]
        for (i, variant) in variants.enumerated() {
            try c.fail(["practice", "import", try c.write("copy\(i).csv", variant)],
                       contains: ["copy\(i).csv: already imported as session 1", "nothing was written"])
        }
        XCTAssertEqual(try sessionCount(c), 1)
        let trend = try c.succeed(["practice", "trends", "--club", "7i", "--json"]).stdout
        XCTAssertFalse(trend.contains("\"session_id\":2"), trend)
    }

    func testAnEmptyFileIsAnError() throws {
        let c = try Clubhouse()
        try c.fail(["practice", "import", try c.write("empty.csv", "")], exitCode: 2,
                   contains: ["empty.csv: the file is empty; export a session from the MLM2PRO app as CSV"])
        try c.fail(["practice", "import", try c.write("bom.csv", "\u{FEFF}\r\n")], exitCode: 2,
                   contains: ["bom.csv: the file is empty"])
        XCTAssertEqual(try sessionCount(c), 0)
    }
}
