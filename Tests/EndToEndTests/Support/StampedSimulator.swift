// A ball-machine simulator (`clubhouse device simulate ballmachine`) on a free loopback port whose
// report lines are stamped with CLOCK_MONOTONIC as they arrive, so a test can tell how long after
// its Ctrl-C the machine received the stop command.

import ClubhouseJSON
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds (the clock of every stamp and interrupt in these tests).
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// @unchecked Sendable: the collected lines are guarded by `lock`.
final class StampedSimulator: @unchecked Sendable {
    /// One report line of the simulator: "connection opened", "received UW=… ctrl=1 → accepted, completed", …
    struct Line {
        var at: UInt64
        var text: String
        var isStart: Bool { text.contains("received") && text.contains("ctrl=1") }
        var isStop: Bool { text.contains("received") && text.contains("ctrl=0") }
        var opened: Bool { text.hasSuffix("connection opened") }
    }

    private let process = Process()
    private let err = Pipe(), out = Pipe()
    private var errReader: PipeReader?, outReader: PipeReader?
    private let lock = NSLock()
    private var stamped: [Line] = []
    private var partial = ""
    private var stdoutText = ""
    let port: UInt16

    /// Starts the simulator; `latency` delays each reply (ms).
    init(_ c: Clubhouse, latency: Int = 0, port: UInt16? = nil) throws {
        self.port = try port ?? freePort()
        process.executableURL = Clubhouse.executable
        process.arguments = ["device", "simulate", "ballmachine", "--listen", "tcp:127.0.0.1:\(self.port)", "--latency", String(latency)]
        process.currentDirectoryURL = c.scratch
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        // PipeReader, not readabilityHandler: PipeReader.swift says why.
        errReader = PipeReader(err) { [weak self] data in self?.take(data) }
        outReader = PipeReader(out) { [weak self] data in
            guard let self else { return }
            let text = String(decoding: data, as: UTF8.self)
            lock.lock()
            stdoutText += text
            lock.unlock()
        }
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            lock.lock()
            let ready = stdoutText.contains("listening on ")
            lock.unlock()
            if ready { return }
            if !process.isRunning { break }
            usleep(10_000)
        }
        throw XCTSkip("the simulator did not start on port \(self.port)")
    }

    private func take(_ data: Data) {
        let now = monotonicNanoseconds()
        lock.lock()
        defer { lock.unlock() }
        partial += String(decoding: data, as: UTF8.self)
        while let newline = partial.firstIndex(of: "\n") {
            stamped.append(Line(at: now, text: String(partial[..<newline])))
            partial = String(partial[partial.index(after: newline)...])
        }
    }

    /// The lines so far (index them to look at one run's).
    var lines: [Line] {
        lock.lock()
        defer { lock.unlock() }
        return stamped
    }

    /// Waits up to `timeout` s (or until `gone` says the other side has ended) for a line from
    /// index `from` on that satisfies `condition`.
    func wait(from: Int, timeout: TimeInterval = 20, until gone: () -> Bool = { false }, _ condition: (Line) -> Bool) -> Line? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = lines.dropFirst(from).first(where: condition) { return line }
            if gone() {
                usleep(50_000)
                return lines.dropFirst(from).first(where: condition)
            }
            usleep(2_000)
        }
        return nil
    }

    /// Waits up to `timeout` s until every connection opened so far has closed; whether they had.
    func waitUntilAllClosed(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let all = lines
            if all.filter(\.opened).count <= all.filter({ $0.text.hasSuffix("connection closed") }).count { return true }
            if Date() >= deadline { return false }
            usleep(2_000)
        }
    }

    /// The configuration of one site whose ball machine is this simulator (tennis, with `isolation`).
    func config(_ c: Clubhouse, name: String, isolation: String = "in-process", tennisExtra: String = "") throws -> String {
        try c.write(name, """
            {"sites": {"s": {
              "devices": {"ballmachine": {"transport": "tcp:127.0.0.1:\(port)"}},
              "plugins": {"tennis": {"id": "org.clubhouse.tennis", "isolation": "\(isolation)",
                                     "grants": ["storage", "device:ballmachine"]\(tennisExtra)}}}}}
            """)
    }

    /// `config(_:name:)` with the drill "long" saved (10 balls 2 s apart: still running when a test acts on it).
    func configWithLongDrill(_ c: Clubhouse, name: String = "court.json") throws -> String {
        let config = try config(c, name: name)
        try c.succeed(["--config", config, "tennis", "drill", "save", try c.write("long.json",
            #"{"name": "long", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 10}]}"#)])
        return config
    }

    /// Kills it (SIGKILL: the connections drop without a goodbye).
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        errReader?.finish()
        outReader?.finish()
    }

    deinit { stop() }
}

/// A `clubhouse` command started in the background with its stderr collected (guarded by `lock`,
/// hence @unchecked Sendable).
final class RunningClubhouse: @unchecked Sendable {
    let process = Process()
    private let err = Pipe()
    private var reader: PipeReader?
    private let lock = NSLock()
    private var text = ""

    init(_ c: Clubhouse, _ arguments: [String], dataDirectory: String? = nil) throws {
        process.executableURL = Clubhouse.executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["CLUBHOUSE_DATA_DIR"] = dataDirectory ?? c.dataDirectory.path
        env["XDG_CACHE_HOME"] = c.scratch.appendingPathComponent("cache").path
        env.removeValue(forKey: "CLUBHOUSE_CONFIG")
        process.environment = env
        process.currentDirectoryURL = c.scratch
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        // PipeReader, not readabilityHandler: PipeReader.swift says why.
        reader = PipeReader(err) { [weak self] data in
            guard let self else { return }
            let chunk = String(decoding: data, as: UTF8.self)
            lock.lock()
            text += chunk
            lock.unlock()
        }
        try process.run()
    }

    deinit { reader?.stopSoon() }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return text
    }

    /// Waits up to `timeout` s until its stderr contains `text`; whether it came.
    func waitForStderr(_ text: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            usleep(5_000)
        }
        return stderr.contains(text)
    }

    /// SIGTERM, then waits for the end (a test's `defer`).
    func terminate() {
        signal(SIGTERM)
        _ = wait()
    }

    /// The response `id` on `client`, a client of this server; one that does not come within `timeout` s
    /// fails the test with the server's stderr (the client's own timeout would skip it).
    func answer(_ client: RPCSocketClient, _ id: Int, within timeout: Double) throws -> (JSONValue, [JSONValue]) {
        do {
            return try client.response(id: id, timeout: timeout)
        } catch is XCTSkip {
            XCTFail("call \(id) was not answered within \(timeout) s: \(stderr)")
            throw XCTSkip("no answer")
        }
    }

    /// Sends `signal`; false when the process had already ended.
    @discardableResult
    func signal(_ signal: Int32 = SIGINT) -> Bool {
        guard process.isRunning else { return false }
        return Glibc.kill(process.processIdentifier, signal) == 0
    }

    /// Waits up to `timeout` s; the exit status (nil: still running, then killed), and whether a
    /// signal ended it.
    func wait(timeout: TimeInterval = 20) -> (status: Int32, bySignal: Bool)? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        reader?.finish()
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }
}
