import XCTest
@testable import PuttingCore

final class PuttingCorePlaceholderTests: XCTestCase {
    func testModuleBuilds() { XCTAssertTrue(true) }
}
