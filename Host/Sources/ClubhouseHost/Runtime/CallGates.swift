// Serialized plugins take turns through a gate. The gates of one site share one table of which call
// waits for which plugin, and each gate knows the outermost call holding it, so a wait that would
// close a cycle (call 1 in A waits for B while call 2 in B waits for A) is refused at once with the
// cycle named, instead of hanging both. Every wait is bounded and ends early when its call is cancelled.
//
// Lock order: a gate is taken before the plugin's own locks (runner, database); the table's mutex is
// held only inside `enter`/`leave` and never while calling out.

#if canImport(Glibc)
import ClubhousePlatform
import Glibc
#endif

/// @unchecked Sendable: `waiting` is read and written holding `mutex`.
final class CallGates: @unchecked Sendable {
    /// A wait for a busy plugin ends with an error after this long.
    let waitLimitMilliseconds: Int64

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The gate each outermost call is waiting for, with that plugin's alias. (Who holds a gate, who
    /// waits for it and its condition are kept in the gate itself: taking a free gate looks nothing up.)
    private var waiting: [UInt64: (gate: CallGate, alias: String)] = [:]

    init(waitLimitMilliseconds: Int64 = 120_000) {
        self.waitLimitMilliseconds = waitLimitMilliseconds
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the gate of `gate` (a plugin instance called `alias`) for `call`, waiting while another
    /// call holds it. Returns the refusal when waiting would deadlock, took too long, or was cancelled.
    func enter(_ gate: CallGate, alias: String, call: CallContext) -> RuntimeError? {
        let root = call.root
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard gate.holder != nil else {
            gate.holder = (root, alias)
            return nil
        }
        if let cycle = cycle(from: gate, root: root, alias: alias) {
            return RuntimeError(status: .denied,
                                message: "call cycle refused: \(cycle.joined(separator: " → ")) (each waits for the next; calls that invoke each other cannot both run at once); retry the call")
        }
        waiting[root] = (gate, alias)
        gate.waiters += 1
        let condition = gate.condition()
        defer {
            waiting[root] = nil
            gate.waiters -= 1
        }
        let deadline = Subprocess.monotonicMilliseconds() + waitLimitMilliseconds
        while gate.holder != nil {
            let now = Subprocess.monotonicMilliseconds()
            if now >= deadline {
                return RuntimeError(status: .error,
                                    message: "plugin '\(alias)' stayed busy with another call for \(waitLimitMilliseconds / 1000) s; try again when it is free")
            }
            if call.isCancelled {
                return RuntimeError(status: .cancelled, message: "cancelled while waiting for plugin '\(alias)' to finish another call")
            }
            // Wake at least every 100 ms to notice cancellation.
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            let wake = min(deadline, now + 100)
            let delta = wake - now
            ts.tv_sec += Int(delta / 1000)
            ts.tv_nsec += Int(delta % 1000) * 1_000_000
            if ts.tv_nsec >= 1_000_000_000 {
                ts.tv_sec += 1
                ts.tv_nsec -= 1_000_000_000
            }
            pthread_cond_timedwait(condition, mutex, &ts)
        }
        gate.holder = (root, alias)
        return nil
    }

    /// Frees `gate` and wakes one of its own waiters, not every waiter of every gate (a busy
    /// plugin's callers used to wake in a herd).
    func leave(_ gate: CallGate) {
        pthread_mutex_lock(mutex)
        gate.holder = nil
        if gate.waiters > 0, let condition = gate.waitCondition { pthread_cond_signal(condition) }
        pthread_mutex_unlock(mutex)
    }

    /// The plugins of the cycle that waiting for `gate` would close, or nil. Called with the mutex held.
    private func cycle(from gate: CallGate, root: UInt64, alias: String) -> [String]? {
        var path = [alias]
        var current = gate
        var seen = Set<UInt64>()
        while let holder = current.holder {
            if holder.root == root { return path + [path[0]] }
            guard seen.insert(holder.root).inserted, let next = waiting[holder.root] else { return nil }
            path.append(next.alias)
            current = next.gate
        }
        return nil
    }
}

/// One plugin instance's gate: the outermost call holding it, how many calls wait for it and the
/// condition they wait on (made on the first wait). Read and written only with the mutex of the
/// CallGates it is entered through held (which is why it may be @unchecked Sendable); a waiting call
/// keeps its instance, and so its gate, alive.
final class CallGate: @unchecked Sendable {
    fileprivate var holder: (root: UInt64, alias: String)?
    fileprivate var waiters = 0
    fileprivate var waitCondition: UnsafeMutablePointer<pthread_cond_t>?
    init() {}

    deinit {
        if let waitCondition {
            pthread_cond_destroy(waitCondition)
            waitCondition.deallocate()
        }
    }

    /// The condition waiters of this gate wait on (called with the mutex held).
    fileprivate func condition() -> UnsafeMutablePointer<pthread_cond_t> {
        if let known = waitCondition { return known }
        let made = Condition.makeVariable()
        waitCondition = made
        return made
    }
}
