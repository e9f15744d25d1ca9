// One call into a plugin as the host tracks it: id, flags, cancellation, progress, and the chain
// of plugins it passed through (so invoke cannot loop back into a busy plugin).

import ClubhousePlatform
import CClubhouse
import Synchronization
import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

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
    var storageError: [CChar] = [0]
    var storageErrorPointer: UnsafePointer<CChar> {
        storageError.withUnsafeBufferPointer { UnsafePointer($0.baseAddress!) }
    }

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
        cancelled.load(ordering: .relaxed) || (parent?.isCancelled ?? false)
    }

    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
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

    /// The budget of the first deadline (this call's or an outer one's) that has passed, or nil.
    var passedDeadline: Int? {
        var node: CallContext? = self
        var now: UInt64 = 0
        while let n = node {
            let d = n.deadline.load(ordering: .relaxed)
            if d != 0 {
                if now == 0 { now = CallContext.monotonicNanoseconds() }
                if now >= d { return n.budgetMilliseconds.load(ordering: .relaxed) }
            }
            node = n.parent
        }
        return nil
    }

    /// Why work on behalf of this call must stop now (cancelled, or past a deadline), or nil.
    /// Cheap enough for SQLite's progress handler (atomic loads; the clock only with a deadline).
    var stopReason: (status: Int32, why: String)? {
        if isCancelled { return (Int32(CLUBHOUSE_CANCELLED), "the call was cancelled") }
        if let budget = passedDeadline {
            return (Int32(CLUBHOUSE_TIMEOUT), "the call ran past its deadline (\(budget) ms, timeout_ms in plugins.json)")
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
                guard let context = CallContext.from(call) else { return 0 }
                return context.isCancelled ? 1 : 0
            })
        return withUnsafePointer(to: &call) { body($0) }
    }

    static func from(_ call: UnsafePointer<clubhouse_call>?) -> CallContext? {
        guard let data = call?.pointee.host_data else { return nil }
        return Unmanaged<CallContext>.fromOpaque(data).takeUnretainedValue()
    }
}
