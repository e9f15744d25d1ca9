// The 3D globe: every country's triangles placed on a sphere (x = r·cosφ·cosλ, y = r·sinφ,
// z = −r·cosφ·sinλ), long edges subdivided so they follow the sphere instead of cutting under it,
// countries drawn as points as small discs, and an ocean sphere underneath.
//
// The frame is glTF's (and OBJ viewers'): right-handed, +Y up. The domain page's formula
// (z = +r·cosφ·sinλ, voyage's left-handed scene) puts east on the wrong side in that frame: seen
// from outside, South America lay east of Africa, (east × north) · outward = −1. With z negated,
// east × north points out of the sphere everywhere, as on the real Earth (MeshTests,
// testTheGlobeIsRightHandedInEveryFormat).

#if canImport(Glibc)
import Glibc
#endif

/// A triangle mesh, one part per country (plus the ocean), ready for glTF or OBJ.
public struct GlobeMesh: Sendable {
    public struct Part: Sendable {
        /// ISO code, or "ocean".
        public var id: String
        public var name: String
        public var color: RGBColor
        /// x, y, z per vertex.
        public var positions: [Float]
        /// Counter-clockwise seen from outside the sphere.
        public var indices: [UInt32]

        public var vertexCount: Int { positions.count / 3 }
        public var triangleCount: Int { indices.count / 3 }
    }

    public var parts: [Part]
    public var radius: Double

    public var vertexCount: Int { parts.reduce(0) { $0 + $1.vertexCount } }
    public var triangleCount: Int { parts.reduce(0) { $0 + $1.triangleCount } }

    public struct Options: Sendable {
        public var radius: Double
        /// Triangle edges longer than this (degrees of lon/lat) are halved until they are not.
        public var maxEdgeDegrees: Double
        public var includeOcean: Bool
        /// Radius of the disc drawn for a country shown as a point, degrees.
        public var pointRadiusDegrees: Double
        public var selected: Set<String>

        public init(radius: Double = 1, maxEdgeDegrees: Double = 5, includeOcean: Bool = true,
                    pointRadiusDegrees: Double = 0.6, selected: Set<String> = []) {
            self.radius = radius
            self.maxEdgeDegrees = maxEdgeDegrees
            self.includeOcean = includeOcean
            self.pointRadiusDegrees = pointRadiusDegrees
            self.selected = selected
        }
    }

    /// The position of a lon/lat on the sphere, right-handed with +Y up: Greenwich on the equator
    /// at +X, 90° E at −Z, 90° W at +Z (facing a viewer's default camera), the North Pole at +Y.
    @inline(__always)
    public static func spherePoint(_ p: LonLat, radius: Double) -> (x: Double, y: Double, z: Double) {
        let phi = p.lat * .pi / 180, lambda = p.lon * .pi / 180
        let c = cos(phi)
        return (radius * c * cos(lambda), radius * sin(phi), -radius * c * sin(lambda))
    }

    /// `progress` gets (countries done, countries) before each country and returns false to stop
    /// early: the mesh is then incomplete and `stopped` is true.
    /// True when `progress` asked to stop before every country was built.
    public private(set) var stopped = false

    public init(countries: CountrySet, log: TravelLog, options: Options = Options(),
                progress: ((Int, Int) -> Bool)? = nil) {
        radius = options.radius
        parts = []
        let clipper = EarClipper()
        let maxEdge = options.maxEdgeDegrees > 0 && options.maxEdgeDegrees.isFinite ? options.maxEdgeDegrees : 5
        for (done, c) in countries.countries.enumerated() {
            if let progress, !progress(done, countries.countries.count) {
                stopped = true
                return
            }
            var builder = PartBuilder(radius: options.radius)
            if c.drawnAsPoint || c.polygons.isEmpty {
                builder.addDisc(center: c.markerLocation, radiusDegrees: options.pointRadiusDegrees)
            } else {
                for polygon in c.polygons {
                    let points = polygon.rings.flatMap { $0 }
                    let indices = clipper.triangulate(polygon)
                    var k = 0
                    while k + 2 < indices.count {
                        let a = points[Int(indices[k])], b = points[Int(indices[k + 1])], cc = points[Int(indices[k + 2])]
                        k += 3
                        // Zero-area triangles (duplicates, collinear runs) add nothing to a surface.
                        if Planar.cross(a, b, cc) == 0 { continue }
                        builder.addSubdivided(a, b, cc, maxEdge: maxEdge, depth: 0)
                    }
                }
            }
            let status = CountryStatus(code: c.code, log: log)
            parts.append(Part(id: c.code, name: c.name, color: Palette.fill(status, selected: options.selected.contains(c.code)),
                              positions: builder.positions, indices: builder.indices))
        }
        if options.includeOcean {
            parts.append(Self.oceanSphere(radius: options.radius * 0.995))
        }
    }

    /// A latitude/longitude sphere for the ocean, just inside the countries.
    static func oceanSphere(radius: Double, segments: Int = 72, rings: Int = 36) -> Part {
        var builder = PartBuilder(radius: radius)
        for i in 0..<rings {
            let lat0 = -90 + 180 * Double(i) / Double(rings), lat1 = -90 + 180 * Double(i + 1) / Double(rings)
            for j in 0..<segments {
                let lon0 = -180 + 360 * Double(j) / Double(segments), lon1 = -180 + 360 * Double(j + 1) / Double(segments)
                let a = LonLat(lon: lon0, lat: lat0), b = LonLat(lon: lon1, lat: lat0)
                let c = LonLat(lon: lon1, lat: lat1), d = LonLat(lon: lon0, lat: lat1)
                if i > 0 { builder.addTriangle(a, b, c) }
                if i < rings - 1 { builder.addTriangle(a, c, d) }
            }
        }
        return Part(id: "ocean", name: "Ocean", color: Palette.ocean, positions: builder.positions, indices: builder.indices)
    }
}

/// Collects one part's vertices (shared by position) and triangles.
private struct PartBuilder {
    let radius: Double
    var positions: [Float] = []
    var indices: [UInt32] = []
    var index: [LonLat: UInt32] = [:]

    init(radius: Double) { self.radius = radius }

    mutating func vertex(_ p: LonLat) -> UInt32 {
        // Both poles are single points whatever the longitude.
        let key = abs(p.lat) == 90 ? LonLat(lon: 0, lat: p.lat) : p
        if let k = index[key] { return k }
        let s = GlobeMesh.spherePoint(key, radius: radius)
        let k = UInt32(positions.count / 3)
        positions += [Float(s.x), Float(s.y), Float(s.z)]
        index[key] = k
        return k
    }

    /// Adds a triangle wound counter-clockwise seen from outside the sphere (its normal points
    /// away from the centre). In this right-handed frame a triangle counter-clockwise in lon/lat
    /// already is; a sliver that the sphere's curvature turns over (lon/lat-straight lines are not
    /// great circles), or one given clockwise, is stored the other way round.
    mutating func addTriangle(_ a: LonLat, _ b: LonLat, _ c: LonLat) {
        let ia = vertex(a), ib = vertex(b), ic = vertex(c)
        if ia == ib || ib == ic || ia == ic { return }
        let pa = GlobeMesh.spherePoint(a, radius: 1), pb = GlobeMesh.spherePoint(b, radius: 1), pc = GlobeMesh.spherePoint(c, radius: 1)
        let u = (pb.x - pa.x, pb.y - pa.y, pb.z - pa.z), v = (pc.x - pa.x, pc.y - pa.y, pc.z - pa.z)
        let n = (u.1 * v.2 - u.2 * v.1, u.2 * v.0 - u.0 * v.2, u.0 * v.1 - u.1 * v.0)
        let outward = n.0 * (pa.x + pb.x + pc.x) + n.1 * (pa.y + pb.y + pc.y) + n.2 * (pa.z + pb.z + pc.z)
        indices += outward >= 0 ? [ia, ib, ic] : [ia, ic, ib]
    }

    /// Halves every edge longer than `maxEdge`; the decision and the midpoint depend on the edge
    /// alone, so neighbouring triangles split a shared edge identically and no cracks open.
    mutating func addSubdivided(_ a: LonLat, _ b: LonLat, _ c: LonLat, maxEdge: Double, depth: Int) {
        if Planar.cross(a, b, c) < 0 {
            addSubdivided(a, c, b, maxEdge: maxEdge, depth: depth)
            return
        }
        func long(_ p: LonLat, _ q: LonLat) -> Bool {
            let dx = p.lon - q.lon, dy = p.lat - q.lat
            return dx * dx + dy * dy > maxEdge * maxEdge
        }
        func mid(_ p: LonLat, _ q: LonLat) -> LonLat { LonLat(lon: (p.lon + q.lon) / 2, lat: (p.lat + q.lat) / 2) }
        let sab = long(a, b), sbc = long(b, c), sca = long(c, a)
        guard depth < 16, sab || sbc || sca else {
            addTriangle(a, b, c)
            return
        }
        let d = depth + 1
        switch (sab, sbc, sca) {
        case (true, true, true):
            let ab = mid(a, b), bc = mid(b, c), ca = mid(c, a)
            addSubdivided(a, ab, ca, maxEdge: maxEdge, depth: d)
            addSubdivided(ab, b, bc, maxEdge: maxEdge, depth: d)
            addSubdivided(ca, bc, c, maxEdge: maxEdge, depth: d)
            addSubdivided(ab, bc, ca, maxEdge: maxEdge, depth: d)
        case (true, false, false):
            let ab = mid(a, b)
            addSubdivided(a, ab, c, maxEdge: maxEdge, depth: d)
            addSubdivided(ab, b, c, maxEdge: maxEdge, depth: d)
        case (false, true, false):
            let bc = mid(b, c)
            addSubdivided(a, b, bc, maxEdge: maxEdge, depth: d)
            addSubdivided(a, bc, c, maxEdge: maxEdge, depth: d)
        case (false, false, true):
            let ca = mid(c, a)
            addSubdivided(a, b, ca, maxEdge: maxEdge, depth: d)
            addSubdivided(ca, b, c, maxEdge: maxEdge, depth: d)
        case (true, true, false):
            let ab = mid(a, b), bc = mid(b, c)
            addSubdivided(ab, b, bc, maxEdge: maxEdge, depth: d)
            addSubdivided(a, ab, bc, maxEdge: maxEdge, depth: d)
            addSubdivided(a, bc, c, maxEdge: maxEdge, depth: d)
        case (false, true, true):
            let bc = mid(b, c), ca = mid(c, a)
            addSubdivided(ca, bc, c, maxEdge: maxEdge, depth: d)
            addSubdivided(a, b, bc, maxEdge: maxEdge, depth: d)
            addSubdivided(a, bc, ca, maxEdge: maxEdge, depth: d)
        case (true, false, true):
            let ab = mid(a, b), ca = mid(c, a)
            addSubdivided(a, ab, ca, maxEdge: maxEdge, depth: d)
            addSubdivided(ab, b, c, maxEdge: maxEdge, depth: d)
            addSubdivided(ab, c, ca, maxEdge: maxEdge, depth: d)
        case (false, false, false):
            addTriangle(a, b, c)
        }
    }

    /// A small disc (a fan of 12 triangles) around a point, for countries drawn as points.
    mutating func addDisc(center: LonLat, radiusDegrees: Double) {
        let k = max(0.1, cos(center.lat * .pi / 180))
        let n = 12
        var rim: [LonLat] = []
        for i in 0..<n {
            let t = 2 * Double.pi * Double(i) / Double(n)
            rim.append(LonLat(lon: center.lon + radiusDegrees * cos(t) / k, lat: max(-90, min(90, center.lat + radiusDegrees * sin(t)))))
        }
        for i in 0..<n { addTriangle(center, rim[i], rim[(i + 1) % n]) }
    }
}
