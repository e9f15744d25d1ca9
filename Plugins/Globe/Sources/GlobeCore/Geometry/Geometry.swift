// Plain planar geometry in longitude/latitude degrees: positions, rings, polygons with holes,
// shoelace areas, bounding boxes and point-in-polygon tests; and a few spherical distances.

#if canImport(Glibc)
import Glibc
#endif

/// A position in degrees: longitude east of Greenwich (x), latitude north of the equator (y).
public struct LonLat: Sendable, Hashable, Codable {
    public var lon: Double
    public var lat: Double

    public init(lon: Double, lat: Double) {
        self.lon = lon
        self.lat = lat
    }
}

/// A closed ring stored open: the closing position of the GeoJSON ring is not repeated.
public typealias Ring = [LonLat]

/// A polygon: the outer ring first, then its holes.
public struct GeoPolygon: Sendable, Hashable {
    public var rings: [Ring]

    public init(rings: [Ring]) { self.rings = rings }

    public var outer: Ring { rings.first ?? [] }
    public var holeCount: Int { max(0, rings.count - 1) }
    public var vertexCount: Int { rings.reduce(0) { $0 + $1.count } }

    /// |outer| − Σ|holes| in deg² (planar, as the triangulation sees it).
    public var area: Double {
        guard let first = rings.first else { return 0 }
        var a = abs(Planar.signedArea(first))
        for hole in rings.dropFirst() { a -= abs(Planar.signedArea(hole)) }
        return a
    }

    public var bounds: BoundingBox { BoundingBox(covering: outer) }

    /// Even-odd containment over all rings, so a point inside a hole is outside the polygon.
    public func contains(_ p: LonLat) -> Bool {
        var inside = false
        for ring in rings where Planar.ringContains(ring, p) { inside.toggle() }
        return inside
    }

    /// The same polygon moved east by `degrees` of longitude.
    public func shifted(byLongitude degrees: Double) -> GeoPolygon {
        GeoPolygon(rings: rings.map { ring in ring.map { LonLat(lon: $0.lon + degrees, lat: $0.lat) } })
    }
}

/// An axis-aligned box in degrees.
public struct BoundingBox: Sendable, Hashable, Codable {
    public var minLon: Double
    public var minLat: Double
    public var maxLon: Double
    public var maxLat: Double

    public init(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double) {
        self.minLon = minLon
        self.minLat = minLat
        self.maxLon = maxLon
        self.maxLat = maxLat
    }

    public static let empty = BoundingBox(minLon: .infinity, minLat: .infinity, maxLon: -.infinity, maxLat: -.infinity)

    public init(covering points: some Sequence<LonLat>) {
        self = .empty
        for p in points { include(p) }
    }

    public var isEmpty: Bool { minLon > maxLon || minLat > maxLat }
    public var width: Double { isEmpty ? 0 : maxLon - minLon }
    public var height: Double { isEmpty ? 0 : maxLat - minLat }

    public mutating func include(_ p: LonLat) {
        minLon = Swift.min(minLon, p.lon)
        maxLon = Swift.max(maxLon, p.lon)
        minLat = Swift.min(minLat, p.lat)
        maxLat = Swift.max(maxLat, p.lat)
    }

    public mutating func include(_ box: BoundingBox) {
        guard !box.isEmpty else { return }
        minLon = Swift.min(minLon, box.minLon)
        maxLon = Swift.max(maxLon, box.maxLon)
        minLat = Swift.min(minLat, box.minLat)
        maxLat = Swift.max(maxLat, box.maxLat)
    }

    public func contains(_ p: LonLat) -> Bool {
        p.lon >= minLon && p.lon <= maxLon && p.lat >= minLat && p.lat <= maxLat
    }

    /// The box grown by `degrees` on every side.
    public func expanded(by degrees: Double) -> BoundingBox {
        BoundingBox(minLon: minLon - degrees, minLat: minLat - degrees, maxLon: maxLon + degrees, maxLat: maxLat + degrees)
    }
}

/// Planar formulas on lon/lat treated as x/y.
public enum Planar {
    /// Shoelace area, positive for a counter-clockwise ring (x east, y north).
    public static func signedArea(_ ring: Ring) -> Double {
        let n = ring.count
        guard n >= 3 else { return 0 }
        var sum = 0.0
        var j = n - 1
        for i in 0..<n {
            sum += (ring[j].lon - ring[i].lon) * (ring[i].lat + ring[j].lat)
            j = i
        }
        return sum / 2
    }

    /// Twice the signed area of triangle abc (positive when counter-clockwise).
    @inline(__always)
    public static func cross(_ a: LonLat, _ b: LonLat, _ c: LonLat) -> Double {
        (b.lon - a.lon) * (c.lat - a.lat) - (b.lat - a.lat) * (c.lon - a.lon)
    }

    /// Crossing-number test; points exactly on an edge may land on either side.
    public static func ringContains(_ ring: Ring, _ p: LonLat) -> Bool {
        var inside = false
        let n = ring.count
        guard n >= 3 else { return false }
        var j = n - 1
        for i in 0..<n {
            let a = ring[i], b = ring[j]
            if (a.lat > p.lat) != (b.lat > p.lat) {
                let x = a.lon + (p.lat - a.lat) * (b.lon - a.lon) / (b.lat - a.lat)
                if p.lon < x { inside.toggle() }
            }
            j = i
        }
        return inside
    }
}

/// Great-circle helpers on a sphere of the Earth's mean radius.
public enum Spherical {
    public static let earthRadiusKm = 6371.0088

    /// Haversine distance in kilometres.
    public static func distanceKm(_ a: LonLat, _ b: LonLat) -> Double {
        let toRad = Double.pi / 180
        let dLat = (b.lat - a.lat) * toRad, dLon = (b.lon - a.lon) * toRad
        let s = sin(dLat / 2) * sin(dLat / 2) + cos(a.lat * toRad) * cos(b.lat * toRad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadiusKm * asin(Swift.min(1, s.squareRoot()))
    }

    /// Distance in kilometres from p to the great-circle arc ab (country edges are short, so
    /// the arc and the lon/lat-straight edge the map draws are nearly the same line).
    public static func distanceToSegmentKm(_ p: LonLat, _ a: LonLat, _ b: LonLat) -> Double {
        let P = unitVector(p), A = unitVector(a), B = unitVector(b)
        var n = cross(A, B)
        let length = (dot(n, n)).squareRoot()
        guard length > 1e-15 else { return distanceKm(p, a) }
        n = (n.0 / length, n.1 / length, n.2 / length)
        let s = dot(P, n)
        let c = (P.0 - s * n.0, P.1 - s * n.1, P.2 - s * n.2)
        if dot(cross(A, c), n) >= 0 && dot(cross(c, B), n) >= 0 {
            return asin(min(1, abs(s))) * earthRadiusKm
        }
        return min(distanceKm(p, a), distanceKm(p, b))
    }

    private typealias Vector = (Double, Double, Double)

    private static func unitVector(_ p: LonLat) -> Vector {
        let phi = p.lat * .pi / 180, lambda = p.lon * .pi / 180
        return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
    }

    private static func cross(_ u: Vector, _ v: Vector) -> Vector {
        (u.1 * v.2 - u.2 * v.1, u.2 * v.0 - u.0 * v.2, u.0 * v.1 - u.1 * v.0)
    }

    private static func dot(_ u: Vector, _ v: Vector) -> Double { u.0 * v.0 + u.1 * v.1 + u.2 * v.2 }

    /// Area in km² of a polygon whose edges run straight in lon/lat (as the map draws them) on the
    /// sphere: R² ∮ sin φ dλ, integrated exactly along each edge.
    public static func areaKm2(_ polygon: GeoPolygon, radius: Double = earthRadiusKm) -> Double {
        guard let first = polygon.rings.first else { return 0 }
        var a = abs(ringIntegral(first))
        for hole in polygon.rings.dropFirst() { a -= abs(ringIntegral(hole)) }
        return a * radius * radius
    }

    private static func ringIntegral(_ ring: Ring) -> Double {
        let n = ring.count
        guard n >= 3 else { return 0 }
        let toRad = Double.pi / 180
        var sum = 0.0
        var j = n - 1
        for i in 0..<n {
            let l1 = ring[j].lon * toRad, l2 = ring[i].lon * toRad
            let p1 = ring[j].lat * toRad, p2 = ring[i].lat * toRad
            let dl = l2 - l1, dp = p2 - p1
            // ∫ sin(φ1 + dp·t) dl dt over t ∈ [0, 1]
            if abs(dp) < 1e-12 {
                sum += dl * sin(p1)
            } else {
                sum += dl * (cos(p1) - cos(p2)) / dp
            }
            j = i
        }
        return sum
    }
}
