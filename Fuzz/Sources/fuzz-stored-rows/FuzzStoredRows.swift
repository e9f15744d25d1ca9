// Fuzzes what the practice and scorecard plugins read back from their databases (issue 30: a carry of
// 1e308 stored by an older version stopped `practice session` with SIGILL). The input is a stream of
// stored values — any Double for a REAL column, any Int for an INTEGER column the schema leaves
// unconstrained, constrained columns within their CHECK — put through the same read path the SQL
// stores use (`ShotMeasurements[stored:]`, `SubsessionAnalysis.stored`, `ScorecardStoredRange.checked`),
// then every read command's Core function runs and renders text, JSON and pictures. Property: nothing
// traps (an overflow, a float→integer conversion, an index out of range); a damaged row may only be
// refused with an error.

import ClubhouseJSON
import PracticeCore
import ScorecardCore

/// Reads fixed-size values from the fuzz input, zeros once it is used up.
struct StoredValues {
    let bytes: [UInt8]
    var at = 0

    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }

    mutating func uint64() -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(byte()) << (8 * UInt64(k)) }
        return v
    }

    /// Any Double, NaN and ±∞ included; one byte in four picks a "nice" value instead, so ordinary
    /// shots appear beside the extreme ones.
    mutating func double() -> Double {
        switch byte() & 3 {
        case 0: return Double(Int(byte()) - 100)
        case 1: return [0, -0.0, 1e308, -1e308, .infinity, -.infinity, .nan, 1e-308, 9.2e18, 150.5][Int(byte()) % 10]
        default: return Double(bitPattern: uint64())
        }
    }

    /// Any Int, or a small one.
    mutating func int() -> Int {
        byte() & 1 == 0 ? Int(byte()) - 20 : Int(truncatingIfNeeded: uint64())
    }

    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(byte()) % (range.upperBound - range.lowerBound + 1)
    }

    var exhausted: Bool { at >= bytes.count }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredRows(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var values = StoredValues(bytes: Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)))
    practice(&values)
    scorecard(&values)
    return 0
}

// MARK: practice

func practice(_ v: inout StoredValues) {
    let store = InMemoryPracticeStore()
    let library = TemplateLibrary(store: store, now: { "2026-01-27T16:30:00Z" })
    try? library.ensureDefaults()
    let clubs = ["7i", "pw", "dr"]
    for session in 0..<2 {
        var shots: [StoredShot] = []
        for row in 0..<(1 + Int(v.byte()) % 12) {
            var m = ShotMeasurements()
            for metric in ShotMetric.allCases where v.byte() & 3 != 0 { m[stored: metric] = v.double() }
            shots.append(StoredShot(rowIndex: row + 2, club: clubs[Int(v.byte()) % 3], measurements: m,
                                    grade: [nil, .a, .b, .c][Int(v.byte()) % 4], rawJSON: "[]"))
        }
        var analyses: [SubsessionAnalysis] = []
        for club in clubs {
            var means = JSONObject()
            for metric in ShotMetric.allCases where v.byte() & 1 == 0 {
                let d = v.double()
                // A REAL SQLite wrote as JSON: finite numbers as they are, ±∞ as 1e999 (JSON has no NaN).
                if d.isFinite { means[metric.rawValue] = .double(d) } else if !d.isNaN {
                    means[metric.rawValue] = .number(JSONNumber(lexeme: d > 0 ? "1e999" : "-1e999", isInteger: false))
                }
            }
            let json = JSONWriter.compact(["all": ["shot_count": .int(v.int()), "means": .object(means)], "a_only": .null])
            let counts = (v.int(), v.int(), v.int(), v.int())
            if let analysis = try? SubsessionAnalysis.stored(
                id: 1, club: club, templateHash: nil, shotCount: counts.0, aCount: counts.1, bCount: counts.2, cCount: counts.3,
                validity: [.invalid, .validLowSample, .valid][Int(v.byte()) % 3], aPercent: v.double(), averagesJSON: json) {
                analyses.append(analysis)
            }
        }
        let batch = SessionBatch(contentHash: String(repeating: session == 0 ? "a" : "b", count: 64), sourceName: "fuzz.csv",
                                 importedAt: "2026-01-2\(session)T10:00:00Z", sessionDate: nil, location: nil, title: nil,
                                 subsessions: analyses, shots: shots)
        _ = try? store.insertSession(batch, progress: nil)
    }
    let encoder = JSONValueEncoder()
    let queries = SessionQueries(library: library)
    if let list = try? queries.sessions() { _ = list.text; _ = try? encoder.encode(list) }
    for id in [Int64(1), 2] {
        if let detail = try? queries.session(id, includeShots: true) { _ = detail.text; _ = try? encoder.encode(detail) }
        if let summary = try? queries.export(id) { _ = summary.text }
    }
    let dispersion = DispersionQuery(store: store)
    for club in clubs {
        if let d = try? dispersion.club(club) { _ = d.text; _ = DispersionChart.svg(d); _ = try? encoder.encode(d) }
        for metric in [ShotMetric.carry, .spinRate, .smashFactor] {
            if let trend = try? TrendQuery(store: store).run(TrendRequest(club: club, chartMetric: metric)) {
                _ = trend.text
                _ = TrendChart.svg(trend)
            }
        }
    }
    if let table = try? dispersion.distances() { _ = table.text; _ = DispersionChart.svg(table) }
    if let template = try? library.activeTemplate(for: "7i")?.hash {
        _ = try? Regrader(library: library).run(RegradeRequest(template: template, all: true))
    }
}

// MARK: scorecard

func scorecard(_ v: inout StoredValues) {
    let store = InMemoryScorecardStore()
    func checked(_ value: Int, _ range: ClosedRange<Int>) -> Int? { try? ScorecardStoredRange.checked(value, range, "fuzz") }
    // Courses: ratings come from an unconstrained column; slope, par and stroke index from CHECKed ones.
    for c in 0..<2 {
        let count = v.byte() & 1 == 0 ? 9 : 18
        var indexes = Array(1...count)
        for i in indexes.indices.reversed() { indexes.swapAt(i, Int(v.byte()) % (i + 1)) }
        let holes = (0..<count).map { Hole(number: $0 + 1, par: v.int(in: 3...6), strokeIndex: indexes[$0]) }
        guard let rating = checked(v.int(), ScorecardStoredRange.ratingTenths) else { continue }
        let nine = checked(v.int(), ScorecardStoredRange.ratingTenths).map { Rating(rating: Tenths(raw: $0), slope: v.int(in: 55...155)) }
        let tee = Tee(name: "T", rating: Tenths(raw: rating), slope: v.int(in: 55...155), holes: holes, front: nine, back: nine)
        _ = try? store.insertCourse(CourseDraft(name: "C\(c)", tees: [tee]))
    }
    for p in 0..<3 {
        _ = try? store.insertPlayer(name: "P\(p)", givenIndex: checked(v.int(), ScorecardStoredRange.indexTenths).map { Tenths(raw: $0) })
    }
    let courses = (try? store.courses()) ?? []
    let players = (try? store.players()) ?? []
    for r in 0..<4 where !courses.isEmpty && !players.isEmpty {
        let course = courses[Int(v.byte()) % courses.count]
        guard let tee = course.tees.first else { continue }
        let format = PlayFormat.allCases[Int(v.byte()) % PlayFormat.allCases.count]
        let entrants = format == .fourBallMatchPlay || format == .fourBallStrokePlay ? [0, 1, 2, 0] : [0, 1, 2]
        let roundPlayers = entrants.prefix(format == .matchPlay ? 2 : entrants.count).enumerated().map { k, p in
            RoundPlayer(playerID: players[p % players.count].id + (k >= players.count ? 0 : 0), name: players[p % players.count].name,
                        index: checked(v.int(), ScorecardStoredRange.indexTenths).map { Tenths(raw: $0) },
                        courseHandicap: checked(v.int(), ScorecardStoredRange.handicap),
                        playingHandicap: checked(v.int(), ScorecardStoredRange.handicap))
        }
        let nine: Nine = tee.holeCount == .eighteen ? [.all, .front, .back][Int(v.byte()) % 3] : .all
        let draft = RoundDraft(courseID: course.id, teeName: tee.name, date: GolfDate(dayNumber: 19_800 + r), nine: nine, format: format,
                               pcc: Tenths(raw: v.int(in: -10...30)),
                               players: roundPlayers, options: RoundOptions(allowancePercent: v.int(in: 0...100),
                                                                            netSkins: v.byte() & 1 == 0, carryOvers: v.byte() & 1 == 0))
        guard let round = try? store.insertRound(draft) else { continue }
        for player in roundPlayers {
            for hole in tee.holes(for: nine) where v.byte() & 7 != 0 {
                _ = try? store.appendScore(roundID: round.id, playerID: player.playerID, hole: hole.number, strokes: v.int(in: 1...20))
            }
        }
        if v.byte() & 1 == 0 { try? store.finishRound(id: round.id, on: GolfDate(dayNumber: 19_800 + r), pcc: Tenths(raw: v.int(in: -10...30))) }
    }
    let commands = ScorecardCommands(store: store)
    if let list = try? commands.listPlayers() { _ = list.text; _ = ScorecardJSON.value(list) }
    if let list = try? commands.listCourses() { _ = list.text }
    for course in courses { _ = (try? commands.showCourse(String(course.id)))?.text }
    if let history = try? commands.rounds() { _ = history.text; _ = ScorecardJSON.value(history) }
    for round in (try? store.rounds()) ?? [] {
        if let board = try? commands.leaderboard(String(round.id)) { _ = board.text; _ = ScorecardJSON.value(board) }
        _ = (try? commands.entries(String(round.id)))?.text
    }
    for player in players {
        if let record = try? commands.index(String(player.id)) { _ = record.text; _ = ScorecardJSON.value(record) }
    }
    _ = v.exhausted
}
