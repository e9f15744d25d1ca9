// The outbox (services/publish.h, ABI 1.4): a plugin declares its record topics once
// (`static var records`) and publishes records inside the storage transaction that writes their data:
//
//     static let records = [Topic("round", summary: "a finished round: its differential and where")]
//     …
//     try storage.transaction {
//         try storage.execute("INSERT INTO rounds …")
//         try call.outbox.publish(topic: "round", key: "round/\(id)", ["round": .int(id), "differential": 12.3])
//     }
//
// The host keeps the record exactly when the transaction commits (RFC 8785 body and its SHA-256) and
// ships it to the site's federation (`clubhouse federation push`).

import CClubhouse
import ClubhouseABI
import ClubhouseJSON

extension Plugin {
    public static var records: [Topic] { [] }
    public static var pulls: [Pull] { [] }
}

/// What `clubhouse federation pull` brings back to the plugin (the catalogue's "pulls"): every row of a
/// view of the federation (its central SQL made it), handed as a JSON array in the argument "rows" to
/// one of its commands, eg: `Pull(view: "scorecard.index_of_record", command: "federation receive")`.
public struct Pull: Sendable {
    public var view: String
    public var command: String

    public init(view: String, command: String) {
        self.view = view
        self.command = command
    }
}

/// Publishing records for the site's federation, for one call.
public struct Outbox {
    let services: ServiceTables
    let call: UnsafePointer<clubhouse_call>

    /// Whether the host offers the outbox to this plugin (ABI 1.4 and the site grants storage).
    public var isAvailable: Bool { services.publish?.pointee.publish != nil }

    /// Publishes `json` (one JSON value, at most 64 KiB in canonical form) as a record on `topic` (a
    /// topic of `records`) about `key` (eg: "round/42"), inside the storage transaction this call has
    /// open. Throws `PluginError` with the host's message when the host refuses it, or when the host is
    /// older than ABI 1.4.
    public func publish(topic: String, key: String, _ json: JSONValue) throws {
        var bytes: [UInt8] = []
        JSONWriter.appendCompact(json, to: &bytes)
        try publish(topic: topic, key: key, json: bytes)
    }

    /// The same with the JSON already written.
    public func publish(topic: String, key: String, json bytes: [UInt8]) throws {
        guard let table = services.publish, let publish = table.pointee.publish else {
            throw PluginError(.unsupported, "publish: this host offers no clubhouse.publish/1 service (it came with ABI 1.4, and needs the \"storage\" grant)")
        }
        let buffer = ReplyBuffer()
        let status = buffer.withSink { sink in
            bytes.withUnsafeBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { chars in
                    publish(services.host, call, topic, key, chars.baseAddress, chars.count, sink)
                }
            }
        }
        guard status == Int32(CLUBHOUSE_OK) else {
            throw PluginError(PluginStatus(rawValue: status) ?? .error, buffer.text)
        }
    }
}
