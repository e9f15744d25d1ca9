// Serving the simulated machine (TennisCore's MachineSimulation) on byte streams: one connection on
// standard input and output (how the host attaches a `simulator:ballmachine` device), or each
// connection to a TCP or Unix listening socket on its own thread.

import ClubhousePlatform
import TennisCore
#if canImport(Glibc)
import Glibc
#endif

/// Where the simulator listens: `tcp:HOST:PORT` (IPv4; port 0 picks a free one) or `unix:PATH`.
enum ListenAddress: Equatable, CustomStringConvertible {
    case tcp(host: String, port: UInt16)
    case unix(path: String)

    /// nil when `text` is neither form.
    init?(_ text: String) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { return nil }
            self = .unix(path: path)
        } else if text.hasPrefix("tcp:"), let colon = text.lastIndex(of: ":"), colon > text.index(text.startIndex, offsetBy: 3) {
            let host = String(text[text.index(text.startIndex, offsetBy: 4)..<colon])
            guard !host.isEmpty, let port = UInt16(text[text.index(after: colon)...]) else { return nil }
            self = .tcp(host: host, port: port)
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .tcp(let host, let port): return "tcp:\(host):\(port)"
        case .unix(let path): return "unix:\(path)"
        }
    }
}

/// Why the simulator cannot serve (one line, for standard error; exit 1).
struct ServeError: Error, CustomStringConvertible {
    var description: String
}

/// @unchecked Sendable: immutable; each connection's state lives on its own thread.
final class Server: @unchecked Sendable {
    let options: SimulationOptions
    let report: @Sendable (String) -> Void

    init(options: SimulationOptions, report: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.report = report
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Serves one connection until the peer closes it (blocking): reads from `input`, replies on `output`.
    func serve(input: Int32, output: Int32, peer: String) {
        var machine = MachineSimulation(options: options)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var pfd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 1000)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return }
            if ready == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { return }
            for (event, replies) in machine.receive(buffer[0..<n]) {
                report("\(peer): \(MachineSimulation.describe(event))")
                for reply in replies {
                    if options.latencyMilliseconds > 0 { usleep(useconds_t(options.latencyMilliseconds * 1000)) }
                    if Descriptor.writeAll(output, reply, timeoutMilliseconds: 2000) != nil { return }
                }
            }
        }
    }

    /// Binds and listens on `address`; returns the socket and the address bound (port 0 resolved).
    func bind(_ address: ListenAddress) throws(ServeError) -> (Int32, String) {
        let fd: Int32
        var bound = address.description
        switch address {
        case .tcp(let host, let port):
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw ServeError(description: "socket: \(Server.errnoText())") }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(port.bigEndian)
            guard inet_pton(AF_INET, host, &sin.sin_addr) == 1 else {
                close(fd)
                throw ServeError(description: "listen address \(host) is not an IPv4 address; use eg: tcp:127.0.0.1:9000")
            }
            let rc = withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0 else {
                let reason = Server.errnoText()
                close(fd)
                throw ServeError(description: "cannot listen on \(address): \(reason)")
            }
            var actual = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &actual) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            bound = "tcp:\(host):\(UInt16(bigEndian: actual.sin_port))"
        case .unix(let path):
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw ServeError(description: "socket: \(Server.errnoText())") }
            var sun = sockaddr_un()
            sun.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: sun.sun_path) else {
                close(fd)
                throw ServeError(description: "socket path too long: \(path)")
            }
            withUnsafeMutableBytes(of: &sun.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            unlink(path)
            let rc = withUnsafePointer(to: &sun) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard rc == 0 else {
                let reason = Server.errnoText()
                close(fd)
                throw ServeError(description: "cannot listen on \(address): \(reason)")
            }
        }
        guard Glibc.listen(fd, 16) == 0 else {
            let reason = Server.errnoText()
            close(fd)
            throw ServeError(description: "cannot listen on \(address): \(reason)")
        }
        return (fd, bound)
    }

    /// Accepts connections on `listener` and serves each on its own thread, for as long as the process runs.
    func accept(on listener: Int32, bound: String) -> Never {
        while true {
            let client = Descriptor.accept(listener, nonBlocking: false)
            if client < 0 {
                if errno != EINTR && errno != ECONNABORTED { usleep(10_000) }
                continue
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            report("\(bound): connection opened")
            do {
                try Thread.start { [self] in
                    serve(input: client, output: client, peer: bound)
                    close(client)
                    report("\(bound): connection closed")
                }
            } catch {
                close(client)
                report("\(bound): connection closed at once: \(error)")
            }
        }
    }
}
