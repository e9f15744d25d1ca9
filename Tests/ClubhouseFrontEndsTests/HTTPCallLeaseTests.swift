// A call under a page's heartbeat lease (Host/HTTP.md "Leases"): a drill on the host's simulated ball
// machine whose lease is not renewed is cancelled although its connection stays open; renewed, it runs
// until DELETE cancels it at once; only the credential that started it renews or cancels it; a malformed
// header and a key already in use are refused before anything runs.

@testable import ClubhouseFrontEnds
import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class HTTPCallLeaseTests: XCTestCase {
    /// The drill's three balls take at least 6 s: a call that ends sooner was cancelled.
    static let drill = #"{"name": "long", "steps": [{"zone": 5, "speed": 50, "delay": 3, "repeat": 3}]}"#

    /// A drill run started on its own thread, its response kept.
    final class Run: @unchecked Sendable {
        // Safe: `response` is written once by the thread, read after `done` is signalled.
        var response: RawHTTPResponse?
        var error: Error?
        let done = DispatchSemaphore(value: 0)
        let started = Date()
        var seconds: Double = 0

        init(port: UInt16, lease: String, token: String = "coach") {
            Thread.detachNewThread { [self] in
                do {
                    response = try httpRequest(port: port, "POST", "/api/tennis/drills/long/run",
                                               headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                                                         ("Clubhouse-Lease", lease)], body: Array("{}".utf8), timeout: 60)
                } catch {
                    self.error = error
                }
                seconds = Date().timeIntervalSince(started)
                done.signal()
            }
        }

        func wait(_ seconds: Double = 30) throws -> RawHTTPResponse {
            guard done.wait(timeout: .now() + seconds) == .success else { throw HTTPTestError("the drill did not end within \(seconds) s") }
            if let error { throw error }
            guard let response else { throw HTTPTestError("no response") }
            return response
        }
    }

    func server() throws -> InProcessHTTPServer {
        let access = TestAccess()
        // ("_:*": TestAccess asks a scope of the host's own routes too; the site's access layer asks only a credential.)
        access.addToken("coach", name: "coach's phone", scopes: ["tennis:*", "_:*"])
        access.addToken("other", name: "another phone", scopes: ["tennis:*", "_:*"])
        let server = try InProcessHTTPServer(plugins: ["tennis": "TennisPlugin"],
                                             devices: #"{"ballmachine": {"transport": "simulator:ballmachine"}}"#, access: access)
        let saved = try httpRequest(port: server.port, "POST", "/api/tennis/drills", headers: [("Authorization", "Bearer coach"), ("Content-Type", "application/json")],
                                    body: Array(HTTPCallLeaseTests.drill.utf8))
        XCTAssertEqual(saved.status, 200, saved.text)
        return server
    }

    /// The lease route's answer: "held" / "cancelled" true or false, or "403" / "…" for another status.
    func lease(_ port: UInt16, _ method: String, _ key: String, token: String = "coach") throws -> String {
        let response = try httpRequest(port: port, method, "/api/_/leases/\(key)", headers: [("Authorization", "Bearer \(token)")])
        guard response.status == 200 else { return String(response.status) }
        let answer = try response.json()
        return "\(answer[method == "DELETE" ? "cancelled" : "held"]?.boolValue.map(String.init) ?? response.text)"
    }

    func testALeaseNotRenewedCancelsTheCallWhoseConnectionStaysOpen() throws {
        let server = try server()
        defer { server.stop() }
        let run = Run(port: server.port, lease: "page-0123456789abcdef; ms=1000")
        let response = try run.wait()
        XCTAssertEqual(response.status, 499, response.text)
        XCTAssertEqual(try response.json()["error"]?["status"]?.stringValue, "cancelled")
        // Not "by Ctrl-C" (the third outside attack): nobody pressed it.
        XCTAssertTrue(try response.json()["error"]?["message"]?.stringValue?.hasPrefix(
            "drill stopped by its client (cancelled, gone, or its lease not renewed) or the server stopping after ") == true, response.text)
        XCTAssertLessThan(run.seconds, 5, "the lease ran out after 1 s; the drill alone takes 6 s")
        // The lease went with its call.
        XCTAssertEqual(try lease(server.port, "POST", "page-0123456789abcdef"), "false")
        XCTAssertEqual(try lease(server.port, "DELETE", "page-0123456789abcdef"), "false")
    }

    func testARenewedLeaseKeepsTheCallUntilDeleteCancelsIt() throws {
        let server = try server()
        defer { server.stop() }
        let key = "page-renewed-0123456789"
        let run = Run(port: server.port, lease: "\(key); ms=2000")
        usleep(300_000)
        // Another credential neither renews nor cancels it; a key nobody holds is unknown.
        XCTAssertEqual(try lease(server.port, "POST", key, token: "other"), "403")
        let refused = try httpRequest(port: server.port, "DELETE", "/api/_/leases/\(key)", headers: [("Authorization", "Bearer other")])
        XCTAssertEqual(try refused.json()["error"]?["message"]?.stringValue,
                       "the lease \(key) holds another credential's call; only the caller that started it renews or cancels it")
        XCTAssertEqual(try lease(server.port, "DELETE", key, token: "other"), "403")
        XCTAssertEqual(try lease(server.port, "POST", "nobody-holds-this-key"), "false")
        // Renewed for 4 s (twice the 2 s lease; a renewal every 250 ms leaves room for a loaded machine), the drill goes on.
        for _ in 0..<16 {
            XCTAssertEqual(try lease(server.port, "POST", key), "true")
            usleep(250_000)
        }
        XCTAssertEqual(run.done.wait(timeout: .now()), .timedOut, "the renewed call went on")
        // The same key cannot hold a second call meanwhile.
        let second = try httpRequest(port: server.port, "POST", "/api/tennis/drills/long/run",
                                     headers: [("Authorization", "Bearer coach"), ("Content-Type", "application/json"), ("Clubhouse-Lease", key)],
                                     body: Array("{}".utf8), timeout: 10)
        XCTAssertEqual(second.status, 409, second.text)
        XCTAssertEqual(try second.json()["error"]?["message"]?.stringValue, "the lease \(key) already holds a running call; choose a new key for each call")
        XCTAssertEqual(try lease(server.port, "POST", key), "true")
        let cancelledAt = Date()
        XCTAssertEqual(try lease(server.port, "DELETE", key), "true")
        let response = try run.wait()
        XCTAssertEqual(response.status, 499, response.text)
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 2)
        XCTAssertGreaterThan(run.seconds, 4)
        XCTAssertEqual(try lease(server.port, "DELETE", key), "false", "a second DELETE finds nothing to cancel")
    }

    func testAMalformedLeaseIsRefusedBeforeTheCallRuns() throws {
        let server = try server()
        defer { server.stop() }
        for (header, message) in [("short", "Clubhouse-Lease must start with a key of 16–64 letters, digits, '-' or '_' (got 'short')"),
                                  ("page-0123456789abcdef; ms=10", "Clubhouse-Lease: 'ms=10' is not ms=N with N from 1000 to 60000")] {
            let response = try httpRequest(port: server.port, "POST", "/api/tennis/drills/long/run",
                                           headers: [("Authorization", "Bearer coach"), ("Content-Type", "application/json"), ("Clubhouse-Lease", header)],
                                           body: Array("{}".utf8))
            XCTAssertEqual(response.status, 400, response.text)
            XCTAssertEqual(try response.json()["error"]?["message"]?.stringValue, message)
        }
        let sessions = try httpRequest(port: server.port, "GET", "/api/tennis/sessions", headers: [("Authorization", "Bearer coach")])
        XCTAssertEqual(try sessions.json()["sessions"]?.arrayValue?.count, 0, "nothing ran")
        // Without a credential the lease routes answer 401; another method 405.
        XCTAssertEqual(try httpRequest(port: server.port, "POST", "/api/_/leases/page-0123456789abcdef").status, 401)
        let get = try httpRequest(port: server.port, "GET", "/api/_/leases/page-0123456789abcdef", headers: [("Authorization", "Bearer coach")])
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.header("allow"), "DELETE, OPTIONS, POST")
    }
}
