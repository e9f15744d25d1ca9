// One call into a plugin as the host tracks it: id, flags, cancellation, progress, and the chain
// of plugins it passed through (so invoke cannot loop back into a busy plugin).

import CClubhouse
import Synchronization

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

    private static let counter = Atomic<UInt64>(0)

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

    public var isCancelled: Bool {
        cancelled.load(ordering: .relaxed) || (parent?.isCancelled ?? false)
    }

    public func cancel() { cancelled.store(true, ordering: .relaxed) }

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
