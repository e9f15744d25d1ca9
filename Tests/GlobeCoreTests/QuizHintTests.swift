import XCTest
@testable import GlobeCore

final class QuizHintTests: XCTestCase {
    let countries = CountrySet.bundled
    let today = CivilDate(year: 2026, month: 11, day: 22)!

    func globe() throws -> Globe {
        let schedule = try ChallengeSchedule(json: """
            {"challenges": [
              {"date": "2026-11-20", "type": "country", "answer": "IT"},
              {"date": "2026-11-21", "type": "capital", "answer": "PE"}]}
            """, source: "test schedule", countries: countries)
        return Globe(countries: countries, schedule: schedule, store: InMemoryGlobeStore(), defaultUser: "ana")
    }

    private func country(_ code: String) throws -> Country { try XCTUnwrap(countries.country(code: code)) }

    func testNeighboursAreZeroApart() throws {
        XCTAssertEqual(QuizHint.borderDistanceKm(try country("FR"), try country("ES")), 0)
        XCTAssertEqual(QuizHint.borderDistanceKm(try country("PE"), try country("CL")), 0)
        // Lesotho lies inside South Africa's hole: they share its whole border.
        XCTAssertEqual(QuizHint.borderDistanceKm(try country("LS"), try country("ZA")), 0, accuracy: 1)
    }

    func testDistanceIsBorderToBorderNotCentreToCentre() throws {
        let pt = try country("PT"), it = try country("IT")
        let km = QuizHint.borderDistanceKm(pt, it)
        // Portugal's eastern border to the French–Italian border near Nice, across Spain.
        XCTAssertGreaterThan(km, 1000)
        XCTAssertLessThan(km, 1400)
        let centres = Spherical.distanceKm(QuizHint.centre(of: pt), QuizHint.centre(of: it))
        XCTAssertLessThan(km, centres - 300, "border to border is well short of centre to centre")
        // No pair of vertices is closer than the border distance (vertex-to-edge is the finer one).
        var closest = Double.infinity
        for a in pt.polygons.flatMap(\.rings).joined() {
            for b in it.polygons.flatMap(\.rings).joined() { closest = min(closest, Spherical.distanceKm(a, b)) }
        }
        XCTAssertLessThanOrEqual(km, closest + 1e-6)
        XCTAssertGreaterThan(km, closest - 100)
        // Symmetric.
        XCTAssertEqual(QuizHint.borderDistanceKm(it, pt), km, accuracy: 1e-6)
    }

    func testCompassPoints() {
        XCTAssertEqual(QuizHint.compass(0), "N")
        XCTAssertEqual(QuizHint.compass(22.4), "N")
        XCTAssertEqual(QuizHint.compass(22.6), "NE")
        XCTAssertEqual(QuizHint.compass(90), "E")
        XCTAssertEqual(QuizHint.compass(181), "S")
        XCTAssertEqual(QuizHint.compass(250), "W")
        XCTAssertEqual(QuizHint.compass(337.4), "NW")
        XCTAssertEqual(QuizHint.compass(359.9), "N")
        XCTAssertEqual(QuizHint.initialBearing(LonLat(lon: 0, lat: 0), LonLat(lon: 10, lat: 0)), 90, accuracy: 1e-9)
        XCTAssertEqual(QuizHint.initialBearing(LonLat(lon: 0, lat: 0), LonLat(lon: 0, lat: -10)), 180, accuracy: 1e-9)
    }

    func testAWrongGuessGetsDistanceAndDirection() throws {
        let g = try globe()
        let r = try g.challengeGuess(guess: "Portugal", date: "2026-11-20", today: today)
        let hint = try XCTUnwrap(r.hint)
        XCTAssertEqual(hint.guessedCode, "PT")
        XCTAssertEqual(hint.direction, "E")
        XCTAssertEqual(hint.distanceKm, Int(QuizHint.borderDistanceKm(try country("PT"), try country("IT")).rounded()))
        XCTAssertEqual(r.text, "'Portugal' is wrong; 4 attempts left; the answer is \(QuizHint.grouped(hint.distanceKm)) km from Portugal, to the E →")
        // Japan to Italy: far, and to the west (north-west on the great circle).
        let japan = try XCTUnwrap(try g.challengeGuess(guess: "Japan", date: "2026-11-20", today: today).hint)
        XCTAssertGreaterThan(japan.distanceKm, 8000)
        XCTAssertEqual(japan.direction, "NW")
        // Neighbours.
        let france = try XCTUnwrap(try g.challengeGuess(guess: "france", date: "2026-11-20", today: today).hint)
        XCTAssertEqual(france.distanceKm, 0)
        XCTAssertTrue(france.text.hasPrefix("France borders the answer, which lies"), france.text)
    }

    func testNoHintWithoutACountryOrOnceOver() throws {
        let g = try globe()
        XCTAssertNil(try g.challengeGuess(guess: "Atlantis", date: "2026-11-20", today: today).hint)
        XCTAssertEqual(try g.challengeGuess(guess: "Atlantis again", date: "2026-11-20", today: today).text,
                       "'Atlantis again' is wrong; 3 attempts left")
        XCTAssertNil(try g.challengeGuess(guess: "Italy", date: "2026-11-20", today: today).hint, "solved: no hint")
    }

    func testCapitalChallengesTakeCapitalsForHints() throws {
        let g = try globe()
        let r = try g.challengeGuess(guess: "Santiago", date: "2026-11-21", today: today)
        XCTAssertEqual(r.outcome, .wrong)
        XCTAssertEqual(r.hint?.guessedCode, "CL")
        XCTAssertEqual(r.hint?.distanceKm, 0)
        XCTAssertEqual(r.hint?.direction, "N", "Peru lies north of Chile")
        let quito = try XCTUnwrap(try g.challengeGuess(guess: "Quito", date: "2026-11-21", today: today).hint)
        XCTAssertEqual(quito.guessedCode, "EC")
        XCTAssertEqual(quito.direction, "SE", "Peru's centre lies south-south-east of Ecuador's")
    }
}
