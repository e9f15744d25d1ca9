// The formulas of the Rules of Handicapping (2020, with the 2024 revision), each on exact integers.
// Ratings and indexes are tenths; slopes, pars and scores are whole numbers; every "rounded to the
// nearest tenth / whole number, .5 upward" is ExactRounding.roundHalfUp on an exact fraction.

/// An exact rational value in tenths (`numerator / denominator` tenths), kept so that a later rule can
/// compare the unrounded value (Rule 5.9 compares the unrounded Score Differential).
public struct ExactTenths: Hashable, Sendable {
    public let numerator: Int
    /// Always positive.
    public let denominator: Int

    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Rounded to the nearest tenth, .5 upward.
    public var rounded: Tenths { Tenths(raw: ExactRounding.roundHalfUp(numerator, denominator)) }

    /// Exact decimal text, up to `digits` decimals, for showing an unrounded value (truncated toward zero
    /// beyond that, which only happens for fractions that never terminate).
    public func decimalText(digits: Int = 4) -> String {
        // Value in strokes is numerator / (10 × denominator).
        let den = denominator * 10
        let negative = numerator < 0
        let magnitude = numerator.magnitude
        var text = (negative ? "-" : "") + String(magnitude / UInt(den)) + "."
        var remainder = magnitude % UInt(den)
        var written = 0
        repeat {
            remainder *= 10
            text += String(remainder / UInt(den))
            remainder %= UInt(den)
            written += 1
        } while remainder != 0 && written < digits
        // Digits cut off after `digits` may leave zeros at the end ("6.2570…"): drop them, keep one decimal.
        while text.hasSuffix("0"), !text.hasSuffix(".0") { text.removeLast() }
        return text
    }
}

/// The number of holes a round, tee or handicap is for.
public enum HoleCount: Int, Codable, Sendable, CaseIterable {
    case nine = 9
    case eighteen = 18
}

/// The formulas of the World Handicap System.
public enum WorldHandicapSystem {
    /// The largest Handicap Index that can be issued (Rule 5.3).
    public static let maximumIndex = Tenths(raw: 540)
    /// The Slope Rating of a course of standard difficulty.
    public static let standardSlope = 113

    // MARK: Score Differentials (Rule 5.1)

    /// 18-hole Score Differential = (113 / Slope) × (AGS − Course Rating − PCC), rounded to a tenth, .5 up.
    public static func differential(adjustedGrossScore ags: Int, rating: Tenths, slope: Int, pcc: Tenths) -> ExactTenths {
        // In tenths: 113 × (10·AGS − CR − PCC) / Slope.
        ExactTenths(numerator: standardSlope * (10 * ags - rating.raw - pcc.raw), denominator: slope)
    }

    /// The unrounded 9-hole Score Differential = (113 / 9-hole Slope) × (9-hole AGS − 9-hole Rating − ½ PCC).
    public static func nineHoleDifferential(adjustedGrossScore ags: Int, rating: Tenths, slope: Int, pcc: Tenths) -> ExactTenths {
        // In twentieths of a stroke first (½ PCC), hence the doubled denominator.
        ExactTenths(numerator: standardSlope * (20 * ags - 2 * rating.raw - pcc.raw), denominator: 2 * slope)
    }

    /// The expected Score Differential over nine holes for a Handicap Index: 0.52 × index + 1.2 (the
    /// published approximation), exact in thousandths: returned as tenths over 100.
    public static func expectedNineHoleDifferential(index: Tenths) -> ExactTenths {
        // 0.52 × (I/10) + 1.2 strokes = (52·I + 1200) / 1000 strokes = (52·I + 1200) / 100 tenths.
        ExactTenths(numerator: 52 * index.raw + 1200, denominator: 100)
    }

    /// 2024 Rule 5.1b: a 9-hole score makes an 18-hole Score Differential by adding the expected Score
    /// Differential for the other nine to the unrounded 9-hole differential, rounded once at the end.
    public static func eighteenHoleDifferential(nine: ExactTenths, index: Tenths) -> ExactTenths {
        add(nine, expectedNineHoleDifferential(index: index))
    }

    /// Two unrounded 9-hole Score Differentials combined into one 18-hole Score Differential (the way
    /// 9-hole scores of a player without a Handicap Index are made into 18-hole ones).
    public static func combined(_ first: ExactTenths, _ second: ExactTenths) -> ExactTenths {
        add(first, second)
    }

    static func add(_ a: ExactTenths, _ b: ExactTenths) -> ExactTenths {
        if a.denominator == b.denominator {
            return ExactTenths(numerator: a.numerator + b.numerator, denominator: a.denominator)
        }
        return ExactTenths(numerator: a.numerator * b.denominator + b.numerator * a.denominator,
                           denominator: a.denominator * b.denominator)
    }

    // MARK: Handicap Index (Rule 5.2)

    /// One row of the Rule 5.2 table: how many of the lowest differentials count and the adjustment.
    public struct CalculationRow: Sendable, Equatable {
        public let used: Int
        public let adjustment: Tenths
    }

    /// The Rule 5.2 table for a record of `count` differentials (only the most recent 20 are
    /// considered); nil below three (no Handicap Index yet).
    public static func calculationRow(forDifferentialCount count: Int) -> CalculationRow? {
        switch min(count, 20) {
        case ..<3: return nil
        case 3: return CalculationRow(used: 1, adjustment: Tenths(raw: -20))
        case 4: return CalculationRow(used: 1, adjustment: Tenths(raw: -10))
        case 5: return CalculationRow(used: 1, adjustment: .zero)
        case 6: return CalculationRow(used: 2, adjustment: Tenths(raw: -10))
        case 7, 8: return CalculationRow(used: 2, adjustment: .zero)
        case 9...11: return CalculationRow(used: 3, adjustment: .zero)
        case 12...14: return CalculationRow(used: 4, adjustment: .zero)
        case 15, 16: return CalculationRow(used: 5, adjustment: .zero)
        case 17, 18: return CalculationRow(used: 6, adjustment: .zero)
        case 19: return CalculationRow(used: 7, adjustment: .zero)
        default: return CalculationRow(used: 8, adjustment: .zero)
        }
    }

    /// Rule 5.8: the soft cap halves the rise above Low Handicap Index + 3.0 (rounded to a tenth, .5 up),
    /// the hard cap stops it at Low Handicap Index + 5.0. Returns the capped value and which caps acted.
    public static func applyCaps(to index: Tenths, lowIndex: Tenths) -> (index: Tenths, softCap: Bool, hardCap: Bool) {
        let excess = index.raw - lowIndex.raw
        guard excess > 30 else { return (index, false, false) }
        // Low + 3.0 + (excess − 3.0) / 2, in halves of a tenth, rounded once.
        let soft = ExactRounding.roundHalfUp(2 * lowIndex.raw + 30 + excess, 2)
        if soft - lowIndex.raw > 50 { return (Tenths(raw: lowIndex.raw + 50), true, true) }
        return (Tenths(raw: soft), true, false)
    }

    /// Rule 5.9: the reduction for an exceptional score, from how far the unrounded differential is below
    /// the Handicap Index in force: 7.0–9.9 → 1.0, 10.0 or more → 2.0 (returned as a positive amount).
    public static func exceptionalScoreReduction(differential: ExactTenths, indexInForce: Tenths) -> Tenths {
        // index − differential ≥ t  ⇔  index·den − num ≥ t·den  (den > 0).
        let margin = indexInForce.raw * differential.denominator - differential.numerator
        if margin >= 100 * differential.denominator { return Tenths(raw: 20) }
        if margin >= 70 * differential.denominator { return Tenths(raw: 10) }
        return .zero
    }

    // MARK: Course and Playing Handicap (Rule 6)

    /// The unrounded Course Handicap = index × Slope / 113 + (Course Rating − Par), in 1/1130 strokes.
    static func courseHandicapNumerator(index: Tenths, slope: Int, rating: Tenths, par: Int) -> Int {
        index.raw * slope + standardSlope * (rating.raw - 10 * par)
    }

    /// Course Handicap, rounded to the nearest whole number, .5 upward (Rule 6.1a).
    public static func courseHandicap(index: Tenths, slope: Int, rating: Tenths, par: Int) -> Int {
        ExactRounding.roundHalfUp(courseHandicapNumerator(index: index, slope: slope, rating: rating, par: par), 1130)
    }

    /// The Handicap Index used for nine holes: half the index, rounded to a tenth (.5 up).
    public static func nineHoleIndex(_ index: Tenths) -> Tenths {
        Tenths(raw: ExactRounding.roundHalfUp(index.raw, 2))
    }

    /// 9-hole Course Handicap from half the index with the nine's Slope, Rating and Par (Rule 6.1b).
    public static func nineHoleCourseHandicap(index: Tenths, slope: Int, rating: Tenths, par: Int) -> Int {
        courseHandicap(index: nineHoleIndex(index), slope: slope, rating: rating, par: par)
    }

    /// Playing Handicap = Course Handicap × allowance, the allowance applied to the unrounded Course
    /// Handicap and rounded once (.5 up), as the USGA recommends for Rules 6.1/6.2.
    public static func playingHandicap(index: Tenths, slope: Int, rating: Tenths, par: Int, holes: HoleCount,
                                       allowancePercent: Int) -> Int {
        let used = holes == .nine ? nineHoleIndex(index) : index
        let numerator = courseHandicapNumerator(index: used, slope: slope, rating: rating, par: par)
        return ExactRounding.roundHalfUp(numerator * allowancePercent, 1130 * 100)
    }

    // MARK: Strokes (Rule 6.1 / Appendix E) and the maximum hole score (Rule 3.1)

    /// Strokes received on a hole whose allocation rank (its stroke index among the holes played,
    /// 1 = hardest) is `rank` of `holeCount`: ⌊c/n⌋ + (rank ≤ c mod n). A plus handicap (c < 0) gives
    /// strokes back from the easiest hole upward (rank n, n−1, …), returned as negative numbers.
    @inline(__always)
    public static func strokesReceived(courseHandicap c: Int, rank: Int, holeCount n: Int) -> Int {
        if c >= 0 { return c / n + (rank <= c % n ? 1 : 0) }
        let m = -c
        return -(m / n + (rank > n - m % n ? 1 : 0))
    }

    /// Net double bogey, the maximum hole score once a player has an index: par + 2 + strokes received.
    @inline(__always)
    public static func netDoubleBogey(par: Int, strokesReceived: Int) -> Int { par + 2 + strokesReceived }

    /// The maximum hole score of a player without a Handicap Index: par + 5.
    @inline(__always)
    public static func maximumWithoutIndex(par: Int) -> Int { par + 5 }
}
