import XCTest
@testable import ClubhouseHost

final class ProgressBarTests: XCTestCase {
    func testRatesAndDurationsReadNaturally() {
        XCTAssertEqual(TerminalProgressBar.format(12), "12")
        XCTAssertEqual(TerminalProgressBar.format(8_140), "8.1k")
        XCTAssertEqual(TerminalProgressBar.format(2_460_000), "2.5M")
        XCTAssertEqual(TerminalProgressBar.duration(0.2), "1s")
        XCTAssertEqual(TerminalProgressBar.duration(59), "59s")
        XCTAssertEqual(TerminalProgressBar.duration(125), "2m5s")
        XCTAssertEqual(TerminalProgressBar.duration(7_380), "2h3m")
        XCTAssertEqual(TerminalProgressBar.grouped(0), "0")
        XCTAssertEqual(TerminalProgressBar.grouped(999), "999")
        XCTAssertEqual(TerminalProgressBar.grouped(12_345), "12,345")
        XCTAssertEqual(TerminalProgressBar.grouped(1_234_567), "1,234,567")
    }
}
