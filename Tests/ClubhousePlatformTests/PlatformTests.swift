// The platform layer: whole writes to descriptors, pipes, paths and the lock.

import ClubhousePlatform
import Dispatch
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class PlatformTests: XCTestCase {
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
