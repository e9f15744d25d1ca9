// A runner's second lane (WireKind.sideLane): a socket on which the runner serves the plugin's
// concurrent commands (entry.h "concurrent", ABI 1.6) on a thread of its own, beside the call in
// progress on the pipes. A plugin in a runner otherwise takes one call at a time, so a Stop for a
// drill another client started waited for the drill to end while the ball machine kept firing; in
// process the same thread-safe plugin ran it at once. With the lane both behave alike
// (SideLaneEndToEndTests, TennisIsolatedStopEndToEndTests).
//
// Opened by the host when a runner of a thread-safe plugin whose catalogue declares a concurrent
// command says hello (the socket's runner end travels on the descriptor socket, as a file does), and
// closed with the runner. A concurrent command may use log, progress and events; its other service
// calls are answered `unsupported` (storage, devices, files, invoke and the outbox belong to the call
// on the pipes, whose statements, devices, transactions and deadlines the host keeps per runner — and
// the host's end of such a call leaves them alone: PluginInstance.invoke). One concurrent command at a
// time; a silence past the plugin's `timeout_ms` stops the runner as on the pipes.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: every field but the atomic `opened` is guarded by `lock` (taken after IsolatedPlugin.lock when both
/// are held, never before it), which is held only briefly: never across a call, so a concurrent command
/// that hangs holds up neither the plugin's calls on the pipes (which ask here whether they are for the
/// lane) nor the runner's restart (`close`).
final class SideLane: @unchecked Sendable {
    private let lock = Lock()
    private var channel: WireChannel?
    private var commands: Set<String> = []
    private var alias = ""
    private var timeoutMilliseconds = 60_000
    /// The plugin's `limits.wall_ms`: a concurrent command that runs this long in all (however chatty) is
    /// cancelled, then stopped after the cleanup grace, as a call on the pipes is.
    private var wallMilliseconds = 3_600_000
    /// A concurrent command is on the lane: its caller owns the channel until it ends (`finish`), and
    /// closes it then if the lane was closed or replaced meanwhile.
    private var busy = false
    /// The runner created the plugin's instance (`created`): a concurrent command sent before that would
    /// find no instance in the runner (the lane opens at hello, create follows on the pipes).
    private var live = false
    /// Whether a lane is open (`channel` is set), readable without `lock`: a call of a plugin with no lane (most
    /// of them) goes to the pipes after one atomic load, not a lock (issue 27's isolated round trip).
    private let opened = Atomic<Bool>(false)

    /// The commands of `catalogue` declared "concurrent".
    static func concurrentCommands(in catalogue: [UInt8]) -> Set<String> {
        guard let root = try? JSONParser.parse(bytes: catalogue) else { return [] }
        return Set((root["commands"]?.arrayValue ?? []).compactMap { command in
            command["concurrent"]?.boolValue == true ? command["name"]?.stringValue : nil
        })
    }

    /// Opens the lane to a runner that just said hello (nothing when `commands` is empty, or when the
    /// socket cannot be made: the commands then run on the pipes, after the call in progress).
    func open(over wire: WireChannel, commands: Set<String>, alias: String, timeoutMilliseconds: Int, wallMilliseconds: Int,
              limits: ServiceLimits) {
        close()
        guard !commands.isEmpty, let (hostEnd, runnerEnd) = Descriptor.socketPair() else { return }
        defer { Glibc.close(runnerEnd) }
        do {
            try wire.send(.sideLane, [], passing: runnerEnd)
        } catch {
            Glibc.close(hostEnd)
            return
        }
        // One descriptor both ways (a socket), closed once by WireChannel.close.
        let lane = WireChannel(input: hostEnd, output: hostEnd, caps: { WireCaps.host($0, limits: limits) })
        lane.boundSends(timeoutMilliseconds: Int32(clamping: timeoutMilliseconds))
        lock.withLock {
            channel = lane
            opened.store(true, ordering: .releasing)
            live = false
            self.commands = commands
            self.alias = alias
            self.timeoutMilliseconds = timeoutMilliseconds
            self.wallMilliseconds = wallMilliseconds
        }
    }

    /// The runner created the instance: concurrent commands may go on the lane from now on.
    func created() { lock.withLock { live = true } }

    /// Closes the lane (the runner ended or is being stopped) without waiting for a concurrent command
    /// on it: its socket is shut down, so that call ends at once and closes it.
    func close() {
        lock.withLock {
            guard let open = channel else { return }
            channel = nil
            opened.store(false, ordering: .releasing)
            if busy {
                _ = Glibc.shutdown(open.input, Int32(SHUT_RDWR))
            } else {
                open.close()
            }
        }
    }

    /// Runs `command` on the lane when it is a concurrent command and the lane is open; nil otherwise
    /// (the call then goes to the pipes). One concurrent command at a time (the runner serves them one by
    /// one): another waits for its turn until its call is cancelled (serve queues them in a lane of
    /// their own without a thread: PluginLanes). `stopRunner` kills the runner (a lane that broke the
    /// protocol or fell silent).
    func invoke(instance: PluginInstance, command: String, request: [UInt8], call: CallContext,
                stopRunner: () -> Void) -> (Int32, [UInt8])? {
        // No lane: the pipes. (A lane opening meanwhile is not live before the instance is created, which
        // this call would wait for on the pipes anyway; one closing is found closed under the lock.)
        guard opened.load(ordering: .acquiring) else { return nil }
        var taken: (lane: WireChannel, alias: String, timeoutMilliseconds: Int, wallMilliseconds: Int)?
        while taken == nil {
            enum Turn { case notHere, wait, taken(WireChannel, String, Int, Int) }
            let turn = lock.withLock { () -> Turn in
                guard let open = channel, live, commands.contains(command) else { return .notHere }
                if busy { return .wait }
                busy = true
                return .taken(open, alias, timeoutMilliseconds, wallMilliseconds)
            }
            switch turn {
            case .notHere:
                return nil
            case .wait:
                if call.isCancelled {
                    call.progress.end()
                    let alias = lock.withLock { self.alias }
                    return (Status.cancelled.rawValue, Array("cancelled while waiting for plugin '\(alias)' to finish another call".utf8))
                }
                usleep(5_000)
            case .taken(let lane, let alias, let timeout, let wall):
                taken = (lane, alias, timeout, wall)
            }
        }
        guard let (lane, alias, timeoutMilliseconds, wallMilliseconds) = taken else { return nil }
        defer {
            lock.withLock {
                busy = false
                if channel !== lane { lane.close() }
            }
        }
        func failure(_ cause: String) -> (Int32, [UInt8]) {
            lock.withLock { if channel === lane { channel = nil } }
            call.progress.end()
            let message = "plugin '\(alias)' \(cause) during '\(command)'; the host keeps running and restarts the plugin on the next call"
            instance.runtime.log.info(message)
            return (Status.pluginFailed.rawValue, Array(message.utf8))
        }
        do throws(WireError) {
            try lane.send(.invoke, InvokeMessage(call: call.id, flags: call.flags, command: command, request: request).encode())
        } catch {
            stopRunner()
            return failure("stopped answering its second lane (\(error.description)) and was stopped")
        }
        var cancelSent = false
        var lastHeard = Subprocess.monotonicMilliseconds()
        // Bounds beside the silence bound (fifth outside attack, a05: a concurrent command that kept sending
        // progress and ignored its cancel ran on for minutes): at `wall_ms` it is cancelled; once cancelled —
        // by the wall or by its caller — it has the cleanup grace to end, then the runner is stopped (CallDeadline).
        var deadline = CallDeadline(wallMilliseconds: wallMilliseconds, startedAt: lastHeard, graceAfterAnyCancel: true)
        call.heard(budgetMilliseconds: timeoutMilliseconds)
        while true {
            let event = deadline.advance(now: Subprocess.monotonicMilliseconds(), cancelled: call.isCancelled)
            if !cancelSent && (call.isCancelled || deadline.pastWall) {
                try? lane.send(.cancel, CancelMessage(call: call.id).encode())
                cancelSent = true
                call.noteCancelSeen()
            }
            if event == .stop {
                stopRunner()
                let why = deadline.pastWall ? "ran past its wall-clock limit of \(wallMilliseconds) ms (limits.wall_ms)" : "was cancelled"
                return failure("\(why) and did not end within \(CallContext.cleanupGraceMilliseconds / 1000) s of its cancel, so it was stopped")
            }
            let message: (WireKind, [UInt8])?
            do throws(WireError) {
                message = try lane.receive(timeoutMilliseconds: 20)
            } catch {
                if error.isViolation || error.isGarbage {
                    stopRunner()
                    return failure("sent garbage on its second lane (\(error.description)) and was stopped")
                }
                // The runner ended (a crash, an abort): the next call starts a new one instead of failing on the
                // dead pipes (fifth outside attack, a04: another client's call failed with this crash).
                stopRunner()
                return failure("ended (\(error.description))")
            }
            guard let (kind, body) = message else {
                if Subprocess.monotonicMilliseconds() - lastHeard >= Int64(timeoutMilliseconds) {
                    stopRunner()
                    return failure("did not answer within \(timeoutMilliseconds) ms (a hang?) and was stopped")
                }
                continue
            }
            lastHeard = Subprocess.monotonicMilliseconds()
            call.heard(budgetMilliseconds: timeoutMilliseconds)
            switch kind {
            case .result:
                guard let result = try? ResultMessage.decode(body) else {
                    stopRunner()
                    return failure("broke the wire protocol (a truncated result) and was stopped")
                }
                return (result.status, result.reply)
            case .serviceCall:
                var r = WireReader(body)
                guard let header = try? ServiceCallHeader.decode(&r) else {
                    stopRunner()
                    return failure("broke the wire protocol (a truncated service call) and was stopped")
                }
                let (status, payload) = serve(header.operation, &r, instance: instance, alias: alias, command: command)
                do throws(WireError) {
                    try lane.send(.reply, ServiceReply(seq: header.seq, status: status, payload: payload).encode())
                } catch {
                    stopRunner()
                    return failure("stopped reading its second lane (\(error.description)) and was stopped")
                }
            case .log:
                instance.runtime.log.serve(log: body, source: alias, limits: instance.limits)
            case .progress:
                ProgressBroker.serve(progress: body, call: call, limits: instance.limits)
            default:
                stopRunner()
                return failure("broke the wire protocol (an unexpected '\(kind)' message on its second lane) and was stopped")
            }
        }
    }

    /// A concurrent command's service call: events are served; the rest belong to the call on the pipes.
    private func serve(_ operation: UInt8, _ r: inout WireReader, instance: PluginInstance, alias: String, command: String) -> (Int32, [UInt8]) {
        if WireOperation(rawValue: operation) == .publish, let request = try? EventPublishRequest.decode(&r) {
            return EventsBroker.serve(request, instance: instance)
        }
        // Every reply starts with its message; storage's then has the last rowid and changes (none).
        var w = WireWriter()
        StorageReplyTail(message: "plugin '\(alias)': '\(command)' runs beside another call (\"concurrent\" in its catalogue), and in a runner such a command may use only the log, config, progress and events services",
                         lastInsertRowID: 0, changes: 0).encode(into: &w)
        return (Int32(CLUBHOUSE_UNSUPPORTED), w.bytes)
    }
}
