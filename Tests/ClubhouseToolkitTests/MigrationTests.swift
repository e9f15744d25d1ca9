import ClubhouseToolkit
import XCTest

final class MigrationTests: XCTestCase {
    func testBothInitialisersMakeTheSameStep() {
        XCTAssertEqual(Migration(1, "one", "CREATE TABLE t(x)"), Migration(version: 1, name: "one", sql: "CREATE TABLE t(x)"))
        XCTAssertNotEqual(Migration(1, "one", "x"), Migration(1, "uno", "x"))
    }
}
