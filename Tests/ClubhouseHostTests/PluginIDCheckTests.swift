// Names.idProblem checks every site entry's id at every command: ids of plain ASCII take a byte
// loop (isPlainID), everything else the character checks that word the message. The two must agree.

@testable import ClubhouseLoader
import XCTest

final class PluginIDCheckTests: XCTestCase {
    func testTheByteCheckAcceptsExactlyTheValidPlainIDs() {
        let label63 = String(repeating: "a", count: 63)
        let valid = ["org.example.notes", "a.b", "org.clubhouse.scorecard", "x-1.y-2.3", "-.-", "\(label63).b",
                     String(repeating: "ab.", count: 42) + "ab"]
        let invalid = ["", "org", ".org", "org.", "org..x", "Org.x", "org.x_y", "org.x y", "org.é", "\(label63)a.b",
                       String(repeating: "ab.", count: 42) + "abc", "org.x\n", "org.x/y"]
        for id in valid {
            XCTAssertTrue(Names.isPlainID(id), id)
            XCTAssertNil(Names.idProblem(id), id)
        }
        for id in invalid {
            XCTAssertFalse(Names.isPlainID(id), id)
            XCTAssertNotNil(Names.idProblem(id), id)
        }
        // Lengths at and past the limits (128 in all), every label at most 63.
        for n in 125...131 {
            let id = String(repeating: "a", count: 60) + "." + String(repeating: "b", count: 60) + "." + String(repeating: "c", count: n - 122)
            XCTAssertEqual(Names.isPlainID(id), n <= 128, "\(n)")
            XCTAssertEqual(Names.idProblem(id) == nil, n <= 128, "\(n)")
        }
        XCTAssertEqual(Names.idProblem("org..x"), "id 'org..x' is not reverse-DNS: labels of lowercase letters, digits and '-' joined by '.', such as org.example.notes")
    }
}
