// Which call a runner thread runs. The runner marks the thread around each of the plugin's entry
// points — create, invoke (on the pipes or on the second lane) and destroy — and a service that acts
// for a call (storage, devices, invoke, files, events, publish, progress) serves only a thread so
// marked: a thread the plugin started itself, during a call or outside one, is refused with
// CLUBHOUSE_UNSUPPORTED before anything reaches the host. Without this, such a thread's service calls
// went out on the frame pipes and the host served them inside whichever call ran there at the time —
// another client's (the fifth outside attack, a03). Log and config stay [any-thread] (clubhouse.h).
//
// The wall is in the runner, in the plugin's own process: it holds for code that uses the ABI (a
// library's worker, a detached thread a plugin forgot), not for a plugin that writes frames on the
// wire itself — that one acts only inside the call running on the pipes, as that call, which it is
// serving anyway (SECURITY.md, "A plugin's own threads").

import CClubhouse
import ClubhouseABI
import ClubhousePlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum RunningCall {
    /// The calling thread's call: its `clubhouse_call` (invoke), `lifecycle` (create, destroy), or none.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// What marks create and destroy, which run without a `clubhouse_call` (never dereferenced).
    private static var lifecycle: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 1) }

    /// Runs `body` (one of the plugin's entry points) as `call` on this thread; nil: create or destroy.
    static func during<T>(_ call: UnsafePointer<clubhouse_call>?, _ body: () -> T) -> T {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, call.map { UnsafeMutableRawPointer(mutating: $0) } ?? lifecycle)
        defer { pthread_setspecific(key, previous) }
        return body()
    }

    /// True on a thread running one of the plugin's calls, create or destroy.
    static var onCallThread: Bool { pthread_getspecific(key) != nil }

    /// True on the thread running `call` itself. Compared by address, never read: a pointer a finished
    /// call left behind may point at freed memory, or at the next call's struct on the same stack.
    static func runs(_ call: UnsafePointer<clubhouse_call>?) -> Bool {
        guard let call, let current = pthread_getspecific(key) else { return false }
        return UnsafeRawPointer(current) == UnsafeRawPointer(call)
    }

    /// The refusal's message, for `reply` and for a storage `last_error` asked outside a call.
    static func message(_ what: String) -> String {
        "\(what) was called from a thread that runs none of the plugin's calls; in a runner it serves only the thread running create, invoke or destroy (clubhouse.h, [during-call]): call it there"
    }

    /// What storage's `last_error` answers a thread outside any call (its lane's message belongs to a call).
    static let lastError = PinnedCString(message("a storage service"))

    /// Said once per runner on its standard error (the host prefixes the plugin's alias): a plugin that
    /// lost its service calls this way has a line in the host's log saying why.
    /// A process-wide once-flag, the only state here besides the thread key; atomic.
    private static let warned = Atomic<Bool>(false)

    /// Nil when the calling thread runs a call — with `checkCall` and a `call`, that very call (a function
    /// given none, eg: invoke from create, needs only a thread that runs one); else CLUBHOUSE_UNSUPPORTED,
    /// the reason written to `reply` and, the first time, to standard error.
    static func refusal(_ what: String, call: UnsafePointer<clubhouse_call>? = nil, checkCall: Bool = false,
                        reply: UnsafePointer<clubhouse_reply>? = nil) -> Int32? {
        if checkCall && call != nil ? runs(call) : onCallThread { return nil }
        let text = message(what)
        reply?.write(text)
        if !warned.exchange(true, ordering: .relaxed) {
            let line = "warning: refused: \(text) (said once per runner)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
        return Int32(CLUBHOUSE_UNSUPPORTED)
    }
}
