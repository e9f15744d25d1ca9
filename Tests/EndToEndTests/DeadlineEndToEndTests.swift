// A call's one deadline, asked by every host service that acts for it (issue 27, the eleventh
// outside round: n02, n03, n04, n11; Host/Sources/ClubhouseHost/Runtime/ServiceGate.swift).
// The hostile fixture (Tests/Fixtures/plugins/hostile_deadline.c) acts past the 5 s cleanup grace after
// a cancel, commits a transaction begun before it, and blocks in a nested invoke or a device read
// under `limits.wall_ms`, in process, in a `process` runner and sandboxed.

import ClubhouseJSON
import Foundation
import XCTest

final class DeadlineEndToEndTests: XCTestCase {
    /// Every act ServiceGate.swift lists, as the fixture names it, and "rollback", which stays allowed.
    static let refusedActs = ["prepare", "exec", "begin", "commit", "migrate", "publish", "event", "invoke", "file",
                              "device-open", "device-write", "device-read", "device-safe-state"]

    /// A site with the fixture as "hdi" (in process), "hdp" (a runner), "hds" (sandboxed, when the kernel has
    /// Landlock) and the targets of their invokes "hdt" and "hdu" (runners), each with its own id (its own database),
    /// and the simulated device "bm". `limits`: the JSON of the callers' "limits".
    private func site(_ c: Clubhouse, limits: String = "") throws -> (config: String, callers: [String]) {
        var plugins: [String] = []
        var callers: [String] = []
        for (alias, isolation) in [("hdi", "in-process"), ("hdp", "process"), ("hds", "sandbox"), ("hdt", "process"), ("hdu", "process")] {
            if isolation == "sandbox" && c.landlockMissing { continue }
            let path = try FixturePlugins.build("DEADLINE", id: "org.tests.deadline.\(alias)", file: "hostile_deadline.c")
            let target = alias == "hdt" || alias == "hdu"
            let grants = target ? #"["storage"]"# : #"["storage", "device:bm", "invoke:hdt", "invoke:hdu"]"#
            let bounds = target || alias == "hdi" || limits.isEmpty ? "" : #", "limits": \#(limits)"#
            plugins.append(#""\#(alias)": {"path": "\#(path)", "isolation": "\#(isolation)", "grants": \#(grants)\#(bounds)}"#)
            if !target { callers.append(alias) }
        }
        let config = try c.write("deadline.json", """
            {"sites": {"default": {
              "devices": {"bm": {"transport": "simulator:ballmachine"}},
              "plugins": {\(plugins.joined(separator: ",\n"))}
            }}}
            """)
        return (config, callers)
    }

    /// `serve --socket` with its standard error in a file (the fixture's reports are warnings).
    private func serve(_ c: Clubhouse, config: String) throws -> (Process, RPCSocketClient, String) {
        let errors = c.path("serve.err")
        let (process, client) = try c.serveOnSocket(config: config, socket: "d.sock", errors: errors)
        return (process, client, errors)
    }

    /// The fixture's "REPORT act status message" warnings of plugin `alias` in file `errors`, by act.
    private func reports(_ errors: String, _ alias: String) -> [String: (status: String, message: String)] {
        reports(text: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "", alias)
    }

    private func reports(text: String, _ alias: String) -> [String: (status: String, message: String)] {
        var found: [String: (String, String)] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("[\(alias)] warning: REPORT ") {
            let parts = line.dropFirst("[\(alias)] warning: REPORT ".count).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2 else { continue }
            found[String(parts[0])] = (String(parts[1]), parts.count > 2 ? String(parts[2]) : "")
        }
        return found
    }

    private func count(_ c: Clubhouse, _ config: String, _ alias: String) throws -> String {
        try c.succeed(["--config", config, alias, "count", "--json"]).json().stringValue ?? "?"
    }

    /// n03: after the grace, begin, commit, publish (an outbox record), events, invoke, device open and write
    /// were still served. Now every act is refused with `cancelled` and a message naming the grace, in
    /// process, in a runner and sandboxed alike; rollback stays allowed; the late invoke stored nothing.
    func testEveryServiceIsRefusedAfterTheGraceInProcessInARunnerAndSandboxed() throws {
        let c = try Clubhouse()
        let (config, callers) = try site(c)
        let input = try c.write("input.txt", "input\n")
        for alias in callers + ["hdt"] { XCTAssertEqual(try count(c, config, alias), "0") }
        let (server, client, errors) = try serve(c, config: config)
        defer { stopServer(server) }
        let calls = callers.enumerated().map { (index, alias) in (index * 2 + 1, alias) }
        let replies = try client.callThenCancel(calls.map { ($0.0, $0.1, "after-grace", #"{"file":"\#(input)","target":"hdt"}"#) }, after: 400_000)
        for (id, alias) in calls {
            let reply = replies[id] ?? .null
            XCTAssertEqual(reply["error"]?["data"]?["status"], "cancelled", "\(alias): \(reply)")
            XCTAssertTrue(reply["error"]?["message"]?.stringValue?.contains("returned after it was stopped: the call was cancelled") ?? false,
                          "\(alias): \(reply)")
            let seen = reports(errors, alias)
            for act in Self.refusedActs {
                guard let (status, message) = seen[act] else {
                    XCTFail("\(alias): no report of \(act): \(seen)")
                    continue
                }
                XCTAssertEqual(status, "cancelled", "\(alias) \(act): \(message)")
                XCTAssertTrue(message.contains("was refused: the call was cancelled ") && message.contains("ms ago and its 5000 ms for cleaning up are over"),
                              "\(alias) \(act): \(message)")
            }
            XCTAssertNotEqual(seen["rollback"]?.status, "cancelled", "\(alias): rollback stays allowed: \(seen["rollback"] ?? ("?", "?"))")
        }
        stopServer(server)
        XCTAssertEqual(try count(c, config, "hdt"), "0", "the invoke refused after the grace stored nothing")
        for alias in callers { XCTAssertEqual(try count(c, config, alias), "0", "\(alias): exec after the grace stored nothing") }
    }

    /// n04: a transaction begun before the cancel, with a row inserted in the grace, committed after the grace:
    /// the rows persisted. Now the commit is refused and the host rolls the transaction back.
    func testATransactionBegunBeforeTheCancelIsNeverCommittedAfterTheGrace() throws {
        let c = try Clubhouse()
        let (config, callers) = try site(c)
        for alias in callers { XCTAssertEqual(try count(c, config, alias), "0") }
        let (server, client, errors) = try serve(c, config: config)
        defer { stopServer(server) }
        let calls = callers.enumerated().map { (index, alias) in (index * 2 + 1, alias) }
        let replies = try client.callThenCancel(calls.map { ($0.0, $0.1, "grace-tx", "{}") }, after: 400_000)
        stopServer(server)
        for (id, alias) in calls {
            XCTAssertEqual(replies[id]?["error"]?["data"]?["status"], "cancelled", "\(alias): \(replies[id] ?? .null)")
            let seen = reports(errors, alias)
            XCTAssertEqual(seen["in-grace"]?.status, "ok", "\(alias): it may write in its grace: \(seen)")
            XCTAssertEqual(seen["commit"]?.status, "cancelled", "\(alias): \(seen)")
            XCTAssertTrue(seen["commit"]?.message.hasPrefix("commit was refused: the call was cancelled ") ?? false, "\(alias): \(seen)")
            XCTAssertEqual(try count(c, config, alias), "0", "\(alias): the transaction's rows were rolled back")
        }
    }

    /// d03 (twelfth outside round): a plugin invoked late in its caller's grace got a fresh 5 s of its own — the
    /// callee stored rows 9.3 s after the caller's cancel and the invoke returned 9.6 s after it. Now a call nested
    /// by invoke has no grace past its caller's: the callee's rows stop, and the caller's wait in invoke ends, 5 s
    /// after the cancel the caller saw — for a caller in process and in a runner.
    func testAPluginInvokedInItsCallersGraceGetsNoGraceOfItsOwn() throws {
        let c = try Clubhouse()
        let (config, _) = try site(c)
        let (server, client, errors) = try serve(c, config: config)
        defer { stopServer(server) }
        // Both callers at once, each invoking its own target (a runner takes one call at a time).
        let calls = [(1, "hdi", "hdt"), (3, "hdp", "hdu")]
        _ = try client.callThenCancel(calls.map { ($0.0, $0.1, "late-invoke", #"{"target":"\#($0.2)","ms":"8000"}"#) }, after: 400_000)
        for (_, alias, target) in calls {
            let caller = reports(errors, alias), callee = reports(errors, target)
            let seen = Double(caller["cancel-seen"]?.message ?? "") ?? 0
            let lastRow = Double(callee["drip-last"]?.message ?? "") ?? 0
            XCTAssertGreaterThan(lastRow, seen + 3.4, "\(alias): the callee stored rows inside its caller's grace: \(callee)")
            XCTAssertLessThan(lastRow, seen + 5.3, "\(alias): the callee's last row came \(lastRow - seen) s after its caller's cancel")
            XCTAssertLessThan(Double(caller["late-invoke"]?.message ?? "") ?? 99, 5 + 1.5, "\(alias): \(caller)")
        }
    }

    /// n02: `limits.wall_ms` did not bound a call blocked in clubhouse.invoke (30.5 s with a wall of 3 s). Now
    /// the callee's wait ends at the caller's wall plus the grace: its runner is stopped, the caller ends.
    func testAWallClockLimitBoundsACallBlockedInInvoke() throws {
        let c = try Clubhouse()
        let (config, _) = try site(c, limits: #"{"wall_ms": 1000}"#)
        XCTAssertEqual(try count(c, config, "hdt"), "0")
        let started = Date()
        let result = try c.run(["--config", config, "hdp", "invoke-sleep", "--target", "hdt", "--ms", "20000"], timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        // The wait in invoke, as the plugin measured it, ends with the caller's wall plus the grace (the rest of
        // the run, starting the host and two runners, is not the call's).
        let waited = Double(reports(text: result.stderr, "hdp")["invoke-sleep"]?.message ?? "") ?? 99
        XCTAssertLessThan(waited, 1 + 5 + 0.5, result.stderr)
        XCTAssertEqual(reports(text: result.stderr, "hdp")["invoke-sleep"]?.status, "timeout", result.stderr)
        XCTAssertLessThan(elapsed, 15, "not the callee's 20 s: \(result.stderr)")
        XCTAssertEqual(result.exitCode, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("wall-clock limit of 1000 ms"), result.stderr)
        XCTAssertEqual(try count(c, config, "hdt"), "0", "the callee was stopped before it stored its row")
    }

    /// n11: nor a call blocked in a device read (60 s with a wall of 3 s). Now the read ends at the wall plus
    /// the grace at the latest, in a runner and sandboxed.
    func testAWallClockLimitBoundsACallBlockedInADeviceRead() throws {
        let c = try Clubhouse()
        let (config, callers) = try site(c, limits: #"{"wall_ms": 1000}"#)
        for alias in callers where alias != "hdi" {
            let started = Date()
            let result = try c.run(["--config", config, alias, "devread", "--ms", "60000"], timeout: 90)
            let elapsed = Date().timeIntervalSince(started)
            let waited = Double(reports(text: result.stderr, alias)["devread"]?.message ?? "") ?? 99
            XCTAssertLessThan(waited, 1 + 5 + 0.5, "\(alias): wall_ms 1000 + the 5 s grace bounds the read: \(result.stderr)")
            XCTAssertEqual(reports(text: result.stderr, alias)["devread"]?.status, "timeout", "\(alias): \(result.stderr)")
            XCTAssertLessThan(elapsed, 15, "\(alias): not the read's 60 s: \(result.stderr)")
            XCTAssertNotEqual(result.exitCode, 0, "\(alias): \(result.stdout) \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("wall-clock limit of 1000 ms"), "\(alias): \(result.stderr)")
        }
    }

    /// A wait found beside n02/n11: opening a FIFO nobody reads to write blocked the host's thread for ever
    /// (open(2) without O_NONBLOCK). Now the wait ends with the call's grace, here the wall plus the grace.
    func testOpeningAFIFOWithoutAReaderWaitsNoLongerThanTheCallsDeadline() throws {
        let c = try Clubhouse()
        let (config, callers) = try site(c, limits: #"{"wall_ms": 1000}"#)
        let fifo = c.path("pipe")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for alias in callers where alias == "hdp" {
            let started = Date()
            let result = try c.run(["--config", config, alias, "fifo-write", "--out", fifo], timeout: 60)
            let seen = reports(text: result.stderr, alias)
            let waited = Double(seen["fifo-write"]?.message ?? "") ?? 99
            XCTAssertLessThan(waited, 1 + 5 + 0.5, "\(alias): \(result.stderr)")
            XCTAssertEqual(seen["fifo-write"]?.status, "timeout", "\(alias): \(result.stderr)")
            XCTAssertTrue(seen["fifo-why"]?.message.contains("no reader came to the FIFO and opening the file was refused: the call ran past its wall-clock limit of 1000 ms") ?? false,
                          "\(alias): \(result.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 15, "\(alias): \(result.stderr)")
        }
    }
}
