// Writes a GlobeMesh as glTF 2.0 (one .gltf file, its buffer embedded as base64) or as Wavefront
// OBJ with an MTL file; either way each country has its own material in the palette's colour.

import ClubhouseJSON
import Glibc
import ClubhouseGraphics

public enum GLTFWriter {
    /// The complete .gltf JSON text.
    public static func write(_ mesh: GlobeMesh) -> String {
        var buffer = GLTFBuffer()
        var meshes: [JSONValue] = []
        var materials: [JSONValue] = []
        var nodes: [JSONValue] = []

        for part in mesh.parts where !part.indices.isEmpty {
            // Positions, then normals (the unit position on a sphere), then indices.
            let positions = part.positions[0..<(3 * part.vertexCount)]
            var lo = [Float](repeating: .infinity, count: 3), hi = [Float](repeating: -.infinity, count: 3)
            var normals: [Float] = []
            normals.reserveCapacity(positions.count)
            for k in 0..<part.vertexCount {
                for axis in 0..<3 {
                    let v = part.positions[3 * k + axis]
                    lo[axis] = min(lo[axis], v)
                    hi[axis] = max(hi[axis], v)
                }
                let x = part.positions[3 * k], y = part.positions[3 * k + 1], z = part.positions[3 * k + 2]
                let length = (x * x + y * y + z * z).squareRoot()
                let s: Float = length > 0 ? 1 / length : 0
                normals += [x * s, y * s, z * s]
            }
            let positionView = buffer.view(buffer.appendFloats(positions), target: GLTFBuffer.vertexTarget)
            let normalView = buffer.view(buffer.appendFloats(normals), target: GLTFBuffer.vertexTarget)
            let indexView = buffer.view(buffer.appendIndices(part.indices), target: GLTFBuffer.indexTarget)
            let accessorBase = buffer.accessor(view: positionView, componentType: GLTFBuffer.float, count: part.vertexCount, type: "VEC3",
                                               min: lo.map(Double.init), max: hi.map(Double.init))
            _ = buffer.accessor(view: normalView, componentType: GLTFBuffer.float, count: part.vertexCount, type: "VEC3")
            _ = buffer.accessor(view: indexView, componentType: GLTFBuffer.unsignedInt, count: part.indices.count, type: "SCALAR")
            let linear = [part.color.r, part.color.g, part.color.b].map(srgbToLinear)
            materials.append(["name": .string(part.id),
                              "pbrMetallicRoughness": ["baseColorFactor": .array(linear.map { .double(round6($0)) } + [1]),
                                                       "metallicFactor": 0, "roughnessFactor": 1]])
            meshes.append(["name": .string(part.name),
                           "primitives": [["attributes": ["POSITION": .int(accessorBase), "NORMAL": .int(accessorBase + 1)],
                                           "indices": .int(accessorBase + 2), "material": .int(materials.count - 1), "mode": 4]]])
            nodes.append(["name": .string(part.id), "mesh": .int(meshes.count - 1)])
        }
        buffer.align()
        return GLTF.embeddedDocument(generator: "Clubhouse globe", sceneName: "globe", nodes: nodes, meshes: meshes,
                                     materials: materials, accessors: buffer.accessors, bufferViews: buffer.bufferViews,
                                     buffer: buffer.bytes)
    }

    static func srgbToLinear(_ c: Double) -> Double {
        c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    static func round6(_ v: Double) -> Double { (v * 1e6).rounded() / 1e6 }

}

public enum OBJWriter {
    /// The .obj text (referring to `materialLibrary`) and the .mtl text.
    public static func write(_ mesh: GlobeMesh, materialLibrary: String) -> (obj: String, mtl: String) {
        var obj = SVGText(capacity: 1 << 20)
        var mtl = SVGText(capacity: 16_384)
        obj.append("# Clubhouse globe: one object per country, lon/lat on a sphere of radius " as StaticString)
        obj.appendNumber(mesh.radius, decimals: 6)
        obj.append("\nmtllib " as StaticString)
        obj.append(materialLibrary)
        obj.appendByte(10)
        mtl.append("# Clubhouse globe materials: palette colours (sRGB)\n" as StaticString)
        var base = 1
        for part in mesh.parts where !part.indices.isEmpty {
            mtl.append("newmtl " as StaticString)
            mtl.append(part.id)
            mtl.append("\nKd " as StaticString)
            mtl.appendNumber(part.color.r, decimals: 6)
            mtl.appendByte(32)
            mtl.appendNumber(part.color.g, decimals: 6)
            mtl.appendByte(32)
            mtl.appendNumber(part.color.b, decimals: 6)
            mtl.append("\nKa 0 0 0\nKs 0 0 0\nd 1\nillum 1\n\n" as StaticString)

            obj.append("o " as StaticString)
            obj.append(part.id)
            obj.append("\nusemtl " as StaticString)
            obj.append(part.id)
            obj.appendByte(10)
            for k in 0..<part.vertexCount {
                obj.append("v " as StaticString)
                obj.appendNumber(Double(part.positions[3 * k]), decimals: 6)
                obj.appendByte(32)
                obj.appendNumber(Double(part.positions[3 * k + 1]), decimals: 6)
                obj.appendByte(32)
                obj.appendNumber(Double(part.positions[3 * k + 2]), decimals: 6)
                obj.appendByte(10)
            }
            var t = 0
            while t + 2 < part.indices.count {
                obj.append("f " as StaticString)
                obj.appendInteger(base + Int(part.indices[t]))
                obj.appendByte(32)
                obj.appendInteger(base + Int(part.indices[t + 1]))
                obj.appendByte(32)
                obj.appendInteger(base + Int(part.indices[t + 2]))
                obj.appendByte(10)
                t += 3
            }
            base += part.vertexCount
        }
        return (obj.string, mtl.string)
    }
}
