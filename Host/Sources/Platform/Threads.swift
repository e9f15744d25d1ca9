// What the host used Dispatch for, over POSIX threads: a condition (mutex + monotonic condition
// variable), a counting semaphore, a wait group, and delayed work (`Thread.after`, `ThreadTimer`) on
// one scheduler thread (`Scheduler`) rather than a thread per job: a thread the system will not start
// is an error its caller hears (`ThreadStartError`), never work silently not done. The product does not link Dispatch:
// loading libswiftDispatch and libdispatch cost every command, `player list` included, ≈ 0.2 ms
// before `main` (BENCHMARKS.md, "Issue 33, item 5: the libraries no command uses").

#if canImport(Glibc)
import Glibc
#endif

/// A mutex and a condition variable whose timed waits use the monotonic clock.
/// @unchecked Sendable: a pthread mutex and condition are made to be shared between threads; the
/// pointers never change.
public final class Condition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = Condition.makeVariable()
    }

    /// A condition variable whose timed waits use the monotonic clock, allocated and initialized
    /// (the caller destroys and deallocates it): for a lock shared by several conditions (CallGates).
    public static func makeVariable() -> UnsafeMutablePointer<pthread_cond_t> {
        let made = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        made.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(made, &attributes)
        pthread_condattr_destroy(&attributes)
        return made
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits (holding the lock) until signalled; may wake spuriously, so callers loop on their predicate.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (holding the lock) until signalled or until `deadline` (monotonic milliseconds, as
    /// `Subprocess.monotonicMilliseconds()`); false once the deadline has passed.
    @discardableResult
    public func wait(untilMilliseconds deadline: Int64) -> Bool {
        guard deadline != Int64.max else { wait(); return true }
        var ts = timespec(tv_sec: Int(deadline / 1000), tv_nsec: Int(deadline % 1000) * 1_000_000)
        return pthread_cond_timedwait(condition, mutex, &ts) != ETIMEDOUT
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// A counting semaphore (what `DispatchSemaphore` was used for).
/// @unchecked Sendable: `count` is read and written under `condition`'s lock.
public final class Semaphore: @unchecked Sendable {
    private let condition = Condition()
    private var count: Int

    public init(value: Int = 0) { count = value }

    public func signal() {
        condition.withLock {
            count += 1
            condition.signal()
        }
    }

    public func wait() {
        condition.withLock {
            while count == 0 { condition.wait() }
            count -= 1
        }
    }

    /// Waits at most `milliseconds`; false when it timed out.
    public func wait(milliseconds: Int) -> Bool {
        let deadline = Subprocess.monotonicMilliseconds() + Int64(max(0, milliseconds))
        return condition.withLock {
            while count == 0 {
                if !condition.wait(untilMilliseconds: deadline) && count == 0 { return false }
            }
            count -= 1
            return true
        }
    }
}

/// Work started and not yet finished; `wait` returns when none is left (what `DispatchGroup` was used for).
/// @unchecked Sendable: `count` is read and written under `condition`'s lock.
public final class WaitGroup: @unchecked Sendable {
    private let condition = Condition()
    private var count = 0

    public init() {}

    public func enter() { condition.withLock { count += 1 } }

    public func leave() {
        condition.withLock {
            count -= 1
            precondition(count >= 0, "WaitGroup.leave without enter")
            if count == 0 { condition.broadcast() }
        }
    }

    public func wait() {
        condition.withLock { while count > 0 { condition.wait() } }
    }
}

extension Thread {
    /// Runs `body` once, `milliseconds` from now, on the shared scheduler's thread (`Scheduler.shared`;
    /// keep it short: see `Scheduler`). Throws when that thread is not running and could not be
    /// started; `body` never runs then, and the caller does the safe thing instead.
    public static func after(milliseconds: Int, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        try Scheduler.shared.schedule(after: milliseconds, body)
    }

    /// Sleeps the calling thread (signals do not cut it short).
    public static func sleep(milliseconds: Int) {
        guard milliseconds > 0 else { return }
        var left = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var rest = timespec()
        while nanosleep(&left, &rest) != 0 && errno == EINTR { left = rest }
    }
}

/// Delayed work on one thread: jobs kept by deadline (a binary heap; equal deadlines in the order they
/// were scheduled), run one at a time on the scheduler's thread when due. The thread starts with the
/// first job (or `ensureRunning`) and stays; when the system would not start it, scheduling throws
/// `ThreadStartError` and the job is not kept (the next schedule tries again).
///
/// What a job may do: it is `() -> Void`, so it cannot throw — it handles its own errors. It runs on the
/// scheduler's thread, so it must be short: one that blocks delays the jobs due after it (they run late,
/// in their order, none is dropped), and one that traps ends the process as anywhere else. Long work
/// (a device's stop, up to seconds) is handed by its job to a thread of its own, or done there when no
/// thread can be started. A job may schedule, move and cancel jobs, itself included.
/// @unchecked Sendable: every field but `starter` is read and written under `condition`'s lock.
public final class Scheduler: @unchecked Sendable {
    /// Starts the scheduler's thread (a seam: tests give one that fails as a system at its thread limit does).
    public typealias Starter = @Sendable (@escaping () -> Void) throws(ThreadStartError) -> Void

    /// The host's scheduler (`Thread.after`, `ThreadTimer`).
    public static let shared = Scheduler()

    /// A scheduled job (to move or cancel it).
    public struct Job: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        var due: Int64
        var order: UInt64
        let repeating: Int64?
        let body: @Sendable () -> Void
    }

    /// A heap item; stale once its job is gone or was moved (its entry's `order` differs).
    private struct Mark: MinHeapElement {
        var due: Int64
        var order: UInt64
        var id: UInt64
        func precedes(_ other: Mark) -> Bool { due != other.due ? due < other.due : order < other.order }
    }

    private let condition = Condition()
    private let starter: Starter
    private var running = false
    private var stopping = false
    private var entries: [UInt64: Entry] = [:]
    private var heap = MinHeap<Mark>()
    private var stale = 0
    private var nextID: UInt64 = 0
    private var nextOrder: UInt64 = 0

    public init(starter: @escaping Starter = { body throws(ThreadStartError) in try Thread.start(body) }) {
        self.starter = starter
    }

    /// Whether the scheduler's thread is running.
    public var isRunning: Bool { condition.withLock { running } }

    /// Jobs waiting (a repeating one counts until cancelled).
    public var pendingCount: Int { condition.withLock { entries.count } }

    /// Starts the scheduler's thread unless it runs; throws when the system would not start it (for a
    /// caller that must know delayed work will happen before it begins: a device's stop after a grace).
    public func ensureRunning() throws(ThreadStartError) {
        condition.lock()
        defer { condition.unlock() }
        try startLocked()
    }

    /// Runs `body` `milliseconds` from now, and every `repeating` milliseconds after that when given
    /// (until cancelled). Throws, keeping nothing, when the scheduler's thread could not be started.
    @discardableResult
    public func schedule(after milliseconds: Int, repeating: Int? = nil,
                         _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) -> Job {
        let due = Scheduler.due(in: milliseconds)
        condition.lock()
        defer { condition.unlock() }
        try startLocked()
        nextID += 1
        let id = nextID
        entries[id] = Entry(due: due, order: 0, repeating: repeating.map { min(Int64(max(1, $0)), 3_155_760_000_000) }, body: body)
        push(id, due: due)
        return Job(id: id)
    }

    /// Moves a job to `milliseconds` from now; false when it is gone (ran once, or cancelled).
    @discardableResult
    public func reschedule(_ job: Job, after milliseconds: Int) -> Bool {
        let due = Scheduler.due(in: milliseconds)
        return condition.withLock {
            guard entries[job.id] != nil else { return false }
            stale += 1
            push(job.id, due: due)
            return true
        }
    }

    /// Cancels a job: it does not run again (a run already under way finishes).
    public func cancel(_ job: Job) {
        condition.withLock {
            if entries.removeValue(forKey: job.id) != nil { stale += 1 }
            compactIfStale()
        }
    }

    /// Ends the thread once the job running (if any) returns; the jobs left wait for the next
    /// `schedule` or `ensureRunning`, which starts a thread again (tests; the shared one never stops).
    public func stop() {
        condition.withLock {
            if running { stopping = true }
            condition.broadcast()
        }
    }

    /// Monotonic milliseconds `milliseconds` from now (negative: now; beyond a century: a century).
    private static func due(in milliseconds: Int) -> Int64 {
        Subprocess.monotonicMilliseconds() + min(Int64(max(0, milliseconds)), 3_155_760_000_000)
    }

    // Under the lock from here.

    private func startLocked() throws(ThreadStartError) {
        guard !running else { stopping = false; return }
        try starter { [self] in loop() }
        running = true
    }

    private func push(_ id: UInt64, due: Int64) {
        nextOrder += 1
        entries[id]?.due = due
        entries[id]?.order = nextOrder
        // A new earliest deadline: the thread waits for it instead.
        if heap.push(Mark(due: due, order: nextOrder, id: id)) { condition.signal() }
        compactIfStale()
    }

    /// Rebuilds the heap from the live jobs when most of it is stale (moved leases, cancelled timers).
    private func compactIfStale() {
        guard stale > 64 && stale > entries.count else { return }
        heap = MinHeap(sorted: entries.map { Mark(due: $0.value.due, order: $0.value.order, id: $0.key) }
            .sorted { $0.precedes($1) })
        stale = 0
    }

    private func loop() {
        condition.lock()
        while !stopping {
            guard let first = heap.first else {
                condition.wait()
                continue
            }
            guard let entry = entries[first.id], entry.order == first.order else {
                heap.removeFirst()
                stale = max(0, stale - 1)
                continue
            }
            let now = Subprocess.monotonicMilliseconds()
            guard now >= first.due else {
                condition.wait(untilMilliseconds: first.due)
                continue
            }
            heap.removeFirst()
            if let repeating = entry.repeating {
                push(first.id, due: now + repeating)
            } else {
                entries[first.id] = nil
            }
            condition.unlock()
            entry.body()
            condition.lock()
        }
        stopping = false
        running = false
        condition.unlock()
    }
}

/// A timer on the shared scheduler (what `DispatchSourceTimer` was used for): `body` runs `milliseconds`
/// after `init` or the last `schedule`, and again every `repeating` milliseconds when given. `cancel`
/// ends it (a `body` already running finishes). Release the timer without `cancel` and it runs on: its
/// owner cancels it (as in a `deinit`). `init` throws when the scheduler's thread could not be started.
public final class ThreadTimer: Sendable {
    private let scheduler: Scheduler
    private let job: Scheduler.Job

    public init(milliseconds: Int, repeating: Int? = nil, on scheduler: Scheduler = .shared,
                _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        self.scheduler = scheduler
        job = try scheduler.schedule(after: milliseconds, repeating: repeating, body)
    }

    /// Fires `milliseconds` from now instead (a one-shot timer that already fired does not come back).
    public func schedule(milliseconds: Int) { scheduler.reschedule(job, after: milliseconds) }

    public func cancel() { scheduler.cancel(job) }
}
