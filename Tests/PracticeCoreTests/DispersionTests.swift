import XCTest
@testable import PracticeCore

final class DispersionTests: StoreTestCase {
    func shot(_ row: Int, carry: Double?, side: Double?, total: Double? = nil, club: String = "7i") -> (sessionID: Int64, shot: StoredShot) {
        var m = ShotMeasurements()
        m[.carry] = carry
        m[.sideCarry] = side
        m[.total] = total
        return (1, StoredShot(rowIndex: row, club: club, measurements: m, grade: nil, rawJSON: "[]"))
    }

    /// Four shots placed by hand: (side, carry) = (−2, 150), (2, 150), (0, 146), (0, 154).
    /// Means (0, 150); variances (n − 1 = 3): side (4 + 4) / 3 = 8/3, carry (16 + 16) / 3 = 32/3;
    /// covariance 0. So the ellipse's major axis runs downrange (90°) with semi-axes
    /// √(5.991 · 32/3) = 7.9940 and √(5.991 · 8/3) = 3.9970 yd.
    func testEllipseOfAHandPlacedCross() {
        let d = Dispersion.analyze(club: "7i", shots: [shot(1, carry: 150, side: -2), shot(2, carry: 150, side: 2),
                                                        shot(3, carry: 146, side: 0), shot(4, carry: 154, side: 0)])
        XCTAssertEqual(d.mishits, 0)
        let e = try? XCTUnwrap(d.ellipse)
        XCTAssertEqual(e?.centerX ?? .nan, 0, accuracy: 1e-12)
        XCTAssertEqual(e?.centerY ?? .nan, 150, accuracy: 1e-12)
        XCTAssertEqual(e?.varianceX ?? .nan, 8.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(e?.varianceY ?? .nan, 32.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(e?.covariance ?? .nan, 0, accuracy: 1e-12)
        XCTAssertEqual(e?.semiMajor ?? .nan, (5.991 * 32 / 3).squareRoot(), accuracy: 1e-12)
        XCTAssertEqual(e?.semiMajor ?? .nan, 7.9940, accuracy: 1e-4)
        XCTAssertEqual(e?.semiMinor ?? .nan, 3.9970, accuracy: 1e-4)
        XCTAssertEqual(abs(e?.angleDegrees ?? .nan), 90, accuracy: 1e-9)
        XCTAssertEqual(d.carrySD ?? .nan, (32.0 / 3).squareRoot(), accuracy: 1e-12)
        // Every outline point satisfies the ellipse equation (x/b)² + ((y − 150)/a)² = 1.
        for (x, y) in e?.outline(12) ?? [] {
            XCTAssertEqual(pow(x / (e?.semiMinor ?? 1), 2) + pow((y - 150) / (e?.semiMajor ?? 1), 2), 1, accuracy: 1e-9)
        }
    }

    /// Issue 30: values an older version stored unchecked (1e308, ±∞ read as none) are left out of the
    /// dispersion, counted and said; the charts and tables print.
    func testStoredValuesOutsideThePlausibleRangeAreLeftOut() {
        let d = Dispersion.analyze(club: "7i", shots: [shot(1, carry: 150, side: -2), shot(2, carry: 1e308, side: 2),
                                                        shot(3, carry: 146, side: -1e308), shot(4, carry: 154, side: 0, total: 1e-308),
                                                        shot(5, carry: -1e308, side: 1)])
        XCTAssertEqual(d.implausible, 3)
        XCTAssertEqual(d.unmeasured, 2)
        XCTAssertEqual(d.shots.map(\.carry), [150, 146, 154])
        XCTAssertEqual(d.carryMean ?? .nan, 150, accuracy: 1e-9)
        XCTAssertTrue(d.text.contains("7i: 3 shots kept, 0 mishits excluded, 2 without a carry, 3 stored values outside the plausible range left out"),
                      d.text)
        XCTAssertTrue(DispersionChart.svg(d).hasSuffix("</svg>\n"))
        XCTAssertTrue(DispersionChart.svg(DistanceTable(clubs: [d], sessionID: nil)).hasSuffix("</svg>\n"))
    }

    /// A tilted cloud: points on the line carry = 150 + side. Covariance matrix [[v, v], [v, v]]:
    /// the major axis is at 45°, the minor axis has length 0.
    func testTiltedCloudHasItsMajorAxisAt45Degrees() throws {
        let d = Dispersion.analyze(club: "7i", shots: (0..<5).map { shot($0, carry: 150 + Double($0), side: Double($0)) })
        let e = try XCTUnwrap(d.ellipse)
        XCTAssertEqual(e.angleDegrees, 45, accuracy: 1e-9)
        XCTAssertEqual(e.semiMinor, 0, accuracy: 1e-6)
        // variance of 0…4 is 2.5 on each axis: λ = 5, semi-major √(5.991·5).
        XCTAssertEqual(e.semiMajor, (5.991 * 5).squareRoot(), accuracy: 1e-9)
    }

    /// Carries 150, 151, 149, 152, 148, 150, 90: median 150; absolute deviations 0, 1, 1, 2, 2, 0,
    /// 60, whose median (MAD) is 1. The 90-yard top has z = 0.6745 · (−60) = −40.47: a mishit;
    /// 152 has z = 1.349: kept.
    func testTheTopIsAMishitByTheModifiedZScore() {
        let carries: [Double] = [150, 151, 149, 152, 148, 150, 90]
        let d = Dispersion.analyze(club: "7i", shots: carries.enumerated().map { shot($0.offset, carry: $0.element, side: 0, total: $0.element + 8) })
        XCTAssertEqual(d.mishits, 1)
        XCTAssertEqual(d.kept, 6)
        XCTAssertEqual(d.shots.filter(\.mishit).map(\.rowIndex), [6])
        XCTAssertEqual(d.shots[6].z ?? 0, -40.47, accuracy: 1e-9)
        XCTAssertEqual(d.shots[3].z ?? 0, 1.349, accuracy: 1e-9)
        XCTAssertEqual(d.carryMean ?? 0, 150, accuracy: 1e-12)
        XCTAssertEqual(d.totalMean ?? 0, 158, accuracy: 1e-12)
        XCTAssertTrue(d.text.contains("mishit: session 1 row 6, carry 90.0 yd (z -40.5)"), d.text)
        // MAD 0: the rule excludes nobody.
        let flat = Dispersion.analyze(club: "7i", shots: [150, 150, 150, 120].enumerated().map { shot($0.offset, carry: $0.element, side: 0) })
        XCTAssertEqual(flat.mishits, 0)
        // No side carry: counted for carry, not for the ellipse; no carry: left out.
        let partial = Dispersion.analyze(club: "7i", shots: [shot(0, carry: 150, side: nil), shot(1, carry: nil, side: 2),
                                                             shot(2, carry: 151, side: 1), shot(3, carry: 149, side: -1)])
        XCTAssertEqual(partial.unmeasured, 1)
        XCTAssertEqual(partial.kept, 3)
        XCTAssertNil(partial.ellipse)
        XCTAssertTrue(partial.text.contains("95% ellipse: needs at least 3 kept shots"))
    }

    func testRealExportDispersionAndDistanceTable() throws {
        let real = try SharedData.bytes(SharedData.practice("sessions/fixture_mlm2pro_shotexport_anonymized.csv"))
        _ = try importer.run(ImportRequest(csv: real, sourceName: "real.csv"))
        _ = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv"))
        let query = DispersionQuery(store: store)
        let seven = try query.club("7 iron")
        XCTAssertEqual(seven.kept + seven.mishits + seven.unmeasured, try store.shots(sessionID: 1).filter { $0.club == "7i" }.count + 6)
        XCTAssertNotNil(seven.ellipse)
        // Recomputed here from the kept shots: the mean is theirs.
        let kept = seven.shots.filter { !$0.mishit }
        XCTAssertEqual(seven.carryMean ?? 0, kept.map(\.carry).reduce(0, +) / Double(kept.count), accuracy: 1e-9)
        let one = try query.club("7i", sessionID: 2)
        XCTAssertEqual(one.shots.count, 6)
        let table = try query.distances()
        XCTAssertEqual(table.clubs.map(\.club).first, table.clubs.max { ($0.carryMean ?? 0) < ($1.carryMean ?? 0) }?.club)
        XCTAssertTrue(table.text.hasPrefix("CLUB"), table.text)
        let svg = DispersionChart.svg(seven)
        XCTAssertEqual(svg.components(separatedBy: "class=\"shot\"").count - 1, kept.filter { $0.side != nil }.count)
        XCTAssertTrue(svg.contains("class=\"ellipse\""))
        XCTAssertTrue(DispersionChart.svg(table).contains("class=\"carry\""))
        XCTAssertThrowsError(try query.club("driver")) { XCTAssertTrue("\($0)".hasPrefix("no dr shots (clubs: "), "\($0)") }
        XCTAssertThrowsError(try query.club("7i", sessionID: 9)) { XCTAssertEqual("\($0)", "no session 9; `practice sessions` lists them") }
        XCTAssertThrowsError(try query.club("  ")) { XCTAssertEqual("\($0)", "club needs a club name such as 7i") }
    }
}
