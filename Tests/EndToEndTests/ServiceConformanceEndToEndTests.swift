// Issue 27, Why 6 / Deliver 4: one behaviour per service. The same C plugin
// (Tests/Fixtures/plugins/conformance.c) drives every service call — storage types, NULLs, blobs,
// conversions, binds, names, errors, transactions, migrations, the limits; files; config; invoke;
// progress; log; a device — and writes down everything it saw. It runs in process, in a `process`
// runner and sandboxed, at a site of the same name over the same (emptied) data directory, and
// the three transcripts, the progress notifications its caller receives and the log lines the host
// writes must be the same, byte for byte. Before the fix, column_text of an INTEGER column was
// "42" in process and "" in a runner, and every conversion between types differed.

import ClubhouseJSON
import Foundation
import XCTest

final class ServiceConformanceEndToEndTests: XCTestCase {
    /// What one isolation produced: each command's reply, the progress notifications, the log lines.
    struct Observed: Equatable {
        var replies: [String: String] = [:]
        var progress: [String] = []
        var log: [String] = []
    }

    static let commands = ["storage", "limits", "files", "config", "invoke", "progress", "log", "device", "bigreply", "smallreply"]

    private func config(_ c: Clubhouse, plugin: String, isolation: String) throws -> String {
        try c.write("conformance-\(isolation).json", """
            {"sites": {"club": {
              "devices": {
                "ballmachine": {"transport": "simulator:ballmachine", "options": {"checksum": "xor"}},
                "other": {"transport": "simulator:ballmachine"}
              },
              "plugins": {
                "conf": {"path": "\(plugin)", "isolation": "\(isolation)", "timeout_ms": 20000,
                         "grants": ["storage", "invoke:*", "device:ballmachine"],
                         "config": {"greeting": "hi", "number": 42, "nested": {"a": [1, 2.5]}, "list": [true, null]},
                         "limits": {"open_statements": 8, "statement_mb": 2, "sql_kb": 1, "bind_mb": 1, "reply_mb": 1,
                                    "log_kb": 1, "progress_kb": 1, "open_devices": 2}},
                "notes": {"id": "org.example.notes", "grants": ["storage"]},
                "greeter": {"id": "org.example.greeter", "grants": ["invoke:notes"], "config": {"greeting": "Hello"}}
              }
            }}}
            """)
    }

    /// Runs every command of the plugin under one isolation, in one `serve` session, from an empty
    /// data directory.
    private func observe(_ c: Clubhouse, plugin: String, isolation: String) throws -> Observed {
        try? FileManager.default.removeItem(at: c.dataDirectory)
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        let config = try self.config(c, plugin: plugin, isolation: isolation)
        let socket = c.path("conformance.sock")
        let errors = c.path("conformance-\(isolation).err")
        FileManager.default.createFile(atPath: errors, contents: nil)
        let server = Process()
        server.executableURL = Clubhouse.executable
        server.arguments = ["-vv", "--config", config, "--site", "club", "serve", "--socket", socket]
        var env = ProcessInfo.processInfo.environment
        env["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
        env["XDG_CACHE_HOME"] = c.path("cache")
        env.removeValue(forKey: "CLUBHOUSE_CONFIG")
        env.removeValue(forKey: "CLUBHOUSE_SITE")
        server.environment = env
        server.currentDirectoryURL = c.scratch
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle(forWritingAtPath: errors)
        try server.run()
        defer {
            server.interrupt()
            let deadline = Date().addingTimeInterval(20)
            while server.isRunning && Date() < deadline { usleep(20_000) }
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            server.waitUntilExit()
        }
        let client = try RPCSocketClient(path: socket)
        var observed = Observed()
        for (n, command) in Self.commands.enumerated() {
            let id = n + 1
            var arguments = "{}"
            if command == "files" {
                arguments = #"{"file": "\#(c.path("input.txt"))", "folder": "\#(c.path("folder"))"}"#
            }
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"conf","command":"\#(command)","arguments":\#(arguments),"progress":true}}"#)
            let (reply, before) = try client.response(id: id, timeout: 60)
            observed.replies[command] = JSONWriter.compact(reply)
            // Progress: every stage's start, unit and end; updates in between are samples the host
            // takes at most every 100 ms, so they depend on the clock and are left out.
            for note in before where note["method"] == "clubhouse.progress" {
                guard let params = note["params"] else { continue }
                if params["finished"] == nil && params["done"]?.intValue != 0 { continue }
                observed.progress.append("\(command): \(JSONWriter.compact(params["label"] ?? .null)) done=\(params["done"] ?? .null) total=\(params["total"] ?? .null) unit=\(params["unit"] ?? .null) finished=\(params["finished"] ?? false)")
            }
        }
        server.interrupt()
        let deadline = Date().addingTimeInterval(20)
        while server.isRunning && Date() < deadline { usleep(20_000) }
        let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        observed.log = text.split(separator: "\n").filter { $0.hasPrefix("[conf]") }.map(String.init)
        return observed
    }

    func testEveryServiceCallAnswersTheSameInProcessInARunnerAndSandboxed() throws {
        let c = try Clubhouse()
        let plugin = try FixturePlugins.build("CONFORMANCE", id: "org.tests.conformance", file: "conformance.c")
        try c.write("input.txt", "conformance input\n")
        try c.write("folder/inside.txt", "inside\n")
        try c.write("outside.txt", "outside\n")
        var isolations = ["in-process", "process", "sandbox"]
        if c.landlockMissing { isolations.removeLast() }
        var seen: [String: Observed] = [:]
        for isolation in isolations { seen[isolation] = try observe(c, plugin: plugin, isolation: isolation) }
        let reference = try XCTUnwrap(seen["in-process"])

        // The reference itself is what the header promises (a few anchors; the rest is compared).
        let storage = reference.replies["storage"] ?? ""
        XCTAssertTrue(storage.contains(#"name=\"a\" type=1 text=\"42\"/2"#), String(storage.prefix(2000)))
        // Every pointer of a row, kept until the row is read whole (storage.h: valid until the next step).
        XCTAssertTrue(storage.contains(#"row 0 numbers=84: \"alpha\"/5 \"beta, longer than alpha\"/23 \"42\"/2 \"\\x00\\xff\\x01\"/3 \"\"/0 again=\"alpha\" terminated=1111"#),
                      String(storage.prefix(4000)))
        XCTAssertTrue(storage.contains(#"row 1 numbers=-14: \"a2\"/2 \"b2\"/2 \"-7.5\"/4 NULL/0 \"last\"/4 again=\"a2\" terminated=1111"#),
                      String(storage.prefix(4000)))
        XCTAssertTrue(reference.replies["limits"]?.contains("open_statements") ?? false, reference.replies["limits"] ?? "")
        XCTAssertTrue(reference.replies["files"]?.contains(#"read \"conformance input\\x0a\""#) ?? false, reference.replies["files"] ?? "")
        XCTAssertTrue(reference.replies["device"]?.contains("open #3 -> denied") ?? false, reference.replies["device"] ?? "")
        XCTAssertTrue(reference.log.contains { $0.contains("conformance long:") && $0.contains("(cut at 1 KiB") }, "\(reference.log)")
        XCTAssertTrue(reference.progress.contains { $0.contains("(cut at 1 KiB") }, "\(reference.progress)")
        XCTAssertTrue(reference.replies["bigreply"]?.contains(#"plugin 'conf' is over its limit of 1 MiB (\"limits\": {\"reply_mb\": 1} in plugins.json)"#) ?? false,
                      reference.replies["bigreply"] ?? "")
        XCTAssertTrue(reference.replies["smallreply"]?.contains(#""result":"rrrr"#) ?? false, String((reference.replies["smallreply"] ?? "").prefix(200)))

        for isolation in isolations.dropFirst() {
            let other = try XCTUnwrap(seen[isolation])
            for command in Self.commands {
                let a = reference.replies[command] ?? "", b = other.replies[command] ?? ""
                if a != b { XCTFail("\(command): \(isolation) differs from in-process: \(Self.difference(a, b))") }
            }
            XCTAssertEqual(other.progress, reference.progress, "\(isolation): progress")
            XCTAssertEqual(other.log, reference.log, "\(isolation): log")
        }
    }

    /// The first differing line of two transcripts (they are JSON strings with \n inside).
    static func difference(_ a: String, _ b: String) -> String {
        let la = a.components(separatedBy: "\\n"), lb = b.components(separatedBy: "\\n")
        for i in 0..<max(la.count, lb.count) {
            let x = i < la.count ? la[i] : "<none>", y = i < lb.count ? lb[i] : "<none>"
            if x != y { return "line \(i + 1): in-process «\(x)» other «\(y)»" }
        }
        return "(same lines)"
    }
}

extension Clubhouse {
    /// True when the kernel has no Landlock (sandboxed runs are then refused, never weakened).
    var landlockMissing: Bool {
        guard let text = try? String(contentsOfFile: "/sys/kernel/security/lsm", encoding: .utf8) else { return false }
        return !text.contains("landlock")
    }
}
