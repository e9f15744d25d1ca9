// The numbers behind `globe triangulate`: for every polygon of a GeoJSON document, its vertex,
// hole and triangle counts, and its shoelace area beside the summed area of its triangles.

/// One polygon's triangulation checked against its own shape.
public struct PolygonTriangulation: Sendable, Codable, Equatable {
    /// The feature's id, else its `name`/`NAME` property, else its index.
    public var feature: String
    public var featureIndex: Int
    /// Index of the polygon within its feature (0 for a Polygon).
    public var part: Int
    public var vertices: Int
    public var holes: Int
    public var triangles: Int
    /// n + 2h − 2.
    public var expectedTriangles: Int
    /// |outer| − Σ|holes|, deg².
    public var polygonArea: Double
    /// Σ |triangle|, deg².
    public var triangleArea: Double
    /// |triangleArea − polygonArea| / polygonArea, or nil below the report's minimum area.
    public var relativeAreaError: Double?
    /// For a polygon that is not valid: the first two edges found crossing, and where.
    public var crossing: String?
}

/// The whole document's triangulation.
public struct TriangulationReport: Sendable, Codable, Equatable {
    public var features: Int
    public var polygons: Int
    public var vertices: Int
    public var holes: Int
    public var triangles: Int
    public var expectedTriangles: Int
    /// Polygons whose triangle count is not n + 2h − 2.
    public var polygonsOffCount: Int
    public var polygonArea: Double
    public var triangleArea: Double
    public var maxRelativeAreaError: Double
    /// The polygon with the largest relative error ("ID part").
    public var maxRelativeAreaErrorAt: String?
    /// Polygons whose edges cross (not valid; triangulated as well as possible).
    public var invalidPolygons: Int
    /// One line per invalid polygon: which feature and part, and where its edges cross.
    public var problems: [String]
    /// Polygons smaller than this (deg²) get no relative error: cancellation dominates there.
    public var minimumAreaForRelativeError: Double
    public var perPolygon: [PolygonTriangulation]

    /// Triangulates every polygon of `features`.
    public init(features: [GeoFeature], minimumAreaForRelativeError: Double = 1e-6) {
        let clipper = EarClipper()
        var rows: [PolygonTriangulation] = []
        for feature in features {
            guard let geometry = feature.geometry else { continue }
            let label = feature.id ?? feature.string("name") ?? feature.string("NAME") ?? "#\(feature.index)"
            for (part, polygon) in geometry.polygons.enumerated() {
                let indices = clipper.triangulate(polygon)
                let area = polygon.area
                let triangleArea = Self.triangleArea(polygon, indices)
                rows.append(PolygonTriangulation(
                    feature: label, featureIndex: feature.index, part: part,
                    vertices: polygon.vertexCount, holes: polygon.holeCount, triangles: indices.count / 3,
                    expectedTriangles: polygon.vertexCount + 2 * polygon.holeCount - 2,
                    polygonArea: area, triangleArea: triangleArea,
                    relativeAreaError: area >= minimumAreaForRelativeError ? abs(triangleArea - area) / area : nil,
                    crossing: PolygonValidity.firstCrossing(polygon)?.text))
            }
        }
        self.features = features.count
        self.minimumAreaForRelativeError = minimumAreaForRelativeError
        perPolygon = rows
        polygons = rows.count
        vertices = rows.reduce(0) { $0 + $1.vertices }
        holes = rows.reduce(0) { $0 + $1.holes }
        triangles = rows.reduce(0) { $0 + $1.triangles }
        expectedTriangles = rows.reduce(0) { $0 + $1.expectedTriangles }
        polygonsOffCount = rows.filter { $0.triangles != $0.expectedTriangles }.count
        polygonArea = rows.reduce(0) { $0 + $1.polygonArea }
        triangleArea = rows.reduce(0) { $0 + $1.triangleArea }
        let worst = rows.filter { $0.relativeAreaError != nil }.max { ($0.relativeAreaError ?? 0) < ($1.relativeAreaError ?? 0) }
        maxRelativeAreaError = worst?.relativeAreaError ?? 0
        maxRelativeAreaErrorAt = worst.map { "\($0.feature) part \($0.part)" }
        let invalid = rows.filter { $0.crossing != nil }
        invalidPolygons = invalid.count
        problems = invalid.map { "\($0.feature) part \($0.part) is not a valid polygon: \($0.crossing ?? "")" }
    }

    /// The report without its per-polygon rows (`--summary`), problems kept.
    public var summary: TriangulationReport {
        var copy = self
        copy.perPolygon = []
        return copy
    }

    /// Σ |triangle area| of a triangulation whose indices point into the polygon's rings.
    public static func triangleArea(_ polygon: GeoPolygon, _ indices: [Int32]) -> Double {
        let points = polygon.rings.flatMap { $0 }
        var sum = 0.0
        var k = 0
        while k + 2 < indices.count {
            let a = points[Int(indices[k])], b = points[Int(indices[k + 1])], c = points[Int(indices[k + 2])]
            sum += abs(Planar.cross(a, b, c))
            k += 3
        }
        return sum / 2
    }

    /// A few lines for a terminal: totals, then any polygon whose count or area is off.
    public var text: String { text(perPolygon: false) }

    /// With `perPolygon`, a line per polygon comes first (feature, part, vertices, holes,
    /// triangles, polygon area, triangle area, relative error).
    public func text(perPolygon showRows: Bool) -> String {
        var lines: [String] = []
        if showRows {
            lines.append("feature part vertices holes triangles polygon-area triangle-area relative-error")
            for row in perPolygon {
                lines.append("\(row.feature) \(row.part) \(row.vertices) \(row.holes) \(row.triangles) "
                    + "\(Self.format(row.polygonArea)) \(Self.format(row.triangleArea)) \(row.relativeAreaError.map(Self.scientific) ?? "-")")
            }
        }
        lines.append("features \(features), polygons \(polygons), vertices \(vertices), holes \(holes)")
        lines.append("triangles \(triangles) (n + 2h − 2 = \(expectedTriangles); polygons off: \(polygonsOffCount))")
        lines.append("polygon area \(Self.format(polygonArea)) deg², triangle area \(Self.format(triangleArea)) deg²")
        let at = maxRelativeAreaErrorAt.map { " (\($0))" } ?? ""
        lines.append("max relative area error \(Self.scientific(maxRelativeAreaError))\(at) over polygons ≥ \(Self.scientific(minimumAreaForRelativeError)) deg²")
        for row in perPolygon where row.triangles != row.expectedTriangles && !showRows {
            lines.append("  \(row.feature) part \(row.part): \(row.triangles) triangles, expected \(row.expectedTriangles)")
        }
        if invalidPolygons > 0 {
            lines.append("not valid (edges cross; triangulated as well as possible): \(invalidPolygons) \(invalidPolygons == 1 ? "polygon" : "polygons")")
            for problem in problems { lines.append("  " + problem) }
        }
        return lines.joined(separator: "\n")
    }

    /// Six decimals, e.g. "21496.990988".
    static func format(_ v: Double) -> String {
        guard v.isFinite else { return "\(v)" }
        let scaled = (abs(v) * 1_000_000).rounded()
        guard scaled < 9e15 else { return "\(v)" }
        let n = Int(scaled)
        let digits = String(n % 1_000_000)
        return (v < 0 && n > 0 ? "-" : "") + "\(n / 1_000_000).\(String(repeating: "0", count: 6 - digits.count))\(digits)"
    }

    static func scientific(_ v: Double) -> String {
        guard v != 0, v.isFinite else { return v == 0 ? "0" : "\(v)" }
        var exponent = 0
        var m = abs(v)
        while m >= 10 { m /= 10; exponent += 1 }
        while m < 1 { m *= 10; exponent -= 1 }
        var mantissa = (m * 100).rounded() / 100
        if mantissa >= 10 {
            mantissa /= 10
            exponent += 1
        }
        let sign = v < 0 ? "-" : ""
        return "\(sign)\(mantissa)e\(exponent >= 0 ? "+" : "-")\(abs(exponent) < 10 ? "0" : "")\(abs(exponent))"
    }
}
