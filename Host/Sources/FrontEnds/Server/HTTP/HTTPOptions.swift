// The options of `clubhouse serve --http ADDR:PORT`: where to listen (loopback unless --allow-remote),
// which proxies to believe about the client (--trusted-proxy), which names the server answers for besides
// localhost and IP addresses (--http-allowed-host: HostPolicy), the limits (HTTPLimits) and where the
// panels' files are (--ui-dir).

import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, or a network (ADDR/PREFIX), as bytes.
struct IPRange: Sendable, Equatable, CustomStringConvertible {
    var bytes: [UInt8]
    var prefix: Int

    /// "192.0.2.1", "10.0.0.0/8", "::1", "2001:db8::/32"; nil when it is not one.
    init?(_ text: String) {
        var address = text
        var prefix: Int?
        if let slash = text.firstIndex(of: "/") {
            address = String(text[..<slash])
            guard let p = Int(text[text.index(after: slash)...]) else { return nil }
            prefix = p
        }
        guard let bytes = IPRange.parse(address) else { return nil }
        let bits = bytes.count * 8
        let p = prefix ?? bits
        guard (0...bits).contains(p) else { return nil }
        self.bytes = bytes
        self.prefix = p
    }

    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let b = withUnsafeBytes(of: &v6) { Array($0) }
            // An IPv4-mapped address is the IPv4 address.
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return Array(b[12...]) }
            return b
        }
        return nil
    }

    func contains(_ address: String) -> Bool {
        guard let other = IPRange.parse(address), other.count == bytes.count else { return false }
        var left = prefix
        for (a, b) in zip(bytes, other) {
            if left <= 0 { return true }
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if a & mask != b & mask { return false }
            left -= 8
        }
        return true
    }

    var description: String {
        var copy = bytes
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let text = copy.withUnsafeMutableBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil ? String(cString: buffer) : "?" }
        return prefix == bytes.count * 8 ? text : "\(text)/\(prefix)"
    }
}

/// Which `Host` a request may name (DNS rebinding: a page of another site whose name is made to resolve to
/// 127.0.0.1 reaches a loopback server with the page's own name in Host; a browser always sends it). Answered:
/// `localhost`, any IP address (a page is never served from an address that is this server's), the names
/// given with `--http-allowed-host`, and requests a trusted proxy forwarded (its peer is a `--trusted-proxy` and
/// it carries X-Forwarded-For, which a page cannot add without a CORS preflight — and the preflight, which
/// carries none, is refused here). HTTP/1.0 without Host is answered; HTTP/1.1 without it is refused by the parser.
struct HostPolicy: Sendable {
    var allowed: Set<String>
    var trustedProxies: [IPRange]

    init(_ options: HTTPOptions) {
        allowed = Set(options.allowedHosts)
        trustedProxies = options.trustedProxies
    }

    /// The host of a Host header or of `--http-allowed-host`, lower case, without port, brackets or final dot;
    /// nil when it is not a host name or an IP address.
    static func name(_ value: String) -> String? {
        var text = Substring(value.lowercased())
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCII) && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            let inner = String(text[text.index(after: text.startIndex)..<close])
            return IPRange.parse(inner) != nil && inner.contains(":") ? inner : nil
        }
        if let colon = text.lastIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            text = text[..<colon]
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty, text.utf8.count <= 253,
              text.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E }),
              !text.hasPrefix("."), !text.contains("..") else { return nil }
        return String(text)
    }

    /// Whether `value` is `localhost` or `127.0.0.1`, with or without a port (digits after a colon), read
    /// over its bytes: what nearly every request names, answered without taking the name apart (`name`).
    static func isPlainLoopback(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes -> Bool in
            let end = bytes.firstIndex(of: 0x3A) ?? bytes.count
            if end < bytes.count {
                guard end + 1 < bytes.count, bytes[(end + 1)...].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
            }
            let name = UnsafeBufferPointer(rebasing: bytes[..<end])
            return name.elementsEqual("localhost".utf8) || name.elementsEqual("127.0.0.1".utf8)
        }
    }

    /// nil when the request may be answered; else the refusal (421), naming the option that would allow it.
    func refusal(host: String?, forwardedFor: String?, peer: String) -> HTTPRefusal? {
        guard let host else { return nil }
        if HostPolicy.isPlainLoopback(host) { return nil }
        if let name = HostPolicy.name(host), name == "localhost" || allowed.contains(name) || IPRange.parse(name) != nil { return nil }
        if forwardedFor != nil, trustedProxies.contains(where: { $0.contains(peer) }) { return nil }
        let shown = host.count > 100 ? String(host.prefix(100)) + "…" : host
        guard let name = HostPolicy.name(host) else {
            return HTTPRefusal(400, "Host '\(shown)' is not a host name or an IP address with an optional port")
        }
        return HTTPRefusal(421, "this server does not answer for the name '\(name)' (Host: \(shown)): it answers localhost and IP addresses, so that a page of another site cannot reach it by renaming its address (DNS rebinding); to serve this name, start serve with --http-allowed-host \(name)")
    }
}

struct HTTPOptions: Sendable {
    /// The address to bind (numeric) and port (0: the system picks one; the server says which).
    var host = "127.0.0.1"
    var port: UInt16 = 8080
    var allowRemote = false
    var trustedProxies: [IPRange] = []
    /// Host names answered besides localhost and IP addresses (`--http-allowed-host`, lower case).
    var allowedHosts: [String] = []
    var limits = HTTPLimits()
    /// Folder whose `<alias>/` and `_/` subfolders are the panels' files (instead of beside the libraries).
    var uiDirectory: String?

    static func usageError(_ message: String) -> CLIError { CLIError(status: .invalidArgument, message: "serve: " + message) }

    /// ADDR:PORT, [IPv6]:PORT, or PORT alone (on 127.0.0.1). "localhost" is 127.0.0.1.
    mutating func setAddress(_ text: String) throws(CLIError) {
        var hostPart: String
        var portPart: String
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw HTTPOptions.usageError("--http \(text): write [IPv6]:PORT, eg: [::1]:8080")
            }
            hostPart = String(text[text.index(after: text.startIndex)..<close])
            portPart = String(text[text.index(close, offsetBy: 2)...])
        } else if let colon = text.lastIndex(of: ":") {
            hostPart = String(text[..<colon])
            portPart = String(text[text.index(after: colon)...])
        } else {
            hostPart = "127.0.0.1"
            portPart = text
        }
        if hostPart == "localhost" || hostPart.isEmpty { hostPart = "127.0.0.1" }
        guard let port = UInt16(portPart) else {
            throw HTTPOptions.usageError("--http \(text): the port must be a number from 0 to 65535 (eg: 127.0.0.1:8080)")
        }
        guard IPRange.parse(hostPart) != nil else {
            throw HTTPOptions.usageError("--http \(text): '\(hostPart)' is not an IP address; give a numeric address such as 127.0.0.1 or [::1]")
        }
        host = hostPart
        self.port = port
    }

    /// 127.0.0.0/8 or ::1.
    var isLoopback: Bool {
        guard let b = IPRange.parse(host) else { return false }
        if b.count == 4 { return b[0] == 127 }
        return b == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// Reads serve's HTTP options from its parsed arguments (ServeOptions).
    mutating func read(_ arguments: JSONObject) throws(CLIError) {
        func number(_ name: String, _ minimum: Int, _ maximum: Int = 1 << 30) throws(CLIError) -> Int? {
            try ServeOptions.whole(arguments, name, minimum: minimum, maximum: maximum, range: "from \(minimum) to \(maximum)")
        }
        if let address = arguments["http"]?.stringValue { try setAddress(address) }
        if let allow = arguments["allow-remote"]?.boolValue { allowRemote = allow }
        for item in (arguments["trusted-proxy"]?.arrayValue ?? []).compactMap(\.stringValue) {
            guard let range = IPRange(item) else {
                throw HTTPOptions.usageError("--trusted-proxy \(item): give the proxy's IP address (or a network, eg: 10.0.0.0/8)")
            }
            trustedProxies.append(range)
        }
        if let folder = arguments["ui-dir"]?.stringValue { uiDirectory = FileSystem.absolute(folder) }
        for value in (arguments["http-allowed-host"]?.arrayValue ?? []).compactMap(\.stringValue) {
            guard let name = HostPolicy.name(value) else {
                throw HTTPOptions.usageError("--http-allowed-host \(value): give a host name as browsers send it, without scheme, port or path (eg: club.example.org)")
            }
            if !allowedHosts.contains(name) { allowedHosts.append(name) }
        }
        if let n = try number("http-max-connections", 1, 1_000_000) { limits.maxConnections = n }
        if let n = try number("http-max-request-line", 64, 1 << 20) { limits.requestLineBytes = n }
        if let n = try number("http-max-header-bytes", 256, 1 << 22) { limits.headerBytes = n }
        if let n = try number("http-max-headers", 1, 10_000) { limits.headerCount = n }
        if let n = try number("http-max-body", 0, HTTPRoute.largestMaxBodyBytes) { limits.bodyBytes = n }
        if let n = try number("http-max-body-memory", 1, Int.max / 2) { limits.bodyMemoryBytes = n }
        if let n = try number("http-header-timeout-ms", 1) { limits.headerTimeoutMilliseconds = Int64(n) }
        if let n = try number("http-body-timeout-ms", 1) { limits.bodyTimeoutMilliseconds = Int64(n) }
        if let n = try number("http-idle-timeout-ms", 1) { limits.idleTimeoutMilliseconds = Int64(n) }
        if let n = try number("http-send-timeout-ms", 1) { limits.sendTimeoutMilliseconds = Int64(n) }
        if let n = try number("http-heartbeat-ms", 10) { limits.heartbeatMilliseconds = Int64(n) }
        if let n = try number("http-max-event-backlog", 1024) { limits.eventBacklogBytes = n }
        if let n = try number("http-reply-cache-bytes", 0, 1 << 40) { limits.replyCacheBytes = n }
        if let n = try number("http-idempotency-bytes", 4096, 1 << 40) { limits.idempotencyBytes = n }
    }

    /// The options `read` takes (serve's declaration names them the same).
    static let names = ["http", "allow-remote", "trusted-proxy", "http-allowed-host", "ui-dir", "http-max-connections", "http-max-request-line",
                        "http-max-header-bytes", "http-max-headers", "http-max-body", "http-max-body-memory", "http-header-timeout-ms",
                        "http-body-timeout-ms", "http-idle-timeout-ms", "http-send-timeout-ms", "http-heartbeat-ms",
                        "http-max-event-backlog", "http-reply-cache-bytes", "http-idempotency-bytes"]

    /// Refuses a non-loopback address unless asked for, saying how.
    func checkExposure() throws(CLIError) {
        guard !isLoopback && !allowRemote else { return }
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        throw CLIError(status: .invalidArgument,
                       message: "serve: --http \(shown) is not a loopback address: phones and browsers on other machines would reach the host without TLS. Put a TLS proxy in front (docs/reverse-proxy.md) and keep --http 127.0.0.1:\(port), or add --allow-remote to listen on \(host) anyway")
    }

    /// The listening socket: bound, listening, close-on-exec.
    func bind() throws(CLIError) -> (fd: Int32, port: UInt16) {
        let v6 = host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CLIError(status: .io, message: "serve: socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var rc: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        if rc == 0 { rc = listen(fd, 1024) }
        guard rc == 0 else {
            let code = errno
            close(fd)
            let hint = code == EADDRINUSE ? "; another program listens there: choose another port" : code == EACCES ? "; ports below 1024 need privileges: choose a port above 1023" : ""
            throw CLIError(status: .io, message: "serve: cannot listen on \(host):\(port): \(String(cString: strerror(code)))\(hint)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let actual: UInt16 = withUnsafeMutablePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, actual)
    }
}

