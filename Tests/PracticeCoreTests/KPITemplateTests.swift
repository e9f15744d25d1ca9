import ClubhouseJSON
import XCTest
@testable import PracticeCore

final class KPITemplateTests: XCTestCase {
    private func template(_ text: String) throws -> KPITemplate {
        try KPITemplate.parse(text, sourceName: "t.json")
    }

    private func assertError(_ text: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try template(text), file: file, line: line) { error in
            XCTAssertEqual("\(error)", message, file: file, line: line)
        }
    }

    func testFixturesHashAsFrozenAndGradeTheirClub() throws {
        let expected = try JSONParser.parse(SharedData.text(SharedData.practice("template_hashes.json")))
        for name in ["fixture_a", "fixture_b", "fixture_c"] {
            let t = try KPITemplate.parse(SharedData.bytes(SharedData.practice("templates/\(name).json")), sourceName: name)
            XCTAssertEqual(t.hash, expected[name]?.stringValue, name)
            XCTAssertEqual(t.club, "7i")
        }
        let c = try KPITemplate.parse(SharedData.bytes(SharedData.practice("templates/fixture_c.json")), sourceName: "fixture_c")
        XCTAssertEqual(c.canonicalJSON, #"{"aggregation_method":"worst_metric","club":"7i","metrics":{"descent_angle":{"a_min":0.001,"b_min":100,"direction":"higher_is_better"},"spin_rate":{"a_min":1.0,"b_min":1,"direction":"higher_is_better"}},"schema_version":"1.0"}"#)
        // In the file's order: spin_rate comes first there.
        XCTAssertEqual(c.warnings, [
            "metrics.spin_rate: b_min 1 is not below a_min 1, so no shot can grade B on this metric",
            "metrics.descent_angle: b_min 100 is not below a_min 0.001, so no shot can grade B on this metric",
        ])
    }

    func testTheKernelsOtherTemplatesParse() throws {
        let unvalidated = try KPITemplate.parse(SharedData.bytes(SharedData.practice("templates/template_7i_v2_unvalidated.json")),
                                                sourceName: "v2")
        XCTAssertEqual(unvalidated.thresholds.map(\.metric), [.ballSpeed, .descentAngle, .smashFactor, .spinRate])
        XCTAssertEqual(unvalidated.warnings.count, 1, "ball_speed a_min = b_min leaves no B band")
        // The seeds file is an array of templates; ball_speed there has an A threshold only.
        let seeds = try JSONParser.parse(SharedData.text(SharedData.practice("templates/template_seeds.json")))
        for seed in seeds.arrayValue ?? [] {
            let t = try template(JSONWriter.compact(seed))
            let ball = try XCTUnwrap(t.thresholds.first { $0.metric == .ballSpeed })
            XCTAssertNil(ball.b)
            XCTAssertEqual(ball.grade(104), .a)
            XCTAssertEqual(ball.grade(103.9), .c, "no B band: short of A is C")
        }
        // kpis.json is the old spreadsheet model, not a template.
        let kpis = try SharedData.bytes(SharedData.practice("kpis.json"))
        XCTAssertThrowsError(try KPITemplate.parse(kpis, sourceName: "kpis.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("kpis.json:2:26: unknown key \"default_kpi_version\""), "\(error)")
        }
    }

    func testWorstMetricGrading() throws {
        let t = try template("""
        {"schema_version":"1.0","club":"7i","aggregation_method":"worst_metric","metrics":{
          "ball_speed":{"a_min":104,"b_min":100},
          "spin_rate":{"direction":"lower_is_better","a_max":5000,"b_max":5500}}}
        """)
        func shot(_ ball: Double?, _ spin: Double?) -> ShotMeasurements {
            var m = ShotMeasurements()
            m[.ballSpeed] = ball
            m[.spinRate] = spin
            return m
        }
        XCTAssertEqual(t.grade(shot(104, 5000)), .a, "thresholds are inclusive")
        XCTAssertEqual(t.grade(shot(103.9, 4000)), .b)
        XCTAssertEqual(t.grade(shot(110, 5500)), .b)
        XCTAssertEqual(t.grade(shot(110, 5500.1)), .c)
        XCTAssertEqual(t.grade(shot(99.9, 4000)), .c)
        XCTAssertEqual(t.grade(shot(101, 5200)), .b, "worst of B and B")
        XCTAssertEqual(t.grade(shot(nil, 4000)), .c, "a missing value makes the shot C")
        XCTAssertEqual(t.grade(shot(120, nil)), .c)
    }

    func testStoredTemplateKeepsItsStoredHash() throws {
        // Reads never recompute: whatever hash was stored at insert is the template's identity.
        let fixture = try template(#"{"schema_version":"1.0","club":"7i","metrics":{"ball_speed":{"a_min":100,"b_min":90}},"aggregation_method":"worst_metric"}"#)
        let stored = try KPITemplate.stored(canonicalJSON: fixture.canonicalJSON, hash: String(repeating: "ab", count: 32))
        XCTAssertEqual(stored.hash, String(repeating: "ab", count: 32))
        XCTAssertEqual(stored.thresholds, fixture.thresholds)
    }

    func testEveryValidationError() {
        let ok = #""schema_version":"1.0","club":"7i","aggregation_method":"worst_metric""#
        assertError("[1]", "t.json:1:1: a KPI template is a JSON object; found an array")
        assertError("{\"club\":", "t.json:1:9: unexpected end of input; expected a value")
        assertError(#"{"club":"7i","aggregation_method":"worst_metric","metrics":{"ball_speed":{"a_min":1}}}"#,
                    #"t.json:1:1: schema_version is missing; add "schema_version": "1.0""#)
        assertError(#"{"schema_version":"2.0","club":"7i"}"#,
                    #"t.json:1:19: schema_version "2.0" is not supported; this kernel reads "1.0""#)
        assertError(#"{"schema_version":1.0,"club":"7i"}"#,
                    #"t.json:1:19: schema_version 1.0 is not supported; this kernel reads "1.0""#)
        assertError(#"{"schema_version":"1.0","metrics":{}}"#, #"t.json:1:1: club is missing; add "club": "7i" (the club it grades)"#)
        assertError(#"{"schema_version":"1.0","club":"  "}"#, #"t.json:1:32: club must be a club name such as "7i"; found an empty name"#)
        assertError(#"{"schema_version":"1.0","club":7}"#, #"t.json:1:32: club must be a club name such as "7i"; found an integer"#)
        assertError(#"{"schema_version":"1.0","club":"7i","metrics":{"ball_speed":{"a_min":1}}}"#,
                    #"t.json:1:1: aggregation_method is missing; add "aggregation_method": "worst_metric""#)
        assertError(#"{"schema_version":"1.0","club":"7i","aggregation_method":"average"}"#,
                    #"t.json:1:58: aggregation_method "average" is not supported; the only method is "worst_metric""#)
        assertError("{\(ok)}", #"t.json:1:1: metrics is missing; add "metrics": {"ball_speed": {"a_min": …, "b_min": …}}"#)
        assertError("{\(ok),\"metrics\":[]}", "t.json:1:83: metrics must be an object of metric name → thresholds; found an array")
        assertError("{\(ok),\"metrics\":{}}", "t.json:1:83: metrics is empty; grade at least one metric")
        assertError("{\(ok),\"metrics\":{\"launch_angle\":{\"a_min\":1}}}",
                    "t.json:1:99: unknown metric \"launch_angle\"; use ball_speed, smash_factor, spin_rate, descent_angle, carry")
        assertError("{\(ok),\"metrics\":{\"carry\":150}}",
                    "t.json:1:92: metrics.carry must be an object with a_min and b_min (or a_max and b_max); found an integer")
        assertError("{\(ok),\"metrics\":{\"carry\":{\"direction\":\"up\",\"a_min\":1}}}",
                    "t.json:1:105: metrics.carry.direction is \"up\"; use \"higher_is_better\" or \"lower_is_better\"")
        assertError("{\(ok),\"metrics\":{\"carry\":{\"b_min\":140}}}",
                    "t.json:1:92: metrics.carry needs a_min (the A threshold of a higher_is_better metric)")
        assertError("{\(ok),\"metrics\":{\"carry\":{\"a_min\":\"150\"}}}", "t.json:1:101: metrics.carry.a_min must be a number; found a string")
        assertError("{\(ok),\"metrics\":{\"carry\":{\"a_min\":150,\"a_max\":170}}}",
                    "t.json:1:113: metrics.carry has a_max, but higher_is_better thresholds are a_min and b_min")
        assertError("{\(ok),\"metrics\":{\"spin_rate\":{\"direction\":\"lower_is_better\",\"a_min\":1}}}",
                    "t.json:1:135: metrics.spin_rate has a_min, but lower_is_better thresholds are a_max and b_max")
        assertError("{\(ok),\"metrics\":{\"carry\":{\"a_min\":150,\"c_min\":1}}}",
                    "t.json:1:113: metrics.carry has unknown key \"c_min\"; use direction, a_min and b_min")
        assertError("{\(ok),\"metrics\":{\"carry\":{\"a_min\":1e999}}}", "t.json:1:101: number 1e999 is outside the range of a double")
        assertError("{\(ok),\"colour\":\"red\"}",
                    "t.json:1:82: unknown key \"colour\"; a template has schema_version, club, aggregation_method and metrics (name and description are optional)")
        assertError("{\(ok),\"name\":5,\"metrics\":{\"carry\":{\"a_min\":1}}}", "t.json:1:80: name must be a string; found an integer")
    }

    func testOptionalNameIsPartOfTheContent() throws {
        let a = try template(#"{"schema_version":"1.0","club":"7i","aggregation_method":"worst_metric","metrics":{"carry":{"a_min":150}}}"#)
        let b = try template(#"{"name":"Carry only","schema_version":"1.0","club":"7i","aggregation_method":"worst_metric","metrics":{"carry":{"a_min":150}}}"#)
        XCTAssertNotEqual(a.hash, b.hash)
        XCTAssertEqual(b.name, "Carry only")
    }

    func testBundledDefaultsAreValidAndDistinct() throws {
        let defaults = try DefaultTemplates.templates()
        XCTAssertEqual(defaults.count, 10)
        XCTAssertEqual(Set(defaults.map(\.hash)).count, 10)
        XCTAssertEqual(Set(defaults.map(\.club)), ["dr", "3w", "5i", "6i", "7i", "8i", "9i", "pw", "gw", "sw"])
        for t in defaults { XCTAssertEqual(t.warnings, [], t.club) }
    }
}
