// The runner: `clubhouse __runner PLUGIN.so`, a child process that loads one plugin and gives it a
// host struct whose services are proxies over the wire to the real host. If the plugin crashes,
// aborts or hangs, only this process dies; the host reports it and starts a new runner.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

/// A one-shot slot a waiting service call sleeps on until the reader thread fills it.
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
        if let reply = replies.removeValue(forKey: seq) { return .some(reply) }
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
final class RunnerContext: @unchecked Sendable {
    let channel: WireChannel
    let mailbox = Mailbox()
    private let lock = Lock()
    private var nextSeq: UInt32 = 1
    private var cancelled = Set<UInt64>()
    /// The host closed the pipe: every call counts as cancelled (nobody waits for its result).
    private var hostGone = false
    var logThreshold: Int32 = 1
    var lastInsertRowID: Int64 = 0
    var changes: Int64 = 0
    var lastErrorStorage: [CChar] = [0]
    var config: JSONValue = .object(JSONObject())
    var granted: Set<String> = []
    var lastProgress: [UInt64: Int64] = [:]

    /// Whoever holds this reads the pipe (the idle main loop, or a thread awaiting a reply); the
    /// others wait on the mailbox. No thread hands frames to another on the way in.
    private let readLock = Lock()
    /// Commands that arrived while a thread was waiting for a reply (the main loop runs them next).
    private var pendingCommands: [(WireKind, [UInt8])] = []

    init(channel: WireChannel) { self.channel = channel }

    /// Reads one frame (waiting up to `timeout` ms) and files it: replies to the mailbox, cancels to
    /// the flags, commands to the pending list. False when the host is gone.
    private func pump(timeout: Int32) -> Bool {
        let frame: (WireKind, [UInt8])?
        do {
            frame = try channel.receive(timeoutMilliseconds: timeout)
        } catch {
            lock.withLock { hostGone = true }
            mailbox.fail("host gone")
            return false
        }
        guard let (kind, payload) = frame else { return true }
        switch kind {
        case .reply:
            var r = WireReader(payload)
            if let seq = try? r.u32(), let status = try? r.i32(), let body = try? r.data() { mailbox.deliver(seq, status, body) }
        case .replyWithDescriptor:
            // Its descriptor waits on the descriptor socket (Wire.swift).
            let descriptor = channel.takeDescriptor()
            var r = WireReader(payload)
            if let seq = try? r.u32(), let status = try? r.i32(), let body = try? r.data() {
                mailbox.deliver(seq, status, body, descriptor: descriptor)
            } else if descriptor >= 0 {
                close(descriptor)
            }
        case .cancel:
            var r = WireReader(payload)
            if let call = try? r.u64() { cancel(call) }
        default:
            lock.withLock { pendingCommands.append((kind, payload)) }
        }
        return true
    }

    /// The next command from the host for the main loop (nil when the host is gone).
    func nextCommand() -> (WireKind, [UInt8])? {
        while true {
            if let command = lock.withLock({ pendingCommands.isEmpty ? nil : pendingCommands.removeFirst() }) { return command }
            readLock.lock()
            let alive = pump(timeout: -1)
            readLock.unlock()
            if !alive { return nil }
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
                let alive = pump(timeout: 50)
                readLock.unlock()
                if !alive { return nil }
            } else {
                mailbox.waitBriefly(milliseconds: 5)
            }
        }
    }

    func setError(_ message: String) { lock.withLock { lastErrorStorage = Array(message.utf8CString) } }

    var lastErrorPointer: UnsafePointer<CChar> {
        lock.withLock { lastErrorStorage.withUnsafeBufferPointer { UnsafePointer($0.baseAddress!) } }
    }

    func cancel(_ call: UInt64) { _ = lock.withLock { cancelled.insert(call) } }
    func isCancelled(_ call: UInt64) -> Bool {
        poll()
        return lock.withLock { hostGone || cancelled.contains(call) }
    }

    /// A service call to the host; nil when the host is gone (the runner then exits).
    func call(_ operation: WireOperation, _ build: (inout WireWriter) -> Void) -> (Int32, WireReader) {
        let seq = lock.withLock { () -> UInt32 in
            defer { nextSeq &+= 1 }
            return nextSeq
        }
        var w = WireWriter()
        w.u32(seq)
        w.u8(operation.rawValue)
        build(&w)
        do {
            try channel.send(.serviceCall, w.bytes)
        } catch {
            _exit(3)
        }
        guard let (status, payload) = awaitReply(seq) else { _exit(3) }
        return (status, WireReader(payload))
    }

    /// A service call whose reply may carry a descriptor (the files service): status, reply, fd or -1.
    func callForDescriptor(_ operation: WireOperation, _ build: (inout WireWriter) -> Void) -> (Int32, WireReader, Int32) {
        let seq = lock.withLock { () -> UInt32 in
            defer { nextSeq &+= 1 }
            return nextSeq
        }
        var w = WireWriter()
        w.u32(seq)
        w.u8(operation.rawValue)
        build(&w)
        do {
            try channel.send(.serviceCall, w.bytes)
        } catch {
            _exit(3)
        }
        guard let (status, payload) = awaitReply(seq) else { _exit(3) }
        return (status, WireReader(payload), mailbox.takeDescriptor(seq))
    }

    /// Reads the common tail of storage replies: message, last rowid, changes.
    func absorbStorageReply(_ status: Int32, _ r: inout WireReader, into reply: UnsafePointer<clubhouse_reply>?) {
        let message = (try? r.str()) ?? ""
        lastInsertRowID = (try? r.i64()) ?? lastInsertRowID
        changes = (try? r.i64()) ?? changes
        if status != Int32(CLUBHOUSE_OK) && status != Int32(CLUBHOUSE_ROW) && status != Int32(CLUBHOUSE_DONE) {
            setError(message)
            reply?.write(message)
        }
    }
}

/// A prepared statement living in the host; binds wait here until the next step.
final class ProxyStatement {
    let context: RunnerContext
    let handle: UInt32
    let names: [[CChar]]
    var pendingReset = false
    /// The last step answered a row (the host's statement is still running).
    var onRow = false
    var binds = WireWriter()
    var bindCount: UInt32 = 0
    var row: [(type: Int32, int: Int64, double: Double, bytes: [CChar])] = []

    /// Parameter names with their prefix, NUL-terminated; a lone NUL for "?".
    let parameters: [[CChar]]
    private let parameterIndices: [String: Int32]
    private let columnIndices: [String: Int32]

    init(context: RunnerContext, handle: UInt32, names: [String], parameters: [String] = []) {
        self.context = context
        self.handle = handle
        self.names = names.map { Array($0.utf8CString) }
        self.parameters = parameters.map { Array($0.utf8CString) }
        var byName: [String: Int32] = [:]
        for (i, name) in parameters.enumerated() where !name.isEmpty && byName[name] == nil { byName[name] = Int32(i + 1) }
        parameterIndices = byName
        var columns: [String: Int32] = [:]
        for (i, name) in names.enumerated() where columns[name] == nil { columns[name] = Int32(i) }
        columnIndices = columns
    }

    func parameterIndex(_ name: String) -> Int32 { parameterIndices[name] ?? 0 }
    func columnIndex(_ name: String) -> Int32 { columnIndices[name] ?? -1 }

    static func from(_ stmt: OpaquePointer?) -> ProxyStatement? {
        stmt.map { Unmanaged<ProxyStatement>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }

    func bind(_ index: Int32, _ type: UInt8, _ write: (inout WireWriter) -> Void) -> Int32 {
        binds.i32(index)
        binds.u8(type)
        write(&binds)
        bindCount += 1
        return Int32(CLUBHOUSE_OK)
    }
}

/// An open device in the host.
final class ProxyDevice {
    let context: RunnerContext
    let handle: UInt32
    var lastError: [CChar] = [0]
    /// How the site reaches the device (the host's answer to open).
    let address: [CChar]

    init(context: RunnerContext, handle: UInt32, address: String) {
        self.context = context
        self.handle = handle
        self.address = Array(address.utf8CString)
    }

    static func from(_ device: OpaquePointer?) -> ProxyDevice? {
        device.map { Unmanaged<ProxyDevice>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }
}

package enum RunnerProcess {
    /// setrlimit for address space, CPU time (SIGXCPU at the soft limit, SIGKILL a little later)
    /// and open files. Returns what failed, or nil.
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
        return set(__rlimit_resource_t(RLIMIT_AS.rawValue), bytes, bytes, "memory")
            ?? set(__rlimit_resource_t(RLIMIT_CPU.rawValue), cpuSeconds, cpuSeconds + 2, "CPU time")
            ?? set(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), openFiles, openFiles, "open files")
            ?? set(__rlimit_resource_t(RLIMIT_CORE.rawValue), 0, 0, "core dumps")
    }

    /// The runner's main: load, say hello, then serve create/invoke/destroy until the host leaves.
    /// `sandbox`: confine the runner (Sandbox.swift) before loading, allowing TCP connect to these ports.
    /// Where the host puts the descriptor of a library it checked against the lock.
    static let verifiedLibraryDescriptor: Int32 = 6

    /// `verified`: the library's descriptor (the bytes the host checked): loaded from it, not from `path`.
    package static func run(path: String, limits: [Int]? = nil, expectedID: String? = nil, sandbox: [UInt16]? = nil,
                            verified: Int32? = nil) -> Int32 {
        // The protocol owns fds 3 and 4 (and 5, descriptors); anything the plugin prints goes to stderr.
        dup2(2, 1)
        let channel = WireChannel(input: 3, output: 4, descriptorSocket: 5)
        func refuse(_ message: String) -> Int32 {
            var w = WireWriter()
            w.i32(Int32(CLUBHOUSE_ERROR))
            w.str(message)
            try? channel.send(.hello, w.bytes)
            return 1
        }
        // The site's limits, before any of the plugin's code runs (its constructors included).
        if let limits, limits.count == 3 {
            if let problem = applyLimits(memoryMegabytes: limits[0], cpuSeconds: limits[1], openFiles: limits[2]) {
                return refuse("cannot apply the plugin's limits: \(problem)")
            }
        }
        if let ports = sandbox, let problem = Sandbox.confine(pluginPath: path, connectPorts: ports, verified: verified) {
            return refuse(problem)
        }
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
        var w = WireWriter()
        w.i32(Int32(CLUBHOUSE_OK))
        w.str(JSONWriter.compact(hello))
        do { try channel.send(.hello, w.bytes) } catch { return 3 }

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
        var instance: UnsafeMutableRawPointer?
        while let (kind, payload) = context.nextCommand() {
            var result = WireWriter()
            switch kind {
            case .create:
                var r = WireReader(payload)
                let text = (try? r.str()) ?? "{}"
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
                context.config = settings["config"] ?? .object(JSONObject())
                context.granted = Set((settings["services"]?.arrayValue ?? []).compactMap(\.stringValue))
                context.logThreshold = Int32(settings["logThreshold"]?.intValue ?? 1)
                let buffer = ReplyBuffer()
                let status: Int32 = buffer.withSink { sink in
                    library.descriptor.pointee.create?(library.descriptor, hostPointer, &instance, sink) ?? Int32(CLUBHOUSE_ERROR)
                }
                result.i32(status)
                result.data(buffer.bytes)
            case .invoke:
                var r = WireReader(payload)
                guard let callID = try? r.u64(), let flags = try? r.u32(), let command = try? r.str(),
                      let request = try? r.data(), let made = instance
                else {
                    result.i32(Int32(CLUBHOUSE_ERROR))
                    result.str("malformed invoke or no instance")
                    break
                }
                var call = clubhouse_call(
                    struct_size: UInt32(MemoryLayout<clubhouse_call>.size), flags: flags, id: callID,
                    host_data: Unmanaged.passUnretained(context).toOpaque(),
                    is_cancelled: { call in
                        guard let call, let data = call.pointee.host_data else { return 0 }
                        return Unmanaged<RunnerContext>.fromOpaque(data).takeUnretainedValue().isCancelled(call.pointee.id) ? 1 : 0
                    })
                let buffer = ReplyBuffer()
                let status: Int32 = withUnsafePointer(to: &call) { callPointer in
                    buffer.withSink { sink in
                        request.withUnsafeBufferPointer { bytes in
                            bytes.withMemoryRebound(to: CChar.self) { chars in
                                library.descriptor.pointee.invoke?(library.descriptor, made, callPointer, command,
                                                                   chars.baseAddress, chars.count, sink) ?? Int32(CLUBHOUSE_ERROR)
                            }
                        }
                    }
                }
                result.i32(status)
                result.data(buffer.bytes)
            case .destroy:
                if let made = instance { library.descriptor.pointee.destroy?(library.descriptor, made) }
                instance = nil
                result.i32(Int32(CLUBHOUSE_OK))
                result.data([])
                try? channel.send(.result, result.bytes)
                return 0
            default:
                continue
            }
            do { try channel.send(.result, result.bytes) } catch { return 3 }
        }
        return 0
    }
}
