// Polygons that cross the ±180° meridian, or whose ring goes all the way round a pole, are cut
// into pieces that each stay within [-180, 180] (RFC 7946 §3.1.9), so that maps, silhouettes and
// the triangulation see ordinary planar polygons.

enum Antimeridian {
    /// Whether some edge jumps more than 180° of longitude (edges along a pole excepted).
    static func crosses(_ polygon: GeoPolygon) -> Bool {
        for ring in polygon.rings where ringCrosses(ring) { return true }
        return false
    }

    static func ringCrosses(_ ring: Ring) -> Bool {
        let n = ring.count
        guard n >= 2 else { return false }
        var j = n - 1
        for i in 0..<n {
            let a = ring[j], b = ring[i]
            if abs(b.lon - a.lon) > 180 && !(abs(a.lat) == 90 && a.lat == b.lat) { return true }
            j = i
        }
        return false
    }

    /// The polygon cut at the antimeridian into pieces within [-180, 180].
    static func split(_ polygon: GeoPolygon) -> [GeoPolygon] {
        guard let first = polygon.rings.first, first.count >= 3 else { return [polygon] }
        let outer = closedAroundPole(first)
        guard outer.count >= 3 else { return [polygon] }
        let outerBox = BoundingBox(covering: outer)
        let centre = (outerBox.minLon + outerBox.maxLon) / 2
        let holes: [Ring] = polygon.rings.dropFirst().map { hole in
            let u = unwrap(hole)
            guard let h0 = u.first else { return u }
            let turns = ((centre - h0.lon) / 360).rounded()
            return u.map { LonLat(lon: $0.lon + 360 * turns, lat: $0.lat) }
        }
        var pieces: [GeoPolygon] = []
        let kMin = Int(((outerBox.minLon + 180) / 360).rounded(.down))
        let kMax = Int(((outerBox.maxLon - 180) / 360).rounded(.up))
        for k in kMin...max(kMin, kMax) {
            let lo = -180 + 360 * Double(k), hi = 180 + 360 * Double(k)
            guard let piece = clip(outer, lo: lo, hi: hi), Planar.signedArea(piece) != 0 else { continue }
            var rings = [piece]
            for hole in holes {
                if let h = clip(hole, lo: lo, hi: hi), Planar.signedArea(h) != 0 { rings.append(h) }
            }
            pieces.append(GeoPolygon(rings: rings).shifted(byLongitude: -360 * Double(k)))
        }
        return pieces.isEmpty ? [polygon] : pieces
    }

    /// Longitudes made continuous: each step is taken the short way round.
    static func unwrap(_ ring: Ring) -> Ring {
        guard var previous = ring.first else { return ring }
        var out: Ring = [previous]
        out.reserveCapacity(ring.count + 3)
        var lon = previous.lon
        for p in ring.dropFirst() {
            lon += wrapped(p.lon - previous.lon)
            out.append(LonLat(lon: lon, lat: p.lat))
            previous = p
        }
        return out
    }

    /// A ring whose unwrapped longitudes gain a full turn encloses a pole. It is restarted just
    /// after its antimeridian crossing and closed along that meridian and the pole, so the seam
    /// runs where the map's edge is and crosses no other edge.
    static func closedAroundPole(_ ring: Ring) -> Ring {
        let unwrapped = unwrap(ring)
        guard let first = unwrapped.first, let last = unwrapped.last else { return unwrapped }
        let net = last.lon + wrapped(first.lon - last.lon) - first.lon
        guard abs(net) > 180 else { return unwrapped }
        // Restart after the first edge that jumps across ±180 (the closing edge counts too).
        let n = ring.count
        var start = 0
        for i in 0..<n where abs(ring[i].lon - ring[(i + n - 1) % n].lon) > 180 {
            start = i
            break
        }
        let rotated = unwrap(Array(ring[start...] + ring[..<start]))
        guard let b = rotated.first, let a = rotated.last else { return unwrapped }
        let end = LonLat(lon: b.lon + net, lat: b.lat)
        // The odd multiple of 180 between the last point and the first point's next turn.
        let low = min(a.lon, end.lon), high = max(a.lon, end.lon)
        var seam = ((low - 180) / 360).rounded(.up) * 360 + 180
        if seam > high { seam = high }
        let t = end.lon != a.lon ? (seam - a.lon) / (end.lon - a.lon) : 0
        let seamLat = a.lat + t * (end.lat - a.lat)
        let meanLat = rotated.reduce(0) { $0 + $1.lat } / Double(rotated.count)
        let pole: Double = meanLat < 0 ? -90 : 90
        return rotated + [LonLat(lon: seam, lat: seamLat), LonLat(lon: seam, lat: pole),
                          LonLat(lon: seam - net, lat: pole), LonLat(lon: seam - net, lat: seamLat)]
    }

    @inline(__always)
    static func wrapped(_ d: Double) -> Double {
        var d = d
        while d > 180 { d -= 360 }
        while d < -180 { d += 360 }
        return d
    }

    /// Sutherland–Hodgman clipping of a ring to lo ≤ lon ≤ hi; nil when less than a triangle remains.
    static func clip(_ ring: Ring, lo: Double, hi: Double) -> Ring? {
        let left = clipHalf(ring, bound: lo, keepGreater: true)
        let both = clipHalf(left, bound: hi, keepGreater: false)
        var out: Ring = []
        out.reserveCapacity(both.count)
        for p in both where out.last != p { out.append(p) }
        while out.count > 1 && out.first == out.last { out.removeLast() }
        return out.count >= 3 ? out : nil
    }

    private static func clipHalf(_ ring: Ring, bound: Double, keepGreater: Bool) -> Ring {
        guard var s = ring.last else { return ring }
        func inside(_ p: LonLat) -> Bool { keepGreater ? p.lon >= bound : p.lon <= bound }
        func crossing(_ a: LonLat, _ b: LonLat) -> LonLat {
            LonLat(lon: bound, lat: a.lat + (bound - a.lon) * (b.lat - a.lat) / (b.lon - a.lon))
        }
        var out: Ring = []
        out.reserveCapacity(ring.count + 4)
        for e in ring {
            if inside(e) {
                if !inside(s) { out.append(crossing(s, e)) }
                out.append(e)
            } else if inside(s) {
                out.append(crossing(s, e))
            }
            s = e
        }
        return out
    }
}
