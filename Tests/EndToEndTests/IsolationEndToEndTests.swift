// Process isolation and `clubhouse serve`: plugins that crash, abort, trap, hang, write garbage,
// reply with malformed JSON or leak become error replies naming the plugin and the cause; the
// runner restarts on the next call; the host and the other plugins keep serving.

import ClubhouseJSON
import Foundation
import XCTest

/// A line-oriented JSON-RPC client over a Unix socket.
// @unchecked Sendable: a test hands a client to one thread at a time (its pending bytes are never
// touched by two threads at once); the descriptor itself is safe to move between threads.
final class RPCSocketClient: @unchecked Sendable {
    let fd: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let deadline = Date().addingTimeInterval(20)
        while true {
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if rc == 0 { return }
            if Date() > deadline { throw XCTSkip("cannot connect to \(path)") }
            usleep(20_000)
        }
    }

    deinit { close(fd) }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The next line as JSON (waits up to `timeout` seconds).
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
            guard left > 0, poll(&pfd, 1, left) > 0 else { throw XCTSkip("no reply within \(timeout) s") }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw XCTSkip("the server closed the connection") }
            pending.append(contentsOf: buffer[0..<n])
        }
    }

    /// Receives until the response with `id` arrives; returns it and what came before.
    func response(id: Int, timeout: Double = 30) throws -> (JSONValue, [JSONValue]) {
        var others: [JSONValue] = []
        while true {
            let message = try receive(timeout: timeout)
            if message["id"]?.intValue == id, message["method"] == nil { return (message, others) }
            others.append(message)
        }
    }

    /// Starts every call at once (`clubhouse.call` with id `id`, `arguments` a JSON object), cancels each
    /// (`clubhouse.cancel` with id `id` + 1) `after` microseconds later, and returns every call's reply by id.
    func callThenCancel(_ calls: [(id: Int, plugin: String, command: String, arguments: String)], after: useconds_t) throws -> [Int: JSONValue] {
        for call in calls {
            send(#"{"jsonrpc":"2.0","id":\#(call.id),"method":"clubhouse.call","params":{"plugin":"\#(call.plugin)","command":"\#(call.command)","arguments":\#(call.arguments)}}"#)
        }
        usleep(after)
        for call in calls { send(#"{"jsonrpc":"2.0","id":\#(call.id + 1),"method":"clubhouse.cancel","params":{"id":\#(call.id)}}"#) }
        var replies: [Int: JSONValue] = [:]
        while calls.contains(where: { replies[$0.id] == nil }) {
            let message = try receive(timeout: 30)
            if let n = message["id"]?.intValue { replies[n] = message }
        }
        return replies
    }
}

extension Clubhouse {
    /// `clubhouse --config CONFIG serve --socket` on this scratch's data dir, and a client connected to it.
    /// Standard error goes to `errors` (created empty), or nowhere when nil.
    func serveOnSocket(config: String, socket: String, errors: String? = nil) throws -> (Process, RPCSocketClient) {
        let socketPath = path(socket)
        let process = Process()
        process.executableURL = Clubhouse.executable
        process.arguments = ["--config", config, "serve", "--socket", socketPath]
        var env = ProcessInfo.processInfo.environment
        env["CLUBHOUSE_DATA_DIR"] = dataDirectory.path
        env.removeValue(forKey: "CLUBHOUSE_CONFIG")
        process.environment = env
        if let errors {
            FileManager.default.createFile(atPath: errors, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errors)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, try RPCSocketClient(path: socketPath))
    }
}

final class IsolationEndToEndTests: XCTestCase {
    private func faultSite(_ c: Clubhouse, timeoutMs: Int = 1500) throws -> String {
        let fixture = try FixturePlugins.build("OK", id: "org.tests.faults")
        let faulty = Clubhouse.productsDirectory.appendingPathComponent("libFaultyPlugin.so").path
        return try c.write("faults.json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "grants": ["storage"], "isolation": "process", "timeout_ms": \(timeoutMs)},
              "faulty": {"path": "\(faulty)", "grants": ["storage"], "isolation": "process"},
              "notes": {"id": "org.example.notes", "grants": ["storage"], "isolation": "process"},
              "greeter": {"id": "org.example.greeter", "grants": ["invoke:notes"], "isolation": "process", "config": {"greeting": "Ahoy"}}
            }}}}
            """)
    }

    func testIsolatedPluginsWorkLikeInProcessOnes() throws {
        let c = try Clubhouse()
        let config = try faultSite(c)
        XCTAssertEqual(try c.succeed(["--config", config, "notes", "add", "isolated"]).stdout, "added note 1\n")
        XCTAssertEqual(try c.succeed(["--config", config, "greeter", "hello", "Ann"]).stdout, "Ahoy, Ann!\n")
        try c.succeed(["--config", config, "greeter", "remember", "through two runners"])
        let notes = try c.succeed(["--config", config, "notes", "list", "--json"]).json()["notes"]?.arrayValue ?? []
        XCTAssertEqual(notes.compactMap { $0["text"]?.stringValue }, ["isolated", "greeter: through two runners"])
        XCTAssertEqual(try c.succeed(["--config", config, "greeter", "countdown", "--from", "2", "--step-ms", "1", "--json"]).json()["counted"]?.intValue, 2)
        try c.fail(["--config", config, "notes", "remove", "9"], exitCode: 2, contains: ["no note 9"])
        let info = try c.succeed(["--config", config, "plugins", "info", "notes", "--json"]).json()
        XCTAssertEqual(info["isolation"]?.stringValue, "process")
        // plugins list starts the four runners side by side; each answers with its own identity.
        let list = try c.succeed(["--config", config, "plugins", "list", "--json"]).json()["plugins"]?.arrayValue ?? []
        XCTAssertEqual(list.map { "\($0["plugin"]?.stringValue ?? "?")=\($0["id"]?.stringValue ?? "?"):\($0["status"]?.stringValue ?? "?")" },
                       ["fx=org.tests.faults:loaded", "faulty=org.tests.faulty:loaded", "notes=org.example.notes:loaded",
                        "greeter=org.example.greeter:loaded"])
    }

    func testEveryFaultInAChildIsAnErrorNamingThePluginAndTheCause() throws {
        let c = try Clubhouse()
        let config = try faultSite(c)
        let cases: [(String, String, [String])] = [
            ("fx", "crash", ["plugin 'fx' crashed", "SIGSEGV"]),
            ("fx", "abort", ["plugin 'fx' crashed", "SIGABRT"]),
            ("fx", "trap", ["plugin 'fx' crashed", "SIGILL"]),
            ("faulty", "fatal", ["plugin 'faulty' crashed", "SIGILL", "fatalError"]),
            ("faulty", "unwrap", ["plugin 'faulty' crashed", "SIGILL"]),
            ("fx", "hang", ["plugin 'fx' did not answer within 1500 ms", "stopped"]),
            ("fx", "garbage", ["plugin 'fx' sent garbage on its pipe"]),
            ("fx", "malformed", ["plugin 'fx' returned a malformed reply to 'malformed'"]),
        ]
        for (alias, command, fragments) in cases {
            try c.fail(["--config", config, alias, command], exitCode: 1, contains: fragments + (command == "malformed" ? [] : ["restarts the plugin on the next call"]))
        }
        XCTAssertEqual(try c.succeed(["--config", config, "fx", "leak", "--json"]).json(), "leaked 64 MB")
    }

    /// Well-framed messages that break the protocol (fixture_plugin.c, fx_bad_frame): the runner is
    /// stopped and the call fails with what it did; one-way nonsense is ignored; the host lives on.
    func testProtocolViolationsFromARunnerStopTheRunnerNotTheHost() throws {
        let c = try Clubhouse()
        let config = try faultSite(c)
        let cases: [(Int, [String])] = [
            (1, ["plugin 'fx' broke the wire protocol (a service call with unknown operation 255) and was stopped"]),
            (2, ["plugin 'fx' broke the wire protocol (a truncated service call)"]),
            (3, ["plugin 'fx' broke the wire protocol (a truncated result)"]),
            (4, ["plugin 'fx' sent garbage on its pipe", "unknown message kind 99"]),
            (5, ["plugin 'fx' broke the wire protocol (an unexpected 'create' message)"]),
        ]
        for (which, fragments) in cases {
            try c.fail(["--config", config, "fx", "badframe", "--case", String(which)], exitCode: 1,
                       contains: fragments + ["restarts the plugin on the next call"])
        }
        XCTAssertEqual(try c.succeed(["--config", config, "fx", "badframe", "--case", "6"]).stdout, "survived\n")

        // The same in one serve session: every request is answered and the plugin comes back each time.
        var lines: [String] = []
        for which in 1...6 {
            lines.append(#"{"jsonrpc":"2.0","id":\#(which),"method":"clubhouse.call","params":{"plugin":"fx","command":"badframe","arguments":{"case":\#(which)}}}"#)
        }
        lines.append(#"{"jsonrpc":"2.0","id":7,"method":"clubhouse.call","params":{"plugin":"fx","command":"hello"}}"#)
        let result = try c.succeed(["--config", config, "serve"], stdin: lines.joined(separator: "\n") + "\n")
        let replies = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        let byID = Dictionary(uniqueKeysWithValues: replies.compactMap { r in r["id"]?.intValue.map { ($0, r) } })
        for which in 1...5 {
            XCTAssertEqual(byID[which]?["error"]?["data"]?["status"], "plugin-failed", "\(byID[which] ?? .null)")
        }
        XCTAssertEqual(byID[6]?["result"], "survived")
        XCTAssertEqual(byID[7]?["result"]?["hello"], "org.tests.faults")
    }

    func testServeKeepsServingThroughCrashesAndRestartsTheRunner() throws {
        let c = try Clubhouse()
        let config = try faultSite(c)
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"fx","command":"crash"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"fx","command":"hello"}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"clubhouse.call","params":{"plugin":"faulty","command":"fatal"}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"clubhouse.call","params":{"plugin":"faulty","command":"ok"}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"clubhouse.call","params":{"plugin":"notes","command":"add","arguments":{"text":"still here"}}}"#,
        ]
        // Sequential on purpose: each call waits for the previous one (the plugin is serialized).
        let result = try c.succeed(["--config", config, "serve"], stdin: lines.joined(separator: "\n") + "\n")
        let replies = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        let byID = Dictionary(uniqueKeysWithValues: replies.compactMap { r in r["id"]?.intValue.map { ($0, r) } })
        XCTAssertTrue(byID[1]?["error"]?["message"]?.stringValue?.contains("SIGSEGV") ?? false, "\(byID[1] ?? .null)")
        XCTAssertEqual(byID[1]?["error"]?["data"]?["status"], "plugin-failed")
        XCTAssertEqual(byID[2]?["result"]?["hello"], "org.tests.faults", "the runner restarted")
        XCTAssertTrue(byID[3]?["error"]?["message"]?.stringValue?.contains("SIGILL") ?? false, "\(byID[3] ?? .null)")
        XCTAssertEqual(byID[4]?["result"], "fine")
        XCTAssertEqual(byID[5]?["result"]?["text"], "still here")
    }

    func testServeAnswersMalformedRequestsWithJSONRPCErrors() throws {
        let c = try Clubhouse()
        let lines = [
            "this is not json",
            #"{"jsonrpc":"1.0","id":1,"method":"clubhouse.plugins"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"clubhouse.teleport"}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"clubhouse.call","params":{"plugin":"notes"}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"clubhouse.call","params":{"plugin":"notes","command":"remove","arguments":{"id":"x"}}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"clubhouse.call","params":{"plugin":"nobody","command":"x"}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"clubhouse.call","params":{"plugin":"notes","command":"list"}}"#,
            #"{"jsonrpc":"2.0","method":"clubhouse.plugins"}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"clubhouse.commands","params":{"plugin":"notes"}}"#,
            "[]",
        ]
        let result = try c.succeed(["serve"], stdin: lines.joined(separator: "\n") + "\n")
        let replies = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        XCTAssertEqual(replies.count, 9, "a notification gets no reply:\n\(result.stdout)")
        let codes = replies.compactMap { r -> (Int, Int)? in
            guard let code = r["error"]?["code"]?.intValue else { return nil }
            return (r["id"]?.intValue ?? 0, code)
        }
        let expected = [(0, -32700), (1, -32600), (2, -32601), (3, -32602), (4, -32602), (5, -32001), (0, -32600)]
        XCTAssertEqual(codes.map(\.0).sorted(), expected.map(\.0).sorted())
        for (id, code) in expected where id != 0 {
            XCTAssertEqual(codes.first { $0.0 == id }?.1, code, "id \(id)")
        }
        let list = replies.first { $0["id"]?.intValue == 6 }
        XCTAssertEqual(list?["result"]?["notes"], [])
        let commands = replies.first { $0["id"]?.intValue == 7 }?["result"]?.arrayValue ?? []
        XCTAssertEqual(commands.compactMap { $0["name"]?.stringValue }, ["add", "list", "remove", "ping", "demo"])
    }

    func testServeOnAUnixSocketRunsCallsConcurrentlyStreamsProgressAndCancels() throws {
        let c = try Clubhouse()
        let socketPath = c.path("rpc.sock")
        let server = Process()
        server.executableURL = Clubhouse.executable
        server.arguments = ["serve", "--socket", socketPath]
        var env = ProcessInfo.processInfo.environment
        env["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
        env["XDG_CACHE_HOME"] = c.path("cache")
        server.environment = env
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let client = try RPCSocketClient(path: socketPath)
        var st = stat()
        XCTAssertEqual(stat(socketPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600, "the socket is private to its user")

        // A slow call with progress, then a fast call to another plugin: the fast one answers first.
        client.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":30,"step-ms":100},"progress":true}}"#)
        usleep(400_000)
        client.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"notes","command":"add","arguments":{"text":"meanwhile"}}}"#)
        let (fast, before) = try client.response(id: 2)
        XCTAssertEqual(fast["result"]?["text"], "meanwhile")
        XCTAssertTrue(before.contains { $0["method"]?.stringValue == "clubhouse.progress" && $0["params"]?["id"]?.intValue == 1 },
                      "progress notifications for call 1 arrive while it runs: \(before)")
        // Cancel the slow call; it ends with an error, not with a result.
        client.send(#"{"jsonrpc":"2.0","id":3,"method":"clubhouse.cancel","params":{"id":1}}"#)
        let (slow, _) = try client.response(id: 1)
        XCTAssertEqual(slow["error"]?["data"]?["status"], "cancelled", "\(slow)")
        let second = try RPCSocketClient(path: socketPath)
        second.send(#"{"jsonrpc":"2.0","id":"a","method":"clubhouse.version"}"#)
        XCTAssertEqual(try second.receive()["result"]?["abi"], "1.7")
    }
}
