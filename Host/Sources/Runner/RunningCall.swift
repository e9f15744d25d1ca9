// Which call a runner thread runs. The runner records the kernel thread id (gettid) of the thread it
// runs each of the plugin's entry points on — create, invoke (on the pipes or on the second lane) and
// destroy — and a service that acts for a call (storage, devices, invoke, files, events, publish,
// progress) serves only a thread so recorded: a thread the plugin started itself, during a call or
// outside one, is refused with CLUBHOUSE_UNSUPPORTED before anything reaches the host. Without this,
// such a thread's service calls went out on the frame pipes and the host served them inside whichever
// call ran there at the time — another client's (the fifth outside attack, a03). A thread-specific
// marker was not enough: a thread copied the call thread's key values onto itself, and a raw clone
// shared its TLS (the ninth, a26 and a04); no thread can take another live thread's id. Log and config
// stay [any-thread] (clubhouse.h).
//
// The wall is in the runner, in the plugin's own process: it holds for threads that use the ABI (a
// library's worker, a detached thread a plugin forgot, one disguised with the call's thread-specific
// values), not for a plugin that rewrites the runner's memory (this table) or writes frames on the
// wire itself — that one acts only inside a call its runner is serving, with that call's grants,
// which the plugin's own code for that call holds anyway (SECURITY.md, "A plugin's own threads").

import CClubhouse
import CThreadID
import ClubhouseABI
import ClubhousePlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum RunningCall {
    /// What a thread runs: the address of its `clubhouse_call` (invoke; 1 for create and destroy,
    /// never dereferenced) and the lane it serves (nil: the main one).
    private struct Entry: Sendable {
        let call: UInt
        let lane: UInt? // an unretained RunnerContext, alive while its thread runs the call
    }

    /// The threads running a call now, by kernel thread id (gettid), in the runner's own memory. Not a
    /// thread-specific value or TLS: a plugin's thread could copy those (pthread_setspecific of every
    /// key, the ninth outside attack's a26) or share them (a raw clone without CLONE_SETTLS, a04), but
    /// never take another live thread's id. An entry lives exactly as long as its call; a thread id the
    /// kernel hands out again later finds none. The runner's only state besides `warned`; guarded.
    private static let threads = Mutex<[Int32: Entry]>([:])

    /// The calling thread's kernel id.
    private static var me: Int32 { clubhouse_thread_id() }

    private static var mine: Entry? {
        let id = me
        return threads.withLock { $0[id] }
    }

    /// Runs `body` (one of the plugin's entry points) as `call` on this thread, serving `lane` (nil: the
    /// main lane); no call: create or destroy.
    static func during<T>(_ call: UnsafePointer<clubhouse_call>?, lane: RunnerContext? = nil, _ body: () -> T) -> T {
        let id = me
        let entry = Entry(call: call.map { UInt(bitPattern: $0) } ?? 1,
                          lane: lane.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) })
        let previous = threads.withLock { $0.updateValue(entry, forKey: id) }
        defer { threads.withLock { $0[id] = previous } }
        return body()
    }

    /// True on a thread running one of the plugin's calls, create or destroy.
    static var onCallThread: Bool { mine != nil }

    /// True on the thread running `call` itself. Compared by address, never read: a pointer a finished
    /// call left behind may point at freed memory, or at the next call's struct on the same stack.
    static func runs(_ call: UnsafePointer<clubhouse_call>?) -> Bool {
        guard let call, let current = mine else { return false }
        return current.call == UInt(bitPattern: call)
    }

    /// The lane whose call the calling thread runs (a concurrent command's); nil: the main lane, or
    /// no call (the services then refuse it, but log and config answer it).
    static var lane: RunnerContext? {
        guard let bits = mine?.lane, let raw = UnsafeMutableRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<RunnerContext>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The refusal's message, for `reply` and for a storage `last_error` asked outside a call.
    static func message(_ what: String) -> String {
        "\(what) was called from a thread that runs none of the plugin's calls; in a runner it serves only the thread running create, invoke or destroy (clubhouse.h, [during-call]): call it there"
    }

    /// What storage's `last_error` answers a thread outside any call (its lane's message belongs to a call).
    static let lastError = PinnedCString(message("a storage service"))

    /// Said once per runner on its standard error (the host prefixes the plugin's alias): a plugin that
    /// lost its service calls this way has a line in the host's log saying why.
    /// A process-wide once-flag, the only state here besides `threads`; atomic.
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
