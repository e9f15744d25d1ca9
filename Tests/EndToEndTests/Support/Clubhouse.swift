// Runs the built `clubhouse` binary the way a user does, in a fresh data directory, and hands
// back exit code, stdout and stderr. Every end-to-end test goes through this.

import ClubhouseJSON
import Foundation
import XCTest

struct ClubhouseResult {
    var exitCode: Int32
    var stdout: String
    var stderr: String

    /// stdout parsed as JSON (for --json runs).
    func json(file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        do {
            return try JSONParser.parse(stdout)
        } catch {
            XCTFail("stdout is not JSON (\(error)):\n\(stdout)\nstderr:\n\(stderr)", file: file, line: line)
            throw error
        }
    }
}

/// A clubhouse binary plus a scratch directory holding its data dir and any files a test writes.
final class Clubhouse {
    /// Products directory of the current build (where `clubhouse` and the plugin .so files are).
    static let productsDirectory: URL = {
        // The test bundle lives in the products directory on Linux (.build/<triple>/debug).
        var url = Bundle.main.bundleURL
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            url = bundle.bundleURL.deletingLastPathComponent()
        }
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("clubhouse").path) { return url }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }()

    static var executable: URL { productsDirectory.appendingPathComponent("clubhouse") }

    /// The repository root (Tests/EndToEndTests/Support/Clubhouse.swift → 4 levels up).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/data` beside the repository, or nil (tests that need it skip with the reason).
    static func sharedData(_ relative: String) -> URL? {
        let url = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data").appendingPathComponent(relative)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Skips the test (printing why) when ../shared/data/<relative> is absent.
    static func requireSharedData(_ relative: String) throws -> URL {
        guard let url = sharedData(relative) else {
            throw XCTSkip("../shared/data/\(relative) is absent (the shared data lives beside the repository); skipping")
        }
        return url
    }

    let scratch: URL
    var dataDirectory: URL { scratch.appendingPathComponent("data") }
    var environment: [String: String] = [:]
    /// Variables of the test's own environment the command must not see (eg NO_COLOR).
    var unsetEnvironment: Set<String> = []

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("clubhouse-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        guard FileManager.default.isExecutableFile(atPath: Clubhouse.executable.path) else {
            throw XCTSkip("the clubhouse binary is not built at \(Clubhouse.executable.path)")
        }
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// A path inside the scratch directory.
    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// Writes a file in the scratch directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The test's environment for a clubhouse it starts: the scratch data dir, no site or config of the caller's.
    var childEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["CLUBHOUSE_DATA_DIR"] = dataDirectory.path
        env.removeValue(forKey: "CLUBHOUSE_CONFIG")
        env.removeValue(forKey: "CLUBHOUSE_SITE")
        return env
    }

    /// Runs `clubhouse ARGS` with the scratch data dir (unless the test set one) and waits.
    /// `launcher`: a command line that runs the rest (e.g. `/usr/bin/setsid --wait`, or a shell
    /// that opens extra descriptors and `exec`s the rest).
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, timeout: TimeInterval = 120, onTerminal: Bool = false,
             launcher: [String] = []) throws -> ClubhouseResult {
        let process = Process()
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(launcher.dropFirst()) + [Clubhouse.executable.path] + arguments
        } else if onTerminal {
            // util-linux `script` gives the command a pseudo-terminal (stdin, stdout and stderr are
            // the terminal, merged into this process's stdout); the answer is typed into it.
            let command = ([Clubhouse.executable.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qefc", command.joined(separator: " "), "/dev/null"]
        } else {
            process.executableURL = Clubhouse.executable
            process.arguments = arguments
        }
        var env = childEnvironment
        env["XDG_CACHE_HOME"] = scratch.appendingPathComponent("cache").path
        for k in unsetEnvironment { env.removeValue(forKey: k) }
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.currentDirectoryURL = scratch
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Drain both pipes while waiting so a chatty child never blocks.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            XCTFail("clubhouse \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        return ClubhouseResult(exitCode: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                               stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs and asserts success; returns the result.
    @discardableResult
    func succeed(_ arguments: [String], stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws
        -> ClubhouseResult
    {
        let result = try run(arguments, stdin: stdin)
        XCTAssertEqual(result.exitCode, 0, "clubhouse \(arguments.joined(separator: " ")) failed:\n\(result.stderr)\n\(result.stdout)",
                       file: file, line: line)
        return result
    }

    /// Runs, asserts the exit code, and that stderr is exactly one line containing every fragment.
    @discardableResult
    func fail(_ arguments: [String], exitCode: Int32 = 1, stdin: String? = nil, contains fragments: [String],
              file: StaticString = #filePath, line: UInt = #line) throws -> ClubhouseResult {
        let result = try run(arguments, stdin: stdin)
        XCTAssertEqual(result.exitCode, exitCode, "clubhouse \(arguments.joined(separator: " ")):\n\(result.stderr)", file: file, line: line)
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("clubhouse: ") && !$0.hasPrefix("clubhouse: warning") }
        XCTAssertEqual(lines.count, 1, "expected one error line, got:\n\(result.stderr)", file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(result.stderr.contains(fragment), "stderr lacks '\(fragment)':\n\(result.stderr)", file: file, line: line)
        }
        return result
    }
}

/// A non-blocking TCP listener on 127.0.0.1 (an ephemeral port) and its port; closed by the caller.
func loopbackListener() throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw XCTSkip("cannot open a TCP socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 16) == 0 else {
        close(fd)
        throw XCTSkip("cannot listen on 127.0.0.1")
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A Unix socket's address for `path` (which must fit sun_path).
func unixSocketAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes.prefix(raw.count - 1))
        raw[min(bytes.count, raw.count - 1)] = 0
    }
    return address
}
