// Sending one command and waiting for its replies: the ACK/complete policy over a byte link.

import Glibc
import ClubhouseToolkit

/// A byte link to a ball machine. The adapter implements it on the host's device service; tests
/// implement it in memory.
public protocol BallMachineLink: AnyObject {
    /// Writes all the bytes (throws when the link fails).
    func write(_ bytes: [UInt8]) throws
    /// Returns between 1 and `max` bytes, or an empty array when `timeout` seconds pass with nothing
    /// to read. Throws when the link fails or closes.
    func read(max: Int, timeout: Double) throws -> [UInt8]
    /// Replaces a link that failed with a new connection to the same machine (for the stop command
    /// after the connection dropped). Throws when it cannot; the default cannot.
    func reconnect() throws
}

extension BallMachineLink {
    public func reconnect() throws { throw ExchangeError.linkFailed("this link cannot reconnect") }
}

/// What a link throws once the host has taken the machine over and stopped it itself (a second
/// Ctrl-C, a call that did not stop it in time): `acknowledged` when the machine answered the host's stop.
public struct MachineStoppedByHost: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var acknowledged: Bool
    public init(_ message: String, acknowledged: Bool) {
        self.message = message
        self.acknowledged = acknowledged
    }
    public var description: String { message }
}

/// A monotonic clock in seconds. Injected so that tests control time.
public protocol SessionClock: AnyObject {
    func now() -> Double
    func sleep(seconds: Double)
    /// Returns as close after `deadline` (a `now()` value) as the clock can: drills time their balls
    /// with it. The default sleeps the difference; a real clock may finish the last stretch spinning.
    func sleep(until deadline: Double)
}

extension SessionClock {
    public func sleep(until deadline: Double) {
        let remaining = deadline - now()
        if remaining > 0 { sleep(seconds: remaining) }
    }
}

/// A clock on which waiting takes no time: real time plus every sleep so far. Waits between balls
/// pass at once while reply timeouts still run on real time (a reply read waits for real bytes).
/// For a demo against the host's simulator; a real machine keeps real pacing.
public final class SimulatedSessionClock: SessionClock {
    private let base: SessionClock
    private var skipped = 0.0

    public init(base: SessionClock = SystemSessionClock()) { self.base = base }

    public func now() -> Double { base.now() + skipped }

    public func sleep(seconds: Double) {
        if seconds > 0, seconds.isFinite { skipped += seconds }
    }

    public func sleep(until deadline: Double) { sleep(seconds: deadline - now()) }
}

/// The system's CLOCK_MONOTONIC in seconds, with nanosleep.
public final class SystemSessionClock: SessionClock {
    public init() {}

    public func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    public func sleep(seconds: Double) {
        guard seconds > 0, seconds.isFinite else { return }
        var ts = timespec(tv_sec: Int(saturating: seconds), tv_nsec: Int(saturating: (seconds - seconds.rounded(.down)) * 1e9))
        nanosleep(&ts, nil)
    }

    /// Sleeps to 1.5 ms before the deadline, then spins (yielding) to it: the scheduler's wake-up
    /// latency on a busy machine is often above a millisecond, a spin's is a few microseconds.
    public func sleep(until deadline: Double) {
        let early = deadline - now() - 0.0015
        if early > 0 { sleep(seconds: early) }
        while now() < deadline { sched_yield() }
    }
}

/// How long to wait for replies and when to try again.
public struct ExchangePolicy: Sendable, Equatable, Codable {
    /// Seconds to wait for the first reply (accepted, rejected or completed) to a command.
    public var replyTimeout: Double
    /// Wait for `completed` after `accepted` (a start command); a stop command never waits for it.
    public var awaitCompletion: Bool
    /// Seconds to wait for `completed` after `accepted`.
    public var completionTimeout: Double
    /// Attempts per command. A command is sent again only when it timed out without any valid reply
    /// or was rejected (when `retryRejected`); never after `accepted`, which may have fed a ball.
    public var maxAttempts: Int
    public var retryRejected: Bool
    /// An interactive session ends after this many commands in a row fail.
    public var maxConsecutiveFailures: Int

    public init(replyTimeout: Double = 2, awaitCompletion: Bool = true, completionTimeout: Double = 2,
                maxAttempts: Int = 2, retryRejected: Bool = true, maxConsecutiveFailures: Int = 3)
    {
        self.replyTimeout = replyTimeout
        self.awaitCompletion = awaitCompletion
        self.completionTimeout = completionTimeout
        self.maxAttempts = max(1, maxAttempts)
        self.retryRejected = retryRejected
        self.maxConsecutiveFailures = max(1, maxConsecutiveFailures)
    }
}

/// How a command ended.
public enum ExchangeOutcome: String, Sendable, Codable, CustomStringConvertible {
    case completed
    /// Accepted, and completion was not awaited (stop commands, or `awaitCompletion` off).
    case accepted
    case rejected
    /// No valid reply within the reply timeout on every attempt.
    case timedOut = "timed-out"
    /// Accepted, but `completed` did not come within the completion timeout (not retried).
    case completionTimedOut = "completion-timed-out"

    public var succeeded: Bool { self == .completed || self == .accepted }
    public var description: String { rawValue }
}

public struct ExchangeResult: Sendable, Equatable, Codable {
    public var outcome: ExchangeOutcome
    public var attempts: Int
    /// Seconds from the last write to the first valid reply, and to `completed`.
    public var replyLatency: Double?
    public var completionLatency: Double?
    /// Replies refused (bad header, check byte or code) during this exchange: a wrong checksum
    /// setting shows up as a timeout with invalid replies.
    public var invalidReplies: Int = 0
}

public enum ExchangeError: Error, Sendable, Equatable, CustomStringConvertible {
    case linkFailed(String)
    /// The host took the machine over and stopped it (`MachineStoppedByHost`).
    case stoppedByHost(String, acknowledged: Bool)

    public var description: String {
        switch self {
        case .linkFailed(let why): return "ball machine link failed: \(why); check the device connection and the site's device mapping"
        case .stoppedByHost(let why, _): return why
        }
    }

    static func wrap(_ error: any Error, _ what: String) -> ExchangeError {
        if let taken = error as? MachineStoppedByHost { return .stoppedByHost(taken.message, acknowledged: taken.acknowledged) }
        return .linkFailed("\(what): \(error)")
    }
}

/// One thing that happened on the link or in a session, in order.
public struct SessionEvent: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case command, reply, invalidReply = "invalid-reply", discarded, timeout, retry, skip, stop, dryRun = "dry-run"
        case detectionRejected = "detection-rejected", abort
    }

    public var seq: Int
    public var kind: Kind
    /// Seconds since the session started (session clock).
    public var at: Double
    /// The launch this event belongs to (1-based), if any.
    public var launch: Int?
    public var attempt: Int?
    public var zone: Int?
    /// Frame bytes as hex (commands, replies, discarded bytes).
    public var bytes: String?
    public var reply: ReplyCode?
    /// Seconds from the command's write to this reply.
    public var latency: Double?
    public var note: String?

    public init(seq: Int, kind: Kind, at: Double, launch: Int? = nil, attempt: Int? = nil, zone: Int? = nil,
                bytes: String? = nil, reply: ReplyCode? = nil, latency: Double? = nil, note: String? = nil)
    {
        self.seq = seq
        self.kind = kind
        self.at = at
        self.launch = launch
        self.attempt = attempt
        self.zone = zone
        self.bytes = bytes
        self.reply = reply
        self.latency = latency
        self.note = note
    }
}

/// Collects events with sequence numbers and session-relative times.
public final class EventRecorder {
    public private(set) var events: [SessionEvent] = []
    private let clock: SessionClock
    public let origin: Double

    public init(clock: SessionClock) {
        self.clock = clock
        origin = clock.now()
    }

    public var elapsed: Double { clock.now() - origin }

    public func record(_ kind: SessionEvent.Kind, launch: Int? = nil, attempt: Int? = nil, zone: Int? = nil,
                       bytes: String? = nil, reply: ReplyCode? = nil, latency: Double? = nil, note: String? = nil)
    {
        events.append(SessionEvent(seq: events.count + 1, kind: kind, at: elapsed, launch: launch, attempt: attempt,
                                   zone: zone, bytes: bytes, reply: reply, latency: latency, note: note))
    }
}

/// Sends commands one at a time and waits for their replies; a new command is never written while
/// the previous one awaits its reply, because `send` returns only when the exchange has ended.
public final class CommandExchange {
    private let link: BallMachineLink
    private let clock: SessionClock
    public let checksum: Checksum
    public let policy: ExchangePolicy
    private var pending: [UInt8] = []
    private var invalidReplies = 0

    public init(link: BallMachineLink, clock: SessionClock, checksum: Checksum, policy: ExchangePolicy = ExchangePolicy()) {
        self.link = link
        self.clock = clock
        self.checksum = checksum
        self.policy = policy
    }

    /// Sends `frame` and waits per the policy. Replies with a bad header or check byte are logged
    /// and ignored. Throws only when the link itself fails.
    public func send(_ frame: CommandFrame, recorder: EventRecorder, launch: Int? = nil, zone: Int? = nil)
        throws(ExchangeError) -> ExchangeResult
    {
        let bytes = frame.encode(checksum: checksum)
        var attempt = 0
        invalidReplies = 0
        while true {
            attempt += 1
            try discardStaleBytes(recorder: recorder, launch: launch)
            do {
                try link.write(bytes.array)
            } catch {
                throw ExchangeError.wrap(error, "write")
            }
            recorder.record(frame.start ? .command : .stop, launch: launch, attempt: attempt, zone: zone, bytes: bytes.hex)
            var result = try awaitReplies(start: frame.start, attempt: attempt, recorder: recorder, launch: launch)
            result.invalidReplies = invalidReplies
            let retry = (result.outcome == .timedOut || (result.outcome == .rejected && policy.retryRejected))
                && attempt < policy.maxAttempts
            if !retry { return result }
            recorder.record(.retry, launch: launch, attempt: attempt + 1, zone: zone,
                            note: "sending again after \(result.outcome.rawValue) (attempt \(attempt + 1) of \(policy.maxAttempts))")
        }
    }

    private func awaitReplies(start: Bool, attempt: Int, recorder: EventRecorder, launch: Int?) throws(ExchangeError) -> ExchangeResult {
        let sentAt = clock.now()
        var deadline = sentAt + policy.replyTimeout
        var replyLatency: Double? = nil
        let waitForCompletion = start && policy.awaitCompletion
        while true {
            while let reply = nextReply(recorder: recorder, launch: launch, attempt: attempt) {
                let latency = clock.now() - sentAt
                recorder.record(.reply, launch: launch, attempt: attempt, bytes: reply.encode(checksum: checksum).hex,
                                reply: reply.code, latency: latency)
                switch reply.code {
                case .rejected:
                    return ExchangeResult(outcome: .rejected, attempts: attempt, replyLatency: replyLatency ?? latency)
                case .completed:
                    return ExchangeResult(outcome: .completed, attempts: attempt, replyLatency: replyLatency ?? latency,
                                          completionLatency: latency)
                case .accepted:
                    if replyLatency == nil {
                        replyLatency = latency
                        if !waitForCompletion {
                            return ExchangeResult(outcome: .accepted, attempts: attempt, replyLatency: latency)
                        }
                        deadline = clock.now() + policy.completionTimeout
                    }
                }
            }
            let remaining = deadline - clock.now()
            if remaining <= 0 {
                let accepted = replyLatency != nil
                let waited = accepted ? policy.completionTimeout : policy.replyTimeout
                recorder.record(.timeout, launch: launch, attempt: attempt,
                                note: accepted ? "no completed reply within \(Format.number(waited)) s after accepted"
                                    : "no valid reply within \(Format.number(waited)) s")
                return ExchangeResult(outcome: accepted ? .completionTimedOut : .timedOut, attempts: attempt,
                                      replyLatency: replyLatency)
            }
            let chunk: [UInt8]
            do {
                chunk = try link.read(max: 64, timeout: remaining)
            } catch {
                throw ExchangeError.wrap(error, "read")
            }
            pending.append(contentsOf: chunk)
        }
    }

    /// Takes the next valid reply from the received bytes, logging and dropping anything invalid.
    private func nextReply(recorder: EventRecorder, launch: Int?, attempt: Int) -> ReplyFrame? {
        var discarded: [UInt8] = []
        defer {
            if !discarded.isEmpty {
                recorder.record(.discarded, launch: launch, attempt: attempt, bytes: Format.hex(discarded),
                                note: "\(discarded.count) byte(s) that do not start a reply")
            }
        }
        while !pending.isEmpty {
            guard pending[0] == 0x5A else {
                discarded.append(pending.removeFirst())
                continue
            }
            guard pending.count >= 2 else { return nil }
            guard pending[1] == 0xA5 else {
                discarded.append(pending.removeFirst())
                continue
            }
            guard pending.count >= ReplyFrame.length else { return nil }
            let candidate = Array(pending.prefix(ReplyFrame.length))
            do {
                let reply = try ReplyFrame.decode(candidate, checksum: checksum)
                pending.removeFirst(ReplyFrame.length)
                return reply
            } catch {
                // Never trusted: log it and resynchronize one byte further on.
                invalidReplies += 1
                recorder.record(.invalidReply, launch: launch, attempt: attempt, bytes: Format.hex(candidate), note: error.description)
                pending.removeFirst()
            }
        }
        return nil
    }

    /// A new connection to the machine after the link failed (bytes of the old one are dropped).
    public func reconnect() throws(ExchangeError) {
        do {
            try link.reconnect()
        } catch {
            throw ExchangeError.wrap(error, "reconnect")
        }
        pending.removeAll()
    }

    /// Drops bytes that arrived after the previous exchange ended (e.g. a late reply), so that they
    /// are never taken for a reply to the next command.
    private func discardStaleBytes(recorder: EventRecorder, launch: Int?) throws(ExchangeError) {
        var stale = pending
        pending.removeAll()
        while true {
            let chunk: [UInt8]
            do {
                chunk = try link.read(max: 256, timeout: 0)
            } catch {
                throw ExchangeError.wrap(error, "read")
            }
            if chunk.isEmpty { break }
            stale.append(contentsOf: chunk)
            if stale.count > 4096 { break }
        }
        if !stale.isEmpty {
            recorder.record(.discarded, launch: launch, bytes: Format.hex(stale),
                            note: "\(stale.count) late byte(s) received before this command")
        }
    }
}
