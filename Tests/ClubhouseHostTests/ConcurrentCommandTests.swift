// "concurrent" in a catalogue (entry.h, ABI 1.6): read as a flag of the command, refused otherwise.

import XCTest
@testable import ClubhouseHost

final class ConcurrentCommandTests: XCTestCase {
    func testConcurrentIsAFlagOfTheCommand() throws {
        let text = #"{"commands": [{"name": "stop", "summary": "s", "concurrent": true}, {"name": "run", "summary": "s"}]}"#
        let catalogue = try CommandCatalog.parse(Array(text.utf8), plugin: "p").get()
        XCTAssertEqual(catalogue.commands.map(\.concurrent), [true, false])
        XCTAssertEqual(SideLane.concurrentCommands(in: Array(text.utf8)), ["stop"])
        let bad = #"{"commands": [{"name": "stop", "summary": "s", "concurrent": "yes"}]}"#
        guard case .failure(let e) = CommandCatalog.parse(Array(bad.utf8), plugin: "p") else { return XCTFail("accepted") }
        XCTAssertEqual(e.problems, [#"command 'stop': "concurrent" must be true or false"#])
    }
}
