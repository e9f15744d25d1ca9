/// Where a template came from.
public enum TemplateSource: String, Codable, Sendable {
    /// Shipped with the kernel (`DefaultTemplates`).
    case bundled
    /// Added by the user.
    case user
}

/// A template row with its preferences.
public struct StoredTemplate: Sendable, Equatable, Codable {
    public let hash: String
    public let club: String
    public let canonicalJSON: String
    public let source: TemplateSource
    public let insertedAt: String
    /// Preferences (mutable).
    public var displayName: String?
    public var hidden: Bool

    public init(hash: String, club: String, canonicalJSON: String, source: TemplateSource, insertedAt: String,
                displayName: String? = nil, hidden: Bool = false) {
        self.hash = hash
        self.club = club
        self.canonicalJSON = canonicalJSON
        self.source = source
        self.insertedAt = insertedAt
        self.displayName = displayName
        self.hidden = hidden
    }

    enum CodingKeys: String, CodingKey {
        case hash, club, canonicalJSON = "canonical_json", source, insertedAt = "inserted_at"
        case displayName = "display_name", hidden
    }
}

/// A session row (one imported file).
public struct StoredSession: Sendable, Equatable, Codable {
    public let id: Int64
    /// SHA-256 of the imported file's bytes.
    public let contentHash: String
    public let sourceName: String
    public let importedAt: String
    public let sessionDate: String?
    public let location: String?
    public let title: String?
    public let shotCount: Int
    /// The export's header cells: the columns of every raw row stored as an array.
    public let sourceColumns: [String]

    public init(id: Int64, contentHash: String, sourceName: String, importedAt: String, sessionDate: String?,
                location: String?, title: String?, shotCount: Int, sourceColumns: [String]) {
        self.id = id
        self.contentHash = contentHash
        self.sourceName = sourceName
        self.importedAt = importedAt
        self.sessionDate = sessionDate
        self.location = location
        self.title = title
        self.shotCount = shotCount
        self.sourceColumns = sourceColumns
    }

    enum CodingKeys: String, CodingKey {
        case id, contentHash = "content_hash", sourceName = "source_name", importedAt = "imported_at"
        case sessionDate = "session_date", location, title, shotCount = "shot_count", sourceColumns = "source_columns"
    }

    /// The date trends sort by: the session's own date, else when it was imported.
    public var sortDate: String { sessionDate ?? importedAt }
}

/// A club sub-session row.
public struct StoredSubsession: Sendable, Equatable {
    public let id: Int64
    public let sessionID: Int64
    public let analysis: SubsessionAnalysis

    public init(id: Int64, sessionID: Int64, analysis: SubsessionAnalysis) {
        self.id = id
        self.sessionID = sessionID
        self.analysis = analysis
    }
}

/// A shot row.
public struct StoredShot: Sendable, Equatable {
    public let rowIndex: Int
    public let club: String
    public let measurements: ShotMeasurements
    /// The grade under the sub-session's template at import; nil when the club had none.
    public let grade: Grade?
    /// The source row verbatim (see `RapsodoShot.rawJSON`).
    public let rawJSON: String

    public init(rowIndex: Int, club: String, measurements: ShotMeasurements, grade: Grade?, rawJSON: String) {
        self.rowIndex = rowIndex
        self.club = club
        self.measurements = measurements
        self.grade = grade
        self.rawJSON = rawJSON
    }
}

/// Everything one import writes, in one transaction.
public struct SessionBatch: Sendable {
    public let contentHash: String
    public let sourceName: String
    public let importedAt: String
    public let sessionDate: String?
    public let location: String?
    public let title: String?
    public let sourceColumns: [String]
    public let subsessions: [SubsessionAnalysis]
    public let shots: [StoredShot]

    public init(contentHash: String, sourceName: String, importedAt: String, sessionDate: String?, location: String?,
                title: String?, sourceColumns: [String] = [], subsessions: [SubsessionAnalysis], shots: [StoredShot]) {
        self.contentHash = contentHash
        self.sourceName = sourceName
        self.importedAt = importedAt
        self.sessionDate = sessionDate
        self.location = location
        self.title = title
        self.sourceColumns = sourceColumns
        self.subsessions = subsessions
        self.shots = shots
    }
}

/// Why the store refused a write.
public enum PracticeStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A session with the same content hash exists.
    case duplicateSession(contentHash: String, existingID: Int64)
    /// A template with the same hash exists.
    case duplicateTemplate(hash: String)
    /// A referenced template is not stored.
    case unknownTemplate(hash: String)
    /// A referenced session is not stored.
    case unknownSession(id: Int64)
    /// A live session is unknown or already closed.
    case liveSessionNotOpen(id: Int64)
    /// A live shot with this number is stored for the session.
    case duplicateLiveShot(id: Int64, shotNumber: Int)
    /// The session's club already has an analysis under this template.
    case duplicateAnalysis(sessionID: Int64, club: String, hash: String)
    /// The session was written by a live recording, whose journal refers to it.
    case liveRecorded(sessionID: Int64, liveSessionID: Int64)

    public var description: String {
        switch self {
        case .duplicateSession(let hash, let id):
            return "this file was already imported as session \(id) (content hash \(hash.prefix(12))…); nothing was written"
        case .liveRecorded(let session, let live):
            return "session \(session) was recorded live (live session \(live)) and its live journal refers to it; "
                + "a live-recorded session cannot be deleted"
        case .duplicateTemplate(let hash): return "template \(hash.prefix(12))… is already stored"
        case .unknownTemplate(let hash): return "no template \(hash.prefix(12))… is stored"
        case .unknownSession(let id): return "no session \(id) is stored"
        case .liveSessionNotOpen(let id): return "live session \(id) is not open"
        case .duplicateLiveShot(let id, let n): return "live session \(id) already has shot \(n)"
        case .duplicateAnalysis(let id, let club, let hash):
            return "session \(id) already has a \(club) analysis under template \(hash.prefix(12)); nothing was written"
        }
    }
}

/// The practice kernel's storage. The plugin adapter implements it on the host's storage service
/// with `PracticeSchema`; `InMemoryPracticeStore` implements it for tests and dry runs. Facts are
/// only ever inserted.
public protocol PracticeStore: AnyObject {
    /// Runs `body` so that either all of its writes happen or none do (the SQL store: one
    /// transaction; nested calls are savepoints).
    func transaction<T>(_ body: () throws -> T) throws -> T

    // Templates (facts) and their preferences.
    /// Inserts once; an existing hash throws `PracticeStoreError.duplicateTemplate`.
    func insertTemplate(_ template: StoredTemplate) throws
    func template(hash: String) throws -> StoredTemplate?
    /// Every template with its preferences, ordered by club then insertion.
    func templates() throws -> [StoredTemplate]
    func setTemplatePreferences(hash: String, displayName: String?, hidden: Bool) throws
    /// Club → hash of the template the user made active.
    func activeTemplates() throws -> [String: String]
    func setActiveTemplate(club: String, hash: String) throws

    // Sessions (facts).
    func session(contentHash: String) throws -> StoredSession?
    func session(id: Int64) throws -> StoredSession?
    /// Ordered by session date (import time when undated), then id.
    func sessions() throws -> [StoredSession]
    /// Writes the session, its sub-sessions and its shots in one transaction (all or nothing);
    /// a stored content hash throws `PracticeStoreError.duplicateSession`. `progress` gets
    /// (shots written, total shots).
    func insertSession(_ batch: SessionBatch, progress: ((Int, Int) -> Void)?) throws -> StoredSession
    /// Sub-sessions of one session, or of every session when `sessionID` is nil; optionally of one club.
    func subsessions(sessionID: Int64?, club: String?) throws -> [StoredSubsession]
    /// One session's shots in file order.
    func shots(sessionID: Int64) throws -> [StoredShot]
    /// The measurements of one session's shots of one club, in file order (what grading needs: no
    /// source rows, no grades). The default filters `shots(sessionID:)`.
    func measurements(sessionID: Int64, club: String) throws -> [ShotMeasurements]
    /// Appends analyses of existing sessions (a re-grade under another template) in one
    /// transaction: all or none. An unknown session or template, or a (session, club, template)
    /// already analyzed, refuses the whole batch.
    func appendAnalyses(_ analyses: [AppendedAnalysis]) throws
    /// Deletes an imported session, its sub-sessions and shots, logging the deletion first, in one
    /// transaction. An unknown session throws `unknownSession`; a session a live recording wrote
    /// throws `liveRecorded` (its live journal keeps referring to it).
    func deleteSession(id: Int64, deletedAt: String, reason: String?) throws

    // Live sessions (a journal of facts; see `PracticeSchema.liveFactTables`).
    /// Starts a live session; returns its id.
    func beginLiveSession(device: String, startedAt: String) throws -> Int64
    /// Stores one shot as it arrives (one transaction).
    func insertLiveShot(_ shot: LiveShotRow) throws
    /// A live session's shots in arrival order.
    func liveShots(liveSessionID: Int64) throws -> [LiveShotRow]
    /// Live sessions not closed yet (a crash leaves them so).
    func openLiveSessions() throws -> [LiveSessionRow]
    /// Closes a live session: writes `batch` (when it has shots) as a session and the closure row,
    /// in one transaction. Returns the stored session.
    func closeLiveSession(_ id: Int64, batch: SessionBatch?, closedAt: String, reason: String) throws -> StoredSession?
}

extension PracticeStore {
    /// A store without transactions of its own runs `body` as is (every method is atomic alone).
    public func transaction<T>(_ body: () throws -> T) throws -> T { try body() }
}

/// A live session being recorded.
public struct LiveSessionRow: Sendable, Equatable {
    public let id: Int64
    public let device: String
    public let startedAt: String

    public init(id: Int64, device: String, startedAt: String) {
        self.id = id
        self.device = device
        self.startedAt = startedAt
    }
}

/// One shot of a live session, graded on arrival.
public struct LiveShotRow: Sendable, Equatable {
    public let liveSessionID: Int64
    public let shotNumber: Int
    public let club: String
    public let measurements: ShotMeasurements
    public let grade: Grade?
    public let templateHash: String?
    /// The Open Connect message verbatim.
    public let rawJSON: String
    public let receivedAt: String

    public init(liveSessionID: Int64, shotNumber: Int, club: String, measurements: ShotMeasurements, grade: Grade?,
                templateHash: String?, rawJSON: String, receivedAt: String) {
        self.liveSessionID = liveSessionID
        self.shotNumber = shotNumber
        self.club = club
        self.measurements = measurements
        self.grade = grade
        self.templateHash = templateHash
        self.rawJSON = rawJSON
        self.receivedAt = receivedAt
    }
}

/// A sub-session analysis added to a stored session after its import (`practice regrade`).
public struct AppendedAnalysis: Sendable, Equatable {
    public let sessionID: Int64
    public let analysis: SubsessionAnalysis

    public init(sessionID: Int64, analysis: SubsessionAnalysis) {
        self.sessionID = sessionID
        self.analysis = analysis
    }
}

extension PracticeStore {
    public func measurements(sessionID: Int64, club: String) throws -> [ShotMeasurements] {
        try shots(sessionID: sessionID).filter { $0.club == club }.map(\.measurements)
    }
}
