// The globe plugin's configuration (the "config" object of plugins.json), and loading the data it
// names: by default the bundled countries, highlights and generated schedule; optionally voyage's
// world.geojson, country_highlights.json and daily_challenges.json (or any files of that shape).

import ClubhouseJSON

public struct GlobeConfiguration: Sendable, Equatable {
    /// The user when a command gets no --user.
    public var user: String
    /// A GeoJSON country set to use instead of the bundled one.
    public var countriesPath: String?
    /// A country_highlights.json to use instead of the bundled highlights.
    public var highlightsPath: String?
    /// A daily_challenges.json to use instead of the generated schedule.
    public var challengesPath: String?
    public var scheduleEpoch: CivilDate
    public var scheduleSeed: UInt64
    public var toleranceKm: Double
    /// What `stats` counts against by default.
    public var denominator: Denominator

    public static let knownKeys = ["user", "countries", "highlights", "challenges", "scheduleEpoch", "scheduleSeed", "toleranceKm", "denominator"]

    public init(user: String = "traveller", countriesPath: String? = nil, highlightsPath: String? = nil,
                challengesPath: String? = nil, scheduleEpoch: CivilDate = ChallengeSchedule.defaultEpoch,
                scheduleSeed: UInt64 = ChallengeSchedule.defaultSeed, toleranceKm: Double = CountryLocator.defaultToleranceKm,
                denominator: Denominator = .default) {
        self.user = user
        self.countriesPath = countriesPath
        self.highlightsPath = highlightsPath
        self.challengesPath = challengesPath
        self.scheduleEpoch = scheduleEpoch
        self.scheduleSeed = scheduleSeed
        self.toleranceKm = toleranceKm
        self.denominator = denominator
    }

    /// Reads the plugin's config object (null or absent keys keep their defaults).
    public init(json: JSONValue) throws(GlobeError) {
        self.init()
        if json.isNull { return }
        guard let object = json.objectValue else {
            throw GlobeError.invalidOption(name: "globe config", value: JSONWriter.compact(json), expected: "an object")
        }
        for (key, value) in object where !value.isNull {
            func string() throws(GlobeError) -> String {
                guard let s = value.stringValue, !s.trimmingWhitespace.isEmpty else {
                    throw GlobeError.invalidOption(name: "config \"\(key)\"", value: JSONWriter.compact(value), expected: "a non-empty string")
                }
                return s
            }
            switch key {
            case "user": user = try string()
            case "countries": countriesPath = try string()
            case "highlights": highlightsPath = try string()
            case "challenges": challengesPath = try string()
            case "scheduleEpoch": scheduleEpoch = try CivilDate(parsing: try string())
            case "scheduleSeed":
                guard let n = value.numberValue, n.isInteger, let seed = UInt64(n.lexeme) else {
                    throw GlobeError.invalidOption(name: "config \"scheduleSeed\"", value: JSONWriter.compact(value), expected: "a non-negative integer")
                }
                scheduleSeed = seed
            case "toleranceKm":
                guard let d = value.doubleValue, d.isFinite, d >= 0, d <= 500 else {
                    throw GlobeError.invalidOption(name: "config \"toleranceKm\"", value: JSONWriter.compact(value), expected: "a number from 0 to 500")
                }
                toleranceKm = d
            case "denominator": denominator = try Denominator(parsing: try string(), source: "config \"denominator\"")
            default:
                throw GlobeError.unknownConfigKey(key, known: Self.knownKeys)
            }
        }
    }
}

extension Globe {
    /// Builds the globe a configuration describes. `readFile` returns a file's text (the adapter
    /// resolves paths against the site) or throws with a reason.
    public static func load(_ configuration: GlobeConfiguration, store: any GlobeStore,
                            readFile: (String) throws -> String) throws(GlobeError) -> Globe {
        func text(_ path: String) throws(GlobeError) -> String {
            do {
                return try readFile(path)
            } catch {
                throw GlobeError.unreadableFile(path: path, reason: "\(error)")
            }
        }
        let countries: CountrySet
        if let path = configuration.countriesPath {
            do {
                // Entries a world map lacks (voyage's has 205 of the 249) come from the bundled
                // table as dots, so every ISO 3166-1 entry can still be visited.
                countries = try CountrySet(geojson: try text(path), source: path).completingISO3166(from: .bundled)
            } catch let error as CountrySetError {
                throw GlobeError.invalidData(source: error.source, line: error.location.line, column: error.location.column,
                                             message: error.message)
            } catch let error as GlobeError {
                throw error
            } catch {
                throw GlobeError.unreadableFile(path: path, reason: "\(error)")
            }
        } else {
            countries = .bundled
        }
        let highlights = try configuration.highlightsPath.map { path throws(GlobeError) in
            try HighlightsCatalog(json: try text(path), source: path)
        } ?? .bundled
        let schedule = try configuration.challengesPath.map { path throws(GlobeError) in
            try ChallengeSchedule(json: try text(path), source: path, countries: countries)
        } ?? .generated(countries: countries, epoch: configuration.scheduleEpoch, seed: configuration.scheduleSeed)
        return Globe(countries: countries, highlights: highlights, schedule: schedule, store: store,
                     defaultUser: configuration.user, toleranceKm: configuration.toleranceKm,
                     defaultDenominator: configuration.denominator)
    }
}
