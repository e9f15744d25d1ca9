// A ball machine that speaks protocol v0.3 exactly, for sites without one and for tests.
// Command (10 bytes): 5A A5 83 UW LW PITCH YAW FEED CTRL CK; reply (5 bytes): 5A A5 82 CODE CK
// with CODE 0 rejected, 1 accepted, 2 completed. CK = XOR of the preceding bytes, or the low byte
// of CRC-16/Modbus (later firmware). Bad frames are rejected; good ones accepted, then completed.

#if canImport(Glibc)
import ClubhousePlatform
import Glibc
#endif
import Dispatch

public struct BallMachineSimulatorOptions: Sendable {
    public enum Checksum: String, Sendable, CaseIterable { case xor, modbus }

    public var checksum: Checksum = .xor
    /// Probability (0…1) of rejecting a valid frame, as a jammed machine would.
    public var rejectRate: Double = 0
    /// Delay before each reply, in milliseconds.
    public var latencyMilliseconds: Int = 0
    /// Seed of the deterministic rejection sequence.
    public var seed: UInt64 = 0x5EED

    public init(checksum: Checksum = .xor, rejectRate: Double = 0, latencyMilliseconds: Int = 0, seed: UInt64 = 0x5EED) {
        self.checksum = checksum
        self.rejectRate = rejectRate
        self.latencyMilliseconds = latencyMilliseconds
        self.seed = seed
    }
}

/// The machine's protocol logic: bytes in, replies out. No I/O.
public struct BallMachineProtocol: Sendable {
    public enum Event: Sendable, Equatable {
        case command(fields: [UInt8], accepted: Bool, reason: String?)
        case garbage(count: Int)
    }

    public let options: BallMachineSimulatorOptions
    private var pending: [UInt8] = []
    private var random: UInt64

    public init(options: BallMachineSimulatorOptions) {
        self.options = options
        random = options.seed | 1
    }

    public static func xor(_ bytes: ArraySlice<UInt8>) -> UInt8 { bytes.reduce(0, ^) }

    /// Low byte of CRC-16/Modbus (init 0xFFFF, reflected polynomial 0xA001).
    public static func modbusLow(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt16 = 0xFFFF
        for b in bytes {
            crc ^= UInt16(b)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return UInt8(crc & 0xFF)
    }

    public func check(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        options.checksum == .xor ? BallMachineProtocol.xor(bytes) : BallMachineProtocol.modbusLow(bytes)
    }

    public func reply(_ code: UInt8) -> [UInt8] {
        var r: [UInt8] = [0x5A, 0xA5, 0x82, code]
        r.append(check(r[0..<4]))
        return r
    }

    mutating func nextRandom() -> Double {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return Double(random >> 11) / Double(1 << 53)
    }

    /// Feeds received bytes; returns what happened and the replies to send, in order.
    public mutating func receive(_ bytes: [UInt8]) -> [(Event, [[UInt8]])] {
        pending.append(contentsOf: bytes)
        var results: [(Event, [[UInt8]])] = []
        while !pending.isEmpty {
            // Resynchronise on the 5A A5 header, dropping anything before it.
            var start = 0
            while start < pending.count {
                if pending[start] == 0x5A && (start + 1 == pending.count || pending[start + 1] == 0xA5) { break }
                start += 1
            }
            if start > 0 {
                results.append((.garbage(count: start), []))
                pending.removeFirst(start)
                continue
            }
            guard pending.count >= 10 else { break }
            let frame = Array(pending[0..<10])
            pending.removeFirst(10)
            let fields = Array(frame[3..<9])
            var reason: String?
            if frame[2] != 0x83 {
                reason = "type byte 0x\(hex(frame[2])) is not a command (0x83)"
            } else if frame[9] != check(frame[0..<9]) {
                reason = "check byte 0x\(hex(frame[9])) does not match \(options.checksum.rawValue) 0x\(hex(check(frame[0..<9])))"
            } else if fields[0] > 100 || fields[1] > 100 {
                reason = "wheel speed above 100%"
            } else if fields[2] > 90 || fields[3] > 90 {
                reason = "pitch or yaw above 90 degrees"
            } else if fields[4] > 100 {
                reason = "feed above 100%"
            } else if fields[5] > 1 {
                reason = "control byte \(fields[5]) is neither 0 (stop) nor 1 (start)"
            } else if options.rejectRate > 0 && nextRandom() < options.rejectRate {
                reason = "jammed (simulated reject rate \(options.rejectRate))"
            }
            if let reason {
                results.append((.command(fields: fields, accepted: false, reason: reason), [reply(0)]))
            } else {
                results.append((.command(fields: fields, accepted: true, reason: nil), [reply(1), reply(2)]))
            }
        }
        return results
    }
}

func hex(_ b: UInt8) -> String {
    let s = String(b, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

func hexString(_ bytes: [UInt8]) -> String { bytes.map(hex).joined(separator: " ") }

/// Serves the protocol on connected sockets.
/// @unchecked Sendable: immutable; each connection's state lives on its own thread.
public final class BallMachineSimulator: @unchecked Sendable {
    public let options: BallMachineSimulatorOptions
    let report: @Sendable (String) -> Void

    public init(options: BallMachineSimulatorOptions, report: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.report = report
    }

    /// Serves one connection until the peer closes it (blocking).
    public func serve(fd: Int32, peer: String) {
        var machine = BallMachineProtocol(options: options)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let (n, error) = buffer.withUnsafeMutableBytes { Transport.read(fd, into: $0, timeoutMilliseconds: 1000) }
            if n < 0 || error != nil { break }
            if n == 0 { continue }
            for (event, replies) in machine.receive(Array(buffer[0..<n])) {
                switch event {
                case .garbage(let count):
                    report("\(peer): skipped \(count) byte(s) before a frame header")
                case .command(let fields, let accepted, let reason):
                    let text = "UW=\(fields[0]) LW=\(fields[1]) pitch=\(fields[2]) yaw=\(fields[3]) feed=\(fields[4]) ctrl=\(fields[5])"
                    report("\(peer): received \(text) → \(accepted ? "accepted, completed" : "rejected: \(reason ?? "")")")
                }
                for r in replies {
                    if options.latencyMilliseconds > 0 { usleep(useconds_t(options.latencyMilliseconds * 1000)) }
                    if Descriptor.writeAll(fd, r, timeoutMilliseconds: 2000) != nil { return }
                }
            }
        }
    }

    /// Starts serving one end of a socket pair on a background thread; returns the other end.
    public func attach(name: String) throws(TransportError) -> Int32 {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw TransportError(status: .io, message: "device '\(name)': cannot start the simulator: \(Transport.errnoText())")
        }
        let machineEnd = fds[1]
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(machineEnd, F_SETFL, fcntl(machineEnd, F_GETFL) | O_NONBLOCK)
        Thread.detach { [self] in
            serve(fd: machineEnd, peer: "simulator:\(name)")
            close(machineEnd)
        }
        return fds[0]
    }

    /// Listens on `address` (tcp or unix) and serves each connection on its own thread until `stop`
    /// is set. Calls `ready` with the bound address (port 0 picks a free port).
    public func listen(on address: DeviceAddress, ready: (String) -> Void, stop: @escaping @Sendable () -> Bool) throws(TransportError) {
        let fd: Int32
        var bound = address.description
        switch address {
        case .tcp(let host, let port):
            fd = socket(host.contains(":") ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw TransportError(status: .io, message: "socket: \(Transport.errnoText())") }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &sin.sin_addr) == 1 else {
                close(fd)
                throw TransportError(status: .invalidArgument, message: "listen address \(host) is not an IPv4 address; use eg: tcp:127.0.0.1:9000")
            }
            let rc = withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0 else {
                let reason = Transport.errnoText()
                close(fd)
                throw TransportError(status: .io, message: "cannot listen on \(address): \(reason)")
            }
            var actual = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &actual) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            bound = "tcp:\(host):\(UInt16(bigEndian: actual.sin_port))"
        case .unix(let path):
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw TransportError(status: .io, message: "socket: \(Transport.errnoText())") }
            var sun = sockaddr_un()
            guard Transport.fillUnixAddress(&sun, path) else {
                close(fd)
                throw TransportError(status: .invalidArgument, message: "socket path too long: \(path)")
            }
            unlink(path)
            let rc = withUnsafePointer(to: &sun) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard rc == 0 else {
                let reason = Transport.errnoText()
                close(fd)
                throw TransportError(status: .io, message: "cannot listen on \(address): \(reason)")
            }
        default:
            throw TransportError(status: .invalidArgument, message: "the simulator listens on tcp:HOST:PORT or unix:PATH, not \(address)")
        }
        guard Glibc.listen(fd, 16) == 0 else {
            let reason = Transport.errnoText()
            close(fd)
            throw TransportError(status: .io, message: "cannot listen on \(address): \(reason)")
        }
        ready(bound)
        defer {
            close(fd)
            if case .unix(let path) = address { unlink(path) }
        }
        while !stop() {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let client = Descriptor.accept(fd, nonBlocking: true)
            if client < 0 { continue }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            report("\(bound): connection opened")
            Thread.detach { [self] in
                serve(fd: client, peer: bound)
                close(client)
                report("\(bound): connection closed")
            }
        }
    }
}
