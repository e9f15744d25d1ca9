// The globe's commands, one function each: a plain request in, a Codable result out (with a
// `text` rendering for a terminal). The adapter maps `clubhouse globe <command>` onto these.

import ClubhouseJSON

/// The globe with its data and a store.
public final class Globe {
    public let countries: CountrySet
    public let highlights: HighlightsCatalog
    public let schedule: ChallengeSchedule
    public let store: any GlobeStore
    public let defaultUser: String
    public let toleranceKm: Double
    /// What `stats` counts against when not told (the site's config "denominator").
    public let defaultDenominator: Denominator
    public let locator: CountryLocator

    public init(countries: CountrySet = .bundled, highlights: HighlightsCatalog = .bundled, schedule: ChallengeSchedule? = nil,
                store: any GlobeStore, defaultUser: String = "traveller", toleranceKm: Double = CountryLocator.defaultToleranceKm,
                defaultDenominator: Denominator = .default) {
        self.countries = countries
        self.highlights = highlights
        self.schedule = schedule ?? .generated(countries: countries)
        self.store = store
        self.defaultUser = defaultUser
        self.toleranceKm = toleranceKm
        self.defaultDenominator = defaultDenominator
        locator = CountryLocator(countries: countries)
    }

    /// The user a request names, else the configured default.
    public func user(_ requested: String?) throws(GlobeError) -> String {
        let user = (requested ?? defaultUser).trimmingWhitespace
        guard !user.isEmpty else { throw GlobeError.emptyUser }
        return user
    }

    /// The user a read names (list, stats, map, mesh). A `--user` with nothing stored while others
    /// have marks is most likely mistyped: it gets the known users instead of an empty answer.
    /// The default user, and anyone on a globe nobody has used yet, reads as empty.
    public func existingUser(_ requested: String?) throws(GlobeError) -> String {
        let user = try user(requested)
        guard requested != nil, user != defaultUser else { return user }
        let known = try store.users()
        guard !known.isEmpty, !known.contains(user) else { return user }
        let folded = TextKey.fold(user)
        let scored = known.map { ($0, TextKey.editDistance(folded, TextKey.fold($0))) }
        let limit = max(1, min(3, folded.count / 3))
        let close = scored.filter { $0.1 <= limit || TextKey.fold($0.0).hasPrefix(folded) || folded.hasPrefix(TextKey.fold($0.0)) }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.prefix(3).map(\.0)
        throw GlobeError.unknownUser(user, suggestions: close, known: known)
    }

    // MARK: - visit | unvisit | wish | unwish

    public struct MarkRequest: Sendable {
        public enum Action: String, Sendable, CaseIterable { case visit, unvisit, wish, unwish }
        public var user: String?
        public var action: Action
        public var country: String

        public init(user: String? = nil, action: Action, country: String) {
            self.user = user
            self.action = action
            self.country = country
        }
    }

    public func mark(_ request: MarkRequest) throws(GlobeError) -> MarkResult {
        let user = try user(request.user)
        let old = try store.travelLog(user: user)
        var log = old
        let result: MarkResult
        switch request.action {
        case .visit: result = try log.visit(request.country, in: countries)
        case .unvisit: result = try log.unvisit(request.country, in: countries)
        case .wish: result = try log.wish(request.country, in: countries)
        case .unwish: result = try log.unwish(request.country, in: countries)
        }
        try store.apply(log.changes(from: old), user: user)
        return result
    }

    /// Checks or unchecks a city or attraction (one of the country's highlights, or its capital).
    public func check(user requested: String? = nil, country: String, kind: PlaceKind, item: String, checked: Bool = true)
        throws(GlobeError) -> MarkResult
    {
        let user = try user(requested)
        let old = try store.travelLog(user: user)
        var log = old
        let result = try log.check(item, kind: kind, of: country, checked: checked, in: countries, highlights: highlights)
        try store.apply(log.changes(from: old), user: user)
        return result
    }

    // MARK: - list

    public enum ListFilter: String, Sendable, Codable { case all, visited, wishlist }

    public struct CountryRow: Sendable, Codable, Equatable {
        public var code: String
        public var name: String
        public var continent: String
        public var capital: String?
        public var status: CountryStatus
        public var countsTowardProgress: Bool
        /// No outline at the map's scale (or none in the configured map): drawn as a dot.
        public var drawnAsDot: Bool
    }

    public struct CountryList: Sendable, Codable, Equatable {
        public var user: String
        public var filter: ListFilter
        public var countries: [CountryRow]

        public var text: String {
            guard !countries.isEmpty else {
                return filter == .all ? "no countries" : "\(user) has no countries marked \(filter == .visited ? "visited" : "on the wishlist")"
            }
            let rows = countries.map { row in
                let mark = row.status == .visited ? "visited" : (row.status == .wishlist ? "wishlist" : "")
                let extra = (row.countsTowardProgress ? "" : " (not counted)") + (row.drawnAsDot ? " (dot)" : "")
                return "\(row.code)  \(row.name.padding(34)) \(row.continent.padding(14)) \(mark)\(extra)"
                    .trimmingWhitespace
            }
            var notes: [String] = []
            if countries.contains(where: \.drawnAsDot) {
                notes.append("(dot): no outline at the map's scale, drawn as a dot; it counts like any other")
            }
            if countries.contains(where: { !$0.countsTowardProgress }) {
                notes.append("(not counted): not a UN member or observer; globe stats --of iso counts it")
            }
            return (rows + notes).joined(separator: "\n")
        }
    }

    public func list(user requested: String? = nil, filter: ListFilter = .all) throws(GlobeError) -> CountryList {
        let user = try existingUser(requested)
        let log = try store.travelLog(user: user)
        let rows = countries.countries.compactMap { c -> CountryRow? in
            let status = CountryStatus(code: c.code, log: log)
            switch filter {
            case .visited where status != .visited: return nil
            case .wishlist where status != .wishlist: return nil
            default: break
            }
            return CountryRow(code: c.code, name: c.name, continent: c.continent, capital: c.capital, status: status,
                              countsTowardProgress: c.countsTowardProgress, drawnAsDot: c.drawnAsPoint || c.polygons.isEmpty)
        }.sorted { $0.name < $1.name }
        return CountryList(user: user, filter: filter, countries: rows)
    }

    // MARK: - stats

    /// `of`: "un", "un+observers" or "iso" (nil: the site's default).
    public func stats(user requested: String? = nil, of denominator: String? = nil) throws(GlobeError) -> TravelStats {
        let chosen = try denominator.map { text throws(GlobeError) in try Denominator(parsing: text) } ?? defaultDenominator
        return TravelStats(log: try store.travelLog(user: try existingUser(requested)), countries: countries, denominator: chosen)
    }

    // MARK: - highlights

    public struct Place: Sendable, Codable, Equatable {
        public var name: String
        public var checked: Bool
    }

    public struct HighlightsView: Sendable, Codable, Equatable {
        public var code: String
        public var name: String
        public var capital: String?
        public var visited: Bool
        public var cities: [Place]
        public var attractions: [Place]
        public var source: String
        /// Set when the catalogue has nothing for this country.
        public var note: String?

        public var text: String {
            var lines = ["\(name) (\(code))\(capital.map { ", capital \($0)" } ?? "")\(visited ? ", visited" : "")"]
            if !cities.isEmpty { lines.append("cities: " + cities.map { ($0.checked ? "[x] " : "[ ] ") + $0.name }.joined(separator: ", ")) }
            if !attractions.isEmpty {
                lines.append("attractions: " + attractions.map { ($0.checked ? "[x] " : "[ ] ") + $0.name }.joined(separator: ", "))
            }
            if let note { lines.append(note) }
            return lines.joined(separator: "\n")
        }
    }

    public func highlights(user requested: String? = nil, country: String) throws(GlobeError) -> HighlightsView {
        let user = try user(requested)
        let c = try countries.lookup(country)
        let log = try store.travelLog(user: user)
        let listed = highlights.highlights(for: c.code)
        var cityNames = listed?.cities ?? []
        if let capital = c.capital, !cityNames.contains(where: { TextKey.fold($0) == TextKey.fold(capital) }) {
            cityNames.insert(capital, at: 0)
        }
        let checkedCities = log.cities[c.code] ?? [], checkedAttractions = log.attractions[c.code] ?? []
        return HighlightsView(
            code: c.code, name: c.name, capital: c.capital, visited: log.visited.contains(c.code),
            cities: cityNames.map { Place(name: $0, checked: checkedCities.contains($0)) },
            attractions: (listed?.attractions ?? []).map { Place(name: $0, checked: checkedAttractions.contains($0)) },
            source: highlights.source,
            note: listed == nil ? "no highlights for \(c.name) in \(highlights.source) (\(highlights.byCode.count) countries); configure \"highlights\" with a country_highlights.json for more" : nil)
    }

    // MARK: - where

    public func locate(lat: Double, lon: Double, toleranceKm: Double? = nil) throws(GlobeError) -> WhereResult {
        try locator.locate(lat: lat, lon: lon, toleranceKm: toleranceKm ?? self.toleranceKm)
    }

    // MARK: - map | silhouette

    public struct SVGResult: Sendable, Codable, Equatable {
        public var svg: String
        public var width: Double
        public var height: Double
        public var summary: String

        public var text: String { summary }
    }

    public func map(user requested: String? = nil, selected: [String] = [], width: Double = 1200) throws(GlobeError) -> SVGResult {
        let user = try existingUser(requested)
        var codes = Set<String>()
        for s in selected { codes.insert(try countries.lookup(s).code) }
        guard width.isFinite, width >= 100, width <= 20000 else {
            throw GlobeError.invalidArgument(field: "width", value: "\(width)", expected: "a number of pixels from 100 to 20000")
        }
        let log = try store.travelLog(user: user)
        let svg = WorldMapSVG.render(countries: countries, log: log,
                                     options: .init(width: width, selected: codes, title: "Countries visited by \(user)"))
        let stats = TravelStats(log: log, countries: countries)
        return SVGResult(svg: svg, width: width,
                         height: WorldMapSVG.mapHeight(width: width) + WorldMapSVG.legendHeight(width: width),
                         summary: "world map of \(countries.countries.count) countries for \(user): visited \(stats.visited) of \(stats.total), wishlist \(stats.wishlist)")
    }

    public func silhouette(country: String, size: Double = 400) throws(GlobeError) -> SVGResult {
        let c = try countries.lookup(country)
        guard size.isFinite, size >= 16, size <= 10000 else {
            throw GlobeError.invalidArgument(field: "size", value: "\(size)", expected: "a number of pixels from 16 to 10000")
        }
        let svg = SilhouetteSVG.render(c, options: .init(size: size, title: c.name))
        return SVGResult(svg: svg, width: size, height: size,
                         summary: "silhouette of \(c.name) (\(c.code))\(c.drawnAsPoint ? ", drawn as a dot at this map's scale" : "")")
    }

    // MARK: - mesh

    public struct MeshFile: Sendable, Codable, Equatable {
        public var name: String
        public var contents: String
    }

    public struct MeshResult: Sendable, Codable, Equatable {
        public var format: MeshFormat
        public var files: [MeshFile]
        public var parts: Int
        public var vertices: Int
        public var triangles: Int
        public var radius: Double
        public var maxEdgeDegrees: Double

        public var text: String {
            "globe mesh (\(format.rawValue)): \(parts) parts, \(vertices) vertices, \(triangles) triangles, radius \(radius), edges ≤ \(maxEdgeDegrees)°; files: "
                + files.map(\.name).joined(separator: ", ")
        }
    }

    /// The mesh as files named after `fileName` (an .obj also gets its .mtl beside it). The format
    /// comes from the file name's extension unless given.
    /// `progress` gets (countries built, countries); `isCancelled` is asked before each country.
    public func mesh(user requested: String? = nil, fileName: String, format: MeshFormat? = nil, radius: Double = 1,
                     maxEdgeDegrees: Double = 5, includeOcean: Bool = true, selected: [String] = [],
                     progress: ((Int, Int) -> Void)? = nil, isCancelled: () -> Bool = { false }) throws(GlobeError) -> MeshResult {
        let user = try existingUser(requested)
        guard let format = format ?? MeshFormat(fileName: fileName) else {
            throw GlobeError.invalidOption(name: "mesh file", value: fileName, expected: "a name ending in .gltf or .obj")
        }
        guard radius.isFinite, radius > 0, radius <= 1e7 else {
            throw GlobeError.invalidArgument(field: "radius", value: "\(radius)", expected: "a positive number")
        }
        guard maxEdgeDegrees.isFinite, maxEdgeDegrees >= 0.25, maxEdgeDegrees <= 90 else {
            throw GlobeError.invalidArgument(field: "max-edge", value: "\(maxEdgeDegrees)", expected: "degrees from 0.25 to 90")
        }
        var codes = Set<String>()
        for s in selected { codes.insert(try countries.lookup(s).code) }
        let log = try store.travelLog(user: user)
        let mesh = withoutActuallyEscaping(isCancelled) { isCancelled in
            GlobeMesh(countries: countries, log: log, options: .init(radius: radius, maxEdgeDegrees: maxEdgeDegrees,
                                                                     includeOcean: includeOcean, selected: codes)) { done, total in
                progress?(done, total)
                return !isCancelled()
            }
        }
        if mesh.stopped { throw .cancelled(what: "the globe mesh was complete") }
        let files: [MeshFile]
        switch format {
        case .gltf:
            files = [MeshFile(name: fileName, contents: GLTFWriter.write(mesh))]
        case .obj:
            let base = fileName.lowercased().hasSuffix(".obj") ? String(fileName.dropLast(4)) : fileName
            let mtlPath = base + ".mtl"
            let mtlName = mtlPath.split(separator: "/").last.map(String.init) ?? mtlPath
            let written = OBJWriter.write(mesh, materialLibrary: mtlName)
            files = [MeshFile(name: fileName, contents: written.obj), MeshFile(name: mtlPath, contents: written.mtl)]
        }
        return MeshResult(format: format, files: files, parts: mesh.parts.count, vertices: mesh.vertexCount,
                          triangles: mesh.triangleCount, radius: radius, maxEdgeDegrees: maxEdgeDegrees)
    }

    // MARK: - triangulate

    /// Triangulates a GeoJSON text, or the active country set when `geojson` is nil.
    public func triangulate(geojson: String? = nil, source: String = "<input>") throws(GlobeError) -> TriangulationReport {
        if let geojson {
            do {
                return TriangulationReport(features: try GeoJSONReader.read(geojson, source: source))
            } catch {
                throw GlobeError.invalidData(source: error.source, line: error.location.line, column: error.location.column,
                                             message: error.message)
            }
        }
        // The set's own shapes: entries taken from the bundled table are no part of its file.
        let features = countries.countries.filter { !$0.fromBundledTable }.enumerated().map { k, c in
            GeoFeature(id: c.code, properties: JSONObject([("name", .string(c.name))]), geometry: c.geometry, index: k)
        }
        return TriangulationReport(features: features)
    }

    // MARK: - challenge show | guess | calendar

    /// The date a request names (YYYY-MM-DD), else today.
    public static func date(_ text: String?, today: CivilDate) throws(GlobeError) -> CivilDate {
        guard let text else { return today }
        return try CivilDate(parsing: text)
    }

    private func game(user: String, date: CivilDate, today: CivilDate) throws(GlobeError) -> (ChallengeState, Country) {
        try DailyChallenge.checkUnlocked(date, today: today)
        let state: ChallengeState
        if let saved = try store.challengeState(user: user, date: date) {
            state = saved
        } else {
            state = ChallengeState(try schedule.challenge(on: date))
        }
        guard let country = countries.country(code: state.answer) else {
            throw GlobeError.storage("the challenge for \(date) is about \(state.answer), which is not in \(countries.source)")
        }
        return (state, country)
    }

    public func challengeShow(user requested: String? = nil, date: String? = nil, today: CivilDate) throws(GlobeError) -> ChallengeView {
        let user = try user(requested)
        let (state, country) = try game(user: user, date: try Self.date(date, today: today), today: today)
        return ChallengeView(state: state, country: country)
    }

    /// Applies a guess and saves the game straight away.
    public func challengeGuess(user requested: String? = nil, guess: String, date: String? = nil, today: CivilDate) throws(GlobeError)
        -> GuessResult
    {
        let user = try user(requested)
        let (state, country) = try game(user: user, date: try Self.date(date, today: today), today: today)
        var result = try DailyChallenge.guess(guess, state: state, country: country, today: today)
        try store.saveChallengeState(result.state, user: user)
        if result.outcome == .wrong {
            result.hint = QuizHint.make(guess: result.guess, type: state.type, answer: country, countries: countries)
        }
        return result
    }

    public func challengeCalendar(user requested: String? = nil, date: String? = nil, today: CivilDate) throws(GlobeError)
        -> ChallengeCalendar
    {
        let user = try user(requested)
        let month = try Self.date(date, today: today)
        return ChallengeCalendar(month: month, today: today, schedule: schedule, states: try store.challengeStates(user: user))
    }
}
