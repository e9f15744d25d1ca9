// The green as a smooth surface for the physics model: a uniform cubic B-spline whose control
// values are the grid heights. It is C² (so an adaptive integrator sees a smooth force field),
// reproduces planes exactly, and stays inside the convex hull of its control values, which gives
// rigorous bounds on height and slope for the early-exit test.
//
// Off-green cells are first filled outward from the green (each ring the mean of the ring inside)
// so the edge of the green is not a cliff down to 0; the green itself is the mask "height > 0" closed by one cell
// (so the lowest cell inside, shifted to 0 by the original tools, still counts as green).

/// Height and slope of the surface at a point.
public struct SurfaceSample: Sendable, Equatable {
    public var height: Double
    /// ∂h/∂x
    public var slopeX: Double
    /// ∂h/∂z
    public var slopeZ: Double
}

/// A C² surface over a heightfield, with the green mask used by the physics model.
public struct GreenSurface: Sendable {
    public let heightfield: Heightfield
    let nx: Int
    let nz: Int
    let resolution: Double
    let inverseResolution: Double
    let xMin: Double
    let zMin: Double
    /// Control values padded by one cell before and two after in each direction: (nx+3)×(nz+3).
    let control: [Double]
    let stride: Int
    /// Green mask per cell (row-major, like the heightfield).
    public let green: [Bool]
    /// Lowest control value: no point of the surface is lower.
    public let minimumHeight: Double
    /// An upper bound of |∇h| wherever a ball on the green can be (the surface there depends only on
    /// controls within a few cells of a green cell).
    public let maximumSlope: Double

    public init(_ heightfield: Heightfield) {
        self.heightfield = heightfield
        let nx = heightfield.nx, nz = heightfield.nz
        self.nx = nx
        self.nz = nz
        resolution = heightfield.resolutionFt
        inverseResolution = 1 / heightfield.resolutionFt
        xMin = heightfield.xMinFt
        zMin = heightfield.zMinFt

        let green = GreenSurface.closedMask(heightfield)
        self.green = green
        let filled = GreenSurface.fillOutward(heightfield, green: green)

        // Pad with linear extrapolation so a plane stays a plane up to the grid's edge.
        let stride = nx + 3
        self.stride = stride
        var control = [Double](repeating: 0, count: stride * (nz + 3))
        func source(_ column: Int, _ row: Int) -> Double {
            // Linear extrapolation along each axis beyond the grid.
            func along(_ c: Int, _ r: Int) -> Double { filled[r * nx + c] }
            func col(_ c: Int, _ r: Int) -> Double {
                if c < 0 { return along(0, r) + Double(c) * (along(1, r) - along(0, r)) }
                if c > nx - 1 { return along(nx - 1, r) + Double(c - nx + 1) * (along(nx - 1, r) - along(nx - 2, r)) }
                return along(c, r)
            }
            if row < 0 { return col(column, 0) + Double(row) * (col(column, 1) - col(column, 0)) }
            if row > nz - 1 { return col(column, nz - 1) + Double(row - nz + 1) * (col(column, nz - 1) - col(column, nz - 2)) }
            return col(column, row)
        }
        var lo = Double.infinity
        for row in -1...(nz + 1) {
            for column in -1...(nx + 1) {
                let v = source(column, row)
                control[(row + 1) * stride + column + 1] = v
                lo = Swift.min(lo, v)
            }
        }
        // Controls that shape the surface over green cells: within 3 padded cells of one.
        let rows = nz + 3
        // Separable dilation by 3: along rows, then along columns.
        var along = [Bool](repeating: false, count: stride * rows)
        for row in 0..<nz {
            for column in 0..<nx where green[row * nx + column] {
                for c in Swift.max(0, column - 2)...Swift.min(stride - 1, column + 4) { along[(row + 1) * stride + c] = true }
            }
        }
        var relevant = [Bool](repeating: false, count: stride * rows)
        for r in 0..<rows {
            for c in 0..<stride where along[r * stride + c] {
                for rr in Swift.max(0, r - 3)...Swift.min(rows - 1, r + 3) { relevant[rr * stride + c] = true }
            }
        }
        var maxDx = 0.0, maxDz = 0.0
        for r in 0..<rows {
            for c in 0..<(stride - 1) where relevant[r * stride + c] && relevant[r * stride + c + 1] {
                maxDx = Swift.max(maxDx, abs(control[r * stride + c + 1] - control[r * stride + c]))
            }
        }
        for r in 0..<(rows - 1) {
            for c in 0..<stride where relevant[r * stride + c] && relevant[(r + 1) * stride + c] {
                maxDz = Swift.max(maxDz, abs(control[(r + 1) * stride + c] - control[r * stride + c]))
            }
        }
        self.control = control
        minimumHeight = lo
        maximumSlope = (maxDx * maxDx + maxDz * maxDz).squareRoot() / heightfield.resolutionFt
    }

    /// The mask "height > 0" closed by one cell (dilate, then erode; the grid's outside counts as green
    /// for the erosion so a green that fills the grid keeps its border).
    static func closedMask(_ hf: Heightfield) -> [Bool] {
        let nx = hf.nx, nz = hf.nz
        let base = hf.heights.map { $0 > 0 }
        var dilated = base
        for row in 0..<nz {
            for column in 0..<nx where !base[row * nx + column] {
                search: for dr in -1...1 {
                    for dc in -1...1 {
                        let r = row + dr, c = column + dc
                        if r >= 0, r < nz, c >= 0, c < nx, base[r * nx + c] {
                            dilated[row * nx + column] = true
                            break search
                        }
                    }
                }
            }
        }
        var closed = dilated
        for row in 0..<nz {
            for column in 0..<nx where dilated[row * nx + column] && !base[row * nx + column] {
                search: for dr in -1...1 {
                    for dc in -1...1 {
                        let r = row + dr, c = column + dc
                        if r >= 0, r < nz, c >= 0, c < nx, !dilated[r * nx + c] {
                            closed[row * nx + column] = false
                            break search
                        }
                    }
                }
            }
        }
        return closed
    }

    /// Heights with every off-green cell filled outward from the green, ring by ring: each new cell takes
    /// the mean of its already-filled 4-neighbours, so the edge continues smoothly instead of dropping to 0.
    /// A grid with no green cell is returned as is.
    static func fillOutward(_ hf: Heightfield, green: [Bool]) -> [Double] {
        let nx = hf.nx, nz = hf.nz
        var values = hf.heights.map(Double.init)
        var done = green
        var frontier: [Int] = []
        for k in 0..<(nx * nz) where green[k] { frontier.append(k) }
        let offsets = [(0, 1), (0, -1), (1, 0), (-1, 0)]
        var queued = [Bool](repeating: false, count: nx * nz)
        while !frontier.isEmpty {
            var next: [Int] = []
            for k in frontier {
                let row = k / nx, column = k % nx
                for (dr, dc) in offsets {
                    let r = row + dr, c = column + dc
                    guard r >= 0, r < nz, c >= 0, c < nx else { continue }
                    let n = r * nx + c
                    if !done[n], !queued[n] {
                        queued[n] = true
                        next.append(n)
                    }
                }
            }
            // Values of the new ring come from the finished cells only, so the order does not matter.
            var ring: [(Int, Double)] = []
            for n in next {
                let row = n / nx, column = n % nx
                var sum = 0.0, count = 0.0
                for (dr, dc) in offsets {
                    let r = row + dr, c = column + dc
                    guard r >= 0, r < nz, c >= 0, c < nx, done[r * nx + c] else { continue }
                    sum += values[r * nx + c]
                    count += 1
                }
                ring.append((n, count > 0 ? sum / count : values[n]))
            }
            for (n, v) in ring {
                values[n] = v
                done[n] = true
            }
            frontier = next
        }
        return values
    }

    /// Height and slope at (x, z). Outside the grid the surface continues from its edge cell.
    @inline(__always)
    public func sample(xFt x: Double, zFt z: Double) -> SurfaceSample {
        var u = (x - xMin) * inverseResolution
        var w = (z - zMin) * inverseResolution
        u = Swift.min(Swift.max(u, 0), Double(nx - 1))
        w = Swift.min(Swift.max(w, 0), Double(nz - 1))
        let i = Swift.min(Int(u), nx - 2)
        let j = Swift.min(Int(w), nz - 2)
        let t = u - Double(i)
        let s = w - Double(j)
        let bx = GreenSurface.basis(t), dx = GreenSurface.derivativeBasis(t)
        let bz = GreenSurface.basis(s), dz = GreenSurface.derivativeBasis(s)
        var h = 0.0, hx = 0.0, hz = 0.0
        control.withUnsafeBufferPointer { c in
            // Control (i-1...i+2, j-1...j+2) sits at padded (i...i+3, j...j+3).
            var base = j * stride + i
            for r in 0..<4 {
                let c0 = c[base], c1 = c[base + 1], c2 = c[base + 2], c3 = c[base + 3]
                let along = c0 * bx.0 + c1 * bx.1 + c2 * bx.2 + c3 * bx.3
                let alongD = c0 * dx.0 + c1 * dx.1 + c2 * dx.2 + c3 * dx.3
                let wz: Double, wdz: Double
                switch r {
                case 0: wz = bz.0; wdz = dz.0
                case 1: wz = bz.1; wdz = dz.1
                case 2: wz = bz.2; wdz = dz.2
                default: wz = bz.3; wdz = dz.3
                }
                h += along * wz
                hx += alongD * wz
                hz += along * wdz
                base += stride
            }
        }
        return SurfaceSample(height: h, slopeX: hx * inverseResolution, slopeZ: hz * inverseResolution)
    }

    /// Uniform cubic B-spline weights of the four control values around parameter t ∈ [0, 1].
    @inline(__always)
    static func basis(_ t: Double) -> (Double, Double, Double, Double) {
        let t2 = t * t, t3 = t2 * t
        let m = 1 - t
        return (m * m * m / 6, (3 * t3 - 6 * t2 + 4) / 6, (-3 * t3 + 3 * t2 + 3 * t + 1) / 6, t3 / 6)
    }

    /// d/dt of `basis`.
    @inline(__always)
    static func derivativeBasis(_ t: Double) -> (Double, Double, Double, Double) {
        let t2 = t * t
        let m = 1 - t
        return (-m * m / 2, (3 * t2 - 4 * t) / 2, (-3 * t2 + 2 * t + 1) / 2, t2 / 2)
    }

    /// A lower bound of the surface's height within `radius` of (x, z): the lowest control value that
    /// influences that box (exact over the controls, for small radii).
    public func lowestControl(nearXFt x: Double, zFt z: Double, radiusFt radius: Double) -> Double {
        func span(_ v: Double, _ lo: Double, _ count: Int) -> ClosedRange<Int>? {
            let a = ((v - radius - lo) * inverseResolution).rounded(.down), b = ((v + radius - lo) * inverseResolution).rounded(.up) + 3
            let first = Int(Swift.max(0, Swift.min(Double(count - 1), a))), last = Int(Swift.max(0, Swift.min(Double(count - 1), b)))
            return first <= last ? first...last : nil
        }
        guard let columns = span(x, xMin, stride), let rows = span(z, zMin, nz + 3) else { return minimumHeight }
        var lo = Double.infinity
        for r in rows { for c in columns { lo = Swift.min(lo, control[r * stride + c]) } }
        return lo
    }

    /// True when the cell whose centre is nearest to (x, z) is green; false off the grid.
    @inline(__always)
    public func isOnGreen(xFt x: Double, zFt z: Double) -> Bool {
        let u = ((x - xMin) * inverseResolution).rounded()
        let w = ((z - zMin) * inverseResolution).rounded()
        guard u >= 0, w >= 0, u <= Double(nx - 1), w <= Double(nz - 1) else { return false }
        return green[Int(w) * nx + Int(u)]
    }
}
