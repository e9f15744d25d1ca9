// The catalog: courses and their holes, each hole with its green (heightfield + content hash) and,
// when the original files gave them, the boundary, contour lines, image size and hole position.
import ClubhouseJSON

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

/// One hole's green.
public struct Hole: Sendable, Equatable {
    public var courseID: String
    public var number: Int
    public var greenWidthFt: Double
    public var greenHeightFt: Double
    /// The cup's position from the original config, when it had one.
    public var holePosition: PointFt?
    public var heightfield: Heightfield
    public var heightfieldHash: String
    public var boundary: PolygonFt?
    public var contours: [ContourLine]
    public var contourIntervalFt: Double?
    /// Size of the original map image, for the feet↔pixel helpers.
    public var imageWidthPx: Int?
    public var imageHeightPx: Int?
    /// Where it was imported from.
    public var source: String

    public init(courseID: String, number: Int, greenWidthFt: Double, greenHeightFt: Double, holePosition: PointFt? = nil,
                heightfield: Heightfield, boundary: PolygonFt? = nil, contours: [ContourLine] = [],
                contourIntervalFt: Double? = nil, imageWidthPx: Int? = nil, imageHeightPx: Int? = nil, source: String = "")
    {
        self.courseID = courseID
        self.number = number
        self.greenWidthFt = greenWidthFt
        self.greenHeightFt = greenHeightFt
        self.holePosition = holePosition
        self.heightfield = heightfield
        heightfieldHash = heightfield.contentHash
        self.boundary = boundary
        self.contours = contours
        self.contourIntervalFt = contourIntervalFt
        self.imageWidthPx = imageWidthPx
        self.imageHeightPx = imageHeightPx
        self.source = source
    }

    public var summary: HoleSummary {
        HoleSummary(courseID: courseID, number: number, greenWidthFt: greenWidthFt, greenHeightFt: greenHeightFt,
                    holePosition: holePosition, nx: heightfield.nx, nz: heightfield.nz,
                    resolutionFt: heightfield.resolutionFt, heightfieldHash: heightfieldHash,
                    hasBoundary: boundary != nil, contourCount: contours.count, source: source)
    }

    /// The feet↔pixel frame of the original map image (or a 10 px/ft frame when there was none).
    public var pixelFrame: PixelFrame {
        PixelFrame(imageWidthPx: Double(imageWidthPx ?? Int((greenWidthFt * 10).rounded())),
                   imageHeightPx: Double(imageHeightPx ?? Int((greenHeightFt * 10).rounded())),
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
    public var nx: Int
    public var nz: Int
    public var resolutionFt: Double
    public var heightfieldHash: String
    public var hasBoundary: Bool
    public var contourCount: Int
    public var source: String

    public init(courseID: String, number: Int, greenWidthFt: Double, greenHeightFt: Double, holePosition: PointFt?,
                nx: Int, nz: Int, resolutionFt: Double, heightfieldHash: String, hasBoundary: Bool, contourCount: Int,
                source: String)
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
        self.hasBoundary = hasBoundary
        self.contourCount = contourCount
        self.source = source
    }

    public var json: JSONValue {
        var o = JSONObject()
        o["course"] = .string(courseID)
        o["hole"] = .int(number)
        o["greenWidthFt"] = .double(greenWidthFt)
        o["greenHeightFt"] = .double(greenHeightFt)
        if let p = holePosition {
            o["holeXFt"] = .double(p.x)
            o["holeZFt"] = .double(p.z)
        } else {
            o["holeXFt"] = .null
            o["holeZFt"] = .null
        }
        o["grid"] = ["nx": .int(nx), "nz": .int(nz), "resolution_ft": .double(resolutionFt)]
        o["heightfieldHash"] = .string(heightfieldHash)
        o["boundary"] = .bool(hasBoundary)
        o["contours"] = .int(contourCount)
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
