import ClubhouseJSON
import Foundation
import XCTest
@testable import TennisCore

final class CommandTableTests: XCTestCase {
    let speed50 = try! BallSpeed(mph: 50)

    func testDefaultTableIsTheFormula() throws {
        let table = CommandTable.formula()
        XCTAssertEqual(table.entryCount, 336) // the original "336 combinations"
        XCTAssertEqual(table.spins, [.flat, .topspin, .extremeTopspin])
        for zone in 0..<16 {
            for speed in BallSpeed.all {
                for spin in Spin.original {
                    let s = try table.settings(zone: zone, speed: speed, spin: spin)
                    XCTAssertEqual(Int(s.upperWheel), 50 + 10 * (zone % 4))
                    XCTAssertEqual(Int(s.lowerWheel), 50 + 10 * (zone / 4))
                    XCTAssertEqual(Int(s.pitch), 30 + 5 * ((speed.mph - 20) / 10))
                    XCTAssertEqual(Int(s.yaw), 45 + 15 * spin.index)
                    XCTAssertEqual(s.feed, 50)
                }
            }
        }
        // Hand-checked corners of the table.
        XCTAssertEqual(try table.settings(zone: 15, speed: BallSpeed(mph: 80), spin: .extremeTopspin),
                       try MachineSettings(upperWheel: 80, lowerWheel: 80, pitch: 60, yaw: 75, feed: 50))
        XCTAssertEqual(try table.settings(zone: 0, speed: BallSpeed(mph: 20), spin: .flat),
                       try MachineSettings(upperWheel: 50, lowerWheel: 50, pitch: 30, yaw: 45, feed: 50))
        assertThrows(try table.settings(zone: 3, speed: speed50, spin: .backspin), "the default table has no backspin entries")
    }

    func testBackspinOptionAndTheOutOfRangeExtremeBackspin() throws {
        let table = CommandTable.formula(includeBackspin: true)
        XCTAssertEqual(table.spins, Spin.allCases)
        XCTAssertEqual(Int(try table.settings(zone: 6, speed: speed50, spin: .backspin).yaw), 90)
        // 45 + 15·4 = 105 > 90: refused, with the reason and what to do.
        assertThrows(try table.settings(zone: 6, speed: speed50, spin: .extremeBackspin),
                     "no setting for zone 6, 50 mph, extreme-backspin", "yaw 105 is out of range 0–90", "calibrated table must supply it")
        XCTAssertEqual(table.entryCount, 16 * 7 * 4)
        XCTAssertEqual(table.omissions.count, 112)
        XCTAssertTrue(TennisCommands.tableShow(table).text.contains("not in this table (112)"))
    }

    func testSpeedsAndSpinsParse() throws {
        XCTAssertEqual(try BallSpeed(parsing: "50").level, 3)
        XCTAssertEqual(try BallSpeed(parsing: "80mph").mph, 80)
        assertThrows(try BallSpeed(parsing: "55"), "speed \"55\" is not one of 20, 30, 40, 50, 60, 70, 80")
        assertThrows(try BallSpeed(mph: 90), "speed \"90\"")
        XCTAssertEqual(try Spin(parsing: "extreme-topspin"), .extremeTopspin)
        assertThrows(try Spin(parsing: "slice"), "spin \"slice\" is not one of flat, topspin")
        assertThrows(try MachineSettings(upperWheel: 101, lowerWheel: 0, pitch: 0, yaw: 0, feed: 0), "upper wheel 101 is out of range 0–100; nothing was sent")
        assertThrows(try MachineSettings(upperWheel: 1, lowerWheel: 0, pitch: 91, yaw: 0, feed: 0), "pitch 91 is out of range 0–90")
        assertThrows(try MachineSettings(upperWheel: 1, lowerWheel: 0, pitch: 9, yaw: -1, feed: 0), "yaw -1 is out of range 0–90")
    }

    func testDefaultTableJSONRoundTripsAsACalibratedTable() throws {
        var json = CommandTable.formula().json
        guard case .object(var root) = json else { return XCTFail() }
        root["name"] = "club-a"
        json = .object(root)
        let parsed = try CommandTable.parse(JSONWriter.pretty(json), file: "table.json")
        XCTAssertEqual(parsed.name, "club-a")
        XCTAssertEqual(parsed.entries, CommandTable.formula().entries)
        XCTAssertEqual(try TennisCommands.tableValidate(JSONWriter.pretty(json), file: "table.json").entryCount, 336)
    }

    /// A calibrated table with one changed entry and backspin spins.
    func calibratedText(mutate: (inout [JSONValue]) -> Void = { _ in }, spins: [String] = ["flat", "topspin", "extreme-topspin"]) -> String {
        var entries: [JSONValue] = []
        for zone in 0..<16 {
            for mph in stride(from: 20, through: 80, by: 10) {
                for spin in spins {
                    entries.append(["zone": .int(zone), "speed": .int(mph), "spin": .string(spin), "upper": 40, "lower": 45,
                                    "pitch": .int(20 + mph / 10), "yaw": 30, "feed": 60])
                }
            }
        }
        mutate(&entries)
        // One entry per line, so errors have distinct line numbers (entry i is on line 5 + i).
        return "{\n\"name\": \"club\",\n\"spins\": [" + spins.map { "\"\($0)\"" }.joined(separator: ", ") + "],\n\"entries\": [\n"
            + entries.map { JSONWriter.compact($0) }.joined(separator: ",\n") + "\n]}\n"
    }

    func testCalibratedTableIsUsedAsGiven() throws {
        let table = try CommandTable.parse(calibratedText(spins: ["flat", "topspin", "extreme-topspin", "extreme-backspin"]), file: "t.json")
        XCTAssertEqual(table.spins, [.flat, .topspin, .extremeTopspin, .extremeBackspin])
        XCTAssertEqual(table.entryCount, 16 * 7 * 4)
        XCTAssertEqual(try table.settings(zone: 9, speed: speed50, spin: .extremeBackspin),
                       try MachineSettings(upperWheel: 40, lowerWheel: 45, pitch: 25, yaw: 30, feed: 60))
        assertThrows(try table.settings(zone: 9, speed: speed50, spin: .backspin), "the table \"club\" has no backspin entries")
    }

    func testCalibratedTableErrorsPointAtTheEntry() {
        // Entry 5 (line 9) has an out-of-range pitch.
        assertThrows(try CommandTable.parse(calibratedText { $0[5] = ["zone": 0, "speed": 40, "spin": "extreme-topspin", "upper": 1, "lower": 1, "pitch": 95, "yaw": 1, "feed": 1] }, file: "t.json"),
                     "t.json:10:75:", "pitch (degrees) 95 is out of range 0–90")
        assertThrows(try CommandTable.parse(calibratedText { $0.remove(at: 10) }, file: "t.json"),
                     "t.json:4:12: table is incomplete: 1 of 336", "zone 0 50 mph topspin")
        assertThrows(try CommandTable.parse(calibratedText { $0[3] = $0[0] }, file: "t.json"),
                     "t.json:8:1: duplicate entry for zone 0, 20 mph, flat (first at 5:1)")
        assertThrows(try CommandTable.parse(calibratedText { $0[2] = ["zone": 0, "speed": 20, "spin": "extreme-topspin", "upper": 1, "lower": 1, "pitch": 1, "yaw": 1, "feed": 1, "roll": 2] }, file: "t.json"),
                     "t.json:7:", "unknown key \"roll\"")
        assertThrows(try CommandTable.parse(calibratedText { $0[1] = ["zone": 16, "speed": 20, "spin": "topspin", "upper": 1, "lower": 1, "pitch": 1, "yaw": 1, "feed": 1] }, file: "t.json"),
                     "t.json:6:", "zone 16 is out of range 0–15")
        assertThrows(try CommandTable.parse(calibratedText { $0[1] = ["zone": 1, "speed": 25, "spin": "topspin", "upper": 1, "lower": 1, "pitch": 1, "yaw": 1, "feed": 1] }, file: "t.json"),
                     "t.json:6:", "speed 25 is not one of 20")
        assertThrows(try CommandTable.parse(calibratedText { $0[1] = ["zone": 1, "speed": 20, "spin": "backspin", "upper": 1, "lower": 1, "pitch": 1, "yaw": 1, "feed": 1] }, file: "t.json"),
                     "t.json:6:", "spin backspin is not in the table's \"spins\"")
        assertThrows(try CommandTable.parse(calibratedText { $0[1] = ["zone": 1, "speed": 20, "spin": "topspin", "upper": 1.5, "lower": 1, "pitch": 1, "yaw": 1, "feed": 1] }, file: "t.json"),
                     "t.json:6:", "upper wheel (%) must be a whole number, found 1.5")
        assertThrows(try CommandTable.parse(calibratedText { $0[1] = ["zone": 1, "speed": 20, "spin": "topspin", "lower": 1, "pitch": 1, "yaw": 1, "feed": 1] }, file: "t.json"),
                     "t.json:6:1: entry is missing \"upper\"")
        assertThrows(try CommandTable.parse(calibratedText(spins: ["flat", "topspin"]), file: "t.json"),
                     "t.json:3:10: spins must include extreme-topspin")
        assertThrows(try CommandTable.parse(#"{"format":"x","entries":[]}"#, file: "t.json"), "t.json:1:11: format must be \"clubhouse.tennis.table/1\"")
        assertThrows(try CommandTable.parse(#"{"name":"default","entries":[]}"#, file: "t.json"), "t.json:1:9: name must be a non-empty name other than \"default\"")
        assertThrows(try CommandTable.parse(#"{"name":"x"}"#, file: "t.json"), "t.json:1:1: missing \"entries\"")
        assertThrows(try CommandTable.parse("{\"entries\": [1,]}", file: "t.json"), "t.json:1:16: unexpected ']'; expected a value")
    }

    func testTableInsideASiteConfigurationIsLocatedThere() throws {
        let config = "{\n  \"checksum\": \"modbus\",\n  \"table\": {\"name\": \"x\", \"entries\": {}}\n}"
        let input = try JSONInput(text: config, file: "plugins.json")
        assertThrows(try CommandTable.parse(input, at: "/table"), "plugins.json:3:37: entries must be an array")
        // A table that reaches the plugin as a config value (no source text) is located by pointer.
        let value: JSONValue = ["name": "x", "entries": [["zone": 0]]]
        assertThrows(try CommandTable.parse(JSONInput(value: value, file: "plugins.json", base: "/config/table")),
                     "plugins.json at /config/table/entries/0: entry is missing \"speed\"")
    }

    func testTableShowText() {
        let text = TennisCommands.tableShow(.formula()).text
        XCTAssertTrue(text.hasPrefix("table default: 336 entries (16 zones × 7 speeds × 3 spins: flat, topspin, extreme-topspin)"))
        XCTAssertTrue(text.contains("\n15   80    extreme-topspin   80    80    60    75  50"))
    }
}

final class MessageTests: XCTestCase {
    /// Backstop errors that valid-looking input rarely reaches: their messages still say what to do.
    func testRareErrorMessages() {
        XCTAssertEqual(HomographyError.notUnique.description,
                       "the pairs do not determine a unique homography (points nearly collinear or coincident); spread the points over the plane")
        XCTAssertTrue(HomographyError.singular.description.contains("check that each image point matches its court point"))
        XCTAssertTrue(HomographyError.solverDidNotConverge.description.contains("check the point coordinates"))
        XCTAssertEqual(CalibrationError.degenerateConstruction(.serviceLeft).description,
                       "cannot derive the service-left point from the taps (parallel or coincident lines); tap the corners again")
        XCTAssertEqual(CalibrationError.homography(.tooFewPairs(3)).description,
                       "calibration: a homography needs at least 4 point pairs, got 3; add pairs")
        assertThrows(try CommandArgument.point("4.1;6.4"), "point \"4.1;6.4\" is not X,Y (two numbers separated by a comma, e.g. 4.1,6.4)")
        assertThrows(try CommandArgument.point("1,inf"), "is not X,Y")
        XCTAssertEqual(try CommandArgument.point(" 4.1, 6.4"), Point2D(4.1, 6.4))
        assertThrows(try CommandArgument.zone("x"), "zone \"x\" is not a zone number 0–15")
        XCTAssertEqual(try CommandArgument.zone("15"), 15)
        XCTAssertEqual(try CommandArgument.interval("2.5"), 2.5)
        let input = JSONInput(value: ["a": 1], file: "plugins.json", base: "/x")
        XCTAssertEqual(input.error(at: "/a", "bad").description, "plugins.json at /x/a: bad")
    }
}
