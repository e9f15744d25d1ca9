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
    private func site(_ c: Clubhouse, isolation: String, grants: [String] = ["storage"]) throws -> String {
        let fixture = try FixturePlugins.build("SANDBOX", id: "org.tests.sandbox", file: "hostile_sandbox.c")
        let list = grants.map { "\"\($0)\"" }.joined(separator: ", ")
        return try c.write("sandbox-\(isolation).json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "grants": [\(list)], "isolation": "\(isolation)"}
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
        let (fd, port) = try loopbackListener()
        defer { close(fd) }
        let escape = c.path("escape.txt")
        let modeBefore = try FileManager.default.attributesOfItem(atPath: config)[.posixPermissions] as? Int
        let r = try session(c, config, [
            ("pid", nil), ("store", nil),
            ("open", victimPath), ("open", "/etc/passwd"), ("open", own), ("write", escape), ("write", "/tmp/clubhouse-sandbox-escape-\(getpid())"),
            ("connect", "\(port)"), ("udp", nil), ("exec", nil), ("popen", nil), ("ptrace", nil), ("signal", nil),
            ("chmod", config), ("fork", nil), ("thread", nil), ("store", nil), ("pid", nil), ("open", "/proc/1/cmdline"),
            ("tiocsti", nil), ("caps", nil), ("prlimit", nil),
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
        XCTAssertEqual(errno(r[14]), eperm, "a child process that would outlive the call: \(r[14])")
        XCTAssertEqual(errno(r[15]), 0, "a thread: \(r[15])")
        XCTAssertEqual(head(r[15]), "joined")
        XCTAssertEqual(r[16]["result"], "stored through the host", "\(r[16])")
        XCTAssertFalse(head(r[0]).isEmpty)
        XCTAssertEqual(head(r[0]), head(r[17]), "one runner served the whole session (none of the attempts crashed it)")
        XCTAssertEqual(errno(r[18]), eacces, "/proc: \(r[18])")
        XCTAssertEqual(errno(r[19]), eperm, "TIOCSTI on the inherited stderr: \(r[19])")
        XCTAssertEqual(errno(r[20]), 0, "\(r[20])")
        XCTAssertEqual(head(r[20]), "000000000", "no capability left, even when the host runs as root: \(r[20])")
        XCTAssertEqual(errno(r[21]), eperm, "prlimit on the host: \(r[21])")
    }

    /// The control: the same fixture as a plain `process` plugin reaches all of it. Process
    /// isolation is crash isolation, not confinement.
    func testTheSameAttacksWorkWithProcessIsolation() throws {
        let c = try Clubhouse()
        let config = try site(c, isolation: "process")
        let victimPath = try victim(c)
        let (fd, port) = try loopbackListener()
        defer { close(fd) }
        let escape = c.path("escape.txt")
        let r = try session(c, config, [
            ("open", victimPath), ("open", "/etc/passwd"), ("write", escape), ("connect", "\(port)"), ("udp", nil), ("popen", nil),
            ("caps", nil), ("prlimit", nil),
        ])
        XCTAssertEqual(errno(r[0]), 0, "\(r[0])")
        XCTAssertEqual(head(r[0]), "SQLite format 3")
        XCTAssertEqual(errno(r[1]), 0, "\(r[1])")
        XCTAssertEqual(errno(r[2]), 0, "\(r[2])")
        XCTAssertTrue(FileManager.default.fileExists(atPath: escape))
        XCTAssertEqual(errno(r[3]), 0, "\(r[3])")
        XCTAssertEqual(errno(r[4]), 0, "\(r[4])")
        XCTAssertTrue(head(r[5]).hasPrefix("escaped"), "\(r[5])")
        if geteuid() == 0 { XCTAssertNotEqual(head(r[6]), "000000000", "root's runner keeps its capabilities: \(r[6])") }
        XCTAssertEqual(errno(r[7]), 0, "prlimit on the host: \(r[7])")
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

    /// Older kernels are never run weaker: without Landlock's TCP control (ABI < 4) every TCP
    /// socket is refused and a `net:` grant is refused with the reason; without its truncate
    /// control (ABI < 3) seccomp refuses truncate(2). (CLUBHOUSE_TEST_LANDLOCK_ABI lowers the ABI
    /// the host and its runner use; it cannot raise it.)
    func testOlderLandlockFallsBackToStricterRules() throws {
        let c = try Clubhouse()
        let (fd, port) = try loopbackListener()
        defer { close(fd) }
        let config = try site(c, isolation: "sandbox")
        try requireSandbox(c, config)
        let victimFile = try c.write("victim.txt", "keep me")
        c.environment["CLUBHOUSE_TEST_LANDLOCK_ABI"] = "3"
        let r3 = try session(c, config, [("connect", "\(port)"), ("truncate", victimFile), ("store", nil)])
        XCTAssertEqual(errno(r3[0]), eperm, "ABI 3: no TCP socket at all: \(r3[0])")
        XCTAssertEqual(head(r3[0]), "socket")
        XCTAssertEqual(errno(r3[1]), eacces, "ABI 3: Landlock refuses truncate: \(r3[1])")
        XCTAssertEqual(r3[2]["result"], "stored through the host", "\(r3[2])")
        c.environment["CLUBHOUSE_TEST_LANDLOCK_ABI"] = "2"
        let r2 = try session(c, config, [("truncate", victimFile), ("open", "/etc/passwd"), ("signal", nil)])
        XCTAssertEqual(errno(r2[2]), eperm, "ABI 2 (no signal scoping): seccomp still refuses signalling the host: \(r2[2])")
        XCTAssertEqual(errno(r2[0]), eperm, "ABI 2: seccomp refuses truncate: \(r2[0])")
        XCTAssertEqual(errno(r2[1]), eacces, "\(r2[1])")
        XCTAssertEqual(try String(contentsOfFile: victimFile, encoding: .utf8), "keep me")
        c.environment["CLUBHOUSE_TEST_LANDLOCK_ABI"] = "3"
        let granted = try site(c, isolation: "sandbox", grants: ["storage", "net:127.0.0.1:\(port)"])
        try c.fail(["--config", granted, "fx", "store"], contains: [
            "plugin 'fx': cannot grant TCP ports: this kernel's Landlock (ABI 3) cannot restrict TCP (ABI 4, Linux 6.7, can)",
        ])
    }

    /// A sandboxed plugin found by id in `plugin_dirs`: discovery probes the file in a child
    /// process, and that probe is confined too, so the plugin's constructor never runs unconfined
    /// (with `process`, the same constructor writes its file: the control).
    func testDiscoveryProbeRunsConfined() throws {
        let built = try FixturePlugins.build("CONSTRUCTOR", id: "org.tests.constructor", file: "hostile_sandbox.c")
        for (isolation, expectWritten) in [("sandbox", false), ("process", true)] {
            let c = try Clubhouse()
            let folder = c.path("plugins")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: built, toPath: folder + "/libconstructor.so")
            try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
            let config = try c.write("discovered.json", """
                {"plugin_dirs": ["\(folder)"], "sites": {"default": {"plugins": {
                  "fx": {"id": "org.tests.constructor", "grants": ["storage"], "isolation": "\(isolation)"}
                }}}}
                """)
            let result = try c.run(["--config", config, "fx", "store"], timeout: 60)
            if result.stderr.contains("has no Landlock") { throw XCTSkip("this kernel has no Landlock") }
            XCTAssertEqual(result.exitCode, 0, "\(isolation): \(result.stderr)")
            let written = try FileManager.default.contentsOfDirectory(atPath: c.dataDirectory.path).filter { $0.hasPrefix("constructor-ran-") }
            XCTAssertEqual(!written.isEmpty, expectWritten, "\(isolation): \(written)")
        }
    }

    /// `net:HOST:PORT` opens TCP connect to that port, and no other.
    func testNetGrantOpensOnlyTheGrantedPort() throws {
        let c = try Clubhouse()
        let (granted, grantedPort) = try loopbackListener()
        defer { close(granted) }
        let (other, otherPort) = try loopbackListener()
        defer { close(other) }
        let config = try site(c, isolation: "sandbox", grants: ["storage", "net:127.0.0.1:\(grantedPort)"])
        try requireSandbox(c, config)
        let r = try session(c, config, [("connect", "\(grantedPort)"), ("connect", "\(otherPort)"), ("udp", nil)])
        XCTAssertEqual(errno(r[0]), 0, "the granted port: \(r[0])")
        XCTAssertEqual(errno(r[1]), eacces, "another port: \(r[1])")
        XCTAssertEqual(errno(r[2]), eperm, "UDP stays closed: \(r[2])")
    }

    /// The bundled plugins run sandboxed through every host service: storage (globe, scorecard,
    /// practice, putting, notes), the device broker (tennis sends to the simulated ball machine),
    /// plugin-to-plugin invoke (greeter → notes, both sandboxed), config, and their path arguments
    /// handed over by the files service: files read (practice, scorecard, tennis; standard input),
    /// outputs written (globe map, practice trends --svg), a course folder imported (putting).
    func testBundledPluginsRunSandboxed() throws {
        let c = try Clubhouse()
        func entry(_ alias: String, _ id: String, _ grants: String, _ extra: String = "") -> String {
            #""\#(alias)": {"id": "\#(id)", "isolation": "sandbox", "grants": \#(grants)\#(extra)}"#
        }
        let config = try c.write("bundled-sandbox.json", """
            {"sites": {"default": {
              "devices": {"ballmachine": {"transport": "simulator:ballmachine", "options": {"checksum": "xor"}}},
              "plugins": {
                \(entry("putting", "org.clubhouse.putting", #"["storage"]"#)),
                \(entry("globe", "org.clubhouse.globe", #"["storage"]"#, #", "config": {"user": "me"}"#)),
                \(entry("tennis", "org.clubhouse.tennis", #"["storage", "device:ballmachine"]"#, #", "config": {"device": "ballmachine", "checksum": "xor"}"#)),
                \(entry("practice", "org.clubhouse.practice", #"["storage"]"#)),
                \(entry("scorecard", "org.clubhouse.scorecard", #"["storage"]"#)),
                \(entry("notes", "org.example.notes", #"["storage"]"#)),
                \(entry("greeter", "org.example.greeter", #"["invoke:notes"]"#, #", "config": {"greeting": "Hello"}"#))
              }}}}
            """)
        let first = try c.run(["--config", config, "globe", "visit", "--country", "FR"])
        if first.stderr.contains("has no Landlock") { throw XCTSkip("this kernel has no Landlock") }
        XCTAssertEqual(first.exitCode, 0, first.stderr)
        XCTAssertEqual(first.stdout, "France (FR) marked visited\n")
        XCTAssertTrue(try c.succeed(["--config", config, "globe", "stats"]).stdout.hasPrefix("visited 1 of 195 countries"))
        XCTAssertEqual(try c.succeed(["--config", config, "globe", "where", "--lat", "48.85", "--lon", "2.35"]).stdout, "48.85, 2.35 is in France (FR)\n")
        XCTAssertEqual(try c.succeed(["--config", config, "scorecard", "player", "add", "--name", "Ann"]).stdout, "added player 1: Ann\n")
        XCTAssertTrue(try c.succeed(["--config", config, "scorecard", "player", "list"]).stdout.contains("Ann"))
        XCTAssertTrue(try c.succeed(["--config", config, "practice", "template", "list"]).stdout.contains("Clubhouse default 7i"))
        XCTAssertTrue(try c.succeed(["--config", config, "putting", "courses"]).stdout.contains("No courses yet"))
        let sent = try c.succeed(["--config", config, "tennis", "send", "--zone", "5"]).stdout
        XCTAssertTrue(sent.contains("1 launches, 1 sent, 1 completed"), sent)
        XCTAssertTrue(try c.succeed(["--config", config, "tennis", "sessions"]).stdout.contains("1"))
        XCTAssertEqual(try c.succeed(["--config", config, "greeter", "remember", "--text", "hi"]).stdout, "notes says: added note 1\n")
        XCTAssertEqual(try c.succeed(["--config", config, "notes", "list"]).stdout, "1  greeter: hi\n")
        XCTAssertEqual(try c.succeed(["--config", config, "greeter", "hello"]).stdout, "Hello, world!\n")
        // Path arguments, handed over by the host (clubhouse.files/1): files read, outputs written,
        // a course folder imported, with no change to the plugins' domain code.
        let document = try c.write("doc.json", #"{"b":1,"a":2}"#)
        let hash = try c.succeed(["--config", config, "practice", "hash", document]).stdout
        XCTAssertEqual(hash.count, 65, "practice reads the file it was given: \(hash)")
        XCTAssertEqual(try c.succeed(["--config", config, "practice", "canonicalize", "-"], stdin: #"{"b":1,"a":2}"#).stdout,
                       #"{"a":2,"b":1}"#, "standard input ('-') is handed over too")
        let course = try c.write("nine.json", """
            {"name": "Test Nine", "tees": [{"name": "Red", "rating": 34.1, "slope": 118, "holes": [
              {"par": 4, "strokeIndex": 1}, {"par": 3, "strokeIndex": 5}, {"par": 5, "strokeIndex": 3},
              {"par": 4, "strokeIndex": 2}, {"par": 4, "strokeIndex": 8}, {"par": 3, "strokeIndex": 9},
              {"par": 4, "strokeIndex": 4}, {"par": 4, "strokeIndex": 6}, {"par": 4, "strokeIndex": 7}]}]}
            """)
        XCTAssertEqual(try c.succeed(["--config", config, "scorecard", "course", "add", course, "--json"]).json()["id"]?.intValue, 1)
        let drill = try c.write("corners.json", TennisDrillEndToEndTests.drill)
        XCTAssertTrue(try c.succeed(["--config", config, "tennis", "drill", "validate", drill]).stdout.contains("valid drill \"corners\""))
        let map = c.path("map.svg")
        try c.succeed(["--config", config, "globe", "map", "--svg", map])
        XCTAssertTrue(try String(contentsOfFile: map, encoding: .utf8).hasPrefix("<svg"), "globe wrote the map it was given")
        try c.fail(["--config", config, "globe", "map", "--svg", c.path("missing/map.svg")], exitCode: 2,
                   contains: ["the folder \(c.path("missing")) does not exist"])
        // A course folder (a directory argument: read access to that tree only).
        let folder = c.path("green")
        try FileManager.default.createDirectory(atPath: folder + "/hole_1", withIntermediateDirectories: true)
        try writePlane(folder + "/hole_1/Hole_1_heightfield")
        let imported = try c.succeed(["--config", config, "putting", "course", "import", folder, "--id", "green"])
        XCTAssertTrue(imported.stdout.contains("green"), imported.stdout)
        XCTAssertTrue(try c.succeed(["--config", config, "putting", "holes", "green"]).stdout.contains("1"))
        // A best line on it: its windows and make probability run on threads of their own inside the sandbox.
        let line = try c.succeed(["--config", config, "putting", "bestline", "--course", "green", "--hole", "1",
                                  "--ball", "-6,1", "--flag", "6,0", "--json"]).json()
        XCTAssertEqual(line["bestLine"]?["holed"], .bool(true), "\(line)")
        XCTAssertGreaterThan(line["bestLine"]?["makeProbability"]?.doubleValue ?? 0, 0, "\(line)")
        // The practice import of a CSV and a chart written to the --svg it was given.
        let sample = try Clubhouse.requireSharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv").path
        let session = try c.succeed(["--config", config, "practice", "import", sample, "--date", "2026-01-20", "--json"]).json()
        XCTAssertNotNil(session["session"] ?? session["id"], "\(session)")
        let svg = c.path("trend.svg")
        try c.succeed(["--config", config, "practice", "trends", "--club", "7I", "--svg", svg])
        XCTAssertTrue(try String(contentsOfFile: svg, encoding: .utf8).contains("<svg"), "practice wrote the chart it was given")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: c.path("")).filter { $0.contains(".partial-") }
        XCTAssertEqual(leftovers, [])
    }

    /// A flat 2 % slope heightfield (its .json and .bin), as PuttingEndToEndTests writes one.
    private func writePlane(_ stem: String) throws {
        let nx = 41, nz = 21
        try Data("""
            {"units": {"x": "ft", "z": "ft", "y": "ft"},
             "grid": {"nx": \(nx), "nz": \(nz), "resolution_ft": 0.5, "x_min_ft": -10.0, "z_min_ft": -5.0}}
            """.utf8).write(to: URL(fileURLWithPath: stem + ".json"))
        var bytes: [UInt8] = []
        for _ in 0..<nz {
            for i in 0..<nx {
                let h = Float(1.0 + 0.02 * (-10.0 + 0.5 * Double(i)))
                withUnsafeBytes(of: h.bitPattern.littleEndian) { bytes += $0 }
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: stem + ".bin"))
    }

    /// The runner's executable folder is not readable wholesale: a file beside `clubhouse` that the
    /// runner has not mapped (another plugin's library here; a site's data could sit there too).
    func testExecutableFolderIsNotReadable() throws {
        let c = try Clubhouse()
        let config = try site(c, isolation: "sandbox")
        try requireSandbox(c, config)
        let beside = Clubhouse.executable.deletingLastPathComponent().appendingPathComponent("libNotesC.so").path
        guard FileManager.default.fileExists(atPath: beside) else { throw XCTSkip("\(beside) was not built") }
        let r = try session(c, config, [("open", beside), ("open", Clubhouse.executable.path)])
        XCTAssertEqual(errno(r[0]), eacces, "a file beside the executable: \(r[0])")
        XCTAssertEqual(errno(r[1]), 0, "the executable itself is mapped, so readable: \(r[1])")
    }

    /// `plugins info` tells the administrator the plugin runs sandboxed and what it can reach.
    func testPluginsInfoShowsSandboxIsolationAndReach() throws {
        let c = try Clubhouse()
        let config = try site(c, isolation: "sandbox", grants: ["storage", "net:db.example.org:5432"])
        let result = try c.succeed(["--config", config, "plugins", "info", "fx"])
        XCTAssertTrue(result.stdout.contains("isolation   sandbox: set in "), result.stdout) // and where it was set
        XCTAssertTrue(result.stdout.contains("reach       confined by the kernel: the host's services by grant;"), result.stdout)
        XCTAssertTrue(result.stdout.contains("TCP connect to port 5432 (any host); no programs, no child processes"), result.stdout)
        let json = try c.succeed(["--config", config, "plugins", "info", "fx", "--json"]).json()
        XCTAssertEqual(json["isolation"], "sandbox")
        XCTAssertTrue(json["reach"]?.stringValue?.hasPrefix("confined by the kernel") ?? false, "\(json)")
        let process = try site(c, isolation: "process")
        XCTAssertTrue(try c.succeed(["--config", process, "plugins", "info", "fx"]).stdout
            .contains("reach       everything this user can, in a child process (crash isolation, not confinement)"))
    }
}
