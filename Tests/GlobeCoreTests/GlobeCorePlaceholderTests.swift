import XCTest
@testable import GlobeCore

final class GlobeCorePlaceholderTests: XCTestCase {
    func testModuleBuilds() { XCTAssertTrue(true) }
}
