// Countries: a GeoJSON feature per country (voyage's schema: `id` = ISO 3166-1 alpha-2;
// properties name, continent, capital, capitalLat, capitalLon, optional renderAs "point",
// aliases and capitalAliases), and the set they form, with lookup by code or name.

import ClubhouseJSON

/// One country or territory of a country set.
public struct Country: Sendable, Hashable {
    /// ISO 3166-1 alpha-2, upper case (Kosovo uses the user-assigned XK).
    public var code: String
    public var name: String
    public var continent: String
    public var capital: String?
    public var capitalLocation: LonLat?
    /// Other names a guess or a lookup accepts ("Ivory Coast", "USA").
    public var aliases: [String]
    public var capitalAliases: [String]
    public var geometry: GeoGeometry
    /// Too small for the map's scale: drawn as a dot (voyage's `renderAs: "point"`, or a Point).
    public var drawnAsPoint: Bool
    /// Counts toward the 195 of travel progress (UN members and observers).
    public var countsTowardProgress: Bool
    public var bounds: BoundingBox
    /// Not in the set's own data: an ISO 3166-1 entry the set lacks, taken from the bundled table
    /// and drawn as a dot at its capital, so that it can still be visited and counted.
    public var fromBundledTable: Bool = false

    public var polygons: [GeoPolygon] { geometry.polygons }

    /// Where to draw the dot of a point country (its Point, else its capital, else its box centre).
    public var markerLocation: LonLat {
        if case .point(let p) = geometry { return p }
        if let c = capitalLocation { return c }
        return LonLat(lon: (bounds.minLon + bounds.maxLon) / 2, lat: (bounds.minLat + bounds.maxLat) / 2)
    }

    /// The flag as an emoji: the two regional-indicator symbols of the ISO code.
    public var flagEmoji: String { Country.flagEmoji(code) }

    public static func flagEmoji(_ code: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in code.uppercased().unicodeScalars {
            guard scalar.value >= 0x41 && scalar.value <= 0x5A,
                  let indicator = Unicode.Scalar(0x1F1E6 + scalar.value - 0x41) else { return code }
            out.append(indicator)
        }
        return String(out)
    }

    /// Territories that the globe shows but that do not count toward the 195 of travel progress:
    /// every ISO 3166-1 entry that is neither a UN member nor an observer, and Kosovo. (The domain
    /// page names those of voyage's map: Antarctica, Bermuda, Falkland Islands, French Guiana,
    /// French Southern and Antarctic Lands, Greenland, Kosovo, New Caledonia, Puerto Rico, Taiwan,
    /// Western Sahara.) A feature may override this with a boolean `un` property.
    public static let nonProgressCodes: Set<String> = ISO3166.nonMemberCodes.union(["XK"])

    /// The number of countries progress is counted against.
    public static let progressTotal = 195
}

/// A country set that cannot be built: a GeoJSON error, or a feature missing what a country needs.
public struct CountrySetError: Error, Sendable, Equatable, CustomStringConvertible {
    public var source: String
    public var location: SourceLocation
    public var message: String

    public var description: String { "\(source):\(location.line):\(location.column): \(message)" }
}

/// The countries the globe works with, in document order.
public struct CountrySet: Sendable {
    public let countries: [Country]
    /// Where the set came from (a path, or the bundled set's description).
    public let source: String
    private let indexByCode: [String: Int]
    private let indexByName: [String: Int]
    private let indexByAlpha3: [String: Int]

    /// The set bundled into the plugin: Natural Earth 1:110m shapes with Clubhouse's own table of
    /// codes, names, continents and capitals (see Plugins/Globe/Tools).
    public static let bundled: CountrySet = {
        do {
            return try CountrySet(geojson: BundledCountries.geojson, source: BundledCountries.source)
        } catch {
            // The bundled text is generated and checked by the tests; an empty set beats a crash.
            return CountrySet(countries: [], source: "\(BundledCountries.source) (unreadable: \(error))")
        }
    }()

    /// Builds a set from voyage-style GeoJSON.
    public init(geojson text: String, source: String) throws(CountrySetError) {
        let features: [GeoFeature]
        do {
            features = try GeoJSONReader.read(text, source: source)
        } catch {
            throw CountrySetError(source: error.source, location: error.location, message: error.message)
        }
        var countries: [Country] = []
        countries.reserveCapacity(features.count)
        for feature in features {
            do {
                countries.append(try Self.country(from: feature))
            } catch {
                throw CountrySetError(source: source,
                                      location: GeoJSONReader.location(of: "/features/\(feature.index)" + error.pointerSuffix, in: text),
                                      message: "feature \(feature.index)\(feature.id.map { " (\"\($0)\")" } ?? ""): \(error.message)")
            }
        }
        var seen: [String: Int] = [:]
        for (k, c) in countries.enumerated() {
            if let first = seen[c.code] {
                throw CountrySetError(source: source, location: GeoJSONReader.location(of: "/features/\(k)/id", in: text),
                                      message: "country code \(c.code) appears twice (features \(first) and \(k)); each country needs its own code")
            }
            seen[c.code] = k
        }
        self.init(countries: countries, source: source)
    }

    public init(countries: [Country], source: String) {
        self.countries = countries
        self.source = source
        var byCode: [String: Int] = [:]
        var byName: [String: Int] = [:]
        for (k, c) in countries.enumerated() {
            byCode[c.code] = k
            for name in [c.name] + c.aliases where byName[TextKey.fold(name)] == nil {
                byName[TextKey.fold(name)] = k
            }
        }
        // ISO 3166-1's own names ("Korea, Republic of") find a country too, after the set's names.
        var byAlpha3: [String: Int] = [:]
        for entry in ISO3166.entries {
            guard let k = byCode[entry.alpha2] else { continue }
            byAlpha3[entry.alpha3] = k
            for name in entry.names where byName[TextKey.fold(name)] == nil { byName[TextKey.fold(name)] = k }
        }
        indexByCode = byCode
        indexByName = byName
        indexByAlpha3 = byAlpha3
    }

    /// How many ISO 3166-1 entries a set must carry to be taken for a world map that lacks a few
    /// (voyage's carries 205): a smaller set (a club's own few regions) is left as it is.
    public static let worldMapMinimum = 150

    /// This set with every ISO 3166-1 entry it lacks taken from `table` (the bundled set) as a dot at
    /// its capital, so that all 249 can be visited and counted whatever world map a site
    /// configures. A set with fewer than `worldMapMinimum` ISO entries is not a world map: unchanged.
    public func completingISO3166(from table: CountrySet) -> CountrySet {
        guard ISO3166.codes.filter({ country(code: $0) != nil }).count >= Self.worldMapMinimum else { return self }
        let added = ISO3166.codes.filter { country(code: $0) == nil }.compactMap { code -> Country? in
            guard var c = table.country(code: code) else { return nil }
            let at = c.markerLocation
            c.geometry = .point(at)
            c.drawnAsPoint = true
            c.bounds = BoundingBox(covering: [at])
            c.fromBundledTable = true
            return c
        }
        return added.isEmpty ? self : CountrySet(countries: countries + added, source: source)
    }

    /// The entries taken from the bundled table (see `completingISO3166`).
    public var fromBundledTable: [Country] { countries.filter(\.fromBundledTable) }

    /// The countries that count toward progress.
    public var progressCountries: [Country] { countries.filter(\.countsTowardProgress) }

    /// Continents in the order they first appear.
    public var continents: [String] {
        var seen = Set<String>()
        return countries.compactMap { seen.insert($0.continent).inserted ? $0.continent : nil }
    }

    public func country(code: String) -> Country? {
        indexByCode[code.uppercased()].map { countries[$0] }
    }

    /// Finds a country by ISO alpha-2 or alpha-3 code ("FR", "FRA") or by name/alias, the set's or
    /// ISO 3166-1's (case, accents and spacing ignored).
    public func lookup(_ codeOrName: String) throws(GlobeError) -> Country {
        let trimmed = codeOrName.trimmingWhitespace
        guard !trimmed.isEmpty else { throw GlobeError.emptyCountry }
        if trimmed.count == 2, let k = indexByCode[trimmed.uppercased()] { return countries[k] }
        if let k = indexByName[TextKey.fold(trimmed)] { return countries[k] }
        if trimmed.count == 3, let k = indexByAlpha3[trimmed.uppercased()] { return countries[k] }
        throw GlobeError.unknownCountry(trimmed, suggestions: suggestions(for: trimmed))
    }

    /// Longer text gets no suggestions.
    static let longestSuggestedText = 100

    /// Up to three names close to `text`, best first: names holding every word typed ("Korea" →
    /// North Korea, South Korea), names it begins, names within a few typing errors; for three
    /// letters, alpha-3 codes one letter off too.
    public func suggestions(for text: String) -> [String] {
        let key = TextKey.fold(text)
        // Two letters are a code, not a misspelt name; text far longer than any name (the longest is
        // about 50 letters) is no misspelling of one, and its edit distances to every name would cost
        // seconds per kilobyte.
        guard key.count >= 3, key.count <= Self.longestSuggestedText else { return [] }
        let typedWords = Set(Self.words(key))
        let isoNames = Dictionary(ISO3166.entries.map { ($0.alpha2, $0.names) }, uniquingKeysWith: { a, _ in a })
        let alpha3 = Dictionary(ISO3166.entries.map { ($0.alpha2, $0.alpha3) }, uniquingKeysWith: { a, _ in a })
        // Three letters are mostly noise to an edit distance ("deu" is two edits from "peru").
        let limit = key.count <= 3 ? 1 : max(2, key.count / 3)
        var scored: [(Int, String)] = []
        for c in countries {
            let names = ([c.name] + c.aliases + (isoNames[c.code] ?? [])).map(TextKey.fold)
            var score = Int.max
            if names.contains(where: { typedWords.isSubset(of: Self.words($0)) }) { score = 0 }
            if names.contains(where: { $0.hasPrefix(key) }) { score = min(score, 1) }
            let distance = names.map { TextKey.editDistance(key, $0) }.min() ?? Int.max
            if distance <= limit { score = min(score, distance) }
            if key.count == 3, let code = alpha3[c.code], TextKey.editDistance(key, code.lowercased()) <= 1 { score = min(score, 2) }
            if score != Int.max { scored.append((score, c.name)) }
        }
        return scored.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.prefix(3).map(\.1)
    }

    /// The words of a folded name, without punctuation ("korea, republic of" → korea, republic, of).
    private static func words(_ folded: String) -> [Substring] {
        folded.split { !($0.isLetter || $0.isNumber || $0 == "'") }
    }

    // MARK: - Feature to country

    private struct FeatureProblem: Error {
        var pointerSuffix: String
        var message: String
    }

    private static func country(from feature: GeoFeature) throws(FeatureProblem) -> Country {
        let p = feature.properties
        guard let rawCode = feature.id ?? p["iso_a2"]?.stringValue ?? p["code"]?.stringValue else {
            throw FeatureProblem(pointerSuffix: "", message: "no country code; give the feature an \"id\" with its ISO 3166-1 alpha-2 code")
        }
        let code = rawCode.uppercased()
        guard code.count == 2, code.unicodeScalars.allSatisfy({ $0.value >= 0x41 && $0.value <= 0x5A }) else {
            throw FeatureProblem(pointerSuffix: "/id", message: "country code \"\(rawCode)\" is not two letters; use the ISO 3166-1 alpha-2 code")
        }
        func text(_ key: String, required: Bool) throws(FeatureProblem) -> String? {
            guard let value = p[key] else {
                if required {
                    throw FeatureProblem(pointerSuffix: "/properties", message: "missing \"\(key)\" property")
                }
                return nil
            }
            guard let s = value.stringValue, !s.trimmingWhitespace.isEmpty else {
                if value.isNull && !required { return nil }
                throw FeatureProblem(pointerSuffix: "/properties/\(key)", message: "\"\(key)\" must be a non-empty string")
            }
            return s
        }
        func names(_ key: String) throws(FeatureProblem) -> [String] {
            guard let value = p[key], !value.isNull else { return [] }
            guard let items = value.arrayValue?.compactMap(\.stringValue), items.count == value.arrayValue?.count else {
                throw FeatureProblem(pointerSuffix: "/properties/\(key)", message: "\"\(key)\" must be an array of strings")
            }
            return items
        }
        func degrees(_ key: String, limit: Double) throws(FeatureProblem) -> Double? {
            guard let value = p[key], !value.isNull else { return nil }
            guard let d = value.doubleValue, d.isFinite, abs(d) <= limit else {
                throw FeatureProblem(pointerSuffix: "/properties/\(key)", message: "\"\(key)\" must be a number within ±\(Int(limit))")
            }
            return d
        }
        let name = try text("name", required: true) ?? code
        let continent = try text("continent", required: true) ?? ""
        let capital = try text("capital", required: false)
        let lat = try degrees("capitalLat", limit: 90)
        let lon = try degrees("capitalLon", limit: 180)
        guard let geometry = feature.geometry else {
            throw FeatureProblem(pointerSuffix: "/geometry", message: "a country needs a Polygon, MultiPolygon or Point geometry, found null")
        }
        var box = BoundingBox.empty
        switch geometry {
        case .point(let pt): box.include(pt)
        default: for polygon in geometry.polygons { box.include(polygon.bounds) }
        }
        let isPoint: Bool
        if case .point = geometry { isPoint = true } else { isPoint = p["renderAs"]?.stringValue == "point" }
        let progress = p["un"]?.boolValue ?? !Country.nonProgressCodes.contains(code)
        return Country(code: code, name: name, continent: continent, capital: capital,
                       capitalLocation: (lat != nil && lon != nil) ? LonLat(lon: lon ?? 0, lat: lat ?? 0) : nil,
                       aliases: try names("aliases"), capitalAliases: try names("capitalAliases"),
                       geometry: geometry, drawnAsPoint: isPoint, countsTowardProgress: progress, bounds: box)
    }
}
