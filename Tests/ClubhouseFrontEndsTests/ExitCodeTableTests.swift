// The README's exit-code table is the code's rule: every status the ABI defines is in exactly one
// row, and that row's exit code is what the CLI returns for it.

import ClubhouseABI
import Foundation
import XCTest

final class ExitCodeTableTests: XCTestCase {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// status name → exit code, from the table's rows `| N | meaning | `a`, `b` |`.
    static func table() throws -> [String: Int32] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        var rule: [String: Int32] = [:]
        for line in text.split(separator: "\n") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, let code = Int32(cells[1]) else { continue }
            for name in cells[3].split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: CharacterSet(charactersIn: " `"))
                if !trimmed.isEmpty { rule[trimmed] = code }
            }
        }
        return rule
    }

    func testTheReadmeTableIsTheCodesRule() throws {
        let rule = try ExitCodeTableTests.table()
        XCTAssertFalse(rule.isEmpty, "README.md has no exit-code table")
        for status in Status.allCases where status != .row && status != .done {
            XCTAssertEqual(rule[status.name], status.exitCode, "status \(status.name): README says \(rule[status.name].map(String.init) ?? "nothing")")
        }
        XCTAssertEqual(Set(rule.values), [0, 1, 2, 130])
    }
}
