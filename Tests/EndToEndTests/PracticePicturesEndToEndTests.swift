// Every practice picture renders (issue 20.10): the trend chart (A% and A-only), dispersion and the
// distance table, written by the commands a user runs, then rendered with rsvg-convert. The trend
// chart puts sessions at their dates, titles both axes, keeps the weighted label off the line and
// draws a session without a date hollow, saying so.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class PracticePicturesEndToEndTests: XCTestCase {
    private func export(_ c: Clubhouse, _ name: String, carry: Int, dated: String?) throws -> String {
        let header = #""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle","Carry Distance","Total Distance","Side Carry""#
        var lines = dated.map { ["\"\($0)\""] } ?? []
        lines.append(header)
        for i in 0..<14 {
            lines.append("\"7i\",\"\(98 + i % 9)\",\"1.3\(i % 6)\",\"\(5200 + 60 * i)\",\"\(43 + i % 6)\",\"\(carry + i % 9)\",\"\(carry + 8 + i % 9)\",\"\(i % 5 - 2)\"")
        }
        return try c.write(name, lines.joined(separator: "\n") + "\n")
    }

    func testEveryPracticePictureRenders() throws {
        let c = try Clubhouse()
        for (n, date) in ["2026-03-02", "2026-03-05", "2026-03-05", "2026-04-20"].enumerated() {
            try c.succeed(["practice", "import", try export(c, "s\(n).csv", carry: 148 + 3 * n, dated: nil), "--date", date])
        }
        try c.succeed(["practice", "import", try export(c, "undated.csv", carry: 150, dated: nil)])
        let trend = c.path("trend.svg"), aOnly = c.path("a-only.svg"), dispersion = c.path("dispersion.svg"), distances = c.path("distances.svg")
        try c.succeed(["practice", "trends", "--club", "7i", "--min-validity", "invalid", "--svg", trend])
        try c.succeed(["practice", "trends", "--club", "7i", "--a-only", "--metric", "carry", "--min-validity", "invalid", "--svg", aOnly])
        try c.succeed(["practice", "dispersion", "--club", "7i", "--svg", dispersion])
        try c.succeed(["practice", "distances", "--svg", distances])
        for path in [trend, aOnly, dispersion, distances] { try RenderedPicture.check(path) }

        let svg = try String(contentsOfFile: trend, encoding: .utf8)
        XCTAssertTrue(svg.contains(">session date<") && svg.contains(">A shots, % of the session"), "axis titles")
        XCTAssertTrue(svg.contains("without a date in the file, placed at the import date"), "the undated session is explained")
        XCTAssertTrue(svg.contains("fill=\"#ffffff\" stroke=\"#2b6cb0\""), "the undated session is hollow")
        // Time axis: 2026-03-02 → 03-05 is 3 days, 03-05 → 04-20 is 46: the gaps are not equal.
        let xs = svg.split(separator: "\n").filter { $0.hasPrefix("<circle") }.compactMap { line -> Double? in
            guard let r = line.range(of: "cx=\"") else { return nil }
            return Double(line[r.upperBound...].prefix { $0 != "\"" })
        }.sorted()
        XCTAssertEqual(xs.count, 5)
        if xs.count == 5 { XCTAssertGreaterThan(xs[3] - xs[2], 5 * (xs[1] - xs[0]), "points are placed by date: \(xs)") }
        // The weighted label sits in the right margin, beyond the plot's right edge.
        if let label = svg.split(separator: "\n").first(where: { $0.contains(">weighted ") }),
           let r = label.range(of: "x=\""), let x = Double(label[r.upperBound...].prefix { $0 != "\"" }) {
            XCTAssertGreaterThan(x, 760 - 112, String(label))
        } else {
            XCTFail("no weighted label")
        }
    }
}
