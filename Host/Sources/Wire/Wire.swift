// The wire between the host and an isolated plugin's runner process: frames of
// [u32 length, little-endian][u8 kind][payload], on two pipes (fd 3 host→runner, fd 4
// runner→host), plus a Unix socket (fd 5) that carries only open descriptors. The files service
// (services/files.h) hands the runner descriptors — the host opens the paths its caller passed; a
// sandboxed runner cannot open them itself — and only a Unix socket can pass them (SCM_RIGHTS).
// The frames stay on pipes because a socket round trip costs about twice a pipe's on this kernel
// (30 vs 17 µs measured side by side), and every service call is a round trip. So the host first
// sends the descriptor on the socket (one byte with SCM_RIGHTS), then the `replyWithDescriptor`
// frame on the pipe; the runner, reading that frame, takes the descriptor already waiting on the
// socket (in order: one descriptor per such frame). The host shuts its end of the socket for
// reading: a runner cannot pass descriptors to the host.
// Payloads are built from a few primitives (integers, doubles, byte strings) so storage rows and
// blobs pass without JSON. Every read is bounded by a deadline; anything malformed is an error.

#if canImport(Glibc)
import ClubhousePlatform
import Glibc
#endif

/// The descriptors the protocol names in a runner, and nothing else is open there.
package enum RunnerDescriptors {
    /// Frames from the host.
    package static let input: Int32 = 3
    /// Frames to the host.
    package static let output: Int32 = 4
    /// The Unix socket descriptors arrive on (the files service).
    package static let descriptors: Int32 = 5
    /// The library the host checked against the lock, when there is one (loaded from it).
    package static let verifiedLibrary: Int32 = 6
}

/// Message kinds. Host → runner below 10, runner → host from 10.
package enum WireKind: UInt8 {
    case create = 1        // JSON {site, alias, hostVersion, config, services}
    case invoke = 2        // u64 call, u32 flags, str command, bytes request
    case destroy = 3
    case reply = 4         // u32 seq, i32 status, bytes payload (answer to a service call)
    case cancel = 5        // u64 call
    case replyWithDescriptor = 6 // as reply, with one descriptor attached (SCM_RIGHTS)
    /// No payload; one descriptor attached (SCM_RIGHTS): a socket on which the runner serves the
    /// plugin's concurrent commands (entry.h "concurrent") on a thread of its own, beside the call
    /// in progress — the same frames as the pipes, invoke and cancel in, result, log and progress out.
    case sideLane = 7
    case hello = 10        // i32 status, str info JSON (with catalogue) or error message
    case result = 11       // i32 status, bytes reply
    case serviceCall = 12  // u32 seq, u8 operation, operation arguments
    case log = 13          // i32 level, str message (one-way)
    case progress = 14     // u64 call, u8 stage (0 begin, 1 update, 2 end, 3 unit), str label, u64 n (one-way)
    case finalize = 15     // u32 statement (one-way)
    case deviceClose = 16  // u32 device (one-way)
    case resetStatement = 17  // u32 statement (one-way): rewind a statement left on a row, clear its bindings
}

/// Service operations a runner asks the host to perform.
package enum WireOperation: UInt8 {
    case exec = 1, prepare, step, begin, commit, rollback, migrate
    case invoke = 20
    case deviceOpen = 30, deviceWrite, deviceRead, deviceSafeState
    case fileOpen = 40
    case publish = 50
    /// The outbox (services/publish.h, ABI 1.4): RecordPublishRequest → MessageReply.
    case record = 60
}

package struct WireError: Error, Sendable, CustomStringConvertible {
    package var description: String

    package init(description: String, isGarbage: Bool = false, isViolation: Bool = false) {
        self.description = description
        self.isGarbage = isGarbage
        self.isViolation = isViolation
    }
    /// The peer sent bytes that are not a frame (as opposed to closing the pipe).
    package var isGarbage = false
    /// A well-formed frame header the receiver refuses (a kind over its size cap).
    package var isViolation = false
    /// A frame could not be written within the send bound: the peer stopped reading its pipe.
    package var isStalled = false
}

/// The largest frame the host accepts from a runner, per kind: checked on the 5-byte header,
/// before any of the payload is buffered, so a runner cannot grow the host with one huge frame.
/// The caps follow the plugin's limits (ServiceLimits), a little above what an honest runner,
/// which applies the same limits on its side, ever sends.
package enum WireCaps {
    package static let handle = 64
    package static let hello = 16 << 20
    /// Room for a frame's fields around the part a limit bounds.
    package static let framing = 64 << 10

    /// The cap for a frame of `kind` arriving at the host from a runner with these limits.
    package static func host(_ kind: WireKind, limits: ServiceLimits) -> Int {
        switch kind {
        case .log: return limits.logBytes + framing
        case .progress: return limits.progressBytes + framing
        case .finalize, .deviceClose, .resetStatement: return handle
        case .hello: return hello
        case .serviceCall: return limits.serviceCallBytes
        case .result: return limits.replyBytes + framing
        case .create, .invoke, .destroy, .reply, .cancel, .replyWithDescriptor, .sideLane: return WireChannel.maximumFrame
        }
    }

    package static func name(_ kind: WireKind) -> String {
        switch kind {
        case .serviceCall: return "service call"
        case .deviceClose: return "device close"
        case .resetStatement: return "statement reset"
        default: return "\(kind)"
        }
    }
}

/// Builds a payload.
package struct WireWriter {
    package var bytes: [UInt8] = []

    package init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    package mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    package mutating func f64(_ v: Double) { u64(v.bitPattern) }
    package mutating func data(_ v: [UInt8]) {
        u32(UInt32(v.count))
        bytes.append(contentsOf: v)
    }
    package mutating func data(_ v: UnsafeRawBufferPointer) {
        u32(UInt32(v.count))
        bytes.append(contentsOf: v)
    }
    package mutating func str(_ v: String) { data(Array(v.utf8)) }
}

/// Reads a payload; every read checks bounds.
package struct WireReader {
    package let bytes: [UInt8]
    package var offset = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package mutating func take(_ n: Int) throws(WireError) -> ArraySlice<UInt8> {
        guard n >= 0, offset + n <= bytes.count else { throw WireError(description: "truncated message") }
        defer { offset += n }
        return bytes[offset..<(offset + n)]
    }

    package mutating func u8() throws(WireError) -> UInt8 { try take(1).first ?? 0 }
    package mutating func u32() throws(WireError) -> UInt32 {
        let s = try take(4)
        var v: UInt32 = 0
        for (i, b) in s.enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
        return v
    }
    package mutating func i32() throws(WireError) -> Int32 { Int32(bitPattern: try u32()) }
    package mutating func u64() throws(WireError) -> UInt64 {
        let s = try take(8)
        var v: UInt64 = 0
        for (i, b) in s.enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        return v
    }
    package mutating func i64() throws(WireError) -> Int64 { Int64(bitPattern: try u64()) }
    package mutating func f64() throws(WireError) -> Double { Double(bitPattern: try u64()) }
    package mutating func data() throws(WireError) -> [UInt8] {
        let n = Int(try u32())
        guard n <= WireChannel.maximumFrame else { throw WireError(description: "field of \(n) bytes is too large") }
        return Array(try take(n))
    }
    package mutating func str() throws(WireError) -> String { String(decoding: try data(), as: UTF8.self) }
}

/// One end of the wire: framed reads and writes on a pair of file descriptors.
/// @unchecked Sendable: writes (and `sendTimeoutMilliseconds`) go through `writeLock`; reads (`pending`,
/// `chunk`) come from one thread at a time, as each end arranges: the runner under its read lock, the host under
/// the isolated plugin's lock.
package final class WireChannel: @unchecked Sendable {
    package static let maximumFrame = 512 << 20
    package let input: Int32
    package let output: Int32
    private let writeLock = Lock()
    private var pending: [UInt8] = []
    /// Per-kind frame caps (the host's side of the wire); nil: only `maximumFrame`.
    private let caps: ((WireKind) -> Int)?
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// The Unix socket that carries descriptors (host: sends; runner: receives), or -1.
    package let descriptorSocket: Int32
    /// How long a frame may wait for the peer to read (-1: for ever). The host's side is bounded
    /// (`boundSends`): a runner that sends service calls and never reads their answers fills the pipe
    /// to it, and a host that blocked there while the runner blocked writing the next call waited
    /// for ever (issue 27's attack round).
    private var sendTimeoutMilliseconds: Int32 = -1

    package init(input: Int32, output: Int32, caps: ((WireKind) -> Int)? = nil, descriptorSocket: Int32 = -1) {
        self.input = input
        self.output = output
        self.caps = caps
        self.descriptorSocket = descriptorSocket
    }

    /// Makes the writing ends non-blocking and bounds every send by `timeoutMilliseconds` (the
    /// host's side; a send may pass a shorter bound). Call before the first send.
    package func boundSends(timeoutMilliseconds: Int32) {
        for fd in [output, descriptorSocket] where fd >= 0 {
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        }
        sendTimeoutMilliseconds = max(0, timeoutMilliseconds)
    }

    /// The bound of one send: `timeout` when given and bounded sends are on, else the channel's.
    private func bound(_ timeout: Int32?) -> Int32 {
        guard sendTimeoutMilliseconds >= 0 else { return -1 }
        return min(sendTimeoutMilliseconds, max(0, timeout ?? sendTimeoutMilliseconds))
    }

    private func sendFailure(_ failure: String, what: String, timeout: Int32) -> WireError {
        guard failure == Descriptor.writeTimedOut else { return WireError(description: "the \(what) is closed (\(failure))") }
        var error = WireError(description: "stopped reading its pipe: an answer to it could not be written for \(timeout) ms")
        error.isStalled = true
        return error
    }

    /// The descriptor the host sent before the `replyWithDescriptor` frame just read, or -1 (it
    /// did not arrive within 5 s, or the runner is at its open-files limit).
    package func takeDescriptor() -> Int32 {
        guard descriptorSocket >= 0 else { return -1 }
        var pfd = pollfd(fd: descriptorSocket, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&pfd, 1, 5000)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return -1 }
            break
        }
        let control = UnsafeMutableRawPointer.allocate(byteCount: Descriptor.controlSpace, alignment: 8)
        defer { control.deallocate() }
        var byte: UInt8 = 0
        var received: [Int32] = []
        let n = withUnsafeMutableBytes(of: &byte) { Descriptor.read(descriptorSocket, into: $0, descriptors: &received, control: control) }
        guard n == 1, let first = received.first else {
            received.forEach { Glibc.close($0) }
            return -1
        }
        received.dropFirst().forEach { Glibc.close($0) }
        return first
    }

    /// Sends `descriptor` on the descriptor socket, then one frame on the pipe (the runner takes
    /// the descriptor when it reads the frame); the caller keeps its own copy. `timeoutMilliseconds`:
    /// a bound shorter than the channel's for this send.
    package func send(_ kind: WireKind, _ payload: [UInt8], passing descriptor: Int32, timeoutMilliseconds: Int32? = nil) throws(WireError) {
        let timeout = bound(timeoutMilliseconds)
        let failure = writeLock.withLock { Descriptor.writeAll(descriptorSocket, [0], passing: descriptor, timeoutMilliseconds: timeout) }
        if let failure { throw sendFailure(failure, what: "descriptor socket", timeout: timeout) }
        try send(kind, payload, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Sends one frame (thread-safe: frames never interleave). `timeoutMilliseconds`: a bound
    /// shorter than the channel's for this send.
    package func send(_ kind: WireKind, _ payload: [UInt8] = [], timeoutMilliseconds: Int32? = nil) throws(WireError) {
        let timeout = bound(timeoutMilliseconds)
        var frame = [UInt8]()
        frame.reserveCapacity(payload.count + 5)
        withUnsafeBytes(of: UInt32(payload.count + 1).littleEndian) { frame.append(contentsOf: $0) }
        frame.append(kind.rawValue)
        frame.append(contentsOf: payload)
        let failure = writeLock.withLock { Descriptor.writeAll(output, frame, timeoutMilliseconds: timeout) }
        if let failure { throw sendFailure(failure, what: "pipe", timeout: timeout) }
    }

    /// Receives one frame, waiting at most `timeoutMilliseconds` (-1: forever) for it to start.
    /// Returns nil on timeout. `now`: the caller's reading of Subprocess.monotonicMilliseconds, taken
    /// just before (the clock is then read only when a frame takes more than one wait).
    package func receive(timeoutMilliseconds: Int32, now: Int64? = nil) throws(WireError) -> (WireKind, [UInt8])? {
        let deadline = timeoutMilliseconds < 0 ? Int64.max : (now ?? Subprocess.monotonicMilliseconds()) + Int64(timeoutMilliseconds)
        // The first wait is the whole timeout: the deadline was read just now.
        var firstWait = true
        while true {
            if pending.count >= 4 {
                var length = 0
                for i in 0..<4 { length |= Int(pending[i]) << (8 * i) }
                guard length >= 1, length <= WireChannel.maximumFrame else {
                    throw WireError(description: "a frame of \(length) bytes", isGarbage: true)
                }
                if let caps, pending.count >= 5, let kind = WireKind(rawValue: pending[4]), length - 1 > caps(kind) {
                    throw WireError(description: "a '\(WireCaps.name(kind))' frame of \(length - 1) bytes, over its cap of \(caps(kind)) bytes",
                                    isViolation: true)
                }
                if pending.count >= 4 + length {
                    guard let kind = WireKind(rawValue: pending[4]) else {
                        throw WireError(description: "unknown message kind \(pending[4])", isGarbage: true)
                    }
                    let payload = Array(pending[5..<(4 + length)])
                    pending.removeSubrange(0..<(4 + length))
                    return (kind, payload)
                }
            }
            // A zero timeout still looks once (a poll for a cancel must read what is there).
            let remaining = deadline == Int64.max ? -1
                : firstWait ? max(0, timeoutMilliseconds) : Int32(clamping: max(0, deadline - Subprocess.monotonicMilliseconds()))
            firstWait = false
            var pfd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, remaining)
            if ready < 0 {
                if errno == EINTR { continue }
                throw WireError(description: "poll failed (\(String(cString: strerror(errno))))")
            }
            if ready == 0 { return nil }
            let n = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw WireError(description: "read failed (\(String(cString: strerror(errno))))")
            }
            if n == 0 { throw WireError(description: "the other side closed the pipe") }
            pending.append(contentsOf: chunk[0..<n])
        }
    }

    package func close() {
        Glibc.close(input)
        // A socket serves both ways with one descriptor (the second lane): closed once.
        if output != input { Glibc.close(output) }
        if descriptorSocket >= 0 { Glibc.close(descriptorSocket) }
    }
}

/// Objects that live in the host and that a runner names by handle (prepared statements, open
/// devices). Handles are never reused while the table lives.
package struct WireHandles<Value> {
    private var values: [UInt32: Value] = [:]
    private var next: UInt32 = 1

    package init() {}

    package mutating func insert(_ value: Value) -> UInt32 {
        let handle = next
        next &+= 1
        values[handle] = value
        return handle
    }

    package subscript(handle: UInt32) -> Value? { values[handle] }

    package mutating func remove(_ handle: UInt32) -> Value? { values.removeValue(forKey: handle) }

    /// Empties the table and returns what it held.
    package mutating func removeAll() -> [Value] {
        let all = Array(values.values)
        values.removeAll()
        return all
    }

    package var count: Int { values.count }
}
