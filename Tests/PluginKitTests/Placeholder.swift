import XCTest

final class PluginKitPlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertTrue(true) }
}
