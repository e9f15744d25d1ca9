// The runner's second lane (SideLane.swift): a thread-safe plugin's "concurrent" command runs beside
// the call in progress even when the plugin is isolated, and may use only log, config, progress and
// events there (C fixture concurrent_lane.c). Tennis's Stop on an isolated site is the use it exists for (not yet
// marked: see SideLane.swift).

import ClubhouseJSON
import Foundation
import XCTest

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
}
