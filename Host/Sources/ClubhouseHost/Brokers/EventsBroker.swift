// Events broker: a plugin's live events (services/events.h, ABI 1.3). One implementation (the site's
// EventHub: a bounded ring per plugin and its listeners), reached two ways: the C table an in-process
// plugin gets, and the wire face that answers a runner's `publish` service call. The HTTP front end
// listens (`GET /api/<alias>/events`, Server-Sent Events).

import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhousePlatform
import ClubhouseWire

/// One published event.
public struct PluginEvent: Sendable, Equatable {
    /// Its place in its plugin's ring: 1, 2, 3, … from the start of the host.
    public let id: UInt64
    public let topic: String
    /// The event's JSON, written compactly (no line breaks).
    public let data: [UInt8]
    /// The topic a listener's filter sees: `topic`, but for a `clubhouse.missed` put where an event too large
    /// to deliver was (the topic of that event: its listeners are told to load the state again).
    public let about: String

    init(id: UInt64, topic: String, data: [UInt8], about: String? = nil) {
        self.id = id
        self.topic = topic
        self.data = data
        self.about = about ?? topic
    }
}

/// Why an event was refused: one line for the plugin.
public struct EventRefusal: Error, Sendable {
    public let message: String
    init(_ message: String) { self.message = message }
}

/// A listener of one plugin's events. `deliver` runs under the hub's lock, in id order, and must not
/// block (it queues); it returns false to be dropped (a listener that does not keep up).
/// @unchecked Sendable: immutable; `deliver` runs under the hub's lock.
public final class EventSubscription: @unchecked Sendable {
    // Safe: every field is set at init and never changes.
    let alias: String
    let topics: Set<String>?
    let deliver: (PluginEvent) -> Bool

    init(alias: String, topics: Set<String>?, deliver: @escaping (PluginEvent) -> Bool) {
        self.alias = alias
        self.topics = topics
        self.deliver = deliver
    }

    func wants(_ topic: String) -> Bool { topics?.contains(topic) ?? true }
}

/// The site's live events: per plugin, a ring of the last `capacity` events and the listeners.
/// @unchecked Sendable: every field is guarded by `lock`.
public final class EventHub: @unchecked Sendable {
    /// Events each plugin's ring keeps.
    public static let ringCapacity = 256
    /// The largest event (its compact JSON), services/events.h's CLUBHOUSE_EVENT_MAX_BYTES.
    public static let maxEventBytes = Int(CLUBHOUSE_EVENT_MAX_BYTES)

    private struct Ring {
        let capacity: Int
        var events: [PluginEvent] = []
        /// Where the oldest event is once the ring is full.
        var head = 0
        var lastID: UInt64 = 0

        mutating func append(_ event: PluginEvent) {
            if events.count < capacity {
                events.append(event)
            } else {
                events[head] = event
                head = (head + 1) % capacity
            }
            lastID = event.id
        }

        /// The events after `id`, oldest first.
        func after(_ id: UInt64) -> [PluginEvent] {
            let ordered = events.count < capacity ? events : Array(events[head...] + events[..<head])
            return ordered.filter { $0.id > id }
        }

        var firstID: UInt64? { events.isEmpty ? nil : events[events.count < capacity ? 0 : head].id }
    }

    private let lock = Lock()
    private var rings: [String: Ring] = [:]
    private var listeners: [String: [EventSubscription]] = [:]
    private let capacity: Int

    public init(capacity: Int = EventHub.ringCapacity) { self.capacity = max(1, min(capacity, EventHub.ringCapacity)) }

    /// Checks an event against the plugin's declared topics and the size bound, puts it in the ring and
    /// hands it to the listeners. The failure is the one-line message for the plugin.
    public func publish(alias: String, topic: String, json: [UInt8], declared: [EventTopic]) -> Result<PluginEvent, EventRefusal> {
        // The catalogue refuses these at load time; this holds whatever the declared list says.
        guard !EventTopic.isReserved(topic) else {
            return .failure(EventRefusal("events: plugin '\(alias)' published on \(EventTopic.reservedProblem(topic))"))
        }
        guard declared.contains(where: { $0.name == topic }) else {
            let known = declared.isEmpty ? "it declares no topics (\"topics\" in its catalogue)"
                : "it declares \(declared.map { "'\($0.name)'" }.joined(separator: ", "))"
            return .failure(EventRefusal("events: plugin '\(alias)' published on topic '\(topic)', which its catalogue does not declare; \(known)"))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes: json)
        } catch {
            return .failure(EventRefusal("events: the event on '\(topic)' is not one JSON value (\(error)); publish a JSON object such as {\"hole\": 7}"))
        }
        var data: [UInt8] = []
        JSONWriter.appendCompact(value, to: &data)
        guard data.count <= EventHub.maxEventBytes else {
            // Never lost silently (the third outside attack, a33: a correction with a 5,000-character reason
            // was stored and its `score` event dropped): in its place the topic's listeners get
            // `clubhouse.missed` — {"after": <the id before>, "topic": …, "bytes": …} — and load the state
            // again; the plugin is told, as before.
            let bytes = data.count
            append(alias: alias, about: topic) { id in
                PluginEvent(id: id, topic: EventTopic.missed,
                            data: Array("{\"after\":\(id - 1),\"topic\":\"\(topic)\",\"bytes\":\(bytes)}".utf8), about: topic)
            }
            return .failure(EventRefusal("events: the event on '\(topic)' is \(bytes) bytes; an event is at most \(EventHub.maxEventBytes) bytes (publish an id and let listeners fetch the rest); its listeners were sent \(EventTopic.missed) instead"))
        }
        return .success(append(alias: alias, about: topic) { id in PluginEvent(id: id, topic: topic, data: data) })
    }

    /// Puts the event `make` builds with the ring's next id in `alias`'s ring and hands it to the listeners of `about`.
    private func append(alias: String, about topic: String, _ make: (UInt64) -> PluginEvent) -> PluginEvent {
        lock.withLock {
            var ring = rings[alias] ?? Ring(capacity: capacity)
            let event = make(ring.lastID + 1)
            ring.append(event)
            rings[alias] = ring
            if let list = listeners[alias] {
                let kept = list.filter { !$0.wants(topic) || $0.deliver(event) }
                if kept.count != list.count { listeners[alias] = kept }
            }
            return event
        }
    }

    /// Starts listening to `alias`'s events on `topics` (nil: all). `start` runs first, under the lock,
    /// with the ring's events after `lastID` (none when nil) and whether events after `lastID` were lost
    /// (the ring moved past them, or the id is from before the host started); then every new event
    /// reaches `deliver`, with nothing missed or repeated in between.
    public func subscribe(alias: String, topics: Set<String>?, after lastID: UInt64?,
                          start: ([PluginEvent], _ missed: Bool) -> Void,
                          deliver: @escaping (PluginEvent) -> Bool) -> EventSubscription {
        let subscription = EventSubscription(alias: alias, topics: topics, deliver: deliver)
        lock.withLock {
            let ring = rings[alias] ?? Ring(capacity: capacity)
            var replay: [PluginEvent] = []
            var missed = false
            if let lastID {
                if lastID > ring.lastID {
                    // An id from an earlier run of the host: everything the ring has is new to the client.
                    replay = ring.after(0)
                    missed = true
                } else {
                    replay = ring.after(lastID)
                    if let first = ring.firstID, first > lastID + 1 { missed = true }
                }
            }
            start(replay.filter { subscription.wants($0.about) }, missed)
            listeners[alias, default: []].append(subscription)
        }
        return subscription
    }

    public func unsubscribe(_ subscription: EventSubscription) {
        lock.withLock {
            listeners[subscription.alias]?.removeAll { $0 === subscription }
        }
    }

    /// Listeners of `alias` now (for tests and the log).
    public func listenerCount(_ alias: String) -> Int { lock.withLock { listeners[alias]?.count ?? 0 } }
}

/// The events service's two faces over the site's hub.
enum EventsBroker {
    /// The C face.
    static func makeServiceTable() -> clubhouse_events_service {
        clubhouse_events_service(
            struct_size: UInt32(MemoryLayout<clubhouse_events_service>.size),
            publish: { host, call, topic, json, length, reply in
                guard let instance = PluginInstance.from(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                guard CallContext.from(call) != nil, let topic else {
                    reply?.write("events: publish needs the running call and a topic")
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                let bytes = json.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                let (status, message) = EventsBroker.publish(instance: instance, topic: String(cString: topic), json: bytes)
                if status != Int32(CLUBHOUSE_OK) { reply?.write(message) }
                return status
            })
    }

    static func publish(instance: PluginInstance, topic: String, json: [UInt8]) -> (Int32, String) {
        if let (status, message) = ServiceGate.refusal(.publishEvent) { return (status, "events: \(message)") }
        switch instance.runtime.events.publish(alias: instance.entry.alias, topic: topic, json: json, declared: instance.topics) {
        case .success: return (Int32(CLUBHOUSE_OK), "")
        case .failure(let refusal): return (Int32(CLUBHOUSE_INVALID_ARGUMENT), refusal.message)
        }
    }

    /// The wire face: `publish` (EventPublishRequest) → status, a message (MessageReply). The event is
    /// the plugin's whose runner sent it, whatever the frame says.
    static func serve(_ request: EventPublishRequest, instance: PluginInstance) -> (Int32, [UInt8]) {
        let (status, message) = publish(instance: instance, topic: request.topic, json: request.json)
        return (status, MessageReply(message: message).encode())
    }
}
