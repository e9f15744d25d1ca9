// `clubhouse serve --http` with the host's access layer, as an administrator and the apps use them: a
// token made by `clubhouse token create` calls within its scopes and stops at `token revoke` while the
// server runs; a code from `clubhouse token pair` pairs a browser, whose cookie reads and writes from the
// host's own origin and is refused cross-origin; guessing tokens slows down; every request is in the audit
// log under the id its response carried. And the original apps against a club's host: GreenReader's
// documented requests and voyage's daily-challenge reads, replayed through the mounts with a token, each
// documented field checked (shared/domain/front-door.md).

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class HTTPAccessEndToEndTests: XCTestCase {
    func config(_ c: Clubhouse) throws -> String {
        try c.write("plugins.json", """
        {"sites": {"club": {"http": {"mount": {"putting": "/", "globe": "/"}},
          "plugins": {"putting": {"id": "org.clubhouse.putting", "grants": ["storage"]},
                      "globe": {"id": "org.clubhouse.globe", "grants": ["storage"]},
                      "scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"]}}}}}
        """)
    }

    func json(_ r: RawHTTPResponse, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        do { return try JSONParser.parse(bytes: r.body) } catch {
            XCTFail("not JSON (\(error)): \(r.text)", file: file, line: line)
            throw error
        }
    }

    func testTokensPairingRevocationOriginsAndGuessingEndToEnd() throws {
        let c = try Clubhouse()
        let site = ["--config", try config(c), "--site", "club"]
        let token = try XCTUnwrap(try c.succeed(site + ["--json", "token", "create", "--name", "Ann's phone", "--scope", "scorecard:read"])
            .json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: site)
        defer { server.stop() }
        let port = server.port
        let bearer = [("Authorization", "Bearer \(token)")]

        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/players").status, 401)
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/players", headers: bearer).status, 200)
        let write = try httpRequest(port: port, "POST", "/api/scorecard/players", headers: bearer, body: Array(#"{"name": "Ann"}"#.utf8))
        XCTAssertEqual(write.status, 403, write.text)
        XCTAssertEqual(try json(write)["error"]?["status"], "denied")
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/putting/courses", headers: bearer).status, 403, "another plugin's scope")
        // Revoked while the server runs: refused from the next request.
        try c.succeed(site + ["token", "revoke", "Ann's phone"])
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/players", headers: bearer).status, 401)

        // A browser pairs with a one-time code and gets a cookie.
        let pairing = try c.succeed(site + ["--json", "token", "pair", "--scope", "scorecard:write", "--name", "tablet"]).json()
        let code = try XCTUnwrap(pairing["code"]?.stringValue)
        let own = "http://127.0.0.1:\(port)"
        let paired = try httpRequest(port: port, "POST", "/api/_/pair", headers: [("Origin", own), ("Host", "127.0.0.1:\(port)"), ("Content-Type", "application/json")],
                                     body: Array(#"{"code": "\#(code)"}"#.utf8))
        XCTAssertEqual(paired.status, 200, paired.text)
        let setCookie = try XCTUnwrap(paired.header("set-cookie"))
        XCTAssertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie)
        XCTAssertFalse(setCookie.contains("Secure"), "not without HTTPS: \(setCookie)")
        let cookie = String(setCookie.prefix { $0 != ";" })
        XCTAssertEqual(try httpRequest(port: port, "POST", "/api/_/pair", body: Array(#"{"code": "\#(code)"}"#.utf8)).status / 100, 4, "once")
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Cookie", cookie)]).status, 200)
        let crossSite = try httpRequest(port: port, "POST", "/api/scorecard/players",
                                        headers: [("Cookie", cookie), ("Origin", "https://evil.example"), ("Host", "127.0.0.1:\(port)")],
                                        body: Array(#"{"name": "Eve"}"#.utf8))
        XCTAssertEqual(crossSite.status, 403, crossSite.text)
        let sameSite = try httpRequest(port: port, "POST", "/api/scorecard/players",
                                       headers: [("Cookie", cookie), ("Origin", own), ("Host", "127.0.0.1:\(port)")], body: Array(#"{"name": "Cat"}"#.utf8))
        XCTAssertEqual(sameSite.status, 200, sameSite.text)
        let players = try c.succeed(site + ["--json", "scorecard", "player", "list"]).stdout
        XCTAssertTrue(players.contains("Cat") && !players.contains("Eve"), players)

        // Every request is in the audit log, under the id its response carried.
        let id = try XCTUnwrap(sameSite.header("x-request-id"))
        let audit = c.dataDirectory.appendingPathComponent("club/_host/audit.log").path
        var logged = ""
        for _ in 0..<50 where !logged.contains(id) {
            usleep(100_000)
            logged = (try? String(contentsOfFile: audit, encoding: .utf8)) ?? ""
        }
        let line = try XCTUnwrap(logged.split(separator: "\n").first { $0.contains(id) })
        let entry = try JSONParser.parse(String(line))
        XCTAssertEqual(entry["status"], 200)
        XCTAssertEqual(entry["path"], "/api/scorecard/players")

        // Guessing tokens: the address is slowed down (429 with Retry-After).
        var last = 0
        var retry: String?
        for guess in 0..<12 where last != 429 {
            let r = try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer chtok_guess\(guess)_x")])
            last = r.status
            retry = r.header("retry-after")
        }
        XCTAssertEqual(last, 429)
        XCTAssertNotNil(retry)
    }

    /// Reads of a plugin route join the plugin's lane straight from the loop (no worker is woken for one while
    /// the plugin is busy); the access layer is still asked about each of them, just before its call runs, per
    /// token and per scope: while a plugin that takes one call at a time is busy, a read without a token waits
    /// and gets 401, one whose token lacks the scope 403, one whose token is revoked while it waits 401, and a
    /// read with the scope 200 — none of the refused ones ran.
    func testReadsWaitingForABusyPluginAreStillCheckedPerRequestAndScope() throws {
        let c = try Clubhouse()
        let slow = try FixturePlugins.build("SLOW", id: "org.tests.slow", file: "hostile_routes.c")
        let echo = try FixturePlugins.build("ECHO", file: "hostile_routes.c")
        let site = ["--config", try c.write("plugins.json", """
        {"sites": {"s": {"plugins": {"slow": {"path": "\(slow)", "isolation": "process"},
                                     "echo": {"path": "\(echo)", "isolation": "process"}}}}}
        """), "--site", "s"]
        func token(_ name: String, _ scope: String) throws -> String {
            try XCTUnwrap(try c.succeed(site + ["--json", "token", "create", "--name", name, "--scope", scope]).json()["token"]?.stringValue)
        }
        let full = try token("full", "slow:*"), other = try token("other", "echo:*"), lost = try token("lost", "slow:*")
        let server = try HTTPServerProcess(c, arguments: site)
        defer { server.stop() }
        func send(_ path: String, _ token: String?) throws -> RawHTTPConnection {
            let connection = try RawHTTPConnection(port: server.port)
            let auth = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
            XCTAssertTrue(connection.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(auth)\r\n"))
            return connection
        }
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/slow/wait/1", headers: [("Authorization", "Bearer \(full)")]).status, 200,
                       server.stderr)
        let busy = try send("/api/slow/wait/1500", full)
        usleep(200_000)
        let anonymous = try send("/api/slow/wait/2", nil), wrongScope = try send("/api/slow/wait/3", other)
        let revoked = try send("/api/slow/wait/4", lost), allowed = try send("/api/slow/wait/5", full)
        usleep(200_000)
        try c.succeed(site + ["token", "revoke", "lost"])
        XCTAssertEqual(try busy.response(timeout: 10).status, 200)
        XCTAssertEqual(try anonymous.response(timeout: 10).status, 401)
        let denied = try wrongScope.response(timeout: 10)
        XCTAssertEqual(denied.status, 403, denied.text)
        XCTAssertEqual(try json(denied)["error"]?["message"], "GET /api/slow/wait/3 needs the scope slow:read; 'other' has echo:*")
        XCTAssertEqual(try revoked.response(timeout: 10).status, 401, "a token revoked while its request waited")
        let answered = try allowed.response(timeout: 10)
        XCTAssertEqual(answered.status, 200, answered.text)
        XCTAssertEqual(try json(answered)["request"]?["arguments"]?["text"], "5")
        for response in [denied, answered] { XCTAssertNotNil(response.header("x-request-id")) }
    }

    /// A site with a token per name in `tokens` (each with `scope`), served over HTTP.
    func served(scope: String, tokens names: [String]) throws -> (c: Clubhouse, site: [String], tokens: [String], server: HTTPServerProcess) {
        let c = try Clubhouse()
        let site = ["--config", try config(c), "--site", "club"]
        let tokens = try names.map { name in
            try XCTUnwrap(try c.succeed(site + ["--json", "token", "create", "--name", name, "--scope", scope]).json()["token"]?.stringValue)
        }
        return (c, site, tokens, try HTTPServerProcess(c, arguments: site))
    }

    /// The third outside attack (a17): a revoked token's event stream, opened before, is closed within a second
    /// or two of `token revoke` (it went on receiving every event); another credential's stream stays open.
    func testARevokedCredentialLosesTheStreamsItHasOpen() throws {
        let (c, site, tokens, server) = try served(scope: "scorecard:read", tokens: ["lost phone", "board"])
        defer { server.stop() }
        let lost = tokens[0], kept = tokens[1]
        func open(_ token: String) throws -> RawHTTPConnection {
            let stream = try RawHTTPConnection(port: server.port)
            stream.send("GET /api/scorecard/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n")
            XCTAssertEqual(try stream.response(head: true).status, 200)
            return stream
        }
        let lostStream = try open(lost), keptStream = try open(kept)
        try c.succeed(site + ["token", "revoke", "lost phone"])
        XCTAssertTrue(lostStream.closesWithin(3), "the revoked token's stream is still open: \(server.stderr)")
        let logged = Date().addingTimeInterval(3)
        while !server.stderr.contains("its credential was revoked (or lost the scope of this stream)") && Date() < logged { usleep(20_000) }
        XCTAssertTrue(server.stderr.contains("its credential was revoked (or lost the scope of this stream)"), server.stderr)
        XCTAssertFalse(keptStream.closesWithin(1.5), "another credential's stream was closed")
    }

    /// The fourth outside attack (b05): a revoked token's plain drill (no stream, no lease) fired to its end, while its
    /// streamed and leased calls stopped. Every call of a credential is watched like its streams: once revoked, the
    /// drill is cancelled within a second or two — the machine gets its stop, and no ball follows it.
    func testARevokedCredentialLosesItsPlainCallsToo() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let config = try simulator.configWithLongDrill(c)
        let token = try XCTUnwrap(try c.succeed(["--config", config, "--json", "token", "create", "--name", "lost phone", "--scope", "tennis:*"])
            .json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: ["--config", config])
        defer { server.stop() }
        let client = try RawHTTPConnection(port: server.port)
        XCTAssertTrue(client.send("POST /api/tennis/drills/long/run HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                                  + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
        XCTAssertNotNil(simulator.wait(from: 0, timeout: 30) { $0.isStart }, server.stderr)
        try c.succeed(["--config", config, "token", "revoke", "lost phone"])
        let revoked = monotonicNanoseconds()
        let stop = simulator.wait(from: 0, timeout: 5) { $0.isStop }
        XCTAssertNotNil(stop, "the revoked token's drill goes on: \(server.stderr)")
        if let stop {
            XCTAssertLessThan(stop.at, revoked + 3_000_000_000, "the stop came more than 3 s after the revocation")
            usleep(2_500_000)
            XCTAssertEqual(simulator.lines.filter { $0.isStart && $0.at > stop.at }.count, 0, "balls after the stop")
        }
    }

    /// The third outside attack (a07): an Idempotency-Key belongs to its caller and route. Token B sending
    /// token A's key runs B's own request (not A's answer, not a 422 naming A's request); the same key on
    /// another route is another request; A's repeat is A's answer again.
    func testIdempotencyKeysBelongToTheirCallerAndRoute() throws {
        let (_, _, tokens, server) = try served(scope: "scorecard:write", tokens: ["A", "B"])
        defer { server.stop() }
        let a = tokens[0], b = tokens[1]
        func post(_ token: String, _ path: String, _ body: String) throws -> RawHTTPResponse {
            try httpRequest(port: server.port, "POST", path, headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                                                                     ("Idempotency-Key", "k-shared-1")], body: Array(body.utf8))
        }
        let first = try post(a, "/api/scorecard/players", #"{"name": "Ann"}"#)
        XCTAssertEqual(first.status, 200, first.text)
        let other = try post(b, "/api/scorecard/players", #"{"name": "Bob"}"#)
        XCTAssertEqual(other.status, 200, "B's request is B's: \(other.text)")
        XCTAssertNil(other.header("idempotent-replayed"))
        XCTAssertFalse(other.text.contains("Ann"), other.text)
        let same = try post(b, "/api/scorecard/players", #"{"name": "Ann"}"#)
        XCTAssertEqual(same.status, 422, "B's own key, another body: \(same.text)")
        XCTAssertTrue(same.text.contains("POST /api/scorecard/players"), same.text)
        let replay = try post(a, "/api/scorecard/players", #"{"name": "Ann"}"#)
        XCTAssertEqual(replay.header("idempotent-replayed"), "true")
        XCTAssertEqual(replay.body, first.body)
        let route = try post(a, "/api/scorecard/courses", #"{"name": "x"}"#)
        XCTAssertFalse(route.text.contains("Idempotency-Key"), "the same key on another route is another request: \(route.text)")
    }

    func testGreenReaderAndVoyageAgainstTheClubsHost() throws {
        let presidio = try Clubhouse.requireSharedData("putting/presidio").path
        let c = try Clubhouse()
        let site = ["--config", try config(c), "--site", "club"]
        try c.succeed(site + ["putting", "course", "import", presidio, "--id", "presidio", "--name", "Presidio", "--city", "San Francisco", "--state", "CA"])
        let token = try XCTUnwrap(try c.succeed(site + ["--json", "token", "create", "--name", "GreenReader", "--scope", "putting:*"]).json()["token"]?.stringValue)
        let key = try XCTUnwrap(try c.succeed(site + ["--json", "token", "create", "--name", "voyage", "--scope", "globe:read"]).json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: site)
        defer { server.stop() }
        let app = try RawHTTPConnection(port: server.port)
        let auth = [("Authorization", "Bearer \(token)")]

        // GreenReader: GET /courses → {courses: [{id, name, city, state, numHoles}]}
        let courses = try app.request("GET", "/courses", headers: auth)
        XCTAssertEqual(courses.status, 200, courses.text)
        let course = try XCTUnwrap(try json(courses)["courses"]?.arrayValue?.first)
        XCTAssertEqual(course["id"], "presidio")
        XCTAssertEqual(course["name"], "Presidio")
        XCTAssertEqual(course["city"], "San Francisco")
        XCTAssertEqual(course["state"], "CA")
        XCTAssertEqual(course["numHoles"], 9)
        // GET /courses/{courseId} → {course: {id, name, numHoles, holes: [...]}}
        let detail = try XCTUnwrap(try json(try app.request("GET", "/courses/presidio", headers: auth))["course"])
        XCTAssertEqual(detail["id"], "presidio")
        XCTAssertEqual(detail["numHoles"], 9)
        let holes = try XCTUnwrap(detail["holes"]?.arrayValue)
        XCTAssertEqual(holes.count, 9)
        XCTAssertEqual(holes[0]["holeNum"], 1)
        XCTAssertNotNil(holes[0]["greenWidthFt"]?.doubleValue)
        XCTAssertNotNil(holes[0]["greenHeightFt"]?.doubleValue)
        XCTAssertNotNil(holes[0]["status"]?.stringValue)
        // GET /courses/{courseId}/holes/{holeNum} → {hole: {courseId, holeNum, greenWidthFt, greenHeightFt, sourceUrls, processedUrls}}
        let hole = try XCTUnwrap(try json(try app.request("GET", "/courses/presidio/holes/1", headers: auth))["hole"])
        XCTAssertEqual(hole["courseId"], "presidio")
        XCTAssertEqual(hole["holeNum"], 1)
        XCTAssertEqual(try XCTUnwrap(hole["greenWidthFt"]?.doubleValue), 102.446, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(hole["greenHeightFt"]?.doubleValue), 83.705, accuracy: 0.001)
        let sources = try XCTUnwrap(hole["sourceUrls"]?.objectValue)
        XCTAssertEqual(sources.keys.sorted(), ["boundary.json", "contour.png", "contours.json", "map.png"])
        let processed = try XCTUnwrap(hole["processedUrls"]?.objectValue)
        XCTAssertEqual(processed.keys.sorted(), ["heightfield.bin", "heightfield.json"])
        let bin = try app.request("GET", try XCTUnwrap(processed["heightfield.bin"]?.stringValue), headers: auth)
        XCTAssertEqual(bin.status, 200)
        XCTAssertEqual(bin.header("content-type"), "application/octet-stream")
        XCTAssertEqual(bin.body.count, 139_256)
        let boundary = try app.request("GET", try XCTUnwrap(sources["boundary.json"]?.stringValue), headers: auth)
        XCTAssertEqual(boundary.body, Array(try Data(contentsOf: URL(fileURLWithPath: presidio + "/hole_1/Hole_1_boundary.json"))))
        // POST …/bestline {ballXFt, ballZFt, holeXFt, holeZFt, stimpFt} → a job {jobId, status: "queued"}, polled until done.
        let putt = Array(#"{"ballXFt": -10, "ballZFt": 5, "holeXFt": 0, "holeZFt": 0, "stimpFt": 10}"#.utf8)
        let submitted = try app.request("POST", "/courses/presidio/holes/1/bestline", headers: auth + [("Content-Type", "application/json")], body: putt)
        XCTAssertEqual(submitted.status, 202, submitted.text)
        let jobID = try XCTUnwrap(try json(submitted)["jobId"]?.stringValue)
        XCTAssertEqual(try json(submitted)["status"], "queued")
        var line: JSONValue?
        let deadline = Date().addingTimeInterval(120)
        while line == nil && Date() < deadline {
            let poll = try app.request("GET", "/courses/presidio/holes/1/bestline/\(jobID)", headers: auth)
            XCTAssertEqual(poll.status, 200, poll.text)
            let value = try json(poll)
            if let done = value["bestLine"] { line = done } else {
                XCTAssertEqual(value["jobId"]?.stringValue, jobID)
                XCTAssertTrue(["queued", "running"].contains(value["status"]?.stringValue ?? ""), poll.text)
                usleep(200_000)
            }
        }
        let bestLine = try XCTUnwrap(line, "the job did not finish within 120 s")
        for field in ["aimOffsetDeg", "speedFps", "missFt", "ballXFt", "ballZFt", "holeXFt", "holeZFt", "stimpFt"] {
            XCTAssertNotNil(bestLine[field]?.doubleValue, field)
        }
        XCTAssertNotNil(bestLine["holed"]?.boolValue)
        for field in ["pathXFt", "pathZFt", "pathYFt"] { XCTAssertNotNil(bestLine[field]?.arrayValue?.first?.doubleValue, field) }
        let cached = try app.request("POST", "/courses/presidio/holes/1/bestline", headers: auth, body: putt)
        XCTAssertEqual(cached.status, 200)
        XCTAssertEqual(try json(cached)["bestLine"]?["aimOffsetDeg"], bestLine["aimOffsetDeg"])
        let missing = try app.request("GET", "/courses/augusta", headers: auth)
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try json(missing)["error"]?["status"], "not-found")

        // voyage: the dates, then the challenge of a date in PostgREST's shape, with the publishable key.
        let dates = try app.request("GET", "/rest/v1/daily_challenges?select=date&order=date.asc", headers: [("apikey", key)])
        XCTAssertEqual(dates.status, 200, dates.text)
        let days = try XCTUnwrap(try json(dates).arrayValue).compactMap { $0["date"]?.stringValue }
        let today = try XCTUnwrap(days.last)
        for headers in [[("apikey", key)], [("Authorization", "Bearer \(key)")], [("apikey", key), ("Authorization", "Bearer \(key)")]] {
            let response = try app.request("GET", "/rest/v1/daily_challenges?select=*&date=eq.\(today)", headers: headers)
            XCTAssertEqual(response.status, 200, response.text)
            let row = try XCTUnwrap(try json(response).arrayValue?.first?.objectValue)
            XCTAssertEqual(row.keys, ["id", "date", "is_guess_country", "is_guess_capital", "is_guess_flag", "answer", "created_at", "updated_at"])
            XCTAssertEqual(try XCTUnwrap(row["id"]?.stringValue).split(separator: "-").map(\.count), [8, 4, 4, 4, 12])
            XCTAssertEqual(row["date"]?.stringValue, today)
            XCTAssertEqual(["is_guess_country", "is_guess_capital", "is_guess_flag"].compactMap { row[$0]?.boolValue }.filter { $0 }.count, 1)
            XCTAssertEqual(row["answer"]?.stringValue?.count, 2)
            XCTAssertNotNil(row["created_at"]?.stringValue)
            XCTAssertNotNil(row["updated_at"]?.stringValue)
        }
        XCTAssertEqual(try app.request("GET", "/rest/v1/daily_challenges?select=*&date=eq.\(today)").status, 401)
        XCTAssertEqual(try app.request("POST", "/api/globe/visits", headers: [("apikey", key)], body: Array(#"{"country": "FR"}"#.utf8)).status, 403)
    }
}
