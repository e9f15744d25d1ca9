// A 3D mesh of a green with a putt's path as a tube and the cup with a flagstick, written as
// glTF 2.0 (one .gltf file, buffer embedded as base64) or Wavefront OBJ (with vertex colours).
// Units are metres, +Y up; the green's +x (east) is glTF +X and its +z (north) is glTF −Z, so the
// frame stays right-handed.
import ClubhouseJSON
import Glibc
import ClubhouseGraphics

/// One triangle mesh part (the green, the path, the flag).
public struct MeshPart: Sendable, Equatable {
    public var name: String
    /// x, y, z per vertex (metres, glTF frame).
    public var positions: [Float] = []
    public var normals: [Float] = []
    /// r, g, b per vertex in 0…1.
    public var colours: [Float] = []
    public var indices: [UInt32] = []
    /// Base colour of the material (r, g, b, a).
    public var baseColour: [Double] = [1, 1, 1, 1]

    public var vertexCount: Int { positions.count / 3 }
    public var triangleCount: Int { indices.count / 3 }

    mutating func vertex(_ p: (Float, Float, Float), normal n: (Float, Float, Float), colour c: (Float, Float, Float)) -> UInt32 {
        positions += [p.0, p.1, p.2]
        normals += [n.0, n.1, n.2]
        colours += [c.0, c.1, c.2]
        return UInt32(vertexCount - 1)
    }
}

/// The green, the path and the flag as meshes.
public struct GreenMesh: Sendable {
    public var parts: [MeshPart]

    static let metresPerFoot = 0.3048

    /// Builds the meshes. `mask` marks green cells (nil: height > 0); `verticalExaggeration` scales
    /// heights so gentle slopes show; `path` points are (x, z, y) in feet.
    public init(heightfield hf: Heightfield, mask: [Bool]? = nil, path: [(x: Double, z: Double, y: Double)] = [],
                flag: PointFt? = nil, verticalExaggeration: Double = 1)
    {
        let m = Float(GreenMesh.metresPerFoot)
        let ve = Float(verticalExaggeration)
        let mask = mask ?? hf.heights.map { $0 > 0 }
        func world(_ x: Double, _ z: Double, _ y: Double) -> (Float, Float, Float) {
            (Float(x) * m, Float(y) * m * ve, -Float(z) * m)
        }
        var lo = Float.infinity, hi = -Float.infinity
        for k in hf.heights.indices where mask[k] { lo = Swift.min(lo, hf.heights[k]); hi = Swift.max(hi, hf.heights[k]) }
        if !(lo <= hi) { lo = 0; hi = 1 }
        let span = Swift.max(hi - lo, 1e-6)

        var green = MeshPart(name: "green")
        var index = [Int32](repeating: -1, count: hf.nx * hf.nz)
        for row in 0..<hf.nz {
            for column in 0..<hf.nx where mask[row * hf.nx + column] {
                let k = row * hf.nx + column
                func h(_ c: Int, _ r: Int) -> Double {
                    let cc = Swift.min(Swift.max(c, 0), hf.nx - 1), rr = Swift.min(Swift.max(r, 0), hf.nz - 1)
                    return mask[rr * hf.nx + cc] ? Double(hf[cc, rr]) : Double(hf[column, row])
                }
                // Normal of the exaggerated surface from central differences (glTF frame: z flipped).
                let dx = (h(column + 1, row) - h(column - 1, row)) / (2 * hf.resolutionFt) * verticalExaggeration
                let dz = (h(column, row + 1) - h(column, row - 1)) / (2 * hf.resolutionFt) * verticalExaggeration
                let n = (1 + dx * dx + dz * dz).squareRoot()
                let t = (hf.heights[k] - lo) / span
                let colour = GreenMesh.ramp(Double(t))
                index[k] = Int32(green.vertex(world(hf.xFt(column: column), hf.zFt(row: row), Double(hf.heights[k])),
                                              normal: (Float(-dx / n), Float(1 / n), Float(dz / n)), colour: colour))
            }
        }
        // Two triangles per square of four green cells, wound counter-clockwise seen from above (+Y).
        for row in 0..<(hf.nz - 1) {
            for column in 0..<(hf.nx - 1) {
                let a = index[row * hf.nx + column], b = index[row * hf.nx + column + 1]
                let c = index[(row + 1) * hf.nx + column], d = index[(row + 1) * hf.nx + column + 1]
                // In glTF, north (+row) is −Z: a(x,−z) b(x+1,−z) c(x,−z−1) d(x+1,−z−1); seen from +Y, a→b→d→c is CCW.
                if a >= 0, b >= 0, d >= 0 { green.indices += [UInt32(a), UInt32(b), UInt32(d)] }
                if a >= 0, d >= 0, c >= 0 { green.indices += [UInt32(a), UInt32(d), UInt32(c)] }
                if a >= 0, b >= 0, c >= 0, d < 0 { green.indices += [UInt32(a), UInt32(b), UInt32(c)] }
                if b >= 0, d >= 0, c >= 0, a < 0 { green.indices += [UInt32(b), UInt32(d), UInt32(c)] }
            }
        }
        green.baseColour = [1, 1, 1, 1]
        parts = [green]

        if path.count >= 2 {
            parts.append(GreenMesh.tube(path.map { world($0.x, $0.z, $0.y) }, radius: 0.03, lift: 0.03))
        }
        if let flag {
            let y = hf.bilinearHeight(xFt: flag.x, zFt: flag.z)
            parts.append(GreenMesh.flagstick(at: world(flag.x, flag.z, y)))
        }
    }

    static func ramp(_ t: Double) -> (Float, Float, Float) {
        let stops = GreenPicture.ramp
        var k = 0
        while k < stops.count - 2 && t > stops[k + 1].0 { k += 1 }
        let (t0, c0) = stops[k], (t1, c1) = stops[k + 1]
        let f = Swift.min(1, Swift.max(0, (t - t0) / (t1 - t0)))
        return (Float((c0.0 + (c1.0 - c0.0) * f) / 255), Float((c0.1 + (c1.1 - c0.1) * f) / 255), Float((c0.2 + (c1.2 - c0.2) * f) / 255))
    }

    /// A tube of 8 sides along points (metres), lifted so it sits on the surface.
    static func tube(_ points: [(Float, Float, Float)], radius: Float, lift: Float) -> MeshPart {
        var part = MeshPart(name: "path")
        part.baseColour = [0.9, 0.32, 0, 1]
        // Drop repeated points.
        var pts: [(Float, Float, Float)] = []
        for p in points {
            if let l = pts.last, abs(l.0 - p.0) + abs(l.1 - p.1) + abs(l.2 - p.2) < 1e-5 { continue }
            pts.append((p.0, p.1 + lift, p.2))
        }
        guard pts.count >= 2 else { return part }
        let sides = 8
        for i in pts.indices {
            let a = pts[Swift.max(0, i - 1)], b = pts[Swift.min(pts.count - 1, i + 1)]
            var t = (b.0 - a.0, b.1 - a.1, b.2 - a.2)
            let tl = (t.0 * t.0 + t.1 * t.1 + t.2 * t.2).squareRoot()
            t = tl > 0 ? (t.0 / tl, t.1 / tl, t.2 / tl) : (1, 0, 0)
            // Side vector: horizontal, perpendicular to the tangent; up vector: tangent × side.
            var s = (-t.2, Float(0), t.0)
            let sl = (s.0 * s.0 + s.2 * s.2).squareRoot()
            s = sl > 0 ? (s.0 / sl, 0, s.2 / sl) : (1, 0, 0)
            let u = (t.1 * s.2 - t.2 * s.1, t.2 * s.0 - t.0 * s.2, t.0 * s.1 - t.1 * s.0)
            for k in 0..<sides {
                let ang = Float(k) / Float(sides) * 2 * .pi
                let c = cos(ang), sn = sin(ang)
                let n = (s.0 * c + u.0 * sn, s.1 * c + u.1 * sn, s.2 * c + u.2 * sn)
                let p = pts[i]
                _ = part.vertex((p.0 + radius * n.0, p.1 + radius * n.1, p.2 + radius * n.2), normal: n, colour: (0.9, 0.32, 0))
            }
        }
        for i in 0..<(pts.count - 1) {
            for k in 0..<sides {
                let a = UInt32(i * sides + k), b = UInt32(i * sides + (k + 1) % sides)
                let c = UInt32((i + 1) * sides + k), d = UInt32((i + 1) * sides + (k + 1) % sides)
                part.indices += [a, c, b, b, c, d]
            }
        }
        return part
    }

    /// A thin square pole 2.1 m tall standing in the cup.
    static func flagstick(at p: (Float, Float, Float)) -> MeshPart {
        var part = MeshPart(name: "flag")
        part.baseColour = [0.85, 0.15, 0.15, 1]
        let r: Float = 0.0125, top: Float = 2.1
        let corners: [(Float, Float)] = [(-r, -r), (r, -r), (r, r), (-r, r)]
        for (k, c) in corners.enumerated() {
            let n = (c.0 / r / Float(2).squareRoot(), Float(0), c.1 / r / Float(2).squareRoot())
            _ = part.vertex((p.0 + c.0, p.1, p.2 + c.1), normal: n, colour: (0.9, 0.9, 0.9))
            _ = part.vertex((p.0 + c.0, p.1 + top, p.2 + c.1), normal: n, colour: (0.9, 0.9, 0.9))
            let a = UInt32(2 * k), b = UInt32(2 * k + 1), cc = UInt32(2 * ((k + 1) % 4)), d = UInt32(2 * ((k + 1) % 4) + 1)
            part.indices += [a, cc, b, b, cc, d]
        }
        return part
    }

    /// glTF 2.0 JSON with the buffer embedded as a base64 data URI.
    public func gltf() -> String {
        var buffer = GLTFBuffer()
        var meshes: [JSONValue] = []
        var materials: [JSONValue] = []
        var nodes: [JSONValue] = []

        for part in parts where part.triangleCount > 0 {
            var lo = [Double](repeating: .infinity, count: 3), hi = [Double](repeating: -.infinity, count: 3)
            for i in 0..<part.vertexCount {
                for a in 0..<3 {
                    lo[a] = Swift.min(lo[a], Double(part.positions[3 * i + a])); hi[a] = Swift.max(hi[a], Double(part.positions[3 * i + a]))
                }
            }
            func vertices(_ values: [Float], min: [Double]? = nil, max: [Double]? = nil) -> Int {
                buffer.accessor(view: buffer.view(buffer.appendFloats(values), target: GLTFBuffer.vertexTarget),
                                componentType: GLTFBuffer.float, count: part.vertexCount, type: "VEC3", min: min, max: max)
            }
            let position = vertices(part.positions, min: lo, max: hi)
            let normal = vertices(part.normals)
            let colour = vertices(part.colours)
            let indices = buffer.accessor(view: buffer.view(buffer.appendIndices(part.indices), target: GLTFBuffer.indexTarget),
                                          componentType: GLTFBuffer.unsignedInt, count: part.indices.count, type: "SCALAR")
            materials.append([
                "name": .string(part.name),
                "pbrMetallicRoughness": ["baseColorFactor": .array(part.baseColour.map(JSONValue.double)),
                                         "metallicFactor": 0.0, "roughnessFactor": 0.9],
                "doubleSided": true,
            ])
            meshes.append([
                "name": .string(part.name),
                "primitives": [["attributes": ["POSITION": .int(position), "NORMAL": .int(normal), "COLOR_0": .int(colour)],
                                "indices": .int(indices), "material": .int(materials.count - 1), "mode": 4]],
            ])
            nodes.append(["name": .string(part.name), "mesh": .int(meshes.count - 1)])
        }
        buffer.align()
        return GLTF.embeddedDocument(generator: "clubhouse putting", sceneName: "green", nodes: nodes, meshes: meshes,
                                     materials: materials, accessors: buffer.accessors, bufferViews: buffer.bufferViews,
                                     buffer: buffer.bytes)
    }

    /// Wavefront OBJ: one object per part, `v x y z r g b`, normals, 1-based faces.
    public func obj() -> String {
        var out = "# clubhouse putting: green mesh, metres, +Y up\n"
        var base = 0
        for part in parts where part.triangleCount > 0 {
            out += "o \(part.name)\n"
            for i in 0..<part.vertexCount {
                out += "v \(fixed(Double(part.positions[3 * i]), 5)) \(fixed(Double(part.positions[3 * i + 1]), 5)) \(fixed(Double(part.positions[3 * i + 2]), 5))"
                out += " \(fixed(Double(part.colours[3 * i]), 3)) \(fixed(Double(part.colours[3 * i + 1]), 3)) \(fixed(Double(part.colours[3 * i + 2]), 3))\n"
            }
            for i in 0..<part.vertexCount {
                out += "vn \(fixed(Double(part.normals[3 * i]), 5)) \(fixed(Double(part.normals[3 * i + 1]), 5)) \(fixed(Double(part.normals[3 * i + 2]), 5))\n"
            }
            for t in 0..<part.triangleCount {
                let a = Int(part.indices[3 * t]) + base + 1, b = Int(part.indices[3 * t + 1]) + base + 1, c = Int(part.indices[3 * t + 2]) + base + 1
                out += "f \(a)//\(a) \(b)//\(b) \(c)//\(c)\n"
            }
            base += part.vertexCount
        }
        return out
    }
}
