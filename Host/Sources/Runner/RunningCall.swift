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
    struct Entry: Sendable {
        let call: UInt
        let lane: UInt? // an unretained RunnerContext, alive while its thread runs the call

        /// True when this is `call` itself. Compared by address, never read: a pointer a finished
        /// call left behind may point at freed memory, or at the next call's struct on the same stack.
        func runs(_ call: UnsafePointer<clubhouse_call>?) -> Bool {
            guard let call else { return false }
            return self.call == UInt(bitPattern: call)
        }

        /// The lane whose call this is (a concurrent command's); nil: the main lane.
        var context: RunnerContext? {
            guard let bits = lane, let raw = UnsafeMutableRawPointer(bitPattern: bits) else { return nil }
            return Unmanaged<RunnerContext>.fromOpaque(raw).takeUnretainedValue()
        }
    }

    /// The threads running a call now, by kernel thread id (gettid), in the runner's own memory. Not a
    /// thread-specific value or TLS: a plugin's thread could copy those (pthread_setspecific of every
    /// key, the ninth outside attack's a26) or share them (a raw clone without CLONE_SETTLS, a04), but
    /// never take another live thread's id. An entry lives exactly as long as its call; a thread id the
    /// kernel hands out again later finds none. Guarded. The main thread's calls are not here but in
    /// the three atomics below (the common case, without the lock and the dictionary).
    private static let threads = Mutex<[Int32: Entry]>([:])

    /// The kernel id of the runner's main thread (the one serving the pipes), 0 until `adoptMainThread`.
    /// Written once, before any of the plugin's code runs; any thread may read it, but only the thread
    /// whose own `gettid` equals it goes on to `mainCall` and `mainLane` — the id is still asked of the
    /// kernel at every service (never cached in TLS, which a raw clone shares), so a plugin's thread
    /// never passes for the main one.
    private static let mainThread = Atomic<Int32>(0)
    /// What the main thread runs (`Entry.call`; 0: no call) and for which lane (0: the main one). Read and
    /// written only by the main thread itself (see `mainThread`): atomics only to be shareable statics,
    /// relaxed because no other thread takes part.
    private static let mainCall = Atomic<UInt>(0)
    private static let mainLane = Atomic<UInt>(0)

    /// The calling thread's kernel id.
    private static var me: Int32 { clubhouse_thread_id() }

    /// Makes the calling thread the runner's main thread (once, before the plugin is loaded): its calls
    /// are then told by one comparison of its id instead of a lookup in `threads`.
    static func adoptMainThread() {
        mainThread.store(me, ordering: .relaxed)
    }

    /// What the calling thread runs (a `gettid` and, off the main thread, the table): nil when it runs
    /// none of the plugin's calls. Ask it once per service and pass the entry on.
    static var current: Entry? {
        let id = me
        if id == mainThread.load(ordering: .relaxed) {
            let call = mainCall.load(ordering: .relaxed)
            guard call != 0 else { return nil }
            let lane = mainLane.load(ordering: .relaxed)
            return Entry(call: call, lane: lane == 0 ? nil : lane)
        }
        return threads.withLock { $0[id] }
    }

    /// Runs `body` (one of the plugin's entry points) as `call` on this thread, serving `lane` (nil: the
    /// main lane); no call: create or destroy. The thread's signals are held again when `body` returns
    /// (`holdSignals`), whatever the plugin did to its mask.
    static func during<T>(_ call: UnsafePointer<clubhouse_call>?, lane: RunnerContext? = nil, _ body: () -> T) -> T {
        let id = me
        let entry = Entry(call: call.map { UInt(bitPattern: $0) } ?? 1,
                          lane: lane.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) })
        // Declared first, so it runs last: the thread's entry is gone before its signals are held again —
        // in a runner only (a test that runs `during` on its own thread keeps its mask, and so do its children).
        defer { if holding.load(ordering: .relaxed) { holdSignals() } }
        if id == mainThread.load(ordering: .relaxed) {
            let previousCall = mainCall.exchange(entry.call, ordering: .relaxed)
            let previousLane = mainLane.exchange(entry.lane ?? 0, ordering: .relaxed)
            defer {
                mainCall.store(previousCall, ordering: .relaxed)
                mainLane.store(previousLane, ordering: .relaxed)
            }
            return body()
        }
        let previous = threads.withLock { $0.updateValue(entry, forKey: id) }
        defer { threads.withLock { $0[id] = previous } }
        return body()
    }

    /// Set by the first `holdSignals` (the runner's main thread, before the plugin loads): from then on
    /// `during` holds the signals again after every entry point. A process-wide flag; atomic.
    private static let holding = Atomic<Bool>(false)

    /// Blocks every signal on the calling thread, one of the runner's call threads: the main thread, from
    /// before the plugin is loaded (after the runner's watch on its host has started, which keeps its own
    /// mask), and each second lane's thread from its start; `during` blocks them again after every entry
    /// point, so that a call that unblocked one leaves it blocked for the next. The fourteenth outside
    /// round's A23: a POSIX timer one call aimed at its own thread (SIGEV_THREAD_ID) fired while that thread
    /// ran the next call, another client's, and its handler's INSERT was served as that call's — the wall
    /// above is per thread, and a handler runs on the thread it interrupts. Held, a signal aimed at a call
    /// thread is never delivered there, so no handler runs as any call but the one that unblocks it itself
    /// (its own code, with its own grants). Every other signal still reaches the runner: a process-directed
    /// one (the CPU limit's SIGXCPU, a SIGTERM, a SIGEV_SIGNAL timer) goes to a thread that does not block
    /// it — the watch on the host always — where a handler is refused as a thread that runs no call; a
    /// fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) the kernel does not hold: it ends the runner as a crash, as
    /// it would without a handler. One rt_sigprocmask a call (the no-op isolated call 1.01×: BENCHMARKS.md).
    static func holdSignals() {
        holding.store(true, ordering: .relaxed)
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, nil)
    }

    /// True on a thread running one of the plugin's calls, create or destroy.
    static var onCallThread: Bool { current != nil }

    /// True on the thread running `call` itself.
    static func runs(_ call: UnsafePointer<clubhouse_call>?) -> Bool {
        current?.runs(call) ?? false
    }

    /// The lane whose call the calling thread runs (a concurrent command's); nil: the main lane, or
    /// no call (the services then refuse it, but log and config answer it).
    static var lane: RunnerContext? { current?.context }

    /// The refusal's message, for `reply` and for a storage `last_error` asked outside a call.
    static func message(_ what: String) -> String {
        "\(what) was called from a thread that runs none of the plugin's calls; in a runner it serves only the thread running create, invoke or destroy (clubhouse.h, [during-call]): call it there"
    }

    /// What storage's `last_error` answers a thread outside any call (its lane's message belongs to a call).
    static let lastError = PinnedCString(message("a storage service"))

    /// Said once per runner on its standard error (the host prefixes the plugin's alias): a plugin that
    /// lost its service calls this way has a line in the host's log saying why.
    /// A process-wide once-flag; atomic.
    private static let warned = Atomic<Bool>(false)

    /// Nil when the calling thread runs a call — with `checkCall` and a `call`, that very call (a function
    /// given none, eg: invoke from create, needs only a thread that runs one); else CLUBHOUSE_UNSUPPORTED,
    /// the reason written to `reply` and, the first time, to standard error.
    static func refusal(_ what: String, call: UnsafePointer<clubhouse_call>? = nil, checkCall: Bool = false,
                        reply: UnsafePointer<clubhouse_reply>? = nil) -> Int32? {
        serving(what, call: call, checkCall: checkCall, reply: reply).refused
    }

    /// The calling thread's entry when it may be served (as `refusal` decides), else the refusal: one
    /// lookup for the wall and for the lane the service then acts on.
    static func serving(_ what: String, call: UnsafePointer<clubhouse_call>? = nil, checkCall: Bool = false,
                        reply: UnsafePointer<clubhouse_reply>? = nil) -> (entry: Entry?, refused: Int32?) {
        if let entry = current, !(checkCall && call != nil) || entry.runs(call) { return (entry, nil) }
        return (nil, refuse(what, reply: reply))
    }

    /// CLUBHOUSE_UNSUPPORTED for a concurrent command's use of a statement the main lane prepared, said
    /// once per runner on standard error as `refuse` says its own.
    static func refuseOnLane(_ what: String) -> Int32 {
        refuse(saying: "\(what) on a statement another call prepared, from a concurrent command (its second lane has no storage: clubhouse.h, [during-call]); use storage only from the plugin's other commands")
    }

    /// CLUBHOUSE_UNSUPPORTED, the reason written to `reply` and, the first time, to standard error.
    static func refuse(_ what: String, reply: UnsafePointer<clubhouse_reply>? = nil) -> Int32 {
        refuse(saying: message(what), reply: reply)
    }

    /// CLUBHOUSE_UNSUPPORTED, `text` written to `reply` and, the first refusal of the runner, to standard error.
    private static func refuse(saying text: String, reply: UnsafePointer<clubhouse_reply>? = nil) -> Int32 {
        reply?.write(text)
        if !warned.exchange(true, ordering: .relaxed) {
            let line = "warning: refused: \(text) (said once per runner)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
        return Int32(CLUBHOUSE_UNSUPPORTED)
    }
}
