import ClubhouseJSON
import Foundation
import XCTest
@testable import TennisCore

final class DrillTests: XCTestCase {
    static let simple = """
        {"name": "two corners", "steps": [
          {"zone": 12, "speed": 50, "spin": "topspin", "delay": 3},
          {"zone": 15, "speed": 60, "spin": "flat", "delay": 2.5, "repeat": 2}
        ]}
        """

    func testParsesFillsDefaultsAndHashesTheCanonicalForm() throws {
        let drill = try Drill.parse(DrillTests.simple, file: "d.json")
        XCTAssertEqual(drill.name, "two corners")
        XCTAssertEqual(drill.steps.count, 2)
        XCTAssertEqual(drill.ballCount, 3)
        XCTAssertEqual(drill.totalDelay, 8)
        XCTAssertEqual(drill.repeats, 1)
        XCTAssertFalse(drill.shuffle)
        XCTAssertEqual(drill.canonicalJSON,
                       #"{"name":"two corners","repeat":1,"seed":1,"shuffle":false,"steps":[{"delay":3,"repeat":1,"speed":50,"spin":"topspin","zone":12},{"delay":2.5,"repeat":2,"speed":60,"spin":"flat","zone":15}]}"#)
        // SHA-256 of exactly those bytes.
        XCTAssertEqual(drill.hash.count, 64)
        XCTAssertTrue(drill.hash.allSatisfy(\.isHexDigit))
        // The same drill written differently (order, whitespace, defaults spelled out) has the same hash.
        let respelled = """
            {"steps":[{"delay":3.0,"spin":"topspin","speed":50,"zone":12,"repeat":1},
            {"repeat":2,"zone":15,"delay":2.50,"speed":60,"spin":"flat"}],"shuffle":false,"seed":1,"name":"two corners"}
            """
        XCTAssertEqual(try Drill.parse(respelled, file: "e.json").hash, drill.hash)
        // Any change in content changes it.
        let changed = DrillTests.simple.replacingOccurrences(of: "\"delay\": 3}", with: "\"delay\": 4}")
        XCTAssertNotEqual(try Drill.parse(changed, file: "f.json").hash, drill.hash)
        // The canonical form parses back to the same drill.
        XCTAssertEqual(try Drill.parse(drill.canonicalJSON, file: "c.json"), drill)
    }

    func testBadDrillsNameTheStep() {
        func bad(_ steps: String, _ fragments: String...) {
            let text = "{\"name\": \"x\", \"steps\": [\(steps)]}"
            do {
                _ = try Drill.parse(text, file: "bad.json")
                XCTFail("accepted \(steps)")
            } catch {
                let message = "\(error)"
                XCTAssertFalse(message.contains("\n"), message)
                for f in fragments { XCTAssertTrue(message.contains(f), "«\(message)» lacks «\(f)»") }
            }
        }
        let ok = #"{"zone": 1, "speed": 50, "delay": 3}"#
        bad(ok + #", {"zone": 16, "speed": 50, "delay": 3}"#, "bad.json:1:", "step 2: unknown zone 16; zones are numbered 0–15")
        bad(#"{"zone": "deep", "speed": 50, "delay": 3}"#, "step 1: unknown zone \"deep\"")
        bad(ok + "," + ok + #", {"zone": 3, "speed": 50, "delay": 1.5}"#, "step 3: delay 1.5 s is outside 2–9 s")
        bad(#"{"zone": 3, "speed": 50, "delay": 9.5}"#, "step 1: delay 9.5 s is outside 2–9 s")
        bad(#"{"zone": 3, "speed": 90, "delay": 3}"#, "step 1: speed 90 is out of range; the machine takes 20–80 mph in steps of 10")
        bad(ok + #", {"zone": 3, "speed": 45, "delay": 3}"#, "step 2: speed 45 is out of range")
        bad(#"{"zone": 3, "speed": 50, "delay": 3, "spin": "slice"}"#, "step 1: spin \"slice\" is not one of flat")
        bad(#"{"speed": 50, "delay": 3}"#, "step 1: give a \"zone\" (0–15) or a \"sector\"")
        bad(#"{"zone": 2, "sector": {"x": [0, 1], "y": [0, 1]}, "speed": 50, "delay": 3}"#, "step 1: give either \"zone\" or \"sector\", not both")
        bad(#"{"sector": {"x": [3, 1], "y": [0, 1]}, "speed": 50, "delay": 3}"#, "step 1: sector x [3, 1] must rise and lie within 0–8.23 m")
        bad(#"{"zone": 3, "speed": 50}"#, "step 1: missing \"delay\"")
        bad(#"{"zone": 3, "speed": 50, "delay": 3, "repeat": 0}"#, "step 1: repeat must be a whole number 1–100")
        bad(#"{"zone": 3, "speed": 50, "delay": 3, "height": 2}"#, "step 1: unknown key \"height\"")
        assertThrows(try Drill.parse(#"{"name": "x", "steps": []}"#, file: "e.json"),
                     "e.json:1:", "the drill has an empty sequence: \"steps\" needs at least one step")
        assertThrows(try Drill.parse(#"{"name": "x"}"#, file: "e.json"), "a drill needs \"steps\"")
        assertThrows(try Drill.parse(#"{"steps": [{"zone": 1, "speed": 50, "delay": 3}]}"#, file: "e.json"), "a drill needs a \"name\"")
        assertThrows(try Drill.parse(#"{"name": "x", "steps": [], "tempo": 1}"#, file: "e.json"), "unknown key \"tempo\"")
        assertThrows(try Drill.parse(#"{"name": "x", "steps": [{"zone": 1, "speed": 50, "delay": 3, "repeat": 100}], "repeat": 20}"#, file: "e.json"),
                     "the drill has 2000 balls, more than 1000")
    }

    /// The drill's other shape errors: each one line, naming the step (or the drill-level key).
    func testEveryOtherDrillShapeErrorIsOneLineAndNamesTheStep() {
        func bad(_ text: String, _ fragments: String...) {
            do {
                _ = try Drill.parse(text, file: "d.json")
                XCTFail("accepted \(text)")
            } catch {
                let message = "\(error)"
                XCTAssertFalse(message.contains("\n"), message)
                XCTAssertTrue(message.hasPrefix("d.json:"), message)
                for f in fragments { XCTAssertTrue(message.contains(f), "«\(message)» lacks «\(f)»") }
            }
        }
        let ok = #"{"zone": 1, "speed": 50, "delay": 3}"#
        func drill(_ steps: String) -> String { "{\"name\": \"x\", \"steps\": [\(steps)]}" }
        bad(#"{"name": "  ", "steps": [\#(ok)]}"#, "\"name\" must be a non-empty string of at most 100 bytes")
        bad(#"{"name": 7, "steps": [\#(ok)]}"#, "\"name\" must be a non-empty string")
        bad("{\"name\": \"\(String(repeating: "a", count: 101))\", \"steps\": [\(ok)]}", "at most 100 bytes")
        bad(#"{"name": "x", "description": 3, "steps": [\#(ok)]}"#, "\"description\" must be a string")
        bad(#"{"name": "x", "shuffle": "yes", "steps": [\#(ok)]}"#, "\"shuffle\" must be true or false")
        bad(#"{"name": "x", "steps": {"zone": 1}}"#, "\"steps\" must be a list of steps, found")
        bad(drill(ok + ", 5"), "step 2: a step must be an object")
        bad(drill(#"{"sector": [0, 1], "speed": 50, "delay": 3}"#), "step 1: \"sector\" must be an object")
        bad(drill(#"{"sector": {"x": [0, 1], "y": [0, 1], "z": [0, 1]}, "speed": 50, "delay": 3}"#),
            "step 1: unknown sector key \"z\"; expected \"x\", \"y\"")
        bad(drill(#"{"sector": {"x": [0, 1]}, "speed": 50, "delay": 3}"#), "step 1: sector y must be [from, to] in metres")
        bad(drill(#"{"sector": {"x": [0, 1, 2], "y": [0, 1]}, "speed": 50, "delay": 3}"#), "step 1: sector x must be [from, to] in metres")
        bad(drill(#"{"sector": {"x": [0, 1], "y": [2, 30]}, "speed": 50, "delay": 3}"#),
            "step 1: sector y [2, 30] must rise and lie within 0–", "m (the half court)")
        bad(drill(ok + #", {"zone": 2, "delay": 3}"#), "step 2: missing \"speed\" (mph: 20, 30, … 80)")
        bad(drill(#"{"zone": 2, "speed": "fast", "delay": 3}"#), "step 1: speed \"fast\" is out of range")
        bad(drill(#"{"zone": 2, "speed": 50, "delay": "3"}"#), "step 1: \"delay\" must be a number of seconds (2–9)")
        bad(drill(#"{"zone": 2, "speed": 50, "delay": 3, "note": 1}"#), "step 1: \"note\" must be a string")
        bad(drill(#"{"zone": 2.5, "speed": 50, "delay": 3}"#), "step 1: unknown zone 2.5")
        bad(drill(#"{"zone": 2, "speed": 50, "delay": 3, "repeat": 1.5}"#), "step 1: repeat must be a whole number 1–100, found 1.5")
    }

    func testPlanRepeatsShufflesAndDrawsSectorPointsFromTheSeed() throws {
        let text = """
            {"name": "mix", "repeat": 3, "shuffle": true, "seed": 5, "steps": [
              {"zone": 0, "speed": 40, "delay": 2},
              {"sector": {"x": [4.2, 8.0], "y": [8.4, 11.8]}, "speed": 70, "spin": "flat", "delay": 5, "repeat": 2}
            ]}
            """
        let drill = try Drill.parse(text, file: "m.json")
        let plan = drill.plan()
        XCTAssertEqual(plan.count, 9)
        XCTAssertEqual(plan.map(\.index), Array(1...9))
        XCTAssertEqual(plan.filter { $0.step == 1 }.count, 3)
        XCTAssertEqual(plan.filter { $0.step == 2 }.count, 6)
        XCTAssertEqual(drill.plan(), plan, "same seed, same plan")
        XCTAssertNotEqual(drill.plan(seed: 6), plan)
        XCTAssertNotEqual(plan.map(\.step), [1, 2, 2, 1, 2, 2, 1, 2, 2], "shuffled")
        for ball in plan where ball.step == 2 {
            XCTAssertTrue((4.2...8.0).contains(ball.target.x) && (8.4...11.8).contains(ball.target.y), "\(ball.target)")
            XCTAssertEqual(ball.zone, CourtZones.zone(at: ball.target))
            XCTAssertTrue([14, 15].contains(ball.zone))
            XCTAssertEqual(ball.speed.mph, 70)
            XCTAssertEqual(ball.spin, .flat)
            XCTAssertEqual(ball.delay, 5)
        }
        let points = Set(plan.filter { $0.step == 2 }.map { "\($0.target)" })
        XCTAssertEqual(points.count, 6, "a fresh random point for every sector ball")
        // Without shuffle the order is the file's.
        let ordered = try Drill.parse(text.replacingOccurrences(of: "\"shuffle\": true", with: "\"shuffle\": false"), file: "m.json")
        XCTAssertEqual(ordered.plan().map(\.step), [1, 2, 2, 1, 2, 2, 1, 2, 2])
    }

    func testRunKeepsThePaceSendsEachBallWithItsSettingsAndStops() throws {
        let drill = try Drill.parse(DrillTests.simple, file: "d.json")
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock)
        let settings = SessionSettings(mode: .manual, speed: try BallSpeed(mph: 50), spin: .topspin)
        var progress: [Int] = []
        let report = try TennisCommands.drillRun(drill, settings: settings, table: .formula(), link: machine, clock: clock,
                                                 svgTitle: "Drill", progress: { done, _ in progress.append(done) })
        // Zone 12 at 50 mph topspin, zone 15 twice at 60 mph flat, then stop.
        XCTAssertEqual(machine.decoded.count, 4)
        XCTAssertEqual(machine.decoded[0].settings, try CommandTable.formula().settings(zone: 12, speed: BallSpeed(mph: 50), spin: .topspin))
        XCTAssertEqual(machine.decoded[1].settings, try CommandTable.formula().settings(zone: 15, speed: BallSpeed(mph: 60), spin: .flat))
        XCTAssertEqual(machine.decoded[2], machine.decoded[1])
        XCTAssertFalse(machine.decoded[3].start)
        XCTAssertEqual(progress, [1, 2, 3])
        // Scheduled at 3, 5.5 and 8 s; the clock only moves when waited on, so each write is on time
        // even though each ball's replies took 8 ms.
        XCTAssertEqual(report.timing.map(\.scheduled), [3, 5.5, 8])
        for t in report.timing { XCTAssertEqual(t.lateMs ?? -1, 0, accuracy: 1e-6) }
        XCTAssertEqual(report.log.summary.completed, 3)
        XCTAssertTrue(report.log.summary.stopSent)
        XCTAssertEqual(report.log.settings.mode, .drill)
        XCTAssertEqual(report.log.settings.drillHash, drill.hash)
        XCTAssertEqual(report.log.launches.map(\.decision.zone), [12, 15, 15])
        // The landing pattern: zone 15 shaded for two balls, three numbered targets.
        let svg = try XCTUnwrap(report.svg)
        XCTAssertTrue(svg.contains("data-zone=\"15\" data-launches=\"2\""), svg)
        XCTAssertEqual(svg.components(separatedBy: "class=\"target\"").count - 1, 3)
        XCTAssertTrue(report.text.contains("drill \"two corners\""), report.text)
    }

    func testStoppingMidwaySendsTheStopCommand() throws {
        let drill = try Drill.parse(DrillTests.simple, file: "d.json")
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock)
        let settings = SessionSettings(mode: .manual, speed: try BallSpeed(mph: 50), spin: .topspin)
        // Ctrl-C during the wait before the second ball.
        let start = clock.now()
        let report = try TennisCommands.drillRun(drill, settings: settings, table: .formula(), link: machine, clock: clock,
                                                 shouldStop: { clock.now() - start > 4 })
        XCTAssertEqual(machine.decoded.count, 2)
        XCTAssertTrue(machine.decoded[0].start)
        XCTAssertFalse(machine.decoded[1].start)
        XCTAssertEqual(report.log.summary.launches, 1)
        XCTAssertEqual(report.log.summary.aborted, "stopped by the user")
        XCTAssertTrue(report.log.summary.stopSent)
    }

    func testMachineThatStopsAnsweringEndsTheRun() throws {
        let drill = try Drill.parse(#"{"name": "x", "steps": [{"zone": 1, "speed": 50, "delay": 2, "repeat": 6}]}"#, file: "x.json")
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.normal, .reject, .reject, .reject, .reject, .reject, .reject, .reject])
        var settings = SessionSettings(mode: .manual, speed: try BallSpeed(mph: 50), spin: .topspin)
        settings.policy = ExchangePolicy(maxAttempts: 1, maxConsecutiveFailures: 3)
        let report = try TennisCommands.drillRun(drill, settings: settings, table: .formula(), link: machine, clock: clock)
        XCTAssertEqual(report.log.summary.launches, 4)
        XCTAssertEqual(report.log.summary.rejected, 3)
        XCTAssertTrue(report.log.summary.aborted?.contains("failed 3 commands in a row") ?? false)
        XCTAssertTrue(report.log.summary.stopSent)
    }

    func testDryRunDoesNotWaitAndBallsMissingFromTheTableAreRefusedFirst() throws {
        let drill = try Drill.parse(DrillTests.simple, file: "d.json")
        let clock = ManualClock()
        var settings = SessionSettings(mode: .manual, speed: try BallSpeed(mph: 50), spin: .topspin)
        settings.dryRun = true
        let report = try TennisCommands.drillRun(drill, settings: settings, table: .formula(), link: nil, clock: clock)
        XCTAssertEqual(clock.now(), 100, "a dry run does not wait")
        XCTAssertEqual(report.log.framesSent.count, 4)
        XCTAssertTrue(report.timing.allSatisfy { $0.lateMs == nil })
        // Backspin is not in the default table: refused before anything is sent, naming the step.
        let backspin = try Drill.parse(#"{"name": "b", "steps": [{"zone": 1, "speed": 50, "delay": 2}, {"zone": 2, "speed": 50, "spin": "backspin", "delay": 2}]}"#, file: "b.json")
        let machine = FakeBallMachine(clock: clock)
        assertThrows(try TennisCommands.drillRun(backspin, settings: SessionSettings(mode: .manual, speed: try BallSpeed(mph: 50), spin: .topspin),
                                                 table: .formula(), link: machine, clock: clock), "step 2:", "backspin")
        XCTAssertTrue(machine.received.isEmpty)
    }

    func testStoreSavesByHashAndFindsByNameOrHash() throws {
        let store = InMemoryTennisStore()
        let drill = try Drill.parse(DrillTests.simple, file: "d.json")
        store.saveDrill(drill, savedAt: "2026-11-23T00:00:00Z")
        store.saveDrill(drill, savedAt: "2026-11-23T00:01:00Z")
        XCTAssertEqual(store.drills().count, 1)
        XCTAssertEqual(store.drill("two corners"), drill)
        XCTAssertEqual(store.drill(String(drill.hash.prefix(8))), drill)
        XCTAssertNil(store.drill("three corners"))
        XCTAssertTrue(DrillError.unknownDrill("three corners").description.contains("no saved drill \"three corners\""))
    }

    /// The shipped schema and the parser accept the same keys, and the shipped example drill is valid.
    func testSchemaAndExampleMatchTheParser() throws {
        let folder = TestPaths.repoRoot.appendingPathComponent("Plugins/Tennis")
        let schema = try JSONParser.parse(try String(contentsOf: folder.appendingPathComponent("drill.schema.json"), encoding: .utf8))
        XCTAssertEqual(Set(schema["properties"]?.objectValue?.keys ?? []), Set(Drill.topKeys))
        XCTAssertEqual(Set(schema["$defs"]?["step"]?["properties"]?.objectValue?.keys ?? []), Set(Drill.stepKeys))
        XCTAssertEqual(schema["$defs"]?["step"]?["properties"]?["speed"]?["enum"]?.arrayValue?.compactMap(\.intValue), BallSpeed.allowed)
        XCTAssertEqual(schema["$defs"]?["step"]?["properties"]?["spin"]?["enum"]?.arrayValue?.compactMap(\.stringValue), Spin.allCases.map(\.rawValue))
        let example = folder.appendingPathComponent("drills/baseline-corners.json")
        let drill = try Drill.parse(try String(contentsOf: example, encoding: .utf8), file: example.path)
        XCTAssertEqual(drill.ballCount, 10)
    }
}
