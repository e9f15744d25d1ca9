// Repeated writes over `serve --http` (Host/HTTP.md, "Repeated writes"): a score sent again with the
// same Idempotency-Key — a phone that lost the answer when its connection dropped — is entered once and
// answered as the first time; the same key for another request is refused; the key is the caller's own.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPIdempotencyTests: XCTestCase {
    /// The fifth outside attack (a23): one token's 300 keyed 340 KB answers held 105 MB — the keys were bounded
    /// by count only. Now by bytes too, one credential holding at most a quarter: its own oldest go first, another
    /// phone's key stays, and an answer over the share is not kept (a repeat is told it ran, never run twice).
    func testKeptAnswersAreBoundedInBytesAndOneCallerCannotPushOutAnothers() {
        let keys = IdempotencyKeys(maxBytes: 400_000)
        func request(_ n: Int) -> IdempotencyKeys.Request { .init(method: "POST", target: "/api/x/\(n)", body: Array(repeating: 7, count: 50_000)) }
        let answer = HTTPResponse(status: 200, body: Array(repeating: 1, count: 60_000))
        // Another phone's score, kept first.
        guard case .run = keys.start(caller: "token:phone POST /api/x", owner: "token:phone", key: "p1", request: request(0), now: 0) else { return XCTFail("not run") }
        keys.finish(caller: "token:phone POST /api/x", key: "p1", response: answer)
        // A greedy client sends 50 keyed writes with large answers.
        for n in 1...50 {
            guard case .run = keys.start(caller: "token:greedy POST /api/x", owner: "token:greedy", key: "g\(n)", request: request(n), now: Int64(n)) else {
                return XCTFail("greedy \(n) not run")
            }
            keys.finish(caller: "token:greedy POST /api/x", key: "g\(n)", response: answer)
        }
        XCTAssertLessThanOrEqual(keys.bytesHeld, 400_000, "the byte bound")
        // The phone's key still answers its repeat (bodies are kept as digests: the same body matches).
        guard case .answer(let replay) = keys.start(caller: "token:phone POST /api/x", owner: "token:phone", key: "p1", request: request(0), now: 60) else {
            return XCTFail("the phone's key was pushed out by another client")
        }
        XCTAssertEqual(replay.status, 200)
        XCTAssertEqual(replay.body.count, 60_000)
        XCTAssertTrue(replay.headers.contains { $0.name == "Idempotent-Replayed" })
        // The greedy client's latest key is kept; its first went to make room.
        guard case .answer = keys.start(caller: "token:greedy POST /api/x", owner: "token:greedy", key: "g50", request: request(50), now: 61) else {
            return XCTFail("the latest key was not kept")
        }
        guard case .run = keys.start(caller: "token:greedy POST /api/x", owner: "token:greedy", key: "g1", request: request(1), now: 62) else {
            return XCTFail("the oldest key of the greedy client was kept past its share")
        }
        // An answer larger than a caller's share (100,000 bytes) is not kept: a repeat is told the request ran.
        guard case .run = keys.start(caller: "token:phone POST /api/x", owner: "token:phone", key: "big", request: request(99), now: 63) else { return XCTFail("not run") }
        keys.finish(caller: "token:phone POST /api/x", key: "big", response: HTTPResponse(status: 200, body: Array(repeating: 2, count: 150_000)))
        XCTAssertLessThanOrEqual(keys.bytesHeld, 400_000)
        guard case .answer(let told) = keys.start(caller: "token:phone POST /api/x", owner: "token:phone", key: "big", request: request(99), now: 64) else {
            return XCTFail("a repeat of a request whose answer was not kept ran again")
        }
        XCTAssertEqual(told.status, 409)
        XCTAssertTrue(String(decoding: told.body, as: UTF8.self).contains("already ran; its answer (150000 bytes) was too large to keep (a quarter of --http-idempotency-bytes)"),
                      String(decoding: told.body, as: UTF8.self))
    }

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
