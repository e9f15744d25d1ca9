// The plugin lock's SHA-256 of a library (Loader/PluginLock.swift, LibraryDigest), read through FileSystem.readChunks.

import XCTest
@testable import ClubhouseHost
#if canImport(Glibc)
import Glibc
#endif

final class PluginLockHashTests: XCTestCase {
    /// Several 1 MiB chunks and a short one, hashed whole; a folder is a clear refusal.
    func testALibraryOfSeveralChunksHashesAsItsWholeBytes() throws {
        let path = NSTemporaryDirectory() + "lockhash-\(getpid())-\(UUID().uuidString)"
        var bytes = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 17)
        for i in bytes.indices { bytes[i] = UInt8((i * 7 + 3) % 251) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        // hashlib.sha256(bytes((i*7+3)%251 for i in range(3*1024*1024+17))).hexdigest()
        // The descriptor first: the digest is then kept for the file (by identity), so a second ask reads nothing.
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        XCTAssertEqual(lseek(fd, 5, SEEK_SET), 5)
        XCTAssertEqual(try LibraryDigest.sha256(descriptor: fd).get(), "b94a81035474d847a7b5f270ed72d10d51a5643254d6495dce93e2022aa22ac7")
        XCTAssertEqual(lseek(fd, 0, SEEK_CUR), 5, "the descriptor's offset is untouched")
        XCTAssertEqual(try LibraryDigest.sha256(path).get(), "b94a81035474d847a7b5f270ed72d10d51a5643254d6495dce93e2022aa22ac7")
        guard case .failure(let error) = LibraryDigest.sha256(NSTemporaryDirectory()) else { return XCTFail("a folder hashed") }
        XCTAssertEqual(error.reason, "not a regular file")
    }
}
