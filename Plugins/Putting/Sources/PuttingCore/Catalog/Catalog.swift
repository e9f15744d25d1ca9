// The catalog: courses and their holes, each hole with its green (heightfield + content hash, imported
// or processed here from the traced sources) and, when the original files gave them, the boundary,
// contour lines (and their traced files verbatim), image size and hole position. A hole may have only
// its traced sources until `putting hole process` builds its heightfield.
import ClubhouseJSON
import ClubhouseToolkit

/// A golf course.
public struct Course: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var city: String?
    public var state: String?

    public init(id: String, name: String, city: String? = nil, state: String? = nil) {
        self.id = id
        self.name = name
        self.city = city
        self.state = state
    }

    /// Ids are 1–64 characters of a–z, 0–9, '-' and '_'.
    public static func isValidID(_ id: String) -> Bool {
        guard (1...64).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }

    public var json: JSONValue {
        var o = JSONObject()
        o["id"] = .string(id)
        o["name"] = .string(name)
        o["city"] = city.map(JSONValue.string) ?? .null
        o["state"] = state.map(JSONValue.string) ?? .null
        return .object(o)
    }
}

/// Where a hole's heightfield came from.
public enum HeightfieldOrigin: String, Sendable, Equatable, Codable {
    /// Read from a `Hole_N_heightfield.json` + `.bin` pair.
    case imported
    /// Built here from the hole's traced contours and boundary (`putting hole process`).
    case processed
}

/// A hole's state in the catalog, as `putting holes` shows it.
public enum HoleStatus: String, Sendable, Equatable, Codable {
    /// Traced contours and boundary only: no heightfield yet (process it to putt on it).
    case sourceOnly = "source-only"
    case imported
    case processed

    /// For people: "source only", "imported", "processed".
    public var label: String { self == .sourceOnly ? "source only" : rawValue }
}

/// The traced files a green is built from, kept verbatim (`Hole_N_boundary.json`,
/// `Hole_N_contours.json`), so processing them later reads exactly what was imported and its errors
/// point at the file's line and column.
public struct TracedSourceFiles: Sendable, Equatable {
    /// Where the boundary was read from (used to locate errors).
    public var boundaryFile: String
    public var boundaryText: String
    public var contoursFile: String
    public var contoursText: String

    public init(boundaryFile: String, boundaryText: String, contoursFile: String, contoursText: String) {
        self.boundaryFile = boundaryFile
        self.boundaryText = boundaryText
        self.contoursFile = contoursFile
        self.contoursText = contoursText
    }
}

/// One hole's green.
public struct Hole: Sendable, Equatable {
    public var courseID: String
    public var number: Int
    public var greenWidthFt: Double
    public var greenHeightFt: Double
    /// The cup's position from the original config, when it had one.
    public var holePosition: PointFt?
    /// The green's surface; nil while the hole has only its traced sources.
    public var heightfield: Heightfield?
    /// Content hash of `heightfield` as recorded (nil when there is none).
    public var heightfieldHash: String?
    /// nil when there is no heightfield.
    public var heightfieldOrigin: HeightfieldOrigin?
    public var boundary: PolygonFt?
    public var contours: [ContourLine]
    public var contourIntervalFt: Double?
    /// The traced boundary and contours files, when the import found both.
    public var traced: TracedSourceFiles?
    /// Size of the original map image, for the feet↔pixel helpers.
    public var imageWidthPx: Int?
    public var imageHeightPx: Int?
    /// Where it was imported from.
    public var source: String

    /// A hole with a heightfield (imported unless said otherwise); its content hash is computed.
    public init(courseID: String, number: Int, greenWidthFt: Double, greenHeightFt: Double, holePosition: PointFt? = nil,
                heightfield: Heightfield, origin: HeightfieldOrigin = .imported, boundary: PolygonFt? = nil,
                contours: [ContourLine] = [], contourIntervalFt: Double? = nil, traced: TracedSourceFiles? = nil,
                imageWidthPx: Int? = nil, imageHeightPx: Int? = nil, source: String = "")
    {
        self.init(courseID: courseID, number: number, greenWidthFt: greenWidthFt, greenHeightFt: greenHeightFt,
                  holePosition: holePosition, boundary: boundary, contours: contours, contourIntervalFt: contourIntervalFt,
                  traced: traced, imageWidthPx: imageWidthPx, imageHeightPx: imageHeightPx, source: source)
        setHeightfield(heightfield, origin: origin)
    }

    /// A hole without a heightfield yet (only its traced sources, when `traced` is given).
    public init(courseID: String, number: Int, greenWidthFt: Double, greenHeightFt: Double, holePosition: PointFt? = nil,
                boundary: PolygonFt? = nil, contours: [ContourLine] = [], contourIntervalFt: Double? = nil,
                traced: TracedSourceFiles?, imageWidthPx: Int? = nil, imageHeightPx: Int? = nil, source: String = "")
    {
        self.courseID = courseID
        self.number = number
        self.greenWidthFt = greenWidthFt
        self.greenHeightFt = greenHeightFt
        self.holePosition = holePosition
        self.boundary = boundary
        self.contours = contours
        self.contourIntervalFt = contourIntervalFt
        self.traced = traced
        self.imageWidthPx = imageWidthPx
        self.imageHeightPx = imageHeightPx
        self.source = source
    }

    /// Sets the green's surface, its content hash and where it came from.
    public mutating func setHeightfield(_ heightfield: Heightfield, origin: HeightfieldOrigin) {
        self.heightfield = heightfield
        heightfieldHash = heightfield.contentHash
        heightfieldOrigin = origin
    }

    public var status: HoleStatus {
        guard heightfield != nil else { return .sourceOnly }
        return heightfieldOrigin == .processed ? .processed : .imported
    }

    /// The heightfield, or the error that says the hole is not processed yet and how to process it.
    public func requireHeightfield() throws(PuttingError) -> Heightfield {
        guard let heightfield else { throw .notProcessed(course: courseID, hole: number) }
        return heightfield
    }

    public var summary: HoleSummary {
        HoleSummary(courseID: courseID, number: number, greenWidthFt: greenWidthFt, greenHeightFt: greenHeightFt,
                    holePosition: holePosition, nx: heightfield?.nx, nz: heightfield?.nz,
                    resolutionFt: heightfield?.resolutionFt, heightfieldHash: heightfield == nil ? nil : heightfieldHash,
                    status: status, hasBoundary: boundary != nil, contourCount: contours.count, traced: traced != nil,
                    source: source)
    }

    /// The feet↔pixel frame of the original map image (or a 10 px/ft frame when there was none).
    public var pixelFrame: PixelFrame {
        PixelFrame(imageWidthPx: Double(imageWidthPx ?? Int(saturating: (greenWidthFt * 10).rounded())),
                   imageHeightPx: Double(imageHeightPx ?? Int(saturating: (greenHeightFt * 10).rounded())),
                   greenWidthFt: greenWidthFt, greenHeightFt: greenHeightFt)
    }
}

/// What `putting holes` lists for a hole (everything but the bulk data).
public struct HoleSummary: Sendable, Equatable {
    public var courseID: String
    public var number: Int
    public var greenWidthFt: Double
    public var greenHeightFt: Double
    public var holePosition: PointFt?
    /// The heightfield's grid (nil while the hole is source only).
    public var nx: Int?
    public var nz: Int?
    public var resolutionFt: Double?
    public var heightfieldHash: String?
    public var status: HoleStatus
    public var hasBoundary: Bool
    public var contourCount: Int
    /// True when the traced boundary and contours files are kept (the hole can be processed).
    public var traced: Bool
    public var source: String

    public init(courseID: String, number: Int, greenWidthFt: Double, greenHeightFt: Double, holePosition: PointFt?,
                nx: Int?, nz: Int?, resolutionFt: Double?, heightfieldHash: String?, status: HoleStatus, hasBoundary: Bool,
                contourCount: Int, traced: Bool, source: String)
    {
        self.courseID = courseID
        self.number = number
        self.greenWidthFt = greenWidthFt
        self.greenHeightFt = greenHeightFt
        self.holePosition = holePosition
        self.nx = nx
        self.nz = nz
        self.resolutionFt = resolutionFt
        self.heightfieldHash = heightfieldHash
        self.status = status
        self.hasBoundary = hasBoundary
        self.contourCount = contourCount
        self.traced = traced
        self.source = source
    }

    public var json: JSONValue {
        var o = JSONObject()
        o["course"] = .string(courseID)
        o["hole"] = .int(number)
        o["status"] = .string(status.rawValue)
        o["greenWidthFt"] = .double(greenWidthFt)
        o["greenHeightFt"] = .double(greenHeightFt)
        if let p = holePosition {
            o["holeXFt"] = .double(p.x)
            o["holeZFt"] = .double(p.z)
        } else {
            o["holeXFt"] = .null
            o["holeZFt"] = .null
        }
        if let nx, let nz, let resolutionFt {
            o["grid"] = ["nx": .int(nx), "nz": .int(nz), "resolution_ft": .double(resolutionFt)]
        } else {
            o["grid"] = .null
        }
        o["heightfieldHash"] = heightfieldHash.map(JSONValue.string) ?? .null
        o["boundary"] = .bool(hasBoundary)
        o["contours"] = .int(contourCount)
        o["traced"] = .bool(traced)
        o["source"] = .string(source)
        return .object(o)
    }
}

/// Conversion between the green's feet and an image's pixels, as the original tools did: origin at
/// the image centre, +x right, +z up (pixel v grows downward).
public struct PixelFrame: Sendable, Equatable {
    public var imageWidthPx: Double
    public var imageHeightPx: Double
    public var greenWidthFt: Double
    public var greenHeightFt: Double

    public init(imageWidthPx: Double, imageHeightPx: Double, greenWidthFt: Double, greenHeightFt: Double) {
        self.imageWidthPx = imageWidthPx
        self.imageHeightPx = imageHeightPx
        self.greenWidthFt = greenWidthFt
        self.greenHeightFt = greenHeightFt
    }

    public var feetPerPixelX: Double { greenWidthFt / imageWidthPx }
    public var feetPerPixelZ: Double { greenHeightFt / imageHeightPx }

    /// Pixel (u right, v down) → feet (x east, z north).
    public func feet(u: Double, v: Double) -> PointFt {
        PointFt(x: (u - imageWidthPx / 2) * feetPerPixelX, z: -(v - imageHeightPx / 2) * feetPerPixelZ)
    }

    /// Feet → pixel (u, v).
    public func pixel(_ p: PointFt) -> (u: Double, v: Double) {
        (p.x / feetPerPixelX + imageWidthPx / 2, -p.z / feetPerPixelZ + imageHeightPx / 2)
    }

    /// The same frame drawn at another image size (e.g. the original map scaled to a display).
    public func scaled(toWidthPx width: Double, heightPx height: Double) -> PixelFrame {
        PixelFrame(imageWidthPx: width, imageHeightPx: height, greenWidthFt: greenWidthFt, greenHeightFt: greenHeightFt)
    }
}
