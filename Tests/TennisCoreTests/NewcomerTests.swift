// Issue 30, Why 10 and 11 for the tennis plugin: the drill session header says what was really
// launched (not the first ball's speed and spin for every ball); a CSV given where JSON is expected
// says so and what was expected; launch numbers on one target are one label, not numbers printed
// over each other; the legend lists only what the picture shows.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import TennisCore

final class NewcomerTests: XCTestCase {
    /// 60 mph topspin first, then three 40 mph flat balls at one spot, then one 60 mph topspin.
    static let mixed = """
        {"name": "mixed", "steps": [
          {"zone": 9, "speed": 60, "spin": "topspin", "delay": 2},
          {"zone": 6, "speed": 40, "spin": "flat", "delay": 2, "repeat": 3},
          {"zone": 9, "speed": 60, "spin": "topspin", "delay": 2}
        ]}
        """

    private func runDrill(_ json: String = mixed) throws -> TennisCommands.DrillRunReport {
        let drill = try Drill.parse(json, file: "mixed.json")
        var settings = SessionSettings(mode: .manual, speed: try BallSpeed(mph: 50), spin: .topspin)
        settings.dryRun = true
        return try TennisCommands.drillRun(drill, settings: settings, table: .formula(), link: nil, clock: ManualClock(), svgTitle: "Drill")
    }

    func testTheDrillHeaderSaysWhatWasLaunched() throws {
        let report = try runDrill()
        let lines = report.text.split(separator: "\n").map(String.init)
        // On today's main: "drill session: 60 mph topspin, …" for five balls of which three were 40 mph flat.
        XCTAssertEqual(lines[1], "drill session: 5 balls (2 × 60 mph topspin, 3 × 40 mph flat), checksum xor, table default, dry run")
        XCTAssertTrue(lines[3].hasPrefix("launch 2: zone 6 from (5.14, 4.39), 40 mph flat → 5A A5 83"), lines[3])
        let one = try runDrill(#"{"name": "one", "steps": [{"zone": 6, "speed": 40, "spin": "flat", "delay": 2, "repeat": 2}]}"#)
        XCTAssertEqual(one.text.split(separator: "\n")[1], "drill session: 2 balls at 40 mph flat, checksum xor, table default, dry run")
        // A log stored before balls carried their speed and spin does not pretend to know.
        var old = report.log
        for k in old.launches.indices { old.launches[k].speed = nil }
        XCTAssertEqual(TennisCommands.SessionReport(log: old, svg: nil).text.split(separator: "\n")[0],
                       "drill session: 5 balls (speed and spin per ball not recorded in this log), checksum xor, table default, dry run")
        // The log keeps each ball's speed and spin (stored sessions say the same).
        let decoded = try JSONValueDecoder().decode(SessionLog.self, from: try JSONValueEncoder().encode(report.log))
        XCTAssertEqual(decoded.launches.map { $0.speed?.mph }, [60, 40, 40, 40, 60])
        XCTAssertEqual(decoded.launches.map { $0.spin }, [.topspin, .flat, .flat, .flat, .topspin])
    }

    func testACSVWhereJSONIsExpectedSaysSo() throws {
        let csv = "zone,speed,spin,delay\n6,40,flat,2\n"
        XCTAssertThrowsError(try Drill.parse(csv, file: "drill.csv")) { error in
            XCTAssertEqual("\(error)", #"drill.csv:1:1: this looks like CSV (lines of comma-separated values), not JSON (unexpected 'z'; expected a value); expected a JSON drill (schema: drill.schema.json in the tennis plugin's folder): {"name": "…", "steps": [{"zone": 0–15, "speed": 20–80, "spin": "topspin", "delay": 2–9}]}"#)
        }
        XCTAssertThrowsError(try TapsFile.parse("x,y\n1,2\n", file: "taps.csv")) { error in
            XCTAssertTrue("\(error)".hasPrefix("taps.csv:1:1: this looks like CSV (lines of comma-separated values), not JSON (unexpected 'x'; expected a value); expected a JSON taps file: "), "\(error)")
        }
        XCTAssertThrowsError(try DetectionReader.parseAll("t,x,y\n0,512,700\n", file: "d.csv")) { error in
            XCTAssertEqual("\(error)", #"d.csv:1:1: this looks like CSV (lines of comma-separated values), not JSON (unexpected 't'; expected a value); a detection line is {"t":seconds,"x":px,"y":px}; nothing was done (--skip-bad-rows uses the good lines and lists the bad ones)"#)
        }
        // A JSON file with a mistake is not called CSV.
        XCTAssertThrowsError(try Drill.parse(#"{"name": "x", "steps": [1,]}"#, file: "bad.json")) { error in
            XCTAssertFalse("\(error)".contains("CSV"), "\(error)")
        }
    }

    func testLaunchNumbersOnOneTargetAreOneLabel() throws {
        let svg = try XCTUnwrap(try runDrill().svg)
        // Balls 2, 3 and 4 at zone 6's centre, 1 and 5 at zone 9's: on today's main five numbers
        // in two places, printed over each other.
        let labels = svg.components(separatedBy: "<text class=\"launch-numbers\"").dropFirst().map { $0.split(separator: ">")[1].split(separator: "<")[0] }
        XCTAssertEqual(labels, ["1, 5", "2, 3, 4"])
        XCTAssertEqual(svg.components(separatedBy: "class=\"target\"").count - 1, 5, "every launch keeps its marker")
        // Many balls on one spot: the first three, the last and the count.
        let many = try XCTUnwrap(try runDrill(#"{"name": "many", "steps": [{"zone": 6, "speed": 40, "delay": 2, "repeat": 9}]}"#).svg)
        XCTAssertTrue(many.contains(">1, 2, 3 … 9 (9 balls)</text>"), many)
        try RenderedPicture.check(svg: svg, name: "court-drill-one-spot", minimumBytes: 1000)
    }

    func testTheLegendListsOnlyWhatIsDrawn() throws {
        let drill = try XCTUnwrap(try runDrill().svg)
        XCTAssertFalse(drill.contains("position"), "a drill has no player positions")
        XCTAssertFalse(drill.contains("player's feet"))
        XCTAssertTrue(drill.contains(">target (launch numbers)</text>"))
        XCTAssertFalse(drill.contains("random sector"), "this drill has no sectors")
        let empty = CourtSVG().render()
        XCTAssertFalse(empty.contains("target (launch numbers)"))
        XCTAssertFalse(empty.contains("player's feet"))
        let positions = CourtSVG().render(positions: [Point2D(2, 5)])
        XCTAssertTrue(positions.contains(">player's feet (projected)</text>"))
    }
}
