import XCTest

final class ClubhouseHostPlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertTrue(true) }
}
