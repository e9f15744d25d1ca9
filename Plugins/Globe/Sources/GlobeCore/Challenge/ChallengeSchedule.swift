// Which challenge belongs to which date: the project's own deterministic generator (rotating
// types, every country before any repeats), or a schedule file in voyage's daily_challenges.json
// format ({"challenges": [{"date": "2026-02-17", "type": "country", "answer": "CM"}, …]}).

import ClubhouseJSON

public enum ChallengeType: String, Sendable, Codable, CaseIterable {
    /// Guess the country from its silhouette.
    case country
    /// Name the capital of the given country.
    case capital
    /// Guess the country from its flag (the regional-indicator emoji).
    case flag
}

public struct ScheduledChallenge: Sendable, Codable, Equatable {
    public var date: CivilDate
    public var type: ChallengeType
    /// ISO alpha-2 code of the country the challenge is about.
    public var answer: String

    public init(date: CivilDate, type: ChallengeType, answer: String) {
        self.date = date
        self.type = type
        self.answer = answer
    }
}

public struct ChallengeSchedule: Sendable {
    private enum Kind: Sendable {
        case generated(epoch: CivilDate, seed: UInt64, pool: ChallengePool)
        case listed([Int: ScheduledChallenge], first: CivilDate, last: CivilDate)
    }

    private let kind: Kind
    public let source: String

    /// The generated schedule: 365-day cycles from `epoch`, one challenge per date, types
    /// rotating country → capital → flag, answers drawn from a seeded shuffle so that every
    /// eligible country comes up once before any comes up again. Dates before `epoch` fall in
    /// earlier cycles, so every date has a challenge.
    public static func generated(countries: CountrySet, epoch: CivilDate = defaultEpoch, seed: UInt64 = defaultSeed) -> ChallengeSchedule {
        ChallengeSchedule(kind: .generated(epoch: epoch, seed: seed, pool: ChallengePool(countries: countries)),
                          source: "the generated schedule (seed \(seed), cycles of \(cycleLength) days from \(epoch))")
    }

    public static let defaultEpoch = CivilDate(year: 2026, month: 1, day: 1) ?? CivilDate(dayNumber: 20_454)
    public static let defaultSeed: UInt64 = 20_260_101
    public static let cycleLength = 365

    /// Reads a schedule file; every answer must be a code of `countries` (and a capital
    /// challenge's country must have a capital).
    public init(json text: String, source: String, countries: CountrySet) throws(GlobeError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw GlobeError.invalidData(source: source, line: error.location.line, column: error.location.column,
                                         message: "malformed JSON: \(error.message)")
        }
        func fail(_ pointer: String, _ message: String) -> GlobeError {
            let at = GeoJSONReader.location(of: pointer, in: text)
            return GlobeError.invalidData(source: source, line: at.line, column: at.column, message: message)
        }
        guard let list = root["challenges"]?.arrayValue ?? root.arrayValue else {
            throw fail("", "expected {\"challenges\": [{\"date\": \"YYYY-MM-DD\", \"type\": \"country|capital|flag\", \"answer\": \"ISO code\"}, …]}")
        }
        let base = root["challenges"] == nil ? "" : "/challenges"
        var byDay: [Int: ScheduledChallenge] = [:]
        for (k, item) in list.enumerated() {
            let at = "\(base)/\(k)"
            guard let object = item.objectValue else { throw fail(at, "challenge \(k) must be an object with date, type and answer") }
            guard let dateText = object["date"]?.stringValue else { throw fail(at, "challenge \(k) has no \"date\" string") }
            let date: CivilDate
            do { date = try CivilDate(parsing: dateText) } catch { throw fail(at + "/date", "challenge \(k): \(error.description)") }
            guard let typeText = object["type"]?.stringValue, let type = ChallengeType(rawValue: typeText) else {
                throw fail(at + "/type", "challenge \(k): \"type\" must be \"country\", \"capital\" or \"flag\"")
            }
            guard let answer = object["answer"]?.stringValue, let country = countries.country(code: answer) else {
                throw fail(at + "/answer", "challenge \(k): \"answer\" must be the ISO code of a country in \(countries.source)")
            }
            if type == .capital && country.capital == nil {
                throw fail(at + "/answer", "challenge \(k): \(country.name) has no capital in the country set, so it cannot be a capital challenge")
            }
            if byDay[date.dayNumber] != nil { throw fail(at + "/date", "challenge \(k): a second challenge for \(date); one per date") }
            byDay[date.dayNumber] = ScheduledChallenge(date: date, type: type, answer: country.code)
        }
        guard let first = byDay.keys.min(), let last = byDay.keys.max() else {
            throw fail(base, "the schedule has no challenges")
        }
        kind = .listed(byDay, first: CivilDate(dayNumber: first), last: CivilDate(dayNumber: last))
        self.source = source
    }

    private init(kind: Kind, source: String) {
        self.kind = kind
        self.source = source
    }

    /// The dates with a challenge, in words.
    public var coverage: String {
        switch kind {
        case .generated: return "every date"
        case .listed(_, let first, let last): return "\(first) to \(last)"
        }
    }

    public func challenge(on date: CivilDate) throws(GlobeError) -> ScheduledChallenge {
        switch kind {
        case .listed(let byDay, _, _):
            guard let c = byDay[date.dayNumber] else { throw GlobeError.noChallenge(date: date.description, covers: coverage) }
            return c
        case .generated(let epoch, let seed, let pool):
            let (start, days) = Self.cycle(containing: date, epoch: epoch, seed: seed, pool: pool)
            let index = date.dayNumber - start.dayNumber
            guard days.indices.contains(index) else {
                throw GlobeError.noChallenge(date: date.description, covers: "no date: the country set has no countries")
            }
            return days[index]
        }
    }

    /// The challenges of `days` dates from `start` (dates without one are left out).
    public func challenges(from start: CivilDate, days: Int) -> [ScheduledChallenge] {
        switch kind {
        case .listed(let byDay, _, _):
            return (0..<max(0, days)).compactMap { byDay[start.dayNumber + $0] }
        case .generated(let epoch, let seed, let pool):
            var out: [ScheduledChallenge] = []
            var date = start
            let end = start.adding(days: max(0, days))
            while date < end {
                let (cycleStart, cycle) = Self.cycle(containing: date, epoch: epoch, seed: seed, pool: pool)
                let from = date.dayNumber - cycleStart.dayNumber
                let to = min(cycle.count, end.dayNumber - cycleStart.dayNumber)
                if from < to { out += cycle[from..<to] }
                date = cycleStart.adding(days: Self.cycleLength)
            }
            return out
        }
    }

    private static func cycle(containing date: CivilDate, epoch: CivilDate, seed: UInt64, pool: ChallengePool)
        -> (start: CivilDate, days: [ScheduledChallenge])
    {
        let offset = date.dayNumber - epoch.dayNumber
        let cycle = offset >= 0 ? offset / cycleLength : -((-offset + cycleLength - 1) / cycleLength)
        let start = epoch.adding(days: cycle * cycleLength)
        return (start, pool.cycle(seed: seed &+ UInt64(bitPattern: Int64(cycle)), start: start, days: cycleLength))
    }
}

/// The countries each challenge type can ask about, and the generator over them.
struct ChallengePool: Sendable {
    /// Countries with an outline (a dot makes no silhouette).
    let silhouettes: [String]
    let capitals: [String]
    let flags: [String]

    init(countries: CountrySet) {
        let counted = countries.progressCountries
        silhouettes = counted.filter { !$0.drawnAsPoint && !$0.polygons.isEmpty }.map(\.code).sorted()
        capitals = counted.filter { $0.capital != nil }.map(\.code).sorted()
        flags = counted.map(\.code).sorted()
    }

    static let rotation: [ChallengeType] = [.country, .capital, .flag]

    /// One cycle: day i has type rotation[i % 3]; its answer is the next country of a seeded
    /// shuffle that the day's type can ask about and that has not come up since the last reshuffle.
    func cycle(seed: UInt64, start: CivilDate, days: Int) -> [ScheduledChallenge] {
        var random = SplitMix64(seed: seed)
        let everyone = Array(Set(silhouettes).union(capitals).union(flags)).sorted()
        guard !everyone.isEmpty else { return [] }
        let eligible: [ChallengeType: Set<String>] = [.country: Set(silhouettes), .capital: Set(capitals), .flag: Set(flags)]
        var order = random.shuffled(everyone)
        var used = Set<String>()
        // Each type scans the shuffled order from its own cursor; codes before it are used or
        // not askable by that type.
        var cursor: [ChallengeType: Int] = [:]
        var out: [ScheduledChallenge] = []
        out.reserveCapacity(days)
        for i in 0..<days {
            var type = Self.rotation[i % Self.rotation.count]
            if eligible[type]?.isEmpty ?? true { type = .flag }
            let allowed = eligible[type] ?? []
            func next() -> String? {
                var k = cursor[type] ?? 0
                while k < order.count && (used.contains(order[k]) || !allowed.contains(order[k])) { k += 1 }
                cursor[type] = k
                return k < order.count ? order[k] : nil
            }
            var pick = next()
            if pick == nil {
                // Every country this type can ask about has come up: start a new round.
                used.removeAll()
                cursor.removeAll()
                order = random.shuffled(everyone)
                pick = next()
            }
            guard let code = pick else { continue }
            used.insert(code)
            out.append(ScheduledChallenge(date: start.adding(days: i), type: type, answer: code))
        }
        return out
    }
}

