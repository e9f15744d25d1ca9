// "cache" in a catalogue (entry.h, ABI 1.7): a read's reply the host may keep, read into the command model
// (CommandDeclaration.cacheMaxAgeMilliseconds, written back by its catalogueEntry) and refused on a command that
// writes, takes a path, or says anything but {"max_age_ms": N} with N from 1 to a day.

import ClubhouseABI
import ClubhouseJSON
import XCTest
@testable import ClubhouseHost

final class CachedReadDeclarationTests: XCTestCase {
    func parse(_ commands: String) -> Result<CommandCatalog, CatalogError> {
        CommandCatalog.parse(Array(#"{"commands": [\#(commands)]}"#.utf8), plugin: "p")
    }

    func testAReadDeclaresHowLongItsReplyMayBeKept() throws {
        let catalogue = try parse(#"{"name": "show", "summary": "s", "access": "read", "cache": {"max_age_ms": 60000}}, {"name": "set", "summary": "s"}"#).get()
        XCTAssertEqual(catalogue.commands.map(\.cacheMaxAgeMilliseconds), [60000, nil])
        // The model writes it back as it reads it.
        let entry = catalogue.commands[0].declaration.catalogueEntry
        XCTAssertEqual(entry["cache"]?["max_age_ms"]?.intValue, 60000)
        XCTAssertNil(catalogue.commands[1].declaration.catalogueEntry["cache"])
    }

    func testRefusals() {
        let cases: [(String, String)] = [
            (#"{"name": "show", "summary": "s", "access": "read", "cache": true}"#,
             #"command 'show': "cache" is true; write {"max_age_ms": N} with N from 1 to 86400000"#),
            (#"{"name": "show", "summary": "s", "access": "read", "cache": {"max_age_ms": 0}}"#,
             #"command 'show': "cache" is {"max_age_ms":0}; write {"max_age_ms": N} with N from 1 to 86400000"#),
            (#"{"name": "show", "summary": "s", "access": "read", "cache": {"max_age_ms": 5, "per": "user"}}"#,
             #"command 'show': "cache" is {"max_age_ms":5,"per":"user"}; write {"max_age_ms": N} with N from 1 to 86400000"#),
            (#"{"name": "set", "summary": "s", "cache": {"max_age_ms": 5}}"#,
             #"command 'set' declares "cache" but writes (its "access" is not "read"): only a read's reply may be kept; make it a read or drop "cache""#),
            (#"{"name": "show", "summary": "s", "access": "read", "cache": {"max_age_ms": 5}, "arguments": [{"name": "file", "type": "path"}]}"#,
             #"command 'show' declares "cache" but takes path argument 'file': its reply may depend on a file the host does not watch; drop "cache""#),
        ]
        for (command, message) in cases {
            guard case .failure(let e) = parse(command) else {
                XCTFail("accepted: \(command)")
                continue
            }
            XCTAssertEqual(e.problems, [message], command)
        }
    }
}
