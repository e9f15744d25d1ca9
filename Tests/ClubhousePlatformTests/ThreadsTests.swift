// The thread primitives that took Dispatch's place in the host (Platform/Threads.swift).

import ClubhousePlatform
import XCTest

final class ThreadsTests: XCTestCase {
    func testASemaphoreCountsAndItsTimedWaitTimesOut() {
        let semaphore = Semaphore(value: 1)
        XCTAssertTrue(semaphore.wait(milliseconds: 0))
        let started = Subprocess.monotonicMilliseconds()
        XCTAssertFalse(semaphore.wait(milliseconds: 50))
        XCTAssertGreaterThanOrEqual(Subprocess.monotonicMilliseconds() - started, 45)
        Thread.after(milliseconds: 20) { semaphore.signal() }
        XCTAssertTrue(semaphore.wait(milliseconds: 5_000))
        semaphore.signal()
        semaphore.signal()
        semaphore.wait()
        XCTAssertTrue(semaphore.wait(milliseconds: 0))
    }

    func testAWaitGroupWaitsForEveryEnter() {
        let group = WaitGroup()
        let lock = Lock()
        var done = 0
        for _ in 0..<4 {
            group.enter()
            Thread.detach {
                Thread.sleep(milliseconds: 10)
                lock.withLock { done += 1 }
                group.leave()
            }
        }
        group.wait()
        XCTAssertEqual(lock.withLock { done }, 4)
        WaitGroup().wait()  // nothing entered: returns at once
    }

    func testATimerFiresOnceOrRepeatsAndStopsWhenCancelled() {
        let fired = Semaphore()
        let once = ThreadTimer(milliseconds: 20) { fired.signal() }
        XCTAssertTrue(fired.wait(milliseconds: 5_000))
        XCTAssertFalse(fired.wait(milliseconds: 100), "a one-shot timer fires once")
        once.cancel()

        let ticks = Semaphore()
        let repeating = ThreadTimer(milliseconds: 10, repeating: 10) { ticks.signal() }
        for _ in 0..<3 { XCTAssertTrue(ticks.wait(milliseconds: 5_000)) }
        repeating.cancel()
        while ticks.wait(milliseconds: 50) {}
        XCTAssertFalse(ticks.wait(milliseconds: 100), "a cancelled timer stops")
    }

    func testATimerMovedLaterFiresLaterAndACancelledOneNever() {
        let fired = Semaphore()
        let started = Subprocess.monotonicMilliseconds()
        let moved = ThreadTimer(milliseconds: 50) { fired.signal() }
        moved.schedule(milliseconds: 300)
        XCTAssertTrue(fired.wait(milliseconds: 5_000))
        XCTAssertGreaterThanOrEqual(Subprocess.monotonicMilliseconds() - started, 290)

        let never = ThreadTimer(milliseconds: 50) { fired.signal() }
        never.cancel()
        XCTAssertFalse(fired.wait(milliseconds: 200))
    }
}
