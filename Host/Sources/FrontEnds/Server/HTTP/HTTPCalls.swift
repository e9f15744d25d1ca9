// Calls followed as event streams (Host/HTTP.md, "Following a call"). A request to a plugin's route sent with
// `Accept: text/event-stream` is answered at once with a stream: a `call` event naming the call's URL
// (`/api/<alias>/calls/<id>`), `progress` events while the command runs (at most 10 a second; the last of
// a stage never dropped), then one `result` or `error` event, and the connection closes. While it runs, the
// same credential may `GET` the call's URL (a snapshot, or with `Accept: text/event-stream` one more
// stream of the same events) and `DELETE` it (the call is cancelled). A call's URL lives as long as the
// call: a finished or unknown one is 404, another credential's 403. The client that started it going away
// cancels it, as for any HTTP call; a follower going away does not.

import ClubhouseHost
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif
import ClubhousePlatform

/// One running call that clients follow; it is the call's progress sink too.
/// @unchecked Sendable: every mutable field is guarded by `lock`; the listeners' channels take their own locks
/// (after this one, never before it).
final class HTTPFollowedCall: ProgressSink, @unchecked Sendable {
    /// Streams that may follow one call at once (its starter's included).
    static let maxListeners = 16

    let id: String
    let alias: String
    let command: String
    /// Who started it ("token:Ann's phone"): only they may follow or cancel it.
    let owner: String
    var url: String { "/api/\(alias)/calls/\(id)" }
    private let wake: @Sendable () -> Void
    private let lock = Lock()
    private var listeners: [(channel: ServeChannel, connection: HTTPConnection)] = []
    private var context: CallContext?
    private var ended = false
    // The progress of the stage under way.
    private var label = ""
    private var total: UInt64 = 0
    private var unit = ProgressUnit.items
    private var done: UInt64 = 0
    private var lastSent: Int64 = 0
    /// The last progress event's data (a follower that joins gets it first).
    private var lastProgress: JSONValue?

    init(id: String, alias: String, command: String, owner: String, wake: @escaping @Sendable () -> Void) {
        self.id = id
        self.alias = alias
        self.command = command
        self.owner = owner
        self.wake = wake
    }

    /// Set when a cancel came before the call's context existed.
    private var cancelAsked = false

    func started(_ context: CallContext) {
        let cancel = lock.withLock { () -> Bool in
            self.context = context
            return cancelAsked
        }
        if cancel { context.cancel() }
    }

    /// Asks the call to stop (DELETE on its URL); false when it has ended.
    func cancel() -> Bool {
        let (open, context) = lock.withLock { () -> (Bool, CallContext?) in
            if !ended && self.context == nil { cancelAsked = true }
            return (!ended, self.context)
        }
        context?.cancel()
        return open
    }

    /// The `call` event: what is followed, and where to cancel it.
    var announcement: [UInt8] {
        HTTPFollowedCall.frame("call", ["call": .string(id), "plugin": .string(alias), "command": .string(command), "url": .string(url)])
    }

    /// `GET` on the call's URL without a stream.
    var snapshot: JSONValue {
        lock.withLock {
            ["call": .string(id), "plugin": .string(alias), "command": .string(command), "url": .string(url),
             "progress": lastProgress ?? .null]
        }
    }

    static func frame(_ event: String, _ data: JSONValue) -> [UInt8] {
        var out = Array("event: \(event)\ndata: ".utf8)
        JSONWriter.appendCompact(data, to: &out)
        out += [0x0A, 0x0A]
        return out
    }

    /// Adds a stream: `first` (the stream's head and the call event) goes out with the last progress, under the
    /// lock, so no event is missed or repeated. False when the call has ended or has the most listeners.
    func listen(_ channel: ServeChannel, _ connection: HTTPConnection, first: [UInt8]) -> ListenOutcome {
        lock.withLock {
            if ended { return .ended }
            if listeners.count >= HTTPFollowedCall.maxListeners { return .full }
            var bytes = first
            if let lastProgress { bytes += HTTPFollowedCall.frame("progress", lastProgress) }
            channel.enqueue(bytes, droppable: false)
            listeners.append((channel, connection))
            return .listening
        }
    }

    enum ListenOutcome { case listening, ended, full }

    /// A follower went away.
    func remove(_ channel: ServeChannel) {
        lock.withLock { listeners.removeAll { $0.channel === channel } }
    }

    /// The call's last event (`result` or `error`) to every stream, each then closed; the call's URL is gone.
    func end(_ event: String, _ data: [UInt8]) {
        let streams = lock.withLock { () -> [(channel: ServeChannel, connection: HTTPConnection)] in
            ended = true
            defer { listeners.removeAll() }
            var bytes = Array("event: \(event)\ndata: ".utf8)
            bytes += data
            bytes += [0x0A, 0x0A]
            for listener in listeners { listener.channel.enqueue(bytes, droppable: false) }
            return listeners
        }
        var wakes = false
        for stream in streams where stream.connection.finish(keepAlive: false) { wakes = true }
        if wakes || !streams.isEmpty { wake() }
    }

    // MARK: ProgressSink (the plugin's progress, as events; at most 10 a second, the last of a stage always)

    private func send(final: Bool, cancelled: Bool = false) {
        let data = lock.withLock { () -> JSONValue in
            var o: JSONObject = ["label": .string(label), "done": .number(JSONNumber(lexeme: String(done), isInteger: true)),
                                 "unit": .string(unit.rawValue)]
            if total > 0 { o["total"] = .number(JSONNumber(lexeme: String(total), isInteger: true)) }
            if final { o["finished"] = true }
            if cancelled { o["cancelled"] = true }
            lastProgress = .object(o)
            return .object(o)
        }
        let frame = HTTPFollowedCall.frame("progress", data)
        let channels = lock.withLock { listeners.map(\.channel) }
        for channel in channels { channel.enqueue(frame, droppable: !final) }
    }

    func begin(label: String, total: UInt64) {
        lock.withLock {
            self.label = label
            self.total = total
            unit = .items
            done = 0
            lastSent = Subprocess.monotonicMilliseconds()
        }
        send(final: false)
    }

    func setUnit(_ unit: ProgressUnit) {
        let changed = lock.withLock { () -> Bool in
            defer { self.unit = unit }
            return self.unit != unit
        }
        if changed { send(final: false) }
    }

    func update(done: UInt64) {
        let due = lock.withLock { () -> Bool in
            self.done = done
            let now = Subprocess.monotonicMilliseconds()
            guard now - lastSent >= 100 else { return false }
            lastSent = now
            return true
        }
        if due { send(final: false) }
    }

    func end() {
        let (open, cancelled) = lock.withLock { (!label.isEmpty, context?.isCancelled ?? false) }
        guard open else { return }
        lock.withLock { if !cancelled && total > 0 { done = total } }
        send(final: true, cancelled: cancelled)
        lock.withLock { label = "" }
    }

    /// After the call: a stage the plugin left open is finished here (cancelled, when the call was).
    func closeStage(cancelled: Bool) {
        let open = lock.withLock { !label.isEmpty }
        guard open else { return }
        send(final: true, cancelled: cancelled)
        lock.withLock { label = "" }
    }
}

/// The site's followed calls while they run, by id.
/// @unchecked Sendable: the table is guarded by `lock`.
final class HTTPCallTable: @unchecked Sendable {
    private let lock = Lock()
    private var calls: [String: HTTPFollowedCall] = [:]

    func add(_ call: HTTPFollowedCall) { lock.withLock { calls[call.id] = call } }
    func remove(_ call: HTTPFollowedCall) { lock.withLock { _ = calls.removeValue(forKey: call.id) } }
    func find(_ id: String) -> HTTPFollowedCall? { lock.withLock { calls[id] } }
    var count: Int { lock.withLock { calls.count } }
}

extension HTTPFrontEnd {
    /// Whether the client asks for an event stream (`Accept: text/event-stream`).
    static func wantsEventStream(_ head: HTTPRequestHead) -> Bool {
        head.method != "HEAD" && head.headers("accept").contains { $0.lowercased().contains("text/event-stream") }
    }

    /// Who a credential is, as a call's owner.
    static func owner(_ who: Principal) -> String { "\(who.kind.rawValue):\(who.name)" }

    static func streamHead(_ extra: [(name: String, value: String)]) -> HTTPResponse {
        var head = HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
                                                       ("X-Accel-Buffering", "no")] + extra)
        head.stream = true
        head.close = true
        return head
    }

    /// Runs a prepared call as a followed one (a worker): the stream's head and the call event at once, its
    /// progress as it comes, then its result or error, and the stream ends.
    func runFollowed(_ call: PluginCall, exchange: HTTPExchange, _ answer: Answer, connection: HTTPConnection, channel: ServeChannel) {
        let followed = HTTPFollowedCall(id: exchange.requestID, alias: call.route.alias, command: call.route.command.name,
                                        owner: answer.owner, wake: { [weak self] in self?.loop?.wake() })
        // Found by its URL before the stream's head names it: the loop may send the head at once, and a
        // request on that URL must not find no call (a cancel before the call starts is kept for it).
        calls.add(followed)
        let head = HTTPFrontEnd.streamHead([("Location", followed.url)] + answer.cors)
        _ = followed.listen(channel, connection, first: head.serialized(requestID: exchange.requestID, date: dates.now) + followed.announcement)
        if !connection.openStream(stop: {}) { _ = followed.cancel() }
        credentialWatch?.watch(connection, request: accessRequest(exchange))
        loop?.wake(channel)
        let context = session.runtime.router.context(for: call.prepared, progress: followed)
        running.add(context)
        credentialWatch?.watch(call: context, request: accessRequest(exchange))
        followed.started(context)
        let response: HTTPResponse
        var ran = true
        switch holdLease(exchange, principal: answer.principal, context: context, what: call.route.shown) {
        case .failure(let refusal):
            HTTPFrontEnd.remove(call.made)
            response = refusal
            ran = false
        case .success(let leased) where connection.track(context):
            response = finish(call, context: context, connection: connection, exchange: exchange)
            if let leased { leases.release(leased, context: context) }
        case .success(let leased):
            if let leased { leases.release(leased, context: context) }
            HTTPFrontEnd.remove(call.made)
            response = .error(499, "the client went away before the call started", name: "cancelled")
            ran = false
        }
        if let (caller, key) = call.idempotency {
            // Refused before it ran: nothing is kept (the corrected request with the same key runs).
            if ran { idempotency.finish(caller: caller, key: key, response: response, committed: context.committedAWrite) } else { idempotency.forget(caller: caller, key: key) }
        }
        followed.closeStage(cancelled: response.status == 499)
        calls.remove(followed)
        // The response's body is one JSON value and a newline: it becomes the last event's data as it is.
        let body = response.body.last == 0x0A ? Array(response.body.dropLast()) : response.body
        var data = Array("{\"status\":\(response.status),".utf8)
        if response.status < 300 {
            data += Array("\"data\":".utf8) + body + [0x7D]
            followed.end("result", data)
        } else {
            data += body.dropFirst() // {"error": …} → {"status": N, "error": …}
            followed.end("error", data)
        }
        channel.finished()
        record(exchange, principal: answer.principal, status: response.status, bytes: 0)
        group.leave()
    }

    /// `GET` (a snapshot, or a stream) and `DELETE` (cancel) on `/api/<alias>/calls/<id>`; the access layer
    /// has allowed `who` to read the plugin.
    func callResource(_ exchange: HTTPExchange, alias: String, id: String, who: Principal) -> Answer.Step {
        guard let followed = calls.find(id), followed.alias == alias else {
            return .now(.error(404, "no running call \(id) of plugin '\(alias)' (it finished, or was never started with Accept: text/event-stream)"))
        }
        guard followed.owner == HTTPFrontEnd.owner(who) else {
            return .now(.error(403, "call \(id) was started by another credential; only its own may follow or cancel it"))
        }
        switch exchange.head.method {
        case "DELETE":
            guard followed.cancel() else { return .now(.error(404, "no running call \(id) of plugin '\(alias)' (it finished)")) }
            return .now(.json(200, ["cancelled": true, "call": .string(id)]))
        case "GET" where HTTPFrontEnd.wantsEventStream(exchange.head):
            return .follow(followed)
        default:
            return .now(.json(200, followed.snapshot))
        }
    }

    /// One more stream of a running call's events (a worker).
    func followStream(_ followed: HTTPFollowedCall, exchange: HTTPExchange, _ answer: Answer, connection: HTTPConnection,
                      channel: ServeChannel) {
        let head = HTTPFrontEnd.streamHead(answer.cors)
        switch followed.listen(channel, connection, first: head.serialized(requestID: exchange.requestID, date: dates.now) + followed.announcement) {
        case .listening:
            if !connection.openStream(stop: { followed.remove(channel) }) { followed.remove(channel) }
            credentialWatch?.watch(connection, request: accessRequest(exchange))
            channel.finished()
            loop?.wake(channel)
            record(exchange, principal: answer.principal, status: 200, bytes: 0)
            group.leave()
        case .ended:
            complete(exchange, .error(404, "no running call \(followed.id) of plugin '\(followed.alias)' (it finished)"), answer,
                     connection: connection, channel: channel)
        case .full:
            var response = HTTPResponse.error(503, "call \(followed.id) has \(HTTPFollowedCall.maxListeners) streams following it, the most it may; try again later")
            response.headers.append(("Retry-After", "1"))
            complete(exchange, response, answer, connection: connection, channel: channel)
        }
    }
}
