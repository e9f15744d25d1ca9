// What the practice plugin publishes to the site's outbox (PluginKit Outbox, services/publish.h):
// every imported session, each of its shots, and every deleted session — inside the transaction that
// stores them, so a record exists exactly when its data does. A host without the outbox (older than
// ABI 1.4) gets none, and the plugin works as before.

import ClubhouseJSON
import PluginKit
import PracticeCore

extension Practice {
    static let records = [
        Topic("session", summary: "an imported session: {session (its content hash), source, importedAt, date, location, title, shots, clubs: [{club, template, shots, a, b, c, validity, aPercent}]}"),
        Topic("shot", summary: "a shot of a session: {session, row, club, grade, measurements}"),
        Topic("session.deleted", summary: "a deleted session (its shots leave every trend): {session, deletedAt, reason}"),
    ]
}

/// Publishes a record during the running call (set by the adapter for one call; nil: publish nothing).
typealias RecordPublisher = (_ topic: String, _ key: String, _ body: JSONValue) throws -> Void

enum PracticeRecords {
    static func session(_ batch: SessionBatch) -> JSONValue {
        .object([
            "session": .string(batch.contentHash), "source": .string(batch.sourceName), "importedAt": .string(batch.importedAt),
            "date": batch.sessionDate.map { .string($0) } ?? .null, "location": batch.location.map { .string($0) } ?? .null,
            "title": batch.title.map { .string($0) } ?? .null, "shots": .int(batch.shots.count),
            "clubs": .array(batch.subsessions.map { s in
                .object(["club": .string(s.club), "template": s.templateHash.map { .string($0) } ?? .null, "shots": .int(s.shotCount),
                         "a": s.aCount.map { .int($0) } ?? .null, "b": s.bCount.map { .int($0) } ?? .null,
                         "c": s.cCount.map { .int($0) } ?? .null, "validity": .string(s.validity.rawValue),
                         "aPercent": s.aPercent.map { .double($0) } ?? .null])
            }),
        ])
    }

    static func shot(_ shot: StoredShot, session: String) -> JSONValue {
        var measurements = JSONObject()
        for metric in ShotMetric.allCases {
            if let value = shot.measurements[metric] { measurements[metric.rawValue] = .double(value) }
        }
        return .object(["session": .string(session), "row": .int(shot.rowIndex), "club": .string(shot.club),
                        "grade": shot.grade.map { .string($0.rawValue) } ?? .null, "measurements": .object(measurements)])
    }

    /// Publishes the session and its shots (inside the store's transaction).
    static func publish(_ batch: SessionBatch, with publisher: RecordPublisher) throws {
        try publisher("session", "session/\(batch.contentHash)", session(batch))
        for s in batch.shots {
            try publisher("shot", "shot/\(batch.contentHash)/\(s.rowIndex)", shot(s, session: batch.contentHash))
        }
    }
}
