// One traveller's marks: visited countries, the wishlist, and the cities and attractions checked
// off in visited countries. A plain value; the store persists the changes between two values.

/// What a user has marked.
public struct TravelLog: Sendable, Equatable, Codable {
    public private(set) var visited: Set<String>
    public private(set) var wishlist: Set<String>
    /// Checked cities by country code.
    public private(set) var cities: [String: Set<String>]
    /// Checked attractions by country code.
    public private(set) var attractions: [String: Set<String>]

    public init(visited: Set<String> = [], wishlist: Set<String> = [],
                cities: [String: Set<String>] = [:], attractions: [String: Set<String>] = [:]) {
        self.visited = visited
        self.wishlist = wishlist
        self.cities = cities.filter { !$0.value.isEmpty }
        self.attractions = attractions.filter { !$0.value.isEmpty }
    }

    /// Marks a country visited; a visited country leaves the wishlist.
    @discardableResult
    public mutating func visit(_ codeOrName: String, in countries: CountrySet) throws(GlobeError) -> MarkResult {
        let c = try countries.lookup(codeOrName)
        let changed = visited.insert(c.code).inserted
        let leftWishlist = wishlist.remove(c.code) != nil
        return MarkResult(action: .visit, code: c.code, name: c.name, changed: changed,
                          note: leftWishlist ? "removed from the wishlist" : nil)
    }

    /// Unmarks a visited country, with the cities and attractions checked there.
    @discardableResult
    public mutating func unvisit(_ codeOrName: String, in countries: CountrySet) throws(GlobeError) -> MarkResult {
        let c = try countries.lookup(codeOrName)
        let changed = visited.remove(c.code) != nil
        let dropped = (cities.removeValue(forKey: c.code)?.count ?? 0) + (attractions.removeValue(forKey: c.code)?.count ?? 0)
        return MarkResult(action: .unvisit, code: c.code, name: c.name, changed: changed,
                          note: dropped > 0 ? "\(dropped) checked \(dropped == 1 ? "place" : "places") unchecked" : nil)
    }

    /// Puts a country on the wishlist; a visited country is refused.
    @discardableResult
    public mutating func wish(_ codeOrName: String, in countries: CountrySet) throws(GlobeError) -> MarkResult {
        let c = try countries.lookup(codeOrName)
        if visited.contains(c.code) { throw GlobeError.alreadyVisited(code: c.code, name: c.name) }
        let changed = wishlist.insert(c.code).inserted
        return MarkResult(action: .wish, code: c.code, name: c.name, changed: changed, note: nil)
    }

    @discardableResult
    public mutating func unwish(_ codeOrName: String, in countries: CountrySet) throws(GlobeError) -> MarkResult {
        let c = try countries.lookup(codeOrName)
        let changed = wishlist.remove(c.code) != nil
        return MarkResult(action: .unwish, code: c.code, name: c.name, changed: changed, note: nil)
    }

    /// Checks (or unchecks) a city or attraction of a country. Valid names are those of the
    /// highlights plus, for cities, the capital. Checking a place marks its country visited.
    @discardableResult
    public mutating func check(_ item: String, kind: PlaceKind, of codeOrName: String, checked: Bool = true,
                               in countries: CountrySet, highlights: HighlightsCatalog) throws(GlobeError) -> MarkResult {
        let c = try countries.lookup(codeOrName)
        let listed = highlights.highlights(for: c.code)
        var known = kind == .city ? (listed?.cities ?? []) : (listed?.attractions ?? [])
        if kind == .city, let capital = c.capital, !known.contains(where: { TextKey.fold($0) == TextKey.fold(capital) }) {
            known.insert(capital, at: 0)
        }
        let key = TextKey.fold(item)
        guard let canonical = known.first(where: { TextKey.fold($0) == key }) else {
            throw GlobeError.unknownHighlight(code: c.code, name: c.name, item: item.trimmingWhitespace,
                                              kind: kind.rawValue, known: known)
        }
        var set = (kind == .city ? cities[c.code] : attractions[c.code]) ?? []
        let changed: Bool
        var note: String?
        if checked {
            changed = set.insert(canonical).inserted
            if visited.insert(c.code).inserted {
                wishlist.remove(c.code)
                note = "\(c.name) marked visited"
            }
        } else {
            changed = set.remove(canonical) != nil
        }
        if kind == .city { cities[c.code] = set.isEmpty ? nil : set } else { attractions[c.code] = set.isEmpty ? nil : set }
        return MarkResult(action: checked ? .check : .uncheck, code: c.code, name: c.name, changed: changed,
                          note: [canonical, note].compactMap { $0 }.joined(separator: "; "))
    }

    /// The row-level edits that turn `old` into this log, for a store to apply.
    public func changes(from old: TravelLog) -> [TravelLogChange] {
        var out: [TravelLogChange] = []
        for code in visited.subtracting(old.visited).sorted() { out.append(.mark(code: code, kind: .visited, on: true)) }
        for code in old.visited.subtracting(visited).sorted() { out.append(.mark(code: code, kind: .visited, on: false)) }
        for code in wishlist.subtracting(old.wishlist).sorted() { out.append(.mark(code: code, kind: .wishlist, on: true)) }
        for code in old.wishlist.subtracting(wishlist).sorted() { out.append(.mark(code: code, kind: .wishlist, on: false)) }
        for (kind, new, previous) in [(PlaceKind.city, cities, old.cities), (.attraction, attractions, old.attractions)] {
            for code in Set(new.keys).union(previous.keys).sorted() {
                let a = new[code] ?? [], b = previous[code] ?? []
                for item in a.subtracting(b).sorted() { out.append(.place(code: code, kind: kind, item: item, on: true)) }
                for item in b.subtracting(a).sorted() { out.append(.place(code: code, kind: kind, item: item, on: false)) }
            }
        }
        return out
    }

    /// Applies one change (what a store does with a row).
    public mutating func apply(_ change: TravelLogChange) {
        switch change {
        case .mark(let code, .visited, let on):
            if on { visited.insert(code) } else { visited.remove(code) }
        case .mark(let code, .wishlist, let on):
            if on { wishlist.insert(code) } else { wishlist.remove(code) }
        case .place(let code, let kind, let item, let on):
            var set = (kind == .city ? cities[code] : attractions[code]) ?? []
            if on { set.insert(item) } else { set.remove(item) }
            if kind == .city { cities[code] = set.isEmpty ? nil : set } else { attractions[code] = set.isEmpty ? nil : set }
        }
    }

    // Encoded with sorted arrays so the JSON is stable.
    private enum CodingKeys: String, CodingKey { case visited, wishlist, cities, attractions }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(visited: Set(try c.decode([String].self, forKey: .visited)),
                  wishlist: Set(try c.decode([String].self, forKey: .wishlist)),
                  cities: (try c.decode([String: [String]].self, forKey: .cities)).mapValues(Set.init),
                  attractions: (try c.decode([String: [String]].self, forKey: .attractions)).mapValues(Set.init))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(visited.sorted(), forKey: .visited)
        try c.encode(wishlist.sorted(), forKey: .wishlist)
        try c.encode(cities.mapValues { $0.sorted() }, forKey: .cities)
        try c.encode(attractions.mapValues { $0.sorted() }, forKey: .attractions)
    }
}

public enum MarkKind: String, Sendable, Codable { case visited, wishlist }
public enum PlaceKind: String, Sendable, Codable { case city, attraction }

/// One row-level edit of a travel log.
public enum TravelLogChange: Sendable, Equatable {
    case mark(code: String, kind: MarkKind, on: Bool)
    case place(code: String, kind: PlaceKind, item: String, on: Bool)
}

/// What a mark command did.
public struct MarkResult: Sendable, Codable, Equatable {
    public enum Action: String, Sendable, Codable { case visit, unvisit, wish, unwish, check, uncheck }
    public var action: Action
    public var code: String
    public var name: String
    /// False when the mark was already in that state.
    public var changed: Bool
    public var note: String?

    public var text: String {
        let verb: String
        switch action {
        case .visit: verb = changed ? "marked visited" : "already visited"
        case .unvisit: verb = changed ? "no longer visited" : "was not visited"
        case .wish: verb = changed ? "added to the wishlist" : "already on the wishlist"
        case .unwish: verb = changed ? "removed from the wishlist" : "was not on the wishlist"
        case .check: verb = changed ? "checked" : "already checked"
        case .uncheck: verb = changed ? "unchecked" : "was not checked"
        }
        return "\(name) (\(code)) \(verb)" + (note.map { " (\($0))" } ?? "")
    }
}
