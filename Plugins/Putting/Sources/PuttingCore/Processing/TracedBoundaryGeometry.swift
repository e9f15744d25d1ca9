// The green's outline as a polygon: the simple-polygon check, and the mask "node strictly inside"
// (a node on an edge or a vertex is outside), computed row by row with a scanline.

enum TracedBoundaryGeometry {
    /// The outline without a repeated closing vertex and without consecutive duplicates, with each
    /// kept vertex's index in the input (for messages).
    static func ring(_ points: [TracedPoint]) -> [(index: Int, point: TracedPoint)] {
        var ring: [(index: Int, point: TracedPoint)] = []
        ring.reserveCapacity(points.count)
        for (i, p) in points.enumerated() where ring.last?.point != p {
            ring.append((i, p))
        }
        while ring.count > 1, let first = ring.first, let last = ring.last, first.point == last.point {
            ring.removeLast()
        }
        return ring
    }

    /// Refuses fewer than 3 distinct vertices and any two edges that cross, touch or overlap (other
    /// than neighbours meeting at their shared vertex). What passes encloses a positive area.
    static func checkSimple(_ points: [TracedPoint], locate: (Int) -> String?) throws(GreenProcessingError) {
        let ring = ring(points)
        let n = ring.count
        guard n >= 3 else {
            throw GreenProcessingError(.tooFewPoints, at: locate(points.count),
                                       "the boundary has \(n) distinct point\(n == 1 ? "" : "s"); an outline needs at least 3")
        }
        func edge(_ i: Int) -> (TracedPoint, TracedPoint) { (ring[i].point, ring[(i + 1) % n].point) }
        func name(_ i: Int) -> String { "\(ring[i].index)→\(ring[(i + 1) % n].index)" }
        for i in 0..<n {
            let (a, b) = edge(i)
            let minX = min(a.x, b.x), maxX = max(a.x, b.x), minZ = min(a.z, b.z), maxZ = max(a.z, b.z)
            for j in (i + 1)..<n {
                let (c, d) = edge(j)
                if max(c.x, d.x) < minX || min(c.x, d.x) > maxX || max(c.z, d.z) < minZ || min(c.z, d.z) > maxZ { continue }
                let adjacentAfter = j == i + 1
                let adjacentBefore = i == 0 && j == n - 1
                let bad: TracedPoint?
                if adjacentAfter {
                    // Edges a→b and b→d share b: they must not run back over each other.
                    bad = foldsBack(shared: b, a, d) ? b : nil
                } else if adjacentBefore {
                    bad = foldsBack(shared: a, b, c) ? a : nil
                } else {
                    bad = meet(a, b, c, d)
                }
                if let bad {
                    throw GreenProcessingError(
                        .boundaryNotSimple, at: locate(ring[i].index),
                        "the boundary is not a simple polygon: edge \(name(i)) meets edge \(name(j)) near (x \(bad.x), z \(bad.z)); retrace the outline so it does not cross or touch itself")
                }
            }
        }
    }

    private static func orient(_ a: TracedPoint, _ b: TracedPoint, _ c: TracedPoint) -> Double {
        (b.x - a.x) * (c.z - a.z) - (b.z - a.z) * (c.x - a.x)
    }

    private static func onSegment(_ p: TracedPoint, _ a: TracedPoint, _ b: TracedPoint) -> Bool {
        p.x >= min(a.x, b.x) && p.x <= max(a.x, b.x) && p.z >= min(a.z, b.z) && p.z <= max(a.z, b.z)
    }

    /// Two edges from a shared vertex overlap when they are collinear and point the same way.
    private static func foldsBack(shared s: TracedPoint, _ p: TracedPoint, _ q: TracedPoint) -> Bool {
        guard orient(s, p, q) == 0 else { return false }
        return (p.x - s.x) * (q.x - s.x) + (p.z - s.z) * (q.z - s.z) > 0
    }

    /// Where segments ab and cd cross or touch, or nil.
    private static func meet(_ a: TracedPoint, _ b: TracedPoint, _ c: TracedPoint, _ d: TracedPoint) -> TracedPoint? {
        let o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b)
        if ((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)) {
            let t = o3 / (o3 - o4)
            return TracedPoint(x: a.x + t * (b.x - a.x), z: a.z + t * (b.z - a.z))
        }
        if o1 == 0 && onSegment(c, a, b) { return c }
        if o2 == 0 && onSegment(d, a, b) { return d }
        if o3 == 0 && onSegment(a, c, d) { return a }
        if o4 == 0 && onSegment(b, c, d) { return b }
        return nil
    }

    /// `mask[j·nx + i]` is true when node (xs[i], zs[j]) lies strictly inside the polygon.
    static func mask(_ points: [TracedPoint], xs: ArangeGridAxis, zs: ArangeGridAxis) -> [Bool] {
        let ring = ring(points).map(\.point)
        let nx = xs.count
        let xValues = xs.values
        var mask = [Bool](repeating: false, count: nx * zs.count)
        var crossings: [Double] = []
        var onEdge: [(Double, Double)] = []
        for j in 0..<zs.count {
            let z = zs[j]
            crossings.removeAll(keepingCapacity: true)
            onEdge.removeAll(keepingCapacity: true)
            for e in 0..<ring.count {
                let a = ring[e], b = ring[(e + 1) % ring.count]
                if (a.z > z) != (b.z > z) {
                    crossings.append(a.x + (z - a.z) * (b.x - a.x) / (b.z - a.z))
                } else if a.z == z && b.z == z {
                    onEdge.append((min(a.x, b.x), max(a.x, b.x)))
                } else if a.z == z || b.z == z {
                    // A vertex on this row where the edge stays on one side: the vertex is boundary.
                    let x = a.z == z ? a.x : b.x
                    onEdge.append((x, x))
                }
            }
            if crossings.isEmpty { continue }
            crossings.sort()
            var i = 0
            var k = 0
            var inside = false
            let row = j * nx
            while i < nx {
                let x = xValues[i]
                while k < crossings.count && crossings[k] < x {
                    inside.toggle()
                    k += 1
                }
                if inside && !(k < crossings.count && crossings[k] == x) {
                    mask[row + i] = !onEdge.contains { x >= $0.0 && x <= $0.1 }
                }
                i += 1
            }
        }
        return mask
    }
}
