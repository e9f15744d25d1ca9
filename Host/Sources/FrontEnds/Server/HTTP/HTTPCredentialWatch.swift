// The credentials of open streams, asked again every second (SECURITY.md: "A revoked credential is refused
// from the next request", and an open stream is not a next request). An event stream or a followed call's
// stream lasts as long as its client likes; when `token revoke` (or the loss of a scope) leaves its
// credential refused, the stream stops delivering at once (unsubscribed), its call is cancelled and the
// loop closes the connection, within a second. The third outside attack, a17: a revoked phone's
// `/api/tennis/events` went on receiving every `launch`. Every call a credential started is watched the
// same way, plain ones too (the fourth, b05: a revoked token's plain drill fired to its end): when the
// credential is refused, its calls are cancelled within a second (a drill stops its machine).

import ClubhouseHost
import ClubhousePlatform

/// @unchecked Sendable: `watched` is guarded by `lock`; the timer is set once in init.
final class HTTPCredentialWatch: @unchecked Sendable {
    private struct Watched {
        weak var connection: HTTPConnection?
        var request: AccessRequest
    }
    static let intervalMilliseconds = 1_000
    private let lock = Lock()
    private var watched: [ObjectIdentifier: Watched] = [:]
    private struct WatchedCall {
        weak var context: CallContext?
        var request: AccessRequest
    }
    private var calls: [ObjectIdentifier: WatchedCall] = [:]
    private var timer: ThreadTimer?

    /// `check` says whether a request's credential still allows it; `drop` ends a connection that lost it.
    /// Refuses to serve when its timer cannot run: a revoked credential would keep its streams.
    init(check: @escaping @Sendable (AccessRequest) -> Bool, drop: @escaping @Sendable (HTTPConnection) -> Void) throws(CLIError) {
        let interval = HTTPCredentialWatch.intervalMilliseconds
        do throws(ThreadStartError) {
            timer = try ThreadTimer(milliseconds: interval, repeating: interval) { [weak self] in self?.sweep(check: check, drop: drop) }
        } catch {
            throw CLIError(status: .busy, message: "serve: the HTTP front end did not start: its credential watch (which ends the "
                           + "streams of a revoked credential) could not run — \(error); end other work on this machine and start it again")
        }
    }

    deinit { timer?.cancel() }

    /// Watches the credential of the stream `connection` has just opened (public requests are never refused).
    func watch(_ connection: HTTPConnection, request: AccessRequest) {
        guard !request.isPublic else { return }
        lock.withLock { watched[ObjectIdentifier(connection)] = Watched(connection: connection, request: request) }
    }

    /// Watches the credential of a call about to run, whatever its kind (plain, followed, leased): it is
    /// cancelled when the credential is refused. Weak: a call that ended is gone from the table by itself.
    func watch(call context: CallContext, request: AccessRequest) {
        guard !request.isPublic else { return }
        lock.withLock {
            if calls.count >= 64 { calls = calls.filter { $0.value.context != nil } }
            calls[ObjectIdentifier(context)] = WatchedCall(context: context, request: request)
        }
    }

    private func sweep(check: (AccessRequest) -> Bool, drop: (HTTPConnection) -> Void) {
        let (now, running) = lock.withLock { () -> ([(ObjectIdentifier, HTTPConnection, AccessRequest)], [(ObjectIdentifier, CallContext, AccessRequest)]) in
            watched = watched.filter { $0.value.connection?.isGone == false }
            calls = calls.filter { $0.value.context != nil }
            return (watched.compactMap { key, w in w.connection.map { (key, $0, w.request) } },
                    calls.compactMap { key, w in w.context.map { (key, $0, w.request) } })
        }
        guard !now.isEmpty || !running.isEmpty else { return }
        // One look-up per credential, however many streams and calls it holds.
        var verdicts: [String: Bool] = [:]
        func allows(_ request: AccessRequest) -> Bool {
            let credential = "\(request.authorization ?? "")\u{0}\(request.apiKey ?? "")\u{0}\(request.cookie ?? "")\u{0}\(request.alias ?? "")\u{0}\(request.access)"
            let allowed = verdicts[credential] ?? check(request)
            verdicts[credential] = allowed
            return allowed
        }
        for (key, connection, request) in now where !allows(request) {
            _ = lock.withLock { watched.removeValue(forKey: key) }
            drop(connection)
        }
        for (key, context, request) in running where !allows(request) {
            _ = lock.withLock { calls.removeValue(forKey: key) }
            context.cancel()
        }
    }
}
