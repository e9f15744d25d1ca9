// Heartbeat leases on long calls (issue 29: a drill a web page started stops when the page stops).
// A request to a plugin's route may carry `Clubhouse-Lease: KEY; ms=N` (KEY: 16–64 letters, digits, '-' or
// '_' the page chose at random; N: 1000–60000, default 5000). While its call runs, the call is held by the
// lease: `POST /api/_/leases/KEY` renews it for another N ms, `DELETE /api/_/leases/KEY` cancels the call at
// once, and a lease not renewed within N ms cancels it too. A closed connection already cancels a call; the
// lease also covers a connection that is dead without having closed (a phone that left the Wi-Fi) and a
// proxy that keeps the host's side open. Only the credential that started the call renews or cancels it.

import ClubhouseHost
import ClubhousePlatform

/// @unchecked Sendable: `leases` is read and written under `lock`; a timer's handler takes the lock too.
final class HTTPCallLeases: @unchecked Sendable {
    static let defaultMilliseconds = 5_000
    static let range = 1_000...60_000

    private struct Lease {
        var principal: String
        var context: CallContext
        var milliseconds: Int
        var timer: ThreadTimer
        var what: String
    }

    private let lock = Lock()
    private var leases: [String: Lease] = [:]
    private let expired: @Sendable (String) -> Void

    /// `expired` hears the line to log when a lease ran out and cancelled its call.
    init(expired: @escaping @Sendable (String) -> Void) { self.expired = expired }

    /// The header's key and period, or the 400 that refuses it.
    static func parse(_ header: String) -> Result<(key: String, milliseconds: Int), HTTPRefusal> {
        let parts = header.split(separator: ";").map { String($0).trimmingSpaces() }
        guard let key = parts.first, isKey(key) else {
            return .failure(HTTPRefusal(400, "Clubhouse-Lease must start with a key of 16–64 letters, digits, '-' or '_' (got '\(String(header.prefix(80)))')"))
        }
        var milliseconds = defaultMilliseconds
        for part in parts.dropFirst() {
            guard part.hasPrefix("ms="), let n = Int(part.dropFirst(3)), range.contains(n) else {
                return .failure(HTTPRefusal(400, "Clubhouse-Lease: '\(String(part.prefix(40)))' is not ms=N with N from \(range.lowerBound) to \(range.upperBound)"))
            }
            milliseconds = n
        }
        return .success((key, milliseconds))
    }

    static func isKey(_ key: String) -> Bool {
        (16...64).contains(key.utf8.count) && key.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
    }

    /// Holds `context` under `key` for `milliseconds`; false when the key holds another call. Throws when
    /// the lease's timer cannot be armed (nothing held: a lease that could not expire is refused).
    func hold(_ key: String, milliseconds: Int, principal: String, context: CallContext, what: String) throws(ThreadStartError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard leases[key] == nil else { return false }
        let timer = try ThreadTimer(milliseconds: milliseconds) { [weak self] in self?.expire(key, context: context) }
        leases[key] = Lease(principal: principal, context: context, milliseconds: milliseconds, timer: timer, what: what)
        return true
    }

    /// The call ended: its lease goes.
    func release(_ key: String, context: CallContext) {
        let lease = lock.withLock { () -> Lease? in
            guard let lease = leases[key], lease.context === context else { return nil }
            leases[key] = nil
            return lease
        }
        lease?.timer.cancel()
    }

    /// What a renewal or a cancel found under a key.
    enum Found { case held, none, another }

    /// Renews the lease for its period again.
    func renew(_ key: String, principal: String) -> Found {
        lock.withLock {
            guard let lease = leases[key] else { return .none }
            guard lease.principal == principal else { return .another }
            lease.timer.schedule(milliseconds: lease.milliseconds)
            return .held
        }
    }

    /// Cancels the leased call now.
    func cancel(_ key: String, principal: String) -> Found {
        let (found, context) = lock.withLock { () -> (Found, CallContext?) in
            guard let lease = leases[key] else { return (.none, nil) }
            guard lease.principal == principal else { return (.another, nil) }
            return (.held, lease.context)
        }
        context?.cancel()
        return found
    }

    private func expire(_ key: String, context: CallContext) {
        let lease = lock.withLock { () -> Lease? in
            guard let lease = leases[key], lease.context === context else { return nil }
            leases[key] = nil
            return lease
        }
        guard let lease else { return }
        lease.timer.cancel()
        context.cancel()
        expired("lease \(key.prefix(8))… of \(lease.what) (\(lease.principal)) was not renewed within \(lease.milliseconds) ms: the call is cancelled")
    }
}
