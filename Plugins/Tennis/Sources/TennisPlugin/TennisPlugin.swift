// TennisPlugin: the thin adapter from TennisCore to PluginKit. Each command reads its files and
// flags, calls one TennisCore function, and replies with the Codable result and its text.
// Site config (plugins.json → tennis → config): device (default "ballmachine"), checksum
// ("xor" | "modbus"), interval_s (2–9), speed_mph, spin, backspin (bool: add the backspin spins to
// the default table), table (a calibrated table object) or table_file (a path to one),
// reply_timeout_s, attempts.

import CClubhouse
import ClubhouseJSON
import Glibc
import PluginKit
import TennisCore

final class Tennis: Plugin {
    static let info = PluginInfo(
        id: "org.clubhouse.tennis", version: "1.7.2", name: "Tennis",
        summary: "Ball machine controller: court homography, 16 zones, protocol v0.3 sessions and drills",
        // The device service is used when the site grants a ball machine, but not required: a site
        // without one still maps points, builds frames, and runs dry sessions.
        services: [.log, .config, .storage, .progress, .events],
        // Calls run side by side (the store and the machine take turns: SQLTennisStore.exclusive,
        // MachineUse): while a drill runs, any panel can see it and stop it (issue 29).
        threadSafe: true)

    /// Each ball a running drill launches is published on "launch"; a drill's start and end on "drill".
    static let topics = [Topic("launch", summary: "a ball a running drill launched: {run, drill, ball, of, step, zone, speed, spin}"),
                         Topic("drill", summary: "a drill started or ended on the machine: {run, drill, state: started|ended, of, launched, startedAt, stopped?, outcome?}")]

    static let commands: [Command<Tennis>] = [
        Command("homography", summary: "Fit the image → court homography to point pairs and report its errors",
                help: "FILE.json: {\"pairs\":[{\"image\":[x,y],\"court\":[X,Y]},…]} (optional \"points\" to project). Prints H normalized so H[2][2] = 1, its inverse, and the RMS and max reprojection errors.",
                arguments: HomographyArguments.self,
                reply: "{homography, inverse, rmsError, maxError, imageRmsError, imageMaxError, errors, inliers, projectedPoints}") { _, a, _ in
            let path = a.pairs
            let method: EstimationMethod
            if a.method == .ransac {
                let threshold = a.threshold
                guard threshold > 0, threshold.isFinite else { throw ArgumentError("threshold", "must be a positive number of metres") }
                method = .ransac(RansacOptions(threshold: threshold, seed: UInt64(truncatingIfNeeded: a.seed)))
            } else {
                method = .leastSquares
            }
            let report = try TennisCommands.homography(pairsJSON: try readFile(path), file: path, method: method)
            return try Reply(encoding: report, text: report.text + "\n")
        },
        Command("calibrate", summary: "Calibrate a camera from the five tapped court points and save it",
                help: "FILE.json: {\"net_left\":[x,y],\"net_right\":[x,y],\"baseline_left\":[x,y],\"baseline_right\":[x,y],\"t\":[x,y]} in image pixels. The service-line ends and the net centre are derived, and H is fitted to the 8 pairs.",
                arguments: CalibrateArguments.self,
                reply: "{calibration: {camera, taps, pairs, homography, inverse, rmsError, maxError}}") { plugin, a, _ in
            let path = a.imagePoints
            let report = try TennisCommands.calibrate(tapsJSON: try readFile(path), file: path, camera: a.camera)
            try plugin.store.saveCalibration(report.calibration, savedAt: Timestamp.now())
            return try Reply(encoding: report, text: report.text + "\nsaved as camera \(report.calibration.camera)\n")
        },
        Command("project", summary: "Map an image point (pixels) to the court (metres), clamped, with its zone",
                arguments: ProjectArguments.self, reply: "{camera, location: {image, court, clamped, wasClamped, zone}}") { plugin, a, _ in
            let p = a.point
            let calibration = try plugin.calibration(a.camera)
            let report = try TennisCommands.project(Point2D(p.x, p.y), calibration: calibration)
            return try Reply(encoding: report, text: report.text + "\n")
        },
        Command("zone", summary: "The zone (0–15) of a court point in metres, or none",
                arguments: ZoneArguments.self, reply: "{point, zone, row, column} (zone null outside the half court)") { _, a, _ in
            let p = a.point
            let report = TennisCommands.zone(Point2D(p.x, p.y))
            return try Reply(encoding: report, text: report.text + "\n")
        },
        Command("frame", summary: "Print the 10-byte protocol v0.3 command for a zone or point as hex",
                arguments: FrameArguments.self, reply: "{zone, speed, spin, table, checksum, start, settings, bytes, hex}") { plugin, a, _ in
            let target = try Tennis.target(a)
            let settings = try plugin.settings()
            let report = try TennisCommands.frame(target, speed: try BallSpeed(mph: a.speed), spin: a.spin,
                                                  checksum: a.checksum ?? settings.checksum, stop: a.stop, table: try settings.table())
            return try Reply(encoding: report, text: report.text + "\n")
        },
        Command("decode", summary: "Decode and validate a command or reply frame given as hex",
                arguments: DecodeArguments.self, reply: "{kind, checksum, hex, command?, reply?}") { _, a, _ in
            let report = try TennisCommands.decode(hex: a.hex, checksum: a.checksum)
            return try Reply(encoding: report, text: report.text + "\n")
        },
        Command("send", summary: "Manual mode: send one command for a point or zone now, then stop",
                arguments: SendArguments.self,
                reply: "{sessionId (absent for a dry run: it stores nothing), log: {settings, events, launches, summary}}") { plugin, a, call in
            let target = try Tennis.target(a)
            let settings = try plugin.settings()
            var session = try settings.sessionSettings(mode: .manual, speed: a.speed, spin: a.spin, interval: nil, dryRun: a.dryRun)
            session.checksum = a.checksum ?? settings.checksum
            let use = session.dryRun ? nil : try plugin.machine.claim("shot", device: settings.device)
            defer { if let use { plugin.machine.release(use.run) } }
            let link = session.dryRun ? nil : try plugin.openLink(settings, checksum: session.checksum)
            let journal = plugin.journal(call, dryRun: session.dryRun)
            let report = try TennisCommands.send(target, settings: session, table: try settings.table(), link: link, clock: MonotonicClock(),
                                                 journal: journal)
            let id = try journal?.complete(report.log)
            var failure: String? = nil
            if let first = report.log.launches.first, let outcome = first.outcome, !outcome.succeeded {
                failure = SessionError.commandFailed(outcome, attempts: first.attempts ?? 1, invalidReplies: first.invalidReplies ?? 0).description
            }
            try plugin.sayIfNotStopped(report.log, device: settings.device, session: id, also: failure)
            return try Reply(encoding: SessionReply(sessionId: id, svg: nil, log: report.log), text: report.text + "\n" + Tennis.stored(id) + "\n")
        },
        Command("session", summary: "Interactive mode: launch balls where the player stands, from detections",
                help: "Detections are JSON lines {\"t\":seconds,\"x\":px,\"y\":px} (image feet positions) from FILE or - (stdin, live). At each launch the last min(0.8·interval, 2 s) of positions are averaged (newer weigh more, at least 3) and the zone is targeted. Ctrl-C stops the session and sends the stop command. A file with a bad line (not a detection, or out of time order) is refused naming its line, before any device is opened; --skip-bad-rows uses the good lines and lists the bad ones. A file without detections is an error.",
                arguments: SessionArguments.self, longRunning: true,
                reply: "{sessionId, svg, log: {settings, events, launches, positions, summary}, badLines: [{line, reason}]}") { plugin, a, call in
            try plugin.runSession(a, call)
        },
        Command("sessions", summary: "List the stored sessions, newest first",
                arguments: SessionsArguments.self, reply: "{sessions: [{id, startedAt, mode, summary}]}") { plugin, a, _ in
            let list = try plugin.store.sessions(limit: a.last)
            let text = list.isEmpty ? "no sessions yet\n" : list.map { s in
                "session \(s.id) \(s.startedAt) \(s.mode.rawValue)\(s.drill.map { " \"\($0)\"" } ?? ""): \(s.summary.launches) launches, \(s.summary.sent) sent, \(s.summary.completed) completed\(s.summary.aborted.map { ", ended: \($0)" } ?? "")"
            }.joined(separator: "\n") + "\n"
            return try Reply(encoding: ["sessions": list], text: text)
        },
        Command("table show", summary: "Show the command table in use (the site's, or the default formula)",
                arguments: TableShowArguments.self, reply: "{name, spins, entryCount, omissions, entries}") { plugin, a, call in
            var settings = try plugin.settings()
            if a.backspin { settings.backspin = true }
            let report = TennisCommands.tableShow(try settings.table())
            return try Reply(encoding: report, text: call.wantsMachineOutput ? nil : report.text + "\n")
        },
        Command("table validate", summary: "Validate a calibrated command table file",
                arguments: TableFileArguments.self, reply: "{name, spins, entryCount, omissions, entries}") { _, a, _ in
            let path = a.file
            let report = try TennisCommands.tableValidate(try readFile(path), file: path)
            return try Reply(encoding: report, text: "\(path): valid table \"\(report.name)\" with \(report.entryCount) entries (spins: \(report.spins.map(\.rawValue).joined(separator: ", ")))\n")
        },
        Command("drill validate", summary: "Validate a drill file and print its content hash",
                help: "A drill is JSON (schema: drill.schema.json in the plugin's folder): {\"name\", \"steps\": [{\"zone\": 0–15 | \"sector\": {\"x\": [from, to], \"y\": [from, to]}, \"speed\": mph, \"spin\", \"delay\": 2–9 s, \"repeat\"}], \"repeat\", \"shuffle\", \"seed\"}.",
                arguments: DrillFileArguments.self, reply: "{name, description, hash, steps, balls, durationSeconds, shuffle, seed}") { _, a, _ in
            let path = a.file
            let report = try TennisCommands.drillValidate(try readFile(path), file: path)
            return try Reply(encoding: report, text: "\(path): valid " + report.summaryLine + "\nhash \(report.hash)\n")
        },
        Command("drill show", summary: "Show the balls a drill launches, in order (a file, or a saved drill's name or hash)",
                arguments: DrillShowArguments.self,
                reply: "{name, hash, steps, balls, durationSeconds, shuffle, seed, plan: [{index, step, zone, target, speed, spin, delay}], canonicalJSON}") { plugin, a, _ in
            let drill = try plugin.loadDrill(a.drill)
            let report = TennisCommands.drillShow(drill, seed: try Tennis.seed(a.seed))
            return try Reply(encoding: report, text: report.text + "\n")
        },
        Command("drill save", summary: "Save a drill at this site under its name (kept by content hash)",
                arguments: DrillFileArguments.self, reply: "{name, hash, steps, balls, durationSeconds, shuffle, seed}") { plugin, a, _ in
            let path = a.file
            let report = try TennisCommands.drillValidate(try readFile(path), file: path)
            try plugin.store.saveDrill(try Drill.parse(try readFile(path), file: path), savedAt: Timestamp.now())
            return try Reply(encoding: report, text: "saved " + report.summaryLine + "\n")
        },
        Command("drill list", summary: "List the drills saved at this site",
                reply: "{drills: [{hash, name, balls, savedAt}]}") { plugin, _ in
            let list = try plugin.store.drills()
            let text = list.isEmpty ? "no drills saved yet; save one with `clubhouse tennis drill save FILE.json`\n"
                : list.map { "\($0.name)  \(String($0.hash.prefix(12)))  \($0.balls) balls  saved \($0.savedAt)" }.joined(separator: "\n") + "\n"
            return try Reply(encoding: ["drills": list], text: text)
        },
        Command("drill run", summary: "Run a drill on the ball machine at its pace; Ctrl-C stops it and sends the stop command",
                help: "Each ball waits its step's delay (2–9 s, counted from the previous ball's scheduled time), then its command is sent and its replies awaited as in a session. The run is stored as a session.",
                arguments: DrillRunArguments.self, longRunning: true,
                reply: "{sessionId, svg, drill, timing, medianLateMs, maxLateMs, log: {settings, events, launches, summary}}") { plugin, a, call in
            try plugin.runDrill(a, call)
        },
        Command("running", summary: "What the ball machine is doing now: the drill or session running, or nothing",
                help: "Answers for this host (`clubhouse serve`): a drill started from another phone, a JSON-RPC client or the tennis panel. A drill run by `clubhouse tennis drill run` in a terminal is its own process: stop it there with Ctrl-C.",
                concurrent: true,
                reply: "{running: {run, kind, drill, of, launched, startedAt, stopRequested} or null}") { plugin, _ in
            let use = plugin.machine.now()
            let text = use.map { u in
                (u.drill.map { "drill \"\($0)\": ball \(u.launched) of \(u.of ?? 0)" } ?? u.kind) + ", started \(u.startedAt) (run \(u.run))\n"
            } ?? "the ball machine is idle\n"
            return Reply(data: ["running": use.map(Tennis.json) ?? .null], text: text)
        },
        Command("stop", summary: "Stop the drill or session running on the ball machine now, whoever started it",
                help: "The running drill or session ends within about 20 ms with the machine's stop command, as when its own caller stops it. --run N stops only that run (the `run` of the drill events and of `tennis running`): a Stop pressed as the drill ends does not stop the next one. Answers {stopped: false} when nothing is running. A drill run by `clubhouse tennis drill run` in a terminal is its own process: stop it there with Ctrl-C.",
                arguments: StopArguments.self, concurrent: true, reply: "{stopped, running}") { plugin, a, _ in
            let run = a.run
            let marked = plugin.machine.requestStop(run: run)
            let text = marked.map { u in "stopping " + (u.drill.map { "drill \"\($0)\"" } ?? "the \(u.kind)") + " (run \(u.run)) after ball \(u.launched)\n" }
                ?? "nothing to stop: " + (run.map { "run \($0) is not running" } ?? "the ball machine is idle") + "\n"
            return Reply(data: ["stopped": .bool(marked != nil), "running": marked.map(Tennis.json) ?? .null], text: text)
        },
        Command("demo", summary: "Calibrate the demo camera, run a scripted session and a drill against the site's ball machine",
                arguments: DemoArguments.self) { plugin, a, call in
            try plugin.demo(out: a.out, call)
        },
    ]

    let context: PluginContext
    let store: SQLTennisStore
    /// The machine's one user at a time and its stop mark (MachineUse.swift).
    let machine = MachineUse()
    /// The site's config, read once; a mistake in it is reported by the commands that need it.
    private let siteSettings: Result<SiteSettings, Error>

    init(context: PluginContext) throws {
        self.context = context
        store = try SQLTennisStore(storage: try context.storage())
        siteSettings = Result { try SiteSettings(config: context.config, site: context.site) }
    }

    func settings() throws -> SiteSettings { try siteSettings.get() }

    func calibration(_ camera: String) throws -> CameraCalibration {
        guard let c = try store.calibration(camera: camera) else { throw PluginError.notFound(StoreError.noCalibration(camera: camera).description) }
        return c
    }

    /// The site's ball machine, with its stop command registered as the device's safe state (the host
    /// stops the machine itself when a call leaves it running: device.h `set_safe_state`).
    func openLink(_ settings: SiteSettings, checksum: Checksum) throws -> DeviceLink {
        let devices = try context.devices()
        let name = settings.device
        return try DeviceLink(checksum: checksum) { try devices.open(name) }
    }

    /// The journal that stores a session while it runs; none for a dry run (it stores nothing).
    func journal(_ call: Invocation, dryRun: Bool, drill: DrillRunRow? = nil) -> SQLSessionJournal? {
        dryRun ? nil : SQLSessionJournal(store: store, startedAt: Timestamp.now(), drill: drill) { body in try Tennis.storing(call, body) }
    }

    /// Runs `body`, which stores what the call did. When the host interrupted it because the call was
    /// cancelled and the plugin had not looked at the cancel yet, looks at it and runs it again: a
    /// call that has seen its cancel stores normally for a grace period (RELIABILITY.md § Cancellation).
    static func storing<T>(_ call: Invocation, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PluginError where (error.status == .cancelled || error.status == .timeout) && call.isCancelled {
            return try body()
        }
    }

    /// "session N stored", or what a dry run says.
    static func stored(_ id: Int?) -> String { id.map { "session \($0) stored" } ?? "dry run: nothing stored" }

    /// Says loudly when the stop command was not acknowledged: the machine may still be running.
    func sayIfNotStopped(_ log: SessionLog, device: String, session id: Int?, also: String? = nil) throws {
        guard !log.settings.dryRun, !BallMachineSession.stopAcknowledged(log.summary) else {
            if let also { throw PluginError(.io, also + (id.map { " (session \($0) stored with what happened before)" } ?? "")) }
            return
        }
        let why: String
        switch log.summary.stopOutcome {
        case .rejected: why = "it rejected it"
        case .timedOut, .completionTimedOut: why = "no valid answer within the reply timeout"
        default: why = log.summary.stopNote ?? "the stop command was not sent"
        }
        let message = "THE BALL MACHINE '\(device)' MAY STILL BE RUNNING: it did not acknowledge the stop command (\(why)); stop it at the machine"
        throw PluginError(.io, (also.map { $0 + "; " } ?? "") + message + (id.map { " (session \($0) stored with what happened before)" } ?? ""))
    }

    static func target(_ a: some TargetArguments) throws -> FrameTarget {
        switch (a.zone, a.point) {
        case (let z?, nil): return .zone(z)
        case (nil, let p?): return .point(Point2D(p.x, p.y))
        case (nil, nil): throw PluginError.invalidArgument("say where the ball goes: give --zone Z (0–15) or --point X,Y (court metres)")
        default: throw PluginError.invalidArgument("give either --zone Z (0–15) or --point X,Y (court metres), not both")
        }
    }

    // MARK: drills

    static func seed(_ seed: Int?) throws -> UInt64? {
        guard let seed else { return nil }
        guard seed >= 0 else { throw ArgumentError("seed", "must be 0 or more") }
        return UInt64(seed)
    }

    /// A drill file when `name` is a file, else a saved drill by name or hash prefix.
    /// Who stopped a cancelled call, as its message says: Ctrl-C at a terminal; over HTTP its client or the server.
    static func stoppedBy(_ call: Invocation) -> String {
        call.fromNetwork ? "by its client (cancelled, gone, or its lease not renewed) or the server stopping" : "by Ctrl-C"
    }

    func loadDrill(_ name: String) throws -> Drill {
        if Files.exists(name) { return try Drill.parse(try readFile(name), file: name) }
        if let saved = try store.drill(name) { return saved }
        throw PluginError.notFound(name.hasSuffix(".json") ? "no file \(name); check the path" : DrillError.unknownDrill(name).description)
    }

    struct DrillReply: Encodable {
        var sessionId: Int?
        var svg: String?
        var drill: TennisCommands.DrillReport
        var timing: [TennisCommands.DrillTiming]
        var medianLateMs: Double?
        var maxLateMs: Double?
        var log: SessionLog
        /// Stopped by `tennis stop` (another client: another phone's panel), not by its caller.
        var stoppedElsewhere: Bool
    }

    func runDrill(_ a: DrillRunArguments, _ call: Invocation) throws -> Reply {
        let drill = try loadDrill(a.drill)
        let seed = try Tennis.seed(a.seed)
        let site = try settings()
        var settings = try site.sessionSettings(mode: .drill, speed: nil, spin: nil, interval: nil, dryRun: a.dryRun)
        settings.checksum = a.checksum ?? site.checksum
        let table = try site.table()
        let use = settings.dryRun ? nil : try machine.claim("drill", drill: drill.name, of: drill.ballCount, device: site.device)
        defer { if let use { machine.release(use.run) } }
        let link = settings.dryRun ? nil : try openLink(site, checksum: settings.checksum)
        if let use { publishDrill(call, use, state: "started") }
        // Stored as it runs: the session and its drill-run row first, each event as it happens (what
        // the machine did is kept whatever ends the run), the whole log at the end.
        let journal = self.journal(call, dryRun: settings.dryRun,
                                   drill: DrillRunRow(hash: drill.hash, name: drill.name, seed: seed ?? drill.seed, balls: drill.ballCount))
        call.progress.begin("drill \(drill.name)", total: drill.ballCount)
        let report = try TennisCommands.drillRun(drill, seed: seed, settings: settings, table: table, link: link, clock: MonotonicClock(),
                                    svgTitle: "Drill \(drill.name)", journal: journal,
                                    shouldStop: { call.isCancelled || use.map { self.machine.stopRequested($0.run) } == true },
                                    progress: { done, _ in call.progress.update(done) },
                                    launched: { ball, count in
                                        if let use { self.machine.launched(use.run, count: ball.index) }
                                        publishLaunch(call, run: use?.run, drill: drill.name, ball: ball, of: count)
                                    })
        call.progress.end()
        let stoppedElsewhere = use.map { machine.stopRequested($0.run) } ?? false
        if let use {
            var ended = machine.now().flatMap { $0.run == use.run ? $0 : nil } ?? use
            ended.launched = report.log.summary.launches
            publishDrill(call, ended, state: "ended", stopped: stoppedElsewhere ? "another client" : call.isCancelled ? "its caller" : nil,
                         outcome: report.log.summary.aborted)
        }
        journal?.drill?.medianLateMs = report.medianLateMs
        journal?.drill?.maxLateMs = report.maxLateMs
        let id = try journal?.complete(report.log)
        try sayIfNotStopped(report.log, device: site.device, session: id, also: report.linkFailure)
        var svgPath: String? = nil
        if let path = a.svg, let svg = report.svg {
            try write(svg, to: path)
            svgPath = path
        }
        let s = report.log.summary
        if call.isCancelled {
            throw PluginError.cancelled("drill stopped \(Tennis.stoppedBy(call)) after \(s.launches) of \(drill.ballCount) balls; the stop command was \(s.stopSent ? "sent" : "not sent")"
                + (id.map { " (session \($0) stored with the balls launched before the stop)" } ?? " (dry run: nothing stored)"))
        }
        let landing: String = svgPath.map { ", landing pattern in \($0)" } ?? ""
        var text = report.text + "\n" + Tennis.stored(id) + landing + "\n"
        if stoppedElsewhere { text = "stopped from another client (tennis stop) after \(s.launches) of \(drill.ballCount) balls\n" + text }
        return try Reply(encoding: DrillReply(sessionId: id, svg: svgPath, drill: report.drill, timing: report.timing,
                                              medianLateMs: report.medianLateMs, maxLateMs: report.maxLateMs, log: report.log,
                                              stoppedElsewhere: stoppedElsewhere), text: text)
    }

    /// A launch on the "launch" topic; a host without the events service only loses the event (logged once per drill).
    func publishLaunch(_ call: Invocation, run: Int?, drill: String, ball: DrillBall, of count: Int) {
        var event: JSONObject = ["run": run.map { .int($0) } ?? .null, "drill": .string(drill), "ball": .int(ball.index), "of": .int(count), "step": .int(ball.step),
                                 "zone": .int(ball.zone)]
        if let encoded = try? JSONValueEncoder().encode(ball) {
            event["speed"] = encoded["speed"] ?? .null
            event["spin"] = encoded["spin"] ?? .null
        }
        do {
            try call.events.publish(topic: "launch", .object(event))
        } catch {
            if ball.index == 1 { context.log.warning("drill \(drill): launches are not published as events: \(error)") }
        }
    }

    /// A drill's start or end on the "drill" topic (every open panel shows a drill whoever started it).
    func publishDrill(_ call: Invocation, _ use: MachineUse.Use, state: String, stopped: String? = nil, outcome: String? = nil) {
        var event = Tennis.json(use).objectValue ?? [:]
        event["state"] = .string(state)
        if state == "ended" {
            event["stopped"] = stopped.map { .string($0) } ?? .null
            event["outcome"] = outcome.map { .string($0) } ?? .null
        }
        do {
            try call.events.publish(topic: "drill", .object(event))
        } catch {
            context.log.warning("drill \(use.drill ?? "?"): its \(state) is not published as an event: \(error)")
        }
    }

    /// A use of the machine as `running` and the "drill" events give it.
    static func json(_ use: MachineUse.Use) -> JSONValue {
        .object(["run": .int(use.run), "kind": .string(use.kind), "drill": use.drill.map { .string($0) } ?? .null,
                 "of": use.of.map { .int($0) } ?? .null, "launched": .int(use.launched), "startedAt": .string(use.startedAt),
                 "stopRequested": .bool(use.stopRequested)])
    }

    // MARK: session

    struct SessionReply: Encodable {
        var sessionId: Int?
        var svg: String?
        var log: SessionLog
        /// Lines of a detections file left out under --skip-bad-rows.
        var badLines: [BadLine] = []
    }

    struct BadLine: Encodable {
        var line: Int
        var reason: String
    }

    func runSession(_ a: SessionArguments, _ call: Invocation) throws -> Reply {
        let site = try settings()
        var settings = try site.sessionSettings(mode: .interactive, speed: a.speed, spin: a.spin, interval: a.interval, dryRun: a.dryRun)
        settings.checksum = a.checksum ?? site.checksum
        let calibration = try self.calibration(a.camera)
        settings.camera = calibration.camera
        let table = try site.table()
        let path = a.detections
        // A file is read and checked before the machine is opened: bad input touches no device.
        var fileContent: DetectionReader.FileContent? = nil
        if path != "-" {
            let text = try readFile(path)
            let skip = a.skipBadRows
            fileContent = try DetectionReader.read(text, file: path, skipBadLines: skip)
        }
        let use = settings.dryRun ? nil : try machine.claim("session", device: site.device)
        defer { if let use { machine.release(use.run) } }
        let link = settings.dryRun ? nil : try openLink(site, checksum: settings.checksum)
        let journal = self.journal(call, dryRun: settings.dryRun)
        let clock = MonotonicClock()
        let stop = { call.isCancelled || use.map { self.machine.stopRequested($0.run) } == true }
        let log: SessionLog
        var linkFailure: String? = nil
        if let fileContent {
            call.progress.begin("session", total: 0)
            let report = try TennisCommands.session(detections: fileContent.detections, settings: settings, calibration: calibration,
                                                    table: table, link: link, clock: clock, pace: a.pace,
                                                    journal: journal, shouldStop: stop, progress: { done, total in
                                                        if done == 1 { call.progress.begin("detections", total: total) }
                                                        call.progress.update(done)
                                                    })
            call.progress.end()
            log = report.log
            linkFailure = report.linkFailure
        } else {
            (log, linkFailure) = try liveSession(settings: settings, calibration: calibration, table: table, link: link, clock: clock,
                                                 journal: journal, call: call, stop: stop)
        }
        let id = try journal?.complete(log)
        try sayIfNotStopped(log, device: site.device, session: id, also: linkFailure)
        var svgPath: String? = nil
        if let svg = a.svg {
            try write(CourtSVG(title: id.map { "Tennis session \($0)" } ?? "Tennis session (dry run)").render(positions: log.positions.map(\.court), launches: log.launches), to: svg)
            svgPath = svg
        }
        let badLines = fileContent?.badLines ?? []
        var text = TennisCommands.SessionReport(log: log, svg: nil).text + "\n" + Tennis.stored(id) + "\(svgPath.map { ", court picture in \($0)" } ?? "")\n"
        if !badLines.isEmpty {
            text += "left out \(badLines.count) bad line\(badLines.count == 1 ? "" : "s") (--skip-bad-rows):\n"
                + badLines.map { "  \($0.description)\n" }.joined()
        }
        if call.isCancelled {
            throw PluginError.cancelled("session\(id.map { " \($0)" } ?? " (dry run)") stopped \(Tennis.stoppedBy(call)) after \(log.summary.launches) launches; the stop command was \(log.summary.stopSent ? "sent" : "not sent")"
                + (id == nil ? " (nothing stored)" : " (stored with the launches before the stop)"))
        }
        return try Reply(encoding: SessionReply(sessionId: id, svg: svgPath, log: log,
                                                  badLines: badLines.map { BadLine(line: $0.location.line, reason: $0.message) }), text: text)
    }

    /// Detections from stdin, line by line, launching as they come.
    private func liveSession(settings: SessionSettings, calibration: CameraCalibration, table: CommandTable, link: BallMachineLink?,
                             clock: SessionClock, journal: SessionJournal?, call: Invocation, stop: () -> Bool) throws -> (SessionLog, String?) {
        let session = try BallMachineSession(settings: settings, table: table, calibration: calibration, link: link, clock: clock,
                                             journal: journal)
        var lines = StandardInputLines()
        var number = 0
        var linkFailure: String? = nil
        do {
            while let line = lines.next(cancelled: stop) {
                number += 1
                do {
                    guard let detection = try DetectionReader.parse(line, line: number, file: "stdin") else { continue }
                    _ = try session.ingest(detection)
                } catch let error as InputError {
                    context.log.warning(error.description)
                    session.rejectDetection(error.description)
                }
            }
        } catch SessionError.machineNotAnswering {
            // In the log; finish() still sends the stop command.
        } catch ExchangeError.stoppedByHost(let why, _) {
            session.stopEarly(why)
        } catch let error as ExchangeError {
            linkFailure = error.description
            session.stopEarly(error.description)
        }
        if call.isCancelled { session.stopEarly("stopped by Ctrl-C") } else if stop() { session.stopEarly("stopped from another client (tennis stop)") }
        return (session.finish(), linkFailure)
    }

    // MARK: demo

    func demo(out: String, _ call: Invocation) throws -> Reply {
        try Files.createDirectory(out)
        let site = try settings()
        let tapsPath = out + "/tennis-demo-taps.json", detectionsPath = out + "/tennis-demo-detections.jsonl"
        try write(TennisDemo.tapsJSON(), to: tapsPath)
        try write(TennisDemo.detectionLines(), to: detectionsPath)
        let calibration = try TennisCommands.calibrate(tapsJSON: TennisDemo.tapsJSON(), file: tapsPath, camera: "demo").calibration
        try store.saveCalibration(calibration, savedAt: Timestamp.now())
        // Against the site's ball machine (the default site's is the host's simulator); dry when the
        // site has none or does not grant it.
        let use = try machine.claim("demo", device: site.device)
        defer { machine.release(use.run) }
        var link: DeviceLink? = nil
        var note = "against device '\(site.device)'"
        do {
            link = try openLink(site, checksum: site.checksum)
        } catch {
            note = "dry run (no ball machine: \(error))"
        }
        // The host's simulator needs no real pacing: the demo's drill runs on a simulated clock
        // (waits take no time; replies are still awaited). A real machine keeps real pacing.
        let simulated = link?.isSimulator ?? false
        if simulated { note += " on a simulated clock" }
        func clock() -> SessionClock { simulated ? SimulatedSessionClock() : MonotonicClock() }
        var settings = SessionSettings(mode: .interactive, speed: site.speed, spin: site.spin, interval: site.interval,
                                       checksum: site.checksum, table: "default", camera: "demo", device: site.device,
                                       dryRun: link == nil, policy: site.policy)
        settings.table = (try? site.table().name) ?? "default"
        let journal = self.journal(call, dryRun: settings.dryRun)
        let report = try TennisCommands.session(detectionsText: TennisDemo.detectionLines(), file: detectionsPath, settings: settings,
                                   calibration: calibration, table: try site.table(), link: link, clock: clock(),
                                   svgTitle: "Tennis demo session", journal: journal, shouldStop: { call.isCancelled })
        let id = try journal?.complete(report.log)
        try sayIfNotStopped(report.log, device: site.device, session: id, also: report.linkFailure)
        if call.isCancelled {
            throw PluginError.cancelled("demo stopped by Ctrl-C during its session after \(report.log.summary.launches) launches (\(id.map { "session \($0) stored with them" } ?? "dry run: nothing stored"); no drill run)")
        }
        let svgPath = out + "/tennis-court.svg", logPath = out + "/tennis-session-log.json"
        try write(report.svg ?? "", to: svgPath)
        try write(JSONWriter.pretty(try JSONBridge.encode(report.log)) + "\n", to: logPath)
        let s = report.log.summary
        // Then a drill on the same machine, saved at the site, with its landing pattern.
        let drillPath = out + "/tennis-demo-drill.json", drillSVGPath = out + "/tennis-drill.svg"
        try write(TennisDemo.drillJSON, to: drillPath)
        let drill = try Drill.parse(TennisDemo.drillJSON, file: drillPath)
        try store.saveDrill(drill, savedAt: Timestamp.now())
        var drillSettings = settings
        drillSettings.camera = nil
        let drillJournal = self.journal(call, dryRun: drillSettings.dryRun,
                                        drill: DrillRunRow(hash: drill.hash, name: drill.name, seed: drill.seed, balls: drill.ballCount))
        let drillRun = try TennisCommands.drillRun(drill, settings: drillSettings, table: try site.table(), link: link, clock: clock(),
                                                   svgTitle: "Tennis demo drill: landing pattern", journal: drillJournal,
                                                   shouldStop: { call.isCancelled })
        drillJournal?.drill?.medianLateMs = drillRun.medianLateMs
        drillJournal?.drill?.maxLateMs = drillRun.maxLateMs
        let drillID = try drillJournal?.complete(drillRun.log)
        try sayIfNotStopped(drillRun.log, device: site.device, session: drillID, also: drillRun.linkFailure)
        if call.isCancelled {
            throw PluginError.cancelled("demo stopped by Ctrl-C during its drill after \(drillRun.log.summary.launches) balls (\(drillID.map { "session \($0) stored with them" } ?? "dry run: nothing stored"))")
        }
        try write(drillRun.svg ?? "", to: drillSVGPath)
        let d = drillRun.log.summary
        let text = "tennis demo \(note): calibrated camera 'demo' (rms \(Format.fixed(calibration.rmsError, 3)) m), "
            + "\(s.launches) launches, \(s.sent) sent, \(s.completed) completed; \(Tennis.stored(id))\n"
            + "drill \"\(drill.name)\" (\(drill.shortHash)): \(d.launches) balls, \(d.completed) completed"
            + (drillRun.maxLateMs.map { ", commands at most \(Format.fixed($0, 3)) ms after their time" } ?? "") + "; \(Tennis.stored(drillID))\n"
            + "  \(svgPath)\n  \(drillSVGPath)\n  \(logPath)\n  \(tapsPath)\n  \(detectionsPath)\n  \(drillPath)\n"
        return Reply(data: ["sessionId": id.map { .int($0) } ?? .null, "launches": .int(s.launches), "sent": .int(s.sent), "completed": .int(s.completed),
                            "svg": .string(svgPath), "log": .string(logPath), "dryRun": .bool(link == nil), "simulatedClock": .bool(simulated),
                            "drillSessionId": drillID.map { .int($0) } ?? .null, "drillBalls": .int(d.launches), "drillCompleted": .int(d.completed),
                            "drillSvg": .string(drillSVGPath), "drillHash": .string(drill.hash)], text: text)
    }
}

/// The plugin's config for a site, validated.
struct SiteSettings {
    var device: String
    var checksum: Checksum
    var interval: Double
    var speed: BallSpeed
    var spin: Spin
    var backspin: Bool
    var policy: ExchangePolicy
    private var calibratedTable: CommandTable?

    init(config: Config, site: String) throws {
        func bad(_ key: String, _ what: String) -> PluginError {
            PluginError.invalidArgument("site '\(site)': tennis config \"\(key)\" \(what); fix it in plugins.json")
        }
        device = config.string("device", default: "ballmachine")
        guard let checksum = Checksum(rawValue: config.string("checksum", default: "xor")) else { throw bad("checksum", "must be \"xor\" or \"modbus\"") }
        self.checksum = checksum
        interval = config.double("interval_s", default: LaunchPlanner.defaultInterval)
        guard LaunchPlanner.intervalRange.contains(interval) else { throw bad("interval_s", "must be 2–9 seconds") }
        guard let speed = try? BallSpeed(mph: config.int("speed_mph", default: 50)) else { throw bad("speed_mph", "must be 20–80 in steps of 10") }
        self.speed = speed
        guard let spin = Spin(rawValue: config.string("spin", default: "topspin")) else { throw bad("spin", "must be a spin name") }
        self.spin = spin
        backspin = config.bool("backspin", default: false)
        let timeout = config.double("reply_timeout_s", default: 2)
        guard timeout > 0, timeout <= 30 else { throw bad("reply_timeout_s", "must be 0–30 seconds") }
        let attempts = config.int("attempts", default: 2)
        guard (1...5).contains(attempts) else { throw bad("attempts", "must be 1–5") }
        policy = ExchangePolicy(replyTimeout: timeout, completionTimeout: timeout, maxAttempts: attempts)
        // A bad table in the site's config is the site's fault, not the request's: a failure (exit 1),
        // not the InputError's bad-request status.
        do {
            if let inline = config.value("table") {
                calibratedTable = try CommandTable.parse(JSONInput(value: inline, file: "plugins.json", base: "/sites/\(site)/plugins/tennis/config/table"))
            } else if let path = config.value("table_file")?.stringValue {
                calibratedTable = try CommandTable.parse(try readFile(path), file: path)
            }
        } catch let error as InputError {
            throw PluginError.failed(error.description)
        }
    }

    func table() throws -> CommandTable { calibratedTable ?? .formula(includeBackspin: backspin) }

    /// The settings of a session or drill: the command's speed, spin and interval where given, else the site's.
    func sessionSettings(mode: SessionSettings.Mode, speed given: Int?, spin: Spin?, interval givenInterval: Double?,
                         dryRun: Bool) throws -> SessionSettings {
        let speed = try given.map { try BallSpeed(mph: $0) } ?? speed
        let spin = spin ?? self.spin
        var interval = self.interval
        if mode == .interactive, let given = givenInterval {
            guard LaunchPlanner.intervalRange.contains(given) else { throw CommandError.invalidInterval(Format(given)) }
            interval = given
        }
        return SessionSettings(mode: mode, speed: speed, spin: spin, interval: interval, checksum: checksum,
                               table: (try? table().name) ?? "default", device: device, dryRun: dryRun,
                               policy: policy)
    }
}

private func Format(_ value: Double) -> String { value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value) }

/// TennisCore's errors are bad requests or bad input files: a one-line message, exit code 2 — a bad
/// argument or frame, a malformed or invalid input file, and taps, pairs or an image point that give no
/// calibration or no court point (the README's exit-code rule on invalid input).
public protocol WrongRequestError: DomainError, CustomStringConvertible {}

extension WrongRequestError {
    public var replyStatus: PluginStatus { .invalidArgument }
    public var replyMessage: String { description }
}

extension CommandError: WrongRequestError {}
extension FrameError: WrongRequestError {}
extension InputError: WrongRequestError {}
extension CalibrationError: WrongRequestError {}
extension HomographyError: WrongRequestError {}
extension ProjectionError: WrongRequestError {}

func readFile(_ path: String) throws -> String {
    guard let bytes = try? Files.read(path) else {
        if Files.isDirectory(path) { throw PluginError.invalidArgument("\(path) is a folder, not a file; give the path of the file to read") }
        throw PluginError.notFound(Files.exists(path) ? "cannot read \(path); check its permissions" : "no file \(path); check the path")
    }
    return String(decoding: bytes, as: UTF8.self)
}

func write(_ text: String, to path: String) throws {
    try Files.write(path, text: text)
}

@_cdecl("clubhouse_plugin_entry")
public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? { export(Tennis.self, info) }

// MARK: TennisCore's other interfaces on the host: the ball machine on a device, a real clock,
// live detection lines from standard input.

/// The ball machine as the host's device service gives it, with its stop command registered as the
/// device's safe state; it can reconnect (a new connection to the same device) to send a stop after
/// the connection dropped.
final class DeviceLink: BallMachineLink {
    private(set) var device: Device
    private let open: () throws -> Device
    private let checksum: Checksum

    init(checksum: Checksum, open: @escaping () throws -> Device) throws {
        self.open = open
        self.checksum = checksum
        device = try open()
        try registerSafeState()
    }

    /// The stop command, acknowledged by "accepted" (the host sends it itself when a call leaves the
    /// machine running).
    private func registerSafeState() throws {
        try device.setSafeState(frame: CommandFrame.stop.encode(checksum: checksum).array,
                                acknowledgement: ReplyFrame(code: .accepted).encode(checksum: checksum).array,
                                timeoutMilliseconds: 2000)
    }

    /// Whether the device is the host's built-in simulator.
    var isSimulator: Bool { device.isSimulator }

    func write(_ bytes: [UInt8]) throws {
        do { try device.write(bytes) } catch { throw DeviceLink.translate(error) }
    }

    func read(max: Int, timeout: Double) throws -> [UInt8] {
        let ms = timeout.isFinite ? Int(saturating: (Swift.max(0, timeout) * 1000).rounded(.up)) : 0
        do { return try device.read(upTo: max, timeoutMilliseconds: Swift.min(ms, 60_000)) } catch { throw DeviceLink.translate(error) }
    }

    /// A new connection to the device; the old one is closed once the new one is in place (so the
    /// host does not stop the machine on its own meanwhile).
    func reconnect() throws {
        let old = device
        device = try open()
        try registerSafeState()
        old.close()
    }

    /// A device call fails with status `cancelled` only once the host took the device over to stop
    /// the machine (device.h `set_safe_state`; the next call waits for its outcome: `cancelled` when
    /// the machine acknowledged); anything else is a link failure.
    static func translate(_ error: any Error) -> any Error {
        guard let e = error as? PluginError, e.status == .cancelled else { return error }
        return MachineStoppedByHost(e.message, acknowledged: true)
    }
}

/// CLOCK_MONOTONIC in seconds (TennisCore's, so that benchmarks time the same clock).
typealias MonotonicClock = SystemSessionClock

/// Lines from standard input, waiting in short polls so a cancelled call is noticed.
struct StandardInputLines {
    private var buffer: [UInt8] = []
    private var atEnd = false

    /// The next line (without its newline), or nil at end of input or when `cancelled()` turns true.
    mutating func next(cancelled: () -> Bool) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return line
            }
            if cancelled() { return nil }
            var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 200)
            if ready < 0 && errno != EINTR { atEnd = true; continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                atEnd = true
            } else {
                buffer.append(contentsOf: chunk[0..<n])
            }
        }
    }
}

enum Timestamp {
    /// Now in UTC, ISO 8601 to the millisecond.
    static func now() -> String { UTCClock.iso8601NowMilliseconds() }
}
