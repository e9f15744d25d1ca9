// `tennis session --detections FILE` keeps the data clean: an empty file stores no session (exit 2),
// a bad line refuses the file by line, and --skip-bad-rows uses the good lines and lists the bad.

import ClubhouseJSON
import Foundation
import XCTest

final class TennisDetectionsFileEndToEndTests: XCTestCase {
    private func calibrated() throws -> Clubhouse {
        let c = try Clubhouse()
        try c.succeed(["tennis", "calibrate", "--image-points", try c.write("taps.json", TennisEndToEndTests.taps)])
        return c
    }

    private func sessionCount(_ c: Clubhouse) throws -> Int? {
        try c.succeed(["tennis", "sessions", "--json"]).json()["sessions"]?.arrayValue?.count
    }

    func testAnEmptyDetectionsFileStoresNothingAndExits2() throws {
        let c = try calibrated()
        let empty = try c.write("empty.jsonl", "")
        try c.fail(["tennis", "session", "--detections", empty, "--dry-run"], exitCode: 2,
                   contains: ["empty.jsonl:1:1: the detections file is empty; give the player's positions as JSON lines"])
        let blank = try c.write("blank.jsonl", "\n \n")
        try c.fail(["tennis", "session", "--detections", blank, "--dry-run"], exitCode: 2, contains: ["blank.jsonl:1:1: the detections file is empty"])
        XCTAssertEqual(try sessionCount(c), 0)
    }

    func testABadLineRefusesTheFileAndSkipBadRowsListsIt() throws {
        let c = try calibrated()
        let lines = TennisEndToEndTests.detections.split(separator: "\n").map(String.init)
        let text = ([lines[0], "\u{0}\u{1}binary"] + lines.dropFirst()).joined(separator: "\n") + "\n"
        let file = try c.write("d.jsonl", text)
        try c.fail(["tennis", "session", "--detections", file, "--dry-run"], exitCode: 2,
                   contains: ["d.jsonl:2:1: ", "nothing was done (--skip-bad-rows uses the good lines and lists the bad ones)"])
        XCTAssertEqual(try sessionCount(c), 0)
        let json = try c.succeed(["tennis", "session", "--detections", file, "--dry-run", "--skip-bad-rows", "--json"]).json()
        XCTAssertEqual(json["badLines"]?.arrayValue?.compactMap { $0["line"]?.intValue }, [2])
        XCTAssertEqual(json["log"]?["summary"]?["launches"]?.intValue, 4)
        let text2 = try c.succeed(["tennis", "session", "--detections", file, "--dry-run", "--skip-bad-rows"]).stdout
        XCTAssertTrue(text2.contains("left out 1 bad line (--skip-bad-rows):\n  \(file):2:1: unexpected byte 0x00"), text2)
        XCTAssertEqual(try sessionCount(c), 0, "dry runs store nothing")
    }
}
