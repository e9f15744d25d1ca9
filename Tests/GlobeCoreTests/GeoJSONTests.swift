import ClubhouseJSON
import XCTest
@testable import GlobeCore

final class GeoJSONTests: XCTestCase {
    private func error(_ text: String) -> GeoJSONError? {
        do {
            _ = try GeoJSONReader.read(text, source: "t.geojson")
            return nil
        } catch {
            return error
        }
    }

    func testReadsFeatureCollectionWithPolygonMultiPolygonAndPoint() throws {
        let text = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "id": "AA", "properties": {"name": "Square"},
           "geometry": {"type": "Polygon", "coordinates": [[[0,0],[4,0],[4,4],[0,4],[0,0]], [[1,1],[1,2],[2,2],[2,1],[1,1]]]}},
          {"type": "Feature", "id": 7, "properties": null,
           "geometry": {"type": "MultiPolygon", "coordinates": [[[[10,10],[11,10],[11,11],[10,10]]], [[[20,20],[21,20],[21,21],[20,20]]]]}},
          {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [12.45, 41.9, 30]}},
          {"type": "Feature", "properties": {}, "geometry": null}
        ]}
        """
        let features = try GeoJSONReader.read(text)
        XCTAssertEqual(features.count, 4)
        XCTAssertEqual(features[0].id, "AA")
        XCTAssertEqual(features[0].string("name"), "Square")
        guard case .polygon(let square)? = features[0].geometry else { return XCTFail("expected a polygon") }
        XCTAssertEqual(square.rings.count, 2)
        XCTAssertEqual(square.rings[0].count, 4, "the closing position is dropped")
        XCTAssertEqual(square.area, 15)
        XCTAssertFalse(square.contains(LonLat(lon: 1.5, lat: 1.5)), "inside the hole")
        XCTAssertTrue(square.contains(LonLat(lon: 3, lat: 3)))
        XCTAssertEqual(features[1].id, "7", "numeric ids keep their lexeme")
        XCTAssertEqual(features[1].geometry?.polygons.count, 2)
        XCTAssertEqual(features[2].geometry, .point(LonLat(lon: 12.45, lat: 41.9)))
        XCTAssertNil(features[3].geometry)
    }

    func testBareGeometriesAndSingleFeatures() throws {
        XCTAssertEqual(try GeoJSONReader.read(#"{"type":"Point","coordinates":[1,2]}"#).first?.geometry, .point(LonLat(lon: 1, lat: 2)))
        let feature = try GeoJSONReader.read(#"{"type":"Feature","id":"X","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,1],[0,0]]]}}"#)
        XCTAssertEqual(feature.count, 1)
        XCTAssertEqual(feature[0].geometry?.polygons.first?.area, 0.5)
    }

    func testMalformedJSONReportsLineAndColumn() {
        let e = error("{\"type\": \"FeatureCollection\",\n \"features\": [1, 2,]}")
        XCTAssertEqual(e?.location.line, 2)
        XCTAssertEqual(e?.description.hasPrefix("t.geojson:2:"), true)
        XCTAssertEqual(e?.message.hasPrefix("malformed JSON: "), true, e?.message ?? "")
    }

    func testShapeErrorsPointAtTheOffendingValue() {
        let cases: [(String, Int, Int, String)] = [
            ("[1, 2]", 1, 1, "expected a GeoJSON object (FeatureCollection, Feature or geometry), found an array"),
            ("{\"features\": []}", 1, 1,
             "missing \"type\" member; a GeoJSON object needs one of FeatureCollection, Feature, Polygon, MultiPolygon, Point"),
            ("{\"type\": \"FeatureCollection\",\n  \"features\": {}}", 2, 15, "\"features\" must be an array, found an object"),
            ("{\"type\": \"FeatureCollection\"}", 1, 1, "FeatureCollection has no \"features\" member; add \"features\": [ … ]"),
            ("{\"type\": \"FeatureCollection\", \"features\": [\n  {\"type\": \"Feature\", \"properties\": [], \"geometry\": null}]}", 2, 37,
             "\"properties\" must be an object or null, found an array"),
            ("{\"type\": \"Feature\", \"properties\": {}}", 1, 1,
             "Feature has no \"geometry\" member; add one (null if the feature has no shape)"),
            ("{\"type\": \"LineString\", \"coordinates\": [[0,0],[1,1]]}", 1, 10,
             "unsupported geometry type \"LineString\"; countries must be Polygon, MultiPolygon or Point"),
            ("{\"type\": \"Polygn\", \"coordinates\": []}", 1, 10, "unknown geometry type \"Polygn\"; use Polygon, MultiPolygon or Point"),
            ("{\"type\": \"Polygon\", \"coordinates\": [\n  [[0,0],[1,0],[0,1]]\n]}", 2, 3,
             "a linear ring needs at least 4 positions (3 corners and the first repeated), found 3"),
            ("{\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1,0],[0,1],\n [0,2]]]}", 2, 2,
             "linear ring is not closed: it starts at [0.0, 0.0] but ends at [0.0, 2.0]; repeat the first position at the end"),
            ("{\"type\": \"Polygon\", \"coordinates\": [[[0,0],[181.5,0],[0,1],[0,0]]]}", 1, 45,
             "longitude 181.5 is outside [-180, 180]; coordinates are [longitude, latitude] in degrees"),
            ("{\"type\": \"Point\", \"coordinates\": [10, -91]}", 1, 39,
             "latitude -91 is outside [-90, 90]; coordinates are [longitude, latitude] in degrees"),
            ("{\"type\": \"Point\", \"coordinates\": [10]}", 1, 34, "a position must have 2 or 3 numbers [longitude, latitude, altitude?], found 1"),
            ("{\"type\": \"Point\", \"coordinates\": [\"10\", 5]}", 1, 35, "longitude must be a number, found the string \"10\""),
            ("{\"type\": \"Polygon\", \"coordinates\": []}", 1, 36, "polygon has no rings; give the outer ring first, then any holes"),
            ("{\"type\": \"MultiPolygon\", \"coordinates\": []}", 1, 41, "MultiPolygon has no polygons; give at least one or use a null geometry"),
            ("{\"type\": \"Polygon\"}", 1, 1, "Polygon has no \"coordinates\" member"),
        ]
        for (text, line, column, message) in cases {
            guard let e = error(text) else {
                XCTFail("accepted: \(text)")
                continue
            }
            XCTAssertEqual(e.message, message, text)
            XCTAssertEqual(e.location.line, line, "line of: \(text)")
            XCTAssertEqual(e.location.column, column, "column of: \(text)")
            XCTAssertEqual(e.description, "t.geojson:\(line):\(column): \(message)")
        }
    }

    func testRoundingNoiseAtTheAntimeridianIsAccepted() throws {
        // Natural Earth has 180.00000000000006.
        let features = try GeoJSONReader.read(#"{"type":"Polygon","coordinates":[[[170,0],[180.00000000000006,0],[180,5],[170,0]]]}"#)
        XCTAssertEqual(features.first?.geometry?.polygons.first?.vertexCount, 3)
    }

    func testPolygonAcrossTheAntimeridianIsCutInTwo() throws {
        let text = #"{"type":"Polygon","coordinates":[[[170,-10],[-170,-10],[-170,10],[170,10],[170,-10]]]}"#
        let features = try GeoJSONReader.read(text)
        let parts = features[0].geometry?.polygons ?? []
        XCTAssertEqual(parts.count, 2)
        for p in parts {
            XCTAssertEqual(p.area, 200, accuracy: 1e-9, "each side is 10° × 20°")
            XCTAssertTrue(p.outer.allSatisfy { abs($0.lon) <= 180 && abs($0.lon) >= 170 })
        }
        let unsplit = try GeoJSONReader.read(text, options: .init(splitAntimeridian: false))
        XCTAssertEqual(unsplit[0].geometry?.polygons.count, 1)
        XCTAssertEqual(unsplit[0].geometry?.polygons.first?.area, 6800, "read literally it spans the whole map")
    }

    func testRingAroundThePoleIsClosedAlongThePole() throws {
        // A cap south of 60°S given as one ring going round the pole, crossing ±180 once.
        var ring: [String] = []
        for lon in stride(from: -150, through: 180, by: 30) { ring.append("[\(lon),-60]") }
        ring.append("[-150,-60]")
        let text = "{\"type\":\"Polygon\",\"coordinates\":[[\(ring.joined(separator: ","))]]}"
        let parts = try GeoJSONReader.read(text)[0].geometry?.polygons ?? []
        XCTAssertEqual(parts.count, 1)
        XCTAssertEqual(parts.first?.area ?? 0, 360 * 30, accuracy: 1e-9, "the cap from 60°S to the pole, 360° wide")
        let box = parts.first?.bounds
        XCTAssertEqual(box?.minLat, -90)
        XCTAssertEqual(box?.minLon, -180)
        XCTAssertEqual(box?.maxLon, 180)
    }

    func testVoyageAntarcticaIsClosedAtTheSouthPole() throws {
        let text = try SharedData.text(SharedData.voyageWorld)
        let features = try GeoJSONReader.read(text, source: "world.geojson")
        XCTAssertEqual(features.count, 206)
        guard let aq = features.first(where: { $0.id == "AQ" })?.geometry?.polygons else { return XCTFail("no AQ") }
        let main = aq.max { $0.vertexCount < $1.vertexCount }
        XCTAssertEqual(main?.bounds.minLat, -90)
        XCTAssertFalse(aq.contains { Antimeridian.crosses($0) })
        // Antarctica is about 14 million km² (12.2 at this scale, without ice shelves); read
        // literally, its ring would enclose the band north of the coast instead.
        let area = aq.reduce(0) { $0 + Spherical.areaKm2($1) }
        XCTAssertEqual(area / 1e6, 12.24, accuracy: 0.05)
        let report = TriangulationReport(features: features)
        XCTAssertEqual(report.polygonsOffCount, 0)
        XCTAssertLessThanOrEqual(report.maxRelativeAreaError, 1e-9)
    }
}
