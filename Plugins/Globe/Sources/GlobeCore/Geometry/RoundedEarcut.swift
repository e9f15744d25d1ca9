// One more candidate cut for input that no exact pass of EarClipper cuts to its area (a ring that
// crosses itself): the ear-clipping order of mapbox earcut 3.x (ISC; earcut.hpp at earcut 3.2
// parity is what the mapbox_earcut 2.1.0 peer runs), with its rounded cross products and its
// choices — holes sorted by leftmost point and bridged to the visible vertex of least tangent (the
// ring scanned in earcut.hpp's block order, which decides ties), and, when a lap finds no ear,
// filtering as long as that removes points, then one pass that cures crossing knots, then a split.
// Vertices it drops are dropped (no zero-area triangles). Written from earcut's published algorithm;
// checked against the peer on the rotation sweep (Benchmarks/globe/rotation_sweep.py).
//
// Why a rounded pass at all: on a self-crossing ring there is no right triangulation. Every cut
// covers some overlap twice or leaves some of it out, and which pieces go depends on the order of
// work and on how near-collinear points round. EarClipper keeps the cut whose area is nearest the
// polygon's; with this order among the candidates, that is never further off than earcut's own
// answer on the same coordinates. Nothing here depends on the polygon's orientation beyond
// earcut's own "leftmost point, ray to the left"; valid polygons never get here (their exact cut
// is taken first).

struct RoundedEarcut {
    private struct Node {
        var x: Double
        var y: Double
        var i: Int32
        var prev: Int32 = -1
        var next: Int32 = -1
        var prevZ: Int32 = -1
        var nextZ: Int32 = -1
        var z: Int32 = 0
        var steiner = false
    }

    private var nodes: [Node] = []
    private var triangles: [Int32] = []
    private var hashing = false
    private var minX = 0.0
    private var minY = 0.0
    private var invSize = 0.0
    private var filteredOut = false
    /// earcut.hpp's hole-bridge scan order: runs of up to 16 ring edges (head, stop), the outer
    /// ring's first, then each merged hole's, scanned in that order (which decides ties).
    private var blockHead: [Int32] = []
    private var blockStop: [Int32] = []

    /// Triangulates flat `x0, y0, x1, y1, …` coordinates with holes starting at `holeStarts`.
    static func triangulate(_ data: UnsafeBufferPointer<Double>, _ holeStarts: [Int]) -> [Int32] {
        var earcut = RoundedEarcut()
        return earcut.run(data, holeStarts)
    }

    private mutating func run(_ data: UnsafeBufferPointer<Double>, _ holeStarts: [Int]) -> [Int32] {
        let vertexCount = data.count / 2
        let bounds = [0] + holeStarts.filter { $0 > 0 && $0 < vertexCount } + [vertexCount]
        guard bounds.count >= 2, bounds[1] > 0 else { return [] }
        nodes.reserveCapacity(vertexCount * 3 / 2 + 8)
        var outer = linkedList(data, bounds[0], bounds[1], clockwise: true)
        guard outer >= 0, nodes[Int(outer)].prev != nodes[Int(outer)].next else { return [] }
        if bounds.count > 2 { outer = eliminateHoles(data, bounds, outer) }
        hashing = vertexCount > EarClipper.hashingThreshold
        if hashing {
            var x0 = nodes[Int(outer)].x, y0 = nodes[Int(outer)].y, x1 = x0, y1 = y0
            var p = next(outer)
            while p != outer {
                let P = nodes[Int(p)]
                x0 = min(x0, P.x); y0 = min(y0, P.y); x1 = max(x1, P.x); y1 = max(y1, P.y)
                p = P.next
            }
            minX = x0
            minY = y0
            let size = max(x1 - x0, y1 - y0)
            invSize = size != 0 ? 32767 / size : 0
        }
        earcutLinked(outer)
        return triangles
    }

    @inline(__always) private func next(_ n: Int32) -> Int32 { nodes[Int(n)].next }
    @inline(__always) private func prev(_ n: Int32) -> Int32 { nodes[Int(n)].prev }

    /// earcut's signed area: negative for a left (counter-clockwise) turn; rounded.
    @inline(__always)
    private func area(_ p: Int32, _ q: Int32, _ r: Int32) -> Double {
        let P = nodes[Int(p)], Q = nodes[Int(q)], R = nodes[Int(r)]
        return (Q.y - P.y) * (R.x - Q.x) - (Q.x - P.x) * (R.y - Q.y)
    }

    @inline(__always)
    private func equals(_ a: Int32, _ b: Int32) -> Bool {
        nodes[Int(a)].x == nodes[Int(b)].x && nodes[Int(a)].y == nodes[Int(b)].y
    }

    private mutating func insertNode(_ i: Int, _ x: Double, _ y: Double, after last: Int32) -> Int32 {
        let p = Int32(nodes.count)
        nodes.append(Node(x: x, y: y, i: Int32(i)))
        if last < 0 {
            nodes[Int(p)].prev = p
            nodes[Int(p)].next = p
        } else {
            let lastNext = nodes[Int(last)].next
            nodes[Int(p)].next = lastNext
            nodes[Int(p)].prev = last
            nodes[Int(lastNext)].prev = p
            nodes[Int(last)].next = p
        }
        return p
    }

    private mutating func removeNode(_ p: Int32) {
        let P = nodes[Int(p)]
        nodes[Int(P.next)].prev = P.prev
        nodes[Int(P.prev)].next = P.next
        if P.prevZ >= 0 { nodes[Int(P.prevZ)].nextZ = P.nextZ }
        if P.nextZ >= 0 { nodes[Int(P.nextZ)].prevZ = P.prevZ }
    }

    private mutating func linkedList(_ data: UnsafeBufferPointer<Double>, _ start: Int, _ end: Int, clockwise: Bool) -> Int32 {
        guard end > start else { return -1 }
        var sum = 0.0
        var j = end - 1
        for i in start..<end {
            sum += (data[2 * j] - data[2 * i]) * (data[2 * i + 1] + data[2 * j + 1])
            j = i
        }
        var last: Int32 = -1
        if clockwise == (sum > 0) {
            for i in start..<end { last = insertNode(i, data[2 * i], data[2 * i + 1], after: last) }
        } else {
            for i in stride(from: end - 1, through: start, by: -1) { last = insertNode(i, data[2 * i], data[2 * i + 1], after: last) }
        }
        if last >= 0 && equals(last, next(last)) {
            let keep = next(last)
            removeNode(last)
            last = keep
        }
        return last
    }

    /// Drops repeated and (by the rounded area) collinear points: with no end the whole ring until
    /// nothing is removable, else the window from start to end.
    private mutating func filterPoints(_ start: Int32, _ endNode: Int32 = -1) -> Int32 {
        guard start >= 0 else { return start }
        let full = endNode < 0
        var end = full ? start : endNode
        var p = start
        var again: Bool
        repeat {
            again = false
            let P = nodes[Int(p)]
            if p != P.next && !P.steiner && (equals(p, P.next) || area(P.prev, p, P.next) == 0) {
                if full || p == end { end = P.prev }
                filteredOut = true
                removeNode(p)
                p = P.prev
                again = true
            } else if full || p != end {
                p = P.next
                again = !full
            }
        } while again || p != end
        return end
    }

    private mutating func earcutLinked(_ start: Int32) {
        guard start >= 0 else { return }
        if hashing { indexCurve(start) }
        var ear = start
        var stop = ear
        var cured = false
        while prev(ear) != next(ear) {
            let p = prev(ear), n = next(ear)
            if area(p, ear, n) < 0 && (hashing ? isEarHashed(ear) : isEar(ear)) {
                triangles.append(nodes[Int(p)].i)
                triangles.append(nodes[Int(ear)].i)
                triangles.append(nodes[Int(n)].i)
                removeNode(ear)
                ear = n
                stop = n
                continue
            }
            ear = n
            if ear == stop {
                filteredOut = false
                ear = filterPoints(ear)
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

    @inline(__always)
    private static func pointInTriangle(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double,
                                        _ px: Double, _ py: Double) -> Bool {
        (cx - px) * (ay - py) >= (ax - px) * (cy - py)
            && (ax - px) * (by - py) >= (bx - px) * (ay - py)
            && (bx - px) * (cy - py) >= (cx - px) * (by - py)
    }

    /// Inside or on the triangle, unless the point is its first vertex.
    @inline(__always)
    private static func inTriangleExceptFirst(_ A: Node, _ B: Node, _ C: Node, _ P: Node) -> Bool {
        !(A.x == P.x && A.y == P.y) && pointInTriangle(A.x, A.y, B.x, B.y, C.x, C.y, P.x, P.y)
    }

    private func isEar(_ ear: Int32) -> Bool {
        let a = prev(ear), c = next(ear)
        let A = nodes[Int(a)], B = nodes[Int(ear)], C = nodes[Int(c)]
        var p = C.next
        while p != a {
            let P = nodes[Int(p)]
            if Self.inTriangleExceptFirst(A, B, C, P) && area(P.prev, p, P.next) >= 0 { return false }
            p = P.next
        }
        return true
    }

    private func isEarHashed(_ ear: Int32) -> Bool {
        let a = prev(ear), c = next(ear)
        let A = nodes[Int(a)], B = nodes[Int(ear)], C = nodes[Int(c)]
        let minZ = zOrder(min(A.x, B.x, C.x), min(A.y, B.y, C.y))
        let maxZ = zOrder(max(A.x, B.x, C.x), max(A.y, B.y, C.y))
        @inline(__always) func blocks(_ q: Int32) -> Bool {
            let Q = nodes[Int(q)]
            return q != c && Self.inTriangleExceptFirst(A, B, C, Q) && area(Q.prev, q, Q.next) >= 0
        }
        var p = B.nextZ
        while p >= 0 && nodes[Int(p)].z <= maxZ {
            if blocks(p) { return false }
            p = nodes[Int(p)].nextZ
        }
        p = B.prevZ
        while p >= 0 && nodes[Int(p)].z >= minZ {
            if blocks(p) { return false }
            p = nodes[Int(p)].prevZ
        }
        return true
    }

    private mutating func cureLocalIntersections(_ startNode: Int32) -> Int32 {
        var start = startNode
        var p = start
        var cured = false
        repeat {
            let a = prev(p), pn = next(p), b = next(pn)
            if intersects(a, p, pn, b, includeBoundary: false) && locallyInside(a, b) && locallyInside(b, a) {
                triangles.append(nodes[Int(a)].i)
                triangles.append(nodes[Int(p)].i)
                triangles.append(nodes[Int(b)].i)
                removeNode(p)
                removeNode(pn)
                p = b
                start = b
                cured = true
            }
            p = next(p)
        } while p != start
        return cured ? filterPoints(p) : p
    }

    private mutating func splitEarcut(_ start: Int32) {
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
    }

    private mutating func eliminateHoles(_ data: UnsafeBufferPointer<Double>, _ bounds: [Int], _ outerStart: Int32) -> Int32 {
        var queue: [Int32] = []
        for k in 1..<(bounds.count - 1) {
            let list = linkedList(data, bounds[k], bounds[k + 1], clockwise: false)
            guard list >= 0 else { continue }
            if list == next(list) { nodes[Int(list)].steiner = true }
            queue.append(leftmost(list))
        }
        // By x, then y, then the slope of the edge after the point (earcut's order).
        queue.sort { l, r in
            let a = nodes[Int(l)], b = nodes[Int(r)]
            if a.x != b.x { return a.x < b.x }
            if a.y != b.y { return a.y < b.y }
            let an = nodes[Int(a.next)], bn = nodes[Int(b.next)]
            return EarClipper.slope(an.x - a.x, an.y - a.y) < EarClipper.slope(bn.x - b.x, bn.y - b.y)
        }
        blockHead.removeAll(keepingCapacity: true)
        blockStop.removeAll(keepingCapacity: true)
        indexSegment(outerStart, outerStart)
        var outer = outerStart
        for hole in queue { outer = eliminateHole(hole, outer) }
        return filterPoints(outer)
    }

    private mutating func eliminateHole(_ hole: Int32, _ outer: Int32) -> Int32 {
        guard let bridge = findHoleBridge(hole, outer) else { return outer }
        let bridgeReverse = splitPolygon(bridge, hole)
        indexSegment(bridge, next(next(bridgeReverse)))
        _ = filterPoints(bridgeReverse, next(bridgeReverse))
        return filterPoints(bridge, next(bridge))
    }

    /// Splits the ring run head..<stop (the whole ring when they are equal) into blocks of 16 edges.
    private mutating func indexSegment(_ head: Int32, _ stop: Int32) {
        var p = head
        repeat {
            blockHead.append(p)
            var k = 0
            repeat {
                p = next(p)
                k += 1
            } while k < 16 && p != stop
            blockStop.append(p)
        } while p != stop
    }

    @inline(__always) private func live(_ p: Int32) -> Bool { next(prev(p)) == p }

    /// The block's bound moved on past nodes filtered out since it was made.
    private func liveBound(_ q: Int32) -> Int32 {
        var p = q
        var steps = 0
        while !live(p) && steps < nodes.count {
            p = next(p)
            steps += 1
        }
        return p
    }

    /// Calls `visit` on every live node of every block in scan order; stops when it returns true.
    private func scanBlocks(_ visit: (Int32) -> Bool) {
        for b in blockHead.indices {
            let stop = liveBound(blockStop[b])
            var p = liveBound(blockHead[b])
            var steps = 0
            repeat {
                if live(p) && visit(p) { return }
                p = next(p)
                steps += 1
            } while p != stop && steps <= nodes.count
        }
    }

    private func findHoleBridge(_ hole: Int32, _ outer: Int32) -> Int32? {
        let hx = nodes[Int(hole)].x, hy = nodes[Int(hole)].y
        var qx = -Double.greatestFiniteMagnitude
        var m: Int32 = -1
        if equals(hole, outer) { return outer }
        var found: Int32 = -1
        scanBlocks { p in
            let P = nodes[Int(p)], N = nodes[Int(P.next)]
            if equals(hole, P.next) {
                found = P.next
                return true
            }
            if hy <= P.y && hy >= N.y && N.y != P.y {
                let x = P.x + (hy - P.y) * (N.x - P.x) / (N.y - P.y)
                if x <= hx && x > qx {
                    qx = x
                    m = P.x < N.x ? p : P.next
                    if x == hx {
                        found = m
                        return true
                    }
                }
            }
            return false
        }
        if found >= 0 { return found }
        guard m >= 0 else { return nil }

        var tanMin = Double.greatestFiniteMagnitude
        let mx = nodes[Int(m)].x, my = nodes[Int(m)].y
        scanBlocks { p in
            let P = nodes[Int(p)]
            if hx >= P.x && P.x >= mx && hx != P.x
                && Self.pointInTriangle(hy < my ? hx : qx, hy, mx, my, hy < my ? qx : hx, hy, P.x, P.y) {
                let tanCur = abs(hy - P.y) / (hx - P.x)
                let along = P.y == hy && nodes[Int(P.next)].y == hy && nodes[Int(P.next)].x > hx
                let M = nodes[Int(m)]
                if (locallyInside(p, hole) || along)
                    && (tanCur < tanMin || (tanCur == tanMin && (P.x > M.x || (P.x == M.x && sectorContainsSector(m, p))))) {
                    m = p
                    tanMin = tanCur
                }
            }
            return false
        }
        return m
    }

    private func sectorContainsSector(_ m: Int32, _ p: Int32) -> Bool {
        area(prev(m), m, prev(p)) < 0 && area(next(p), m, next(m)) < 0
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

    private func isValidDiagonal(_ a: Int32, _ b: Int32) -> Bool {
        let A = nodes[Int(a)], B = nodes[Int(b)]
        let zeroLength = equals(a, b) && area(A.prev, a, A.next) > 0 && area(B.prev, b, B.next) > 0
        return nodes[Int(A.next)].i != B.i
            && (zeroLength || (locallyInside(a, b) && locallyInside(b, a) && (area(A.prev, a, B.prev) != 0 || area(a, B.prev, b) != 0)))
            && !intersectsPolygon(a, b)
            && (zeroLength || middleInside(a, b))
    }

    private func intersectsPolygon(_ a: Int32, _ b: Int32) -> Bool {
        let ai = nodes[Int(a)].i, bi = nodes[Int(b)].i
        var p = a
        repeat {
            let P = nodes[Int(p)], ni = nodes[Int(P.next)].i
            if P.i != ai && ni != ai && P.i != bi && ni != bi && intersects(p, P.next, a, b) { return true }
            p = P.next
        } while p != a
        return false
    }

    @inline(__always)
    private static func sign(_ v: Double) -> Int { v > 0 ? 1 : (v < 0 ? -1 : 0) }

    private func intersects(_ p1: Int32, _ q1: Int32, _ p2: Int32, _ q2: Int32, includeBoundary: Bool = true) -> Bool {
        let o1 = Self.sign(area(p1, q1, p2)), o2 = Self.sign(area(p1, q1, q2))
        let o3 = Self.sign(area(p2, q2, p1)), o4 = Self.sign(area(p2, q2, q1))
        if o1 * o2 < 0 && o3 * o4 < 0 { return true }
        guard includeBoundary else { return false }
        if o1 == 0 && onSegment(p1, p2, q1) { return true }
        if o2 == 0 && onSegment(p1, q2, q1) { return true }
        if o3 == 0 && onSegment(p2, p1, q2) { return true }
        if o4 == 0 && onSegment(p2, q1, q2) { return true }
        return false
    }

    private func onSegment(_ p: Int32, _ q: Int32, _ r: Int32) -> Bool {
        let P = nodes[Int(p)], Q = nodes[Int(q)], R = nodes[Int(r)]
        return Q.x <= max(P.x, R.x) && Q.x >= min(P.x, R.x) && Q.y <= max(P.y, R.y) && Q.y >= min(P.y, R.y)
    }

    private func locallyInside(_ a: Int32, _ b: Int32) -> Bool {
        let ap = prev(a), an = next(a)
        return area(ap, a, an) < 0
            ? area(a, b, an) >= 0 && area(a, ap, b) >= 0
            : area(a, b, ap) < 0 || area(a, an, b) < 0
    }

    private func middleInside(_ a: Int32, _ b: Int32) -> Bool {
        var p = a
        var inside = false
        let px = (nodes[Int(a)].x + nodes[Int(b)].x) / 2, py = (nodes[Int(a)].y + nodes[Int(b)].y) / 2
        repeat {
            let P = nodes[Int(p)], N = nodes[Int(P.next)]
            if (P.y > py) != (N.y > py) && px < (N.x - P.x) * (py - P.y) / (N.y - P.y) + P.x {
                inside.toggle()
            }
            p = P.next
        } while p != a
        return inside
    }

    private mutating func splitPolygon(_ a: Int32, _ b: Int32) -> Int32 {
        let a2 = Int32(nodes.count)
        nodes.append(Node(x: nodes[Int(a)].x, y: nodes[Int(a)].y, i: nodes[Int(a)].i))
        let b2 = Int32(nodes.count)
        nodes.append(Node(x: nodes[Int(b)].x, y: nodes[Int(b)].y, i: nodes[Int(b)].i))
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

    // MARK: - Z-order (earcut's 15-bit grid)

    @inline(__always)
    private func zOrder(_ px: Double, _ py: Double) -> Int32 {
        EarClipper.interleave(UInt32(truncatingIfNeeded: Int32(truncatingIfNeeded: Int((px - minX) * invSize))),
                              UInt32(truncatingIfNeeded: Int32(truncatingIfNeeded: Int((py - minY) * invSize))))
    }

    private mutating func indexCurve(_ start: Int32) {
        var ring: [(z: Int32, position: Int, node: Int32)] = []
        var p = start
        repeat {
            nodes[Int(p)].z = zOrder(nodes[Int(p)].x, nodes[Int(p)].y)
            ring.append((nodes[Int(p)].z, ring.count, p))
            p = next(p)
        } while p != start
        ring.sort { $0.z < $1.z || ($0.z == $1.z && $0.position < $1.position) }
        var previous: Int32 = -1
        for entry in ring {
            nodes[Int(entry.node)].prevZ = previous
            if previous >= 0 { nodes[Int(previous)].nextZ = entry.node }
            previous = entry.node
        }
        if previous >= 0 { nodes[Int(previous)].nextZ = -1 }
    }
}
