// PracticePlugin: the thin adapter from PracticeCore to PluginKit. Each command reads its files,
// hands a request to a Core function and replies with the Core result's JSON and text. Storage is
// the plugin's own SQLite database through `SQLPracticeStore`, with the schema of `PracticeSchema`.

import CClubhouse
import ClubhouseJSON
import PluginKit
import PracticeCore
#if canImport(Glibc)
import Glibc
#endif

final class Practice: Plugin {
    static let info = PluginInfo(
        id: "org.clubhouse.practice", version: "1.6.2", name: "Practice",
        summary: "Golf practice analytics: canonical JSON hashes, Rapsodo MLM2PRO import, KPI templates, A/B/C grading, trends",
        services: [.log, .config, .storage, .progress])

    static let commands: [Command<Practice>] = [
        Command("canonicalize", summary: "Print the canonical form of a JSON document",
                arguments: CanonicalizeArguments.self, reply: "{profile, canonical, sha256}") { _, a, call in
            let request = CanonicalizeRequest(profile: a.profile.profile, input: try Files.read(a.file), sourceName: a.file)
            return try encodedReply(call, try CanonicalCommands.canonicalize(request), text: { $0.text })
        },
        Command("hash", summary: "Print the SHA-256 of a document's canonical form (one per line with --jsonl)",
                help: "With --jsonl every LF-terminated line is a document (a raw U+2028 inside a string is not a line end). "
                    + "A line that is not valid JSON makes the command fail (exit 2) naming it as file:line:column; with "
                    + "--skip-bad-lines it prints ERROR file:line:column: message in its place and the others still hash.",
                arguments: HashArguments.self,
                reply: "{profile, documents: [{line, sha256, error}], errors} (without --json: {profile, count, errors})") { _, a, call in
            let request = HashRequest(profile: a.profile.profile, input: try Files.read(a.file), sourceName: a.file, jsonLines: a.jsonl)
            let result: HashResult
            result = try CanonicalCommands.hash(request)
            if result.errorCount > 0 && !a.skipBadLines,
               let first = result.documents.first(where: { $0.error != nil })?.error {
                let n = result.errorCount, total = result.documents.count
                throw PluginError.invalidArgument("\(first) (\(n) of \(total) lines \(n == 1 ? "is" : "are") not valid JSON; "
                    + "nothing was hashed — fix them, or pass --skip-bad-lines to hash the others and list the bad)")
            }
            // A big --jsonl result goes out once: as data for --json and JSON-RPC, as text otherwise
            // (then data holds only the counts).
            return call.wantsMachineOutput ? Reply(data: result.json) : Reply(data: result.summaryJSON, text: result.text + "\n")
        },
        Command("template add", summary: "Add a KPI template (hashed once; the first for a club becomes its active one)",
                help: """
                    A template: {"schema_version": "1.0", "club": "7i", "aggregation_method": "worst_metric",
                    "metrics": {"ball_speed": {"a_min": 104, "b_min": 100}, "spin_rate": {"direction": "lower_is_better",
                    "a_max": 3000, "b_max": 3500}}}. Metrics: ball_speed, smash_factor, spin_rate, descent_angle, carry.
                    """,
                arguments: TemplateFileArguments.self,
                reply: "{template: {hash, club, display_name, source, active, hidden, inserted_at, thresholds}, already_stored, activated, warnings}") { plugin, a, call in
            let shown = try call.shownName(ofPath: "file")
            let bytes = try Files.read(a.file)
            return try plugin.run(call) { try $0.add(bytes, sourceName: shown) } text: { $0.text }
        },
        Command("template list", summary: "List the KPI templates (bundled defaults included)",
                arguments: TemplateListArguments.self,
                reply: "{templates: [{hash, club, display_name, source, active, hidden, inserted_at, thresholds}], includes_hidden}") { plugin, a, call in
            try plugin.run(call) { try $0.list(club: a.club, includeHidden: a.all) } text: { $0.text }
        },
        Command("template show", summary: "Show a template: thresholds and the canonical JSON its hash is of",
                arguments: TemplateArguments.self, reply: "{template, canonical_json}") { plugin, a, call in
            try plugin.run(call) { try $0.show(a.template) } text: { $0.text }
        },
        Command("template activate", summary: "Make a template the one its club is graded with",
                arguments: TemplateArguments.self,
                reply: "{hash, club, display_name, source, active, hidden, inserted_at, thresholds}") { plugin, a, call in
            try plugin.run(call) { try $0.activate(a.template) } text: { "\($0.hash) is now the active template for \($0.club)\n" }
        },
        Command("template hide", summary: "Hide a template from the list (history keeps it)",
                arguments: TemplateHideArguments.self,
                reply: "{hash, club, display_name, source, active, hidden, inserted_at, thresholds}") { plugin, a, call in
            try plugin.run(call) { try $0.hide(a.template, hidden: !a.unhide) } text: {
                "\($0.hash) is \($0.hidden ? "hidden" : "shown again")\n"
            }
        },
        Command("template rename", summary: "Set a template's display name (content and hash never change)",
                arguments: TemplateRenameArguments.self,
                reply: "{hash, club, display_name, source, active, hidden, inserted_at, thresholds}") { plugin, a, call in
            try plugin.run(call) { try $0.rename(a.template, to: a.name) } text: {
                "\($0.hash) is now named \($0.displayName.map { "'\($0)'" } ?? "nothing")\n"
            }
        },
        Command("template duplicate", summary: "Make a new template from one, for another club or with other thresholds",
                arguments: TemplateDuplicateArguments.self, reply: "{template, already_stored, activated, warnings}") { plugin, a, call in
            try plugin.run(call) { try $0.duplicate(a.template, club: a.club, name: a.name, changes: a.set ?? []) } text: { $0.text }
        },
        Command("import", summary: "Import a Rapsodo MLM2PRO CSV export as one session, graded per club",
                help: "Each club is graded by the --template given for it, else by its active template (yours, or the bundled "
                    + "default). The same session is never imported twice: a copy saved with a BOM, CRLF line endings or "
                    + "trailing spaces is the same content. A row that is not a shot (wrong number of cells, binary bytes, "
                    + "an unknown club, a cell that is not a number) refuses the whole file, naming its line; "
                    + "--skip-bad-rows imports the good rows and lists the bad ones. Club labels: spaces and tabs around "
                    + "are trimmed; words split at spaces, tabs, - _ . / and between digits and letters; ASCII letters "
                    + "case-folded; the words must spell a known club (Driver/DR/1W, 3W/3 Wood, 4H/4 Hybrid, 7i/7 Iron, "
                    + "PW, GW/AW, SW, LW, a 40-70° wedge like 56°, Putter). Any other character or club is an error, "
                    + "never dropped. An empty file is an error.",
                arguments: ImportArguments.self, longRunning: true,
                reply: "{session: {id, content_hash, source_name, imported_at, session_date, location, title, shot_count}, clubs: [{analysis, template_name}], footer_rows, repeated_headers, blank_rows, bad_rows: [{line, reason}]}") { plugin, a, call in
            let path = a.csv
            let csv = try Files.read(path)
            var templates: [TemplateArgument] = []
            for item in a.template ?? [] {
                let file = item.hasPrefix("/") ? item : Files.join(call.cwd, item)
                templates.append(Files.exists(file) && !Files.isDirectory(file)
                    ? .file(name: item, bytes: try Files.read(file, limit: 1 << 20)) : .reference(item))
            }
            let request = ImportRequest(csv: csv, sourceName: try call.shownName(ofPath: "csv"), templates: templates, date: a.date,
                                        location: a.location, skipBadRows: a.skipBadRows)
            var phase: ImportProgress.Phase? = nil
            let progress = call.progress
            defer { if phase != nil { progress.end() } }
            return try plugin.withLibrary(call, { (library: TemplateLibrary) -> ImportResult in
                try SessionImporter(library: library).run(request, progress: { p in
                    if p.phase != phase {
                        if phase != nil { progress.end() }
                        phase = p.phase
                        // Reading counts the file's bytes (the bar shows MiB and MiB/s), writing counts shots.
                        progress.begin(p.phase == .reading ? "reading \(baseName(path))" : "writing shots", total: p.total,
                                       unit: p.phase == .reading ? .bytes : .items)
                    }
                    progress.update(p.done)
                }, cancelled: { call.isCancelled })
            }, text: { $0.text })
        },
        Command("regrade", summary: "Grade stored sessions again under another template (a new analysis; shots never change)",
                help: "Appends one analysis per session and club under the template; the import's analysis stays. "
                    + "Trends show it with --template. All new analyses are written in one transaction.",
                arguments: RegradeArguments.self, longRunning: true,
                reply: "{template_hash, club, regraded: [{session_id, analysis, import_analysis}], already_graded, shots_graded}") { plugin, a, call in
            let request = RegradeRequest(template: a.template, sessionID: a.session.map(Int64.init), all: a.all)
            let progress = call.progress
            var began = false
            defer { if began { progress.end() } }
            return try plugin.withLibrary(call, { (library: TemplateLibrary) -> RegradeResult in
                try Regrader(library: library).run(request, progress: { done, total in
                    if !began { progress.begin("re-grading sessions", total: total); began = true }
                    progress.update(done)
                }, cancelled: { call.isCancelled })
            }, text: { $0.text })
        },
        Command("sessions", summary: "List the imported sessions",
                reply: "{sessions: [{session, clubs}]}") { plugin, call in
            return try plugin.withLibrary(call, { try SessionQueries(library: $0).sessions() }, text: { $0.text })
        },
        Command("session delete", summary: "Delete an imported session for good: its shots and analyses leave every trend (logged)",
                help: "Facts are never changed; deleting a whole session is the one exception, logged with its time and reason in "
                    + "the database. It is confirmed: on a terminal you are asked, in scripts pass --yes. A session a live "
                    + "recording wrote cannot be deleted. Importing the same file again later makes a new session.",
                arguments: SessionDeleteArguments.self, reply: "{session, deleted_at, reason}") { plugin, a, call in
            try plugin.withLibrary(call, { try SessionDeletion(library: $0).delete(Int64(a.id), reason: a.reason, confirmed: a.yes, now: isoNow()) },
                                          text: { $0.text })
        },
        Command("session", summary: "Show a session: each club's counts, validity, A% and averages (all shots and A shots)",
                arguments: SessionArguments.self,
                reply: "{session, clubs: [{analysis: {club, template_hash, shot_count, a_count, b_count, c_count, validity, a_percent, averages_all_shots, averages_a_only}, template_name}], shots: [{row_index, club, grade, measurements, raw}]}") { plugin, a, call in
            try plugin.withLibrary(call, { try SessionQueries(library: $0).session(Int64(a.id), includeShots: a.shots) }, text: { $0.text })
        },
        Command("trends", summary: "A club's A% over sessions (weighted by shots), or its A-shot averages, as a table and a chart",
                arguments: TrendsArguments.self,
                reply: "{club, a_only, min_validity, chart_metric, pinned_template, points: [{session_id, date, shot_count, a_count, validity, a_percent, template_hash, a_only_averages}], excluded, weighted_a_percent, weighted_a_only_averages}") { plugin, a, call in
            var request = TrendRequest(club: a.club, aOnly: a.aOnly, minValidity: a.minValidity.validity, chartMetric: a.metric.metric)
            let svgPath = a.svg
            let trend: TrendResult
            do {
                if let reference = a.template {
                    request.templateHash = try TemplateLibrary(store: plugin.store, now: isoNow).resolve(reference).hash
                }
                trend = try TrendQuery(store: plugin.store).run(request)
            }
            if let svgPath { try Files.write(svgPath, text: TrendChart.svg(trend)) }
            return Reply(data: try JSONBridge.encode(trend),
                         text: call.wantsMachineOutput ? nil : trend.text + (svgPath.map { "chart: \($0)\n" } ?? ""))
        },
        Command("dispersion", summary: "Where a club's shots land: carry and side spread, the 95% ellipse, mishits excluded",
                help: "A mishit is a shot whose carry has a modified z-score |0.6745·(carry − median)/MAD| above 3.5; it is drawn "
                    + "but left out of the numbers. The ellipse is the 95% covariance ellipse of (side, carry) (chi-square, 2 dof, 5.991).",
                arguments: DispersionArguments.self,
                reply: "{club, shots: [{session_id, row_index, carry, side, total, z, mishit}], unmeasured, kept, mishits, carry_mean, carry_sd, side_mean, side_sd, total_mean, total_sd, ellipse: {center_side, center_carry, variance_side, variance_carry, covariance, semi_major, semi_minor, angle_degrees}, rule}") { plugin, a, call in
            let svgPath = a.svg
            let result = try DispersionQuery(store: plugin.store).club(a.club, sessionID: a.session.map(Int64.init))
            if let svgPath { try Files.write(svgPath, text: DispersionChart.svg(result)) }
            return Reply(data: try JSONBridge.encode(result),
                         text: call.wantsMachineOutput ? nil : result.text + (svgPath.map { "picture: \($0)\n" } ?? ""))
        },
        Command("distances", summary: "Distance table per club: carry mean and spread, total, side spread (mishits excluded)",
                arguments: DistancesArguments.self,
                reply: "{clubs: [{club, kept, mishits, carry_mean, carry_sd, total_mean, total_sd, side_mean, side_sd, ellipse, …}], session_id}") { plugin, a, call in
            let svgPath = a.svg
            let table = try DispersionQuery(store: plugin.store).distances(sessionID: a.session.map(Int64.init))
            if let svgPath { try Files.write(svgPath, text: DispersionChart.svg(table)) }
            var data = try JSONBridge.encode(table)
            // The table's JSON keeps the numbers; each club's shot list is for `dispersion`.
            if case .object(var o) = data, case .array(let clubs) = o["clubs"] ?? .null {
                o["clubs"] = .array(clubs.map { c in
                    guard case .object(var club) = c else { return c }
                    club["shots"] = nil
                    return .object(club)
                })
                data = .object(o)
            }
            return Reply(data: data, text: call.wantsMachineOutput ? nil : table.text + (svgPath.map { "chart: \($0)\n" } ?? ""))
        },
        Command("live", summary: "Record shots as a launch monitor sends them (GSPro Open Connect JSON) from a site device",
                help: "Reads the device the site maps NAME to (tcp or unix transport; grant \"device:NAME\"). Each shot is graded "
                    + "with its club's active template and stored as it lands (one transaction each), and shown on the terminal. "
                    + "When the stream ends, drops, goes quiet past --idle-timeout or gets Ctrl-C, the session is closed with "
                    + "the shots received. Open Connect names no club: give --club unless the messages carry \"Club\".",
                arguments: LiveArguments.self, longRunning: true,
                reply: "{live_session_id, device, started_at, session, clubs, shots: [{shot_number, club, grade, template_hash, measurements, latency_ms}], heartbeats, reason, latency: {count, median, p95, max}, recovered}") { plugin, a, call in
            let name = a.device
            let idle = a.idleTimeout
            if let idle, !(idle > 0 && idle <= 86_400) {
                throw ArgumentError("idle-timeout", "\(idle) is not between 0 and 86400 seconds")
            }
            let maxShots = a.maxShots
            if let maxShots, maxShots < 1 { throw ArgumentError("max-shots", "must be at least 1") }
            // An unknown --club is refused before the device is opened.
            let defaultClub = try a.club.map { (c) throws(PracticeError) in try ClubName.option(c) }
            let device = try call.context.devices().open(name)
            defer { device.close() }
            let recorder = LiveRecorder(library: TemplateLibrary(store: plugin.store, now: isoNow), device: name,
                                        defaultClub: defaultClub)
            let quiet = call.wantsMachineOutput
            let result: LiveSessionResult
            do {
                try recorder.start()
                if !quiet { LiveSimulator.say("recording live session on \(name); waiting for shots") }
                let loop = LiveSessionLoop(idleTimeoutMilliseconds: idle.map { Int($0 * 1000) }, maxShots: maxShots)
                let pollMilliseconds = 200
                result = try loop.run(recorder, read: {
                    do {
                        let bytes = try device.read(upTo: 65_536, timeoutMilliseconds: pollMilliseconds)
                        return bytes.isEmpty ? .timeout(pollMilliseconds) : .bytes(bytes)
                    } catch {
                        let message = "\(error)"
                        return message.contains("closed by the device") ? .ended : .dropped(message)
                    }
                }, cancelled: { call.isCancelled }, onShot: { shot in
                    if !quiet { LiveSimulator.say(shot.line) }
                })
            }
            return Reply(data: try JSONBridge.encode(result), text: quiet ? nil : result.text)
        },
        Command("live-sim", summary: "Replay an MLM2PRO export as a live launch monitor (Open Connect over a socket), for demos and tests",
                help: "Listens on --listen, waits for one client (e.g. practice live through a site device pointing there), sends one "
                    + "message per shot, then closes. --fault ends with a dropped connection, an out-of-order shot or garbage.",
                arguments: LiveSimArguments.self, longRunning: true, reply: "{listen, shots, sent, ending}") { _, a, call in
            let messages = try OpenConnectSimulator.messages(try Files.read(a.csv), sourceName: a.csv, deviceID: a.deviceID)
            guard (0...60_000).contains(a.intervalMs) else { throw ArgumentError("interval-ms", "must be 0–60000") }
            guard a.faultAfter >= 0, (1...3600).contains(a.acceptTimeout) else {
                throw PluginError.invalidArgument("--fault-after must be ≥ 0 and --accept-timeout 1–3600 seconds")
            }
            let simulator = LiveSimulator(messages: messages, listen: a.listen, intervalMilliseconds: a.intervalMs, fault: a.fault,
                                          faultAfter: a.faultAfter, acceptTimeoutMilliseconds: a.acceptTimeout * 1000)
            let (sent, ending) = try simulator.run(cancelled: { call.isCancelled })
            let data: JSONValue = ["listen": .string(simulator.listen), "shots": .int(messages.count), "sent": .int(sent),
                                   "ending": .string(ending)]
            return Reply(data: data, text: "sent \(sent) of \(messages.count) shots to \(simulator.listen); \(ending)\n")
        },
        Command("export", summary: "Print a session summary as canonical JSON (raid-v2); --json adds its SHA-256",
                arguments: ExportArguments.self, reply: "{summary, canonical_json, sha256}") { plugin, a, call in
            let out = a.out
            return try plugin.withLibrary(call, { (library: TemplateLibrary) -> SessionSummary in
                let summary = try SessionQueries(library: library).export(Int64(a.id))
                if let out { try Files.write(out, text: summary.canonicalJSON) }
                return summary
            }, text: { $0.text })
        },
        Command("demo", summary: "Generate six weeks of MLM2PRO sessions, import and grade them, chart the 7-iron trend",
                arguments: DemoArguments.self, reply: "{files, sessions, trend, svg}") { plugin, a, call in
            let out = a.out
            // Into this site's database when it has no sessions yet (so the demo leaves data to browse);
            // a database that already holds sessions is left alone and the demo runs in memory.
            let empty = try plugin.store.sessions().isEmpty
            let store: any PracticeStore = empty ? plugin.store : InMemoryPracticeStore()
            let demo: DemoResult
            demo = try PracticeDemo.run(store: store, now: isoNow)
            try Files.createDirectory(out)
            for file in demo.files { try Files.write(Files.join(out, file.name), text: file.csv) }
            let svg = Files.join(out, "trend-\(PracticeDemo.club).svg")
            try Files.write(svg, text: demo.svg)
            var written = demo.files.map { Files.join(out, $0.name) } + [svg]
            if let last = demo.sessions.last {
                let library = TemplateLibrary(store: store, now: isoNow)
                do {
                    let summary = try SessionQueries(library: library).export(last.session.id)
                    let path = Files.join(out, "session-\(last.session.id)-summary.json")
                    try Files.write(path, text: summary.canonicalJSON)
                    written.append(path)
                }
            }
            // 1.1: where the 7-iron lands, the bag's distances, and a live session replayed from the
            // last export through the Open Connect path (parser, per-shot store, close), in process.
            let extras: (dispersion: ClubDispersion, live: LiveSessionResult, template: TemplateRow?)
            do {
                let query = DispersionQuery(store: store)
                let dispersion = try query.club(PracticeDemo.club)
                let dispersionSVG = Files.join(out, "dispersion-\(PracticeDemo.club).svg")
                try Files.write(dispersionSVG, text: DispersionChart.svg(dispersion))
                let distancesSVG = Files.join(out, "distances.svg")
                try Files.write(distancesSVG, text: DispersionChart.svg(try query.distances()))
                written += [dispersionSVG, distancesSVG]
                let messages = try OpenConnectSimulator.messages(Array((demo.files.last?.csv ?? "").utf8), sourceName: "demo")
                var queue: [LiveRead] = messages.prefix(12).map { .bytes(Array(($0 + "\n").utf8)) }
                let library = TemplateLibrary(store: store, now: isoNow)
                let liveTemplate = try PracticeDemo.liveTemplate(library: library)
                let recorder = LiveRecorder(library: library, device: "simulator", defaultClub: nil)
                try recorder.start()
                let live = try LiveSessionLoop().run(recorder, read: { queue.isEmpty ? .ended : queue.removeFirst() })
                extras = (dispersion, live, liveTemplate)
            }
            var text = demo.text
            text += extras.dispersion.text
            if let t = extras.template {
                text += "live shots are graded by template \(t.shortHash) \"\(t.displayName ?? "")\", now active for \(t.club)\n"
            }
            text += "live session from the simulator (12 shots of the last export as Open Connect messages):\n"
            text += extras.live.shots.map { "  " + $0.line + "\n" }.joined() + extras.live.text
            text += empty ? "(the sessions are in this site's practice database)\n"
                : "(this site's practice database already had sessions; the demo ran in memory)\n"
            text += "written: " + written.joined(separator: ", ") + "\n"
            var data = try JSONBridge.encode(demo)
            if case .object(var o) = data {
                o["files"] = .array(written.map(JSONValue.string))
                o["svg"] = .string(svg)
                o["dispersion"] = try JSONBridge.encode(extras.dispersion)
                o["live"] = try JSONBridge.encode(extras.live)
                if let t = extras.template { o["live_template"] = try JSONBridge.encode(t) }
                data = .object(o)
            }
            return Reply(data: data, text: text)
        },
    ]

    let context: PluginContext
    let store: SQLPracticeStore

    init(context: PluginContext) throws {
        self.context = context
        let storage = try context.storage()
        try storage.migrate(PracticeSchema.migrations)
        store = SQLPracticeStore(storage: storage)
    }

    /// Runs a template-library command.
    func run<T: Encodable>(_ call: Invocation, _ body: (TemplateLibrary) throws -> T, text: (T) -> String) throws -> Reply {
        try withLibrary(call, body, text: text)
    }

    /// Runs a command that needs the library (and through it the store), replying with its JSON and text.
    func withLibrary<T: Encodable>(_ call: Invocation, _ body: (TemplateLibrary) throws -> T,
                                   text: (T) -> String) throws -> Reply {
        let library = TemplateLibrary(store: store, now: isoNow)
        // Sessions, shots and deletions stored by this call are published in their own transactions.
        store.publisher = call.outbox.isAvailable ? { topic, key, body in try call.outbox.publish(topic: topic, key: key, body) } : nil
        defer { store.publisher = nil }
        do {
            return try encodedReply(call, try body(library), text: text)
        } catch let error as PracticeError where error.kind == .storage && call.isCancelled {
            // The host interrupts the statement of a call it cancelled (Ctrl-C): that is the cancel
            // reaching the plugin, not a storage failure (exit 130, not 1). The interrupted statement,
            // and the transaction it was in, changed nothing.
            throw PracticeError.cancelled("cancelled while writing to the practice database; nothing of what was being "
                + "written was kept — run the command again (\(error.message))")
        }
    }
}

/// The reply for a Core result: its JSON, and its text unless only JSON is wanted.
func encodedReply<T: Encodable>(_ call: Invocation, _ result: T, text: (T) -> String) throws -> Reply {
    Reply(data: try JSONBridge.encode(result), text: call.wantsMachineOutput ? nil : text(result))
}

/// Domain errors as replies: bad requests and bad input exit 2, unknown things are "not found",
/// a request that contradicts stored state is `constraint` (HTTP 409), storage trouble a failure.
extension PracticeError: DomainError {
    public var replyStatus: PluginStatus {
        switch kind {
        case .usage, .invalidInput: return .invalidArgument
        case .notFound: return .notFound
        case .conflict: return .constraint
        case .storage: return .error
        case .cancelled: return .cancelled
        case .unconfirmed: return .needsConfirmation
        }
    }
    /// The core names arguments by their fields; the command line's word for one is its flag (the
    /// host words a leading flag its own way for JSON-RPC and HTTP: PluginKit's ArgumentError).
    public var replyMessage: String { message(naming: { "--" + $0 }) }
}

func baseName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

/// The current time in UTC, ISO 8601 to the second.
@Sendable func isoNow() -> String { UTCClock.iso8601Now() }

@_cdecl("clubhouse_plugin_entry")
public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? { export(Practice.self, info) }

// MARK: - `practice live-sim`: a stand-in launch monitor connector. It listens on a Unix socket or a
// TCP port, waits for one client (the host's device transport, connecting for `practice live`), and
// replays an MLM2PRO export as GSPro Open Connect messages, optionally with a fault at the end.

enum SimulatorFault: String, ArgumentChoice {
    /// Half of the next message, then the connection closes.
    case drop
    /// The last message's ShotNumber again (out of order).
    case duplicate
    /// A line that is not JSON.
    case garbage
}

struct LiveSimulator {
    let messages: [String]
    let listen: String
    let intervalMilliseconds: Int
    let fault: SimulatorFault?
    let faultAfter: Int
    let acceptTimeoutMilliseconds: Int

    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Writes one line to standard error (the host passes it through; stdout carries the reply).
    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBufferPointer { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    /// Opens the listening socket: `unix:PATH` or `tcp:HOST:PORT`.
    func openListener() throws -> Int32 {
        if listen.hasPrefix("unix:") {
            let path = String(listen.dropFirst(5))
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw PluginError(.io, "live-sim: socket: \(Self.errnoText())") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                close(fd)
                throw PluginError.invalidArgument("--listen unix:\(path): the socket path is empty or longer than 107 bytes")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            var st = stat()
            if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard rc == 0, Glibc.listen(fd, 1) == 0 else {
                let reason = Self.errnoText()
                close(fd)
                throw PluginError(.io, "live-sim: cannot listen on unix:\(path): \(reason)")
            }
            return fd
        }
        if listen.hasPrefix("tcp:") {
            let rest = listen.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]) else {
                throw PluginError.invalidArgument("--listen \(listen): use tcp:HOST:PORT (eg: tcp:127.0.0.1:49152) or unix:PATH")
            }
            let host = String(rest[..<colon])
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw PluginError(.io, "live-sim: socket: \(Self.errnoText())") }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
                close(fd)
                throw PluginError.invalidArgument("--listen \(listen): '\(host)' is not an IPv4 address")
            }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0, Glibc.listen(fd, 1) == 0 else {
                let reason = Self.errnoText()
                close(fd)
                throw PluginError(.io, "live-sim: cannot listen on \(listen): \(reason)")
            }
            return fd
        }
        throw PluginError.invalidArgument("--listen \(listen): use unix:PATH or tcp:HOST:PORT")
    }

    /// Serves one client; returns (messages sent, what happened at the end).
    func run(cancelled: () -> Bool) throws -> (sent: Int, ending: String) {
        let listener = try openListener()
        defer {
            close(listener)
            if listen.hasPrefix("unix:") { unlink(String(listen.dropFirst(5))) }
        }
        Self.say("listening on \(listen): \(messages.count) shots to replay")
        // Wait for the client in short polls so Ctrl-C is noticed; bounded by the accept timeout.
        var waited = 0
        var client: Int32 = -1
        while client < 0 {
            if cancelled() { throw PluginError.cancelled("live-sim stopped before a client connected") }
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 200) == 1 { client = accept(listener, nil, nil) }
            waited += 200
            if client < 0 && waited >= acceptTimeoutMilliseconds {
                throw PluginError(.timeout, "live-sim: no client connected to \(listen) within \(acceptTimeoutMilliseconds / 1000) s")
            }
        }
        defer { close(client) }
        Self.say("client connected")
        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBufferPointer { Glibc.send(client, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        var sent = 0
        let limit = fault == nil ? messages.count : min(faultAfter, messages.count)
        for message in messages.prefix(limit) {
            if cancelled() { return (sent, "cancelled") }
            guard send(message + "\n") else { return (sent, "the client went away") }
            sent += 1
            if intervalMilliseconds > 0 { usleep(useconds_t(intervalMilliseconds) * 1000) }
        }
        switch fault {
        case nil: return (sent, "all shots sent")
        case .drop:
            let next = messages.count > limit ? messages[limit] : (messages.last ?? "{}")
            _ = send(String(next.prefix(next.count / 2)))
            return (sent, "dropped the connection in the middle of message \(sent + 1)")
        case .duplicate:
            _ = send((messages[max(limit - 1, 0)]) + "\n")
            usleep(100_000)
            return (sent, "sent message \(max(limit, 1)) again (out of order)")
        case .garbage:
            _ = send("this is not json\n")
            usleep(100_000)
            return (sent, "sent a line that is not JSON")
        }
    }
}
