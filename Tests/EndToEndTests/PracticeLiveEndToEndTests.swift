// Practice 1.1 live shots through the built binary: `practice live-sim` replays an export as GSPro
// Open Connect messages on a socket; `practice live` reads it through the site's device (the
// host's unix and tcp transports), stores and grades each shot as it lands, and closes the session
// however the stream ends.

import ClubhouseJSON
import Foundation
import XCTest

final class PracticeLiveEndToEndTests: XCTestCase {
    func site(_ c: Clubhouse, transport: String) throws -> String {
        try c.write("live-site.json", """
            {"sites": {"range": {"devices": {"lm": {"transport": "\(transport)"}},
              "plugins": {"practice": {"id": "org.clubhouse.practice", "grants": ["storage", "device:lm"]}}}}}
            """)
    }

    /// Starts the simulator and waits until it listens.
    func simulator(_ c: Clubhouse, config: String, listen: String, extra: [String] = []) throws -> BackgroundClubhouse {
        let csv = try Clubhouse.requireSharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv").path
        let sim = try BackgroundClubhouse(["--config", config, "practice", "live-sim", csv, "--listen", listen] + extra, scratch: c)
        XCTAssertTrue(sim.waitForError { $0.contains("listening on ") }, sim.stderr)
        return sim
    }

    func testALiveSessionOverAUnixSocketReachesTheOracle() throws {
        let c = try Clubhouse()
        let socket = c.path("lm.sock")
        let config = try site(c, transport: "unix:\(socket)")
        let fixtureA = try Clubhouse.requireSharedData("practice/templates/fixture_a.json").path
        try c.succeed(["--config", config, "practice", "template", "add", fixtureA])
        let sim = try simulator(c, config: config, listen: "unix:\(socket)", extra: ["--interval-ms", "5"])
        defer { sim.stop() }
        let result = try c.succeed(["--config", config, "practice", "live", "--device", "lm"])
        XCTAssertTrue(result.stdout.contains("live session on lm closed (stream ended): 15 shots stored as session 1"), result.stdout)
        // Shown as they land, on the terminal (stderr; stdout keeps the reply).
        XCTAssertTrue(result.stderr.contains("shot 1  7i  A  carry 142.2 yd"), result.stderr)
        XCTAssertTrue(result.stderr.contains("shot 5  7i  C  carry 115.0 yd"), result.stderr)
        XCTAssertTrue(result.stderr.contains("shot 15  5i"), result.stderr)
        let session = try c.succeed(["--config", config, "practice", "session", "1", "--json"]).json()
        let seven = session["clubs"]?.arrayValue?.first { $0["analysis"]?["club"]?.stringValue == "7i" }?["analysis"]
        XCTAssertEqual([seven?["shot_count"], seven?["a_count"], seven?["b_count"], seven?["c_count"]].map { $0?.intValue }, [6, 5, 0, 1])
        XCTAssertEqual(session["session"]?["source_name"]?.stringValue, "live:lm")
    }

    func testTCPTransportWithJSONAndMaxShots() throws {
        let c = try Clubhouse()
        let port = try freePort()
        let config = try site(c, transport: "tcp:127.0.0.1:\(port)")
        let sim = try simulator(c, config: config, listen: "tcp:127.0.0.1:\(port)")
        defer { sim.stop() }
        let json = try c.succeed(["--config", config, "practice", "live", "--device", "lm", "--max-shots", "4", "--json"]).json()
        XCTAssertEqual(json["shots"]?.arrayValue?.map { $0["shot_number"]?.intValue ?? 0 }, [1, 2, 3, 4])
        XCTAssertEqual(json["reason"]?.stringValue, "4 shots received")
        XCTAssertEqual(json["latency"]?["count"]?.intValue, 4)
        XCTAssertEqual(json["session"]?["shot_count"]?.intValue, 4)
    }

    func testADroppedConnectionKeepsTheShotsAndSaysSo() throws {
        let c = try Clubhouse()
        let socket = c.path("lm.sock")
        let config = try site(c, transport: "unix:\(socket)")
        let sim = try simulator(c, config: config, listen: "unix:\(socket)", extra: ["--fault", "drop", "--fault-after", "3"])
        defer { sim.stop() }
        try c.fail(["--config", config, "practice", "live", "--device", "lm"], exitCode: 2,
                   contains: ["the connection dropped inside message 4", "the live session was closed, 3 shots kept as session 1"])
        let sessions = try c.succeed(["--config", config, "practice", "sessions", "--json"]).json()
        XCTAssertEqual(sessions["sessions"]?.arrayValue?.first?["session"]?["shot_count"]?.intValue, 3)
    }

    func testAnOutOfOrderShotStopsTheSession() throws {
        let c = try Clubhouse()
        let socket = c.path("lm.sock")
        let config = try site(c, transport: "unix:\(socket)")
        let sim = try simulator(c, config: config, listen: "unix:\(socket)", extra: ["--fault", "duplicate", "--fault-after", "2"])
        defer { sim.stop() }
        try c.fail(["--config", config, "practice", "live", "--device", "lm"], exitCode: 2,
                   contains: ["message 3: ShotNumber 2 after shot 2 is out of order", "2 shots kept as session 1"])
    }

    func testDeviceAndArgumentErrors() throws {
        let c = try Clubhouse()
        let config = try site(c, transport: "unix:\(c.path("nobody.sock"))")
        try c.fail(["--config", config, "practice", "live", "--device", "lm"], exitCode: 1, contains: ["cannot connect to unix:"])
        try c.fail(["--config", config, "practice", "live", "--device", "radar"], exitCode: 1, contains: ["may not open device 'radar'"])
        try c.fail(["practice", "live", "--device", "lm"], exitCode: 1, contains: ["devices are not available"])
        try c.fail(["--config", config, "practice", "live", "--device", "lm", "--idle-timeout", "-1"], exitCode: 2,
                   contains: ["--idle-timeout -1.0 is not between 0 and 86400 seconds"])
        try c.fail(["practice", "live-sim", c.path("missing.csv"), "--listen", "unix:\(c.path("x.sock"))"], exitCode: 2,
                   contains: ["missing.csv"])
        let csv = try Clubhouse.requireSharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv").path
        try c.fail(["practice", "live-sim", csv, "--listen", "serial:/dev/ttyS0"], exitCode: 2, contains: ["use unix:PATH or tcp:HOST:PORT"])
        try c.fail(["--config", config, "practice", "live", "--device", "lm", "--max-shots", "0"], exitCode: 2,
                   contains: ["--max-shots must be at least 1"])
        try c.fail(["practice", "live-sim", csv, "--listen", "tcp:127.0.0.1", "--accept-timeout", "1"], exitCode: 2,
                   contains: ["--listen tcp:127.0.0.1: use tcp:HOST:PORT (eg: tcp:127.0.0.1:49152) or unix:PATH"])
        try c.fail(["practice", "live-sim", csv, "--listen", "tcp:range.local:49152", "--accept-timeout", "1"], exitCode: 2,
                   contains: ["--listen tcp:range.local:49152: 'range.local' is not an IPv4 address"])
        try c.fail(["practice", "live-sim", csv, "--listen", "unix:/" + String(repeating: "s", count: 120), "--accept-timeout", "1"],
                   exitCode: 2, contains: ["the socket path is empty or longer than 107 bytes"])
        try c.fail(["practice", "live-sim", csv, "--listen", "unix:\(c.path("y.sock"))", "--interval-ms", "70000"], exitCode: 2,
                   contains: ["--interval-ms must be 0–60000"])
        try c.fail(["practice", "live-sim", csv, "--listen", "unix:\(c.path("y.sock"))", "--accept-timeout", "0"], exitCode: 2,
                   contains: ["--fault-after must be ≥ 0 and --accept-timeout 1–3600 seconds"])
    }
}
