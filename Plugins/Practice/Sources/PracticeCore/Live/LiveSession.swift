import ClubhouseHashing
#if canImport(Glibc)
import Glibc
#endif

/// A shot as it landed in a live session.
public struct LiveShotResult: Sendable, Equatable, Codable {
    public let shotNumber: Int
    public let club: String
    public let grade: Grade?
    public let templateHash: String?
    public let measurements: ShotMeasurements
    /// From the message's arrival to its commit, milliseconds.
    public let latencyMilliseconds: Double

    enum CodingKeys: String, CodingKey {
        case shotNumber = "shot_number", club, grade, templateHash = "template_hash", measurements
        case latencyMilliseconds = "latency_ms"
    }

    /// `shot 3  7i  A  carry 156.4 yd  ball 108.4 mph  launch 20.1°  spin 4987 rpm  (0.4 ms)`.
    public var line: String {
        var parts = ["shot \(shotNumber)", club, grade?.rawValue ?? "-"]
        let shown: [(ShotMetric, String)] = [(.carry, "carry"), (.ballSpeed, "ball"), (.launchAngle, "launch"), (.spinRate, "spin")]
        for (metric, label) in shown {
            if let v = measurements[metric] { parts.append("\(label) \(fixed(v, metric.displayDecimals))\(metric.unit.label.isEmpty ? "" : (metric.unit == .degrees ? "" : " ") + metric.unit.label)") }
        }
        parts.append("(\(fixed(latencyMilliseconds, 2)) ms)")
        return parts.joined(separator: "  ")
    }
}

/// Latency figures over a live session's shots, milliseconds.
public struct LatencySummary: Sendable, Equatable, Codable {
    public let count: Int
    public let median: Double
    public let p95: Double
    public let max: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        count = s.count
        median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        p95 = s[Swift.min(s.count - 1, (s.count * 95 + 99) / 100 - 1)]
        max = s[s.count - 1]
    }
}

/// What `practice live` reports when the session closes.
public struct LiveSessionResult: Sendable, Equatable, Codable {
    public let liveSessionID: Int64
    public let device: String
    public let startedAt: String
    /// The stored session (nil when no shot arrived).
    public let session: StoredSession?
    public let clubs: [ClubResult]
    public let shots: [LiveShotResult]
    public let heartbeats: Int
    /// Why it closed: "stream ended", "connection dropped: …", "idle for N s", "cancelled", an error.
    public let reason: String
    public let latency: LatencySummary?
    /// Live sessions of this device a crash had left open, closed at start.
    public let recovered: [Int64]
    /// Template metrics the messages do not carry (such shots grade C).
    public let warnings: [String]

    enum CodingKeys: String, CodingKey {
        case liveSessionID = "live_session_id", device, startedAt = "started_at", session, clubs, shots, heartbeats, reason
        case latency, recovered, warnings
    }

    public var text: String {
        var lines: [String] = []
        if !recovered.isEmpty {
            lines.append("closed \(recovered.count) live session\(recovered.count == 1 ? "" : "s") an earlier run left open: "
                + recovered.map(String.init).joined(separator: ", "))
        }
        if let session {
            lines.append("live session on \(device) closed (\(reason)): \(shots.count) shot\(shots.count == 1 ? "" : "s") stored as session \(session.id)")
            lines.append(SubsessionText.table(clubs))
        } else {
            lines.append("live session on \(device) closed (\(reason)): no shots arrived, nothing stored")
        }
        lines += warnings.map { "warning: \($0)" }
        if let latency {
            lines.append("stored and graded in \(fixed(latency.median, 2)) ms median, \(fixed(latency.p95, 2)) ms p95, "
                + "\(fixed(latency.max, 2)) ms max from arrival")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Records a live session: each shot is graded with its club's active template and stored in its
/// own transaction as it arrives; closing writes the session (sub-sessions analyzed with the same
/// templates, shots with their arrival grades) and a closure row in one transaction. Shots stored
/// before a failure are never lost: the session is closed with them.
public final class LiveRecorder {
    public let library: TemplateLibrary
    public let device: String
    /// The club of messages that name none (Open Connect carries no club).
    public let defaultClub: String?
    public private(set) var liveSessionID: Int64? = nil
    public private(set) var startedAt = ""
    public private(set) var shots: [LiveShotResult] = []
    public private(set) var heartbeats = 0
    private var recovered: [Int64] = []
    public private(set) var warnings: [String] = []
    private var templates: [String: KPITemplate?] = [:]
    var store: any PracticeStore { library.store }

    public init(library: TemplateLibrary, device: String, defaultClub: String?) {
        self.library = library
        self.device = device
        self.defaultClub = defaultClub.map(ClubName.normalize).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Closes what an earlier run of this device left open, then opens a new live session.
    public func start() throws(PracticeError) {
        try library.ensureDefaults()
        for open in try storeCall({ try store.openLiveSessions() }) where open.device == device {
            _ = try close(open, reason: "recovered: the run recording it ended without closing it")
            recovered.append(open.id)
        }
        startedAt = library.now()
        liveSessionID = try storeCall { try store.beginLiveSession(device: device, startedAt: startedAt) }
    }

    /// Monotonic nanoseconds (for arrival times).
    public static func monotonicNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// Grades and stores one message (a shot), or counts it (a heartbeat or status message).
    /// `arrivedAt` is `monotonicNanoseconds()` when its last byte was read.
    public func receive(_ message: OpenConnectMessage, arrivedAt: UInt64) throws(PracticeError) -> LiveShotResult? {
        guard let id = liveSessionID else { throw .usage("the live session has not started") }
        guard message.isShot else {
            heartbeats += 1
            return nil
        }
        let named = message.club.map(ClubName.normalize).flatMap { $0.isEmpty ? nil : $0 }
        guard let club = named ?? defaultClub else {
            throw .usage("shot \(message.shotNumber): Open Connect names no club; give \(field: "club") (e.g. \(field: "club") 7i)")
        }
        let template: KPITemplate?
        if let cached = templates[club] { template = cached } else {
            template = try library.activeTemplate(for: club)
            templates[club] = template
        }
        if let template {
            for t in template.thresholds where message.measurements[t.metric] == nil {
                let warning = "template \(template.hash.prefix(12)) grades \(t.metric.rawValue), which shot \(message.shotNumber) "
                    + "does not carry (Open Connect sends no \(t.metric.rawValue)); such shots grade C — activate a template without it"
                if !warnings.contains(where: { $0.hasPrefix("template \(template.hash.prefix(12)) grades \(t.metric.rawValue),") }) {
                    warnings.append(warning)
                }
            }
        }
        let grade = template?.grade(message.measurements)
        let row = LiveShotRow(liveSessionID: id, shotNumber: message.shotNumber, club: club, measurements: message.measurements,
                              grade: grade, templateHash: template?.hash, rawJSON: message.raw, receivedAt: library.now())
        try storeCall { try store.insertLiveShot(row) }
        let latency = Double(Self.monotonicNanoseconds() &- arrivedAt) / 1_000_000
        let result = LiveShotResult(shotNumber: message.shotNumber, club: club, grade: grade, templateHash: template?.hash,
                                    measurements: message.measurements, latencyMilliseconds: latency)
        shots.append(result)
        return result
    }

    /// Closes the session with the shots stored so far.
    public func close(reason: String) throws(PracticeError) -> LiveSessionResult {
        guard let id = liveSessionID else { throw .usage("the live session has not started") }
        let row = LiveSessionRow(id: id, device: device, startedAt: startedAt)
        let (session, clubs) = try close(row, reason: reason)
        liveSessionID = nil
        return LiveSessionResult(liveSessionID: id, device: device, startedAt: startedAt, session: session, clubs: clubs,
                                 shots: shots, heartbeats: heartbeats, reason: reason,
                                 latency: LatencySummary(shots.map(\.latencyMilliseconds)), recovered: recovered,
                                 warnings: warnings)
    }

    /// Writes the session of a live session's stored shots and its closure, in one transaction.
    private func close(_ live: LiveSessionRow, reason: String) throws(PracticeError) -> (StoredSession?, [ClubResult]) {
        let stored = try storeCall { try store.liveShots(liveSessionID: live.id) }
        guard !stored.isEmpty else {
            _ = try storeCall { try store.closeLiveSession(live.id, batch: nil, closedAt: library.now(), reason: reason) }
            return (nil, [])
        }
        var order: [String] = []
        var byClub: [String: [LiveShotRow]] = [:]
        for shot in stored {
            if byClub[shot.club] == nil { order.append(shot.club) }
            byClub[shot.club, default: []].append(shot)
        }
        var analyses: [SubsessionAnalysis] = []
        var clubs: [ClubResult] = []
        for club in order {
            let rows = byClub[club] ?? []
            var template: KPITemplate? = nil
            if let hash = rows.first?.templateHash, let t = try storeCall({ try store.template(hash: hash) }) {
                template = try KPITemplate.stored(canonicalJSON: t.canonicalJSON, hash: t.hash)
            }
            let (analysis, _) = SubsessionAnalysis.analyze(club: club, shots: rows.map(\.measurements), template: template)
            analyses.append(analysis)
            var name: String? = nil
            if let hash = template?.hash { name = try library.row(hash: hash).displayName }
            clubs.append(ClubResult(analysis: analysis, templateName: name))
        }
        var identity = Array("clubhouse live session \(live.id) on \(live.device) from \(live.startedAt)\n".utf8)
        for shot in stored { identity += Array(shot.rawJSON.utf8) + [0x0A] }
        let batch = SessionBatch(contentHash: SHA256.hash(identity).hex, sourceName: "live:\(live.device)",
                                 importedAt: library.now(), sessionDate: String(live.startedAt.prefix(16)), location: nil,
                                 title: "Live session \(live.id) on \(live.device)", sourceColumns: ["open_connect_message"],
                                 subsessions: analyses,
                                 shots: stored.map {
                                     StoredShot(rowIndex: $0.shotNumber, club: $0.club, measurements: $0.measurements, grade: $0.grade,
                                                rawJSON: $0.rawJSON)
                                 })
        let session = try storeCall { try store.closeLiveSession(live.id, batch: batch, closedAt: library.now(), reason: reason) }
        return (session, clubs)
    }
}

/// What one read from the device gave.
public enum LiveRead: Sendable, Equatable {
    case bytes([UInt8])
    /// Nothing within the read's timeout (milliseconds waited).
    case timeout(Int)
    /// The other side closed the stream.
    case ended
    /// The connection failed (the reason).
    case dropped(String)
}

/// The loop of `practice live`: reads, splits messages, records shots, and closes the session
/// however the stream stops. A bad message or a drop mid-message closes the session with the
/// shots before it and then throws one line that says so.
public struct LiveSessionLoop {
    public var idleTimeoutMilliseconds: Int?
    public var maxShots: Int?

    public init(idleTimeoutMilliseconds: Int? = nil, maxShots: Int? = nil) {
        self.idleTimeoutMilliseconds = idleTimeoutMilliseconds
        self.maxShots = maxShots
    }

    public func run(_ recorder: LiveRecorder, read: () -> LiveRead, cancelled: () -> Bool = { false },
                    onShot: (LiveShotResult) -> Void = { _ in }) throws(PracticeError) -> LiveSessionResult {
        var stream = OpenConnectStream()
        var idle = 0
        func stop(_ reason: PracticeError) -> PracticeError {
            let count = recorder.shots.count
            do {
                let result = try recorder.close(reason: "stopped: \(reason.message)")
                let kept = result.session.map { "\(count) shot\(count == 1 ? "" : "s") kept as session \($0.id)" } ?? "no shots to keep"
                return PracticeError(reason.kind, "\(reason.text); the live session was closed, \(kept)" as FieldText)
            } catch {
                return PracticeError(reason.kind, "\(reason.text) (and closing the live session failed: \(error.message))" as FieldText)
            }
        }
        while true {
            if cancelled() { return try recorder.close(reason: "cancelled") }
            switch read() {
            case .bytes(let bytes):
                let arrived = LiveRecorder.monotonicNanoseconds()
                idle = 0
                stream.append(bytes)
                while true {
                    let next: OpenConnectMessage?
                    do { next = try stream.next() } catch { throw stop(error) }
                    guard let message = next else { break }
                    let shot: LiveShotResult?
                    do { shot = try recorder.receive(message, arrivedAt: arrived) } catch { throw stop(error) }
                    if let shot { onShot(shot) }
                    if let maxShots, recorder.shots.count >= maxShots {
                        return try recorder.close(reason: "\(maxShots) shot\(maxShots == 1 ? "" : "s") received")
                    }
                }
            case .timeout(let waited):
                idle += waited
                if let limit = idleTimeoutMilliseconds, idle >= limit {
                    return try recorder.close(reason: "no message for \(fixed(Double(limit) / 1000, 1)) s")
                }
            case .ended:
                if stream.pendingBytes > 0 {
                    throw stop(.invalidInput("the connection dropped inside message \(stream.messageCount + 1) "
                        + "(\(stream.pendingBytes) bytes of it arrived)"))
                }
                return try recorder.close(reason: "stream ended")
            case .dropped(let why):
                throw stop(.invalidInput("the connection dropped (\(why))"))
            }
        }
    }
}
