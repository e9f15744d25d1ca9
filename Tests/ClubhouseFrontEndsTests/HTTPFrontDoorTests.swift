// `serve --http` in front of the real plugins, asking an access layer about every request: tokens and
// scopes, public routes only where the site allows them, pairing for a cookie, cross-origin writes,
// CORS, token guessing, the audit entry of each request; the hostile requests that must change nothing;
// and the bundled plugins' routes a phone uses (scores, an upload, a picture).

import ClubhouseHost
import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPFrontDoorTests: XCTestCase {
    static let course = #"""
    {"name": "Tour Links", "tees": [{"name": "White", "rating": 35.6, "slope": 124, "holes": [
      {"number": 1, "par": 4, "strokeIndex": 3}, {"number": 2, "par": 3, "strokeIndex": 9},
      {"number": 3, "par": 5, "strokeIndex": 1}, {"number": 4, "par": 4, "strokeIndex": 5},
      {"number": 5, "par": 4, "strokeIndex": 7}, {"number": 6, "par": 3, "strokeIndex": 8},
      {"number": 7, "par": 4, "strokeIndex": 2}, {"number": 8, "par": 5, "strokeIndex": 4},
      {"number": 9, "par": 4, "strokeIndex": 6}]}]}
    """#

    func testEveryRequestIsAskedAboutAndAudited() throws {
        let access = TestAccess()
        access.addToken("reader", name: "scoreboard", scopes: ["scorecard:read"])
        access.addToken("writer", name: "Ann's phone", scopes: ["scorecard:write"])
        access.allowedOrigins = ["https://app.example"]
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin", "globe": "GlobePlugin"],
                                             siteHTTP: #"{"public_routes": true}"#, access: access) { $0.trustedProxies = [IPRange("127.0.0.1")!] }
        defer { server.stop() }
        let port = server.port

        let anonymous = try httpRequest(port: port, "GET", "/api/scorecard/players")
        XCTAssertEqual(anonymous.status, 401)
        XCTAssertEqual(anonymous.header("www-authenticate"), "Bearer realm=\"clubhouse\"")
        XCTAssertEqual(try anonymous.json(), ["error": ["status": "unauthenticated", "message": "a token is needed (Authorization: Bearer …)"]])
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer reader")]).status, 200)
        let readOnly = try httpRequest(port: port, "POST", "/api/scorecard/players", headers: [("Authorization", "Bearer reader")],
                                       body: Array(#"{"name": "Ann"}"#.utf8))
        XCTAssertEqual(readOnly.status, 403)
        XCTAssertEqual(try readOnly.json()["error"]?["status"], "denied")
        let added = try httpRequest(port: port, "POST", "/api/scorecard/players", headers: [("Authorization", "Bearer writer")],
                                    body: Array(#"{"name": "Ann"}"#.utf8))
        XCTAssertEqual(added.status, 200, added.text)
        access.revoke("writer")
        XCTAssertEqual(try httpRequest(port: port, "POST", "/api/scorecard/players", headers: [("Authorization", "Bearer writer")],
                                       body: Array(#"{"name": "Bob"}"#.utf8)).status, 401)

        // A route its plugin declares public, at a site that allows it: no credential needed.
        let open = try httpRequest(port: port, "GET", "/api/globe/where?lat=48.8566&lon=2.3522")
        XCTAssertEqual(open.status, 200, open.text)
        XCTAssertEqual(try open.json()["code"], "FR")
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/globe/stats").status, 401)

        // CORS only for an origin the site lists; a preflight needs no credential.
        let cors = try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer reader"), ("Origin", "https://app.example")])
        XCTAssertEqual(cors.header("access-control-allow-origin"), "https://app.example")
        XCTAssertNil(try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer reader"), ("Origin", "https://evil.example")])
            .header("access-control-allow-origin"))
        let preflight = try httpRequest(port: port, "OPTIONS", "/api/scorecard/players",
                                        headers: [("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST")])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.header("allow"), "GET, HEAD, OPTIONS, POST")
        XCTAssertEqual(preflight.header("access-control-allow-origin"), "https://app.example")

        // Pairing: a one-time code for a cookie (Secure when the trusted proxy says HTTPS); the cookie
        // reads and writes from the page's own origin, never cross-origin.
        access.addPairingCode("246810", name: "Ann's browser")
        let wrong = try httpRequest(port: port, "POST", "/api/_/pair", body: Array(#"{"code": "000000"}"#.utf8))
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(try httpRequest(port: port, "POST", "/api/_/pair", body: Array("not json".utf8)).status, 400)
        let paired = try httpRequest(port: port, "POST", "/api/_/pair", headers: [("X-Forwarded-Proto", "https")],
                                     body: Array(#"{"code": "246810"}"#.utf8))
        XCTAssertEqual(paired.status, 200, paired.text)
        XCTAssertEqual(try paired.json()["name"], "Ann's browser")
        let setCookie = try XCTUnwrap(paired.header("set-cookie"))
        XCTAssertTrue(setCookie.hasSuffix("; HttpOnly; SameSite=Strict; Path=/; Secure"), setCookie)
        let cookie = String(setCookie.prefix { $0 != ";" })
        XCTAssertEqual(try httpRequest(port: port, "POST", "/api/_/pair", body: Array(#"{"code": "246810"}"#.utf8)).status, 401, "a code works once")
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Cookie", cookie)]).status, 200)
        let crossSite = try httpRequest(port: port, "POST", "/api/scorecard/players",
                                        headers: [("Cookie", cookie), ("Origin", "https://evil.example")], body: Array(#"{"name": "Eve"}"#.utf8))
        XCTAssertEqual(crossSite.status, 403)
        XCTAssertEqual(try httpRequest(port: port, "POST", "/api/scorecard/players",
                                       headers: [("Cookie", cookie), ("Origin", "http://127.0.0.1")], body: Array(#"{"name": "Cat"}"#.utf8)).status, 200)
        let players = try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer reader")]).json()
        XCTAssertEqual(JSONWriter.compact(players).contains("Eve"), false)

        // The audit log: one entry per request, under the request id the response carried, with who and what.
        let probe = try httpRequest(port: port, "GET", "/api/scorecard/rounds", headers: [("Authorization", "Bearer reader"),
                                                                                           ("X-Forwarded-For", "198.51.100.7")])
        let id = try XCTUnwrap(probe.header("x-request-id"))
        usleep(100_000)
        let entry = try XCTUnwrap(access.entries.first { $0.requestID == id })
        XCTAssertEqual(entry.principalName, "scoreboard")
        XCTAssertEqual(entry.method, "GET")
        XCTAssertEqual(entry.path, "/api/scorecard/rounds")
        XCTAssertEqual(entry.status, 200)
        XCTAssertEqual(entry.clientAddress, "198.51.100.7", "the trusted proxy's X-Forwarded-For")
        XCTAssertGreaterThan(entry.durationMicroseconds, 0)
        XCTAssertTrue(access.entries.contains { $0.status == 401 && $0.principalName == "anonymous" })

        // Guessing tokens: after five failures from one address the access layer says wait, and the
        // server passes its Retry-After on.
        for guess in 1...5 {
            XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer guess\(guess)"),
                                                                                                   ("X-Forwarded-For", "203.0.113.9")]).status, 401)
        }
        let slowed = try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer reader"),
                                                                                             ("X-Forwarded-For", "203.0.113.9")])
        XCTAssertEqual(slowed.status, 429)
        XCTAssertEqual(slowed.header("retry-after"), "7")
        XCTAssertEqual(try slowed.json()["error"]?["status"], "too-many-requests")
    }

    func testAPublicRouteNeedsTheSitesConsent() throws {
        let server = try InProcessHTTPServer(plugins: ["globe": "GlobePlugin"], access: TestAccess())
        defer { server.stop() }
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/globe/where?lat=48.8566&lon=2.3522").status, 401)
    }

    func testHostileRequestsAreRefusedAndChangeNothing() throws {
        let access = TestAccess()
        access.addToken("writer", name: "phone", scopes: ["scorecard:*"])
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin"], access: access) { $0.limits.bodyBytes = 4096 }
        defer { server.stop() }
        let port = server.port
        let body = #"{"name": "Mallory"}"#
        let smuggled: [(String, Int)] = [
            ("POST /api/scorecard/players HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer writer\r\nContent-Length: \(body.utf8.count)\r\nTransfer-Encoding: chunked\r\n\r\n\(body)", 400),
            ("POST /api/scorecard/players HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer writer\r\nTransfer-Encoding: chunked\r\n\r\n13\r\n\(body)\r\n0\r\n\r\n", 411),
            ("POST /api/scorecard/players HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer writer\r\nContent-Length: \(body.utf8.count)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", 400),
            ("POST /api/scorecard/players HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer writer\r\nContent-Length:\r\n \(body.utf8.count)\r\n\r\n\(body)", 400),
            ("POST /api/scorecard/players HTTP/1.1\nHost: a\nAuthorization: Bearer writer\nContent-Length: \(body.utf8.count)\n\n\(body)", 400),
            ("POST /api/scorecard/players HTTP/1.1\r\nHost: a\u{0}\r\nAuthorization: Bearer writer\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)", 400),
            ("POST /api/scorecard/players HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer writer\r\nContent-Length: 99999\r\n\r\n\(body)", 413),
        ]
        for (request, status) in smuggled {
            let c = try RawHTTPConnection(port: port)
            c.send(request)
            let response = try c.response()
            XCTAssertEqual(response.status, status, request)
            XCTAssertEqual(response.header("connection"), "close", request)
            XCTAssertNotNil(response.header("x-request-id"))
            let error = try response.json()["error"]
            XCTAssertNotNil(error?["status"]?.stringValue)
            XCTAssertNotNil(error?["message"]?.stringValue)
            XCTAssertFalse(response.text.dropLast().contains("\n"), "one line")
            XCTAssertTrue(c.closesWithin(5), "the connection closes after a framing refusal: \(request)")
        }
        let auth = [("Authorization", "Bearer writer")]
        func post(_ body: [UInt8], type: String? = "application/json") throws -> RawHTTPResponse {
            try httpRequest(port: port, "POST", "/api/scorecard/players", headers: auth + (type.map { [("Content-Type", $0)] } ?? []), body: body)
        }
        XCTAssertEqual(try post(Array("name=Mallory".utf8), type: nil).status, 400)
        XCTAssertEqual(try post(Array("name=Mallory".utf8), type: "application/x-www-form-urlencoded").status, 415)
        let notUTF8 = try post([0x7B, 0x22, 0x6E, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D])
        XCTAssertEqual(notUTF8.status, 400)
        XCTAssertEqual(try notUTF8.json()["error"]?["message"], "the body is not UTF-8; send JSON text")
        XCTAssertEqual(try post(Array(#"["Mallory"]"#.utf8)).status, 400)
        XCTAssertEqual(try post(Array(#"{"name": "Mallory", "admin": true}"#.utf8)).status, 400)
        XCTAssertEqual(try post(Array(#"{"name": "Mallory",}"#.utf8)).status, 400)
        // A route parameter carrying JSON is a value, never structure.
        let injected = try httpRequest(port: port, "GET", "/api/scorecard/players/%22%2C%22strokes%22%3A1%7D/index", headers: auth)
        XCTAssertEqual(injected.status, 404, injected.text)
        XCTAssertEqual(try injected.json()["error"]?["status"], "not-found")
        XCTAssertEqual(try httpRequest(port: port, "POST", "/api/scorecard/rounds/1%2C%22hole%22%3A1/scores", headers: auth,
                                       body: Array(#"{"player": "x", "hole": 1, "strokes": 4}"#.utf8)).status, 400)
        // Traversal, raw or encoded, on a plugin's routes.
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/../putting/courses", headers: auth).status, 400)
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/%2e%2e/putting/courses", headers: auth).status, 400)
        // Methods: 405 with Allow.
        let wrongMethod = try httpRequest(port: port, "PUT", "/api/scorecard/players", headers: auth, body: Array("{}".utf8))
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.header("allow"), "GET, HEAD, OPTIONS, POST")
        // Nothing of it reached the plugin.
        let players = try httpRequest(port: port, "GET", "/api/scorecard/players", headers: auth)
        XCTAssertEqual(players.status, 200)
        XCTAssertFalse(players.text.contains("Mallory"), players.text)
    }

    func testAPhoneScoresARoundAndUploadsASession() throws {
        let csv = try Products.sharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv")
        let access = TestAccess()
        access.addToken("phone", name: "Ann's phone", scopes: ["scorecard:*", "practice:*"])
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin", "practice": "PracticePlugin"], access: access)
        defer { server.stop() }
        let c = try RawHTTPConnection(port: server.port)
        let auth = [("Authorization", "Bearer phone")]
        func call(_ method: String, _ path: String, _ body: String? = nil, type: String = "application/json") throws -> RawHTTPResponse {
            try c.request(method, path, headers: auth + (body == nil ? [] : [("Content-Type", type)]), body: Array((body ?? "").utf8))
        }
        XCTAssertEqual(try call("POST", "/api/scorecard/courses", HTTPFrontDoorTests.course, type: "text/plain").status, 415)
        let course = try call("POST", "/api/scorecard/courses", HTTPFrontDoorTests.course)
        XCTAssertEqual(course.status, 200, course.text)
        for name in ["Ann", "Bob"] { XCTAssertEqual(try call("POST", "/api/scorecard/players", #"{"name": "\#(name)"}"#).status, 200) }
        let round = try call("POST", "/api/scorecard/rounds", #"{"course": "Tour Links", "tee": "White", "players": ["Ann", "Bob"], "holes": 9}"#)
        XCTAssertEqual(round.status, 200, round.text)
        let score = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 1, "strokes": 5}"#)
        XCTAssertEqual(score.status, 200, score.text)
        let board = try call("GET", "/api/scorecard/rounds/1/leaderboard")
        XCTAssertEqual(board.status, 200)
        XCTAssertTrue(board.text.contains("Ann"))
        let unfinished = try call("POST", "/api/scorecard/rounds/1/finish", "{}")
        XCTAssertEqual(unfinished.status, 409, unfinished.text)
        XCTAssertEqual(try unfinished.json()["error"]?["status"], "needs-confirmation")
        XCTAssertEqual(try call("GET", "/api/scorecard/rounds/99/leaderboard").status, 404)
        let head = try c.request("HEAD", "/api/scorecard/rounds/1/leaderboard", headers: auth)
        XCTAssertEqual(head.status, 200)
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(Int(head.header("content-length") ?? ""), board.body.count)

        // A launch monitor's export, uploaded as the body: the plugin reads it through the files service.
        let upload = try c.request("POST", "/api/practice/sessions?location=Range", headers: auth + [("Content-Type", "text/csv")],
                                   body: Array(try Data(contentsOf: URL(fileURLWithPath: csv))))
        XCTAssertEqual(upload.status, 200, upload.text)
        let sessions = try call("GET", "/api/practice/sessions")
        XCTAssertTrue(sessions.text.contains("Range"), sessions.text)
        let chart = try c.request("GET", "/api/practice/trends.svg?club=7i", headers: auth)
        XCTAssertEqual(chart.status, 200, chart.text)
        XCTAssertEqual(chart.header("content-type"), "image/svg+xml")
        XCTAssertTrue(chart.text.hasPrefix("<svg") || chart.text.hasPrefix("<?xml"), String(chart.text.prefix(80)))
        // The host's files of the request are gone once it is answered.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: server.front.scratch), [])
    }

    /// Attack round L2: 1100 sockets from one address, each with an unfinished head, held every connection and
    /// everyone else got 503. At the bound the oldest unfinished head of the address with the most is closed:
    /// a client from another address is served at once, however many the first keeps opening.
    func testUnfinishedHeadsFromOneAddressDoNotKeepOthersOut() throws {
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin"], access: TestAccess()) { $0.limits.maxConnections = 16 }
        defer { server.stop() }
        var held: [RawHTTPConnection] = []
        func trickle(_ n: Int) throws {
            for _ in 0..<n {
                let c = try RawHTTPConnection(port: server.port, source: "127.0.0.2")
                XCTAssertTrue(c.send("GET /api/_/session HTTP/1.1\r\nHost: localhost\r\n"))
                held.append(c)
            }
            // The server has read them: heads under way, not silent connections.
            usleep(200_000)
        }
        try trickle(16)
        for _ in 0..<3 {
            try trickle(4)
            let started = Date()
            let r = try httpRequest(port: server.port, "GET", "/api/_/session", timeout: 5)
            XCTAssertEqual(r.status, 200, r.text)
            XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        }
        XCTAssertTrue(held[0].closesWithin(2), "the oldest unfinished head made room")
        XCTAssertFalse(held[held.count - 1].closesWithin(0.3), "the newest unfinished head is still open")
    }

    func testAClosedConnectionStopsTheCallItStarted() throws {
        let access = TestAccess()
        access.addToken("coach", name: "coach's phone", scopes: ["tennis:*"])
        let server = try InProcessHTTPServer(plugins: ["tennis": "TennisPlugin"],
                                             devices: #"{"ballmachine": {"transport": "simulator:ballmachine"}}"#, access: access)
        defer { server.stop() }
        let auth = [("Authorization", "Bearer coach"), ("Content-Type", "application/json")]
        let saved = try httpRequest(port: server.port, "POST", "/api/tennis/drills", headers: auth,
                                    body: Array(#"{"name": "long", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 20}]}"#.utf8))
        XCTAssertEqual(saved.status, 200, saved.text)
        // Forty seconds of balls; the page goes away after half a second.
        let c = try RawHTTPConnection(port: server.port)
        c.send("POST /api/tennis/drills/long/run HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer coach\r\nContent-Length: 2\r\n\r\n{}")
        usleep(500_000)
        let closedAt = Date()
        shutdown(c.fd, Int32(SHUT_RDWR))
        var entry: AuditEntry?
        while entry == nil && Date().timeIntervalSince(closedAt) < 10 {
            entry = access.entries.first { $0.path == "/api/tennis/drills/long/run" }
            usleep(50_000)
        }
        let stopped = try XCTUnwrap(entry, "the drill did not stop within 10 s of the connection closing")
        XCTAssertEqual(stopped.status, 499)
        XCTAssertLessThan(Date().timeIntervalSince(closedAt), 5)
        let sessions = try httpRequest(port: server.port, "GET", "/api/tennis/sessions", headers: auth)
        XCTAssertTrue(sessions.text.contains("\"aborted\""), sessions.text)
    }
}
