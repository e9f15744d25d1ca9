// Which country is at a latitude/longitude. Countries drawn as points (microstates) are found
// within a tolerance of their point; a location just off a 1:110m coastline is matched to the
// nearest outline within the same tolerance.

/// The answer to `globe where`.
public struct WhereResult: Sendable, Codable, Equatable {
    public enum Method: String, Sendable, Codable {
        /// Inside the country's polygon.
        case inside
        /// Within the tolerance of a country drawn as a point.
        case point
        /// Outside every polygon but within the tolerance of this country's outline.
        case near
        /// No country within the tolerance.
        case none
    }

    public var lat: Double
    public var lon: Double
    public var code: String?
    public var name: String?
    public var method: Method
    /// 0 when inside; else the distance to the point or outline, km.
    public var distanceKm: Double
    public var toleranceKm: Double
    /// The nearest country when none matched (nil if the set is empty).
    public var nearestCode: String?
    public var nearestName: String?
    public var nearestKm: Double?
    /// Said when the coordinates look swapped: the given order finds no country, the other order
    /// lands inside one.
    public var warning: String?

    public var text: String {
        answer + (warning.map { "\nwarning: \($0)" } ?? "")
    }

    private var answer: String {
        let at = "\(lat), \(lon)"
        switch method {
        case .inside:
            return "\(at) is in \(name ?? "?") (\(code ?? "?"))"
        case .point:
            return "\(at) is in \(name ?? "?") (\(code ?? "?")), \(Self.km(distanceKm)) from its marker"
        case .near:
            return "\(at) is off the map's outline of \(name ?? "?") (\(code ?? "?")) by \(Self.km(distanceKm)); taking it as \(name ?? "?")"
        case .none:
            let nearest = nearestName.map { "; nearest is \($0) (\(nearestCode ?? "?")), \(Self.km(nearestKm ?? 0)) away" } ?? ""
            return "\(at) is in no country within \(Self.km(toleranceKm))\(nearest)"
        }
    }

    static func km(_ v: Double) -> String { "\((v * 10).rounded() / 10) km" }
}

public struct CountryLocator: Sendable {
    public let countries: CountrySet
    /// A country drawn as a point wins even inside a surrounding polygon within this radius
    /// (the Vatican inside Italy's outline).
    public var enclaveRadiusKm: Double = 2
    private let boxes: [BoundingBox]

    public init(countries: CountrySet) {
        self.countries = countries
        boxes = countries.countries.map { $0.bounds }
    }

    public static let defaultToleranceKm = 25.0

    /// The country at a coordinate. Latitude and longitude given the other way round are said,
    /// not answered silently: a latitude beyond ±90 that is a valid longitude names the country
    /// the swapped pair lands in, and a pair that finds no country while the swapped pair lands
    /// inside one gets a warning. (Both orders landing in a country is not flagged: either may be
    /// meant.)
    public func locate(lat: Double, lon: Double, toleranceKm: Double = defaultToleranceKm) throws(GlobeError) -> WhereResult {
        guard lat.isFinite, abs(lat) <= 90 else {
            var hint: GlobeError.SwappedCoordinates?
            if lat.isFinite, abs(lat) <= 180, lon.isFinite, abs(lon) <= 90,
               let swapped = try? place(lat: lon, lon: lat, toleranceKm: CountryLocator.defaultToleranceKm), swapped.method == .inside,
               let name = swapped.name {
                hint = GlobeError.SwappedCoordinates(lat: lon, lon: lat, country: name)
            }
            throw GlobeError.invalidLatitude(lat, swapped: hint)
        }
        guard lon.isFinite, abs(lon) <= 180 else { throw GlobeError.invalidLongitude(lon) }
        guard toleranceKm.isFinite, toleranceKm >= 0, toleranceKm <= 500 else { throw GlobeError.invalidTolerance(toleranceKm) }
        var result = try place(lat: lat, lon: lon, toleranceKm: toleranceKm)
        if result.method == .none, lat != lon, abs(lon) <= 90,
           let swapped = try? place(lat: lon, lon: lat, toleranceKm: toleranceKm), swapped.method == .inside, let name = swapped.name {
            result.warning = "no country at --lat \(Self.number(lat)) --lon \(Self.number(lon)), but --lat \(Self.number(lon)) --lon \(Self.number(lat)) is in \(name) (\(swapped.code ?? "?")); were latitude and longitude swapped? --lat is degrees north, --lon degrees east"
        }
        return result
    }

    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : "\(v)"
    }

    private func place(lat: Double, lon: Double, toleranceKm: Double) throws(GlobeError) -> WhereResult {
        let p = LonLat(lon: lon, lat: lat)
        var result = WhereResult(lat: lat, lon: lon, code: nil, name: nil, method: .none, distanceKm: 0,
                                 toleranceKm: toleranceKm, nearestCode: nil, nearestName: nil, nearestKm: nil, warning: nil)
        func found(_ c: Country, _ method: WhereResult.Method, _ d: Double) -> WhereResult {
            var r = result
            r.code = c.code
            r.name = c.name
            r.method = method
            r.distanceKm = d
            return r
        }

        // Nearest country drawn as a point.
        var nearestPoint: (Country, Double)?
        for c in countries.countries where c.drawnAsPoint {
            let d = Spherical.distanceKm(p, c.markerLocation)
            if d < (nearestPoint?.1 ?? .infinity) { nearestPoint = (c, d) }
        }
        if let (c, d) = nearestPoint, d <= min(enclaveRadiusKm, toleranceKm) { return found(c, .point, d) }

        for (k, c) in countries.countries.enumerated() where boxes[k].contains(p) {
            for polygon in c.polygons where polygon.bounds.contains(p) && polygon.contains(p) {
                return found(c, .inside, 0)
            }
        }
        if let (c, d) = nearestPoint, d <= toleranceKm { return found(c, .point, d) }

        // Nearest outline (coastline approximation), also used to name the nearest country.
        var nearestOutline: (Country, Double)?
        for c in countries.countries {
            for polygon in c.polygons {
                for ring in polygon.rings {
                    var j = ring.count - 1
                    for i in ring.indices {
                        let d = Spherical.distanceToSegmentKm(p, ring[j], ring[i])
                        if d < (nearestOutline?.1 ?? .infinity) { nearestOutline = (c, d) }
                        j = i
                    }
                }
            }
        }
        if let (c, d) = nearestOutline, d <= toleranceKm { return found(c, .near, d) }
        let candidates = [nearestPoint, nearestOutline].compactMap { $0 }
        if let best = candidates.min(by: { $0.1 < $1.1 }) {
            result.nearestCode = best.0.code
            result.nearestName = best.0.name
            result.nearestKm = (best.1 * 10).rounded() / 10
        }
        return result
    }
}
