import ClubhouseHost
import ClubhousePlatform

/// Every call a front end started and has not seen end, so that stopping the server cancels them all
/// (RELIABILITY.md § Cancellation: "the server is stopped (SIGTERM, Ctrl-C) | its calls (all calls) are
/// cancelled at once"). The HTTP front end registers each context it makes here — a plain call, a followed
/// one, a leased one — instead of each kind having a path of its own that stopping could miss (the third
/// outside attack, a15: an HTTP drill ran 12 s past SIGTERM). Weak references: a call that ended is gone
/// from the table by itself. Once stopping, a context made afterwards is cancelled at once.
/// @unchecked Sendable: `calls` and `stopping` are guarded by `lock`.
final class RunningCalls: @unchecked Sendable {
    private struct Weak { weak var context: CallContext? }
    private let lock = Lock()
    private var calls: [ObjectIdentifier: Weak] = [:]
    private var stopping = false

    /// Notes a call that is about to run (cancelled at once when the server is already stopping).
    func add(_ context: CallContext) {
        let cancel = lock.withLock { () -> Bool in
            if calls.count >= 64 { calls = calls.filter { $0.value.context != nil } }
            calls[ObjectIdentifier(context)] = Weak(context: context)
            return stopping
        }
        if cancel { context.cancel() }
    }

    /// The server is stopping: every call still running is cancelled, and any made from now on.
    func cancelAll() {
        let running = lock.withLock { () -> [CallContext] in
            stopping = true
            defer { calls.removeAll() }
            return calls.values.compactMap(\.context)
        }
        running.forEach { $0.cancel() }
    }
}
