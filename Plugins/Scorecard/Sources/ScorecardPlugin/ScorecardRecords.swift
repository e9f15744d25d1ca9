// What the scorecard publishes to the site's outbox (PluginKit Outbox, services/publish.h): every
// score entry, every correction, every finished round (each player's differential: what a
// federation's scoring record counts) and every deleted round — each inside the transaction that
// stores it, so a record exists exactly when its data does. A host without the outbox (older than
// ABI 1.4) gets none, and the command works as before.

import ClubhouseJSON
import PluginKit
import ScorecardCore

extension Scorecard {
    static let records = [
        Topic("round", summary: "a finished round: {round, date, course, tee, holes, nine, format, pcc, players: [{player, name, member, gross, adjustedGross, differential, note}]}"),
        Topic("score", summary: "a score entry: {round, player, hole, strokes, sequence, replaced}"),
        Topic("correction", summary: "a correction of a score: {round, player, hole, strokes, sequence, replaced, reason, correctedOn}"),
        Topic("round.deleted", summary: "a deleted round (its differentials leave the scoring record): {round, date, wasFinal, reason}"),
    ]

    /// A record to publish: topic, key and body.
    struct Record {
        var topic: String
        var key: String
        var body: JSONValue
    }

    /// Runs `body` and publishes what `records` makes of its reply's JSON, in one transaction.
    func runRecorded<T: Encodable>(_ call: Invocation, _ body: (ScorecardCommands) throws -> T,
                                   records: (JSONValue) -> [Record]) throws -> (T, JSONValue) {
        try store.transaction {
            let result = try body(ScorecardCommands(store: store, allowances: allowances))
            let data = ScorecardJSON.value(result)
            if call.outbox.isAvailable {
                for record in records(data) { try call.outbox.publish(topic: record.topic, key: record.key, record.body) }
            }
            return (result, data)
        }
    }

    /// `score` and `correct`: the entry (a correction also on "correction").
    static func entryRecords(_ data: JSONValue) -> [Record] {
        guard let entry = data["entry"], let sequence = entry["sequence"]?.intValue else { return [] }
        var body: JSONObject = [:]
        body["round"] = entry["roundID"] ?? .null
        body["player"] = entry["playerID"] ?? .null
        body["name"] = data["player"] ?? .null
        body["hole"] = entry["hole"] ?? .null
        body["strokes"] = entry["strokes"] ?? .null
        body["sequence"] = .int(sequence)
        body["replaced"] = data["replaced"] ?? .null
        // A plain entry's JSON carries "reason": null: only a reason makes it a correction.
        if let reason = entry["reason"], reason != .null {
            body["reason"] = reason
            body["correctedOn"] = entry["correctedOn"] ?? .null
            return [Record(topic: "correction", key: "entry/\(sequence)", body: .object(body))]
        }
        return [Record(topic: "score", key: "entry/\(sequence)", body: .object(body))]
    }

    /// `round finish`: the round with each player's differential.
    static func roundRecords(_ data: JSONValue, members: [Int: String]) -> [Record] {
        guard let round = data["leaderboard"]?["round"], let id = round["id"]?.intValue else { return [] }
        var ids: [String: JSONValue] = [:]
        for player in round["players"]?.arrayValue ?? [] {
            if let name = player["name"]?.stringValue { ids[name] = player["playerID"] ?? .null }
        }
        let players: [JSONValue] = (data["players"]?.arrayValue ?? []).map { player in
            let name = player["name"]?.stringValue ?? ""
            let local = ids[name] ?? .null
            return .object([
                "player": local, "name": .string(name), "member": local.intValue.flatMap { members[$0] }.map { .string($0) } ?? .null,
                "gross": player["gross"] ?? .null, "adjustedGross": player["adjustedGross"] ?? .null,
                "differential": player["differential"] ?? .null, "note": player["note"] ?? .null,
            ])
        }
        var body: JSONObject = [:]
        for key in ["date", "course", "tee", "holes", "nine", "format", "pcc", "finishedOn"] { body[key] = round[key] ?? .null }
        body["round"] = .int(id)
        body["players"] = .array(players)
        return [Record(topic: "round", key: "round/\(id)", body: .object(body))]
    }

    /// `round delete`.
    static func deletionRecords(_ data: JSONValue) -> [Record] {
        guard let round = data["round"], let id = round["id"]?.intValue else { return [] }
        return [Record(topic: "round.deleted", key: "round/\(id)",
                       body: ["round": .int(id), "date": round["date"] ?? .null, "wasFinal": data["wasFinal"] ?? .null,
                              "reason": data["reason"] ?? .null])]
    }
}
