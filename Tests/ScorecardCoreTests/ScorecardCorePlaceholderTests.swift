import XCTest
@testable import ScorecardCore

final class ScorecardCorePlaceholderTests: XCTestCase {
    func testModuleBuilds() { XCTAssertTrue(true) }
}
