import ClubhouseJSON
import Foundation
import XCTest
@testable import GlobeCore

final class MeshTests: XCTestCase {
    let countries = CountrySet.bundled

    private static func area(_ part: GlobeMesh.Part) -> Double {
        var sum = 0.0
        let p = part.positions.map(Double.init)
        var k = 0
        while k < part.indices.count {
            let a = 3 * Int(part.indices[k]), b = 3 * Int(part.indices[k + 1]), c = 3 * Int(part.indices[k + 2])
            let u = (p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2])
            let v = (p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2])
            let n = (u.1 * v.2 - u.2 * v.1, u.2 * v.0 - u.0 * v.2, u.0 * v.1 - u.1 * v.0)
            sum += 0.5 * (n.0 * n.0 + n.1 * n.1 + n.2 * n.2).squareRoot()
            k += 3
        }
        return sum
    }

    func testVerticesLieOnTheSphereAndTrianglesFaceOutward() throws {
        var log = TravelLog()
        try log.visit("FR", in: countries)
        let mesh = GlobeMesh(countries: countries, log: log, options: .init(radius: 2))
        XCTAssertEqual(mesh.parts.count, 251, "250 countries and the ocean")
        for part in mesh.parts {
            XCTAssertFalse(part.indices.isEmpty, part.id)
            let p = part.positions.map(Double.init)
            let radius = part.id == "ocean" ? 2 * 0.995 : 2
            for k in 0..<part.vertexCount {
                let r = (p[3 * k] * p[3 * k] + p[3 * k + 1] * p[3 * k + 1] + p[3 * k + 2] * p[3 * k + 2]).squareRoot()
                XCTAssertEqual(r, radius, accuracy: 1e-6, part.id)
            }
            var k = 0
            while k < part.indices.count {
                let a = 3 * Int(part.indices[k]), b = 3 * Int(part.indices[k + 1]), c = 3 * Int(part.indices[k + 2])
                let u = (p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2])
                let v = (p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2])
                let n = (u.1 * v.2 - u.2 * v.1, u.2 * v.0 - u.0 * v.2, u.0 * v.1 - u.1 * v.0)
                let centroid = (p[a] + p[b] + p[c], p[a + 1] + p[b + 1] + p[c + 1], p[a + 2] + p[b + 2] + p[c + 2])
                // Float32 positions blur the orientation of slivers thinner than their rounding
                // (an ulp at radius 2 is 2.4e-7): check triangles at least 1e-6 high.
                let area = 0.5 * (n.0 * n.0 + n.1 * n.1 + n.2 * n.2).squareRoot()
                let w = (p[c] - p[b], p[c + 1] - p[b + 1], p[c + 2] - p[b + 2])
                func length(_ e: (Double, Double, Double)) -> Double { (e.0 * e.0 + e.1 * e.1 + e.2 * e.2).squareRoot() }
                let longest = max(length(u), length(v), length(w))
                let height = longest > 0 ? 2 * area / longest : 0
                // Triangles fanning out of the South Pole (all longitudes meet there) may stand edge-on.
                let atPole = [a, b, c].contains { abs(abs(p[$0 + 1]) - radius) < 1e-9 }
                if area > 1e-9 && height > 1e-6 && !atPole {
                    XCTAssertGreaterThan(n.0 * centroid.0 + n.1 * centroid.1 + n.2 * centroid.2, 0, "\(part.id) triangle \(k / 3) faces inward")
                }
                k += 3
            }
        }
        XCTAssertEqual(mesh.parts.first { $0.id == "FR" }?.color, Palette.visited)
        XCTAssertEqual(mesh.parts.first { $0.id == "DE" }?.color, Palette.land)
        // The sphere formula, right-handed: lon 90°E lands on −z, the north pole on +y.
        let east = GlobeMesh.spherePoint(LonLat(lon: 90, lat: 0), radius: 1)
        XCTAssertEqual(east.z, -1, accuracy: 1e-12)
        XCTAssertEqual(GlobeMesh.spherePoint(LonLat(lon: 10, lat: 90), radius: 1).y, 1, accuracy: 1e-12)
    }

    /// Subdivided triangles converge on the true area of the lon/lat-straight outlines on the
    /// sphere (R² ∮ sin φ dλ); without subdivision, long chords cut under the surface.
    func testSubdivisionFollowsTheSphere() {
        let sample = CountrySet(countries: ["CL", "BR", "AU", "NZ"].compactMap { countries.country(code: $0) }, source: "sample")
        let exact = sample.countries.flatMap(\.polygons).reduce(0) { $0 + Spherical.areaKm2($1, radius: 1) }
        func error(_ maxEdge: Double) -> Double {
            let mesh = GlobeMesh(countries: sample, log: TravelLog(), options: .init(maxEdgeDegrees: maxEdge, includeOcean: false))
            return abs(mesh.parts.reduce(0) { $0 + Self.area($1) } - exact) / exact
        }
        let coarse = error(90), medium = error(5), fine = error(1.5)
        XCTAssertGreaterThan(coarse, 0.01)
        XCTAssertLessThan(medium, coarse / 3)
        XCTAssertLessThan(fine, medium / 3)
        XCTAssertLessThan(fine, 0.002)
    }

    /// Edges are split by a rule that depends on the edge alone, so neighbours agree and no
    /// T-junction opens a crack: each single-polygon country stays a disc with h holes
    /// (V − E + F = 1 − h).
    func testSubdivisionLeavesNoCracks() {
        var checked = 0
        for c in countries.countries where c.polygons.count == 1 && !c.drawnAsPoint && c.code != "AQ" {
            let one = CountrySet(countries: [c], source: "one")
            let mesh = GlobeMesh(countries: one, log: TravelLog(), options: .init(maxEdgeDegrees: 3, includeOcean: false))
            let part = mesh.parts[0]
            var edges = [UInt64: Int]()
            var k = 0
            while k < part.indices.count {
                let t = [part.indices[k], part.indices[k + 1], part.indices[k + 2]]
                for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                    edges[UInt64(min(a, b)) << 32 | UInt64(max(a, b)), default: 0] += 1
                }
                k += 3
            }
            XCTAssertTrue(edges.values.allSatisfy { $0 <= 2 }, c.code)
            let euler = part.vertexCount - edges.count + part.triangleCount
            XCTAssertEqual(euler, 1 - c.polygons[0].holeCount, c.code)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 140)
    }

    func testGLTFDocument() throws {
        var log = TravelLog()
        try log.visit("FR", in: countries)
        try log.wish("JP", in: countries)
        let mesh = GlobeMesh(countries: countries, log: log)
        let text = GLTFWriter.write(mesh)
        let doc = try JSONParser.parse(text)
        XCTAssertEqual(doc["asset"]?["version"]?.stringValue, "2.0")
        let buffer = try XCTUnwrap(doc["buffers"]?.arrayValue?.first)
        let uri = try XCTUnwrap(buffer["uri"]?.stringValue)
        let prefix = "data:application/octet-stream;base64,"
        XCTAssertTrue(uri.hasPrefix(prefix))
        let bytes = try XCTUnwrap(Data(base64Encoded: String(uri.dropFirst(prefix.count))))
        XCTAssertEqual(bytes.count, buffer["byteLength"]?.intValue)
        let views = try XCTUnwrap(doc["bufferViews"]?.arrayValue)
        let accessors = try XCTUnwrap(doc["accessors"]?.arrayValue)
        let meshes = try XCTUnwrap(doc["meshes"]?.arrayValue)
        let materials = try XCTUnwrap(doc["materials"]?.arrayValue)
        XCTAssertEqual(meshes.count, 251)
        XCTAssertEqual(materials.count, 251)
        XCTAssertEqual(doc["nodes"]?.arrayValue?.count, 251)
        var triangles = 0
        for m in meshes {
            let primitive = try XCTUnwrap(m["primitives"]?.arrayValue?.first)
            let position = try XCTUnwrap(accessors[try XCTUnwrap(primitive["attributes"]?["POSITION"]?.intValue)].objectValue)
            let indices = try XCTUnwrap(accessors[try XCTUnwrap(primitive["indices"]?.intValue)].objectValue)
            XCTAssertEqual(position["componentType"]?.intValue, 5126)
            XCTAssertEqual(position["min"]?.arrayValue?.count, 3)
            XCTAssertEqual(indices["componentType"]?.intValue, 5125)
            let vertexCount = try XCTUnwrap(position["count"]?.intValue)
            let view = try XCTUnwrap(views[try XCTUnwrap(indices["bufferView"]?.intValue)].objectValue)
            let offset = try XCTUnwrap(view["byteOffset"]?.intValue), length = try XCTUnwrap(view["byteLength"]?.intValue)
            XCTAssertEqual(offset % 4, 0)
            XCTAssertLessThanOrEqual(offset + length, bytes.count)
            XCTAssertEqual(length, 4 * (indices["count"]?.intValue ?? -1))
            for k in stride(from: offset, to: offset + length, by: 4) {
                let i = Int(bytes[k]) | Int(bytes[k + 1]) << 8 | Int(bytes[k + 2]) << 16 | Int(bytes[k + 3]) << 24
                XCTAssertLessThan(i, vertexCount)
            }
            triangles += length / 12
        }
        XCTAssertEqual(triangles, mesh.triangleCount)
        let france = try XCTUnwrap(materials.first { $0["name"]?.stringValue == "FR" })
        let color = try XCTUnwrap(france["pbrMetallicRoughness"]?["baseColorFactor"]?.arrayValue?.compactMap(\.doubleValue))
        XCTAssertEqual(color.count, 4)
        XCTAssertEqual(color[0], GLTFWriter.srgbToLinear(242.0 / 255), accuracy: 1e-6)
        XCTAssertEqual(color[2], GLTFWriter.srgbToLinear(19.0 / 255), accuracy: 1e-6)
    }

    func testOBJAndMTL() {
        let mesh = GlobeMesh(countries: countries, log: TravelLog(), options: .init(maxEdgeDegrees: 10, includeOcean: false))
        let (obj, mtl) = OBJWriter.write(mesh, materialLibrary: "globe.mtl")
        let lines = obj.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("v ") }.count, mesh.vertexCount)
        XCTAssertEqual(lines.filter { $0.hasPrefix("f ") }.count, mesh.triangleCount)
        XCTAssertEqual(lines.filter { $0.hasPrefix("usemtl ") }.count, 250)
        XCTAssertTrue(obj.contains("mtllib globe.mtl\n"))
        let maxIndex = lines.filter { $0.hasPrefix("f ") }.flatMap { $0.split(separator: " ").dropFirst().compactMap { Int($0) } }.max()
        XCTAssertEqual(maxIndex, mesh.vertexCount)
        XCTAssertTrue(mtl.contains("newmtl FR\nKd 0.203922 0.745098 0.509804\n"), "land #34BE82")
    }

    func testMeshFormatFromFileName() {
        XCTAssertEqual(MeshFormat(fileName: "out/Globe.GLTF"), .gltf)
        XCTAssertEqual(MeshFormat(fileName: "globe.obj"), .obj)
        XCTAssertNil(MeshFormat(fileName: "globe.glb"))
    }
}
