// Live events over HTTP (issue 28, Deliver 5): `GET /api/<alias>/events` as Server-Sent Events. Two
// leaderboards listen while a phone enters scores over HTTP: both get every entry, in order; one that
// reconnects with Last-Event-ID gets what it missed from the ring; a slow reader is dropped while the
// other listener keeps every event; heartbeats on a quiet stream; the refusals (unknown topic, a write
// method, no token).

import ClubhouseHost
import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPEventStreamTests: XCTestCase {
    /// A server with the scorecard, a round of Ann and Bob on Tour Links, a phone ("phone", write) and a
    /// scoreboard ("board", read).
    func scorecardServer(configure: (inout HTTPOptions) -> Void = { _ in }) throws -> InProcessHTTPServer {
        let access = TestAccess()
        access.addToken("phone", name: "Ann's phone", scopes: ["scorecard:write"])
        access.addToken("board", name: "clubhouse screen", scopes: ["scorecard:read"])
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin"], access: access, configure: configure)
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

    func score(_ server: InProcessHTTPServer, _ player: String, hole: Int, strokes: Int) throws {
        let r = try httpRequest(port: server.port, "POST", "/api/scorecard/rounds/1/scores",
                                headers: [("Authorization", "Bearer phone"), ("Content-Type", "application/json")],
                                body: Array(#"{"player": "\#(player)", "hole": \#(hole), "strokes": \#(strokes)}"#.utf8))
        XCTAssertEqual(r.status, 200, r.text)
    }

    /// Opens a stream; its head is checked.
    func listen(_ server: InProcessHTTPServer, _ query: String = "?topics=score", lastEventID: String? = nil,
                receiveBuffer: Int32? = nil) throws -> RawHTTPConnection {
        let c = try RawHTTPConnection(port: server.port, receiveBuffer: receiveBuffer)
        c.send("GET /api/scorecard/events\(query) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer board\r\nAccept: text/event-stream\r\n"
               + (lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? "") + "\r\n")
        let head = try c.response()
        XCTAssertEqual(head.status, 200, head.text)
        XCTAssertEqual(head.header("content-type"), "text/event-stream; charset=utf-8")
        XCTAssertEqual(head.header("cache-control"), "no-store")
        XCTAssertNil(head.header("content-length"))
        XCTAssertNotNil(head.header("x-request-id"))
        return c
    }

    func testTwoLeaderboardsGetEveryScoreEnteredOverHTTPAndOneResumesFromTheRing() throws {
        let server = try scorecardServer()
        defer { server.stop() }
        let first = try listen(server)
        let second = try listen(server, "")
        XCTAssertTrue(waitFor { server.session.runtime.events.listenerCount("scorecard") == 2 })
        try score(server, "Ann", hole: 1, strokes: 5)
        for client in [first, second] {
            let event = try XCTUnwrap(try client.event())
            XCTAssertEqual(event.id, "1")
            XCTAssertEqual(event.event, "score")
            let data = try JSONParser.parse(event.data)
            XCTAssertEqual(data["round"], 1)
            XCTAssertEqual(data["player"], "Ann")
            XCTAssertEqual(data["hole"], 1)
            XCTAssertEqual(data["strokes"], 5)
            XCTAssertEqual(data["replaced"], .null, "the first entry on the hole replaced none")
        }
        try score(server, "Bob", hole: 1, strokes: 4)
        XCTAssertEqual(try first.event()?.id, "2")
        XCTAssertEqual(try second.event()?.id, "2")
        // The first board goes away; two more scores; it comes back with the last id it saw.
        close(first.fd)
        XCTAssertTrue(waitFor { server.session.runtime.events.listenerCount("scorecard") == 1 })
        try score(server, "Ann", hole: 2, strokes: 3)
        try score(server, "Ann", hole: 2, strokes: 4)
        let again = try listen(server, lastEventID: "2")
        let missed = [try again.event(), try again.event()]
        XCTAssertEqual(missed.map { $0?.id }, ["3", "4"])
        XCTAssertEqual(try JSONParser.parse(missed[1]?.data ?? "")["replaced"], 3, "the second entry on hole 2 replaced the first (3 strokes)")
        try score(server, "Bob", hole: 2, strokes: 3)
        XCTAssertEqual(try again.event()?.id, "5")
        XCTAssertEqual(try second.event()?.id, "3")
        // An id from before the host started (or older than the ring) is said, then everything in the ring follows.
        let stale = try listen(server, lastEventID: "999")
        let notice = try XCTUnwrap(try stale.event())
        XCTAssertEqual(notice.event, "clubhouse.missed")
        XCTAssertEqual(try JSONParser.parse(notice.data), ["after": 999])
        XCTAssertEqual(try stale.event()?.id, "1")
    }

    func testASlowReaderIsDroppedAndTheOtherListenerKeepsEveryEvent() throws {
        let server = try scorecardServer { $0.limits.eventBacklogBytes = 16 << 10 }
        defer { server.stop() }
        let slow = try listen(server, receiveBuffer: 4096)
        let fast = try listen(server)
        XCTAssertTrue(waitFor { server.session.runtime.events.listenerCount("scorecard") == 2 })
        let hub = server.session.runtime.events
        let topics = [EventTopic(name: "score", summary: "")]
        let payload = Array(#"{"filler": "\#(String(repeating: "x", count: 3900))"}"#.utf8)
        // 5.5 MB: more than the slow reader's socket buffers (at most 4 MiB on this kernel) and the backlog bound together.
        let count = 1400
        let frames = (1...count).map { "id: \($0)\nevent: score\ndata: ".utf8.count + 3913 + 2 }
        let reading = Reading(fast)
        Thread.detachNewThread { reading.run(until: frames.reduce(0, +)) }
        var published = 0
        for n in 1...count {
            if case .failure(let refusal) = hub.publish(alias: "scorecard", topic: "score", json: payload, declared: topics) {
                XCTFail(refusal.message)
                return
            }
            published += frames[n - 1]
            // The reader that keeps up is let keep up; the slow one never reads.
            if n % 32 == 0 { XCTAssertTrue(waitFor(30) { reading.bytes >= published - (256 << 10) }, "the reader stalled at \(reading.bytes) bytes") }
        }
        XCTAssertEqual(reading.done.wait(timeout: .now() + 60), .success)
        // Every event, in order (a stream loses no event but with its connection), and maybe heartbeats.
        XCTAssertGreaterThanOrEqual(reading.bytes, frames.reduce(0, +), "the listener that reads gets every event")
        XCTAssertTrue(reading.tail.contains("id: \(count)\n"), "the last event is the last published")
        XCTAssertEqual(hub.listenerCount("scorecard"), 1, "the slow reader was dropped")
        XCTAssertTrue(slow.closesWithin(10), "the slow reader's connection is closed")
        // The server still answers.
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer board")]).status, 200)
    }

    func testAQuietStreamGetsHeartbeatsAndEndsWithItsClient() throws {
        let server = try scorecardServer { $0.limits.heartbeatMilliseconds = 100 }
        defer { server.stop() }
        let c = try listen(server)
        try score(server, "Ann", hole: 1, strokes: 5)
        XCTAssertEqual(try c.event(timeout: 5)?.id, "1")
        usleep(450_000)
        try score(server, "Ann", hole: 2, strokes: 4)
        XCTAssertEqual(try c.event(timeout: 5)?.id, "2")
        XCTAssertGreaterThanOrEqual(c.comments, 2, "heartbeats while nothing was published")
        shutdown(c.fd, Int32(SHUT_WR))
        XCTAssertTrue(waitFor { server.session.runtime.events.listenerCount("scorecard") == 0 }, "the client's end closes its stream")
    }

    /// Attack round L3: one read token opened 1025 streams and every other request got 503. Streams are bounded
    /// per credential and per client address (429, one line saying what to do), a closed stream gives its slot
    /// back, and in all they take at most three quarters of the connections: requests always have room.
    func testStreamsAreBoundedPerCredentialPerAddressAndInAll() throws {
        let server = try scorecardServer {
            $0.limits.streamsPerCredential = 3
            $0.limits.streamsPerAddress = 4
        }
        defer { server.stop() }
        let access = try XCTUnwrap(server.front.access as? TestAccess)
        access.addToken("board2", name: "bar screen", scopes: ["scorecard:read"])
        func open(_ token: String) throws -> RawHTTPResponse {
            try httpRequest(port: server.port, "GET", "/api/scorecard/events", headers: [("Authorization", "Bearer \(token)"), ("Accept", "text/event-stream")])
        }
        var streams = try (0..<3).map { _ in try listen(server) }
        let fourth = try open("board")
        XCTAssertEqual(fourth.status, 429)
        XCTAssertEqual(try fourth.json()["error"]?["message"],
                       "'clubhouse screen' has 3 event streams open, the most one credential may; close one (EventSource.close()) before opening another, or let one stream feed every panel")
        // A followed call's stream counts too.
        let followed = try httpRequest(port: server.port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer board"), ("Accept", "text/event-stream")])
        XCTAssertEqual(followed.status, 429, followed.text)
        // Another credential from the same address: up to the address's bound.
        let c = try RawHTTPConnection(port: server.port)
        c.send("GET /api/scorecard/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer board2\r\nAccept: text/event-stream\r\n\r\n")
        XCTAssertEqual(try c.response().status, 200)
        let fifth = try open("board2")
        XCTAssertEqual(fifth.status, 429)
        XCTAssertEqual(try fifth.json()["error"]?["message"],
                       "client address 127.0.0.1 has 4 event streams open, the most one address may; close one before opening another")
        // A closed stream gives its slot back.
        shutdown(streams[0].fd, Int32(SHUT_RDWR))
        streams.removeFirst()
        XCTAssertTrue(waitFor { server.front.streamSlots.open == 3 })
        streams.append(try listen(server))
        XCTAssertEqual(server.front.streamSlots.open, 4)
        // Plain requests of the same credential are not streams.
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer board")]).status, 200)
    }

    func testStreamsLeaveAQuarterOfTheConnectionsForRequests() throws {
        let server = try scorecardServer {
            $0.limits.maxConnections = 8
            $0.limits.streamsPerCredential = 100
        }
        defer { server.stop() }
        let streams = try (0..<6).map { _ in try listen(server) }
        let seventh = try httpRequest(port: server.port, "GET", "/api/scorecard/events", headers: [("Authorization", "Bearer board"), ("Accept", "text/event-stream")])
        XCTAssertEqual(seventh.status, 503)
        XCTAssertEqual(seventh.header("retry-after"), "1")
        XCTAssertEqual(try seventh.json()["error"]?["message"],
                       "server busy: 6 event streams open, the most it keeps (three quarters of --http-max-connections); try again later")
        for _ in 0..<5 {
            XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer board")]).status, 200)
        }
        XCTAssertEqual(streams.count, 6)
    }

    func testRefusals() throws {
        let server = try scorecardServer()
        defer { server.stop() }
        let board = [("Authorization", "Bearer board")]
        let unknown = try httpRequest(port: server.port, "GET", "/api/scorecard/events?topics=score,putts", headers: board)
        XCTAssertEqual(unknown.status, 400)
        XCTAssertEqual(try unknown.json()["error"]?["message"], "plugin 'scorecard' publishes no topic 'putts'; its topics: score")
        let stray = try httpRequest(port: server.port, "GET", "/api/scorecard/events?since=3", headers: board)
        XCTAssertEqual(stray.status, 400)
        XCTAssertEqual(try stray.json()["error"]?["message"],
                       "/api/scorecard/events takes only ?topics=… (a comma-separated list of score); 'since' is not a parameter of it")
        let post = try httpRequest(port: server.port, "POST", "/api/scorecard/events", headers: [("Authorization", "Bearer phone")])
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.header("allow"), "GET, HEAD, OPTIONS")
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/scorecard/events").status, 401)
        let head = try RawHTTPConnection(port: server.port)
        let answer = try head.request("HEAD", "/api/scorecard/events", headers: board)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("content-type"), "text/event-stream; charset=utf-8")
        XCTAssertTrue(head.closesWithin(5))
        // A plugin's event that breaks the rules is refused with the reason.
        let hub = server.session.runtime.events
        let topics = [EventTopic(name: "score", summary: ""), EventTopic(name: "clubhouse.missed", summary: "")]
        for (topic, json, message) in [
            ("clubhouse.missed", "{\"after\": 0}", "events: plugin 'scorecard' published on topic 'clubhouse.missed': names beginning with 'clubhouse.' are the host's own signals to subscribers (such as clubhouse.missed); rename the topic"),
            ("putts", "{}", "events: plugin 'scorecard' published on topic 'putts', which its catalogue does not declare; it declares 'score', 'clubhouse.missed'"),
            ("score", "{\"a\": 1} {}", nil),
            ("score", "{\"big\": \"\(String(repeating: "x", count: 5000))\"}", "events: the event on 'score' is 5010 bytes; an event is at most 4096 bytes (publish an id and let listeners fetch the rest); its listeners were sent clubhouse.missed instead"),
        ] as [(String, String, String?)] {
            guard case .failure(let refusal) = hub.publish(alias: "scorecard", topic: topic, json: Array(json.utf8), declared: topics) else {
                XCTFail("\(topic) \(json.prefix(40)) was published")
                continue
            }
            if let message { XCTAssertEqual(refusal.message, message) } else { XCTAssertTrue(refusal.message.hasPrefix("events: the event on 'score' is not one JSON value")) }
        }
    }

    func testEachBallOfARunningDrillIsAnEvent() throws {
        let access = TestAccess()
        access.addToken("coach", name: "coach's phone", scopes: ["tennis:*"])
        let server = try InProcessHTTPServer(plugins: ["tennis": "TennisPlugin"],
                                             devices: #"{"ballmachine": {"transport": "simulator:ballmachine"}}"#, access: access)
        defer { server.stop() }
        let auth = [("Authorization", "Bearer coach"), ("Content-Type", "application/json")]
        let saved = try httpRequest(port: server.port, "POST", "/api/tennis/drills", headers: auth,
                                    body: Array(#"{"name": "quick", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 3}]}"#.utf8))
        XCTAssertEqual(saved.status, 200, saved.text)
        let stream = try RawHTTPConnection(port: server.port)
        stream.send("GET /api/tennis/events?topics=launch HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer coach\r\n\r\n")
        XCTAssertEqual(try stream.response().status, 200)
        let run = try httpRequest(port: server.port, "POST", "/api/tennis/drills/quick/run", headers: auth, body: Array(#"{"dry-run": true}"#.utf8), timeout: 60)
        XCTAssertEqual(run.status, 200, run.text)
        for ball in 1...3 {
            let event = try XCTUnwrap(try stream.event())
            XCTAssertEqual(event.id, String(ball))
            XCTAssertEqual(event.event, "launch")
            let data = try JSONParser.parse(event.data)
            XCTAssertEqual(data["drill"], "quick")
            XCTAssertEqual(data["ball"], .int(ball))
            XCTAssertEqual(data["of"], 3)
            XCTAssertEqual(data["zone"], 5)
            XCTAssertNotNil(data["speed"], event.data)
        }
    }

    func waitFor(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}

/// The listener that reads, on its own thread: bytes counted, not parsed (a debug build parses slowly).
/// @unchecked Sendable: the counters are guarded by `lock`; the connection is used by the reading thread alone.
final class Reading: @unchecked Sendable {
    private let connection: RawHTTPConnection
    private let lock = NSLock()
    private var received = 0
    private var last: [UInt8] = []
    let done = DispatchSemaphore(value: 0)

    init(_ connection: RawHTTPConnection) { self.connection = connection }

    func run(until total: Int) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while bytes < total {
            var pfd = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 30_000) > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            lock.withLock {
                received += n
                last = Array((last + buffer[0..<n]).suffix(8192))
            }
        }
        done.signal()
    }

    var bytes: Int { lock.withLock { received } }
    var tail: String { lock.withLock { String(decoding: last, as: UTF8.self) } }
}
