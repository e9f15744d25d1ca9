// The Host a request names (DNS rebinding): a page of another site whose name is made to resolve to 127.0.0.1
// reaches a loopback server with that name in Host. `serve --http` answers localhost, IP addresses, the names
// given with --http-allowed-host, and what a trusted proxy forwarded; anything else is 421 and closed.

import ClubhouseHost
import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPHostTests: XCTestCase {
    /// The byte-level shortcut for the names nearly every request carries agrees with the full reading: it
    /// answers only what `HostPolicy.name` would answer too, and leaves everything else to it.
    func testTheLoopbackShortcutAnswersOnlyWhatTheFullReadingAnswers() {
        let policy = HostPolicy(HTTPOptions())
        for host in ["localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:39343"] {
            XCTAssertTrue(HostPolicy.isPlainLoopback(host), host)
            XCTAssertNotNil(HostPolicy.name(host), host)
        }
        for host in ["localhost:", "localhost:80a", "localhostx", "127.0.0.10", "127.0.0.1:8:8", "LOCALHOST", "evil.example", "", ":80",
                     "localhost.evil.example", "127.0.0.1.evil.example:80"] {
            XCTAssertFalse(HostPolicy.isPlainLoopback(host), host)
        }
        XCTAssertNil(policy.refusal(host: "localhost:8080", forwardedFor: nil, peer: "127.0.0.1"))
        XCTAssertEqual(policy.refusal(host: "localhost.evil.example", forwardedFor: nil, peer: "127.0.0.1")?.status, 421)
        XCTAssertEqual(policy.refusal(host: "127.0.0.1:8:8", forwardedFor: nil, peer: "127.0.0.1")?.status, 400)
    }

    func testOnlyLocalhostAddressesAndTheGivenNamesAreAnswered() throws {
        let access = TestAccess()
        access.addToken("reader", name: "scoreboard", scopes: ["scorecard:read"])
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin"], access: access) {
            $0.allowedHosts = ["club.example.org"]
            $0.trustedProxies = [IPRange("127.0.0.1")!]
        }
        defer { server.stop() }
        let port = server.port
        func get(_ host: String, _ extra: [(String, String)] = []) throws -> RawHTTPResponse {
            try httpRequest(port: port, "GET", "/api/scorecard/players", headers: [("Host", host), ("Authorization", "Bearer reader")] + extra)
        }
        for host in ["localhost", "localhost:\(port)", "LocalHost.", "127.0.0.1:\(port)", "[::1]:\(port)", "192.0.2.7", "club.example.org",
                     "Club.Example.Org:443"] {
            XCTAssertEqual(try get(host).status, 200, host)
        }

        let connection = try RawHTTPConnection(port: port)
        let rebound = try connection.request("GET", "/api/scorecard/players", headers: [("Host", "evil.example:\(port)"), ("Authorization", "Bearer reader")])
        XCTAssertEqual(rebound.status, 421)
        XCTAssertEqual(rebound.reason, "Misdirected Request")
        XCTAssertEqual(try rebound.json(), ["error": ["status": "misdirected", "message": .string(
            "this server does not answer for the name 'evil.example' (Host: evil.example:\(port)): it answers localhost and IP addresses, so that a page of another site cannot reach it by renaming its address (DNS rebinding); to serve this name, start serve with --http-allowed-host evil.example")]])
        XCTAssertEqual(rebound.header("connection"), "close")
        XCTAssertTrue(connection.closesWithin(5), "a misdirected request closes its connection")
        // The static pages and a CORS preflight are checked too (a page cannot add X-Forwarded-For without one).
        XCTAssertEqual(try httpRequest(port: port, "GET", "/", headers: [("Host", "evil.example")]).status, 421)
        XCTAssertEqual(try httpRequest(port: port, "OPTIONS", "/api/scorecard/players",
                                       headers: [("Host", "evil.example"), ("Origin", "http://evil.example"), ("Access-Control-Request-Method", "GET"),
                                                 ("Access-Control-Request-Headers", "x-forwarded-for")]).status, 421)
        // Forwarded by a trusted proxy (it chose the request by its own server name): answered.
        XCTAssertEqual(try get("club.other.example", [("X-Forwarded-For", "192.0.2.9")]).status, 200)

        let odd = try get("exa mple")
        XCTAssertEqual(odd.status, 400)
        XCTAssertEqual(try odd.json()["error"]?["message"], "Host 'exa mple' is not a host name or an IP address with an optional port")

        // HTTP/1.1 needs a Host; HTTP/1.0 may go without.
        let bare = try RawHTTPConnection(port: port)
        bare.send("GET /api/scorecard/players HTTP/1.1\r\nAuthorization: Bearer reader\r\n\r\n")
        let missing = try bare.response()
        XCTAssertEqual(missing.status, 400)
        XCTAssertEqual(try missing.json()["error"]?["message"], "an HTTP/1.1 request needs a Host header")
        let old = try RawHTTPConnection(port: port)
        old.send("GET /api/scorecard/players HTTP/1.0\r\nAuthorization: Bearer reader\r\n\r\n")
        XCTAssertEqual(try old.response().status, 200)
    }

    func testAnAllowedHostMustBeAHostName() throws {
        var options = HTTPOptions()
        // As serve's declaration parses it: a list (repeatable, comma-separated).
        try options.read(["http-allowed-host": ["Club.Example.org.", "club.example.org", "Other.example"]])
        XCTAssertEqual(options.allowedHosts, ["club.example.org", "other.example"])
        for bad in ["https://club.example.org", "club.example.org/x", "", "a..b", "club example"] {
            XCTAssertThrowsError(try options.read(["http-allowed-host": [.string(bad)]])) { error in
                XCTAssertEqual((error as? CLIError)?.message,
                               "serve: --http-allowed-host \(bad): give a host name as browsers send it, without scheme, port or path (eg: club.example.org)")
            }
        }
    }
}
