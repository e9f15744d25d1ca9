// Polygon triangulation by ear clipping, after the algorithm of mapbox/earcut 3.2 (ISC): rings
// become circular linked lists, holes are bridged into the outer ring from their leftmost vertex
// (a hole point on a horizontal edge bridges along it), ears are cut while the ring has more than
// two vertices; when a lap finds none, collinear and repeated points are filtered for as long as
// that removes any, then crossing knots are cured once, then the ring is split along a diagonal.
// Rings of more than 80 vertices find the vertices that might lie inside a candidate ear through a
// z-order (Morton) curve instead of a scan.
//
// A hole whose leftmost point lies on an edge of the ring built so far (exactly, or in the tolerant
// pass within a rounding error) is spliced into that edge at the point instead of being bridged
// along it: a bridge that runs on top of an edge leaves collinear, overlapping edges that an odd
// rotation turns into tiny crossings no ear survives. Of several edges through the point (a
// collinear run the ring traverses more than once), the shortest is taken.
//
// Unlike earcut, a vertex that is dropped as a duplicate or as part of a collinear run is not
// lost: it is cut as a zero-area triangle. Every vertex therefore stays in the output, and a
// valid polygon with n vertices and h holes yields n + 2h − 2 triangles whose absolute areas add
// up to the polygon's. When that sum is off (near-touching rings after a rotation, rounding),
// the polygon is cut again with near-straight turns treated as straight, and the best cut wins.
// Invalid input (a hole poking out of the outer ring, an outer ring that crosses itself) gets one
// more chance: a hole whose leftmost point sees no edge to its left is bridged from another of
// its points rather than left out. Input that no pass cuts to its area (a ring that crosses itself)
// is also cut in earcut's own order of work (the next ear two vertices on; filter, cure knots —
// edges that cross or touch — then split), once covering each cured knot and once dropping it;
// the cut whose area is nearest the polygon's wins; earcut 2.2's own order with its rounded
// arithmetic (RoundedEarcut) is one more candidate there.
//
// In the exact pass every orientation is exact (Orientation.cross, after Shewchuk): a polygon
// turned off the grid its points were on keeps points that are collinear, or nearly so, and a
// rounded cross product would call the same three points left, right and straight depending on
// their order. The bridge from a hole is chosen with exact side tests too (findHoleBridge). No
// step depends on the polygon's orientation beyond earcut's own "leftmost point, ray to the left".

/// Triangulates polygons. Reuses its node storage between calls, so keep one per thread.
public final class EarClipper {
    private struct Node {
        var x: Double
        var y: Double
        /// Index of the vertex in the caller's flattened ring list.
        var i: Int32
        var prev: Int32
        var next: Int32
        /// Neighbours in z-order; -1 when none.
        var prevZ: Int32
        var nextZ: Int32
        var z: Int32
        /// A single-vertex hole; never filtered away.
        var steiner: Bool
        /// Cut or filtered out of its ring (its links still point where they did).
        var removed: Bool
    }

    private var nodes: UnsafeMutablePointer<Node>
    private var capacity: Int
    private var count = 0
    private var triangles: [Int32] = []
    private var minX = 0.0
    private var minY = 0.0
    /// Scale of the z-order grid; 0 disables hashing.
    private var invSize = 0.0
    private var holeQueue: [Int32] = []
    /// Set when the last resort found no diagonal (only invalid input gets there).
    private var unfinished = false
    /// Set by filterPoints when it removes a node.
    private var filteredOut = false
    /// In the tolerant pass, how close (tolerance × the polygon's size) a hole point must come to
    /// an edge to be taken as touching it; 0 in the exact pass.
    private var snap = 0.0
    private var snapping = false
    /// Set by findHoleBridge to the outer edge (its first node) that the hole point touches.
    private var touchEdge: Int32 = -1
    /// 0 for exact turns; in the retry pass, the angle below which a turn counts as straight.
    private var tolerance = 0.0
    /// In the pass for input that no other pass cuts exactly (a ring that crosses itself): earcut's
    /// own order of work when no ear is left — the next ear is looked for two vertices on, and a
    /// stalled lap filters, then cures knots (edges that cross or touch, as earcut's `intersects`
    /// counts them), then splits, each once per ring.
    private var earcutOrder = false
    /// With `earcutOrder`: a cured knot is dropped (its two vertices as zero-area triangles)
    /// instead of being covered by the triangle across it, which on a ring that crosses itself
    /// covers the knot's reversed loop, area the polygon counts negatively.
    private var dropKnots = false

    /// Turn tolerances of the retries when an exact pass leaves area out or covers some twice
    /// (near-touching rings, points a rounding error off an edge, as after an odd rotation).
    /// Each is tried without, then with, hole points that near-touch an edge taken as touching it.
    public static let retryTolerances = [1e-10, 1e-8]
    /// Largest relative difference between Σ|triangle area| and the polygon's area that needs
    /// no retry.
    public static let areaTolerance = 1e-9
    private var zKeys: [UInt64] = []

    /// Rings with more than this many vertices in total use z-order hashing.
    public static let hashingThreshold = 80

    public init(capacity: Int = 1024) {
        self.capacity = max(16, capacity)
        nodes = UnsafeMutablePointer<Node>.allocate(capacity: self.capacity)
    }

    deinit { nodes.deallocate() }

    /// Triangulates a polygon; indices point into the vertices of its rings in order (outer ring
    /// first, each ring open).
    public func triangulate(_ polygon: GeoPolygon) -> [Int32] {
        let total = polygon.vertexCount
        var coordinates = [Double]()
        coordinates.reserveCapacity(total * 2)
        var holeStarts = [Int]()
        for (k, ring) in polygon.rings.enumerated() {
            if k > 0 { holeStarts.append(coordinates.count / 2) }
            for p in ring {
                coordinates.append(p.lon)
                coordinates.append(p.lat)
            }
        }
        return coordinates.withUnsafeBufferPointer { triangulate(coordinates: $0, holeStarts: holeStarts) }
    }

    /// Triangulates flat `x0, y0, x1, y1, …` coordinates; `holeStarts` are the vertex indices at
    /// which each hole ring begins (the outer ring runs from 0 to the first of them).
    public func triangulate(coordinates: UnsafeBufferPointer<Double>, holeStarts: [Int]) -> [Int32] {
        tolerance = 0
        var best = triangulatePass(coordinates, holeStarts)
        let target = Self.polygonArea(coordinates, holeStarts)
        var bestError = Self.mismatch(best, coordinates, target, unfinished: unfinished)
        guard bestError > 0 else { return best }
        for retry in Self.retryTolerances.flatMap({ [($0, false), ($0, true)] }) {
            tolerance = retry.0
            snapping = retry.1
            let again = triangulatePass(coordinates, holeStarts)
            let error = Self.mismatch(again, coordinates, target, unfinished: unfinished)
            if error < bestError {
                best = again
                bestError = error
            }
            if bestError == 0 { break }
        }
        tolerance = 0
        snapping = false
        // Still off: a ring that crosses itself (or a hole poking out). Earcut's order of work, with
        // knots covered or dropped, leaves out different pieces of the overlaps; the cut whose area
        // is nearest the polygon's wins. Nothing here depends on the polygon's orientation: each
        // pass is judged by its area alone.
        // Judged by the area alone (finished or not), so that the answer is never further from the
        // polygon's area than without these passes.
        var bestArea = bestError > 0 ? Self.mismatch(best, coordinates, target, unfinished: false) : 0
        for drop in [false, true] where bestArea > 0 {
            earcutOrder = true
            dropKnots = drop
            let again = triangulatePass(coordinates, holeStarts)
            earcutOrder = false
            dropKnots = false
            let error = Self.mismatch(again, coordinates, target, unfinished: false)
            if error < bestArea {
                best = again
                bestArea = error
            }
        }
        // And earcut 2.2's own order with its rounded arithmetic (RoundedEarcut): so the cut kept
        // is never further from the polygon's area than earcut's on the same coordinates.
        if bestArea > 0 {
            let rounded = RoundedEarcut.triangulate(coordinates, holeStarts)
            if Self.mismatch(rounded, coordinates, target, unfinished: false) < bestArea { best = rounded }
        }
        return best
    }

    /// |outer| − Σ|holes| of flat coordinates.
    static func polygonArea(_ data: UnsafeBufferPointer<Double>, _ holeStarts: [Int]) -> Double {
        let vertexCount = data.count / 2
        let bounds = [0] + Set(holeStarts.filter { $0 > 0 && $0 < vertexCount }).sorted() + [vertexCount]
        var total = 0.0
        for k in 0..<(bounds.count - 1) {
            let start = bounds[k], end = bounds[k + 1]
            guard end - start >= 3 else { continue }
            var sum = 0.0
            var j = end - 1
            for i in start..<end {
                sum += (data[2 * j] - data[2 * i]) * (data[2 * i + 1] + data[2 * j + 1])
                j = i
            }
            total += k == 0 ? abs(sum) / 2 : -abs(sum) / 2
        }
        return total
    }

    /// 0 when the triangles' absolute areas add up to the polygon's within `areaTolerance` and the
    /// pass finished, else how far off they are (relative; 1 plus that when unfinished).
    static func mismatch(_ t: [Int32], _ data: UnsafeBufferPointer<Double>, _ target: Double, unfinished: Bool) -> Double {
        var sum = 0.0
        var k = 0
        while k + 2 < t.count {
            let a = 2 * Int(t[k]), b = 2 * Int(t[k + 1]), c = 2 * Int(t[k + 2])
            sum += abs((data[b] - data[a]) * (data[c + 1] - data[a + 1]) - (data[b + 1] - data[a + 1]) * (data[c] - data[a]))
            k += 3
        }
        sum /= 2
        let scale = max(abs(target), Double.leastNormalMagnitude)
        let relative = abs(sum - target) / scale
        if unfinished { return 1 + relative }
        return relative <= areaTolerance ? 0 : relative
    }

    private func triangulatePass(_ coordinates: UnsafeBufferPointer<Double>, _ holeStarts: [Int]) -> [Int32] {
        unfinished = false
        let vertexCount = coordinates.count / 2
        let bounds = Set(holeStarts.filter { $0 > 0 && $0 < vertexCount }).sorted()
        triangles = []
        let expected = vertexCount + 2 * bounds.count - 2
        guard expected > 0 else { return [] }
        triangles.reserveCapacity(3 * expected)
        count = 0
        ensureCapacity(vertexCount + 2 * bounds.count + 16)

        snap = 0
        if tolerance > 0 && snapping {
            var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
            for k in 0..<vertexCount {
                let x = coordinates[2 * k], y = coordinates[2 * k + 1]
                x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
            }
            snap = tolerance * max(x1 - x0, y1 - y0)
        }
        let outerEnd = bounds.first ?? vertexCount
        var outer = linkedList(coordinates, 0, outerEnd, outer: true)
        guard outer >= 0, nodes[Int(outer)].next != nodes[Int(outer)].prev else { return [] }
        if !bounds.isEmpty { outer = eliminateHoles(coordinates, bounds, vertexCount, outer) }

        invSize = 0
        if vertexCount > Self.hashingThreshold {
            var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
            for k in 0..<vertexCount {
                let x = coordinates[2 * k], y = coordinates[2 * k + 1]
                if x < x0 { x0 = x }
                if y < y0 { y0 = y }
                if x > x1 { x1 = x }
                if y > y1 { y1 = y }
            }
            minX = x0
            minY = y0
            let size = max(x1 - x0, y1 - y0)
            invSize = size > 0 ? 32767 / size : 0
        }
        earcutLinked(outer)
        let result = triangles
        triangles = []
        return result
    }

    // MARK: - Node storage

    private func ensureCapacity(_ needed: Int) {
        guard needed > capacity else { return }
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let fresh = UnsafeMutablePointer<Node>.allocate(capacity: newCapacity)
        fresh.moveInitialize(from: nodes, count: count)
        nodes.deallocate()
        nodes = fresh
        capacity = newCapacity
    }

    @inline(__always)
    private func makeNode(_ i: Int32, _ x: Double, _ y: Double) -> Int32 {
        if count == capacity { ensureCapacity(count + 1) }
        let id = Int32(count)
        (nodes + count).initialize(to: Node(x: x, y: y, i: i, prev: id, next: id, prevZ: -1, nextZ: -1, z: -1, steiner: false, removed: false))
        count += 1
        return id
    }

    @inline(__always) private func x(_ n: Int32) -> Double { nodes[Int(n)].x }
    @inline(__always) private func y(_ n: Int32) -> Double { nodes[Int(n)].y }
    @inline(__always) private func next(_ n: Int32) -> Int32 { nodes[Int(n)].next }
    @inline(__always) private func prev(_ n: Int32) -> Int32 { nodes[Int(n)].prev }

    /// Twice the signed area of pqr: positive for a left (counter-clockwise) turn.
    @inline(__always)
    private func orient(_ p: Int32, _ q: Int32, _ r: Int32) -> Double {
        let P = nodes[Int(p)], Q = nodes[Int(q)], R = nodes[Int(r)]
        return turn(P.x, P.y, Q.x, Q.y, R.x, R.y)
    }

    @inline(__always)
    private func equal(_ a: Int32, _ b: Int32) -> Bool {
        nodes[Int(a)].x == nodes[Int(b)].x && nodes[Int(a)].y == nodes[Int(b)].y
    }

    /// Links a new node after `last` (or alone when `last` is -1).
    private func insertNode(_ i: Int32, _ x: Double, _ y: Double, after last: Int32) -> Int32 {
        let p = makeNode(i, x, y)
        if last >= 0 {
            let lastNext = nodes[Int(last)].next
            nodes[Int(p)].next = lastNext
            nodes[Int(p)].prev = last
            nodes[Int(lastNext)].prev = p
            nodes[Int(last)].next = p
        }
        return p
    }

    private func removeNode(_ p: Int32) {
        let node = nodes[Int(p)]
        nodes[Int(p)].removed = true
        nodes[Int(node.next)].prev = node.prev
        nodes[Int(node.prev)].next = node.next
        if node.prevZ >= 0 { nodes[Int(node.prevZ)].nextZ = node.nextZ }
        if node.nextZ >= 0 { nodes[Int(node.nextZ)].prevZ = node.prevZ }
    }

    /// A zero-area triangle that only records a dropped vertex: (dropped, keep, keep).
    @inline(__always)
    private func emitDegenerate(_ dropped: Int32, _ keep: Int32) {
        triangles.append(nodes[Int(dropped)].i)
        triangles.append(nodes[Int(keep)].i)
        triangles.append(nodes[Int(keep)].i)
    }

    @inline(__always)
    private func emit(_ a: Int32, _ b: Int32, _ c: Int32) {
        triangles.append(nodes[Int(a)].i)
        triangles.append(nodes[Int(b)].i)
        triangles.append(nodes[Int(c)].i)
    }

    /// Builds a ring from vertices start..<end: counter-clockwise for the outer ring, clockwise for
    /// holes. Returns the last node, or -1 for an empty range.
    private func linkedList(_ data: UnsafeBufferPointer<Double>, _ start: Int, _ end: Int, outer: Bool) -> Int32 {
        guard end > start else { return -1 }
        var area = 0.0
        var j = end - 1
        for i in start..<end {
            area += (data[2 * j] - data[2 * i]) * (data[2 * i + 1] + data[2 * j + 1])
            j = i
        }
        var last: Int32 = -1
        if outer == (area > 0) {
            for i in start..<end { last = insertNode(Int32(i), data[2 * i], data[2 * i + 1], after: last) }
        } else {
            for i in stride(from: end - 1, through: start, by: -1) {
                last = insertNode(Int32(i), data[2 * i], data[2 * i + 1], after: last)
            }
        }
        // A ring given closed repeats its first point: drop the copy (as a zero-area triangle).
        if last >= 0 && next(last) != last && equal(last, next(last)) {
            let keep = next(last)
            emitDegenerate(last, keep)
            removeNode(last)
            last = keep
        }
        return last
    }

    // MARK: - Ear cutting

    /// Cuts ears until two vertices are left (earcut 3.2's loop): when a lap finds no ear, it
    /// filters collinear and repeated points and laps again as long as that removes any, then
    /// cures local self-intersections once, and as a last resort splits the ring in two.
    private func earcutLinked(_ start: Int32) {
        guard start >= 0 else { return }
        var ear = start
        if invSize > 0 { indexCurve(ear) }
        var stop = ear
        var cured = false
        var pass = 0
        while prev(ear) != next(ear) {
            let p = prev(ear), n = next(ear)
            if orient(p, ear, n) > 0 && (invSize > 0 ? isEarHashed(ear) : isEar(ear)) {
                emit(p, ear, n)
                removeNode(ear)
                ear = earcutOrder ? next(n) : n
                stop = ear
                continue
            }
            ear = n
            if ear == stop && earcutOrder {
                // Earcut's passes: filter, then cure knots, then split.
                if pass == 0 {
                    ear = filterPoints(ear, -1)
                } else if pass == 1 {
                    ear = cureLocalIntersections(filterPoints(ear, -1))
                } else {
                    splitEarcut(ear)
                    break
                }
                pass += 1
                stop = ear
                continue
            }
            if ear == stop {
                filteredOut = false
                ear = filterPoints(ear, -1)
                if filteredOut {
                    stop = ear
                    continue
                }
                if !cured {
                    ear = cureLocalIntersections(ear)
                    stop = ear
                    cured = true
                    continue
                }
                splitEarcut(ear)
                break
            }
        }
    }

    /// A convex vertex whose triangle holds no other reflex vertex.
    private func isEar(_ ear: Int32) -> Bool {
        let a = prev(ear), c = next(ear)
        let A = nodes[Int(a)], B = nodes[Int(ear)], C = nodes[Int(c)]
        if turn(A.x, A.y, B.x, B.y, C.x, C.y) <= 0 { return false }
        let x0 = min(A.x, B.x, C.x), y0 = min(A.y, B.y, C.y)
        let x1 = max(A.x, B.x, C.x), y1 = max(A.y, B.y, C.y)
        var p = C.next
        while p != a {
            let P = nodes[Int(p)]
            if P.x >= x0 && P.x <= x1 && P.y >= y0 && P.y <= y1
                && inTriangleExceptFirst(A, B, C, P.x, P.y) && orient(P.prev, p, P.next) <= 0 {
                return false
            }
            p = P.next
        }
        return true
    }

    private func isEarHashed(_ ear: Int32) -> Bool {
        let a = prev(ear), c = next(ear)
        let A = nodes[Int(a)], B = nodes[Int(ear)], C = nodes[Int(c)]
        if turn(A.x, A.y, B.x, B.y, C.x, C.y) <= 0 { return false }
        let x0 = min(A.x, B.x, C.x), y0 = min(A.y, B.y, C.y)
        let x1 = max(A.x, B.x, C.x), y1 = max(A.y, B.y, C.y)
        let minZ = zOrder(x0, y0), maxZ = zOrder(x1, y1)
        var p = B.prevZ, n = B.nextZ

        @inline(__always) func blocks(_ q: Int32) -> Bool {
            let Q = nodes[Int(q)]
            return Q.x >= x0 && Q.x <= x1 && Q.y >= y0 && Q.y <= y1 && q != a && q != c
                && inTriangleExceptFirst(A, B, C, Q.x, Q.y) && orient(Q.prev, q, Q.next) <= 0
        }

        while p >= 0 && nodes[Int(p)].z >= minZ && n >= 0 && nodes[Int(n)].z <= maxZ {
            if blocks(p) { return false }
            p = nodes[Int(p)].prevZ
            if blocks(n) { return false }
            n = nodes[Int(n)].nextZ
        }
        while p >= 0 && nodes[Int(p)].z >= minZ {
            if blocks(p) { return false }
            p = nodes[Int(p)].prevZ
        }
        while n >= 0 && nodes[Int(n)].z <= maxZ {
            if blocks(n) { return false }
            n = nodes[Int(n)].nextZ
        }
        return true
    }

    /// Inside or on the counter-clockwise triangle abc, unless the point is a itself.
    @inline(__always)
    private func inTriangleExceptFirst(_ a: Node, _ b: Node, _ c: Node, _ px: Double, _ py: Double) -> Bool {
        !(a.x == px && a.y == py)
            && turn(a.x, a.y, b.x, b.y, px, py) >= 0
            && turn(b.x, b.y, c.x, c.y, px, py) >= 0
            && turn(c.x, c.y, a.x, a.y, px, py) >= 0
    }

    /// Twice the signed area of pqr, positive for a left turn; in the tolerant pass, 0 when the
    /// turn is below `tolerance` radians or so (|pq × pr| ≤ tolerance · |pq|₁ · |pr|₁).
    @inline(__always)
    private func turn(_ px: Double, _ py: Double, _ qx: Double, _ qy: Double, _ rx: Double, _ ry: Double) -> Double {
        guard tolerance > 0 else { return Orientation.cross(px, py, qx, qy, rx, ry) }
        let ux = qx - px, uy = qy - py, vx = rx - px, vy = ry - py
        let v = ux * vy - uy * vx
        if abs(v) <= tolerance * ((abs(ux) + abs(uy)) * (abs(vx) + abs(vy))) { return 0 }
        return v
    }

    /// Removes duplicate and collinear vertices (earcut 3.2): with `endNode` -1 the whole ring,
    /// lapping until nothing is removable; else only the window from start to end, around a new
    /// cut. Each removal from a ring of three or more becomes a zero-area triangle, so that no
    /// vertex is lost from the count.
    private func filterPoints(_ startNode: Int32, _ endNode: Int32) -> Int32 {
        guard startNode >= 0 else { return startNode }
        // A node filtered out earlier must not be cut twice: start from a live one.
        let start = live(startNode)
        var end = endNode >= 0 ? live(endNode) : start
        let full = end == start
        var p = start
        var again: Bool
        repeat {
            again = false
            let node = nodes[Int(p)]
            if p != node.next && !node.steiner && (equal(p, node.next) || orient(node.prev, p, node.next) == 0) {
                if full || p == end { end = node.prev }
                filteredOut = true
                if node.prev != node.next { emit(node.prev, p, node.next) }
                removeNode(p)
                p = node.prev
                again = true
            } else if full || p != end {
                p = node.next
                again = !full
            }
        } while again || p != end
        return end
    }

    /// The node itself, or the first node after it still in a ring.
    private func live(_ node: Int32) -> Int32 {
        var p = node
        var steps = 0
        while nodes[Int(p)].removed && steps < count {
            p = nodes[Int(p)].next
            steps += 1
        }
        return p
    }

    /// Cuts the two-vertex knots that self-intersections leave behind (edges that properly
    /// cross; touching ones are left alone, as in earcut 3.2).
    private func cureLocalIntersections(_ startNode: Int32) -> Int32 {
        var start = startNode
        var p = start
        var cured = false
        repeat {
            let a = prev(p), pn = next(p), b = next(pn)
            let knot = earcutOrder
                ? !equal(a, b) && crossesOrTouches(a, p, pn, b)
                : intersects(a, p, pn, b, includeBoundary: false)
            if knot && locallyInside(a, b) && locallyInside(b, a) {
                if dropKnots { emitDegenerate(p, b) } else { emit(a, p, b) }
                // The knot's second vertex is dropped as a zero-area triangle (pn, b, b), so the
                // count stays n + 2h − 2 without covering anything twice.
                emitDegenerate(pn, b)
                removeNode(p)
                removeNode(pn)
                p = b
                start = b
                cured = true
            }
            p = next(p)
        } while p != start
        return cured || earcutOrder ? filterPoints(p, -1) : p
    }

    /// Last resort: split the ring along a valid diagonal and cut both halves.
    private func splitEarcut(_ start: Int32) {
        var a = start
        repeat {
            var b = next(next(a))
            while b != prev(a) {
                if nodes[Int(a)].i != nodes[Int(b)].i && isValidDiagonal(a, b) {
                    var c = splitPolygon(a, b)
                    let a2 = filterPoints(a, next(a))
                    c = filterPoints(c, next(c))
                    earcutLinked(a2)
                    earcutLinked(c)
                    return
                }
                b = next(b)
            }
            a = next(a)
        } while a != start
        // No valid diagonal. What is left stays uncovered (as in earcut) rather than being covered
        // by triangles that may overlap: its vertices are dropped as zero-area triangles, so the
        // count stays n + 2h − 2. Left-over area (invalid input) shows in the area; none is left
        // when the rest is a zero-area sliver of touching rings.
        var doubled = 0.0
        var p = start
        repeat {
            let P = nodes[Int(p)], N = nodes[Int(P.next)]
            doubled += (P.x - N.x) * (P.y + N.y)
            p = P.next
        } while p != start
        p = next(next(start))
        while p != start {
            emitDegenerate(p, start)
            p = next(p)
        }
        if doubled != 0 { unfinished = true }
    }

    // MARK: - Holes

    private func eliminateHoles(_ data: UnsafeBufferPointer<Double>, _ holeStarts: [Int], _ vertexCount: Int,
                                _ outerStart: Int32) -> Int32 {
        holeQueue.removeAll(keepingCapacity: true)
        for (k, start) in holeStarts.enumerated() {
            let end = k + 1 < holeStarts.count ? holeStarts[k + 1] : vertexCount
            let list = linkedList(data, start, end, outer: false)
            guard list >= 0 else { continue }
            if list == next(list) { nodes[Int(list)].steiner = true }
            holeQueue.append(leftmost(list))
        }
        holeQueue.sort { a, b in
            let A = nodes[Int(a)], B = nodes[Int(b)]
            if A.x != B.x { return A.x < B.x }
            if A.y != B.y { return A.y < B.y }
            // Same leftmost point: order by the slope of the edge that follows it.
            return Self.slope(A, nodes[Int(A.next)]) < Self.slope(B, nodes[Int(B.next)])
        }
        var outer = outerStart
        for hole in holeQueue { outer = eliminateHole(hole, outer) }
        // Collapse collinear and repeated points across the whole merged ring once.
        return filterPoints(outer, -1)
    }

    /// dy/dx of ab, never NaN (a vertical edge is ±infinity, a repeated point 0), so sorting
    /// stays a strict weak order.
    private static func slope(_ a: Node, _ b: Node) -> Double { slope(b.x - a.x, b.y - a.y) }

    static func slope(_ dx: Double, _ dy: Double) -> Double {
        if dx != 0 { return dy / dx }
        return dy == 0 ? 0 : (dy > 0 ? .infinity : -.infinity)
    }

    private func leftmost(_ start: Int32) -> Int32 {
        var p = start, best = start
        repeat {
            let P = nodes[Int(p)], B = nodes[Int(best)]
            if P.x < B.x || (P.x == B.x && P.y < B.y) { best = p }
            p = P.next
        } while p != start
        return best
    }

    private func eliminateHole(_ leftmost: Int32, _ outer: Int32) -> Int32 {
        var hole = leftmost
        var found = findHoleBridge(hole, outer)
        if found == nil, let other = bridgeFromAnotherPoint(leftmost, outer) {
            // The leftmost point sees no edge to its left (a hole poking out of the outer ring,
            // invalid input): bridge from another of its points rather than leave it out.
            hole = other.hole
            found = other.bridge
        }
        guard let bridge = found else { return outer }
        if touchEdge >= 0 {
            // The hole point lies on edge p→n (a rounding error off it): the hole is spliced
            // into that edge at the point (p → hole … hole's copy → n), with no bridge edges
            // that would run along the edge. One copy instead of a bridge's two: a zero-area
            // triangle keeps the count at n + 2h − 2.
            let p = touchEdge, n = next(touchEdge), last = prev(hole)
            let copy = makeNode(nodes[Int(hole)].i, x(hole), y(hole))
            nodes[Int(p)].next = hole
            nodes[Int(hole)].prev = p
            nodes[Int(last)].next = copy
            nodes[Int(copy)].prev = last
            nodes[Int(copy)].next = n
            nodes[Int(n)].prev = copy
            emitDegenerate(hole, copy)
            _ = filterPoints(last, n)
            return filterPoints(p, next(p))
        }
        let bridgeReverse = splitPolygon(bridge, hole)
        _ = filterPoints(bridgeReverse, next(bridgeReverse))
        return filterPoints(bridge, next(bridge))
    }

    /// For a hole whose leftmost point finds no bridge: the leftmost other point of the hole that
    /// finds one whose bridge starts outside the hole and crosses none of the hole's edges.
    private func bridgeFromAnotherPoint(_ leftmost: Int32, _ outer: Int32) -> (hole: Int32, bridge: Int32)? {
        var candidates: [Int32] = []
        var p = next(leftmost)
        while p != leftmost {
            candidates.append(p)
            p = next(p)
        }
        candidates.sort { x($0) < x($1) || (x($0) == x($1) && y($0) < y($1)) }
        for v in candidates {
            guard let m = findHoleBridge(v, outer), touchEdge < 0, !equal(v, m), locallyInside(v, m) else {
                touchEdge = -1
                continue
            }
            var crosses = false
            var q = next(v)
            while next(q) != v {
                if intersects(q, next(q), v, m, includeBoundary: false) {
                    crosses = true
                    break
                }
                q = next(q)
            }
            if !crosses { return (v, m) }
        }
        return nil
    }

    /// Finds the outer vertex to connect the hole's leftmost vertex to: the nearest edge hit by a
    /// ray to the left, then the visible vertex with the smallest angle to that ray (earcut's
    /// choice, after Eberly). Every side and angle test is an exact orientation — which side of
    /// the hit edge, of the line from the hole point to the edge's end, or of the line to the best
    /// vertex so far a vertex lies on — never the rounded hit point or a quotient of coordinates,
    /// so that a vertex on one of those lines (a polygon turned off its grid keeps some there) is
    /// neither lost nor let in by rounding.
    private func findHoleBridge(_ hole: Int32, _ outer: Int32) -> Int32? {
        let H = nodes[Int(hole)]
        let hx = H.x, hy = H.y
        var qx = -Double.infinity
        var m: Int32 = -1
        var hit: Int32 = -1
        var p = outer
        touchEdge = -1
        var touchLength = Double.infinity
        if equal(hole, p) { return p }
        repeat {
            let P = nodes[Int(p)], N = nodes[Int(P.next)]
            if equal(hole, P.next) { touchEdge = -1; return P.next }
            if hy <= P.y && hy >= N.y && N.y != P.y {
                // The hole point's side of the downward edge P → N: ≥ 0 when the edge crosses the
                // ray's line at or left of it, 0 when the point lies on the edge.
                let side = orient(p, P.next, hole)
                // Where the edge crosses the ray's line (exact at an end of the edge).
                let ix = hy == P.y ? P.x : (hy == N.y ? N.x : P.x + (hy - P.y) * (N.x - P.x) / (N.y - P.y))
                let length = abs(N.x - P.x) + abs(N.y - P.y)
                // A hole point on the edge (exactly, or in the tolerant pass within a rounding
                // error) touches it; of edges through the point (collinear runs stacked on one
                // line), the shortest is the one nearest the hole in the ring's nesting.
                if (side == 0 || (snap > 0 && abs(ix - hx) <= snap)) && length < touchLength {
                    touchEdge = p
                    touchLength = length
                }
                if side >= 0 && (hit < 0 || ix > qx) {
                    qx = min(ix, hx)
                    hit = p
                    m = P.x < N.x ? p : P.next
                }
            }
            p = P.next
        } while p != outer
        if touchEdge >= 0 { return touchEdge }
        guard m >= 0 else { return nil }

        // Vertices inside or on the triangle (hole point, hit point, m) may hide m: the visible one
        // at the smallest angle to the ray wins. The triangle's sides: the ray's line (y = hy),
        // the hit edge, and the line from the hole point to m.
        let stop = m
        let M = nodes[Int(m)]
        let mx = M.x, my = M.y
        let e0 = hit, e1 = nodes[Int(hit)].next
        let holeSide = orient(e0, e1, hole)
        let mSide: Double = my > hy ? 1 : (my < hy ? -1 : 0)
        var best: Int32 = -1
        p = m
        repeat {
            let P = nodes[Int(p)]
            if hx >= P.x && P.x >= mx && hx != P.x
                && (P.y == hy || (mSide != 0 && (P.y > hy) == (mSide > 0)))
                && Self.sameSideOrOn(orient(e0, e1, p), holeSide)
                && Self.sameSideOrOn(orient(hole, m, p), mSide) {
                // A hole point on p's horizontal edge (a T-junction): the bridge runs along that
                // edge; locallyInside rejects it as collinear, but it is valid (earcut 3.2).
                let along = P.y == hy && nodes[Int(P.next)].y == hy && nodes[Int(P.next)].x > hx
                if locallyInside(p, hole) || along {
                    if best < 0 {
                        best = p
                    } else {
                        let angle = compareAngles(hole, p, best)
                        if angle < 0 || (angle == 0 && (P.x > x(best) || (P.x == x(best) && sectorContainsSector(best, p)))) {
                            best = p
                        }
                    }
                }
            }
            p = P.next
        } while p != stop
        return best >= 0 ? best : m
    }

    /// Whether a side (an orientation's sign) is `reference`'s, or on the line (0).
    @inline(__always)
    private static func sameSideOrOn(_ side: Double, _ reference: Double) -> Bool {
        side == 0 || (reference != 0 && (side > 0) == (reference > 0))
    }

    /// −1 when p makes a smaller angle than q with the ray to the left of the hole point, 0 when
    /// both lie on one line through the point, 1 when larger (both at or left of the point, on the
    /// same side of the ray or on it). Exact: the side of the line from the hole point to q that p
    /// lies on.
    private func compareAngles(_ hole: Int32, _ p: Int32, _ q: Int32) -> Int {
        let hy = y(hole), py = y(p), qy = y(q)
        if qy == hy { return py == hy ? 0 : 1 }
        if py == hy { return -1 }
        let o = orient(hole, q, p)
        if o == 0 { return 0 }
        return (o > 0) == (qy > hy) ? -1 : 1
    }

    /// Whether the sector at m contains the sector at p (both on the same vertex position).
    private func sectorContainsSector(_ m: Int32, _ p: Int32) -> Bool {
        orient(prev(m), m, prev(p)) > 0 && orient(next(p), m, next(m)) > 0
    }

    // MARK: - Diagonals

    /// Links a to b with a new pair of nodes, splitting the ring in two; returns b's copy.
    private func splitPolygon(_ a: Int32, _ b: Int32) -> Int32 {
        let a2 = makeNode(nodes[Int(a)].i, x(a), y(a))
        let b2 = makeNode(nodes[Int(b)].i, x(b), y(b))
        let an = next(a), bp = prev(b)
        nodes[Int(a)].next = b
        nodes[Int(b)].prev = a
        nodes[Int(a2)].next = an
        nodes[Int(an)].prev = a2
        nodes[Int(b2)].next = a2
        nodes[Int(a2)].prev = b2
        nodes[Int(bp)].next = b2
        nodes[Int(b2)].prev = bp
        return b2
    }

    private func isValidDiagonal(_ a: Int32, _ b: Int32) -> Bool {
        // A zero-length diagonal between two reflex copies of the same point.
        let zeroLength = equal(a, b) && orient(prev(a), a, next(a)) < 0 && orient(prev(b), b, next(b)) < 0
        guard nodes[Int(next(a))].i != nodes[Int(b)].i else { return false }
        // Visible locally, without opening opposite-facing sectors.
        guard zeroLength || (locallyInside(a, b) && locallyInside(b, a)
                             && (orient(prev(a), a, prev(b)) != 0 || orient(a, prev(b), b) != 0)) else { return false }
        return !intersectsPolygon(a, b) && (zeroLength || middleInside(a, b))
    }

    private func intersectsPolygon(_ a: Int32, _ b: Int32) -> Bool {
        let A = nodes[Int(a)], B = nodes[Int(b)]
        let ai = A.i, bi = B.i
        let minX = min(A.x, B.x), maxX = max(A.x, B.x), minY = min(A.y, B.y), maxY = max(A.y, B.y)
        var p = a
        repeat {
            let P = nodes[Int(p)], N = nodes[Int(P.next)]
            if !((P.x > maxX && N.x > maxX) || (P.x < minX && N.x < minX) || (P.y > maxY && N.y > maxY) || (P.y < minY && N.y < minY))
                && P.i != ai && N.i != ai && P.i != bi && N.i != bi && intersects(p, P.next, a, b) {
                return true
            }
            p = P.next
        } while p != a
        return false
    }

    /// Whether segments p1q1 and p2q2 cross, or (with `includeBoundary`) touch.
    private func intersects(_ p1: Int32, _ q1: Int32, _ p2: Int32, _ q2: Int32, includeBoundary: Bool = true) -> Bool {
        let o1 = orient(p1, q1, p2), o2 = orient(p1, q1, q2)
        let o3 = orient(p2, q2, p1), o4 = orient(p2, q2, q1)
        if ((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)) { return true }
        guard includeBoundary else { return false }
        if o1 == 0 && onSegment(p1, p2, q1) { return true }
        if o2 == 0 && onSegment(p1, q2, q1) { return true }
        if o3 == 0 && onSegment(p2, p1, q2) { return true }
        if o4 == 0 && onSegment(p2, q1, q2) { return true }
        return false
    }

    /// Earcut's `intersects`: the two segments' ends differ in side both ways (one of them may lie
    /// on the other's line), or an end lies on the other segment.
    private func crossesOrTouches(_ p1: Int32, _ q1: Int32, _ p2: Int32, _ q2: Int32) -> Bool {
        @inline(__always) func sign(_ v: Double) -> Int { v > 0 ? 1 : (v < 0 ? -1 : 0) }
        let o1 = sign(orient(p1, q1, p2)), o2 = sign(orient(p1, q1, q2))
        let o3 = sign(orient(p2, q2, p1)), o4 = sign(orient(p2, q2, q1))
        if o1 != o2 && o3 != o4 { return true }
        return intersects(p1, q1, p2, q2)
    }

    /// For collinear p, q, r: whether q lies on segment pr.
    private func onSegment(_ p: Int32, _ q: Int32, _ r: Int32) -> Bool {
        let P = nodes[Int(p)], Q = nodes[Int(q)], R = nodes[Int(r)]
        return Q.x <= max(P.x, R.x) && Q.x >= min(P.x, R.x) && Q.y <= max(P.y, R.y) && Q.y >= min(P.y, R.y)
    }

    /// Whether the diagonal from a towards b starts inside the polygon.
    private func locallyInside(_ a: Int32, _ b: Int32) -> Bool {
        let ap = prev(a), an = next(a)
        if orient(ap, a, an) > 0 {
            return orient(a, b, an) <= 0 && orient(a, ap, b) <= 0
        }
        return orient(a, b, ap) > 0 || orient(a, an, b) > 0
    }

    /// Whether the midpoint of ab is inside the ring.
    private func middleInside(_ a: Int32, _ b: Int32) -> Bool {
        var p = a
        var inside = false
        let px = (x(a) + x(b)) / 2, py = (y(a) + y(b)) / 2
        repeat {
            let P = nodes[Int(p)], N = nodes[Int(P.next)]
            if (P.y > py) != (N.y > py) && N.y != P.y && px < (N.x - P.x) * (py - P.y) / (N.y - P.y) + P.x {
                inside.toggle()
            }
            p = P.next
        } while p != a
        return inside
    }

    // MARK: - Z-order

    /// Morton code of a point on a 32768 × 32768 grid over the polygon's box.
    @inline(__always)
    private func zOrder(_ px: Double, _ py: Double) -> Int32 {
        Self.interleave(UInt32(truncatingIfNeeded: Int((px - minX) * invSize)), UInt32(truncatingIfNeeded: Int((py - minY) * invSize)))
    }

    /// The bits of x and y interleaved (x in the even bits): a Morton code of two 15-bit grid cells.
    @inline(__always)
    static func interleave(_ gx: UInt32, _ gy: UInt32) -> Int32 {
        var x = gx, y = gy
        x = (x | (x << 8)) & 0x00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F
        x = (x | (x << 2)) & 0x3333_3333
        x = (x | (x << 1)) & 0x5555_5555
        y = (y | (y << 8)) & 0x00FF_00FF
        y = (y | (y << 4)) & 0x0F0F_0F0F
        y = (y | (y << 2)) & 0x3333_3333
        y = (y | (y << 1)) & 0x5555_5555
        return Int32(bitPattern: x | (y << 1))
    }

    /// Gives every node of the ring its Morton code and links the ring in z-order.
    private func indexCurve(_ start: Int32) {
        zKeys.removeAll(keepingCapacity: true)
        var p = start
        repeat {
            let P = nodes[Int(p)]
            let z = P.z >= 0 ? P.z : zOrder(P.x, P.y)
            nodes[Int(p)].z = z
            zKeys.append(UInt64(UInt32(bitPattern: z)) << 32 | UInt64(UInt32(bitPattern: p)))
            p = P.next
        } while p != start
        zKeys.sort()
        var previous: Int32 = -1
        for key in zKeys {
            let id = Int32(truncatingIfNeeded: key & 0xFFFF_FFFF)
            nodes[Int(id)].prevZ = previous
            if previous >= 0 { nodes[Int(previous)].nextZ = id }
            previous = id
        }
        if previous >= 0 { nodes[Int(previous)].nextZ = -1 }
    }
}
