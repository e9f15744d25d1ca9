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

    func testOnlyBadLinesIsAnErrorEvenWhenSkipping() {
        XCTAssertThrowsError(try DetectionReader.read("oops\n[1]\n", file: "d.jsonl", skipBadLines: true)) { error in
            XCTAssertEqual("\(error)", #"d.jsonl:1:1: no good detection line (2 bad); give the player's positions as JSON lines {"t":seconds,"x":px,"y":px}"#)
        }
    }
}
