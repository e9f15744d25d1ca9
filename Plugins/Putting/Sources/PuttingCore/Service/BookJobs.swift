// The green book's cache and jobs. Each solved ball position is stored under the book's key (the
// green's content hash, the flag, the stimp, the finish past the hole, the capture rule, the stroke
// errors and the model version: everything that changes a line) and its position, in batches, each
// batch one transaction. A book stopped midway (cancelled, or its process killed) keeps the batches it
// committed and goes on from there; another green, pin or setting is another key. `book --async`
// submits a job holding the book request; `job run ID` runs it (the host does so in the background),
// recording the job's progress in the same transaction as each batch, and keeps the finished book
// under the job's content key for `job ID`.
import ClubhouseHashing
import ClubhouseJSON

extension BookRequest {
    /// The request as JSON (stored with its job, shown by `putting job`).
    public var json: JSONValue {
        var o = JSONObject()
        o["course"] = .string(course)
        o["hole"] = .int(hole)
        o["flagXFt"] = .double(flag.x)
        o["flagZFt"] = .double(flag.z)
        o["stimpFt"] = .double(stimpFt)
        o["spacingFt"] = .double(spacingFt)
        o["model"] = .string(PuttingModel.physics.rawValue)
        for (k, v) in lineSettings { o[k] = v }
        return .object(o)
    }

    /// The settings every line of the book shares, besides the green, flag and stimp.
    private var lineSettings: JSONObject {
        var o = JSONObject()
        o["finishPastFt"] = .double(finishPastFt)
        o["capture"] = capture.storedJSON
        o["errors"] = errors.storedJSON
        return o
    }

    /// Reads a request stored by `json`.
    public init(json: JSONValue) throws(PuttingError) {
        func number(_ key: String) throws(PuttingError) -> Double {
            guard let v = json[key]?.doubleValue, v.isFinite else { throw .storage("stored book request lacks \(key)") }
            return v
        }
        guard let course = json["course"]?.stringValue, let hole = json["hole"]?.intValue else {
            throw .storage("stored book request is incomplete")
        }
        self.init(course: course, hole: hole, flag: PointFt(x: try number("flagXFt"), z: try number("flagZFt")),
                  stimpFt: try number("stimpFt"), spacingFt: try number("spacingFt"), finishPastFt: try number("finishPastFt"))
        capture.update(fromStored: json["capture"])
        errors.update(fromStored: json["errors"])
    }

    /// The key its positions are cached under: the green's hash, the flag, the stimp, the line settings
    /// and the model version (not the course, hole or spacing: the same green and pin share positions).
    public func positionsKey(heightfieldHash: String) -> String {
        var o = lineSettings
        o["kind"] = "book positions"
        o["heightfield"] = .string(heightfieldHash)
        o["flagXFt"] = .double(flag.x)
        o["flagZFt"] = .double(flag.z)
        o["stimpFt"] = .double(stimpFt)
        o["modelVersion"] = .int(BestLineRequest.modelVersion)
        return SHA256.hex(JSONWriter.compact(.object(o)))
    }

    /// The content key of the whole book (its job's key, and where a finished job's book is kept).
    public func contentKey(heightfieldHash: String) -> String {
        guard case .object(var o) = json else { return "" }
        o["kind"] = "book"
        o["heightfield"] = .string(heightfieldHash)
        o["modelVersion"] = .int(BestLineRequest.modelVersion)
        return SHA256.hex(JSONWriter.compact(.object(o)))
    }
}

/// A book's solved positions in the store: read once, written a batch at a time (one transaction each,
/// with the job's progress when the book runs as a job).
struct BookCache {
    let store: any PuttingStore
    let key: String
    var job: JobRecord?
    let clock: () -> Double

    /// A position as the key of a dictionary (−0 and +0 are one place, as SQLite stores them).
    private struct Place: Hashable {
        let x: UInt64, z: UInt64
        init(_ x: Double, _ z: Double) {
            self.x = (x + 0).bitPattern
            self.z = (z + 0).bitPattern
        }
    }

    /// The cached entry of each position, nil where there is none yet.
    func entries(at positions: [PointFt]) throws(PuttingError) -> [BookEntry?] {
        var found: [Place: BookEntry] = [:]
        for stored in try store.bookPositions(bookKey: key) {
            guard let value = try? JSONParser.parse(stored.json), let entry = BookEntry(json: value) else { continue }
            found[Place(stored.xFt, stored.zFt)] = entry
        }
        return positions.map { found[Place($0.x, $0.z)] }
    }

    /// Stores one solved batch; `done` of `total` positions are solved once it is stored.
    mutating func save(_ batch: [BookEntry], done: Int, total: Int) throws(PuttingError) {
        if var running = job {
            running.progress = total == 0 ? 1 : Swift.min(1, Double(done) / Double(total))
            running.updatedAt = PuttingService.iso8601(clock())
            job = running
        }
        let rows = batch.map { StoredBookPosition(xFt: $0.ball.x, zFt: $0.ball.z, json: JSONWriter.compact($0.json)) }
        try store.putBookPositions(bookKey: key, rows, job: job)
    }
}

/// What `putting book --async` returns.
public enum BookOutcome: Sendable {
    /// A job was submitted (or an identical one was already queued or running).
    case submitted(jobID: String, state: JobState, existing: Bool)
    /// Every position was in the cache: the book, no job.
    case finished(GreenBook)

    public var json: JSONValue {
        switch self {
        case .submitted(let id, let state, let existing):
            return ["job": ["id": .string(id), "state": .string(state.rawValue), "existing": .bool(existing)]]
        case .finished(let book):
            return book.json
        }
    }

    public var text: String {
        switch self {
        case .submitted(let id, let state, let existing):
            return "\(existing ? "The same book is already \(state.rawValue) as" : "Submitted") job \(id): see it with `putting job \(id)`"
        case .finished(let book):
            return book.text
        }
    }
}

extension GreenBook {
    /// A book kept by a finished job (`json`), read back with the job's request.
    init(request: BookRequest, stored value: JSONValue) throws(PuttingError) {
        guard let book = value["book"], let hash = book["heightfieldHash"]?.stringValue, let items = book["entries"]?.arrayValue else {
            throw .storage("a stored green book is damaged: run the job's book again")
        }
        var entries: [BookEntry] = []
        entries.reserveCapacity(items.count)
        for item in items {
            guard let entry = BookEntry(json: item) else { throw .storage("a stored green book entry is damaged: run the job's book again") }
            entries.append(entry)
        }
        self.init(request: request, heightfieldHash: hash, entries: entries, cachedCount: book["cached"]?.intValue ?? 0)
    }
}

extension PuttingService {
    /// Checks a book request as `book` does (hole, flag, stimp, finish, errors, spacing), without solving.
    /// A checked book request: its hole, the green's surface, the grid's positions and the green's content hash.
    struct BookSetup {
        var hole: Hole
        var heightfield: Heightfield
        var surface: GreenSurface
        var positions: [PointFt]
        var hash: String
    }

    /// Checks a book request: the flag, stimp, finish and errors like a best line's (the ball is the flag itself
    /// here, so only its "on the hole" rule is skipped), and the grid's size.
    func validateBook(_ request: BookRequest) throws(PuttingError) -> BookSetup {
        let hole = try hole(course: request.course, number: request.hole)
        let heightfield: Heightfield
        do { heightfield = try BestLineEngine.validate(request.lineRequest(ball: request.flag), hole: hole) } catch {
            switch error {
            case .ballOnHole: heightfield = try hole.requireHeightfield()
            case .positionOffGreen(_, let point, let course, let number, let spanX, let spanZ):
                throw explained(.positionOffGreen(what: "flag", point: point, course: course, hole: number, spanX: spanX, spanZ: spanZ),
                                model: .physics)
            default: throw error
            }
        }
        let surface = GreenSurface(heightfield)
        let positions = try request.positions(on: surface)
        return BookSetup(hole: hole, heightfield: heightfield, surface: surface, positions: positions,
                         hash: hole.heightfieldHash ?? heightfield.contentHash)
    }

    /// The store's cache of one book's positions (`job`: the job whose progress each batch records).
    func bookCache(_ request: BookRequest, heightfieldHash: String, job: JobRecord?) -> BookCache {
        BookCache(store: store, key: request.positionsKey(heightfieldHash: heightfieldHash), job: job, clock: clock)
    }

    /// `putting book --async`: validates, then submits a job (or names the identical one already queued
    /// or running). Bad input never creates a job.
    public func submitBook(_ request: BookRequest) throws(PuttingError) -> BookOutcome {
        let setup = try validateBook(request)
        // Every position already cached (a finished job's book, or a foreground one): the book itself, as
        // `bestline --async` answers a cached line at once.
        let cache = bookCache(request, heightfieldHash: setup.hash, job: nil)
        let stored = try cache.entries(at: setup.positions)
        if !stored.isEmpty, stored.allSatisfy({ $0 != nil }) {
            return .finished(GreenBook(request: request, heightfieldHash: setup.hash, entries: stored.compactMap { $0 },
                                       cachedCount: stored.count))
        }
        let hole = setup.hole
        let key = request.contentKey(heightfieldHash: hole.heightfieldHash ?? "")
        if let active = try store.jobs(key: key).last(where: { $0.state == .queued || $0.state == .running }) {
            return .submitted(jobID: active.id, state: active.state, existing: true)
        }
        let now = PuttingService.iso8601(clock())
        let job = JobRecord(id: makeJobID(), key: key, state: .queued, work: .book(request), createdAt: now, updatedAt: now)
        try store.putJob(job)
        return .submitted(jobID: job.id, state: .queued, existing: false)
    }

    /// Runs a book job: the positions already stored are read, the rest solved and stored a batch at a
    /// time with the job's progress. Stopped as asked, the job goes back to the queue with what it
    /// stored (`jobStopped`); any other error fails it.
    func runBookJob(_ start: JobRecord, request: BookRequest, progress: ((Double) -> Void)?,
                    isCancelled: () -> Bool) throws(PuttingError) -> JobStatus
    {
        var job = start
        job.state = .running
        job.attempts += 1
        job.error = nil
        job.updatedAt = PuttingService.iso8601(clock())
        try store.putJob(job)
        do {
            let book = try self.book(request, progress: progress, isCancelled: isCancelled, job: job)
            // The green may have been re-imported since submission: keep it under the key of what was solved too.
            let key = request.contentKey(heightfieldHash: book.heightfieldHash)
            let text = JSONWriter.compact(book.json)
            try store.putResult(key: job.key, json: text)
            if key != job.key { try store.putResult(key: key, json: text) }
            job.state = .completed
            job.progress = 1
            job.updatedAt = PuttingService.iso8601(clock())
            try store.putJob(job)
            return JobStatus(job: job, book: book)
        } catch {
            if case .bookStopped(let done, let total) = error {
                job.state = .queued
                job.progress = total == 0 ? 0 : Double(done) / Double(total)
                job.updatedAt = PuttingService.iso8601(clock())
                try store.putJob(job)
                throw .jobStopped(id: job.id, done: done, total: total)
            }
            job.state = .failed
            job.error = error.message(naming: argumentNaming)
            job.updatedAt = PuttingService.iso8601(clock())
            try store.putJob(job)
            return JobStatus(job: job)
        }
    }

    /// The finished book a completed book job kept, nil when it is no longer stored.
    func storedBook(_ job: JobRecord, request: BookRequest) throws(PuttingError) -> GreenBook? {
        guard let text = try store.result(key: job.key) else { return nil }
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch { throw .storage("stored book \(job.key.prefix(12)) is not JSON: \(error)") }
        return try GreenBook(request: request, stored: value)
    }
}
