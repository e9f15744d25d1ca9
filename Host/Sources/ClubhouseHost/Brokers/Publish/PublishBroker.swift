// Publish broker: the outbox service (services/publish.h, ABI 1.4). One implementation — check the
// topic, the key and the body, write the body's RFC 8785 form and its SHA-256 into the outbox inside
// the plugin's open transaction (Outbox.swift) — reached two ways: the C table an in-process plugin
// gets, and the wire face that answers a runner's `record` service call (the record is the plugin's
// whose runner sent it, whatever the frame says).

import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseLoader
import ClubhouseWire

enum PublishBroker {
    /// The C face.
    static func makeServiceTable() -> clubhouse_publish_service {
        clubhouse_publish_service(
            struct_size: UInt32(MemoryLayout<clubhouse_publish_service>.size),
            publish: { host, call, topic, key, json, length, reply in
                guard let instance = PluginInstance.from(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                guard let context = CallContext.from(call), let topic, let key else {
                    reply?.write("publish: needs the running call, a topic and a key")
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                // Measured before anything is copied: a plugin cannot make the host copy gigabytes.
                guard length <= PublishBroker.maxInputBytes else {
                    reply?.write(PublishBroker.oversize(topic: String(cString: topic), bytes: length))
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                let bytes = json.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                let (status, message) = PublishBroker.publish(instance: instance, call: CallContext.current ?? context,
                                                              topic: String(cString: topic), key: String(cString: key), json: bytes)
                if status != Int32(CLUBHOUSE_OK) { reply?.write(message) }
                return status
            })
    }

    /// The most JSON text the host reads for one record (whitespace around a body at the limit).
    static let maxInputBytes = 4 * Outbox.maxBodyBytes

    static func oversize(topic: String, bytes: Int) -> String {
        "publish: the record on '\(topic)' is \(bytes) bytes; a record's body is at most \(Outbox.maxBodyBytes) bytes in canonical form (publish what identifies the fact and its numbers, not attachments)"
    }

    static func publish(instance: PluginInstance, call: CallContext, topic: String, key: String, json: [UInt8]) -> (Int32, String) {
        if let (status, message) = ServiceGate.refusal(.publishRecord, call: call) { return (status, "publish: \(message)") }
        let invalid = Int32(CLUBHOUSE_INVALID_ARGUMENT)
        guard instance.records.contains(where: { $0.name == topic }) else {
            let known = instance.records.isEmpty ? "it declares no record topics (\"records\" in its catalogue)"
                : "it declares \(instance.records.map { "'\($0.name)'" }.joined(separator: ", "))"
            return (invalid, "publish: plugin '\(instance.entry.alias)' published a record on topic '\(TerminalText.plain(topic))', which its catalogue does not declare; \(known)")
        }
        if let problem = Outbox.keyProblem(key) {
            return (invalid, "publish: record '\(topic)': \(problem)")
        }
        guard json.count <= maxInputBytes else { return (invalid, oversize(topic: topic, bytes: json.count)) }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes: json)
        } catch {
            return (invalid, "publish: the record '\(topic)' \(key) is not one JSON value (\(error)); publish a JSON object such as {\"round\": 42}")
        }
        let body: [UInt8]
        do {
            body = try RecordCanonicalForm.bytes(of: value)
        } catch {
            return (invalid, "publish: the record '\(topic)' \(key): \(error.message)")
        }
        guard body.count <= Outbox.maxBodyBytes else { return (invalid, oversize(topic: topic, bytes: body.count)) }
        guard instance.entry.isGranted(.storage) else {
            return (Int32(CLUBHOUSE_DENIED), "publish: the site does not grant \"storage\" to plugin '\(instance.entry.alias)'; the outbox lives in its database")
        }
        guard let database = instance.openDatabase else {
            return (Int32(CLUBHOUSE_IO), "publish: \(instance.databaseError ?? "the database is not available")")
        }
        let limit = instance.runtime.configuration.sites[instance.siteName]?.federation?.outboxMaxRecords ?? Outbox.maxRecords
        return database.appendRecord(site: instance.siteName, plugin: instance.info.id, version: instance.info.version, topic: topic,
                                     key: key, body: body, sha256: RecordCanonicalForm.sha256(body), limit: limit, call: call.id,
                                     commits: instance.runtime.outboxCommits)
    }

    /// The wire face: `record` (RecordPublishRequest) → status, a message (MessageReply).
    static func serve(_ request: RecordPublishRequest, instance: PluginInstance, call: CallContext) -> (Int32, [UInt8]) {
        let (status, message) = publish(instance: instance, call: call, topic: request.topic, key: request.key, json: request.json)
        return (status, MessageReply(message: message).encode())
    }
}
