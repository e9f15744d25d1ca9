// Attacks on the host from inside an isolated plugin's runner (Tests/Fixtures/plugins/hostile_runner.c):
// a forged identity, invoke during create, cancellation of a busy plugin, a 300 MB frame, memory,
// CPU, wall-clock and open-file limits, a forked child holding the pipes, a FIFO as plugin path.
// Every wait is bounded: a test that would hang fails instead.

import ClubhouseJSON
import Foundation
import XCTest

final class RunnerHostileEndToEndTests: XCTestCase {
    /// A site with one isolated hostile plugin `fx` (extra keys go into its entry).
    private func site(_ c: Clubhouse, variant: String = "HOSTILE", id: String = "org.tests.hostile",
                      extra: String = "", grants: String = #"["storage"]"#) throws -> String {
        let fixture = try FixturePlugins.build(variant, id: id, file: "hostile_runner.c")
        return try c.write("hostile.json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "grants": \(grants), "isolation": "process"\(extra)}
            }}}}
            """)
    }

    /// Starts `clubhouse ARGS` without waiting (stdout and stderr drained in the background).
    /// @unchecked Sendable: `out` and `err` are written by their reader before it leaves `group`, and read after
    /// /// waiting for the group.
    private final class Running: @unchecked Sendable {
        let process = Process()
        private let group = DispatchGroup()
        private var out = Data(), err = Data()

        init(_ c: Clubhouse, _ arguments: [String]) throws {
            process.executableURL = Clubhouse.executable
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
            env["XDG_CACHE_HOME"] = c.path("cache")
            process.environment = env
            process.currentDirectoryURL = c.scratch
            let o = Pipe(), e = Pipe()
            process.standardOutput = o
            process.standardError = e
            process.standardInput = FileHandle.nullDevice
            try process.run()
            group.enter()
            DispatchQueue.global().async { self.out = o.fileHandleForReading.readDataToEndOfFile(); self.group.leave() }
            group.enter()
            DispatchQueue.global().async { self.err = e.fileHandleForReading.readDataToEndOfFile(); self.group.leave() }
        }

        /// Waits up to `seconds`; kills the process (and fails) past that.
        func finish(within seconds: Double, file: StaticString = #filePath, line: UInt = #line) -> ClubhouseResult {
            if group.wait(timeout: .now() + seconds) == .timedOut {
                XCTFail("\(process.arguments ?? []) did not finish within \(seconds) s", file: file, line: line)
                kill(process.processIdentifier, SIGKILL)
                _ = group.wait(timeout: .now() + 10)
            }
            process.waitUntilExit()
            return ClubhouseResult(exitCode: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                                   stderr: String(decoding: err, as: UTF8.self))
        }
    }

    /// `serve --socket` on a scratch path, and a client connected to it.
    private func serve(_ c: Clubhouse, config: String) throws -> (Running, RPCSocketClient) {
        let server = try Running(c, ["--config", config, "serve", "--socket", c.path("rpc.sock")])
        return (server, try RPCSocketClient(path: c.path("rpc.sock")))
    }

    /// Waits (at most 30 s) until the fixture left `<data>/<name>` (a command has started), and removes it.
    private func awaitMarker(_ c: Clubhouse, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let path = c.dataDirectory.appendingPathComponent(name).path
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: path) {
            if Date() > deadline {
                XCTFail("\(name) did not appear within 30 s", file: file, line: line)
                return
            }
            usleep(20_000)
        }
        try? FileManager.default.removeItem(atPath: path)
        usleep(200_000)
    }

    private func stop(_ server: Running) {
        kill(server.process.processIdentifier, SIGTERM)
        _ = server.finish(within: 20)
    }

    // MARK: identity

    /// A constructor forges the runner's hello with the id `../victim/org.clubhouse.practice`: the
    /// host refuses the id, and site victim's data is never touched.
    func testForgedHelloIdCannotReachAnotherSitesData() throws {
        let c = try Clubhouse()
        let config = try site(c, variant: "FORGE")
        let result = try c.run(["--config", config, "fx", "steal"], timeout: 60)
        XCTAssertEqual(result.exitCode, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("not a reverse-DNS id"), result.stderr)
        XCTAssertTrue(result.stderr.contains("../victim/org.clubhouse.practice"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.dataDirectory.appendingPathComponent("victim").path),
                       "the forged id reached site victim's folder")
    }

    /// The first runner says org.tests.hostile; after a crash the restarted one claims
    /// org.clubhouse.practice: a protocol violation, and no practice database appears.
    func testRestartedRunnerCannotChangeItsId() throws {
        let c = try Clubhouse()
        let config = try site(c, variant: "FORGE_LATER")
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        XCTAssertEqual(try c.succeed(["--config", config, "fx", "hello"]).stdout, "hello from org.tests.hostile\n")
        // In one serve session, one call after the other: hello, arm (leaves the marker and
        // crashes), steal (the restarted runner lies about its id).
        let (server, client) = try serve(c, config: config)
        defer { stop(server) }
        func call(_ id: Int, _ command: String) throws -> JSONValue {
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"fx","command":"\#(command)"}}"#)
            return try client.response(id: id, timeout: 30).0
        }
        XCTAssertEqual(try call(1, "hello")["result"]?["hello"], "org.tests.hostile")
        XCTAssertEqual(try call(2, "arm")["error"]?["data"]?["status"], "plugin-failed")
        let stolen = try call(3, "steal")
        let message = stolen["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("org.clubhouse.practice") && message.contains("org.tests.hostile"), "\(stolen)")
        XCTAssertTrue(message.contains("protocol"), message)
        let data = c.dataDirectory.appendingPathComponent("default")
        XCTAssertFalse(FileManager.default.fileExists(atPath: data.appendingPathComponent("org.clubhouse.practice.sqlite").path))
    }

    // MARK: invoke during create

    func testIsolatedPluginMayInvokeDuringCreateAndACycleIsAnError() throws {
        let c = try Clubhouse()
        let a = try FixturePlugins.build("INVOKE_IN_CREATE", id: "org.tests.a", file: "hostile_runner.c")
        let b = try FixturePlugins.build("HOSTILE", id: "org.tests.b", file: "hostile_runner.c")
        let cc = try FixturePlugins.build("INVOKE_IN_CREATE", id: "org.tests.c", file: "hostile_runner.c")
        let d = try FixturePlugins.build("INVOKE_IN_CREATE", id: "org.tests.d", file: "hostile_runner.c")
        let config = try c.write("create.json", """
            {"sites": {"default": {"plugins": {
              "a": {"path": "\(a)", "grants": ["storage", "invoke:b"], "isolation": "process", "config": {"target": "b"}},
              "b": {"path": "\(b)", "grants": ["storage"], "isolation": "process"},
              "c": {"path": "\(cc)", "grants": ["storage", "invoke:d"], "isolation": "process", "config": {"target": "d"}},
              "d": {"path": "\(d)", "grants": ["storage", "invoke:c"], "isolation": "process", "config": {"target": "c"}}
            }}}}
            """)
        let ok = try c.run(["--config", config, "a", "hello"], timeout: 30)
        XCTAssertEqual(ok.exitCode, 0, ok.stderr)
        XCTAssertEqual(ok.stdout, "hello from org.tests.a\n")
        let cycle = try c.run(["--config", config, "c", "hello"], timeout: 30)
        XCTAssertEqual(cycle.exitCode, 1, cycle.stderr)
        XCTAssertTrue(cycle.stderr.contains("invoking during create failed"), cycle.stderr)
        XCTAssertTrue(cycle.stderr.contains("'c' is still being created (c → d → c)"), cycle.stderr)
    }

    // MARK: cancellation

    /// Ctrl-C reaches an isolated plugin's is_cancelled promptly, whether it is busy sending log
    /// and progress frames or polling quietly.
    func testCtrlCReachesABusyIsolatedPlugin() throws {
        let c = try Clubhouse()
        let config = try site(c)
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        for command in ["busy", "poll"] {
            let running = try Running(c, ["--config", config, "-vv", "fx", command])
            awaitMarker(c, "\(command).started")
            kill(running.process.processIdentifier, SIGINT)
            let result = running.finish(within: 10)
            XCTAssertEqual(result.exitCode, 130, "\(command): \(result.stderr.suffix(500))")
            XCTAssertTrue(result.stderr.contains("the fixture saw is_cancelled and stopped"), "\(command): \(result.stderr.suffix(500))")
        }
    }

    func testServeCancelReachesABusyIsolatedPlugin() throws {
        let c = try Clubhouse()
        let config = try site(c)
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        let (server, client) = try serve(c, config: config)
        defer { stop(server) }
        for (n, command) in ["busy", "poll"].enumerated() {
            let id = 10 + n
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"fx","command":"\#(command)","progress":true}}"#)
            awaitMarker(c, "\(command).started")
            client.send(#"{"jsonrpc":"2.0","id":\#(id + 100),"method":"clubhouse.cancel","params":{"id":\#(id)}}"#)
            let started = Date()
            let (reply, _) = try client.response(id: id, timeout: 10)
            XCTAssertLessThan(Date().timeIntervalSince(started), 8, command)
            XCTAssertEqual(reply["error"]?["data"]?["status"], "cancelled", "\(command): \(reply)")
        }
    }

    // MARK: frames and limits

    /// A runner announcing a 300 MB log frame is stopped at the header; the host stays small.
    func testHugeLogFrameIsAViolationAndTheHostStaysSmall() throws {
        let c = try Clubhouse()
        let config = try site(c)
        let (server, client) = try serve(c, config: config)
        defer { stop(server) }
        client.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"fx","command":"bigframe"}}"#)
        let (reply, _) = try client.response(id: 1, timeout: 60)
        let message = reply["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("broke the wire protocol") && message.contains("log"), "\(reply)")
        let status = (try? String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let hwm = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        XCTAssertGreaterThan(hwm, 0, "no VmHWM in /proc/<pid>/status")
        XCTAssertLessThan(hwm, 200 * 1024, "the host's peak resident size grew to \(hwm) kB")
        client.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"fx","command":"hello"}}"#)
        XCTAssertEqual(try client.response(id: 2).0["result"]?["hello"], "org.tests.hostile")
    }

    func testMemoryLimitStopsA2GBAllocation() throws {
        let c = try Clubhouse()
        let config = try site(c, extra: #", "limits": {"memory_mb": 512}"#)
        try c.fail(["--config", config, "fx", "hog"], contains: ["the fixture could not allocate 2 GB"])
        XCTAssertEqual(try c.succeed(["--config", config, "fx", "hello"]).stdout, "hello from org.tests.hostile\n")
    }

    func testOpenFilesLimit() throws {
        let c = try Clubhouse()
        let config = try site(c, extra: #", "limits": {"open_files": 64}"#)
        let count = try c.succeed(["--config", config, "fx", "files", "--json"]).json().intValue ?? -1
        XCTAssertGreaterThanOrEqual(count, 0)
        XCTAssertLessThan(count, 64)
    }

    func testCPULimitStopsASpinningPlugin() throws {
        let c = try Clubhouse()
        let config = try site(c, extra: #", "timeout_ms": 120000, "limits": {"cpu_seconds": 1}"#)
        let started = Date()
        let result = try c.run(["--config", config, "fx", "spin"], timeout: 40)
        XCTAssertEqual(result.exitCode, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("plugin 'fx' used up its CPU-time limit of 1 s"), result.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
    }

    /// A plugin that logs continuously is never silent, yet the wall deadline stops it.
    func testWallDeadlineCountsTotalTimeForAChattyPlugin() throws {
        let c = try Clubhouse()
        let config = try site(c, extra: #", "timeout_ms": 120000, "limits": {"wall_ms": 1500}"#)
        let started = Date()
        let result = try c.run(["--config", config, "fx", "chatty"], timeout: 40)
        XCTAssertEqual(result.exitCode, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("plugin 'fx' ran past its wall-clock limit of 1500 ms"), result.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
    }

    /// The fourth outside attack (b24): `serve` killed by SIGKILL (a signal nobody can catch) while a runner is
    /// busy in a plugin's endless loop: the runner stayed, owned by init, burning CPU up to `cpu_seconds`. A
    /// runner now watches its wire from a thread of its own and exits when the host's end closes, whatever the
    /// plugin does (RunnerProcess.exitWhenTheHostIsGone). Process and sandbox isolation.
    func testARunnerBusyInAnEndlessLoopEndsWhenItsHostIsKilled() throws {
        let c = try Clubhouse()
        let fixture = try FixturePlugins.build("HOSTILE", id: "org.tests.hostile", file: "hostile_runner.c")
        for isolation in ["process", "sandbox"] {
            let config = try c.write("spin-\(isolation).json", """
                {"sites": {"default": {"plugins": {
                  "fx": {"path": "\(fixture)", "grants": ["storage"], "isolation": "\(isolation)", "timeout_ms": 120000}
                }}}}
                """)
            let socketPath = c.path("spin-\(isolation).sock")
            let server = try Running(c, ["--config", config, "serve", "--socket", socketPath])
            let client = try RPCSocketClient(path: socketPath)
            client.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"fx","command":"spin"}}"#)
            var runner: pid_t?
            let found = Date().addingTimeInterval(30)
            while runner == nil && Date() < found {
                // A `process` runner is its keeper's child (Runner/Keeper.swift), a sandboxed one the host's.
                let started = children(of: server.process.processIdentifier)
                runner = (started + started.flatMap { children(of: $0) }).first { cpuTicks($0) > 20 }
                if runner == nil { usleep(50_000) }
            }
            guard let runner else {
                XCTFail("\(isolation): no runner spinning 30 s after the call")
                kill(server.process.processIdentifier, SIGKILL)
                continue
            }
            kill(server.process.processIdentifier, SIGKILL)
            _ = server.finish(within: 10)
            let killed = Date()
            while isAlive(runner) && Date().timeIntervalSince(killed) < 10 { usleep(20_000) }
            XCTAssertFalse(isAlive(runner), "\(isolation): the runner \(runner) outlived its host by 10 s")
            if isAlive(runner) { kill(runner, SIGKILL) }
        }
    }

    /// The processes whose parent is `pid` (/proc/*/stat).
    private func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            let fields = stat(candidate)
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }

    /// The fields of /proc/PID/stat after the command's name (state, parent, …); empty when it is gone.
    private func stat(_ pid: pid_t) -> [Substring] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return [] }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// User CPU time in clock ticks.
    private func cpuTicks(_ pid: pid_t) -> Int {
        let fields = stat(pid)
        return fields.count > 11 ? Int(fields[11]) ?? 0 : 0
    }

    /// Running or sleeping (not gone, not a zombie waiting to be reaped).
    private func isAlive(_ pid: pid_t) -> Bool {
        let fields = stat(pid)
        return !fields.isEmpty && fields[0] != "Z" && fields[0] != "X"
    }

    /// The plugin forks a child that keeps the runner's pipes open, then crashes: the crash is
    /// reported at once and the child dies with the runner's process group.
    func testForkedChildHoldingThePipesIsKilledWithTheGroup() throws {
        let c = try Clubhouse()
        let config = try site(c, extra: #", "timeout_ms": 120000"#)
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        let started = Date()
        let result = try c.run(["--config", config, "fx", "forkhold"], timeout: 50)
        XCTAssertEqual(result.exitCode, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("plugin 'fx' crashed") && result.stderr.contains("SIGSEGV"), result.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the crash waited for the child that held the pipes")
        let text = try String(contentsOfFile: c.dataDirectory.appendingPathComponent("forkhold.pid").path, encoding: .utf8)
        let pid = try XCTUnwrap(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        var alive = true
        for _ in 0..<40 where alive {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // Gone, or a zombie nobody reaped yet: either way it no longer runs.
            alive = kill(pid, 0) == 0 && !state.contains(") Z ")
            if alive { usleep(50_000) }
        }
        if alive { kill(pid, SIGKILL) }
        XCTAssertFalse(alive, "the forked child \(pid) outlived its runner")
    }

    /// Nothing a `process` runner's plugin forks outlives the runner (the fourteenth outside round's A11): a child
    /// that left the runner's process group (`setsid`), and an orphan — the child of a second such child that
    /// ended at once — are gone within 5 s of the runner's `kill -9`, and of a clean stop of `serve`. On main
    /// both outlived either: the host kills the runner's group, which they had left, and init adopted them.
    func testChildrenThatLeftTheRunnersGroupEndWithTheRunner() throws {
        let c = try Clubhouse()
        let fixture = try FixturePlugins.build("LEFTOVERS", id: "org.tests.leftovers", file: "hostile_leftovers.c")
        let config = try c.write("leftovers.json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "grants": ["storage"], "isolation": "process"}
            }}}}
            """)
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        let (server, client) = try serve(c, config: config)
        var stopped = false
        defer { if !stopped { stop(server) } }
        var left: [pid_t] = []
        defer { for pid in left { kill(pid, SIGKILL) } }
        func gone(_ pid: pid_t) -> Bool {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return kill(pid, 0) != 0 || state.contains(") Z ")
        }
        func goneWithin5s(_ pids: [pid_t], _ when: String) {
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline && !pids.allSatisfy(gone) { usleep(20_000) }
            for pid in pids { XCTAssertTrue(gone(pid), "\(pid) outlived its runner's \(when)") }
        }
        func forkAway(_ id: Int) throws -> (runner: pid_t, children: [pid_t]) {
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"fx","command":"forkaway"}}"#)
            let result = try client.response(id: id, timeout: 30).0["result"] ?? .null
            let pids = ["pid", "child", "orphan"].map { pid_t(result[$0]?.intValue ?? 0) }
            XCTAssertTrue(pids.allSatisfy { $0 > 0 }, "\(result)")
            left += pids.dropFirst()
            for pid in pids.dropFirst() { XCTAssertFalse(gone(pid), "\(pid) should run while its runner does") }
            return (pids[0], Array(pids.dropFirst()))
        }

        let first = try forkAway(1)
        XCTAssertEqual(kill(first.runner, SIGKILL), 0)
        goneWithin5s(first.children, "kill -9")

        let second = try forkAway(2)
        XCTAssertNotEqual(second.runner, first.runner)
        stopped = true
        stop(server)
        goneWithin5s(second.children, "clean stop")
    }

    /// A runner killed while idle (`kill -9`, the OOM killer) is started again for the next call, which succeeds:
    /// the host finds it dead from the call it sends — its pipe closed, or, when a child it forked holds the pipes,
    /// its process gone with the call still unread in the pipe — not from a `waitpid` before every call. The
    /// forked child goes with the old runner's group.
    func testARunnerKilledWhileIdleIsStartedAgainForTheNextCall() throws {
        let c = try Clubhouse()
        let config = try site(c)
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        let (server, client) = try serve(c, config: config)
        var stopped = false
        defer { if !stopped { stop(server) } }
        func call(_ id: Int, _ command: String) throws -> JSONValue {
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"fx","command":"\#(command)"}}"#)
            return try client.response(id: id, timeout: 30).0
        }
        func gone(_ pid: pid_t) -> Bool {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return kill(pid, 0) != 0 || state.contains(") Z ")
        }
        func killWhileIdle(_ runner: pid_t) {
            XCTAssertEqual(kill(runner, SIGKILL), 0)
            for _ in 0..<250 where !gone(runner) { usleep(20_000) }
            XCTAssertTrue(gone(runner), "runner \(runner) still runs")
        }

        // Alone: its pipe is closed when the call is sent.
        let first = try XCTUnwrap(try call(1, "pid")["result"]?.intValue.map { pid_t($0) }, "no pid")
        killWhileIdle(first)
        XCTAssertEqual(try call(2, "hello")["result"]?["hello"], "org.tests.hostile")

        // With a child it forked holding the pipes: the runner's keeper kills the child as soon as the runner is
        // gone (Keeper.swift; before it, the child held the pipes until the next call found the runner gone).
        let second = try XCTUnwrap(try call(3, "forkidle")["result"]?.intValue.map { pid_t($0) }, "no pid")
        XCTAssertNotEqual(second, first)
        let text = try String(contentsOfFile: c.dataDirectory.appendingPathComponent("forkidle.pid").path, encoding: .utf8)
        let child = try XCTUnwrap(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        killWhileIdle(second)
        let started = Date()
        let again = try call(4, "hello")
        XCTAssertEqual(again["result"]?["hello"], "org.tests.hostile", "\(again)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertNotEqual(try call(5, "pid")["result"]?.intValue.map { pid_t($0) }, second)
        for _ in 0..<100 where !gone(child) { usleep(50_000) }
        let childGone = gone(child)
        if !childGone { kill(child, SIGKILL) }
        XCTAssertTrue(childGone, "the forked child \(child) outlived its runner")

        stopped = true
        kill(server.process.processIdentifier, SIGTERM)
        let log = server.finish(within: 20).stderr
        let restarts = log.components(separatedBy: "crashed (killed by signal 9, SIGKILL) while idle; the host starts it again for the next call").count - 1
        XCTAssertEqual(restarts, 2, log)
        XCTAssertFalse(log.contains("during 'hello'"), log)
    }

    func testLimitsAreValidatedWithFileAndLine() throws {
        let c = try Clubhouse()
        let fixture = try FixturePlugins.build("HOSTILE", file: "hostile_runner.c")
        let config = try c.write("limits.json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "isolation": "process",
                     "limits": {"memory_mb": 0, "cpu_second": 3, "open_files": "many"}}
            }}}}
            """)
        let result = try c.fail(["--config", config, "config", "validate"], exitCode: 2, contains: ["3 problem(s)"])
        XCTAssertTrue(result.stderr.contains("limits.json:3:34: \"memory_mb\" must be between 16 and 1048576, not 0"), result.stderr)
        XCTAssertTrue(result.stderr.contains("limits.json:3:37: unknown key 'cpu_second' in \"limits\" of plugin 'fx'; did you mean 'cpu_seconds'?"), result.stderr)
        XCTAssertTrue(result.stderr.contains("limits.json:3:68: \"open_files\" must be an integer, not a string"), result.stderr)
    }

    // MARK: paths

    /// A FIFO as plugin path: plugins list, config validate and a call all answer (they must not
    /// block opening it), naming the file and what is wrong with it.
    func testPluginPathThatIsAFIFOIsRefusedWithoutBlocking() throws {
        let c = try Clubhouse()
        let fifo = c.path("plugin.so")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for isolation in ["process", "in-process"] {
            let config = try c.write("fifo-\(isolation).json", """
                {"sites": {"default": {"plugins": {
                  "fx": {"path": "\(fifo)", "isolation": "\(isolation)"}
                }}}}
                """)
            let list = try c.run(["--config", config, "plugins", "list"], timeout: 20)
            XCTAssertTrue(list.stdout.contains("not a regular file") || list.stderr.contains("not a regular file"),
                          "\(isolation): \(list.stdout)\n\(list.stderr)")
            let validate = try c.run(["--config", config, "config", "validate"], timeout: 20)
            XCTAssertEqual(validate.exitCode, 1)
            XCTAssertTrue(validate.stderr.contains("\(fifo) is not a regular file (a FIFO)"), "\(isolation): \(validate.stderr)")
            let call = try c.run(["--config", config, "fx", "hello"], timeout: 20)
            XCTAssertEqual(call.exitCode, 1)
            XCTAssertTrue(call.stderr.contains("not a regular file"), "\(isolation): \(call.stderr)")
        }
        let validate = try c.run(["plugin", "validate", fifo], timeout: 20)
        XCTAssertNotEqual(validate.exitCode, 0)
        XCTAssertTrue((validate.stdout + validate.stderr).contains("not a regular file"), validate.stdout + validate.stderr)
    }
}
