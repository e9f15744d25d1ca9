// HTTP/1.1 requests as `clubhouse serve --http` reads them: strictly, refusing early, never guessing.
// Pure functions over bytes (no sockets), so the fuzz target (Fuzz/Sources/fuzz-http) and the unit tests
// drive exactly what the server runs.
//
// What is refused, and with which status (nginx and H2O refuse ambiguous framing rather than guess):
// - a request line longer than `requestLineBytes` → 414; a head (request line and headers) longer than
//   `headerBytes` or with more than `headerCount` headers → 431;
// - a bare LF (a line not ended by CRLF), a NUL or another control character, an obs-fold (a header line
//   starting with a space or tab), whitespace before a header's colon, a malformed request line → 400;
// - a version other than HTTP/1.1 or HTTP/1.0 → 505; a method the server does not implement → 501;
// - `Transfer-Encoding` with `Content-Length` → 400 (the classic smuggling shape); `Transfer-Encoding:
//   chunked` alone → 411 (send Content-Length); any other `Transfer-Encoding` → 501;
// - two `Content-Length` headers (equal or not), or one that is not a plain decimal number → 400;
// - no `Host` in HTTP/1.1, or two → 400; an `Expect` other than 100-continue → 417.

import ClubhouseHost  // PercentDecoding

/// The bounds on what a client may send; each has a name, a default, a `serve` option and a test.
public struct HTTPLimits: Sendable, Equatable {
    /// Bytes of the request line (method, target, version), CRLF excluded. `--http-max-request-line`.
    public var requestLineBytes = 8192
    /// Bytes of the whole head: request line and headers up to the blank line. `--http-max-header-bytes`.
    public var headerBytes = 32768
    /// Header lines in one request. `--http-max-headers`.
    public var headerCount = 100
    /// The largest body a route that sets no `max_body` accepts. `--http-max-body`.
    public var bodyBytes = 1 << 20
    /// Bytes of request bodies held in memory at once, across all connections: a body counts from its head
    /// (its declared length) until its response is queued. A head whose body would go over is answered 503
    /// at once, its body never read. nil: four times the largest body the site's routes and `bodyBytes`
    /// allow, and at least 64 MiB (HTTPFrontEnd.bodyMemoryLimits). `--http-max-body-memory`.
    public var bodyMemoryBytes: Int?
    /// From the first byte of a request (or the connection's opening) to its blank line. `--http-header-timeout-ms`.
    public var headerTimeoutMilliseconds: Int64 = 10_000
    /// From the end of the head to the end of the body, plus one second per `bodyBytesPerSecond` the body
    /// declares. `--http-body-timeout-ms`.
    public var bodyTimeoutMilliseconds: Int64 = 10_000
    /// The slowest body upload the body timeout allows for.
    public var bodyBytesPerSecond = 16_384
    /// Between the end of a response and the first byte of the next request on a kept-alive connection.
    /// `--http-idle-timeout-ms`.
    public var idleTimeoutMilliseconds: Int64 = 30_000
    /// From a response's first byte waiting on the socket to its last taken by the client. `--http-send-timeout-ms`.
    public var sendTimeoutMilliseconds: Int64 = 60_000
    /// HTTP clients connected at once; at the bound the idlest kept-alive client is closed to make room, and
    /// when none is idle the newcomer gets 503. `--http-max-connections`.
    public var maxConnections = 1024
    /// How long a refused client's remaining input is read and dropped after the response, before closing
    /// (so that the response is not lost to a reset).
    public var lingerMilliseconds: Int64 = 2000
    /// Between two writes to an event stream: a comment line keeps proxies and browsers from timing out.
    /// `--http-heartbeat-ms`.
    public var heartbeatMilliseconds: Int64 = 15_000
    /// Bytes of events an event stream's client may leave unread; one more event and it is dropped (with a
    /// reset), so a slow reader costs the others nothing. `--http-max-event-backlog`.
    public var eventBacklogBytes = 256 << 10
    /// Bytes of kept replies of reads their plugin declared "cache" for (bodies and keys), least recently used
    /// out first; 0 keeps none (HTTPReplyCache). `--http-reply-cache-bytes`.
    public var replyCacheBytes = 16 << 20
    /// Bytes of Idempotency-Key entries (keys, request digests, kept answers), kept a day, one credential at most a
    /// quarter (its own oldest answers dropped first, their keys kept); full of keys, a new keyed write is refused
    /// (IdempotencyKeys).
    /// `--http-idempotency-bytes`.
    public var idempotencyBytes = 64 << 20
    /// Event streams (`/api/<alias>/events`, and followed calls' streams) one credential may have open at once;
    /// one more is refused with 429 (close one first).
    public var streamsPerCredential = 16
    /// Event streams one client address (a trusted proxy's forwarded one) may have open at once; one more: 429.
    public var streamsPerAddress = 64
    /// Event streams open at once on the whole server: three quarters of `maxConnections`, so a quarter of the
    /// connections is always left for requests. One more is refused with 503.
    public var maxStreams: Int { maxConnections - max(1, maxConnections / 4) }

    public init() {}
}

/// A refusal: the status, and a one-line message for the client.
public struct HTTPRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var message: String
    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
    public var description: String { "\(status) \(message)" }
}

/// A request's head, parsed and checked.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: String
    /// The request target as sent (origin-form: path and query).
    public var target: String
    public var versionMinor: Int
    /// Header names lowercased, values trimmed of surrounding spaces and tabs, in order.
    public var headers: [(name: String, value: String)]
    public var contentLength: Int
    /// The connection stays open after the response (HTTP/1.1 unless `Connection: close`; HTTP/1.0 only
    /// with `Connection: keep-alive`).
    public var keepAlive: Bool
    public var expectsContinue: Bool
    /// Bytes of the head, blank line included.
    public var headBytes: Int

    /// The first value of header `name` (lowercase).
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// Every value of header `name` (lowercase).
    public func headers(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }

    /// The path part of the target (before `?`).
    public var rawPath: Substring { target.prefix { $0 != "?" } }
    /// The query part (after the first `?`), empty when there is none.
    public var rawQuery: Substring {
        guard let q = target.firstIndex(of: "?") else { return "" }
        return target[target.index(after: q)...]
    }

    public static func == (a: HTTPRequestHead, b: HTTPRequestHead) -> Bool {
        a.method == b.method && a.target == b.target && a.versionMinor == b.versionMinor
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
            && a.contentLength == b.contentLength && a.keepAlive == b.keepAlive && a.expectsContinue == b.expectsContinue
            && a.headBytes == b.headBytes
    }
}

public enum HTTPRequestParser {
    /// Methods the server implements (others are 501).
    public static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    public enum HeadResult: Sendable, Equatable {
        /// No blank line yet and nothing wrong so far; `scanned` bytes need not be looked at again.
        case incomplete(scanned: Int)
        case complete(HTTPRequestHead)
        case refused(HTTPRefusal)
    }

    /// Looks for a complete head at the start of `bytes`. `scanned`: how many bytes an earlier call already
    /// found free of a blank line (to resume there).
    public static func parseHead(_ bytes: UnsafeBufferPointer<UInt8>, scanned: Int = 0, limits: HTTPLimits) -> HeadResult {
        let count = bytes.count
        // Leading CRLFs before a request are allowed (RFC 9112 §2.2), a few of them.
        var start = 0
        while start + 1 < count && start < 8 && bytes[start] == 0x0D && bytes[start + 1] == 0x0A { start += 2 }
        // Every check is made at a byte's position, in order, so a head read in pieces is refused for the
        // same first problem as the whole of it (the fuzz target holds the parser to that).
        var i = max(start, scanned)
        var lineEnd: Int?
        var k = start
        while k < min(i, start + limits.requestLineBytes + 2) {
            if bytes[k] == 0x0A { lineEnd = k; break }
            k += 1
        }
        var end = -1
        while i < count {
            if i - start >= limits.headerBytes {
                return .refused(HTTPRefusal(431, "the request head is longer than \(limits.headerBytes) bytes"))
            }
            let b = bytes[i]
            if lineEnd == nil && i - start >= limits.requestLineBytes && b != 0x0A && !(b == 0x0D && i - start == limits.requestLineBytes) {
                return .refused(HTTPRefusal(414, "the request line is longer than \(limits.requestLineBytes) bytes"))
            }
            if b == 0x0A {
                if i == 0 || bytes[i - 1] != 0x0D {
                    return .refused(HTTPRefusal(400, "a line ends with a bare LF; HTTP lines end with CRLF"))
                }
                if lineEnd == nil { lineEnd = i }
                if i >= start + 3 && bytes[i - 2] == 0x0A && bytes[i - 3] == 0x0D {
                    end = i + 1
                    break
                }
            } else if b == 0 {
                return .refused(HTTPRefusal(400, "the request head contains a NUL byte"))
            }
            i += 1
        }
        guard end >= 0 else { return .incomplete(scanned: count) }
        return parseCompleteHead(UnsafeBufferPointer(rebasing: bytes[start..<end]), leading: start, limits: limits)
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Parses a head whose last four bytes are CRLF CRLF and whose lines all end in CRLF.
    static func parseCompleteHead(_ head: UnsafeBufferPointer<UInt8>, leading: Int, limits: HTTPLimits) -> HeadResult {
        // Split into lines (each without its CRLF); the last two entries are the empty line and nothing.
        var lines: [Range<Int>] = []
        var lineStart = 0
        var k = 0
        while k + 1 < head.count {
            if head[k] == 0x0D {
                guard head[k + 1] == 0x0A else { return .refused(HTTPRefusal(400, "a CR that is not followed by LF")) }
                lines.append(lineStart..<k)
                k += 2
                lineStart = k
                continue
            }
            k += 1
        }
        guard let requestLine = lines.first else { return .refused(HTTPRefusal(400, "an empty request")) }
        // Request line: METHOD SP TARGET SP HTTP/1.x
        let line = UnsafeBufferPointer(rebasing: head[requestLine])
        guard let firstSpace = line.firstIndex(of: 0x20) else {
            return .refused(HTTPRefusal(400, "the request line is not METHOD TARGET HTTP/1.1"))
        }
        let methodBytes = line[0..<firstSpace]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else {
            return .refused(HTTPRefusal(400, "the request line's method is not a token"))
        }
        let rest = line[(firstSpace + 1)...]
        guard let secondSpace = rest.firstIndex(of: 0x20) else {
            return .refused(HTTPRefusal(400, "the request line is not METHOD TARGET HTTP/1.1"))
        }
        let targetBytes = line[rest.startIndex..<secondSpace]
        let versionBytes = line[(secondSpace + 1)...]
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .refused(HTTPRefusal(400, "the request target is empty or has a space or control character"))
        }
        let version = String(decoding: versionBytes, as: UTF8.self)
        let minor: Int
        switch version {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default:
            let looksLikeHTTP = version.hasPrefix("HTTP/") && version.count == 8
            if looksLikeHTTP { return .refused(HTTPRefusal(505, "\(version) is not supported; speak HTTP/1.1")) }
            return .refused(HTTPRefusal(400, "the request line does not end in HTTP/1.1"))
        }
        let method = String(decoding: methodBytes, as: UTF8.self)
        let target = String(decoding: targetBytes, as: UTF8.self)
        if target.hasPrefix("/") {
            // origin-form
        } else if target == "*" {
            if method != "OPTIONS" { return .refused(HTTPRefusal(400, "the target * is for OPTIONS only")) }
        } else {
            return .refused(HTTPRefusal(400, "the request target must be a path starting with '/' (origin-form)"))
        }
        // Headers.
        var headers: [(name: String, value: String)] = []
        for range in lines.dropFirst() where !range.isEmpty {
            let h = UnsafeBufferPointer(rebasing: head[range])
            if h[0] == 0x20 || h[0] == 0x09 {
                return .refused(HTTPRefusal(400, "a header line starts with whitespace (obsolete line folding is not accepted)"))
            }
            guard let colon = h.firstIndex(of: UInt8(ascii: ":")) else {
                return .refused(HTTPRefusal(400, "a header line has no ':'"))
            }
            let name = h[0..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                return .refused(HTTPRefusal(400, "a header name is empty, has whitespace before its ':' or is not a token"))
            }
            var vs = colon + 1
            var ve = h.count
            while vs < ve && (h[vs] == 0x20 || h[vs] == 0x09) { vs += 1 }
            while ve > vs && (h[ve - 1] == 0x20 || h[ve - 1] == 0x09) { ve -= 1 }
            for b in h[vs..<ve] where (b < 0x20 && b != 0x09) || b == 0x7F {
                return .refused(HTTPRefusal(400, "header \(String(decoding: name, as: UTF8.self)) has a control character in its value"))
            }
            headers.append((String(decoding: name, as: UTF8.self).lowercased(), String(decoding: h[vs..<ve], as: UTF8.self)))
            if headers.count > limits.headerCount {
                return .refused(HTTPRefusal(431, "more than \(limits.headerCount) header lines"))
            }
        }
        var head = HTTPRequestHead(method: method, target: target, versionMinor: minor, headers: headers, contentLength: 0,
                                   keepAlive: minor == 1, expectsContinue: false, headBytes: head.count + leading)
        if let refusal = frame(&head) { return .refused(refusal) }
        guard methods.contains(method) else {
            return .refused(HTTPRefusal(501, "method \(method) is not implemented (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS)"))
        }
        return .complete(head)
    }

    /// The framing rules: body length, Host, Connection, Expect.
    static func frame(_ head: inout HTTPRequestHead) -> HTTPRefusal? {
        let lengths = head.headers("content-length")
        let encodings = head.headers("transfer-encoding")
        if !encodings.isEmpty {
            if !lengths.isEmpty {
                return HTTPRefusal(400, "both Content-Length and Transfer-Encoding: the body's length is ambiguous; send Content-Length alone")
            }
            let codings = encodings.joined(separator: ",").split(separator: ",").map { $0.trimmingSpaces().lowercased() }
            if codings == ["chunked"] {
                return HTTPRefusal(411, "chunked bodies are not accepted; send the body with a Content-Length")
            }
            return HTTPRefusal(501, "Transfer-Encoding \(encodings.joined(separator: ", ")) is not supported; send the body with a Content-Length")
        }
        if lengths.count > 1 { return HTTPRefusal(400, "Content-Length is given \(lengths.count) times; send it once") }
        if let text = lengths.first {
            guard !text.isEmpty, text.utf8.count <= 15, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text) else {
                return HTTPRefusal(400, "Content-Length '\(text)' is not a number of bytes")
            }
            head.contentLength = n
        }
        let hosts = head.headers("host")
        if hosts.count > 1 { return HTTPRefusal(400, "Host is given \(hosts.count) times") }
        if head.versionMinor == 1 && hosts.isEmpty { return HTTPRefusal(400, "an HTTP/1.1 request needs a Host header") }
        for value in head.headers("connection") {
            for token in value.split(separator: ",").map({ $0.trimmingSpaces().lowercased() }) {
                if token == "close" { head.keepAlive = false }
                if token == "keep-alive" && head.versionMinor == 0 { head.keepAlive = true }
            }
        }
        if let expect = head.header("expect") {
            guard expect.lowercased() == "100-continue" else { return HTTPRefusal(417, "Expect: \(expect) is not supported (only 100-continue)") }
            head.expectsContinue = head.versionMinor == 1
        }
        return nil
    }
}

/// A request target's path and query, decoded.
public struct HTTPTarget: Sendable, Equatable {
    /// The path's segments, percent-decoded (`/a/b%20c/` → ["a", "b c"]).
    public var segments: [String]
    /// The path ended with '/' (a folder: `/ui/putting/`).
    public var trailingSlash: Bool
    /// The decoded path, segments joined with '/'.
    public var path: String
    /// Query parameters in order, decoded (`+` is a space).
    public var query: [(name: String, value: String)]

    public static func == (a: HTTPTarget, b: HTTPTarget) -> Bool {
        a.segments == b.segments && a.trailingSlash == b.trailingSlash && a.query.map(\.name) == b.query.map(\.name)
            && a.query.map(\.value) == b.query.map(\.value)
    }

    /// Decodes an origin-form target. Refuses (400) what could reach outside a route or a folder: a `.` or
    /// `..` segment, raw or percent-encoded; an encoded `/` or `\`; an empty segment inside the path; a
    /// decoded NUL or control character; bad percent-encoding or UTF-8.
    public static func decode(_ target: String) -> Result<HTTPTarget, HTTPRefusal> {
        // Over the bytes: the parser let through visible ASCII only, so a piece without '%' (or '+' in the
        // query) is its own decoding; only encoded bytes need the slow path and its checks.
        let bytes = Array(target.utf8)
        let queryStart = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        guard queryStart > 0, bytes[0] == UInt8(ascii: "/") else { return .failure(HTTPRefusal(400, "the path must start with '/'")) }
        var segments: [String] = []
        var trailing = false
        var i = 1
        while i <= queryStart {
            var j = i
            while j < queryStart && bytes[j] != UInt8(ascii: "/") { j += 1 }
            let piece = bytes[i..<j]
            if piece.isEmpty {
                if i == queryStart { break }  // the path "/" itself
                return .failure(HTTPRefusal(400, "the path has an empty segment ('//')"))
            }
            let decoded: String
            if piece.contains(UInt8(ascii: "%")) {
                switch percentDecode(piece, plusIsSpace: false) {
                case .success(let s): decoded = s
                case .failure(let refusal): return .failure(refusal)
                }
                if decoded.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }) {
                    return .failure(HTTPRefusal(400, "a path segment has an encoded '/' or '\\'"))
                }
                if decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                    return .failure(HTTPRefusal(400, "a path segment has a control character"))
                }
            } else {
                decoded = String(decoding: piece, as: UTF8.self)
                if piece.contains(UInt8(ascii: "\\")) { return .failure(HTTPRefusal(400, "a path segment has a '\\'")) }
            }
            if decoded == "." || decoded == ".." {
                return .failure(HTTPRefusal(400, "the path has a '\(decoded)' segment\(piece.count != decoded.utf8.count ? " (percent-encoded)" : ""); paths cannot climb out of a route or a folder"))
            }
            segments.append(decoded)
            if j == queryStart { break }
            i = j + 1
            if i == queryStart {
                trailing = true
                break
            }
        }
        var query: [(String, String)] = []
        var k = queryStart + 1
        while k < bytes.count {
            var end = k
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > k {
                let pair = bytes[k..<end]
                let eq = pair.firstIndex(of: UInt8(ascii: "="))
                let name = eq.map { pair[pair.startIndex..<$0] } ?? pair
                let value = eq.map { pair[($0 + 1)..<pair.endIndex] } ?? pair[pair.endIndex..<pair.endIndex]
                switch (percentDecode(name, plusIsSpace: true), percentDecode(value, plusIsSpace: true)) {
                case (.success(let n), .success(let v)):
                    if n.isEmpty { return .failure(HTTPRefusal(400, "a query parameter has no name")) }
                    if n.utf8.contains(0) || v.utf8.contains(0) {
                        return .failure(HTTPRefusal(400, "a query parameter has a NUL character"))
                    }
                    query.append((n, v))
                case (.failure(let r), _), (_, .failure(let r)): return .failure(r)
                }
            }
            k = end + 1
        }
        return .success(HTTPTarget(segments: segments, trailingSlash: trailing, path: "/" + segments.joined(separator: "/"),
                                   query: query))
    }

    static func percentDecode(_ utf8: ArraySlice<UInt8>, plusIsSpace: Bool) -> Result<String, HTTPRefusal> {
        if !utf8.contains(UInt8(ascii: "%")) && !(plusIsSpace && utf8.contains(UInt8(ascii: "+"))) {
            return .success(String(decoding: utf8, as: UTF8.self))
        }
        guard let out = PercentDecoding.bytes(utf8, plusIsSpace: plusIsSpace, strict: true) else {
            return .failure(HTTPRefusal(400, "bad percent-encoding in '\(String(decoding: utf8.prefix(80), as: UTF8.self))'"))
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            return .failure(HTTPRefusal(400, "percent-encoding in '\(String(decoding: utf8.prefix(80), as: UTF8.self))' is not UTF-8"))
        }
        return .success(s)
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it (HTTP's optional whitespace).
    func trimmingSpaces() -> String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
