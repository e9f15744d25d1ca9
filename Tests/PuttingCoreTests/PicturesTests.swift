import ClubhouseJSON
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import PuttingCore

/// Counts elements by name and collects their attributes; fails on malformed XML.
final class SVGSummary: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    var ids: [String: [String: String]] = [:]
    var texts: [String] = []
    private var inText = false

    static func parse(_ svg: String) throws -> SVGSummary {
        let summary = SVGSummary()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = summary
        guard parser.parse() else { throw XCTSkip("unreachable") as Error? ?? NSError(domain: "svg", code: 1) }
        return summary
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        counts[name, default: 0] += 1
        if let id = attributes["id"] { ids[id] = attributes }
        if name == "text" { inText = true; texts.append("") }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inText { texts[texts.count - 1] += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text" { inText = false }
    }
}

final class PicturesTests: XCTestCase {
    private func service() throws -> PuttingService {
        let store = InMemoryPuttingStore()
        let green = try GreenGenerator.procedural(seed: 11, sizeFt: 50)
        try store.replaceCourse(Course(id: "gen", name: "Generated"), holes: [
            Hole(courseID: "gen", number: 1, greenWidthFt: 50, greenHeightFt: 50, holePosition: green.hole,
                 heightfield: green.heightfield, boundary: green.boundary, contours: green.contours, contourIntervalFt: 0.25),
        ])
        return PuttingService(store: store)
    }

    private func putt(_ s: PuttingService) throws -> PuttSpec {
        let hole = try s.hole(course: "gen", number: 1)
        let green = try GreenGenerator.procedural(seed: 11, sizeFt: 50)
        return PuttSpec(ball: try XCTUnwrap(green.balls.first), flag: try XCTUnwrap(hole.holePosition))
    }

    func testSVGHasEveryLayerAndALegend() throws {
        let s = try service()
        let output = try s.render(RenderRequest(course: "gen", hole: 1, putt: try putt(s), widthPx: 600))
        let svg = try SVGSummary.parse(output.svg)
        let result = try XCTUnwrap(output.result)
        XCTAssertGreaterThan(svg.counts["rect", default: 0], 100, "elevation shading")
        XCTAssertEqual(svg.counts["polyline", default: 0], (try s.hole(course: "gen", number: 1)).contours.count + 1, "contours + path")
        XCTAssertNotNil(svg.ids["boundary"])
        XCTAssertNotNil(svg.ids["ball"])
        XCTAssertNotNil(svg.ids["flag"])
        XCTAssertNotNil(svg.ids["aim"])
        let pathPoints = try XCTUnwrap(svg.ids["path"]?["points"]).split(separator: " ")
        XCTAssertEqual(pathPoints.count, result.pathXFt.count)
        // The ball is drawn where the picture's frame (cropped to the green) puts it.
        let picture = PuttingService.picture(of: try s.hole(course: "gen", number: 1), result: result, widthPx: 600,
                                             contours: true, shading: true)
        let (u, v) = picture.pixel(PointFt(x: result.ballXFt, z: result.ballZFt))
        XCTAssertEqual(Double(svg.ids["ball"]?["cx"] ?? "") ?? .nan, u, accuracy: 0.01)
        XCTAssertEqual(Double(svg.ids["ball"]?["cy"] ?? "") ?? .nan, v, accuracy: 0.01)
        let legend = svg.texts.joined(separator: "\n")
        XCTAssertTrue(legend.contains("Aim \(result.aimDescription)"), legend)
        XCTAssertTrue(legend.contains("Speed \(fixed(result.speedFps, 2)) ft/s"), legend)
        XCTAssertTrue(legend.contains(result.holed ? "Result: holed" : "Result: missed"), legend)
        XCTAssertTrue(legend.contains("10 ft"))
    }

    /// Contours and boundary drawn over shading with no putt (what a heightfield rebuilt from contours needs).
    func testContoursAndBoundaryOverShadingAlone() throws {
        let plane = try GreenGenerator.plane(widthFt: 20, depthFt: 10, baseFt: 1, slopeX: 0.05)
        var picture = GreenPicture(heightfield: plane, widthPx: 400)
        picture.contours = ContourTracer.trace(plane, interval: 0.25, mask: { _, _ in true })
        picture.contourIntervalFt = 0.25
        picture.boundary = PolygonFt(points: [PointFt(x: -9, z: -4), PointFt(x: 9, z: -4), PointFt(x: 9, z: 4), PointFt(x: -9, z: 4)])
        picture.title = "Plane & <contours>"
        let text = picture.svg()
        let svg = try SVGSummary.parse(text)
        XCTAssertEqual(svg.counts["polyline"], picture.contours.count)
        XCTAssertNotNil(svg.ids["boundary"])
        XCTAssertNil(svg.ids["path"])
        XCTAssertTrue(svg.texts.contains("Plane & <contours>"))
        XCTAssertTrue(text.contains("stroke-width=\"1.6\""), "index contours are thicker")
    }

    func testContourTracerOnAPlaneGivesStraightLinesAtTheRightPlace() throws {
        // h = 1 + 0.05·x: the 1.25 ft contour is the line x = 5.
        let plane = try GreenGenerator.plane(widthFt: 20, depthFt: 10, baseFt: 1, slopeX: 0.05)
        let lines = ContourTracer.trace(plane, interval: 0.25, mask: { _, _ in true })
        // 0.5 and 1.5 are the extreme heights themselves, which would only draw the grid's edge.
        XCTAssertEqual(lines.map(\.heightFt), [0.75, 1.0, 1.25])
        let line = try XCTUnwrap(lines.first { $0.heightFt == 1.25 })
        XCTAssertEqual(line.points.count, plane.nz)
        for p in line.points { XCTAssertEqual(p.x, 5, accuracy: 1e-5) }
        XCTAssertEqual(line.points.map(\.z).min() ?? 0, plane.zMinFt, accuracy: 1e-9)
        XCTAssertEqual(line.points.map(\.z).max() ?? 0, plane.zMaxFt, accuracy: 1e-9)
    }

    func testGLTFIsAValidSelfContainedDocument() throws {
        let s = try service()
        let output = try s.mesh(MeshRequest(course: "gen", hole: 1, putt: try putt(s), format: .gltf, verticalExaggeration: 2))
        let doc = try JSONParser.parse(output.contents)
        XCTAssertEqual(doc["asset"]?["version"], "2.0")
        let buffer = try XCTUnwrap(doc["buffers"]?.arrayValue?.first)
        let uri = try XCTUnwrap(buffer["uri"]?.stringValue)
        XCTAssertTrue(uri.hasPrefix("data:application/octet-stream;base64,"))
        let bytes = try XCTUnwrap(Data(base64Encoded: String(uri.dropFirst("data:application/octet-stream;base64,".count))))
        XCTAssertEqual(bytes.count, buffer["byteLength"]?.intValue)
        let views = try XCTUnwrap(doc["bufferViews"]?.arrayValue)
        let accessors = try XCTUnwrap(doc["accessors"]?.arrayValue)
        for view in views {
            let offset = try XCTUnwrap(view["byteOffset"]?.intValue), length = try XCTUnwrap(view["byteLength"]?.intValue)
            XCTAssertEqual(offset % 4, 0)
            XCTAssertLessThanOrEqual(offset + length, bytes.count)
        }
        let meshes = try XCTUnwrap(doc["meshes"]?.arrayValue)
        XCTAssertEqual(meshes.compactMap { $0["name"]?.stringValue }, ["green", "path", "flag"])
        for mesh in meshes {
            let primitive = try XCTUnwrap(mesh["primitives"]?.arrayValue?.first)
            let position = accessors[try XCTUnwrap(primitive["attributes"]?["POSITION"]?.intValue)]
            let index = accessors[try XCTUnwrap(primitive["indices"]?.intValue)]
            let vertexCount = try XCTUnwrap(position["count"]?.intValue)
            XCTAssertEqual(index["componentType"]?.intValue, 5125)
            XCTAssertEqual((index["count"]?.intValue ?? 1) % 3, 0)
            // Every index is a vertex; every position lies within the accessor's min/max.
            let iv = views[try XCTUnwrap(index["bufferView"]?.intValue)]
            let io = try XCTUnwrap(iv["byteOffset"]?.intValue)
            for k in 0..<(index["count"]?.intValue ?? 0) {
                let i = bytes[io + 4 * k..<io + 4 * k + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
                XCTAssertLessThan(i, vertexCount)
            }
            let pv = views[try XCTUnwrap(position["bufferView"]?.intValue)]
            let po = try XCTUnwrap(pv["byteOffset"]?.intValue)
            let lo = try XCTUnwrap(position["min"]?.arrayValue).compactMap(\.doubleValue)
            let hi = try XCTUnwrap(position["max"]?.arrayValue).compactMap(\.doubleValue)
            for k in 0..<(vertexCount * 3) {
                let bits = bytes[po + 4 * k..<po + 4 * k + 4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
                let v = Double(Float(bitPattern: bits))
                XCTAssertTrue(v >= lo[k % 3] && v <= hi[k % 3])
            }
        }
        XCTAssertTrue(output.text.hasPrefix("glTF 2.0 mesh of "))
        // The green's extent in metres: the grid's span × 0.3048.
        let hole = try s.hole(course: "gen", number: 1)
        let green = accessors[meshes[0]["primitives"]?.arrayValue?.first?["attributes"]?["POSITION"]?.intValue ?? 0]
        let maxX = green["max"]?.arrayValue?.first?.doubleValue ?? 0
        XCTAssertLessThanOrEqual(maxX, (hole.heightfield?.xMaxFt ?? 0) * 0.3048 + 1e-6)
    }

    func testOBJFacesReferToVertices() throws {
        let s = try service()
        let output = try s.mesh(MeshRequest(course: "gen", hole: 1, putt: nil, format: .obj))
        let lines = output.contents.split(separator: "\n")
        let vertices = lines.filter { $0.hasPrefix("v ") }.count
        let faces = lines.filter { $0.hasPrefix("f ") }
        XCTAssertEqual(vertices, output.parts.reduce(0) { $0 + $1.vertices })
        XCTAssertEqual(faces.count, output.parts.reduce(0) { $0 + $1.triangles })
        for f in faces.prefix(500) {
            for ref in f.split(separator: " ").dropFirst() {
                let i = Int(ref.split(separator: "/").first ?? "") ?? 0
                XCTAssertTrue((1...vertices).contains(i))
            }
        }
        XCTAssertEqual(output.parts.map(\.name), ["green", "flag"], "no putt: green and the configured cup")
        XCTAssertEqual(errorMessage { try MeshFormat(path: "green.stl") },
                       "green.stl: unknown mesh format: name the file .gltf (glTF 2.0) or .obj (Wavefront OBJ)")
    }

    func testDemoBuildsGreensSolvesBothModelsAndDraws() throws {
        let service = PuttingService(store: InMemoryPuttingStore())
        var progress: [Double] = []
        let demo = try service.demo(count: 2, seed: 7, traced: false, progress: { progress.append($0) })
        XCTAssertEqual(demo.results.count, 4)
        XCTAssertEqual(Set(demo.results.map(\.model)), [.physics, .compat])
        XCTAssertEqual(demo.files.map(\.name), ["demo-hole-1-physics.svg", "demo-hole-1-compat.svg", "demo-hole-1.gltf",
                                                "demo-hole-2-physics.svg", "demo-hole-2-compat.svg"])
        for file in demo.files where file.name.hasSuffix(".svg") { XCTAssertNoThrow(try SVGSummary.parse(file.contents)) }
        XCTAssertEqual(progress.last, 1)
        XCTAssertEqual(try service.holes(course: "demo").holes.count, 2)
        for r in demo.results where r.model == .physics { XCTAssertTrue(r.holed, r.text) }
    }
}
