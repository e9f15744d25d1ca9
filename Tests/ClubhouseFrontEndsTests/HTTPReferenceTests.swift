// Host/HTTP.md is checked against the server, as Host/JSON-RPC.md is: its route tables are exactly the
// routes a live server of every bundled plugin (mounted) serves, its status tables are the ones the server
// applies (each of the host's refusals provoked on the wire), and its limits are the server's, with their
// options and defaults.

import ClubhouseABI
import ClubhouseHost
import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPReferenceTests: XCTestCase {
    static let reference = Products.repository.appendingPathComponent("Host/HTTP.md")

    /// The cells of the table rows ("| a | b |", header rows left out) in the section whose heading starts with `heading`.
    func rows(_ text: String, section heading: String) -> [[String]] {
        var inside = false
        var out: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") { inside = line.hasPrefix(heading) }
            guard inside, line.hasPrefix("|") else { continue }
            if line.hasPrefix("|---") {
                out.removeLast()  // the header above it
                continue
            }
            let cells = line.replacingOccurrences(of: "\\|", with: "¦").split(separator: "|", omittingEmptySubsequences: false)
                .dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
            out.append(cells)
        }
        return out
    }

    func unquoted(_ cell: String) -> String { cell.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }

    func testTheReferenceIsTheServersRoutesStatusesAndLimits() throws {
        let text = try String(contentsOf: Self.reference, encoding: .utf8)
        let access = TestAccess()
        access.addToken("all", name: "everything", scopes: ["putting:*", "globe:*", "tennis:*", "practice:*", "scorecard:*", "broken:*"])
        access.addToken("none", name: "nothing", scopes: [])
        let server = try InProcessHTTPServer(
            plugins: ["putting": "PuttingPlugin", "globe": "GlobePlugin", "tennis": "TennisPlugin", "practice": "PracticePlugin",
                      "scorecard": "ScorecardPlugin", "broken": "NoSuchPlugin"],
            siteHTTP: #"{"mount": {"putting": "/", "globe": "/"}, "public_routes": true}"#,
            devices: #"{"ballmachine": {"transport": "simulator:ballmachine"}}"#, access: access) {
            $0.limits.headerTimeoutMilliseconds = 300
        }
        defer { server.stop() }

        // Routes: the two tables are the server's routes, no more and no less.
        let documented = (rows(text, section: "### Plugins' routes") + rows(text, section: "### Compatibility mounts")).map { cells in
            "\(cells[0]) \(unquoted(cells[1])) \(cells[2]) \(cells[3])"
        }
        let live = server.front.routes.routes.map { "\($0.method) \($0.path) \($0.command.name) \($0.access.rawValue)\($0.isPublic ? ", public" : "")" }
        XCTAssertEqual(Set(documented), Set(live), "documented only: \(Set(documented).subtracting(live)); served only: \(Set(live).subtracting(documented))")
        XCTAssertEqual(documented.count, live.count)
        let host = rows(text, section: "### The host's own").map { "\($0[0]) \(unquoted($0[1]))" }
        XCTAssertEqual(host, RoutesCommand.hostRoutes.map { "\($0.method) \($0.path)" })

        // Events: the topics table is every plugin's declared topics, and the stream answers as the section says (before the statuses below, whose
        // token guessing slows this address down).
        let topics = rows(text, section: "## Events").map { "\($0[0]) \(unquoted($0[1]))" }
        let declared = server.front.routes.topics.sorted { $0.key < $1.key }.flatMap { alias, list in list.map { "\(alias) \($0.name)" } }
        XCTAssertEqual(topics, declared)
        XCTAssertFalse(declared.isEmpty)
        XCTAssertTrue(text.contains("`GET /api/<plugin>/events?topics=…`"))
        let stream = try RawHTTPConnection(port: server.port)
        stream.send("GET /api/scorecard/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer all\r\nLast-Event-ID: 5\r\n\r\n")
        let head = try stream.response()
        XCTAssertEqual(head.status, 200)
        for line in ["Content-Type: text/event-stream; charset=utf-8", "Cache-Control: no-store"] {
            XCTAssertTrue(text.contains("`\(line)`"), line)
            let (name, value) = (String(line.prefix { $0 != ":" }), String(line.drop { $0 != ":" }.dropFirst(2)))
            XCTAssertEqual(head.header(name), value)
        }
        let missed = try XCTUnwrap(try stream.event())
        XCTAssertEqual(missed.event, "clubhouse.missed")
        XCTAssertTrue(text.contains("event: clubhouse.missed\ndata: {\"after\":5}"))
        let unknown = try httpRequest(port: server.port, "GET", "/api/scorecard/events?topics=putts", headers: [("Authorization", "Bearer all")])
        XCTAssertEqual(unknown.status, 400)
        XCTAssertTrue(text.contains(try XCTUnwrap(try unknown.json()["error"]?["message"]?.stringValue)))

        // A reply's status → HTTP: the table is HTTPStatusTable, for every status a plugin can reply.
        let table = rows(text, section: "## Statuses").prefix { $0.count == 2 }
        var mapped: [String: Int] = [:]
        for cells in table { mapped[cells[0]] = Int(cells[1].prefix { $0.isNumber }) }
        for status in Status.allCases where status != .row && status != .done {
            XCTAssertEqual(mapped[status.name], HTTPStatusTable.status(for: status), status.name)
        }
        XCTAssertEqual(mapped.count, Status.allCases.count - 2)

        // The host's own refusals: each row's name is the server's, and each status is provoked on the wire.
        let refusals = rows(text, section: "## Statuses").filter { $0.count == 3 }
        XCTAssertEqual(refusals.count, 18)
        let port = server.port
        let token = [("Authorization", "Bearer all")]
        func raw(_ request: String) throws -> RawHTTPResponse {
            let c = try RawHTTPConnection(port: port)
            c.send(request)
            return try c.response()
        }
        var provoked: [Int: RawHTTPResponse] = [:]
        provoked[400] = try raw("GET / HTTP/1.1\nHost: a\n\n")
        provoked[401] = try httpRequest(port: port, "GET", "/api/scorecard/players")
        provoked[403] = try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer none")])
        provoked[404] = try httpRequest(port: port, "GET", "/api/scorecard/nothing", headers: token)
        provoked[405] = try httpRequest(port: port, "DELETE", "/api/scorecard/players", headers: token)
        provoked[406] = try httpRequest(port: port, "GET", "/api/globe/map.svg", headers: token + [("Accept", "text/event-stream")])
        XCTAssertTrue(text.contains(try XCTUnwrap(try provoked[406]?.json()["error"]?["message"]?.stringValue)), "the 406 of Following a call")
        // Following a call: a call's URL that is unknown answers as the section says.
        let unknownCall = try httpRequest(port: port, "DELETE", "/api/tennis/calls/nope", headers: token)
        XCTAssertEqual(unknownCall.status, 404)
        XCTAssertTrue(text.contains(try XCTUnwrap(try unknownCall.json()["error"]?["message"]?.stringValue).replacingOccurrences(of: "nope", with: "<id>")))
        XCTAssertEqual(try httpRequest(port: port, "PUT", "/api/tennis/calls/nope", headers: token).header("allow"), "DELETE, GET, HEAD, OPTIONS")
        XCTAssertTrue(text.contains("`Allow: DELETE, GET, HEAD, OPTIONS`"))
        provoked[408] = try raw("GET / HTTP/1.1\r\nHost")
        provoked[411] = try raw("POST /api/_/pair HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
        provoked[413] = try raw("POST /api/_/pair HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999\r\n\r\n")
        provoked[414] = try raw("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
        provoked[415] = try httpRequest(port: port, "POST", "/api/_/pair", headers: [("Content-Type", "text/plain")], body: Array("code".utf8))
        provoked[421] = try raw("GET / HTTP/1.1\r\nHost: rebound.example\r\n\r\n")
        provoked[417] = try raw("GET / HTTP/1.1\r\nHost: localhost\r\nExpect: tea\r\n\r\n")
        provoked[431] = try raw("GET / HTTP/1.1\r\nHost: localhost\r\n" + (1...101).map { "X-\($0): y\r\n" }.joined() + "\r\n")
        provoked[501] = try raw("BREW / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        provoked[503] = try httpRequest(port: port, "GET", "/api/broken/anything", headers: token)
        provoked[505] = try raw("GET / HTTP/2.0\r\nHost: localhost\r\n\r\n")
        for _ in 0..<5 { _ = try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer wrong"), ("X-Forwarded-For", "x")]) }
        provoked[429] = try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Authorization", "Bearer wrong")])
        for cells in refusals {
            let status = try XCTUnwrap(Int(cells[0]), "\(cells)")
            XCTAssertEqual(HTTPResponse.statusName(status), cells[1], "the name of \(status)")
            let response = try XCTUnwrap(provoked[status], "\(status) is not provoked here")
            XCTAssertEqual(response.status, status, response.text)
            XCTAssertEqual(try response.json()["error"]?["status"]?.stringValue, cells[1], "\(status): \(response.text)")
        }

        // Limits: each row's option is a `serve` option, and its default is the server's.
        let limits = rows(text, section: "## Limits")
        XCTAssertEqual(limits.count, 14)
        let serve = try XCTUnwrap(BuiltinCatalogue.catalogue.command(named: "serve"))
        let defaults = HTTPLimits()
        let expected: [String: Int64] = [
            "--http-max-request-line": Int64(defaults.requestLineBytes), "--http-max-header-bytes": Int64(defaults.headerBytes),
            "--http-max-headers": Int64(defaults.headerCount), "--http-max-body": Int64(defaults.bodyBytes),
            "--http-header-timeout-ms": defaults.headerTimeoutMilliseconds, "--http-body-timeout-ms": defaults.bodyTimeoutMilliseconds,
            "--http-idle-timeout-ms": defaults.idleTimeoutMilliseconds, "--http-send-timeout-ms": defaults.sendTimeoutMilliseconds,
            "--http-max-connections": Int64(defaults.maxConnections), "--http-heartbeat-ms": defaults.heartbeatMilliseconds,
            "--http-max-event-backlog": Int64(defaults.eventBacklogBytes), "--http-reply-cache-bytes": Int64(defaults.replyCacheBytes),
            "--http-idempotency-bytes": Int64(defaults.idempotencyBytes),
        ]
        for cells in limits {
            let option = unquoted(cells[1])
            XCTAssertNotNil(serve.arguments.first { "--\($0.name)" == option }, "\(option) is not a serve option")
            if option == "--http-max-body-memory" {
                // Its default follows the routes (HTTPFrontEnd.bodyMemoryLimits), so the table says how.
                XCTAssertNil(defaults.bodyMemoryBytes)
                XCTAssertTrue(cells[2].hasPrefix("4 × the largest body a route allows"), cells[2])
            } else {
                XCTAssertEqual(Int64(cells[2].prefix { $0.isNumber }), expected[option], option)
            }
            var parsed = HTTPOptions()
            XCTAssertNoThrow(try parsed.read([String(option.dropFirst(2)): 7000]), option)
            XCTAssertTrue(HTTPOptions.names.contains(String(option.dropFirst(2))), option)
        }
        XCTAssertTrue(text.contains("## Auth"))

    }
}
