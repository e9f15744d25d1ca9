// `GET /api/<alias>/events[?topics=a,b]`: a plugin's live events as Server-Sent Events (Host/HTTP.md,
// "Events"). Each event is `id: N`, `event: <topic>`, `data: <its JSON on one line>`; a client that
// reconnects with `Last-Event-ID: N` first gets the events after N still in the plugin's ring (and a
// `clubhouse.missed` event when the ring no longer has all of them). A comment line every
// `heartbeatMilliseconds` keeps proxies from closing a quiet stream. Publishing never waits for a client:
// one with more than `eventBacklogBytes` unread is dropped (with a reset) and the others go on.

import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform

enum EventStreams {
    static let heartbeat = Array(": heartbeat\n\n".utf8)

    /// `?topics=a,b` → those topics (nil: every topic the plugin declares). A topic it does not declare, or
    /// another parameter, is refused with a 400 naming what it has.
    static func topics(_ query: [(name: String, value: String)], alias: String, declared: [EventTopic])
        -> Result<Set<String>?, HTTPRefusal>
    {
        let known = declared.map(\.name).joined(separator: ", ")
        var wanted: Set<String>?
        for (name, value) in query {
            guard name == "topics" else {
                return .failure(HTTPRefusal(400, "/api/\(alias)/events takes only ?topics=… (a comma-separated list of \(known)); '\(name)' is not a parameter of it"))
            }
            for piece in value.split(separator: ",", omittingEmptySubsequences: true) {
                let topic = String(piece).trimmingSpaces()
                guard declared.contains(where: { $0.name == topic }) else {
                    return .failure(HTTPRefusal(400, "plugin '\(alias)' publishes no topic '\(topic)'; its topics: \(known)"))
                }
                wanted = (wanted ?? []).union([topic])
            }
        }
        return .success(wanted)
    }

    /// One event in the stream.
    static func frame(_ event: PluginEvent) -> [UInt8] {
        var out = Array("id: \(event.id)\nevent: \(event.topic)\ndata: ".utf8)
        out.reserveCapacity(out.count + event.data.count + 2)
        out += event.data
        out += [0x0A, 0x0A]
        return out
    }

    /// Told to a resuming client when events after its Last-Event-ID are no longer in the ring (or the id is
    /// from before the host started): it should load the state again rather than rely on the events.
    static func missed(after id: UInt64) -> [UInt8] {
        Array("event: clubhouse.missed\ndata: {\"after\":\(id)}\n\n".utf8)
    }
}

extension HTTPFrontEnd {
    /// Opens an event stream on `channel` (a worker, after the access layer allowed the request): the head,
    /// the events the client missed, then every new event as the hub publishes it.
    func stream(_ exchange: HTTPExchange, alias: String, topics: Set<String>?, _ answer: Answer, connection: HTTPConnection,
                channel: ServeChannel) {
        var head = HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
                                                       ("X-Accel-Buffering", "no")] + answer.cors)
        head.stream = true
        head.close = true
        defer {
            record(exchange, principal: answer.principal, status: 200, bytes: 0)
            group.leave()
        }
        if exchange.head.method == "HEAD" {
            head.omitBody = true
            channel.enqueue(head.serialized(requestID: exchange.requestID, date: dates.now), droppable: false)
            _ = connection.finish(keepAlive: false)
            channel.finished()
            loop?.wake(channel)
            return
        }
        let lastID = exchange.head.header("last-event-id").flatMap { UInt64($0.trimmingSpaces()) }
        let limit = options.limits.eventBacklogBytes
        let hub = session.runtime.events
        let requestID = exchange.requestID
        let date = dates.now
        let subscription = hub.subscribe(alias: alias, topics: topics, after: lastID, start: { replay, missed in
            var bytes = head.serialized(requestID: requestID, date: date)
            if missed, let lastID { bytes += EventStreams.missed(after: lastID) }
            for event in replay { bytes += EventStreams.frame(event) }
            channel.enqueue(bytes, droppable: false)
        }, deliver: { [weak self, weak channel] event in
            guard let channel, !channel.isClosed else { return false }
            let waiting = channel.state().waiting
            if waiting > limit {
                connection.noteOverrun("it left \(waiting) bytes of events unread, more than --http-max-event-backlog (\(limit))")
                self?.loop?.wake(channel)
                return false
            }
            channel.enqueue(EventStreams.frame(event), droppable: false)
            return true
        })
        if !connection.openStream(stop: { hub.unsubscribe(subscription) }) { hub.unsubscribe(subscription) }
        credentialWatch?.watch(connection, request: accessRequest(exchange))
        channel.finished()
        loop?.wake(channel)
    }
}

/// The event streams open now (`/api/<alias>/events` and followed calls' streams), per credential, per client
/// address and in all, against HTTPLimits' bounds: a stream never counts as idle and heartbeats keep it open,
/// so without them one read token could hold every connection (Host/HTTP.md, "Limits").
/// @unchecked Sendable: the counts are read and written under `lock`.
final class HTTPStreamSlots: @unchecked Sendable {
    // Safe: every member is guarded by `lock`.
    private let lock = Lock()
    private var total = 0
    private var byCredential: [String: Int] = [:]
    private var byAddress: [String: Int] = [:]

    /// Takes a slot for one more stream (nil), or the refusal naming the bound it would pass.
    func take(credential: String, name: String, address: String, limits: HTTPLimits) -> HTTPResponse? {
        lock.withLock { () -> HTTPResponse? in
            let mine = byCredential[credential] ?? 0
            if mine >= limits.streamsPerCredential {
                return .error(429, "'\(name)' has \(mine) event streams open, the most one credential may; close one (EventSource.close()) before opening another, or let one stream feed every panel")
            }
            let here = byAddress[address] ?? 0
            if here >= limits.streamsPerAddress {
                return .error(429, "client address \(address) has \(here) event streams open, the most one address may; close one before opening another")
            }
            if total >= limits.maxStreams {
                var response = HTTPResponse.error(503, "server busy: \(total) event streams open, the most it keeps (three quarters of --http-max-connections); try again later")
                response.headers.append(("Retry-After", "1"))
                return response
            }
            total += 1
            byCredential[credential] = mine + 1
            byAddress[address] = here + 1
            return nil
        }
    }

    /// Gives back the slot `take` gave.
    func give(credential: String, address: String) {
        lock.withLock {
            total -= 1
            byCredential[credential] = (byCredential[credential] ?? 1) - 1
            if byCredential[credential] == 0 { byCredential[credential] = nil }
            byAddress[address] = (byAddress[address] ?? 1) - 1
            if byAddress[address] == 0 { byAddress[address] = nil }
        }
    }

    var open: Int { lock.withLock { total } }
}
