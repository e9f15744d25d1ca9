// PracticeStore on the plugin's SQLite database (PluginKit Storage), with the statements of
// PracticeSchema. A session batch is written in one transaction with one prepared shot insert.

import ClubhouseJSON
import PluginKit
import PracticeCore

final class SQLPracticeStore: PracticeStore {
    let storage: Storage

    init(storage: Storage) { self.storage = storage }

    /// Publishes outbox records for the call running now (PracticeRecords.swift); nil: none.
    var publisher: RecordPublisher?

    struct CorruptRow: Error, CustomStringConvertible {
        let description: String
    }

    private typealias S = PracticeSchema.SQL

    // MARK: templates

    func insertTemplate(_ template: StoredTemplate) throws {
        if try self.template(hash: template.hash) != nil { throw PracticeStoreError.duplicateTemplate(hash: template.hash) }
        try storage.run(S.insertTemplate, [.text(template.hash), .text(template.club), .text(KPITemplate.schemaVersion),
                                            .text(template.canonicalJSON), .text(template.source.rawValue), .text(template.insertedAt)])
        if template.displayName != nil || template.hidden {
            try setTemplatePreferences(hash: template.hash, displayName: template.displayName, hidden: template.hidden)
        }
    }

    func template(hash: String) throws -> StoredTemplate? {
        try templates().first { $0.hash == hash }
    }

    func templates() throws -> [StoredTemplate] {
        try storage.query(S.selectTemplates).map { row in
            guard let hash = row["hash"].string, let club = row["club"].string, let json = row["canonical_json"].string,
                  let source = row["source"].string.flatMap(TemplateSource.init(rawValue:)),
                  let insertedAt = row["inserted_at"].string else {
                throw CorruptRow(description: "a kpi_templates row is unreadable; the database is damaged")
            }
            return StoredTemplate(hash: hash, club: club, canonicalJSON: json, source: source, insertedAt: insertedAt,
                                  displayName: row["display_name"].string, hidden: row["hidden"].int == 1)
        }
    }

    func setTemplatePreferences(hash: String, displayName: String?, hidden: Bool) throws {
        guard try template(hash: hash) != nil else { throw PracticeStoreError.unknownTemplate(hash: hash) }
        try storage.run(S.upsertPreference, [.text(hash), displayName.map(SQLValue.text) ?? .null, SQLValue(hidden)])
    }

    func activeTemplates() throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try storage.query(S.selectActive) {
            if let club = row["club"].string, let hash = row["hash"].string { result[club] = hash }
        }
        return result
    }

    func setActiveTemplate(club: String, hash: String) throws {
        guard try template(hash: hash) != nil else { throw PracticeStoreError.unknownTemplate(hash: hash) }
        try storage.run(S.upsertActive, [.text(club), .text(hash)])
    }

    // MARK: sessions

    private func session(_ row: Row) throws -> StoredSession {
        guard let id = row["id"].int64, let hash = row["content_hash"].string, let source = row["source_name"].string,
              let importedAt = row["imported_at"].string, let shots = row["shot_count"].int,
              PracticeSchema.storedCountRange.contains(shots) else {
            throw CorruptRow(description: "a sessions row is unreadable (or its shot_count is outside 0…1000000000); "
                + "the database is damaged")
        }
        let columns = row["source_columns"].string.flatMap { try? JSONParser.parse($0) }?.arrayValue?.compactMap(\.stringValue) ?? []
        return StoredSession(id: id, contentHash: hash, sourceName: source, importedAt: importedAt, sessionDate: row["session_date"].string,
                             location: row["location"].string, title: row["title"].string, shotCount: shots, sourceColumns: columns)
    }

    func session(contentHash: String) throws -> StoredSession? {
        try storage.queryOne(S.selectSessionByContentHash, [.text(contentHash)]).map(session)
    }

    func session(id: Int64) throws -> StoredSession? {
        try storage.queryOne(S.selectSessionByID, [.integer(id)]).map(session)
    }

    func sessions() throws -> [StoredSession] {
        try storage.query(S.selectSessions).map(session)
    }

    func insertSession(_ batch: SessionBatch, progress: ((Int, Int) -> Void)?) throws -> StoredSession {
        try storage.transaction {
            if let existing = try session(contentHash: batch.contentHash) {
                throw PracticeStoreError.duplicateSession(contentHash: batch.contentHash, existingID: existing.id)
            }
            try storage.run(S.insertSession, [.text(batch.contentHash), .text(batch.sourceName), .text(batch.importedAt),
                                               batch.sessionDate.map(SQLValue.text) ?? .null, batch.location.map(SQLValue.text) ?? .null,
                                               batch.title.map(SQLValue.text) ?? .null, SQLValue(batch.shots.count),
                                               .text(JSONWriter.compact(.array(batch.sourceColumns.map(JSONValue.string))))])
            let id = storage.lastInsertRowID
            for s in batch.subsessions {
                try storage.run(S.insertSubsession, [
                    .integer(id), .text(s.club), s.templateHash.map(SQLValue.text) ?? .null, SQLValue(s.shotCount),
                    SQLValue(s.aCount), SQLValue(s.bCount), SQLValue(s.cCount), .text(s.validity.rawValue),
                    SQLValue(s.aPercent), .text(s.averagesJSON),
                ])
            }
            // Shots go in batches of `batchRows` per statement (SQLite's per-statement cost is paid
            // once per batch), the remainder one by one; statements are prepared once.
            let batchRows = 64
            let batchInsert = try storage.prepare(S.insertShots(rows: batchRows))
            let single = try storage.prepare(S.insertShot)
            let metrics = ShotMetric.allCases
            let perShot = Int32(S.shotColumns.count)
            let total = batch.shots.count
            func bind(_ shot: StoredShot, to statement: Statement, at base: Int32) throws {
                try statement.bind(base + 1, id)
                try statement.bind(base + 2, shot.rowIndex)
                try statement.bind(base + 3, shot.club)
                for (k, metric) in metrics.enumerated() {
                    let index = base + 4 + Int32(k)
                    if let v = shot.measurements[metric] { try statement.bind(index, v) } else { try statement.bindNull(index) }
                }
                let gradeIndex = base + 4 + Int32(metrics.count)
                if let grade = shot.grade { try statement.bind(gradeIndex, grade.rawValue) } else { try statement.bindNull(gradeIndex) }
                try statement.bind(gradeIndex + 1, shot.rawJSON)
            }
            var n = 0
            while n + batchRows <= total {
                for k in 0..<batchRows { try bind(batch.shots[n + k], to: batchInsert, at: Int32(k) * perShot) }
                try batchInsert.step()
                try batchInsert.reset()
                n += batchRows
                if n % (batchRows * 128) == 0 { progress?(n, total) }
            }
            while n < total {
                try bind(batch.shots[n], to: single, at: 0)
                try single.step()
                try single.reset()
                n += 1
            }
            progress?(total, total)
            if let publisher { try PracticeRecords.publish(batch, with: publisher) }
            return StoredSession(id: id, contentHash: batch.contentHash, sourceName: batch.sourceName, importedAt: batch.importedAt,
                                 sessionDate: batch.sessionDate, location: batch.location, title: batch.title, shotCount: total,
                                 sourceColumns: batch.sourceColumns)
        }
    }

    func subsessions(sessionID: Int64?, club: String?) throws -> [StoredSubsession] {
        try storage.query(S.selectSubsessionsWhere, [sessionID.map(SQLValue.integer) ?? .null, club.map(SQLValue.text) ?? .null])
            .map { row in
                guard let id = row["id"].int64, let sessionID = row["session_id"].int64, let club = row["club"].string,
                      let shots = row["shot_count"].int, let validity = row["validity"].string.flatMap(Validity.init(rawValue:)),
                      let averagesJSON = row["averages_json"].string else {
                    throw CorruptRow(description: "a club_subsessions row is unreadable; the database is damaged")
                }
                let analysis = try SubsessionAnalysis.stored(
                    id: id, club: club, templateHash: row["template_hash"].string, shotCount: shots, aCount: row["a_count"].int,
                    bCount: row["b_count"].int, cCount: row["c_count"].int, validity: validity, aPercent: row["a_percent"].double,
                    averagesJSON: averagesJSON)
                return StoredSubsession(id: id, sessionID: sessionID, analysis: analysis)
            }
    }

    func shots(sessionID: Int64) throws -> [StoredShot] {
        let metrics = ShotMetric.allCases
        return try storage.query(S.selectShots, [.integer(sessionID)]).map { row in
            var m = ShotMeasurements()
            // SQLite keeps ±∞ (a row another program wrote): not a measurement, and JSON cannot say it.
            for metric in metrics { m[stored: metric] = row[metric.sqlColumn].double }
            return StoredShot(rowIndex: row["row_index"].int ?? 0, club: row["club"].string ?? "", measurements: m,
                              grade: row["grade"].string.flatMap(Grade.init(rawValue:)), rawJSON: row["raw_json"].string ?? "")
        }
    }

    /// Read column by column from one cached statement: no row values, no source rows.
    func measurements(sessionID: Int64, club: String) throws -> [ShotMeasurements] {
        try storage.withCachedStatement(sql: S.selectClubMeasurements) { statement in
            let columns = try ShotMetric.allCases.map { metric in
                guard let column = statement.columnIndex(metric.sqlColumn) else {
                    throw CorruptRow(description: "the shots query has no column \(metric.sqlColumn)")
                }
                return (metric, column)
            }
            try statement.bind(1, sessionID)
            try statement.bind(2, club)
            var result: [ShotMeasurements] = []
            while try statement.step() {
                var m = ShotMeasurements()
                for (metric, column) in columns where !statement.isNull(column) { m[stored: metric] = statement.double(column) }
                result.append(m)
            }
            return result
        }
    }

    func appendAnalyses(_ analyses: [AppendedAnalysis]) throws {
        try storage.transaction {
            let insert = try storage.prepare(S.insertSubsession)
            for a in analyses {
                guard try session(id: a.sessionID) != nil else { throw PracticeStoreError.unknownSession(id: a.sessionID) }
                if let hash = a.analysis.templateHash, try storage.queryOne(S.selectTemplateExists, [.text(hash)]) == nil {
                    throw PracticeStoreError.unknownTemplate(hash: hash)
                }
                if try storage.queryOne(S.selectAnalysisExists, [.integer(a.sessionID), .text(a.analysis.club),
                                                                 a.analysis.templateHash.map(SQLValue.text) ?? .null]) != nil {
                    throw PracticeStoreError.duplicateAnalysis(sessionID: a.sessionID, club: a.analysis.club,
                                                               hash: a.analysis.templateHash ?? "")
                }
                let s = a.analysis
                try insert.bind([.integer(a.sessionID), .text(s.club), s.templateHash.map(SQLValue.text) ?? .null,
                                 SQLValue(s.shotCount), SQLValue(s.aCount), SQLValue(s.bCount), SQLValue(s.cCount),
                                 .text(s.validity.rawValue), SQLValue(s.aPercent), .text(s.averagesJSON)])
                _ = try insert.step()
                try insert.reset()
            }
        }
    }

    // MARK: live sessions

    func beginLiveSession(device: String, startedAt: String) throws -> Int64 {
        try storage.run(S.insertLiveSession, [.text(device), .text(startedAt)])
        return storage.lastInsertRowID
    }

    private var liveShotInsert: Statement?

    func insertLiveShot(_ shot: LiveShotRow) throws {
        let statement: Statement
        if let prepared = liveShotInsert { statement = prepared } else {
            statement = try storage.prepare(S.insertLiveShot)
            liveShotInsert = statement
        }
        try storage.transaction {
            guard try storage.queryOne("SELECT 1 FROM live_sessions WHERE id = ?1 AND id NOT IN (SELECT live_session_id FROM live_closures)",
                                       [.integer(shot.liveSessionID)]) != nil else {
                throw PracticeStoreError.liveSessionNotOpen(id: shot.liveSessionID)
            }
            try statement.bind(1, shot.liveSessionID)
            try statement.bind(2, shot.shotNumber)
            try statement.bind(3, shot.club)
            for (k, metric) in ShotMetric.allCases.enumerated() {
                let index = Int32(4 + k)
                if let v = shot.measurements[metric] { try statement.bind(index, v) } else { try statement.bindNull(index) }
            }
            let next = Int32(4 + ShotMetric.allCases.count)
            if let grade = shot.grade { try statement.bind(next, grade.rawValue) } else { try statement.bindNull(next) }
            if let hash = shot.templateHash { try statement.bind(next + 1, hash) } else { try statement.bindNull(next + 1) }
            try statement.bind(next + 2, shot.rawJSON)
            try statement.bind(next + 3, shot.receivedAt)
            defer { try? statement.reset() }
            _ = try statement.step()
        }
    }

    func liveShots(liveSessionID: Int64) throws -> [LiveShotRow] {
        let metrics = ShotMetric.allCases
        return try storage.query(S.selectLiveShots, [.integer(liveSessionID)]).map { row in
            var m = ShotMeasurements()
            for metric in metrics { m[stored: metric] = row[metric.sqlColumn].double }
            guard let id = row["live_session_id"].int64, let number = row["shot_number"].int, let club = row["club"].string,
                  let raw = row["raw_json"].string, let received = row["received_at"].string else {
                throw CorruptRow(description: "a live_shots row is unreadable; the database is damaged")
            }
            return LiveShotRow(liveSessionID: id, shotNumber: number, club: club, measurements: m,
                               grade: row["grade"].string.flatMap(Grade.init(rawValue:)), templateHash: row["template_hash"].string,
                               rawJSON: raw, receivedAt: received)
        }
    }

    func openLiveSessions() throws -> [LiveSessionRow] {
        try storage.query(S.selectOpenLiveSessions).map { row in
            guard let id = row["id"].int64, let device = row["device"].string, let started = row["started_at"].string else {
                throw CorruptRow(description: "a live_sessions row is unreadable; the database is damaged")
            }
            return LiveSessionRow(id: id, device: device, startedAt: started)
        }
    }

    func transaction<T>(_ body: () throws -> T) throws -> T { try storage.transaction(body) }

    func deleteSession(id: Int64, deletedAt: String, reason: String?) throws {
        try storage.transaction {
            guard let session = try session(id: id) else { throw PracticeStoreError.unknownSession(id: id) }
            if let live = try storage.queryOne(S.selectLiveClosureOfSession, [.integer(id)])?["live_session_id"].int {
                throw PracticeStoreError.liveRecorded(sessionID: id, liveSessionID: Int64(live))
            }
            try storage.run(S.insertSessionDeletion, [.integer(id), .text(session.contentHash), .text(session.importedAt),
                                                      .text(session.sourceName), SQLValue(session.shotCount), .text(deletedAt),
                                                      reason.map(SQLValue.text) ?? .null])
            for statement in S.deleteSessionRows { try storage.run(statement, [.integer(id)]) }
            try publisher?("session.deleted", "session/\(session.contentHash)",
                           ["session": .string(session.contentHash), "deletedAt": .string(deletedAt), "reason": reason.map { .string($0) } ?? .null])
        }
    }

    func closeLiveSession(_ id: Int64, batch: SessionBatch?, closedAt: String, reason: String) throws -> StoredSession? {
        try storage.transaction {
            guard try openLiveSessions().contains(where: { $0.id == id }) else { throw PracticeStoreError.liveSessionNotOpen(id: id) }
            let session = try batch.map { try insertSession($0, progress: nil) }
            try storage.run(S.insertLiveClosure, [.integer(id), session.map { SQLValue.integer($0.id) } ?? .null, .text(closedAt), .text(reason)])
            return session
        }
    }
}
