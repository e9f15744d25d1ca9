// Drills as an operator meets them: the `tennis drill` commands and their errors, and drills run
// against the host's ball-machine simulator over real TCP (at the protocol's pace: 2 s per ball).

import ClubhouseJSON
import Foundation
import XCTest

final class TennisDrillEndToEndTests: XCTestCase {
    static let drill = """
        {"name": "corners", "steps": [
          {"zone": 12, "speed": 50, "spin": "topspin", "delay": 2},
          {"zone": 15, "speed": 60, "spin": "flat", "delay": 2, "repeat": 2}
        ]}
        """

    func testDrillCommandsAndBadDrills() throws {
        let c = try Clubhouse()
        let file = try c.write("corners.json", TennisDrillEndToEndTests.drill)
        let validated = try c.succeed(["tennis", "drill", "validate", file, "--json"]).json()
        XCTAssertEqual(validated["balls"]?.intValue, 3)
        let hash = try XCTUnwrap(validated["hash"]?.stringValue)
        XCTAssertEqual(hash.count, 64)
        XCTAssertTrue(try c.succeed(["tennis", "drill", "validate", file]).stdout.contains("valid drill \"corners\" (\(hash.prefix(12))): 2 steps, 3 balls, 6 s of delays"))
        let shown = try c.succeed(["tennis", "drill", "show", file]).stdout
        XCTAssertTrue(shown.contains("ball 3 (step 2): after 2 s, zone 15 at (7.20, 10.10), 60 mph flat"), shown)
        XCTAssertTrue(try c.succeed(["tennis", "drill", "list"]).stdout.contains("no drills saved yet"))
        try c.succeed(["tennis", "drill", "save", file])
        let list = try c.succeed(["tennis", "drill", "list", "--json"]).json()
        XCTAssertEqual(list["drills"]?.arrayValue?.first?["hash"]?.stringValue, hash)
        // A saved drill is found by name or by the start of its hash.
        XCTAssertEqual(try c.succeed(["tennis", "drill", "show", "corners", "--json"]).json()["hash"]?.stringValue, hash)
        XCTAssertEqual(try c.succeed(["tennis", "drill", "show", String(hash.prefix(10)), "--json"]).json()["plan"]?.arrayValue?.count, 3)
        try c.fail(["tennis", "drill", "show", "volleys"], exitCode: 2, contains: ["no saved drill \"volleys\" at this site"])
        try c.fail(["tennis", "drill", "run", "missing.json", "--dry-run"], exitCode: 2, contains: ["no file missing.json; check the path"])

        // The issue's bad input: one line naming the step.
        func bad(_ steps: String, _ fragment: String) throws {
            let path = try c.write("bad.json", "{\"name\": \"bad\", \"steps\": [\(steps)]}")
            try c.fail(["tennis", "drill", "validate", path], exitCode: 2, contains: ["bad.json:1:", fragment])
            try c.fail(["tennis", "drill", "run", path, "--dry-run"], exitCode: 2, contains: [fragment])
        }
        let ok = #"{"zone": 1, "speed": 50, "delay": 3}"#
        try bad(ok + #", {"zone": 17, "speed": 50, "delay": 3}"#, "step 2: unknown zone 17; zones are numbered 0–15")
        try bad(ok + #", {"zone": 2, "speed": 50, "delay": 12}"#, "step 2: delay 12 s is outside 2–9 s")
        try bad("", "the drill has an empty sequence: \"steps\" needs at least one step")
        try bad(#"{"zone": 2, "speed": 100, "delay": 3}"#, "step 1: speed 100 is out of range; the machine takes 20–80 mph in steps of 10")
        try c.fail(["tennis", "drill", "show", file, "--seed", "-1"], exitCode: 2, contains: ["--seed must be 0 or more"])
        // The example drill shipped with the plugin is valid.
        let example = Clubhouse.repositoryRoot.appendingPathComponent("Plugins/Tennis/drills/baseline-corners.json").path
        XCTAssertEqual(try c.succeed(["tennis", "drill", "validate", example, "--json"]).json()["balls"]?.intValue, 10)
    }

    /// The issue's oracle: a drill runs end to end against the simulator over TCP, at its pace.
    func testDrillRunsAgainstTheSimulatorOverTCP() throws {
        let c = try Clubhouse()
        let court = try SimulatedCourt(c, site: "court-1", checksum: "modbus", tennisConfig: #"{"checksum": "modbus"}"#)
        let simulator = court.simulator, config = court.config
        defer { court.stop() }
        let file = try c.write("corners.json", TennisDrillEndToEndTests.drill)
        let svg = c.path("drill.svg")
        let started = Date()
        let json = try c.succeed(["--config", config, "tennis", "drill", "run", file, "--svg", svg, "--json"]).json()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(elapsed, 6, "three balls 2 s apart")
        let events = json["log"]?["events"]?.arrayValue ?? []
        let written = events.filter { ["command", "stop"].contains($0["kind"]?.stringValue ?? "") }.compactMap { $0["bytes"]?.stringValue }
        XCTAssertEqual(written.count, 4)
        XCTAssertEqual(written.last, "5A A5 83 00 00 00 00 00 00 F0")
        let summary = json["log"]?["summary"]
        XCTAssertEqual(summary?["completed"]?.intValue, 3)
        XCTAssertEqual(summary?["stopSent"]?.boolValue, true)
        XCTAssertEqual(json["log"]?["settings"]?["mode"]?.stringValue, "drill")
        // Written at 2, 4 and 6 s from the start (the host's lateness is in the reply).
        let timing = json["timing"]?.arrayValue ?? []
        XCTAssertEqual(timing.compactMap { $0["scheduled"]?.doubleValue }, [2, 4, 6])
        for t in timing {
            let written = try XCTUnwrap(t["written"]?.doubleValue)
            XCTAssertGreaterThanOrEqual(written, t["scheduled"]?.doubleValue ?? 0)
        }
        XCTAssertNotNil(json["maxLateMs"]?.doubleValue)
        // What the machine received, from its own log: zone 12 at 50 mph topspin, zone 15 twice at 60 mph flat.
        simulator.stop()
        let received = simulator.stderr.split(separator: "\n").filter { $0.contains("received") }
        XCTAssertEqual(received.count, 4, simulator.stderr)
        XCTAssertTrue(received[0].contains("UW=50 LW=80 pitch=45 yaw=60 feed=50 ctrl=1 → accepted, completed"), String(received[0]))
        XCTAssertTrue(received[1].contains("UW=80 LW=80 pitch=50 yaw=45 feed=50 ctrl=1"), String(received[1]))
        XCTAssertTrue(received[3].contains("ctrl=0"), String(received[3]))
        // The landing pattern and the stored session.
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(picture.contains("data-zone=\"15\" data-launches=\"2\""), picture)
        let sessions = try c.succeed(["--config", config, "tennis", "sessions"]).stdout
        XCTAssertTrue(sessions.contains("drill \"corners\": 3 launches, 3 sent, 3 completed"), sessions)
    }

    /// Ctrl-C during a drill: it stops between balls and the machine gets the stop command.
    func testCtrlCStopsADrillAndSendsStop() throws {
        let c = try Clubhouse()
        let court = try SimulatedCourt(c)
        let simulator = court.simulator, config = court.config
        defer { court.stop() }
        let file = try c.write("long.json", #"{"name": "long", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 20}]}"#)
        let run = try BackgroundClubhouse(["--config", config, "tennis", "drill", "run", file], scratch: c)
        defer { run.stop() }
        XCTAssertTrue(simulator.waitForError { $0.contains("received UW=60 LW=60") }, simulator.stderr)
        let status = run.interrupt()
        XCTAssertNotNil(status, "the drill did not end after Ctrl-C")
        XCTAssertEqual(status, 130, "cancelled")
        XCTAssertTrue(run.stderr.contains("drill stopped by Ctrl-C after 1 of 20 balls; the stop command was sent"), run.stderr)
        XCTAssertTrue(simulator.waitForError { $0.contains("ctrl=0") }, simulator.stderr)
        let received = simulator.stderr.split(separator: "\n").filter { $0.contains("received") }
        XCTAssertEqual(received.count, 2, simulator.stderr)
        // The interrupted run is stored too.
        let sessions = try c.succeed(["--config", config, "tennis", "sessions", "--json"]).json()
        XCTAssertEqual(sessions["sessions"]?.arrayValue?.first?["drill"]?.stringValue, "long")
        XCTAssertEqual(sessions["sessions"]?.arrayValue?.first?["summary"]?["aborted"]?.stringValue, "stopped by the user")
        XCTAssertEqual(sessions["sessions"]?.arrayValue?.count, 1, "one session, stored with its drill-run row")
    }
}
