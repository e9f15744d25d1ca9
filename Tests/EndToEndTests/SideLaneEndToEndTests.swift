// The runner's second lane (SideLane.swift): a thread-safe plugin's "concurrent" command runs beside
// the call in progress even when the plugin is isolated, and may use only log, config, progress and
// events there (C fixture concurrent_lane.c). TennisIsolatedStopEndToEndTests shows the use it exists for.

import ClubhouseJSON
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class SideLaneEndToEndTests: XCTestCase {
    func testAConcurrentCommandRunsBesideTheCallInProgressAndIsRefusedStorage() throws {
        let c = try Clubhouse()
        let fixture = try FixturePlugins.build("LANE", id: "org.tests.lane", file: "concurrent_lane.c")
        let config = try c.write("lane.json", """
            {"sites": {"default": {"plugins": {
              "lane": {"path": "\(fixture)", "grants": ["storage"], "isolation": "process"}
            }}}}
            """)
        let server = try RunningClubhouse(c, ["--config", config, "serve", "--socket", c.path("rpc.sock")])
        defer {
            server.signal(SIGTERM)
            _ = server.wait()
        }
        let a = try RPCSocketClient(path: c.path("rpc.sock"))
        let b = try RPCSocketClient(path: c.path("rpc.sock"))
        a.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"lane","command":"hold"}}"#)
        usleep(300_000)
        // `hold` waits up to 20 s for `release`: on the pipes, release would wait for it.
        b.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"lane","command":"release"}}"#)
        let released: JSONValue
        do {
            released = try b.response(id: 2, timeout: 10).0
        } catch is XCTSkip {
            return XCTFail("the concurrent command waited for the call in progress: \(server.stderr)")
        }
        XCTAssertEqual(released["result"]?["released"], true, "\(released)")
        XCTAssertEqual(released["result"]?["storage"]?.intValue, 5, "unsupported: \(released)")
        XCTAssertEqual(released["result"]?["message"]?.stringValue,
                       "plugin 'lane': 'release' runs beside another call ('concurrent' in its catalogue), and in a runner such a command may use only the log, config, progress and events services")
        let (held, _) = try a.response(id: 1, timeout: 10)
        XCTAssertEqual(held["result"]?["released"], true, "\(held)")
    }

    // MARK: the call on the pipes keeps what it writes

    /// The lane's calls end beside the call on the pipes, which holds the plugin's connection: the host's
    /// end-of-call bookkeeping rolled back that call's open transaction, from another thread (the data loss
    /// behind tennis's first try at a concurrent Stop). 320 rows of long text, 40 transactions, while two
    /// clients hammer the lane; every row is read back and compared byte for byte.
    func testAConcurrentCommandLeavesTheCallOnThePipesItsTransactions() throws {
        let c = try Clubhouse()
        let (server, socket) = try serveLane(c)
        defer { server.terminate() }
        let a = try RPCSocketClient(path: socket)
        let b = try RPCSocketClient(path: socket)
        let d = try RPCSocketClient(path: socket)
        a.send(call(1, "write"))
        var pings = 0, id = 100
        var written: JSONValue?
        let deadline = Date().addingTimeInterval(60)
        while written == nil && Date() < deadline {
            id += 1
            b.send(call(id, "ping"))
            d.send(call(id, "ping"))
            for client in [b, d] {
                let (pong, _) = try server.answer(client, id, within: 10)
                XCTAssertEqual(pong["result"]?["pong"], true, "\(pong) \(server.stderr)")
            }
            pings += 2
            var pfd = pollfd(fd: a.fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 0) > 0 { written = try server.answer(a, 1, within: 10).0 }
        }
        XCTAssertGreaterThan(pings, 10, "the lane was not busy while the write ran")
        XCTAssertEqual(written?["result"]?["failed"]?.intValue, 0, "after \(pings) concurrent calls: \(String(describing: written)) \(server.stderr)")
        try assertEveryRowStored(a, 2, server)
        XCTAssertFalse(server.stderr.contains("left a transaction open"), server.stderr)
    }

    // MARK: hostile uses of the lane

    /// A concurrent command that calls storage, files and invoke gets `unsupported` for each, with the
    /// lane's one-line message, and the call on the pipes, writing meanwhile, keeps every row.
    func testServicesTheLaneDoesNotServeAreRefusedAndTheCallOnThePipesIsUnharmed() throws {
        let c = try Clubhouse()
        let (server, socket) = try serveLane(c, grants: ["storage", "invoke:lane"])
        defer { server.terminate() }
        let a = try RPCSocketClient(path: socket)
        let b = try RPCSocketClient(path: socket)
        a.send(call(1, "write"))
        usleep(100_000)
        b.send(call(2, "misuse"))
        let (misused, _) = try server.answer(b, 2, within: 10)
        let unsupported = 5 // CLUBHOUSE_UNSUPPORTED
        for field in ["exec", "prepare", "begin", "files", "invoke"] {
            XCTAssertEqual(misused["result"]?[field]?.intValue, unsupported, "\(field): \(misused)")
        }
        XCTAssertEqual(misused["result"]?["stmt"], false, "\(misused)")
        XCTAssertEqual(misused["result"]?["message"]?.stringValue,
                       "plugin 'lane': 'misuse' runs beside another call ('concurrent' in its catalogue), and in a runner such a command may use only the log, config, progress and events services")
        let (written, _) = try server.answer(a, 1, within: 30)
        XCTAssertEqual(written["result"]?["failed"]?.intValue, 0, "\(written) \(server.stderr)")
        try assertEveryRowStored(a, 3, server)
    }

    /// A concurrent command that binds and steps a statement a call on the pipes prepared (the fourteenth outside
    /// round's L1 and L2): the runner refuses both, `unsupported`, at once — before, the step went out on the
    /// pipes and the host ran the INSERT inside whichever call was there, or, with none, the lane hung until
    /// the wall-clock limit and the grace.
    func testAConcurrentCommandCannotBindOrStepAStatementOfTheMainLane() throws {
        let c = try Clubhouse()
        let (server, socket) = try serveLane(c, grants: ["storage"])
        defer { server.terminate() }
        let a = try RPCSocketClient(path: socket)
        let b = try RPCSocketClient(path: socket)
        a.send(call(1, "leave"))
        let (left, _) = try server.answer(a, 1, within: 10)
        XCTAssertEqual(left["result"]?["left"], true, "\(left) \(server.stderr)")
        let started = Date()
        b.send(call(2, "stepleft"))
        let (stepped, _) = try server.answer(b, 2, within: 10)
        let unsupported = 5 // CLUBHOUSE_UNSUPPORTED
        XCTAssertEqual(stepped["result"]?["bind"]?.intValue, unsupported, "\(stepped)")
        XCTAssertEqual(stepped["result"]?["step"]?.intValue, unsupported, "\(stepped)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "the lane's step must be refused at once, not hang")
        a.send(call(3, "countleft"))
        let (counted, _) = try server.answer(a, 3, within: 10)
        XCTAssertEqual(counted["result"]?["rows"]?.intValue, 0, "the lane's step stored a row: \(counted)")
    }

    /// A concurrent command that never answers: the call on the pipes goes on beside it; past `timeout_ms`
    /// the host stops the runner and says why; the next calls start a new runner, whose lane serves again.
    func testAConcurrentCommandThatNeverAnswersIsStoppedAndTheLaneServesAgain() throws {
        let c = try Clubhouse()
        let (server, socket) = try serveLane(c, extra: #", "timeout_ms": 3000"#)
        defer { server.terminate() }
        let a = try RPCSocketClient(path: socket)
        let b = try RPCSocketClient(path: socket)
        b.send(call(1, "hang"))
        usleep(200_000)
        a.send(call(2, "write"))
        let (written, _) = try server.answer(a, 2, within: 30)
        XCTAssertEqual(written["result"]?["failed"]?.intValue, 0, "the call on the pipes beside a hung lane: \(written) \(server.stderr)")
        let (hung, _) = try server.answer(b, 1, within: 30)
        XCTAssertEqual(hung["error"]?["data"]?["status"]?.stringValue, "plugin-failed", "\(hung)")
        XCTAssertEqual(hung["error"]?["message"]?.stringValue,
                       "plugin 'lane' did not answer within 3000 ms (a hang?) and was stopped during 'hang'; the host keeps running and restarts the plugin on the next call")
        try assertEveryRowStored(a, 3, server)
        // The new runner's lane serves a concurrent command beside a call on the pipes again.
        a.send(call(4, "hold"))
        usleep(300_000)
        b.send(call(5, "release"))
        let (released, _) = try server.answer(b, 5, within: 10)
        XCTAssertEqual(released["result"]?["released"], true, "\(released)")
        let (held, _) = try server.answer(a, 4, within: 10)
        XCTAssertEqual(held["result"]?["released"], true, "\(held)")
    }

    /// The fifth outside attack (a05): a concurrent command that keeps reporting progress and ignores its cancel
    /// ran on for minutes (its silence bound renewed by each report). Cancelled by its client, it has the cleanup
    /// grace (5 s) to end, then the runner is stopped; past `limits.wall_ms` it is cancelled first, the same way.
    func testAChattyConcurrentCommandDeafToItsCancelIsStoppedAfterTheGrace() throws {
        let c = try Clubhouse()
        let (server, socket) = try serveLane(c, extra: #", "timeout_ms": 3000, "limits": {"wall_ms": 2000}"#)
        defer { server.terminate() }
        let b = try RPCSocketClient(path: socket)
        let started = Date()
        b.send(call(1, "chatty"))
        let (walled, _) = try server.answer(b, 1, within: 30)
        XCTAssertEqual(walled["error"]?["message"]?.stringValue,
                       "plugin 'lane' ran past its wall-clock limit of 2000 ms (limits.wall_ms) and did not end within 5 s of its cancel, so it was stopped during 'chatty'; the host keeps running and restarts the plugin on the next call",
                       "\(walled)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the wall bound and the grace: 2 + 5 s")
        // The next call of another client is served by a new runner.
        let a = try RPCSocketClient(path: socket)
        a.send(call(2, "ping"))
        let (pong, _) = try server.answer(a, 2, within: 20)
        XCTAssertEqual(pong["result"]?["pong"], true, "\(pong) \(server.stderr)")
    }

    /// The fifth outside attack (a04): a concurrent command that aborted its runner made the next call — another
    /// client's, on the pipes — fail with the crash; the next call now starts a new runner.
    func testARunnerThatCrashesOnTheLaneIsRestartedForTheNextCall() throws {
        let c = try Clubhouse()
        let (server, socket) = try serveLane(c)
        defer { server.terminate() }
        let b = try RPCSocketClient(path: socket)
        b.send(call(1, "abort"))
        let (crashed, _) = try server.answer(b, 1, within: 30)
        XCTAssertEqual(crashed["error"]?["data"]?["status"]?.stringValue, "plugin-failed", "\(crashed)")
        let a = try RPCSocketClient(path: socket)
        a.send(call(2, "write"))
        let (written, _) = try server.answer(a, 2, within: 30)
        XCTAssertNil(written["error"], "the next call failed with the lane's crash: \(written)")
        XCTAssertEqual(written["result"]?["failed"]?.intValue, 0, "\(written)")
    }

    /// A server stopped (SIGTERM) while a concurrent command hangs, deaf to its cancel, ends within its
    /// bound for calls that do not stop (5 s, then 3 s: RELIABILITY.md), not after the plugin's `timeout_ms` —
    /// the runner's destroy waits for a command still running with the instance, and the host does not
    /// wait for that destroy.
    func testAServerStoppedWhileAConcurrentCommandHangsEndsWithinItsBound() throws {
        let c = try Clubhouse()
        let (server, socket) = try serveLane(c, extra: #", "timeout_ms": 60000"#)
        let b = try RPCSocketClient(path: socket)
        b.send(call(1, "hang"))
        usleep(300_000)
        let stoppedAt = Date()
        server.signal(SIGTERM)
        let ended = server.wait(timeout: 20)
        XCTAssertNotNil(ended, "the server did not end within 20 s: \(server.stderr)")
        XCTAssertLessThan(Date().timeIntervalSince(stoppedAt), 12, server.stderr)
    }

    /// While one concurrent command holds the lane, a flood of others waits without holding serve's
    /// workers (another plugin's call is answered at once), and a waiting one that its client cancels
    /// ends at once.
    func testAFloodOfConcurrentCallsHoldsNoWorkerAndAWaitingOneCanBeCancelled() throws {
        let c = try Clubhouse()
        let fixture = try FixturePlugins.build("LANE", id: "org.tests.lane", file: "concurrent_lane.c")
        let second = try FixturePlugins.build("LANE", id: "org.tests.lane.other", file: "concurrent_lane.c")
        let config = try c.write("lane.json", """
            {"sites": {"default": {"plugins": {
              "lane": {"path": "\(fixture)", "grants": ["storage"], "isolation": "process", "timeout_ms": 20000},
              "other": {"path": "\(second)", "grants": ["storage"]}
            }}}}
            """)
        let socket = c.path("rpc.sock")
        let server = try RunningClubhouse(c, ["--config", config, "serve", "--socket", socket, "--workers", "4"])
        defer { server.terminate() }
        let a = try RPCSocketClient(path: socket)
        let b = try RPCSocketClient(path: socket)
        let d = try RPCSocketClient(path: socket)
        a.send(call(1, "wait"))
        usleep(300_000)
        for id in 10..<30 { b.send(call(id, "ping")) }
        usleep(300_000)
        let asked = Date()
        d.send(call(2, "ping", plugin: "other"))
        let (other, _) = try server.answer(d, 2, within: 15)
        XCTAssertEqual(other["result"]?["pong"], true, "\(other)")
        XCTAssertLessThan(Date().timeIntervalSince(asked), 2, "another plugin's call waited for the flood of concurrent calls")
        d.send(call(3, "wait"))
        usleep(200_000)
        let cancelledAt = Date()
        d.send(#"{"jsonrpc":"2.0","id":4,"method":"clubhouse.cancel","params":{"id":3}}"#)
        let (ended, _) = try server.answer(d, 3, within: 15)
        XCTAssertEqual(ended["error"]?["data"]?["status"]?.stringValue, "cancelled", "\(ended)")
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 2, "a waiting concurrent call was not cancelled at once: \(ended)")
        // The call holding the lane is cancelled too; then the flood is served in turn.
        a.send(#"{"jsonrpc":"2.0","id":5,"method":"clubhouse.cancel","params":{"id":1}}"#)
        let (waited, _) = try server.answer(a, 1, within: 15)
        XCTAssertEqual(waited["result"]?["cancelled"], true, "\(waited)")
        for id in 10..<30 {
            let (pong, _) = try server.answer(b, id, within: 15)
            XCTAssertEqual(pong["result"]?["pong"], true, "\(pong)")
        }
    }

    // MARK: helpers

    /// The eleventh outside round's nit: a runner with a second lane held its socket twice (6 and 7: a `dup`
    /// for writing), where SECURITY.md says "one more socket". Now the protocol's descriptors and one socket.
    func testTheSecondLaneIsOneDescriptorInTheRunner() throws {
        let c = try Clubhouse()
        let (server, socket) = try serveLane(c)
        defer {
            server.signal(SIGTERM)
            _ = server.wait()
        }
        let client = try RPCSocketClient(path: socket)
        client.send(call(1, "ping"))
        _ = try server.answer(client, 1, within: 20)
        client.send(call(2, "fds"))
        let (listed, _) = try server.answer(client, 2, within: 20)
        XCTAssertEqual(listed["result"]?.stringValue, SandboxWallsEndToEndTests.protocolDescriptors + ",6:s", "\(listed) \(server.stderr)")
    }

    private func serveLane(_ c: Clubhouse, grants: [String] = ["storage"], extra: String = "") throws -> (RunningClubhouse, String) {
        let fixture = try FixturePlugins.build("LANE", id: "org.tests.lane", file: "concurrent_lane.c")
        let list = grants.map { "\"\($0)\"" }.joined(separator: ", ")
        let config = try c.write("lane.json", """
            {"sites": {"default": {"plugins": {
              "lane": {"path": "\(fixture)", "grants": [\(list)], "isolation": "process"\(extra)}
            }}}}
            """)
        let socket = c.path("rpc.sock")
        return (try RunningClubhouse(c, ["--config", config, "serve", "--socket", socket]), socket)
    }

    /// `check` (call `id` on `client`): the 320 rows `write` wrote, each as written, byte for byte.
    private func assertEveryRowStored(_ client: RPCSocketClient, _ id: Int, _ server: RunningClubhouse) throws {
        client.send(call(id, "check"))
        let (checked, _) = try server.answer(client, id, within: 20)
        XCTAssertEqual(checked["result"]?["rows"]?.intValue, 320, "\(checked) \(server.stderr)")
        XCTAssertEqual(checked["result"]?["mismatched"]?.intValue, 0, "\(checked)")
    }

    private func call(_ id: Int, _ command: String, plugin: String = "lane") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"\#(plugin)","command":"\#(command)"}}"#
    }
}
