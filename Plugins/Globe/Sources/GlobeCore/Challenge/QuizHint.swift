// The hint a geography quiz gives after a wrong guess: how far the guessed country is from the
// answer, border to border, in kilometres on the sphere, and the compass direction from the guess
// to the answer. Everything comes from the country set's own shapes, so it works offline.

#if canImport(Glibc)
import Glibc
#endif

public struct QuizHint: Sendable, Codable, Equatable {
    /// The country the guess named (a name, an alias, or for capital challenges also a capital).
    public var guessedCode: String
    public var guessedName: String
    /// Shortest distance between the two countries' outlines (0 when they share a border), km.
    public var distanceKm: Int
    /// Initial great-circle bearing from the guess's centre to the answer's, degrees from north.
    public var bearingDegrees: Int
    /// That bearing on an 8-point compass: N, NE, E, SE, S, SW, W or NW.
    public var direction: String

    public var text: String {
        let arrows = ["N": "↑", "NE": "↗", "E": "→", "SE": "↘", "S": "↓", "SW": "↙", "W": "←", "NW": "↖"]
        if distanceKm == 0 { return "\(guessedName) borders the answer, which lies \(direction) \(arrows[direction] ?? "") of it" }
        return "the answer is \(Self.grouped(distanceKm)) km from \(guessedName), to the \(direction) \(arrows[direction] ?? "")"
    }

    /// The hint for a wrong guess, or nil when the guess names no country of the set (or the answer).
    public static func make(guess: String, type: ChallengeType, answer: Country, countries: CountrySet) -> QuizHint? {
        guard let guessed = guessedCountry(guess, type: type, countries: countries), guessed.code != answer.code else { return nil }
        let km = borderDistanceKm(guessed, answer)
        let from = centre(of: guessed), to = centre(of: answer)
        let bearing = initialBearing(from, to)
        return QuizHint(guessedCode: guessed.code, guessedName: guessed.name, distanceKm: Int(km.rounded()),
                        bearingDegrees: Int(bearing.rounded()) % 360, direction: compass(bearing))
    }

    /// A country name or alias; for a capital challenge, a capital (or alias) first.
    static func guessedCountry(_ guess: String, type: ChallengeType, countries: CountrySet) -> Country? {
        let key = TextKey.fold(guess)
        guard !key.isEmpty else { return nil }
        if type == .capital {
            if let c = countries.countries.first(where: { c in
                ((c.capital.map { [$0] } ?? []) + c.capitalAliases).contains { TextKey.fold($0) == key }
            }) {
                return c
            }
        }
        // Two letters would be a code; a guess is a name, so codes are not taken.
        guard key.count > 2 else { return nil }
        return try? countries.lookup(guess)
    }

    /// Shortest distance in km between two countries' outlines: vertex-to-edge both ways over
    /// every ring (a point country is its marker). 0 when one contains a point of the other.
    public static func borderDistanceKm(_ a: Country, _ b: Country) -> Double {
        let ringsA = outline(a), ringsB = outline(b)
        if sharesGround(a, ringsB) || sharesGround(b, ringsA) { return 0 }
        var best = Double.infinity
        // A cheap lower bound per pair of rings skips the far ones (1° of latitude ≈ 111 km).
        for ra in ringsA {
            for rb in ringsB {
                best = min(best, ringDistance(ra, rb, best))
                best = min(best, ringDistance(rb, ra, best))
                if best == 0 { return 0 }
            }
        }
        return best
    }

    private static func outline(_ c: Country) -> [Ring] {
        if c.drawnAsPoint || c.polygons.isEmpty { return [[c.markerLocation]] }
        return c.polygons.flatMap(\.rings).filter { !$0.isEmpty }
    }

    /// Whether a vertex of `rings` lies inside `country` (overlap or containment).
    private static func sharesGround(_ country: Country, _ rings: [Ring]) -> Bool {
        guard !country.drawnAsPoint else { return false }
        for ring in rings {
            for p in ring where country.bounds.contains(p) {
                if country.polygons.contains(where: { $0.contains(p) }) { return true }
            }
        }
        return false
    }

    /// min over vertices of `from` of the distance to the edges of `to`, skipping vertices whose
    /// latitude alone puts them further than `cutoff` from `to`'s box.
    private static func ringDistance(_ from: Ring, _ to: Ring, _ cutoff: Double) -> Double {
        let box = BoundingBox(covering: to)
        var best = cutoff
        for p in from {
            let latGap = max(0, box.minLat - p.lat, p.lat - box.maxLat) * 111.19
            if latGap >= best { continue }
            if to.count == 1 {
                best = min(best, Spherical.distanceKm(p, to[0]))
                continue
            }
            var j = to.count - 1
            for i in 0..<to.count {
                best = min(best, Spherical.distanceToSegmentKm(p, to[j], to[i]))
                j = i
            }
        }
        return best
    }

    /// The area-weighted centroid of the largest polygon (a point country: its marker).
    public static func centre(of c: Country) -> LonLat {
        guard !c.drawnAsPoint, let largest = c.polygons.max(by: { $0.area < $1.area }), largest.outer.count >= 3 else {
            return c.markerLocation
        }
        let ring = largest.outer
        var a = 0.0, cx = 0.0, cy = 0.0
        var j = ring.count - 1
        for i in 0..<ring.count {
            let cross = ring[j].lon * ring[i].lat - ring[i].lon * ring[j].lat
            a += cross
            cx += (ring[j].lon + ring[i].lon) * cross
            cy += (ring[j].lat + ring[i].lat) * cross
            j = i
        }
        guard a != 0 else { return c.markerLocation }
        return LonLat(lon: cx / (3 * a), lat: cy / (3 * a))
    }

    /// Initial great-circle bearing from a to b in degrees [0, 360).
    public static func initialBearing(_ a: LonLat, _ b: LonLat) -> Double {
        let r = Double.pi / 180
        let phi1 = a.lat * r, phi2 = b.lat * r, dl = (b.lon - a.lon) * r
        let y = sin(dl) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dl)
        let degrees = atan2(y, x) / r
        return degrees < 0 ? degrees + 360 : degrees
    }

    public static func compass(_ bearing: Double) -> String {
        let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        let k = Int(((bearing.truncatingRemainder(dividingBy: 360) + 360 + 22.5) / 45).rounded(.down)) % 8
        return names[k]
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (k, ch) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return out
    }
}
