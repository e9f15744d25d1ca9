import XCTest
@testable import ClubhouseHost

final class ProgressBarTests: XCTestCase {
    func testRatesAndDurationsReadNaturally() {
        XCTAssertEqual(TerminalProgressBar.format(12), "12")
        XCTAssertEqual(TerminalProgressBar.format(8_140), "8.1k")
        XCTAssertEqual(TerminalProgressBar.format(2_460_000), "2.5M")
        XCTAssertEqual(TerminalProgressBar.duration(0.2), "0:01")
        XCTAssertEqual(TerminalProgressBar.duration(7), "0:07")
        XCTAssertEqual(TerminalProgressBar.duration(59), "0:59")
        XCTAssertEqual(TerminalProgressBar.duration(125), "2:05")
        XCTAssertEqual(TerminalProgressBar.duration(7_380), "2:03:00")
        XCTAssertEqual(TerminalProgressBar.duration(.infinity), "99:59:59")
        XCTAssertEqual(TerminalProgressBar.grouped(0), "0")
        XCTAssertEqual(TerminalProgressBar.grouped(999), "999")
        XCTAssertEqual(TerminalProgressBar.grouped(12_345), "12,345")
        XCTAssertEqual(TerminalProgressBar.grouped(1_234_567), "1,234,567")
    }

    func testByteCountsAreBinaryUnitsWithOneDecimal() {
        XCTAssertEqual(TerminalProgressBar.bytes(0), "0 B")
        XCTAssertEqual(TerminalProgressBar.bytes(1), "1 B")
        XCTAssertEqual(TerminalProgressBar.bytes(1023), "1023 B")
        XCTAssertEqual(TerminalProgressBar.bytes(1024), "1.0 KiB")
        XCTAssertEqual(TerminalProgressBar.bytes(1536), "1.5 KiB")
        XCTAssertEqual(TerminalProgressBar.bytes(12_897_485), "12.3 MiB")
        XCTAssertEqual(TerminalProgressBar.bytes(40 << 20), "40.0 MiB")
        // Rounding never prints "1024.0 KiB": it moves up a unit.
        XCTAssertEqual(TerminalProgressBar.bytes((1 << 20) - 1), "1.0 MiB")
        XCTAssertEqual(TerminalProgressBar.bytes(3 << 30), "3.0 GiB")
        XCTAssertEqual(TerminalProgressBar.bytes(5 << 40), "5.0 TiB")
        XCTAssertEqual(TerminalProgressBar.bytes(UInt64.max), "16.0 EiB")
        XCTAssertEqual(TerminalProgressBar.rate(512, .bytes), "512 B/s")
        XCTAssertEqual(TerminalProgressBar.rate(5.1 * 1_048_576, .bytes), "5.1 MiB/s")
        XCTAssertEqual(TerminalProgressBar.rate(8_140, .items), "8.1k/s")
    }

    func testTheBarShowsBytesAndItemsEachInTheirOwnWay() {
        // 12.3 MiB of 40 MiB after 2.4 s: 5.1 MiB/s, 5.4 s (so 0:06) to go.
        let bytes = TerminalProgressBar.line(label: "reading x.csv", done: 12_897_485, total: 40 << 20, unit: .bytes,
                                             elapsedMilliseconds: 2_400)
        XCTAssertTrue(bytes.hasPrefix("reading x.csv  ["), bytes)
        XCTAssertTrue(bytes.hasSuffix("] 30%  12.3 MiB / 40.0 MiB  5.1 MiB/s  ETA 0:06"), bytes)
        XCTAssertLessThan(bytes.count, 80)
        let items = TerminalProgressBar.line(label: "importing shots", done: 12_345, total: 21_000, unit: .items,
                                             elapsedMilliseconds: 1_500)
        XCTAssertTrue(items.hasSuffix("] 58%  12,345/21,000  8.2k/s  ETA 0:02"), items)
        // Unknown total: the count and rate only.
        XCTAssertEqual(TerminalProgressBar.line(label: "reading", done: 2048, total: 0, unit: .bytes, elapsedMilliseconds: 1000),
                       "reading  2.0 KiB  2.0 KiB/s")
        XCTAssertEqual(TerminalProgressBar.line(label: "rows", done: 2048, total: 0, unit: .items, elapsedMilliseconds: 1000),
                       "rows  2,048  2.0k/s")
        // A long label gives way to the numbers; the line always fits.
        let long = TerminalProgressBar.line(label: String(repeating: "very-long-file-name-", count: 8) + ".csv",
                                            done: 1 << 30, total: 3 << 30, unit: .bytes, elapsedMilliseconds: 10_000)
        XCTAssertEqual(long.count, 79, long)
        XCTAssertTrue(long.hasSuffix("1.0 GiB / 3.0 GiB  102.4 MiB/s  ETA 0:20"), long)
        XCTAssertTrue(long.contains("…  ["), long)
    }

    func testAnUnknownUnitCodeCountsItems() {
        XCTAssertEqual(ProgressUnit(code: 0), .items)
        XCTAssertEqual(ProgressUnit(code: 1), .bytes)
        XCTAssertEqual(ProgressUnit(code: 77), .items)
        XCTAssertEqual(ProgressUnit(code: .max), .items)
    }
}
