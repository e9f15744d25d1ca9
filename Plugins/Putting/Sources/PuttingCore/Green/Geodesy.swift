// Geodesic distance and azimuth on the WGS84 ellipsoid (Vincenty's inverse formula, accurate to
// well under a millimetre at green scale), for turning the original configs' latitude/longitude
// extents and hole location into feet in the green's local frame.
import Glibc

/// A latitude/longitude in degrees.
public struct LatLon: Sendable, Hashable, Codable {
    public var lat: Double
    public var lon: Double

    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }
}

/// WGS84 geodesics.
public enum Geodesy {
    public static let feetPerMetre = 3.280839895
    static let a = 6_378_137.0
    static let f = 1 / 298.257223563

    /// Distance (metres) and initial azimuth (degrees clockwise from north) from `p1` to `p2`, or nil when
    /// the iteration does not converge (nearly antipodal points, never the case on a green).
    public static func inverse(_ p1: LatLon, _ p2: LatLon) -> (distanceM: Double, azimuthDeg: Double)? {
        let b = a * (1 - f)
        let L = (p2.lon - p1.lon) * .pi / 180
        let U1 = atan((1 - f) * tan(p1.lat * .pi / 180))
        let U2 = atan((1 - f) * tan(p2.lat * .pi / 180))
        let sinU1 = sin(U1), cosU1 = cos(U1), sinU2 = sin(U2), cosU2 = cos(U2)
        var lambda = L
        for _ in 0..<200 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let sinSigma = ((cosU2 * sinLambda) * (cosU2 * sinLambda)
                + (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) * (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda)).squareRoot()
            if sinSigma == 0 { return (0, 0) }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda = L + (1 - C) * f * sinAlpha
                * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-13 {
                let u2 = cos2Alpha * (a * a - b * b) / (b * b)
                let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
                let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
                let deltaSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                    - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                let s = b * A * (sigma - deltaSigma)
                let azimuth = atan2(cosU2 * sin(lambda), cosU1 * sinU2 - sinU1 * cosU2 * cos(lambda)) * 180 / .pi
                return (s, azimuth)
            }
        }
        return nil
    }

    /// Geodesic distance in feet.
    public static func distanceFt(_ p1: LatLon, _ p2: LatLon) -> Double? {
        inverse(p1, p2).map { $0.distanceM * feetPerMetre }
    }

    /// A point in the green's frame (feet, +x east, +z north) relative to `origin`, along the geodesic.
    public static func localFeet(of p: LatLon, origin: LatLon) -> PointFt? {
        guard let (d, az) = inverse(origin, p) else { return nil }
        let rad = az * .pi / 180
        return PointFt(x: d * sin(rad) * feetPerMetre, z: d * cos(rad) * feetPerMetre)
    }
}
