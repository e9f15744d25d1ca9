// A raw HTTP/1.1 client over a TCP socket for the tests of `serve --http`: it sends exactly the bytes a
// test gives (so it can send what no library would: smuggling shapes, a byte a second) and reads responses
// framed by Content-Length. Every wait is bounded; a timeout is an error, never a hang.

#if canImport(Glibc)
import Glibc
#endif

public struct HTTPTestError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One response as read off the wire.
public struct RawHTTPResponse: Sendable {
    public var status: Int
    public var reason: String
    /// Names lowercased, in order.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

public final class RawHTTPConnection {
    public let fd: Int32
    private var pending: [UInt8] = []

    /// Connects to host:port (retrying while a server starts, up to `timeout` seconds). `receiveBuffer`:
    /// SO_RCVBUF before connecting (a small one makes a slow reader slow for the server too). `source`: the
    /// local address to connect from (another 127.x address is another client to the server).
    public init(port: UInt16, host: String = "127.0.0.1", timeout: Double = 10, receiveBuffer: Int32? = nil, source: String? = nil) throws {
        let deadline = RawHTTPConnection.now() + timeout
        while true {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw HTTPTestError("socket: \(String(cString: strerror(errno)))") }
            if var size = receiveBuffer {
                _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                _ = inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard bound == 0 else {
                    let code = errno
                    close(fd)
                    throw HTTPTestError("cannot bind to \(source): \(String(cString: strerror(code)))")
                }
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if rc == 0 {
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                self.fd = fd
                return
            }
            let code = errno
            close(fd)
            if RawHTTPConnection.now() > deadline { throw HTTPTestError("cannot connect to \(host):\(port): \(String(cString: strerror(code)))") }
            usleep(20_000)
        }
    }

    deinit { close(fd) }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Writes every byte (blocking); false when the peer is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads at least one more chunk into the buffer; false at end of input.
    private func fill(until deadline: Double) throws -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let left = Int32(max(0, (deadline - RawHTTPConnection.now()) * 1000))
        guard left > 0 else { throw HTTPTestError("no response in time") }
        let ready = poll(&pfd, 1, left)
        guard ready > 0 else { throw HTTPTestError("no response in time") }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            pending.append(contentsOf: buffer[0..<n])
            return true
        }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return true }
        return false
    }

    /// The next response. `head`: it answers a HEAD request (no body however long Content-Length says).
    public func response(head: Bool = false, timeout: Double = 30) throws -> RawHTTPResponse {
        let deadline = RawHTTPConnection.now() + timeout
        while true {
            if let end = RawHTTPConnection.headEnd(pending) {
                let lines = String(decoding: pending[0..<end], as: UTF8.self).components("\r\n")
                guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 ") else {
                    throw HTTPTestError("not an HTTP response: \(String(decoding: pending.prefix(200), as: UTF8.self))")
                }
                let parts = statusLine.split(separator: " ", maxSplits: 2)
                let status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                var headers: [(String, String)] = []
                for line in lines.dropFirst() where !line.isEmpty {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers.append((line[..<colon].lowercased(), String(line[line.index(after: colon)...]).trimmed()))
                }
                let length = head || status < 200 || status == 204 || status == 304
                    ? 0 : Int(headers.first { $0.0 == "content-length" }?.1 ?? "0") ?? 0
                let total = end + 4 + length
                while pending.count < total {
                    guard try fill(until: deadline) else { throw HTTPTestError("the server closed the connection mid-response") }
                }
                let body = Array(pending[(end + 4)..<total])
                pending.removeSubrange(0..<total)
                let response = RawHTTPResponse(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: body)
                if status == 100 { continue }
                return response
            }
            guard try fill(until: deadline) else {
                throw HTTPTestError(pending.isEmpty ? "the server closed the connection without a response" : "the server closed the connection mid-response")
            }
        }
    }

    /// The next event of a Server-Sent Events body (after `response()` read the stream's head, which has no
    /// Content-Length): its `id`, `event` and `data` fields; comment lines (heartbeats) are counted in
    /// `comments` and skipped. Nil when the server closed the stream.
    public func event(timeout: Double = 10) throws -> (id: String?, event: String?, data: String)? {
        let deadline = RawHTTPConnection.now() + timeout
        while true {
            if pending.count >= 2, let end = (0..<(pending.count - 1)).first(where: { pending[$0] == 10 && pending[$0 + 1] == 10 }) {
                let block = String(decoding: pending[0..<end], as: UTF8.self)
                pending.removeSubrange(0..<(end + 2))
                var id: String?, event: String?, data: [String] = []
                var comment = false
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(":") { comment = true; continue }
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    var value = line[line.index(after: colon)...]
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                    switch line[..<colon] {
                    case "id": id = String(value)
                    case "event": event = String(value)
                    case "data": data.append(String(value))
                    default: break
                    }
                }
                if comment && id == nil && event == nil && data.isEmpty {
                    comments += 1
                    continue
                }
                return (id, event, data.joined(separator: "\n"))
            }
            guard try fill(until: deadline) else { return nil }
        }
    }

    /// Comment blocks (heartbeats) `event` skipped.
    public private(set) var comments = 0

    /// True when the server closes the connection (end of input or a reset) within `timeout` seconds;
    /// whatever else arrives meanwhile is kept for `response`.
    public func closesWithin(_ timeout: Double) -> Bool {
        let deadline = RawHTTPConnection.now() + timeout
        while RawHTTPConnection.now() < deadline {
            do {
                if try !fill(until: deadline) { return true }
            } catch {
                return false
            }
        }
        return false
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// One request on this connection, and its response.
    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [],
                        timeout: Double = 30) throws -> RawHTTPResponse {
        var text = "\(method) \(path) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { text += "Host: 127.0.0.1\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        guard send(Array(text.utf8) + body) else { throw HTTPTestError("the server closed the connection before the request") }
        return try response(head: method == "HEAD", timeout: timeout)
    }
}

/// One request on a fresh connection.
public func httpRequest(port: UInt16, _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [],
                        timeout: Double = 30) throws -> RawHTTPResponse {
    let connection = try RawHTTPConnection(port: port)
    return try connection.request(method, path, headers: headers, body: body, timeout: timeout)
}

extension String {
    fileprivate func components(_ separator: String) -> [String] {
        var out: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            out.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        out.append(String(rest))
        return out
    }

    fileprivate func trimmed() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
