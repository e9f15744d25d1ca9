// JSON-RPC clients subscribe to plugins' live events (issue 28, Deliver 5): `clubhouse.subscribe` on the
// Unix socket of a server that also serves HTTP, on one loop and one hub. The hostile cases first (what a
// client may not ask, a subscriber that stops reading), then scores entered over HTTP reaching a JSON-RPC
// subscriber and an SSE stream alike, resume from the ring, and the end of a subscription.

import ClubhouseHost
import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

/// A JSON-RPC client on a Unix socket: one JSON object per line each way.
final class RPCLineClient {
    let fd: Int32
    private var pending: [UInt8] = []
    private var nextID = 1

    init(path: String, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestError("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer { _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw HTTPTestError("connect \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Sends a request with the next id; returns the id.
    @discardableResult
    func request(_ method: String, _ params: String = "{}") -> Int {
        defer { nextID += 1 }
        send(#"{"jsonrpc":"2.0","id":\#(nextID),"method":"\#(method)","params":\#(params)}"#)
        return nextID
    }

    /// The next line as JSON, or nil after `timeout` seconds (or at the end of the stream).
    func next(timeout: Double = 10) throws -> JSONValue? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return try JSONParser.parse(bytes: line)
            }
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, left) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            pending += buffer[0..<n]
        }
    }

    /// The response to request `id` (notifications before it are kept in `skipped`).
    func response(_ id: Int, timeout: Double = 10) throws -> JSONValue {
        while let line = try next(timeout: timeout) {
            if line["id"]?.intValue == id { return line }
            skipped.append(line)
        }
        throw HTTPTestError("no response to request \(id)")
    }
    var skipped: [JSONValue] = []

    /// The next `clubhouse.event` or `clubhouse.unsubscribed` notification (kept ones first).
    func notification(timeout: Double = 10) throws -> JSONValue? {
        if !skipped.isEmpty { return skipped.removeFirst() }
        return try next(timeout: timeout)
    }
}

final class JSONRPCEventsTests: XCTestCase {
    func waitFor(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    func score(_ server: InProcessHTTPServer, _ player: String, hole: Int, strokes: Int) throws {
        let r = try httpRequest(port: server.port, "POST", "/api/scorecard/rounds/1/scores",
                                headers: [("Authorization", "Bearer phone"), ("Content-Type", "application/json")],
                                body: Array(#"{"player": "\#(player)", "hole": \#(hole), "strokes": \#(strokes)}"#.utf8))
        XCTAssertEqual(r.status, 200, r.text)
    }

    func server(configureRPC: (inout ServeLimits) -> Void = { _ in }) throws -> InProcessHTTPServer {
        let access = TestAccess()
        access.addToken("phone", name: "Ann's phone", scopes: ["scorecard:write"])
        access.addToken("board", name: "clubhouse screen", scopes: ["scorecard:read"])
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin", "globe": "GlobePlugin"], access: access, rpc: true,
                                             configureRPC: configureRPC)
        let phone = try RawHTTPConnection(port: server.port)
        func post(_ path: String, _ body: String) throws {
            let r = try phone.request("POST", path, headers: [("Authorization", "Bearer phone"), ("Content-Type", "application/json")],
                                      body: Array(body.utf8))
            XCTAssertEqual(r.status, 200, r.text)
        }
        try post("/api/scorecard/courses", HTTPFrontDoorTests.course)
        for name in ["Ann", "Bob"] { try post("/api/scorecard/players", #"{"name": "\#(name)"}"#) }
        try post("/api/scorecard/rounds", #"{"course": "Tour Links", "tee": "White", "players": ["Ann", "Bob"], "holes": 9}"#)
        return server
    }

    func error(_ response: JSONValue) -> (Int?, String?) {
        (response["error"]?["code"]?.intValue, response["error"]?["message"]?.stringValue)
    }

    func testWhatASubscriberMayNotAsk() throws {
        let server = try server()
        defer { server.stop() }
        let c = try RPCLineClient(path: server.socketPath)
        let cases: [(String, Int, String)] = [
            ("{}", -32602, "invalid params: plugin (a string) is required: the plugin whose events to receive"),
            (#"{"plugin": "nope"}"#, -32001, ""),
            (#"{"plugin": "globe"}"#, -32602, "invalid params: plugin 'globe' publishes no events (its catalogue declares no topics)"),
            (#"{"plugin": "scorecard", "topics": ["score", "putts"]}"#, -32602, "invalid params: plugin 'scorecard' publishes no topic 'putts'; its topics: score"),
            (#"{"plugin": "scorecard", "topics": "score"}"#, -32602, #"invalid params: topics must be an array of strings, eg ["score"] (absent: every topic)"#),
            (#"{"plugin": "scorecard", "lastEventId": "seven"}"#, -32602, #"invalid params: lastEventId must be a whole number ≥ 0 (the id of the last event received), not "seven""#),
            (#"{"plugin": "scorecard", "lastEventId": -1}"#, -32602, "invalid params: lastEventId must be a whole number ≥ 0 (the id of the last event received), not -1"),
            (#"{"plugin": "scorecard", "since": 3}"#, -32602, "invalid params: clubhouse.subscribe takes no 'since' (its params: plugin, topics, lastEventId)"),
        ]
        for (params, code, message) in cases {
            let (got, text) = error(try c.response(c.request("clubhouse.subscribe", params)))
            XCTAssertEqual(got, code, params)
            if !message.isEmpty { XCTAssertEqual(text, message, params) } else { XCTAssertNotNil(text) }
        }
        let (code, text) = error(try c.response(c.request("clubhouse.unsubscribe", #"{"subscription": 5}"#)))
        XCTAssertEqual(code, -32002)
        XCTAssertEqual(text, "no subscription 5 on this connection (ended, or never made)")
        XCTAssertEqual(error(try c.response(c.request("clubhouse.unsubscribe", "{}"))).1,
                       "invalid params: subscription (the number clubhouse.subscribe answered) is required")
        // In a batch its reply could not precede its events: refused, the others of the batch answered.
        c.send(#"[{"jsonrpc":"2.0","id":90,"method":"clubhouse.subscribe","params":{"plugin":"scorecard"}},{"jsonrpc":"2.0","id":91,"method":"clubhouse.version"}]"#)
        let batch = try XCTUnwrap(try c.next()?.arrayValue)
        XCTAssertEqual(batch.count, 2)
        XCTAssertEqual(batch.first { $0["id"] == 90 }.map(error)?.1, "invalid request: clubhouse.subscribe cannot be part of a batch; send it alone")
        XCTAssertNotNil(batch.first { $0["id"] == 91 }?["result"])
        // A connection holds at most 64 subscriptions.
        for _ in 0..<RPCSubscriptions.maxPerConnection {
            XCTAssertNotNil(try c.response(c.request("clubhouse.subscribe", #"{"plugin": "scorecard"}"#))["result"]?["subscription"])
        }
        let over = try c.response(c.request("clubhouse.subscribe", #"{"plugin": "scorecard"}"#))
        XCTAssertEqual(error(over).0, -32000)
        XCTAssertEqual(error(over).1, "this connection holds 64 subscriptions, the most it may; unsubscribe one first")
        XCTAssertEqual(over["error"]?["data"]?["status"], "busy")
        XCTAssertEqual(server.session.runtime.events.listenerCount("scorecard"), 64)
        // The client goes away: its subscriptions go with it.
        shutdown(c.fd, Int32(SHUT_RDWR))
        XCTAssertTrue(waitFor { server.session.runtime.events.listenerCount("scorecard") == 0 }, "a departed client's subscriptions end")
    }

    func testASubscriberThatStopsReadingLosesItsSubscriptionNotTheHostsMemory() throws {
        // The write timeout is long: the client that stops reading is to lose its subscription, not its connection.
        let server = try server {
            $0.eventBacklogBytes = 64 << 10
            $0.writeTimeoutMilliseconds = 120_000
        }
        defer { server.stop() }
        let slow = try RPCLineClient(path: server.socketPath, receiveBuffer: 4096)
        let subscribed = try slow.response(slow.request("clubhouse.subscribe", #"{"plugin": "scorecard"}"#))
        XCTAssertEqual(subscribed["result"]?["subscription"], 1)
        let fast = try RPCLineClient(path: server.socketPath)
        XCTAssertNotNil(try fast.response(fast.request("clubhouse.subscribe", #"{"plugin": "scorecard", "topics": ["score"]}"#))["result"])
        let hub = server.session.runtime.events
        XCTAssertEqual(hub.listenerCount("scorecard"), 2)
        let topics = [EventTopic(name: "score", summary: "")]
        let payload = Array(#"{"filler": "\#(String(repeating: "x", count: 3900))"}"#.utf8)
        let count = 400 // 1.6 MB: more than the slow client's socket buffers (about 200 KB) and the bound together
        let reading = LineCounting(fd: fast.fd)
        Thread.detachNewThread { reading.run(lines: count) }
        for n in 1...count {
            if case .failure(let refusal) = hub.publish(alias: "scorecard", topic: "score", json: payload, declared: topics) {
                return XCTFail(refusal.message)
            }
            // The subscriber that reads is let keep up (a Unix socket holds about fifty of these events).
            if n % 4 == 0, !waitFor(30, { reading.lines >= n - 8 }) { return XCTFail("the reader stalled at \(reading.lines) lines of \(n)") }
        }
        XCTAssertEqual(reading.done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(reading.lines, count, "the subscriber that reads gets every event")
        XCTAssertTrue(reading.last.contains(#""id":\#(count),"#), "the last event is the last published")
        XCTAssertEqual(hub.listenerCount("scorecard"), 1, "the one that stopped reading was dropped")
        // It reads now: some events, then the last word, and nothing after it.
        var events = 0
        var last: JSONValue?
        while let line = try slow.next(timeout: 2) {
            if line["method"] == "clubhouse.event" { events += 1 } else { last = line; break }
        }
        XCTAssertLessThan(events, count / 4, "the server kept a bounded backlog for it")
        XCTAssertEqual(last?["method"], "clubhouse.unsubscribed")
        XCTAssertEqual(last?["params"]?["subscription"], 1)
        XCTAssertEqual(last?["params"]?["plugin"], "scorecard")
        XCTAssertTrue(last?["params"]?["reason"]?.stringValue?.hasSuffix("more than --max-event-backlog (65536); subscribe again with lastEventId to resume") ?? false,
                      "\(String(describing: last))")
        XCTAssertNil(try slow.next(timeout: 0.3), "nothing follows the last word")
        // Its connection still works: unsubscribing the ended subscription says so; it may subscribe again.
        XCTAssertEqual(error(try slow.response(slow.request("clubhouse.unsubscribe", #"{"subscription": 1}"#))).0, -32002)
        XCTAssertNotNil(try slow.response(slow.request("clubhouse.subscribe", #"{"plugin": "scorecard"}"#))["result"])
    }

    func testScoresEnteredOverHTTPReachJSONRPCAndSSESubscribersAndAResumeGetsWhatItMissed() throws {
        let server = try server()
        defer { server.stop() }
        let rpc = try RPCLineClient(path: server.socketPath)
        let answer = try rpc.response(rpc.request("clubhouse.subscribe", #"{"plugin": "scorecard", "topics": ["score"]}"#))
        XCTAssertEqual(answer["result"], ["subscription": 1, "plugin": "scorecard", "topics": ["score"]])
        let sse = try RawHTTPConnection(port: server.port)
        sse.send("GET /api/scorecard/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer board\r\n\r\n")
        XCTAssertEqual(try sse.response().status, 200)
        XCTAssertTrue(waitFor { server.session.runtime.events.listenerCount("scorecard") == 2 })
        try score(server, "Ann", hole: 1, strokes: 5)
        try score(server, "Bob", hole: 1, strokes: 4)
        for id in 1...2 {
            let n = try XCTUnwrap(try rpc.notification())
            XCTAssertEqual(n["method"], "clubhouse.event")
            XCTAssertEqual(n["params"]?["subscription"], 1)
            XCTAssertEqual(n["params"]?["plugin"], "scorecard")
            XCTAssertEqual(n["params"]?["id"], .int(id))
            XCTAssertEqual(n["params"]?["topic"], "score")
            XCTAssertEqual(n["params"]?["data"]?["player"], id == 1 ? "Ann" : "Bob")
            XCTAssertEqual(n["params"]?["data"]?["strokes"], id == 1 ? 5 : 4)
            let e = try XCTUnwrap(try sse.event())
            XCTAssertEqual(e.id, String(id))
            XCTAssertEqual(try JSONParser.parse(e.data), n["params"]?["data"], "the same event both ways")
        }
        // Unsubscribed, it hears no more; a second subscription resumes after id 1 from the ring.
        XCTAssertEqual(try rpc.response(rpc.request("clubhouse.unsubscribe", #"{"subscription": 1}"#))["result"], ["unsubscribed": true])
        XCTAssertEqual(server.session.runtime.events.listenerCount("scorecard"), 1)
        try score(server, "Ann", hole: 2, strokes: 3)
        let resumed = try rpc.response(rpc.request("clubhouse.subscribe", #"{"plugin": "scorecard", "lastEventId": 1}"#))
        XCTAssertEqual(resumed["result"]?["subscription"], 2)
        XCTAssertEqual(try rpc.notification()?["params"]?["id"], 2, "the events after lastEventId follow the reply, in order")
        XCTAssertEqual(try rpc.notification()?["params"]?["id"], 3)
        try score(server, "Bob", hole: 2, strokes: 6)
        let fourth = try rpc.notification()
        XCTAssertEqual(fourth?["params"]?["id"], 4)
        XCTAssertEqual(fourth?["params"]?["subscription"], 2)
        // An id the ring does not know (from before the host started) is said first, then the ring follows.
        let stale = try RPCLineClient(path: server.socketPath)
        XCTAssertNotNil(try stale.response(stale.request("clubhouse.subscribe", #"{"plugin": "scorecard", "lastEventId": "999"}"#))["result"])
        let missed = try stale.notification()
        XCTAssertEqual(missed?["method"], "clubhouse.event")
        XCTAssertEqual(missed?["params"]?["topic"], "clubhouse.missed")
        XCTAssertEqual(missed?["params"]?["data"], ["after": 999])
        XCTAssertNil(missed?["params"]?["id"])
        XCTAssertEqual(try stale.notification()?["params"]?["id"], 1)
    }
}

/// Counts lines read from a socket on its own thread (a debug build parses slowly: lines are counted, not parsed).
/// @unchecked Sendable: the counters are guarded by `lock`; the descriptor is read by the reading thread alone.
final class LineCounting: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var count = 0
    private var tail: [UInt8] = []
    let done = DispatchSemaphore(value: 0)

    init(fd: Int32) { self.fd = fd }

    func run(lines: Int) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while self.lines < lines {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 30_000) > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            let newlines = buffer[0..<n].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            lock.withLock {
                count += newlines
                tail = Array((tail + buffer[0..<n]).suffix(8192))
            }
        }
        done.signal()
    }

    var lines: Int { lock.withLock { count } }
    /// The last complete line read.
    var last: String {
        lock.withLock {
            let text = String(decoding: tail, as: UTF8.self)
            return text.split(separator: "\n").last.map(String.init) ?? ""
        }
    }
}
