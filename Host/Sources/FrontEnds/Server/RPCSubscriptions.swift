// JSON-RPC subscriptions to plugins' live events (Host/JSON-RPC.md, `clubhouse.subscribe`): the same hub,
// ring, resume and bounds as `GET /api/<alias>/events` (HTTPEventStream.swift). A subscription's events go
// out as `clubhouse.event` notifications on its connection; the reply to `clubhouse.subscribe` goes out
// before the events it replays (both are queued under the hub's lock, so nothing published meanwhile can
// overtake them). Publishing never waits for a client: one that leaves more than `--max-event-backlog`
// bytes unread loses the subscription, with one last `clubhouse.unsubscribed` notification saying why.

import ClubhouseABI
import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform

/// A connection's subscriptions, by the number `clubhouse.subscribe` answered.
/// @unchecked Sendable: every field is guarded by `lock` (taken after the hub's lock, never before it).
final class RPCSubscriptions: @unchecked Sendable {
    /// Subscriptions one connection may hold at once.
    static let maxPerConnection = 64

    private let lock = Lock()
    private var next = 1
    private var open: [Int: (EventSubscription, EventHub)] = [:]

    /// Reserves a number, or nil when the connection holds the most it may.
    func reserve() -> Int? {
        lock.withLock {
            guard open.count < Self.maxPerConnection else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func add(_ number: Int, _ subscription: EventSubscription, hub: EventHub) {
        lock.withLock { open[number] = (subscription, hub) }
    }

    /// Forgets a subscription (the hub has dropped it, or is told to by the caller).
    func remove(_ number: Int) -> (EventSubscription, EventHub)? {
        lock.withLock { open.removeValue(forKey: number) }
    }

    /// Every subscription, forgotten (the client went away).
    func removeAll() -> [(EventSubscription, EventHub)] {
        lock.withLock {
            defer { open.removeAll() }
            return Array(open.values)
        }
    }

    var count: Int { lock.withLock { open.count } }
}

enum RPCEventNotification {
    /// `{"jsonrpc":"2.0","method":"clubhouse.event","params":{"subscription":N,"plugin":…,"id":…,"topic":…,"data":…}}`
    /// and a newline: the event's data goes in as the hub keeps it (compact JSON), never parsed again.
    static func event(subscription: Int, alias: String, _ event: PluginEvent) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + alias.utf8.count + event.topic.utf8.count + event.data.count)
        out += Array(#"{"jsonrpc":"2.0","method":"clubhouse.event","params":{"subscription":"#.utf8)
        out += Array(String(subscription).utf8)
        out += Array(#","plugin":"#.utf8)
        JSONWriter.appendQuoted(alias, to: &out)
        out += Array(#","id":"#.utf8)
        out += Array(String(event.id).utf8)
        out += Array(#","topic":"#.utf8)
        JSONWriter.appendQuoted(event.topic, to: &out)
        out += Array(#","data":"#.utf8)
        out += event.data
        out += Array("}}\n".utf8)
        return out
    }

    /// Told to a resuming subscriber when events after its `lastEventId` are no longer in the ring (or the id
    /// is from before the host started), as SSE's `clubhouse.missed`: load the state again.
    static func missed(subscription: Int, alias: String, after id: UInt64) -> JSONValue {
        ["jsonrpc": "2.0", "method": "clubhouse.event",
         "params": ["subscription": .int(subscription), "plugin": .string(alias), "topic": "clubhouse.missed",
                    "data": ["after": .number(JSONNumber(lexeme: String(id), isInteger: true))]]]
    }

    /// The last word of a subscription the server ended.
    static func unsubscribed(subscription: Int, alias: String, reason: String) -> JSONValue {
        ["jsonrpc": "2.0", "method": "clubhouse.unsubscribed",
         "params": ["subscription": .int(subscription), "plugin": .string(alias), "reason": .string(reason)]]
    }
}

extension JSONRPCServer {
    /// `clubhouse.subscribe {plugin, topics?, lastEventId?}`: answers `{"subscription": N, "plugin", "topics"}`
    /// itself (before the replayed events), so `handle` sends nothing more for it.
    func subscribe(_ params: JSONObject, id: JSONValue?, connection: RPCConnection) throws(Failure) {
        guard let alias = params["plugin"]?.stringValue else {
            throw Failure(-32602, "invalid params: plugin (a string) is required: the plugin whose events to receive")
        }
        let plugin: ResolvedPlugin
        switch session.runtime.resolve(alias) {
        case .success(let p): plugin = p
        case .failure(let e): throw Failure(-32001, e.message)
        }
        let declared = plugin.catalogue.topics.map(\.name)
        guard !declared.isEmpty else {
            throw Failure(-32602, "invalid params: plugin '\(alias)' publishes no events (its catalogue declares no topics)")
        }
        var topics: Set<String>?
        if let given = params["topics"] {
            guard let list = given.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw Failure(-32602, "invalid params: topics must be an array of strings, eg [\"\(declared[0])\"] (absent: every topic)")
            }
            for topic in list.compactMap(\.stringValue) {
                guard declared.contains(topic) else {
                    throw Failure(-32602, "invalid params: plugin '\(alias)' publishes no topic '\(topic)'; its topics: \(declared.joined(separator: ", "))")
                }
                topics = (topics ?? []).union([topic])
            }
        }
        var lastID: UInt64?
        if let given = params["lastEventId"] {
            let text = given.numberValue?.lexeme ?? given.stringValue ?? ""
            guard let n = UInt64(text) else {
                throw Failure(-32602, "invalid params: lastEventId must be a whole number ≥ 0 (the id of the last event received), not \(JSONWriter.compact(given))")
            }
            lastID = n
        }
        guard let number = connection.subscriptions.reserve() else {
            throw Failure(-32000, "this connection holds \(RPCSubscriptions.maxPerConnection) subscriptions, the most it may; unsubscribe one first",
                          ["status": .string(Status.busy.name)])
        }
        let shown: [String] = topics.map { $0.sorted() } ?? declared
        let limit = limits.eventBacklogBytes
        let hub = session.runtime.events
        let channel = connection.channel
        let subscriptions = connection.subscriptions
        let subscription = hub.subscribe(alias: alias, topics: topics, after: lastID, start: { replay, missed in
            if let id {
                connection.send(["jsonrpc": "2.0", "id": id,
                                 "result": ["subscription": .int(number), "plugin": .string(alias), "topics": .array(shown.map { .string($0) })]])
            }
            if missed, let lastID { connection.send(RPCEventNotification.missed(subscription: number, alias: alias, after: lastID)) }
            for event in replay { channel.enqueue(RPCEventNotification.event(subscription: number, alias: alias, event), droppable: false) }
        }, deliver: { [weak channel] event in
            guard let channel, !channel.isClosed else { return false }
            let waiting = channel.state().waiting
            if waiting > limit {
                _ = subscriptions.remove(number)
                let reason = "the client left \(waiting) bytes unread, more than --max-event-backlog (\(limit)); subscribe again with lastEventId to resume"
                connection.send(RPCEventNotification.unsubscribed(subscription: number, alias: alias, reason: reason))
                return false
            }
            channel.enqueue(RPCEventNotification.event(subscription: number, alias: alias, event), droppable: false)
            return true
        })
        subscriptions.add(number, subscription, hub: hub)
        // The client may have gone while it subscribed: its subscriptions were dropped before this one was added.
        if connection.isClosed, let (s, h) = subscriptions.remove(number) { h.unsubscribe(s) }
    }

    /// `clubhouse.unsubscribe {subscription}`.
    func unsubscribe(_ params: JSONObject, connection: RPCConnection) throws(Failure) -> JSONValue {
        guard let given = params["subscription"], let number = given.intValue else {
            throw Failure(-32602, "invalid params: subscription (the number clubhouse.subscribe answered) is required")
        }
        guard let (subscription, hub) = connection.subscriptions.remove(number) else {
            throw Failure(-32002, "no subscription \(number) on this connection (ended, or never made)")
        }
        hub.unsubscribe(subscription)
        return ["unsubscribed": true]
    }

    /// A client that went away stops listening.
    func unsubscribeAll(_ connection: RPCConnection) {
        for (subscription, hub) in connection.subscriptions.removeAll() { hub.unsubscribe(subscription) }
    }
}
