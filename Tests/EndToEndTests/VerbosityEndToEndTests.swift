// -v, -vv and -vvv show more (issue 20.12): device traffic in hex at -vvv for every device (already
// at -v for a device configured with "trace": true), and nothing of it without -v.

import Foundation
import XCTest

final class VerbosityEndToEndTests: XCTestCase {
    func testDeviceTrafficAtTripleVerbose() throws {
        let c = try Clubhouse()
        let port = try freePort()
        let simulator = try BackgroundClubhouse(["device", "simulate", "ballmachine", "--listen", "tcp:127.0.0.1:\(port)"], scratch: c)
        defer { simulator.stop() }
        _ = try simulator.waitForLine(prefix: "listening on ")
        func config(trace: Bool) throws -> String {
            try c.write("plugins-\(trace).json", """
                {"sites": {"court": {
                  "devices": {"ballmachine": {"transport": "tcp:127.0.0.1:\(port)", "trace": \(trace)}},
                  "plugins": {"tennis": {"id": "org.clubhouse.tennis", "grants": ["storage", "device:ballmachine"]}}}}}
                """)
        }
        let plain = try config(trace: false), traced = try config(trace: true)
        func send(_ config: String, _ verbosity: [String]) throws -> String {
            try c.succeed(["--config", config] + verbosity + ["tennis", "send", "--zone", "6"]).stderr
        }
        let quiet = try send(plain, [])
        XCTAssertFalse(quiet.contains("ballmachine > 5A A5"), quiet)
        XCTAssertFalse(try send(plain, ["-v"]).contains("ballmachine > "), "traffic is not shown at -v for an untraced device")
        let loud = try send(plain, ["-vvv"])
        XCTAssertTrue(loud.contains("[tennis] trace: ballmachine > 5A A5"), loud)
        XCTAssertTrue(loud.contains("ballmachine < "), "the machine's answer too: \(loud)")
        let info = try send(traced, ["-v"])
        XCTAssertTrue(info.contains("[tennis] info: ballmachine > 5A A5"), info)
    }
}
