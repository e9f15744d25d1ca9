// `clubhouse serve` against hostile clients: one that floods requests and never reads its replies,
// a flood of connections, a second server on a live socket path, a stale socket, and a server out
// of file descriptors. The tests of how requests and replies move run on both transports — a Unix
// socket (`--socket`) and stdio — which share one event loop (issue 27, Why 8: stdio had a path of
// its own). Every wait is bounded; clients are local Unix sockets or the server's own pipes.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

/// How a client reaches `serve`.
enum ServeTransport: String, CaseIterable {
    case socket, stdio
}

/// A `clubhouse serve` process with its standard error kept in a file: on a Unix socket, or on its
/// own standard input and output (one client: `stdioClient`).
private final class SocketServer {
    let process = Process()
    let socketPath: String
    let errorPath: String
    let transport: ServeTransport
    private var input: Pipe?
    private var output: Pipe?

    /// `limitFiles`: run under `ulimit -n` (through /bin/sh, which then execs the server).
    init(_ c: Clubhouse, socket: String, options: [String] = [], limitFiles: Int? = nil, transport: ServeTransport = .socket) throws {
        socketPath = socket
        self.transport = transport
        errorPath = c.path("serve-\(UUID().uuidString.prefix(8)).err")
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let serveArguments = ["serve"] + (transport == .socket ? ["--socket", socket] : []) + options
        if let limitFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(limitFiles) && exec \"$0\" \"$@\"", Clubhouse.executable.path] + serveArguments
        } else {
            process.executableURL = Clubhouse.executable
            process.arguments = serveArguments
        }
        var env = ProcessInfo.processInfo.environment
        env["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
        env["XDG_CACHE_HOME"] = c.path("cache")
        env.removeValue(forKey: "CLUBHOUSE_CONFIG")
        env.removeValue(forKey: "CLUBHOUSE_SITE")
        process.environment = env
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        if transport == .stdio {
            let i = Pipe(), o = Pipe()
            process.standardInput = i
            process.standardOutput = o
            input = i
            output = o
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        try process.run()
    }

    /// A client of this server: a new connection to its socket, or (once) its standard input and output.
    func client() throws -> LineClient {
        guard transport == .stdio else { return try LineClient(path: socketPath) }
        guard let input, let output else { throw ServeTestFailure(description: "a stdio server has one client") }
        self.input = nil
        self.output = nil
        return LineClient(readFD: dup(output.fileHandleForReading.fileDescriptor), writeFD: dup(input.fileHandleForWriting.fileDescriptor),
                          closing: [input.fileHandleForWriting, output.fileHandleForReading])
    }

    var pid: Int32 { process.processIdentifier }
    var stderr: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Why its CPU time cannot be read: the server is gone (a failure naming its exit and standard error, never a
    /// skip that would hide a crash), or /proc cannot be read here (a skip).
    func goneOrSkip(_ when: String) -> Error {
        if !process.isRunning {
            process.waitUntilExit()
            XCTFail("the server exited \(when) (status \(process.terminationStatus), \(process.terminationReason == .uncaughtSignal ? "signal" : "exit")): \(stderr)")
        }
        return XCTSkip("no /proc/\(pid)/stat")
    }

    /// CPU time (user + system) the server has used so far, in clock ticks.
    func cpuTicks() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After "pid (comm)": state is field 3, utime field 14, stime field 15.
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    func stop() { stopServer(process) }
}

struct ServeTestFailure: Error, CustomStringConvertible {
    var description: String
}

/// A line-oriented JSON-RPC client whose timeouts are failures (not skips).
private final class LineClient {
    /// What it reads replies from and writes requests to: one socket, or the server's two pipes.
    let fd: Int32
    let writeFD: Int32
    private var pending: [UInt8] = []
    private var handles: [FileHandle] = []

    /// The client of a stdio server: its standard output and input.
    init(readFD: Int32, writeFD: Int32, closing: [FileHandle]) {
        fd = readFD
        self.writeFD = writeFD
        handles = closing
        handles.forEach { try? $0.close() }
    }

    /// Connects, retrying while the server starts (up to `timeout` seconds).
    init(path: String, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if rc == 0 {
                self.fd = fd
                writeFD = fd
                return
            }
            close(fd)
            if Date() > deadline { throw ServeTestFailure(description: "cannot connect to \(path)") }
            usleep(20_000)
        }
    }

    deinit {
        close(fd)
        if writeFD != fd { close(writeFD) }
    }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(writeFD, $0.baseAddress, $0.count) }
    }

    /// The next line as JSON, within `timeout` seconds.
    func receive(timeout: Double = 30) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return try JSONParser.parse(bytes: line)
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard left > 0, poll(&pfd, 1, left) > 0 else { throw ServeTestFailure(description: "no reply within \(timeout) s") }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw ServeTestFailure(description: "the server closed the connection") }
            pending.append(contentsOf: buffer[0..<n])
        }
    }

    /// Receives until the response with `id` arrives.
    func response(id: Int, timeout: Double = 30) throws -> JSONValue {
        while true {
            let message = try receive(timeout: timeout)
            if message["id"]?.intValue == id, message["method"] == nil { return message }
        }
    }
}

/// A raw non-blocking Unix-socket client for the attacks (connect may fail: returns nil).
private func rawConnect(_ path: String) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if rc != 0 {
        close(fd)
        return nil
    }
    return fd
}

/// Reads from a non-blocking descriptor until end of file; the bytes read, and whether the end
/// came before the deadline.
private func readToEnd(_ fd: Int32, timeout: Double) -> ([UInt8], Bool) {
    var all: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&pfd, 1, 100)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 { all.append(contentsOf: buffer[0..<n]); continue }
        if n == 0 { return (all, true) }
        if errno == ECONNRESET || errno == EPIPE { return (all, true) }
    }
    return (all, false)
}

private let versionRequest = #"{"jsonrpc":"2.0","id":"v","method":"clubhouse.version"}"#

final class ServeTransportEndToEndTests: XCTestCase {
    override func setUp() {
        super.setUp()
        // The attacks write to sockets the server closes: that is an EPIPE here, not a signal.
        signal(SIGPIPE, SIG_IGN)
    }

    /// A client that asks for the version and must be answered within `timeout` seconds.
    private func assertAnswered(_ path: String, timeout: Double = 10, _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let client = try LineClient(path: path)
        client.send(versionRequest)
        let reply = try client.receive(timeout: timeout)
        XCTAssertEqual(reply["result"]?["abi"], "1.7", message, file: file, line: line)
    }

    /// Whether a new client is answered within 10 s (the server notices departed clients on its
    /// next turn, so the first attempts may still be refused).
    private func eventuallyAdmitted(_ path: String) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let client = try? LineClient(path: path, timeout: 5) {
                client.send(versionRequest)
                if (try? client.receive(timeout: 5))?["result"]?["abi"] == "1.7" { return true }
            }
            usleep(100_000)
        }
        return false
    }

    func testAClientThatNeverReadsIsDroppedAndTheOthersAreServed() throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"), options: ["--write-timeout-ms", "1500"])
        defer { server.stop() }
        try assertAnswered(server.socketPath, "the server is up")

        // The flooder pipelines requests for as long as the server takes them and reads nothing.
        guard let flooder = rawConnect(server.socketPath) else { return XCTFail("cannot connect") }
        defer { close(flooder) }
        var line = Array(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.commands","params":{"plugin":"notes"}}"#.utf8)
        line.append(0x0A)
        let chunk = [UInt8]((0..<200).flatMap { _ in line })
        var sent = 0
        var stalls = 0
        let floodEnd = Date().addingTimeInterval(4)
        while Date() < floodEnd && sent < 64 << 20 && stalls < 20 {
            let n = chunk.withUnsafeBytes { write(flooder, $0.baseAddress, $0.count) }
            if n > 0 { sent += n; stalls = 0; continue }
            stalls += 1
            usleep(50_000)
        }
        XCTAssertGreaterThan(sent, 200_000, "the flood reached the server")

        // Meanwhile another client is answered at once.
        let started = Date()
        try assertAnswered(server.socketPath, timeout: 5, "a second client is served while the first one does not read")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)

        // The flooder is dropped after the write timeout (reading now would make it a reader, so
        // wait for the server's log line first); what it then reads ends in end of file.
        let dropDeadline = Date().addingTimeInterval(20)
        while !server.stderr.contains("dropped client") && Date() < dropDeadline { usleep(100_000) }
        let (_, ended) = readToEnd(flooder, timeout: 10)
        XCTAssertTrue(ended, "the non-reading client was disconnected")
        XCTAssertTrue(server.stderr.contains("dropped client"), server.stderr)
        XCTAssertTrue(server.stderr.contains("for 1500 ms"), server.stderr)
        try assertAnswered(server.socketPath, "and the server serves on")
    }

    func testConnectionsBeyondTheBoundAreRefusedWithAJSONRPCError() throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"), options: ["--max-connections", "3"])
        defer { server.stop() }
        var clients: [LineClient] = []
        for _ in 0..<3 {
            let client = try LineClient(path: server.socketPath)
            client.send(versionRequest)
            XCTAssertEqual(try client.receive()["result"]?["abi"], "1.7")
            clients.append(client)
        }
        for _ in 0..<5 {
            let extra = try LineClient(path: server.socketPath)
            let refusal = try extra.receive(timeout: 10)
            XCTAssertEqual(refusal["error"]?["code"]?.intValue, -32003, "\(refusal)")
            XCTAssertTrue(refusal["error"]?["message"]?.stringValue?.contains("--max-connections") ?? false, "\(refusal)")
        }
        // The three admitted clients are still served; once one leaves, a new client gets in.
        for client in clients {
            client.send(versionRequest)
            XCTAssertEqual(try client.receive()["result"]?["abi"], "1.7")
        }
        clients.removeLast()
        XCTAssertTrue(eventuallyAdmitted(server.socketPath), "a place freed by a client that left is taken by the next one")
    }

    func testASecondServerOnALivePathRefusesNamingTheFirstAndLeavesItServing() throws {
        let c = try Clubhouse()
        let path = c.path("rpc.sock")
        let first = try SocketServer(c, socket: path)
        defer { first.stop() }
        try assertAnswered(path, "the first server is up")
        let second = try c.run(["serve", "--socket", path], timeout: 20)
        XCTAssertEqual(second.exitCode, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("another clubhouse serve (pid \(first.pid)) is serving on \(path)"), second.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "the second server did not remove the first one's socket")
        try assertAnswered(path, "the first server still serves")
        first.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the first server removes its socket on exit")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".lock"), "and its lock file")
    }

    func testAStaleSocketAndLockFileAreTakenOver() throws {
        let c = try Clubhouse()
        let path = c.path("rpc.sock")
        // A socket file nobody listens on, as a killed server leaves it, and a lock file naming a dead pid.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(rc, 0)
        close(stale)
        try c.write("rpc.sock.lock", "999999\n")
        let server = try SocketServer(c, socket: path)
        defer { server.stop() }
        try assertAnswered(path, "the stale socket was taken over")
        XCTAssertEqual(try String(contentsOfFile: path + ".lock", encoding: .utf8), "\(server.pid)\n", "the lock file names the new server")
    }

    func testAPathThatIsNotASocketIsLeftAlone() throws {
        let c = try Clubhouse()
        let path = try c.write("precious.txt", "keep me\n")
        try c.fail(["serve", "--socket", path], contains: ["serve: \(path) exists and is not a socket; choose another --socket path"])
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "keep me\n")
    }

    func testBadServeOptionsAreRefused() throws {
        let c = try Clubhouse()
        try c.fail(["serve", "--max-connections", "0"], exitCode: 2,
                   contains: ["serve: --max-connections needs a whole number ≥ 1, not '0'"])
        try c.fail(["serve", "--write-timeout-ms=soon"], exitCode: 2,
                   contains: ["--write-timeout-ms must be an integer, got 'soon'"])
        try c.fail(["serve", "--sockets", "x"], exitCode: 2,
                   contains: ["unknown option '--sockets' for 'clubhouse serve'; did you mean '--socket'?"])
    }

    func testOutOfFileDescriptorsTheServerNeitherSpinsNorStopsServing() throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"), options: ["--max-connections", "1000"], limitFiles: 40)
        defer { server.stop() }
        let first = try LineClient(path: server.socketPath)
        first.send(versionRequest)
        XCTAssertEqual(try first.receive()["result"]?["abi"], "1.7")

        // Far more clients than the server has descriptors; all of them stay connected.
        var extras: [Int32] = []
        defer { extras.forEach { close($0) } }
        for _ in 0..<100 {
            if let fd = rawConnect(server.socketPath) { extras.append(fd) }
        }
        XCTAssertGreaterThan(extras.count, 40, "the attack needs more clients than descriptors")
        usleep(500_000)
        guard let before = server.cpuTicks() else { throw server.goneOrSkip("at the descriptor limit") }
        let t0 = Date()
        usleep(2_000_000)
        guard let after = server.cpuTicks() else { throw server.goneOrSkip("idle at the descriptor limit") }
        let wall = Date().timeIntervalSince(t0)
        let share = Double(after - before) / 100 / wall
        XCTAssertLessThan(share, 0.05, "the server used \(after - before) ticks of CPU in \(wall) s while idle at the descriptor limit")

        // The connected client is still answered; the refused ones were told why.
        first.send(versionRequest)
        XCTAssertEqual(try first.receive(timeout: 10)["result"]?["abi"], "1.7", "a connected client is served at the limit")
        let told = extras.suffix(20).contains { fd in
            let (bytes, _) = readToEnd(fd, timeout: 0.2)
            return String(decoding: bytes, as: UTF8.self).contains("out of file descriptors")
        }
        XCTAssertTrue(told, "clients beyond the limit hear that the server is out of descriptors")
        extras.forEach { close($0) }
        extras.removeAll()
        XCTAssertTrue(eventuallyAdmitted(server.socketPath), "with descriptors free again, new clients are served")
    }

    func testACancelIsAnsweredWhileEveryWorkerIsBusy() throws {
        for transport in ServeTransport.allCases {
            let c = try Clubhouse()
            let server = try SocketServer(c, socket: c.path("rpc.sock"), options: ["--workers", "1"], transport: transport)
            defer { server.stop() }
            let client = try server.client()
            client.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":100,"step-ms":100}}}"#)
            usleep(300_000)
            client.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.cancel","params":{"id":1}}"#)
            let cancelled = try client.response(id: 2, timeout: 5)
            XCTAssertEqual(cancelled["result"]?["cancelled"], true, "\(transport): \(cancelled)")
            let slow = try client.response(id: 1, timeout: 10)
            XCTAssertEqual(slow["error"]?["data"]?["status"], "cancelled", "\(transport): \(slow)")
        }
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"), options: ["--workers", "1"])
        defer { server.stop() }
        let client = try LineClient(path: server.socketPath)
        // Another client cannot cancel calls that are not its own.
        client.send(#"{"jsonrpc":"2.0","id":3,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":5,"step-ms":100}}}"#)
        usleep(200_000)
        let other = try LineClient(path: server.socketPath)
        other.send(#"{"jsonrpc":"2.0","id":9,"method":"clubhouse.cancel","params":{"id":3}}"#)
        XCTAssertEqual(try other.receive(timeout: 5)["error"]?["code"]?.intValue, -32002)
        let finished = try client.response(id: 3, timeout: 10)
        XCTAssertEqual(finished["result"]?["counted"]?.intValue, 5, "\(finished)")
    }

    /// Issue 27's attack round (#42): a client that pipelines 60 long calls and goes away has them
    /// cancelled: the server and the plugin answer another client soon after. (#43, the other
    /// clients starving while it stays connected: testAClientsPipelinedCallsToABusyPluginStarveNobody.)
    func testAClientsPipelinedLongCallsEndWhenItLeaves() throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"))
        defer { server.stop() }
        var hog: LineClient? = try LineClient(path: server.socketPath)
        for id in 1...60 {
            hog?.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":600,"step-ms":100}}}"#)
        }
        usleep(500_000)
        let other = try LineClient(path: server.socketPath)
        hog = nil // closes its socket
        usleep(500_000)
        other.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.version"}"#)
        XCTAssertNotNil(try other.response(id: 2, timeout: 5)["result"]?["version"], "answered after the client left")
        // Had the departed client's calls kept running (60 × 60 s), the greeter would not be free.
        other.send(#"{"jsonrpc":"2.0","id":3,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":2,"step-ms":10}}}"#)
        let finished = try other.response(id: 3, timeout: 30)
        XCTAssertEqual(finished["result"]?["counted"]?.intValue, 2, "the departed client's calls were cancelled: \(finished)")
    }

    /// Issue 27's attack round (#43): a client stays connected and pipelines 60 long countdowns to the
    /// greeter, which takes one call at a time. The calls waiting for it hold no worker: the same
    /// client's (stdio) or another client's `clubhouse.version` and a call to another plugin answer within
    /// a second, and so does an HTTP request to the same server; another client's greeter call runs
    /// right after the one running (clients take turns), not after the 60; a waiting call is cancelled
    /// at once; and every one of the 60 is answered exactly once.
    func testAClientsPipelinedCallsToABusyPluginStarveNobody() throws {
        for transport in ServeTransport.allCases { try pipelinedCallsToABusyPlugin(transport) }
    }

    private func pipelinedCallsToABusyPlugin(_ transport: ServeTransport) throws {
        let c = try Clubhouse()
        let options = transport == .socket ? ["--http", "127.0.0.1:0"] : []
        let server = try SocketServer(c, socket: c.path("rpc.sock"), options: options, transport: transport)
        defer { server.stop() }
        let hog = try server.client()
        // Call 1 runs (its first progress notification says so), then 59 more wait behind it.
        hog.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":600,"step-ms":100},"progress":true}}"#)
        while try hog.receive(timeout: 30)["params"]?["id"]?.intValue != 1 {}
        for id in 2...60 {
            hog.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":600,"step-ms":100}}}"#)
        }
        usleep(500_000)
        // The one client of stdio asks itself; on a socket, another client asks.
        let other = transport == .socket ? try server.client() : hog
        var started = Date()
        other.send(#"{"jsonrpc":"2.0","id":1001,"method":"clubhouse.version"}"#)
        XCTAssertNotNil(try other.response(id: 1001, timeout: 5)["result"]?["version"], "\(transport): version")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "\(transport): the version waited for the busy plugin")
        started = Date()
        other.send(#"{"jsonrpc":"2.0","id":1002,"method":"clubhouse.call","params":{"plugin":"notes","command":"ping"}}"#)
        XCTAssertNotNil(try other.response(id: 1002, timeout: 5)["result"], "\(transport): another plugin")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "\(transport): a call to another plugin waited for the busy one")
        if transport == .socket {
            let text = server.stderr
            if let range = text.range(of: "serving HTTP/1.1 on http://127.0.0.1:"), let port = UInt16(text[range.upperBound...].prefix { $0.isNumber }) {
                started = Date()
                let response = try httpRequest(port: port, "GET", "/api/putting/courses", timeout: 5)
                XCTAssertEqual(response.status, 401, "an HTTP request is answered (without a token: refused)")
                XCTAssertLessThan(Date().timeIntervalSince(started), 1, "an HTTP request waited for the busy plugin")
            } else {
                XCTFail("no HTTP port in: \(text)")
            }
            // Clients take turns: with the running call (id 1) stopped, another client's call comes
            // next, before the first client's 59 others.
            let turn = try server.client()
            turn.send(#"{"jsonrpc":"2.0","id":7,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":1,"step-ms":10}}}"#)
            usleep(200_000)
            hog.send(#"{"jsonrpc":"2.0","id":2001,"method":"clubhouse.cancel","params":{"id":1}}"#)
            let turnReply = try turn.response(id: 7, timeout: 10)
            XCTAssertEqual(turnReply["result"]?["counted"]?.intValue, 1, "the other client's call ran next: \(turnReply)")
        }
        // A waiting call is cancelled at once: its answer and the cancel's, within a second.
        started = Date()
        hog.send(#"{"jsonrpc":"2.0","id":2030,"method":"clubhouse.cancel","params":{"id":30}}"#)
        var answers: [Int: JSONValue] = [:]
        var cancelAnswers = 0
        while answers[30] == nil || cancelAnswers == 0 {
            let message = try hog.receive(timeout: 5)
            guard message["method"] == nil, let id = message["id"]?.intValue else { continue }
            if id == 2030 { cancelAnswers += 1; XCTAssertEqual(message["result"]?["cancelled"], true, "\(message)") }
            if id <= 60 { XCTAssertNil(answers.updateValue(message, forKey: id), "\(transport): call \(id) answered twice") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "\(transport): a waiting call's cancel waited")
        XCTAssertEqual(answers[30]?["error"]?["data"]?["status"], "cancelled", "\(transport): \(answers[30] ?? .null)")
        XCTAssertEqual(answers[30]?["error"]?["message"], "cancelled while waiting for plugin 'greeter' to finish another call")
        // The rest are cancelled too, and each is answered once.
        for id in 1...60 where id != 30 {
            hog.send(#"{"jsonrpc":"2.0","id":\#(3000 + id),"method":"clubhouse.cancel","params":{"id":\#(id)}}"#)
        }
        let deadline = Date().addingTimeInterval(20)
        while answers.count < 60 && Date() < deadline {
            let message = try hog.receive(timeout: 10)
            guard message["method"] == nil, let id = message["id"]?.intValue, id <= 60 else { continue }
            XCTAssertNil(answers.updateValue(message, forKey: id), "\(transport): call \(id) answered twice")
        }
        XCTAssertEqual(answers.count, 60, "\(transport): every call answered")
        for (id, answer) in answers {
            XCTAssertEqual(answer["error"]?["data"]?["status"], "cancelled", "\(transport): call \(id): \(answer)")
        }
        // The greeter is free again.
        hog.send(#"{"jsonrpc":"2.0","id":4000,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":2,"step-ms":10}}}"#)
        XCTAssertEqual(try hog.response(id: 4000, timeout: 10)["result"]?["counted"]?.intValue, 2, "\(transport)")
    }

    /// The same over HTTP (`serve --http --workers 4`): while a plugin that takes one call at a time is busy
    /// with one request and six more wait for it, each on its own connection, a request to another plugin
    /// answers within a second (the waiting ones hold no worker; before, four workers waited at the gate and
    /// the other plugin's request waited 2.4 s), and the waiting requests then run, each answered.
    func testRequestsWaitingForABusyPluginOverHTTPHoldNoWorker() throws {
        let c = try Clubhouse()
        let slow = try FixturePlugins.build("SLOW", id: "org.tests.slow", file: "hostile_routes.c")
        let echo = try FixturePlugins.build("ECHO", file: "hostile_routes.c")
        let config = try c.write("plugins.json", """
        {"sites": {"s": {"http": {"public_routes": true}, "plugins": {
          "slow": {"path": "\(slow)", "isolation": "process"},
          "echo": {"path": "\(echo)", "isolation": "process"}}}}}
        """)
        let server = try HTTPServerProcess(c, arguments: ["--config", config, "--site", "s"], options: ["--workers", "4"])
        defer { server.stop() }
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/echo/echo/warm").status, 200, server.stderr)
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/slow/wait/1").status, 200, server.stderr)
        let first = try RawHTTPConnection(port: server.port)
        XCTAssertTrue(first.send("GET /api/slow/wait/2500 HTTP/1.1\r\nHost: localhost\r\n\r\n"))
        usleep(200_000)
        let waiting = try (0..<6).map { _ in try RawHTTPConnection(port: server.port) }
        for connection in waiting { XCTAssertTrue(connection.send("GET /api/slow/wait/100 HTTP/1.1\r\nHost: localhost\r\n\r\n")) }
        usleep(300_000)
        let started = Date()
        let other = try httpRequest(port: server.port, "GET", "/api/echo/echo/hi", timeout: 10)
        XCTAssertEqual(other.status, 200, other.text)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "a request to another plugin waited for the busy one")
        XCTAssertEqual(try first.response(timeout: 10).status, 200)
        for (i, connection) in waiting.enumerated() {
            XCTAssertEqual(try connection.response(timeout: 10).status, 200, "waiting request \(i)")
        }
    }

    /// A batch whose member waits for a busy plugin goes on once that member ran: one array with every
    /// member's reply, in order.
    func testABatchWithAMemberWaitingForABusyPluginAnswersWhole() throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"))
        defer { server.stop() }
        let client = try server.client()
        client.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":600,"step-ms":100},"progress":true}}"#)
        while try client.receive(timeout: 30)["params"]?["id"]?.intValue != 1 {}
        client.send(#"[{"jsonrpc":"2.0","id":51,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":1,"step-ms":10}}},{"jsonrpc":"2.0","id":52,"method":"clubhouse.version"}]"#)
        usleep(300_000)
        client.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.cancel","params":{"id":1}}"#)
        var batch: [JSONValue]?
        while batch == nil {
            let message = try client.receive(timeout: 10)
            batch = message.arrayValue
        }
        XCTAssertEqual(batch?.compactMap { $0["id"]?.intValue }, [51, 52], "\(batch ?? [])")
        XCTAssertEqual(batch?.first?["result"]?["counted"]?.intValue, 1)
        XCTAssertNotNil(batch?.last?["result"]?["version"])
    }

    /// A client may have 128 calls waiting for busy plugins; one more is refused at once, naming the
    /// bound, and the client is still read (its next request is answered).
    func testCallsWaitingBeyondTheBoundPerClientAreRefusedAtOnce() throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"))
        defer { server.stop() }
        let client = try server.client()
        // One runs, 128 wait, two are refused (which two depends on which worker admits which first).
        for id in 1...131 {
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":600,"step-ms":100}}}"#)
        }
        var refused: [JSONValue] = []
        while refused.count < 2 {
            let message = try client.receive(timeout: 10)
            guard message["method"] == nil else { continue }
            refused.append(message)
        }
        for message in refused {
            XCTAssertEqual(message["error"]?["data"]?["status"], "busy", "\(message)")
            XCTAssertEqual(message["error"]?["message"],
                           "this client already has 128 calls waiting for busy plugins (serve's bound per client); wait for their answers, or cancel some, before sending more")
        }
        client.send(#"{"jsonrpc":"2.0","id":999,"method":"clubhouse.version"}"#)
        XCTAssertNotNil(try client.response(id: 999, timeout: 5)["result"]?["version"], "the client is still read")
    }

    /// A cancel that overtakes its call (read, not yet taken by a worker: here the only worker runs a long
    /// call) is kept for it: answered `cancelled: true`, and the call ends cancelled when a worker takes
    /// it, without running. (It used to be "no running call", and the call then ran.)
    func testACancelThatOvertakesItsCallIsKeptForIt() throws {
        for transport in ServeTransport.allCases {
            let c = try Clubhouse()
            let server = try SocketServer(c, socket: c.path("rpc.sock"), options: ["--workers", "1"], transport: transport)
            defer { server.stop() }
            let client = try server.client()
            for id in 1...2 {
                client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":600,"step-ms":100}}}"#)
            }
            usleep(300_000)
            client.send(#"{"jsonrpc":"2.0","id":12,"method":"clubhouse.cancel","params":{"id":2}}"#)
            XCTAssertEqual(try client.response(id: 12, timeout: 5)["result"]?["cancelled"], true, "\(transport)")
            client.send(#"{"jsonrpc":"2.0","id":11,"method":"clubhouse.cancel","params":{"id":1}}"#)
            XCTAssertEqual(try client.response(id: 1, timeout: 10)["error"]?["data"]?["status"], "cancelled", "\(transport)")
            let second = try client.response(id: 2, timeout: 10)
            XCTAssertEqual(second["error"]?["data"]?["status"], "cancelled", "\(transport): \(second)")
            XCTAssertEqual(second["error"]?["message"], "cancelled before it started", "\(transport)")
        }
    }

    /// A client's requests are drained by the worker already on its queue (no hand-off per
    /// request), yet a long call does not hold up the quick ones sent after it on the same
    /// connection: a second worker takes them within milliseconds, and their replies come first.
    func testALongCallDoesNotHoldUpTheQuickOnesBehindItOnTheSameConnection() throws {
        for transport in ServeTransport.allCases { try longCallDoesNotHoldUpTheQuickOnes(transport) }
    }

    private func longCallDoesNotHoldUpTheQuickOnes(_ transport: ServeTransport) throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"), options: ["--workers", "4"], transport: transport)
        defer { server.stop() }
        let client = try server.client()
        client.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":30,"step-ms":100}}}"#)
        let started = Date()
        for id in 2...21 {
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.version"}"#)
        }
        // Replies come in any order: collect them all.
        var quick = Set<Int>()
        var slow: JSONValue?
        while slow == nil || quick.count < 20 {
            let message = try client.receive(timeout: 10)
            guard message["method"] == nil, let id = message["id"]?.intValue else { continue }
            if id == 1 {
                slow = message
                XCTAssertEqual(quick.count, 20, "\(transport): the 3-second call finished before the quick ones behind it")
            } else {
                XCTAssertNotNil(message["result"]?["version"], "version \(id): \(message)")
                quick.insert(id)
                if quick.count == 20 { XCTAssertLessThan(Date().timeIntervalSince(started), 2, "\(transport): the quick calls waited for the long one") }
            }
        }
        XCTAssertEqual(slow?["result"]?["counted"]?.intValue, 30, "\(String(describing: slow))")
    }

    // MARK: replies coalesced into fewer writes

    /// A worker draining a pipelining client's queue holds its replies while more requests wait
    /// behind them; when the next request is a long call, the held replies must not wait for it:
    /// the loop writes them once they are 2 ms old. (A server that wrote held replies only when
    /// the queue ran empty sends these 50 replies after the 3-second call.)
    func testRepliesFinishedBeforeASlowCallGoOutWithoutWaitingForIt() throws {
        for transport in ServeTransport.allCases { try repliesFinishedBeforeASlowCallGoOut(transport) }
    }

    private func repliesFinishedBeforeASlowCallGoOut(_ transport: ServeTransport) throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: c.path("rpc.sock"), transport: transport)
        defer { server.stop() }
        let client = try server.client()
        client.send(versionRequest)
        XCTAssertEqual(try client.receive()["id"], "v", "\(transport): the server is up")
        let slow = #"{"jsonrpc":"2.0","id":1000,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":30,"step-ms":100}}}"#
        // Round 1: the slow call last (nothing behind it for another worker to drain);
        // round 2: the slow call in the middle, quick ones on both sides.
        for (round, after) in [(1, 0), (2, 20)] {
            let before = 50
            var lines = (1...before).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"clubhouse.version"}"# }
            lines.append(slow)
            lines += (0..<after).map { #"{"jsonrpc":"2.0","id":\#(2000 + $0),"method":"clubhouse.version"}"# }
            let started = Date()
            client.send(lines.joined(separator: "\n")) // one write: the whole batch is queued at once
            var quick = Set<Int>()
            var slowReply: JSONValue?
            while slowReply == nil || quick.count < before + after {
                let message = try client.receive(timeout: 15)
                guard message["method"] == nil, let id = message["id"]?.intValue else { continue }
                if id == 1000 {
                    slowReply = message
                    XCTAssertEqual(quick.count, before + after, "\(transport), round \(round): the replies finished before the slow call waited for it")
                    XCTAssertGreaterThan(Date().timeIntervalSince(started), 2.5, "\(transport), round \(round): the slow call ran")
                } else {
                    XCTAssertNotNil(message["result"]?["version"], "round \(round), id \(id): \(message)")
                    XCTAssertTrue(quick.insert(id).inserted, "round \(round): reply \(id) came twice")
                    if quick.count == before + after {
                        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5,
                                          "\(transport), round \(round): the quick replies were held behind the 3-second call")
                    }
                }
            }
            XCTAssertEqual(slowReply?["result"]?["counted"]?.intValue, 30, "\(String(describing: slowReply))")
        }
    }

    /// Thousands of pipelined requests (some notifications, which get no reply; some with large
    /// replies, past the 64 KiB hold bound; more than the 1 MB output limit in all) come back
    /// complete, each exactly once, whole lines, and — with one worker, so that completion order
    /// is request order — in the order sent. With the default workers, complete and once each.
    func testManyPipelinedRequestsComeBackCompleteInOrderEachOnce() throws {
        let c = try Clubhouse()
        for transport in ServeTransport.allCases {
        for workers in ["1", "32"] {
            let server = try SocketServer(c, socket: c.path("rpc-\(workers).sock"), options: ["--workers", workers], transport: transport)
            defer { server.stop() }
            let client = try server.client()
            var payload: [UInt8] = []
            var expected: [Int] = []
            for id in 1...6000 {
                let line: String
                if id % 7 == 0 {
                    line = #"{"jsonrpc":"2.0","method":"clubhouse.version"}"# // a notification: no reply
                } else if id % 50 == 0 {
                    line = #"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.commands","params":{"plugin":"notes"}}"#
                    expected.append(id)
                } else {
                    line = #"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.version"}"#
                    expected.append(id)
                }
                payload += Array((line + "\n").utf8)
            }
            // Written from another thread while this one reads (the server stops reading a client
            // that does not read its replies).
            let fd = client.writeFD
            let bytes = payload
            let writer = Thread {
                var offset = 0
                while offset < bytes.count {
                    let n = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset) }
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
                }
            }
            writer.start()
            var got: [Int] = []
            let deadline = Date().addingTimeInterval(90)
            while got.count < expected.count {
                guard Date() < deadline else { return XCTFail("workers \(workers): \(got.count) of \(expected.count) replies in 90 s") }
                let message = try client.receive(timeout: 30)
                guard let id = message["id"]?.intValue else { return XCTFail("workers \(workers): a reply without an id: \(message)") }
                if id % 50 == 0 {
                    XCTAssertNotNil(message["result"]?.arrayValue, "workers \(workers), id \(id): \(message)")
                } else {
                    XCTAssertNotNil(message["result"]?["version"], "workers \(workers), id \(id): \(message)")
                }
                got.append(id)
            }
            if workers == "1" {
                XCTAssertEqual(got, expected, "one worker: replies in request order, each once")
            } else {
                XCTAssertEqual(got.count, Set(got).count, "no reply twice")
                XCTAssertEqual(got.sorted(), expected, "every request answered")
            }
            // Nothing more comes: a version request now is answered next.
            client.send(versionRequest)
            XCTAssertEqual(try client.receive(timeout: 10)["id"], "v", "\(transport), workers \(workers): no stray replies after the batch")
        }
        }
    }

    /// Issue 27, Why 8: eight quick requests sent at once on stdio got one to seven answers; the rest
    /// came only when more input arrived. Every one is answered at once, on both transports, and
    /// on stdio the end of input ends the server once the calls in flight have answered.
    func testEightQuickRequestsSentAtOnceAreAllAnsweredWithoutMoreInput() throws {
        for transport in ServeTransport.allCases {
            for round in 0..<10 {
                let c = try Clubhouse()
                let server = try SocketServer(c, socket: c.path("rpc.sock"), transport: transport)
                defer { server.stop() }
                let client = try server.client()
                let lines = (1...8).map { id -> String in
                    id % 2 == 0 ? #"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.version"}"#
                        : #"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"notes","command":"ping"}}"#
                }
                client.send(lines.joined(separator: "\n"))
                var ids = Set<Int>()
                while ids.count < 8 {
                    let reply = try client.receive(timeout: 10)
                    if let id = reply["id"]?.intValue { ids.insert(id) }
                }
                XCTAssertEqual(ids, Set(1...8), "\(transport), round \(round)")
                if transport == .stdio && round == 0 {
                    // A call still running when the input ends is answered, then the server exits 0.
                    client.send(#"{"jsonrpc":"2.0","id":9,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":3,"step-ms":100}}}"#)
                    // The end of input: the pipe's write end is replaced by /dev/null (the client keeps its number).
                    let null = open("/dev/null", O_WRONLY)
                    dup2(null, client.writeFD)
                    close(null)
                    XCTAssertEqual(try client.response(id: 9)["result"]?["counted"]?.intValue, 3)
                    let deadline = Date().addingTimeInterval(10)
                    while server.process.isRunning && Date() < deadline { usleep(20_000) }
                    XCTAssertFalse(server.process.isRunning, "stdio: the server ends with its input")
                    if !server.process.isRunning { XCTAssertEqual(server.process.terminationStatus, 0, server.stderr) }
                }
            }
        }
    }

    /// A batch larger than the in-flight bound (256), then the end of the client's input, used to lose
    /// every request still buffered when the input ended (1,000 on stdio got 511 answers), and a last
    /// request without its newline got none. Every one is answered, on both transports.
    func testRequestsBufferedWhenTheInputEndsAreAllAnswered() throws {
        for transport in ServeTransport.allCases {
            let c = try Clubhouse()
            let server = try SocketServer(c, socket: c.path("end.sock"), transport: transport)
            defer { server.stop() }
            let client = try server.client()
            let count = 1500
            let payload = (1...count).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"clubhouse.version"}"# }.joined(separator: "\n")
            let bytes = Array(payload.utf8) // no newline after the last request
            let fd = client.writeFD
            let writer = Thread {
                var offset = 0
                while offset < bytes.count {
                    let n = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset) }
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
                }
                if transport == .socket {
                    shutdown(fd, Int32(SHUT_WR))
                } else {
                    // The end of input: the pipe's write end is replaced by /dev/null.
                    let null = open("/dev/null", O_WRONLY)
                    dup2(null, fd)
                    close(null)
                }
            }
            writer.start()
            var got = Set<Int>()
            while got.count < count {
                let message: JSONValue
                do { message = try client.receive(timeout: 30) } catch {
                    return XCTFail("\(transport): \(got.count) of \(count) answered, then \(error)")
                }
                guard let id = message["id"]?.intValue, message["result"]?["version"] != nil else { return XCTFail("\(transport): \(message)") }
                got.insert(id)
            }
            XCTAssertEqual(got, Set(1...count), "\(transport)")
        }
    }

    /// On stdio a caller that stops reading its replies is dropped after the write timeout, like a
    /// socket client, and the server ends (it used to block writing for ever).
    func testAStdioCallerThatNeverReadsIsDroppedAfterTheWriteTimeout() throws {
        let c = try Clubhouse()
        let server = try SocketServer(c, socket: "", options: ["--write-timeout-ms", "1500"], transport: .stdio)
        defer { server.stop() }
        let client = try server.client()
        let line = #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.commands","params":{"plugin":"notes"}}"# + "\n"
        let chunk = Array(String(repeating: line, count: 200).utf8)
        let fd = client.writeFD
        let writer = Thread {
            for _ in 0..<200 { _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        }
        writer.start()
        let deadline = Date().addingTimeInterval(30)
        while !server.stderr.contains("dropped client") && Date() < deadline { usleep(100_000) }
        XCTAssertTrue(server.stderr.contains("it read none of its"), server.stderr)
        XCTAssertTrue(server.stderr.contains("for 1500 ms"), server.stderr)
        while server.process.isRunning && Date() < deadline { usleep(50_000) }
        XCTAssertFalse(server.process.isRunning, "the server ends when its only client is dropped")
    }
}
