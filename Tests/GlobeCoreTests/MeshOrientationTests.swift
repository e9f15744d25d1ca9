// The globe mesh in the right hand (issue 30, Why 3): every format `globe mesh` writes is read
// back from its text, as a viewer reads it, and checked on the Earth itself. A viewer's frame is
// right-handed with +Y up (glTF 2.0 §3.4; OBJ viewers use the same), so a camera outside the globe
// looking at a point p with north up has its right-hand side along ŷ × p̂. Seen that way France
// lies north-east of Spain and South America west of Africa; every triangle is counter-clockwise
// (its normal points away from the centre) and every glTF normal points outward.
// The view is also drawn (an orthographic projection, back faces culled) to SVG and rendered to
// PNG with rsvg-convert when it is installed: CLUBHOUSE_KEEP_PNG=DIR keeps it to look at.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import GlobeCore

final class MeshOrientationTests: XCTestCase {
    typealias Vector = (x: Double, y: Double, z: Double)

    /// One object of a mesh file: its vertices, triangles (as written) and normals (glTF only).
    struct FilePart {
        var positions: [Vector] = []
        var normals: [Vector] = []
        var triangles: [(Int, Int, Int)] = []
        var color = "#000000"
    }

    // MARK: - Reading the files back

    /// Parts by node name from a .gltf text with its buffer embedded.
    static func readGLTF(_ text: String) throws -> [String: FilePart] {
        let doc = try JSONParser.parse(text)
        let uri = try XCTUnwrap(doc["buffers"]?.arrayValue?.first?["uri"]?.stringValue)
        let bytes = [UInt8](try XCTUnwrap(Data(base64Encoded: String(uri.drop { $0 != "," }.dropFirst()))))
        let accessors = try XCTUnwrap(doc["accessors"]?.arrayValue), views = try XCTUnwrap(doc["bufferViews"]?.arrayValue)
        func words(_ accessor: Int) throws -> [UInt32] {
            let a: JSONValue = accessors[accessor]
            let view: JSONValue = views[try XCTUnwrap(a["bufferView"]?.intValue)]
            let start: Int = (view["byteOffset"]?.intValue ?? 0) + (a["byteOffset"]?.intValue ?? 0)
            let components = a["type"]?.stringValue == "VEC3" ? 3 : 1
            let count: Int = try XCTUnwrap(a["count"]?.intValue) * components
            var out: [UInt32] = []
            out.reserveCapacity(count)
            for k in 0..<count {
                let o = start + 4 * k
                let b0 = UInt32(bytes[o]), b1 = UInt32(bytes[o + 1]) << 8
                let b2 = UInt32(bytes[o + 2]) << 16, b3 = UInt32(bytes[o + 3]) << 24
                out.append(b0 | b1 | b2 | b3)
            }
            return out
        }
        func vectors(_ accessor: Int) throws -> [Vector] {
            let w = try words(accessor).map { Double(Float(bitPattern: $0)) }
            return stride(from: 0, to: w.count, by: 3).map { (w[$0], w[$0 + 1], w[$0 + 2]) }
        }
        var parts: [String: FilePart] = [:]
        for node in try XCTUnwrap(doc["nodes"]?.arrayValue) {
            let name = try XCTUnwrap(node["name"]?.stringValue)
            let meshIndex = try XCTUnwrap(node["mesh"]?.intValue)
            let primitive = try XCTUnwrap(doc["meshes"]?.arrayValue?[meshIndex]["primitives"]?.arrayValue?.first)
            XCTAssertEqual(primitive["mode"]?.intValue ?? 4, 4, "\(name): triangles")
            var part = FilePart()
            part.positions = try vectors(try XCTUnwrap(primitive["attributes"]?["POSITION"]?.intValue))
            part.normals = try vectors(try XCTUnwrap(primitive["attributes"]?["NORMAL"]?.intValue))
            let i = try words(try XCTUnwrap(primitive["indices"]?.intValue)).map(Int.init)
            part.triangles = stride(from: 0, to: i.count, by: 3).map { (i[$0], i[$0 + 1], i[$0 + 2]) }
            parts[name] = part
        }
        return parts
    }

    /// Parts by object name from an .obj text (1-based indices shared across objects).
    static func readOBJ(_ text: String) throws -> [String: FilePart] {
        var parts: [String: FilePart] = [:]
        var all: [Vector] = []
        var current: String?
        var triangles: [String: [(Int, Int, Int)]] = [:]
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ")
            switch f.first {
            case "o": current = f.count > 1 ? String(f[1]) : nil
            case "v": all.append((Double(f[1]) ?? .nan, Double(f[2]) ?? .nan, Double(f[3]) ?? .nan))
            case "f":
                let name = try XCTUnwrap(current, "a face before any object")
                let i = f.dropFirst().map { Int($0.split(separator: "/")[0]) ?? 0 }
                XCTAssertEqual(i.count, 3, "triangles only")
                triangles[name, default: []].append((i[0] - 1, i[1] - 1, i[2] - 1))
            default: continue
            }
        }
        for (name, list) in triangles {
            // Each object's own vertices, re-indexed from 0.
            let used = Set(list.flatMap { [$0.0, $0.1, $0.2] }).sorted()
            let local = Dictionary(uniqueKeysWithValues: used.enumerated().map { ($1, $0) })
            var part = FilePart()
            part.positions = used.map { all[$0] }
            part.triangles = list.map { (local[$0.0] ?? 0, local[$0.1] ?? 0, local[$0.2] ?? 0) }
            parts[name] = part
        }
        return parts
    }

    // MARK: - Vectors

    static func sub(_ a: Vector, _ b: Vector) -> Vector { (a.x - b.x, a.y - b.y, a.z - b.z) }
    static func add(_ a: Vector, _ b: Vector) -> Vector { (a.x + b.x, a.y + b.y, a.z + b.z) }
    static func dot(_ a: Vector, _ b: Vector) -> Double { a.x * b.x + a.y * b.y + a.z * b.z }
    static func cross(_ a: Vector, _ b: Vector) -> Vector { (a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x) }
    static func unit(_ a: Vector) -> Vector {
        let l = dot(a, a).squareRoot()
        return l > 0 ? (a.x / l, a.y / l, a.z / l) : a
    }

    /// The direction of a part's middle (the mean of its vertices, on the unit sphere).
    static func centre(_ parts: [String: FilePart], _ codes: [String]) throws -> Vector {
        var sum: Vector = (0, 0, 0)
        for code in codes {
            let part = try XCTUnwrap(parts[code], "\(code) is in the file")
            for p in part.positions { sum = add(sum, unit(p)) }
        }
        return unit(sum)
    }

    /// A camera outside the globe looking at `at` with north (+Y) up: (right, up) on its screen.
    static func screen(_ p: Vector, lookingAt at: Vector) -> (right: Double, up: Double) {
        let right = unit(cross((0, 1, 0), at))
        let up = cross(at, right)
        return (dot(p, right), dot(p, up))
    }

    // MARK: - The checks

    func checkOrientation(_ parts: [String: FilePart], format: String) throws {
        // France north-east of Spain, seen from outside above Spain.
        let spain = try Self.centre(parts, ["ES"]), france = try Self.centre(parts, ["FR"])
        let fr = Self.screen(france, lookingAt: spain)
        XCTAssertGreaterThan(fr.right, 0, "\(format): France is east of Spain")
        XCTAssertGreaterThan(fr.up, 0, "\(format): France is north of Spain")
        // Portugal west of Spain, Italy east of France, Japan east of China.
        XCTAssertLessThan(Self.screen(try Self.centre(parts, ["PT"]), lookingAt: spain).right, 0, "\(format): Portugal is west of Spain")
        let china = try Self.centre(parts, ["CN"])
        XCTAssertGreaterThan(Self.screen(try Self.centre(parts, ["JP"]), lookingAt: china).right, 0, "\(format): Japan is east of China")
        // South America west of Africa, seen from above the Atlantic between them.
        let southAmerica = try Self.centre(parts, ["BR", "AR", "CO", "PE", "VE", "BO", "CL"])
        let africa = try Self.centre(parts, ["NG", "CD", "ET", "DZ", "ZA", "SD", "TZ"])
        let atlantic = Self.unit(Self.add(southAmerica, africa))
        XCTAssertLessThan(Self.screen(southAmerica, lookingAt: atlantic).right, Self.screen(africa, lookingAt: atlantic).right,
                          "\(format): South America is west of Africa seen from outside")
        // (east × north) · outward > 0 at Greenwich on the equator: the frame is right-handed.
        let greenwich = try Self.centre(parts, ["GH"])
        XCTAssertGreaterThan(greenwich.x, 0.9, "\(format): Ghana, near 0° 0°, faces +X")

        var checked = 0, lying = 0
        for (name, part) in parts {
            for n in part.normals.indices {
                XCTAssertGreaterThan(Self.dot(part.normals[n], Self.unit(part.positions[n])), 0.999, "\(format): \(name) normal \(n) points outward")
            }
            for (a, b, c) in part.triangles {
                let pa = part.positions[a], pb = part.positions[b], pc = part.positions[c]
                let n = Self.cross(Self.sub(pb, pa), Self.sub(pc, pa))
                let doubleArea = Self.dot(n, n).squareRoot()
                let longest = [Self.sub(pb, pa), Self.sub(pc, pb), Self.sub(pa, pc)].map { Self.dot($0, $0).squareRoot() }.max() ?? 0
                // A triangle's plane is only as sure as its vertices: a file rounds them (Float32:
                // 6e-8 at radius 1; OBJ's 6 decimals: 5e-7), which tilts a triangle 1e-4 high by up
                // to 0.5 %, and turns over slivers thinner than the rounding. Check those 1e-4 high
                // or more (most of the mesh); triangles fanning out of a pole have no orientation.
                let atPole = [pa, pb, pc].contains { abs(abs($0.y) - 1) < 1e-6 }
                guard longest > 0, doubleArea / longest > 1e-4, !atPole else { continue }
                // The cosine between the triangle's normal and the way out: positive when it is
                // counter-clockwise seen from outside (about 1 for a small triangle lying on the
                // sphere; near 0 for a long sliver, whose plane passes close to the centre), negative
                // when it faces the centre.
                let cosine = Self.dot(Self.unit(n), Self.unit(Self.add(Self.add(pa, pb), pc)))
                // (A sliver whose plane passes within 0.001 of the centre stands edge-on to every
                // viewer; OBJ's rounding may tip it either way.)
                XCTAssertGreaterThan(cosine, -1e-3, "\(format): a triangle of \(name) is clockwise seen from outside")
                checked += 1
                if cosine > 0.9 { lying += 1 }
            }
        }
        XCTAssertGreaterThan(checked, 20_000, "\(format): triangles checked")
        XCTAssertGreaterThan(Double(lying), 0.95 * Double(checked), "\(format): most triangles lie on the sphere")
    }

    func testTheGlobeIsRightHandedInEveryFormat() throws {
        let globe = Globe(store: InMemoryGlobeStore(), defaultUser: "ana")
        _ = try globe.mark(.init(action: .visit, country: "FR"))
        _ = try globe.mark(.init(action: .wish, country: "BR"))
        XCTAssertEqual(MeshFormat.allCases, [.gltf, .obj], "a new format needs its reader here")
        for format in MeshFormat.allCases {
            let mesh = try globe.mesh(fileName: "globe.\(format.rawValue)", maxEdgeDegrees: 10)
            let text = try XCTUnwrap(mesh.files.first).contents
            let parts = format == .gltf ? try Self.readGLTF(text) : try Self.readOBJ(text)
            XCTAssertEqual(format == .gltf ? parts["FR"]?.normals.count : 0, format == .gltf ? parts["FR"]?.positions.count : 0)
            try checkOrientation(parts, format: format.rawValue)
            if format == .gltf {
                let atlantic = Self.unit(Self.add(try Self.centre(parts, ["BR"]), try Self.centre(parts, ["NG"])))
                try RenderedPicture.check(svg: Self.view(parts, lookingAt: Self.add(atlantic, (0, 0.4, 0)), colors: try Self.gltfColors(text)),
                                          name: "globe-mesh-atlantic", minimumBytes: 5_000)
            }
        }
    }

    /// On today's main the sphere put 90° E at +Z: this is the formula the test above rejects.
    func testTheSpherePointsAreRightHanded() {
        let p = GlobeMesh.spherePoint(LonLat(lon: 0, lat: 0), radius: 1)
        let east = GlobeMesh.spherePoint(LonLat(lon: 1e-3, lat: 0), radius: 1)
        let north = GlobeMesh.spherePoint(LonLat(lon: 0, lat: 1e-3), radius: 1)
        let e = Self.sub((east.x, east.y, east.z), (p.x, p.y, p.z)), n = Self.sub((north.x, north.y, north.z), (p.x, p.y, p.z))
        XCTAssertGreaterThan(Self.dot(Self.cross(e, n), (p.x, p.y, p.z)), 0, "(east × north) · outward")
        XCTAssertEqual(GlobeMesh.spherePoint(LonLat(lon: 90, lat: 0), radius: 1).z, -1, accuracy: 1e-12)
        XCTAssertEqual(GlobeMesh.spherePoint(LonLat(lon: -90, lat: 0), radius: 1).z, 1, accuracy: 1e-12)
    }

    // MARK: - A picture of the view

    static func gltfColors(_ text: String) throws -> [String: String] {
        let doc = try JSONParser.parse(text)
        var out: [String: String] = [:]
        for m in try XCTUnwrap(doc["materials"]?.arrayValue) {
            guard let name = m["name"]?.stringValue, let c = m["pbrMetallicRoughness"]?["baseColorFactor"]?.arrayValue?.compactMap(\.doubleValue),
                  c.count >= 3 else { continue }
            let srgb = c.prefix(3).map { v -> Int in
                let s = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
                return Int((s * 255).rounded())
            }
            out[name] = "#" + srgb.map { String(format: "%02X", $0) }.joined()
        }
        return out
    }

    /// An orthographic view from outside, north up, faces turned away culled, in the file's colours.
    static func view(_ parts: [String: FilePart], lookingAt direction: Vector, colors: [String: String], size: Double = 480) -> String {
        let at = unit(direction)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(size))\" height=\"\(Int(size))\" viewBox=\"0 0 \(Int(size)) \(Int(size))\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"#101820\"/>\n"
        // The ocean first, then the countries above it.
        for name in parts.keys.sorted(by: { ($0 == "ocean" ? 0 : 1, $0) < ($1 == "ocean" ? 0 : 1, $1) }) {
            guard let part = parts[name] else { continue }
            var d = ""
            for (a, b, c) in part.triangles {
                let pa = part.positions[a], pb = part.positions[b], pc = part.positions[c]
                guard dot(cross(sub(pb, pa), sub(pc, pa)), at) > 0 else { continue }
                for (k, p) in [pa, pb, pc].enumerated() {
                    let s = screen(p, lookingAt: at)
                    d += (k == 0 ? "M" : "L") + String(format: "%.1f,%.1f", size / 2 + s.right * size * 0.47, size / 2 - s.up * size * 0.47)
                }
                d += "Z"
            }
            let fill = colors[name] ?? "#808080"
            out += "<path fill=\"\(fill)\" stroke=\"\(fill)\" stroke-width=\"0.3\" d=\"\(d)\"/>\n"
        }
        return out + "</svg>\n"
    }
}
