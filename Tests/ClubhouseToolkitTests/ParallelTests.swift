// Parallel.perform (what `DispatchQueue.concurrentPerform` did in the product): every index once,
// all done when it returns, on more than one thread when there are cores for it.

import ClubhouseToolkit
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ParallelTests: XCTestCase {
    func testEveryIndexRunsOnceAndAllHaveRunWhenItReturns() {
        for iterations in [0, 1, 2, 7, 1000] {
            let counts = UnsafeMutablePointer<Int>.allocate(capacity: max(1, iterations))
            counts.initialize(repeating: 0, count: max(1, iterations))
            defer { counts.deallocate() }
            let base = counts
            Parallel.perform(iterations: iterations) { i in base[i] += 1 }
            XCTAssertEqual((0..<iterations).filter { counts[$0] != 1 }, [], "\(iterations) iterations")
        }
    }

    func testTheWorkIsSpreadOverThreads() throws {
        try XCTSkipIf(Parallel.processorCount < 2, "one processor")
        var mutex = pthread_mutex_t()
        pthread_mutex_init(&mutex, nil)
        var threads = Set<UInt>()
        Parallel.perform(iterations: 64) { _ in
            usleep(2_000)
            pthread_mutex_lock(&mutex)
            threads.insert(UInt(pthread_self()))
            pthread_mutex_unlock(&mutex)
        }
        XCTAssertGreaterThan(threads.count, 1)
    }
}
