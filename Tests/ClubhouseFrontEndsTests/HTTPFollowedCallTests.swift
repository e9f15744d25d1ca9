// Progress of long calls as an event stream, and DELETE on a call's URL (issue 28, Deliver 5). A drill run
// sent with `Accept: text/event-stream` is followed by its starter and a second stream of the same
// credential; `DELETE /api/tennis/calls/<id>` stops it. The refusals first: unknown, finished and another
// credential's calls, a file route asked for as a stream, the methods the URL does not answer.

import ClubhouseHost
import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPFollowedCallTests: XCTestCase {
    func tennisServer() throws -> InProcessHTTPServer {
        let access = TestAccess()
        access.addToken("coach", name: "coach's phone", scopes: ["tennis:*", "globe:read"])
        access.addToken("other", name: "another phone", scopes: ["tennis:*"])
        let server = try InProcessHTTPServer(plugins: ["tennis": "TennisPlugin", "globe": "GlobePlugin"],
                                             devices: #"{"ballmachine": {"transport": "simulator:ballmachine"}}"#, access: access)
        let saved = try httpRequest(port: server.port, "POST", "/api/tennis/drills", headers: [("Authorization", "Bearer coach"), ("Content-Type", "application/json")],
                                    body: Array(#"{"name": "long", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 8}]}"#.utf8))
        XCTAssertEqual(saved.status, 200, saved.text)
        return server
    }

    /// Starts the drill as a followed call; the stream's head and its `call` event are checked; returns the call's URL.
    func startDrill(_ server: InProcessHTTPServer) throws -> (RawHTTPConnection, String) {
        let c = try RawHTTPConnection(port: server.port)
        // Against the simulated machine (a dry run does not wait between balls): 2 s a ball.
        let body = "{}"
        c.send("POST /api/tennis/drills/long/run HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer coach\r\nAccept: text/event-stream\r\n"
               + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let head = try c.response()
        XCTAssertEqual(head.status, 200, head.text)
        XCTAssertEqual(head.header("content-type"), "text/event-stream; charset=utf-8")
        XCTAssertNil(head.header("content-length"))
        let url = try XCTUnwrap(head.header("location"))
        let call = try XCTUnwrap(try c.event())
        XCTAssertEqual(call.event, "call")
        let data = try JSONParser.parse(call.data)
        XCTAssertEqual(data["url"]?.stringValue, url)
        XCTAssertEqual(data["plugin"], "tennis")
        XCTAssertEqual(data["command"], "drill run")
        XCTAssertEqual(url, "/api/tennis/calls/\(data["call"]?.stringValue ?? "?")")
        XCTAssertEqual(head.header("x-request-id"), data["call"]?.stringValue, "the call's id is its request's")
        return (c, url)
    }

    func testTheRefusalsOfACallsURL() throws {
        let server = try tennisServer()
        defer { server.stop() }
        let coach = [("Authorization", "Bearer coach")]
        let unknown = try httpRequest(port: server.port, "DELETE", "/api/tennis/calls/nope", headers: coach)
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(try unknown.json()["error"]?["message"],
                       "no running call nope of plugin 'tennis' (it finished, or was never started with Accept: text/event-stream)")
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/tennis/calls/nope", headers: coach).status, 404)
        XCTAssertEqual(try httpRequest(port: server.port, "DELETE", "/api/tennis/calls/nope").status, 401, "a credential is needed")
        let post = try httpRequest(port: server.port, "POST", "/api/tennis/calls/nope", headers: coach)
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.header("allow"), "DELETE, GET, HEAD, OPTIONS")
        // A route that answers a file cannot be a stream.
        let picture = try httpRequest(port: server.port, "GET", "/api/globe/map.svg", headers: coach + [("Accept", "text/event-stream")])
        XCTAssertEqual(picture.status, 406)
        XCTAssertEqual(try picture.json()["error"]?["status"], "not-acceptable")
        XCTAssertEqual(try picture.json()["error"]?["message"],
                       "GET /api/globe/map.svg answers a file (image/svg+xml), not an event stream; ask without Accept: text/event-stream")
        // Another credential may neither follow nor cancel a call; its own may.
        let (stream, url) = try startDrill(server)
        let other = [("Authorization", "Bearer other")]
        for method in ["GET", "DELETE"] {
            let refused = try httpRequest(port: server.port, method, url, headers: other)
            XCTAssertEqual(refused.status, 403, method)
            XCTAssertEqual(try refused.json()["error"]?["message"]?.stringValue?.hasSuffix("was started by another credential; only its own may follow or cancel it"), true)
        }
        XCTAssertEqual(try httpRequest(port: server.port, "DELETE", url, headers: coach).status, 200)
        while let event = try stream.event(timeout: 30), event.event != "error" {}
        XCTAssertTrue(stream.closesWithin(10))
        let gone = try httpRequest(port: server.port, "DELETE", url, headers: coach)
        XCTAssertEqual(gone.status, 404, "a finished call's URL is gone")
        XCTAssertEqual(server.front.calls.count, 0)
    }

    func testADrillIsFollowedByTwoStreamsAndStoppedByDELETE() throws {
        let server = try tennisServer()
        defer { server.stop() }
        let coach = [("Authorization", "Bearer coach")]
        let (starter, url) = try startDrill(server)
        let first = try XCTUnwrap(try starter.event())
        XCTAssertEqual(first.event, "progress")
        XCTAssertEqual(try JSONParser.parse(first.data), ["label": "drill long", "done": 0, "unit": "items", "total": 8])
        // A second stream of the same credential joins: the call event, then the progress so far.
        let follower = try RawHTTPConnection(port: server.port)
        follower.send("GET \(url) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer coach\r\nAccept: text/event-stream\r\n\r\n")
        XCTAssertEqual(try follower.response().status, 200)
        XCTAssertEqual(try follower.event()?.event, "call")
        XCTAssertEqual(try follower.event()?.event, "progress")
        // Without a stream, GET says where the call is.
        let snapshot = try httpRequest(port: server.port, "GET", url, headers: coach)
        XCTAssertEqual(snapshot.status, 200, snapshot.text)
        XCTAssertEqual(try snapshot.json()["command"], "drill run")
        XCTAssertEqual(try snapshot.json()["progress"]?["total"], 8)
        // The first ball goes; then the coach stops the drill from anywhere.
        var ball: JSONValue?
        while let event = try starter.event(timeout: 30), event.event == "progress" {
            let data = try JSONParser.parse(event.data)
            if (data["done"]?.intValue ?? 0) >= 1 { ball = data; break }
        }
        XCTAssertNotNil(ball, "progress counts the balls")
        let cancelled = try httpRequest(port: server.port, "DELETE", url, headers: coach)
        XCTAssertEqual(cancelled.status, 200, cancelled.text)
        XCTAssertEqual(try cancelled.json()["cancelled"], true)
        for stream in [starter, follower] {
            var last: (id: String?, event: String?, data: String)?
            var finalProgress: JSONValue?
            while let event = try stream.event(timeout: 30) {
                last = event
                if event.event == "progress", let data = try? JSONParser.parse(event.data), data["finished"] == true { finalProgress = data }
                if event.event != "progress" { break }
            }
            XCTAssertEqual(finalProgress?["cancelled"], true, "the stage's last progress says it was cancelled")
            XCTAssertLessThan(finalProgress?["done"]?.intValue ?? 8, 8, "and counts what was done")
            XCTAssertEqual(last?.event, "error")
            let data = try JSONParser.parse(last?.data ?? "")
            XCTAssertEqual(data["status"], 499)
            XCTAssertEqual(data["error"]?["status"], "cancelled")
            XCTAssertTrue(stream.closesWithin(10), "the stream ends with the call")
        }
    }

    func testAQuickCallEndsWithItsResultOrItsError() throws {
        let server = try tennisServer()
        defer { server.stop() }
        for (path, event, status) in [("/api/tennis/zone?point=4.115,6.40", "result", 200), ("/api/tennis/drills/nope", "error", 404)] {
            let c = try RawHTTPConnection(port: server.port)
            c.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer coach\r\nAccept: text/event-stream\r\n\r\n")
            XCTAssertEqual(try c.response().status, 200)
            XCTAssertEqual(try c.event()?.event, "call")
            let last = try XCTUnwrap(try c.event())
            XCTAssertEqual(last.event, event, path)
            let data = try JSONParser.parse(last.data)
            XCTAssertEqual(data["status"], .int(status))
            // The same body a request without a stream gets.
            let plain = try httpRequest(port: server.port, "GET", path, headers: [("Authorization", "Bearer coach")])
            XCTAssertEqual(plain.status, status)
            XCTAssertEqual(event == "result" ? data["data"] : data["error"]?["status"], event == "result" ? try plain.json() : try plain.json()["error"]?["status"])
            XCTAssertTrue(c.closesWithin(10))
        }
    }
}
