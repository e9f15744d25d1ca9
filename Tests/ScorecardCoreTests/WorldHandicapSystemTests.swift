import XCTest
@testable import ScorecardCore

/// The formulas of the Rules of Handicapping, checked against the domain page's worked examples and
/// against cases worked out by hand from the Rules (each rounding edge, every table row, the caps).
final class WorldHandicapSystemTests: XCTestCase {
    private func t(_ text: String) -> Tenths { Tenths.parse(text)! }

    // MARK: Rounding

    func testRoundHalfUpGoesTowardPlusInfinityAlsoForNegatives() {
        XCTAssertEqual(ExactRounding.roundHalfUp(155, 10), 16)
        XCTAssertEqual(ExactRounding.roundHalfUp(-155, 10), -15)   // −15.5 → −15: −1.55 → −1.5
        XCTAssertEqual(ExactRounding.roundHalfUp(-156, 10), -16)   // −15.6 → −16: −1.56 → −1.6
        XCTAssertEqual(ExactRounding.roundHalfUp(-154, 10), -15)
        XCTAssertEqual(ExactRounding.roundHalfUp(-5, 10), 0)
        XCTAssertEqual(ExactRounding.roundHalfUp(-6, 10), -1)
        XCTAssertEqual(ExactTenths(numerator: -155, denominator: 10).rounded, t("-1.5"))
        XCTAssertEqual(ExactTenths(numerator: -156, denominator: 10).rounded, t("-1.6"))
    }

    func testTenthsParsingIsExact() {
        XCTAssertEqual(Tenths.parse("13.2")?.raw, 132)
        XCTAssertEqual(Tenths.parse("-1.5")?.raw, -15)
        XCTAssertEqual(Tenths.parse("73")?.raw, 730)
        XCTAssertEqual(Tenths.parse(".5")?.raw, 5)
        XCTAssertEqual(Tenths.parse("13.20")?.raw, 132)
        XCTAssertNil(Tenths.parse("13.25"))
        XCTAssertNil(Tenths.parse("1e2"))
        XCTAssertNil(Tenths.parse(""))
        XCTAssertNil(Tenths.parse("-"))
        XCTAssertNil(Tenths.parse("1.2.3"))
        XCTAssertEqual(Tenths.parseHandicap("+2.3")?.raw, -23)
        XCTAssertEqual(Tenths.parseHandicap("-2.3")?.raw, -23)
        XCTAssertEqual(Tenths(raw: -23).handicapNotation, "+2.3")
        XCTAssertEqual(Tenths(raw: -5).description, "-0.5")
        XCTAssertEqual(Tenths(raw: 190).description, "19.0")
    }

    // MARK: Score Differentials (Rule 5.1)

    func testDomainOracleAGS94On73Slope125Is19() {
        let d = WorldHandicapSystem.differential(adjustedGrossScore: 94, rating: t("73.0"), slope: 125, pcc: .zero)
        XCTAssertEqual(d.rounded, t("19.0"))
        XCTAssertEqual(d.decimalText(), "18.984")
    }

    func testDifferentialExactHalvesRoundUpwardOnBothSides() {
        // 113/130 × 6.5 = 5.65 exactly → 5.7; 113/130 × −6.5 = −5.65 exactly → −5.6.
        let up = WorldHandicapSystem.differential(adjustedGrossScore: 80, rating: t("73.5"), slope: 130, pcc: .zero)
        XCTAssertEqual(up.decimalText(), "5.65")
        XCTAssertEqual(up.rounded, t("5.7"))
        let down = WorldHandicapSystem.differential(adjustedGrossScore: 67, rating: t("73.5"), slope: 130, pcc: .zero)
        XCTAssertEqual(down.decimalText(), "-5.65")
        XCTAssertEqual(down.rounded, t("-5.6"))
    }

    func testPCCIsSubtractedAndHalvedForNineHoles() {
        let plus2 = WorldHandicapSystem.differential(adjustedGrossScore: 85, rating: t("72.0"), slope: 113, pcc: t("2"))
        XCTAssertEqual(plus2.rounded, t("11.0"))
        let minus1 = WorldHandicapSystem.differential(adjustedGrossScore: 85, rating: t("72.0"), slope: 113, pcc: t("-1"))
        XCTAssertEqual(minus1.rounded, t("14.0"))
        // 9 holes: 113/121 × (42 − 35.3 − 1.0) = 5.3231… ; + expected 0.52 × 8.7 + 1.2 = 5.724 → 11.0471… → 11.0
        let nine = WorldHandicapSystem.nineHoleDifferential(adjustedGrossScore: 42, rating: t("35.3"), slope: 121, pcc: t("2"))
        XCTAssertEqual(nine.decimalText(), "5.3231")
        XCTAssertEqual(WorldHandicapSystem.eighteenHoleDifferential(nine: nine, index: t("8.7")).rounded, t("11.0"))
    }

    func testNineHoleDifferentialAddsTheExpectedScoreAndRoundsOnce() {
        // 113/121 × 6.7 = 6.2570… + 5.724 = 11.9810… → 12.0
        let nine = WorldHandicapSystem.nineHoleDifferential(adjustedGrossScore: 42, rating: t("35.3"), slope: 121, pcc: .zero)
        XCTAssertEqual(WorldHandicapSystem.expectedNineHoleDifferential(index: t("8.7")).decimalText(), "5.724")
        XCTAssertEqual(WorldHandicapSystem.eighteenHoleDifferential(nine: nine, index: t("8.7")).rounded, t("12.0"))
        // Plus index: 0.52 × −3.0 + 1.2 = −0.36
        XCTAssertEqual(WorldHandicapSystem.expectedNineHoleDifferential(index: t("-3.0")).decimalText(), "-0.36")
        // Rounding once: 4.45 + 4.45 (slope 113) would be 4.5 + 4.5 = 9.0 if each nine were rounded; once it is 8.9.
        let a = WorldHandicapSystem.nineHoleDifferential(adjustedGrossScore: 40, rating: t("35.0"), slope: 113, pcc: t("1"))
        XCTAssertEqual(a.decimalText(), "4.5")
        let b = ExactTenths(numerator: 445, denominator: 10)   // 4.45
        XCTAssertEqual(WorldHandicapSystem.combined(b, b).rounded, t("8.9"))
    }

    // MARK: Handicap Index (Rule 5.2)

    func testDomainOracleThreeDifferentials() {
        let c = WorldHandicapSystem.handicapIndex(differentials: [t("15.3"), t("15.2"), t("16.6")], lowIndex: nil)
        XCTAssertEqual(c?.index, t("13.2"))
        XCTAssertEqual(c?.used, 1)
        XCTAssertEqual(c?.adjustment, t("-2.0"))
        XCTAssertEqual(c?.counted, [1])
    }

    func testEveryRowOfTheRule52Table() {
        // Differentials 10.0, 11.0, … given in a scrambled order; the lowest k average 10 + (k − 1)/2.
        // Expected values worked out by hand from the table (count → used, adjustment).
        let expected: [Int: (used: Int, index: String)] = [
            3: (1, "8.0"), 4: (1, "9.0"), 5: (1, "10.0"), 6: (2, "9.5"), 7: (2, "10.5"), 8: (2, "10.5"),
            9: (3, "11.0"), 10: (3, "11.0"), 11: (3, "11.0"), 12: (4, "11.5"), 13: (4, "11.5"), 14: (4, "11.5"),
            15: (5, "12.0"), 16: (5, "12.0"), 17: (6, "12.5"), 18: (6, "12.5"), 19: (7, "13.0"), 20: (8, "13.5"),
        ]
        for count in 1...20 {
            let order = ((0..<count).filter { $0 % 2 == 1 } + (0..<count).filter { $0 % 2 == 0 }).reversed()
            let values = order.map { Tenths(raw: 100 + 10 * $0) }
            let c = WorldHandicapSystem.handicapIndex(differentials: values, lowIndex: nil)
            guard let row = expected[count] else {
                XCTAssertNil(c, "no index from \(count) differentials")
                continue
            }
            XCTAssertEqual(c?.used, row.used, "count \(count)")
            XCTAssertEqual(c?.index, t(row.index), "count \(count)")
        }
    }

    func testOnlyTheMostRecentTwentyCount() {
        // Five very low differentials followed by twenty at 20.0: the old five are outside the window.
        let values = Array(repeating: t("1.0"), count: 5) + Array(repeating: t("20.0"), count: 20)
        let c = WorldHandicapSystem.handicapIndex(differentials: values, lowIndex: nil)
        XCTAssertEqual(c?.considered, 20)
        XCTAssertEqual(c?.index, t("20.0"))
    }

    func testAverageRoundsOnceHalfUpIncludingNegatives() {
        // Lowest two of seven: (−1.5 + −1.6)/2 = −1.55 → −1.5
        let seven = [t("-1.5"), t("-1.6"), t("3.0"), t("4.0"), t("5.0"), t("6.0"), t("7.0")]
        XCTAssertEqual(WorldHandicapSystem.handicapIndex(differentials: seven, lowIndex: nil)?.index, t("-1.5"))
        // Lowest three of nine: (−1.5 − 1.6 − 1.58)… use −1.5, −1.6, −1.6 → −4.7/3 = −1.5666… → −1.6
        let nine = [t("-1.5"), t("-1.6"), t("-1.6")] + (1...6).map { Tenths(whole: $0 + 2) }
        XCTAssertEqual(WorldHandicapSystem.handicapIndex(differentials: nine, lowIndex: nil)?.index, t("-1.6"))
        // (12.3 + 12.4)/2 = 12.35 → 12.4; with six scores 12.35 − 1.0 = 11.35 → 11.4
        let six = [t("12.3"), t("12.4"), t("20.0"), t("20.0"), t("20.0"), t("20.0")]
        XCTAssertEqual(WorldHandicapSystem.handicapIndex(differentials: six, lowIndex: nil)?.index, t("11.4"))
        XCTAssertEqual(WorldHandicapSystem.handicapIndex(differentials: six + [t("30.0")], lowIndex: nil)?.index, t("12.4"))
    }

    func testMaximumIs54() {
        let high = Array(repeating: t("60.0"), count: 20)
        let c = WorldHandicapSystem.handicapIndex(differentials: high, lowIndex: nil)
        XCTAssertEqual(c?.index, t("54.0"))
        XCTAssertEqual(c?.calculated, t("60.0"))
        XCTAssertEqual(c?.maximumApplied, true)
    }

    // MARK: Caps (Rule 5.8)

    private func twenty(lowestEightAverage: String) -> [Tenths] {
        Array(repeating: t(lowestEightAverage), count: 8) + Array(repeating: t("40.0"), count: 12)
    }

    func testDomainOracleSoftCap() {
        let c = WorldHandicapSystem.handicapIndex(differentials: twenty(lowestEightAverage: "11.6"), lowIndex: t("6.5"))
        XCTAssertEqual(c?.calculated, t("11.6"))
        XCTAssertEqual(c?.index, t("10.6"))   // 6.5 + 3.0 + (5.1 − 3.0)/2 = 10.55 → 10.6
        XCTAssertEqual(c?.softCapApplied, true)
        XCTAssertEqual(c?.hardCapApplied, false)
    }

    func testSoftCapBoundaries() {
        // Exactly 3.0 above: no cap. 3.1 above: 3.0 + 0.05 → 9.55 → 9.6.
        XCTAssertEqual(WorldHandicapSystem.handicapIndex(differentials: twenty(lowestEightAverage: "9.5"), lowIndex: t("6.5"))?.index, t("9.5"))
        let c = WorldHandicapSystem.handicapIndex(differentials: twenty(lowestEightAverage: "9.6"), lowIndex: t("6.5"))
        XCTAssertEqual(c?.index, t("9.6"))
        XCTAssertEqual(c?.softCapApplied, true)
        XCTAssertEqual(WorldHandicapSystem.applyCaps(to: t("9.7"), lowIndex: t("6.5")).index, t("9.6"))   // 9.6 exactly
    }

    func testHardCap() {
        // 7.5 above: soft would give 6.5 + 3.0 + 2.25 = 11.75, more than 5.0 above: hard cap 11.5.
        let c = WorldHandicapSystem.handicapIndex(differentials: twenty(lowestEightAverage: "14.0"), lowIndex: t("6.5"))
        XCTAssertEqual(c?.index, t("11.5"))
        XCTAssertEqual(c?.hardCapApplied, true)
        // 7.0 above: soft gives exactly 5.0 above, not more: soft cap only.
        let edge = WorldHandicapSystem.applyCaps(to: t("13.5"), lowIndex: t("6.5"))
        XCTAssertEqual(edge.index, t("11.5"))
        XCTAssertEqual(edge.hardCap, false)
        // 7.1 above: 3.0 + 2.05 = 5.05 → 5.1 > 5.0: hard cap.
        let over = WorldHandicapSystem.applyCaps(to: t("13.6"), lowIndex: t("6.5"))
        XCTAssertEqual(over.index, t("11.5"))
        XCTAssertEqual(over.hardCap, true)
        // Caps work for plus indexes too: low +2.0 (−2.0), calculated 4.0: 6.0 above → −2.0 + 3.0 + 1.5 = 2.5.
        XCTAssertEqual(WorldHandicapSystem.applyCaps(to: t("4.0"), lowIndex: t("-2.0")).index, t("2.5"))
    }

    func testCapsNeedTwentyDifferentials() {
        let nineteen = Array(twenty(lowestEightAverage: "14.0").prefix(19))
        XCTAssertEqual(WorldHandicapSystem.handicapIndex(differentials: nineteen, lowIndex: t("6.5"))?.softCapApplied, false)
    }

    // MARK: Exceptional scores (Rule 5.9)

    func testExceptionalScoreLevelsUseTheUnroundedDifferential() {
        func reduction(_ d: ExactTenths, _ index: String) -> Tenths {
            WorldHandicapSystem.exceptionalScoreReduction(differential: d, indexInForce: t(index))
        }
        XCTAssertEqual(reduction(ExactTenths(numerator: 80, denominator: 1), "15.0"), t("1.0"))    // 7.0 below
        XCTAssertEqual(reduction(ExactTenths(numerator: 81, denominator: 1), "15.0"), .zero)       // 6.9 below
        XCTAssertEqual(reduction(ExactTenths(numerator: 51, denominator: 1), "15.0"), t("1.0"))    // 9.9 below
        XCTAssertEqual(reduction(ExactTenths(numerator: 50, denominator: 1), "15.0"), t("2.0"))    // 10.0 below
        // 113/114 × 8.1 = 8.029 rounds to 8.0 (7.0 below) but is only 6.97 below: no reduction.
        let d = WorldHandicapSystem.differential(adjustedGrossScore: 80, rating: t("71.9"), slope: 114, pcc: .zero)
        XCTAssertEqual(d.rounded, t("8.0"))
        XCTAssertEqual(reduction(d, "15.0"), .zero)
    }

    // MARK: Course and Playing Handicap (Rule 6)

    func testCourseHandicap() {
        // 10.0 × 125/113 + (73.0 − 72) = 12.06 → 12
        XCTAssertEqual(WorldHandicapSystem.courseHandicap(index: t("10.0"), slope: 125, rating: t("73.0"), par: 72), 12)
        // .5 rounds upward: 12.5 → 13; a plus 2.5 (−2.5) → −2
        XCTAssertEqual(WorldHandicapSystem.courseHandicap(index: t("12.5"), slope: 113, rating: t("72.0"), par: 72), 13)
        XCTAssertEqual(WorldHandicapSystem.courseHandicap(index: t("-2.5"), slope: 113, rating: t("72.0"), par: 72), -2)
        XCTAssertEqual(WorldHandicapSystem.courseHandicap(index: t("54.0"), slope: 155, rating: t("80.0"), par: 72), 82)
    }

    func testDomainOracleNineHoleCourseHandicap() {
        // index/2 = 4.35 → 4.4; 4.4 × 121/113 + (35.3 − 36) = 4.01 → 4
        XCTAssertEqual(WorldHandicapSystem.nineHoleIndex(t("8.7")), t("4.4"))
        XCTAssertEqual(WorldHandicapSystem.nineHoleCourseHandicap(index: t("8.7"), slope: 121, rating: t("35.3"), par: 36), 4)
        XCTAssertEqual(WorldHandicapSystem.nineHoleIndex(t("-1.5")), t("-0.7"))
    }

    func testPlayingHandicapAppliesTheAllowanceToTheUnroundedCourseHandicap() {
        // Course Handicap 12.06…: 95% → 11.46 → 11; 85% → 10.25 → 10; 100% → 12.
        XCTAssertEqual(WorldHandicapSystem.playingHandicap(index: t("10.0"), slope: 125, rating: t("73.0"), par: 72, holes: .eighteen, allowancePercent: 95), 11)
        XCTAssertEqual(WorldHandicapSystem.playingHandicap(index: t("10.0"), slope: 125, rating: t("73.0"), par: 72, holes: .eighteen, allowancePercent: 85), 10)
        XCTAssertEqual(WorldHandicapSystem.playingHandicap(index: t("10.0"), slope: 125, rating: t("73.0"), par: 72, holes: .eighteen, allowancePercent: 100), 12)
        // 12.4 × 85% = 10.54 → 11 (rounding the Course Handicap first would give 12 × 85% = 10.2 → 10).
        XCTAssertEqual(WorldHandicapSystem.playingHandicap(index: t("12.4"), slope: 113, rating: t("72.0"), par: 72, holes: .eighteen, allowancePercent: 85), 11)
    }

    // MARK: Strokes and net double bogey

    func testStrokeAllocation() {
        func strokes(_ c: Int, _ n: Int = 18) -> [Int] {
            (1...n).map { WorldHandicapSystem.strokesReceived(courseHandicap: c, rank: $0, holeCount: n) }
        }
        XCTAssertEqual(strokes(12), Array(repeating: 1, count: 12) + Array(repeating: 0, count: 6))
        XCTAssertEqual(strokes(20), [2, 2] + Array(repeating: 1, count: 16))
        XCTAssertEqual(strokes(40), [3, 3, 3, 3] + Array(repeating: 2, count: 14))
        XCTAssertEqual(strokes(0), Array(repeating: 0, count: 18))
        // Plus handicaps give strokes back from stroke index 18 downward.
        XCTAssertEqual(strokes(-3), Array(repeating: 0, count: 15) + [-1, -1, -1])
        XCTAssertEqual(strokes(-20), Array(repeating: -1, count: 16) + [-2, -2])
        XCTAssertEqual(strokes(11, 9), [2, 2] + Array(repeating: 1, count: 7))
        XCTAssertEqual(strokes(-1, 9), Array(repeating: 0, count: 8) + [-1])
        for c in -30...60 { XCTAssertEqual(strokes(c).reduce(0, +), c) }
    }

    func testDomainOracleNetDoubleBogey() {
        let received = WorldHandicapSystem.strokesReceived(courseHandicap: 12, rank: 10, holeCount: 18)
        XCTAssertEqual(WorldHandicapSystem.netDoubleBogey(par: 4, strokesReceived: received), 7)
        // Plus 2 on the stroke index 18 hole gives a stroke back: par 4 + 2 − 1 = 5.
        let back = WorldHandicapSystem.strokesReceived(courseHandicap: -2, rank: 18, holeCount: 18)
        XCTAssertEqual(WorldHandicapSystem.netDoubleBogey(par: 4, strokesReceived: back), 5)
        XCTAssertEqual(WorldHandicapSystem.maximumWithoutIndex(par: 4), 9)
    }

    func testDates() {
        XCTAssertEqual(GolfDate("1970-01-01")?.dayNumber, 0)
        XCTAssertEqual(GolfDate("2024-02-29")?.description, "2024-02-29")
        XCTAssertNil(GolfDate("2023-02-29"))
        XCTAssertNil(GolfDate("2024-13-01"))
        XCTAssertNil(GolfDate("24-01-01"))
        XCTAssertEqual(GolfDate("2025-01-01")!.dayNumber - GolfDate("2024-01-01")!.dayNumber, 366)
        for day in stride(from: -25000, to: 60000, by: 997) {
            let date = GolfDate(dayNumber: day)
            XCTAssertEqual(GolfDate(date.description), date)
        }
    }
}
