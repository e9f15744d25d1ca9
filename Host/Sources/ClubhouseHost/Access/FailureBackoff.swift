// Repeated failures from one address slow down. A failure is a credential presented and refused (a
// wrong token, an unknown session cookie, a wrong pairing code); a request with none is not one.
// The first `free` failures cost nothing; each one after locks the address out for 1, 2, 4, … s, at
// most `ceiling` (bounded back-off: 429 with Retry-After). While locked out no credential from that
// address is even checked, so guessing cannot go faster than the back-off. A success does not clear
// an address's failures (the third outside attack, a06: four wrong guesses and then one request with
// the attacker's own token, over and over, guessed without end); only time does: an address with no
// failure for `forgetAfter` seconds is forgotten; at most `maxAddresses` are remembered (the stalest
// go first).

import ClubhousePlatform

/// @unchecked Sendable: `entries` is read and written under `lock`.
final class FailureBackoff: @unchecked Sendable {
    // @unchecked: `entries` is touched only while `lock` is held.
    struct Policy: Sendable {
        var free = 5
        var ceiling = 60.0
        var forgetAfter = 900.0
        var maxAddresses = 10_000
    }

    struct Entry {
        var failures: Int
        var lockedUntil: Double
        var lastFailure: Double
    }

    let policy: Policy
    private let lock = Lock()
    private var entries: [String: Entry] = [:]

    init(policy: Policy = Policy()) { self.policy = policy }

    /// Whole seconds until `address` may try again, or nil when it may now.
    func retryAfter(_ address: String, now: Double) -> Int? {
        lock.withLock {
            guard let entry = entries[address], entry.lockedUntil > now else { return nil }
            return max(1, Int((entry.lockedUntil - now).rounded(.up)))
        }
    }

    /// Counts a failure; returns the failures so far and, when this one locks the address out, for how long.
    func fail(_ address: String, now: Double) -> (failures: Int, lockedFor: Int?) {
        lock.withLock {
            var entry = entries[address] ?? Entry(failures: 0, lockedUntil: 0, lastFailure: now)
            if now - entry.lastFailure > policy.forgetAfter { entry = Entry(failures: 0, lockedUntil: 0, lastFailure: now) }
            entry.failures += 1
            entry.lastFailure = now
            var lockedFor: Int?
            if entry.failures > policy.free {
                let exponent = min(entry.failures - policy.free - 1, 30)
                let seconds = min(policy.ceiling, Double(1 << exponent))
                entry.lockedUntil = now + seconds
                lockedFor = Int(seconds)
            }
            if entries[address] == nil && entries.count >= policy.maxAddresses { evict(now: now) }
            entries[address] = entry
            return (entry.failures, lockedFor)
        }
    }

    var rememberedAddresses: Int { lock.withLock { entries.count } }

    /// Drops forgotten entries, then (still full) the stalest tenth.
    private func evict(now: Double) {
        entries = entries.filter { now - $0.value.lastFailure <= policy.forgetAfter && $0.value.lockedUntil > now - policy.forgetAfter }
        guard entries.count >= policy.maxAddresses else { return }
        let stalest = entries.sorted { $0.value.lastFailure < $1.value.lastFailure }.prefix(max(1, policy.maxAddresses / 10))
        for (address, _) in stalest { entries.removeValue(forKey: address) }
    }
}
