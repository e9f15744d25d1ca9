// Issue 30: the tennis plugin in the field. Whatever ends a drill — the machine's connection dropping
// and coming back, the call's time limits, the runner being killed, a `serve` client going away —
// the machine receives the stop command and the session is stored with the balls really launched;
// and a dry run stores nothing (Why 5).

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class TennisFieldSafetyEndToEndTests: XCTestCase {
    static let threeBalls = #"{"name": "three", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 3}]}"#

    private func sessions(_ c: Clubhouse, _ config: String) throws -> [JSONValue] {
        try c.succeed(["--config", config, "tennis", "sessions", "--json"]).json()["sessions"]?.arrayValue ?? []
    }

    /// The connection drops after the first ball (the simulator is killed) and the machine comes back
    /// on the same port: the drill ends, and the stop goes out on a new connection.
    func testADroppedConnectionEndsTheDrillAndTheStopGoesOutWhenTheMachineIsBack() throws {
        let c = try Clubhouse()
        let first = try StampedSimulator(c)
        let config = try first.config(c, name: "court.json")
        let drill = try c.write("three.json", TennisFieldSafetyEndToEndTests.threeBalls)
        let run = try RunningClubhouse(c, ["--config", config, "tennis", "drill", "run", drill])
        XCTAssertNotNil(first.wait(from: 0) { $0.isStart })
        first.kill()
        let second = try StampedSimulator(c, port: first.port)
        defer { second.stop() }
        let ended = run.wait(timeout: 30)
        XCTAssertEqual(ended?.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("ball machine link failed") && run.stderr.contains("(session 1 stored with what happened before)"),
                      run.stderr)
        XCTAssertNotNil(second.wait(from: 0, timeout: 5) { $0.isStop }, "the machine that came back got no stop")
        XCTAssertFalse(second.lines.contains(where: \.isStart), "no ball after the drop")
        let stored = try sessions(c, config)
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored.first?["summary"]?["sent"]?.intValue, 1)
        XCTAssertEqual(stored.first?["summary"]?["stopSent"]?.boolValue, true)
        XCTAssertEqual(stored.first?["summary"]?["stopNote"]?.stringValue, "sent on a new connection after the old one dropped")
    }

    /// An isolated drill longer than its `timeout_ms` (a silence bound: the runner is heard from at
    /// every ball) stores its session; at its wall-clock limit it is asked to stop, stops the machine
    /// and stores what it did before the host ends it.
    func testTheCallsTimeLimitsStopTheDrillAndKeepItsSession() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let drill = try c.write("three.json", TennisFieldSafetyEndToEndTests.threeBalls)
        let quiet = try simulator.config(c, name: "silence.json", isolation: "process", tennisExtra: #", "timeout_ms": 3000"#)
        let whole = try c.run(["--config", quiet, "tennis", "drill", "run", drill, "--json"])
        XCTAssertEqual(whole.exitCode, 0, "a 6 s drill under a 3 s silence bound: \(whole.stderr)")
        XCTAssertEqual(try sessions(c, quiet).first?["summary"]?["completed"]?.intValue, 3)

        let from = simulator.lines.count
        let limited = try simulator.config(c, name: "wall.json", isolation: "process", tennisExtra: #", "limits": {"wall_ms": 3000}"#)
        let started = Date()
        let cut = try c.run(["--config", limited, "tennis", "drill", "run", drill])
        XCTAssertEqual(cut.exitCode, 1, cut.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 8, "stopped at its limit, not after the drill")
        XCTAssertTrue(cut.stderr.contains("plugin 'tennis' ran past its wall-clock limit of 3000 ms and was asked to stop: drill stopped"),
                      cut.stderr)
        let run = simulator.lines.dropFirst(from)
        XCTAssertEqual(run.filter(\.isStart).count, 1, "one ball before the limit")
        XCTAssertTrue(run.last(where: { $0.isStart || $0.isStop })?.isStop ?? false, "the machine got the stop last")
        let stored = try sessions(c, limited)
        XCTAssertEqual(stored.count, 2)
        XCTAssertEqual(stored.first?["summary"]?["sent"]?.intValue, 1)
        XCTAssertEqual(stored.first?["summary"]?["stopSent"]?.boolValue, true)
    }

    /// The runner is killed (SIGKILL) during a drill: the host stops the machine, and the session is
    /// stored with the ball the machine received, marked as not finished.
    func testAKilledRunnerLeavesAStoppedMachineAndItsSession() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let config = try simulator.config(c, name: "court.json", isolation: "process")
        let drill = try c.write("three.json", TennisFieldSafetyEndToEndTests.threeBalls)
        let run = try RunningClubhouse(c, ["--config", config, "tennis", "drill", "run", drill])
        XCTAssertNotNil(simulator.wait(from: 0) { $0.isStart })
        usleep(100_000)
        let runner = try XCTUnwrap(children(of: run.process.processIdentifier).first, "no runner process")
        kill(runner, SIGKILL)
        let ended = run.wait(timeout: 20)
        XCTAssertEqual(ended?.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("plugin 'tennis' crashed (killed by signal 9, SIGKILL"), run.stderr)
        XCTAssertTrue(run.stderr.contains("device 'ballmachine' (tcp:127.0.0.1:\(simulator.port)) was left running by 'tennis' (its runner crashed"),
                      run.stderr)
        XCTAssertNotNil(simulator.wait(from: 0, timeout: 5) { $0.isStop })
        XCTAssertEqual(simulator.lines.filter(\.isStart).count, 1)
        let stored = try sessions(c, config)
        XCTAssertEqual(stored.count, 1, "stored while it ran")
        XCTAssertEqual(stored.first?["drill"]?.stringValue, "three")
        XCTAssertEqual(stored.first?["summary"]?["sent"]?.intValue, 1)
        XCTAssertTrue(stored.first?["summary"]?["aborted"]?.stringValue?.hasPrefix("did not finish") ?? false, "\(stored)")
    }

    /// A `serve` client that goes away mid-drill: its call is cancelled, the machine stopped, the
    /// session stored.
    func testAServeClientThatGoesAwayStopsItsDrill() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let config = try simulator.config(c, name: "court.json")
        let drill = try c.write("three.json", TennisFieldSafetyEndToEndTests.threeBalls)
        let socketPath = c.path("serve.sock")
        let server = try RunningClubhouse(c, ["--config", config, "serve", "--socket", socketPath])
        defer {
            server.signal(SIGTERM)
            _ = server.wait(timeout: 10)
        }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: socketPath) && Date() < deadline { usleep(20_000) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(socketPath.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(connected, 0, "cannot connect to \(socketPath): \(server.stderr)")
        let request = #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"tennis","command":"drill run","arguments":{"drill":"\#(drill)"}}}"# + "\n"
        _ = request.withCString { write(fd, $0, strlen($0)) }
        XCTAssertNotNil(simulator.wait(from: 0) { $0.isStart }, server.stderr)
        close(fd)
        let stop = simulator.wait(from: 0, timeout: 5) { $0.isStop }
        XCTAssertNotNil(stop, "the client went away and the machine got no stop: \(server.stderr)")
        XCTAssertEqual(simulator.lines.filter(\.isStart).count, 1)
        var stored: [JSONValue] = []
        for _ in 0..<50 {
            stored = try sessions(c, config)
            if stored.first?["summary"]?["stopSent"]?.boolValue == true { break }
            usleep(100_000)
        }
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored.first?["summary"]?["aborted"]?.stringValue, "stopped by the user")
        XCTAssertEqual(stored.first?["summary"]?["stopSent"]?.boolValue, true)

        // A client that half-closes (its end of input: its call answers) and then closes: cancelled at the close,
        // not when the drill ends (the loop used to stop watching a half-closed client).
        let longConfig = try simulator.configWithLongDrill(c, name: "court.json")
        XCTAssertEqual(longConfig, config)
        let halfFrom = simulator.lines.count
        let half = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let halfConnected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(half, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(halfConnected, 0)
        let long = #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"tennis","command":"drill run","arguments":{"drill":"long"}}}"# + "\n"
        _ = long.withCString { write(half, $0, strlen($0)) }
        XCTAssertNotNil(simulator.wait(from: halfFrom, timeout: 30) { $0.isStart }, server.stderr)
        shutdown(half, Int32(SHUT_WR))
        let second = simulator.lines.count
        XCTAssertNotNil(simulator.wait(from: second, timeout: 5) { $0.isStart }, "a half-close stopped the drill")
        let gone = monotonicNanoseconds()
        close(half)
        XCTAssertNotNil(simulator.wait(from: halfFrom, timeout: 5) { $0.isStop && $0.at > gone }, "half-closed then closed: the machine got no stop: \(server.stderr)")
        let late = simulator.lines.dropFirst(halfFrom).filter { $0.isStart && $0.at > gone + 200_000_000 }
        XCTAssertEqual(late.count, 0, "half-closed then closed: balls after the client went: \(late.map(\.text))")
        for _ in 0..<50 {
            if try sessions(c, config).count == 2 { break }
            usleep(100_000)
        }

        // The server stopped (SIGTERM) mid-drill: the call is cancelled, not run to its end.
        let from = simulator.lines.count
        let again = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(again) }
        let reconnected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(again, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(reconnected, 0)
        _ = request.withCString { write(again, $0, strlen($0)) }
        XCTAssertNotNil(simulator.wait(from: from) { $0.isStart }, server.stderr)
        server.signal(SIGTERM)
        XCTAssertNotNil(simulator.wait(from: from, timeout: 5) { $0.isStop }, "the server stopped and the machine got no stop: \(server.stderr)")
        XCTAssertEqual(server.wait(timeout: 10)?.status, 0, server.stderr)
        XCTAssertEqual(simulator.lines.dropFirst(from).filter(\.isStart).count, 1, "not run to its end")
        let after = try sessions(c, config)
        XCTAssertEqual(after.count, 3)
        XCTAssertEqual(after.first?["summary"]?["stopSent"]?.boolValue, true)
    }

    /// The fourth outside attack (b21): a `serve` caller on stdio that dies (both its pipes close) left its drill
    /// firing to its end, where a socket's close cancels at once. A caller whose standard output is gone is gone:
    /// its calls are cancelled (the machine gets its stop, no ball after) and the server ends — whether the output
    /// closes with the input, or later, after a half-close of the input alone let the drill go on.
    func testAStdioCallerThatGoesAwayStopsItsDrill() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let config = try simulator.configWithLongDrill(c)
        // Its input closed then its output; the same with the calls answering between; its output alone closed
        // while its input stays open (the re-check of the fourth round: the drill ran on until a reply was due).
        for way in ["closed", "half-closed first", "output closed, input open"] {
            let halfClosedFirst = way == "half-closed first"
            var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&input), 0)
            XCTAssertEqual(pipe(&output), 0)
            for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            let server = Process()
            server.executableURL = Clubhouse.executable
            server.arguments = ["--config", config, "serve"]
            var environment = ProcessInfo.processInfo.environment
            environment["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
            environment["XDG_CACHE_HOME"] = c.path("cache")
            environment.removeValue(forKey: "CLUBHOUSE_CONFIG")
            server.environment = environment
            server.standardInput = FileHandle(fileDescriptor: input[0], closeOnDealloc: false)
            server.standardOutput = FileHandle(fileDescriptor: output[1], closeOnDealloc: false)
            server.standardError = FileHandle.nullDevice
            try server.run()
            close(input[0])
            close(output[1])
            defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
            let from = simulator.lines.count
            let request = #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"tennis","command":"drill run","arguments":{"drill":"long"}}}"# + "\n"
            _ = request.withCString { write(input[1], $0, strlen($0)) }
            XCTAssertNotNil(simulator.wait(from: from, timeout: 30) { $0.isStart }, "no ball")
            if way != "output closed, input open" { close(input[1]) }
            defer { if way == "output closed, input open" { close(input[1]) } }
            if halfClosedFirst {
                let balls = simulator.lines.count
                XCTAssertNotNil(simulator.wait(from: balls, timeout: 5) { $0.isStart }, "a half-close stopped the drill")
                XCTAssertTrue(server.isRunning, "a half-close ended the server before its call answered")
            }
            let gone = monotonicNanoseconds()
            close(output[0])
            XCTAssertNotNil(simulator.wait(from: from, timeout: 5) { $0.isStop && $0.at > gone }, "\(way): the caller went and the machine got no stop")
            let deadline = Date().addingTimeInterval(10)
            while server.isRunning && Date() < deadline { usleep(20_000) }
            XCTAssertFalse(server.isRunning, "\(way): the server is still up 10 s after its caller went")
            let late = simulator.lines.dropFirst(from).filter { $0.isStart && $0.at > gone + 200_000_000 }
            XCTAssertEqual(late.count, 0, "\(way): balls after the caller went: \(late.map(\.text))")
        }
    }

    /// The third outside attack (a15): `serve --http` stopped (SIGTERM, Ctrl-C) while an HTTP drill runs — a
    /// plain call, then a followed one held by a lease — cancels it at once like a JSON-RPC call: the machine
    /// gets its stop, fires no further ball, the session is stored and the server exits (it used to stay up
    /// until the drill's end, 12 s, while the machine fired 7 more balls). The fourth (b03, b35): SIGHUP — the
    /// terminal closing, an SSH session dropping — ended the server at once with the machine still firing; it is
    /// now SIGTERM's path (the third round of the loop).
    func testAnHTTPServerStoppedMidDrillCancelsItsDrills() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let config = try simulator.configWithLongDrill(c)
        let token = try XCTUnwrap(try c.succeed(["--config", config, "--json", "token", "create", "--name", "coach", "--scope", "tennis:*"])
            .json()["token"]?.stringValue)
        for (signal, extra) in [(SIGTERM, ""), (SIGINT, "Accept: text/event-stream\r\nClubhouse-Lease: lease0123456789abcdef; ms=60000\r\n"),
                                (SIGHUP, "")] {
            let server = try HTTPServerProcess(c, arguments: ["--config", config])
            defer { server.stop() }
            let from = simulator.lines.count
            let client = try RawHTTPConnection(port: server.port)
            XCTAssertTrue(client.send("POST /api/tennis/drills/long/run HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\(extra)"
                                      + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
            XCTAssertNotNil(simulator.wait(from: from) { $0.isStart }, server.stderr)
            let signalled = monotonicNanoseconds()
            kill(server.pid, signal)
            XCTAssertNotNil(simulator.wait(from: from, timeout: 5) { $0.isStop }, "signal \(signal): the machine got no stop: \(server.stderr)")
            let deadline = Date().addingTimeInterval(10)
            while server.process.isRunning && Date() < deadline { usleep(20_000) }
            XCTAssertFalse(server.process.isRunning, "signal \(signal): the server is still up 10 s later: \(server.stderr)")
            let late = simulator.lines.dropFirst(from).filter { $0.isStart && $0.at > signalled + 200_000_000 }
            XCTAssertEqual(late.count, 0, "signal \(signal): balls fired after the server was stopped: \(late.map(\.text))")
        }
        let stored = try sessions(c, config)
        XCTAssertEqual(stored.count, 3, "every drill stored")
        XCTAssertEqual(stored.compactMap { $0["summary"]?["stopSent"]?.boolValue }, [true, true, true])
    }

    /// The fourth outside attack (b03): SIGUSR1, SIGUSR2, SIGALRM (and SIGHUP) ended `tennis drill run` and `serve`
    /// mid-drill without the machine's stop. Every signal whose default action ends the process and that can be
    /// caught (`SignalRelay.stopping`) now takes SIGTERM's path — the command line's drill stops its machine and
    /// exits 130 — and `serve` catches each of them on the socket and on stdio (read from /proc: none is left at
    /// its default); SIGXFSZ is ignored like SIGPIPE; a SIGHUP the host was started with ignored (`nohup`) stays so.
    func testEverySignalThatWouldEndTheHostStopsTheMachineFirst() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let config = try simulator.config(c, name: "court.json")
        let drill = try c.write("three.json", TennisFieldSafetyEndToEndTests.threeBalls)
        let run = try RunningClubhouse(c, ["--config", config, "tennis", "drill", "run", drill])
        XCTAssertNotNil(simulator.wait(from: 0) { $0.isStart }, run.stderr)
        XCTAssertTrue(run.signal(SIGUSR1))
        XCTAssertNotNil(simulator.wait(from: 0, timeout: 5) { $0.isStop }, "SIGUSR1: the machine got no stop: \(run.stderr)")
        let ended = run.wait(timeout: 15)
        XCTAssertEqual(ended?.status, 130, run.stderr)
        XCTAssertEqual(ended?.bySignal, false, run.stderr)
        XCTAssertTrue(run.stderr.contains("terminated by SIGUSR1; asking 'tennis' to stop"), run.stderr)
        XCTAssertEqual(simulator.lines.filter(\.isStart).count, 1, "no ball after the signal")

        // The class, on both of serve's JSON-RPC transports (HTTP: the test above).
        // 32 and 33 are glibc's (SIGCANCEL, SIGSETXID): caught by glibc's handlers, which ignore other processes'
        // signals — 32's is installed only when the process first cancels a thread, so the host does that at start
        // (the fifth outside attack: `kill -32` ended it mid-drill).
        let stopping: [Int32] = [SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPWR, SIGSTKFLT, SIGIO]
            + Array(32...64) + SignalRelaySuspending.all
        let inherited = try signalMasks(getpid())
        func bit(_ signal: Int32) -> UInt64 { 1 << UInt64(signal - 1) }
        func handlers(_ pid: pid_t) throws -> (caught: UInt64, ignored: UInt64) {
            let deadline = Date().addingTimeInterval(30)
            var masks = try signalMasks(pid)
            while masks.caught & bit(SIGTERM) == 0 && Date() < deadline {
                usleep(50_000)
                masks = try signalMasks(pid)
            }
            return masks
        }
        let socketPath = c.path("serve.sock")
        let socketServer = try RunningClubhouse(c, ["--config", config, "serve", "--socket", socketPath])
        let onSocket = try handlers(socketServer.process.processIdentifier)
        XCTAssertTrue(socketServer.signal(32))
        usleep(300_000)
        XCTAssertTrue(socketServer.process.isRunning, "kill -32 ended serve: \(socketServer.stderr)")
        socketServer.signal(SIGTERM)
        XCTAssertEqual(socketServer.wait(timeout: 10)?.status, 0, socketServer.stderr)
        let input = Pipe()
        let stdioServer = Process()
        stdioServer.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
        stdioServer.arguments = [Clubhouse.executable.path, "--config", config, "serve"]
        var environment = ProcessInfo.processInfo.environment
        environment["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
        environment["XDG_CACHE_HOME"] = c.path("cache")
        environment.removeValue(forKey: "CLUBHOUSE_CONFIG")
        stdioServer.environment = environment
        stdioServer.standardInput = input
        stdioServer.standardOutput = FileHandle.nullDevice
        stdioServer.standardError = FileHandle.nullDevice
        try stdioServer.run()
        let onStdio = try handlers(stdioServer.processIdentifier)
        kill(stdioServer.processIdentifier, SIGUSR2)
        stdioServer.waitUntilExit()
        XCTAssertEqual(stdioServer.terminationReason, .exit, "SIGUSR2 ended serve on stdio by its default action")
        for signal in stopping {
            for (transport, masks) in [("socket", onSocket), ("stdio", onStdio)] {
                XCTAssertNotEqual((masks.caught | masks.ignored) & bit(signal), 0, "serve on \(transport): signal \(signal) still ends the host at once")
                if inherited.ignored & bit(signal) == 0 && !(transport == "stdio" && signal == SIGHUP) {
                    XCTAssertNotEqual(masks.caught & bit(signal), 0, "serve on \(transport): signal \(signal) is not handled")
                }
            }
        }
        for (transport, masks) in [("socket", onSocket), ("stdio", onStdio)] {
            XCTAssertNotEqual(masks.ignored & bit(SIGXFSZ), 0, "serve on \(transport): SIGXFSZ not ignored")
            XCTAssertNotEqual(masks.ignored & bit(SIGPIPE), 0, "serve on \(transport): SIGPIPE not ignored")
        }
        XCTAssertNotEqual(onStdio.ignored & bit(SIGHUP), 0, "nohup's SIGHUP was not left ignored")
        XCTAssertEqual(onStdio.caught & bit(SIGHUP), 0, "nohup's SIGHUP was not left ignored")
    }

    /// Ctrl-Z (SIGTSTP), or SIGTTIN/SIGTTOU for a background host, suspended the host mid-drill with the machine
    /// firing (the re-check of the fourth outside round: `kill -TSTP` on a `serve` without a terminal). The host
    /// stops every running device first, then suspends itself; after SIGCONT the drill does not resume.
    func testASuspendedHostStopsTheMachineFirst() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let config = try simulator.configWithLongDrill(c)
        let run = try RunningClubhouse(c, ["--config", config, "tennis", "drill", "run", "long"])
        defer { run.signal(SIGCONT) }
        XCTAssertNotNil(simulator.wait(from: 0, timeout: 30) { $0.isStart }, run.stderr)
        let suspended = monotonicNanoseconds()
        XCTAssertTrue(run.signal(SIGTSTP))
        // Waits for events, bounded generously (a loaded machine delays each step; a host that never stops
        // the machine or never suspends still fails).
        XCTAssertNotNil(simulator.wait(from: 0, timeout: 15) { $0.isStop && $0.at > suspended }, "SIGTSTP: the machine got no stop: \(run.stderr)")
        let pid = run.process.processIdentifier
        var state = ""
        let deadline = Date().addingTimeInterval(15)
        repeat {
            usleep(20_000)
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // "pid (comm) S …": the state follows the command's closing parenthesis.
            state = stat.split(separator: ")").last.map { String($0.dropFirst().prefix(1)) } ?? ""
        } while state != "T" && Date() < deadline
        XCTAssertEqual(state, "T", "the host did not suspend after stopping the machine")
        let balls = simulator.lines.filter(\.isStart).count
        XCTAssertTrue(run.signal(SIGCONT))
        let ended = run.wait(timeout: 20)
        XCTAssertNotNil(ended, "the host did not end after SIGCONT: \(run.stderr)")
        XCTAssertEqual(simulator.lines.filter(\.isStart).count, balls, "the drill fired again after SIGCONT")
        XCTAssertTrue(run.stderr.contains("SIGTSTP (Ctrl-Z): the host is being suspended"), run.stderr)
    }

    private enum SignalRelaySuspending { static let all: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU] }

    /// The caught and ignored signals of a process (/proc/PID/status, SigCgt and SigIgn).
    private func signalMasks(_ pid: pid_t) throws -> (caught: UInt64, ignored: UInt64) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func mask(_ key: String) -> UInt64 {
            let line = status.split(separator: "\n").first { $0.hasPrefix(key + ":") } ?? ""
            return UInt64(line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
        }
        return (mask("SigCgt"), mask("SigIgn"))
    }

    /// Why 5: `--dry-run` prints the frames and stores nothing, for every tennis command that has it.
    func testDryRunsStoreNothing() throws {
        let c = try Clubhouse()
        try c.succeed(["tennis", "calibrate", "--image-points", try c.write("taps.json", TennisEndToEndTests.taps)])
        let detections = try c.write("d.jsonl", TennisEndToEndTests.detections)
        let drill = try c.write("three.json", TennisFieldSafetyEndToEndTests.threeBalls)
        let session = try c.succeed(["tennis", "session", "--detections", detections, "--dry-run", "--json"]).json()
        XCTAssertNil(session["sessionId"])
        XCTAssertEqual(session["log"]?["summary"]?["launches"]?.intValue, 4)
        XCTAssertTrue(try c.succeed(["tennis", "session", "--detections", detections, "--dry-run"]).stdout.contains("dry run: nothing stored"))
        XCTAssertNil(try c.succeed(["tennis", "session", "--detections", "-", "--dry-run", "--json"], stdin: TennisEndToEndTests.detections)
            .json()["sessionId"])
        XCTAssertNil(try c.succeed(["tennis", "send", "--zone", "3", "--dry-run", "--json"]).json()["sessionId"])
        XCTAssertNil(try c.succeed(["tennis", "drill", "run", drill, "--dry-run", "--json"]).json()["sessionId"])
        XCTAssertTrue(try c.succeed(["tennis", "sessions"]).stdout.contains("no sessions yet"), "a dry run stored a session")
        // The same commands without --dry-run (the default site's simulator) store one each.
        try c.succeed(["tennis", "send", "--zone", "3"])
        XCTAssertEqual(try c.succeed(["tennis", "sessions", "--json"]).json()["sessions"]?.arrayValue?.count, 1)
    }

    /// The processes whose parent is `pid`.
    private func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }
}
