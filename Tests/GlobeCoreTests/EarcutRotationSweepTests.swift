// Issue 31, item 4: every earcut fixture at a sample of whole degrees (the benchmark runs every
// one) and at random angles and scales, turned and scaled into longitude/latitude as a country
// would be. Read in place from ../shared/data/globe/earcut-fixtures/ (never copied). Valid polygons must give n + 2h − 2
// triangles whose areas add up to the polygon's (earcut's bound, 1e-9 where earcut expects 0);
// self-crossing ones (earcut's "errors" cases) must stay within earcut's published deviation for a
// rotated fixture, or mapbox earcut's own deviation at that very placement where that is larger.
// (The benchmark, Benchmarks/globe/rotation_sweep.py, runs every whole degree and 300 random
// placements the same way, with earcut in the same run.)

import Foundation
import XCTest
@testable import GlobeCore

final class EarcutRotationSweepTests: XCTestCase {
    /// One placement of a fixture: turned by `degrees` about the origin (right angles exact), then,
    /// when `extent` is given, scaled uniformly so that its larger side spans `extent` degrees and
    /// moved so that its box is centred on (`lon`, `lat`).
    struct Placement: CustomStringConvertible {
        var degrees: Double
        var extent: Double?
        var lon = 0.0
        var lat = 0.0

        var description: String {
            guard let extent else { return "\(degrees)°" }
            return "\(degrees)° scaled to \(extent)° at (\(lon), \(lat))"
        }

        func apply(_ rings: [[(Double, Double)]]) -> GeoPolygon {
            let (c, s): (Double, Double)
            switch degrees {
            case 0: (c, s) = (1, 0)
            case 90: (c, s) = (0, 1)
            case 180: (c, s) = (-1, 0)
            case 270: (c, s) = (0, -1)
            default: (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
            }
            var turned = rings.map { ring in ring.map { (c * $0.0 - s * $0.1, s * $0.0 + c * $0.1) } }
            if let extent {
                let all = turned.flatMap { $0 }
                let x0 = all.map(\.0).min() ?? 0, x1 = all.map(\.0).max() ?? 0
                let y0 = all.map(\.1).min() ?? 0, y1 = all.map(\.1).max() ?? 0
                let size = max(x1 - x0, y1 - y0)
                let k = size > 0 ? extent / size : 1
                let cx = (x0 + x1) / 2, cy = (y0 + y1) / 2
                turned = turned.map { ring in ring.map { (lon + ($0.0 - cx) * k, lat + ($0.1 - cy) * k) } }
            }
            return GeoPolygon(rings: turned.map { ring in ring.map { LonLat(lon: $0.0, lat: $0.1) } })
        }
    }

    /// Every `step`-th whole degree (offset so that the right angles and odd angles both occur),
    /// plain and scaled to 20° around (10.5, 45.25); then `random` placements with angles uniform
    /// over the circle, extents log-uniform from 0.001° to 300°, and centres that keep the box
    /// within longitude ±180 and latitude ±90.
    static func placements(step: Int, random: Int, seed: UInt64 = 31) -> [Placement] {
        var list: [Placement] = []
        for d in Set(Array(stride(from: 0, to: 360, by: step)) + Array(stride(from: 7, to: 360, by: step))).sorted() {
            list.append(Placement(degrees: Double(d)))
            list.append(Placement(degrees: Double(d), extent: 20, lon: 10.5, lat: 45.25))
        }
        var generator = SplitMix64(seed: seed)
        func uniform() -> Double { Double(generator.next() >> 11) / Double(UInt64(1) << 53) }
        for _ in 0..<random {
            let degrees = uniform() * 360
            let extent = 0.001 * pow(300_000, uniform())
            let halfLon = min(extent, 359.9) / 2, halfLat = min(extent, 179.9) / 2
            let lon = -180 + halfLon + uniform() * max(0, 360 - 2 * halfLon)
            let lat = -90 + halfLat + uniform() * max(0, 180 - 2 * halfLat)
            list.append(Placement(degrees: degrees, extent: min(extent, 179.9), lon: lon, lat: lat))
        }
        return list
    }

    /// mapbox earcut 2.1.0's own deviation on the self-crossing fixtures (earcut's "errors" cases)
    /// at each placement of this sample (its index in `placements(step: 30, random: 20)`), printed by
    /// `Benchmarks/globe/earcut_at_test_placements.py --per-placement` (same floating-point
    /// placement, 6 significant digits): the bound there is the larger of earcut's published figure
    /// and earcut's own deviation at that very placement (issue 31: "within earcut's figure at that
    /// rotation"). The benchmark (rotation_sweep.py) does the same over the whole sweep.
    static let earcutAtSample: [String: [Int: Double]] = [
        "bad-hole": [0: 0.0186741, 1: 0.0186741, 2: 0.0417834, 3: 0.0417834, 4: 0.0417834, 5: 0.0417834, 6: 0.0417834, 7: 0.0417834, 8: 0.0266106, 9: 0.0266106, 10: 0.0266106, 11: 0.0266106, 12: 0.0266106, 13: 0.0266106, 14: 0.0266106, 15: 0.0266106, 16: 0.0256769, 17: 0.0256769, 18: 0.0256769, 19: 0.0256769, 20: 0.0256769, 21: 0.0256769, 22: 0.0266106, 23: 0.0266106, 24: 0.0266106, 25: 0.0266106, 26: 0.0266106, 27: 0.0266106, 28: 0.0266106, 29: 0.0266106, 30: 0.0256769, 31: 0.0256769, 32: 0.0256769, 33: 0.0256769, 34: 0.0266106, 35: 0.0266106, 36: 0.0266106, 37: 0.0266106, 38: 0.0266106, 39: 0.0266106, 40: 0.0266106, 41: 0.0266106, 42: 0.0266106, 43: 0.0266106, 44: 0.0186741, 45: 0.0186741, 46: 0.0186741, 47: 0.0186741, 48: 0.0266106, 49: 0.0256769, 50: 0.0266106, 51: 0.0256769, 52: 0.0417834, 53: 0.0266106, 54: 0.0266106, 55: 0.0186741, 56: 0.0256769, 57: 0.0266106, 58: 0.0256769, 59: 0.0266106, 60: 0.0266106, 61: 0.0266106, 62: 0.0266106, 63: 0.0256769, 64: 0.0256769, 65: 0.0186741, 66: 0.0417834, 67: 0.0256769],
        "issue142": [0: 0.12755, 1: 0.0870092, 2: 2.43554e-15, 3: 3.10418e-16, 4: 0.0870092, 5: 0.0870092, 6: 2.43554e-15, 7: 6.78781e-15, 8: 8.11846e-16, 9: 2.84897e-15, 10: 8.11846e-16, 11: 0.0870092, 12: 2.43554e-15, 13: 0.0870092, 14: 2.23258e-15, 15: 1.08646e-15, 16: 0.0870092, 17: 3.64326e-15, 18: 0.0870092, 19: 7.14506e-16, 20: 8.11846e-16, 21: 1.50828e-15, 22: 8.11846e-16, 23: 1.07583e-15, 24: 8.11846e-16, 25: 0.0870092, 26: 0.0870092, 27: 9.31254e-16, 28: 2.43554e-15, 29: 0.0870092, 30: 1.01481e-15, 31: 1.42901e-15, 32: 1.01481e-15, 33: 2.68138e-15, 34: 0.0870092, 35: 0, 36: 0.12755, 37: 0.0870092, 38: 1.01481e-15, 39: 0.0870092, 40: 2.43554e-15, 41: 5.89861e-15, 42: 8.11846e-16, 43: 3.57253e-16, 44: 1.01481e-15, 45: 1.00552e-15, 46: 8.11846e-16, 47: 0.0870092, 48: 1.16096e-15, 49: 2.07091e-13, 50: 2.08776e-15, 51: 4.01064e-12, 52: 0.0870092, 53: 4.58206e-15, 54: 7.09012e-13, 55: 5.26015e-12, 56: 3.14081e-16, 57: 1.52461e-14, 58: 0.0870092, 59: 6.97508e-16, 60: 2.75051e-13, 61: 0.0870092, 62: 1.67661e-12, 63: 1.648e-15, 64: 3.87461e-13, 65: 0.0870092, 66: 7.93382e-13, 67: 2.45974e-15],
        "water": [0: 0.000811109, 4: 0.00463576, 8: 0.0029593, 12: 0.000811109, 16: 0.00463576, 20: 0.00219136, 24: 0.000811109, 28: 0.00457584, 32: 0.0685592, 36: 0.000811109, 40: 0.00457584, 44: 0.0685592, 48: 0.00457584, 52: 0.0176947, 56: 0.00461276, 60: 0.0640927, 64: 0.001019],
        "water-huge": [0: 0.00174333, 4: 0.0172776, 8: 0.0196404, 12: 0.00147734, 16: 0.0970714, 20: 0.0183989, 24: 0.00282713, 28: 0.0148158, 32: 0.202681, 36: 0.00499264, 40: 0.0186272, 44: 0.232432, 48: 0.00888925, 52: 0.0218317, 56: 0.114775, 60: 0.00501975, 64: 0.123256],
        "water-huge2": [0: 0.00224619, 4: 0.00648906, 8: 0.00691058, 12: 0.00129153, 16: 0.0432651, 20: 0.00597212, 24: 0.0281367, 28: 0.00841857, 32: 0.00808766, 36: 0.00261145, 40: 0.00633668, 44: 0.0345258, 48: 0.00284944, 52: 0.00453148, 56: 0.0431819, 60: 0.0289006, 64: 0.0405234],
    ]

    func testEveryFixtureAtSampledRotationsAndPlacements() throws {
        let (expected, fixtures) = try EarcutFixtureTests.load()
        // A sample of the dense sweep (every whole degree and 300 random placements, which
        // `clubhouse-bench globe-sweep` and Benchmarks/globe/rotation_sweep.py run): every 30th
        // degree and every 30th from 7°, plain and scaled, and 20 random placements; fixtures of
        // more than 1,000 vertices (the water ones) at every 4th of those.
        let placements = Self.placements(step: 30, random: 20)
        let clipper = EarClipper()
        var failures: [String] = []
        var failingFixtures: Set<String> = []
        var scored = 0
        let start = Date()
        for fixture in fixtures {
            let earcutTriangles = expected.triangles[fixture.id] ?? 0
            let large = fixture.rings.reduce(0) { $0 + $1.count } > 1000
            for (index, placement) in placements.enumerated() where !large || index % 4 == 0 {
                let polygon = placement.apply(fixture.rings)
                let rotated = placement.degrees != 0 || placement.extent != nil
                let earcutThere = Self.earcutAtSample[fixture.id].map { $0[index] ?? 0 } ?? 0
                let bound = max(expected.bound(fixture.id, rotated: rotated), earcutThere)
                let t = clipper.triangulate(polygon)
                scored += 1
                let n = polygon.vertexCount
                var problems: [String] = []
                guard t.count % 3 == 0, t.allSatisfy({ $0 >= 0 && Int($0) < n }) else {
                    failures.append("\(fixture.id) at \(placement): indices out of range")
                    failingFixtures.insert(fixture.id)
                    continue
                }
                let area = polygon.area
                let triangleArea = TriangulationReport.triangleArea(polygon, t)
                if earcutTriangles > 0 {
                    let deviation = abs(triangleArea - area) / area
                    if !(deviation <= max(1e-9, bound)) { problems.append("deviation \(deviation) > \(max(1e-9, bound))") }
                    let formula = n + 2 * polygon.holeCount - 2
                    if bound == 0 && t.count / 3 != formula { problems.append("\(t.count / 3) triangles, n + 2h − 2 = \(formula)") }
                } else {
                    // earcut finds nothing to fill: whatever comes out covers no area.
                    let box = polygon.bounds
                    if triangleArea > 1e-9 * max(box.width * box.height, .leastNormalMagnitude) {
                        problems.append("triangle area \(triangleArea) where earcut finds nothing to fill")
                    }
                }
                if !problems.isEmpty {
                    failures.append("\(fixture.id) at \(placement): " + problems.joined(separator: "; "))
                    failingFixtures.insert(fixture.id)
                }
            }
        }
        let seconds = Date().timeIntervalSince(start)
        print("rotation sweep: \(scored) triangulations of \(fixtures.count) fixtures in \(String(format: "%.1f", seconds)) s")
        XCTAssertGreaterThanOrEqual(fixtures.count, 59, "earcut's suite has 59 fixtures")
        XCTAssertTrue(failures.isEmpty, "\(failures.count) failures in \(failingFixtures.count) fixtures (\(failingFixtures.sorted())):\n"
            + failures.prefix(40).joined(separator: "\n"))
    }
    /// The placements of the dense sweep (`clubhouse-bench globe-sweep` numbering) where the exact
    /// passes alone cut the self-crossing water fixtures further from the polygon's area than mapbox
    /// earcut does there (the 12 failures of the 2026-11-27 sweep include these five; 327 and 486
    /// by 2.9× and 1.5× the allowed figure). Earcut's deviation at each, from earcut.hpp (3.x, the code behind the
    /// mapbox_earcut 2.1.0 peer; the peer gives the same to its printed digits) on the same bits.
    static let placementsWhereEarcutCutCloser: [(fixture: String, placement: Placement, earcut: Double)] = [
        ("water-huge", Placement(degrees: 20), 0.02323703475),
        ("water-huge", Placement(degrees: 327), 0.003385452369),
        ("water-huge", Placement(degrees: 126, extent: 20, lon: 10.5, lat: 45.25), 0.0007914664451),
        ("water-huge", Placement(degrees: 68.84692304000201, extent: 1.402575636543153, lon: 115.42566137712964, lat: 45.77185119961494),
         0.006317410696),
        ("water-huge2", Placement(degrees: 245), 0.04814417377),
    ]

    /// Issue 31: "where a polygon is self-crossing the deviation stays within earcut's figure at
    /// that rotation" — at the placements where that failed before earcut's own order was a candidate.
    func testSelfCrossingFixturesWithinEarcutsFigureWhereTheExactCutsLost() throws {
        let (expected, fixtures) = try EarcutFixtureTests.load()
        let clipper = EarClipper()
        for (id, placement, earcut) in Self.placementsWhereEarcutCutCloser {
            let fixture = try XCTUnwrap(fixtures.first { $0.id == id }, "\(id) is missing from the fixtures")
            let polygon = placement.apply(fixture.rings)
            let t = clipper.triangulate(polygon)
            XCTAssertTrue(t.count % 3 == 0 && t.allSatisfy { $0 >= 0 && Int($0) < polygon.vertexCount }, "\(id) at \(placement)")
            let deviation = abs(TriangulationReport.triangleArea(polygon, t) - polygon.area) / polygon.area
            // The two sums add the same triangles in another order: a millionth of slack.
            let bound = max(expected.bound(id, rotated: true), earcut) * (1 + 1e-6)
            XCTAssertLessThanOrEqual(deviation, bound, "\(id) at \(placement): earcut \(earcut)")
        }
    }
}
