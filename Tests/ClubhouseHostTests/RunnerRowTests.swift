// The runner's side of a storage row (Host/Sources/Runner/ProxyRow.swift): a row's text and blobs
// live in one buffer per row, and every pointer given for the row stays valid until the next row
// (storage.h). ServiceConformanceEndToEndTests reads the same through a plugin in every isolation.

import ClubhousePlatform
import XCTest
@testable import ClubhouseRunner
@testable import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

final class RunnerRowTests: XCTestCase {
    private func reply(_ values: [WireValue]) -> WireReader {
        var w = WireWriter()
        w.u32(UInt32(values.count))
        for value in values { value.encode(into: &w) }
        return WireReader(w.bytes)
    }

    private func string(_ row: ProxyRow, _ column: Int) -> String {
        let (pointer, count) = row.bytes(column)
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Two text columns of one row, a blob and an empty text: every pointer is valid, NUL-terminated and
    /// unchanged once the whole row has been read; the values between them are kept too.
    func testEveryTextOfARowStaysWhereItWasGivenUntilTheNextRow() {
        let row = ProxyRow()
        var r = reply([.text(Array("first column".utf8)), .integer(-42), .text(Array("second, longer column".utf8)),
                       .null, .blob([0, 255, 1]), .text([]), .float(2.5)])
        row.load(&r)
        XCTAssertEqual(row.count, 7)
        XCTAssertEqual(r.offset, r.bytes.count)
        let first = row.bytes(0), second = row.bytes(2), blob = row.bytes(4), empty = row.bytes(5)
        XCTAssertEqual(string(row, 0), "first column")
        XCTAssertEqual(string(row, 2), "second, longer column")
        XCTAssertEqual(Array(UnsafeRawBufferPointer(start: blob.0, count: blob.1)), [0, 255, 1])
        XCTAssertEqual(empty.1, 0)
        // Read again: the same pointers, and the first ones still hold their text.
        XCTAssertEqual(row.bytes(0).0, first.0)
        XCTAssertEqual(row.bytes(2).0, second.0)
        XCTAssertEqual(String(cString: first.0), "first column")
        XCTAssertEqual(String(cString: second.0), "second, longer column")
        XCTAssertEqual(first.0[first.1], 0)
        XCTAssertEqual(second.0[second.1], 0)
        XCTAssertEqual(empty.0[0], 0)
        XCTAssertEqual(row.columns[1].int, -42)
        XCTAssertEqual(row.columns[6].double, 2.5)
        XCTAssertEqual(row.type(3), .null)
        XCTAssertNil(row.type(7))
        XCTAssertNil(row.type(-1))
    }

    /// The next row replaces the last one in the same buffer, growing it when it is larger; a reply cut
    /// short leaves no row (as the decoder before did), and clearing keeps nothing of the old row.
    func testTheNextRowReplacesTheLastAndAReplyCutShortLeavesNone() {
        let row = ProxyRow()
        var small = reply([.text(Array("a".utf8))])
        row.load(&small)
        XCTAssertEqual(string(row, 0), "a")
        let long = String(repeating: "x", count: 10_000)
        var large = reply([.text(Array(long.utf8)), .text(Array("tail".utf8))])
        row.load(&large)
        XCTAssertEqual(string(row, 0), long)
        XCTAssertEqual(string(row, 1), "tail")
        XCTAssertEqual(row.bytes(1).0[4], 0)

        var cut = reply([.text(Array("whole".utf8)), .text(Array("cut".utf8))])
        let truncated = Array(cut.bytes.dropLast(2))
        cut = WireReader(truncated)
        row.load(&cut)
        XCTAssertEqual(row.count, 0)

        var lying = WireWriter()
        lying.u32(1)
        lying.u8(StorageValueType.text.rawValue)
        lying.u32(1 << 30) // more bytes than the reply holds
        var r = WireReader(lying.bytes)
        row.load(&r)
        XCTAssertEqual(row.count, 0)

        var again = reply([.integer(7)])
        row.load(&again)
        XCTAssertEqual(row.columns.map(\.int), [7])
        row.clear()
        XCTAssertEqual(row.count, 0)
    }

    /// A number read as text is made once and kept until the next row.
    func testANumbersTextIsMadeOnceForTheRow() {
        let row = ProxyRow()
        var r = reply([.integer(42)])
        row.load(&r)
        var made = 0
        let first = row.converted(0) { made += 1; return PinnedCString("42") }
        let second = row.converted(0) { made += 1; return PinnedCString("other") }
        XCTAssertEqual(made, 1)
        XCTAssertTrue(first === second)
        var next = reply([.integer(43)])
        row.load(&next)
        XCTAssertEqual(row.converted(0) { PinnedCString("43") }.string, "43")
    }
}
