// Contour lines of a heightfield by marching squares, joined into polylines, for pictures of
// greens that came without contours (and for the generated demo greens).

/// Traces iso-height lines through the cell centres of a heightfield.
public enum ContourTracer {
    /// Lines at every multiple of `interval` between the lowest and highest green height. Squares with a
    /// corner off the green (per `mask(column, row)`) are skipped.
    public static func trace(_ hf: Heightfield, interval: Double, mask: (Int, Int) -> Bool) -> [ContourLine] {
        guard interval > 0, interval.isFinite else { return [] }
        var lo = Double.infinity, hi = -Double.infinity
        for row in 0..<hf.nz {
            for column in 0..<hf.nx where mask(column, row) {
                let h = Double(hf[column, row])
                lo = min(lo, h); hi = max(hi, h)
            }
        }
        guard lo <= hi else { return [] }
        var lines: [ContourLine] = []
        var k = (lo / interval).rounded(.up)
        // A level exactly at the lowest point would only draw a dot: start above it.
        if k * interval <= lo { k += 1 }
        var usable = [Bool](repeating: false, count: (hf.nx - 1) * (hf.nz - 1))
        for row in 0..<(hf.nz - 1) {
            for column in 0..<(hf.nx - 1) {
                usable[row * (hf.nx - 1) + column] = mask(column, row) && mask(column + 1, row)
                    && mask(column, row + 1) && mask(column + 1, row + 1)
            }
        }
        while k * interval < hi, lines.count < 10_000 {
            let level = k * interval
            for points in polylines(hf, level: level, usable: usable) {
                lines.append(ContourLine(heightFt: level, points: points))
            }
            k += 1
        }
        return lines
    }

    /// The polylines of one level.
    static func polylines(_ hf: Heightfield, level: Double, usable: [Bool]) -> [[PointFt]] {
        let nx = hf.nx
        // Edge ids: horizontal edge from (c, r) to (c+1, r) = 2·(r·nx + c); vertical to (c, r+1) = +1.
        func crossing(_ edge: Int) -> PointFt {
            let cell = edge / 2
            let c = cell % nx, r = cell / nx
            let (c2, r2) = edge % 2 == 0 ? (c + 1, r) : (c, r + 1)
            let a = Double(hf[c, r]), b = Double(hf[c2, r2])
            let t = a == b ? 0.5 : min(1, max(0, (level - a) / (b - a)))
            return PointFt(x: hf.xFt(column: c) + t * Double(c2 - c) * hf.resolutionFt,
                           z: hf.zFt(row: r) + t * Double(r2 - r) * hf.resolutionFt)
        }
        var segments: [(Int, Int)] = []
        for row in 0..<(hf.nz - 1) {
            for column in 0..<(nx - 1) where usable[row * (nx - 1) + column] {
                let h00 = Double(hf[column, row]), h10 = Double(hf[column + 1, row])
                let h01 = Double(hf[column, row + 1]), h11 = Double(hf[column + 1, row + 1])
                var code = 0
                if h00 > level { code |= 1 }
                if h10 > level { code |= 2 }
                if h11 > level { code |= 4 }
                if h01 > level { code |= 8 }
                if code == 0 || code == 15 { continue }
                let bottom = 2 * (row * nx + column)
                let top = 2 * ((row + 1) * nx + column)
                let left = 2 * (row * nx + column) + 1
                let right = 2 * (row * nx + column + 1) + 1
                let centreAbove = (h00 + h10 + h01 + h11) / 4 > level
                switch code {
                case 1, 14: segments.append((left, bottom))
                case 2, 13: segments.append((bottom, right))
                case 3, 12: segments.append((left, right))
                case 4, 11: segments.append((right, top))
                case 6, 9: segments.append((bottom, top))
                case 7, 8: segments.append((left, top))
                case 5:
                    if centreAbove { segments.append((left, top)); segments.append((bottom, right)) }
                    else { segments.append((left, bottom)); segments.append((right, top)) }
                case 10:
                    if centreAbove { segments.append((left, bottom)); segments.append((right, top)) }
                    else { segments.append((left, top)); segments.append((bottom, right)) }
                default: break
                }
            }
        }
        // Join segments sharing an edge into polylines.
        var byEdge: [Int: [Int]] = [:]
        for (i, s) in segments.enumerated() {
            byEdge[s.0, default: []].append(i)
            byEdge[s.1, default: []].append(i)
        }
        var used = [Bool](repeating: false, count: segments.count)
        var result: [[PointFt]] = []
        for start in segments.indices where !used[start] {
            used[start] = true
            var chain = [segments[start].0, segments[start].1]
            // Extend forward from the last edge, then backward from the first.
            for direction in 0..<2 {
                while true {
                    let end = direction == 0 ? chain[chain.count - 1] : chain[0]
                    guard let next = byEdge[end]?.first(where: { !used[$0] }) else { break }
                    used[next] = true
                    let s = segments[next]
                    let other = s.0 == end ? s.1 : s.0
                    if direction == 0 { chain.append(other) } else { chain.insert(other, at: 0) }
                }
            }
            result.append(chain.map(crossing))
        }
        return result
    }
}
