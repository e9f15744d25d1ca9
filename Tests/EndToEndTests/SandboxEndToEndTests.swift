// `isolation: "sandbox"`: a hostile plugin (Tests/Fixtures/plugins/hostile_sandbox.c) with no
// grant but storage tries to escape its runner — another plugin's database, /etc/passwd, its own
// database file, a file of its choice, a listening TCP port, UDP, /bin/sh, ptrace and signals to
// the host, chmod — and each attempt is refused by the kernel while the same runner keeps doing
// its legitimate work through the host. The same attempts succeed with `isolation: "process"`, so
// these tests can fail. Every wait is bounded (serve on stdin ends at EOF; run() has a timeout).

import ClubhouseJSON
import Foundation
import XCTest

final class SandboxEndToEndTests: XCTestCase {
    private let eacces = 13, eperm = 1

    /// A site with the hostile fixture as `fx` at the given isolation.
    private func site(_ c: Clubhouse, isolation: String) throws -> String {
        let fixture = try FixturePlugins.build("SANDBOX", id: "org.tests.sandbox", file: "hostile_sandbox.c")
        return try c.write("sandbox-\(isolation).json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "grants": ["storage"], "isolation": "\(isolation)"}
            }}}}
            """)
    }

    /// Another plugin's database, in the same site's data folder.
    private func victim(_ c: Clubhouse) throws -> String {
        let folder = c.dataDirectory.appendingPathComponent("default")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("org.tests.victim.sqlite").path
        try Data("SQLite format 3\u{0}secret rows".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A TCP listener on 127.0.0.1 (an ephemeral port); closed by the caller.
    private func listener() throws -> (fd: Int32, port: Int) {
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
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Runs `commands` (command, target) in one serve session and returns the replies by position.
    private func session(_ c: Clubhouse, _ config: String, _ commands: [(String, String?)]) throws -> [JSONValue] {
        let lines = commands.enumerated().map { index, command -> String in
            let arguments = command.1.map { #","arguments":{"target":"\#($0)"}"# } ?? ""
            return #"{"jsonrpc":"2.0","id":\#(index + 1),"method":"clubhouse.call","params":{"plugin":"fx","command":"\#(command.0)"\#(arguments)}}"#
        }
        let result = try c.run(["--config", config, "serve"], stdin: lines.joined(separator: "\n") + "\n", timeout: 120)
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        let replies = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        let byID = Dictionary(replies.compactMap { r in r["id"]?.intValue.map { ($0, r) } }, uniquingKeysWith: { a, _ in a })
        return (1...commands.count).map { byID[$0] ?? .null }
    }

    private func errno(_ reply: JSONValue) -> Int? { reply["result"]?["errno"]?.intValue }
    private func head(_ reply: JSONValue) -> String { reply["result"]?["head"]?.stringValue ?? "" }

    /// Skips when this kernel cannot sandbox (the refusal has its own test).
    private func requireSandbox(_ c: Clubhouse, _ config: String) throws {
        let result = try c.run(["--config", config, "fx", "store"], timeout: 60)
        if result.stderr.contains("has no Landlock") { throw XCTSkip("this kernel has no Landlock: \(result.stderr)") }
        XCTAssertEqual(result.exitCode, 0, "a sandboxed plugin uses the host's storage:\n\(result.stderr)")
    }

    /// Each escape is refused by the kernel with the plugin seeing an errno; the runner survives
    /// every one (same pid before and after) and still writes through the host's storage.
    func testSandboxRefusesEveryEscapeAndTheSameRunnerKeepsWorking() throws {
        let c = try Clubhouse()
        let config = try site(c, isolation: "sandbox")
        let victimPath = try victim(c)
        try requireSandbox(c, config) // also creates the plugin's own database
        let own = c.dataDirectory.appendingPathComponent("default/org.tests.sandbox.sqlite").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: own), "the host created the plugin's database")
        let (fd, port) = try listener()
        defer { close(fd) }
        let escape = c.path("escape.txt")
        let modeBefore = try FileManager.default.attributesOfItem(atPath: config)[.posixPermissions] as? Int
        let r = try session(c, config, [
            ("pid", nil), ("store", nil),
            ("open", victimPath), ("open", "/etc/passwd"), ("open", own), ("write", escape), ("write", "/tmp/clubhouse-sandbox-escape-\(getpid())"),
            ("connect", "\(port)"), ("udp", nil), ("exec", nil), ("popen", nil), ("ptrace", nil), ("signal", nil),
            ("chmod", config), ("store", nil), ("pid", nil),
        ])
        XCTAssertEqual(r[1]["result"], "stored through the host", "\(r[1])")
        XCTAssertEqual(errno(r[2]), eacces, "another plugin's database: \(r[2])")
        XCTAssertFalse(head(r[2]).contains("SQLite"))
        XCTAssertEqual(errno(r[3]), eacces, "/etc/passwd: \(r[3])")
        XCTAssertEqual(errno(r[4]), eacces, "its own database file, past the host: \(r[4])")
        XCTAssertEqual(errno(r[5]), eacces, "a file of its choice: \(r[5])")
        XCTAssertFalse(FileManager.default.fileExists(atPath: escape))
        XCTAssertEqual(errno(r[6]), eacces, "a file in /tmp: \(r[6])")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/clubhouse-sandbox-escape-\(getpid())"))
        XCTAssertEqual(errno(r[7]), eacces, "TCP connect to 127.0.0.1:\(port) without a grant: \(r[7])")
        XCTAssertEqual(errno(r[8]), eperm, "a UDP socket: \(r[8])")
        XCTAssertEqual(errno(r[9]), eperm, "execve /bin/sh: \(r[9])")
        XCTAssertNotEqual(errno(r[10]), 0, "popen /bin/sh: \(r[10])")
        XCTAssertNotNil(errno(r[10]), "popen /bin/sh: \(r[10])")
        XCTAssertFalse(head(r[10]).contains("escaped"), "the shell ran: \(r[10])")
        XCTAssertEqual(errno(r[11]), eperm, "ptrace of the host: \(r[11])")
        XCTAssertEqual(errno(r[12]), eperm, "a signal to the host: \(r[12])")
        XCTAssertEqual(errno(r[13]), eperm, "chmod of the site's configuration: \(r[13])")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: config)[.posixPermissions] as? Int, modeBefore)
        XCTAssertEqual(r[14]["result"], "stored through the host", "\(r[14])")
        XCTAssertFalse(head(r[0]).isEmpty)
        XCTAssertEqual(head(r[0]), head(r[15]), "one runner served the whole session (none of the attempts crashed it)")
    }

    /// The control: the same fixture as a plain `process` plugin reaches all of it. Process
    /// isolation is crash isolation, not confinement.
    func testTheSameAttacksWorkWithProcessIsolation() throws {
        let c = try Clubhouse()
        let config = try site(c, isolation: "process")
        let victimPath = try victim(c)
        let (fd, port) = try listener()
        defer { close(fd) }
        let escape = c.path("escape.txt")
        let r = try session(c, config, [
            ("open", victimPath), ("open", "/etc/passwd"), ("write", escape), ("connect", "\(port)"), ("udp", nil), ("popen", nil),
        ])
        XCTAssertEqual(errno(r[0]), 0, "\(r[0])")
        XCTAssertEqual(head(r[0]), "SQLite format 3")
        XCTAssertEqual(errno(r[1]), 0, "\(r[1])")
        XCTAssertEqual(errno(r[2]), 0, "\(r[2])")
        XCTAssertTrue(FileManager.default.fileExists(atPath: escape))
        XCTAssertEqual(errno(r[3]), 0, "\(r[3])")
        XCTAssertEqual(errno(r[4]), 0, "\(r[4])")
        XCTAssertTrue(head(r[5]).hasPrefix("escaped"), "\(r[5])")
    }

    /// A kernel without Landlock: the plugin is refused, never run with less confinement, and the
    /// message says what the kernel lacks and how to choose "process" knowingly.
    func testKernelWithoutLandlockRefusesSandboxWithAClearMessage() throws {
        let c = try Clubhouse()
        let config = try site(c, isolation: "sandbox")
        c.environment["CLUBHOUSE_TEST_LANDLOCK_ABI"] = "0"
        try c.fail(["--config", config, "fx", "store"], contains: [
            "plugin 'fx' asks for \"isolation\": \"sandbox\" (\(config):2:",
            "has no Landlock", "CONFIG_SECURITY_LANDLOCK",
            "set \"isolation\": \"process\" there knowingly",
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.dataDirectory.appendingPathComponent("default/org.tests.sandbox.sqlite").path),
                       "the plugin never ran")
    }

    /// `plugins info` tells the administrator the plugin runs sandboxed.
    func testPluginsInfoShowsSandboxIsolation() throws {
        let c = try Clubhouse()
        let config = try site(c, isolation: "sandbox")
        let result = try c.succeed(["--config", config, "plugins", "info", "fx"])
        XCTAssertTrue(result.stdout.contains("sandbox"), result.stdout)
    }
}
