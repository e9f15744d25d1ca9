// Points and polylines in the green's frame (feet): origin at the centre of the grid, +x east,
// +z north, y elevation.

/// A point on the green in feet.
public struct PointFt: Sendable, Hashable, Codable {
    public var x: Double
    public var z: Double

    public init(x: Double, z: Double) {
        self.x = x
        self.z = z
    }

    public func distance(to other: PointFt) -> Double { ((x - other.x) * (x - other.x) + (z - other.z) * (z - other.z)).squareRoot() }
}

/// A closed polygon (first point not repeated at the end).
public struct PolygonFt: Sendable, Hashable, Codable {
    public var points: [PointFt]

    public init(points: [PointFt]) { self.points = points }

    /// Even-odd point-in-polygon test (points on an edge count as either).
    public func contains(_ p: PointFt) -> Bool {
        guard points.count >= 3 else { return false }
        var inside = false
        var j = points.count - 1
        for i in points.indices {
            let a = points[i], b = points[j]
            if (a.z > p.z) != (b.z > p.z) {
                let xCross = a.x + (p.z - a.z) / (b.z - a.z) * (b.x - a.x)
                if p.x < xCross { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Bounding box as (min, max).
    public var bounds: (min: PointFt, max: PointFt)? {
        guard let first = points.first else { return nil }
        var lo = first, hi = first
        for p in points {
            lo.x = min(lo.x, p.x); lo.z = min(lo.z, p.z)
            hi.x = max(hi.x, p.x); hi.z = max(hi.z, p.z)
        }
        return (lo, hi)
    }
}

/// One contour line: a height and an open or closed polyline at that height.
public struct ContourLine: Sendable, Hashable, Codable {
    public var heightFt: Double
    public var points: [PointFt]

    public init(heightFt: Double, points: [PointFt]) {
        self.heightFt = heightFt
        self.points = points
    }
}
