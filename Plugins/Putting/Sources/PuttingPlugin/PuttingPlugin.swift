// PuttingPlugin: the thin adapter from PuttingCore to PluginKit. Each command turns its arguments
// into a Core request, runs it through `PuttingService` on the plugin's own SQLite database
// (`SQLPuttingStore`), and replies with the Core result's JSON and text. `bestline --async` submits
// a job and asks the host to run `job run ID` in the background (`book --async` likewise, a batch of
// positions stored at a time so a stopped book job goes on where it stopped); jobs left running by a host that
// stopped are queued again when the plugin starts. `hole process` builds heightfields from traced
// contours with a progress bar; `hole export` writes them back in the original format.

import CClubhouse
import ClubhouseJSON
import PluginKit
import PuttingCore

final class Putting: Plugin {
    static let info = PluginInfo(
        id: "org.clubhouse.putting", version: "1.6.3", name: "Putting",
        summary: "Green catalog, best putting lines (physics model or the original's compat model), async jobs, SVG and 3D pictures",
        services: [.log, .config, .storage, .progress])

    static let commands: [Command<Putting>] = [
        Command("course import", summary: "Import a course folder in the original layout (Hole_N/ or hole_N/ folders)",
                help: """
                    Each hole folder holds config.json (extents, hole location), *_boundary.json, *_contours.json and
                    *_heightfield.json with its .bin (in the folder or in unity/). A hole without a heightfield is kept as
                    its traced boundary and contours ("source only") until `putting hole process` builds it; --process
                    builds them during the import, --sources-only ignores the heightfield files (every green is built
                    from its traced files). Everything is checked (and processed) before anything is written; importing
                    an existing id replaces its holes.
                    """,
                arguments: CourseImportArguments.self, longRunning: true,
                reply: "{course: {id, name, city, state}, replaced, holes: [{course, hole, status, greenWidthFt, greenHeightFt, holeXFt, holeZFt, grid, heightfieldHash, boundary, contours, traced, source}], processed: [hole]}") { plugin, a, call in
            let request = CourseImportRequest(directory: a.dir, id: a.id, name: a.name, city: a.city, state: a.state,
                                              process: a.process, sourcesOnly: a.sourcesOnly)
            if request.process { call.progress.begin("processing traced greens", total: 1000) }
            defer { if request.process { call.progress.end() } }
            return try plugin.reply(call) {
                try $0.importCourse(request, progress: { call.progress.update(Int(($0 * 1000).rounded())) },
                                    isCancelled: { call.isCancelled })
            }
                json: { $0.json } text: { $0.text }
        },
        Command("hole process", summary: "Build a hole's heightfield from its traced contours and boundary, and store it",
                help: """
                    The original "process hole" step: samples along the traced contours, a thin-plate spline with a
                    linear term (smoothing 0.25), the 0.5 ft grid, the nodes strictly inside the boundary, shifted so the
                    lowest is 0. The heightfield is stored with its content hash like an imported one; on any error
                    nothing is stored. --all processes every hole of the course that has no heightfield yet, all or none.
                    """,
                arguments: HoleProcessArguments.self, longRunning: true,
                reply: "{course, holes: [{course, hole, status, …, heightfieldHash, previous, processing: {nx, nz, resolution_ft, x_min_ft, z_min_ft, insideNodes, samples, shiftFt, conditionEstimate, warnings, timings}}], skipped: [hole]}") { plugin, a, call in
            let request = HoleProcessRequest(course: a.course, hole: a.hole, all: a.all)
            call.progress.begin(request.all ? "processing \(request.course)" : "processing hole \(request.hole.map(String.init) ?? "?")", total: 1000)
            defer { call.progress.end() }
            return try plugin.reply(call) {
                try $0.processHoles(request, progress: { call.progress.update(Int(($0 * 1000).rounded())) },
                                    isCancelled: { call.isCancelled })
            }
                json: { $0.json } text: { $0.text }
        },
        Command("hole export", summary: "Write a hole's stored heightfield in the original format (Hole_N_heightfield.json + .bin)",
                arguments: HoleExportArguments.self, reply: "{course, hole, status, heightfieldHash, out, files: [{name, bytes}]}") { plugin, a, call in
            let course = a.course, number = a.hole, out = a.out
            let export = try plugin.service.exportHole(course: course, number: number)
            try Files.createDirectory(out)
            for file in export.files { try Files.write(Files.join(out, file.name), file.bytes) }
            return Reply(data: export.json(directory: out), text: call.wantsMachineOutput ? nil : export.text(directory: out) + "\n")
        },
        Command("hole import", summary: "Import one hole from a heightfield .json (its .bin beside it)",
                arguments: HoleImportArguments.self, reply: "{course, replaced, holes: [hole]}") { plugin, a, call in
            let request = HoleImportRequest(course: a.course, hole: a.hole, heightfieldPath: a.heightfield)
            return try plugin.reply(call) { try $0.importHole(request) } json: { $0.json } text: { $0.text }
        },
        Command("courses", summary: "List the courses", reply: "{courses: [{id, name, city, state, holes}]}") { plugin, call in
            try plugin.reply(call) { try $0.courses() } json: { $0.json } text: { $0.text }
        },
        Command("holes", summary: "List a course's holes with their status (source only, imported, processed) and heightfield hash",
                arguments: HolesArguments.self,
                reply: "{course, holes: [{course, hole, status, greenWidthFt, greenHeightFt, holeXFt, holeZFt, grid, heightfieldHash, boundary, contours, traced, source}]}") { plugin, a, call in
            let id = a.course
            return try plugin.reply(call) { try $0.holes(course: id) } json: { $0.json } text: { $0.text }
        },
        Command("bestline", summary: "The best line for a putt: aim, speed, holed/miss, path (cached by content)",
                help: """
                    Runs now with a progress bar; --async submits a job and returns its id at once (or the cached
                    result). --json prints {"bestLine": {…}} with the original API's field names (ballXFt, ballZFt,
                    holeXFt, holeZFt, stimpFt, aimOffsetDeg, speedFps, v0XFps, v0ZFps, holed, missFt, tEndS, pathXFt,
                    pathZFt, pathYFt) followed by this plugin's extras (aimOffsetIn, tolerance, …).
                    """,
                arguments: BestLineArguments.self, longRunning: true,
                reply: "{bestLine: {ballXFt, …, pathYFt, model, course, hole, heightfieldHash, aimOffsetIn, speedMps, distanceFt, simulations, converged, finishPastFt, restXFt, restZFt, rimSpeedFps, tolerance, makeProbability, strokeErrors: {aimSDDeg, speedSDFraction, lateralSDIn, paceBiasFraction, skill}, numericallyUnstable, instability: {otherAimDeg, otherSpeedFps, otherStage, otherMakeProbability, spreadAimDeg, spreadSpeedPct, spreadMakeProbabilityPoints}, score}, cached} or {job: {id, state, existing}}") { plugin, a, call in
            let request = try plugin.bestLineRequest(a)
            let options = BestLineOptions(async: a.async, useCache: !a.noCache)
            call.progress.begin("best line (\(request.model.rawValue))", total: 100)
            defer { call.progress.end() }
            // One transaction: a stop asked for while the search ran caches nothing.
            let outcome = try plugin.storage.transaction {
                let outcome = try plugin.service.bestLine(request, options: options) { call.progress.update(Int(($0 * 100).rounded())) }
                if call.isCancelled { throw PluginError.cancelled("the best line was stopped as asked; nothing was cached") }
                return outcome
            }
            let reply = Reply(data: outcome.json, text: call.wantsMachineOutput ? nil : outcome.text + "\n")
            if case .submitted(let id, let state, _) = outcome, state == .queued {
                return reply.continuing(with: "job run", arguments: ["id": .string(id)])
            }
            return reply
        },
        Command("roll", summary: "Roll one stroke you choose (aim and speed or pace): path, holed or missed, rest point, rim speed, make probability",
                help: """
                    The aim is --aim DEG (offset from the straight line to the hole, positive = left, within ±90°) or
                    --aim-point X,Z (a point to aim at); the strength is --speed FT/S (launch speed, above 0 and at most
                    30) or --pace FT (how far past the hole the ball would roll on flat ground). Physics model only.
                    --svg and --out write a picture and a glTF/OBJ mesh like bestline's.
                    """,
                arguments: RollArguments.self,
                reply: "{roll: {course, hole, ballXFt, …, aimOffsetDeg, speedFps, v0XFps, v0ZFps, holed, end, restXFt, restZFt, missFt, closestFt, tEndS, rimSpeedFps, passOffsetFt, makeProbability, strokeErrors, pathXFt, pathZFt, pathYFt}, svg, out}") { plugin, a, call in
            let flag = try plugin.flag(a.flag, course: a.course, hole: a.hole)
            let aim: RollAim
            switch (a.aim, a.aimPoint) {
            case (let d?, nil): aim = .offsetDeg(d)
            case (nil, let p?): aim = .point(PointFt(x: p.x, z: p.y))
            case (nil, nil): throw PluginError.invalidArgument("say where the stroke goes: --aim DEG (from the line to the hole, positive = left) or --aim-point X,Z")
            default: throw PluginError.invalidArgument("give either --aim or --aim-point, not both")
            }
            let pace: RollPace
            switch (a.speed, a.pace) {
            case (let v?, nil): pace = .speedFps(v)
            case (nil, let p?): pace = .pastFt(p)
            case (nil, nil): throw PluginError.invalidArgument("say how hard: --speed FT/S (launch speed) or --pace FT (feet past the hole on flat ground)")
            default: throw PluginError.invalidArgument("give either --speed or --pace, not both")
            }
            let meshFormat = try a.out.map { path in try MeshFormat(path: path) }
            let request = RollRequest(course: a.course, hole: a.hole, ball: PointFt(x: a.ball.x, z: a.ball.y),
                                      flag: flag, stimpFt: a.stimp ?? plugin.defaultStimp,
                                      aim: aim, pace: pace, errors: plugin.strokeErrors(a.skill))
            let result: RollResult
            do { result = try plugin.service.roll(request) } catch let error as PuttingError { throw plugin.service.explained(error, model: .physics) }
            guard case .object(var data) = result.json else { return Reply(data: result.json) }
            var text = result.text
            if let svg = a.svg {
                try Files.write(svg, text: try plugin.service.rollPicture(result))
                data["svg"] = .string(svg)
                text += "\nWrote \(svg)"
            }
            if let out = a.out, let format = meshFormat {
                try Files.write(out, text: try plugin.service.rollMesh(result, format: format))
                data["out"] = .string(out)
                text += "\nWrote \(out)"
            }
            return Reply(data: .object(data), text: call.wantsMachineOutput ? nil : text + "\n")
        },
        Command("book", summary: "A green book for one pin: the best line from every position of a grid over the green (SVG sheet, JSON, CSV)",
                help: """
                    Positions every --spacing feet (default 3) over the whole green, aligned on the flag; balls within
                    2 ft of the hole are left out. Each position's aim, pace ("plays like" feet on the flat) and make
                    probability is solved on every core with a progress bar, and cached a batch at a time (keyed by the
                    green's content, the flag, the settings and the position): a book stopped with Ctrl-C keeps the
                    batches it stored and goes on where it stopped when run again. --async submits a job the host runs in
                    the background (`putting job ID` shows its progress and, once done, the book; a stopped job goes on
                    with `putting job run ID`); when every position is already cached it prints the book at once, no job.
                    At most 20,000 positions. Physics model only.
                    """,
                arguments: BookArguments.self, longRunning: true,
                reply: "{book: {course, hole, flagXFt, flagZFt, stimpFt, spacingFt, finishPastFt, strokeErrors, heightfieldHash, positions, cached, entries: [{xFt, zFt, distanceFt, aimOffsetDeg, aimOffsetIn, speedFps, playsLikeFt, holed, holeable, converged, makeProbability}]}, svg, csv, jsonFile} or {job: {id, state, existing}}") { plugin, a, call in
            let flag = try plugin.flag(a.flag, course: a.course, hole: a.hole)
            let width = a.width
            guard (300...8000).contains(width) else { throw ArgumentError("width", "\(width) must be 300–8000 pixels") }
            var request = BookRequest(course: a.course, hole: a.hole, flag: flag, stimpFt: a.stimp ?? plugin.defaultStimp,
                                      spacingFt: a.spacing, errors: plugin.strokeErrors(a.skill))
            request.finishPastFt = (a.pastIn ?? plugin.defaultPastInches) / 12
            if a.async {
                let files = [("svg", a.svg), ("csv", a.csv), ("json-file", a.jsonFile)].filter { $0.1 != nil }.map(\.0)
                guard files.isEmpty else {
                    throw PluginError.invalidArgument("--async cannot write \(files.map { "--" + $0 }.joined(separator: ", ")): "
                        + "once the job is done, run the same book without --async to write them (every position comes from the cache)")
                }
                let outcome = try plugin.service.submitBook(request)
                let reply = Reply(data: outcome.json, text: call.wantsMachineOutput ? nil : outcome.text + "\n")
                if case .submitted(let id, let state, false) = outcome, state == .queued {
                    return reply.continuing(with: "job run", arguments: ["id": .string(id)])
                }
                return reply
            }
            call.progress.begin("green book", total: 1000)
            defer { call.progress.end() }
            let book = try plugin.service.book(request, progress: { call.progress.update(Int(($0 * 1000).rounded())) },
                                    isCancelled: { call.isCancelled })
            // Everything is made before anything is written.
            var files: [(key: String, path: String, text: String)] = []
            if let svg = a.svg { files.append(("svg", svg, try plugin.service.bookPicture(book, widthPx: Double(width)))) }
            if let csv = a.csv { files.append(("csv", csv, book.csv)) }
            if let json = a.jsonFile { files.append(("jsonFile", json, JSONWriter.compact(book.json) + "\n")) }
            guard case .object(var data) = book.json else { return Reply(data: book.json) }
            var text = book.text
            for file in files {
                try Files.write(file.path, text: file.text)
                data[file.key] = .string(file.path)
                text += "\nWrote \(file.path)"
            }
            return Reply(data: .object(data), text: call.wantsMachineOutput ? nil : text + "\n")
        },
        Command("job", summary: "A job's state (a best line or a green book), and its result once completed",
                arguments: JobArguments.self,
                reply: "{job: {id, state, progress, attempts, createdAt, updatedAt, error, kind, request}, bestLine or book: {…, positions, cached, computed, entries}}") { plugin, a, call in
            let id = a.id
            return try plugin.reply(call) { try $0.job(id: id) } json: { $0.json } text: { $0.text }
        },
        Command("job run", summary: "Run a queued job now (the host does this in the background after bestline --async or book --async)",
                arguments: JobRunArguments.self, longRunning: true, reply: "as `job`") { plugin, a, call in
            let id = a.id
            guard let record = try plugin.service.store.job(id: id) else { throw PuttingError.unknownJob(id) }
            call.progress.begin("job \(id)", total: 1000)
            defer { call.progress.end() }
            if case .book = record.work {
                // A batch of positions per transaction (with the job's progress): a stopped book job keeps
                // what it stored and is queued again.
                return try plugin.reply(call) { service in
                    try service.runJob(id: id, progress: { call.progress.update(Int(($0 * 1000).rounded())) },
                                       isCancelled: { call.isCancelled })
                }
                    json: { $0.json } text: { $0.text }
            }
            return try plugin.reply(call) { service in
                // One transaction: a stopped job stays queued, its state and cache untouched.
                try plugin.storage.transaction {
                    let record = try service.runJob(id: id) { call.progress.update(Int(($0 * 1000).rounded())) }
                    if call.isCancelled { throw PluginError.cancelled("job \(id) was stopped as asked; it stays queued") }
                    return record
                }
            }
                json: { $0.json } text: { $0.text }
        },
        Command("render", summary: "Write an SVG of a green: shading, contours, boundary, and a best line with its legend",
                help: """
                    Contour lines are the traced ones when the hole has them, else traced from the heightfield; the
                    boundary is the traced one. A hole without a heightfield yet is drawn from its traced contours and
                    boundary alone.
                    """,
                arguments: RenderArguments.self, reply: "{bytes, svg, bestLine}") { plugin, a, call in
            let width = a.width
            guard (100...8000).contains(width) else { throw ArgumentError("width", "\(width) must be 100–8000 pixels") }
            let request = RenderRequest(course: a.course, hole: a.hole, putt: try plugin.puttSpec(a), widthPx: Double(width),
                                        contours: !a.noContours, shading: !a.noShading, boundary: !a.noBoundary)
            let path = a.svg
            let output = try plugin.service.render(request)
            try Files.write(path, text: output.svg)
            guard case .object(var data) = output.json else { return Reply(data: output.json) }
            data["svg"] = .string(path)
            return Reply(data: .object(data), text: call.wantsMachineOutput ? nil : "Wrote \(path): " + output.text + "\n")
        },
        Command("mesh", summary: "Write a 3D mesh of a green with the best line as a tube (.gltf glTF 2.0 or .obj)",
                arguments: MeshArguments.self, reply: "{format, bytes, parts: [{name, vertices, triangles}], out, bestLine}") { plugin, a, call in
            let path = a.out
            let exaggeration = a.exaggeration
            guard (0.1...20).contains(exaggeration) else { throw ArgumentError("exaggeration", "\(exaggeration) must be 0.1–20") }
            let request = MeshRequest(course: a.course, hole: a.hole, putt: try plugin.puttSpec(a),
                                      format: try MeshFormat(path: path), verticalExaggeration: exaggeration)
            let output = try plugin.service.mesh(request)
            try Files.write(path, text: output.contents)
            guard case .object(var data) = output.json else { return Reply(data: output.json) }
            data["out"] = .string(path)
            return Reply(data: .object(data), text: call.wantsMachineOutput ? nil : "Wrote \(path): " + output.text + "\n")
        },
        Command("demo", summary: "Procedural greens (course 'demo'), one rebuilt from generated traced contours, best lines, SVGs and a glTF mesh",
                arguments: DemoArguments.self, longRunning: true,
                reply: "{course, files, bestLines, traced: {hole, status, heightfieldHash, processing, contourLines, folder, fit: {offsetFt, rmsFt, maxFt}}}") { plugin, a, call in
            let out = a.out
            call.progress.begin("putting demo", total: 100)
            defer { call.progress.end() }
            // One transaction: a stop leaves neither the demo course nor any picture.
            let demo = try plugin.storage.transaction {
                let demo = try plugin.service.demo(stimpFt: plugin.defaultStimp) { call.progress.update(Int(($0 * 100).rounded())) }
                if call.isCancelled { throw PluginError.cancelled("the putting demo was stopped as asked; nothing was stored or written") }
                return demo
            }
            for file in demo.files {
                let path = Files.join(out, file.name)
                try Files.createDirectory(Files.directoryName(path))
                try Files.write(path, text: file.contents)
            }
            guard case .object(var data) = demo.json else { return Reply(data: demo.json) }
            data["out"] = .string(out)
            return Reply(data: .object(data), text: demo.text + "\nWritten to \(out)\n")
        },
    ] + greenReaderCommands

    let context: PluginContext
    let storage: Storage
    let service: PuttingService
    /// Site config: `stimp` (default 10), `model` (physics|compat), `past_hole_in` (default 17),
    /// `skill` or `aim_sd_deg` and `speed_sd_pct` (stroke errors of the make probability).
    let defaultStimp: Double
    let defaultModel: PuttingModel
    let defaultPastInches: Double
    /// Site config `skill` (tour, scratch, 10, 20, 25; default tour), or its own `aim_sd_deg` and `speed_sd_pct`:
    /// the make probability's stroke errors.
    let strokeErrors: StrokeErrors

    init(context: PluginContext) throws {
        self.context = context
        storage = try context.storage()
        try storage.migrate(PuttingSchema.migrations)
        // The course import reads folders through PluginKit's Files: the host's files service for a
        // folder argument (the only way under "isolation": "sandbox"), the C library otherwise.
        service = PuttingService(store: SQLPuttingStore(storage: storage), files: PluginKitFiles())
        // A failed job's stored error names arguments as the command line does (`putting job ID` shows it).
        service.argumentNaming = { "--" + $0 }
        defaultStimp = context.config.double("stimp", default: 10)
        guard PuttingError.stimpRange.contains(defaultStimp) else {
            throw PluginError.invalidArgument("config key 'stimp' must be from \(Int(PuttingError.stimpRange.lowerBound)) "
                + "to \(Int(PuttingError.stimpRange.upperBound)) ft (a real green's speed), got \(defaultStimp)")
        }
        let model = context.config.string("model", default: PuttingModel.physics.rawValue)
        guard let m = PuttingModel(rawValue: model) else {
            throw PluginError.invalidArgument("config key 'model' must be physics or compat, got '\(model)'")
        }
        defaultModel = m
        defaultPastInches = context.config.double("past_hole_in", default: 17)
        guard (0...120).contains(defaultPastInches) else {
            throw PluginError.invalidArgument("config key 'past_hole_in' must be 0–120 inches, got \(defaultPastInches)")
        }
        // The site's golfer: a named level (config `skill`, default tour), or its own aim and speed spreads.
        let level: SkillLevel
        do { level = try SkillLevel(name: context.config.string("skill", default: SkillLevel.tour.rawValue)) } catch {
            throw PluginError.invalidArgument("config key 'skill': \(error.description)")
        }
        var errors = level.errors
        if context.config.value("aim_sd_deg") != nil || context.config.value("speed_sd_pct") != nil {
            errors.aimSDDeg = context.config.double("aim_sd_deg", default: errors.aimSDDeg)
            errors.speedSDFraction = context.config.double("speed_sd_pct", default: errors.speedSDFraction * 100) / 100
            errors.skill = nil
        }
        do { strokeErrors = try errors.validated() } catch {
            throw PluginError.invalidArgument("config: \(error.description) (keys aim_sd_deg, speed_sd_pct)")
        }
        // Jobs a stopped host left running go back to the queue (their lease has expired).
        do {
            let requeued = try service.recoverInterruptedJobs()
            if !requeued.isEmpty { context.log.info("putting: re-queued interrupted jobs \(requeued.joined(separator: ", "))") }
        } catch {
            context.log.warning("putting: could not recover interrupted jobs: \(error)")
        }
    }

    /// The `flag` argument, else the hole's stored cup (an error naming the hole when it has none).
    func flag(_ flag: ArgumentPoint?, course: String, hole: Int) throws -> PointFt {
        if let f = flag { return PointFt(x: f.x, z: f.y) }
        return try service.storedCup(course: course, hole: hole)
    }

    func bestLineRequest(_ a: BestLineArguments) throws -> BestLineRequest {
        var request = BestLineRequest(course: a.course, hole: a.hole, ball: PointFt(x: a.ball.x, z: a.ball.y),
                                      flag: try flag(a.flag, course: a.course, hole: a.hole), stimpFt: a.stimp ?? defaultStimp,
                                      model: a.model ?? defaultModel)
        request.finishPastFt = (a.pastIn ?? defaultPastInches) / 12
        request.errors = strokeErrors(a.skill)
        if let falloff = a.capture { request.capture.falloff = falloff }
        return request
    }

    /// The stroke errors a command assumes: the `skill` argument's level, else the site's.
    func strokeErrors(_ skill: SkillLevel?) -> StrokeErrors {
        skill?.errors ?? strokeErrors
    }

    /// The putt a picture shows: the ball and the flag (the hole's stored cup when the flag is left
    /// out), or neither.
    func puttSpec<A: PuttArguments>(_ a: A) throws -> PuttSpec? {
        switch (a.ball, a.flag) {
        case (nil, nil): return nil
        case (let b?, _):
            return PuttSpec(ball: PointFt(x: b.x, z: b.y), flag: try flag(a.flag, course: a.course, hole: a.hole),
                            stimpFt: a.stimp ?? defaultStimp, model: a.model ?? defaultModel)
        default: throw PluginError.invalidArgument("give --ball too to draw a best line (or neither for the green alone, with its grid and cup)")
        }
    }

    /// Runs a Core call and replies with its JSON and (unless only JSON is wanted) its text.
    func reply<T>(_ call: Invocation, _ body: (PuttingService) throws -> T, json: (T) -> JSONValue,
                  text: (T) -> String) throws -> Reply
    {
        let result = try body(service)
        return Reply(data: json(result), text: call.wantsMachineOutput ? nil : text(result) + "\n")
    }
}

/// Runs `body`, turning a domain error into the PluginKit error for it.
/// Domain errors as replies: unknown things are "not found", storage and file trouble a failure,
/// everything else bad input (exit code 2).
extension PuttingError: DomainError {
    public var replyStatus: PluginStatus {
        switch self {
        case .unknownCourse, .unknownHole, .unknownJob: return .notFound
        case .storage, .heightfieldInconsistent, .notProcessed, .noTracedSources: return .error
        case .cancelled, .bookStopped, .jobStopped: return .cancelled
        default: return .invalidArgument
        }
    }
    /// The core names arguments by their names; the command line's word for one is its flag (the host
    /// words a leading flag its own way for JSON-RPC and HTTP: PluginKit's ArgumentError).
    public var replyMessage: String { message(naming: { "--" + $0 }) }
}

@_cdecl("clubhouse_plugin_entry")
public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? { export(Putting.self, info) }

/// The course import's file questions answered by PluginKit's `Files` (path arguments through the
/// host's files service).
struct PluginKitFiles: LocalFileAccess {
    func exists(_ path: String) -> Bool { Files.exists(path) }
    func isDirectory(_ path: String) -> Bool { Files.isDirectory(path) }
    func names(in directory: String) -> [String] { Files.names(in: directory) }
    func contents(_ path: String) -> [UInt8]? {
        guard !Files.isDirectory(path) else { return nil }
        return try? Files.read(path, limit: Int.max)
    }
}
