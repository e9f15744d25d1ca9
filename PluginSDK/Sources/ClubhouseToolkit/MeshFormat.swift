// The mesh file formats the drawing plugins write (globe, putting): glTF 2.0 (one .gltf file, its
// buffer embedded) or Wavefront OBJ.

public enum MeshFormat: String, Sendable, Codable, CaseIterable {
    case gltf, obj

    /// The format for a file name (by extension, any case), or nil when it names neither.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".gltf") { self = .gltf } else if lower.hasSuffix(".obj") { self = .obj } else { return nil }
    }
}
