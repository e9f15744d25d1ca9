// A drill started by one client of an isolated tennis site (`isolation: process` or `sandbox`) is
// stopped by another client's `tennis stop` at once, as in process (issue 27 leftovers). A runner takes
// one call at a time, so the stop used to wait for the drill to end while the ball machine kept firing;
// now `stop` and `running` are "concurrent" commands the runner serves on its second lane
// (Host/Sources/ClubhouseHost/Runner/SideLane.swift) beside the drill, and the drill stores its session whole.

import ClubhouseJSON
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class TennisIsolatedStopEndToEndTests: XCTestCase {
    /// Six balls 2 s apart (the machine's shortest interval): the drill would run about 10 s.
    static let longDrill = #"{"name": "long rally", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 6}]}"#

    func testAnotherClientStopsAProcessIsolatedDrillAtOnce() throws { try stopFromAnotherClient(isolation: "process") }
    func testAnotherClientStopsASandboxedDrillAtOnce() throws { try stopFromAnotherClient(isolation: "sandbox") }

    private func stopFromAnotherClient(isolation: String) throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        let config = try simulator.config(c, name: "court.json", isolation: isolation)
        let drill = try c.write("long.json", TennisIsolatedStopEndToEndTests.longDrill)
        try c.succeed(["--config", config, "tennis", "drill", "save", drill])
        let socketPath = c.path("serve.sock")
        let server = try RunningClubhouse(c, ["--config", config, "serve", "--socket", socketPath])
        defer {
            server.signal(SIGTERM)
            _ = server.wait(timeout: 10)
        }
        let a = try RPCSocketClient(path: socketPath)
        let b = try RPCSocketClient(path: socketPath)
        a.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"tennis","command":"drill run","arguments":{"drill":"long rally"}}}"#)
        XCTAssertNotNil(simulator.wait(from: 0) { $0.isStart }, "the drill did not start: \(server.stderr)")

        // Another client asks what runs, then stops it: both answered while the drill's call runs.
        b.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"tennis","command":"running"}}"#)
        // (A reply that does not come fails the test: the client's own timeout would skip it.)
        func answer(_ id: Int) throws -> JSONValue {
            do {
                return try b.response(id: id, timeout: 5).0
            } catch is XCTSkip {
                XCTFail("call \(id) was not answered within 5 s while the drill runs: \(server.stderr)")
                throw XCTSkip("no answer")
            }
        }
        let running = try answer(2)
        XCTAssertEqual(running["result"]?["running"]?["drill"]?.stringValue, "long rally", "\(running)")
        let run = running["result"]?["running"]?["run"]?.intValue ?? 0
        let from = simulator.lines.count
        let stoppedAt = monotonicNanoseconds()
        b.send(#"{"jsonrpc":"2.0","id":3,"method":"clubhouse.call","params":{"plugin":"tennis","command":"stop","arguments":{"run":\#(run)}}}"#)
        let stop = simulator.wait(from: from, timeout: 10) { $0.isStop }
        XCTAssertNotNil(stop, "the machine got no stop: \(server.stderr)")
        if let stop {
            let after = Double(stop.at - stoppedAt) / 1e6
            XCTAssertLessThan(after, 1000, "the stop reached the machine \(after) ms after another client asked (the drill would run 10 s)")
        }
        let stopped = try answer(3)
        XCTAssertEqual(stopped["result"]?["stopped"], true, "\(stopped)")
        // The drill's own caller hears that another client stopped it, and the machine fired no more.
        let (ended, _) = try a.response(id: 1, timeout: 10)
        XCTAssertEqual(ended["result"]?["stoppedElsewhere"], true, "\(ended)")
        usleep(300_000)
        XCTAssertEqual(simulator.lines.dropFirst(from).filter(\.isStart).count, 0, "a ball after the stop")
        // The drill's session is stored whole: the host, ending the stop's call beside it, used to roll
        // back the drill's open transaction (its session lost, or "near '-': syntax error").
        b.send(#"{"jsonrpc":"2.0","id":4,"method":"clubhouse.call","params":{"plugin":"tennis","command":"sessions","arguments":{"last":1}}}"#)
        let sessions = try answer(4)
        let newest = sessions["result"]?["sessions"]?.arrayValue?.first
        XCTAssertEqual(newest?["drill"]?.stringValue, "long rally", "\(sessions)")
        XCTAssertGreaterThan(newest?["summary"]?["launches"]?.intValue ?? 0, 0, "\(sessions)")
        XCTAssertFalse(newest?["summary"]?["aborted"]?.stringValue?.hasPrefix("did not finish") ?? false, "\(sessions)")
        XCTAssertFalse(server.stderr.contains("left a transaction open"), server.stderr)
    }
}
