// One function per CLI command of the tennis plugin: a plain request in, a Codable report out, each
// report with a text rendering. The adapter only reads files, parses flags, and calls these.

/// A command result that can also be shown as text.
public protocol TextReport: Encodable {
    var text: String { get }
}

/// What a frame or a send aims at.
public enum FrameTarget: Sendable, Equatable {
    case zone(Int)
    /// A court point in metres; its zone is used.
    case point(Point2D)

    public func zone() throws(CommandError) -> Int {
        switch self {
        case .zone(let z):
            guard (0..<CourtZones.count).contains(z) else { throw .invalidZone(String(z)) }
            return z
        case .point(let p):
            guard let z = CourtZones.zone(at: p) else { throw .pointOutsideCourt(p) }
            return z
        }
    }
}

public enum TennisCommands {
    // MARK: homography

    public struct HomographyReport: TextReport, Equatable {
        public var pairs: Int
        public var method: String
        /// Image → court, `H[2][2] == 1` unless `normalization` says otherwise.
        public var homography: Homography
        public var inverse: Homography
        public var normalization: String
        public var rmsError: Double
        public var maxError: Double
        public var imageRmsError: Double
        public var imageMaxError: Double
        public var errors: [Double]
        public var inliers: [Bool]?
        /// RANSAC: the minimal samples drawn (the count adapts to the inlier share found).
        public var samples: Int?
        /// RANSAC: the inliers' scatter about the fit in the image (σ of a coordinate, pixels).
        public var imageNoise: Double? = nil
        /// RANSAC: 3σ of the fit's court position at its worst point on the half court (metres).
        public var courtUncertainty: Double? = nil
        public var projectedPoints: [Point2D]

        public var text: String {
            var lines = ["H (image → court, \(normalization)) from \(pairs) pairs, method \(method):"]
            lines += matrixLines(homography)
            lines.append("inverse (court → image):")
            lines += matrixLines(inverse)
            lines.append("reprojection error: rms \(sci(rmsError)) m, max \(sci(maxError)) m (court); rms \(sci(imageRmsError)) px, max \(sci(imageMaxError)) px (image)")
            if let inliers {
                lines.append("inliers: \(inliers.filter { $0 }.count) of \(inliers.count) (outliers: \(inliers.indices.filter { !inliers[$0] }.map(String.init).joined(separator: ", ")))"
                    + (samples.map { ", \($0) samples drawn" } ?? ""))
            }
            if let courtUncertainty, let imageNoise {
                lines.append("uncertainty: up to \(Format.fixed(courtUncertainty, 3)) m over the half court (3σ; inliers' scatter \(Format.fixed(imageNoise, 2)) px in the image)")
            }
            for (i, p) in projectedPoints.enumerated() { lines.append("point \(i): \(p.rounded(4)) m") }
            return lines.joined(separator: "\n")
        }
    }

    /// `tennis homography --pairs FILE.json`.
    public static func homography(pairsJSON text: String, file: String, method: EstimationMethod = .leastSquares) throws
        -> HomographyReport
    {
        let parsed = try PairsFile.parse(text, file: file)
        let estimate: HomographyEstimate
        do {
            estimate = try HomographyEstimator.estimate(parsed.pairs, method: method)
        } catch {
            throw locate(error, parsed, file: file, text: text)
        }
        return HomographyReport(
            pairs: parsed.pairs.count, method: estimate.method, homography: estimate.homography, inverse: estimate.inverse,
            normalization: estimate.homography.isNormalizedByLastEntry ? "H[2][2] = 1" : "unit norm (H[2][2] is 0)",
            rmsError: estimate.rmsError, maxError: estimate.maxError, imageRmsError: estimate.imageRmsError,
            imageMaxError: estimate.imageMaxError, errors: estimate.errors, inliers: estimate.inliers, samples: estimate.samples,
            imageNoise: estimate.imageNoise, courtUncertainty: estimate.courtUncertainty,
            projectedPoints: estimate.homography.project(parsed.points))
    }

    /// Puts the file location of the first pair an estimation error names in front of its message;
    /// a robust fit refused for the whole set of pairs points at the first pair (a wrong file, exit 2).
    private static func locate(_ error: HomographyError, _ parsed: PairsFile, file: String, text: String) -> Error {
        let pair: Int?
        switch error {
        case .nonFinitePoint(let p, _): pair = p
        case .repeatedPoint(_, _, let second): pair = second
        case .collinearPoints(_, let pairs): pair = pairs.last
        case .noConsensus, .degenerateConsensus, .chanceConsensus, .untrustworthyFit: pair = 0
        default: pair = nil
        }
        guard let pair, parsed.pairPointers.indices.contains(pair), let input = try? JSONInput(text: text, file: file) else { return error }
        return input.error(at: parsed.pairPointers[pair], error.description)
    }

    // MARK: calibrate / project / zone

    public struct CalibrationReport: TextReport, Equatable {
        public var calibration: CameraCalibration

        public var text: String {
            let c = calibration
            var lines = ["camera \(c.camera): calibrated from 5 taps (8 pairs)"]
            for (landmark, pair) in zip(CalibrationLandmark.allCases, c.pairs) {
                lines.append("  \(landmark.rawValue.padding(14)) image \(pair.image.rounded(2)) → court \(pair.court.rounded(3))\(landmark.isDerived ? "  (derived)" : "")")
            }
            lines.append("H (image → court):")
            lines += matrixLines(c.homography)
            lines.append("reprojection error: rms \(sci(c.rmsError)) m, max \(sci(c.maxError)) m")
            return lines.joined(separator: "\n")
        }
    }

    /// `tennis calibrate --image-points FILE.json [--camera NAME]`: the adapter saves `calibration`.
    public static func calibrate(tapsJSON text: String, file: String, camera: String?) throws -> CalibrationReport {
        let parsed = try TapsFile.parse(text, file: file)
        let name = camera ?? parsed.camera ?? "default"
        return CalibrationReport(calibration: try CameraCalibration.calibrate(parsed.taps, camera: name))
    }

    public struct ProjectReport: TextReport, Equatable {
        public var camera: String
        public var location: CourtLocation

        public var text: String {
            let l = location
            var line = "image \(l.image.rounded(2)) px → court \(l.clamped.rounded(3)) m"
            if l.wasClamped { line += " (clamped from \(l.court.rounded(3)))" }
            line += ", zone " + (l.zone.map(String.init) ?? "none")
            return line
        }
    }

    /// `tennis project X,Y [--camera NAME]` (image pixels → court metres).
    public static func project(_ point: Point2D, calibration: CameraCalibration) throws -> ProjectReport {
        ProjectReport(camera: calibration.camera, location: try calibration.locate(point))
    }

    public struct ZoneReport: TextReport, Equatable {
        public var point: Point2D
        public var zone: Int?
        public var row: Int?
        public var column: Int?

        public var text: String {
            guard let zone, let row, let column else { return "\(point.rounded(3)) m: no zone (outside the half court)" }
            return "\(point.rounded(3)) m: zone \(zone) (row \(row), column \(column))"
        }
    }

    /// `tennis zone X,Y` (court metres → zone or none).
    public static func zone(_ point: Point2D) -> ZoneReport {
        let z = CourtZones.zone(at: point)
        return ZoneReport(point: point, zone: z, row: z.map { $0 / 4 }, column: z.map { $0 % 4 })
    }

    // MARK: frame / decode

    public struct FrameReport: TextReport, Equatable {
        public var zone: Int
        public var speed: BallSpeed
        public var spin: Spin
        public var table: String
        public var checksum: Checksum
        public var start: Bool
        public var settings: MachineSettings
        public var bytes: [UInt8]
        public var hex: String

        public var text: String { hex }
    }

    /// `tennis frame --zone Z | --point X,Y --speed MPH --spin NAME [--checksum xor|modbus] [--stop]`.
    public static func frame(_ target: FrameTarget, speed: BallSpeed, spin: Spin, checksum: Checksum = .xor,
                             stop: Bool = false, table: CommandTable = .formula()) throws -> FrameReport
    {
        let zone = try target.zone()
        let settings = try table.settings(zone: zone, speed: speed, spin: spin)
        let bytes = CommandFrame(settings: settings, start: !stop).encode(checksum: checksum)
        return FrameReport(zone: zone, speed: speed, spin: spin, table: table.name, checksum: checksum, start: !stop,
                           settings: settings, bytes: bytes.array, hex: bytes.hex)
    }

    public struct DecodeReport: TextReport, Equatable {
        public var kind: String
        public var checksum: Checksum
        public var hex: String
        public var command: CommandFrame?
        public var reply: ReplyCode?

        public var text: String {
            if let command {
                return "command (\(checksum.rawValue) check byte): \(command.start ? "start" : "stop"), \(command.settings)"
            }
            return "reply (\(checksum.rawValue) check byte): \(reply.map(\.description) ?? "?")"
        }
    }

    /// `tennis decode HEX [--checksum xor|modbus]`: a command or a reply, validated.
    public static func decode(hex: String, checksum: Checksum? = nil) throws -> DecodeReport {
        let bytes = try FrameText.bytes(fromHex: hex)
        let (frame, used) = try FrameText.decode(bytes, checksum: checksum)
        switch frame {
        case .command(let c):
            return DecodeReport(kind: "command", checksum: used, hex: Format.hex(bytes), command: c, reply: nil)
        case .reply(let r):
            return DecodeReport(kind: "reply", checksum: used, hex: Format.hex(bytes), command: nil, reply: r.code)
        }
    }

    // MARK: send / session

    public struct SessionReport: TextReport, Equatable {
        public var log: SessionLog
        public var svg: String?
        /// Set when the link to the machine failed mid-session (the log holds what happened before).
        public var linkFailure: String?

        public init(log: SessionLog, svg: String?, linkFailure: String? = nil) {
            self.log = log
            self.svg = svg
            self.linkFailure = linkFailure
        }

        /// The speeds and spins really launched. A drill's balls each have their own, so its
        /// header counts them ("2 × 50 mph topspin, 2 × 40 mph flat"); a session's are the same
        /// for every ball. (The settings' speed and spin are a drill's first ball's only: the header
        /// said "60 mph topspin" for a drill of 40 mph flat balls.)
        var launched: String {
            let s = log.settings
            guard s.mode == .drill else { return "\(s.speed.mph) mph \(s.spin.rawValue)" }
            let sent = log.launches.filter { $0.frame != nil }
            guard !sent.isEmpty else { return "no ball launched" }
            guard sent.allSatisfy({ $0.speed != nil && $0.spin != nil }) else {
                return "\(sent.count) ball\(sent.count == 1 ? "" : "s") (speed and spin per ball not recorded in this log)"
            }
            var kinds: [(label: String, count: Int)] = []
            for l in sent {
                let label = "\(l.speed?.mph ?? 0) mph \(l.spin?.rawValue ?? "")"
                if let k = kinds.firstIndex(where: { $0.label == label }) { kinds[k].count += 1 } else { kinds.append((label, 1)) }
            }
            if kinds.count == 1 { return "\(sent.count) ball\(sent.count == 1 ? "" : "s") at \(kinds[0].label)" }
            return "\(sent.count) balls (" + kinds.map { "\($0.count) × \($0.label)" }.joined(separator: ", ") + ")"
        }

        public var text: String {
            var lines: [String] = []
            let s = log.settings
            lines.append("\(s.mode.rawValue) session: \(launched), checksum \(s.checksum.rawValue), table \(s.table)\(s.mode == .interactive ? ", interval \(Format.number(s.interval)) s" : "")\(s.dryRun ? ", dry run" : "")")
            for l in log.launches {
                var line = "launch \(l.decision.index)"
                if s.mode == .interactive { line += " at t=\(Format.fixed(l.decision.time, 2)) s (\(l.decision.positions) positions)" }
                if let zone = l.decision.zone, let frame = l.frame {
                    line += ": zone \(zone)"
                    if let target = l.target { line += " from \(target.rounded(2))" }
                    if s.mode == .drill, let speed = l.speed, let spin = l.spin { line += ", \(speed.mph) mph \(spin.rawValue)" }
                    line += " → \(frame)"
                    if let outcome = l.outcome {
                        line += " \(outcome.rawValue)"
                        if let latency = l.replyLatency { line += " in \(Format.fixed(latency * 1000, 1)) ms" }
                        if let attempts = l.attempts, attempts > 1 { line += " after \(attempts) attempts" }
                    }
                } else {
                    line += ": skipped, \(l.decision.skipReason ?? "no zone")"
                }
                lines.append(line)
            }
            for e in log.events where e.kind == .invalidReply || e.kind == .timeout || e.kind == .abort {
                lines.append("  \(e.kind.rawValue): \(e.bytes.map { $0 + " " } ?? "")\(e.note ?? "")")
            }
            let m = log.summary
            var summary = "summary: \(m.launches) launches, \(m.sent) sent, \(m.completed) completed, \(m.accepted) accepted only, \(m.rejected) rejected, \(m.timedOut) timed out, \(m.skipped) skipped"
            if s.mode == .interactive { summary += "; \(m.detections) detections (\(m.rejectedDetections) rejected)" }
            lines.append(summary)
            if let median = m.medianLatencyMs, let max = m.maxLatencyMs {
                lines.append("reply latency: median \(Format.fixed(median, 2)) ms, max \(Format.fixed(max, 2)) ms")
            }
            if m.invalidReplies > 0 { lines.append("invalid replies ignored: \(m.invalidReplies)") }
            lines.append(s.dryRun ? "stop: dry run, frame \(log.framesSent.last ?? "")" : "stop: \(m.stopSent ? (m.stopOutcome?.rawValue ?? "sent") : "not sent")")
            if let note = m.stopNote { lines.append("stop: \(note)") }
            if let aborted = m.aborted { lines.append("aborted: \(aborted)") }
            return lines.joined(separator: "\n")
        }
    }

    /// `tennis send --point X,Y | --zone Z`: one command now, then the stop command. With `link` nil
    /// (or `settings.dryRun`) the frames are only logged. A failed command is in the log's summary.
    public static func send(_ target: FrameTarget, settings: SessionSettings, table: CommandTable,
                            link: BallMachineLink?, clock: SessionClock, journal: SessionJournal? = nil) throws -> SessionReport
    {
        let zone = try target.zone()
        var settings = settings
        settings.mode = .manual
        let session = try BallMachineSession(settings: settings, table: table, calibration: nil, link: link, clock: clock,
                                             journal: journal)
        let point: Point2D?
        if case .point(let p) = target { point = p } else { point = nil }
        do {
            _ = try session.sendNow(zone: zone, target: point)
        } catch {
            _ = session.finish()
            throw error
        }
        let log = session.finish()
        return SessionReport(log: log, svg: nil)
    }

    /// `tennis session --detections FILE|- [--interval S] [--speed MPH] [--spin NAME] [--svg FILE]` for a
    /// whole detections text (a file). Live input uses `BallMachineSession` line by line instead.
    /// A session that the machine ends early still returns its log (see `summary.aborted`).
    public static func session(detectionsText text: String, file: String, settings: SessionSettings,
                               calibration: CameraCalibration, table: CommandTable, link: BallMachineLink?,
                               clock: SessionClock, pace: Bool = false, svgTitle: String? = nil, journal: SessionJournal? = nil,
                               shouldStop: () -> Bool = { false }, progress: (Int, Int) -> Void = { _, _ in }) throws
        -> SessionReport
    {
        try session(detections: try DetectionReader.parseAll(text, file: file), settings: settings, calibration: calibration,
                    table: table, link: link, clock: clock, pace: pace, svgTitle: svgTitle, journal: journal,
                    shouldStop: shouldStop, progress: progress)
    }

    /// `tennis session` for detections already read (`DetectionReader.read`).
    public static func session(detections: [Detection], settings: SessionSettings,
                               calibration: CameraCalibration, table: CommandTable, link: BallMachineLink?,
                               clock: SessionClock, pace: Bool = false, svgTitle: String? = nil, journal: SessionJournal? = nil,
                               shouldStop: () -> Bool = { false }, progress: (Int, Int) -> Void = { _, _ in }) throws
        -> SessionReport
    {
        var settings = settings
        settings.mode = .interactive
        settings.camera = calibration.camera
        let session = try BallMachineSession(settings: settings, table: table, calibration: calibration, link: link,
                                             clock: clock, pace: pace, journal: journal)
        var linkFailure: String? = nil
        // A paced replay polls `shouldStop` while it waits for a launch's time too; the session
        // holds it only until finish().
        let log = try withoutActuallyEscaping(shouldStop) { stop throws -> SessionLog in
            session.shouldStop = stop
            defer { session.shouldStop = { false } }
            do {
                for (i, d) in detections.enumerated() {
                    if stop() {
                        session.stopEarly("stopped by the user")
                        break
                    }
                    _ = try session.ingest(d)
                    progress(i + 1, detections.count)
                }
            } catch SessionError.machineNotAnswering {
                // The log says so; finish() still sends the stop command.
            } catch ExchangeError.stoppedByHost(let why, _) {
                session.stopEarly(why)
            } catch let error as ExchangeError {
                linkFailure = error.description
                session.stopEarly(error.description)
            }
            return session.finish()
        }
        let svg = svgTitle.map { CourtSVG(title: $0).render(positions: log.positions.map(\.court), launches: log.launches) }
        return SessionReport(log: log, svg: svg, linkFailure: linkFailure)
    }

    // MARK: table

    public struct TableReport: TextReport, Equatable {
        public var name: String
        public var spins: [Spin]
        public var entryCount: Int
        public var omissions: [String]
        public var entries: [TableEntry]

        public var text: String {
            var lines = ["table \(name): \(entryCount) entries (16 zones × 7 speeds × \(spins.count) spins: \(spins.map(\.rawValue).joined(separator: ", ")))"]
            lines.append("zone speed spin              upper lower pitch yaw feed")
            for e in entries {
                let s = e.settings
                lines.append("\(String(e.zone).padding(4)) \(String(e.speed.mph).padding(5)) \(e.spin.rawValue.padding(17)) \(String(s.upperWheel).padding(5)) \(String(s.lowerWheel).padding(5)) \(String(s.pitch).padding(5)) \(String(s.yaw).padding(3)) \(s.feed)")
            }
            if !omissions.isEmpty {
                lines.append("not in this table (\(omissions.count)): \(omissions[0])\(omissions.count > 1 ? " … and \(omissions.count - 1) more alike" : "")")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// `tennis table show`: the table in use (the site's, or the default formula).
    public static func tableShow(_ table: CommandTable) -> TableReport {
        TableReport(name: table.name, spins: table.spins, entryCount: table.entryCount, omissions: table.omissions, entries: table.entries)
    }

    /// `tennis table validate FILE`: parses and checks a calibrated table.
    public static func tableValidate(_ text: String, file: String) throws -> TableReport {
        tableShow(try CommandTable.parse(text, file: file))
    }
}

private func matrixLines(_ h: Homography) -> [String] {
    h.rows.map { "  [" + $0.map { sci($0).leftPadding(16) }.joined(separator: " ") + "]" }
}

/// Numbers in reports: fixed for ordinary magnitudes, scientific for tiny ones.
private func sci(_ v: Double) -> String {
    guard v.isFinite else { return "\(v)" }
    if v == 0 { return "0" }
    if abs(v) >= 1e-3 && abs(v) < 1e7 { return Format.fixed(v, 6) }
    var exponent = 0
    var m = abs(v)
    while m >= 10 { m /= 10; exponent += 1 }
    while m < 1 { m *= 10; exponent -= 1 }
    return (v < 0 ? "-" : "") + Format.fixed(m, 4) + "e" + (exponent < 0 ? "-" : "+") + String(abs(exponent))
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadding(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
