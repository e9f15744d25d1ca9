// Live events from plugins that do not run in the host (issue 28, Deliver 5): the scorecard run in a runner
// child (`process`) and sandboxed (`sandbox`) publishes each score through the wire's events service, and
// an SSE leaderboard of `clubhouse serve --http` receives it as from an in-process plugin.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class IsolatedEventsEndToEndTests: XCTestCase {
    /// A round of `players` started on a nine-hole course at `site`; a scorecard:write token's secret.
    func roundBeingPlayed(_ c: Clubhouse, site: [String], players: [String]) throws -> String {
        _ = try c.write("course.json", """
            {"name": "Tour Links", "tees": [{"name": "White", "rating": 35.6, "slope": 124, "holes": [
              {"number": 1, "par": 4, "strokeIndex": 3}, {"number": 2, "par": 3, "strokeIndex": 9},
              {"number": 3, "par": 5, "strokeIndex": 1}, {"number": 4, "par": 4, "strokeIndex": 5},
              {"number": 5, "par": 4, "strokeIndex": 7}, {"number": 6, "par": 3, "strokeIndex": 8},
              {"number": 7, "par": 4, "strokeIndex": 2}, {"number": 8, "par": 5, "strokeIndex": 4},
              {"number": 9, "par": 4, "strokeIndex": 6}]}]}
            """)
        try c.succeed(site + ["scorecard", "course", "add", c.path("course.json")])
        for name in players { try c.succeed(site + ["scorecard", "player", "add", name]) }
        try c.succeed(site + ["scorecard", "round", "start", "--course", "Tour Links", "--tee", "White", "--players", players.joined(separator: ",")])
        return try XCTUnwrap(try c.succeed(site + ["--json", "token", "create", "--name", "board", "--scope", "scorecard:write"])
            .json()["token"]?.stringValue)
    }

    func testAnIsolatedAndASandboxedScorecardPublishScoresThatReachAnSSELeaderboard() throws {
        for isolation in ["process", "sandbox"] {
            let c = try Clubhouse()
            let config = try c.write("plugins.json", """
                {"sites": {"club": {"plugins": {"scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"], "isolation": "\(isolation)"}}}}}
                """)
            let site = ["--config", config, "--site", "club"]
            let info = try c.run(site + ["plugins", "info", "scorecard", "--json"], timeout: 60)
            if isolation == "sandbox", info.stderr.contains("has no Landlock") || info.stdout.contains("has no Landlock") {
                throw XCTSkip("this kernel has no Landlock: \(info.stderr)")
            }
            XCTAssertEqual(try info.json()["effective_isolation"]?.stringValue, isolation, info.stdout)
            let token = try roundBeingPlayed(c, site: site, players: ["Ann", "Bob"])
            let server = try HTTPServerProcess(c, arguments: site)
            defer { server.stop() }
            let board = try RawHTTPConnection(port: server.port)
            board.send("GET /api/scorecard/events?topics=score HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n")
            XCTAssertEqual(try board.response().status, 200, isolation)
            let scored = try httpRequest(port: server.port, "POST", "/api/scorecard/rounds/1/scores",
                                         headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                         body: Array(#"{"player": "Bob", "hole": 2, "strokes": 3}"#.utf8), timeout: 60)
            XCTAssertEqual(scored.status, 200, "\(isolation): \(scored.text)")
            let event = try XCTUnwrap(try board.event(timeout: 30), "\(isolation): no event reached the stream")
            XCTAssertEqual(event.id, "1")
            XCTAssertEqual(event.event, "score")
            let data = try JSONParser.parse(event.data)
            XCTAssertEqual(data["player"], "Bob", isolation)
            XCTAssertEqual(data["hole"], 2)
            XCTAssertEqual(data["strokes"], 3)
            // The plugin ran in the server's runner child (started by whichever thread), not in the server.
            let tasks = "/proc/\(server.process.processIdentifier)/task"
            let children = ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).flatMap { task in
                ((try? String(contentsOfFile: "\(tasks)/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ")
            }
            XCTAssertTrue(children.contains { child in
                ((try? String(contentsOfFile: "/proc/\(child)/cmdline", encoding: .utf8)) ?? "").contains("scorecard")
                    || ((try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? "").hasPrefix("clubhouse")
            }, "\(isolation): the server has a runner child (\(children))")
        }
    }

    /// The third outside attack (a33): a correction whose reason makes its `score` event larger than an event
    /// may be (4,096 bytes) was stored and its event dropped silently, so leaderboards never updated. Its
    /// listeners now get `clubhouse.missed` (with the topic and the size) in its place, and load again; the
    /// next event follows with the next id.
    func testAnEventTooLargeToDeliverBecomesClubhouseMissed() throws {
        let c = try Clubhouse()
        let config = try c.write("plugins.json", #"{"sites": {"club": {"plugins": {"scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"]}}}}}"#)
        let site = ["--config", config, "--site", "club"]
        let token = try roundBeingPlayed(c, site: site, players: ["Ann"])
        let server = try HTTPServerProcess(c, arguments: site)
        defer { server.stop() }
        let board = try RawHTTPConnection(port: server.port)
        board.send("GET /api/scorecard/events?topics=score HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n")
        XCTAssertEqual(try board.response().status, 200)
        let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        func post(_ path: String, _ body: JSONValue) throws {
            let r = try httpRequest(port: server.port, "POST", path, headers: headers, body: Array(JSONWriter.compact(body).utf8), timeout: 60)
            XCTAssertEqual(r.status, 200, r.text)
        }
        try post("/api/scorecard/rounds/1/scores", ["player": "Ann", "hole": 2, "strokes": 4])
        XCTAssertEqual(try board.event(timeout: 30)?.event, "score")
        try post("/api/scorecard/rounds/1/corrections", ["player": "Ann", "hole": 2, "strokes": 5, "reason": .string(String(repeating: "R", count: 5_000))])
        let missed = try XCTUnwrap(try board.event(timeout: 30), "nothing reached the stream for the large event")
        XCTAssertEqual(missed.event, "clubhouse.missed")
        XCTAssertEqual(missed.id, "2")
        let data = try JSONParser.parse(missed.data)
        XCTAssertEqual(data["after"], 1)
        XCTAssertEqual(data["topic"], "score")
        XCTAssertGreaterThan(data["bytes"]?.intValue ?? 0, 4_096)
        try post("/api/scorecard/rounds/1/scores", ["player": "Ann", "hole": 3, "strokes": 4])
        let next = try XCTUnwrap(try board.event(timeout: 30))
        XCTAssertEqual(next.event, "score")
        XCTAssertEqual(next.id, "3")
    }
}
