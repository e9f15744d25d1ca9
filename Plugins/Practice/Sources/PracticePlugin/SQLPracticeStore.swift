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

    // Rows as records (PluginKit StoredRecords): a NULL or text where a number belongs is refused
    // naming the table and column, never read as 0 or "".

    private struct TemplateRecord: Decodable {
        var hash: String, club: String, canonical_json: String, source: String, inserted_at: String
        var display_name: String?, hidden: Int
    }

    private struct ActiveRecord: Decodable {
        var club: String, hash: String
    }

    private struct SessionRecord: Decodable {
        var id: Int64, content_hash: String, source_name: String, imported_at: String
        var session_date: String?, location: String?, title: String?, shot_count: Int, source_columns: String?
    }

    private struct SubsessionRecord: Decodable {
        var id: Int64, session_id: Int64, club: String, template_hash: String?, shot_count: Int
        var a_count: Int?, b_count: Int?, c_count: Int?, validity: String, a_percent: Double?, averages_json: String
    }

    /// A shot's fixed columns (its measurements are read by metric).
    private struct ShotRecord: Decodable {
        var row_index: Int, club: String, grade: String?, raw_json: String
    }

    private struct LiveShotRecord: Decodable {
        var live_session_id: Int64, shot_number: Int, club: String, grade: String?, template_hash: String?
        var raw_json: String, received_at: String
    }

    private struct LiveSessionRecord: Decodable {
        var id: Int64, device: String, started_at: String
    }

    private func records<T: Decodable>(_ type: T.Type, _ sql: String, _ parameters: [SQLValue] = [], of table: String) throws -> [T] {
        try storage.records(T.self, sql, parameters, of: table, in: "practice")
    }

    /// A stored name of one of `E`'s cases; another text is refused naming the table and column.
    private func known<E: RawRepresentable>(_ raw: String, _ column: String, of table: String) throws -> E where E.RawValue == String {
        guard let value = E(rawValue: raw) else {
            throw StoredRowError(table: table, database: "practice", problem: "column '\(column)' holds '\(raw)', not a \(E.self)")
        }
        return value
    }

    private func grade(_ raw: String?, of table: String) throws -> Grade? {
        try raw.map { (text: String) throws -> Grade in try known(text, "grade", of: table) }
    }

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
        try records(TemplateRecord.self, S.selectTemplates, of: "kpi_templates").map { t in
            StoredTemplate(hash: t.hash, club: t.club, canonicalJSON: t.canonical_json,
                           source: try known(t.source, "source", of: "kpi_templates"), insertedAt: t.inserted_at,
                           displayName: t.display_name, hidden: t.hidden == 1)
        }
    }

    func setTemplatePreferences(hash: String, displayName: String?, hidden: Bool) throws {
        guard try template(hash: hash) != nil else { throw PracticeStoreError.unknownTemplate(hash: hash) }
        try storage.run(S.upsertPreference, [.text(hash), displayName.map(SQLValue.text) ?? .null, SQLValue(hidden)])
    }

    func activeTemplates() throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try records(ActiveRecord.self, S.selectActive, of: "active_templates") { result[row.club] = row.hash }
        return result
    }

    func setActiveTemplate(club: String, hash: String) throws {
        guard try template(hash: hash) != nil else { throw PracticeStoreError.unknownTemplate(hash: hash) }
        try storage.run(S.upsertActive, [.text(club), .text(hash)])
    }

    // MARK: sessions

    private func session(_ row: Row) throws -> StoredSession {
        let s = try row.record(SessionRecord.self, of: "sessions", in: "practice")
        guard PracticeSchema.storedCountRange.contains(s.shot_count) else {
            throw StoredRowError(table: "sessions", database: "practice",
                                 problem: "column 'shot_count' holds \(s.shot_count), outside 0…1000000000")
        }
        let columns = s.source_columns.flatMap { try? JSONParser.parse($0) }?.arrayValue?.compactMap(\.stringValue) ?? []
        return StoredSession(id: s.id, contentHash: s.content_hash, sourceName: s.source_name, importedAt: s.imported_at,
                             sessionDate: s.session_date, location: s.location, title: s.title, shotCount: s.shot_count,
                             sourceColumns: columns)
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
        try records(SubsessionRecord.self, S.selectSubsessionsWhere,
                    [sessionID.map(SQLValue.integer) ?? .null, club.map(SQLValue.text) ?? .null], of: "club_subsessions")
            .map { s in
                let analysis = try SubsessionAnalysis.stored(
                    id: s.id, club: s.club, templateHash: s.template_hash, shotCount: s.shot_count, aCount: s.a_count,
                    bCount: s.b_count, cCount: s.c_count, validity: try known(s.validity, "validity", of: "club_subsessions"),
                    aPercent: s.a_percent, averagesJSON: s.averages_json)
                return StoredSubsession(id: s.id, sessionID: s.session_id, analysis: analysis)
            }
    }

    func shots(sessionID: Int64) throws -> [StoredShot] {
        let metrics = ShotMetric.allCases
        return try storage.query(S.selectShots, [.integer(sessionID)]).map { row in
            let shot = try row.record(ShotRecord.self, of: "shots", in: "practice")
            var m = ShotMeasurements()
            // SQLite keeps ±∞ (a row another program wrote): not a measurement, and JSON cannot say it.
            for metric in metrics { m[stored: metric] = row[metric.sqlColumn].double }
            return StoredShot(rowIndex: shot.row_index, club: shot.club, measurements: m, grade: try grade(shot.grade, of: "shots"),
                              rawJSON: shot.raw_json)
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
            let shot = try row.record(LiveShotRecord.self, of: "live_shots", in: "practice")
            var m = ShotMeasurements()
            for metric in metrics { m[stored: metric] = row[metric.sqlColumn].double }
            return LiveShotRow(liveSessionID: shot.live_session_id, shotNumber: shot.shot_number, club: shot.club, measurements: m,
                               grade: try grade(shot.grade, of: "live_shots"), templateHash: shot.template_hash,
                               rawJSON: shot.raw_json, receivedAt: shot.received_at)
        }
    }

    func openLiveSessions() throws -> [LiveSessionRow] {
        try records(LiveSessionRecord.self, S.selectOpenLiveSessions, of: "live_sessions").map {
            LiveSessionRow(id: $0.id, device: $0.device, startedAt: $0.started_at)
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
