// The catalogue cache's entry names (Loader/CatalogueCache.swift): the FNV-1a of the plugin file's real path, as
// sixteen lowercase hex digits — the names existing caches hold, so an entry written before is found again.

import XCTest
@testable import ClubhouseHost

final class CatalogueCacheTests: XCTestCase {
    func testEntryNamesAreTheZeroPaddedHexOfThePathsHash() {
        let cache = CatalogueCache(dataDirectory: "/data", host: nil)
        func expected(_ path: String) -> String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in path.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            let hex = String(hash, radix: 16)
            return "/data/catalogues/" + String(repeating: "0", count: 16 - hex.count) + hex
        }
        for path in ["", "/", "/work/bench-cli-final/libScorecardPlugin.so", "/usr/lib/clubhouse/libPuttingPlugin.so", "é/ü",
                     String(repeating: "x", count: 300)] {
            XCTAssertEqual(cache.entryFile(for: path), expected(path), path)
        }
        // A hash with leading zero digits is padded (searched for once: the first path whose hash is below 2^60).
        let small = (0..<100_000).lazy.map { "/p\($0)" }.first { expected($0).dropFirst("/data/catalogues/".count).hasPrefix("0") }
        if let small { XCTAssertEqual(cache.entryFile(for: small), expected(small)) } else { XCTFail("no hash below 2^60 in 100,000 paths") }
    }
}
