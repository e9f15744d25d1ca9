import XCTest
@testable import GlobeCore

final class TriangulationTests: XCTestCase {
    func testNaturalEarthOracle() throws {
        let text = try SharedData.text(SharedData.naturalEarth)
        let features = try GeoJSONReader.read(text, source: "naturalearth")
        XCTAssertEqual(features.count, 177)
        let report = TriangulationReport(features: features)
        print(report.text)
        XCTAssertEqual(report.polygons, 287)
        XCTAssertEqual(report.holes, 1)
        XCTAssertEqual(report.vertices, 10_355)
        XCTAssertEqual(report.triangles, 9_783)
        XCTAssertEqual(report.polygonsOffCount, 0)
        XCTAssertLessThanOrEqual(report.maxRelativeAreaError, 1e-9)
    }
}
