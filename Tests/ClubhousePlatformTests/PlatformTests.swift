// The platform layer: whole writes to descriptors, pipes, paths and the lock.

@testable import ClubhousePlatform
import Dispatch
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class PlatformTests: XCTestCase {
    /// A file a hostile hand swapped for a FIFO or a device is refused, never waited on or read without
    /// end (the eleventh outside round: a FIFO as a package's manifest hung `federation migrate`,
    /// `/dev/zero` grew it to 2 GB); a regular file is read whole up to the limit and refused past it.
    func testReadRegularRefusesFIFOsDevicesAndFilesPastTheLimit() throws {
        let folder = NSTemporaryDirectory() + "readregular-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertEqual(mkfifo(folder + "/fifo", 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/zero", withDestinationPath: "/dev/zero")
        try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: folder + "/file"))
        for name in ["fifo", "zero"] {
            XCTAssertThrowsError(try FileSystem.readRegular(folder + "/" + name, limit: 1 << 20)) { error in
                XCTAssertEqual("\(error)", "\(folder)/\(name): cannot read: it is not a regular file")
            }
        }
        XCTAssertEqual(try FileSystem.readRegular(folder + "/file", limit: 100).count, 100)
        XCTAssertThrowsError(try FileSystem.readRegular(folder + "/file", limit: 99)) { error in
            XCTAssertEqual("\(error)", "\(folder)/file: cannot read: it is larger than 99 bytes")
        }
    }

    /// The one chunked reader (FileSystem.readChunks) behind `read`, `readRegular` and the plugin lock's
    /// hashing: every byte once across chunks, from an offset without moving the descriptor's, stopped when
    /// asked, a failed read's errno.
    func testReadChunksReadsEveryByteOnceFromTheOffsetOrAnOffsetLeftUntouched() throws {
        let path = NSTemporaryDirectory() + "readchunks-\(getpid())"
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        XCTAssertEqual(try FileSystem.read(path), bytes, "several chunks of 64 KiB and a short one")
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        XCTAssertEqual(lseek(fd, 10, SEEK_SET), 10)
        var seen: [UInt8] = [], chunks = 0
        XCTAssertEqual(FileSystem.readChunks(fd, from: 0, chunkBytes: 1 << 16) { seen += $0; chunks += 1; return true }, 0)
        XCTAssertEqual(seen, bytes)
        XCTAssertEqual(chunks, 4)
        XCTAssertEqual(lseek(fd, 0, SEEK_CUR), 10, "pread leaves the descriptor's offset alone")
        seen = []
        XCTAssertEqual(FileSystem.readChunks(fd, chunkBytes: 1000) { seen += $0; return seen.count < 3000 }, 0)
        XCTAssertEqual(seen, Array(bytes[10..<3010]), "from the offset, stopped when asked")
        let folder = open(NSTemporaryDirectory(), O_RDONLY | O_DIRECTORY)
        defer { close(folder) }
        XCTAssertEqual(FileSystem.readChunks(folder) { _ in true }, EISDIR)
    }

    /// A file is read whole whatever its size: through a buffer of the size fstat gives (256 bytes to 64 KiB: the
    /// registry and cache entries every command reads), and to its end in any case — the size is where reading
    /// starts, not where it stops (/proc's files are of size 0 to fstat).
    func testFilesAreReadWholeWhateverTheirSize() throws {
        let folder = NSTemporaryDirectory() + "readwhole-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for size in [0, 1, 255, 256, 257, 335, 15_475, 65_535, 65_536, 65_537, 200_001] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let path = folder + "/f\(size)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(try FileSystem.read(path), bytes, "\(size)")
            XCTAssertEqual(try FileSystem.readRegular(path, limit: 1 << 20), bytes, "\(size)")
            XCTAssertEqual(try FileSystem.readOwnRegular(path, limit: 1 << 20), bytes, "\(size)")
        }
        let status = try FileSystem.read("/proc/self/status")
        XCTAssertTrue(String(decoding: status, as: UTF8.self).contains("\nPid:"), "a /proc file (size 0 to fstat) is read")
    }

    /// A path normalize would give back as it is comes back at once; every other is worked out as before.
    func testNormalizeGivesPlainAbsolutePathsBackAndWorksOutTheRest() {
        func reference(_ path: String) -> String {
            var parts: [Substring] = []
            for part in path.split(separator: "/") {
                if part == "." { continue }
                if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
                parts.append(part)
            }
            return "/" + parts.joined(separator: "/")
        }
        let paths = ["/", "//", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/.", "/..", "/a/.", "/a/..", "/.a", "/..a", "/...",
                     "/a/.../b", "/a.b/c..d", "a", "a/b", "", ".", "/tmp/clubhouse-cli-path-x/demo", "/é/ü", "/a/b/c/", "///",
                     "/a/./", "/./a", "/../a", "/a/b/../../..", "/.../..."]
        for path in paths {
            XCTAssertEqual(FileSystem.normalize(path), reference(path), path)
            XCTAssertEqual(FileSystem.isNormal(path), reference(path) == path, path)
        }
    }

    func testWriteAllDeliversEveryByteThroughAPipe() {
        var fds: [Int32] = [-1, -1]
        XCTAssertTrue(Subprocess.makePipe(&fds))
        let readEnd = fds[0]
        defer { close(readEnd) }
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        let reader = DispatchQueue(label: "reader")
        nonisolated(unsafe) var received: [UInt8] = []
        let done = DispatchSemaphore(value: 0)
        reader.async {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                received += buffer[0..<n]
            }
            done.signal()
        }
        XCTAssertNil(Descriptor.writeAll(fds[1], bytes))
        close(fds[1])
        done.wait()
        XCTAssertEqual(received, bytes)
    }

    func testAWriteToAClosedPipeIsAnErrorNotADeath() {
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [-1, -1]
        XCTAssertTrue(Subprocess.makePipe(&fds))
        close(fds[0])
        defer { close(fds[1]) }
        XCTAssertNotNil(Descriptor.writeAll(fds[1], [1, 2, 3]))
    }

    func testPathsAreMadeAbsoluteAgainstTheirBase() {
        XCTAssertEqual(FileSystem.absolute("b/c", relativeTo: "/a"), "/a/b/c")
        XCTAssertEqual(FileSystem.absolute("/x", relativeTo: "/a"), "/x")
        XCTAssertEqual(FileSystem.directoryName("/a/b/c.so"), "/a/b")
    }

    func testTheLockExcludes() {
        let lock = Lock()
        nonisolated(unsafe) var counter = 0
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { lock.withLock { counter += 1 } }
        }
        XCTAssertEqual(counter, 80_000)
        XCTAssertTrue(lock.tryLock())
        lock.unlock()
    }
}
