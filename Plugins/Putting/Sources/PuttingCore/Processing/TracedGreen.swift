// The source of a green as the original app traced it: `Hole_N_boundary.json` (one closed polyline)
// and `Hole_N_contours.json` (polylines at known heights), both in feet on the green's frame
// (origin at the centre, +x east, +z north). Parsing keeps every value's file:line:column so that
// later checks (too few points, self-crossing boundary, point outside the grid) can point at it.
import ClubhouseJSON

/// A point on the green's plane, in feet.
public struct TracedPoint: Sendable, Hashable, Codable {
    public var x: Double
    public var z: Double

    public init(x: Double, z: Double) {
        self.x = x
        self.z = z
    }
}

/// One contour line: a polyline whose points all lie at `heightFt`.
public struct TracedContour: Sendable, Hashable, Codable {
    /// The contour's index in the original tracing (`height_ft` = k × interval); informational only.
    public var k: Int?
    public var heightFt: Double
    public var points: [TracedPoint]

    public init(k: Int? = nil, heightFt: Double, points: [TracedPoint]) {
        self.k = k
        self.heightFt = heightFt
        self.points = points
    }
}

/// Where the values of a parsed file came from (file name and the location of every JSON Pointer).
struct TracedSource: Sendable {
    let file: String
    let locations: [String: SourceLocation]

    func locate(_ pointer: String) -> String {
        var p = pointer
        while true {
            if let loc = locations[p] { return "\(file):\(loc)" }
            guard let slash = p.lastIndex(of: "/") else { return file }
            p = String(p[..<slash])
        }
    }
}

/// The green's outline (`Hole_N_boundary.json`): a polygon, implicitly closed.
public struct TracedBoundary: Sendable {
    public let greenWidthFt: Double
    public let greenHeightFt: Double
    public let points: [TracedPoint]
    public let imagePath: String?
    public let imageWidthPx: Int?
    public let imageHeightPx: Int?
    let source: TracedSource?

    public init(greenWidthFt: Double, greenHeightFt: Double, points: [TracedPoint],
                imagePath: String? = nil, imageWidthPx: Int? = nil, imageHeightPx: Int? = nil) {
        self.init(greenWidthFt: greenWidthFt, greenHeightFt: greenHeightFt, points: points, imagePath: imagePath,
                  imageWidthPx: imageWidthPx, imageHeightPx: imageHeightPx, source: nil)
    }

    init(greenWidthFt: Double, greenHeightFt: Double, points: [TracedPoint], imagePath: String?,
         imageWidthPx: Int?, imageHeightPx: Int?, source: TracedSource?) {
        self.greenWidthFt = greenWidthFt
        self.greenHeightFt = greenHeightFt
        self.points = points
        self.imagePath = imagePath
        self.imageWidthPx = imageWidthPx
        self.imageHeightPx = imageHeightPx
        self.source = source
    }

    /// Reads a boundary file. Errors name `file:line:column`. Shape checks (at least 3 points, a simple
    /// polygon) run here too, so a bad file is refused before it is stored.
    public static func parse(_ text: String, file: String = "boundary.json") throws(GreenProcessingError) -> TracedBoundary {
        let reader = try TracedJSONReader(text, file: file)
        let root = try reader.object(reader.document.value, at: "")
        let width = try reader.number(root, "green_width_ft", at: "")
        let height = try reader.number(root, "green_height_ft", at: "")
        let points = try reader.points(root, at: "")
        let boundary = TracedBoundary(
            greenWidthFt: width, greenHeightFt: height, points: points,
            imagePath: try reader.optionalString(root, "image_path", at: ""),
            imageWidthPx: try reader.optionalInt(root, "image_w_px", at: ""),
            imageHeightPx: try reader.optionalInt(root, "image_h_px", at: ""),
            source: reader.source)
        try boundary.validate()
        return boundary
    }

    /// Checks the green size and that the outline is a simple polygon of at least 3 points.
    public func validate() throws(GreenProcessingError) {
        try TracedGreenSize.check(width: greenWidthFt, height: greenHeightFt) { source?.locate("/" + $0) }
        for (i, p) in points.enumerated() where !(p.x.isFinite && p.z.isFinite) {
            throw GreenProcessingError(.notFinite, at: source?.locate("/points_xz_ft/\(i)"),
                                       "boundary point \(i) is (\(p.x), \(p.z)); every coordinate must be a finite number of feet")
        }
        guard points.count <= TracedBoundary.maxPoints else {
            throw GreenProcessingError(.tooLarge, at: source?.locate("/points_xz_ft"),
                                       "the boundary has \(points.count) points, more than the limit of \(TracedBoundary.maxPoints); simplify the outline")
        }
        try TracedBoundaryGeometry.checkSimple(points, locate: { source?.locate("/points_xz_ft/\($0)") })
    }

    /// The self-crossing check compares every pair of edges; this keeps it well under a second.
    static let maxPoints = 20_000
}

/// The traced contour lines of a green (`Hole_N_contours.json`).
public struct TracedContours: Sendable {
    public let greenWidthFt: Double
    public let greenHeightFt: Double
    public let contourIntervalFt: Double?
    public let contours: [TracedContour]
    public let imagePath: String?
    public let imageWidthPx: Int?
    public let imageHeightPx: Int?
    let source: TracedSource?

    public init(greenWidthFt: Double, greenHeightFt: Double, contours: [TracedContour],
                contourIntervalFt: Double? = nil, imagePath: String? = nil,
                imageWidthPx: Int? = nil, imageHeightPx: Int? = nil) {
        self.init(greenWidthFt: greenWidthFt, greenHeightFt: greenHeightFt, contours: contours,
                  contourIntervalFt: contourIntervalFt, imagePath: imagePath, imageWidthPx: imageWidthPx,
                  imageHeightPx: imageHeightPx, source: nil)
    }

    init(greenWidthFt: Double, greenHeightFt: Double, contours: [TracedContour], contourIntervalFt: Double?,
         imagePath: String?, imageWidthPx: Int?, imageHeightPx: Int?, source: TracedSource?) {
        self.greenWidthFt = greenWidthFt
        self.greenHeightFt = greenHeightFt
        self.contourIntervalFt = contourIntervalFt
        self.contours = contours
        self.imagePath = imagePath
        self.imageWidthPx = imageWidthPx
        self.imageHeightPx = imageHeightPx
        self.source = source
    }

    /// Reads a contours file. Errors name `file:line:column`. Shape checks (at least 2 points per
    /// contour, every point on the grid) run here too.
    public static func parse(_ text: String, file: String = "contours.json") throws(GreenProcessingError) -> TracedContours {
        let reader = try TracedJSONReader(text, file: file)
        let root = try reader.object(reader.document.value, at: "")
        let width = try reader.number(root, "green_width_ft", at: "")
        let height = try reader.number(root, "green_height_ft", at: "")
        let interval: Double? = root["contour_interval_ft"] == nil
            ? nil : try reader.number(root, "contour_interval_ft", at: "")
        let list = try reader.array(root, "contours", at: "")
        var contours: [TracedContour] = []
        contours.reserveCapacity(list.count)
        for (i, element) in list.enumerated() {
            let pointer = "/contours/\(i)"
            let object = try reader.object(element, at: pointer)
            contours.append(TracedContour(
                k: try reader.optionalInt(object, "k", at: pointer),
                heightFt: try reader.number(object, "height_ft", at: pointer),
                points: try reader.points(object, at: pointer)))
        }
        let result = TracedContours(
            greenWidthFt: width, greenHeightFt: height, contours: contours, contourIntervalFt: interval,
            imagePath: try reader.optionalString(root, "image_path", at: ""),
            imageWidthPx: try reader.optionalInt(root, "image_w_px", at: ""),
            imageHeightPx: try reader.optionalInt(root, "image_h_px", at: ""),
            source: reader.source)
        try result.validate()
        return result
    }

    /// Checks the green size, that there is something to interpolate, that every contour has at least
    /// 2 finite points, and that every point lies on the grid the green's size spans.
    public func validate() throws(GreenProcessingError) {
        try TracedGreenSize.check(width: greenWidthFt, height: greenHeightFt) { source?.locate("/" + $0) }
        if contours.isEmpty {
            throw GreenProcessingError(.tooFewPoints, at: source?.locate("/contours"),
                                       "the contours file has no contour; trace at least one contour line")
        }
        let xs = ArangeGridAxis(extentFt: greenWidthFt)
        let zs = ArangeGridAxis(extentFt: greenHeightFt)
        for (i, contour) in contours.enumerated() {
            let pointer = "/contours/\(i)"
            let name = TracedContours.describe(contour, index: i)
            if !contour.heightFt.isFinite {
                throw GreenProcessingError(.notFinite, at: source?.locate(pointer + "/height_ft"),
                                           "\(name) has height \(contour.heightFt); a height must be a finite number of feet")
            }
            if abs(contour.heightFt) > TracedContours.maxHeightFt {
                throw GreenProcessingError(
                    .heightOutOfRange, at: source?.locate(pointer + "/height_ft"),
                    "\(name) lies beyond ±\(Int(TracedContours.maxHeightFt)) ft; heights are in feet — check the file's units")
            }
            if contour.points.count < 2 {
                throw GreenProcessingError(
                    .tooFewPoints, at: source?.locate(pointer + "/points_xz_ft"),
                    "\(name) has \(contour.points.count) point\(contour.points.count == 1 ? "" : "s"); a contour needs at least 2 — retrace it or remove it")
            }
            for (j, p) in contour.points.enumerated() {
                let at = source?.locate(pointer + "/points_xz_ft/\(j)")
                guard p.x.isFinite && p.z.isFinite else {
                    throw GreenProcessingError(.notFinite, at: at,
                                               "\(name) point \(j) is (\(p.x), \(p.z)); every coordinate must be a finite number of feet")
                }
                guard p.x >= xs.first && p.x <= xs.last && p.z >= zs.first && p.z <= zs.last else {
                    throw GreenProcessingError(
                        .outsideGrid, at: at,
                        "\(name) point \(j) (x \(p.x), z \(p.z)) lies outside the grid (x \(xs.first)…\(xs.last), z \(zs.first)…\(zs.last) ft); check green_width_ft/green_height_ft or retrace the contour")
                }
            }
        }
    }

    /// Heights beyond this (feet, either sign) are refused: no green is that tall, and the surface
    /// must stay far inside float32's range.
    static let maxHeightFt = 100_000.0

    /// Contours whose `k` disagrees with `height_ft` (k × interval): the height is used, as the original did.
    public var inconsistentLevels: [String] {
        guard let interval = contourIntervalFt else { return [] }
        return contours.enumerated().compactMap { i, c in
            guard let k = c.k, Double(k) * interval != c.heightFt else { return nil }
            return "\(TracedContours.describe(c, index: i)) has k \(k) but height \(c.heightFt) ft (k × \(interval) = \(Double(k) * interval) ft); height_ft is used"
        }
    }

    static func describe(_ contour: TracedContour, index: Int) -> String {
        "contour \(index) (height \(contour.heightFt) ft)"
    }
}

/// Limits on the green's size: positive, finite, and small enough that the grid stays bounded.
enum TracedGreenSize {
    /// 20,000 ft per side: far beyond any green, yet keeps grid indices and sample counts finite.
    static let maxSideFt = 20_000.0

    static func check(width: Double, height: Double, locate: (String) -> String?) throws(GreenProcessingError) {
        for (name, value) in [("green_width_ft", width), ("green_height_ft", height)] {
            guard value.isFinite else {
                throw GreenProcessingError(.notFinite, at: locate(name), "\(name) is \(value); it must be a finite number of feet")
            }
            guard value > 0 && value <= maxSideFt else {
                throw GreenProcessingError(.greenSize, at: locate(name),
                                           "\(name) is \(value) ft; it must be above 0 and at most \(Int(maxSideFt)) ft")
            }
        }
    }
}

/// Typed access to a parsed document with located errors.
struct TracedJSONReader {
    let document: JSONDocument
    let source: TracedSource

    init(_ text: String, file: String) throws(GreenProcessingError) {
        do {
            document = try JSONParser.parseDocument(text)
        } catch {
            var message = error.message
            if message.hasPrefix("NaN") || message.hasPrefix("Infinity") {
                message += "; every coordinate and height must be a finite number"
            }
            throw GreenProcessingError(.syntax, at: "\(file):\(error.location)", message)
        }
        source = TracedSource(file: file, locations: document.locations)
    }

    private func member(_ pointer: String, _ key: String) -> String {
        pointer + "/" + JSONDocument.escapePointerToken(key)
    }

    private func missing(_ key: String, in pointer: String, expected: String) -> GreenProcessingError {
        GreenProcessingError(.schema, at: source.locate(pointer),
                             "\(pointer.isEmpty ? "the document" : pointer) has no \"\(key)\"; expected \(expected)")
    }

    private func wrongType(_ value: JSONValue, at pointer: String, expected: String) -> GreenProcessingError {
        GreenProcessingError(.schema, at: source.locate(pointer),
                             "\(pointer.isEmpty ? "the document" : pointer) is \(value.kindName); expected \(expected)")
    }

    func object(_ value: JSONValue, at pointer: String) throws(GreenProcessingError) -> JSONObject {
        guard let object = value.objectValue else { throw wrongType(value, at: pointer, expected: "an object") }
        return object
    }

    func number(_ object: JSONObject, _ key: String, at pointer: String) throws(GreenProcessingError) -> Double {
        guard let value = object[key] else { throw missing(key, in: pointer, expected: "a number of feet") }
        let path = member(pointer, key)
        guard let number = value.numberValue else { throw wrongType(value, at: path, expected: "a number") }
        let double = number.double
        guard double.isFinite else {
            throw GreenProcessingError(.notFinite, at: source.locate(path),
                                       "\(path) is \(number.lexeme), which is not a finite double; write a finite number")
        }
        return double
    }

    func optionalInt(_ object: JSONObject, _ key: String, at pointer: String) throws(GreenProcessingError) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let int = value.intValue else {
            throw wrongType(value, at: member(pointer, key), expected: "an integer")
        }
        return int
    }

    func optionalString(_ object: JSONObject, _ key: String, at pointer: String) throws(GreenProcessingError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let string = value.stringValue else {
            throw wrongType(value, at: member(pointer, key), expected: "a string")
        }
        return string
    }

    func array(_ object: JSONObject, _ key: String, at pointer: String) throws(GreenProcessingError) -> [JSONValue] {
        guard let value = object[key] else { throw missing(key, in: pointer, expected: "an array") }
        guard let array = value.arrayValue else {
            throw wrongType(value, at: member(pointer, key), expected: "an array")
        }
        return array
    }

    /// `points_xz_ft`: an array of `{"x": …, "z": …}` in feet.
    func points(_ object: JSONObject, at pointer: String) throws(GreenProcessingError) -> [TracedPoint] {
        let list = try array(object, "points_xz_ft", at: pointer)
        var points: [TracedPoint] = []
        points.reserveCapacity(list.count)
        for (i, element) in list.enumerated() {
            let path = pointer + "/points_xz_ft/\(i)"
            let point = try self.object(element, at: path)
            points.append(TracedPoint(x: try number(point, "x", at: path), z: try number(point, "z", at: path)))
        }
        return points
    }
}
