// Practice 1.1 through the built binary: a club's dispersion with its picture, the distance table.

import ClubhouseJSON
import Foundation
import XCTest

final class PracticeDispersionEndToEndTests: XCTestCase {
    func testDispersionPictureAndDistanceTable() throws {
        let c = try Clubhouse()
        let real = try Clubhouse.requireSharedData("practice/sessions/fixture_mlm2pro_shotexport_anonymized.csv").path
        let sample = try Clubhouse.requireSharedData("practice/sessions/rapsodo_mlm2pro_mixed_club_sample.csv").path
        try c.succeed(["practice", "import", real])
        try c.succeed(["practice", "import", sample])
        let svg = c.path("7i.svg")
        let json = try c.succeed(["practice", "dispersion", "--club", "7i", "--svg", svg, "--json"]).json()
        let kept = json["kept"]?.intValue ?? 0, mishits = json["mishits"]?.intValue ?? -1
        XCTAssertEqual(kept + mishits + (json["unmeasured"]?.intValue ?? 0), json["shots"]?.arrayValue?.count)
        XCTAssertGreaterThan(kept, 50)
        XCTAssertNotNil(json["ellipse"]?["semi_major"]?.doubleValue)
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(picture.hasPrefix("<svg") && picture.contains("class=\"ellipse\""))
        XCTAssertEqual(picture.components(separatedBy: "class=\"mishit\"").count - 1, mishits)
        let text = try c.succeed(["practice", "dispersion", "--club", "7i", "--session", "2"]).stdout
        XCTAssertTrue(text.hasPrefix("7i: "), text)
        XCTAssertTrue(text.contains("95% ellipse"), text)

        let table = try c.succeed(["practice", "distances", "--svg", c.path("bag.svg")]).stdout
        let rows = table.split(separator: "\n")
        XCTAssertTrue(rows.first?.hasPrefix("CLUB") ?? false, table)
        XCTAssertTrue(rows.contains { $0.hasPrefix("7i ") } && rows.contains { $0.hasPrefix("5i ") }, table)
        let data = try c.succeed(["practice", "distances", "--json"]).json()
        XCTAssertNil(data["clubs"]?.arrayValue?.first?["shots"])
        XCTAssertTrue(try String(contentsOfFile: c.path("bag.svg"), encoding: .utf8).contains("class=\"carry\""))

        try c.fail(["practice", "dispersion", "--club", "driver"], exitCode: 2, contains: ["no dr shots (clubs: 5i, 7i)"])
        try c.fail(["practice", "distances", "--session", "9"], exitCode: 2, contains: ["no session 9"])
    }
}
