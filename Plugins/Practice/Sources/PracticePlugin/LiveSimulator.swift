// `practice live-sim`: a stand-in launch monitor connector. It listens on a Unix socket or a TCP
// port, waits for one client (the host's device transport, connecting for `practice live`), and
// replays an MLM2PRO export as GSPro Open Connect messages, optionally with a fault at the end.

import PluginKit
import PracticeCore
#if canImport(Glibc)
import Glibc
#endif

enum SimulatorFault: String, CaseIterable {
    /// Half of the next message, then the connection closes.
    case drop
    /// The last message's ShotNumber again (out of order).
    case duplicate
    /// A line that is not JSON.
    case garbage
}

struct LiveSimulator {
    let messages: [String]
    let listen: String
    let intervalMilliseconds: Int
    let fault: SimulatorFault?
    let faultAfter: Int
    let acceptTimeoutMilliseconds: Int

    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Writes one line to standard error (the host passes it through; stdout carries the reply).
    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBufferPointer { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    /// Opens the listening socket: `unix:PATH` or `tcp:HOST:PORT`.
    func openListener() throws -> Int32 {
        if listen.hasPrefix("unix:") {
            let path = String(listen.dropFirst(5))
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw PluginError(.io, "live-sim: socket: \(Self.errnoText())") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                close(fd)
                throw PluginError.invalidArgument("--listen unix:\(path): the socket path is empty or longer than 107 bytes")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            var st = stat()
            if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard rc == 0, Glibc.listen(fd, 1) == 0 else {
                let reason = Self.errnoText()
                close(fd)
                throw PluginError(.io, "live-sim: cannot listen on unix:\(path): \(reason)")
            }
            return fd
        }
        if listen.hasPrefix("tcp:") {
            let rest = listen.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]) else {
                throw PluginError.invalidArgument("--listen \(listen): use tcp:HOST:PORT (eg: tcp:127.0.0.1:49152) or unix:PATH")
            }
            let host = String(rest[..<colon])
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw PluginError(.io, "live-sim: socket: \(Self.errnoText())") }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
                close(fd)
                throw PluginError.invalidArgument("--listen \(listen): '\(host)' is not an IPv4 address")
            }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0, Glibc.listen(fd, 1) == 0 else {
                let reason = Self.errnoText()
                close(fd)
                throw PluginError(.io, "live-sim: cannot listen on \(listen): \(reason)")
            }
            return fd
        }
        throw PluginError.invalidArgument("--listen \(listen): use unix:PATH or tcp:HOST:PORT")
    }

    /// Serves one client; returns (messages sent, what happened at the end).
    func run(cancelled: () -> Bool) throws -> (sent: Int, ending: String) {
        let listener = try openListener()
        defer {
            close(listener)
            if listen.hasPrefix("unix:") { unlink(String(listen.dropFirst(5))) }
        }
        Self.say("listening on \(listen): \(messages.count) shots to replay")
        // Wait for the client in short polls so Ctrl-C is noticed; bounded by the accept timeout.
        var waited = 0
        var client: Int32 = -1
        while client < 0 {
            if cancelled() { throw PluginError.cancelled("live-sim stopped before a client connected") }
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 200) == 1 { client = accept(listener, nil, nil) }
            waited += 200
            if client < 0 && waited >= acceptTimeoutMilliseconds {
                throw PluginError(.timeout, "live-sim: no client connected to \(listen) within \(acceptTimeoutMilliseconds / 1000) s")
            }
        }
        defer { close(client) }
        Self.say("client connected")
        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBufferPointer { Glibc.send(client, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        var sent = 0
        let limit = fault == nil ? messages.count : min(faultAfter, messages.count)
        for message in messages.prefix(limit) {
            if cancelled() { return (sent, "cancelled") }
            guard send(message + "\n") else { return (sent, "the client went away") }
            sent += 1
            if intervalMilliseconds > 0 { usleep(useconds_t(intervalMilliseconds) * 1000) }
        }
        switch fault {
        case nil: return (sent, "all shots sent")
        case .drop:
            let next = messages.count > limit ? messages[limit] : (messages.last ?? "{}")
            _ = send(String(next.prefix(next.count / 2)))
            return (sent, "dropped the connection in the middle of message \(sent + 1)")
        case .duplicate:
            _ = send((messages[max(limit - 1, 0)]) + "\n")
            usleep(100_000)
            return (sent, "sent message \(max(limit, 1)) again (out of order)")
        case .garbage:
            _ = send("this is not json\n")
            usleep(100_000)
            return (sent, "sent a line that is not JSON")
        }
    }
}
