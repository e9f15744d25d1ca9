// The heightfield the processing step produces, and its files in the original format:
// `Hole_N_heightfield.bin` (nz×nx little-endian float32, row = z index) and
// `Hole_N_heightfield.json` (the grid description, byte for byte as the original wrote it).
import ClubhouseJSON

/// A processed green: heights on the grid nodes, 0 outside the green and 0 at the lowest inside node.
public struct ProcessedGrid: Sendable, Equatable {
    /// Nodes along x (columns) and z (rows).
    public let nx: Int
    public let nz: Int
    public let resolutionFt: Double
    /// Coordinates of node (0, 0); node (i, j) is at x = xMinFt + i·res, z = zMinFt + j·res.
    public let xMinFt: Double
    public let zMinFt: Double
    /// nz×nx heights in feet, row-major, row = z index (row 0 = smallest z).
    public let heights: [Float]
    /// nz×nx, true where the node lies strictly inside the boundary.
    public let mask: [Bool]

    public init(nx: Int, nz: Int, resolutionFt: Double, xMinFt: Double, zMinFt: Double, heights: [Float], mask: [Bool]) {
        self.nx = nx
        self.nz = nz
        self.resolutionFt = resolutionFt
        self.xMinFt = xMinFt
        self.zMinFt = zMinFt
        self.heights = heights
        self.mask = mask
    }

    public func height(i: Int, j: Int) -> Float { heights[j * nx + i] }
    public func isInside(i: Int, j: Int) -> Bool { mask[j * nx + i] }
    public var insideCount: Int { mask.reduce(0) { $0 + ($1 ? 1 : 0) } }

    /// The `.bin` file: 4·nx·nz bytes.
    public var binBytes: [UInt8] { HeightfieldFileFormat.binBytes(heights) }

    /// The `.json` grid file, as the original pipeline wrote it.
    public var gridJSON: String {
        HeightfieldFileFormat.gridJSON(nx: nx, nz: nz, resolutionFt: resolutionFt, xMinFt: xMinFt, zMinFt: zMinFt)
    }

    /// The two files of hole `hole`: `Hole_N_heightfield.json` and `Hole_N_heightfield.bin`.
    public func files(hole: Int) -> [(name: String, bytes: [UInt8])] {
        let names = HeightfieldFileFormat.fileNames(hole: hole)
        return [(names.json, Array(gridJSON.utf8)), (names.bin, binBytes)]
    }
}

/// The original heightfield file format, usable for any grid (also one read back from storage).
public enum HeightfieldFileFormat {
    public static func fileNames(hole: Int) -> (json: String, bin: String) {
        ("Hole_\(hole)_heightfield.json", "Hole_\(hole)_heightfield.bin")
    }

    /// Little-endian float32, in the order given.
    public static func binBytes(_ heights: [Float]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: heights.count * 4)
        for (i, h) in heights.enumerated() {
            let bits = h.bitPattern
            bytes[4 * i] = UInt8(truncatingIfNeeded: bits)
            bytes[4 * i + 1] = UInt8(truncatingIfNeeded: bits >> 8)
            bytes[4 * i + 2] = UInt8(truncatingIfNeeded: bits >> 16)
            bytes[4 * i + 3] = UInt8(truncatingIfNeeded: bits >> 24)
        }
        return bytes
    }

    /// `{"units": …, "grid": {nx, nz, resolution_ft, x_min_ft, z_min_ft}, "mask": …}` with two-space
    /// indentation, shortest round-trip numbers and no final newline, as the original wrote it.
    public static func gridJSON(nx: Int, nz: Int, resolutionFt: Double, xMinFt: Double, zMinFt: Double) -> String {
        let document: JSONValue = .object(JSONObject([
            ("units", .object(JSONObject([("x", "ft"), ("z", "ft"), ("y", "ft")]))),
            ("grid", .object(JSONObject([
                ("nx", .int(nx)),
                ("nz", .int(nz)),
                ("resolution_ft", number(resolutionFt)),
                ("x_min_ft", number(xMinFt)),
                ("z_min_ft", number(zMinFt)),
            ]))),
            ("mask", .object(JSONObject([("format", "uint8"), ("note", "mask array not written yet; inside=true")]))),
        ]))
        return JSONWriter.pretty(document)
    }

    /// A finite double as Python's `repr` writes it (shortest round trip); non-finite values become 0.
    private static func number(_ value: Double) -> JSONValue {
        value.isFinite ? .double(value) : .int(0)
    }
}
