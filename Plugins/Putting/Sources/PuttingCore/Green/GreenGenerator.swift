// Greens made by the project itself: planes for the physics oracles and procedural greens (a
// wobbly oval boundary, a tilt, and smooth mounds and swales) for the demo. Seeded, so the same
// seed always gives the same green on every machine.
import Glibc

/// The seeded generator of the procedural greens (ClubhouseToolkit's SplitMix64).
public typealias SeededGenerator = SplitMix64

/// A generated green: its grid, boundary, contour lines, a hole position and a few ball positions.
public struct GeneratedGreen: Sendable {
    public var name: String
    public var heightfield: Heightfield
    public var boundary: PolygonFt
    public var contours: [ContourLine]
    public var contourIntervalFt: Double
    public var hole: PointFt
    public var balls: [PointFt]
}

/// Makes planes and procedural greens.
public enum GreenGenerator {
    /// A plane h = base + slopeX·x + slopeZ·z over a grid centred on the origin. `base` should keep
    /// every height above 0 so every cell counts as green.
    public static func plane(widthFt: Double, depthFt: Double, resolutionFt: Double = 0.5, baseFt: Double = 5,
                             slopeX: Double = 0, slopeZ: Double = 0) throws(HeightfieldError) -> Heightfield
    {
        let nx = Int((widthFt / resolutionFt).rounded()) + 1
        let nz = Int((depthFt / resolutionFt).rounded()) + 1
        return try Heightfield(nx: nx, nz: nz, resolutionFt: resolutionFt,
                               xMinFt: -Double(nx - 1) * resolutionFt / 2, zMinFt: -Double(nz - 1) * resolutionFt / 2) { x, z in
            baseFt + slopeX * x + slopeZ * z
        }
    }

    /// A procedural green: an oval of about `sizeFt` with a wobbly edge, tilted a little, with a few
    /// mounds and swales. Heights outside are 0 and the lowest point inside is 0, as in the original
    /// tools' files.
    public static func procedural(seed: UInt64, name: String = "", sizeFt: Double = 80, resolutionFt: Double = 0.5)
        throws(HeightfieldError) -> GeneratedGreen
    {
        var rng = SeededGenerator(seed: seed)
        let rx = sizeFt / 2 * rng.uniform(0.85, 1.0)
        let rz = sizeFt / 2 * rng.uniform(0.6, 0.8)
        let rotation = rng.uniform(-0.6, 0.6)
        var harmonics: [(k: Double, amplitude: Double, phase: Double)] = []
        for k in 2...5 { harmonics.append((Double(k), rng.uniform(0.02, 0.08) / Double(k - 1), rng.uniform(0, 2 * .pi))) }
        func radiusScale(_ phi: Double) -> Double {
            1 + harmonics.reduce(0) { $0 + $1.amplitude * cos($1.k * phi + $1.phase) }
        }
        // Boundary: 96 points around the oval.
        var boundaryPoints: [PointFt] = []
        for k in 0..<96 {
            let phi = Double(k) / 96 * 2 * .pi
            let s = radiusScale(phi)
            let ex = rx * s * cos(phi), ez = rz * s * sin(phi)
            boundaryPoints.append(PointFt(x: ex * cos(rotation) - ez * sin(rotation), z: ex * sin(rotation) + ez * cos(rotation)))
        }
        let boundary = PolygonFt(points: boundaryPoints)

        // Surface: a tilt of 1–2.5 % plus Gaussian mounds and swales.
        let tiltAngle = rng.uniform(0, 2 * .pi)
        let tilt = rng.uniform(0.01, 0.025)
        var features: [(x: Double, z: Double, h: Double, sigma: Double)] = []
        for _ in 0..<Int(rng.uniform(3, 6)) {
            features.append((rng.uniform(-rx * 0.8, rx * 0.8), rng.uniform(-rz * 0.8, rz * 0.8),
                             rng.uniform(-0.5, 0.6), rng.uniform(sizeFt * 0.1, sizeFt * 0.22)))
        }
        func surface(_ x: Double, _ z: Double) -> Double {
            var h = tilt * (x * cos(tiltAngle) + z * sin(tiltAngle))
            for f in features {
                let d2 = (x - f.x) * (x - f.x) + (z - f.z) * (z - f.z)
                h += f.h * exp(-d2 / (2 * f.sigma * f.sigma))
            }
            return h
        }
        let margin = 3.0
        let extent = Swift.max(rx, rz) * 1.2 + margin
        let nx = Int((2 * extent / resolutionFt).rounded()) + 1
        let nz = nx
        let xMin = -Double(nx - 1) * resolutionFt / 2, zMin = -Double(nz - 1) * resolutionFt / 2
        var raw = [Double](repeating: .nan, count: nx * nz)
        var lowest = Double.infinity
        for row in 0..<nz {
            for column in 0..<nx {
                let p = PointFt(x: xMin + Double(column) * resolutionFt, z: zMin + Double(row) * resolutionFt)
                if boundary.contains(p) {
                    let h = surface(p.x, p.z)
                    raw[row * nx + column] = h
                    lowest = Swift.min(lowest, h)
                }
            }
        }
        let heights = raw.map { $0.isNaN ? Float(0) : Float($0 - lowest) }
        let heightfield = try Heightfield(nx: nx, nz: nz, resolutionFt: resolutionFt, xMinFt: xMin, zMinFt: zMin,
                                          heights: heights)

        // Hole and balls: inside the boundary, away from its edge.
        func pointInside(scale: Double) -> PointFt {
            for _ in 0..<1000 {
                let phi = rng.uniform(0, 2 * .pi), r = scale * rng.unit().squareRoot()
                let ex = rx * r * cos(phi), ez = rz * r * sin(phi)
                let p = PointFt(x: ex * cos(rotation) - ez * sin(rotation), z: ex * sin(rotation) + ez * cos(rotation))
                if boundary.contains(p) && heightfield.bilinearHeight(xFt: p.x, zFt: p.z) > 0.01 { return p }
            }
            return PointFt(x: 0, z: 0)
        }
        let hole = pointInside(scale: 0.5)
        var balls: [PointFt] = []
        for _ in 0..<2000 where balls.count < 3 {
            let p = pointInside(scale: 0.85)
            let d = p.distance(to: hole)
            if d > 8 && d < sizeFt * 0.6 { balls.append(p) }
        }
        let interval = 0.25
        let contours = ContourTracer.trace(heightfield, interval: interval, mask: { heightfield.isGreen(column: $0, row: $1) })
        return GeneratedGreen(name: name, heightfield: heightfield, boundary: boundary, contours: contours,
                              contourIntervalFt: interval, hole: hole, balls: balls)
    }
}

extension GreenGenerator {
    /// The green's boundary and contour lines as the original app's traced files would hold them: the
    /// green's size is the grid's span, so processing them rebuilds a surface on the same grid. With
    /// `intervalFt`, the contours are traced again at that interval.
    public static func traced(_ green: GeneratedGreen, intervalFt: Double? = nil) -> (boundary: TracedBoundary, contours: TracedContours) {
        let hf = green.heightfield
        let interval = intervalFt ?? green.contourIntervalFt
        let source = intervalFt.map { ContourTracer.trace(hf, interval: $0, mask: { hf.isGreen(column: $0, row: $1) }) } ?? green.contours
        let width = Double(hf.nx - 1) * hf.resolutionFt, height = Double(hf.nz - 1) * hf.resolutionFt
        let boundary = TracedBoundary(greenWidthFt: width, greenHeightFt: height,
                                      points: green.boundary.points.map { TracedPoint(x: $0.x, z: $0.z) })
        let lines = source.map { line in
            TracedContour(k: Int((line.heightFt / interval).rounded()), heightFt: line.heightFt,
                          points: line.points.map { TracedPoint(x: $0.x, z: $0.z) })
        }
        let contours = TracedContours(greenWidthFt: width, greenHeightFt: height, contours: lines, contourIntervalFt: interval)
        return (boundary, contours)
    }
}
