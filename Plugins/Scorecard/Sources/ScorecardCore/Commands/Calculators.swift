// The pure calculators behind `scorecard differential`, `index-from`, `course-handicap` and `strokes`.
// Requests carry the arguments as the user typed them (text), so every number is read exactly and every
// bad value gets the same message whatever front end passed it. Results are Codable with stable keys
// (their JSON is documented in `CalculatorKeys`) and render a human-readable text.

/// Reads command-line numbers exactly.
enum ArgumentReader {
    static func integer(_ text: String, argument: String, range: ClosedRange<Int>, expected: String = "a whole number")
        throws(ScorecardError) -> Int
    {
        let trimmed = String(text.trimmingSpaces)
        guard let value = Int(trimmed) else { throw .invalidNumber(argument: argument, text: text, expected: expected) }
        guard range.contains(value) else {
            throw .outOfRange(argument: argument, value: String(value), range: "\(range.lowerBound)–\(range.upperBound)")
        }
        return value
    }

    static func tenths(_ text: String, argument: String, range: ClosedRange<Int>, handicap: Bool = false)
        throws(ScorecardError) -> Tenths
    {
        let trimmed = String(text.trimmingSpaces)
        guard let value = handicap ? Tenths.parseHandicap(trimmed) : Tenths.parse(trimmed) else {
            throw .invalidNumber(argument: argument, text: text, expected: "a decimal with at most one digit after the point")
        }
        guard range.contains(value.raw) else {
            let low = Tenths(raw: range.lowerBound)
            let high = Tenths(raw: range.upperBound)
            throw .outOfRange(argument: argument, value: value.description, range: "\(low)–\(high)")
        }
        return value
    }

    static func pcc(_ text: String?) throws(ScorecardError) -> Tenths {
        guard let text else { return .zero }
        let value = try tenths(text, argument: "pcc", range: -10...30)
        guard value.isWhole else {
            throw .invalidNumber(argument: "pcc", text: text, expected: "a whole number from -1 to +3 (Rule 5.6)")
        }
        return value
    }

    static func holes(_ value: Int?) throws(ScorecardError) -> HoleCount {
        guard let value else { return .eighteen }
        guard let holes = HoleCount(rawValue: value) else { throw .invalidHolesOption(value) }
        return holes
    }

    static func integer(_ value: Int, argument: String, range: ClosedRange<Int>) throws(ScorecardError) -> Int {
        guard range.contains(value) else {
            throw .outOfRange(argument: argument, value: String(value), range: "\(range.lowerBound)–\(range.upperBound)")
        }
        return value
    }

    /// The Handicap Index a player comes with: `12.3`, `+1.2` (a plus index), plus 10.0 to 54.0.
    static func givenIndex(_ text: String) throws(ScorecardError) -> Tenths {
        try tenths(text, argument: "index", range: indexRange, handicap: true)
    }
}

/// Ranges the calculators accept for a Handicap Index: plus 10.0 to 54.0.
let indexRange = ScorecardStoredRange.indexTenths

/// Checks a rating against its par for the number of holes.
private func checkRating(_ rating: Tenths, par: Int, holes: HoleCount) throws(ScorecardError) {
    if abs(rating.raw - 10 * par) > CourseValidation.ratingSpread(holes: holes.rawValue) {
        throw .implausibleRating(location: "", rating: rating, par: par, holes: holes.rawValue)
    }
}

// MARK: scorecard differential

public struct DifferentialRequest: Sendable {
    public var ags: Int
    /// Decimals as typed (read exactly, to the tenth).
    public var rating: String
    public var slope: Int
    public var pcc: String?
    public var holes: Int?
    public var index: String?

    public init(ags: Int, rating: String, slope: Int, pcc: String? = nil, holes: Int? = nil, index: String? = nil) {
        self.ags = ags
        self.rating = rating
        self.slope = slope
        self.pcc = pcc
        self.holes = holes
        self.index = index
    }
}

/// JSON keys: holes, adjustedGrossScore, courseRating, slopeRating, pcc, index, nineHoleDifferential,
/// expectedDifferential, unroundedDifferential, differential.
public struct DifferentialResult: Sendable, Codable, Equatable {
    public var holes: Int
    public var adjustedGrossScore: Int
    public var courseRating: Tenths
    public var slopeRating: Int
    public var pcc: Tenths
    /// The Handicap Index used for the expected score (9 holes only).
    public var index: Tenths?
    /// The unrounded 9-hole differential (9 holes only).
    public var nineHoleDifferential: String?
    /// 0.52 × index + 1.2, exact (9 holes only).
    public var expectedDifferential: String?
    /// The exact value before rounding.
    public var unroundedDifferential: String
    /// The 18-hole Score Differential.
    public var differential: Tenths

    public var text: String {
        if holes == 9, let index, let nine = nineHoleDifferential, let expected = expectedDifferential {
            return "9-hole differential \(nine) + expected \(expected) for index \(index.handicapNotation) "
                + "= 18-hole Score Differential \(differential)"
        }
        let pccTerm = pcc.raw < 0 ? " + \(-pcc)" : " − \(pcc)"
        return "Score Differential \(differential)  (113 / \(slopeRating) × (\(adjustedGrossScore) − \(courseRating)\(pccTerm)) = \(unroundedDifferential))"
    }
}

// MARK: scorecard index-from

public struct IndexFromRequest: Sendable {
    /// Differentials in the order played, oldest first, as typed.
    public var differentials: [String]
    public var lowIndex: String?

    public init(differentials: [String], lowIndex: String? = nil) {
        self.differentials = differentials
        self.lowIndex = lowIndex
    }
}

/// A differential that was an exceptional score (Rule 5.9) in `scorecard index-from`.
public struct ExceptionalScore: Sendable, Codable, Equatable {
    /// Its position in the list given (1 = first given).
    public var position: Int
    public var differential: Tenths
    /// The index in force when it was made: Rule 5.2 over the differentials before it (after their
    /// reductions), no caps.
    public var indexInForce: Tenths
    /// 1.0 (7.0–9.9 below the index in force) or 2.0 (10.0 or more), taken off it and the 19 before it.
    public var reduction: Tenths
}

/// JSON keys: index, differentials, considered, used, adjustment, average, calculated, counted,
/// countedPositions, exceptional, lowIndex, softCapApplied, hardCapApplied, maximumApplied, note.
public struct IndexFromResult: Sendable, Codable, Equatable {
    /// The Handicap Index; null with fewer than three differentials.
    public var index: Tenths?
    public var differentials: Int
    public var considered: Int
    public var used: Int
    public var adjustment: Tenths
    public var average: Tenths?
    public var calculated: Tenths?
    /// The differentials that counted, lowest first, after exceptional-score reductions.
    public var counted: [Tenths]
    /// Their positions in the list given (1 = first given).
    public var countedPositions: [Int]
    /// The exceptional scores among them (Rule 5.9), in the order given.
    public var exceptional: [ExceptionalScore]
    public var lowIndex: Tenths?
    public var softCapApplied: Bool
    public var hardCapApplied: Bool
    public var maximumApplied: Bool
    public var note: String?

    public var text: String {
        guard let index, let average, let calculated else {
            return "no Handicap Index: \(differentials) differential\(differentials == 1 ? "" : "s"); at least 3 are needed"
        }
        var lines = ["Handicap Index \(index.handicapNotation)"]
        var how = "lowest \(used) of the most recent \(considered): " + counted.map(\.description).joined(separator: ", ")
        how += used > 1 ? " (average \(average))" : ""
        if adjustment != .zero { how += ", adjustment \(adjustment)" }
        lines.append(how + " → \(calculated)")
        for e in exceptional {
            lines.append("exceptional score (Rule 5.9): differential \(e.position) (\(e.differential)) is "
                + "\(Tenths(raw: e.indexInForce.raw - e.differential.raw)) below the index in force \(e.indexInForce.handicapNotation): "
                + "−\(e.reduction) on it and the 19 before it")
        }
        if let lowIndex {
            if hardCapApplied {
                lines.append("hard cap: at most 5.0 above the Low Handicap Index \(lowIndex.handicapNotation)")
            } else if softCapApplied {
                lines.append("soft cap: half of the rise above Low Handicap Index \(lowIndex.handicapNotation) + 3.0 removed")
            } else {
                lines.append("Low Handicap Index \(lowIndex.handicapNotation): within 3.0, no cap")
            }
        }
        if maximumApplied { lines.append("limited to the maximum 54.0") }
        if let note { lines.append(note) }
        return lines.joined(separator: "\n")
    }
}

// MARK: scorecard course-handicap

public struct CourseHandicapRequest: Sendable {
    public var index: String
    public var slope: Int
    public var rating: String
    public var par: Int
    public var holes: Int?
    /// Percent, 1–100; defaults to 100.
    public var allowance: String?

    public init(index: String, slope: Int, rating: String, par: Int, holes: Int? = nil, allowance: String? = nil) {
        self.index = index
        self.slope = slope
        self.rating = rating
        self.par = par
        self.holes = holes
        self.allowance = allowance
    }
}

/// JSON keys: holes, index, nineHoleIndex, slopeRating, courseRating, par, unroundedCourseHandicap,
/// courseHandicap, allowance, playingHandicap.
public struct CourseHandicapResult: Sendable, Codable, Equatable {
    public var holes: Int
    public var index: Tenths
    /// Half the index, rounded to a tenth (9 holes only).
    public var nineHoleIndex: Tenths?
    public var slopeRating: Int
    public var courseRating: Tenths
    public var par: Int
    public var unroundedCourseHandicap: String
    public var courseHandicap: Int
    public var allowance: Int
    public var playingHandicap: Int

    public var text: String {
        var line = (holes == 9 ? "9-hole Course Handicap " : "Course Handicap ") + Self.signed(courseHandicap)
        line += "  (\(nineHoleIndex.map { "index/2 = \($0.handicapNotation) → " } ?? "")"
            + "\((nineHoleIndex ?? index).handicapNotation) × \(slopeRating)/113 + (\(courseRating) − \(par)) = \(unroundedCourseHandicap))"
        if allowance != 100 { line += "\nPlaying Handicap \(Self.signed(playingHandicap)) at \(allowance)%" }
        return line
    }

    static func signed(_ handicap: Int) -> String { handicap < 0 ? "+\(-handicap)" : "\(handicap)" }
}

// MARK: scorecard strokes

public struct StrokesRequest: Sendable {
    public var courseHandicap: String
    /// Stroke indexes of the holes played, in hole order, as typed.
    public var strokeIndexes: [String]

    public init(courseHandicap: String, strokeIndexes: [String]) {
        self.courseHandicap = courseHandicap
        self.strokeIndexes = strokeIndexes
    }
}

/// JSON keys: courseHandicap, holes, strokeIndexes, strokes, total.
public struct StrokesResult: Sendable, Codable, Equatable {
    public var courseHandicap: Int
    public var holes: Int
    public var strokeIndexes: [Int]
    /// Strokes received per hole in hole order (negative: strokes given back by a plus handicap).
    public var strokes: [Int]
    public var total: Int

    public var text: String {
        var lines = ["Course Handicap \(CourseHandicapResult.signed(courseHandicap)) over \(holes) holes"]
        lines.append("hole    " + (1...holes).map { pad(String($0)) }.joined())
        lines.append("index   " + strokeIndexes.map { pad(String($0)) }.joined())
        lines.append("strokes " + strokes.map { pad($0 > 0 ? String($0) : $0 < 0 ? "+\(-$0)" : "·") }.joined())
        return lines.joined(separator: "\n")
    }

    private func pad(_ s: String) -> String { String(repeating: " ", count: max(0, 4 - s.count)) + s }
}

// MARK: The calculators

/// The pure handicap calculators.
public enum Calculators {
    public static func differential(_ request: DifferentialRequest) throws(ScorecardError) -> DifferentialResult {
        let holes = try ArgumentReader.holes(request.holes)
        let maxScore = holes == .nine ? 9 * 20 : 18 * 20
        let ags = try ArgumentReader.integer(request.ags, argument: "ags", range: holes.rawValue...maxScore)
        let rating = try ArgumentReader.tenths(request.rating, argument: "rating", range: 1...9999)
        let slope = try ArgumentReader.integer(request.slope, argument: "slope", range: CourseValidation.slopeRange)
        let pcc = try ArgumentReader.pcc(request.pcc)
        // A rating far from any possible par of the holes (3–6 a hole) is a typing mistake.
        let parRange = (holes.rawValue * 3)...(holes.rawValue * 6)
        let spread = CourseValidation.ratingSpread(holes: holes.rawValue)
        if rating.raw < 10 * parRange.lowerBound - spread || rating.raw > 10 * parRange.upperBound + spread {
            throw .outOfRange(argument: "rating", value: rating.description,
                              range: "\(Tenths(raw: 10 * parRange.lowerBound - spread))–\(Tenths(raw: 10 * parRange.upperBound + spread)) for \(holes.rawValue) holes")
        }
        if holes == .eighteen {
            if request.index != nil {
                throw .indexWithEighteenHoles(request.index ?? "")
            }
            let exact = WorldHandicapSystem.differential(adjustedGrossScore: ags, rating: rating, slope: slope, pcc: pcc)
            return DifferentialResult(holes: 18, adjustedGrossScore: ags, courseRating: rating, slopeRating: slope, pcc: pcc,
                                      index: nil, nineHoleDifferential: nil, expectedDifferential: nil,
                                      unroundedDifferential: exact.decimalText(), differential: exact.rounded)
        }
        guard let indexText = request.index else { throw .missingArgument(argument: "index", detail: " (the expected score of a 9-hole round needs the Handicap Index)") }
        let index = try ArgumentReader.tenths(indexText, argument: "index", range: indexRange, handicap: true)
        let nine = WorldHandicapSystem.nineHoleDifferential(adjustedGrossScore: ags, rating: rating, slope: slope, pcc: pcc)
        let expected = WorldHandicapSystem.expectedNineHoleDifferential(index: index)
        let total = WorldHandicapSystem.eighteenHoleDifferential(nine: nine, index: index)
        return DifferentialResult(holes: 9, adjustedGrossScore: ags, courseRating: rating, slopeRating: slope, pcc: pcc,
                                  index: index, nineHoleDifferential: nine.decimalText(), expectedDifferential: expected.decimalText(),
                                  unroundedDifferential: total.decimalText(), differential: total.rounded)
    }

    public static func indexFrom(_ request: IndexFromRequest) throws(ScorecardError) -> IndexFromResult {
        let texts = request.differentials.map { String($0.trimmingSpaces) }
        if texts.isEmpty || texts == [""] { throw .missingArgument(argument: "differentials", detail: " d1,d2,… (at least one)") }
        var values: [Tenths] = []
        for (i, text) in texts.enumerated() {
            do {
                values.append(try ArgumentReader.tenths(text, argument: "differentials", range: -999...999))
            } catch {
                throw .item("differential \(i + 1)", error)
            }
        }
        let low = try request.lowIndex.map { text throws(ScorecardError) in
            try ArgumentReader.tenths(text, argument: "low-index", range: indexRange, handicap: true)
        }
        var note: String?
        if low != nil && values.count < 20 {
            note = "caps not applied: the Low Handicap Index limits an index only once 20 differentials exist"
        }
        if values.count > 20 { note = "only the most recent 20 of the \(values.count) differentials are considered" }
        // Rule 5.9, as the round-based record applies it: each differential is compared with the index in
        // force when it was made (Rule 5.2 over those before it, after their reductions; each differential
        // its own day), and an exceptional one reduces itself and the 19 before it.
        var adjusted = values
        var exceptional: [ExceptionalScore] = []
        for k in values.indices {
            guard let inForce = WorldHandicapSystem.handicapIndex(differentials: Array(adjusted[max(0, k - 20)..<k]), lowIndex: nil)?.index else { continue }
            let reduction = WorldHandicapSystem.exceptionalScoreReduction(
                differential: ExactTenths(numerator: values[k].raw, denominator: 1), indexInForce: inForce)
            guard reduction != .zero else { continue }
            for j in max(0, k - 19)...k { adjusted[j] = adjusted[j] - reduction }
            exceptional.append(ExceptionalScore(position: k + 1, differential: values[k], indexInForce: inForce, reduction: reduction))
        }
        guard let calculation = WorldHandicapSystem.handicapIndex(differentials: adjusted, lowIndex: low) else {
            return IndexFromResult(index: nil, differentials: values.count, considered: values.count, used: 0, adjustment: .zero,
                                   average: nil, calculated: nil, counted: [], countedPositions: [], exceptional: exceptional,
                                   lowIndex: nil, softCapApplied: false, hardCapApplied: false, maximumApplied: false,
                                   note: "at least 3 differentials are needed for a Handicap Index")
        }
        let offset = values.count - calculation.considered
        let positions = calculation.counted.map { $0 + offset }.sorted { (adjusted[$0], $0) < (adjusted[$1], $1) }
        return IndexFromResult(index: calculation.index, differentials: values.count, considered: calculation.considered,
                               used: calculation.used, adjustment: calculation.adjustment, average: calculation.average,
                               calculated: calculation.calculated, counted: positions.map { adjusted[$0] },
                               countedPositions: positions.map { $0 + 1 }, exceptional: exceptional, lowIndex: calculation.lowIndex,
                               softCapApplied: calculation.softCapApplied, hardCapApplied: calculation.hardCapApplied,
                               maximumApplied: calculation.maximumApplied, note: note)
    }

    public static func courseHandicap(_ request: CourseHandicapRequest) throws(ScorecardError) -> CourseHandicapResult {
        let holes = try ArgumentReader.holes(request.holes)
        let index = try ArgumentReader.tenths(request.index, argument: "index", range: indexRange, handicap: true)
        let slope = try ArgumentReader.integer(request.slope, argument: "slope", range: CourseValidation.slopeRange)
        let rating = try ArgumentReader.tenths(request.rating, argument: "rating", range: 1...999)
        let n = holes.rawValue
        let par = try ArgumentReader.integer(request.par, argument: "par", range: (3 * n)...(6 * n))
        let allowance = try request.allowance.map { text throws(ScorecardError) in
            try ArgumentReader.integer(text.hasSuffix("%") ? String(text.dropLast()) : text, argument: "allowance", range: 1...100,
                                       expected: "a whole percentage such as 95")
        } ?? 100
        try checkRating(rating, par: par, holes: holes)
        let used = holes == .nine ? WorldHandicapSystem.nineHoleIndex(index) : index
        let unrounded = ExactTenths(numerator: WorldHandicapSystem.courseHandicapNumerator(index: used, slope: slope, rating: rating, par: par),
                                    denominator: 113)
        return CourseHandicapResult(
            holes: n, index: index, nineHoleIndex: holes == .nine ? used : nil, slopeRating: slope, courseRating: rating, par: par,
            unroundedCourseHandicap: unrounded.decimalText(),
            courseHandicap: WorldHandicapSystem.courseHandicap(index: used, slope: slope, rating: rating, par: par),
            allowance: allowance,
            playingHandicap: WorldHandicapSystem.playingHandicap(index: index, slope: slope, rating: rating, par: par,
                                                                 holes: holes, allowancePercent: allowance))
    }

    public static func strokes(_ request: StrokesRequest) throws(ScorecardError) -> StrokesResult {
        let courseHandicap = try ArgumentReader.integer(
            request.courseHandicap.hasPrefix("+") ? "-" + request.courseHandicap.dropFirst() : request.courseHandicap,
            argument: "course-handicap", range: -60...120)
        let texts = request.strokeIndexes.map { String($0.trimmingSpaces) }
        var indexes: [Int] = []
        for (i, text) in texts.enumerated() {
            guard let value = Int(text) else {
                throw .item("stroke index \(i + 1)", .invalidNumber(argument: "stroke-indexes", text: text, expected: "a whole number"))
            }
            indexes.append(value)
        }
        guard indexes.count == 9 || indexes.count == 18 else {
            throw .invalidNumber(argument: "stroke-indexes", text: request.strokeIndexes.joined(separator: ","),
                                 expected: "a list of 9 or 18 stroke indexes (found \(indexes.count))")
        }
        let ranks = try allocationRanks(indexes)
        let strokes = ranks.map { WorldHandicapSystem.strokesReceived(courseHandicap: courseHandicap, rank: $0, holeCount: ranks.count) }
        return StrokesResult(courseHandicap: courseHandicap, holes: indexes.count, strokeIndexes: indexes, strokes: strokes,
                             total: strokes.reduce(0, +))
    }

    /// Allocation ranks for a list of stroke indexes: 18 holes need 1–18 once each; nine holes either
    /// 1–9 once each, or nine different indexes of an 18-hole card (allocated in their order).
    static func allocationRanks(_ indexes: [Int]) throws(ScorecardError) -> [Int] {
        let n = indexes.count
        if n == 9, CourseValidation.strokeIndexProblems(indexes, holes: 9) != nil,
           Set(indexes).count == 9, indexes.allSatisfy({ (1...18).contains($0) }) {
            let order = indexes.indices.sorted { indexes[$0] < indexes[$1] }
            var ranks = [Int](repeating: 0, count: n)
            for (rank, position) in order.enumerated() { ranks[position] = rank + 1 }
            return ranks
        }
        if let problems = CourseValidation.strokeIndexProblems(indexes, holes: n) {
            throw .invalidStrokeIndexList(duplicates: problems.duplicates, missing: problems.missing,
                                          outOfRange: problems.outOfRange, holes: n)
        }
        return indexes
    }
}
