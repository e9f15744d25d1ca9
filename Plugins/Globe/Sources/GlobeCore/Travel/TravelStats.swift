// Progress of a traveller: overall (against a denominator: 193 UN members, 195 with the two
// observers, the default, or 249 ISO 3166-1 entries), per continent, and achievements.

public struct ContinentProgress: Sendable, Codable, Equatable {
    public var continent: String
    public var visited: Int
    public var total: Int
    public var percent: Double
}

public struct Achievement: Sendable, Codable, Equatable {
    public var id: String
    public var title: String
    public var detail: String
    public var progress: Int
    public var goal: Int
    public var unlocked: Bool { progress >= goal }

    private enum CodingKeys: String, CodingKey { case id, title, detail, progress, goal, unlocked }

    public init(id: String, title: String, detail: String, progress: Int, goal: Int) {
        self.id = id
        self.title = title
        self.detail = detail
        self.progress = min(progress, goal)
        self.goal = goal
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), title: try c.decode(String.self, forKey: .title),
                  detail: try c.decode(String.self, forKey: .detail), progress: try c.decode(Int.self, forKey: .progress),
                  goal: try c.decode(Int.self, forKey: .goal))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(detail, forKey: .detail)
        try c.encode(progress, forKey: .progress)
        try c.encode(goal, forKey: .goal)
        try c.encode(unlocked, forKey: .unlocked)
    }
}

public struct TravelStats: Sendable, Codable, Equatable {
    /// Visited countries that count toward progress.
    public var visited: Int
    /// Countries progress counts against (195 for the bundled and voyage sets by default).
    public var total: Int
    /// What `total` counts: "un", "un+observers" or "iso".
    public var denominator: String
    /// The same in words, e.g. "UN member states and observers".
    public var denominatorTitle: String
    public var percent: Double
    /// Visited places outside the denominator (Greenland, Taiwan, … for the UN ones), shown but
    /// not counted.
    public var otherTerritoriesVisited: Int
    public var wishlist: Int
    public var continents: [ContinentProgress]
    public var citiesChecked: Int
    public var attractionsChecked: Int
    /// Countries whose capital is among the checked cities.
    public var capitalsChecked: Int
    public var achievements: [Achievement]
    /// Counted entries the map draws as dots: no outline at its scale (microstates, most
    /// dependencies) or none in the configured map (taken from the bundled table). They count
    /// like any other; `globe list` shows them.
    public var drawnAsDots: Int
    /// Counted entries the configured map lacks, taken from the bundled table.
    public var fromBundledTable: Int

    /// Thresholds of the country-count achievements; "Half the world" is half of the denominator
    /// (97 of 193, 98 of 195, 125 of 249), rounded up.
    public static func milestones(total: Int) -> [(id: String, title: String, goal: Int)] {
        [("first-steps", "First steps", 1), ("explorer", "Explorer", 10), ("globetrotter", "Globetrotter", 25),
         ("world-traveller", "World traveller", 50), ("half-the-world", "Half the world", max(1, (total + 1) / 2))]
    }
    /// Continents nobody lives on: not needed for "All continents" (Antarctica, counted by --of iso).
    public static let uninhabitedContinents: Set<String> = ["Antarctica"]
    public static let capitalCollectorGoal = 10

    public init(log: TravelLog, countries: CountrySet, denominator: Denominator = .default) {
        let counted = denominator.members(of: countries)
        let countedCodes = Set(counted.map(\.code))
        let visitedCounted = counted.filter { log.visited.contains($0.code) }
        visited = visitedCounted.count
        total = counted.count
        self.denominator = denominator.rawValue
        denominatorTitle = denominator.title
        percent = total > 0 ? Self.round1(100 * Double(visited) / Double(total)) : 0
        otherTerritoriesVisited = countries.countries.filter { !countedCodes.contains($0.code) && log.visited.contains($0.code) }.count
        wishlist = log.wishlist.count
        citiesChecked = log.cities.values.reduce(0) { $0 + $1.count }
        attractionsChecked = log.attractions.values.reduce(0) { $0 + $1.count }
        capitalsChecked = countries.countries.filter { c in
            guard let capital = c.capital, let checked = log.cities[c.code] else { return false }
            let names = ([capital] + c.capitalAliases).map(TextKey.fold)
            return checked.contains { names.contains(TextKey.fold($0)) }
        }.count

        let countedCountries = counted.compactMap { countries.country(code: $0.code) }
        drawnAsDots = countedCountries.filter { $0.drawnAsPoint || $0.polygons.isEmpty }.count
        fromBundledTable = countedCountries.filter(\.fromBundledTable).count

        var perContinent: [ContinentProgress] = []
        let continentNames = Set(counted.map(\.continent)).sorted()
        for continent in continentNames {
            let members = counted.filter { $0.continent == continent }
            guard !members.isEmpty else { continue }
            let v = members.filter { log.visited.contains($0.code) }.count
            perContinent.append(ContinentProgress(continent: continent, visited: v, total: members.count,
                                                  percent: Self.round1(100 * Double(v) / Double(members.count))))
        }
        perContinent.sort { $0.continent < $1.continent }
        continents = perContinent

        let countedTotal = counted.count, visitedCount = visitedCounted.count
        var list: [Achievement] = Self.milestones(total: countedTotal).filter { $0.goal <= max(1, countedTotal) }.map {
            Achievement(id: $0.id, title: $0.title, detail: "visit \($0.goal) \($0.goal == 1 ? "country" : "countries")",
                        progress: visitedCount, goal: $0.goal)
        }
        list.append(Achievement(id: "every-country", title: "Every country",
                                detail: "visit all \(total) countries", progress: visited, goal: max(1, total)))
        let inhabited = perContinent.filter { !Self.uninhabitedContinents.contains($0.continent) }
        list.append(Achievement(id: "all-continents", title: "All continents",
                                detail: "visit a country on each of the \(inhabited.count) inhabited continents",
                                progress: inhabited.filter { $0.visited > 0 }.count, goal: max(1, inhabited.count)))
        for c in perContinent {
            let slug = TextKey.fold(c.continent).replacingSpaces(with: "-")
            list.append(Achievement(id: "continent-\(slug)", title: "\(c.continent) complete",
                                    detail: "visit every country of \(c.continent)", progress: c.visited, goal: c.total))
        }
        list.append(Achievement(id: "capital-collector", title: "Capital collector",
                                detail: "check off the capital city of \(Self.capitalCollectorGoal) countries",
                                progress: capitalsChecked, goal: Self.capitalCollectorGoal))
        achievements = list
    }

    static func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }

    public var text: String {
        var lines = ["visited \(visited) of \(total) countries (\(percent)%)"
            + (otherTerritoriesVisited > 0 ? ", plus \(otherTerritoriesVisited) other \(otherTerritoriesVisited == 1 ? "territory" : "territories")" : "")
            + "; wishlist \(wishlist)"]
        let others = Denominator.allCases.filter { $0.rawValue != denominator }.map(\.rawValue).joined(separator: ", ")
        lines.append("counted against: \(total) \(denominatorTitle) (--of \(denominator); also \(others))")
        if drawnAsDots > 0 {
            let borrowed = fromBundledTable > 0 ? ", \(fromBundledTable) of them missing from the configured map" : ""
            lines.append("\(drawnAsDots) of the \(total) have no outline at the map's scale (drawn as dots\(borrowed)); they count all the same")
        }
        lines.append("checked \(citiesChecked) cities (\(capitalsChecked) capitals) and \(attractionsChecked) attractions")
        for c in continents {
            lines.append("  \(c.continent.padding(15)) \(String(c.visited).leftPadding(3)) / \(String(c.total).leftPadding(3))  \(c.percent)%")
        }
        let unlocked = achievements.filter(\.unlocked)
        lines.append("achievements: \(unlocked.count) of \(achievements.count) unlocked")
        for a in achievements {
            lines.append("  [\(a.unlocked ? "x" : " ")] \(a.title) — \(a.detail) (\(a.progress)/\(a.goal))")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadding(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
    func replacingSpaces(with s: String) -> String { split(separator: " ").joined(separator: s) }
}
