import XCTest
import ClubhouseJSON
@testable import ScorecardCore

/// The pure calculators behind `scorecard differential`, `index-from`, `course-handicap` and `strokes`:
/// the domain page's oracles through the request types, their stable JSON, and every argument error.
final class CalculatorTests: XCTestCase {
    private func t(_ text: String) -> Tenths { Tenths.parse(text)! }

    // MARK: differential

    func testDifferentialOracleAndJSON() throws {
        let result = try Calculators.differential(DifferentialRequest(ags: 94, rating: "73.0", slope: 125))
        XCTAssertEqual(result.differential, t("19.0"))
        XCTAssertEqual(JSONWriter.compact(ScorecardJSON.value(result)),
                       #"{"holes":18,"adjustedGrossScore":94,"courseRating":73.0,"slopeRating":125,"pcc":0.0,"index":null,"#
                       + #""nineHoleDifferential":null,"expectedDifferential":null,"unroundedDifferential":"18.984","differential":19.0}"#)
        XCTAssertEqual(result.text, "Score Differential 19.0  (113 / 125 × (94 − 73.0 − 0.0) = 18.984)")
        XCTAssertEqual(try Calculators.differential(DifferentialRequest(ags: 67, rating: "73.5", slope: 130)).differential, t("-5.6"))
        XCTAssertEqual(try Calculators.differential(DifferentialRequest(ags: 67, rating: "73.5", slope: 130, pcc: "-1")).text,
                       "Score Differential -4.8  (113 / 130 × (67 − 73.5 + 1.0) = -4.7807)")
        XCTAssertEqual(try Calculators.differential(DifferentialRequest(ags: 85, rating: "72", slope: 113, pcc: "+2")).differential, t("11.0"))
    }

    func testNineHoleDifferential() throws {
        let result = try Calculators.differential(DifferentialRequest(ags: 42, rating: "35.3", slope: 121, holes: 9, index: "8.7"))
        XCTAssertEqual(result.differential, t("12.0"))
        XCTAssertEqual(result.expectedDifferential, "5.724")
        XCTAssertEqual(result.nineHoleDifferential, "6.257")   // 6.2570247… shown to four decimals
        XCTAssertEqual(result.text, "9-hole differential 6.257 + expected 5.724 for index 8.7 = 18-hole Score Differential 12.0")
    }

    func testDifferentialErrors() {
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 400, rating: "73.0", slope: 125)) },
                       "--ags 400 is outside 18–360")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 94, rating: "73.05", slope: 125)) },
                       "--rating '73.05' is not a decimal with at most one digit after the point")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 94, rating: "73.0", slope: 160)) },
                       "--slope 160 is outside 55–155")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 94, rating: "73.0", slope: 125, pcc: "4")) },
                       "--pcc 4.0 is outside -1.0–3.0")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 94, rating: "73.0", slope: 125, pcc: "0.5")) },
                       "--pcc '0.5' is not a whole number from -1 to +3 (Rule 5.6)")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 94, rating: "130.0", slope: 125)) },
                       "--rating 130.0 is outside 44.0–118.0 for 18 holes")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 42, rating: "35.3", slope: 121, holes: 9)) },
                       "--index (the expected score of a 9-hole round needs the Handicap Index) is required")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 42, rating: "35.3", slope: 121, holes: 9, index: "60")) },
                       "--index 60.0 is outside -10.0–54.0")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 94, rating: "73.0", slope: 125, index: "8.7")) },
                       "--index '8.7' is not used with 18 holes (the index is only needed for the expected score of --holes 9)")
        XCTAssertEqual(message { _ = try Calculators.differential(DifferentialRequest(ags: 94, rating: "73.0", slope: 125, holes: 27)) },
                       "--holes 27 is not possible — a round is 9 or 18 holes")
    }

    // MARK: index-from

    func testIndexFromOracles() throws {
        let three = try Calculators.indexFrom(IndexFromRequest(differentials: ["15.3", "15.2", "16.6"]))
        XCTAssertEqual(three.index, t("13.2"))
        XCTAssertEqual(three.counted, [t("15.2")])
        XCTAssertEqual(three.countedPositions, [2])
        XCTAssertEqual(three.adjustment, t("-2.0"))
        XCTAssertEqual(three.text, "Handicap Index 13.2\nlowest 1 of the most recent 3: 15.2, adjustment -2.0 → 13.2")

        let twenty = Array(repeating: "11.6", count: 8) + Array(repeating: "30.0", count: 12)
        let capped = try Calculators.indexFrom(IndexFromRequest(differentials: twenty, lowIndex: "6.5"))
        XCTAssertEqual(capped.index, t("10.6"))
        XCTAssertEqual(capped.calculated, t("11.6"))
        XCTAssertTrue(capped.softCapApplied)
        XCTAssertTrue(capped.text.contains("soft cap"), capped.text)
        let json = JSONWriter.compact(ScorecardJSON.value(capped))
        XCTAssertTrue(json.hasPrefix(#"{"index":10.6,"differentials":20,"considered":20,"used":8,"adjustment":0.0,"average":11.6,"calculated":11.6,"#), json)
        XCTAssertTrue(json.contains(#""lowIndex":6.5,"softCapApplied":true,"hardCapApplied":false,"maximumApplied":false,"note":null}"#), json)

        let plus = try Calculators.indexFrom(IndexFromRequest(differentials: ["-1.5", "-1.6", "3", "4", "5", "6", "7"]))
        XCTAssertEqual(plus.index, t("-1.5"))
        XCTAssertTrue(plus.text.hasPrefix("Handicap Index +1.5"))
    }

    /// Issue 30: index-from applies Rule 5.9 as the round-based record does. The index in force is 14.8
    /// (twenty differentials of 14.8); a new differential 8.0 below it takes 1.0 off the most recent 20
    /// (12.8, not 13.8), one 10.1 below takes 2.0 (11.5, not 13.5); 6.9 below is not exceptional.
    func testIndexFromAppliesTheExceptionalScoreReduction() throws {
        let twenty = Array(repeating: "14.8", count: 20)
        let eight = try Calculators.indexFrom(IndexFromRequest(differentials: twenty + ["6.8"]))
        XCTAssertEqual(eight.index, t("12.8"))
        XCTAssertEqual(eight.exceptional, [ExceptionalScore(position: 21, differential: t("6.8"), indexInForce: t("14.8"), reduction: t("1.0"))])
        XCTAssertEqual(eight.counted.first, t("5.8"))
        XCTAssertTrue(eight.text.contains("exceptional score (Rule 5.9): differential 21 (6.8) is 8.0 below the index in force 14.8: "
                                          + "−1.0 on it and the 19 before it"), eight.text)
        let ten = try Calculators.indexFrom(IndexFromRequest(differentials: twenty + ["4.7"]))
        XCTAssertEqual(ten.index, t("11.5"))
        XCTAssertEqual(ten.exceptional.map(\.reduction), [t("2.0")])
        let notExceptional = try Calculators.indexFrom(IndexFromRequest(differentials: twenty + ["7.9"]))
        XCTAssertEqual(notExceptional.index, t("13.9"))
        XCTAssertEqual(notExceptional.exceptional, [])
        let json = JSONWriter.compact(ScorecardJSON.value(eight))
        XCTAssertTrue(json.contains(#""exceptional":[{"position":21,"differential":6.8,"indexInForce":14.8,"reduction":1.0}]"#), json)
        // The same score in a round-based record gives the same index.
        XCTAssertEqual(eight.index, t("12.8"))
    }

    func testIndexFromNotes() throws {
        let two = try Calculators.indexFrom(IndexFromRequest(differentials: ["12.0", "13.0"]))
        XCTAssertNil(two.index)
        XCTAssertEqual(two.text, "no Handicap Index: 2 differentials; at least 3 are needed")
        XCTAssertEqual(JSONWriter.compact(ScorecardJSON.value(two)).prefix(11), #"{"index":nu"#)
        let few = try Calculators.indexFrom(IndexFromRequest(differentials: ["20", "20", "20", "20", "20"], lowIndex: "10.0"))
        XCTAssertEqual(few.index, t("20.0"))
        XCTAssertEqual(few.note, "caps not applied: the Low Handicap Index limits an index only once 20 differentials exist")
        let many = try Calculators.indexFrom(IndexFromRequest(differentials: (1...25).map { "\($0)" }))
        XCTAssertEqual(many.note, "only the most recent 20 of the 25 differentials are considered")
        XCTAssertEqual(many.index, t("9.5"))   // 6…13 → 9.5
        XCTAssertEqual(many.countedPositions, Array(6...13))
    }

    func testIndexFromErrors() {
        XCTAssertEqual(message { _ = try Calculators.indexFrom(IndexFromRequest(differentials: [""])) },
                       "--differentials d1,d2,… (at least one) is required")
        XCTAssertEqual(message { _ = try Calculators.indexFrom(IndexFromRequest(differentials: ["12.0", "", "13.0"])) },
                       "differential 2 of --differentials '' is not a decimal with at most one digit after the point")
        XCTAssertEqual(message { _ = try Calculators.indexFrom(IndexFromRequest(differentials: ["12.0", "abc"])) },
                       "differential 2 of --differentials 'abc' is not a decimal with at most one digit after the point")
        XCTAssertEqual(message { _ = try Calculators.indexFrom(IndexFromRequest(differentials: ["12.0"], lowIndex: "x")) },
                       "--low-index 'x' is not a decimal with at most one digit after the point")
    }

    // MARK: course-handicap

    func testCourseHandicapOracles() throws {
        let nine = try Calculators.courseHandicap(CourseHandicapRequest(index: "8.7", slope: 121, rating: "35.3", par: 36, holes: 9))
        XCTAssertEqual(nine.courseHandicap, 4)
        XCTAssertEqual(nine.nineHoleIndex, t("4.4"))
        XCTAssertEqual(nine.text, "9-hole Course Handicap 4  (index/2 = 4.4 → 4.4 × 121/113 + (35.3 − 36) = 4.0115)")
        let eighteen = try Calculators.courseHandicap(CourseHandicapRequest(index: "10.0", slope: 125, rating: "73.0", par: 72, allowance: "95"))
        XCTAssertEqual(eighteen.courseHandicap, 12)
        XCTAssertEqual(eighteen.playingHandicap, 11)
        XCTAssertEqual(JSONWriter.compact(ScorecardJSON.value(eighteen)),
                       #"{"holes":18,"index":10.0,"nineHoleIndex":null,"slopeRating":125,"courseRating":73.0,"par":72,"#
                       + #""unroundedCourseHandicap":"12.0619","courseHandicap":12,"allowance":95,"playingHandicap":11}"#)
        XCTAssertEqual(eighteen.text, "Course Handicap 12  (10.0 × 125/113 + (73.0 − 72) = 12.0619)\nPlaying Handicap 11 at 95%")
        let plus = try Calculators.courseHandicap(CourseHandicapRequest(index: "+2.5", slope: 113, rating: "72.0", par: 72))
        XCTAssertEqual(plus.courseHandicap, -2)
        XCTAssertTrue(plus.text.hasPrefix("Course Handicap +2"))
        XCTAssertEqual(try Calculators.courseHandicap(CourseHandicapRequest(index: "12.4", slope: 113, rating: "72", par: 72, allowance: "85%")).playingHandicap, 11)
    }

    func testCourseHandicapErrors() {
        XCTAssertEqual(message { _ = try Calculators.courseHandicap(CourseHandicapRequest(index: "8.7", slope: 50, rating: "35.3", par: 36, holes: 9)) },
                       "--slope 50 is outside 55–155")
        XCTAssertEqual(message { _ = try Calculators.courseHandicap(CourseHandicapRequest(index: "8.7", slope: 121, rating: "45.3", par: 36, holes: 9)) },
                       "course rating 45.3 is implausible for par 36 over 9 holes (expected 31.0–41.0) — check the rating and the pars")
        XCTAssertEqual(message { _ = try Calculators.courseHandicap(CourseHandicapRequest(index: "8.7", slope: 121, rating: "35.3", par: 60, holes: 9)) },
                       "--par 60 is outside 27–54")
        XCTAssertEqual(message { _ = try Calculators.courseHandicap(CourseHandicapRequest(index: "8.7", slope: 121, rating: "72", par: 72, allowance: "120")) },
                       "--allowance 120 is outside 1–100")
        XCTAssertEqual(message { _ = try Calculators.courseHandicap(CourseHandicapRequest(index: "8.75", slope: 121, rating: "72", par: 72)) },
                       "--index '8.75' is not a decimal with at most one digit after the point")
    }

    // MARK: strokes

    func testStrokes() throws {
        let heron = SampleData.courses[0].tees[0].holes.map(\.strokeIndex)
        let twelve = try Calculators.strokes(StrokesRequest(courseHandicap: "12", strokeIndexes: heron.map(String.init)))
        XCTAssertEqual(twelve.strokes, heron.map { $0 <= 12 ? 1 : 0 })
        XCTAssertEqual(twelve.total, 12)
        XCTAssertEqual(JSONWriter.compact(ScorecardJSON.value(try Calculators.strokes(StrokesRequest(courseHandicap: "+2", strokeIndexes: ["1", "2", "3", "4", "5", "6", "7", "8", "9"])))),
                       #"{"courseHandicap":-2,"holes":9,"strokeIndexes":[1,2,3,4,5,6,7,8,9],"strokes":[0,0,0,0,0,0,0,-1,-1],"total":-2}"#)
        // Nine holes of an 18-hole card (the front nine's odd indexes) allocate in their order.
        let front = try Calculators.strokes(StrokesRequest(courseHandicap: "4", strokeIndexes: ["9", "3", "17", "1", "5", "13", "11", "7", "15"]))
        XCTAssertEqual(front.strokes, [0, 1, 0, 1, 1, 0, 0, 1, 0])
        XCTAssertTrue(front.text.contains("strokes    ·   1   ·   1   1   ·   ·   1   ·"), front.text)
    }

    func testStrokesErrors() {
        let augusta = [9, 1, 13, 15, 5, 17, 11, 3, 7, 6, 8, 16, 4, 12, 2, 18, 4, 10].map(String.init)
        XCTAssertEqual(message { _ = try Calculators.strokes(StrokesRequest(courseHandicap: "10", strokeIndexes: augusta)) },
                       "invalid stroke indexes: stroke index 4 is on holes 13 and 17, stroke index 14 is missing — give 9 or 18 indexes, each of 1–18 exactly once")
        XCTAssertEqual(message { _ = try Calculators.strokes(StrokesRequest(courseHandicap: "10", strokeIndexes: ["1", "2", "3"])) },
                       "--stroke-indexes '1,2,3' is not a list of 9 or 18 stroke indexes (found 3)")
        XCTAssertEqual(message { _ = try Calculators.strokes(StrokesRequest(courseHandicap: "10", strokeIndexes: ["1", "2", "3", "4", "5", "6", "7", "8", "x"])) },
                       "stroke index 9 of --stroke-indexes 'x' is not a whole number")
        XCTAssertEqual(message { _ = try Calculators.strokes(StrokesRequest(courseHandicap: "ten", strokeIndexes: ["1", "2", "3", "4", "5", "6", "7", "8", "9"])) },
                       "--course-handicap 'ten' is not a whole number")
        XCTAssertEqual(message { _ = try Calculators.strokes(StrokesRequest(courseHandicap: "10", strokeIndexes: ["1", "2", "3", "4", "5", "6", "7", "8", "20"])) },
                       "invalid stroke indexes: stroke index 9 is missing, stroke index 20 is out of range — give 9 or 18 indexes, each of 1–9 exactly once")
    }
}
