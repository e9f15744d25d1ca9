// A player's scoring record: the rounds they finished, evaluated in date order the way a handicap
// authority revises an index once a day. For each day: the index in force is the one issued after the
// previous days; each score is adjusted (net double bogey from that index's Course Handicap, or par + 5
// without an index), turned into an 18-hole Score Differential, checked for an exceptional score; then
// the day's index is issued from the most recent 20 (Rule 5.2) with caps against the Low Handicap Index
// (Rule 5.8) once 20 differentials exist, and the 54.0 maximum.
//
// 9-hole scores (2024 Rule 5.1b) add the expected differential for the other nine from the index in
// force, each nine making its own 18-hole differential. A player without an index has no expected score
// yet: following the USGA's guidance for new players under the 2024 Rules ("the use of expected score
// does not come into play until a golfer plays and posts 54 individual hole scores"; Rule 5.2a, 54 holes
// for an initial index), their scores are held until they have posted 54 holes. On the day the 54th hole
// is posted, an expected score is determined from a provisional index (Rule 5.2 over their 18-hole
// differentials and their held nines paired in the order played, a leftover nine not counting; 54 holes
// always make at least three), each held nine then gets its own 18-hole differential from that expected
// score, and the initial index is issued from all of them. Which rule made each differential is kept in
// `ScoreOutcome.kind` and `rule`.
//
// A given index (a player who arrives with a Handicap Index from their association or another club,
// `player add --index`, or the Golfer app's players) is the index in force from the first score here
// until the record here produces one of its own (Rule 5.2: three differentials): scores are adjusted
// with net double bogey from it, nines get their expected score from it (they are not held), and an
// exceptional score is measured against it (Rule 5.9). See Plugins/Scorecard/README.md.

/// One hole of a round as the handicap engine sees it.
public struct PlayedHole: Hashable, Sendable, Codable {
    public var par: Int
    /// 1 = the hardest of the holes played (the stroke index, or its rank among the nine played).
    public var allocationRank: Int
    /// Gross strokes, 0 when the hole has no score.
    public var strokes: Int

    public init(par: Int, allocationRank: Int, strokes: Int) {
        self.par = par
        self.allocationRank = allocationRank
        self.strokes = strokes
    }
}

/// A finished round of one player, with the rating of the holes played.
public struct PostedRound: Sendable {
    public var roundID: Int
    public var date: GolfDate
    public var holeCount: HoleCount
    /// Course Rating, Slope Rating and par of the holes played (the nine's own for a 9-hole round).
    public var rating: Tenths
    public var slope: Int
    public var par: Int
    public var pcc: Tenths
    public var holes: [PlayedHole]

    public init(roundID: Int, date: GolfDate, holeCount: HoleCount, rating: Tenths, slope: Int, par: Int,
                pcc: Tenths, holes: [PlayedHole]) {
        self.roundID = roundID
        self.date = date
        self.holeCount = holeCount
        self.rating = rating
        self.slope = slope
        self.par = par
        self.pcc = pcc
        self.holes = holes
    }
}

/// What became of one posted round.
public struct ScoreOutcome: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// An 18-hole score.
        case eighteenHoles
        /// A 9-hole score made into 18 holes with the expected score for the index in force (Rule 5.1b).
        case nineWithExpectedScore
        /// A 9-hole score of a player without an index, made into 18 holes once 54 holes were posted,
        /// with the expected score of the provisional index of those holes (Rule 5.2a, 2024).
        case nineWithInitialExpectedScore
        /// A 9-hole score of a player without an index, held until 54 holes are posted.
        case nineHeld
        /// Not every hole has a score: not acceptable for handicap purposes.
        case incomplete
    }

    public var roundID: Int
    public var date: GolfDate
    public var kind: Kind
    public var holesScored: Int
    public var gross: Int
    /// Adjusted gross score (each hole capped at net double bogey, or par + 5 without an index).
    public var adjustedGross: Int?
    /// The Handicap Index in force when the round was played.
    public var indexInForce: Tenths?
    /// The Course Handicap used for net double bogey (9-hole one for nine holes).
    public var courseHandicap: Int?
    /// The 18-hole Score Differential, rounded.
    public var differential: Tenths?
    /// The unrounded differential, as decimal text.
    public var unroundedDifferential: String?
    /// The exceptional score reduction this score triggered (0.0, 1.0 or 2.0).
    public var exceptionalReduction: Tenths
    /// The total of exceptional score reductions applied to this differential.
    public var reductionApplied: Tenths
    /// Differential after reductions: what the index calculation used.
    public var adjustedDifferential: Tenths?
    /// True when this differential is among the most recent 20 of the record.
    public var considered: Bool
    /// True when it counted in the current index.
    public var counted: Bool
    /// 9 holes: the unrounded 9-hole Score Differential.
    public var nineHoleDifferential: String? = nil
    /// 9 holes: the Handicap Index whose expected score (0.52 × index + 1.2) made the 18-hole differential.
    public var expectedScoreIndex: Tenths? = nil
    /// Which rule produced the differential (or why there is none).
    public var rule: String = ""

    /// The rule text for a kind of outcome.
    static func rule(_ kind: Kind, expectedScoreIndex: Tenths?) -> String {
        let index = expectedScoreIndex?.handicapNotation ?? "—"
        switch kind {
        case .eighteenHoles: return "18 holes (Rule 5.1a)"
        case .nineWithExpectedScore: return "9 holes + expected score for index \(index) (Rule 5.1b, 2024)"
        case .nineWithInitialExpectedScore:
            return "9 holes + expected score for \(index), the provisional index of the first 54 holes (Rule 5.2a, 2024)"
        case .nineHeld: return "9 holes held: no index and fewer than 54 holes posted (Rule 5.2a, 2024)"
        case .incomplete: return "not acceptable: not every hole has a score"
        }
    }
}

/// The index issued after a day's scores, in force from `effective`.
public struct IndexRevision: Sendable, Codable, Equatable {
    public var effective: GolfDate
    public var index: Tenths
    public var differentials: Int
}

/// The evaluated scoring record of one player.
public struct ScoringRecord: Sendable {
    /// Every posted round, in the order evaluated (date, then round id).
    public var outcomes: [ScoreOutcome]
    /// One revision per day with scores, once an index exists.
    public var revisions: [IndexRevision]
    /// How the current index was calculated; nil without an index.
    public var calculation: IndexCalculation?
    /// The Low Handicap Index as of the latest score, once 20 differentials exist.
    public var lowIndex: Tenths?
    /// The index the player was given (see the top of this file); in force until `calculation` exists.
    public var givenIndex: Tenths? = nil

    /// The current Handicap Index: calculated from the record, else the given one.
    public var index: Tenths? { calculation?.index ?? givenIndex }

    /// The index in force on `date` (issued after scores of earlier days; the given one before the first).
    public func index(on date: GolfDate) -> Tenths? {
        revisions.last(where: { $0.effective <= date })?.index ?? givenIndex
    }

    /// Evaluates rounds (any order; sorted by date, then round id); `givenIndex` is the index the player
    /// came with, if any.
    public static func evaluate(_ rounds: [PostedRound], givenIndex: Tenths? = nil) -> ScoringRecord {
        var engine = ScoringRecordEngine(capacity: rounds.count)
        engine.given = givenIndex
        let ordered = rounds.sorted { ($0.date, $0.roundID) < ($1.date, $1.roundID) }
        engine.run(ordered)
        return engine.finish()
    }

    /// The current index only, for bulk recomputation (same rules, rounds already in date order).
    public static func currentIndex(ofOrdered rounds: [PostedRound], scratch engine: inout ScoringRecordEngine) -> Tenths? {
        engine.reset()
        engine.recordsOutcomes = false
        engine.run(rounds)
        return engine.currentIndex
    }
}

/// The evaluation state of one scoring record; reusable across players (`reset`) to avoid allocations.
public struct ScoringRecordEngine {
    struct Differential {
        var outcome: Int
        var exact: ExactTenths
        var rounded: Int
        var reduction: Int
    }

    var outcomes: [ScoreOutcome] = []
    var differentials: [Differential] = []
    var revisions: [IndexRevision] = []
    /// Scores of a player without an index, in the order played, until 54 holes are posted: an 18-hole
    /// differential, or a 9-hole one waiting for an expected score.
    var early: [(outcome: Int, exact: ExactTenths, isNine: Bool)] = []
    var holesPosted = 0
    var latest: IndexKernel?
    var latestLow: Int?
    /// The index the player was given: in force until the record issues one.
    var given: Tenths?
    /// Sort keys of the most recent 20 differentials, ascending: the adjusted value in tenths shifted
    /// above a tie-break that puts the more recent of equal values first.
    var window: [Int] = []
    /// False for bulk recomputation, which needs only the index.
    var recordsOutcomes = true

    public init(capacity: Int = 20) {
        outcomes.reserveCapacity(capacity)
        differentials.reserveCapacity(capacity)
        revisions.reserveCapacity(capacity)
        window.reserveCapacity(21)
    }

    public mutating func reset() {
        outcomes.removeAll(keepingCapacity: true)
        differentials.removeAll(keepingCapacity: true)
        revisions.removeAll(keepingCapacity: true)
        window.removeAll(keepingCapacity: true)
        early.removeAll(keepingCapacity: true)
        holesPosted = 0
        latest = nil
        latestLow = nil
        given = nil
    }

    static let tieBits = 21
    static let tieMask = (1 << tieBits) - 1

    @inline(__always)
    func key(_ k: Int) -> Int {
        let d = differentials[k]
        return ((d.rounded - d.reduction) << Self.tieBits) &+ (Self.tieMask - k)
    }

    var currentIndex: Tenths? { latest.map { Tenths(raw: $0.index) } ?? given }

    /// Evaluates rounds already in (date, round id) order.
    mutating func run(_ rounds: [PostedRound]) {
        rounds.withUnsafeBufferPointer { run($0) }
    }

    mutating func run(_ rounds: UnsafeBufferPointer<PostedRound>) {
        var i = 0
        while i < rounds.count {
            let day = rounds[i].date
            let inForce = revisions.last.map(\.index) ?? given
            while i < rounds.count, rounds[i].date == day {
                post(rounds[i], indexInForce: inForce)
                i += 1
            }
            if latest == nil, holesPosted >= 54 { releaseEarlyScores() }
            issueIndex(after: day)
        }
    }

    /// The first 54 holes are posted: held nines get their expected score from the provisional index and
    /// every early score becomes a differential, in the order played.
    mutating func releaseEarlyScores() {
        var provisional: Tenths?
        if early.contains(where: \.isNine) {
            var values: [Tenths] = []
            var pairedNine: ExactTenths?
            for score in early {
                if !score.isNine {
                    values.append(score.exact.rounded)
                } else if let first = pairedNine {
                    values.append(WorldHandicapSystem.combined(first, score.exact).rounded)
                    pairedNine = nil
                } else {
                    pairedNine = score.exact
                }
            }
            provisional = WorldHandicapSystem.handicapIndex(differentials: values, lowIndex: nil)?.index
        }
        for score in early {
            var exact = score.exact
            if score.isNine, let provisional {
                exact = WorldHandicapSystem.eighteenHoleDifferential(nine: score.exact, index: provisional)
                if score.outcome >= 0 {
                    outcomes[score.outcome].kind = .nineWithInitialExpectedScore
                    outcomes[score.outcome].expectedScoreIndex = provisional
                }
            }
            record(exact, outcome: score.outcome, reduction: .zero)
        }
        early.removeAll(keepingCapacity: true)
    }

    mutating func post(_ round: PostedRound, indexInForce: Tenths?) {
        let holeCount = round.holeCount.rawValue
        var gross = 0
        var scored = 0
        var adjusted = 0
        var courseHandicap: Int?
        round.holes.withUnsafeBufferPointer { holes in
            for hole in holes where hole.strokes > 0 {
                gross += hole.strokes
                scored += 1
            }
            guard scored == holeCount, holes.count == holeCount else { return }
            if let index = indexInForce {
                let c = round.holeCount == .nine
                    ? WorldHandicapSystem.nineHoleCourseHandicap(index: index, slope: round.slope, rating: round.rating, par: round.par)
                    : WorldHandicapSystem.courseHandicap(index: index, slope: round.slope, rating: round.rating, par: round.par)
                courseHandicap = c
                // Net double bogey = par + 2 + strokes received; the strokes are ⌊c/n⌋ + (rank ≤ c mod n),
                // or for a plus handicap −(⌊m/n⌋ + (rank > n − m mod n)) with m = −c.
                let m = c >= 0 ? c : -c
                let whole = m / holeCount
                let extra = m % holeCount
                for hole in holes {
                    let received = c >= 0
                        ? whole + (hole.allocationRank <= extra ? 1 : 0)
                        : -(whole + (hole.allocationRank > holeCount - extra ? 1 : 0))
                    adjusted += min(hole.strokes, hole.par + 2 + received)
                }
            } else {
                for hole in holes { adjusted += min(hole.strokes, WorldHandicapSystem.maximumWithoutIndex(par: hole.par)) }
            }
        }
        var outcome = ScoreOutcome(
            roundID: round.roundID, date: round.date, kind: .incomplete, holesScored: scored, gross: gross,
            adjustedGross: nil, indexInForce: indexInForce, courseHandicap: courseHandicap, differential: nil,
            unroundedDifferential: nil, exceptionalReduction: .zero, reductionApplied: .zero,
            adjustedDifferential: nil, considered: false, counted: false)
        guard scored == holeCount, round.holes.count == holeCount else {
            if recordsOutcomes { outcomes.append(outcome) }
            return
        }
        outcome.adjustedGross = adjusted

        let exact: ExactTenths
        let withoutIndex = indexInForce == nil && latest == nil
        if round.holeCount == .eighteen {
            outcome.kind = .eighteenHoles
            exact = WorldHandicapSystem.differential(adjustedGrossScore: adjusted, rating: round.rating,
                                                     slope: round.slope, pcc: round.pcc)
        } else {
            let nine = WorldHandicapSystem.nineHoleDifferential(adjustedGrossScore: adjusted, rating: round.rating,
                                                                slope: round.slope, pcc: round.pcc)
            if recordsOutcomes { outcome.nineHoleDifferential = nine.decimalText() }
            if let index = indexInForce {
                outcome.kind = .nineWithExpectedScore
                outcome.expectedScoreIndex = index
                exact = WorldHandicapSystem.eighteenHoleDifferential(nine: nine, index: index)
            } else {
                outcome.kind = .nineHeld
                exact = nine
            }
        }
        if withoutIndex {
            // No index yet (so no expected score and no exceptional score): held until 54 holes.
            holesPosted += holeCount
            if recordsOutcomes { outcomes.append(outcome) }
            early.append((recordsOutcomes ? outcomes.count - 1 : -1, exact, round.holeCount == .nine && indexInForce == nil))
            return
        }
        let reduction = indexInForce.map {
            WorldHandicapSystem.exceptionalScoreReduction(differential: exact, indexInForce: $0)
        } ?? .zero
        outcome.exceptionalReduction = reduction
        if recordsOutcomes { outcomes.append(outcome) }
        record(exact, outcome: recordsOutcomes ? outcomes.count - 1 : -1, reduction: reduction)
    }

    /// Adds a differential; an exceptional score reduces it and the 19 before it (Rule 5.9).
    mutating func record(_ exact: ExactTenths, outcome: Int, reduction: Tenths) {
        differentials.append(Differential(outcome: outcome, exact: exact, rounded: exact.rounded.raw, reduction: 0))
        let count = differentials.count
        if reduction.raw > 0 {
            for k in max(0, count - 20)..<count { differentials[k].reduction += reduction.raw }
            window.removeAll(keepingCapacity: true)
            for k in max(0, count - 20)..<count { window.append(key(k)) }
            window.sort()
            return
        }
        if count > 20, let expired = window.firstIndex(of: key(count - 21)) { window.remove(at: expired) }
        let new = key(count - 1)
        var slot = window.count
        window.append(new)
        window.withUnsafeMutableBufferPointer { keys in
            while slot > 0, keys[slot - 1] > new {
                keys[slot] = keys[slot - 1]
                slot -= 1
            }
            keys[slot] = new
        }
    }

    /// Issues the index after the scores of `day`, effective the next day.
    mutating func issueIndex(after day: GolfDate) {
        let count = differentials.count
        guard let row = WorldHandicapSystem.calculationRow(forDifferentialCount: count) else { return }
        let first = max(0, count - 20)
        var sum = 0
        var mask: UInt32 = 0
        window.withUnsafeBufferPointer { keys in
            for i in 0..<row.used {
                sum += keys[i] >> Self.tieBits
                mask |= 1 << UInt32(Self.tieMask - (keys[i] & Self.tieMask) - first)
            }
        }
        let low = count >= 20 ? lowIndex(before: day) : nil
        let kernel = IndexKernel.finish(row: row, sum: sum, mask: mask, lowIndex: low)
        latest = kernel
        latestLow = low
        revisions.append(IndexRevision(effective: day.adding(days: 1), index: Tenths(raw: kernel.index), differentials: count))
    }

    /// Rule 5.7: the lowest index in force during the 365 days before `day` (the day of the latest score).
    func lowIndex(before day: GolfDate) -> Int? {
        let windowStart = day.dayNumber - 365
        let windowEnd = day.dayNumber - 1
        var lowest: Int?
        var nextEffective = Int.max
        for revision in revisions.reversed() {
            let effective = revision.effective.dayNumber
            defer { nextEffective = effective }
            if effective > windowEnd { continue }
            // In force from `effective` until the day before the next revision.
            if nextEffective - 1 < windowStart { break }
            lowest = min(lowest ?? revision.index.raw, revision.index.raw)
        }
        return lowest
    }

    func finish() -> ScoringRecord {
        var outcomes = self.outcomes
        for i in outcomes.indices { outcomes[i].rule = ScoreOutcome.rule(outcomes[i].kind, expectedScoreIndex: outcomes[i].expectedScoreIndex) }
        // 18-hole scores of a player still short of 54 holes already have their differential.
        for score in early where !score.isNine && score.outcome >= 0 {
            outcomes[score.outcome].differential = score.exact.rounded
            outcomes[score.outcome].unroundedDifferential = score.exact.decimalText()
            outcomes[score.outcome].adjustedDifferential = score.exact.rounded
        }
        let first = max(0, differentials.count - 20)
        for (k, differential) in differentials.enumerated() {
            var outcome = outcomes[differential.outcome]
            outcome.differential = Tenths(raw: differential.rounded)
            outcome.unroundedDifferential = differential.exact.decimalText()
            outcome.reductionApplied = Tenths(raw: differential.reduction)
            outcome.adjustedDifferential = Tenths(raw: differential.rounded - differential.reduction)
            outcome.considered = k >= first
            if let latest, k >= first { outcome.counted = latest.countedMask & (1 << UInt32(k - first)) != 0 }
            outcomes[differential.outcome] = outcome
        }
        let considered = differentials.count - first
        return ScoringRecord(outcomes: outcomes, revisions: revisions,
                             calculation: latest?.calculation(considered: considered, lowIndex: latestLow.map { Tenths(raw: $0) }),
                             lowIndex: latestLow.map { Tenths(raw: $0) }, givenIndex: given)
    }
}
