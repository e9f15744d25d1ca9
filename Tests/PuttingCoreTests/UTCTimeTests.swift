import XCTest
@testable import PuttingCore

final class UTCTimeTests: XCTestCase {
    func testFormatsAndParsesJobTimestamps() {
        XCTAssertEqual(UTCTime.iso8601(0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(UTCTime.iso8601(1_794_973_831.9), "2026-11-18T03:50:31Z")
        XCTAssertEqual(UTCTime.parse("2026-11-18T03:50:31Z"), 1_794_973_831)
        XCTAssertEqual(UTCTime.parse(UTCTime.iso8601(951_782_400)), 951_782_400)  // 2000-02-29
        for bad in ["", "2026-11-18 03:50:31Z", "2026-13-18T03:50:31Z", "2026-11-18T03:50:31", "2026-11-18T03:5x:31Z"] {
            XCTAssertNil(UTCTime.parse(bad), bad)
        }
        XCTAssertGreaterThan(UTCTime.now(), 1_700_000_000)
    }

    func testListsDirectoriesSortedAndReadsFiles() throws {
        let dir = NSTemporaryDirectory() + "utctime-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: dir + "/b.txt"))
        try Data().write(to: URL(fileURLWithPath: dir + "/a.txt"))
        XCTAssertEqual(LocalFiles().names(in: dir), ["a.txt", "b.txt", "sub"])
        XCTAssertEqual(LocalFiles().names(in: dir + "/missing"), [])
        XCTAssertTrue(LocalFiles().isDirectory(dir + "/sub"))
        XCTAssertFalse(LocalFiles().isDirectory(dir + "/b.txt"))
        XCTAssertEqual(LocalFiles().contents(dir + "/b.txt"), Array("hello".utf8))
        XCTAssertEqual(LocalFiles().contents(dir + "/a.txt"), [])
        XCTAssertNil(LocalFiles().contents(dir + "/missing"))
    }
}
