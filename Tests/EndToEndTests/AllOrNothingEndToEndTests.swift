// All-or-nothing commands (issue 20.3): a command that stores data and also writes a file checks
// the file's path before it runs, so a wrong path (a missing folder, a folder, a socket) stores
// nothing. The host does this for every path argument declared "access": "write".

import ClubhouseJSON
import Foundation
import XCTest

final class AllOrNothingEndToEndTests: XCTestCase {
    func testAWrongPicturePathStoresNoSession() throws {
        let c = try Clubhouse()
        let tour = c.path("tour")
        try c.succeed(["tennis", "demo", "--out", tour])
        try c.succeed(["tennis", "calibrate", "--image-points", "\(tour)/tennis-demo-taps.json"])
        let detections = "\(tour)/tennis-demo-detections.jsonl"
        func sessions() throws -> Int {
            try c.succeed(["tennis", "sessions", "--json"]).json()["sessions"]?.arrayValue?.count ?? -1
        }
        let before = try sessions()
        // Against the default site's simulator (a dry run stores nothing anyway).
        try c.fail(["tennis", "session", "--detections", detections, "--svg", "/nonexistent/court.svg"], exitCode: 2,
                   contains: ["/nonexistent/court.svg: the folder /nonexistent does not exist; create it first or choose another path"])
        try c.fail(["tennis", "session", "--detections", detections, "--svg", c.path("tour")], exitCode: 2,
                   contains: ["is a folder; give the name of a file to write"])
        XCTAssertEqual(try sessions(), before, "a command refused for its output path stores nothing")
        try c.succeed(["tennis", "session", "--detections", detections, "--svg", c.path("court.svg")])
        XCTAssertTrue(FileManager.default.fileExists(atPath: c.path("court.svg")))
        XCTAssertEqual(try sessions(), before + 1)
    }
}
