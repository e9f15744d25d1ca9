import XCTest
@testable import GlobeCore

final class TriangulationTests: XCTestCase {
    // MARK: - Oracles on real data

    func testNaturalEarthOracle() throws {
        let text = try SharedData.text(SharedData.naturalEarth)
        let features = try GeoJSONReader.read(text, source: "naturalearth")
        XCTAssertEqual(features.count, 177)
        let report = TriangulationReport(features: features)
        XCTAssertEqual(report.polygons, 287)
        XCTAssertEqual(report.holes, 1)
        XCTAssertEqual(report.vertices, 10_355)
        XCTAssertEqual(report.triangles, 9_783)
        XCTAssertEqual(report.expectedTriangles, 9_783)
        XCTAssertEqual(report.polygonsOffCount, 0)
        XCTAssertEqual(report.invalidPolygons, 0, report.problems.joined(separator: "\n"))
        for row in report.perPolygon {
            XCTAssertEqual(row.triangles, row.vertices + 2 * row.holes - 2, "\(row.feature) part \(row.part)")
            if row.polygonArea >= 1e-6 {
                XCTAssertLessThanOrEqual(abs(row.triangleArea - row.polygonArea) / row.polygonArea, 1e-9, "\(row.feature) part \(row.part)")
            }
        }
        XCTAssertLessThanOrEqual(report.maxRelativeAreaError, 1e-9)
        XCTAssertEqual(report.polygonArea, 21_496.990988, accuracy: 1e-6)
    }

    func testBundledSetHasTheSameShapes() throws {
        let report = try Globe(store: InMemoryGlobeStore()).triangulate()
        XCTAssertEqual(report.features, 250)
        XCTAssertEqual(report.polygons, 287)
        XCTAssertEqual(report.holes, 1)
        XCTAssertEqual(report.triangles, 9_783)
        XCTAssertEqual(report.polygonsOffCount, 0)
        XCTAssertLessThanOrEqual(report.maxRelativeAreaError, 1e-9)
        XCTAssertTrue(report.text.contains("triangles 9783 (n + 2h − 2 = 9783; polygons off: 0)"), report.text)
    }

    func testLesothoHoleIsLeftOpenInSouthAfrica() throws {
        let countries = CountrySet.bundled
        guard let za = countries.country(code: "ZA"), let ls = countries.country(code: "LS") else { return XCTFail("missing ZA/LS") }
        let maseru = LonLat(lon: 27.48, lat: -29.31)
        let mainland = try XCTUnwrap(za.polygons.first { $0.holeCount == 1 })
        XCTAssertEqual(TriangulationReport.triangleArea(mainland, EarClipper().triangulate(mainland)), mainland.area, accuracy: 1e-9)
        XCTAssertFalse(Self.covered(maseru, by: za.polygons), "a South African triangle covers Lesotho")
        XCTAssertTrue(Self.covered(maseru, by: ls.polygons))
        // The hole is Lesotho's own outline.
        XCTAssertEqual(abs(Planar.signedArea(mainland.rings[1])), ls.polygons[0].area, accuracy: 1e-9)
    }

    private static func covered(_ p: LonLat, by polygons: [GeoPolygon]) -> Bool {
        let clipper = EarClipper()
        for polygon in polygons {
            let points = polygon.rings.flatMap { $0 }
            let t = clipper.triangulate(polygon)
            var k = 0
            while k < t.count {
                let a = points[Int(t[k])], b = points[Int(t[k + 1])], c = points[Int(t[k + 2])]
                let d1 = Planar.cross(a, b, p), d2 = Planar.cross(b, c, p), d3 = Planar.cross(c, a, p)
                if (d1 > 0 && d2 > 0 && d3 > 0) || (d1 < 0 && d2 < 0 && d3 < 0) { return true }
                k += 3
            }
        }
        return false
    }

    // MARK: - Shapes

    private func check(_ rings: [[(Double, Double)]], area expectedArea: Double? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let polygon = GeoPolygon(rings: rings.map { $0.map { LonLat(lon: $0.0, lat: $0.1) } })
        let t = EarClipper().triangulate(polygon)
        XCTAssertEqual(t.count % 3, 0, file: file, line: line)
        XCTAssertEqual(t.count / 3, polygon.vertexCount + 2 * polygon.holeCount - 2, "triangle count", file: file, line: line)
        XCTAssertTrue(t.allSatisfy { $0 >= 0 && Int($0) < polygon.vertexCount }, file: file, line: line)
        let area = TriangulationReport.triangleArea(polygon, t)
        let expected = expectedArea ?? polygon.area
        XCTAssertEqual(area, expected, accuracy: max(1e-12, expected * 1e-9), "area", file: file, line: line)
        // Every input vertex is used.
        XCTAssertEqual(Set(t).count, polygon.vertexCount, "every vertex appears", file: file, line: line)
    }

    func testConvexAndConcaveShapes() {
        check([[(0, 0), (4, 0), (4, 4), (0, 4)]], area: 16)
        check([[(0, 0), (0, 4), (4, 4), (4, 0)]], area: 16)  // clockwise outer ring
        // A comb: teeth pointing up.
        var comb: [(Double, Double)] = [(0, 0), (20, 0)]
        for k in stride(from: 9, through: 0, by: -1) {
            let x = Double(2 * k)
            comb += [(x + 2, 10), (x + 1.5, 10), (x + 1, 3), (x + 0.5, 10)]
        }
        comb.append((0, 10))
        check([comb])
    }

    func testHolesAreBridged() {
        check([[(0, 0), (4, 0), (4, 4), (0, 4)], [(1, 1), (1, 2), (2, 2), (2, 1)]], area: 15)
        // Nine square holes in a grid, given counter-clockwise (the wrong way round) on purpose.
        var rings: [[(Double, Double)]] = [[(0, 0), (10, 0), (10, 10), (0, 10)]]
        for i in 0..<3 {
            for j in 0..<3 {
                let x = 1 + 3 * Double(i), y = 1 + 3 * Double(j)
                rings.append([(x, y), (x + 2, y), (x + 2, y + 2), (x, y + 2)])
            }
        }
        check(rings, area: 100 - 9 * 4)
        // A hole of a single point (a Steiner point) and one of two points.
        check([[(0, 0), (4, 0), (4, 4), (0, 4)], [(2, 2)]], area: 16)
        check([[(0, 0), (4, 0), (4, 4), (0, 4)], [(1, 1), (3, 2)]], area: 16)
        // Two holes whose leftmost points coincide (ordered by the slope of their next edge).
        check([[(0, 0), (10, 0), (10, 10), (0, 10)], [(1, 5), (3, 4), (3, 2)], [(1, 5), (2, 8), (3, 7)]], area: 100 - 2 - 2)
        // A hole touching the outer ring at a vertex.
        check([[(0, 0), (4, 0), (4, 4), (0, 4)], [(0, 0), (2, 1), (1, 2)]], area: 16 - 1.5)
    }

    func testDuplicatePointsKeepTheCount() {
        check([[(0, 0), (4, 0), (4, 0), (4, 4), (0, 4)]], area: 16)
        check([[(0, 0), (0, 0), (0, 0), (4, 0), (4, 4), (4, 4), (0, 4)]], area: 16)
        // The closing point repeated inside an open ring.
        check([[(0, 0), (4, 0), (4, 4), (0, 4), (0, 0)]], area: 16)
    }

    func testCollinearRunsKeepTheCount() {
        var ring: [(Double, Double)] = []
        for x in 0..<10 { ring.append((Double(x), 0)) }
        for y in 0..<2 { ring.append((10, Double(y))) }
        for x in stride(from: 10, to: 0, by: -1) { ring.append((Double(x), 2)) }
        for y in stride(from: 2, to: 0, by: -1) { ring.append((0, Double(y))) }
        check([ring], area: 20)
        // A spike: out and back along the same line.
        check([[(0, 0), (4, 0), (4, 2), (6, 2), (4, 2), (4, 4), (0, 4)]], area: 16)
    }

    func testDegenerateInputDoesNotCrash() {
        check([[(0, 0), (1, 1), (2, 2), (3, 3)]], area: 0)  // all on one line
        let bowTie = GeoPolygon(rings: [[LonLat(lon: 0, lat: 0), LonLat(lon: 2, lat: 2), LonLat(lon: 2, lat: 0), LonLat(lon: 0, lat: 2)]])
        // Crossing edges: cut as well as possible, never more than the two lobes' area.
        let cut = EarClipper().triangulate(bowTie)
        XCTAssertTrue((1...2).contains(cut.count / 3), "\(cut)")
        XCTAssertLessThanOrEqual(TriangulationReport.triangleArea(bowTie, cut), 2 + 1e-12)
        XCTAssertEqual(EarClipper().triangulate(GeoPolygon(rings: [[LonLat(lon: 0, lat: 0), LonLat(lon: 1, lat: 0)]])), [])
        XCTAssertEqual(EarClipper().triangulate(GeoPolygon(rings: [])), [])
    }

    func testCrossingEdgesAreReportedWithThePlace() throws {
        let geojson = """
            {"type": "FeatureCollection", "features": [
             {"type": "Feature", "id": "BOW", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]]}},
             {"type": "Feature", "id": "OK", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[0, 0], [2, 1], [1, 2], [0, 0]]]}}]}
            """
        let report = try Globe(store: InMemoryGlobeStore()).triangulate(geojson: geojson, source: "bow.geojson")
        XCTAssertEqual(report.invalidPolygons, 1, "a hole touching the outer ring at a vertex is valid")
        XCTAssertEqual(report.problems, ["BOW part 0 is not a valid polygon: outer ring edge 0 crosses outer ring edge 2 at (1.000000, 1.000000)"])
        XCTAssertGreaterThan(report.perPolygon[0].triangles, 0, "still triangulated")
        XCTAssertTrue(report.text.contains("not valid (edges cross; triangulated as well as possible): 1 polygon\n  BOW part 0"), report.text)
        XCTAssertEqual(report.summary.perPolygon, [])
        XCTAssertEqual(report.summary.problems, report.problems)
        XCTAssertEqual(PolygonValidity.firstCrossing(GeoPolygon(rings: [[LonLat(lon: 0, lat: 0), LonLat(lon: 4, lat: 0), LonLat(lon: 4, lat: 4)],
                                                                       [LonLat(lon: 3, lat: 1), LonLat(lon: 5, lat: 1), LonLat(lon: 3, lat: 2)]]))?.text,
                       "outer ring edge 1 crosses hole 1 edge 0 at (4.000000, 1.000000)")
    }

    func testBigRingsUseTheZOrderPath() {
        // 2,000 vertices alternating between two radii: a spiky, very concave star.
        var star: [(Double, Double)] = []
        let n = 2000
        for k in 0..<n {
            let t = 2 * Double.pi * Double(k) / Double(n)
            let r = k % 2 == 0 ? 10.0 : 6.0 + Double(k % 7) * 0.3
            star.append((r * cos(t), r * sin(t)))
        }
        XCTAssertGreaterThan(star.count, EarClipper.hashingThreshold)
        var hole: [(Double, Double)] = []
        for k in 0..<40 {
            let t = -2 * Double.pi * Double(k) / 40
            hole.append((2 * cos(t), 2 * sin(t)))
        }
        check([star])
        check([star, hole])
    }

    func testRandomStarShapedPolygons() {
        var random = SplitMix64(seed: 7)
        let clipper = EarClipper()
        for trial in 0..<150 {
            let n = 3 + random.below(250)
            var angles = (0..<n).map { _ in Double(random.below(1_000_000)) / 1_000_000 * 2 * .pi }
            angles.sort()
            var outer: Ring = []
            for (k, t) in angles.enumerated() where k == 0 || t != angles[k - 1] {
                let r = 5 + Double(random.below(1000)) / 100
                outer.append(LonLat(lon: r * cos(t), lat: r * sin(t)))
            }
            var rings = [outer]
            if trial % 3 == 0 {
                let m = 3 + random.below(12)
                rings.append((0..<m).map { k in
                    let t = -2 * Double.pi * Double(k) / Double(m)
                    return LonLat(lon: 2 * cos(t), lat: 2 * sin(t))
                })
            }
            let polygon = GeoPolygon(rings: rings)
            let t = clipper.triangulate(polygon)
            XCTAssertEqual(t.count / 3, polygon.vertexCount + 2 * polygon.holeCount - 2, "trial \(trial)")
            let area = TriangulationReport.triangleArea(polygon, t)
            XCTAssertEqual(area, polygon.area, accuracy: polygon.area * 1e-9, "trial \(trial)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
