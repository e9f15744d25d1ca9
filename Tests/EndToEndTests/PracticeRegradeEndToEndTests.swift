// Practice 1.1 through the built binary: re-grading stored sessions under another template, and
// trends pinned to a template.

import ClubhouseJSON
import Foundation
import XCTest

final class PracticeRegradeEndToEndTests: XCTestCase {
    func testRegradeTheSampleWithFixtureAAndPinTheTrend() throws {
        let c = try Clubhouse()
        let sample = try Clubhouse.requireSharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv").path
        let fixtureA = try Clubhouse.requireSharedData("practice/templates/fixture_a.json").path
        try c.succeed(["practice", "import", sample, "--date", "2026-01-20"])
        let shotsBefore = try c.succeed(["practice", "session", "1", "--shots", "--json"]).json()["shots"]
        let exportBefore = try c.succeed(["practice", "export", "1", "--json"]).json()["sha256"]
        try c.succeed(["practice", "template", "add", fixtureA])
        let hash = "96bf2f0d9540211669916f580aaec0ac26d1a14e8d2fdd35cee2172595f86698"

        let json = try c.succeed(["practice", "regrade", "--template", "96bf2f0d", "--session", "1", "--json"]).json()
        let analysis = json["regraded"]?.arrayValue?.first?["analysis"]
        XCTAssertEqual(analysis?["a_count"]?.intValue, 5)
        XCTAssertEqual(analysis?["b_count"]?.intValue, 0)
        XCTAssertEqual(analysis?["c_count"]?.intValue, 1)
        XCTAssertEqual(analysis?["template_hash"]?.stringValue, hash)
        // Facts unchanged, the summary's hash too.
        XCTAssertEqual(try c.succeed(["practice", "session", "1", "--shots", "--json"]).json()["shots"], shotsBefore)
        XCTAssertEqual(try c.succeed(["practice", "export", "1", "--json"]).json()["sha256"], exportBefore)
        // The trend pinned to fixture_a shows the new analysis; unpinned, the import's.
        let pinned = try c.succeed(["practice", "trends", "--club", "7i", "--template", hash, "--json"]).json()
        XCTAssertEqual(pinned["points"]?.arrayValue?.first?["a_count"]?.intValue, 5)
        XCTAssertEqual(pinned["pinned_template"]?.stringValue, hash)
        let plain = try c.succeed(["practice", "trends", "--club", "7i", "--json"]).json()
        XCTAssertNotEqual(plain["points"]?.arrayValue?.first?["template_hash"]?.stringValue, hash)
        // Text, and a second run that finds nothing to do.
        let text = try c.succeed(["practice", "regrade", "--template", hash, "--all"]).stdout
        XCTAssertTrue(text.contains("re-graded 0 7i sub-sessions") && text.contains("already graded under this template: session 1"), text)
    }

    /// Re-grading under a copy of the import's template (same thresholds, another name, so another
    /// hash) reads the stored measurements back exactly: counts, validity and both averages equal
    /// the import's analysis, for both clubs of the sample.
    func testRegradeUnderACopyOfTheImportTemplateReproducesTheImportAnalysis() throws {
        let c = try Clubhouse()
        let sample = try Clubhouse.requireSharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv").path
        try c.succeed(["practice", "import", sample])
        let imported = try c.succeed(["practice", "session", "1", "--json"]).json()["clubs"]?.arrayValue ?? []
        XCTAssertEqual(imported.count, 2)
        for club in imported {
            let analysis = try XCTUnwrap(club["analysis"])
            let name = try XCTUnwrap(analysis["club"]?.stringValue)
            let template = try XCTUnwrap(analysis["template_hash"]?.stringValue)
            let copy = try c.succeed(["practice", "template", "duplicate", template, "--name", "copy for \(name)", "--json"]).json()
            let copyHash = try XCTUnwrap(copy["template"]?["hash"]?.stringValue)
            XCTAssertNotEqual(copyHash, template)
            let regraded = try c.succeed(["practice", "regrade", "--template", copyHash, "--all", "--json"]).json()
            let again = try XCTUnwrap(regraded["regraded"]?.arrayValue?.first?["analysis"])
            for key in ["club", "shot_count", "a_count", "b_count", "c_count", "validity", "a_percent", "averages_all_shots", "averages_a_only"] {
                XCTAssertEqual(again[key], analysis[key], "\(name) \(key)")
            }
            XCTAssertEqual(again["template_hash"]?.stringValue, copyHash)
        }
    }

    func testRegradeErrorsAreOneLineAndWriteNothing() throws {
        let c = try Clubhouse()
        let sample = try Clubhouse.requireSharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv").path
        try c.succeed(["practice", "import", sample])
        try c.fail(["practice", "regrade", "--template", "feedface", "--all"], exitCode: 2,
                   contains: ["no template matches 'feedface'"])
        try c.fail(["practice", "regrade", "--template", "Clubhouse default 7i"], exitCode: 2,
                   contains: ["regrade needs --session ID or --all"])
        try c.fail(["practice", "regrade", "--template", "Clubhouse default 7i", "--session", "7"], exitCode: 2,
                   contains: ["no session 7; `practice sessions` lists them"])
        try c.fail(["practice", "trends", "--club", "7i", "--template", "feedface"], exitCode: 2, contains: ["no template matches 'feedface'"])
        let detail = try c.succeed(["practice", "session", "1", "--json"]).json()
        XCTAssertEqual(detail["clubs"]?.arrayValue?.count, 2)
    }
}
