// mapbox/earcut's own fixture suite, read in place from ../shared/data/globe/earcut-fixtures/
// (never copied), scored as its README says: deviation = |polygon area − Σ |triangle areas|| /
// polygon area, within earcut's expected bound (1e-9 where earcut expects 0), at rotation 0, at
// the right angles earcut tests, and at odd angles earcut does not. On top of the area score,
// valid fixtures get a coverage check: random points inside the polygon lie in exactly one
// triangle, points outside it (or in a hole) in none.

import Foundation
import XCTest
@testable import GlobeCore

final class EarcutFixtureTests: XCTestCase {
    static var directory: URL { SharedData.repoRoot.appendingPathComponent("../shared/data/globe/earcut-fixtures") }

    struct Expected {
        var triangles: [String: Int]
        var errors: [String: Double]
        var errorsWithRotation: [String: Double]

        /// earcut's test: at a rotation, the rotation bound if listed, else the plain one, else 0.
        func bound(_ id: String, rotated: Bool) -> Double {
            (rotated ? errorsWithRotation[id] : nil) ?? errors[id] ?? 0
        }
    }

    /// mapbox earcut 2.1.0's own deviation on the self-crossing fixtures whose published bound it
    /// exceeds itself once turned, at 17°, 33.3° and 61° (Benchmarks/globe/earcut_at_test_placements.py).
    /// There the bound is earcut's figure at that rotation (issue 31: "within earcut's figure at
    /// that rotation").
    static let earcutAtOddAngles: [String: [Double: Double]] = [
        "bad-hole": [17: 0.0418, 33.3: 0.0418, 61: 0.0266],
        "issue142": [17: 0.087, 33.3: 0.128, 61: 8.12e-16],
        "water": [17: 0.000811, 33.3: 0.064, 61: 0.033],
        "water-huge": [17: 0.0261, 33.3: 0.0508, 61: 0.0239],
        "water-huge2": [17: 0.00216, 33.3: 0.00635, 61: 0.0297],
    ]

    struct Fixture {
        var id: String
        var rings: [[(Double, Double)]]
    }

    static func load() throws -> (Expected, [Fixture]) {
        let expectedText = try SharedData.text(directory.appendingPathComponent("_expected.json"))
        guard let root = try JSONSerialization.jsonObject(with: Data(expectedText.utf8)) as? [String: Any],
              let triangles = root["triangles"] as? [String: Int] else {
            throw XCTSkip("_expected.json is not earcut's expected.json")
        }
        let expected = Expected(triangles: triangles, errors: root["errors"] as? [String: Double] ?? [:],
                                errorsWithRotation: root["errors-with-rotation"] as? [String: Double] ?? [:])
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.standardizedFileURL.path)
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix("_") }.sorted()
        var fixtures: [Fixture] = []
        for name in names {
            let text = try SharedData.text(directory.appendingPathComponent(name))
            guard let rings = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[[Double]]] else {
                XCTFail("\(name): not an array of rings of [x, y]")
                continue
            }
            fixtures.append(Fixture(id: String(name.dropLast(5)), rings: rings.map { $0.map { ($0[0], $0[1]) } }))
        }
        return (expected, fixtures)
    }

    // MARK: - Scoring

    struct Score {
        var triangles: Int
        var nonDegenerate: Int
        var countFormula: Int
        var polygonArea: Double
        var triangleArea: Double
        var deviation: Double
        var indicesInRange: Bool
        /// Sample points covered by the wrong number of triangles, with what was expected.
        var coverageErrors: [(LonLat, expected: Int, got: Int)]
    }

    /// Rotates about the origin by `degrees`; right angles are exact (as earcut's test does them).
    static func rotate(_ rings: [[(Double, Double)]], degrees: Double) -> GeoPolygon {
        let (c, s): (Double, Double)
        switch degrees {
        case 0: (c, s) = (1, 0)
        case 90: (c, s) = (0, 1)
        case 180: (c, s) = (-1, 0)
        case 270: (c, s) = (0, -1)
        default: (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        }
        return GeoPolygon(rings: rings.map { ring in ring.map { LonLat(lon: c * $0.0 - s * $0.1, lat: s * $0.0 + c * $0.1) } })
    }

    static func score(_ polygon: GeoPolygon, samples: Int, seed: UInt64) -> Score {
        let t = EarClipper().triangulate(polygon)
        let points = polygon.rings.flatMap { $0 }
        let inRange = t.count % 3 == 0 && t.allSatisfy { $0 >= 0 && Int($0) < points.count }
        let area = polygon.area
        let triangleArea = inRange ? TriangulationReport.triangleArea(polygon, t) : .infinity
        let deviation = area == 0 && triangleArea == 0 ? 0 : abs(triangleArea - area) / area
        var nonDegenerate = 0
        var boxes: [BoundingBox] = []
        if inRange {
            var k = 0
            while k < t.count {
                let a = points[Int(t[k])], b = points[Int(t[k + 1])], c = points[Int(t[k + 2])]
                if Planar.cross(a, b, c) != 0 { nonDegenerate += 1 }
                boxes.append(BoundingBox(covering: [a, b, c]))
                k += 3
            }
        }
        var errors: [(LonLat, expected: Int, got: Int)] = []
        if samples > 0 && inRange {
            var random = SplitMix64(seed: seed)
            let box = polygon.bounds
            for _ in 0..<samples {
                let p = LonLat(lon: box.minLon + box.width * Double(random.below(1 << 30)) / Double(1 << 30),
                               lat: box.minLat + box.height * Double(random.below(1 << 30)) / Double(1 << 30))
                let expected = polygon.contains(p) ? 1 : 0
                var got = 0
                for (k, b) in boxes.enumerated() where b.contains(p) {
                    let a = points[Int(t[3 * k])], q = points[Int(t[3 * k + 1])], c = points[Int(t[3 * k + 2])]
                    let d1 = Planar.cross(a, q, p), d2 = Planar.cross(q, c, p), d3 = Planar.cross(c, a, p)
                    if (d1 > 0 && d2 > 0 && d3 > 0) || (d1 < 0 && d2 < 0 && d3 < 0) { got += 1 }
                }
                if got != expected { errors.append((p, expected, got)) }
            }
        }
        return Score(triangles: t.count / 3, nonDegenerate: nonDegenerate,
                     countFormula: polygon.vertexCount + 2 * polygon.holeCount - 2,
                     polygonArea: area, triangleArea: triangleArea, deviation: deviation, indicesInRange: inRange,
                     coverageErrors: errors)
    }

    /// Scores every fixture at `rotations`; returns failures keyed "id@rotation".
    static func run(rotations: [Double], samples: Int) throws -> (failures: [String: [String]], scored: Int) {
        let (expected, fixtures) = try load()
        var failures: [String: [String]] = [:]
        var scored = 0
        for fixture in fixtures {
            let earcutTriangles = expected.triangles[fixture.id]
            for rotation in rotations {
                let polygon = rotate(fixture.rings, degrees: rotation)
                let published = expected.bound(fixture.id, rotated: rotation != 0)
                let bound = max(published, earcutAtOddAngles[fixture.id]?[rotation] ?? 0)
                // Where earcut allows no deviation the polygon is valid: check coverage too.
                let s = score(polygon, samples: bound == 0 ? samples : 0, seed: UInt64(fixture.id.utf8.count) &* 7919 &+ UInt64(rotation * 10))
                let key = "\(fixture.id)@\(rotation)"
                var problems: [String] = []
                scored += 1
                if !s.indicesInRange {
                    problems.append("indices out of range")
                } else if let earcutTriangles, earcutTriangles > 0 {
                    // earcut drops duplicate and collinear points; the globe keeps them as zero-area
                    // triangles, so a valid polygon (earcut's bound 0) gets exactly n + 2h − 2.
                    if bound == 0 && s.triangles != s.countFormula {
                        problems.append("\(s.triangles) triangles, n + 2h − 2 = \(s.countFormula)")
                    }
                    let allowed = max(1e-9, bound)
                    if !(s.deviation <= allowed) {
                        problems.append("deviation \(s.deviation) > \(allowed) (polygon \(s.polygonArea), triangles \(s.triangleArea))")
                    }
                } else {
                    // Nothing to fill (earcut expects no triangle): whatever comes out has no area.
                    let scale = max(1, polygon.bounds.width * polygon.bounds.height)
                    if s.triangleArea > 1e-9 * scale {
                        problems.append("triangle area \(s.triangleArea) where earcut finds nothing to fill")
                    }
                }
                if let first = s.coverageErrors.first {
                    problems.append("\(s.coverageErrors.count) of \(samples) sample points covered wrongly, e.g. (\(first.0.lon), \(first.0.lat)) in \(first.got) triangles, expected \(first.expected)")
                }
                if !problems.isEmpty { failures[key] = problems }
            }
        }
        return (failures, scored)
    }

    /// Fails on every failure not in `known`, and on every `known` entry that now passes (so the
    /// list only shrinks); prints the known ones still failing.
    func check(_ failures: [String: [String]], known: Set<String>, file: StaticString = #filePath, line: UInt = #line) {
        let unexpected = failures.keys.filter { !known.contains($0) }.sorted()
        XCTAssertTrue(unexpected.isEmpty, "\(unexpected.count) unexpected failures:\n"
            + unexpected.map { "\($0): " + (failures[$0] ?? []).joined(separator: "; ") }.joined(separator: "\n"), file: file, line: line)
        let fixed = known.filter { failures[$0] == nil }.sorted()
        XCTAssertTrue(fixed.isEmpty, "now passing, take off the known list: \(fixed)", file: file, line: line)
        for key in known.sorted() where failures[key] != nil {
            print("known failure \(key): " + (failures[key] ?? []).joined(separator: "; "))
        }
    }

    // MARK: - Tests

    /// Fixtures the globe gets wrong, listed by name so that the list can only shrink: none. The
    /// odd angles used to fail water2 (touching holes bridged along an edge, which the rotation
    /// turned into tiny crossings), bad-hole (a hole poking out of the outer ring, whose leftmost
    /// point then saw no edge and was left out) and water-huge (a self-crossing outer ring, now held
    /// to earcut's own deviation at that angle: the right-angle retries that met the published 0.005
    /// made the answer depend on the polygon's orientation, which issue 31 rules out).
    /// (earcut itself, mapbox_earcut 2.1.0, fails bad-hole, issue131, issue147, water, water2,
    /// water4 and water-huge at some of these odd angles.)
    static let knownAtZero: Set<String> = []
    static let knownAtRightAngles: Set<String> = []
    static let knownAtOddAngles: Set<String> = []

    func testEveryFixtureAtRotationZero() throws {
        let (failures, scored) = try Self.run(rotations: [0], samples: 100)
        XCTAssertGreaterThanOrEqual(scored, 59, "earcut's suite has 59 fixtures")
        check(failures, known: Self.knownAtZero)
    }

    func testEveryFixtureAtRightAngles() throws {
        let (failures, _) = try Self.run(rotations: [90, 180, 270], samples: 40)
        check(failures, known: Self.knownAtRightAngles)
    }

    func testEveryFixtureAtOddRotations() throws {
        let (failures, _) = try Self.run(rotations: [17, 33.3, 61], samples: 40)
        check(failures, known: Self.knownAtOddAngles)
    }
}
