// The green surface as a regular grid of heights in feet, the form every model, picture and file
// of this plugin shares. Row-major nz×nx Float32, row = z index, column = x index; the cell centre
// of (column i, row j) is (x_min + i·res, z_min + j·res). Outside the green a cell holds 0.

/// A regular grid of green heights (feet). Values are always finite; `resolutionFt` > 0.
public struct Heightfield: Sendable, Equatable {
    /// Columns (x direction).
    public let nx: Int
    /// Rows (z direction).
    public let nz: Int
    /// Cell spacing in feet, the same along x and z.
    public let resolutionFt: Double
    /// x of column 0's centre.
    public let xMinFt: Double
    /// z of row 0's centre.
    public let zMinFt: Double
    /// Heights in feet, row-major: `heights[row * nx + column]`.
    public let heights: [Float]

    /// The largest grid accepted (a guard against absurd files, 64 Mi cells = 256 MiB of Float32).
    public static let maxCells = 1 << 26

    /// Makes a heightfield, checking the grid is consistent and every height is finite.
    public init(nx: Int, nz: Int, resolutionFt: Double, xMinFt: Double, zMinFt: Double, heights: [Float])
        throws(HeightfieldError)
    {
        guard nx >= 2, nz >= 2 else { throw .gridTooSmall(nx: nx, nz: nz) }
        guard nx <= Heightfield.maxCells / nz else { throw .gridTooLarge(nx: nx, nz: nz) }
        guard resolutionFt.isFinite, resolutionFt > 0 else { throw .nonPositiveResolution(resolutionFt) }
        guard xMinFt.isFinite, zMinFt.isFinite else { throw .nonFiniteOrigin(xMinFt: xMinFt, zMinFt: zMinFt) }
        guard heights.count == nx * nz else { throw .heightCountMismatch(expected: nx * nz, found: heights.count) }
        // Finite and within the heights a traced green may have (±100 000 ft): no slope or picture band overflows.
        if let bad = heights.firstIndex(where: { !$0.isFinite || abs(Double($0)) > TracedContours.maxHeightFt }) {
            throw .nonFiniteHeight(column: bad % nx, row: bad / nx, value: heights[bad])
        }
        self.nx = nx
        self.nz = nz
        self.resolutionFt = resolutionFt
        self.xMinFt = xMinFt
        self.zMinFt = zMinFt
        self.heights = heights
    }

    /// Makes a heightfield by evaluating `height(x, z)` at every cell centre.
    public init(nx: Int, nz: Int, resolutionFt: Double, xMinFt: Double, zMinFt: Double,
                height: (Double, Double) -> Double) throws(HeightfieldError)
    {
        var values = [Float](repeating: 0, count: max(0, nx) * max(0, nz))
        if nx > 0, nz > 0, nx <= Heightfield.maxCells / nz {
            for row in 0..<nz {
                let z = zMinFt + Double(row) * resolutionFt
                for column in 0..<nx {
                    values[row * nx + column] = Float(height(xMinFt + Double(column) * resolutionFt, z))
                }
            }
        }
        try self.init(nx: nx, nz: nz, resolutionFt: resolutionFt, xMinFt: xMinFt, zMinFt: zMinFt, heights: values)
    }

    /// The height of cell (column, row). Indices must be in range.
    @inlinable public subscript(column: Int, row: Int) -> Float {
        heights[row * nx + column]
    }

    /// x of a column's centre, computed as the original loader did (`i·res + x_min`).
    @inlinable public func xFt(column: Int) -> Double { Double(column) * resolutionFt + xMinFt }
    /// z of a row's centre (`j·res + z_min`).
    @inlinable public func zFt(row: Int) -> Double { Double(row) * resolutionFt + zMinFt }

    /// x of the last column's centre.
    public var xMaxFt: Double { xFt(column: nx - 1) }
    /// z of the last row's centre.
    public var zMaxFt: Double { zFt(row: nz - 1) }

    /// True when (x, z) lies within the span of cell centres.
    public func spans(xFt x: Double, zFt z: Double) -> Bool {
        x >= xMinFt && x <= xMaxFt && z >= zMinFt && z <= zMaxFt
    }

    /// True when the cell holds a height above 0, the original loader's green mask.
    @inlinable public func isGreen(column: Int, row: Int) -> Bool { heights[row * nx + column] > 0 }

    /// Lowest and highest height over the whole grid.
    public var heightRange: ClosedRange<Float> {
        var lo = Float.greatestFiniteMagnitude
        var hi = -Float.greatestFiniteMagnitude
        for h in heights {
            lo = Swift.min(lo, h)
            hi = Swift.max(hi, h)
        }
        return lo...hi
    }

    /// Height by bilinear interpolation of the cell centres, clamped to the grid's span.
    public func bilinearHeight(xFt x: Double, zFt z: Double) -> Double {
        let fx = Swift.min(Swift.max((x - xMinFt) / resolutionFt, 0), Double(nx - 1))
        let fz = Swift.min(Swift.max((z - zMinFt) / resolutionFt, 0), Double(nz - 1))
        let i = Swift.min(Int(fx), nx - 2)
        let j = Swift.min(Int(fz), nz - 2)
        let tx = fx - Double(i)
        let tz = fz - Double(j)
        let h00 = Double(heights[j * nx + i]), h10 = Double(heights[j * nx + i + 1])
        let h01 = Double(heights[(j + 1) * nx + i]), h11 = Double(heights[(j + 1) * nx + i + 1])
        return (h00 * (1 - tx) + h10 * tx) * (1 - tz) + (h01 * (1 - tx) + h11 * tx) * tz
    }
}

extension Heightfield {
    /// A grid of zeros (every cell off the green) that cannot fail: sizes are clamped to 2…4096 and a
    /// non-finite or non-positive resolution or origin is replaced. For drawing a green's sources
    /// before it has a surface.
    static func zeros(nx: Int, nz: Int, resolutionFt: Double, xMinFt: Double, zMinFt: Double) -> Heightfield {
        self.init(unchecked: Swift.max(2, Swift.min(nx, 4096)), Swift.max(2, Swift.min(nz, 4096)),
                  resolutionFt.isFinite && resolutionFt > 0 ? resolutionFt : 1, xMinFt.isFinite ? xMinFt : 0,
                  zMinFt.isFinite ? zMinFt : 0)
    }

    private init(unchecked nx: Int, _ nz: Int, _ resolutionFt: Double, _ xMinFt: Double, _ zMinFt: Double) {
        self.nx = nx
        self.nz = nz
        self.resolutionFt = resolutionFt
        self.xMinFt = xMinFt
        self.zMinFt = zMinFt
        heights = [Float](repeating: 0, count: nx * nz)
    }
}

/// Why a heightfield (in memory or on disk) was refused. Each message is one line naming the file
/// and place when known, what was wrong, and what to do.
public enum HeightfieldError: Error, Sendable, Equatable, CustomStringConvertible {
    case gridTooSmall(nx: Int, nz: Int)
    case gridTooLarge(nx: Int, nz: Int)
    case nonPositiveResolution(Double)
    case nonFiniteOrigin(xMinFt: Double, zMinFt: Double)
    case heightCountMismatch(expected: Int, found: Int)
    case nonFiniteHeight(column: Int, row: Int, value: Float)
    /// A file could not be read at all.
    case unreadable(file: String, reason: String)
    /// A file could not be written.
    case unwritable(file: String, reason: String)
    /// The metadata JSON is not valid JSON.
    case invalidJSON(file: String, line: Int, column: Int, message: String)
    /// A field of the metadata is missing or has the wrong type or value.
    case badField(file: String, line: Int, column: Int, field: String, problem: String)
    /// The `.bin` beside the metadata is missing.
    case binaryMissing(file: String)
    /// The `.bin` size is not 4·nx·nz bytes.
    case binarySizeMismatch(file: String, nx: Int, nz: Int, expected: Int, found: Int)
    /// A grid was refused while reading a file (the wrapped problem names what).
    case inFile(file: String, problem: String)

    public var description: String {
        switch self {
        case .gridTooSmall(let nx, let nz):
            return "heightfield grid \(nx)×\(nz) is too small: nx and nz must both be at least 2"
        case .gridTooLarge(let nx, let nz):
            return "heightfield grid \(nx)×\(nz) is too large (more than \(Heightfield.maxCells) cells): use a coarser resolution"
        case .nonPositiveResolution(let r):
            return "heightfield resolution_ft is \(r): it must be a finite number greater than 0"
        case .nonFiniteOrigin(let x, let z):
            return "heightfield origin (x_min_ft \(x), z_min_ft \(z)) is not finite: give finite numbers"
        case .heightCountMismatch(let expected, let found):
            return "heightfield has \(found) heights but its grid needs nx·nz = \(expected): give one height per cell"
        case .nonFiniteHeight(let column, let row, let value):
            return "heightfield height at column \(column), row \(row) is \(value): every height must be a finite number of feet "
                + "within ±\(Int(TracedContours.maxHeightFt)) (use 0 outside the green)"
        case .unreadable(let file, let reason):
            return "\(file): cannot read (\(reason)): check the path and permissions"
        case .unwritable(let file, let reason):
            return "\(file): cannot write (\(reason)): check the directory exists and is writable"
        case .invalidJSON(let file, let line, let column, let message):
            return "\(file):\(line):\(column): invalid JSON: \(message)"
        case .badField(let file, let line, let column, let field, let problem):
            return "\(file):\(line):\(column): \(field) \(problem)"
        case .binaryMissing(let file):
            return "\(file): heightfield data file is missing: put the .bin (nz×nx little-endian float32) beside the .json"
        case .binarySizeMismatch(let file, let nx, let nz, let expected, let found):
            return "\(file): size is \(found) bytes but a \(nx)×\(nz) grid needs 4·nx·nz = \(expected) bytes: the .bin does not match its .json"
        case .inFile(let file, let problem):
            return "\(file): \(problem)"
        }
    }
}
