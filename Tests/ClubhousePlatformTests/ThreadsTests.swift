// The thread primitives that took Dispatch's place in the host (Platform/Threads.swift).

import ClubhousePlatform
import XCTest

final class ThreadsTests: XCTestCase {
    func testASemaphoreCountsAndItsTimedWaitTimesOut() throws {
        let semaphore = Semaphore(value: 1)
        XCTAssertTrue(semaphore.wait(milliseconds: 0))
        let started = Subprocess.monotonicMilliseconds()
        XCTAssertFalse(semaphore.wait(milliseconds: 50))
        XCTAssertGreaterThanOrEqual(Subprocess.monotonicMilliseconds() - started, 45)
        try Thread.after(milliseconds: 20) { semaphore.signal() }
        XCTAssertTrue(semaphore.wait(milliseconds: 5_000))
        semaphore.signal()
        semaphore.signal()
        semaphore.wait()
        XCTAssertTrue(semaphore.wait(milliseconds: 0))
    }

    func testAWaitGroupWaitsForEveryEnter() throws {
        let group = WaitGroup()
        let lock = Lock()
        var done = 0
        for _ in 0..<4 {
            group.enter()
            try Thread.start {
                Thread.sleep(milliseconds: 10)
                lock.withLock { done += 1 }
                group.leave()
            }
        }
        group.wait()
        XCTAssertEqual(lock.withLock { done }, 4)
        WaitGroup().wait()  // nothing entered: returns at once
    }

    func testATimerFiresOnceOrRepeatsAndStopsWhenCancelled() throws {
        let fired = Semaphore()
        let once = try ThreadTimer(milliseconds: 20) { fired.signal() }
        XCTAssertTrue(fired.wait(milliseconds: 5_000))
        XCTAssertFalse(fired.wait(milliseconds: 100), "a one-shot timer fires once")
        once.cancel()

        let ticks = Semaphore()
        let repeating = try ThreadTimer(milliseconds: 10, repeating: 10) { ticks.signal() }
        for _ in 0..<3 { XCTAssertTrue(ticks.wait(milliseconds: 5_000)) }
        repeating.cancel()
        while ticks.wait(milliseconds: 50) {}
        XCTAssertFalse(ticks.wait(milliseconds: 100), "a cancelled timer stops")
    }

    func testATimerMovedLaterFiresLaterAndACancelledOneNever() throws {
        let fired = Semaphore()
        let started = Subprocess.monotonicMilliseconds()
        let moved = try ThreadTimer(milliseconds: 50) { fired.signal() }
        moved.schedule(milliseconds: 300)
        XCTAssertTrue(fired.wait(milliseconds: 5_000))
        XCTAssertGreaterThanOrEqual(Subprocess.monotonicMilliseconds() - started, 290)

        let never = try ThreadTimer(milliseconds: 50) { fired.signal() }
        never.cancel()
        XCTAssertFalse(fired.wait(milliseconds: 200))
    }

    // MARK: the scheduler (one thread for every delayed job)

    /// A starter that fails as `pthread_create` does at the thread limit (EAGAIN), `failing` times from the
    /// `after`-th start on (0: from the first). @unchecked Sendable: `starts` is read and written under `lock`.
    final class FailingStarter: @unchecked Sendable {
        let lock = Lock()
        var starts = 0
        let after: Int
        init(after: Int = 0) { self.after = after }
        var starter: Scheduler.Starter {
            { [self] body throws(ThreadStartError) in
                let n = lock.withLock { () -> Int in starts += 1; return starts }
                if n > after { throw ThreadStartError(code: EAGAIN) }
                try Thread.start(body)
            }
        }
    }

    /// Appends under a lock (what the jobs saw, in the order they ran).
    final class Trace: @unchecked Sendable {  // @unchecked Sendable: `items` is read and written under `lock`.
        let lock = Lock()
        var items: [Int] = []
        func add(_ n: Int) { lock.withLock { items.append(n) } }
        var all: [Int] { lock.withLock { items } }
    }

    func testJobsRunByDeadlineAndEqualDeadlinesInTheOrderScheduled() throws {
        let scheduler = Scheduler()
        defer { scheduler.stop() }
        let trace = Trace()
        let done = Semaphore()
        try scheduler.schedule(after: 120) { trace.add(4); done.signal() }
        try scheduler.schedule(after: 40) { trace.add(1) }
        try scheduler.schedule(after: 80) { trace.add(3) }
        try scheduler.schedule(after: 40) { trace.add(2) }
        try scheduler.schedule(after: 0) { trace.add(0) }
        XCTAssertTrue(done.wait(milliseconds: 5_000))
        XCTAssertEqual(trace.all, [0, 1, 2, 3, 4])
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testACancelledJobNeverRunsAndAMovedOneRunsAtItsNewTime() throws {
        let scheduler = Scheduler()
        defer { scheduler.stop() }
        let trace = Trace()
        let done = Semaphore()
        let cancelled = try scheduler.schedule(after: 30) { trace.add(1) }
        let moved = try scheduler.schedule(after: 30) { trace.add(2) }
        try scheduler.schedule(after: 100) { trace.add(3) }
        try scheduler.schedule(after: 250) { done.signal() }
        scheduler.cancel(cancelled)
        XCTAssertTrue(scheduler.reschedule(moved, after: 180))
        XCTAssertTrue(done.wait(milliseconds: 5_000))
        XCTAssertEqual(trace.all, [3, 2])
        XCTAssertFalse(scheduler.reschedule(moved, after: 10), "a one-off that ran is gone")

        // A repeating job cancelled from inside its own run.
        let ticks = Trace()
        let stopped = Semaphore()
        let box = JobBox()
        box.job = try scheduler.schedule(after: 5, repeating: 5) {
            ticks.add(0)
            if ticks.all.count == 3, let job = box.job {
                scheduler.cancel(job)
                stopped.signal()
            }
        }
        XCTAssertTrue(stopped.wait(milliseconds: 5_000))
        Thread.sleep(milliseconds: 60)
        XCTAssertEqual(ticks.all.count, 3)
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    /// @unchecked Sendable: set once before the job first runs (it runs 5 ms later, on the scheduler's thread).
    final class JobBox: @unchecked Sendable { var job: Scheduler.Job? }

    func testManyJobsEachRunOnceAndCancelledOnesNeverRun() throws {
        let scheduler = Scheduler()
        defer { scheduler.stop() }
        let trace = Trace()
        let count = 5_000
        var generator = SystemRandomNumberGenerator()
        var kept: [Int: Int] = [:]
        var jobs: [Scheduler.Job] = []
        for i in 0..<count {
            let delay = 300 + Int(generator.next(upperBound: UInt32(60)))  // none due before the cancels
            jobs.append(try scheduler.schedule(after: delay) { trace.add(i) })
            kept[i] = delay
        }
        // Every other job cancelled (half the heap stale: it is rebuilt).
        for i in stride(from: 1, to: count, by: 2) {
            scheduler.cancel(jobs[i])
            kept[i] = nil
        }
        let done = Semaphore()
        try scheduler.schedule(after: 700) { done.signal() }
        XCTAssertTrue(done.wait(milliseconds: 10_000))
        let ran = trace.all
        XCTAssertEqual(ran.count, count / 2, "each kept job once, no cancelled one")
        XCTAssertTrue(Set(ran) == Set(kept.keys), "a cancelled job ran, or a kept one did not")
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testAJobThatBlocksDelaysTheOthersButDropsNone() throws {
        // Decided: jobs run one at a time on the scheduler's thread, so a job that blocks holds up the
        // jobs due after it; they run late, in their order, and none is lost. (A job cannot throw: its
        // type is `() -> Void`; long work is handed to a thread of its own by the job.)
        let scheduler = Scheduler()
        defer { scheduler.stop() }
        let trace = Trace()
        let done = Semaphore()
        let started = Subprocess.monotonicMilliseconds()
        try scheduler.schedule(after: 0) { Thread.sleep(milliseconds: 200); trace.add(0) }
        try scheduler.schedule(after: 10) { trace.add(1) }
        try scheduler.schedule(after: 20) {
            trace.add(2)
            // A job may schedule another.
            _ = try? scheduler.schedule(after: 10) { trace.add(3); done.signal() }
        }
        XCTAssertTrue(done.wait(milliseconds: 5_000))
        XCTAssertEqual(trace.all, [0, 1, 2, 3])
        XCTAssertGreaterThanOrEqual(Subprocess.monotonicMilliseconds() - started, 200)
    }

    func testAThreadThatWouldNotStartIsAnErrorAndNothingIsKept() throws {
        let failing = FailingStarter()
        let scheduler = Scheduler(starter: failing.starter)
        let ran = Semaphore()
        XCTAssertThrowsError(try scheduler.schedule(after: 0) { ran.signal() }) { error in
            XCTAssertEqual(error as? ThreadStartError, ThreadStartError(code: EAGAIN))
            XCTAssertTrue("\(error)".contains("would not start a thread"), "\(error)")
        }
        XCTAssertThrowsError(try scheduler.ensureRunning())
        XCTAssertThrowsError(try ThreadTimer(milliseconds: 0, on: scheduler) { ran.signal() })
        XCTAssertFalse(scheduler.isRunning)
        XCTAssertEqual(scheduler.pendingCount, 0)
        XCTAssertFalse(ran.wait(milliseconds: 50))

        // A thread limit that went away: the next schedule starts the thread.
        let once = FailingStarter()
        let recovering = Scheduler(starter: { body throws(ThreadStartError) in
            if once.lock.withLock({ once.starts == 0 }) {
                once.lock.withLock { once.starts = 1 }
                throw ThreadStartError(code: EAGAIN)
            }
            try Thread.start(body)
        })
        defer { recovering.stop() }
        XCTAssertThrowsError(try recovering.ensureRunning())
        try recovering.schedule(after: 0) { ran.signal() }
        XCTAssertTrue(ran.wait(milliseconds: 5_000))
        XCTAssertTrue(recovering.isRunning)
    }

    func testAJobAnAgeAwayIsKeptWithoutOverflowAndCancelled() throws {
        let scheduler = Scheduler()
        defer { scheduler.stop() }
        let far = try scheduler.schedule(after: Int.max, repeating: Int.max) {}
        XCTAssertTrue(scheduler.reschedule(far, after: Int.max))
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.cancel(far)
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testAStoppedSchedulerStartsAgainWithTheNextJob() throws {
        let scheduler = Scheduler()
        let ran = Semaphore()
        try scheduler.ensureRunning()
        scheduler.stop()
        let deadline = Subprocess.monotonicMilliseconds() + 5_000
        while scheduler.isRunning && Subprocess.monotonicMilliseconds() < deadline { Thread.sleep(milliseconds: 1) }
        XCTAssertFalse(scheduler.isRunning)
        try scheduler.schedule(after: 0) { ran.signal() }
        XCTAssertTrue(ran.wait(milliseconds: 5_000))
        scheduler.stop()
    }
}
