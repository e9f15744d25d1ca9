import ClubhouseJSON
import XCTest
@testable import PracticeCore

final class RapsodoParserTests: XCTestCase {
    static let header = #""Club Type","Club Brand","Club Model","Carry Distance","Total Distance","Ball Speed","Launch Angle","Launch Direction","Apex","Side Carry","Club Speed","Smash Factor","Descent Angle","Attack Angle","Club Path","Club Data Est Type","Spin Rate","Spin Axis""#

    /// What a refused bad row's message ends with.
    static let refused = "; nothing was imported (skip-bad-rows imports the good rows and lists the bad ones)"

    private func parse(_ text: String, name: String = "x.csv") throws -> RapsodoExport {
        try RapsodoParser.parse(Array(text.utf8), sourceName: name)
    }

    private func assertError(_ text: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        assertError(Array(text.utf8), message, file: file, line: line)
    }

    private func assertError(_ bytes: [UInt8], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try RapsodoParser.parse(bytes, sourceName: "x.csv"), file: file, line: line) { error in
            XCTAssertEqual("\(error)", message, file: file, line: line)
            XCTAssertEqual((error as? PracticeError)?.kind, .invalidInput, file: file, line: line)
        }
    }

    // MARK: the kernel's two exports

    func testTwoClubSample() throws {
        let url = try SharedData.practice("sessions/rapsodo_mlm2pro_mixed_club_sample.csv")
        let export = try RapsodoParser.parse(SharedData.bytes(url), sourceName: "sample.csv")
        XCTAssertNil(export.title)
        XCTAssertEqual(export.shots.count, 15)
        XCTAssertEqual(export.clubs, ["7i", "5i"])
        XCTAssertEqual(export.shots.filter { $0.club == "7i" }.count, 6)
        XCTAssertEqual(export.shots.filter { $0.club == "5i" }.count, 9)
        XCTAssertEqual(export.footerRows, 2)
        let first = try XCTUnwrap(export.shots.first)
        XCTAssertEqual(first.rowIndex, 2)
        XCTAssertEqual(first.measurements[.ballSpeed], 102.0)
        XCTAssertEqual(first.measurements[.spinRate], 5660)
        XCTAssertEqual(first.measurements[.smashFactor], 1.32)
        // -0.0 is stored as a plain zero, while the raw row keeps the text as written.
        XCTAssertEqual(first.measurements[.attackAngle]?.sign, .plus)
        XCTAssertEqual(first.measurements[.attackAngle], 0)
        // The raw row is its cells as written, in the columns of the header.
        XCTAssertEqual(export.columns, RapsodoParserTests.header.split(separator: ",").map { String($0.dropFirst().dropLast()) })
        XCTAssertEqual(first.rawJSON, #"["7i","","","142.2","151.2","102.0","26.7","-1.0","102.7","3.9","77.4","1.32","51.1","-0.0","-3.4","0","5660","5.5"]"#)
        let raw = try XCTUnwrap(JSONParser.parse(first.rawJSON).arrayValue)
        XCTAssertEqual(raw[export.columns.firstIndex(of: "Attack Angle") ?? 0].stringValue, "-0.0")
    }

    func testRealFiftyNineShotExportIgnoresTitleAndFooters() throws {
        let url = try SharedData.practice("sessions/fixture_mlm2pro_shotexport_anonymized.csv")
        let export = try RapsodoParser.parse(SharedData.bytes(url), sourceName: "real.csv")
        XCTAssertEqual(export.shots.count, 59)
        XCTAssertEqual(export.footerRows, 2)
        XCTAssertEqual(export.clubs, ["7i"])
        XCTAssertEqual(export.title?.sessionName, "Anonymized Session")
        XCTAssertEqual(export.title?.date, "2026-01-27T16:30")
        XCTAssertEqual(export.shots.first?.rowIndex, 4)
        XCTAssertEqual(export.shots.last?.rowIndex, 62)
        XCTAssertEqual(Set(export.shots.map(\.rowIndex)).count, 59)
        // No footer value leaked in: the footer's Average ball speed row is not a shot.
        XCTAssertFalse(export.shots.contains { $0.clubAsWritten.lowercased().contains("average") })
    }

    // MARK: layout variants

    func testRepeatedHeadersAndFootersPerClubBlockAndBlankRows() throws {
        let text = """
        "Rapsodo MLM2PRO: Ann - 03/09/2026 9:05 AM",,,,,,,,,,,,,,,,,

        \(Self.header)
        "7i",,,"150.1","158.0","104.0","21.0","-1.0","85.0","-3.0","82.0","1.27","45.0","0.1","0.2",0,"4500","-2.0"
        "Average",,,"150.1","158.0","104.0","21.0","-1.0","85.0","-3.0","82.0","1.27","45.0","0.1","0.2",0,"4500","-2.0"
        "Std. Dev.",,,"0.0","0.0","0.0","0.0","0.0","0.0","0.0","0.0","0.00","0.0","0.0","0.0",0,"0","0.0"
        ,,,,,,,,,,,,,,,,,
        \(Self.header)
        "PW",,,"110.0","114.0","90.0","29.0","1.0","80.0","2.0","74.0","1.22","49.0","-2.0","1.0",0,"7500","1.0"
        "Std Dev",,,"0.0","0.0","0.0","0.0","0.0","0.0","0.0","0.0","0.00","0.0","0.0","0.0",0,"0","0.0"
        """
        let export = try parse(text)
        XCTAssertEqual(export.shots.map(\.club), ["7i", "pw"])
        XCTAssertEqual(export.repeatedHeaders, 1)
        XCTAssertEqual(export.footerRows, 3)
        XCTAssertEqual(export.blankRows, 1)
        XCTAssertEqual(export.title?.date, "2026-03-09T09:05")
        XCTAssertEqual(export.shots.map(\.rowIndex), [4, 9])
        XCTAssertTrue(export.shots.allSatisfy { $0.rawJSON.hasPrefix("[") }, "same header: rows stay arrays")
    }

    func testARepeatedHeaderWithOtherColumnsKeepsItsRowsSelfDescribing() throws {
        let short = #""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle""#
        let text = Self.header + "\n" + #""7i",,,"150","158","104","21","-1","85","-3","82","1.27","45","0","0",0,"4500","-2""#
            + "\n" + short + "\n" + #""PW","90","1.2","7500","49""#
        let export = try parse(text)
        XCTAssertTrue(export.shots[0].rawJSON.hasPrefix("["))
        XCTAssertEqual(export.shots[1].rawJSON, #"{"Club Type":"PW","Ball Speed":"90","Smash Factor":"1.2","Spin Rate":"7500","Descent Angle":"49"}"#)
        XCTAssertEqual(export.shots[1].measurements[.spinRate], 7500)
    }

    func testValuesMayBeQuotedEmptyDashedOrNegativeZero() throws {
        let text = Self.header + "\n" + #"7i,,,150.2,"",104,--,"-0.0", 85 ,,82,"1.27","45",-,"N/A",0,"4500","-2""#
        let shot = try XCTUnwrap(parse(text).shots.first)
        let m = shot.measurements
        XCTAssertEqual(m[.carry], 150.2)
        XCTAssertNil(m[.total])
        XCTAssertEqual(m[.ballSpeed], 104)
        XCTAssertNil(m[.launchAngle])
        XCTAssertEqual(m[.launchDirection], 0)
        XCTAssertEqual(m[.apex], 85)
        XCTAssertNil(m[.sideCarry])
        XCTAssertNil(m[.attackAngle])
        XCTAssertNil(m[.clubPath])
        XCTAssertEqual(m[.spinAxis], -2)
    }

    func testOlderExportWithoutTheLastColumnsAndCRLFAndBOM() throws {
        let header = #""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle""#
        let text = "\u{FEFF}" + header + "\r\n" + #""7 Iron","101.5","1.30","5000","46.1""# + "\r\n" + #""7I","99","1.29","4900","45""# + "\r\n"
        let export = try parse(text)
        XCTAssertEqual(export.shots.count, 2)
        XCTAssertEqual(export.clubs, ["7i"], "7 Iron and 7I are the same club")
        XCTAssertNil(export.shots[0].measurements[.carry])
        XCTAssertEqual(export.shots[1].rowIndex, 3)
    }

    func testUnitsInHeadersAreConverted() throws {
        let header = #""Club Type","Carry Distance (m)","Ball Speed (km/h)","Apex (m)","Smash Factor","Spin Rate (rpm)","Descent Angle (deg)""#
        let shot = try XCTUnwrap(parse(header + "\n" + #""7i","137.16","160.9344","25","1.3","5000","46""#).shots.first)
        XCTAssertEqual(shot.measurements[.carry] ?? 0, 150, accuracy: 1e-9)
        XCTAssertEqual(shot.measurements[.ballSpeed] ?? 0, 100, accuracy: 1e-9)
        XCTAssertEqual(shot.measurements[.apex] ?? 0, 82.0209973753, accuracy: 1e-6)
        XCTAssertEqual(shot.measurements[.spinRate], 5000)
    }

    func testQuotedFieldsMaySpanLinesAndHoldQuotes() throws {
        let header = #""Club Type","Club Model","Ball Speed","Smash Factor","Spin Rate","Descent Angle""#
        let text = header + "\n" + "\"7i\",\"T100 \"\"tour\"\"\nline two\",\"100\",\"1.3\",\"5000\",\"45\"\n\"7i\",,\"101\",\"1.3\",\"5000\",\"45\""
        let export = try parse(text)
        XCTAssertEqual(export.shots.map(\.rowIndex), [2, 4])
        XCTAssertEqual(try JSONParser.parse(export.shots[0].rawJSON).arrayValue?[1].stringValue, "T100 \"tour\"\nline two")
    }

    // MARK: every bad input

    func testEmptyFile() {
        assertError("", "x.csv: the file is empty; export a session from the MLM2PRO app as CSV")
        assertError("\n \n", "x.csv: the file is empty; export a session from the MLM2PRO app as CSV")
    }

    func testNoHeaderInTheFirstThreeRows() {
        assertError("a,b\nc,d\ne,f\n" + Self.header + "\n",
                    "x.csv:1: no MLM2PRO header in the first 3 rows; expected a row with Club Type, Ball Speed, Smash Factor, "
                        + "Spin Rate, Descent Angle (export the session as CSV from the MLM2PRO app)")
    }

    func testHeaderMissingRequiredColumns() {
        assertError("\n\"Club Type\",\"Ball Speed\",\"Descent Angle\"\n\"7i\",\"100\",\"45\"",
                    "x.csv:2: the header lacks Smash Factor, Spin Rate; an MLM2PRO export needs Club Type, Ball Speed, "
                        + "Smash Factor, Spin Rate, Descent Angle")
    }

    func testUnknownUnit() {
        assertError(#""Club Type","Ball Speed (furlongs)","Smash Factor","Spin Rate","Descent Angle""#,
                    "x.csv:1: unknown unit 'furlongs' in column \"Ball Speed (furlongs)\"; write it in mph or a unit convertible to it")
    }

    func testNotANumber() {
        assertError(Self.header + "\n" + #""7i",,,"150","158","fast","21","-1","85","-3","82","1.27","45","0","0",0,"4500","-2""#,
                    "x.csv:2:20: Ball Speed is \"fast\", not a number; fix the cell, or leave it empty or -- for no value" + Self.refused)
        assertError(Self.header + "\n" + #""7i",,,"150","158","inf","21","-1","85","-3","82","1.27","45","0","0",0,"4500","-2""#,
                    "x.csv:2:20: Ball Speed is \"inf\", not a number; fix the cell, or leave it empty or -- for no value" + Self.refused)
    }

    /// Issue 30: a carry of 1e308 imported silently and then stopped the process on reading. Every value
    /// is checked against its column's plausible range (README), the row named by file:line:column.
    func testValuesOutsideThePlausibleRangeAreBadRows() throws {
        func row(carry: String = "150", ball: String = "100", spin: String = "4500") -> String {
            "\n\"7i\",,,\"\(carry)\",\"158\",\"\(ball)\",\"21\",\"-1\",\"85\",\"-3\",\"82\",\"1.27\",\"45\",\"0\",\"0\",0,\"\(spin)\",\"-2\""
        }
        assertError(Self.header + row(carry: "1e308"),
                    "x.csv:2:8: Carry Distance is 1e+308 yd, outside the plausible 0 to 500 yd; fix the cell, or leave it empty or -- for no value"
                        + Self.refused)
        assertError(Self.header + row(carry: "-1e308"),
                    "x.csv:2:8: Carry Distance is -1e+308 yd, outside the plausible 0 to 500 yd; fix the cell, or leave it empty or -- for no value"
                        + Self.refused)
        assertError(Self.header + row(ball: "99999999999999999999"),
                    "x.csv:2:20: Ball Speed is 1e+20 mph, outside the plausible 0 to 250 mph; fix the cell, or leave it empty or -- for no value"
                        + Self.refused)
        assertError(Self.header + row(spin: "NaN"),
                    "x.csv:2:73: Spin Rate is \"NaN\", not a number; fix the cell, or leave it empty or -- for no value" + Self.refused)
        // A unit conversion is checked after converting: 600 m is 656 yd.
        assertError(Self.header.replacingOccurrences(of: "\"Carry Distance\"", with: "\"Carry Distance (m)\"") + row(carry: "600"),
                    "x.csv:2:8: Carry Distance is 656.1679790026246 yd, outside the plausible 0 to 500 yd; fix the cell, or leave it empty "
                        + "or -- for no value" + Self.refused)
        // Tiny and negative-zero values are in range; -0.0 is stored as 0.
        let export = try parse(Self.header + row(carry: "1e-308") + row(carry: "-0.0"))
        XCTAssertEqual(export.shots.map { $0.measurements[.carry] }, [1e-308, 0])
        XCTAssertEqual(export.shots[1].measurements[.carry]?.sign, .plus)
        // --skip-bad-rows leaves the row out and lists it with its column.
        let skipped = try RapsodoParser.parse(Array((Self.header + row() + row(carry: "1e308")).utf8), sourceName: "x.csv", skipBadRows: true)
        XCTAssertEqual(skipped.shots.count, 1)
        XCTAssertEqual(skipped.badRows.map(\.location), ["3:8"])
    }

    func testShotWithoutClub() {
        assertError(Self.header + "\n" + #""",,,"150","158","100","21","-1","85","-3","82","1.27","45","0","0",0,"4500","-2""#,
                    "x.csv:2: the shot row has no Club Type; fill in the club or delete the row" + Self.refused)
    }

    func testRowWiderThanTheHeader() {
        assertError(#""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle""# + "\n" + #""7i","100","1.3","5000","45","surprise""#,
                    "x.csv:2: the row has 6 cells but the header (line 1) has 5; remove the extra cells" + Self.refused)
    }

    func testUnterminatedQuote() {
        assertError(Self.header + "\n\"7i\",,,\"150\n7i", "x.csv:2: a quoted field opened here never closes; add the missing \"")
    }

    func testTextAfterClosingQuote() {
        assertError(Self.header + "\n\"7i\"x,,,", "x.csv:2: unexpected text after a closing quote; quote the whole field")
    }

    func testInvalidUTF8() {
        var bytes = Array((Self.header + "\n").utf8)
        bytes += [0x22, 0x37, 0xFF, 0x22] + Array(",,,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15".utf8)
        assertError(bytes, "x.csv:2: the text is not valid UTF-8; save the file as UTF-8" + Self.refused)
    }

    func testOnlyFooters() {
        assertError(Self.header + "\n" + #""Average",,,"150","158","100","21","-1","85","-3","82","1.27","45","0","0",0,"4500","-2""#,
                    "x.csv: no shots after the header (only footers or blank rows); export a session that has shots")
    }

    func testProgressIsReportedToTheEnd() throws {
        let csv = SessionGenerator.csv(.init(seed: 1, clubs: [("7i", 9000)]))
        var reports: [(Int, Int)] = []
        _ = try RapsodoParser.parse(csv, sourceName: "big.csv") { reports.append(($0, $1)) }
        XCTAssertGreaterThan(reports.count, 1)
        XCTAssertEqual(reports.last?.0, csv.count)
        XCTAssertEqual(reports.map(\.0), reports.map(\.0).sorted())
    }
}

final class ClubNameTests: XCTestCase {
    func testSpellingsFoldTogether() {
        let cases: [(String, String)] = [
            ("7i", "7i"), ("7I", "7i"), ("7 Iron", "7i"), ("7-iron", "7i"), (" iron 7 ", "7i"), ("Driver", "dr"), ("DR", "dr"),
            ("1W", "dr"), ("3 Wood", "3w"), ("3W", "3w"), ("4 Hybrid", "4h"), ("4H", "4h"), ("PW", "pw"),
            ("Pitching Wedge", "pw"), ("Gap Wedge", "gw"), ("AW", "gw"), ("Sand Wedge", "sw"), ("LW", "lw"),
            ("56°", "56deg"), ("56 deg", "56deg"), ("60 Degree Wedge", "60deg"), ("Putter", "putter"),
            ("Mini Driver", "minidriver"), ("", ""),
        ]
        for (raw, expected) in cases { XCTAssertEqual(ClubName.normalize(raw), expected, raw) }
    }
}
