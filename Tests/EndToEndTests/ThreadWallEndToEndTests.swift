// A plugin's own threads and the calls they do not belong to (issue 27; the fifth outside attack, a03:
// a detached thread's INSERT landed in another client's call, and a machine it started was left
// firing). In a runner, services that act for a call serve only the thread running that call
// (Host/Sources/Runner/RunningCall.swift); C fixture hostile_threads.c. In process a plugin is
// trusted code and its threads are not checked (SECURITY.md, "A plugin's own threads").

import ClubhouseJSON
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ThreadWallEndToEndTests: XCTestCase {
    private let unsupported = 5 // CLUBHOUSE_UNSUPPORTED
    private let services = ["exec", "prepare", "step", "begin", "files", "device", "invoke", "events"]

    /// A detached thread a call left behind, wearing its call thread's key values (a29), probes every service twice: 300 ms after its call returned,
    /// with no call running, and again inside the next client's call. Each is refused without reaching
    /// the host: no row, no file written, no device opened; `last_error` says why, once on stderr too.
    func testAThreadLeftBehindByItsCallIsRefusedBetweenCallsAndInsideTheNextOne() throws {
        for isolation in ["process", "sandbox"] {
            let c = try Clubhouse()
            let (server, socket) = try serve(c, isolation: isolation)
            defer { server.terminate() }
            let a = try RPCSocketClient(path: socket)
            let b = try RPCSocketClient(path: socket)
            a.send(call(1, "spawn", out: c.path("spawn.out")))
            let (spawned, _) = try server.answer(a, 1, within: 30)
            if isolation == "sandbox" && "\(spawned) \(server.stderr)".contains("has no Landlock") { continue }
            XCTAssertEqual(spawned["result"]?["spawned"], true, "\(isolation): \(spawned) \(server.stderr)")
            usleep(1_000_000)
            b.send(call(2, "victim", out: c.path("victim.out")))
            let (victim, _) = try server.answer(b, 2, within: 30)
            let result = victim["result"] ?? .null
            for phase in ["between", "during"] {
                let probe = result[phase] ?? .null
                for service in services {
                    XCTAssertEqual(probe[service]?.intValue, unsupported, "\(isolation), \(phase), \(service): \(victim) \(server.stderr)")
                }
                XCTAssertEqual(probe["rowid"]?.intValue, 0, "\(isolation), \(phase): \(probe)")
                let said = "storage exec was called from a thread that runs none of the plugin's calls; in a runner it serves only the thread running create, invoke or destroy (clubhouse.h, [during-call]): call it there"
                XCTAssertEqual(probe["message"]?.stringValue, said, "\(isolation), \(phase)")
                XCTAssertEqual(probe["error"]?.stringValue?.hasPrefix("a storage service was called from a thread that runs none of the plugin's calls"), true,
                               "\(isolation), \(phase): \(probe)")
            }
            XCTAssertEqual(result["rows"]?.intValue, 0, "\(isolation): the thread's INSERT landed: \(victim)")
            let stolen = (try? String(contentsOfFile: c.path("victim.out"), encoding: .utf8)) ?? ""
            XCTAssertFalse(stolen.contains("stolen"), "\(isolation): the thread wrote another call's output")
            XCTAssertEqual(server.stderr.components(separatedBy: "[threads] warning: refused: storage exec was called from a thread that runs none of the plugin's calls").count, 2,
                           "\(isolation): said once: \(server.stderr)")
        }
    }

    /// A thread the running call started, while the call waits for it: the runner cannot tell it from a
    /// thread an earlier call left behind (its call pointer may be the same address), so it is refused
    /// as well; the call's own thread is served every service, as before.
    func testAThreadOfTheRunningCallIsRefusedAndTheCallsOwnThreadIsServed() throws {
        let c = try Clubhouse()
        let (server, socket) = try serve(c, isolation: "process")
        defer { server.terminate() }
        let a = try RPCSocketClient(path: socket)
        a.send(call(1, "samecall", out: c.path("same.out")))
        let (same, _) = try server.answer(a, 1, within: 30)
        let other = same["result"]?["other"] ?? .null
        for service in services {
            XCTAssertEqual(other[service]?.intValue, unsupported, "\(service): \(same) \(server.stderr)")
        }
        let own = same["result"]?["own"] ?? .null
        let served: [String: Int] = ["exec": 0, "prepare": 0, "step": 100, "begin": 0, "files": 0, "device": 0, "invoke": 4, "events": 0]
        for (service, status) in served {
            XCTAssertEqual(own[service]?.intValue, status, "\(service) on the call's own thread: \(same) \(server.stderr)")
        }
        XCTAssertEqual(own["rowid"]?.intValue, 1, "\(own)")
        XCTAssertEqual(try String(contentsOfFile: c.path("same.out"), encoding: .utf8), "stolen\n")
    }

    /// Threads that pass for the running call's own while it waits for them (the ninth outside attack):
    /// a pthread that copies every thread-specific value of the call's thread onto itself (a26), and a
    /// raw clone(CLONE_VM|CLONE_THREAD) without CLONE_SETTLS, sharing the call thread's TLS (a04). The
    /// runner tells threads apart by kernel thread id (gettid), which neither can take: both refused.
    func testThreadsPassingForTheCallsOwnAreRefused() throws {
        for isolation in ["process", "sandbox"] {
            let c = try Clubhouse()
            let (server, socket) = try serve(c, isolation: isolation)
            defer { server.terminate() }
            let a = try RPCSocketClient(path: socket)
            a.send(call(1, "disguised", out: c.path("disguised.out")))
            let (answer, _) = try server.answer(a, 1, within: 30)
            if isolation == "sandbox" && "\(answer) \(server.stderr)".contains("has no Landlock") { continue }
            for thread in ["keycopy", "rawclone"] {
                let probe = answer["result"]?[thread] ?? .null
                for service in services {
                    XCTAssertEqual(probe[service]?.intValue, unsupported, "\(isolation), \(thread), \(service): \(answer) \(server.stderr)")
                }
                XCTAssertEqual(probe["rowid"]?.intValue, 0, "\(isolation), \(thread): \(probe)")
            }
            let stolen = (try? String(contentsOfFile: c.path("disguised.out"), encoding: .utf8)) ?? ""
            XCTAssertFalse(stolen.contains("stolen"), "\(isolation): a disguised thread wrote the call's output")
        }
    }

    /// A signal handler a call left armed (the fourteenth outside round, A23): client a's call aims a POSIX
    /// timer (SIGEV_THREAD_ID) at the thread running it, firing 500 ms later, while client b's call runs on
    /// that thread; the handler INSERTs a row. The wall is per thread and a handler runs on the thread it
    /// interrupts, so on main the row was stored inside b's call. A runner's call threads now hold their
    /// signals (RunningCall.holdSignals): the handler runs neither inside b's call nor in a later one; no row.
    func testASignalHandlerArmedByOneCallIsNotServedInsideTheNextOne() throws {
        for isolation in ["process", "sandbox"] {
            let c = try Clubhouse()
            let (server, socket) = try serveSignals(c, isolation: isolation)
            defer { server.terminate() }
            let a = try RPCSocketClient(path: socket)
            let b = try RPCSocketClient(path: socket)
            a.send(signalsCall(1, "armtid"))
            let (armed, _) = try server.answer(a, 1, within: 30)
            if isolation == "sandbox" && "\(armed) \(server.stderr)".contains("has no Landlock") { continue }
            XCTAssertEqual(armed["result"]?["armed"], true, "\(isolation): \(armed) \(server.stderr)")
            b.send(signalsCall(2, "slow"))
            let (slow, _) = try server.answer(b, 2, within: 30)
            let during = slow["result"] ?? .null
            XCTAssertEqual(during["during"]?.intValue, 0, "\(isolation): the handler ran inside b's call: \(slow)")
            XCTAssertEqual(during["served"]?.intValue, 0, "\(isolation): the handler was served inside b's call: \(slow)")
            XCTAssertEqual(during["rows"]?.intValue, 0, "\(isolation): the handler's INSERT landed in b's call: \(slow)")
            a.send(signalsCall(3, "count"))
            let (count, _) = try server.answer(a, 3, within: 30)
            let after = count["result"] ?? .null
            XCTAssertEqual(after["fired"]?.intValue, 0, "\(isolation): the handler ran on a call thread: \(count) \(server.stderr)")
            XCTAssertEqual(after["served"]?.intValue, 0, "\(isolation): \(count)")
            XCTAssertEqual(after["rows"]?.intValue, 0, "\(isolation): \(count)")
        }
    }

    // MARK: helpers

    private func serveSignals(_ c: Clubhouse, isolation: String) throws -> (RunningClubhouse, String) {
        let fixture = try FixturePlugins.build("SIGNALS", id: "org.tests.signals", file: "hostile_leftovers.c")
        let config = try c.write("signals.json", """
            {"sites": {"default": {"plugins": {
                "signals": {"path": "\(fixture)", "isolation": "\(isolation)", "grants": ["storage"]}
              }}}}
            """)
        let socket = c.path("rpc.sock")
        return (try RunningClubhouse(c, ["--config", config, "serve", "--socket", socket]), socket)
    }

    private func signalsCall(_ id: Int, _ command: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"signals","command":"\#(command)","arguments":{}}}"#
    }

    private func serve(_ c: Clubhouse, isolation: String) throws -> (RunningClubhouse, String) {
        let fixture = try FixturePlugins.build("THREADS", id: "org.tests.threads", file: "hostile_threads.c")
        let config = try c.write("threads.json", """
            {"sites": {"default": {
              "devices": {"machine": {"transport": "simulator:ballmachine", "options": {"checksum": "xor"}}},
              "plugins": {
                "threads": {"path": "\(fixture)", "isolation": "\(isolation)", "grants": ["storage", "device:machine", "invoke:threads"]}
              }}}}
            """)
        let socket = c.path("rpc.sock")
        return (try RunningClubhouse(c, ["--config", config, "serve", "--socket", socket]), socket)
    }

    private func call(_ id: Int, _ command: String, out: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"threads","command":"\#(command)","arguments":{"out":"\#(out)"}}}"#
    }
}
