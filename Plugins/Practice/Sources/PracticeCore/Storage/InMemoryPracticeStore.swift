/// `PracticeStore` in memory, with the constraints of `PracticeSchema`: facts are insert-only,
/// content hashes and (session, row index) are unique, references must exist, and a session
/// batch is written whole or not at all. For tests, benchmarks and dry runs.
public final class InMemoryPracticeStore: PracticeStore {
    private var templateRows: [StoredTemplate] = []
    private var templateIndex: [String: Int] = [:]
    private var active: [String: String] = [:]
    private var sessionRows: [StoredSession] = []
    private var subsessionRows: [StoredSubsession] = []
    private var shotRows: [Int64: [StoredShot]] = [:]
    private var liveSessions: [LiveSessionRow] = []
    private var liveShotRows: [Int64: [LiveShotRow]] = [:]
    private var closedLive: Set<Int64> = []

    public init() {}

    /// All or nothing: a throwing body leaves every table as it was.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let saved = (templateRows, templateIndex, active, sessionRows, subsessionRows, shotRows, liveSessions, liveShotRows, closedLive)
        do {
            return try body()
        } catch {
            (templateRows, templateIndex, active, sessionRows, subsessionRows, shotRows, liveSessions, liveShotRows, closedLive) = saved
            throw error
        }
    }

    public func insertTemplate(_ template: StoredTemplate) throws {
        guard templateIndex[template.hash] == nil else { throw PracticeStoreError.duplicateTemplate(hash: template.hash) }
        templateIndex[template.hash] = templateRows.count
        templateRows.append(template)
    }

    public func template(hash: String) throws -> StoredTemplate? {
        templateIndex[hash].map { templateRows[$0] }
    }

    public func templates() throws -> [StoredTemplate] {
        templateRows.enumerated().sorted { l, r in
            (l.element.club, l.element.insertedAt, l.offset) < (r.element.club, r.element.insertedAt, r.offset)
        }.map(\.element)
    }

    public func setTemplatePreferences(hash: String, displayName: String?, hidden: Bool) throws {
        guard let i = templateIndex[hash] else { throw PracticeStoreError.unknownTemplate(hash: hash) }
        templateRows[i].displayName = displayName
        templateRows[i].hidden = hidden
    }

    public func activeTemplates() throws -> [String: String] { active }

    public func setActiveTemplate(club: String, hash: String) throws {
        guard templateIndex[hash] != nil else { throw PracticeStoreError.unknownTemplate(hash: hash) }
        active[club] = hash
    }

    public func session(contentHash: String) throws -> StoredSession? {
        sessionRows.first { $0.contentHash == contentHash }
    }

    public func session(id: Int64) throws -> StoredSession? {
        sessionRows.first { $0.id == id }
    }

    public func sessions() throws -> [StoredSession] {
        sessionRows.sorted { ($0.sortDate, $0.id) < ($1.sortDate, $1.id) }
    }

    public func insertSession(_ batch: SessionBatch, progress: ((Int, Int) -> Void)?) throws -> StoredSession {
        // Check every constraint before writing anything: all or nothing.
        if let existing = sessionRows.first(where: { $0.contentHash == batch.contentHash }) {
            throw PracticeStoreError.duplicateSession(contentHash: batch.contentHash, existingID: existing.id)
        }
        for s in batch.subsessions {
            if let hash = s.templateHash, templateIndex[hash] == nil { throw PracticeStoreError.unknownTemplate(hash: hash) }
        }
        var rows: Set<Int> = []
        for shot in batch.shots where !rows.insert(shot.rowIndex).inserted {
            throw InMemoryStoreError.constraint("UNIQUE constraint failed: shots.session_id, shots.row_index (\(shot.rowIndex))")
        }
        var clubs: Set<String> = []
        for s in batch.subsessions where !clubs.insert(s.club + "\u{0}" + (s.templateHash ?? "")).inserted {
            throw InMemoryStoreError.constraint("UNIQUE constraint failed: club_subsessions (\(s.club))")
        }
        let id = (sessionRows.map(\.id).max() ?? 0) + 1
        let session = StoredSession(id: id, contentHash: batch.contentHash, sourceName: batch.sourceName,
                                    importedAt: batch.importedAt, sessionDate: batch.sessionDate, location: batch.location,
                                    title: batch.title, shotCount: batch.shots.count, sourceColumns: batch.sourceColumns)
        sessionRows.append(session)
        var nextSubsession = (subsessionRows.map(\.id).max() ?? 0) + 1
        for s in batch.subsessions {
            subsessionRows.append(StoredSubsession(id: nextSubsession, sessionID: id, analysis: s))
            nextSubsession += 1
        }
        shotRows[id] = batch.shots
        progress?(batch.shots.count, batch.shots.count)
        return session
    }

    public func subsessions(sessionID: Int64?, club: String?) throws -> [StoredSubsession] {
        subsessionRows.filter { row in
            (sessionID == nil || row.sessionID == sessionID) && (club == nil || row.analysis.club == club)
        }
    }

    public func shots(sessionID: Int64) throws -> [StoredShot] {
        shotRows[sessionID] ?? []
    }

    public func appendAnalyses(_ analyses: [AppendedAnalysis]) throws {
        // Every check before any write: all or nothing.
        var keys = Set(subsessionRows.map { "\($0.sessionID)\u{0}\($0.analysis.club)\u{0}\($0.analysis.templateHash ?? "")" })
        for a in analyses {
            guard sessionRows.contains(where: { $0.id == a.sessionID }) else { throw PracticeStoreError.unknownSession(id: a.sessionID) }
            if let hash = a.analysis.templateHash, templateIndex[hash] == nil { throw PracticeStoreError.unknownTemplate(hash: hash) }
            guard keys.insert("\(a.sessionID)\u{0}\(a.analysis.club)\u{0}\(a.analysis.templateHash ?? "")").inserted else {
                throw PracticeStoreError.duplicateAnalysis(sessionID: a.sessionID, club: a.analysis.club, hash: a.analysis.templateHash ?? "")
            }
        }
        var next = (subsessionRows.map(\.id).max() ?? 0) + 1
        for a in analyses {
            subsessionRows.append(StoredSubsession(id: next, sessionID: a.sessionID, analysis: a.analysis))
            next += 1
        }
    }

    public func deleteSession(id: Int64, deletedAt: String, reason: String?) throws {
        guard sessionRows.contains(where: { $0.id == id }) else { throw PracticeStoreError.unknownSession(id: id) }
        sessionRows.removeAll { $0.id == id }
        subsessionRows.removeAll { $0.sessionID == id }
        shotRows[id] = nil
    }

    public func beginLiveSession(device: String, startedAt: String) throws -> Int64 {
        let id = (liveSessions.map(\.id).max() ?? 0) + 1
        liveSessions.append(LiveSessionRow(id: id, device: device, startedAt: startedAt))
        return id
    }

    public func insertLiveShot(_ shot: LiveShotRow) throws {
        guard liveSessions.contains(where: { $0.id == shot.liveSessionID }), !closedLive.contains(shot.liveSessionID) else {
            throw PracticeStoreError.liveSessionNotOpen(id: shot.liveSessionID)
        }
        if let hash = shot.templateHash, templateIndex[hash] == nil { throw PracticeStoreError.unknownTemplate(hash: hash) }
        if liveShotRows[shot.liveSessionID]?.contains(where: { $0.shotNumber == shot.shotNumber }) ?? false {
            throw PracticeStoreError.duplicateLiveShot(id: shot.liveSessionID, shotNumber: shot.shotNumber)
        }
        liveShotRows[shot.liveSessionID, default: []].append(shot)
    }

    public func liveShots(liveSessionID: Int64) throws -> [LiveShotRow] { liveShotRows[liveSessionID] ?? [] }

    public func openLiveSessions() throws -> [LiveSessionRow] { liveSessions.filter { !closedLive.contains($0.id) } }

    public func closeLiveSession(_ id: Int64, batch: SessionBatch?, closedAt: String, reason: String) throws -> StoredSession? {
        guard liveSessions.contains(where: { $0.id == id }), !closedLive.contains(id) else {
            throw PracticeStoreError.liveSessionNotOpen(id: id)
        }
        let session = try batch.map { try insertSession($0, progress: nil) }
        closedLive.insert(id)
        return session
    }
}

/// A constraint the in-memory store enforces, worded like SQLite's.
public enum InMemoryStoreError: Error, Equatable, CustomStringConvertible {
    case constraint(String)

    public var description: String {
        switch self {
        case .constraint(let message): return message
        }
    }
}
