// A detections file that keeps the session clean: an empty file is refused, a bad line refuses the
// file by line unless bad lines are skipped (then they are listed).

import XCTest
@testable import TennisCore

final class DetectionFileTests: XCTestCase {
    static let good0 = #"{"t":0,"x":1,"y":2}"#
    static let good1 = #"{"t":1,"x":1,"y":2}"#

    func testAnEmptyFileIsRefused() {
        for empty in ["", "\n", " \n\t\n\n"] {
            XCTAssertThrowsError(try DetectionReader.parseAll(empty, file: "d.jsonl")) { error in
                XCTAssertEqual("\(error)", #"d.jsonl:1:1: the detections file is empty; give the player's positions as JSON lines {"t":seconds,"x":px,"y":px}"#)
            }
        }
    }

    func testABadLineRefusesTheFileAndSaysHowToSkipIt() {
        XCTAssertThrowsError(try DetectionReader.parseAll(Self.good0 + "\n\u{0}\u{1}binary\n" + Self.good1, file: "d.jsonl")) { error in
            XCTAssertTrue("\(error)".hasPrefix("d.jsonl:2:1: "), "\(error)")
            XCTAssertTrue("\(error)".hasSuffix("; nothing was done (--skip-bad-rows uses the good lines and lists the bad ones)"), "\(error)")
        }
    }

    func testSkippingKeepsTheGoodLinesAndListsTheBad() throws {
        let text = [Self.good0, "oops", #"{"t":2,"x":1,"y":2}"#, Self.good1, #"{"t":3,"x":1}"#, #"{"t":4,"x":5,"y":6}"#]
            .joined(separator: "\n")
        let content = try DetectionReader.read(text, file: "d.jsonl", skipBadLines: true)
        XCTAssertEqual(content.detections, [Detection(t: 0, x: 1, y: 2), Detection(t: 2, x: 1, y: 2), Detection(t: 4, x: 5, y: 6)])
        XCTAssertEqual(content.badLines.map(\.location.line), [2, 4, 5])
        XCTAssertTrue(content.badLines[1].message.hasPrefix("time 1 s is earlier than the previous detection's 2 s"))
        XCTAssertTrue(content.badLines[2].message.hasPrefix("missing image y (pixels)"))
    }

    /// Issue 30: pixels and times are checked against plausible ranges (a time of 1e300 s made an
    /// interactive session wait for ever), each named by file:line:column.
    func testValuesOutsideThePlausibleRangesAreBadLines() throws {
        func message(_ text: String) -> String {
            do { _ = try DetectionReader.parseAll(text, file: "d.jsonl"); return "no error" } catch { return "\(error)" }
        }
        let tail = "; nothing was done (--skip-bad-rows uses the good lines and lists the bad ones)"
        XCTAssertEqual(message(Self.good0 + "\n" + #"{"t":1,"x":1e308,"y":2}"#),
                       "d.jsonl:2:12: image x (pixels) 1e308 is outside the plausible range -100000 to 100000 px; check the file's units" + tail)
        XCTAssertEqual(message(#"{"t":-1e308,"x":1,"y":2}"#),
                       "d.jsonl:1:6: time t (seconds) -1e308 is outside the plausible range -10000000000 to 10000000000 s; check the file's units" + tail)
        XCTAssertEqual(message(Self.good0 + "\n" + #"{"t":99999999999999999999,"x":1,"y":2}"#),
                       "d.jsonl:2:6: time t (seconds) 99999999999999999999 is outside the plausible range -10000000000 to 10000000000 s; check the file's units" + tail)
        XCTAssertEqual(message(Self.good0 + "\n" + #"{"t":86401,"x":1,"y":2}"#),
                       "d.jsonl:2:1: time 86401 s is more than a day after the first detection's 0 s; a detections file spans at most 86400 s (times are in seconds)" + tail)
        // Unix times, tiny and negative-zero values are fine.
        XCTAssertEqual(try DetectionReader.parseAll(#"{"t":1767225600,"x":1e-308,"y":-0}"# + "\n" + #"{"t":1767225601.5,"x":2,"y":3}"#, file: "d.jsonl").count, 2)
    }

    /// Issue 30: taps and pairs files are checked the same way.
    func testTapsAndPairsOutsideThePlausibleRangesAreRefused() {
        XCTAssertThrowsError(try TapsFile.parse(#"{"net_left":[430,200],"net_right":[1e308,200],"baseline_left":[160,640],"baseline_right":[1120,640],"t":[640,348]}"#,
                                                file: "taps.json")) { error in
            XCTAssertEqual("\(error)", "taps.json:1:36: net_right x 1e308 is outside the plausible range -100000 to 100000 px; check the file's units")
        }
        XCTAssertThrowsError(try PairsFile.parse(#"{"pairs":[{"image":[1,2],"court":[1e5,3]}]}"#, file: "p.json")) { error in
            XCTAssertEqual("\(error)", "p.json:1:35: court point x 1e5 is outside the plausible range -1000 to 1000 m; check the file's units")
        }
    }

    func testOnlyBadLinesIsAnErrorEvenWhenSkipping() {
        XCTAssertThrowsError(try DetectionReader.read("oops\n[1]\n", file: "d.jsonl", skipBadLines: true)) { error in
            XCTAssertEqual("\(error)", #"d.jsonl:1:1: no good detection line (2 bad); give the player's positions as JSON lines {"t":seconds,"x":px,"y":px}"#)
        }
    }
}
