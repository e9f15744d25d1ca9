// The host side of an isolated plugin: starts `clubhouse __runner PLUGIN.so`, relays create,
// invoke and destroy, and performs the runner's service calls with the instance's real services
// (the same tables an in-process plugin gets). A crash, an abort, a hang past the plugin's
// timeout, or garbage on the pipe becomes an error naming the plugin and the cause; the next call
// starts a new runner.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

final class IsolatedPlugin: @unchecked Sendable {
    let path: String
    let alias: String
    let timeoutMilliseconds: Int
    let limits: PluginLimits
    /// Sandboxed (Sandbox.swift) when set: the TCP ports the plugin may connect to.
    let sandboxPorts: [UInt16]?
    /// The id the host holds this plugin to: the site's "id" when it names one, else what the first
    /// runner said (checked to be reverse-DNS). A later runner that says otherwise is refused.
    private var fixedID: String?
    private(set) var info: PluginDescriptorInfo
    private(set) var catalogue: [UInt8]

    private var pid: pid_t = 0
    private var channel: WireChannel?
    private var statements: [UInt32: OpaquePointer] = [:]
    private var devices: [UInt32: OpaquePointer] = [:]
    private var nextHandle: UInt32 = 1
    /// Set after a crash: the next call starts a new runner and re-creates the instance.
    private var needsCreate = false
    let lock = Lock()

    /// Starts the runner and reads the plugin's descriptor and catalogue.
    init(path: String, alias: String, timeoutMilliseconds: Int, expectedID: String? = nil,
         limits: PluginLimits = PluginLimits(), sandboxPorts: [UInt16]? = nil) throws(RuntimeError) {
        self.path = path
        self.sandboxPorts = sandboxPorts
        self.alias = alias
        self.timeoutMilliseconds = timeoutMilliseconds
        self.limits = limits
        fixedID = expectedID
        info = PluginDescriptorInfo(id: "", version: "0.0.0", semanticVersion: SemanticVersion(major: 0, minor: 0, patch: 0),
                                    name: "", summary: "", build: "", abiMajor: 0, abiMinor: 0, structSize: 0, threadSafe: false,
                                    services: [])
        catalogue = []
        try start()
    }

    deinit { stop() }

    var isRunning: Bool { channel != nil }
    var processID: pid_t { pid }

    private func start() throws(RuntimeError) {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard Subprocess.makePipe(&toChild), Subprocess.makePipe(&fromChild) else {
            throw RuntimeError(status: .io, message: "plugin '\(alias)': cannot create pipes for its runner")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 4)
        // Its own process group, so the runner and anything the plugin forks are stopped together.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let executable = FileSystem.hostExecutable()
        var words: [String] = [executable, "__runner", path,
                               "--limits", "\(limits.memoryMegabytes),\(limits.cpuSeconds),\(limits.openFiles)"]
        if let fixedID { words += ["--id", fixedID] }
        if let sandboxPorts { words += ["--sandbox", sandboxPorts.isEmpty ? "-" : sandboxPorts.map(String.init).joined(separator: ",")] }
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var env: [UnsafeMutablePointer<CChar>?] = []
        var current = environ
        while let entry = current.pointee {
            if !String(cString: entry).hasPrefix("SWIFT_BACKTRACE=") { env.append(strdup(entry)) }
            current += 1
        }
        env.append(strdup("SWIFT_BACKTRACE=enable=no"))
        env.append(nil)
        defer { env.forEach { free($0) } }
        var child: pid_t = 0
        var a = argv
        let rc = posix_spawn(&child, executable, &actions, &attributes, &a, &env)
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw RuntimeError(status: .io, message: "plugin '\(alias)': cannot start its runner: \(String(cString: strerror(rc)))")
        }
        pid = child
        let wire = WireChannel(input: fromChild[0], output: toChild[1], caps: WireCaps.host)
        channel = wire
        let hello: (WireKind, [UInt8])?
        do {
            hello = try wire.receive(timeoutMilliseconds: Int32(clamping: max(timeoutMilliseconds, 10_000)))
        } catch {
            if error.isViolation || error.isGarbage { killGroup() }
            throw RuntimeError(status: .pluginFailed, message: "plugin '\(alias)' (\(path)): its runner \(reap(after: error.description))")
        }
        guard let (kind, payload) = hello, kind == .hello else {
            killGroup()
            throw RuntimeError(status: .pluginFailed, message: "plugin '\(alias)' (\(path)): its runner did not start; \(reap(after: "no hello"))")
        }
        var r = WireReader(payload)
        guard let status = try? r.i32(), let text = try? r.str() else {
            throw RuntimeError(status: .pluginFailed, message: "plugin '\(alias)': malformed hello from its runner")
        }
        guard status == Int32(CLUBHOUSE_OK) else {
            stop()
            throw RuntimeError(status: .error, message: "plugin '\(alias)': \(text)")
        }
        guard let v = try? JSONParser.parse(text), let version = v["version"]?.stringValue,
              let semantic = SemanticVersion(version)
        else {
            stop()
            throw RuntimeError(status: .pluginFailed, message: "plugin '\(alias)': malformed hello from its runner")
        }
        // Identity is the host's: a reverse-DNS id (it names the plugin's database file), and the
        // same one for every runner of this plugin.
        let id = v["id"]?.stringValue ?? ""
        guard PluginLoader.isReverseDNS(id) else {
            stop()
            throw RuntimeError(status: .pluginFailed,
                               message: "plugin '\(alias)' (\(path)): its runner broke the wire protocol: it claims the id '\(id)', which is not a reverse-DNS id such as org.example.notes; it was stopped")
        }
        if let fixedID, id != fixedID {
            stop()
            throw RuntimeError(status: .pluginFailed,
                               message: "plugin '\(alias)' (\(path)): its runner broke the wire protocol: it claims the id '\(id)', but the host knows this plugin as '\(fixedID)'; it was stopped")
        }
        fixedID = id
        info = PluginDescriptorInfo(
            id: id, version: version, semanticVersion: semantic, name: v["name"]?.stringValue ?? "",
            summary: v["summary"]?.stringValue ?? "", build: v["build"]?.stringValue ?? "",
            abiMajor: v["abi_major"]?.intValue ?? 0, abiMinor: v["abi_minor"]?.intValue ?? 0,
            structSize: v["struct_size"]?.intValue ?? 0, threadSafe: v["thread_safe"]?.boolValue ?? false,
            services: (v["services"]?.arrayValue ?? []).compactMap(\.stringValue))
        catalogue = Array((v["catalogue"]?.stringValue ?? "").utf8)
    }

    /// Waits for the runner to exit (killing it if it lingers) and describes how it ended.
    private func reap(after reason: String) -> String {
        channel?.close()
        channel = nil
        guard pid > 0 else { return reason }
        var status: Int32 = 0
        if let exited = exitStatus {
            status = exited
        } else {
            var waited: pid_t = 0
            for _ in 0..<100 {
                waited = waitpid(pid, &status, WNOHANG)
                if waited != 0 { break }
                usleep(2000)
            }
            if waited == 0 {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
            }
        }
        // Whatever the plugin forked goes with it (the runner leads its own process group).
        kill(-pid, SIGKILL)
        pid = 0
        exitStatus = nil
        let signal = status & 0x7F
        if signal == SIGXCPU {
            return "used up its CPU-time limit of \(limits.cpuSeconds) s (killed by signal \(signal), SIGXCPU)"
        }
        if signal != 0 && signal != 0x7F {
            return "crashed (killed by signal \(signal), \(Subprocess.signalName(signal)))"
        }
        return "exited with code \((status >> 8) & 0xFF) (\(reason))"
    }

    /// The wait status of a runner that exited while its pipes stayed open (a forked child holds them).
    private var exitStatus: Int32?

    /// True when the runner process has ended (its status is kept for `reap`).
    private func runnerExited() -> Bool {
        guard pid > 0, exitStatus == nil else { return exitStatus != nil }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return true
        }
        return false
    }

    /// Kills the runner's whole process group (the runner and whatever the plugin forked).
    private func killGroup() {
        guard pid > 0 else { return }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
    }

    /// Stops the runner (used at shutdown and after a failure).
    func stop() {
        guard pid > 0 else { return }
        killGroup()
        _ = reap(after: "stopped")
        statements.removeAll()
        devices.removeAll()
    }

    // MARK: calls

    func create(instance: PluginInstance) throws(RuntimeError) {
        lock.lock()
        defer { lock.unlock() }
        if channel == nil { try start() }
        try createLocked(instance: instance)
    }

    private func createLocked(instance: PluginInstance) throws(RuntimeError) {
        let granted = SiteRuntime.offeredServices.filter { instance.refusal(for: $0) == nil }
        let settings: JSONValue = [
            "site": .string(instance.siteName), "alias": .string(alias), "hostVersion": .string(ClubhouseVersion.string),
            "config": instance.entry.config, "services": .array(granted.map { .string($0) }),
            "logThreshold": .int(Int(instance.runtime.log.threshold)),
        ]
        var w = WireWriter()
        w.str(JSONWriter.compact(settings))
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: alias)
        let (status, reply) = exchange(.create, w.bytes, instance: instance, call: call, what: "create")
        guard status == Int32(CLUBHOUSE_OK) else {
            let message = String(decoding: reply, as: UTF8.self)
            throw RuntimeError(status: Status(code: status), message: "plugin '\(alias)' (\(info.id)) could not start: \(message)")
        }
        needsCreate = false
    }

    func invoke(instance: PluginInstance, command: String, request: [UInt8], call: CallContext) -> (Int32, [UInt8]) {
        lock.withLock {
            if channel == nil || needsCreate {
                do {
                    if channel == nil { try start() }
                    try createLocked(instance: instance)
                } catch let error as RuntimeError {
                    return (error.status.rawValue, Array(error.message.utf8))
                } catch {
                    return (Status.error.rawValue, Array("\(error)".utf8))
                }
            }
            var w = WireWriter()
            w.u64(call.id)
            w.u32(call.flags)
            w.str(command)
            w.data(request)
            return exchange(.invoke, w.bytes, instance: instance, call: call, what: "'\(command)'")
        }
    }

    func destroy(instance: PluginInstance) {
        lock.withLock {
            guard channel != nil else { return }
            let call = CallContext(flags: 0, progress: SilentProgress(), alias: alias)
            _ = exchange(.destroy, [], instance: instance, call: call, what: "destroy", quietFailure: true)
            stop()
        }
    }

    /// Sends one command and serves the runner's service calls until its result arrives.
    private func exchange(_ kind: WireKind, _ payload: [UInt8], instance: PluginInstance, call: CallContext, what: String,
                          quietFailure: Bool = false) -> (Int32, [UInt8]) {
        func failure(_ cause: String) -> (Int32, [UInt8]) {
            needsCreate = true
            for (_, stmt) in statements { ServiceTables.shared.storage.pointee.finalize(stmt) }
            statements.removeAll()
            for (_, device) in devices { ServiceTables.shared.device.pointee.close(device) }
            devices.removeAll()
            instance.abandonTransactions()
            call.progress.end()
            let message = "plugin '\(alias)' \(cause) during \(what); the host keeps running and restarts the plugin on the next call"
            if !quietFailure { instance.runtime.log.info(message) }
            return (Status.pluginFailed.rawValue, Array(message.utf8))
        }
        /// A well-framed message that breaks the protocol: the runner is stopped, the call fails.
        func violation(_ what: String) -> (Int32, [UInt8]) {
            killGroup()
            _ = reap(after: "protocol violation")
            return failure("broke the wire protocol (\(what)) and was stopped")
        }
        guard let wire = channel else { return failure("is not running") }
        do {
            try wire.send(kind, payload)
        } catch {
            return failure(reap(after: error.description))
        }
        var cancelSent = false
        let started = Subprocess.monotonicMilliseconds()
        let wallDeadline = started + Int64(limits.wallMilliseconds)
        var lastHeard = started
        while true {
            // A cancel goes out as soon as the call is cancelled, however busy the plugin keeps the pipe.
            if !cancelSent && call.isCancelled {
                var w = WireWriter()
                w.u64(call.id)
                try? wire.send(.cancel, w.bytes)
                cancelSent = true
            }
            let now = Subprocess.monotonicMilliseconds()
            if now >= wallDeadline {
                killGroup()
                _ = reap(after: "wall-clock limit")
                return failure("ran past its wall-clock limit of \(limits.wallMilliseconds) ms and was stopped")
            }
            let message: (WireKind, [UInt8])?
            do {
                message = try wire.receive(timeoutMilliseconds: Int32(clamping: min(100, wallDeadline - now)))
            } catch {
                if error.isViolation {
                    return violation(error.description)
                }
                if error.isGarbage {
                    killGroup()
                    _ = reap(after: "garbage")
                    return failure("sent garbage on its pipe (\(error)) and was stopped")
                }
                return failure(reap(after: error.description))
            }
            guard let (k, body) = message else {
                // The runner may be gone while a child it forked keeps the pipes open.
                if runnerExited() { return failure(reap(after: "its process ended")) }
                if Subprocess.monotonicMilliseconds() - lastHeard >= Int64(timeoutMilliseconds) {
                    killGroup()
                    _ = reap(after: "timeout")
                    return failure("did not answer within \(timeoutMilliseconds) ms (a hang?) and was stopped")
                }
                continue
            }
            lastHeard = Subprocess.monotonicMilliseconds()
            switch k {
            case .result:
                var r = WireReader(body)
                guard let status = try? r.i32(), let bytes = try? r.data() else { return violation("a truncated result") }
                return (status, bytes)
            case .serviceCall:
                var r = WireReader(body)
                guard let seq = try? r.u32(), let op = try? r.u8() else { return violation("a truncated service call") }
                guard let operation = WireOperation(rawValue: op) else { return violation("a service call with unknown operation \(op)") }
                let (status, reply) = perform(operation, &r, instance: instance, call: call)
                var w = WireWriter()
                w.u32(seq)
                w.i32(status)
                w.data(reply)
                do { try wire.send(.reply, w.bytes) } catch { return failure(reap(after: error.description)) }
            case .log:
                var r = WireReader(body)
                if let level = try? r.i32(), let text = try? r.str() {
                    instance.runtime.log.write(level: level, source: alias, message: text)
                }
            case .progress:
                var r = WireReader(body)
                guard (try? r.u64()) != nil, let stage = try? r.u8(), let label = try? r.str(), let n = try? r.u64() else { continue }
                switch stage {
                case 0: call.progress.begin(label: label, total: n)
                case 1: call.progress.update(done: n)
                default: call.progress.end()
                }
            case .finalize:
                var r = WireReader(body)
                if let h = try? r.u32(), let stmt = statements.removeValue(forKey: h) {
                    ServiceTables.shared.storage.pointee.finalize(stmt)
                }
            case .deviceClose:
                var r = WireReader(body)
                if let h = try? r.u32(), let device = devices.removeValue(forKey: h) {
                    ServiceTables.shared.device.pointee.close(device)
                }
            default:
                return violation("an unexpected '\(k)' message")
            }
        }
    }

    // MARK: service calls, performed with the instance's real services

    private func lastError(_ host: UnsafePointer<clubhouse_host>) -> String {
        ServiceTables.shared.storage.pointee.last_error(host).map { String(cString: $0) } ?? "storage error"
    }

    private func storageTail(_ w: inout WireWriter, _ host: UnsafePointer<clubhouse_host>, message: String) {
        let s = ServiceTables.shared.storage.pointee
        w.str(message)
        w.i64(s.last_insert_rowid(host))
        w.i64(s.changes(host))
    }

    private func perform(_ operation: WireOperation, _ r: inout WireReader, instance: PluginInstance, call: CallContext)
        -> (Int32, [UInt8])
    {
        let host = UnsafePointer(instance.host)
        let s = ServiceTables.shared.storage.pointee
        var w = WireWriter()
        func replyStatus(_ status: Int32, _ buffer: ReplyBuffer) -> (Int32, [UInt8]) {
            let message = buffer.text.isEmpty && status != Int32(CLUBHOUSE_OK) ? lastError(host) : buffer.text
            storageTail(&w, host, message: message)
            return (status, w.bytes)
        }
        do {
            switch operation {
            case .exec:
                let sql = try r.str()
                let buffer = ReplyBuffer()
                let status = buffer.withSink { s.exec(host, sql, $0) }
                return replyStatus(status, buffer)
            case .prepare:
                let sql = try r.str()
                let buffer = ReplyBuffer()
                var stmt: OpaquePointer?
                let status = buffer.withSink { s.prepare(host, sql, &stmt, $0) }
                guard status == Int32(CLUBHOUSE_OK), let stmt else { return replyStatus(status, buffer) }
                let handle = nextHandle
                nextHandle &+= 1
                statements[handle] = stmt
                storageTail(&w, host, message: "")
                w.u32(handle)
                let count = s.column_count(stmt)
                w.u32(UInt32(max(0, count)))
                for c in 0..<count { w.str(s.column_name(stmt, c).map { String(cString: $0) } ?? "") }
                return (status, w.bytes)
            case .step:
                let handle = try r.u32()
                let resetFirst = try r.u8()
                let binds = try r.u32()
                guard let stmt = statements[handle] else {
                    storageTail(&w, host, message: "no such statement")
                    return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes)
                }
                if resetFirst != 0 { _ = s.reset(stmt) }
                var bindStatus = Int32(CLUBHOUSE_OK)
                for _ in 0..<binds {
                    let index = try r.i32()
                    let type = try r.u8()
                    var rc: Int32
                    switch type {
                    case 1: rc = s.bind_int64(stmt, index, try r.i64())
                    case 2: rc = s.bind_double(stmt, index, try r.f64())
                    case 3:
                        let text = try r.data()
                        rc = text.withUnsafeBufferPointer { b in
                            b.withMemoryRebound(to: CChar.self) { chars in
                                guard let base = chars.baseAddress else { return s.bind_text(stmt, index, "", 0) }
                                return s.bind_text(stmt, index, base, chars.count)
                            }
                        }
                    case 4:
                        let blob = try r.data()
                        rc = blob.withUnsafeBytes { s.bind_blob(stmt, index, $0.baseAddress, $0.count) }
                    default: rc = s.bind_null(stmt, index)
                    }
                    if rc != Int32(CLUBHOUSE_OK) && bindStatus == Int32(CLUBHOUSE_OK) { bindStatus = rc }
                }
                if bindStatus != Int32(CLUBHOUSE_OK) {
                    storageTail(&w, host, message: lastError(host))
                    return (bindStatus, w.bytes)
                }
                let status = s.step(stmt)
                let message = status == Int32(CLUBHOUSE_ROW) || status == Int32(CLUBHOUSE_DONE) ? ""
                    : lastError(host)
                storageTail(&w, host, message: message)
                if status == Int32(CLUBHOUSE_ROW) {
                    let count = s.column_count(stmt)
                    w.u32(UInt32(max(0, count)))
                    for c in 0..<count {
                        let type = s.column_type(stmt, c)
                        w.u8(UInt8(clamping: type))
                        switch type {
                        case Int32(CLUBHOUSE_TYPE_INTEGER): w.i64(s.column_int64(stmt, c))
                        case Int32(CLUBHOUSE_TYPE_FLOAT): w.f64(s.column_double(stmt, c))
                        case Int32(CLUBHOUSE_TYPE_TEXT), Int32(CLUBHOUSE_TYPE_BLOB):
                            var length = 0
                            let p = s.column_blob(stmt, c, &length)
                            w.data(UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : length))
                        default: break
                        }
                    }
                }
                return (status, w.bytes)
            case .begin:
                let buffer = ReplyBuffer()
                return replyStatus(buffer.withSink { s.begin(host, $0) }, buffer)
            case .commit:
                let buffer = ReplyBuffer()
                return replyStatus(buffer.withSink { s.commit(host, $0) }, buffer)
            case .rollback:
                return replyStatus(s.rollback(host), ReplyBuffer())
            case .migrate:
                let version = try r.i32()
                let name = try r.str()
                let sql = try r.str()
                let buffer = ReplyBuffer()
                return replyStatus(buffer.withSink { s.migrate(host, version, name, sql, $0) }, buffer)
            case .invoke:
                _ = try r.u64()
                let target = try r.str()
                let command = try r.str()
                let request = try r.data()
                let outcome = instance.runtime.invokeFromPlugin(caller: instance, call: call, alias: target, command: command,
                                                                request: request)
                w.data(outcome.reply)
                return (outcome.status, w.bytes)
            case .deviceOpen:
                let name = try r.str()
                let d = ServiceTables.shared.device.pointee
                let buffer = ReplyBuffer()
                var device: OpaquePointer?
                let status = buffer.withSink { d.open(host, name, &device, $0) }
                w.str(buffer.text)
                guard status == Int32(CLUBHOUSE_OK), let device else { return (status, w.bytes) }
                let handle = nextHandle
                nextHandle &+= 1
                devices[handle] = device
                w.u32(handle)
                return (status, w.bytes)
            case .deviceWrite:
                let handle = try r.u32()
                let bytes = try r.data()
                let d = ServiceTables.shared.device.pointee
                guard let device = devices[handle] else {
                    w.str("no such device handle")
                    return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes)
                }
                let status = bytes.withUnsafeBufferPointer { d.write(device, $0.baseAddress, $0.count) }
                w.str(status == Int32(CLUBHOUSE_OK) ? "" : (d.last_error(device).map { String(cString: $0) } ?? ""))
                return (status, w.bytes)
            case .deviceRead:
                let handle = try r.u32()
                let capacity = Int(try r.u32())
                let timeout = try r.i32()
                let d = ServiceTables.shared.device.pointee
                guard let device = devices[handle] else {
                    w.str("no such device handle")
                    return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes)
                }
                var buffer = [UInt8](repeating: 0, count: max(1, capacity))
                var length = 0
                let status = buffer.withUnsafeMutableBufferPointer { d.read(device, $0.baseAddress, $0.count, &length, timeout) }
                w.str(status == Int32(CLUBHOUSE_OK) ? "" : (d.last_error(device).map { String(cString: $0) } ?? ""))
                w.data(Array(buffer[0..<min(length, buffer.count)]))
                return (status, w.bytes)
            }
        } catch {
            storageTail(&w, host, message: "malformed service call: \(error)")
            return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes)
        }
    }
}
