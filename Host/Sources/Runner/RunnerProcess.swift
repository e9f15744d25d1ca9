// The runner: `clubhouse __runner PLUGIN.so`, a child process that loads one plugin and gives it a
// host struct whose services are proxies over the wire to the real host. If the plugin crashes,
// aborts or hangs, only this process dies; the host reports it and starts a new runner.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseWire
import ClubhouseLoader
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A one-shot slot a waiting service call sleeps on until the reader thread fills it.
/// @unchecked Sendable: every field is read and written holding `mutex`.
final class Mailbox: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var replies: [UInt32: (Int32, [UInt8])] = [:]
    /// Descriptors that came with replies (files service), by sequence number.
    private var descriptors: [UInt32: Int32] = [:]
    private var broken: String?

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    func deliver(_ seq: UInt32, _ status: Int32, _ payload: [UInt8], descriptor: Int32? = nil) {
        pthread_mutex_lock(&mutex)
        replies[seq] = (status, payload)
        if let descriptor { descriptors[seq] = descriptor }
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    func fail(_ reason: String) {
        pthread_mutex_lock(&mutex)
        broken = reason
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// The reply for `seq` if it has arrived; `.some(nil)` when the host is gone.
    func take(_ seq: UInt32) -> (Int32, [UInt8])?? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        if !replies.isEmpty, let reply = replies.removeValue(forKey: seq) { return .some(reply) }
        if broken != nil { return .some(nil) }
        return nil
    }

    /// The descriptor that came with reply `seq` (-1: none, or it did not arrive).
    func takeDescriptor(_ seq: UInt32) -> Int32 {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return descriptors.removeValue(forKey: seq) ?? -1
    }

    /// Sleeps until something is delivered or `milliseconds` pass.
    func waitBriefly(milliseconds: Int) {
        pthread_mutex_lock(&mutex)
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_nsec += milliseconds * 1_000_000
        deadline.tv_sec += deadline.tv_nsec / 1_000_000_000
        deadline.tv_nsec %= 1_000_000_000
        pthread_cond_timedwait(&condition, &mutex, &deadline)
        pthread_mutex_unlock(&mutex)
    }
}

/// Everything the proxies need, reached through host_data, statement and device handles.
/// @unchecked Sendable: its mutable state is guarded by `lock` (the counters the proxies read right
/// after a call of their own thread, and the settings written once by `create` before any call).
final class RunnerContext: @unchecked Sendable {
    let channel: WireChannel
    let mailbox = Mailbox()
    private let lock = Lock()
    /// The next service call's sequence number (any thread of the lane takes one).
    private let nextSeq = Atomic<UInt32>(1)
    private var cancelled = Set<UInt64>()
    /// The host closed the pipe: every call counts as cancelled (nobody waits for its result).
    private var hostGone = false
    var logThreshold: Int32 = 1
    /// The last storage reply's rowid and change count (storage.h's `last_insert_rowid`, `changes`).
    private var lastRowID: Int64 = 0
    private var lastChanges: Int64 = 0
    /// storage.h's `last_error`: valid until the next one replaces it.
    private var lastError = PinnedCString.empty
    var config: JSONValue = .object(JSONObject())
    var granted: Set<String> = []
    /// The plugin's alias and limits, from `create`: the proxies refuse where the host would.
    var alias = ""
    var limits = ServiceLimits()
    /// When each call last sent a progress update (updates are thinned to 20 a second).
    private var lastProgress: [UInt64: Int64] = [:]
    /// What the plugin's open statements hold in the host, as the host counts it (PluginDatabase):
    /// compiled statements plus bound text and blobs.
    private var held = 0
    /// SQLite's conversions between types, for columns read as another type.
    let converter = ValueConverter()

    /// Whoever holds this reads the pipe (the idle main loop, or a thread awaiting a reply); the
    /// others wait on the mailbox. No thread hands frames to another on the way in.
    private let readLock = Lock()
    /// Commands that arrived while a thread was waiting for a reply (the main loop runs them next).
    private var pendingCommands: [(WireKind, [UInt8])] = []

    /// Called (on the thread reading the pipe) with the socket of a second lane the host opened
    /// (WireKind.sideLane); set once by `RunnerProcess.run` before the first command.
    var sideLaneOpened: ((Int32) -> Void)?

    init(channel: WireChannel) { self.channel = channel }

    /// Takes the settings `create` gave the main lane (a concurrent command runs after create).
    func adopt(_ main: RunnerContext) {
        let (config, granted, threshold, alias, limits) = main.lock.withLock { (main.config, main.granted, main.logThreshold, main.alias, main.limits) }
        settle(config: config, granted: granted, logThreshold: threshold, alias: alias, limits: limits)
    }

    /// What one `pump` did.
    private enum Pumped {
        case filed
        /// The reply the pumping thread awaits itself: handed back, never filed.
        case reply(Int32, [UInt8])
        case hostGone
    }

    /// Reads one frame (waiting up to `timeout` ms) and files it: replies to the mailbox, cancels to
    /// the flags, commands to the pending list — but the reply to `awaiting` (the pumping thread's own
    /// service call) goes straight back to it, without the mailbox's mutex, dictionary and wake-up.
    private func pump(timeout: Int32, awaiting: UInt32? = nil) -> Pumped {
        let frame: (WireKind, [UInt8])?
        do {
            frame = try channel.receive(timeoutMilliseconds: timeout)
        } catch {
            lock.withLock { hostGone = true }
            mailbox.fail("host gone")
            return .hostGone
        }
        guard let (kind, payload) = frame else { return .filed }
        switch kind {
        case .reply:
            if let reply = try? ServiceReply.decode(payload) {
                if reply.seq == awaiting { return .reply(reply.status, reply.payload) }
                mailbox.deliver(reply.seq, reply.status, reply.payload)
            }
        case .replyWithDescriptor:
            // Its descriptor waits on the descriptor socket (Wire.swift).
            let descriptor = channel.takeDescriptor()
            if let reply = try? ServiceReply.decode(payload) {
                mailbox.deliver(reply.seq, reply.status, reply.payload, descriptor: descriptor)
            } else if descriptor >= 0 {
                close(descriptor)
            }
        case .cancel:
            if let message = try? CancelMessage.decode(payload) { cancel(message.call) }
        case .sideLane:
            // Its socket waits on the descriptor socket, as a replyWithDescriptor's does.
            let descriptor = channel.takeDescriptor()
            if descriptor >= 0 {
                if let opened = sideLaneOpened { opened(descriptor) } else { close(descriptor) }
            }
        default:
            lock.withLock { pendingCommands.append((kind, payload)) }
        }
        return .filed
    }

    /// The next command from the host for the main loop (nil when the host is gone).
    func nextCommand() -> (WireKind, [UInt8])? {
        while true {
            if let command = lock.withLock({ pendingCommands.isEmpty ? nil : pendingCommands.removeFirst() }) { return command }
            readLock.lock()
            let pumped = pump(timeout: -1)
            readLock.unlock()
            if case .hostGone = pumped { return nil }
        }
    }

    /// Takes in whatever the host sent meanwhile, without waiting (a cancel during long work).
    func poll() {
        if readLock.tryLock() {
            _ = pump(timeout: 0)
            readLock.unlock()
        }
    }

    /// Waits for the reply to `seq`, reading the pipe itself when no other thread is.
    func awaitReply(_ seq: UInt32) -> (Int32, [UInt8])? {
        while true {
            if let reply = mailbox.take(seq) { return reply }
            if readLock.tryLock() {
                let pumped = pump(timeout: 50, awaiting: seq)
                readLock.unlock()
                switch pumped {
                case .reply(let status, let payload): return (status, payload)
                case .hostGone: return nil
                case .filed: break
                }
            } else {
                mailbox.waitBriefly(milliseconds: 5)
            }
        }
    }

    /// The settings `create` brings (before any call reads them).
    func settle(config: JSONValue, granted: Set<String>, logThreshold: Int32, alias: String, limits: ServiceLimits) {
        lock.withLock {
            self.config = config
            self.granted = granted
            self.logThreshold = logThreshold
            self.alias = alias
            self.limits = limits
        }
    }

    func setError(_ message: String) {
        let pinned = PinnedCString(message)
        lock.withLock { lastError = pinned }
    }

    var lastInsertRowID: Int64 { lock.withLock { lastRowID } }
    var changes: Int64 { lock.withLock { lastChanges } }

    var heldBytes: Int { lock.withLock { held } }
    func hold(_ bytes: Int) { lock.withLock { held += bytes } }

    /// Whether an update of call `id` goes out now (at most one every 50 ms).
    func progressDue(_ id: UInt64) -> Bool {
        let now = Subprocess.monotonicMilliseconds()
        return lock.withLock {
            if let last = lastProgress[id], now - last < 50 { return false }
            lastProgress[id] = now
            return true
        }
    }

    /// Forgets a finished call's progress timing.
    func callEnded(_ id: UInt64) {
        lock.withLock { if !lastProgress.isEmpty { lastProgress.removeValue(forKey: id) } }
    }

    var lastErrorPointer: UnsafePointer<CChar> { lock.withLock { lastError.pointer } }

    func cancel(_ call: UInt64) { _ = lock.withLock { cancelled.insert(call) } }
    func isCancelled(_ call: UInt64) -> Bool {
        poll()
        return lock.withLock { hostGone || cancelled.contains(call) }
    }

    /// A service call to the host; nil when the host is gone (the runner then exits).
    func call(_ operation: WireOperation, _ build: (inout WireWriter) -> Void) -> (Int32, WireReader) {
        let (_, status, payload) = exchange(operation, build)
        return (status, WireReader(payload))
    }

    /// A service call whose reply may carry a descriptor (the files service): status, reply, fd or -1.
    func callForDescriptor(_ operation: WireOperation, _ build: (inout WireWriter) -> Void) -> (Int32, WireReader, Int32) {
        let (seq, status, payload) = exchange(operation, build)
        return (status, WireReader(payload), mailbox.takeDescriptor(seq))
    }

    /// Sends one service call and waits for its reply; the runner exits when the host is gone.
    private func exchange(_ operation: WireOperation, _ build: (inout WireWriter) -> Void) -> (UInt32, Int32, [UInt8]) {
        let seq = nextSeq.wrappingAdd(1, ordering: .relaxed).oldValue
        var w = WireWriter()
        ServiceCallHeader(seq: seq, operation: operation.rawValue).encode(into: &w)
        build(&w)
        do {
            try channel.send(.serviceCall, w.bytes)
        } catch {
            _exit(3)
        }
        guard let (status, payload) = awaitReply(seq) else { _exit(3) }
        return (seq, status, payload)
    }

    /// Reads the common tail of storage replies: message, last rowid, changes.
    func absorbStorageReply(_ status: Int32, _ r: inout WireReader, into reply: UnsafePointer<clubhouse_reply>?) {
        guard let tail = try? StorageReplyTail.decode(&r) else { return }
        lock.withLock {
            lastRowID = tail.lastInsertRowID
            lastChanges = tail.changes
        }
        if status != Int32(CLUBHOUSE_OK) && status != Int32(CLUBHOUSE_ROW) && status != Int32(CLUBHOUSE_DONE) {
            setError(tail.message)
            reply?.write(tail.message)
        }
    }
}

/// The plugin's instance, shared by the main loop and a second lane's thread. The lane's thread holds
/// `use` for reading while its command runs with the instance; create and destroy (the main loop) hold
/// it for writing, so destroy waits for a concurrent command still running instead of freeing the
/// instance under it (a command that never ends: the host stops the runner after `timeout_ms`).
/// Only a thread-safe plugin has a second lane (the host opens one for no other, and the runner closes
/// one it is sent for any other: `RunnerProcess.run`); for every other plugin the main loop is the only
/// thread that reaches the instance, and the lock is skipped (≈ 30 ns a call).
/// @unchecked Sendable: `made` is read and written holding `use` when `concurrent`, else only by the
/// runner's main loop.
final class InstanceSlot: @unchecked Sendable {
    private let use = ReadWriteLock()
    private var made: UnsafeMutableRawPointer?
    /// The plugin may have a second lane (it declares itself thread-safe).
    let concurrent: Bool

    init(concurrent: Bool) { self.concurrent = concurrent }

    /// Runs `body` with the instance, which stays alive until it returns.
    func withInstance<T>(_ body: (UnsafeMutableRawPointer?) -> T) -> T {
        concurrent ? use.withReadLock { body(made) } : body(made)
    }

    /// Creates or destroys the instance, once no command runs with it on the second lane.
    func withLock<T>(_ body: (inout UnsafeMutableRawPointer?) -> T) -> T {
        concurrent ? use.withWriteLock { body(&made) } : body(&made)
    }
}

package enum RunnerProcess {
    /// Runs one invoke on `context`'s lane (the main loop's, or a second lane's thread).
    static func invoke(_ payload: [UInt8], library: PluginLibrary, instance: UnsafeMutableRawPointer?,
                       context: RunnerContext) -> ResultMessage {
        guard let message = try? InvokeMessage.decode(payload), let made = instance else {
            return ResultMessage(status: Int32(CLUBHOUSE_ERROR), reply: Array("malformed invoke or no instance".utf8))
        }
        var call = clubhouse_call(
            struct_size: UInt32(MemoryLayout<clubhouse_call>.size), flags: message.flags, id: message.call,
            host_data: Unmanaged.passUnretained(context).toOpaque(),
            is_cancelled: { call in
                guard let call, let data = call.pointee.host_data else { return 0 }
                return Unmanaged<RunnerContext>.fromOpaque(data).takeUnretainedValue().isCancelled(call.pointee.id) ? 1 : 0
            })
        let buffer = ReplyBuffer()
        buffer.limit = context.limits.replyBytes
        // The thread runs this call until invoke returns (RunningCall): services refuse every other thread.
        let status: Int32 = withUnsafePointer(to: &call) { callPointer in
            RunningCall.during(callPointer, lane: context) {
                buffer.withSink { sink in
                    message.request.withUnsafeBufferPointer { bytes in
                        bytes.withMemoryRebound(to: CChar.self) { chars in
                            library.descriptor.pointee.invoke?(library.descriptor, made, callPointer, message.command,
                                                               chars.baseAddress, chars.count, sink) ?? Int32(CLUBHOUSE_ERROR)
                        }
                    }
                }
            }
        }
        context.callEnded(message.call)
        return RunnerProcess.result(status, buffer, context)
    }

    /// A call's result; a reply past the plugin's `reply_mb` is refused here as the host refuses it
    /// in process (it is never sent).
    static func result(_ status: Int32, _ buffer: ReplyBuffer, _ context: RunnerContext) -> ResultMessage {
        if buffer.overflowed {
            return ResultMessage(status: Int32(CLUBHOUSE_DENIED), reply: Array(LimitRefusal.replyBytes(context.alias, context.limits).utf8))
        }
        return ResultMessage(status: status, reply: buffer.bytes)
    }

    /// setrlimit for address space, CPU time (SIGXCPU at the soft limit, SIGKILL a little later)
    /// and open files; and the size of one file the runner writes (RLIMIT_FSIZE, the same bytes as
    /// the address space: a file in memory — tmpfs, /dev/shm — is memory RLIMIT_AS does not count),
    /// with SIGXFSZ ignored so that a write past it fails with EFBIG instead of killing the runner.
    /// Returns what failed, or nil.
    static func applyLimits(memoryMegabytes: Int, cpuSeconds: Int, openFiles: Int) -> String? {
        func set(_ resource: __rlimit_resource_t, _ soft: Int, _ hard: Int, _ what: String) -> String? {
            var current = rlimit()
            getrlimit(resource, &current)
            // A hard limit can only go down without privilege (rlim_t.max is RLIM_INFINITY).
            let hardLimit = min(rlim_t(hard), current.rlim_max)
            var wanted = rlimit(rlim_cur: min(rlim_t(soft), hardLimit), rlim_max: hardLimit)
            guard setrlimit(resource, &wanted) == 0 else {
                return "\(what): \(String(cString: strerror(errno)))"
            }
            return nil
        }
        let bytes = memoryMegabytes << 20
        signal(SIGXFSZ, SIG_IGN)
        return set(__rlimit_resource_t(RLIMIT_AS.rawValue), bytes, bytes, "memory")
            ?? set(__rlimit_resource_t(RLIMIT_CPU.rawValue), cpuSeconds, cpuSeconds + 2, "CPU time")
            ?? set(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), openFiles, openFiles, "open files")
            ?? set(__rlimit_resource_t(RLIMIT_CORE.rawValue), 0, 0, "core dumps")
            ?? set(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), bytes, bytes, "file size")
    }

    /// The runner ends with its host, however the host ended — SIGKILL, a crash, a signal it did not catch: a thread of
    /// its own waits for the host's end of the wire (fd 3) to close and ends the process then, even while the plugin's
    /// call spins in an endless loop and never reads the wire again (fourth outside attack, b24: runners outlived a
    /// SIGKILLed `serve`, owned by init, burning CPU up to `cpu_seconds`). The wire rather than PR_SET_PDEATHSIG: the
    /// parent-death signal follows the host *thread* that spawned the runner (a worker that ends would kill a healthy
    /// runner), a plugin may clear it, and the wire is closed when the host died before the runner looked (no race).
    /// The host keeps its write end only for the runner's life (close-on-exec: no other child holds it).
    /// Returns why the thread did not start, or nil: a runner that could not watch its host does not serve.
    static func exitWhenTheHostIsGone() -> String? {
        do throws(ThreadStartError) {
            try Thread.start {
                var hostEnd = pollfd(fd: RunnerDescriptors.input, events: 0, revents: 0)
                while true {
                    let n = poll(&hostEnd, 1, -1)
                    if n > 0 && hostEnd.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { _exit(0) }
                    if n < 0 && errno != EINTR { return }
                }
            }
            return nil
        } catch {
            return error.description
        }
    }

    /// The runner's main: load, say hello, then serve create/invoke/destroy until the host leaves.
    /// `sandbox`: confine the runner (Sandbox.swift) before loading, allowing TCP connect to these ports.

    /// `verified`: the library's descriptor (the bytes the host checked): loaded from it, not from `path`.
    package static func run(path: String, limits: [Int]? = nil, expectedID: String? = nil, sandbox: [UInt16]? = nil,
                            verified: Int32? = nil) -> Int32 {
        // A `process` runner is the child of a keeper that kills whatever the plugin forked when the runner
        // ends, however it ends (Keeper.swift); a sandboxed one cannot fork.
        if sandbox == nil { Keeper.keep() }
        // The protocol owns fds 3 and 4 (and 5, descriptors; 6, a checked library); nothing else
        // stays open (CloseOnExec.swift); anything the plugin prints goes to stderr.
        Descriptor.closeAll(above: verified ?? 5)
        dup2(2, 1)
        // This thread serves the pipes and runs the plugin's create, invokes and destroy: the thread wall
        // tells it by one comparison of its kernel id (RunningCall).
        RunningCall.adoptMainThread()
        let channel = WireChannel(input: RunnerDescriptors.input, output: RunnerDescriptors.output,
                                  descriptorSocket: RunnerDescriptors.descriptors)
        func refuse(_ message: String) -> Int32 {
            try? channel.send(.hello, HelloMessage(status: Int32(CLUBHOUSE_ERROR), text: message).encode())
            return 1
        }
        // The site's limits, before any of the plugin's code runs (its constructors included).
        if let limits, limits.count == 3 {
            if let problem = applyLimits(memoryMegabytes: limits[0], cpuSeconds: limits[1], openFiles: limits[2]) {
                return refuse("cannot apply the plugin's limits: \(problem)")
            }
        }
        // A `process` runner is not sandboxed, but memory it holds outside its address space is
        // refused all the same (SeccompPolicy.processRefusals: memfd_create, shmget, msgget, semget, mq_open); the sandbox's own
        // filter refuses it among the rest.
        if sandbox == nil, let problem = Seccomp.installProcessRefusals() {
            return refuse("cannot apply the plugin's limits: \(problem)")
        }
        if let ports = sandbox, let problem = Sandbox.confine(pluginPath: path, connectPorts: ports, verified: verified) {
            return refuse(problem)
        }
        // After the sandbox (Landlock restricts the thread that asks and the threads it makes later, not the
        // threads already there), before any of the plugin's code runs.
        if let problem = exitWhenTheHostIsGone() {
            return refuse("cannot start the runner's watch on its host: \(problem)")
        }
        // From here on this thread holds its signals (RunningCall.holdSignals): none of the plugin's handlers
        // runs on it, from its constructors on; the watch above keeps its mask, for process-directed signals.
        RunningCall.holdSignals()
        let library: PluginLibrary
        do {
            library = try PluginLoader.open(path: path, verified: verified)
        } catch {
            return refuse(error.description)
        }
        if let expectedID, library.info.id != expectedID {
            return refuse("\(path) is \(library.info.id), but the host knows this plugin as \(expectedID)")
        }
        let catalogue: [UInt8]
        do {
            catalogue = try library.describe()
        } catch {
            return refuse(error.description)
        }
        let info = library.info
        let hello: JSONValue = [
            "id": .string(info.id), "version": .string(info.version), "name": .string(info.name),
            "summary": .string(info.summary), "build": .string(info.build), "abi_major": .int(info.abiMajor),
            "abi_minor": .int(info.abiMinor), "struct_size": .int(info.structSize), "thread_safe": .bool(info.threadSafe),
            "services": .array(info.services.map { .string($0) }),
            "catalogue": .string(String(decoding: catalogue, as: UTF8.self)),
        ]
        do { try channel.send(.hello, HelloMessage(status: Int32(CLUBHOUSE_OK), text: JSONWriter.compact(hello)).encode()) } catch { return 3 }

        let context = RunnerContext(channel: channel)
        let tables = ProxyTables(context: context)
        // The host struct must outlive every call (plugins keep the pointer), so it lives on the heap.
        let hostPointer = UnsafeMutablePointer<clubhouse_host>.allocate(capacity: 1)
        hostPointer.initialize(to: clubhouse_host(
            struct_size: UInt32(MemoryLayout<clubhouse_host>.size), abi_major: UInt16(CLUBHOUSE_ABI_MAJOR),
            abi_minor: UInt16(CLUBHOUSE_ABI_MINOR), name: nil, version: nil, site: nil, alias: nil,
            host_data: Unmanaged.passUnretained(tables).toOpaque(),
            get_service: { host, id in
                guard let data = host?.pointee.host_data, let id else { return nil }
                let tables = Unmanaged<ProxyTables>.fromOpaque(data).takeUnretainedValue()
                return tables.table(for: String(cString: id))
            }))
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { strings.forEach { free($0) } }
        let slot = InstanceSlot(concurrent: info.threadSafe)
        // A second lane the host opens for the plugin's concurrent commands: a thread of its own
        // serves them with the same instance, beside the call the main loop runs. Only a thread-safe
        // plugin's (the host opens none for another): a lane sent for any other is closed unserved, so
        // that its instance is only ever reached from the main loop (InstanceSlot skips its lock then).
        context.sideLaneOpened = { fd in
            guard slot.concurrent else {
                close(fd)
                return
            }
            // One descriptor both ways (a socket): the runner holds the lane once (SECURITY.md).
            let lane = RunnerContext(channel: WireChannel(input: fd, output: fd))
            do throws(ThreadStartError) {
                try Thread.start {
                    RunningCall.holdSignals() // a call thread (RunningCall.holdSignals)
                    while let (kind, payload) = lane.nextCommand() {
                        guard kind == .invoke else { continue }
                        lane.adopt(context)
                        let result = slot.withInstance { RunnerProcess.invoke(payload, library: library, instance: $0, context: lane) }
                        do { try lane.channel.send(.result, result.encode()) } catch { break }
                    }
                    lane.channel.close()
                }
            } catch {
                // No thread for the lane: it is closed unserved, and the host stops using it.
                let line = "warning: the second lane is not served: \(error)\n"
                _ = line.withCString { write(2, $0, strlen($0)) }
                lane.channel.close()
            }
        }
        while let (kind, payload) = context.nextCommand() {
            let result: ResultMessage
            switch kind {
            case .create:
                let text = (try? CreateMessage.decode(payload))?.settings ?? "{}"
                let settings = (try? JSONParser.parse(text)) ?? .null
                for (field, key) in [("site", 0), ("alias", 1), ("hostVersion", 2)] {
                    let p = strdup(settings[field]?.stringValue ?? "")!
                    strings.append(p)
                    switch key {
                    case 0: hostPointer.pointee.site = UnsafePointer(p)
                    case 1: hostPointer.pointee.alias = UnsafePointer(p)
                    default: hostPointer.pointee.version = UnsafePointer(p)
                    }
                }
                let name = strdup("clubhouse")!
                strings.append(name)
                hostPointer.pointee.name = UnsafePointer(name)
                context.settle(config: settings["config"] ?? .object(JSONObject()),
                               granted: Set((settings["services"]?.arrayValue ?? []).compactMap(\.stringValue)),
                               logThreshold: Int32(settings["logThreshold"]?.intValue ?? 1),
                               alias: settings["alias"]?.stringValue ?? "", limits: ServiceLimits(json: settings["limits"]))
                let buffer = ReplyBuffer()
                buffer.limit = context.limits.replyBytes
                let status: Int32 = slot.withLock { made in
                    RunningCall.during(nil) {
                        buffer.withSink { sink in
                            library.descriptor.pointee.create?(library.descriptor, hostPointer, &made, sink) ?? Int32(CLUBHOUSE_ERROR)
                        }
                    }
                }
                result = RunnerProcess.result(status, buffer, context)
            case .invoke:
                result = slot.withInstance { RunnerProcess.invoke(payload, library: library, instance: $0, context: context) }
            case .destroy:
                slot.withLock { made in
                    if let made { RunningCall.during(nil) { library.descriptor.pointee.destroy?(library.descriptor, made) } }
                    made = nil
                }
                try? channel.send(.result, ResultMessage(status: Int32(CLUBHOUSE_OK), reply: []).encode())
                return 0
            default:
                continue
            }
            do { try channel.send(.result, result.encode()) } catch { return 3 }
        }
        return 0
    }
}
