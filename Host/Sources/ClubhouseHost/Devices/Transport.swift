// Byte-stream transports for devices: serial ttys (termios raw mode, baud, parity, data and stop
// bits), TCP, Unix sockets. Every read takes a timeout; every error names the device and what
// to do.

import ClubhouseABI
#if canImport(Glibc)
import Glibc
#endif

public struct TransportError: Error, Sendable, CustomStringConvertible {
    public var status: Status
    public var message: String
    public var description: String { message }
}

/// Standard serial speeds and their termios constants.
public enum SerialSpeed {
    static let table: [(Int, speed_t)] = [
        (50, speed_t(B50)), (75, speed_t(B75)), (110, speed_t(B110)), (134, speed_t(B134)), (150, speed_t(B150)),
        (200, speed_t(B200)), (300, speed_t(B300)), (600, speed_t(B600)), (1200, speed_t(B1200)),
        (1800, speed_t(B1800)), (2400, speed_t(B2400)), (4800, speed_t(B4800)), (9600, speed_t(B9600)),
        (19200, speed_t(B19200)), (38400, speed_t(B38400)), (57600, speed_t(B57600)), (115200, speed_t(B115200)),
        (230400, speed_t(B230400)), (460800, speed_t(B460800)), (500000, speed_t(B500000)), (576000, speed_t(B576000)),
        (921600, speed_t(B921600)), (1000000, speed_t(B1000000)), (1152000, speed_t(B1152000)),
        (1500000, speed_t(B1500000)), (2000000, speed_t(B2000000)), (2500000, speed_t(B2500000)),
        (3000000, speed_t(B3000000)), (3500000, speed_t(B3500000)), (4000000, speed_t(B4000000)),
    ]

    public static func isSupported(_ baud: Int) -> Bool { table.contains { $0.0 == baud } }
    static func constant(_ baud: Int) -> speed_t? { table.first { $0.0 == baud }?.1 }
}

public enum Transport {
    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Opens a transport and returns a non-blocking file descriptor.
    public static func open(_ transport: DeviceEntry.Transport, name: String,
                            connectTimeoutMilliseconds: Int) throws(TransportError) -> Int32 {
        switch transport {
        case .serial(let port, let baud, let parity, let dataBits, let stopBits):
            return try openSerial(port: port, baud: baud, parity: parity, dataBits: dataBits, stopBits: stopBits, name: name)
        case .tcp(let host, let port):
            return try connectTCP(host: host, port: port, name: name, timeoutMilliseconds: connectTimeoutMilliseconds)
        case .unix(let path):
            return try connectUnix(path: path, name: name)
        case .simulator:
            throw TransportError(status: .unsupported, message: "device '\(name)': a simulator is not a transport to open directly")
        }
    }

    static func openSerial(port: String, baud: Int, parity: DeviceEntry.Parity, dataBits: Int, stopBits: Int,
                           name: String) throws(TransportError) -> Int32 {
        let fd = Glibc.open(port, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errnoText()
            let hint = errno == ENOENT ? "is the adapter plugged in? check \"transport\" in plugins.json"
                : errno == EACCES ? "add your user to the 'dialout' group" : "check the port"
            throw TransportError(status: .io,
                                 message: "device '\(name)': cannot open serial port \(port): \(reason); \(hint)")
        }
        var tio = termios()
        guard tcgetattr(fd, &tio) == 0 else {
            let reason = errnoText()
            close(fd)
            throw TransportError(status: .io,
                                 message: "device '\(name)': \(port) is not a terminal device (\(reason)); "
                                    + "point \"transport\" at a serial port")
        }
        cfmakeraw(&tio)
        guard let speed = SerialSpeed.constant(baud) else {
            close(fd)
            throw TransportError(status: .invalidArgument, message: "device '\(name)': unsupported baud \(baud)")
        }
        cfsetispeed(&tio, speed)
        cfsetospeed(&tio, speed)
        tio.c_cflag &= ~tcflag_t(CSIZE)
        switch dataBits {
        case 5: tio.c_cflag |= tcflag_t(CS5)
        case 6: tio.c_cflag |= tcflag_t(CS6)
        case 7: tio.c_cflag |= tcflag_t(CS7)
        default: tio.c_cflag |= tcflag_t(CS8)
        }
        switch parity {
        case .none: tio.c_cflag &= ~tcflag_t(PARENB)
        case .even: tio.c_cflag |= tcflag_t(PARENB); tio.c_cflag &= ~tcflag_t(PARODD)
        case .odd: tio.c_cflag |= tcflag_t(PARENB | PARODD)
        }
        if stopBits == 2 { tio.c_cflag |= tcflag_t(CSTOPB) } else { tio.c_cflag &= ~tcflag_t(CSTOPB) }
        tio.c_cflag |= tcflag_t(CLOCAL | CREAD)
        guard tcsetattr(fd, TCSANOW, &tio) == 0 else {
            let reason = errnoText()
            close(fd)
            throw TransportError(status: .io, message: "device '\(name)': cannot configure \(port): \(reason)")
        }
        tcflush(fd, TCIOFLUSH)
        return fd
    }

    static func connectTCP(host: String, port: Int, name: String, timeoutMilliseconds: Int) throws(TransportError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw TransportError(status: .notFound,
                                 message: "device '\(name)': cannot resolve host '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                            info.pointee.ai_protocol)
            if fd < 0 { lastError = errnoText(); continue }
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&pfd, 1, Int32(timeoutMilliseconds))
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                if ready == 1 && soError == 0 {
                    var one: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    return fd
                }
                lastError = ready == 0 ? "timed out after \(timeoutMilliseconds) ms" : String(cString: strerror(soError))
            } else {
                lastError = errnoText()
            }
            close(fd)
        }
        throw TransportError(status: .io,
                             message: "device '\(name)': cannot connect to tcp:\(host):\(port): \(lastError); "
                                + "is the machine (or `clubhouse device simulate`) listening there?")
    }

    static func connectUnix(path: String, name: String) throws(TransportError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TransportError(status: .io, message: "device '\(name)': socket: \(errnoText())") }
        var address = sockaddr_un()
        guard fillUnixAddress(&address, path) else {
            close(fd)
            throw TransportError(status: .invalidArgument, message: "device '\(name)': socket path too long: \(path)")
        }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else {
            let reason = errnoText()
            close(fd)
            throw TransportError(status: .io,
                                 message: "device '\(name)': cannot connect to unix:\(path): \(reason); "
                                    + "is the machine (or `clubhouse device simulate`) listening there?")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    package static func fillUnixAddress(_ address: inout sockaddr_un, _ path: String) -> Bool {
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return true
    }

    /// Reads what is available, waiting up to `timeoutMilliseconds` for the first byte (or until
    /// `wake`, when given, becomes readable: then 0 bytes, as a timeout).
    /// Returns the count (0 = timeout) or an error message (-1 = closed).
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32,
                     wake: Int32 = -1) -> (Int, String?) {
        var pfds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&pfds, wake >= 0 ? 2 : 1, timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return (0, errnoText()) }
            if ready == 0 { return (0, nil) }
            if pfds[0].revents == 0 { return (0, nil) }
            break
        }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return (n, nil) }
            if n == 0 { return (-1, "the connection was closed by the device") }
            if errno == EINTR { continue }
            if errno == EAGAIN { return (0, nil) }
            return (0, errnoText())
        }
    }
}

/// A byte as two uppercase hex digits ("0A"), for device traces and messages.
func hex(_ b: UInt8) -> String {
    let s = String(b, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

/// Bytes as hex separated by spaces ("5A A5 83").
func hexString(_ bytes: [UInt8]) -> String { bytes.map(hex).joined(separator: " ") }
