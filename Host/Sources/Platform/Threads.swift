// What the host used Dispatch for, over POSIX threads: a condition (mutex + monotonic condition
// variable), a counting semaphore, a wait group, a closure run later on a thread of its own, and a
// timer (one-shot or repeating) that waits on its own thread. The product does not link Dispatch:
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
    /// Runs `body` on a thread of its own after `milliseconds` (a one-off; for one that may be
    /// moved or cancelled, `ThreadTimer`).
    public static func after(milliseconds: Int, _ body: @escaping @Sendable () -> Void) {
        detach {
            Thread.sleep(milliseconds: milliseconds)
            body()
        }
    }

    /// Sleeps the calling thread (signals do not cut it short).
    public static func sleep(milliseconds: Int) {
        guard milliseconds > 0 else { return }
        var left = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var rest = timespec()
        while nanosleep(&left, &rest) != 0 && errno == EINTR { left = rest }
    }
}

/// A timer on a thread of its own (what `DispatchSourceTimer` was used for): `body` runs `milliseconds`
/// after `init` or the last `schedule`, and again every `repeating` milliseconds when given. `cancel`
/// ends it (the thread goes; a `body` already running finishes); a one-shot timer's thread ends after
/// it fired. Release the timer without `cancel` and it runs on: its owner cancels it (as in a `deinit`).
/// @unchecked Sendable: `due` and `cancelled` are read and written under `condition`'s lock.
public final class ThreadTimer: @unchecked Sendable {
    private let condition = Condition()
    private var due: Int64
    private var cancelled = false
    private let repeating: Int?

    public init(milliseconds: Int, repeating: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        due = Subprocess.monotonicMilliseconds() + Int64(milliseconds)
        self.repeating = repeating.map { max(1, $0) }
        Thread.detach { [self] in run(body) }
    }

    /// Fires `milliseconds` from now instead (a one-shot timer that already fired does not come back).
    public func schedule(milliseconds: Int) {
        condition.withLock {
            due = Subprocess.monotonicMilliseconds() + Int64(milliseconds)
            condition.signal()
        }
    }

    public func cancel() {
        condition.withLock {
            cancelled = true
            condition.signal()
        }
    }

    private func run(_ body: @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled {
            let now = Subprocess.monotonicMilliseconds()
            guard now >= due else {
                condition.wait(untilMilliseconds: due)
                continue
            }
            if let repeating {
                due = now + Int64(repeating)
            } else {
                cancelled = true
            }
            condition.unlock()
            body()
            condition.lock()
        }
    }
}
