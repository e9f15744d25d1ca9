// The host side of an isolated plugin: starts `clubhouse __runner PLUGIN.so`, relays create,
// invoke and destroy, and answers the runner's service calls through each broker's wire face (the
// same Swift implementation an in-process plugin's C tables reach). A crash, an abort, a hang past the plugin's
// timeout, or garbage on the pipe becomes an error naming the plugin and the cause; the next call
// starts a new runner.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import Synchronization
import ClubhouseWire
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: the runner's state (`channel`, `pid`, `info`, `catalogue`, the handles, `needsCreate`)
/// is read and written under `lock` — every call, create and destroy takes it — except `runnerGroup`, an atomic.
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

    private var pid: pid_t = 0 {
        didSet { runnerGroup.store(pid, ordering: .relaxed) }
    }
    /// The runner's process group, readable without the lock (a front end quitting at once kills
    /// it: `killNow`).
    private let runnerGroup = Atomic<pid_t>(0)
    /// Bumped at every start of a runner and at every end the host notices (`reap`), before the runner's pid is
    /// forgotten: the generation a kept reply was made under (`generation`, SiteRuntime.replyStamp).
    private let generations = Atomic<Int>(0)
    private var channel: WireChannel?
    /// Where the runner's standard error goes (the log broker's relay), and its socket there.
    private let standardError: StandardErrorRelay
    private var standardErrorSource: StandardErrorRelay.Source?
    /// Host objects the runner names by handle (they live as long as the runner, at most).
    private var statements = WireHandles<StorageStatement>()
    private var devices = WireHandles<DeviceConnection>()
    /// Set after a crash: the next call starts a new runner and re-creates the instance.
    private var needsCreate = false
    /// A crash loop's restarts are spaced (RELIABILITY.md, "A plugin that crashes in a loop"): how many
    /// runners in a row ended within `restart_backoff_ms` of starting, when the last one ended and why.
    private var crashLoop = CrashLoop()
    /// The runner's second lane, for the plugin's concurrent commands (SideLane.swift).
    private let side = SideLane()
    /// Set when the second lane stopped the runner (a concurrent command that hung or broke the
    /// protocol), outside `lock`: the next call reaps it and starts a new one instead of failing on
    /// the dead pipes.
    private let stoppedBeside = Atomic<Bool>(false)
    let lock = Lock()

    /// Starts the runner and reads the plugin's descriptor and catalogue.
    /// An open descriptor of the library whose bytes the host checked against the lock: every
    /// runner loads from it (fd 6, `/proc/self/fd/6`), never from the path again. Owned; closed in deinit.
    private let verifiedLibrary: Int32?

    init(path: String, alias: String, timeoutMilliseconds: Int, expectedID: String? = nil,
         limits: PluginLimits = PluginLimits(), sandboxPorts: [UInt16]? = nil, verifiedLibrary: Int32? = nil,
         standardError: StandardErrorRelay) throws(RuntimeError) {
        self.path = path
        self.standardError = standardError
        self.verifiedLibrary = verifiedLibrary
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

    deinit {
        stop()
        if let verifiedLibrary { close(verifiedLibrary) }
    }


    private func start() throws(RuntimeError) {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard Subprocess.makePipe(&toChild), Subprocess.makePipe(&fromChild) else {
            throw RuntimeError(status: .io, message: "plugin '\(alias)': cannot create pipes for its runner")
        }
        // Descriptors for the files service travel on their own socket, fd 5 in the runner (Wire.swift).
        // Its standard error (and output) is a socket the host reads (StandardErrorRelay.swift).
        guard let (hostEnd, runnerEnd) = Descriptor.socketPair() else {
            for fd in toChild + fromChild { close(fd) }
            throw RuntimeError(status: .io, message: "plugin '\(alias)': cannot create the descriptor socket for its runner (\(String(cString: strerror(errno))))")
        }
        guard let (errorsHostEnd, errorsRunnerEnd) = Descriptor.socketPair() else {
            for fd in toChild + fromChild + [hostEnd, runnerEnd] { close(fd) }
            throw RuntimeError(status: .io, message: "plugin '\(alias)': cannot create the standard error socket for its runner (\(String(cString: strerror(errno))))")
        }
        shutdown(hostEnd, Int32(SHUT_RD))
        shutdown(errorsHostEnd, Int32(SHUT_WR))
        shutdown(errorsRunnerEnd, Int32(SHUT_RD))
        func closeAll() { for fd in toChild + fromChild + [hostEnd, runnerEnd, errorsHostEnd, errorsRunnerEnd] { close(fd) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // Exactly the protocol's descriptors (RunnerProcess): 0 /dev/null, 1 and 2 standard error,
        // 3 and 4 the frame pipes, 5 the descriptor socket, 6 the checked library; every other
        // descriptor is closed in the child before exec (CloseOnExec.swift says why there).
        var moves: [(source: Int32, target: Int32)] = [(errorsRunnerEnd, 1), (errorsRunnerEnd, 2), (toChild[0], RunnerDescriptors.input), (fromChild[1], RunnerDescriptors.output), (runnerEnd, RunnerDescriptors.descriptors)]
        if let verifiedLibrary { moves.append((verifiedLibrary, RunnerDescriptors.verifiedLibrary)) }
        guard let copies = Descriptor.placeInChild(&actions, moves) else {
            closeAll()
            throw RuntimeError(status: .io, message: "plugin '\(alias)': cannot pass its descriptors to its runner (\(String(cString: strerror(errno))))")
        }
        defer { copies.forEach { close($0) } }
        guard Descriptor.closeInChild(&actions, from: RunnerDescriptors.verifiedLibrary + (verifiedLibrary == nil ? 0 : 1)) else {
            closeAll()
            throw RuntimeError(status: .io, message: "plugin '\(alias)': cannot start its runner: \(Descriptor.closeInChildUnavailable)")
        }
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
        if verifiedLibrary != nil { words += ["--verified", "\(RunnerDescriptors.verifiedLibrary)"] }
        if let sandboxPorts { words += ["--sandbox", sandboxPorts.isEmpty ? "-" : sandboxPorts.map(String.init).joined(separator: ",")] }
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // An allow-list of the host's environment, never its secrets (ChildEnvironment; SECURITY.md).
        var env = ChildEnvironment.pointers(adding: ["SWIFT_BACKTRACE": "enable=no"])
        defer { env.forEach { free($0) } }
        var child: pid_t = 0
        var a = argv
        let rc = posix_spawn(&child, executable, &actions, &attributes, &a, &env)
        close(toChild[0])
        close(fromChild[1])
        close(runnerEnd)
        close(errorsRunnerEnd)
        guard rc == 0 else {
            close(toChild[1])
            close(fromChild[0])
            close(hostEnd)
            close(errorsHostEnd)
            throw RuntimeError(status: .io, message: "plugin '\(alias)': cannot start its runner: \(String(cString: strerror(rc)))")
        }
        generations.add(1, ordering: .sequentiallyConsistent)
        pid = child
        crashLoop.started(at: Subprocess.monotonicMilliseconds())
        standardErrorSource = standardError.attach(fd: errorsHostEnd, alias: alias)
        let caps = ServiceLimits(limits)
        let wire = WireChannel(input: fromChild[0], output: toChild[1], caps: { WireCaps.host($0, limits: caps) },
                               descriptorSocket: hostEnd)
        // Nothing the host writes to a runner waits longer than the plugin's silence bound: a runner
        // that stops reading its pipe is stopped (issue 27's attack round: the wire deadlock).
        wire.boundSends(timeoutMilliseconds: Int32(clamping: timeoutMilliseconds))
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
        guard let hello = try? HelloMessage.decode(payload) else {
            throw RuntimeError(status: .pluginFailed, message: "plugin '\(alias)': malformed hello from its runner")
        }
        let (status, text) = (hello.status, hello.text)
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
        side.open(over: wire, commands: info.threadSafe ? SideLane.concurrentCommands(in: catalogue) : [], alias: alias,
                  timeoutMilliseconds: timeoutMilliseconds, wallMilliseconds: limits.wallMilliseconds, limits: caps)
    }

    /// Waits for the runner to exit (killing it if it lingers) and describes how it ended.
    private func reap(after reason: String) -> String {
        side.close()
        channel?.close()
        channel = nil
        guard pid > 0 else { return reason }
        // Before the runner is reaped: whoever finds it reaped (`generation`) reads the new generation.
        generations.add(1, ordering: .sequentiallyConsistent)
        var status: Int32 = 0
        if let exited = exitStatus {
            status = exited
        } else {
            func waited(_ attempts: Int) -> Bool {
                for _ in 0..<attempts {
                    if waitpid(pid, &status, WNOHANG) != 0 { return true }
                    usleep(2000)
                }
                return false
            }
            // The process the host started is a `process` runner's keeper (Runner/Keeper.swift): it ends once its
            // runner has ended and it has killed what the plugin forked. Still there after 200 ms: the runner's
            // group is killed, and the keeper has 2 s for its sweep before it is killed too.
            if !waited(100) {
                kill(-pid, SIGKILL)
                if !waited(1000) {
                    kill(pid, SIGKILL)
                    waitpid(pid, &status, 0)
                }
            }
        }
        // Whatever the plugin forked in the runner's group goes with it (the keeper killed the rest).
        kill(-pid, SIGKILL)
        // What it wrote to its standard error before it ended reaches the host's.
        if let source = standardErrorSource { standardError.finish(source) }
        standardErrorSource = nil
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

    /// The runner's generation, for the reply cache (SiteRuntime.replyStamp): it changes at every start and every end
    /// of a runner the host notices, and from the moment a runner has died and is not yet reaped (killed while idle —
    /// `kill -9`, the OOM killer — when no call has noticed yet), so a reply the old runner made from its memory is
    /// never answered for the new one (the sixth outside attack). Read without `lock` (a call may hold it for long)
    /// and without reaping: `waitid(WNOWAIT)` only looks.
    var generation: Int {
        let group = runnerGroup.load(ordering: .sequentiallyConsistent)
        var dead = false
        if group > 0 {
            var info = siginfo_t()
            dead = waitid(P_PID, id_t(group), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_signo != 0
        }
        return 2 * generations.load(ordering: .sequentiallyConsistent) + (dead ? 1 : 0)
    }

    /// Kills the runner's process group now, without waiting for a call in progress (the host is
    /// about to `_exit`: a runner must not outlive it).
    func killNow() {
        let group = runnerGroup.load(ordering: .relaxed)
        if group > 0 { kill(-group, SIGKILL) }
    }

    /// Kills the runner's whole process group (the runner and whatever the plugin forked in it). Not the process
    /// the host started when that is a `process` runner's keeper, which has left the group: it ends by itself once
    /// it has killed whatever else the plugin forked (Runner/Keeper.swift), and `reap` kills it if it lingers.
    private func killGroup() {
        guard pid > 0 else { return }
        kill(-pid, SIGKILL)
    }

    /// Stops the runner (used at shutdown and after a failure).
    func stop() {
        guard pid > 0 else { return }
        killGroup()
        _ = reap(after: "stopped")
        _ = statements.removeAll()
        for device in devices.removeAll() { device.close(reason: "its runner was stopped") }
    }

    // MARK: calls

    func create(instance: PluginInstance) throws(RuntimeError) {
        lock.lock()
        defer { lock.unlock() }
        if channel == nil { try restart(call: nil) }
        try createLocked(instance: instance)
    }

    /// Starts a new runner after one ended. When runners keep ending soon after they start, waits
    /// first for the crash loop's pause (at most `restart_backoff_ms`; a cancel of the call ends the
    /// wait), so a plugin crashing in a loop cannot spend the host's cores on restarts.
    private func restart(call: CallContext?) throws(RuntimeError) {
        let until = crashLoop.restartAllowed(maximum: limits.restartBackoffMilliseconds)
        while true {
            let now = Subprocess.monotonicMilliseconds()
            guard now < until else { break }
            if let call, call.isCancelled {
                throw RuntimeError(status: .cancelled,
                                   message: "cancelled while plugin '\(alias)' waited \(until - now) ms more to restart after \(crashLoop.summary)")
            }
            usleep(useconds_t(min(20, until - now) * 1000))
        }
        do {
            try start()
        } catch {
            // A runner that does not even say hello is the shortest crash of all.
            crashLoop.ended(at: Subprocess.monotonicMilliseconds(), cause: "did not start", maximum: limits.restartBackoffMilliseconds)
            throw error
        }
    }

    private func createLocked(instance: PluginInstance) throws(RuntimeError) {
        let granted = SiteRuntime.offeredServices.filter { instance.refusal(for: $0) == nil }
        let settings: JSONValue = [
            "site": .string(instance.siteName), "alias": .string(alias), "hostVersion": .string(ClubhouseVersion.string),
            "config": instance.entry.config, "services": .array(granted.map { .string($0) }),
            "logThreshold": .int(Int(instance.runtime.log.threshold)), "limits": instance.limits.json,
        ]
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: alias)
        let (status, reply) = exchange(.create, CreateMessage(settings: JSONWriter.compact(settings)).encode(), instance: instance,
                                       call: call, what: "create")
        guard status == Int32(CLUBHOUSE_OK) else {
            let message = String(decoding: reply, as: UTF8.self)
            throw RuntimeError(status: Status(code: status), message: "plugin '\(alias)' (\(info.id)) could not start: \(message)")
        }
        needsCreate = false
        side.created()
    }

    func invoke(instance: PluginInstance, command: String, request: [UInt8], call: CallContext) -> (Int32, [UInt8]) {
        // A concurrent command runs on the runner's second lane at once, beside the call in progress.
        if let answer = side.invoke(instance: instance, command: command, request: request, call: call,
                                    stopRunner: { stoppedBeside.store(true, ordering: .relaxed); killNow() }) {
            return answer
        }
        return lock.withLock {
            if stoppedBeside.load(ordering: .relaxed), stoppedBeside.exchange(false, ordering: .relaxed), channel != nil {
                killGroup()
                forget(instance: instance, cause: reap(after: "stopped from its second lane"))
            }
            if channel == nil || needsCreate {
                do {
                    if channel == nil { try restart(call: call) }
                    try createLocked(instance: instance)
                } catch let error as RuntimeError {
                    return (error.status.rawValue, Array(error.message.utf8))
                } catch {
                    return (Status.error.rawValue, Array("\(error)".utf8))
                }
            }
            // A runner that died while idle (`kill -9`, the OOM killer) is started again for this call instead of
            // failing it with a crash it had no part in: the exchange finds it dead before it read the call (its
            // pipe closed, or — a child it forked holding the pipe — its process gone with the call unread) and
            // sends the call to a new runner, once. (It asked `waitpid` before every call: 0.3 µs a round trip.)
            let message = InvokeMessage(call: call.id, flags: call.flags, command: command, request: request)
            return exchange(.invoke, message.encode(), instance: instance, call: call, what: "'\(command)'", restartsIdleRunner: true)
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

    /// What a runner that ended leaves behind (its statements, devices, open transaction; the instance is
    /// created again on the next call); the pause before the next start (CrashLoop).
    @discardableResult
    private func forget(instance: PluginInstance, cause: String) -> Int {
        needsCreate = true
        for statement in statements.removeAll() { statement.finalize() }
        // A device the runner left running is stopped by the host (DeviceSafety.swift).
        for device in devices.removeAll() { device.close(reason: "its runner \(cause)") }
        instance.abandonTransactions()
        return crashLoop.ended(at: Subprocess.monotonicMilliseconds(), cause: cause, maximum: limits.restartBackoffMilliseconds)
    }

    /// Whether none of the last `count` bytes written to the runner's pipe was read: all still in the pipe.
    private func unread(_ count: Int) -> Bool {
        guard let wire = channel else { return false }
        var waiting: Int32 = 0
        return ioctl(wire.output, UInt(FIONREAD), &waiting) == 0 && Int(waiting) >= count
    }

    /// Sends one command and serves the runner's service calls until its result arrives.
    /// `restartsIdleRunner`: a runner found dead before it read the command (it ended while idle) is
    /// started again, its instance created, and the command sent to it (once).
    private func exchange(_ kind: WireKind, _ payload: [UInt8], instance: PluginInstance, call: CallContext, what: String,
                          quietFailure: Bool = false, restartsIdleRunner: Bool = false) -> (Int32, [UInt8]) {
        func failure(_ cause: String) -> (Int32, [UInt8]) {
            let pause = forget(instance: instance, cause: cause)
            call.progress.end()
            let when = pause > 0
                ? "on the next call, \(pause) ms from now at the earliest (its runner ended \(crashLoop.count) times in a row soon after starting; a crash loop's restarts wait, doubling up to \"limits\": {\"restart_backoff_ms\": \(limits.restartBackoffMilliseconds)})"
                : "on the next call"
            let message = "plugin '\(alias)' \(cause) during \(what); the host keeps running and restarts the plugin \(when)"
            if !quietFailure { instance.runtime.log.info(message) }
            return (Status.pluginFailed.rawValue, Array(message.utf8))
        }
        /// A well-framed message that breaks the protocol: the runner is stopped, the call fails.
        func violation(_ what: String) -> (Int32, [UInt8]) {
            killGroup()
            _ = reap(after: "protocol violation")
            return failure("broke the wire protocol (\(what)) and was stopped")
        }
        /// A send that failed: a runner that stopped reading is stopped (it would hold the call, and the
        /// host's thread, for ever); a closed pipe means it is gone.
        func sendFailed(_ error: WireError) -> (Int32, [UInt8]) {
            guard error.isStalled else { return failure(reap(after: error.description)) }
            killGroup()
            _ = reap(after: "stalled")
            return failure("\(error.description) (a runner must read each answer before it sends more) and was stopped")
        }
        /// The runner ended while idle, before it read the command: it is started again and gets the command.
        func startedAgain() -> (Int32, [UInt8]) {
            let cause = reap(after: "ended while idle")
            instance.runtime.log.warning("plugin '\(alias)' \(cause) while idle; the host starts it again for the next call")
            forget(instance: instance, cause: cause)
            do {
                try restart(call: call)
                try createLocked(instance: instance)
            } catch {
                return (error.status.rawValue, Array(error.message.utf8))
            }
            return exchange(kind, payload, instance: instance, call: call, what: what, quietFailure: quietFailure)
        }
        guard let wire = channel else { return failure("is not running") }
        do {
            try wire.send(kind, payload)
        } catch {
            // Its end of the pipe closed (or, a child it forked holding it, full), the runner gone: it ended
            // while idle, and nothing of this command reached it.
            if restartsIdleRunner && (!error.isStalled || runnerExited()) { return startedAgain() }
            return sendFailed(error)
        }
        // One reading of the clock a turn of this loop (CallContext.ClockReading): the wall, the cancel, the
        // silence bound and the wait all ask it.
        var now = CallContext.monotonicNanoseconds()
        func milliseconds(_ nanoseconds: UInt64) -> Int64 { Int64(nanoseconds / 1_000_000) }
        var cancelSent = false
        /// Whether the runner sent anything in this exchange (it read the command, then).
        var heardAny = false
        let started = milliseconds(now)
        var deadline = CallDeadline(wallMilliseconds: limits.wallMilliseconds, startedAt: started, graceAfterAnyCancel: false)
        var lastHeard = started
        call.heard(budgetMilliseconds: timeoutMilliseconds, now: now)
        // The statements the host runs for this call stop at the wall plus the grace even while this
        // loop waits on one of them (issue 27).
        call.limitWall(milliseconds: limits.wallMilliseconds, now: now)
        while true {
            var clock = CallContext.ClockReading(now)
            // A cancel goes out as soon as the call is cancelled, however busy the plugin keeps the pipe.
            // From then on its storage calls get the grace for cleaning up (CallContext).
            if !cancelSent && call.isCancelled(&clock) {
                do {
                    try wire.send(.cancel, CancelMessage(call: call.id).encode())
                } catch let error where error.isStalled {
                    return sendFailed(error)
                } catch {}
                cancelSent = true
                call.noteCancelSeen()
            }
            let nowMilliseconds = milliseconds(now)
            // At the wall-clock limit the call is cancelled first, so the plugin can leave its devices
            // safe and store what it did; it is stopped when it has not returned after the grace for
            // cleaning up (CallDeadline).
            switch deadline.advance(now: nowMilliseconds, cancelled: cancelSent) {
            case .wallReached:
                call.cancel(byDeadline: true)
                continue
            case .stop:
                killGroup()
                _ = reap(after: "wall-clock limit")
                return failure("ran past its wall-clock limit of \(limits.wallMilliseconds) ms and was stopped")
            case nil:
                break
            }
            // A call nested in another plugin's call (clubhouse.invoke) waits no longer than the outer
            // call may: past its grace (the caller's wall-clock limit and grace, or a cancel it saw and
            // the grace) the runner is stopped and the caller gets the stop (ServiceGate.swift; n02).
            if call.isNested, let (status, why) = call.pastGrace(&clock) {
                killGroup()
                _ = reap(after: "its caller's deadline")
                let (_, message) = failure("was stopped: \(why) (it ran for another plugin's call, which waits no longer)")
                return (status, message)
            }
            let message: (WireKind, [UInt8])?
            do {
                // 20 ms: a cancel (Ctrl-C) reaches a quiet runner within that (a ball machine's
                // stop must follow a Ctrl-C within 200 ms: DrillStopEndToEndTests).
                message = try wire.receive(timeoutMilliseconds: Int32(clamping: min(cancelSent ? 100 : 20, deadline.untilNext(nowMilliseconds))),
                                           now: nowMilliseconds)
            } catch {
                if error.isViolation {
                    return violation(error.description)
                }
                if error.isGarbage {
                    killGroup()
                    _ = reap(after: "garbage")
                    return failure("sent garbage on its pipe (\(error)) and was stopped")
                }
                // Its pipe closed before it read the command (a child it forked holds the other one): it
                // ended while idle.
                if restartsIdleRunner && !heardAny && !cancelSent && unread(payload.count + 5) { return startedAgain() }
                return failure(reap(after: error.description))
            }
            guard let (k, body) = message else {
                now = CallContext.monotonicNanoseconds()
                // The runner may be gone while a child it forked keeps the pipes open: while idle when the
                // command is still unread in its pipe.
                if runnerExited() {
                    if restartsIdleRunner && !heardAny && !cancelSent && unread(payload.count + 5) { return startedAgain() }
                    return failure(reap(after: "its process ended"))
                }
                if milliseconds(now) - lastHeard >= Int64(timeoutMilliseconds) {
                    killGroup()
                    _ = reap(after: "timeout")
                    return failure("did not answer within \(timeoutMilliseconds) ms (a hang?) and was stopped")
                }
                continue
            }
            heardAny = true
            if k == .result {
                // The call is over: no silence bound to renew, no clock to read.
                guard let result = try? ResultMessage.decode(body) else { return violation("a truncated result") }
                if deadline.pastWall && result.status != Int32(CLUBHOUSE_OK) {
                    let said = String(decoding: result.reply, as: UTF8.self)
                    return (Status.timeout.rawValue,
                            Array("plugin '\(alias)' ran past its wall-clock limit of \(limits.wallMilliseconds) ms and was asked to stop: \(said)".utf8))
                }
                return (result.status, result.reply)
            }
            now = CallContext.monotonicNanoseconds()
            lastHeard = milliseconds(now)
            call.heard(budgetMilliseconds: timeoutMilliseconds, now: now)
            switch k {
            case .serviceCall:
                var r = WireReader(body)
                guard let header = try? ServiceCallHeader.decode(&r) else { return violation("a truncated service call") }
                guard let operation = WireOperation(rawValue: header.operation) else {
                    return violation("a service call with unknown operation \(header.operation)")
                }
                let (status, reply, descriptor) = serve(operation, &r, instance: instance, call: call)
                let served = milliseconds(CallContext.monotonicNanoseconds())
                deadline.noteServed(now: served)
                let frame = ServiceReply(seq: header.seq, status: status, payload: reply).encode()
                // Within the wall-clock limit too: a stalled send must not outlast it.
                let bound = Int32(clamping: deadline.untilNext(served))
                do {
                    if descriptor >= 0 {
                        // The runner gets its own copy; the host's goes at once.
                        defer { close(descriptor) }
                        try wire.send(.replyWithDescriptor, frame, passing: descriptor, timeoutMilliseconds: bound)
                    } else {
                        try wire.send(.reply, frame, timeoutMilliseconds: bound)
                    }
                } catch { return sendFailed(error) }
                // The time the host spent serving (a statement may run up to `timeoutMilliseconds`, then
                // be interrupted) was not the runner's silence: its bound starts again with the answer.
                // Counting it left a runner 20 ms to answer an interrupted statement, and a loaded
                // machine made that "did not answer within … ms (a hang?)" and a killed runner.
                now = CallContext.monotonicNanoseconds()
                lastHeard = milliseconds(now)
            case .log:
                instance.runtime.log.serve(log: body, source: alias, limits: instance.limits)
            case .progress:
                ProgressBroker.serve(progress: body, call: call, limits: instance.limits)
            case .finalize:
                StorageBroker.serveFinalize(body, statements: &statements)
            case .resetStatement:
                StorageBroker.serveReset(body, statements: statements)
            case .deviceClose:
                DeviceBroker.serveClose(body, devices: &devices)
            default:
                return violation("an unexpected '\(k)' message")
            }
        }
    }

    // MARK: service calls: each broker's wire face over the broker's one implementation

    private func serve(_ operation: WireOperation, _ r: inout WireReader, instance: PluginInstance, call: CallContext)
        -> (Int32, [UInt8], Int32)
    {
        do {
            switch operation {
            case .exec, .prepare, .step, .begin, .commit, .rollback, .migrate:
                let service = StorageService(instance: instance)
                do {
                    guard let request = try StorageRequest.decode(operation, &r) else { return (Int32(CLUBHOUSE_INVALID_ARGUMENT), [], -1) }
                    let (status, bytes) = StorageBroker.serve(request, service: service, statements: &statements)
                    return (status, bytes, -1)
                } catch {
                    let (status, bytes) = StorageBroker.malformed(error, service: service)
                    return (status, bytes, -1)
                }
            case .invoke:
                let (status, bytes) = InvokeBroker.serve(try InvokeRequest.decode(&r), instance: instance, call: call)
                return (status, bytes, -1)
            case .deviceOpen, .deviceWrite, .deviceRead, .deviceSafeState:
                guard let request = try DeviceRequest.decode(operation, &r) else { return (Int32(CLUBHOUSE_INVALID_ARGUMENT), [], -1) }
                let (status, bytes) = instance.runtime.devices.serve(request, entry: instance.entry, limits: instance.limits,
                                                                       devices: &devices)
                return (status, bytes, -1)
            case .fileOpen:
                return FilesBroker.serve(try FileOpenRequest.decode(&r), call: call)
            case .publish:
                let (status, bytes) = EventsBroker.serve(try EventPublishRequest.decode(&r), instance: instance)
                return (status, bytes, -1)
            case .record:
                let (status, bytes) = PublishBroker.serve(try RecordPublishRequest.decode(&r), instance: instance, call: call)
                return (status, bytes, -1)
            }
        } catch {
            // Every reply starts with a message the runner reads first.
            var w = WireWriter()
            w.str("malformed service call: \(error)")
            return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes, -1)
        }
    }
}
