// `clubhouse serve`: JSON-RPC 2.0 for front ends, one JSON object per line, over stdio (default)
// or a Unix socket (`--socket PATH`, mode 0600; its transport, bounds and path lock are in
// ServeTransport.swift: `--max-connections`, `--write-timeout-ms`, `--workers`).
//
// Methods:
//   clubhouse.plugins                          → [{plugin, id, version, summary, isolated, …}]: the enabled
//                                                rows of `plugins list` (BuiltinCommands.pluginListing)
//   clubhouse.commands {plugin}                → the plugin's command catalogue ("clubhouse": the built-in commands)
//   clubhouse.call {plugin, command, arguments, progress?, text?}
//                                              → the command's data (with text: true,
//                                                {data, text}); with progress: true the
//                                                server sends clubhouse.progress notifications
//                                                {id, label, done, total} while it runs, the last
//                                                with finished (and cancelled, after a cancel)
//   clubhouse.cancel {id}                      → asks the call with that request id to stop
//   clubhouse.subscribe {plugin, topics?, lastEventId?}
//                                              → {subscription, plugin, topics}; then clubhouse.event
//                                                notifications (RPCSubscriptions.swift)
//   clubhouse.unsubscribe {subscription}       → {unsubscribed: true}
//   clubhouse.version                          → {version, abi, build}
//   clubhouse.reload {plugin?}                 → [{plugin, outcome, message}]: isolated plugins restart on
//                                                their next call (calls in flight finish first); in-process
//                                                ones say a restart of the server is needed
//
// A param a method does not take is an error naming it (JSONRPCServer.parameters), never ignored.
//
// The server also watches the install tree and the lock file (every 0.5 s): when a version is
// installed or removed or the lock rewritten, the plugins concerned are reloaded the same way.
//
// Requests run concurrently on worker threads; the host serializes calls into a plugin that is
// not thread-safe, and a call waiting for such a plugin waits in its lane without a thread
// (PluginLanes.swift). Malformed input gets a JSON-RPC error and the server keeps serving.

import ClubhouseHost
import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// One client connection (a socket client, or the caller on stdio): where responses and
/// notifications go, through the event loop's channel (never blocking).
/// @unchecked Sendable: the queue below is guarded by `lock`; `staged` is the loop thread's alone.
final class RPCConnection: @unchecked Sendable {
    /// The transport's side of this connection.
    let channel: ServeChannel
    /// The plugins' events it listens to (`clubhouse.subscribe`).
    let subscriptions = RPCSubscriptions()
    private let lock = Lock()

    init(channel: ServeChannel) {
        self.channel = channel
    }

    /// Sends one message; a `droppable` one (a progress notification) may be skipped when the
    /// client is far behind in reading. A `coalescing` one (a reply sent by a worker draining the
    /// queue) is held to go out with the next replies while more requests wait in the queue
    /// (ServeChannel.enqueue bounds how long and how much). A `holding` one is held in any case (a
    /// reply in a burst of the client's calls in a plugin's lane, PluginLanes: the burst's end lets it go).
    func send(_ value: JSONValue, droppable: Bool = false, coalescing: Bool = false, holding: Bool = false) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        JSONWriter.appendCompact(value, to: &bytes)
        bytes.append(0x0A)
        channel.enqueue(bytes, droppable: droppable, hold: holding || (coalescing && hasWaiting))
    }

    /// Whether the client went away (its pending requests are then skipped).
    var isClosed: Bool { channel.isClosed }
    func began() { channel.began() }
    func finished() { channel.finished() }

    // MARK: the connection's queue
    //
    // A pipelining client's requests wait here, and a worker that finishes one takes the next
    // itself: no cross-thread wake-up per request. A call that runs long does not hold up the
    // ones behind it: when the queue has not moved for `JSONRPCServer.stallMilliseconds`, the
    // server's tick starts one more worker on it (up to the worker limit).
    private var queue: [() -> Void] = []
    private var queueHead = 0
    private(set) var drainers = 0
    /// When a worker last took a job from the queue (or the queue last became non-empty).
    private var lastTaken: Int64 = 0

    /// Jobs the loop thread dispatched from the lines at hand, pushed together (one lock, one
    /// worker start) by `pushStaged` after the last of them or every `stageLimit` (loop thread only).
    private var staged: [() -> Void] = []
    static let stageLimit = 64

    /// Stages a job (loop thread); true when enough are staged to push them now.
    func stage(_ job: @escaping () -> Void) -> Bool {
        staged.append(job)
        return staged.count >= Self.stageLimit
    }

    /// Pushes the staged jobs (loop thread); true when no worker drains the queue now (the caller
    /// must start one). Nil when nothing was staged.
    func pushStaged() -> Bool? {
        guard !staged.isEmpty else { return nil }
        let jobs = staged
        staged.removeAll(keepingCapacity: true)
        return lock.withLock {
            if queueHead == queue.count { lastTaken = Subprocess.monotonicMilliseconds() }
            queue.append(contentsOf: jobs)
            guard drainers == 0 else { return false }
            drainers = 1
            return true
        }
    }

    /// Whether jobs wait in the queue (a reply sent now has more behind it).
    var hasWaiting: Bool { lock.withLock { queueHead < queue.count } }

    /// The next job for a draining worker, or nil (and the worker leaves) when the queue is empty.
    func take() -> (() -> Void)? {
        lock.withLock {
            guard queueHead < queue.count else {
                drainers -= 1
                queue.removeAll(keepingCapacity: queue.capacity <= 1024)
                queueHead = 0
                return nil
            }
            let job = queue[queueHead]
            queueHead += 1
            lastTaken = Subprocess.monotonicMilliseconds()
            if queueHead >= 1024 && queueHead * 2 >= queue.count {
                queue.removeSubrange(0..<queueHead)
                queueHead = 0
            }
            return job
        }
    }

    /// Whether jobs wait; when they have waited `stall` ms with every drainer busy (and fewer than
    /// `limit` drain), counts one more drainer and says to start it.
    func stalled(now: Int64, stall: Int64, limit: Int) -> (waiting: Bool, startOne: Bool) {
        lock.withLock {
            let waiting = queueHead < queue.count
            guard waiting, drainers < limit, now - lastTaken >= stall else { return (waiting, false) }
            drainers += 1
            lastTaken = now
            return (true, true)
        }
    }
}

/// Progress of one JSON-RPC call, sent as notifications (at most 10 a second). The last one of a
/// stage says `finished`; after a cancel it says `cancelled` too and counts what was done, not the total.
/// @unchecked Sendable: its mutable fields are read and written under `lock`; the connection is Sendable itself.
final class RPCProgress: ProgressSink, @unchecked Sendable {
    let connection: RPCConnection
    let id: JSONValue
    private let lock = Lock()
    private var label = ""
    private var total: UInt64 = 0
    private var unit = ProgressUnit.items
    private var last: Int64 = 0
    /// The last count the plugin reported (sent or not: updates are rate-limited).
    private var done: UInt64 = 0
    /// Whether the call was cancelled (set once the call's context exists).
    private var isCancelled: (@Sendable () -> Bool)?

    init(connection: RPCConnection, id: JSONValue) {
        self.connection = connection
        self.id = id
    }

    private func notify(_ done: UInt64, final: Bool = false, cancelled: Bool = false) {
        let (label, total, unit) = lock.withLock { (self.label, self.total, self.unit) }
        var params: JSONObject = ["id": id, "label": .string(label), "done": .number(JSONNumber(lexeme: String(done), isInteger: true)),
                                  "unit": .string(unit.rawValue)]
        if total > 0 { params["total"] = .number(JSONNumber(lexeme: String(total), isInteger: true)) }
        if final { params["finished"] = true }
        if cancelled { params["cancelled"] = true }
        // The last notification of a stage is never dropped: a client waits for it.
        connection.send(["jsonrpc": "2.0", "method": "clubhouse.progress", "params": .object(params)], droppable: !final)
    }

    /// Tells the sink how to learn that its call was cancelled.
    func watch(_ isCancelled: @escaping @Sendable () -> Bool) {
        lock.withLock { self.isCancelled = isCancelled }
    }

    /// After the call: a stage the plugin left open is finished here, cancelled if the call was.
    func finish(cancelled: Bool) {
        let open = lock.withLock { !label.isEmpty }
        if open { close(cancelled: cancelled) }
    }

    /// The stage's last notification: what was done when cancelled, else the total (when known).
    private func close(cancelled: Bool) {
        let count = lock.withLock { cancelled || total == 0 ? done : total }
        notify(count, final: true, cancelled: cancelled)
        lock.withLock { label = "" }
    }

    func begin(label: String, total: UInt64) {
        lock.withLock {
            self.label = label
            self.total = total
            unit = .items
            done = 0
            last = Subprocess.monotonicMilliseconds()
        }
        notify(0)
    }

    /// A stage counted in bytes: said at once (the client learns the unit before the counts).
    func setUnit(_ unit: ProgressUnit) {
        let changed = lock.withLock { () -> Bool in
            defer { self.unit = unit }
            return self.unit != unit
        }
        if changed { notify(0) }
    }

    func update(done: UInt64) {
        let due = lock.withLock { () -> Bool in
            self.done = done
            let now = Subprocess.monotonicMilliseconds()
            guard now - last >= 100 else { return false }
            last = now
            return true
        }
        if due { notify(done) }
    }

    func end() {
        let cancelled = lock.withLock { isCancelled }?() ?? false
        let open = lock.withLock { !label.isEmpty }
        if open { close(cancelled: cancelled) }
    }
}

/// @unchecked Sendable: `active`, `announced` and `backlogged` are guarded by `lock`; `reloaded` is set
/// before serving starts and only read after; the rest is immutable or thread-safe (the group, pool, lanes).
final class JSONRPCServer: @unchecked Sendable {
    /// Every method `perform` answers (Host/JSON-RPC.md documents each; a test compares them).
    static let methods = ["clubhouse.version", "clubhouse.plugins", "clubhouse.commands", "clubhouse.call",
                          "clubhouse.cancel", "clubhouse.reload", "clubhouse.subscribe", "clubhouse.unsubscribe"]

    /// The params each method takes; any other is refused with its name (Host/JSON-RPC.md lists
    /// the same, and a test compares them with what the server says).
    static let parameters: [String: [String]] = [
        "clubhouse.version": [], "clubhouse.plugins": [], "clubhouse.commands": ["plugin"],
        "clubhouse.call": ["plugin", "command", "arguments", "progress", "text"],
        "clubhouse.cancel": ["id"], "clubhouse.reload": ["plugin"],
        "clubhouse.subscribe": ["plugin", "topics", "lastEventId"], "clubhouse.unsubscribe": ["subscription"],
    ]

    /// The refusal of params a method does not take, or nil.
    static func unknownParams(_ method: String, _ params: JSONObject) -> Failure? {
        guard let allowed = parameters[method] else { return nil }
        let unknown = params.keys.filter { !allowed.contains($0) }
        guard !unknown.isEmpty else { return nil }
        let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
        var message = "invalid params: \(method) takes no \(names) (its params: \(allowed.isEmpty ? "none" : allowed.joined(separator: ", ")))"
        if unknown.contains(where: { ["site", "config", "data-dir", "data_dir"].contains($0) }) {
            message += "; the site is the server's, chosen when it starts: clubhouse --site NAME serve"
        }
        return Failure(-32602, message, ["unknown": .array(unknown.map { .string($0) }), "params": .array(allowed.map { .string($0) })])
    }

    let session: Session
    let limits: ServeLimits
    private let lock = Lock()
    /// Running calls by "connection number, request id" (a client cancels only its own calls).
    private var active: [String: CallContext] = [:]
    /// Calls read but not yet started by a worker, by the same key: true once cancelled (a cancel that
    /// overtakes its call is kept for it, not refused as "no running call").
    private var announced: [String: Bool] = [:]
    private let group = WaitGroup()
    let pool: WorkerPool
    /// Where calls wait for a busy plugin without holding a worker (shared with --http).
    let lanes: PluginLanes
    /// Called after `clubhouse.reload` reloaded plugins (serve --http rebuilds its routes); set before serving.
    var reloaded: (@Sendable () -> Void)?
    /// Socket connections whose queue had jobs at the last look (the loop's tick watches them).
    private var backlogged: [ObjectIdentifier: RPCConnection] = [:]

    init(session: Session, limits: ServeLimits = ServeLimits(), pool: WorkerPool? = nil, lanes: PluginLanes? = nil) {
        self.session = session
        self.limits = limits
        let pool = pool ?? WorkerPool(maxThreads: limits.workers)
        self.pool = pool
        self.lanes = lanes ?? PluginLanes(pool: pool, maxWaiting: limits.maxWaitingCalls)
    }

    /// `clubhouse serve`: JSON-RPC on stdio, or on one event loop a Unix socket (--socket) and/or HTTP
    /// (--http), sharing one worker pool and the site's router.
    static func run(_ options: ServeOptions, session: Session) throws(CLIError) -> Int32 {
        let limits = options.limits
        let socketPath = options.socketPath
        let http = options.http
        let pool = WorkerPool(maxThreads: limits.workers)
        let lanes = PluginLanes(pool: pool, maxWaiting: limits.maxWaitingCalls)
        let server = JSONRPCServer(session: session, limits: limits, pool: pool, lanes: lanes)
        Signals.ignoreBrokenPipes()
        var front: HTTPFrontEnd?
        if let http {
            front = try HTTPFrontEnd(session: session, options: http, access: try AccessWiring.make(session: session), pool: pool, lanes: lanes)
        }
        server.reloaded = { [front] in front?.reloadRoutes() }
        let watch = server.startReloadWatch { [front] in front?.reloadRoutes() }
        defer { watch?.cancel() }
        let pusher = FederationBackground.start(session: session)
        defer { FederationBackground.stop(pusher, session: session) }
        if socketPath == nil && front == nil {
            // The signals as on the socket and HTTP (below): on stdio too a signal cancels the calls first.
            let interrupts = InterruptHandler(runtime: session.runtime, log: session.log)
            defer {
                interrupts.end()
                interrupts.remove()
            }
            try server.serveStdio(interrupts: interrupts)
            return 0
        }
        let log = session.log
        let loop = ServeLoop(limits: limits) { line in log.warning("serve: \(line)") }
        var unix: UnixSocketListener?
        if let socketPath {
            let listener = try UnixSocketListener.open(FileSystem.absolute(socketPath))
            unix = listener
            loop.add(listener: listener.fd, server.lineProtocol())
            loop.tick = { [server] in server.tick() }
        }
        defer { unix?.close() }
        if let front { loop.add(listener: front.listenerFD, front.protocolHandler(loop: loop), recordsPeers: true) }
        // Stopping cancels the calls in flight, JSON-RPC's and HTTP's alike (a drill stops its machine and
        // stores what it did, then answers) instead of letting them run to their end. The signals come as
        // for a command line's call (InterruptHandler): a second Ctrl-C, or SIGTERM with calls still running
        // 5 s later, stops every device left running and quits 3 s after; a third quits at once.
        let interrupts = InterruptHandler(runtime: session.runtime, log: session.log)
        interrupts.begin(what: "the server's calls") { [server, front] in
            loop.requestStop()
            server.cancelAllCalls()
            front?.running.cancelAll()
        }
        defer {
            interrupts.end()
            interrupts.remove()
        }
        if let unix {
            session.log.info("serving JSON-RPC on unix:\(unix.path)")
            StandardStreams.writeError("clubhouse: serving JSON-RPC 2.0 on unix:\(unix.path) (Ctrl-C stops)\n")
        }
        if let front {
            session.log.info("serving HTTP on \(front.shownAddress)")
            StandardStreams.writeError("clubhouse: serving HTTP/1.1 on http://\(front.shownAddress) for site '\(session.site.name)' (Ctrl-C stops)\n")
        }
        loop.run()
        server.group.wait()
        front?.group.wait()
        front?.removeScratch()
        return 0
    }

    // MARK: transports

    /// Serves the caller on standard input and output, through the same event loop, queue and
    /// bounds as a socket client (issue 27: the stdio mode had a path of its own, and a finished
    /// reply could wait there for the next request). The caller's pipes are relayed to one end of
    /// a socket pair whose other end the loop serves as its only client (StdioRelay); the server
    /// ends when that client is gone: after the end of input, once the calls in flight have
    /// answered (or after the write timeout, when the caller stops reading its replies).
    func serveStdio(interrupts: InterruptHandler? = nil) throws(CLIError) {
        guard let relay = StdioRelay(input: 0, output: 1) else {
            throw CLIError(status: .io, message: "serve: cannot make the socket pair that relays standard input and output (\(String(cString: strerror(errno))))")
        }
        let log = session.log
        let loop = ServeLoop(limits: limits) { line in log.warning("serve: \(line)") }
        loop.adopt(relay.serverEnd, lineProtocol())
        loop.tick = { [self] in tick() }
        interrupts?.begin(what: "the server's calls") { [self] in
            loop.requestStop()
            cancelAllCalls()
        }
        // The caller is the only client: its calls are all the calls.
        relay.cancelCalls = { [self] in cancelAllCalls() }
        do throws(ThreadStartError) { try relay.start() } catch {
            throw CLIError(status: .busy, message: "serve: cannot relay standard input and output: \(error); end other work on this machine and start it again")
        }
        loop.run()
        group.wait()
        relay.finish(within: limits.writeTimeoutMilliseconds)
    }

    /// JSON-RPC's protocol on the loop: a line is a request; a client that goes away has its calls cancelled.
    func lineProtocol() -> LineProtocol {
        let handler = LineProtocol(limits: limits) { [self] channel, line in
            let connection: RPCConnection
            if let known = channel.owner as? RPCConnection {
                connection = known
            } else {
                connection = RPCConnection(channel: channel)
                channel.owner = connection
            }
            dispatch(line, connection: connection)
        }
        handler.closedChannel = { [self] channel in
            cancelCalls(ofConnection: channel.number)
            if let connection = channel.owner as? RPCConnection { unsubscribeAll(connection) }
        }
        handler.linesTaken = { [self] channel in
            if let connection = channel.owner as? RPCConnection { pushStaged(connection) }
        }
        return handler
    }

    private func callKey(_ connection: RPCConnection, _ id: JSONValue) -> String {
        "\(connection.channel.number) \(JSONWriter.compact(id))"
    }

    /// Cancels every running call (the server is stopping).
    func cancelAllCalls() {
        lock.withLock { Array(active.values) }.forEach { $0.cancel() }
    }

    /// Cancels the running calls of a client that went away.
    private func cancelCalls(ofConnection number: Int) {
        let prefix = "\(number) "
        let contexts = lock.withLock { () -> [CallContext] in
            announced = announced.filter { !$0.key.hasPrefix(prefix) }
            return active.filter { $0.key.hasPrefix(prefix) }.map(\.value)
        }
        contexts.forEach { $0.cancel() }
    }

    // MARK: requests

    static func error(_ id: JSONValue, _ code: Int, _ message: String, data: JSONValue? = nil) -> JSONValue {
        var e: JSONObject = ["code": .int(code), "message": .string(message)]
        if let data { e["data"] = data }
        return ["jsonrpc": "2.0", "id": id, "error": .object(e)]
    }

    struct Failure: Error {
        var code: Int
        var message: String
        var data: JSONValue?
        init(_ code: Int, _ message: String, _ data: JSONValue? = nil) {
            self.code = code
            self.message = message
            self.data = data
        }
    }

    /// Parses one line and runs it on a worker thread (replies go to the connection).
    func dispatch(_ line: [UInt8], connection: RPCConnection) {
        let request: JSONValue
        do {
            request = try JSONParser.parse(bytes: line)
        } catch {
            connection.send(JSONRPCServer.error(.null, -32700, "parse error: \(error)"))
            return
        }
        if let batch = request.arrayValue {
            // Batches run in order; their responses go out together as one array (JSON-RPC 2.0 §6),
            // nothing when every member was a notification.
            if batch.isEmpty {
                connection.send(JSONRPCServer.error(.null, -32600, "invalid request: empty batch"))
                return
            }
            submit(connection) { [self] done in
                runBatch(batch[...], BatchReplies(), connection: connection) { replies in
                    if !replies.isEmpty { connection.send(.array(replies), coalescing: true) }
                    done()
                }
            }
            return
        }
        // A cancel is answered at once on the reading thread: it must not queue behind the calls
        // it is meant to stop when every worker is busy.
        if request["method"]?.stringValue == "clubhouse.cancel" {
            if case .now(let reply?) = handle(request, connection: connection, later: { _, _ in }) { connection.send(reply) }
            return
        }
        var announcedKey: String?
        if request["method"]?.stringValue == "clubhouse.call", let id = request["id"], !id.isNull {
            let key = callKey(connection, id)
            lock.withLock { announced[key] = false }
            announcedKey = key
        }
        submit(connection) { [self] done in
            let answer = handle(request, connection: connection) { reply, hold in
                // A call that waited in its plugin's lane: answered from the worker that ran it (held
                // while the client's burst goes on), or from the thread that cancelled it.
                if let reply { connection.send(reply, holding: hold) }
                done()
            }
            if case .now(let reply) = answer {
                // A call refused before it was registered leaves nothing announced behind.
                if let announcedKey { lock.withLock { _ = announced.removeValue(forKey: announcedKey) } }
                if let reply { connection.send(reply, coalescing: true) }
                done()
            }
        }
    }

    /// The replies of a batch so far (its members run one after another, some on another thread).
    /// @unchecked Sendable: one member at a time touches it, and the next one starts only after the
    /// previous has answered (handed on through the lanes' lock or the pool's).
    private final class BatchReplies: @unchecked Sendable {
        var replies: [JSONValue] = []
    }

    /// Runs a batch's members in order; a member that waits for its plugin resumes the rest on a worker.
    private func runBatch(_ members: ArraySlice<JSONValue>, _ state: BatchReplies, connection: RPCConnection,
                          done: @escaping ([JSONValue]) -> Void) {
        var rest = members
        while let member = rest.popFirst() {
            let remaining = rest
            let answer = handle(member, connection: connection, inBatch: true) { [self] reply, _ in
                if let reply { state.replies.append(reply) }
                pool.submit { [self] in runBatch(remaining, state, connection: connection, done: done) }
            }
            guard case .now(let reply) = answer else { return }
            if let reply { state.replies.append(reply) }
        }
        done(state.replies)
    }

    /// Runs `work` on the worker pool, counted as in flight for the connection until it calls `done`;
    /// skipped if the client is gone by the time a worker takes it. The connection's jobs go through its
    /// queue, drained by the workers already on it (RPCConnection).
    private func submit(_ connection: RPCConnection, _ work: @escaping (_ done: @escaping () -> Void) -> Void) {
        group.enter()
        connection.began()
        let done = { [self] in
            connection.finished()
            group.leave()
        }
        let job = {
            if connection.isClosed { done() } else { work(done) }
        }
        // The loop thread dispatches a client's lines in a row: they are pushed together.
        if connection.stage(job) { pushStaged(connection) }
    }

    /// Hands the jobs staged for a connection to its queue (called by the loop after each run of
    /// lines, and every `RPCConnection.stageLimit` jobs so that workers start early).
    func pushStaged(_ connection: RPCConnection) {
        guard let start = connection.pushStaged() else { return }
        if start { startDrainer(connection) }
        lock.withLock { backlogged[ObjectIdentifier(connection)] = connection }
    }

    private func startDrainer(_ connection: RPCConnection) {
        pool.submit {
            while let job = connection.take() { job() }
            // The last job may have sent no reply (a notification) after replies were held.
            connection.channel.releaseHeld()
        }
    }

    /// How long a connection's queue may stand still (its workers busy with long calls) before
    /// one more worker is started on it.
    static let stallMilliseconds: Int64 = 5

    /// Called by the event loop before it waits: starts a worker on each queue that stalled; the
    /// longest the loop may wait before calling again (nil: no queue waits).
    func tick() -> Int64? {
        let now = Subprocess.monotonicMilliseconds()
        let connections = lock.withLock { Array(backlogged.values) }
        var anyWaiting = false
        for connection in connections {
            let (waiting, startOne) = connection.stalled(now: now, stall: Self.stallMilliseconds, limit: limits.workers)
            if startOne { startDrainer(connection) }
            if waiting { anyWaiting = true } else { lock.withLock { _ = backlogged.removeValue(forKey: ObjectIdentifier(connection)) } }
        }
        // While a queue waits its worker may hold replies: look again within the hold bound, so
        // that holding seldom needs a wake-up of its own (ServeLoop.wake(by:)).
        return anyWaiting ? min(Self.stallMilliseconds, limits.replyHoldMilliseconds) : nil
    }

    /// A request's answer: now (nil: a notification, no reply), or later, through `later`, when it is
    /// a call that waits in its plugin's lane (with whether the reply may be held: PluginLanes' burst).
    enum Answer {
        case now(JSONValue?)
        case later
    }

    func handle(_ request: JSONValue, connection: RPCConnection, inBatch: Bool = false, later: @escaping (JSONValue?, Bool) -> Void) -> Answer {
        guard let o = request.objectValue, o["jsonrpc"]?.stringValue == "2.0", let method = o["method"]?.stringValue else {
            return .now(JSONRPCServer.error(request["id"] ?? .null, -32600, "invalid request: need {\"jsonrpc\":\"2.0\",\"method\":…}"))
        }
        let id = o["id"]
        if let id, id.stringValue == nil, id.numberValue == nil, !id.isNull {
            return .now(JSONRPCServer.error(.null, -32600, "invalid request: id must be a string, a number or null"))
        }
        if let p = o["params"], p.objectValue == nil {
            return .now(JSONRPCServer.error(id ?? .null, -32602, "invalid params: params must be an object"))
        }
        let params = o["params"]?.objectValue ?? JSONObject()
        func reply(_ result: Result<JSONValue, Failure>) -> JSONValue? {
            guard let id else { return nil }
            switch result {
            case .success(let value): return ["jsonrpc": "2.0", "id": id, "result": value]
            case .failure(let error): return JSONRPCServer.error(id, error.code, error.message, data: error.data)
            }
        }
        if let refusal = JSONRPCServer.unknownParams(method, params) { return .now(reply(.failure(refusal))) }
        if method == "clubhouse.call" {
            return call(params, id: id, connection: connection) { later(reply($0), $1) }.map { .now(reply($0)) } ?? .later
        }
        do throws(Failure) {
            if method == "clubhouse.subscribe" {
                // Its reply must precede the events it replays: it is sent by `subscribe`, under the hub's lock.
                if inBatch { throw Failure(-32600, "invalid request: clubhouse.subscribe cannot be part of a batch; send it alone") }
                try subscribe(params, id: id, connection: connection)
                return .now(nil)
            }
            return .now(reply(.success(try perform(method, params, id: id, connection: connection))))
        } catch {
            return .now(reply(.failure(error)))
        }
    }

    /// A catalogue as `clubhouse.commands` answers it (the same form for plugins and the host's own).
    static func describe(_ catalogue: CommandCatalog) -> JSONValue {
        .array(catalogue.commands.map { c -> JSONValue in
            let arguments: [JSONValue] = c.arguments.map { a -> JSONValue in
                var arg: JSONObject = ["name": .string(a.name), "type": .string(a.kind.rawValue), "required": .bool(a.required)]
                if let d = a.defaultValue { arg["default"] = d }
                if !a.choices.isEmpty { arg["choices"] = .array(a.choices.map { .string($0) }) }
                if !a.help.isEmpty { arg["help"] = .string(a.help) }
                return .object(arg)
            }
            var command: JSONObject = ["name": .string(c.name), "summary": .string(c.summary), "long_running": .bool(c.longRunning),
                                       "arguments": .array(arguments), "access": .string(c.access.rawValue)]
            if c.isPublic { command["public"] = true }
            if !c.routes.isEmpty {
                command["http"] = .array(c.routes.map { r in
                    var o: JSONObject = ["method": .string(r.method), "path": .string(r.path)]
                    if r.mount { o["mount"] = true }
                    return .object(o)
                })
            }
            return .object(command)
        })
    }

    func perform(_ method: String, _ params: JSONObject, id: JSONValue?, connection: RPCConnection) throws(Failure) -> JSONValue {
        let runtime = session.runtime
        switch method {
        case "clubhouse.version":
            return BuiltinCommands.versionDocument
        case "clubhouse.plugins":
            return .array(BuiltinCommands.pluginListing(session).filter { $0["enabled"]?.boolValue == true })
        case "clubhouse.commands":
            guard let alias = params["plugin"]?.stringValue else { throw Failure(-32602, "invalid params: plugin (a string) is required") }
            if alias == BuiltinCatalogue.name { return JSONRPCServer.describe(BuiltinCatalogue.catalogue) }
            switch runtime.resolve(alias) {
            case .success(let p): return JSONRPCServer.describe(p.catalogue)
            case .failure(let e): throw Failure(-32001, e.message)
            }
        case "clubhouse.reload":
            if let given = params["plugin"], given.stringValue == nil { throw Failure(-32602, "invalid params: plugin must be a string") }
            let aliases = params["plugin"]?.stringValue.map { [$0] } ?? session.site.plugins.filter(\.enabled).map(\.alias)
            if let unknown = aliases.first(where: { session.site.plugin(alias: $0) == nil }) {
                throw Failure(-32001, "unknown plugin '\(unknown)' at site '\(session.site.name)'")
            }
            defer { reloaded?() }
            return .array(aliases.map { alias in
                let outcome = runtime.reload(alias)
                let name: String
                switch outcome {
                case .restartsOnNextCall: name = "restarts"
                case .needsRestart: name = "needs-restart"
                case .notLoaded: name = "not-loaded"
                }
                return ["plugin": .string(alias), "outcome": .string(name), "message": .string("plugin '\(alias)' \(outcome.description)")]
            })
        case "clubhouse.unsubscribe":
            return try unsubscribe(params, connection: connection)
        case "clubhouse.cancel":
            guard let target = params["id"] else { throw Failure(-32602, "invalid params: id of the call to cancel is required") }
            let key = callKey(connection, target)
            let found = lock.withLock { () -> (CallContext?, Bool) in
                if let context = active[key] { return (context, true) }
                // Read but not yet taken by a worker: it will end as soon as one does.
                guard announced[key] != nil else { return (nil, false) }
                announced[key] = true
                return (nil, true)
            }
            guard found.1 else { throw Failure(-32002, "no running call with id \(JSONWriter.compact(target))") }
            found.0?.cancel()
            return ["cancelled": true]
        default:
            throw Failure(-32601, "method not found: \(method) (methods: \(JSONRPCServer.methods.joined(separator: ", ")))")
        }
    }

    /// `clubhouse.call`: prepared on this worker, then run at once when its plugin is free, else left
    /// waiting in the plugin's lane (PluginLanes) without a thread: nil then, and the outcome goes to
    /// `later` (from the worker that runs it, or the thread that refuses it), with whether the reply may
    /// be held for the next of the client's calls in the lane (a burst, PluginLanes).
    private func call(_ params: JSONObject, id: JSONValue?, connection: RPCConnection,
                      later: @escaping (Result<JSONValue, Failure>, Bool) -> Void) -> Result<JSONValue, Failure>? {
        let key = id.flatMap { $0.isNull ? nil : callKey(connection, $0) }
        let runtime = session.runtime
        let prepared: PreparedCall
        let wantsText: Bool
        let rpcProgress: RPCProgress?
        do throws(Failure) {
            guard let alias = params["plugin"]?.stringValue, let command = params["command"]?.stringValue else {
                throw Failure(-32602, "invalid params: plugin and command (strings) are required")
            }
            if let given = params["arguments"], given.objectValue == nil {
                throw Failure(-32602, "invalid params: arguments must be an object")
            }
            switch runtime.router.prepare(alias: alias, .json(command: command, arguments: params["arguments"]?.objectValue ?? JSONObject()),
                                          origin: .server) {
            case .success(let p): prepared = p
            case .failure(let e):
                switch e.step {
                case .plugin: throw Failure(-32001, e.message)
                case .command: throw Failure(-32601, e.message)
                case .arguments: throw Failure(-32602, e.message)
                case .permission: throw Failure(-32000, e.message, ["status": .string(e.status.name)])
                }
            }
            for flag in ["progress", "text"] where params[flag] != nil && params[flag]?.boolValue == nil {
                throw Failure(-32602, "invalid params: \(flag) must be true or false")
            }
            wantsText = params["text"]?.boolValue ?? false
            let wantsProgress = params["progress"]?.boolValue ?? false
            rpcProgress = wantsProgress && id != nil ? RPCProgress(connection: connection, id: id ?? .null) : nil
        } catch {
            if let key { lock.withLock { _ = announced.removeValue(forKey: key) } }
            return .failure(error)
        }
        let context = runtime.router.context(for: prepared, progress: rpcProgress ?? SilentProgress(), wantsText: wantsText)
        rpcProgress?.watch { context.isCancelled }
        // Registered before it may wait, so that a cancel finds it; a cancel that came before it was
        // read by a worker (announced) applies now.
        let cancelledEarly = key.map { key in
            lock.withLock { () -> Bool in
                active[key] = context
                return announced.removeValue(forKey: key) ?? false
            }
        } ?? false
        func unregister() { if let key { lock.withLock { active[key] = nil } } }
        if cancelledEarly {
            unregister()
            return .failure(Failure(-32000, "cancelled before it started", ["status": .string(Status.cancelled.name)]))
        }
        let run = { () -> Result<JSONValue, Failure> in
            defer { unregister() }
            let outcome = runtime.router.run(prepared, context: context)
            rpcProgress?.finish(cancelled: outcome.status == .cancelled || context.isCancelled)
            if outcome.status == .ok {
                // With "text": true the result is {data, text}: text is what the command line prints.
                return .success(wantsText ? ["data": outcome.data, "text": outcome.text.map { .string($0) } ?? .null] : outcome.data)
            }
            return .failure(Failure(outcome.status == .invalidArgument ? -32602 : -32000, outcome.message, ["status": .string(outcome.status.name)]))
        }
        func refusal(_ error: RuntimeError) -> Failure {
            Failure(-32000, error.message, ["status": .string(error.status.name)])
        }
        let (lane, serialized) = PluginLanes.lane(prepared.alias, generation: runtime.generation(of: prepared.alias),
                                                  serialized: prepared.serializes, beside: prepared.runsBeside)
        let client = connection.channel.number
        switch lanes.admit(lane: lane, alias: prepared.alias, serialized: serialized, client: client,
                           context: context,
                           start: { [lanes] in
                               // A client that left meanwhile is not served (its notifications included).
                               guard !connection.isClosed else {
                                   unregister()
                                   return later(.failure(Failure(-32000, "cancelled: the client went away", ["status": .string(Status.cancelled.name)])), false)
                               }
                               let result = run()
                               later(result, lanes.burstGoesOn(lane: lane, client: client))
                           },
                           refuse: { error in
                               unregister()
                               later(.failure(refusal(error)), false)
                           },
                           release: { connection.channel.releaseHeld() }) {
        case .now:
            defer { lanes.finished(lane: lane) }
            return run()
        case .waiting:
            return nil
        case .refused(let error):
            unregister()
            return .failure(refusal(error))
        }
    }
}

extension JSONRPCServer {
    /// Reloads plugins whose install folder or lock changed (polled every 0.5 s). Nil, said in the log,
    /// when its timer could not be armed (the server runs on; a plugin installed meanwhile needs a restart).
    func startReloadWatch(reloaded: @escaping @Sendable () -> Void = {}) -> ThreadTimer? {
        let runtime = session.runtime
        let log = session.log
        do throws(ThreadStartError) {
            return try startReloadTimer(runtime: runtime, log: log, reloaded: reloaded)
        } catch {
            log.error("serve will not reload a plugin installed while it runs (restart it then): its watch could not start — \(error)")
            return nil
        }
    }

    private func startReloadTimer(runtime: SiteRuntime, log: LogBroker,
                                  reloaded: @escaping @Sendable () -> Void) throws(ThreadStartError) -> ThreadTimer {
        try ThreadTimer(milliseconds: 500, repeating: 500) {
            let changed = runtime.changedSinceResolution()
            for alias in changed {
                let outcome = runtime.reload(alias)
                if case .needsRestart = outcome { runtime.acknowledgeChange(alias) }
                log.warning("the installed build of plugin '\(alias)' changed: it \(outcome.description)")
            }
            if !changed.isEmpty { reloaded() }
        }
    }
}
