// The HTTP/1.1 request parser of `serve --http` (HTTPRequestParser.swift): what it accepts, and every
// framing shape it refuses with its status — the request-smuggling shapes first (Content-Length with
// Transfer-Encoding, two Content-Lengths, obs-fold, bare LF, NUL), then the limits, then the target.

import XCTest
@testable import ClubhouseFrontEnds

final class HTTPRequestParserTests: XCTestCase {
    func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) -> HTTPRequestParser.HeadResult {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { HTTPRequestParser.parseHead($0, limits: limits) }
    }

    func refusal(_ text: String, limits: HTTPLimits = HTTPLimits(), file: StaticString = #filePath, line: UInt = #line) -> HTTPRefusal? {
        guard case .refused(let r) = parse(text, limits: limits) else {
            XCTFail("expected a refusal, got \(parse(text, limits: limits))", file: file, line: line)
            return nil
        }
        return r
    }

    func head(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> HTTPRequestHead? {
        guard case .complete(let h) = parse(text) else {
            XCTFail("expected a complete head, got \(parse(text))", file: file, line: line)
            return nil
        }
        return h
    }

    func testASimpleRequest() throws {
        let h = try XCTUnwrap(head("GET /api/putting/courses?x=1 HTTP/1.1\r\nHost: club\r\nAccept:  application/json \r\n\r\n"))
        XCTAssertEqual(h.method, "GET")
        XCTAssertEqual(h.target, "/api/putting/courses?x=1")
        XCTAssertEqual(h.rawPath, "/api/putting/courses")
        XCTAssertEqual(h.rawQuery, "x=1")
        XCTAssertEqual(h.header("accept"), "application/json")
        XCTAssertEqual(h.header("host"), "club")
        XCTAssertTrue(h.keepAlive)
        XCTAssertEqual(h.contentLength, 0)
        XCTAssertEqual(h.headBytes, 81)
    }

    func testKeepAliveFollowsTheVersionAndConnection() throws {
        XCTAssertFalse(try XCTUnwrap(head("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")).keepAlive)
        XCTAssertFalse(try XCTUnwrap(head("GET / HTTP/1.0\r\n\r\n")).keepAlive)
        XCTAssertTrue(try XCTUnwrap(head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")).keepAlive)
    }

    func testSmugglingShapesAreRefused() {
        XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n")?.status, 400)
        XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n")?.message,
                       "both Content-Length and Transfer-Encoding: the body's length is ambiguous; send Content-Length alone")
        XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"),
                       HTTPRefusal(411, "chunked bodies are not accepted; send the body with a Content-Length"))
        XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")?.status, 501)
        XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"),
                       HTTPRefusal(400, "Content-Length is given 2 times; send it once"))
        XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n")?.status, 400)
        for bad in ["+5", "5 5", "-1", "0x5", "5,5", ""] {
            XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(bad)\r\n\r\n")?.status, 400, bad)
        }
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n"),
                       HTTPRefusal(400, "a header line starts with whitespace (obsolete line folding is not accepted)"))
        XCTAssertEqual(refusal("GET / HTTP/1.1\nHost: a\n\n"), HTTPRefusal(400, "a line ends with a bare LF; HTTP lines end with CRLF"))
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost: a\nX: y\r\n\r\n")?.status, 400)
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost: a\u{0}b\r\n\r\n"), HTTPRefusal(400, "the request head contains a NUL byte"))
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost : a\r\n\r\n")?.status, 400)
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n")?.status, 400)
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost: a\u{1}b\r\n\r\n")?.status, 400)
    }

    func testHostIsRequiredOnceInHTTP11() {
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\n\r\n"), HTTPRefusal(400, "an HTTP/1.1 request needs a Host header"))
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")?.status, 400)
    }

    func testTheRequestLine() {
        XCTAssertEqual(refusal("GET / HTTP/2.0\r\nHost: a\r\n\r\n")?.status, 505)
        XCTAssertEqual(refusal("GET / HTTP/1.1x\r\nHost: a\r\n\r\n")?.status, 400)
        XCTAssertEqual(refusal("GET  / HTTP/1.1\r\nHost: a\r\n\r\n")?.status, 400)
        XCTAssertEqual(refusal("BREW /pot HTTP/1.1\r\nHost: a\r\n\r\n")?.status, 501)
        XCTAssertEqual(refusal("GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n")?.status, 400)
        XCTAssertEqual(refusal("GET * HTTP/1.1\r\nHost: a\r\n\r\n")?.status, 400)
        XCTAssertNotNil(head("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"))
        XCTAssertNotNil(head("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"))
    }

    func testLimits() {
        var limits = HTTPLimits()
        limits.requestLineBytes = 64
        let long = "GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        XCTAssertEqual(refusal(long, limits: limits), HTTPRefusal(414, "the request line is longer than 64 bytes"))
        // Before the line ends: refused as soon as it is longer than the bound.
        XCTAssertEqual(refusal("GET /" + String(repeating: "a", count: 100), limits: limits)?.status, 414)
        limits = HTTPLimits()
        limits.headerBytes = 256
        let big = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 300) + "\r\n\r\n"
        XCTAssertEqual(refusal(big, limits: limits), HTTPRefusal(431, "the request head is longer than 256 bytes"))
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 300), limits: limits)?.status, 431)
        limits = HTTPLimits()
        limits.headerCount = 3
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits),
                       HTTPRefusal(431, "more than 3 header lines"))
    }

    func testExpect() throws {
        XCTAssertTrue(try XCTUnwrap(head("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")).expectsContinue)
        XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: a\r\nExpect: tea\r\n\r\n")?.status, 417)
    }

    func testAHeadArrivingByteByByteParsesTheSame() throws {
        let text = Array("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi".utf8)
        var scanned = 0
        for end in 1...text.count {
            let result = text[0..<end].withUnsafeBufferPointer { HTTPRequestParser.parseHead($0, scanned: scanned, limits: HTTPLimits()) }
            switch result {
            case .incomplete(let s):
                XCTAssertLessThan(end, text.count - 1)
                scanned = s
            case .complete(let h):
                XCTAssertEqual(end, text.count - 2)
                XCTAssertEqual(h.contentLength, 2)
                XCTAssertEqual(h.headBytes, end)
                return
            case .refused(let r):
                XCTFail("refused at \(end): \(r)")
                return
            }
        }
        XCTFail("never complete")
    }

    func testTargets() throws {
        let t = try HTTPTarget.decode("/a/b%20c/?x=1&y=a+b&z=%41%42&flag").get()
        XCTAssertEqual(t.segments, ["a", "b c"])
        XCTAssertTrue(t.trailingSlash)
        XCTAssertEqual(t.query.map(\.name), ["x", "y", "z", "flag"])
        XCTAssertEqual(t.query.map(\.value), ["1", "a b", "AB", ""])
        func refused(_ target: String) -> HTTPRefusal? {
            if case .failure(let r) = HTTPTarget.decode(target) { return r }
            return nil
        }
        XCTAssertEqual(refused("/ui/putting/../x")?.status, 400)
        XCTAssertEqual(refused("/ui/putting/%2e%2e/x")?.message,
                       "the path has a '..' segment (percent-encoded); paths cannot climb out of a route or a folder")
        XCTAssertEqual(refused("/ui/%2E%2e")?.status, 400)
        XCTAssertEqual(refused("/ui/./x")?.status, 400)
        XCTAssertEqual(refused("/a/%2fetc")?.message, "a path segment has an encoded '/' or '\\'")
        XCTAssertEqual(refused("/a/%5cetc")?.status, 400)
        XCTAssertEqual(refused("/a//b")?.status, 400)
        XCTAssertEqual(refused("/a/%zz")?.status, 400)
        XCTAssertEqual(refused("/a/%f")?.status, 400)
        XCTAssertEqual(refused("/a/%ff")?.message, "percent-encoding in '%ff' is not UTF-8")
        XCTAssertEqual(refused("/a/%00")?.status, 400)
        XCTAssertEqual(refused("/a?x=%00")?.status, 400)
        XCTAssertEqual(refused("/a?=1")?.status, 400)
    }

    func testResponsesCarryTheRequestIdAndOneLineErrors() {
        let response = HTTPResponse.error(404, "no route\nfor this")
        let text = String(decoding: response.serialized(requestID: "abc-1", date: "Thu, 26 Nov 2026 18:30:08 GMT"), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 404 Not Found\r\n"), text)
        XCTAssertTrue(text.contains("\r\nX-Request-Id: abc-1\r\n"))
        XCTAssertTrue(text.contains("\r\nX-Content-Type-Options: nosniff\r\n"))
        XCTAssertTrue(text.hasSuffix("\r\n\r\n{\"error\":{\"status\":\"not-found\",\"message\":\"no route for this\"}}\n"), text)
        XCTAssertEqual(HTTPDate.format(1_795_651_200), "Thu, 26 Nov 2026 00:00:00 GMT")
    }

    func testTrustedProxyRanges() throws {
        let range = try XCTUnwrap(IPRange("10.0.0.0/8"))
        XCTAssertTrue(range.contains("10.1.2.3"))
        XCTAssertTrue(range.contains("::ffff:10.1.2.3"))
        XCTAssertFalse(range.contains("11.0.0.1"))
        XCTAssertTrue(try XCTUnwrap(IPRange("::1")).contains("::1"))
        XCTAssertFalse(try XCTUnwrap(IPRange("2001:db8::/32")).contains("2001:db9::1"))
        XCTAssertNil(IPRange("proxy.example"))
        XCTAssertNil(IPRange("10.0.0.0/33"))
    }
}
