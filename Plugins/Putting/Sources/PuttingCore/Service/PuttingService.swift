// The putting commands as plain functions over a `PuttingStore`: one per CLI command, each taking
// a request struct and returning a result with `json` and a human-readable `text`. The adapter
// parses arguments into these requests and prints what comes back.
import ClubhouseJSON
import ClubhouseToolkit
import Glibc

/// `putting course import DIR --id ID [--name …] [--city …] [--state …] [--process] [--sources-only]`
public struct CourseImportRequest: Sendable, Equatable {
    public var directory: String
    public var id: String
    public var name: String?
    public var city: String?
    public var state: String?
    /// Build the heightfield of every hole that has none from its traced files before storing.
    public var process: Bool
    /// Ignore heightfield files: every hole comes from its traced boundary and contours.
    public var sourcesOnly: Bool

    public init(directory: String, id: String, name: String? = nil, city: String? = nil, state: String? = nil,
                process: Bool = false, sourcesOnly: Bool = false)
    {
        self.directory = directory
        self.id = id
        self.name = name
        self.city = city
        self.state = state
        self.process = process
        self.sourcesOnly = sourcesOnly
    }
}

/// `putting hole import --course ID --hole N --heightfield FILE.json`
public struct HoleImportRequest: Sendable, Equatable {
    public var course: String
    public var hole: Int
    public var heightfieldPath: String

    public init(course: String, hole: Int, heightfieldPath: String) {
        self.course = course
        self.hole = hole
        self.heightfieldPath = heightfieldPath
    }
}

/// What an import did.
public struct ImportReport: Sendable, Equatable {
    public var course: Course
    public var holes: [HoleSummary]
    /// True when the course existed before (its holes were replaced).
    public var replaced: Bool
    /// Holes whose heightfield was built from their traced files during the import (`--process`).
    public var processed: [HoleProcessing] = []

    public var json: JSONValue {
        ["course": course.json, "replaced": .bool(replaced), "holes": .array(holes.map(\.json)),
         "processed": .array(processed.map { .int($0.hole.number) })]
    }

    public var text: String {
        let verb = replaced ? "Replaced" : "Imported"
        var lines = ["\(verb) \(holes.count) hole\(holes.count == 1 ? "" : "s") into course \(course.id) (\(course.name))"]
        for h in holes { lines.append("  " + HoleListing.line(h)) }
        for p in processed {
            lines.append("Processed hole \(p.hole.number): \(p.summary)")
            for warning in p.report.warnings { lines.append("  warning: \(warning)") }
        }
        return lines.joined(separator: "\n")
    }
}

/// `putting courses`
public struct CourseListing: Sendable, Equatable {
    public var courses: [(course: Course, holes: Int)]

    public static func == (a: CourseListing, b: CourseListing) -> Bool {
        a.courses.map(\.course) == b.courses.map(\.course) && a.courses.map(\.holes) == b.courses.map(\.holes)
    }

    public var json: JSONValue {
        ["courses": .array(courses.map { c in
            guard case .object(var o) = c.course.json else { return c.course.json }
            o["holes"] = .int(c.holes)
            return .object(o)
        })]
    }

    public var text: String {
        guard !courses.isEmpty else { return "No courses yet: import one with `putting course import DIR --id ID`" }
        return courses.map { c in
            let place = [c.course.city, c.course.state].compactMap { $0 }.joined(separator: ", ")
            return "\(c.course.id)  \(c.course.name)\(place.isEmpty ? "" : " (\(place))")  \(c.holes) hole\(c.holes == 1 ? "" : "s")"
        }.joined(separator: "\n")
    }
}

/// `putting holes COURSE`
public struct HoleListing: Sendable, Equatable {
    public var course: Course
    public var holes: [HoleSummary]

    public var json: JSONValue { ["course": course.json, "holes": .array(holes.map(\.json))] }

    static func line(_ h: HoleSummary) -> String {
        var s = "hole \(h.number): green \(fixed(h.greenWidthFt, 1))×\(fixed(h.greenHeightFt, 1)) ft"
        if let nx = h.nx, let nz = h.nz, let res = h.resolutionFt { s += ", grid \(nx)×\(nz) at \(PuttingError.short(res)) ft" }
        if let p = h.holePosition { s += ", cup at (\(fixed(p.x, 2)), \(fixed(p.z, 2)))" }
        if h.hasBoundary { s += ", boundary" }
        if h.contourCount > 0 { s += ", \(h.contourCount) contours" }
        switch h.status {
        case .sourceOnly:
            s += ", source only: build its heightfield with `putting hole process --course \(h.courseID) --hole \(h.number)`"
        case .imported, .processed:
            s += ", \(h.status.label), hash \((h.heightfieldHash ?? "").prefix(12))"
        }
        return s
    }

    public var text: String {
        guard !holes.isEmpty else { return "Course \(course.id) has no holes yet" }
        return (["\(course.id)  \(course.name)"] + holes.map { "  " + HoleListing.line($0) }).joined(separator: "\n")
    }
}

/// How `putting bestline` runs.
public struct BestLineOptions: Sendable, Equatable {
    /// Submit a job and return its id at once (or the cached result).
    public var async: Bool
    /// Ignore a cached result (a fresh result still replaces it).
    public var useCache: Bool

    public init(async: Bool = false, useCache: Bool = true) {
        self.async = async
        self.useCache = useCache
    }
}

/// What `putting bestline` returns.
public enum BestLineOutcome: Sendable, Equatable {
    /// A result, computed now or found in the cache.
    case result(BestLineResult, cached: Bool)
    /// An asynchronous job was submitted (or an identical one was already queued or running).
    case submitted(jobID: String, state: JobState, existing: Bool)

    public var json: JSONValue {
        switch self {
        case .result(let r, let cached):
            guard case .object(var o) = r.json else { return r.json }
            o["cached"] = .bool(cached)
            return .object(o)
        case .submitted(let id, let state, let existing):
            return ["job": ["id": .string(id), "state": .string(state.rawValue), "existing": .bool(existing)]]
        }
    }

    public var text: String {
        switch self {
        case .result(let r, let cached): return r.text + (cached ? "\n  (from the cache)" : "")
        case .submitted(let id, let state, let existing):
            return "\(existing ? "Same putt already \(state.rawValue) as" : "Submitted") job \(id): see it with `putting job \(id)`"
        }
    }
}

/// What `putting job ID` shows.
public struct JobStatus: Sendable {
    public var job: JobRecord
    /// A completed best-line job's result.
    public var result: BestLineResult?
    /// A completed book job's book.
    public var book: GreenBook?

    public init(job: JobRecord, result: BestLineResult? = nil, book: GreenBook? = nil) {
        self.job = job
        self.result = result
        self.book = book
    }

    public var json: JSONValue {
        var o = JSONObject()
        o["id"] = .string(job.id)
        o["state"] = .string(job.state.rawValue)
        o["progress"] = .double(job.progress)
        o["attempts"] = .int(job.attempts)
        o["createdAt"] = .string(job.createdAt)
        o["updatedAt"] = .string(job.updatedAt)
        o["error"] = job.error.map(JSONValue.string) ?? .null
        o["kind"] = .string(job.work.kind)
        o["request"] = job.work.json
        var top = JSONObject()
        top["job"] = .object(o)
        if let result, let line = result.json["bestLine"] { top["bestLine"] = line }
        if let book, case .object(var b)? = book.json["book"] {
            // How this run got its positions: solved now, or stored by an earlier (stopped) run or book.
            b["computed"] = .int(book.entries.count - book.cachedCount)
            top["book"] = .object(b)
        }
        return .object(top)
    }

    public var text: String {
        switch job.state {
        case .queued where job.progress > 0:
            return "Job \(job.id): queued again, \(Int(saturating: (job.progress * 100).rounded()))% done before it stopped: `putting job run \(job.id)` goes on"
        case .queued: return "Job \(job.id): queued (submitted \(job.createdAt))"
        case .running: return "Job \(job.id): running, \(Int(saturating: (job.progress * 100).rounded()))% done"
        case .failed: return "Job \(job.id): failed: \(job.error ?? "no reason recorded")"
        case .completed:
            if case .book = job.work {
                return "Job \(job.id): completed\n" + (book?.text ?? "(its book is no longer stored: run the book again)")
            }
            return "Job \(job.id): completed\n" + (result?.text ?? "(its result is no longer cached: run the putt again)")
        }
    }
}

/// The putting plugin's commands over a store.
public final class PuttingService {
    public let store: any PuttingStore
    /// Seconds since 1970 (injected so tests control time).
    public var clock: () -> Double
    /// Fresh job ids.
    public var makeJobID: () -> String
    /// A running job whose lease has expired (no progress for this long) was interrupted by a restart.
    public var leaseSeconds = 120.0
    /// How a failed job's stored error names an argument: the adapter gives its front end's word (the
    /// command line's "--ball"); the core's own is the argument's name.
    public var argumentNaming: (String) -> String = { $0 }

    /// How the course import reads folders and files (the C library unless the adapter gives another).
    public let files: any LocalFileAccess

    public init(store: any PuttingStore, clock: @escaping () -> Double = UTCTime.now,
                makeJobID: @escaping () -> String = PuttingService.randomJobID,
                files: any LocalFileAccess = LocalFiles())
    {
        self.store = store
        self.clock = clock
        self.makeJobID = makeJobID
        self.files = files
    }

    /// `j` and 16 random hex digits.
    public static func randomJobID() -> String {
        var g = SystemRandomNumberGenerator()
        let n = g.next() as UInt64
        let hex = String(n, radix: 16)
        return "j" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func iso8601(_ seconds: Double) -> String {
        UTCTime.iso8601(seconds)
    }

    // MARK: Catalog

    /// `putting course import`: reads every hole (and with `process` builds the missing heightfields)
    /// before storing anything, then replaces the course in one transaction. `progress`: fraction of
    /// the processing done; `isCancelled` is asked before each hole is processed.
    public func importCourse(_ request: CourseImportRequest, progress: ((Double) -> Void)? = nil,
                             isCancelled: () -> Bool = { false }) throws(PuttingError) -> ImportReport
    {
        guard Course.isValidID(request.id) else { throw .invalidCourseID(request.id) }
        var holes = try CatalogImporter.readCourse(directory: request.directory, courseID: request.id,
                                                   sourcesOnly: request.sourcesOnly, files: files)
        var processed: [HoleProcessing] = []
        if request.process {
            let pending = holes.indices.filter { holes[$0].heightfield == nil }
            for (k, index) in pending.enumerated() {
                if isCancelled() { throw .cancelled(what: "processing \(request.id) hole \(holes[index].number)") }
                let base = Double(k), count = Double(pending.count)
                let done = try HoleProcessor.process(holes[index]) { p in progress?((base + p.fraction) / count) }
                holes[index] = done.hole
                processed.append(done)
            }
        }
        if isCancelled() { throw .cancelled(what: "storing course \(request.id)") }
        let existing = try store.course(id: request.id)
        let course = Course(id: request.id, name: request.name ?? existing?.name ?? request.id,
                            city: request.city ?? existing?.city, state: request.state ?? existing?.state)
        try store.replaceCourse(course, holes: holes)
        return ImportReport(course: course, holes: holes.map(\.summary), replaced: existing != nil, processed: processed)
    }

    public func importHole(_ request: HoleImportRequest) throws(PuttingError) -> ImportReport {
        guard let course = try store.course(id: request.course) else { throw .unknownCourse(request.course) }
        guard (1...99).contains(request.hole) else { throw .invalidHoleNumber(request.hole) }
        let hole = try CatalogImporter.readHeightfieldHole(jsonPath: request.heightfieldPath, courseID: course.id,
                                                           number: request.hole, files: files)
        let existed = try store.hole(courseID: course.id, number: request.hole) != nil
        try store.putHole(hole)
        return ImportReport(course: course, holes: [hole.summary], replaced: existed)
    }

    public func courses() throws(PuttingError) -> CourseListing {
        var list: [(Course, Int)] = []
        for c in try store.courses() { list.append((c, try store.holeSummaries(courseID: c.id).count)) }
        return CourseListing(courses: list)
    }

    public func holes(course id: String) throws(PuttingError) -> HoleListing {
        guard let course = try store.course(id: id) else { throw .unknownCourse(id, suggestions: courseSuggestions(id)) }
        return HoleListing(course: course, holes: try store.holeSummaries(courseID: id))
    }

    /// The hole a request names, or the error that says which part is unknown.
    public func hole(course: String, number: Int) throws(PuttingError) -> Hole {
        guard try store.course(id: course) != nil else { throw .unknownCourse(course, suggestions: courseSuggestions(course)) }
        guard let hole = try store.hole(courseID: course, number: number) else { throw .unknownHole(course: course, number: number) }
        return hole
    }

    // MARK: Best line and jobs

    /// `putting bestline`: validates, then returns the cached result, computes it now (synchronous), or
    /// submits a job (`async`). Bad input never creates a job.
    public func bestLine(_ request: BestLineRequest, options: BestLineOptions = BestLineOptions(),
                         progress: ((Double) -> Void)? = nil) throws(PuttingError) -> BestLineOutcome
    {
        let hole = try hole(course: request.course, number: request.hole)
        do { try BestLineEngine.validate(request, hole: hole) } catch { throw explained(error, model: request.model) }
        let key = request.contentKey(heightfieldHash: hole.heightfieldHash ?? "")
        if options.useCache, let cached = try cachedResult(key: key) { return .result(cached, cached: true) }
        if options.async {
            if let active = try store.jobs(key: key).last(where: { $0.state == .queued || $0.state == .running }) {
                return .submitted(jobID: active.id, state: active.state, existing: true)
            }
            let now = clock()
            let job = JobRecord(id: makeJobID(), key: key, state: .queued, request: request,
                                createdAt: PuttingService.iso8601(now), updatedAt: PuttingService.iso8601(now))
            try store.putJob(job)
            return .submitted(jobID: job.id, state: .queued, existing: false)
        }
        let result = try BestLineEngine.solve(request, hole: hole, progress: progress)
        try store.putResult(key: key, json: JSONWriter.compact(result.json))
        return .result(result, cached: false)
    }

    func cachedResult(key: String) throws(PuttingError) -> BestLineResult? {
        guard let text = try store.result(key: key) else { return nil }
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch { throw .storage("cached result \(key.prefix(12)) is not JSON: \(error)") }
        return try BestLineResult(json: value)
    }

    /// `putting job ID`
    public func job(id: String) throws(PuttingError) -> JobStatus {
        guard let job = try store.job(id: id) else { throw .unknownJob(id) }
        guard job.state == .completed else { return JobStatus(job: job) }
        switch job.work {
        case .bestLine: return JobStatus(job: job, result: try cachedResult(key: job.key))
        case .book(let request): return JobStatus(job: job, book: try storedBook(job, request: request))
        }
    }

    /// Runs a queued job (or one whose run was interrupted) to completion or failure and records the
    /// outcome. A job that is already finished, or running under a live lease, is returned as is.
    /// `isCancelled` stops a book job between batches (it is queued again with what it stored:
    /// `jobStopped`); a best-line job is one step and stops through its caller's transaction.
    @discardableResult
    public func runJob(id: String, progress: ((Double) -> Void)? = nil,
                       isCancelled: () -> Bool = { false }) throws(PuttingError) -> JobStatus
    {
        guard var job = try store.job(id: id) else { throw .unknownJob(id) }
        switch job.state {
        case .completed, .failed: return try self.job(id: id)
        case .running where !leaseExpired(job): return JobStatus(job: job)
        case .running, .queued: break
        }
        let request: BestLineRequest
        switch job.work {
        case .book(let book): return try runBookJob(job, request: book, progress: progress, isCancelled: isCancelled)
        case .bestLine(let r): request = r
        }
        job.state = .running
        job.attempts += 1
        job.progress = 0
        job.updatedAt = PuttingService.iso8601(clock())
        try store.putJob(job)

        var lastSaved = 0.0
        let store = self.store
        let clock = self.clock
        var running = job
        let report: (Double) -> Void = { fraction in
            progress?(fraction)
            // Record progress now and then (it also renews the lease).
            if fraction - lastSaved >= 0.1 {
                lastSaved = fraction
                running.progress = fraction
                running.updatedAt = PuttingService.iso8601(clock())
                try? store.putJob(running)
            }
        }
        do {
            let hole = try hole(course: request.course, number: request.hole)
            let result = try BestLineEngine.solve(request, hole: hole, progress: report)
            // The green may have been re-imported since submission: cache under the key of what was solved.
            let key = request.contentKey(heightfieldHash: hole.heightfieldHash ?? "")
            try store.putResult(key: key, json: JSONWriter.compact(result.json))
            if key != job.key { try store.putResult(key: job.key, json: JSONWriter.compact(result.json)) }
            job.state = .completed
            job.progress = 1
            job.error = nil
            job.updatedAt = PuttingService.iso8601(clock())
            try store.putJob(job)
            return JobStatus(job: job, result: result)
        } catch {
            job.state = .failed
            job.error = explained(error, model: request.model).message(naming: argumentNaming)
            job.updatedAt = PuttingService.iso8601(clock())
            try store.putJob(job)
            return JobStatus(job: job)
        }
    }

    func leaseExpired(_ job: JobRecord) -> Bool {
        guard let updated = UTCTime.parse(job.updatedAt) else { return true }
        return clock() - updated > leaseSeconds
    }

    /// Jobs left `running` by a host that stopped (lease expired) go back to `queued`; returns their ids.
    /// Call when the plugin starts.
    @discardableResult
    public func recoverInterruptedJobs() throws(PuttingError) -> [String] {
        var ids: [String] = []
        for var job in try store.jobs(states: [.running]) where leaseExpired(job) {
            job.state = .queued
            job.updatedAt = PuttingService.iso8601(clock())
            try store.putJob(job)
            ids.append(job.id)
        }
        return ids
    }

    /// Runs every queued job, oldest first.
    @discardableResult
    public func runQueuedJobs(progress: ((String, Double) -> Void)? = nil) throws(PuttingError) -> [JobStatus] {
        var done: [JobStatus] = []
        for job in try store.jobs(states: [.queued]) {
            done.append(try runJob(id: job.id, progress: { progress?(job.id, $0) }))
        }
        return done
    }
}
