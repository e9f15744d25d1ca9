// `clubhouse serve --http ADDR:PORT`: HTTP/1.1 on the serve event loop (ServeTransport.swift), the same
// worker pool and the same router as JSON-RPC. Host/HTTP.md is the reference.
//
// One request's life is one state machine on the loop (HTTPConnection.Phase):
//   waiting ─first byte→ head ─blank line→ body ─Content-Length bytes→ busy ─response queued→ waiting
// with a deadline in every phase but busy (HTTPLimits: header, body and idle timeouts; the send timeout
// while a response waits for a slow reader). The loop parses the head (HTTPRequestParser), matches the
// route — which sets the body's limit — and reads the body; a worker then asks the access layer, runs
// the plugin's command through the router and queues the response on the channel. One request at a time
// per connection: pipelined requests wait in the input buffer until the previous response is queued.
// A refusal the loop makes itself (a framing error, a limit, a timeout) is answered from the loop and
// closes the connection after lingering: the rest of the client's input is read and dropped for a while,
// so the refusal is not lost to a reset.
//
// Event streams (`GET /api/<alias>/events`, Server-Sent Events) fit the same machine: a worker subscribes to
// the site's EventHub and queues the head of a response without Content-Length, together with the events the
// client missed (Last-Event-ID); the connection enters a `streaming` phase whose deadline is the next
// heartbeat, and the hub queues each event on the channel as it is published. A client with more than
// `eventBacklogBytes` unread is dropped with a reset at the next event; the send timeout applies as to any
// response.

import CClubhouse
import ClubhouseABI
import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where a request goes, decided on the loop (it sets the body's limit).
enum HTTPDestination: Sendable {
    case plugin(SiteRoute, [String: String])
    case methodNotAllowed([String])
    case unavailable(alias: String, message: String)
    case notFound
    /// POST /api/_/pair: a browser's pairing code for a cookie.
    case pair
    /// GET /api/_/session: who this client is and the site's panels (the home page asks).
    case session
    /// GET /ui/…: the segments after "ui".
    case staticFile([String])
    /// OPTIONS (a CORS preflight, or a question about methods): the methods of the path, nil when none.
    case options([String]?)
    /// GET /api/<alias>/events: the plugin's live events (it declares these topics).
    case events(alias: String, topics: [EventTopic])
    /// GET or DELETE /api/<alias>/calls/<id>: a followed call (HTTPCalls.swift).
    case call(alias: String, id: String)
    /// POST (renew) or DELETE (cancel now) /api/_/leases/<key>: a leased call (HTTPCallLeases.swift).
    case lease(String)
}

/// A request read off the loop, for a worker.
struct HTTPExchange: Sendable {
    var head: HTTPRequestHead
    var target: HTTPTarget
    var destination: HTTPDestination
    var body: [UInt8]
    var requestID: String
    var peer: String
    /// When its first byte arrived (monotonic µs).
    var startedMicroseconds: Int64
}

/// One HTTP client: its request's phase (loop thread) and the call a worker runs for it.
/// @unchecked Sendable: `phase`, `writingSince` and `heldBody` are the loop thread's alone; what a worker's
/// call and the loop share (`finished`, `running`, `gone`, the stream's state) is guarded by `lock`.
final class HTTPConnection: @unchecked Sendable {
    enum Phase {
        /// Before a request's first byte (`first`: the connection's first request).
        case waiting(since: Int64, first: Bool)
        case head(since: Int64, scanned: Int, startedMicroseconds: Int64)
        case body(HTTPExchange, deadline: Int64)
        /// A worker has the request.
        case busy
        /// A refusal or a last response is going out; then the connection closes.
        case closing
        /// An event stream: events go out as they are published; a heartbeat is due at `beatAt`.
        case streaming(beatAt: Int64)
    }

    // The loop thread's own.
    var phase: Phase
    /// Since when a response has been waiting for the client to read it (monotonic ms).
    var writingSince: Int64?
    /// The loop admitted a body for this connection that it has not given back itself yet (the worker may
    /// have): the loop asks the ledger only then, not on every look at the connection.
    var admittedBody = false
    /// Bytes of the body received so far, and when the last of them arrived (monotonic ms): a body that
    /// stops arriving for the body timeout loses its slot, whatever it declared (the fourth outside attack, b15).
    var bodyReceived = 0
    var bodyProgressAt: Int64 = 0

    // Safe: shared with workers under `lock`.
    private let lock = Lock()
    private var finished: Bool?
    private var finishedAt: Int64 = 0
    private var running: CallContext?
    private var gone = false
    /// Set by the loop while the next request's bytes wait in the buffer behind the one a worker has.
    private var inputWaiting = false
    /// How the event stream this client listens to ends (unsubscribes it), once a worker opened it.
    private var stopStream: (() -> Void)?
    private var streamOpened = false
    /// Why the stream's client is dropped (it left too much unread), for the loop.
    private var overrun: String?
    /// Gives back the stream slot (HTTPStreamSlots) this client holds, once.
    private var slot: (() -> Void)?

    init(now: Int64) { phase = .waiting(since: now, first: true) }

    /// A worker is done: the response is queued; `keepAlive` says whether another request may follow.
    /// True when the loop must be woken for it (to close, or to read a request already buffered); a client
    /// that sends its next request afterwards wakes the loop itself.
    func finish(keepAlive: Bool) -> Bool {
        let now = Subprocess.monotonicMilliseconds()
        return lock.withLock {
            finished = keepAlive
            finishedAt = now
            return !keepAlive || inputWaiting
        }
    }

    /// When the worker finished the last request (monotonic ms): a kept-alive connection is idle from then,
    /// though the loop may look at it only later.
    var finishedTime: Int64 { lock.withLock { finishedAt } }

    /// The loop notes that bytes of a next request wait in the buffer; true when the worker has finished
    /// meanwhile (the loop then goes on itself: the worker did not wake it).
    func noteInputWaiting() -> Bool {
        lock.withLock {
            inputWaiting = true
            return finished != nil
        }
    }

    func clearInputWaiting() { lock.withLock { inputWaiting = false } }

    /// The loop takes the outcome of the request in flight, once.
    func takeFinished() -> Bool? {
        lock.withLock {
            defer { finished = nil }
            return finished
        }
    }

    /// The call running for this client, cancelled if the client goes away.
    func track(_ context: CallContext?) -> Bool {
        lock.withLock {
            running = context
            return !gone
        }
    }

    /// Whether the client went away (or was dropped).
    var isGone: Bool { lock.withLock { gone } }

    /// The client went away (or stopped sending): its running call is cancelled, its event stream closed.
    func abandon() {
        let (context, stop, release) = lock.withLock { () -> (CallContext?, (() -> Void)?, (() -> Void)?) in
            gone = true
            defer {
                stopStream = nil
                slot = nil
            }
            return (running, stopStream, slot)
        }
        context?.cancel()
        stop?()
        release?()
    }

    /// The client holds a stream slot until it goes (or `releaseSlot`).
    func holdSlot(_ release: @escaping () -> Void) { lock.withLock { slot = release } }

    /// The request that took a stream slot was answered without a stream: the slot goes back.
    func releaseSlot() {
        let release = lock.withLock { () -> (() -> Void)? in
            defer { slot = nil }
            return slot
        }
        release?()
    }

    /// A worker opened an event stream for this client, which `stop` ends when the client goes; false when
    /// the client is already gone (the caller then ends it itself).
    func openStream(stop: @escaping () -> Void) -> Bool {
        lock.withLock {
            guard !gone else { return false }
            stopStream = stop
            streamOpened = true
            return true
        }
    }

    /// The loop takes the news that the stream is open, once.
    func takeStreamOpened() -> Bool {
        lock.withLock {
            defer { streamOpened = false }
            return streamOpened
        }
    }

    /// The stream's client left more than its bound unread (from the publishing thread).
    func noteOverrun(_ reason: String) { lock.withLock { if overrun == nil { overrun = reason } } }

    var overrunReason: String? { lock.withLock { overrun } }

    var isIdle: Bool { if case .waiting = phase { return true } else { return false } }
}

/// @unchecked Sendable: immutable or thread-safe members, except `routeTable` (guarded by `routesLock`) and
/// `credentialWatch` (set once while starting, before any connection is served).
final class HTTPFrontEnd: @unchecked Sendable {
    /// Request bodies held in memory (the loop admits them, the worker that answers gives them back).
    let bodyLedger = RequestBodyLedger()
    let session: Session
    let options: HTTPOptions
    let access: any AccessControlling
    let pool: WorkerPool
    /// Where calls wait for a busy plugin without holding a worker (shared with JSON-RPC).
    let lanes: PluginLanes
    let listenerFD: Int32
    let port: UInt16
    let statics: StaticFiles
    /// Which Host names requests may carry (DNS rebinding).
    let hostPolicy: HostPolicy
    /// Writes named by an Idempotency-Key, with their answers (a repeat is answered without running).
    let idempotency: IdempotencyKeys
    /// Replies of reads their plugin declared "cache" for, answered again from the loop (HTTPReplyCache.swift).
    let replyCache: HTTPReplyCache
    let dates = HTTPDate()
    /// Calls held by a page's heartbeat lease (`Clubhouse-Lease`).
    let leases: HTTPCallLeases
    /// Where request bodies and command outputs live while a request runs (a private folder).
    let scratch: String
    let group = WaitGroup()
    /// The calls clients follow as event streams, while they run.
    let calls = HTTPCallTable()
    /// Every call running (plain, followed, leased): stopping the server cancels them (RunningCalls).
    let running = RunningCalls()
    /// The credentials of open streams, asked again each second (HTTPCredentialWatch).
    private(set) var credentialWatch: HTTPCredentialWatch?
    /// The event streams open, per credential and client address (HTTPLimits' stream bounds).
    let streamSlots = HTTPStreamSlots()
    private let idPrefix: String
    private let idCounter = Atomic<UInt64>(0)
    // Safe: the route table is replaced whole under `routesLock` (a plugin reloaded).
    private let routesLock = Lock()
    private var routeTable: SiteRoutes
    /// Set once the loop exists (before it runs).
    private(set) weak var loop: ServeLoop?

    init(session: Session, options: HTTPOptions, access: any AccessControlling, pool: WorkerPool, lanes: PluginLanes? = nil) throws(CLIError) {
        self.session = session
        self.options = options
        self.access = access
        self.pool = pool
        self.lanes = lanes ?? PluginLanes(pool: pool)
        replyCache = HTTPReplyCache(capacity: options.limits.replyCacheBytes)
        idempotency = IdempotencyKeys(maxBytes: options.limits.idempotencyBytes)
        let log = session.log
        leases = HTTPCallLeases { line in log.warning("serve: \(line)") }
        try options.checkExposure()
        session.runtime.resolveAll()
        let table = SiteRoutes.build(site: session.site) { session.runtime.resolve($0) }
        if let first = table.problems.first {
            throw CLIError(status: .error, message: "serve: \(first)" + (table.problems.count > 1 ? " (and \(table.problems.count - 1) more: clubhouse routes lists them)" : ""))
        }
        for warning in table.warnings { session.log.warning("serve: \(warning)") }
        for (alias, message) in table.unavailable.sorted(by: { $0.key < $1.key }) {
            session.log.warning("serve: plugin '\(alias)' does not load; /api/\(alias)/ answers 503: \(message)")
        }
        routeTable = table
        hostPolicy = HostPolicy(options)
        statics = StaticFiles(roots: StaticFiles.roots(site: session.site, runtime: session.runtime, uiDirectory: options.uiDirectory))
        // Request bodies are kept in a private folder in the site's data folder (on the database's disk,
        // not a tmpfs eating memory); where that folder cannot be written (a read-only data folder), in
        // $TMPDIR. Each request removes its own files; the folder goes with the server.
        func privateFolder(in parent: String) -> String? {
            var template = Array(parent.utf8CString)
            template.removeLast()
            template += Array("/.http-uploads-XXXXXX".utf8CString)
            return template.withUnsafeMutableBufferPointer { buffer -> String? in
                guard let base = buffer.baseAddress, let made = mkdtemp(base) else { return nil }
                return String(cString: made)
            }
        }
        let siteFolder = session.dataDirectory + "/" + session.site.name
        let temporary = FileSystem.environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        if let made = (try? FileSystem.createDirectory(siteFolder)).flatMap({ privateFolder(in: siteFolder) }) {
            scratch = made
        } else if let made = privateFolder(in: temporary) {
            session.log.warning("serve: request bodies are kept in \(made): the site's data folder \(siteFolder) cannot be written")
            scratch = made
        } else {
            throw CLIError(status: .io, message: "serve: cannot make a private folder for request bodies in \(siteFolder) or \(temporary): \(String(cString: strerror(errno)))")
        }
        var random = SystemRandomNumberGenerator()
        let hex = String(random.next() as UInt32, radix: 16)
        idPrefix = String(repeating: "0", count: 8 - hex.count) + hex
        let (fd, port) = try options.bind()
        listenerFD = fd
        self.port = port
        credentialWatch = try HTTPCredentialWatch(check: { [access] in access.stillAllows($0) }, drop: { [weak self] connection in
            connection.noteOverrun("its credential was revoked (or lost the scope of this stream)")
            connection.abandon()
            self?.loop?.wake()
        })
    }

    deinit {
        // Each request removes its own files; the folder goes with the server.
        rmdir(scratch)
        close(listenerFD)
    }

    /// The server stopped (every request answered or dropped): the folder of request bodies goes, with anything
    /// still in it. Called where `serve` ends rather than left to `deinit`, which does not run when the process
    /// ends with the front end still referenced (fourth outside attack, b19: an empty folder stayed after 2 of 4
    /// stops by SIGTERM or Ctrl-C).
    func removeScratch() { PluginPackages.removeTree(scratch) }

    var routes: SiteRoutes { routesLock.withLock { routeTable } }

    /// Builds the route table again (a plugin was reloaded: its catalogue may have changed).
    func reloadRoutes() {
        let table = SiteRoutes.build(site: session.site) { session.runtime.resolve($0) }
        for problem in table.problems { session.log.warning("serve: \(problem)") }
        routesLock.withLock { routeTable = table }
    }

    /// The protocol for the loop's HTTP listener.
    func protocolHandler(loop: ServeLoop) -> HTTPProtocolHandler {
        self.loop = loop
        return HTTPProtocolHandler(front: self)
    }

    var shownAddress: String { options.host.contains(":") ? "[\(options.host)]:\(port)" : "\(options.host):\(port)" }

    func nextRequestID() -> String {
        let n = idCounter.add(1, ordering: .relaxed).newValue
        return idPrefix + "-" + String(n, radix: 36)
    }

    static func microseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    // MARK: routing (loop thread)

    /// Where a request goes, and the largest body it may carry.
    func destination(_ head: HTTPRequestHead, _ target: HTTPTarget) -> (HTTPDestination, maxBody: Int) {
        let segments = target.segments
        let method = head.method
        if method == "OPTIONS" {
            if head.target == "*" { return (.options(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]), 0) }
            return (.options(allowedMethods(segments)), 0)
        }
        if segments.first == "ui" || segments.isEmpty {
            return (.staticFile(segments.isEmpty ? ["_"] : Array(segments.dropFirst())), 0)
        }
        // The pairing URL (`token pair` prints /pair#code=…, also as a QR code) opens the home page.
        if segments == ["pair"] && (method == "GET" || method == "HEAD") { return (.staticFile(["_"]), 0) }
        if segments == ["api", "_", "pair"] {
            return method == "POST" ? (.pair, 4096) : (.methodNotAllowed(["OPTIONS", "POST"]), options.limits.bodyBytes)
        }
        if segments == ["api", "_", "session"] {
            return method == "GET" || method == "HEAD" ? (.session, 0) : (.methodNotAllowed(["GET", "HEAD", "OPTIONS"]), options.limits.bodyBytes)
        }
        if segments.count == 4 && segments[0] == "api" && segments[1] == "_" && segments[2] == "leases" {
            return method == "POST" || method == "DELETE" ? (.lease(segments[3]), 0) : (.methodNotAllowed(["DELETE", "OPTIONS", "POST"]), options.limits.bodyBytes)
        }
        if segments.count == 3 && segments[0] == "api" && segments[2] == "events", let topics = routes.topics[segments[1]] {
            return method == "GET" || method == "HEAD" ? (.events(alias: segments[1], topics: topics), 0)
                : (.methodNotAllowed(["GET", "HEAD", "OPTIONS"]), options.limits.bodyBytes)
        }
        if segments.count == 4 && segments[0] == "api" && segments[2] == "calls" && session.site.plugin(alias: segments[1]) != nil {
            return ["GET", "HEAD", "DELETE"].contains(method) ? (.call(alias: segments[1], id: segments[3]), 0)
                : (.methodNotAllowed(["DELETE", "GET", "HEAD", "OPTIONS"]), options.limits.bodyBytes)
        }
        switch routes.match(method: method, segments: segments) {
        case .route(let route, let values):
            return (.plugin(route, values), route.route.maxBodyBytes ?? options.limits.bodyBytes)
        // These are answered whatever the body (read and dropped, up to the default bound).
        case .methodNotAllowed(let allowed): return (.methodNotAllowed(allowed), options.limits.bodyBytes)
        case .unavailable(let alias, let message): return (.unavailable(alias: alias, message: message), options.limits.bodyBytes)
        case .notFound: return (.notFound, options.limits.bodyBytes)
        }
    }

    /// The methods a path answers, or nil when it is no route's.
    func allowedMethods(_ segments: [String]) -> [String]? {
        if segments.first == "ui" || segments.isEmpty { return ["GET", "HEAD", "OPTIONS"] }
        if segments == ["api", "_", "pair"] { return ["OPTIONS", "POST"] }
        if segments == ["api", "_", "session"] { return ["GET", "HEAD", "OPTIONS"] }
        if segments.count == 4 && segments[0] == "api" && segments[1] == "_" && segments[2] == "leases" { return ["DELETE", "OPTIONS", "POST"] }
        if segments.count == 3 && segments[0] == "api" && segments[2] == "events" && routes.topics[segments[1]] != nil {
            return ["GET", "HEAD", "OPTIONS"]
        }
        if segments.count == 4 && segments[0] == "api" && segments[2] == "calls" && session.site.plugin(alias: segments[1]) != nil {
            return ["DELETE", "GET", "HEAD", "OPTIONS"]
        }
        switch routes.match(method: "OPTIONS", segments: segments) {
        case .methodNotAllowed(let allowed): return allowed
        default: return nil
        }
    }

    /// The bound on request bodies held in memory at once (HTTPLimits.bodyMemoryBytes): as set, or four times
    /// the largest body a route (or the default bound) allows, at least 64 MiB; and what one caller
    /// (refusalBeforeBody's holder) may hold of it: a quarter, and at least the largest body one route takes
    /// (so one upload of that size is never refused for the share alone).
    func bodyMemoryLimits() -> (bound: Int, share: Int) {
        let largest = routes.routes.reduce(options.limits.bodyBytes) { max($0, $1.maxBodyBytes) }
        let bound = options.limits.bodyMemoryBytes ?? max(64 << 20, 4 * largest)
        return (bound, max(bound / 4, min(largest, bound)))
    }

    /// The answer to a request with a body that is refused on its head alone, before any byte of the body is
    /// read (Host/HTTP.md, "Uploads"): no credential, a credential without the route's scope, a path or a
    /// method no route answers. nil when the body is to be read. Runs on the loop thread.
    /// `holder` names whose share of the bodies held in memory a body to be read counts against: the
    /// credential that sent it, or the address of a caller without one.
    func refusalBeforeBody(_ exchange: HTTPExchange) -> (refusal: HTTPResponse?, holder: String) {
        let anonymous = "address \(exchange.peer)"
        if case .options = exchange.destination { return (nil, anonymous) }
        let request = accessRequest(exchange)
        let cors = access.corsHeaders(for: request).map { (name: $0.name, value: $0.value) }
        var response: HTTPResponse
        switch access.authorize(request) {
        case .deny(let status, let message, let retryAfter):
            response = HTTPResponse.error(status, message)
            if status == 401 { response.headers.append(("WWW-Authenticate", "Bearer realm=\"clubhouse\"")) }
            if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
        case .allow(let principal):
            switch exchange.destination {
            case .methodNotAllowed, .notFound, .unavailable: response = perform(exchange, request: request)
            default: return (nil, principal.kind == .anonymous ? anonymous : "\(principal.kind.rawValue) '\(principal.name)'")
            }
        }
        response.headers += cors
        return (response, anonymous)
    }

    // MARK: requests (worker threads)

    /// Runs a request on the pool; the response goes to `channel`. A plugin call runs at once on this worker
    /// when its plugin is free, else waits in the plugin's lane without a worker (PluginLanes). True when the
    /// request was answered at once on the loop, from a kept reply (`answerFromCache`).
    @discardableResult
    func dispatch(_ exchange: HTTPExchange, connection: HTTPConnection, channel: ServeChannel) -> Bool {
        group.enter()
        channel.began()
        if answerFromCache(exchange, connection: connection, channel: channel) { return true }
        if let lane = laneFromLoop(exchange) {
            queueInLane(exchange, lane, connection: connection, channel: channel)
            return false
        }
        pool.submit { [self] in
            let answer = answer(exchange, connection: connection)
            handle(answer, exchange: exchange, connection: connection, channel: channel)
        }
        return false
    }

    /// The reply cache's part of a request (nil: none): the key and the kept reply's longest age, for a GET or
    /// HEAD of a route whose command declares "cache", with no body, no event stream and no lease.
    func cacheable(_ exchange: HTTPExchange) -> (key: String, maxAge: Int)? {
        guard replyCache.capacity > 0, case .plugin(let route, _) = exchange.destination,
              let maxAge = route.command.cacheMaxAgeMilliseconds,
              exchange.head.method == "GET" || exchange.head.method == "HEAD",
              exchange.body.isEmpty, route.route.output == nil,
              !HTTPFrontEnd.wantsEventStream(exchange.head), exchange.head.header("clubhouse-lease") == nil else { return nil }
        let h = exchange.head
        return (HTTPReplyCache.key(alias: route.alias, command: route.command.name, target: h.target, authorization: h.header("authorization"),
                                   apiKey: h.header("apikey"), cookies: h.headers("cookie")), maxAge)
    }

    /// Answers a request from a kept reply on the loop (no worker, no plugin call) — after the access layer's
    /// checks, every one a worker makes (credential, revocation, scope, back-off): a refusal is answered here too.
    /// False: nothing kept for it (or not a cached read); it goes on as any other request.
    private func answerFromCache(_ exchange: HTTPExchange, connection: HTTPConnection, channel: ServeChannel) -> Bool {
        guard let (key, _) = cacheable(exchange), case .plugin(let route, _) = exchange.destination,
              let kept = replyCache.lookup(key, now: Subprocess.monotonicMilliseconds(), current: { session.runtime.replyStamp(of: route.alias) })
        else { return false }
        let request = accessRequest(exchange)
        let cors = access.corsHeaders(for: request).map { (name: $0.name, value: $0.value) }
        switch access.authorize(request) {
        case .deny(let status, let message, let retryAfter):
            let response = HTTPFrontEnd.denial(status, message, retryAfter: retryAfter)
            complete(exchange, response, Answer(step: .now(response), principal: "anonymous", cors: cors), connection: connection, channel: channel)
        case .allow(let who):
            let response = HTTPFrontEnd.cachedReply(kept.body, etag: kept.etag, head: exchange.head)
            complete(exchange, response, Answer(step: .now(response), principal: who.name, cors: cors), connection: connection, channel: channel)
        }
        return true
    }

    /// A cached read's 200 with its ETag, or 304 when the request's If-None-Match names it.
    static func cachedReply(_ body: [UInt8], etag: String, head: HTTPRequestHead) -> HTTPResponse {
        let headers: [(name: String, value: String)] = [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store"), ("ETag", etag)]
        if StaticFiles.matches(head.header("if-none-match"), etag) { return HTTPResponse(status: 304, headers: Array(headers.dropFirst())) }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }

    /// The access layer's refusal as a response (401 with its challenge, 429 with Retry-After).
    static func denial(_ status: Int, _ message: String, retryAfter: Int?) -> HTTPResponse {
        var response = HTTPResponse.error(status, message)
        if status == 401 { response.headers.append(("WWW-Authenticate", "Bearer realm=\"clubhouse\"")) }
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
        return response
    }

    /// Goes on with a request once its answer is known (on a worker).
    private func handle(_ answer: Answer, exchange: HTTPExchange, connection: HTTPConnection, channel: ServeChannel, heldLane: String? = nil) {
        switch answer.step {
        case .now(let response):
            complete(exchange, response, answer, connection: connection, channel: channel)
        case .call(let call) where HTTPFrontEnd.wantsEventStream(exchange.head):
            runFollowed(call, exchange: exchange, answer, connection: connection, channel: channel)
        case .call(let call):
            run(call, exchange: exchange, answer, connection: connection, channel: channel, heldLane: heldLane)
        case .events(let alias, let topics):
            stream(exchange, alias: alias, topics: topics, answer, connection: connection, channel: channel)
        case .follow(let followed):
            followStream(followed, exchange: exchange, answer, connection: connection, channel: channel)
        }
    }

    /// The plugin lane a request joins straight from the loop (loop thread): a plugin route's GET or HEAD
    /// with no body, no file output, no event stream and no lease — the reads a phone polls. While its plugin
    /// is busy such a request waits in the lane without a worker being woken for it; the worker that ends
    /// the call ahead asks the access layer, prepares the call and runs it (so the token and its scope are
    /// still checked per request, just before the call). nil: the request goes to a worker as any other.
    func laneFromLoop(_ exchange: HTTPExchange) -> (name: String, alias: String, serialized: Bool)? {
        guard case .plugin(let route, _) = exchange.destination,
              exchange.head.method == "GET" || exchange.head.method == "HEAD",
              exchange.body.isEmpty, route.route.output == nil,
              !HTTPFrontEnd.wantsEventStream(exchange.head), exchange.head.header("clubhouse-lease") == nil,
              let plugin = session.runtime.resolvedIfLoaded(route.alias) else { return nil }
        let (name, serialized) = PluginLanes.lane(route.alias, generation: session.runtime.generation(of: route.alias),
                                                  serialized: plugin.serializes(route.command), beside: plugin.runsBeside(route.command))
        return (name, route.alias, serialized)
    }

    /// Puts a request in its plugin's lane from the loop (`laneFromLoop`). A worker is woken only when the
    /// plugin is free; a request that waits is answered 499 when its client leaves first, 503 when the server
    /// stops or the wait bound passes — nothing of it ran.
    private func queueInLane(_ exchange: HTTPExchange, _ lane: (name: String, alias: String, serialized: Bool),
                             connection: HTTPConnection, channel: ServeChannel) {
        let waiting = CallContext.waiting(alias: lane.alias)
        running.add(waiting)
        let unanswered = Answer(step: .now(HTTPResponse(status: 500)), principal: "anonymous", cors: [])
        let refuse = { [self] (error: RuntimeError) in
            complete(exchange, .error(HTTPStatusTable.status(for: error.status), error.message, name: error.status.name), unanswered,
                     connection: connection, channel: channel)
        }
        guard connection.track(waiting) else {
            pool.submit { refuse(RuntimeError(status: .cancelled, message: "the client went away before the call started")) }
            return
        }
        let start = { [self] in
            let answer = answer(exchange, connection: connection)
            handle(answer, exchange: exchange, connection: connection, channel: channel, heldLane: lane.name)
        }
        switch lanes.admit(lane: lane.name, alias: lane.alias, serialized: lane.serialized, client: channel.number, context: waiting,
                           start: start, refuse: refuse) {
        case .now:
            pool.submit { [self] in
                start()
                lanes.finished(lane: lane.name)
            }
        case .waiting: break
        case .refused(let error): pool.submit { refuse(error) }
        }
    }

    /// Sends the response (with the access layer's CORS headers), then the audit entry and the log line.
    func complete(_ exchange: HTTPExchange, _ response: HTTPResponse, _ answer: Answer, connection: HTTPConnection,
                          channel: ServeChannel) {
        var response = response
        response.headers += answer.cors
        connection.releaseSlot()
        bodyLedger.release(connection)
        let wake = send(response, for: exchange, connection: connection, channel: channel)
        channel.finished()
        // The loop looks at this client again when it has to (to close it, or to read a request already
        // buffered), and when the request had a body: what the body counts against --http-max-body-memory is
        // given back when the loop sees the request answered.
        if wake || exchange.head.contentLength > 0 { loop?.wake(channel) }
        record(exchange, principal: answer.principal, status: response.status, bytes: response.body.count)
        group.leave()
    }

    /// Queues a response: HEAD leaves its body out; the connection stays open unless either side said close.
    /// True when the loop must be woken for what follows (HTTPConnection.finish).
    func send(_ response: HTTPResponse, for exchange: HTTPExchange, connection: HTTPConnection, channel: ServeChannel) -> Bool {
        var response = response
        if exchange.head.method == "HEAD" { response.omitBody = true }
        let keepAlive = exchange.head.keepAlive && !response.close
        response.close = !keepAlive
        // Head and body go out in one gathered write, the body not copied behind the head.
        channel.enqueue(response.head(requestID: exchange.requestID, date: dates.now), response.omitBody ? [] : response.body)
        return connection.finish(keepAlive: keepAlive)
    }

    /// Who the client is: the peer, or — when the peer is a trusted proxy — the last address in
    /// X-Forwarded-For that is not a trusted proxy, and whether the proxy says HTTPS.
    func client(_ exchange: HTTPExchange) -> (address: String, secure: Bool) {
        let trusted = options.trustedProxies
        guard !trusted.isEmpty, trusted.contains(where: { $0.contains(exchange.peer) }) else { return (exchange.peer, false) }
        let hops = exchange.head.headers("x-forwarded-for").joined(separator: ",").split(separator: ",")
            .map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        var address = exchange.peer
        for hop in hops.reversed() {
            address = hop
            if !trusted.contains(where: { $0.contains(hop) }) { break }
        }
        let proto = exchange.head.headers("x-forwarded-proto").last?.trimmingSpaces().lowercased()
        return (IPRange.parse(address) != nil ? address : exchange.peer, proto == "https")
    }

    func accessRequest(_ exchange: HTTPExchange) -> AccessRequest {
        let (address, secure) = client(exchange)
        var alias: String?
        var access: RouteAccess = ["GET", "HEAD", "OPTIONS"].contains(exchange.head.method) ? .read : .write
        var isPublic = false
        switch exchange.destination {
        case .plugin(let route, _):
            alias = route.alias
            access = route.access
            isPublic = route.isPublic
        case .staticFile(let segments):
            // Pages and panels are public: the pairing page must load before anyone is paired.
            alias = segments.first.flatMap { $0 == "_" ? nil : $0 }
            isPublic = true
        case .pair, .session:
            isPublic = true
        case .lease:
            break
        case .unavailable(let a, _):
            alias = a
        case .events(let a, _), .call(let a, _):
            alias = a
            access = .read
        case .methodNotAllowed, .notFound, .options:
            let s = exchange.target.segments
            if s.count >= 2 && s[0] == "api" && s[1] != "_" { alias = s[1] }
        }
        let h = exchange.head
        return AccessRequest(site: session.site.name, method: h.method, path: exchange.target.path, alias: alias, access: access,
                             isPublic: isPublic, authorization: h.header("authorization"), apiKey: h.header("apikey"),
                             cookie: h.headers("cookie").isEmpty ? nil : h.headers("cookie").joined(separator: "; "),
                             origin: h.header("origin"), host: h.header("host"), clientAddress: address, secure: secure,
                             requestID: exchange.requestID)
    }

    /// What a request gets: a response now, or a plugin call to run (then its response); who made it; the
    /// access layer's CORS headers for it.
    struct Answer {
        enum Step {
            case now(HTTPResponse)
            case call(PluginCall)
            /// An event stream of these topics of the plugin (nil: all).
            case events(alias: String, topics: Set<String>?)
            /// One more stream of a followed call's events.
            case follow(HTTPFollowedCall)
        }
        var step: Step
        var principal: String
        var cors: [(name: String, value: String)]
        /// Who the credential is, as a followed call's owner (HTTPFrontEnd.owner).
        var owner = ""
    }

    func answer(_ exchange: HTTPExchange, connection: HTTPConnection) -> Answer {
        let request = accessRequest(exchange)
        let cors = access.corsHeaders(for: request).map { (name: $0.name, value: $0.value) }
        if case .options(let allowed) = exchange.destination {
            // A preflight carries no credentials; it learns the methods and, where the site allows the
            // origin, the CORS headers.
            let response = allowed.map { HTTPResponse(status: 204, headers: [("Allow", $0.joined(separator: ", "))]) }
                ?? .error(404, "no route at \(exchange.target.path)")
            return Answer(step: .now(response), principal: "anonymous", cors: cors)
        }
        switch access.authorize(request) {
        case .deny(let status, let message, let retryAfter):
            return Answer(step: .now(HTTPFrontEnd.denial(status, message, retryAfter: retryAfter)), principal: "anonymous", cors: cors)
        case .allow(let who):
            if let refused = holdStreamSlot(exchange, who: who, address: request.clientAddress, connection: connection) {
                return Answer(step: .now(refused), principal: who.name, cors: cors)
            }
            if case .call(let alias, let id) = exchange.destination {
                return Answer(step: callResource(exchange, alias: alias, id: id, who: who), principal: who.name, cors: cors)
            }
            if case .session = exchange.destination {
                return Answer(step: .now(sessionDescription(who)), principal: who.name, cors: cors)
            }
            if case .plugin(let route, let values) = exchange.destination {
                if HTTPFrontEnd.wantsEventStream(exchange.head), let output = route.route.output {
                    return Answer(step: .now(.error(406, "\(route.shown) answers a file (\(output.contentType)), not an event stream; ask without Accept: text/event-stream")),
                                  principal: who.name, cors: cors)
                }
                // A write named by an Idempotency-Key runs once; a repeat gets the first answer (IdempotencyKeys.swift).
                var named: (caller: String, key: String)?
                if route.access == .write, let key = exchange.head.header("idempotency-key") {
                    let given = exchange.head.headers("idempotency-key").count
                    if given > 1 { return Answer(step: .now(IdempotencyKeys.refusal(headers: given)), principal: who.name, cors: cors) }
                    // Keys are the caller's own, per route: another credential's key, or the same key on another
                    // route, is simply another request (nothing of the first is answered or named).
                    let caller = "\(who.kind.rawValue):\(who.name) \(exchange.head.method) \(exchange.target.path)"
                    let request = IdempotencyKeys.Request(method: exchange.head.method, target: exchange.head.target, body: exchange.body)
                    switch idempotency.start(caller: caller, owner: "\(who.kind.rawValue):\(who.name)", key: key, request: request,
                                             now: Subprocess.monotonicMilliseconds()) {
                    case .answer(let response): return Answer(step: .now(response), principal: who.name, cors: cors)
                    case .run: named = (caller, key)
                    }
                }
                switch prepare(exchange, route: route, values: values) {
                case .success(var call):
                    call.idempotency = named
                    return Answer(step: .call(call), principal: who.name, cors: cors, owner: HTTPFrontEnd.owner(who))
                case .failure(let refusal):
                    // Refused before anything ran (a malformed body, a type not taken): nothing of it is kept, so the
                    // corrected request with the same key runs.
                    if let (caller, key) = named { idempotency.forget(caller: caller, key: key) }
                    return Answer(step: .now(refusal.response), principal: who.name, cors: cors)
                }
            }
            if case .events(let alias, let declared) = exchange.destination {
                switch EventStreams.topics(exchange.target.query, alias: alias, declared: declared) {
                case .success(let topics): return Answer(step: .events(alias: alias, topics: topics), principal: who.name, cors: cors)
                case .failure(let refusal): return Answer(step: .now(.refusal(refusal)), principal: who.name, cors: cors)
                }
            }
            if case .lease(let key) = exchange.destination {
                return Answer(step: .now(lease(key, method: exchange.head.method, principal: who.name)), principal: who.name, cors: cors)
            }
            return Answer(step: .now(perform(exchange, request: request)), principal: who.name, cors: cors)
        }
    }

    /// A request that would open an event stream (`/api/<alias>/events`, a followed call or one more stream of
    /// it) takes a stream slot, held by the connection until it closes; the refusal when a bound is full.
    func holdStreamSlot(_ exchange: HTTPExchange, who: Principal, address: String, connection: HTTPConnection) -> HTTPResponse? {
        let streams: Bool
        switch exchange.destination {
        case .events: streams = exchange.head.method == "GET"
        case .call: streams = exchange.head.method == "GET" && HTTPFrontEnd.wantsEventStream(exchange.head)
        case .plugin(let route, _): streams = HTTPFrontEnd.wantsEventStream(exchange.head) && route.route.output == nil
        default: streams = false
        }
        guard streams else { return nil }
        let credential = HTTPFrontEnd.owner(who)
        if let refused = streamSlots.take(credential: credential, name: who.name, address: address, limits: options.limits) { return refused }
        let slots = streamSlots
        connection.holdSlot { slots.give(credential: credential, address: address) }
        return nil
    }

    /// The response to a request that is not a plugin's route.
    func perform(_ exchange: HTTPExchange, request: AccessRequest) -> HTTPResponse {
        let method = exchange.head.method
        switch exchange.destination {
        case .plugin, .events, .call, .lease:
            return .error(500, "a plugin's route reached the host's own routes")
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.error(405, "\(exchange.target.path) does not answer \(method); it answers \(allowed.joined(separator: ", "))")
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return response
        case .unavailable(let alias, let message):
            return .error(503, "plugin '\(alias)' is not available at this site: \(message)")
        case .notFound:
            let s = exchange.target.segments
            let hint = s.first == "api" ? " (clubhouse routes lists this site's routes)" : ""
            return .error(404, "no route for \(method) \(exchange.target.path)\(hint)")
        case .pair:
            return pair(exchange, request: request)
        case .session:
            return .error(500, "the session's description is answered with its caller")
        case .staticFile(let segments):
            guard method == "GET" || method == "HEAD" else {
                var response = HTTPResponse.error(405, "files under /ui/ answer GET and HEAD, not \(method)")
                response.headers.append(("Allow", "GET, HEAD, OPTIONS"))
                return response
            }
            return statics.serve(segments: segments, trailingSlash: exchange.target.trailingSlash || segments == ["_"], head: exchange.head,
                                 requestPath: String(exchange.head.rawPath))
        case .options:
            return HTTPResponse(status: 204)
        }
    }

    /// POST /api/_/leases/KEY renews a leased call: `{"held": true}`, or false once the call has ended (the
    /// page stops renewing). DELETE cancels it now: `{"cancelled": true}`, or false when no call held it
    /// any more (a DELETE is idempotent). 403 when another credential's call holds the key.
    func lease(_ key: String, method: String, principal: String) -> HTTPResponse {
        let cancel = method == "DELETE"
        switch cancel ? leases.cancel(key, principal: principal) : leases.renew(key, principal: principal) {
        case .another:
            return .error(403, "the lease \(String(key.prefix(64))) holds another credential's call; only the caller that started it renews or cancels it",
                          name: Status.denied.name)
        case .held: return .json(200, [cancel ? "cancelled" : "held": true])
        case .none: return .json(200, [cancel ? "cancelled" : "held": false])
        }
    }

    /// POST /api/_/pair {"code": "…"}: the access layer's answer, with its cookie.
    func pair(_ exchange: HTTPExchange, request: AccessRequest) -> HTTPResponse {
        let code: String
        switch jsonBody(exchange) {
        case .failure(let refusal): return .refusal(refusal)
        case .success(let object):
            guard let c = object?["code"]?.stringValue, !c.isEmpty else {
                return .error(400, "the body is {\"code\": \"…\"}: the pairing code `clubhouse token pair` printed")
            }
            code = c
        }
        let result = access.exchangePairingCode(code, request: request)
        guard result.status == 200 else { return .error(result.status, result.message) }
        var response = HTTPResponse.json(200, ["paired": true, "name": .string(result.principal?.name ?? ""),
                                               "message": .string(result.message)])
        if let cookie = result.setCookie { response.headers.append(("Set-Cookie", cookie)) }
        return response
    }

    /// The body as a JSON object (nil when empty); 415 for a declared non-JSON type, 400 for bytes that
    /// are not UTF-8, not JSON, or not an object.
    func jsonBody(_ exchange: HTTPExchange) -> Result<JSONObject?, HTTPRefusal> {
        if exchange.body.isEmpty { return .success(nil) }
        if let type = exchange.head.header("content-type") {
            let media = type.split(separator: ";").first.map { String($0).trimmingSpaces().lowercased() } ?? ""
            guard media == "application/json" || media.hasSuffix("+json") else {
                return .failure(HTTPRefusal(415, "the body is \(media); send application/json"))
            }
        }
        guard String(validating: exchange.body, as: UTF8.self) != nil else {
            return .failure(HTTPRefusal(400, "the body is not UTF-8; send JSON text"))
        }
        do {
            let value = try JSONParser.parse(bytes: exchange.body)
            guard let object = value.objectValue else {
                return .failure(HTTPRefusal(400, "the body is \(value.kindName); send a JSON object of the command's arguments"))
            }
            return .success(object)
        } catch {
            return .failure(HTTPRefusal(400, "the body is not JSON: \(error)"))
        }
    }

    /// The extension a command's file gets (some commands choose a format by it: mesh.gltf).
    static func fileExtension(path: String, type: String) -> String {
        if let last = path.split(separator: "/").last, let dot = last.lastIndex(of: "."), !last.contains("{") {
            return String(last[dot...])
        }
        let media = type.split(separator: ";").first.map { String($0).trimmingSpaces().lowercased() } ?? ""
        switch media {
        case "text/csv": return ".csv"
        case "application/json": return ".json"
        case "image/svg+xml": return ".svg"
        case "model/gltf+json": return ".gltf"
        default: return ".bin"
        }
    }

    /// Removes a request's files and then their folders (last made first).
    static func remove(_ made: [String]) {
        for path in made.reversed() where unlink(path) != 0 && errno == EISDIR { rmdir(path) }
    }

    /// A plugin call prepared from a request: the body and the output as files, the arguments bound and
    /// checked by the router. `made` are the host's files of the request, removed once it is answered.
    struct PluginCall {
        var route: SiteRoute
        var prepared: PreparedCall
        var files: [String: String]
        var made: [String]
        /// The caller and the request's Idempotency-Key, when it gave one (its answer is kept).
        var idempotency: (caller: String, key: String)? = nil
    }

    /// A refusal made while preparing a call, with the files made so far removed.
    struct PrepareFailure: Error {
        var response: HTTPResponse
    }

    func prepare(_ exchange: HTTPExchange, route: SiteRoute, values: [String: String]) -> Result<PluginCall, PrepareFailure> {
        let declared = route.route
        var json: JSONObject?
        var files: [String: String] = [:]
        var made: [String] = []
        func refuse(_ response: HTTPResponse) -> Result<PluginCall, PrepareFailure> {
            HTTPFrontEnd.remove(made)
            return .failure(PrepareFailure(response: response))
        }
        switch declared.body {
        case .none:
            if !exchange.body.isEmpty {
                return refuse(.error(400, "\(route.shown) takes no body; send its arguments in the query"))
            }
        case .json:
            switch jsonBody(exchange) {
            case .failure(let refusal): return refuse(.refusal(refusal))
            case .success(let object): json = object
            }
        case .file(let argument, let types):
            let media = exchange.head.header("content-type")?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
            if !types.isEmpty, !(media.map(types.contains) ?? false) {
                return refuse(.error(415, "\(route.shown) takes a body of type \(types.joined(separator: " or ")), not \(media ?? "an undeclared type")"))
            }
            // The body is kept as the client's file name (Content-Disposition) in a folder of its own, so the
            // plugin's messages name the file the person chose.
            let name: String
            switch UploadName.parse(contentDisposition: exchange.head.header("content-disposition")) {
            case .failure(let refusal): return refuse(.error(400, refusal.message))
            case .success(let given): name = given ?? "upload" + HTTPFrontEnd.fileExtension(path: "", type: media ?? "")
            }
            let folder = scratch + "/" + exchange.requestID
            guard mkdir(folder, 0o700) == 0 else { return refuse(.error(500, "cannot keep the request body: \(String(cString: strerror(errno)))")) }
            made.append(folder)
            let path = folder + "/" + name
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { return refuse(.error(500, "cannot keep the request body: \(String(cString: strerror(errno)))")) }
            made.append(path)
            let failed = Descriptor.writeAll(fd, exchange.body)
            close(fd)
            if let failed { return refuse(.error(500, "cannot keep the request body: \(failed)")) }
            files[argument] = path
        }
        if let output = declared.output {
            let path = scratch + "/" + exchange.requestID + "-out" + HTTPFrontEnd.fileExtension(path: declared.path, type: output.contentType)
            made.append(path)
            files[output.argument] = path
        }
        let arguments: JSONObject
        do {
            arguments = try declared.bind(pathValues: values, query: exchange.target.query, json: json, files: files,
                                          prefix: route.mountedAt ?? "/api/\(route.alias)", command: route.command, plugin: route.alias)
        } catch {
            return refuse(.error(400, error.message))
        }
        switch session.runtime.router.prepare(alias: route.alias, .json(command: route.command.name, arguments: arguments), origin: .http) {
        case .success(let prepared):
            return .success(PluginCall(route: route, prepared: prepared, files: files, made: made))
        case .failure(let e):
            return refuse(.error(HTTPStatusTable.status(for: e.status), e.message, name: e.status.name))
        }
    }

    /// Runs a prepared call through its plugin's lane (cancelled if the client goes away, waiting or
    /// running) and queues its response.
    /// `heldLane`: the request already holds this lane (it waited there from the loop, `queueInLane`): a call of
    /// that lane runs at once on this worker.
    private func run(_ call: PluginCall, exchange: HTTPExchange, _ answer: Answer, connection: HTTPConnection, channel: ServeChannel,
                     heldLane: String? = nil) {
        let context = session.runtime.router.context(for: call.prepared)
        running.add(context)
        credentialWatch?.watch(call: context, request: accessRequest(exchange))
        // A page's heartbeat lease holds the call from now, waiting or running (HTTPCallLeases.swift).
        let leased: String?
        switch holdLease(exchange, principal: answer.principal, context: context, what: call.route.shown) {
        case .success(let key): leased = key
        case .failure(let refusal):
            HTTPFrontEnd.remove(call.made)
            if let (caller, key) = call.idempotency { idempotency.forget(caller: caller, key: key) }
            return complete(exchange, refusal, answer, connection: connection, channel: channel)
        }
        let respond = { [self] (response: HTTPResponse) in
            if let leased { leases.release(leased, context: context) }
            if let (caller, key) = call.idempotency {
                idempotency.finish(caller: caller, key: key, response: response, committed: context.committedAWrite)
            }
            complete(exchange, response, answer, connection: connection, channel: channel)
        }
        func refuse(_ response: HTTPResponse) {
            // Nothing of the call ran: its key is forgotten, not kept (respond then finds none to keep).
            if let (caller, key) = call.idempotency { idempotency.forget(caller: caller, key: key) }
            HTTPFrontEnd.remove(call.made)
            _ = connection.track(nil)
            respond(response)
        }
        guard connection.track(context) else { return refuse(.error(499, "the client went away before the call started", name: "cancelled")) }
        let alias = call.route.alias
        let (lane, serialized) = PluginLanes.lane(alias, generation: session.runtime.generation(of: alias),
                                                  serialized: call.prepared.serializes, beside: call.prepared.runsBeside)
        let start = { [self] in respond(finish(call, context: context, connection: connection, exchange: exchange)) }
        func refusal(_ error: RuntimeError) -> HTTPResponse {
            .error(HTTPStatusTable.status(for: error.status), error.message, name: error.status.name)
        }
        if lane == heldLane { return start() }
        switch lanes.admit(lane: lane, alias: alias, serialized: serialized, client: channel.number, context: context,
                           start: start, refuse: { refuse(refusal($0)) }) {
        case .now:
            start()
            lanes.finished(lane: lane)
        case .waiting: break
        case .refused(let error): refuse(refusal(error))
        }
    }

    enum LeaseHold {
        /// The key held (nil: the request names no lease).
        case success(String?)
        case failure(HTTPResponse)
    }

    /// The lease a request names (`Clubhouse-Lease`), held for `context` until released; nil when it names
    /// none; a refusal when the header is wrong or the key already holds a call.
    func holdLease(_ exchange: HTTPExchange, principal: String, context: CallContext, what: String) -> LeaseHold {
        guard let header = exchange.head.header("clubhouse-lease") else { return .success(nil) }
        switch HTTPCallLeases.parse(header) {
        case .failure(let refusal): return .failure(.refusal(refusal))
        case .success(let (key, ms)):
            do throws(ThreadStartError) {
                guard try leases.hold(key, milliseconds: ms, principal: principal, context: context, what: what) else {
                    return .failure(.error(409, "the lease \(key) already holds a running call; choose a new key for each call", name: Status.constraint.name))
                }
                return .success(key)
            } catch {
                return .failure(.error(503, "the lease \(key) was not held and the call did not run: its timer could not be armed — \(error); try again later",
                                       name: Status.busy.name))
            }
        }
    }

    /// Runs a prepared call and makes its response: the reply's data as JSON, or the output file.
    func finish(_ call: PluginCall, context: CallContext, connection: HTTPConnection, exchange: HTTPExchange) -> HTTPResponse {
        defer { HTTPFrontEnd.remove(call.made) }
        let route = call.route
        let router = session.runtime.router
        // A cached read: what its reply depends on, read before the call (a change during it makes the stamp stale).
        let cached = cacheable(exchange)
        let stamp = cached != nil ? session.runtime.replyStamp(of: route.alias) : nil
        var outcome = router.runData(call.prepared, context: context)
        _ = connection.track(nil)
        guard outcome.status == .ok else {
            // An upload's message names the file as the client named it, not the host's private folder.
            var message = outcome.message
            if case .file = route.route.body { message = message.replacing(scratch + "/" + exchange.requestID + "/", with: "") }
            return .error(HTTPStatusTable.status(for: outcome.status), message, name: outcome.status.name)
        }
        let declared = route.route
        if let output = declared.output {
            guard let path = call.files[output.argument], let bytes = try? FileSystem.read(path) else {
                return .error(502, "'\(route.alias) \(route.command.name)' wrote no \(output.argument) file", name: Status.pluginFailed.name)
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", output.contentType), ("Cache-Control", "no-store")], body: bytes)
        }
        let accepted = declared.acceptedIf.map { name in
            outcome.data.withUnsafeBufferPointer { JSONScanner.member(name, in: $0) } != nil
        } ?? false
        // Taken out of the outcome, so the body's newline goes into the bytes' own room (no copy on write).
        let data = outcome.data
        outcome.data = []
        let response = HTTPResponse.json(accepted ? 202 : 200, raw: data)
        guard let cached, !accepted else { return response }
        let now = Subprocess.monotonicMilliseconds()
        let etag = stamp.map { replyCache.store(cached.key, stamp: $0, maxAge: cached.maxAge, body: response.body, now: now) }
            ?? HTTPReplyCache.etag(response.body)
        return HTTPFrontEnd.cachedReply(response.body, etag: etag, head: exchange.head)
    }

    /// The audit entry and the log line of a request.
    func record(_ exchange: HTTPExchange, principal: String, status: Int, bytes: Int) {
        let micros = max(0, HTTPFrontEnd.microseconds() - exchange.startedMicroseconds)
        let address = client(exchange).address
        access.record(AuditEntry(requestID: exchange.requestID, principalName: principal, method: exchange.head.method,
                                 path: exchange.target.path, status: status, durationMicroseconds: Int(micros), clientAddress: address))
        logLine(requestID: exchange.requestID, client: address, method: exchange.head.method, target: exchange.head.target,
                status: status, bytes: bytes, micros: micros, principal: principal)
    }

    func logLine(requestID: String, client: String, method: String, target: String, status: Int, bytes: Int, micros: Int64,
                 principal: String) {
        let log = session.log
        let warn = status >= 500 && status != 503
        guard warn || log.isEnabled(Int32(CLUBHOUSE_LOG_INFO)) else { return }
        let shownTarget = target.count > 200 ? String(target.prefix(200)) + "…" : target
        let line = "http \(requestID) \(client) \"\(method) \(shownTarget)\" \(status) \(bytes) B \(micros / 1000).\((micros % 1000) / 100) ms \(principal)"
        if warn { log.warning(line) } else { log.info(line) }
    }
}

/// The loop's side of HTTP: parsing, limits, timeouts and refusals for each client.
final class HTTPProtocolHandler: ServeProtocol {
    unowned let front: HTTPFrontEnd
    var limits: HTTPLimits { front.options.limits }


    init(front: HTTPFrontEnd) { self.front = front }

    /// Gives back what a connection's body counted against the bound.
    private func releaseBody(_ c: HTTPConnection) {
        guard c.admittedBody else { return }
        c.admittedBody = false
        front.bodyLedger.release(c)
    }

    var maxConnections: Int { limits.maxConnections }

    func opened(_ channel: ServeChannel, now: Int64) {
        channel.owner = HTTPConnection(now: now)
        channel.lingerMilliseconds = limits.lingerMilliseconds
    }

    private func connection(_ channel: ServeChannel) -> HTTPConnection? { channel.owner as? HTTPConnection }

    func wantsInput(_ channel: ServeChannel) -> Bool {
        guard let c = connection(channel) else { return false }
        switch c.phase {
        case .closing: return false
        // What an event stream's client sends is read and dropped (its end closes the stream).
        case .streaming: return true
        // Pipelined requests wait in the buffer, up to a bound.
        case .busy: return channel.input.count - channel.inputStart < 1 << 16
        default: return true
        }
    }

    func inputEnded(_ channel: ServeChannel) {
        guard let c = connection(channel) else { return }
        switch c.phase {
        case .busy, .streaming: c.abandon()
        default: break
        }
    }

    func closed(_ channel: ServeChannel) {
        guard let c = connection(channel) else { return }
        releaseBody(c)
        c.abandon()
    }

    func lingers(_ channel: ServeChannel) -> Bool { true }

    /// At the connection bound, room for a newcomer: the longest idle kept-alive client; else the oldest
    /// unfinished request head (connected and silent, or a head still arriving) of the client address with the
    /// most of them — so one address trickling heads on a thousand sockets loses its own, and a newcomer from
    /// elsewhere is served. Behind a trusted proxy every connection is the proxy's: its unfinished heads are
    /// the ones counted, never its requests being answered or its streams.
    func evictable(_ channels: [ServeChannel], now: Int64) -> ServeChannel? {
        var idle: (ServeChannel, Int64)?
        var heads: [String: (count: Int, oldest: ServeChannel, since: Int64)] = [:]
        for channel in channels {
            guard let c = connection(channel) else { continue }
            let since: Int64
            switch c.phase {
            case .waiting(let s, let first):
                guard channel.state().waiting == 0 else { continue }
                if !first {
                    if s < (idle?.1 ?? .max) { idle = (channel, s) }
                    continue
                }
                since = s
            case .head(let s, _, _): since = s
            default: continue
            }
            if let seen = heads[channel.peer] {
                heads[channel.peer] = (seen.count + 1, since < seen.since ? channel : seen.oldest, min(since, seen.since))
            } else {
                heads[channel.peer] = (1, channel, since)
            }
        }
        if let idle { return idle.0 }
        return heads.values.max { ($0.count, -$0.since) < ($1.count, -$1.since) }?.oldest
    }

    func refusal(_ reason: ServeRefusal, connected: Int) -> [UInt8] {
        var response: HTTPResponse
        switch reason {
        case .busy:
            response = .error(503, "server busy: \(connected) clients connected, the --http-max-connections bound, none of them idle; try again later")
        case .outOfDescriptors:
            response = .error(503, "server out of file descriptors (\(connected) clients connected); try again later")
        }
        response.headers.append(("Retry-After", "1"))
        response.close = true
        let id = front.nextRequestID()
        front.logLine(requestID: id, client: "-", method: "-", target: "-", status: 503, bytes: response.body.count, micros: 0, principal: "anonymous")
        return response.serialized(requestID: id, date: front.dates.now)
    }

    /// Moves a finished request's connection on, and tracks how long a response has waited for the client.
    private func refresh(_ channel: ServeChannel, _ c: HTTPConnection, now: Int64) {
        if case .busy = c.phase, c.takeStreamOpened() {
            c.phase = .streaming(beatAt: now + limits.heartbeatMilliseconds)
        }
        // A stream the server ends (a followed call answered): closed once its last event is out.
        if case .streaming = c.phase, c.takeFinished() != nil {
            c.phase = .closing
            channel.readClosed = true
        }
        if case .busy = c.phase, let keepAlive = c.takeFinished() {
            if keepAlive {
                c.phase = .waiting(since: min(now, c.finishedTime), first: false)
            } else {
                c.phase = .closing
                channel.readClosed = true
            }
        }
        switch c.phase {
        case .body, .busy: break
        default: releaseBody(c)
        }
        let s = channel.state()
        if s.waiting > 0 && s.heldSince == nil {
            if c.writingSince == nil { c.writingSince = now }
            // Idle time counts from the end of the last response, not from when it was queued.
            if case .waiting(_, let first) = c.phase { c.phase = .waiting(since: now, first: first) }
        } else {
            c.writingSince = nil
        }
    }

    func deadline(_ channel: ServeChannel, now: Int64) -> Int64? {
        guard let c = connection(channel) else { return nil }
        refresh(channel, c, now: now)
        var due: Int64?
        switch c.phase {
        case .waiting(let since, let first): due = since + (first ? limits.headerTimeoutMilliseconds : limits.idleTimeoutMilliseconds)
        case .head(let since, _, _): due = since + limits.headerTimeoutMilliseconds
        case .body(_, let deadline): due = min(deadline, c.bodyProgressAt + limits.bodyTimeoutMilliseconds)
        // While a worker has the request the loop is not woken when it is answered (the client's next bytes
        // wake it): it looks again after an idle timeout at the latest, so an idle kept-alive connection
        // is closed on time even when the loop looked at nothing else.
        case .busy: due = now + limits.idleTimeoutMilliseconds
        case .closing: due = nil
        case .streaming(let beatAt): due = c.overrunReason == nil ? beatAt : now
        }
        if let writing = c.writingSince {
            let send = writing + limits.sendTimeoutMilliseconds
            due = min(due ?? send, send)
        }
        return due
    }

    func expire(_ channel: ServeChannel, now: Int64) -> String? {
        guard let c = connection(channel) else { return "" }
        if let writing = c.writingSince, now >= writing + limits.sendTimeoutMilliseconds {
            return "dropped HTTP client \(channel.number) (\(channel.peer)): it took more than \(limits.sendTimeoutMilliseconds) ms to read a response"
        }
        switch c.phase {
        case .waiting(let since, let first):
            // A kept-alive (or never used) connection with nothing to say: closed quietly.
            return now >= since + (first ? limits.headerTimeoutMilliseconds : limits.idleTimeoutMilliseconds) ? "" : nil
        case .head(let since, _, _):
            guard now >= since + limits.headerTimeoutMilliseconds else { return nil }
            refuse(channel, c, HTTPRefusal(408, "the request's head did not arrive within \(limits.headerTimeoutMilliseconds) ms"), method: "-", target: "-")
            return nil
        case .body(let exchange, let deadline):
            if now >= c.bodyProgressAt + limits.bodyTimeoutMilliseconds && now < deadline {
                refuse(channel, c, HTTPRefusal(408, "no byte of the request's body (\(c.bodyReceived) of \(exchange.head.contentLength) bytes received) arrived for \(limits.bodyTimeoutMilliseconds) ms (--http-body-timeout-ms)"),
                       method: exchange.head.method, target: exchange.head.target, requestID: exchange.requestID)
                return nil
            }
            guard now >= deadline else { return nil }
            refuse(channel, c, HTTPRefusal(408, "the request's body (\(exchange.head.contentLength) bytes) did not arrive in time"),
                   method: exchange.head.method, target: exchange.head.target, requestID: exchange.requestID)
            return nil
        case .busy, .closing:
            return nil
        case .streaming(let beatAt):
            if let reason = c.overrunReason { return "dropped HTTP client \(channel.number) (\(channel.peer)): \(reason)" }
            guard now >= beatAt else { return nil }
            channel.enqueue(EventStreams.heartbeat, droppable: true)
            c.phase = .streaming(beatAt: now + limits.heartbeatMilliseconds)
            return nil
        }
    }

    /// Answers a refusal from the loop and closes the connection after it (nothing of the request ran).
    private func refuse(_ channel: ServeChannel, _ c: HTTPConnection, _ refusal: HTTPRefusal, method: String, target: String,
                        requestID: String? = nil) {
        var response = HTTPResponse.refusal(refusal)
        if refusal.status == 405 { response.headers.append(("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")) }
        if refusal.status == 503 || refusal.status == 429 { response.headers.append(("Retry-After", "1")) }
        refuse(channel, c, response, method: method, target: target, requestID: requestID)
    }

    /// Answers `response` from the loop and closes the connection after it, the rest of the input unread.
    private func refuse(_ channel: ServeChannel, _ c: HTTPConnection, _ response: HTTPResponse, method: String, target: String,
                        requestID: String? = nil) {
        var response = response
        response.close = true
        let id = requestID ?? front.nextRequestID()
        releaseBody(c)
        channel.enqueue(response.serialized(requestID: id, date: front.dates.now), droppable: false)
        c.phase = .closing
        channel.readClosed = true
        channel.input.removeAll()
        channel.inputStart = 0
        front.logLine(requestID: id, client: channel.peer, method: method, target: target, status: response.status,
                      bytes: response.body.count, micros: 0, principal: "anonymous")
        let access = front.access
        let entry = AuditEntry(requestID: id, principalName: "anonymous", method: method, path: target, status: response.status,
                               durationMicroseconds: 0, clientAddress: channel.peer)
        front.pool.submit { access.record(entry) }
    }

    private func compact(_ channel: ServeChannel) {
        if channel.inputStart == channel.input.count {
            channel.input.removeAll(keepingCapacity: channel.input.capacity <= 1 << 16)
            channel.inputStart = 0
        } else if channel.inputStart > 1 << 16 {
            channel.input.removeSubrange(0..<channel.inputStart)
            channel.inputStart = 0
        }
    }

    func take(_ channel: ServeChannel) -> Bool {
        guard let c = connection(channel) else { return false }
        let now = Subprocess.monotonicMilliseconds()
        refresh(channel, c, now: now)
        while true {
            switch c.phase {
            case .busy:
                // A worker has this client's request; what it sent next waits, and the worker wakes the loop
                // when it is done — unless it is done already.
                if channel.input.count > channel.inputStart && c.noteInputWaiting() {
                    refresh(channel, c, now: now)
                    continue
                }
                return false
            case .closing:
                return false
            case .streaming:
                channel.input.removeAll(keepingCapacity: true)
                channel.inputStart = 0
                return false
            case .waiting:
                c.clearInputWaiting()
                guard channel.input.count > channel.inputStart else { return false }
                c.phase = .head(since: now, scanned: 0, startedMicroseconds: HTTPFrontEnd.microseconds())
            case .head(let since, let scanned, let started):
                let result = channel.input.withUnsafeBufferPointer { all in
                    HTTPRequestParser.parseHead(UnsafeBufferPointer(rebasing: all[channel.inputStart...]), scanned: scanned, limits: limits)
                }
                switch result {
                case .incomplete(let more):
                    c.phase = .head(since: since, scanned: more, startedMicroseconds: started)
                    return false
                case .refused(let refusal):
                    refuse(channel, c, refusal, method: "-", target: "-")
                    return false
                case .complete(let head):
                    channel.inputStart += head.headBytes
                    if let refusal = front.hostPolicy.refusal(host: head.header("host"), forwardedFor: head.header("x-forwarded-for"), peer: channel.peer) {
                        refuse(channel, c, refusal, method: head.method, target: head.target)
                        return false
                    }
                    let target: HTTPTarget
                    switch HTTPTarget.decode(head.target) {
                    case .success(let t): target = t
                    case .failure(let refusal):
                        refuse(channel, c, refusal, method: head.method, target: head.target)
                        return false
                    }
                    let (destination, maxBody) = front.destination(head, target)
                    let requestID = requestID(head, peer: channel.peer)
                    if head.contentLength > maxBody {
                        let what: String
                        switch destination {
                        case .plugin(let route, _): what = "\(route.shown) takes at most \(maxBody) bytes"
                        default: what = maxBody == 0 ? "\(head.method) \(target.path) takes no body" : "at most \(maxBody) bytes here"
                        }
                        refuse(channel, c, HTTPRefusal(413, "the body (\(head.contentLength) bytes) is too large: \(what)"),
                               method: head.method, target: head.target, requestID: requestID)
                        return false
                    }
                    if head.contentLength > 0 {
                        // Refused on the head: answered now and closed, the body never read (no 100 Continue).
                        let bare = HTTPExchange(head: head, target: target, destination: destination, body: [], requestID: requestID,
                                                peer: channel.peer, startedMicroseconds: started)
                        let (refusal, holder) = front.refusalBeforeBody(bare)
                        if let response = refusal {
                            refuse(channel, c, response, method: head.method, target: head.target, requestID: requestID)
                            return false
                        }
                        // The server-wide bound on bodies in memory: over it, 503 now rather than a body read.
                        // And one caller's share of it: one phone cannot take every other client's writes (the
                        // fourth outside attack, b15: four idle 64 MiB uploads held the whole bound).
                        let (bound, share) = front.bodyMemoryLimits()
                        switch front.bodyLedger.admit(c, holder: holder, bytes: head.contentLength, bound: bound, share: share) {
                        case .admitted: c.admittedBody = true
                        case .overBound:
                            refuse(channel, c, HTTPRefusal(503, "server busy: request bodies held in memory would exceed \(bound) bytes (--http-max-body-memory) with this one's \(head.contentLength); try again later"),
                                   method: head.method, target: head.target, requestID: requestID)
                            return false
                        case .overShare(let mine):
                            refuse(channel, c, HTTPRefusal(429, "too many request bodies at once from \(holder): \(mine) bytes held, at most \(share) per caller (a quarter of --http-max-body-memory); finish those first"),
                                   method: head.method, target: head.target, requestID: requestID)
                            return false
                        }
                    }
                    c.bodyReceived = 0
                    c.bodyProgressAt = now
                    if head.expectsContinue && head.contentLength > 0 {
                        channel.enqueue(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), droppable: false)
                    }
                    let exchange = HTTPExchange(head: head, target: target, destination: destination, body: [], requestID: requestID,
                                                peer: channel.peer, startedMicroseconds: started)
                    let allowance = Int64(head.contentLength) * 1000 / Int64(max(1, limits.bodyBytesPerSecond))
                    c.phase = .body(exchange, deadline: now + limits.bodyTimeoutMilliseconds + allowance)
                }
            case .body(var exchange, _):
                let length = exchange.head.contentLength
                let have = channel.input.count - channel.inputStart
                if have > c.bodyReceived { c.bodyReceived = have; c.bodyProgressAt = now }
                guard have >= length else { return false }
                if length > 0 {
                    exchange.body = Array(channel.input[channel.inputStart..<(channel.inputStart + length)])
                    channel.inputStart += length
                }
                compact(channel)
                c.phase = .busy
                if front.dispatch(exchange, connection: c, channel: channel) {
                    // Answered on the loop from a kept reply: the connection waits for its next request now.
                    refresh(channel, c, now: now)
                }
                // On to `.busy` (or the next request): a pipelined request already buffered is noted there, so the
                // worker wakes the loop when it is done (returning here left the note unmade: each pipelined request
                // after the second waited for the loop's one-second sweep — the fifth outside attack, a21/a22).
                continue
            }
        }
    }

    /// The request id: a trusted proxy's X-Request-Id (letters, digits, '-', '_', '.', at most 64), or a new one.
    private func requestID(_ head: HTTPRequestHead, peer: String) -> String {
        if let given = head.header("x-request-id"), !given.isEmpty, given.utf8.count <= 64,
           given.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || ("g"..."z").contains($0) || ("G"..."Z").contains($0) || $0 == "-" || $0 == "_" || $0 == "." }),
           front.options.trustedProxies.contains(where: { $0.contains(peer) }) {
            return given
        }
        return front.nextRequestID()
    }
}

