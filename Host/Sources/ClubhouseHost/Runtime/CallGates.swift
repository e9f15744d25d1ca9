// Serialized plugins take turns through a gate. The gates of one site share one table of who holds
// which plugin (by outermost call) and which call waits for which plugin, so a wait that would close
// a cycle (call 1 in A waits for B while call 2 in B waits for A) is refused at once with the cycle
// named, instead of hanging both. Every wait is bounded and ends early when its call is cancelled.
//
// Lock order: a gate is taken before the plugin's own locks (runner, database); the table's mutex is
// held only inside `enter`/`leave` and never while calling out.

#if canImport(Glibc)
import ClubhousePlatform
import Glibc
#endif

final class CallGates: @unchecked Sendable {
    /// A wait for a busy plugin ends with an error after this long.
    let waitLimitMilliseconds: Int64

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// One condition per gate that has been waited for (made on first wait, kept): leaving a gate wakes one
    /// of its own waiters, not every waiter of every gate (a busy plugin's callers used to wake in a herd).
    private var conditions: [ObjectIdentifier: UnsafeMutablePointer<pthread_cond_t>] = [:]
    private var waitersByGate: [ObjectIdentifier: Int] = [:]
    /// Outermost call id holding each gate (by the gate's plugin instance).
    private var holders: [ObjectIdentifier: (root: UInt64, alias: String)] = [:]
    /// The gate each outermost call is waiting for, with that plugin's alias.
    private var waiting: [UInt64: (gate: ObjectIdentifier, alias: String)] = [:]

    init(waitLimitMilliseconds: Int64 = 120_000) {
        self.waitLimitMilliseconds = waitLimitMilliseconds
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        for condition in conditions.values {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The condition of gate `key` (called with the mutex held).
    private func condition(_ key: ObjectIdentifier) -> UnsafeMutablePointer<pthread_cond_t> {
        if let known = conditions[key] { return known }
        let made = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        made.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(made, &attributes)
        pthread_condattr_destroy(&attributes)
        conditions[key] = made
        return made
    }

    /// Takes the gate of `gate` (a plugin instance called `alias`) for `call`, waiting while another
    /// call holds it. Returns the refusal when waiting would deadlock, took too long, or was cancelled.
    func enter(_ gate: AnyObject, alias: String, call: CallContext) -> RuntimeError? {
        let key = ObjectIdentifier(gate)
        let root = call.root
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard holders[key] != nil else {
            holders[key] = (root, alias)
            return nil
        }
        if let cycle = cycle(from: key, root: root, alias: alias) {
            return RuntimeError(status: .denied,
                                message: "call cycle refused: \(cycle.joined(separator: " → ")) (each waits for the next; calls that invoke each other cannot both run at once); retry the call")
        }
        waiting[root] = (key, alias)
        waitersByGate[key, default: 0] += 1
        let condition = condition(key)
        defer {
            waiting[root] = nil
            waitersByGate[key, default: 1] -= 1
        }
        let deadline = Subprocess.monotonicMilliseconds() + waitLimitMilliseconds
        while holders[key] != nil {
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
        holders[key] = (root, alias)
        return nil
    }

    func leave(_ gate: AnyObject) {
        let key = ObjectIdentifier(gate)
        pthread_mutex_lock(mutex)
        holders[key] = nil
        if (waitersByGate[key] ?? 0) > 0, let condition = conditions[key] { pthread_cond_signal(condition) }
        pthread_mutex_unlock(mutex)
    }

    /// The plugins of the cycle that waiting for `key` would close, or nil. Called with the mutex held.
    private func cycle(from key: ObjectIdentifier, root: UInt64, alias: String) -> [String]? {
        var path = [alias]
        var current = key
        var seen = Set<UInt64>()
        while let holder = holders[current] {
            if holder.root == root { return path + [path[0]] }
            guard seen.insert(holder.root).inserted, let next = waiting[holder.root] else { return nil }
            path.append(next.alias)
            current = next.gate
        }
        return nil
    }
}
