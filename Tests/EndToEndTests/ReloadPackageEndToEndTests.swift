// `serve` reload: installing a new version while the server runs (or `clubhouse.reload`) restarts
// an isolated plugin on its next call while a call in flight finishes on the old runner; an
// in-process plugin says a restart is needed. Fixture: validate_plugin.c (GOOD: `spin` runs until
// cancelled), built at 1.0.0 and 1.1.0.

import ClubhouseJSON
import Foundation
import XCTest

/// A `clubhouse serve` on stdio: requests written as lines, responses collected by id.
/// @unchecked Sendable: `responses`, `buffer` and `stderrText` are read and written under `lock`; each pipe is
/// /// used by one thread.
private final class StdioServer: @unchecked Sendable {
    let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private var outputReader: PipeReader?, errorsReader: PipeReader?
    private let lock = NSLock()
    private var responses: [Int: JSONValue] = [:]
    private var buffer = Data()
    private(set) var stderrText = ""

    init(_ c: Clubhouse, _ arguments: [String]) throws {
        process.executableURL = Clubhouse.executable
        process.arguments = arguments
        process.environment = c.childEnvironment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        // PipeReader, not readabilityHandler: Support/PipeReader.swift says why.
        outputReader = PipeReader(output) { [weak self] data in self?.take(data) }
        errorsReader = PipeReader(errors) { [weak self] data in
            let text = String(decoding: data, as: UTF8.self)
            self?.lock.lock(); self?.stderrText += text; self?.lock.unlock()
        }
        try process.run()
    }

    deinit {
        outputReader?.stopSoon()
        errorsReader?.stopSoon()
    }

    private func take(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: 0x0A) {
            let line = buffer[buffer.startIndex..<newline]
            buffer = Data(buffer[buffer.index(after: newline)...])
            if let v = try? JSONParser.parse(bytes: Array(line)), let id = v["id"]?.intValue { responses[id] = v }
        }
    }

    func send(_ id: Int, _ method: String, _ params: String = "{}") {
        input.fileHandleForWriting.write(Data("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"\(method)\",\"params\":\(params)}\n".utf8))
    }

    func response(_ id: Int, timeout: TimeInterval = 30) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            lock.lock()
            let found = responses[id]
            lock.unlock()
            if let found { return found }
            usleep(20_000)
        }
        throw ServeTestFailure(description: "no response to request \(id) within \(timeout) s; stderr: \(stderr)")
    }

    var stderr: String { lock.lock(); defer { lock.unlock() }; return stderrText }

    func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        outputReader?.finish()
        errorsReader?.finish()
    }
}

final class ReloadPackageEndToEndTests: XCTestCase {
    static let id = "org.tests.validate"

    func install(_ c: Clubhouse, version: String) throws {
        let library = try FixturePlugins.build("GOOD", id: Self.id, version: version, file: "validate_plugin.c")
        let package = c.path("reload-\(version).chpkg")
        try c.succeed(["plugin", "pack", library, "--out", package])
        try c.succeed(["plugin", "install", package])
    }

    fileprivate func versions(_ server: StdioServer, _ id: Int) throws -> [String: String] {
        server.send(id, "clubhouse.plugins")
        var out: [String: String] = [:]
        for p in try server.response(id)["result"]?.arrayValue ?? [] {
            if let name = p["plugin"]?.stringValue { out[name] = p["version"]?.stringValue ?? p["error"]?.stringValue }
        }
        return out
    }

    func testAnInstalledVersionRestartsTheIsolatedPluginAfterItsCallsInFlightAndInProcessOnesSayRestart() throws {
        let c = try Clubhouse()
        try install(c, version: "1.0.0")
        let config = try c.write("plugins.json", """
            {"sites": {"club": {"plugins": {"vx": {"id": "\(Self.id)", "config": {"greeting": "hi"}},
                                            "notes": {"id": "org.example.notes", "grants": ["storage"]}}}}}
            """)
        let server = try StdioServer(c, ["--config", config, "--site", "club", "serve"])
        defer { server.stop() }
        XCTAssertEqual(try versions(server, 1)["vx"], "1.0.0")

        // A call in flight on 1.0.0 while 1.1.0 is installed.
        server.send(2, "clubhouse.call", #"{"plugin": "vx", "command": "spin"}"#)
        usleep(300_000)
        try install(c, version: "1.1.0")
        // The watch notices within about half a second; the next resolution is 1.1.0.
        var seen = ""
        let deadline = Date().addingTimeInterval(15)
        var n = 10
        while Date() < deadline {
            n += 1
            seen = try versions(server, n)["vx"] ?? ""
            if seen == "1.1.0" { break }
            usleep(200_000)
        }
        XCTAssertEqual(seen, "1.1.0", server.stderr)
        XCTAssertTrue(server.stderr.contains("the installed build of plugin 'vx' changed: it restarts on its next call (calls in flight finish first)"),
                      server.stderr)
        server.send(3, "clubhouse.call", #"{"plugin": "vx", "command": "say", "arguments": {"word": "hi"}}"#)
        XCTAssertEqual(try server.response(3)["result"], .null, "the new runner answers")
        // The old runner is still there for the call in flight: it stops because it was cancelled,
        // not because its process was killed.
        server.send(4, "clubhouse.cancel", #"{"id": 2}"#)
        XCTAssertEqual(try server.response(4)["result"]?["cancelled"]?.boolValue, true)
        let spun = try server.response(2)
        XCTAssertEqual(spun["error"]?["data"]?["status"]?.stringValue, "cancelled", "\(spun)")

        // clubhouse.reload: isolated restarts, in-process says restart, unknown is an error.
        server.send(5, "clubhouse.call", #"{"plugin": "notes", "command": "ping"}"#)
        _ = try server.response(5)
        server.send(6, "clubhouse.reload")
        let reloaded = try server.response(6)["result"]?.arrayValue ?? []
        let outcomes = Dictionary(uniqueKeysWithValues: reloaded.compactMap { r in r["plugin"]?.stringValue.map { ($0, r) } })
        XCTAssertEqual(outcomes["vx"]?["outcome"]?.stringValue, "restarts")
        XCTAssertEqual(outcomes["notes"]?["outcome"]?.stringValue, "needs-restart")
        XCTAssertEqual(outcomes["notes"]?["message"]?.stringValue,
                       "plugin 'notes' runs in process (1.0.0) and cannot be unloaded: restart the server to load another build")
        server.send(7, "clubhouse.call", #"{"plugin": "vx", "command": "say", "arguments": {"word": "again"}}"#)
        XCTAssertEqual(try server.response(7)["result"], .null)
        server.send(8, "clubhouse.reload", #"{"plugin": "nope"}"#)
        XCTAssertEqual(try server.response(8)["error"]?["message"]?.stringValue, "unknown plugin 'nope' at site 'club'")
        // Removing the running version moves the plugin back to the other one.
        try c.succeed(["plugin", "remove", "\(Self.id)@1.1.0"])
        var back = ""
        let again = Date().addingTimeInterval(15)
        while Date() < again {
            n += 1
            back = try versions(server, n)["vx"] ?? ""
            if back == "1.0.0" { break }
            usleep(200_000)
        }
        XCTAssertEqual(back, "1.0.0", server.stderr)
    }
}
