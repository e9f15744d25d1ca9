// The reply cache's own rules (HTTPReplyCache.swift): a kept reply only under its stamp and before it expires,
// a key per credential and target, and the bound in bytes (`--http-reply-cache-bytes`), least recently used out.

import ClubhouseHost
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPReplyCacheTests: XCTestCase {
    let stamp = ReplyStamp(reloads: 0, calls: 3, dataVersion: 7)

    func key(_ target: String, _ token: String? = "Bearer a") -> String {
        HTTPReplyCache.key(alias: "p", command: "show", target: target, authorization: token, apiKey: nil, cookies: [])
    }

    func testAReplyIsAnsweredOnlyUnderItsStampAndBeforeItExpires() {
        let cache = HTTPReplyCache(capacity: 1 << 20)
        let etag = cache.store(key("/a"), stamp: stamp, maxAge: 100, body: Array("{}\n".utf8), now: 1000)
        XCTAssertEqual(etag, HTTPReplyCache.etag(Array("{}\n".utf8)))
        XCTAssertEqual(cache.lookup(key("/a"), now: 1050) { self.stamp }?.body, Array("{}\n".utf8))
        XCTAssertNil(cache.lookup(key("/a", "Bearer b"), now: 1050) { self.stamp }, "another credential")
        XCTAssertNil(cache.lookup(key("/a", nil), now: 1050) { self.stamp }, "no credential")
        XCTAssertNil(cache.lookup(key("/a?x=1"), now: 1050) { self.stamp }, "another target")
        XCTAssertNil(cache.lookup(key("/a"), now: 1100) { self.stamp }, "expired")
        XCTAssertEqual(cache.held.replies, 0, "an expired reply is dropped")

        cache.store(key("/a"), stamp: stamp, maxAge: 100, body: [1], now: 1000)
        var changed = stamp
        changed.dataVersion += 1
        XCTAssertNil(cache.lookup(key("/a"), now: 1001) { changed }, "a commit since")
        cache.store(key("/a"), stamp: stamp, maxAge: 100, body: [1], now: 1000)
        XCTAssertNil(cache.lookup(key("/a"), now: 1001) { nil }, "the stamp cannot be read now")
        cache.store(key("/a"), stamp: stamp, maxAge: 100, body: [1], now: 1000)
        changed = stamp
        changed.calls += 1
        XCTAssertNil(cache.lookup(key("/a"), now: 1001) { changed }, "another command ran")
        XCTAssertEqual(cache.held.bytes, 0)
    }

    func testTheBoundInBytesHoldsAndTheLeastRecentlyUsedGoFirst() {
        let cache = HTTPReplyCache(capacity: 8192)
        let body = [UInt8](repeating: 0x20, count: 400)
        for i in 0..<100 {
            cache.store(key("/r/\(i)"), stamp: stamp, maxAge: 60_000, body: body, now: 0)
            XCTAssertNotNil(cache.lookup(key("/r/0"), now: 1) { self.stamp }, "kept while it is used")
            XCTAssertLessThanOrEqual(cache.held.bytes, 8192)
        }
        XCTAssertGreaterThan(cache.held.replies, 10)
        XCTAssertNotNil(cache.lookup(key("/r/99"), now: 1) { self.stamp })
        XCTAssertNil(cache.lookup(key("/r/1"), now: 1) { self.stamp }, "the least recently used went")
        // A reply larger than an eighth of the bound is not kept; a bound of 0 keeps nothing.
        cache.store(key("/big"), stamp: stamp, maxAge: 60_000, body: [UInt8](repeating: 1, count: 1100), now: 0)
        XCTAssertNil(cache.lookup(key("/big"), now: 1) { self.stamp })
        let none = HTTPReplyCache(capacity: 0)
        none.store(key("/a"), stamp: stamp, maxAge: 60_000, body: [1], now: 0)
        XCTAssertEqual(none.held.replies, 0)
    }
}
