// Live events (services/events.h, ABI 1.3): a plugin declares its topics once (`static var topics`)
// and publishes small JSON events during a call:
//
//     static let topics = [Topic("score", summary: "a score entered or corrected")]
//     …
//     try call.events.publish(topic: "score", ["round": 3, "hole": 7, "strokes": 4])
//
// Listeners (`GET /api/<alias>/events`, Server-Sent Events) receive them in order; nobody listening
// is not an error.

import CClubhouse
import ClubhouseABI
import ClubhouseJSON

/// A topic the plugin publishes on (the catalogue's "topics").
public struct Topic: Sendable {
    public var name: String
    public var summary: String

    /// `name`: 1–64 lowercase letters, digits, '-' and '.' (the host refuses anything else at load).
    public init(_ name: String, summary: String) {
        self.name = name
        self.summary = summary
    }
}

extension Plugin {
    public static var topics: [Topic] { [] }
}

/// Publishing on the plugin's topics, for one call.
public struct Events {
    let services: ServiceTables
    let call: UnsafePointer<clubhouse_call>

    /// Publishes `json` (one JSON value, at most 4 KiB written compactly) on `topic`, a topic the plugin
    /// declares. Throws `PluginError` with the host's message when the host refuses it, or when the host
    /// is older than ABI 1.3 (no events service).
    public func publish(topic: String, _ json: JSONValue) throws {
        var bytes: [UInt8] = []
        JSONWriter.appendCompact(json, to: &bytes)
        try publish(topic: topic, json: bytes)
    }

    /// The same with the JSON already written.
    public func publish(topic: String, json bytes: [UInt8]) throws {
        guard let table = services.events, let publish = table.pointee.publish else {
            throw PluginError(.unsupported, "events: this host has no clubhouse.events/1 service (it came with ABI 1.3)")
        }
        let buffer = ReplyBuffer()
        let status = buffer.withSink { sink in
            bytes.withUnsafeBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { chars in
                    publish(services.host, call, topic, chars.baseAddress, chars.count, sink)
                }
            }
        }
        guard status == Int32(CLUBHOUSE_OK) else {
            throw PluginError(PluginStatus(rawValue: status) ?? .error, buffer.text)
        }
    }
}
