// A GeoJSON (RFC 7946) reader for country shapes: FeatureCollection, Feature, Polygon,
// MultiPolygon and Point, with holes, on ClubhouseJSON. Malformed JSON and wrong-shaped GeoJSON
// are both reported as `source:line:column: what is wrong; what to do`.

import ClubhouseJSON

/// A geometry the globe understands.
public enum GeoGeometry: Sendable, Hashable {
    case polygon(GeoPolygon)
    case multiPolygon([GeoPolygon])
    case point(LonLat)

    /// Every polygon, a Polygon being a one-element list and a Point an empty one.
    public var polygons: [GeoPolygon] {
        switch self {
        case .polygon(let p): return [p]
        case .multiPolygon(let ps): return ps
        case .point: return []
        }
    }

    public var typeName: String {
        switch self {
        case .polygon: return "Polygon"
        case .multiPolygon: return "MultiPolygon"
        case .point: return "Point"
        }
    }
}

/// One feature of a document (a bare geometry reads as a feature without id or properties).
public struct GeoFeature: Sendable {
    /// The `id` member as text (string ids as they are, numeric ids as their lexeme).
    public var id: String?
    public var properties: JSONObject
    public var geometry: GeoGeometry?
    /// Position in the document's feature list, from 0.
    public var index: Int

    public init(id: String?, properties: JSONObject, geometry: GeoGeometry?, index: Int) {
        self.id = id
        self.properties = properties
        self.geometry = geometry
        self.index = index
    }

    /// A string property, if present and a string.
    public func string(_ key: String) -> String? { properties[key]?.stringValue }
    /// A numeric property, if present and a number.
    public func number(_ key: String) -> Double? { properties[key]?.doubleValue }
}

/// A GeoJSON document that is malformed or not the shape the globe reads.
public struct GeoJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public var source: String
    public var location: SourceLocation
    public var message: String

    public init(source: String, location: SourceLocation, message: String) {
        self.source = source
        self.location = location
        self.message = message
    }

    public var description: String { "\(source):\(location.line):\(location.column): \(message)" }
}

public enum GeoJSONReader {
    public struct Options: Sendable {
        /// Cut polygons that cross ±180° (or circle a pole) into pieces within [-180, 180].
        public var splitAntimeridian = true

        public init(splitAntimeridian: Bool = true) { self.splitAntimeridian = splitAntimeridian }
    }

    /// Reads a FeatureCollection, a Feature or a bare Polygon, MultiPolygon or Point.
    /// `source` names the input in error messages (a file path, or "<bundled>").
    public static func read(_ text: String, source: String = "<input>", options: Options = Options()) throws(GeoJSONError)
        -> [GeoFeature]
    {
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw GeoJSONError(source: source, location: error.location, message: "malformed JSON: \(error.message)")
        }
        var walker = Walker(options: options)
        do {
            return try walker.document(root)
        } catch {
            throw GeoJSONError(source: source, location: location(of: error.pointer, in: text), message: error.message)
        }
    }

    /// The line and column of the value at a JSON Pointer. Parsing with a location table costs
    /// more than a plain parse, so readers call this only to report an error.
    public static func location(of pointer: String, in text: String) -> SourceLocation {
        (try? JSONParser.parseDocument(text))?.location(of: pointer) ?? SourceLocation(line: 1, column: 1, offset: 0)
    }
}

/// A shape error at a JSON Pointer.
private struct ShapeError: Error {
    var pointer: String
    var message: String
}

private struct Walker {
    let options: GeoJSONReader.Options
    var path: [String] = []

    init(options: GeoJSONReader.Options) { self.options = options }

    var pointer: String { path.isEmpty ? "" : "/" + path.joined(separator: "/") }

    func fail(_ message: String, at extra: [String] = []) -> ShapeError {
        let tokens = path + extra
        return ShapeError(pointer: tokens.isEmpty ? "" : "/" + tokens.joined(separator: "/"), message: message)
    }

    static func article(_ value: JSONValue) -> String {
        switch value {
        case .object: return "an object"
        case .array: return "an array"
        case .string(let s): return "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .number(let n): return "the number \(n.lexeme)"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        }
    }

    mutating func document(_ root: JSONValue) throws(ShapeError) -> [GeoFeature] {
        guard let object = root.objectValue else {
            throw fail("expected a GeoJSON object (FeatureCollection, Feature or geometry), found \(Self.article(root))")
        }
        let type = try typeName(of: object)
        switch type {
        case "FeatureCollection":
            guard let featuresValue = object["features"] else {
                throw fail("FeatureCollection has no \"features\" member; add \"features\": [ … ]")
            }
            guard let features = featuresValue.arrayValue else {
                throw fail("\"features\" must be an array, found \(Self.article(featuresValue))", at: ["features"])
            }
            var out: [GeoFeature] = []
            out.reserveCapacity(features.count)
            path.append("features")
            for (k, value) in features.enumerated() {
                path.append(String(k))
                out.append(try feature(value, index: k))
                path.removeLast()
            }
            path.removeLast()
            return out
        case "Feature":
            return [try feature(root, index: 0)]
        default:
            let geometry = try geometry(object, type: type)
            return [GeoFeature(id: nil, properties: JSONObject(), geometry: geometry, index: 0)]
        }
    }

    func typeName(of object: JSONObject) throws(ShapeError) -> String {
        guard let value = object["type"] else {
            throw fail("missing \"type\" member; a GeoJSON object needs one of FeatureCollection, Feature, Polygon, MultiPolygon, Point")
        }
        guard let name = value.stringValue else {
            throw fail("\"type\" must be a string, found \(Self.article(value))", at: ["type"])
        }
        return name
    }

    mutating func feature(_ value: JSONValue, index: Int) throws(ShapeError) -> GeoFeature {
        guard let object = value.objectValue else {
            throw fail("expected a Feature object, found \(Self.article(value))")
        }
        let type = try typeName(of: object)
        guard type == "Feature" else {
            throw fail("expected \"type\": \"Feature\" in a FeatureCollection, found \"\(type)\"", at: ["type"])
        }
        var id: String?
        if let idValue = object["id"] {
            switch idValue {
            case .string(let s): id = s
            case .number(let n): id = n.lexeme
            case .null: id = nil
            default: throw fail("\"id\" must be a string or a number, found \(Self.article(idValue))", at: ["id"])
            }
        }
        var properties = JSONObject()
        if let p = object["properties"] {
            switch p {
            case .object(let o): properties = o
            case .null: break
            default: throw fail("\"properties\" must be an object or null, found \(Self.article(p))", at: ["properties"])
            }
        }
        var geometry: GeoGeometry?
        guard let g = object["geometry"] else {
            throw fail("Feature has no \"geometry\" member; add one (null if the feature has no shape)")
        }
        switch g {
        case .null: geometry = nil
        case .object(let o):
            path.append("geometry")
            let type = try typeName(of: o)
            geometry = try self.geometry(o, type: type)
            path.removeLast()
        default:
            throw fail("\"geometry\" must be an object or null, found \(Self.article(g))", at: ["geometry"])
        }
        return GeoFeature(id: id, properties: properties, geometry: geometry, index: index)
    }

    mutating func geometry(_ object: JSONObject, type: String) throws(ShapeError) -> GeoGeometry {
        switch type {
        case "Polygon", "MultiPolygon", "Point": break
        case "LineString", "MultiLineString", "MultiPoint", "GeometryCollection":
            throw fail("unsupported geometry type \"\(type)\"; countries must be Polygon, MultiPolygon or Point", at: ["type"])
        default:
            throw fail("unknown geometry type \"\(type)\"; use Polygon, MultiPolygon or Point", at: ["type"])
        }
        guard let coordinates = object["coordinates"] else {
            throw fail("\(type) has no \"coordinates\" member")
        }
        path.append("coordinates")
        defer { path.removeLast() }
        switch type {
        case "Point":
            return .point(try position(coordinates))
        case "Polygon":
            let polygon = try self.polygon(coordinates)
            if options.splitAntimeridian && Antimeridian.crosses(polygon) {
                let pieces = Antimeridian.split(polygon)
                return pieces.count == 1 ? .polygon(pieces[0]) : .multiPolygon(pieces)
            }
            return .polygon(polygon)
        default:
            guard let parts = coordinates.arrayValue else {
                throw fail("MultiPolygon coordinates must be an array of polygons, found \(Self.article(coordinates))")
            }
            guard !parts.isEmpty else {
                throw fail("MultiPolygon has no polygons; give at least one or use a null geometry")
            }
            var polygons: [GeoPolygon] = []
            polygons.reserveCapacity(parts.count)
            for (k, part) in parts.enumerated() {
                path.append(String(k))
                let polygon = try self.polygon(part)
                path.removeLast()
                if options.splitAntimeridian && Antimeridian.crosses(polygon) {
                    polygons += Antimeridian.split(polygon)
                } else {
                    polygons.append(polygon)
                }
            }
            return .multiPolygon(polygons)
        }
    }

    mutating func polygon(_ value: JSONValue) throws(ShapeError) -> GeoPolygon {
        guard let ringValues = value.arrayValue else {
            throw fail("polygon coordinates must be an array of linear rings, found \(Self.article(value))")
        }
        guard !ringValues.isEmpty else {
            throw fail("polygon has no rings; give the outer ring first, then any holes")
        }
        var rings: [Ring] = []
        rings.reserveCapacity(ringValues.count)
        for (k, ringValue) in ringValues.enumerated() {
            path.append(String(k))
            rings.append(try ring(ringValue))
            path.removeLast()
        }
        return GeoPolygon(rings: rings)
    }

    mutating func ring(_ value: JSONValue) throws(ShapeError) -> Ring {
        guard let positions = value.arrayValue else {
            throw fail("a linear ring must be an array of positions, found \(Self.article(value))")
        }
        guard positions.count >= 4 else {
            throw fail("a linear ring needs at least 4 positions (3 corners and the first repeated), found \(positions.count)")
        }
        var ring: Ring = []
        ring.reserveCapacity(positions.count)
        for (k, p) in positions.enumerated() {
            path.append(String(k))
            ring.append(try position(p))
            path.removeLast()
        }
        guard let first = ring.first, let last = ring.last, first == last else {
            let a = ring[0], b = ring[ring.count - 1]
            throw fail("linear ring is not closed: it starts at [\(a.lon), \(a.lat)] but ends at [\(b.lon), \(b.lat)]; repeat the first position at the end",
                       at: [String(positions.count - 1)])
        }
        ring.removeLast()
        return ring
    }

    func position(_ value: JSONValue) throws(ShapeError) -> LonLat {
        guard let numbers = value.arrayValue else {
            throw fail("a position must be an array [longitude, latitude], found \(Self.article(value))")
        }
        guard numbers.count >= 2 && numbers.count <= 3 else {
            throw fail("a position must have 2 or 3 numbers [longitude, latitude, altitude?], found \(numbers.count)")
        }
        guard let lon = numbers[0].doubleValue else {
            throw fail("longitude must be a number, found \(Self.article(numbers[0]))", at: ["0"])
        }
        guard let lat = numbers[1].doubleValue else {
            throw fail("latitude must be a number, found \(Self.article(numbers[1]))", at: ["1"])
        }
        if numbers.count == 3, numbers[2].numberValue == nil {
            throw fail("altitude must be a number, found \(Self.article(numbers[2]))", at: ["2"])
        }
        // Rounding noise such as 180.00000000000006 (Natural Earth has it) is accepted as is.
        let slack = 1e-9
        guard lon.isFinite, lon >= -180 - slack, lon <= 180 + slack else {
            throw fail("longitude \(numbers[0]) is outside [-180, 180]; coordinates are [longitude, latitude] in degrees", at: ["0"])
        }
        guard lat.isFinite, lat >= -90 - slack, lat <= 90 + slack else {
            throw fail("latitude \(numbers[1]) is outside [-90, 90]; coordinates are [longitude, latitude] in degrees", at: ["1"])
        }
        return LonLat(lon: lon, lat: lat)
    }
}
