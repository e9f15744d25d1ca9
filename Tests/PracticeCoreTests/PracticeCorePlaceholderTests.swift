import XCTest
@testable import PracticeCore

final class PracticeCorePlaceholderTests: XCTestCase {
    func testModuleBuilds() { XCTAssertTrue(true) }
}
