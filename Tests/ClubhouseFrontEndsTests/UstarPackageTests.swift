// The package archive format on its own: round trip, and every hostile header refused by name.

import XCTest
@testable import ClubhouseFrontEnds

final class UstarPackageTests: XCTestCase {
    func read(_ bytes: [UInt8]) -> String? {
        do { _ = try Ustar.read(bytes); return nil } catch { return error.message }
    }

    func testRoundTripKeepsNamesBytesAndModesAndPadsToBlocks() throws {
        let entries = [Ustar.Entry(name: "manifest.json", bytes: Array("{}".utf8)),
                       Ustar.Entry(name: "lib.so", bytes: (0..<1300).map { UInt8($0 % 251) }, mode: 0o755),
                       Ustar.Entry(name: "README.md", bytes: [])]
        let archive = Ustar.write(entries)
        XCTAssertEqual(archive.count % 512, 0)
        XCTAssertEqual(archive.count, 512 + 512 + 512 + 1536 + 512 + 1024)
        XCTAssertEqual(try Ustar.read(archive), entries)
    }

    func testHostileArchivesAreRefusedWithTheirReason() {
        let good = Ustar.write([Ustar.Entry(name: "a.so", bytes: [1, 2, 3])])
        XCTAssertEqual(read(Array(good.prefix(514))), "the archive is truncated: entry 'a.so' needs 3 bytes but only 2 remain")
        XCTAssertEqual(read(Array(good.prefix(512 + 512))), "the archive is truncated: it ends at byte 1024 without the end-of-archive blocks")
        var flipped = good
        flipped[124 + 10] = UInt8(ascii: "7")  // the size field, checksum left as it was
        XCTAssertTrue(read(flipped)?.contains("header checksum is") ?? false, read(flipped) ?? "accepted")
        for (name, reason) in [("../a.so", "has a '..' path"), ("x/../../a.so", "has a '..' path"), ("/etc/a.so", "has an absolute path"),
                               ("dir/a.so", "is not a plain file name"), ("./a.so", "is not a plain file name"), ("a\u{1}.so", "control characters")] {
            let archive = Ustar.write([Ustar.Entry(name: name, bytes: [])])
            XCTAssertTrue(read(archive)?.contains(reason) ?? false, "\(name): \(read(archive) ?? "accepted")")
        }
        let twice = Ustar.write([Ustar.Entry(name: "a.so", bytes: [1]), Ustar.Entry(name: "a.so", bytes: [2])])
        XCTAssertEqual(read(twice), "entry 'a.so' appears twice in the archive")
        // A size field far beyond the file cannot make the reader allocate or read past the end.
        var huge = Ustar.write([Ustar.Entry(name: "a.so", bytes: [])])
        for (i, b) in Array("77777777777".utf8).enumerated() { huge[124 + i] = b }
        for i in 148..<156 { huge[i] = 32 }
        let sum = huge[0..<512].reduce(0) { $0 + Int($1) }
        for (i, b) in Array(String(sum, radix: 8).utf8).enumerated() { huge[148 + i] = b }
        huge[148 + String(sum, radix: 8).count] = 0
        XCTAssertTrue(read(huge)?.contains("the archive is truncated: entry 'a.so' needs 8589934591 bytes") ?? false, read(huge) ?? "accepted")
    }
}
