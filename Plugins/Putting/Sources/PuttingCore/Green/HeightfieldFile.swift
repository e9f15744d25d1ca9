// Reading and writing the heightfield file pair of the original tools: `NAME.json` (grid metadata)
// and `NAME.bin` beside it (nz×nx little-endian float32, row = z index).
import ClubhouseJSON
import Glibc
import ClubhouseHashing

extension Heightfield {
    /// Reads `jsonPath` and the `.bin` with the same name beside it, validating both.
    public static func read(jsonPath: String, files: any LocalFileAccess = LocalFiles()) throws(HeightfieldError) -> Heightfield {
        let grid = try parseMetadata(try readFile(jsonPath, files: files), name: jsonPath)
        let binPath = binaryPath(forJSONPath: jsonPath)
        guard files.exists(binPath) else { throw .binaryMissing(file: binPath) }
        return try Heightfield(grid: grid, binary: try readFile(binPath, files: files), binaryName: binPath)
    }

    /// The `.bin` path that belongs to a heightfield `.json` path (same name, other extension).
    public static func binaryPath(forJSONPath path: String) -> String {
        if path.hasSuffix(".json") { return String(path.dropLast(5)) + ".bin" }
        return path + ".bin"
    }

    /// Parses metadata JSON bytes and a binary blob; names are used in error messages.
    public init(metadataJSON: [UInt8], metadataName: String, binary: [UInt8], binaryName: String)
        throws(HeightfieldError)
    {
        try self.init(grid: try Heightfield.parseMetadata(metadataJSON, name: metadataName), binary: binary, binaryName: binaryName)
    }

    /// Decodes a binary blob for a validated grid; the name is used in error messages.
    public init(grid: Grid, binary: [UInt8], binaryName: String) throws(HeightfieldError) {
        let expected = 4 * grid.nx * grid.nz
        guard binary.count == expected else {
            throw .binarySizeMismatch(file: binaryName, nx: grid.nx, nz: grid.nz, expected: expected, found: binary.count)
        }
        var heights = [Float](repeating: 0, count: grid.nx * grid.nz)
        heights.withUnsafeMutableBytes { target in
            binary.withUnsafeBytes { raw in
                #if _endian(little)
                target.copyMemory(from: raw)
                #else
                for i in 0..<(grid.nx * grid.nz) {
                    target.storeBytes(of: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)),
                                      toByteOffset: 4 * i, as: UInt32.self)
                }
                #endif
            }
        }
        do {
            try self.init(nx: grid.nx, nz: grid.nz, resolutionFt: grid.resolutionFt,
                          xMinFt: grid.xMinFt, zMinFt: grid.zMinFt, heights: heights)
        } catch {
            throw .inFile(file: binaryName, problem: error.description)
        }
    }

    /// The grid as the metadata file states it (validated: nx, nz ≥ 2, resolution > 0, finite origin).
    public struct Grid: Sendable, Equatable {
        public let nx: Int
        public let nz: Int
        public let resolutionFt: Double
        public let xMinFt: Double
        public let zMinFt: Double

        public init(nx: Int, nz: Int, resolutionFt: Double, xMinFt: Double, zMinFt: Double) {
            self.nx = nx
            self.nz = nz
            self.resolutionFt = resolutionFt
            self.xMinFt = xMinFt
            self.zMinFt = zMinFt
        }
    }

    /// Reads and validates the grid block of a heightfield `.json`.
    public static func parseMetadata(_ bytes: [UInt8], name: String) throws(HeightfieldError) -> Grid {
        let fields: JSONFields
        do {
            fields = try JSONFields(text: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw .invalidJSON(file: name, line: error.location.line, column: error.location.column, message: error.message)
        }
        func bad(_ p: FieldProblem) -> HeightfieldError {
            .badField(file: name, line: p.line, column: p.column, field: p.field, problem: p.problem)
        }
        do throws(FieldProblem) {
            guard fields.root.objectValue != nil else {
                throw fields.problem("", "must be an object with a \"grid\" member")
            }
            for axis in ["x", "y", "z"] {
                if let unit = fields.value("/units/\(axis)") {
                    guard unit.stringValue == "ft" else {
                        throw fields.problem("/units/\(axis)", "must be \"ft\" (heights and positions are in feet), found \(unit)")
                    }
                }
            }
            let nx = try fields.int("/grid/nx")
            let nz = try fields.int("/grid/nz")
            guard nx >= 2 else { throw fields.problem("/grid/nx", "is \(nx): it must be at least 2") }
            guard nz >= 2 else { throw fields.problem("/grid/nz", "is \(nz): it must be at least 2") }
            guard nx <= maxCells / nz else {
                throw fields.problem("/grid/nx", "× grid.nz = \(nx)×\(nz) is more than \(maxCells) cells: use a coarser grid")
            }
            let resolution = try fields.double("/grid/resolution_ft")
            guard resolution > 0 else {
                throw fields.problem("/grid/resolution_ft", "is \(resolution): it must be greater than 0")
            }
            _ = try fields.double("/grid/resolution_ft", plausible: PlausibleFeet.spacing)
            let xMin = try fields.double("/grid/x_min_ft", plausible: PlausibleFeet.coordinate)
            let zMin = try fields.double("/grid/z_min_ft", plausible: PlausibleFeet.coordinate)
            return Grid(nx: nx, nz: nz, resolutionFt: resolution, xMinFt: xMin, zMinFt: zMin)
        } catch {
            throw bad(error)
        }
    }

    /// The metadata `.json` in the original layout (pretty, two-space indent).
    public func metadataJSON() -> String {
        let value: JSONValue = [
            "units": ["x": "ft", "z": "ft", "y": "ft"],
            "grid": [
                "nx": .int(nx),
                "nz": .int(nz),
                "resolution_ft": .double(resolutionFt),
                "x_min_ft": .double(xMinFt),
                "z_min_ft": .double(zMinFt),
            ],
        ]
        return JSONWriter.pretty(value) + "\n"
    }

    /// The `.bin` bytes: nz×nx little-endian float32.
    public func binaryData() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 4 * heights.count)
        out.withUnsafeMutableBytes { raw in
            heights.withUnsafeBytes { source in
                #if _endian(little)
                raw.copyMemory(from: source)
                #else
                for i in 0..<heights.count {
                    raw.storeBytes(of: heights[i].bitPattern.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
                }
                #endif
            }
        }
        return out
    }

    /// Writes `jsonPath` and the `.bin` beside it.
    public func write(jsonPath: String) throws(HeightfieldError) {
        try writeFile(Array(metadataJSON().utf8), to: jsonPath)
        try writeFile(binaryData(), to: Heightfield.binaryPath(forJSONPath: jsonPath))
    }

    /// SHA-256 (hex) of the grid and heights in a canonical form, so the same green always has the
    /// same hash whatever file it came from: the compact metadata
    /// `{"nx":…,"nz":…,"resolution_ft":…,"x_min_ft":…,"z_min_ft":…}`, a newline, then the `.bin` bytes.
    public var contentHash: String {
        let header: JSONValue = [
            "nx": .int(nx),
            "nz": .int(nz),
            "resolution_ft": .double(resolutionFt),
            "x_min_ft": .double(xMinFt),
            "z_min_ft": .double(zMinFt),
        ]
        var hasher = SHA256()
        hasher.update(Array((JSONWriter.compact(header) + "\n").utf8))
        hasher.update(binaryData())
        return hasher.finalizeHex()
    }
}

/// Reads a whole file, mapping failures to a one-line error.
func readFile(_ path: String, files: any LocalFileAccess) throws(HeightfieldError) -> [UInt8] {
    guard files.exists(path) else { throw .unreadable(file: path, reason: "no such file") }
    guard !files.isDirectory(path) else { throw .unreadable(file: path, reason: "it is a directory") }
    guard let bytes = files.contents(path) else {
        throw .unreadable(file: path, reason: "permission denied or I/O error")
    }
    return bytes
}

/// Writes a whole file atomically, mapping failures to a one-line error.
func writeFile(_ bytes: [UInt8], to path: String) throws(HeightfieldError) {
    let temporary = path + ".partial-\(getpid())"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .unwritable(file: path, reason: String(cString: strerror(errno))) }
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
            let reason = n < 0 ? String(cString: strerror(errno)) : "nothing written"
            close(fd)
            unlink(temporary)
            throw .unwritable(file: path, reason: reason)
        }
        offset += n
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw .unwritable(file: path, reason: reason)
    }
}
