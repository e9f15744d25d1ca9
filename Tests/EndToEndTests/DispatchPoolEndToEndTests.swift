// A plugin that uses libdispatch's global queues in a sandboxed runner (issue 27): libdispatch's
// worker-pool monitor opens /proc/<tid>/stat of its workers once a second while work waits, and
// crashes the process when that open fails — which Landlock made it do in every sandboxed runner
// (the putting plugin died this way). The executable's open answers libdispatch's /proc/<tid>/stat
// of its own threads with the line libdispatch parses (Host/Sources/CProcOpen), so the sandbox shows
// nothing of /proc. C fixture: dispatch_pool.c, which links libdispatch itself (the host no longer loads
// it, issue 33; a Swift plugin using Dispatch or Foundation links it the same way).
import ClubhouseJSON
import Foundation
import XCTest

final class DispatchPoolEndToEndTests: XCTestCase {
    private let eacces = 13

    private func site(_ c: Clubhouse, isolation: String) throws -> String {
        let fixture = try FixturePlugins.build("POOL", id: "org.tests.pool", file: "dispatch_pool.c", linking: try Self.libdispatch())
        return try c.write("pool-\(isolation).json", """
            {"sites": {"default": {"plugins": {
              "pool": {"path": "\(fixture)", "isolation": "\(isolation)"}
            }}}}
            """)
    }

    /// The toolchain's libdispatch (the one this test process has loaded, through Foundation), to link and find at run time.
    private static func libdispatch() throws -> [String] {
        // Read to its end (a /proc file says its size is 0).
        let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        guard let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libdispatch.so") }),
              let slash = line.firstIndex(of: "/") else {
            throw XCTSkip("libdispatch is not loaded in the test process")
        }
        let path = String(line[slash...])
        return [path, "-Wl,-rpath," + (path as NSString).deletingLastPathComponent]
    }

    /// Runs the commands in one serve session; the replies by position.
    private func session(_ c: Clubhouse, _ config: String, _ commands: [String]) throws -> [JSONValue] {
        let lines = commands.enumerated().map { index, command in
            #"{"jsonrpc":"2.0","id":\#(index + 1),"method":"clubhouse.call","params":{"plugin":"pool","command":"\#(command)"}}"#
        }
        let result = try c.run(["--config", config, "serve"], stdin: lines.joined(separator: "\n") + "\n", timeout: 120)
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        let replies = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        let byID = Dictionary(replies.compactMap { r in r["id"]?.intValue.map { ($0, r) } }, uniquingKeysWith: { a, _ in a })
        if result.stderr.contains("has no Landlock") { throw XCTSkip("this kernel has no Landlock: \(result.stderr)") }
        return (1...commands.count).map { byID[$0] ?? .null }
    }

    /// Work queued on the global queue (and a dispatch_apply) while the monitor ticks: every
    /// block runs and the call answers, sandboxed and in a `process` runner (the control).
    func testGlobalQueuesWorkInSandboxedAndProcessRunners() throws {
        for isolation in ["sandbox", "process"] {
            let c = try Clubhouse()
            let config = try site(c, isolation: isolation)
            let r = try session(c, config, ["pool", "pool"])
            for reply in r {
                let data = reply["result"] ?? .null
                XCTAssertNotNil(data["queued"]?.intValue, "\(isolation): \(reply)")
                XCTAssertEqual(data["done"]?.intValue, data["queued"]?.intValue, "\(isolation): every queued block ran: \(reply)")
                XCTAssertEqual(data["applied"]?.intValue.map { $0 > 0 }, true, "\(isolation): \(reply)")
            }
        }
    }

    /// What the sandbox shows of /proc: its own threads' files (listing them is refused), never
    /// another process's — init's, the host's — nor its own status. With `process`, all open.
    func testSandboxShowsOnlyItsOwnThreadsUnderProc() throws {
        let c = try Clubhouse()
        let r = try session(c, try site(c, isolation: "sandbox"), ["proc"])[0]["result"] ?? .null
        XCTAssertEqual(r["owntid"]?.stringValue, "ok", "libdispatch's form, /proc/<tid>/stat: \(r)")
        // Its own task folder too is closed (an earlier grant of it showed the machine's sockets
        // under task/<tid>/net: the eleventh outside round's n07).
        for name in ["init", "hostcmdline", "hosttask", "owntask", "tasklist", "status"] {
            XCTAssertEqual(r[name]?.intValue, eacces, "\(name): \(r)")
        }
        let control = try session(c, try site(c, isolation: "process"), ["proc"])[0]["result"] ?? .null
        for name in ["owntask", "owntid", "hostcmdline", "hosttask", "tasklist", "status"] {
            XCTAssertEqual(control[name]?.stringValue, "ok", "process: \(name): \(control)")
        }
    }
}
