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
        // The greedy client's latest answer is kept; its first answer went to make room, but not its key: a repeat
        // is told the request ran (never run twice).
        guard case .answer(let latest) = keys.start(caller: "token:greedy POST /api/x", owner: "token:greedy", key: "g50", request: request(50), now: 61) else {
            return XCTFail("the latest key was not kept")
        }
        XCTAssertEqual(latest.status, 200)
        guard case .answer(let oldest) = keys.start(caller: "token:greedy POST /api/x", owner: "token:greedy", key: "g1", request: request(1), now: 62) else {
            return XCTFail("the oldest key of the greedy client was forgotten: its repeat would run twice")
        }
        XCTAssertEqual(oldest.status, 409)
        XCTAssertTrue(String(decoding: oldest.body, as: UTF8.self).contains("already ran; its answer (60000 bytes) could not be kept"), String(decoding: oldest.body, as: UTF8.self))
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

    /// The sixth outside attack: five credentials each filling their quarter pushed out a victim's keys — a finished
    /// one (its repeat ran again) and one still running (its repeat ran instead of 409 busy). Now nothing unexpired
    /// is pushed out by another caller: a full store refuses the NEW keyed write with 503 and Retry-After (until the
    /// oldest key expires), and an answer that finds no room is told as ran (409), never run twice.
    func testSeveralCallersTogetherNeverPushOutAnothersKeys() throws {
        let keys = IdempotencyKeys(maxBytes: 400_000)
        func request(_ n: Int) -> IdempotencyKeys.Request { .init(method: "POST", target: "/api/x/\(n)", body: Array(repeating: 7, count: 100)) }
        let answer = HTTPResponse(status: 200, body: Array(repeating: 1, count: 20_000))
        // The victim's score, answered, and another of its writes still running.
        guard case .run = keys.start(caller: "token:phone POST /api/x", owner: "token:phone", key: "done", request: request(0), now: 0) else { return XCTFail("not run") }
        keys.finish(caller: "token:phone POST /api/x", key: "done", response: answer)
        guard case .run = keys.start(caller: "token:phone POST /api/x", owner: "token:phone", key: "running", request: request(1), now: 1) else { return XCTFail("not run") }
        // Five credentials each fill their quarter (100,000 bytes) with large answers, then keep sending.
        var refusals: [(key: String, now: Int64, response: HTTPResponse)] = [], toldAsRan = 0
        for g in 1...5 {
            for n in 1...100 {
                let caller = "token:g\(g) POST /api/x", now = Int64(1000 * g + n)
                switch keys.start(caller: caller, owner: "token:g\(g)", key: "k\(n)", request: request(n), now: now) {
                case .run:
                    keys.finish(caller: caller, key: "k\(n)", response: answer)
                    if case .answer(let again) = keys.start(caller: caller, owner: "token:g\(g)", key: "k\(n)", request: request(n), now: now), again.status == 409 {
                        toldAsRan += 1
                        XCTAssertTrue(String(decoding: again.body, as: UTF8.self).contains("already ran; its answer (20000 bytes) could not be kept (the server's Idempotency-Keys were at their bound, --http-idempotency-bytes)"),
                                      String(decoding: again.body, as: UTF8.self))
                    }
                case .answer(let refused): refusals.append(("k\(n)", now, refused))
                }
            }
        }
        XCTAssertLessThanOrEqual(keys.bytesHeld, 400_000, "the byte bound")
        XCTAssertGreaterThan(toldAsRan, 0, "an answer that found no room")
        // The victim's answered key still answers its repeat, and its running key still says busy.
        guard case .answer(let replay) = keys.start(caller: "token:phone POST /api/x", owner: "token:phone", key: "done", request: request(0), now: 6000) else {
            return XCTFail("the phone's answered key was pushed out by other credentials: its repeat would run again")
        }
        XCTAssertEqual(replay.status, 200)
        XCTAssertEqual(replay.header("idempotent-replayed"), "true")
        guard case .answer(let busy) = keys.start(caller: "token:phone POST /api/x", owner: "token:phone", key: "running", request: request(1), now: 6001) else {
            return XCTFail("the phone's running key was pushed out by other credentials: its repeat ran beside it")
        }
        XCTAssertEqual(busy.status, 409)
        XCTAssertEqual(try JSONParser.parse(bytes: busy.body)["error"]?["status"]?.stringValue, "busy")
        // The new keyed writes were refused instead: 503, Retry-After until the oldest key (at 0 ms) expires.
        let refused = try XCTUnwrap(refusals.first, "a full store refused nothing")
        let seconds = (IdempotencyKeys.lifetimeMilliseconds - refused.now + 999) / 1000
        XCTAssertEqual(refused.response.status, 503)
        XCTAssertEqual(refused.response.header("retry-after"), String(seconds))
        XCTAssertEqual(try JSONParser.parse(bytes: refused.response.body)["error"]?["message"]?.stringValue,
                       "the request with Idempotency-Key '\(refused.key)' did not run: the server holds as many Idempotency-Keys as it may (--http-idempotency-bytes, 40000 keys) and forgets none before its day is over (a repeat would run twice); send it again with the same key after Retry-After (\(seconds) s), or ask the host's administrator to raise --http-idempotency-bytes")
        // A day later the oldest keys have expired: keyed writes run again, within the bound.
        guard case .run = keys.start(caller: "token:g5 POST /api/x", owner: "token:g5", key: "later", request: request(9), now: IdempotencyKeys.lifetimeMilliseconds + 1) else {
            return XCTFail("expired keys did not make room")
        }
        XCTAssertLessThanOrEqual(keys.bytesHeld, 400_000)
    }

    /// One credential holds at most a quarter of the keys by count too, and forgets none of them before its day is
    /// over: past its quarter its NEW keyed write is refused (503, Retry-After until its oldest key expires), nothing
    /// of another's is touched; four that fill the store get 503 for the next; a credential whose quarter of the bytes
    /// is full of its own requests still running is told to retry in a second.
    func testOneCallerHoldsAtMostAQuarterOfTheKeys() throws {
        let keys = IdempotencyKeys(capacity: 8, maxBytes: 1 << 20)
        func request(_ n: Int) -> IdempotencyKeys.Request { .init(method: "POST", target: "/api/x/\(n)", body: []) }
        func write(_ who: String, _ key: String, _ n: Int, now: Int64, finish: Bool = true, in other: IdempotencyKeys? = nil) -> HTTPResponse? {
            let store = other ?? keys
            switch store.start(caller: "\(who) POST /api/x", owner: who, key: key, request: request(n), now: now) {
            case .run:
                if finish { store.finish(caller: "\(who) POST /api/x", key: key, response: HTTPResponse(status: 200, body: [1])) }
                return nil
            case .answer(let response): return response
            }
        }
        XCTAssertNil(write("phone", "p", 0, now: 0))
        for n in 1...2 { XCTAssertNil(write("greedy", "g\(n)", n, now: Int64(n)), "greedy \(n)") }
        let past = try XCTUnwrap(write("greedy", "g3", 3, now: 3), "a credential past its quarter of the keys")
        XCTAssertEqual(past.status, 503)
        XCTAssertEqual(past.header("retry-after"), "86400")
        XCTAssertEqual(try JSONParser.parse(bytes: past.body)["error"]?["message"]?.stringValue,
                       "the request with Idempotency-Key 'g3' did not run: this credential holds its quarter of the server's Idempotency-Keys (2 of 8 keys a day, a quarter of --http-idempotency-bytes) and forgets none before its day is over (a repeat would run twice); send it again with the same key after Retry-After (86400 s)")
        XCTAssertEqual(write("phone", "p", 0, now: 20)?.header("idempotent-replayed"), "true", "one caller pushed out another's key")
        XCTAssertEqual(write("greedy", "g1", 1, now: 21)?.header("idempotent-replayed"), "true", "its own oldest key was forgotten: its repeat would run twice")
        // Three more callers fill the store: phone 1 + greedy 2 + a 2 + b 2 + c 1 = 8 keys.
        for who in ["a", "b"] { for n in 1...2 { XCTAssertNil(write(who, "k\(n)", n, now: 30)) } }
        XCTAssertNil(write("c", "k1", 1, now: 40))
        let full = try XCTUnwrap(write("c", "k2", 2, now: 41))
        XCTAssertEqual(full.status, 503)
        XCTAssertEqual(full.header("retry-after"), "86400")
        // A day after its first key the greedy credential writes again (its expired keys made room).
        XCTAssertNil(write("greedy", "g3", 3, now: IdempotencyKeys.lifetimeMilliseconds + 2))
        // A credential whose quarter of the bytes (1024) holds only its own requests still running: retry in a second.
        let running = IdempotencyKeys(capacity: 1000, maxBytes: 4096)
        var refused: HTTPResponse?
        for n in 1...20 where refused == nil { refused = write("r", "k\(n)", n, now: 0, finish: false, in: running) }
        let wait = try XCTUnwrap(refused, "running keys were pushed out by their own caller's next")
        XCTAssertEqual(wait.status, 503)
        XCTAssertEqual(wait.header("retry-after"), "1")
        XCTAssertTrue(try JSONParser.parse(bytes: wait.body)["error"]?["message"]?.stringValue?.hasSuffix(
            "did not run: this credential's quarter of the Idempotency-Keys (--http-idempotency-bytes) is full of its own requests still running; send it again with the same key after Retry-After (1 s)") ?? false)
    }

    /// The eighth outside attack (a27, a28): past its quarter a credential's own oldest answered keys were forgotten,
    /// so a phone resending its offline queue ran a forgotten write again, whose new key pushed out the next one just
    /// before it was resent — every write of the queue ran twice. Now a key stays its whole day: room is made by
    /// dropping ANSWERS (the key stays, its repeat told the request ran), and a credential whose quarter of the keys
    /// is full gets 503 for a NEW key. The whole queue resent runs nothing again.
    func testAnOfflineQueueResentRunsNoWriteTwice() throws {
        let keys = IdempotencyKeys(capacity: 40, maxBytes: 40_000) // a quarter: 10 keys, 10,000 bytes
        func request(_ n: Int) -> IdempotencyKeys.Request { .init(method: "POST", target: "/api/x/scores", body: Array("score \(n)".utf8)) }
        var ran: [Int] = [], refused = 0
        // The queue: 14 keyed scores with 2,000-byte answers (past the credential's bytes and its keys).
        for pass in 1...2 {
            for n in 0..<14 {
                switch keys.start(caller: "token:phone POST /api/x/scores", owner: "token:phone", key: "q\(n)", request: request(n), now: Int64(pass * 100 + n)) {
                case .run:
                    ran.append(n)
                    keys.finish(caller: "token:phone POST /api/x/scores", key: "q\(n)", response: HTTPResponse(status: 200, body: Array(repeating: 1, count: 2_000)))
                case .answer(let answer):
                    XCTAssertTrue([200, 409, 503].contains(answer.status), "\(answer.status)")
                    if answer.status == 503 { refused += 1 } else if pass == 1 { XCTFail("q\(n) answered before it ran") }
                }
                XCTAssertLessThanOrEqual(keys.bytesHeld, 10_000, "the credential's quarter of the bytes")
            }
        }
        XCTAssertEqual(ran, Array(0..<10), "a write ran twice, or a kept key was forgotten")
        XCTAssertEqual(refused, 8, "q10...q13 refused on each pass (503), none run")
    }

    /// A keyed request refused before anything of it ran (a body that is not JSON, an argument the router refuses)
    /// keeps nothing: the corrected request, sent with the same key, runs (the eighth outside attack, a29: a refusal
    /// was kept for a day and answered to the corrected request).
    func testARefusalBeforeTheCallRanKeepsNothingOfItsKey() throws {
        let access = TestAccess()
        access.addToken("ann", name: "Ann's phone", scopes: ["scorecard:*"])
        let server = try InProcessHTTPServer(plugins: ["scorecard": "ScorecardPlugin"], access: access)
        defer { server.stop() }
        func call(_ method: String, _ path: String, _ body: String, key: String? = nil) throws -> RawHTTPResponse {
            var headers = [("Authorization", "Bearer ann"), ("Content-Type", "application/json")]
            if let key { headers.append(("Idempotency-Key", key)) }
            return try httpRequest(port: server.port, method, path, headers: headers, body: Array(body.utf8))
        }
        XCTAssertEqual(try call("POST", "/api/scorecard/courses", HTTPFrontDoorTests.course).status, 200)
        XCTAssertEqual(try call("POST", "/api/scorecard/players", #"{"name": "Ann"}"#).status, 200)
        XCTAssertEqual(try call("POST", "/api/scorecard/rounds", #"{"course": "Tour Links", "tee": "White", "players": ["Ann"], "holes": 9}"#).status, 200)
        let notJSON = try call("POST", "/api/scorecard/rounds/1/scores", "player=Ann&hole=1", key: "fix-me")
        XCTAssertEqual(notJSON.status, 400, notJSON.text)
        let wrongType = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 1, "strokes": "five"}"#, key: "fix-me")
        XCTAssertEqual(wrongType.status, 400, "the corrected body was refused as another request: \(wrongType.text)")
        let corrected = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 1, "strokes": 5}"#, key: "fix-me")
        XCTAssertEqual(corrected.status, 200, "the corrected request did not run: \(corrected.text)")
        XCTAssertNil(corrected.header("idempotent-replayed"))
        let again = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 1, "strokes": 5}"#, key: "fix-me")
        XCTAssertEqual(again.header("idempotent-replayed"), "true", again.text)
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
        // Two Idempotency-Key headers (as one header "a, b"): which names the request cannot be told; nothing runs.
        let twice = try httpRequest(port: server.port, "POST", "/api/scorecard/rounds/1/scores",
                                    headers: [("Authorization", "Bearer ann"), ("Content-Type", "application/json"),
                                              ("Idempotency-Key", "k-one"), ("Idempotency-Key", "k-two")],
                                    body: Array(#"{"player": "Ann", "hole": 2, "strokes": 4}"#.utf8))
        XCTAssertEqual(twice.status, 400, twice.text)
        XCTAssertEqual(try twice.json()["error"]?["message"]?.stringValue,
                       "Idempotency-Key was sent 2 times; send it once, 1 to 200 visible ASCII characters, such as a random hex string; use a new one for each new request")
        XCTAssertEqual(try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 2, "strokes": 4}"#, key: "k-one").status, 200,
                       "the refused request kept nothing of its keys")
        XCTAssertEqual(try entries(), 2)
        // A refusal of the plugin's is an answer too: the repeat gets it again.
        let refused = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 99, "strokes": 5}"#, key: "a1")
        XCTAssertEqual(refused.status / 100, 4, refused.text)
        let refusedAgain = try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Ann", "hole": 99, "strokes": 5}"#, key: "a1")
        XCTAssertEqual(refusedAgain.status, refused.status)
        XCTAssertEqual(refusedAgain.header("idempotent-replayed"), "true")
        // Keys are each caller's own; without a key every request runs.
        XCTAssertEqual(try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Bob", "hole": 1, "strokes": 4}"#, token: "ben", key: "7f3a9c1e2b").status, 200)
        XCTAssertEqual(try entries(), 3)
        XCTAssertEqual(try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Bob", "hole": 2, "strokes": 3}"#).status, 200)
        XCTAssertEqual(try call("POST", "/api/scorecard/rounds/1/scores", #"{"player": "Bob", "hole": 2, "strokes": 3}"#).status, 200)
        XCTAssertEqual(try entries(), 5)
    }
}
