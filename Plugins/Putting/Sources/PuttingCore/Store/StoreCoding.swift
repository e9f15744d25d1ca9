// Text forms of a hole's boundary and contours for the store's JSON columns (and back), so the
// adapter's SQL store and the in-memory store hold the same thing.
import ClubhouseJSON

extension PolygonFt {
    /// `[{"x":…,"z":…},…]`
    public var json: JSONValue { .array(points.map { ["x": .double($0.x), "z": .double($0.z)] }) }

    /// Reads `json`; nil when it is not a list of points.
    public init?(json: JSONValue) {
        guard let items = json.arrayValue else { return nil }
        var points: [PointFt] = []
        for item in items {
            guard let x = item["x"]?.doubleValue, let z = item["z"]?.doubleValue else { return nil }
            points.append(PointFt(x: x, z: z))
        }
        self.init(points: points)
    }
}

extension ContourLine {
    /// `{"height_ft":…,"points_xz_ft":[…]}` as in the original contours files.
    public var json: JSONValue {
        ["height_ft": .double(heightFt), "points_xz_ft": PolygonFt(points: points).json]
    }

    public init?(json: JSONValue) {
        guard let h = json["height_ft"]?.doubleValue, let pts = json["points_xz_ft"], let poly = PolygonFt(json: pts) else { return nil }
        self.init(heightFt: h, points: poly.points)
    }

    /// A list of contour lines as compact JSON text.
    public static func text(_ lines: [ContourLine]) -> String { JSONWriter.compact(.array(lines.map(\.json))) }

    /// Reads `text(_:)`; throws a storage error when damaged.
    public static func lines(fromText text: String) throws(PuttingError) -> [ContourLine] {
        guard let value = try? JSONParser.parse(text), let items = value.arrayValue else {
            throw .storage("stored contours are not a JSON list")
        }
        var lines: [ContourLine] = []
        for item in items {
            guard let line = ContourLine(json: item) else { throw .storage("a stored contour line is damaged") }
            lines.append(line)
        }
        return lines
    }
}

extension Hole {
    /// The boundary as compact JSON text (nil when there is none).
    public var boundaryText: String? { boundary.map { JSONWriter.compact($0.json) } }
    /// The contours as compact JSON text.
    public var contoursText: String { ContourLine.text(contours) }
}

extension JobWork {
    /// The request as JSON (`request` of `putting job`).
    public var json: JSONValue {
        switch self {
        case .bestLine(let r): return r.json
        case .book(let r): return r.json
        }
    }
}

extension JobRecord {
    /// The request as compact JSON text for the `request_json` column (its kind goes to `kind`).
    public var requestText: String { JSONWriter.compact(work.json) }

    /// Reads a best-line request stored as `requestText`.
    public static func request(fromText text: String) throws(PuttingError) -> BestLineRequest {
        guard let value = try? JSONParser.parse(text) else { throw .storage("a stored job request is not JSON") }
        return try BestLineRequest(json: value)
    }

    /// Reads a job's request stored as `requestText` with its `kind` column.
    public static func work(kind: String, fromText text: String) throws(PuttingError) -> JobWork {
        guard let value = try? JSONParser.parse(text) else { throw .storage("a stored job request is not JSON") }
        switch kind {
        case "bestline": return .bestLine(try BestLineRequest(json: value))
        case "book": return .book(try BookRequest(json: value))
        default: throw .storage("a stored job has an unknown kind '\(kind)'")
        }
    }
}

extension CaptureRule {
    /// The settings as a stored request holds them (`update(fromStored:)` reads them back).
    var storedJSON: JSONValue {
        ["cupRadiusFt": .double(cupRadiusFt), "centreSpeedLimitFps": .double(centreSpeedLimitFps), "falloff": .string(falloff.rawValue)]
    }

    /// Overrides the settings a stored request's `"capture"` object names (a job's or a book's).
    mutating func update(fromStored json: JSONValue?) {
        guard let c = json else { return }
        cupRadiusFt = c["cupRadiusFt"]?.doubleValue ?? cupRadiusFt
        centreSpeedLimitFps = c["centreSpeedLimitFps"]?.doubleValue ?? centreSpeedLimitFps
        falloff = c["falloff"]?.stringValue.flatMap(CaptureRule.Falloff.init(rawValue:)) ?? falloff
    }
}

extension StrokeErrors {
    /// The settings as a stored request holds them.
    var storedJSON: JSONValue { json }

    /// Overrides the settings a stored request's `"errors"` object names (a request stored before 1.3 has no
    /// scatter or bias: those stay as they are).
    mutating func update(fromStored json: JSONValue?) {
        guard let e = json else { return }
        aimSDDeg = e["aimSDDeg"]?.doubleValue ?? aimSDDeg
        speedSDFraction = e["speedSDFraction"]?.doubleValue ?? speedSDFraction
        lateralSDIn = e["lateralSDIn"]?.doubleValue ?? lateralSDIn
        paceBiasFraction = e["paceBiasFraction"]?.doubleValue ?? paceBiasFraction
        // Numbers stored without a level's name are a site's own (or 1.2's defaults, which no level has).
        skill = e["skill"]?.stringValue.flatMap(SkillLevel.init(rawValue:))
    }
}
