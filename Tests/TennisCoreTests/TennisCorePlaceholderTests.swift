import XCTest
@testable import TennisCore

final class TennisCorePlaceholderTests: XCTestCase {
    func testModuleBuilds() { XCTAssertTrue(true) }
}
