// Storage seen by the putting domain: a small protocol the adapter implements on the host's storage
// service (with the SQL of `PuttingSchema`), and an in-memory implementation for tests and demos.

/// A job's lifecycle: queued → running → completed | failed (a running job interrupted by a restart is
/// queued again).
public enum JobState: String, Sendable, Codable, CaseIterable {
    case queued, running, completed, failed
}

/// What a job runs.
public enum JobWork: Sendable, Equatable {
    case bestLine(BestLineRequest)
    case book(BookRequest)

    /// The store's `kind` column.
    public var kind: String {
        switch self {
        case .bestLine: return "bestline"
        case .book: return "book"
        }
    }

    /// The course and hole it works on.
    public var course: String {
        switch self {
        case .bestLine(let r): return r.course
        case .book(let r): return r.course
        }
    }
}

/// A job (a best line or a green book) as stored.
public struct JobRecord: Sendable, Equatable {
    public var id: String
    /// The content key of its request (see `BestLineRequest.contentKey`, `BookRequest.contentKey`).
    public var key: String
    public var state: JobState
    public var work: JobWork
    /// The best-line request of a best-line job (nil for a book).
    public var request: BestLineRequest? {
        if case .bestLine(let r) = work { return r }
        return nil
    }
    /// Why it failed (one line), when it did.
    public var error: String?
    /// Fraction done, 0…1.
    public var progress: Double
    public var createdAt: String
    public var updatedAt: String
    /// How many times it was started (a restart during a run makes it 2).
    public var attempts: Int

    public init(id: String, key: String, state: JobState, work: JobWork, error: String? = nil,
                progress: Double = 0, createdAt: String, updatedAt: String, attempts: Int = 0)
    {
        self.id = id
        self.key = key
        self.state = state
        self.work = work
        self.error = error
        self.progress = progress
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.attempts = attempts
    }

    /// A best-line job.
    public init(id: String, key: String, state: JobState, request: BestLineRequest, error: String? = nil,
                progress: Double = 0, createdAt: String, updatedAt: String, attempts: Int = 0)
    {
        self.init(id: id, key: key, state: state, work: .bestLine(request), error: error, progress: progress,
                  createdAt: createdAt, updatedAt: updatedAt, attempts: attempts)
    }
}

/// One solved position of a green book as stored: its place and its entry as JSON text.
public struct StoredBookPosition: Sendable, Equatable {
    public var xFt: Double
    public var zFt: Double
    public var json: String

    public init(xFt: Double, zFt: Double, json: String) {
        self.xFt = xFt
        self.zFt = zFt
        self.json = json
    }
}

/// What the putting domain needs from storage. Each method is atomic: a failure leaves nothing
/// half-written.
public protocol PuttingStore: AnyObject {
    /// Creates or updates the course and replaces all its holes with `holes`, in one transaction.
    func replaceCourse(_ course: Course, holes: [Hole]) throws(PuttingError)
    /// Creates or replaces one hole of an existing course.
    func putHole(_ hole: Hole) throws(PuttingError)
    /// Creates or replaces several holes of existing courses, all or none (one transaction).
    func putHoles(_ holes: [Hole]) throws(PuttingError)
    func course(id: String) throws(PuttingError) -> Course?
    /// All courses, by id.
    func courses() throws(PuttingError) -> [Course]
    /// A course's holes, by number.
    func holeSummaries(courseID: String) throws(PuttingError) -> [HoleSummary]
    func hole(courseID: String, number: Int) throws(PuttingError) -> Hole?

    /// A cached best-line result (JSON text) by content key.
    func result(key: String) throws(PuttingError) -> String?
    func putResult(key: String, json: String) throws(PuttingError)

    /// Inserts or replaces a job.
    func putJob(_ job: JobRecord) throws(PuttingError)
    func job(id: String) throws(PuttingError) -> JobRecord?
    /// Jobs in any of `states`, oldest first.
    func jobs(states: [JobState]) throws(PuttingError) -> [JobRecord]
    /// Jobs with this content key, oldest first.
    func jobs(key: String) throws(PuttingError) -> [JobRecord]

    /// Every solved position stored under a book key (see `BookRequest.positionsKey`).
    func bookPositions(bookKey: String) throws(PuttingError) -> [StoredBookPosition]
    /// Stores a batch of solved positions and, when given, the job's record, in one transaction.
    func putBookPositions(bookKey: String, _ positions: [StoredBookPosition], job: JobRecord?) throws(PuttingError)
}

/// A `PuttingStore` in memory (tests, demos). Not thread-safe; one owner at a time.
public final class InMemoryPuttingStore: PuttingStore {
    private var courseTable: [String: Course] = [:]
    private var holeTable: [String: [Int: Hole]] = [:]
    private var resultTable: [String: String] = [:]
    private var jobTable: [String: JobRecord] = [:]
    private var jobOrder: [String] = []
    private var bookTable: [String: [StoredBookPosition]] = [:]
    /// When set, the next write fails with this message (to test that nothing is half-written).
    public var failNextWrite: String?

    public init() {}

    private func checkWrite() throws(PuttingError) {
        if let message = failNextWrite {
            failNextWrite = nil
            throw .storage(message)
        }
    }

    public func replaceCourse(_ course: Course, holes: [Hole]) throws(PuttingError) {
        try checkWrite()
        courseTable[course.id] = course
        var table: [Int: Hole] = [:]
        for h in holes { table[h.number] = h }
        holeTable[course.id] = table
    }

    public func putHole(_ hole: Hole) throws(PuttingError) {
        guard courseTable[hole.courseID] != nil else { throw .unknownCourse(hole.courseID) }
        try checkWrite()
        holeTable[hole.courseID, default: [:]][hole.number] = hole
    }

    public func putHoles(_ holes: [Hole]) throws(PuttingError) {
        for hole in holes where courseTable[hole.courseID] == nil { throw .unknownCourse(hole.courseID) }
        try checkWrite()
        for hole in holes { holeTable[hole.courseID, default: [:]][hole.number] = hole }
    }

    public func course(id: String) throws(PuttingError) -> Course? { courseTable[id] }

    public func courses() throws(PuttingError) -> [Course] { courseTable.values.sorted { $0.id < $1.id } }

    public func holeSummaries(courseID: String) throws(PuttingError) -> [HoleSummary] {
        (holeTable[courseID] ?? [:]).values.sorted { $0.number < $1.number }.map(\.summary)
    }

    public func hole(courseID: String, number: Int) throws(PuttingError) -> Hole? { holeTable[courseID]?[number] }

    public func result(key: String) throws(PuttingError) -> String? { resultTable[key] }

    public func putResult(key: String, json: String) throws(PuttingError) {
        try checkWrite()
        resultTable[key] = json
    }

    public func putJob(_ job: JobRecord) throws(PuttingError) {
        try checkWrite()
        if jobTable[job.id] == nil { jobOrder.append(job.id) }
        jobTable[job.id] = job
    }

    public func job(id: String) throws(PuttingError) -> JobRecord? { jobTable[id] }

    public func jobs(states: [JobState]) throws(PuttingError) -> [JobRecord] {
        jobOrder.compactMap { jobTable[$0] }.filter { states.contains($0.state) }
    }

    public func jobs(key: String) throws(PuttingError) -> [JobRecord] {
        jobOrder.compactMap { jobTable[$0] }.filter { $0.key == key }
    }

    public func bookPositions(bookKey: String) throws(PuttingError) -> [StoredBookPosition] { bookTable[bookKey] ?? [] }

    public func putBookPositions(bookKey: String, _ positions: [StoredBookPosition], job: JobRecord?) throws(PuttingError) {
        try checkWrite()
        var stored = bookTable[bookKey] ?? []
        for p in positions {
            stored.removeAll { $0.xFt == p.xFt && $0.zFt == p.zFt }
            stored.append(p)
        }
        bookTable[bookKey] = stored
        if let job {
            if jobTable[job.id] == nil { jobOrder.append(job.id) }
            jobTable[job.id] = job
        }
    }
}
