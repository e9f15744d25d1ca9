// Whether a polygon's edges cross: rings that only touch (at a shared vertex, or a vertex on an
// edge) are valid, as in earcut's fixtures; two edges that properly cross make the polygon
// invalid, and the report names the first such pair and where they meet.

public enum PolygonValidity {
    /// A proper crossing of two edges: ring and vertex index of each edge's start, and the point.
    public struct Crossing: Sendable, Codable, Equatable {
        public var ringA: Int
        public var edgeA: Int
        public var ringB: Int
        public var edgeB: Int
        public var at: LonLat

        public var text: String {
            func edge(_ r: Int, _ e: Int) -> String { "\(r == 0 ? "outer ring" : "hole \(r)") edge \(e)" }
            return "\(edge(ringA, edgeA)) crosses \(edge(ringB, edgeB)) at (\(TriangulationReport.format(at.lon)), \(TriangulationReport.format(at.lat)))"
        }
    }

    /// The first proper crossing found by a sweep over the edges' x-extents, or nil.
    public static func firstCrossing(_ polygon: GeoPolygon) -> Crossing? {
        struct Edge { var ring: Int; var index: Int; var a: LonLat; var b: LonLat; var minX: Double; var maxX: Double }
        var edges: [Edge] = []
        for (r, ring) in polygon.rings.enumerated() where ring.count >= 2 {
            for i in 0..<ring.count {
                let a = ring[i], b = ring[(i + 1) % ring.count]
                if a == b { continue }
                edges.append(Edge(ring: r, index: i, a: a, b: b, minX: min(a.lon, b.lon), maxX: max(a.lon, b.lon)))
            }
        }
        edges.sort { $0.minX < $1.minX }
        for i in 0..<edges.count {
            let e = edges[i]
            var j = i + 1
            while j < edges.count && edges[j].minX <= e.maxX {
                let f = edges[j]
                j += 1
                if max(min(e.a.lat, e.b.lat), min(f.a.lat, f.b.lat)) > min(max(e.a.lat, e.b.lat), max(f.a.lat, f.b.lat)) { continue }
                let d1 = Planar.cross(e.a, e.b, f.a), d2 = Planar.cross(e.a, e.b, f.b)
                let d3 = Planar.cross(f.a, f.b, e.a), d4 = Planar.cross(f.a, f.b, e.b)
                guard (d1 > 0 && d2 < 0 || d1 < 0 && d2 > 0) && (d3 > 0 && d4 < 0 || d3 < 0 && d4 > 0) else { continue }
                let t = d3 / (d3 - d4)
                let at = LonLat(lon: e.a.lon + t * (e.b.lon - e.a.lon), lat: e.a.lat + t * (e.b.lat - e.a.lat))
                let (first, second) = (e.ring, e.index) < (f.ring, f.index) ? (e, f) : (f, e)
                return Crossing(ringA: first.ring, edgeA: first.index, ringB: second.ring, edgeB: second.index, at: at)
            }
        }
        return nil
    }
}
