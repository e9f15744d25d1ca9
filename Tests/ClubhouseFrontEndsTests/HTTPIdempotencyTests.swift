// Repeated writes over `serve --http` (Host/HTTP.md, "Repeated writes"): a score sent again with the
// same Idempotency-Key — a phone that lost the answer when its connection dropped — is entered once and
// answered as the first time; the same key for another request is refused; the key is the caller's own.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPIdempotencyTests: XCTestCase {
    func testAScoreSentAgainWithItsKeyIsEnteredOnce() throws {
        let access = TestAccess()
        access.addToken("ann", name: "Ann's phone", scopes: ["scorecard:*"])
        access.addToken("ben", name: "Ben's phone", scopes: ["scorecard:*"])
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin"], access: access)
        defer { server.stop() }
        func call(_ method: String, _ path: String, _ body: String? = nil, token: String = "ann", key: String? = nil) throws -> RawHTTPResponse {
            var headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
            if let key { headers.append(("Idempotency-Key", key)) }
            return try httpRequest(port: server.port, method, path, headers: headers, body: Array((body ?? "").utf8))
        }
        XCTAssertEqual(try call("POST", "/api/scorecard/courses", HTTPFrontDoorTests.course).status, 200)
        for name in ["Ann", "Bob"] { XCTAssertEqual(try call("POST", "/api/scorecard/players", #"{"name": "\#(name)"}"#).status, 200) }
        let round = try call("POST", "/api/scorecard/rounds", #"{"course": "Tour Links", "tee": "White", "players": ["Ann", "Bob"], "holes": 9}"#)
        XCTAssertEqual(round.status, 200, round.text)
        func entries() throws -> Int { try call("GET", "/api/scorecard/rounds/1/entries").json()["entries"]?.arrayValue?.count ?? -1 }

        let score = #"{"player": "Ann", "hole": 1, "strokes": 5}"#
        let first = try call("POST", "/api/scorecard/rounds/1/scores", score, key: "7f3a9c1e2b")
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertNil(first.header("idempotent-replayed"))
        let again = try call("POST", "/api/scorecard/rounds/1/scores", score, key: "7f3a9c1e2b")
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(again.header("idempotent-replayed"), "true")
        XCTAssertEqual(again.body, first.body)
        XCTAssertEqual(try entries(), 1)

        // The same key for another score: refused, nothing entered.
        let other = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 1, "strokes": 6}"#, key: "7f3a9c1e2b")
        XCTAssertEqual(other.status, 422, other.text)
        XCTAssertEqual(try other.json()["error"]?["message"]?.stringValue,
                       "Idempotency-Key '7f3a9c1e2b' was used for another request (POST /api/scorecard/rounds/1/scores); use a new key for a new request")
        XCTAssertEqual(try entries(), 1)
        // A key that is not one.
        let bad = try call("POST", "/api/scorecard/rounds/1/scores", score, key: "two words")
        XCTAssertEqual(bad.status, 400, bad.text)
        XCTAssertEqual(try bad.json()["error"]?["message"]?.stringValue,
                       "Idempotency-Key must be 1 to 200 visible ASCII characters, such as a random hex string; use a new one for each new request")
        // A refusal of the plugin's is an answer too: the repeat gets it again.
        let refused = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 99, "strokes": 5}"#, key: "a1")
        XCTAssertEqual(refused.status / 100, 4, refused.text)
        let refusedAgain = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 99, "strokes": 5}"#, key: "a1")
        XCTAssertEqual(refusedAgain.status, refused.status)
        XCTAssertEqual(refusedAgain.header("idempotent-replayed"), "true")
        // Keys are each caller's own; without a key every request runs.
        XCTAssertEqual(try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Bob", "hole": 1, "strokes": 4}"#, token: "ben", key: "7f3a9c1e2b").status, 200)
        XCTAssertEqual(try entries(), 2)
        XCTAssertEqual(try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Bob", "hole": 2, "strokes": 3}"#).status, 200)
        XCTAssertEqual(try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Bob", "hole": 2, "strokes": 3}"#).status, 200)
        XCTAssertEqual(try entries(), 4)
    }
}
