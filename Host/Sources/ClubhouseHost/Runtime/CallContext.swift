// One call into a plugin as the host tracks it: id, flags, cancellation, progress, and the chain
// of plugins it passed through (so invoke cannot loop back into a busy plugin).

import ClubhousePlatform
import CClubhouse
import Synchronization
import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: what other threads touch is atomic (cancellation, deadlines) or under a lock
/// (`observersLock`, the files' Mutex); `progressLabelBytes` is set before the plugin runs and `storageError` is
/// read and replaced only by the thread running the call.
public final class CallContext: @unchecked Sendable {
    public let id: UInt64
    let flags: UInt32
    let progress: any ProgressSink
    let cancelled: Atomic<Bool>
    /// The plugin this call runs in.
    let alias: String
    /// Cancellation shared with the outer call when nested.
    private let parent: CallContext?
    /// The id of the outermost call of this chain (the one a front end started).
    let root: UInt64
    /// When the call must be over (CLOCK_MONOTONIC nanoseconds; 0 = no deadline), and the budget
    /// it was given (for the message).
    private let deadline = Atomic<UInt64>(0)
    private let budgetMilliseconds = Atomic<Int>(0)
    /// An isolated call's silence bound: the runner must be heard from (a message, a service call)
    /// within `timeout_ms`; a statement the host runs for it counts as the runner's silence. Renewed
    /// by `heard(budgetMilliseconds:)` (CLOCK_MONOTONIC nanoseconds; 0 = none).
    private let silenceDeadline = Atomic<UInt64>(0)
    private let silenceBudgetMilliseconds = Atomic<Int>(0)
    /// An isolated call's hard stop for storage: its `limits.wall_ms` plus the cleanup grace
    /// (CLOCK_MONOTONIC nanoseconds; 0 = none), and the wall it came from (for the message). A
    /// statement running for the call then is interrupted, a later one refused, even while the
    /// runner's loop waits on that statement and cannot cancel the call at the wall (issue 27, a13).
    private let wallStopAt = Atomic<UInt64>(0)
    private let wallMillisecondsForStop = Atomic<Int>(0)
    /// When the wall-clock limit itself is reached (CLOCK_MONOTONIC nanoseconds; 0 = none): the call is
    /// cancelled then by whichever thread asks first (`isCancelled`), so a wait in a service (a
    /// nested invoke, a device read) ends at the wall even while the runner's loop waits on that
    /// service and cannot cancel the call itself (issue 27, n02/n11).
    private let wallAt = Atomic<UInt64>(0)
    /// Whether a write of this call (or of a call it invoked) was committed to a plugin's database: a failure after
    /// it (a runner killed, out of memory, past its time) lost the answer, not the write (HTTP's Idempotency-Key).
    private let committed = Atomic<Bool>(false)

    /// A write transaction of this call committed (PluginDatabase's commit hook, on the call's thread).
    func noteCommitted() {
        var node: CallContext? = self
        while let n = node {
            n.committed.store(true, ordering: .relaxed)
            node = n.parent
        }
    }

    /// Whether the call committed a write (noteCommitted).
    public var committedAWrite: Bool { committed.load(ordering: .relaxed) }

    // Cancellation and what a cancelled call may still do (RELIABILITY.md § Cancellation): when the
    // cancel came, when the plugin first saw it, and whether a deadline (not a person) asked for it.
    private let cancelledAt = Atomic<UInt64>(0)
    private let seenAt = Atomic<UInt64>(0)
    private let cancelledByDeadline = Atomic<Bool>(false)
    private let observersLock = Lock()
    private var cancelObservers: [@Sendable () -> Void] = []
    private var observersFired = false
    /// How long a cancelled call's own bookkeeping runs normally after the plugin saw the cancel
    /// (its statements are not interrupted; the device watchdog waits that long before it stops a
    /// device the call left running).
    public static let cleanupGraceMilliseconds = 5_000

    private static let counter = Atomic<UInt64>(0)

    /// The call's path arguments as capabilities (set by the instance running it; CallFiles.swift).
    /// A Mutex lives inside the context: a call allocates no lock of its own.
    private let filesStorage = Mutex<CallFiles?>(nil)
    var files: CallFiles? {
        get { filesStorage.withLock { $0 } }
        set { filesStorage.withLock { $0 = newValue } }
    }

    /// The longest progress label the plugin running this call may set (its `progress_kb`; set by
    /// the instance before the plugin runs).
    var progressLabelBytes = ServiceLimits().progressBytes

    /// The message of this call's last failed storage operation (storage.h's `last_error`). Only
    /// the thread running the call reads or replaces it (PluginDatabase.setError), so the pointer
    /// a plugin gets stays valid until its own next storage call, whatever other calls do.
    var storageError = PinnedCString.empty

    init(flags: UInt32, progress: any ProgressSink, alias: String, parent: CallContext? = nil) {
        id = CallContext.counter.add(1, ordering: .relaxed).newValue
        self.flags = flags
        self.progress = progress
        self.alias = alias
        self.parent = parent
        root = parent?.root ?? id
        cancelled = Atomic(false)
    }

    public static func makeForBenchmark() -> CallContext { CallContext(flags: 0, progress: SilentProgress(), alias: "a") }

    /// A context that runs nothing: what cancels a request while it waits for plugin `alias` before it is
    /// prepared (serve's HTTP reads waiting in a plugin's lane); the call gets a context of its own.
    public static func waiting(alias: String) -> CallContext { CallContext(flags: 0, progress: SilentProgress(), alias: alias) }

    /// Aliases of the plugins this call passed through, outermost first.
    var chain: [String] {
        var list: [String] = []
        var node: CallContext? = self
        while let n = node {
            list.insert(n.alias, at: 0)
            node = n.parent
        }
        return list
    }

    /// Whether `alias` is already running this call (invoke must not loop back into it).
    func passedThrough(_ alias: String) -> Bool {
        var node: CallContext? = self
        while let n = node {
            if n.alias == alias { return true }
            node = n.parent
        }
        return false
    }

    /// The path capabilities of the call this one is nested in (a plugin's invoke), if any: a
    /// plugin cannot hand another plugin a path it does not hold itself.
    var outerFiles: CallFiles?? { parent.map { $0.files } }

    public var isCancelled: Bool {
        var clock = ClockReading()
        return isCancelled(&clock)
    }

    /// `isCancelled` with the caller's reading of the clock (read here, once, only when a wall asks for it):
    /// a loop that read the clock for its own deadline does not read it again for this one.
    func isCancelled(_ clock: inout ClockReading) -> Bool {
        if cancelled.load(ordering: .relaxed) || (parent?.isCancelled(&clock) ?? false) { return true }
        let wall = wallAt.load(ordering: .relaxed)
        guard wall != 0, clock.now() >= wall else { return false }
        cancel(byDeadline: true)
        return true
    }

    /// Asks the call (and the calls nested in it) to stop. `byDeadline`: its time limit asked, not a
    /// person (the call then ends `timeout`, not `cancelled`).
    public func cancel(byDeadline: Bool = false) {
        // The first cancel says why: a person's cancel that a wall-clock limit then reaches stays `cancelled`.
        let first = cancelledAt.compareExchange(expected: 0, desired: CallContext.monotonicNanoseconds(), ordering: .relaxed).exchanged
        if byDeadline && first { cancelledByDeadline.store(true, ordering: .relaxed) }
        cancelled.store(true, ordering: .relaxed)
        let observers = observersLock.withLock { () -> [@Sendable () -> Void] in
            guard !observersFired else { return [] }
            observersFired = true
            defer { cancelObservers.removeAll() }
            return cancelObservers
        }
        observers.forEach { $0() }
    }

    /// Runs `body` once when this call is cancelled (at once when it already is). For the outermost
    /// call, which is the one front ends cancel (`root`).
    public func whenCancelled(_ body: @escaping @Sendable () -> Void) {
        let now = observersLock.withLock { () -> Bool in
            if observersFired { return true }
            cancelObservers.append(body)
            return false
        }
        if now { body() }
    }

    /// The outermost call of this chain (the one a front end started and cancels).
    var outermost: CallContext {
        var node = self
        while let p = node.parent { node = p }
        return node
    }

    /// Whether a deadline, not a person, cancelled this call or an outer one.
    var wasCancelledByDeadline: Bool {
        var node: CallContext? = self
        while let n = node {
            if n.cancelledByDeadline.load(ordering: .relaxed) { return true }
            node = n.parent
        }
        return false
    }

    /// The plugin has seen the cancel: `is_cancelled` answered 1 to it (in process), or the runner
    /// was sent the cancel (isolated). Its grace for cleaning up starts now.
    func noteCancelSeen(millisecondsAgo: Int = 0) {
        let at = CallContext.monotonicNanoseconds() &- UInt64(max(0, millisecondsAgo)) &* 1_000_000
        _ = seenAt.compareExchange(expected: 0, desired: at, ordering: .relaxed)
    }

    /// Milliseconds since the plugin saw the cancel (nil: it has not, or the call is not cancelled).
    var millisecondsSinceCancelSeen: Int? {
        var clock = ClockReading()
        return millisecondsSinceCancelSeen(&clock)
    }

    private func millisecondsSinceCancelSeen(_ clock: inout ClockReading) -> Int? {
        let seen = seenAt.load(ordering: .relaxed)
        guard seen != 0, isCancelled(&clock) else { return nil }
        // A reading taken before the cancel was seen (a loop's turn that saw it just now, another thread) is
        // no time since: 0, never the wrapped difference.
        let now = clock.now()
        return now > seen ? Int((now - seen) / 1_000_000) : 0
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// The monotonic clock at its coarse resolution (the kernel's tick, 1–4 ms): about 7 ns a read where
    /// CLOCK_MONOTONIC costs about 40 ns on a virtual machine, for checks that only need "has 100 ms passed".
    static func coarseMonotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// One reading of CLOCK_MONOTONIC (nanoseconds), taken when first asked and then reused: the questions a
    /// loop turn or a service's gate asks (a wall reached? a grace over?) read the clock once between them, not
    /// once each (issue 27: an isolated round trip read it a dozen times).
    struct ClockReading {
        private var value: UInt64
        /// `value`: a reading the caller already has (0: none yet).
        init(_ value: UInt64 = 0) { self.value = value }
        mutating func now() -> UInt64 {
            if value == 0 { value = CallContext.monotonicNanoseconds() }
            return value
        }
    }

    /// Gives the call a deadline `milliseconds` from now (keeping an earlier one).
    func limit(milliseconds: Int) {
        guard milliseconds > 0 else { return }
        let candidate = CallContext.monotonicNanoseconds() &+ UInt64(milliseconds) &* 1_000_000
        let current = deadline.load(ordering: .relaxed)
        if current == 0 || candidate < current {
            deadline.store(candidate, ordering: .relaxed)
            budgetMilliseconds.store(milliseconds, ordering: .relaxed)
        }
    }

    /// The call has `limits.wall_ms` = `wall` from now: its storage stops `wall` + the cleanup grace
    /// from now (`wallStopReason`).
    func limitWall(milliseconds wall: Int, now: UInt64 = CallContext.monotonicNanoseconds()) {
        guard wall > 0 else { return }
        let total = UInt64(wall) &+ UInt64(CallContext.cleanupGraceMilliseconds)
        wallAt.store(now &+ UInt64(wall) &* 1_000_000, ordering: .relaxed)
        wallStopAt.store(now &+ total &* 1_000_000, ordering: .relaxed)
        wallMillisecondsForStop.store(wall, ordering: .relaxed)
    }

    /// Why this call's (or an outer call's) wall-clock limit and the grace after it are over, or nil.
    private var wallStopReason: String? {
        var clock = ClockReading()
        return wallStopReason(&clock)
    }

    /// This call's, then the outer calls' (a recursion, not a loop over a variable: a call that is not nested,
    /// nearly every one, retains nothing to ask).
    private func wallStopReason(_ clock: inout ClockReading) -> String? {
        let at = wallStopAt.load(ordering: .relaxed)
        if at != 0, clock.now() >= at {
            return "the call ran past its wall-clock limit of \(wallMillisecondsForStop.load(ordering: .relaxed)) ms "
                + "and its \(CallContext.cleanupGraceMilliseconds) ms for cleaning up after it are over"
        }
        return parent?.wallStopReason(&clock)
    }

    /// Why the call may do no more storage work at all (issue 27): it was cancelled, saw it, and its
    /// cleanup grace is over; or its wall-clock limit and the grace after it have passed. Its storage
    /// operations are then refused before they start (a short statement never reaches the progress
    /// handler), and a result it returns after that is reported as the stop (PluginInstance.invoke).
    var pastGrace: (status: Int32, why: String)? {
        var clock = ClockReading()
        return pastGrace(&clock)
    }

    /// `pastGrace` with the caller's reading of the clock: the wall, the cancel and the grace are asked at one
    /// moment, with one read of the clock at most.
    func pastGrace(_ clock: inout ClockReading) -> (status: Int32, why: String)? {
        if let why = wallStopReason(&clock) { return (Int32(CLUBHOUSE_TIMEOUT), why) }
        guard isCancelled(&clock) else { return nil }
        // Its own grace, or that of a call it runs nested in (clubhouse.invoke): a plugin invoked while its
        // caller cleans up gets no grace of its own past its caller's (the twelfth outside round, d03: a
        // callee invoked 4.5 s into its caller's grace stored rows 9.3 s after the cancel).
        var node: CallContext? = self
        while let n = node {
            if let since = n.millisecondsSinceCancelSeen(&clock), since >= CallContext.cleanupGraceMilliseconds {
                let status = wasCancelledByDeadline ? Int32(CLUBHOUSE_TIMEOUT) : Int32(CLUBHOUSE_CANCELLED)
                let whose = n === self ? "the call" : "the call that invoked it"
                return (status, "\(whose) was cancelled \(since) ms ago and its \(CallContext.cleanupGraceMilliseconds) ms for cleaning up are over")
            }
            node = n.parent
        }
        return nil
    }

    /// The one question every host service that acts for a call asks before it acts (ServiceGate.swift):
    /// nil while the call may still act, else the stop's status (`cancelled`, or `timeout` for a wall-clock
    /// limit or a deadline) and a one-line message naming the act and the grace or limit that is over.
    func refusal(_ act: ServiceAct) -> (status: Int32, message: String)? {
        guard let (status, why) = pastGrace else { return nil }
        return (status, "\(act.rawValue) was refused: \(why)")
    }

    /// Milliseconds from now to the moment this call's cleanup grace (after a cancel it saw, or after its
    /// wall-clock limit, its own or an outer call's) is over; nil when no such moment is set yet. A wait
    /// in a service for this call lasts no longer than this (ServiceGate.waitBound).
    var millisecondsUntilGraceEnds: Int? {
        var best: UInt64 = 0
        var node: CallContext? = self
        while let n = node {
            let at = n.wallStopAt.load(ordering: .relaxed)
            if at != 0 && (best == 0 || at < best) { best = at }
            // The grace of a cancel it or a call it is nested in saw (d03: an outer call's grace bounds it too).
            let seen = n.seenAt.load(ordering: .relaxed)
            if seen != 0, n.isCancelled {
                let graceEnd = seen &+ UInt64(CallContext.cleanupGraceMilliseconds) &* 1_000_000
                if best == 0 || graceEnd < best { best = graceEnd }
            }
            node = n.parent
        }
        guard best != 0 else { return nil }
        let now = CallContext.monotonicNanoseconds()
        // Rounded up: 0 only once the grace is over (`pastGrace` then answers), never a moment before.
        return best <= now ? 0 : Int((best - now + 999_999) / 1_000_000)
    }

    /// Whether this call runs nested in another plugin's call (clubhouse.invoke).
    var isNested: Bool { parent != nil }

    /// The runner was heard from: its silence bound starts again (`budget` ms from now).
    func heard(budgetMilliseconds budget: Int, now: UInt64 = CallContext.monotonicNanoseconds()) {
        guard budget > 0 else { return }
        silenceDeadline.store(now &+ UInt64(budget) &* 1_000_000, ordering: .relaxed)
        silenceBudgetMilliseconds.store(budget, ordering: .relaxed)
    }

    /// The budget of the first deadline (this call's or an outer one's, a total or a silence bound)
    /// that has passed, or nil.
    var passedDeadline: Int? {
        var node: CallContext? = self
        var now: UInt64 = 0
        func passed(_ at: UInt64) -> Bool {
            guard at != 0 else { return false }
            if now == 0 { now = CallContext.monotonicNanoseconds() }
            return now >= at
        }
        while let n = node {
            if passed(n.deadline.load(ordering: .relaxed)) { return n.budgetMilliseconds.load(ordering: .relaxed) }
            if passed(n.silenceDeadline.load(ordering: .relaxed)) { return n.silenceBudgetMilliseconds.load(ordering: .relaxed) }
            node = n.parent
        }
        return nil
    }

    /// Whether the storage broker interrupts this call's statement now (SQLite's progress handler).
    /// A call past its deadline: yes. A cancelled call: yes while the plugin has not seen the cancel
    /// (a statement running when it landed, eg: a runaway query, stops at once); once the plugin has
    /// seen it, its statements run normally for `cleanupGraceMilliseconds` (storing what it did,
    /// cleaning up), then they are interrupted too. Atomic loads; the clock only when cancelled or
    /// with a deadline.
    var interruptsStatements: Bool {
        if passedDeadline != nil || wallStopReason != nil { return true }
        guard isCancelled else { return false }
        guard let since = millisecondsSinceCancelSeen else { return true }
        return since >= CallContext.cleanupGraceMilliseconds
    }

    /// Why work on behalf of this call must stop now (cancelled, or past a deadline), or nil.
    var stopReason: (status: Int32, why: String)? {
        if let budget = passedDeadline {
            return (Int32(CLUBHOUSE_TIMEOUT), "the call ran past its deadline (\(budget) ms, timeout_ms in plugins.json)")
        }
        if let why = wallStopReason { return (Int32(CLUBHOUSE_TIMEOUT), why) }
        if isCancelled {
            let status = wasCancelledByDeadline ? Int32(CLUBHOUSE_TIMEOUT) : Int32(CLUBHOUSE_CANCELLED)
            if let since = millisecondsSinceCancelSeen {
                return (status, "the call was cancelled \(since) ms ago and its \(CallContext.cleanupGraceMilliseconds) ms for cleaning up are over")
            }
            return (status, wasCancelledByDeadline ? "the call ran past its time limit" : "the call was cancelled")
        }
        return nil
    }

    // MARK: the call a thread is running

    /// The call the current thread runs on behalf of (set around each invoke by PluginInstance),
    /// so services without a call argument (storage) can tell whose work they do.
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: CallContext? {
        guard let raw = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<CallContext>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Runs `body` with `self` as the thread's current call, restoring the previous one after
    /// (plugin-to-plugin invoke nests).
    func makeCurrent<R>(_ body: () -> R) -> R {
        let key = CallContext.currentKey
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return body()
    }

    func withCStruct<R>(_ body: (UnsafePointer<clubhouse_call>) -> R) -> R {
        var call = clubhouse_call(
            struct_size: UInt32(MemoryLayout<clubhouse_call>.size), flags: flags, id: id,
            host_data: Unmanaged.passUnretained(self).toOpaque(),
            is_cancelled: { call in
                guard let context = CallContext.from(call), context.isCancelled else { return 0 }
                context.noteCancelSeen()
                return 1
            })
        return withUnsafePointer(to: &call) { body($0) }
    }

    static func from(_ call: UnsafePointer<clubhouse_call>?) -> CallContext? {
        guard let data = call?.pointee.host_data else { return nil }
        return Unmanaged<CallContext>.fromOpaque(data).takeUnretainedValue()
    }
}
