// The outbox's message between runner and host (services/publish.h, ABI 1.4).

/// `record`: u64 call, str topic, str key, bytes json; the reply is a MessageReply.
package struct RecordPublishRequest: Equatable {
    package var call: UInt64
    package var topic: String
    package var key: String
    package var json: [UInt8]

    package init(call: UInt64, topic: String, key: String, json: [UInt8]) {
        self.call = call
        self.topic = topic
        self.key = key
        self.json = json
    }

    package func encode(into w: inout WireWriter) {
        w.u64(call)
        w.str(topic)
        w.str(key)
        w.data(json)
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> RecordPublishRequest {
        RecordPublishRequest(call: try r.u64(), topic: try r.str(), key: try r.str(), json: try r.data())
    }
}
