// Running a session: manual (one target now) or interactive (launches from detections), against a
// ball machine link or dry (frames only). Always ends with a stop command.

/// What a session does and with which settings.
public struct SessionSettings: Sendable, Equatable, Codable {
    public enum Mode: String, Sendable, Codable { case manual, interactive, drill }

    public var mode: Mode
    public var speed: BallSpeed
    public var spin: Spin
    public var interval: Double
    public var checksum: Checksum
    public var table: String
    public var camera: String?
    public var device: String?
    public var dryRun: Bool
    public var policy: ExchangePolicy
    /// Drill mode: the drill's name and content hash (speed and spin above are its first ball's).
    public var drill: String? = nil
    public var drillHash: String? = nil

    public init(mode: Mode, speed: BallSpeed, spin: Spin, interval: Double = LaunchPlanner.defaultInterval,
                checksum: Checksum = .xor, table: String = "default", camera: String? = nil, device: String? = nil,
                dryRun: Bool = false, policy: ExchangePolicy = ExchangePolicy())
    {
        self.mode = mode
        self.speed = speed
        self.spin = spin
        self.interval = interval
        self.checksum = checksum
        self.table = table
        self.camera = camera
        self.device = device
        self.dryRun = dryRun
        self.policy = policy
    }
}

/// One launch: what was decided and what happened.
public struct LaunchRecord: Sendable, Equatable, Codable {
    public var decision: LaunchDecision
    /// Where the ball was aimed: the average position (interactive) or the given point / zone centre (manual).
    public var target: Point2D?
    public var frame: String?
    public var outcome: ExchangeOutcome?
    public var attempts: Int?
    public var replyLatency: Double?
    public var completionLatency: Double?
    public var invalidReplies: Int?
    /// The speed and spin of the command (a drill's balls each have their own); nil in logs
    /// stored before they were recorded.
    public var speed: BallSpeed?
    public var spin: Spin?
}

/// Counts and latencies of a session.
public struct SessionSummary: Sendable, Equatable, Codable {
    public var detections = 0
    public var rejectedDetections = 0
    public var launches = 0
    public var sent = 0
    public var completed = 0
    public var accepted = 0
    public var rejected = 0
    public var timedOut = 0
    public var skipped = 0
    public var invalidReplies = 0
    public var stopSent = false
    public var stopOutcome: ExchangeOutcome?
    /// How the stop went when not plainly: sent after reconnecting, or sent by the host.
    public var stopNote: String?
    /// Command write → first valid reply, in milliseconds.
    public var medianLatencyMs: Double?
    public var maxLatencyMs: Double?
    /// Launches sent per zone (16 counts).
    public var zoneCounts = [Int](repeating: 0, count: 16)
    public var aborted: String?

    public init() {}
}

/// Everything a session did, as stored and shown.
public struct SessionLog: Sendable, Equatable, Codable {
    public var settings: SessionSettings
    public var events: [SessionEvent]
    public var launches: [LaunchRecord]
    public var positions: [TimedPosition]
    public var summary: SessionSummary

    /// The frames written, in order (hex), including retries and the final stop.
    public var framesSent: [String] {
        events.filter { $0.kind == .command || $0.kind == .stop || $0.kind == .dryRun }.compactMap(\.bytes)
    }
}

public enum SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    case machineNotAnswering(failures: Int)
    case commandFailed(ExchangeOutcome, attempts: Int, invalidReplies: Int)
    case finished

    public var description: String {
        switch self {
        case .machineNotAnswering(let n):
            return "the ball machine failed \(n) commands in a row; session stopped. Check the device and its checksum setting"
        case .commandFailed(let outcome, let attempts, let invalid):
            if invalid > 0 && outcome != .rejected {
                return "the ball machine answered, but \(invalid) repl\(invalid == 1 ? "y" : "ies") had a check byte that does not match (\(attempts) attempt(s)); check the checksum setting (xor or modbus) for this device"
            }
            switch outcome {
            case .rejected: return "the ball machine rejected the command (\(attempts) attempt(s)); check the checksum setting (xor or modbus) for this device"
            case .timedOut: return "the ball machine did not answer within the reply timeout (\(attempts) attempt(s)); check the device connection"
            case .completionTimedOut: return "the ball machine accepted the command but did not report it completed in time"
            default: return "the command ended \(outcome.rawValue)"
            }
        case .finished:
            return "the session has already finished"
        }
    }
}

/// Stores a session while it runs, so that what the machine did is kept even when the plugin never
/// gets to its end (its process killed, the host gone). The end stores the whole log again.
public protocol SessionJournal: AnyObject {
    /// Before anything is sent (never for a dry run).
    func begin(_ settings: SessionSettings) throws
    /// The events recorded since the last call, and the counts: after each launch (its command
    /// and replies) — never between a stop request and the stop command, which must not wait for
    /// storage. A failure is the journal's to remember (the end stores everything again).
    func record(_ events: [SessionEvent], summary: SessionSummary)
}

/// Drives one session. Feed it detections (interactive) or one target (manual), then `finish()`.
/// With no link it is a dry run: the frames are logged and nothing is sent.
public final class BallMachineSession {
    public let settings: SessionSettings
    private let table: CommandTable
    private let calibration: CameraCalibration?
    private let exchange: CommandExchange?
    private let clock: SessionClock
    private let pace: Bool
    private let recorder: EventRecorder
    private var planner: LaunchPlanner
    private var launches: [LaunchRecord] = []
    private var positions: [TimedPosition] = []
    private var summary = SessionSummary()
    private var consecutiveFailures = 0
    private var detectionOrigin: Double?
    private var isFinished = false
    private var latencies: [Double] = []
    private let journal: SessionJournal?
    /// Polled while a paced replay waits for a launch's time (Ctrl-C): when it turns true the
    /// wait ends and that launch and the rest are not sent.
    public var shouldStop: () -> Bool = { false }
    /// How long `finish` keeps trying to reach a machine whose connection dropped, to stop it.
    public static let stopReconnectSeconds = 5.0

    /// `pace`: wait on the clock so launches keep the detections' timing (for replaying a file to a
    /// real machine); without it launches follow each other as fast as the machine answers.
    /// `journal`: stores the session as it runs (not for a dry run).
    public init(settings: SessionSettings, table: CommandTable, calibration: CameraCalibration?, link: BallMachineLink?,
                clock: SessionClock, pace: Bool = false, journal: SessionJournal? = nil) throws
    {
        // Fail before anything is sent when the table cannot serve the chosen speed and spin.
        for zone in 0..<CourtZones.count { _ = try table.settings(zone: zone, speed: settings.speed, spin: settings.spin) }
        self.settings = settings
        self.table = table
        self.calibration = calibration
        self.clock = clock
        self.pace = pace
        recorder = EventRecorder(clock: clock)
        exchange = settings.dryRun ? nil : link.map { CommandExchange(link: $0, clock: clock, checksum: settings.checksum, policy: settings.policy) }
        planner = try LaunchPlanner(interval: settings.interval)
        self.journal = settings.dryRun ? nil : journal
        try self.journal?.begin(settings)
    }

    /// Events not yet given to the journal.
    private var journaled = 0

    /// Gives the journal the events recorded since the last time, with the counts so far.
    private func journalEvents() {
        guard let journal, journaled < recorder.events.count else { return }
        let events = Array(recorder.events[journaled...])
        journaled = recorder.events.count
        journal.record(events, summary: currentSummary())
    }

    // MARK: Interactive

    /// Takes one detection: projects it, and sends the launches that became due.
    public func ingest(_ detection: Detection) throws -> [LaunchRecord] {
        guard !isFinished else { throw SessionError.finished }
        summary.detections += 1
        guard let calibration else { return [] }
        let location: CourtLocation
        do {
            location = try calibration.locate(detection.image)
        } catch {
            summary.rejectedDetections += 1
            recorder.record(.detectionRejected, note: "t=\(Format.number(detection.t)): \(error.description)")
            return []
        }
        let position = TimedPosition(t: detection.t, court: location.clamped)
        guard let due = planner.add(position) else {
            summary.rejectedDetections += 1
            recorder.record(.detectionRejected, note: "t=\(Format.number(detection.t)) is earlier than the previous detection; ignored")
            return []
        }
        if detectionOrigin == nil { detectionOrigin = detection.t }
        positions.append(position)
        return try perform(due)
    }

    /// Counts a detection the caller could not read (a bad line of a live feed).
    public func rejectDetection(_ reason: String) {
        summary.detections += 1
        summary.rejectedDetections += 1
        recorder.record(.detectionRejected, note: reason)
    }

    /// Launches that became due by `time` on the detection clock (a live feed calls this as time passes;
    /// `finish` calls it with the last detection's time).
    public func advance(to time: Double) throws -> [LaunchRecord] {
        guard !isFinished else { throw SessionError.finished }
        return try perform(planner.advance(to: time))
    }

    private func perform(_ decisions: [LaunchDecision]) throws -> [LaunchRecord] {
        var out: [LaunchRecord] = []
        for decision in decisions {
            if pace, decision.zone != nil, let origin = detectionOrigin {
                let due = decision.time - origin
                if due > recorder.elapsed && !wait(until: due, shouldStop: shouldStop) {
                    stopEarly("stopped by the user")
                    break
                }
            }
            summary.launches += 1
            var record = LaunchRecord(decision: decision, target: decision.average)
            guard let zone = decision.zone else {
                summary.skipped += 1
                recorder.record(.skip, launch: decision.index, note: decision.skipReason)
                launches.append(record)
                out.append(record)
                continue
            }
            do {
                try send(zone: zone, launch: decision.index, into: &record)
            } catch {
                // Keep the launch that was being sent when the link failed.
                launches.append(record)
                throw error
            }
            launches.append(record)
            out.append(record)
            journalEvents()
            if let outcome = record.outcome, !outcome.succeeded {
                consecutiveFailures += 1
                if consecutiveFailures >= settings.policy.maxConsecutiveFailures {
                    summary.aborted = SessionError.machineNotAnswering(failures: consecutiveFailures).description
                    recorder.record(.abort, note: summary.aborted)
                    throw SessionError.machineNotAnswering(failures: consecutiveFailures)
                }
            } else {
                consecutiveFailures = 0
            }
        }
        return out
    }

    // MARK: Manual

    /// Sends one command for a zone now (manual mode). `target` is the point asked for, if any.
    public func sendNow(zone: Int, target: Point2D? = nil) throws -> LaunchRecord {
        guard !isFinished else { throw SessionError.finished }
        guard (0..<CourtZones.count).contains(zone) else { throw CommandError.invalidZone(String(zone)) }
        let index = launches.count + 1
        let decision = LaunchDecision(index: index, time: recorder.elapsed, positions: 0, average: target, zone: zone)
        var record = LaunchRecord(decision: decision, target: target ?? CourtZones.center(of: zone))
        summary.launches += 1
        try send(zone: zone, launch: index, into: &record)
        launches.append(record)
        journalEvents()
        return record
    }

    // MARK: Drill

    /// Drill mode: sends one ball with its own speed and spin now (the caller keeps the pace).
    /// `time` is the ball's scheduled time in seconds from the start of the run.
    public func sendBall(_ ball: DrillBall, time: Double) throws -> LaunchRecord {
        guard !isFinished else { throw SessionError.finished }
        let decision = LaunchDecision(index: ball.index, time: time, positions: 0, average: nil, zone: ball.zone)
        var record = LaunchRecord(decision: decision, target: ball.target)
        summary.launches += 1
        do {
            try send(zone: ball.zone, launch: ball.index, speed: ball.speed, spin: ball.spin, into: &record)
        } catch {
            launches.append(record)
            throw error
        }
        launches.append(record)
        journalEvents()
        if let outcome = record.outcome, !outcome.succeeded {
            consecutiveFailures += 1
            if consecutiveFailures >= settings.policy.maxConsecutiveFailures {
                summary.aborted = SessionError.machineNotAnswering(failures: consecutiveFailures).description
                recorder.record(.abort, note: summary.aborted)
                throw SessionError.machineNotAnswering(failures: consecutiveFailures)
            }
        } else {
            consecutiveFailures = 0
        }
        return record
    }

    /// Seconds since the session started, on its clock.
    public var elapsed: Double { recorder.elapsed }

    /// Waits on the session clock until `time` (seconds since the start), in slices of at most
    /// `slice` so that `shouldStop` is noticed; false when it stopped early.
    public func wait(until time: Double, slice: Double = 0.02, shouldStop: () -> Bool) -> Bool {
        while true {
            if shouldStop() { return false }
            let remaining = time - recorder.elapsed
            if remaining <= 0 { return true }
            if remaining <= slice {
                // The last stretch in one go, to the deadline itself (a real clock spins the end).
                clock.sleep(until: recorder.origin + time)
                return !shouldStop()
            }
            clock.sleep(seconds: min(remaining - slice / 2, slice))
        }
    }

    private func send(zone: Int, launch: Int, speed: BallSpeed? = nil, spin: Spin? = nil, into record: inout LaunchRecord) throws {
        let settingsForZone = try table.settings(zone: zone, speed: speed ?? settings.speed, spin: spin ?? settings.spin)
        let frame = CommandFrame(settings: settingsForZone, start: true)
        let bytes = frame.encode(checksum: settings.checksum)
        record.frame = bytes.hex
        record.speed = speed ?? settings.speed
        record.spin = spin ?? settings.spin
        summary.zoneCounts[zone] += 1
        guard let exchange else {
            recorder.record(.dryRun, launch: launch, zone: zone, bytes: bytes.hex, note: "dry run: not sent")
            return
        }
        let result: ExchangeResult
        do {
            result = try exchange.send(frame, recorder: recorder, launch: launch, zone: zone)
        } catch {
            // Written before the link failed (or the host took the machine over): it was launched.
            if recorder.events.contains(where: { $0.kind == .command && $0.launch == launch }) { summary.sent += 1 }
            throw error
        }
        summary.sent += 1
        record.outcome = result.outcome
        record.attempts = result.attempts
        record.replyLatency = result.replyLatency
        record.completionLatency = result.completionLatency
        record.invalidReplies = result.invalidReplies
        if let latency = result.replyLatency { latencies.append(latency) }
        switch result.outcome {
        case .completed: summary.completed += 1
        case .accepted, .completionTimedOut: summary.accepted += 1
        case .rejected: summary.rejected += 1
        case .timedOut: summary.timedOut += 1
        }
    }

    // MARK: End

    /// Marks the session as ended early (Ctrl-C, end of a live feed): `finish` then sends no more
    /// launches, only the stop command.
    public func stopEarly(_ reason: String) {
        guard summary.aborted == nil else { return }
        summary.aborted = reason
        recorder.record(.abort, note: reason)
    }

    /// Sends the launches still due at the last detection, then the stop command, and returns the log.
    /// Safe to call after an error (e.g. on Ctrl-C or when the machine stopped answering).
    public func finish() -> SessionLog {
        if !isFinished {
            if settings.mode == .interactive, summary.aborted == nil, let last = positions.last?.t {
                _ = try? perform(planner.advance(to: last))
            }
            isFinished = true
            if let exchange {
                sendStop(exchange)
            } else {
                let stop = CommandFrame.stop.encode(checksum: settings.checksum)
                recorder.record(.dryRun, bytes: stop.hex, note: "dry run: stop command not sent")
            }
        }
        return SessionLog(settings: settings, events: recorder.events, launches: launches, positions: positions, summary: currentSummary())
    }

    /// The stop command, until the machine answers it: when the connection dropped, on a new one
    /// (for up to `stopReconnectSeconds`); when the host already stopped the machine, that is noted.
    private func sendStop(_ exchange: CommandExchange) {
        let deadline = clock.now() + BallMachineSession.stopReconnectSeconds
        var reconnected = false
        while true {
            do {
                let result = try exchange.send(.stop, recorder: recorder)
                summary.stopOutcome = result.outcome
                summary.stopSent = true
                if reconnected { summary.stopNote = "sent on a new connection after the old one dropped" }
                return
            } catch {
                switch error {
                case .stoppedByHost(let why, let acknowledged):
                    recorder.record(.abort, note: why)
                    summary.stopSent = acknowledged
                    summary.stopOutcome = acknowledged ? .accepted : nil
                    summary.stopNote = why
                    return
                case .linkFailed:
                    recorder.record(.abort, note: "stop command not sent: \(error)")
                }
            }
            // The connection dropped: a new one, until the machine is back or the time is up.
            reconnected = false
            while !reconnected && clock.now() < deadline {
                do {
                    try exchange.reconnect()
                    reconnected = true
                    recorder.record(.abort, note: "reconnected to the ball machine to send the stop command")
                } catch {
                    clock.sleep(seconds: 0.2)
                }
            }
            if !reconnected {
                summary.stopNote = "the ball machine could not be reached for \(Format.number(BallMachineSession.stopReconnectSeconds)) s to stop it"
                return
            }
        }
    }

    /// Whether the stop command reached the machine and it answered (accepted or completed).
    public static func stopAcknowledged(_ summary: SessionSummary) -> Bool {
        summary.stopSent && (summary.stopOutcome?.succeeded ?? false)
    }

    /// The counts so far (the summary of the log `finish` returns).
    private func currentSummary() -> SessionSummary {
        var s = summary
        s.invalidReplies = recorder.events.filter { $0.kind == .invalidReply }.count
        if !latencies.isEmpty {
            let sorted = latencies.sorted()
            let mid = sorted.count / 2
            let median = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
            s.medianLatencyMs = median * 1000
            s.maxLatencyMs = (sorted.last ?? 0) * 1000
        }
        return s
    }
}
