// Issue 30, Why 7: all 249 ISO 3166-1 entries can be visited and counted (the 46 that could not
// be entered before: AI AS AW AX BL BM BQ BV CC CK CW CX FO GF GG GI GP GS GU HK HM IM IO JE KY MF
// MO MP MQ MS NF NU PF PM PN RE SH SJ SX TC TK UM VG VI WF YT); achievements follow the
// denominator; "All continents" asks for the 6 inhabited ones; common names and alpha-3 codes
// find or suggest the country; swapped coordinates and a mistyped --user are said.

import ClubhouseJSON
import XCTest
@testable import GlobeCore

final class EveryEntryTests: XCTestCase {
    static let formerlyMissing = """
        AI AS AW AX BL BM BQ BV CC CK CW CX FO GF GG GI GP GS GU HK HM IM IO JE KY MF MO MP MQ MS NF NU PF PM PN RE \
        SH SJ SX TC TK UM VG VI WF YT
        """.split(separator: " ").map(String.init)

    func testEveryISOEntryCanBeVisitedAndEveryCountryReached() throws {
        XCTAssertEqual(Self.formerlyMissing.count, 46)
        let globe = Globe(store: InMemoryGlobeStore(), defaultUser: "ana")
        for code in Self.formerlyMissing {
            XCTAssertEqual(try globe.mark(.init(action: .visit, country: code)).changed, true, code)
        }
        // By name too, the way people type them.
        for (name, code) in [("Hong Kong", "HK"), ("aland islands", "AX"), ("Curacao", "CW"), ("Reunion", "RE"), ("St. Barts", "BL"),
                             ("US Virgin Islands", "VI"), ("Svalbard", "SJ"), ("Macau", "MO"), ("Faroe Islands", "FO")] {
            XCTAssertEqual(try globe.countries.lookup(name).code, code, name)
        }
        var iso = try globe.stats(of: "iso")
        XCTAssertEqual(iso.visited, 46)
        XCTAssertEqual(try globe.stats().visited, 0, "none of them is a UN member or observer")
        XCTAssertEqual(try globe.stats().otherTerritoriesVisited, 46)
        for code in ISO3166.codes { _ = try globe.mark(.init(action: .visit, country: code)) }
        iso = try globe.stats(of: "iso")
        XCTAssertEqual("\(iso.visited)/\(iso.total)", "249/249")
        XCTAssertEqual(iso.achievements.first { $0.id == "every-country" }?.unlocked, true, "Every country can be reached")
        XCTAssertTrue(iso.text.hasPrefix("visited 249 of 249 countries (100.0%)"), iso.text)
        // The shapeless ones are listed and said to count.
        let list = try globe.list(filter: .visited)
        XCTAssertEqual(list.countries.count, 249)
        XCTAssertTrue(list.text.contains("\nHK  Hong Kong                          Asia           visited (not counted) (dot)\n"), list.text)
        XCTAssertTrue(list.text.hasSuffix("\n(dot): no outline at the map's scale, drawn as a dot; it counts like any other\n"
            + "(not counted): not a UN member or observer; globe stats --of iso counts it"), list.text)
        XCTAssertTrue(iso.text.contains("\n73 of the 249 have no outline at the map's scale (drawn as dots); they count all the same\n"), iso.text)
        // A site's own small set (not a world map) is not filled up with the world.
        let two = CountrySet(countries: ["FR", "JP"].compactMap { CountrySet.bundled.country(code: $0) }, source: "two")
        XCTAssertEqual(two.completingISO3166(from: .bundled).countries.count, 2)
    }

    func testAchievementsFollowTheDenominator() throws {
        let globe = Globe(store: InMemoryGlobeStore(), defaultUser: "ana")
        _ = try globe.mark(.init(action: .visit, country: "FR"))
        func goal(_ of: String, _ id: String) throws -> Int? { try globe.stats(of: of).achievements.first { $0.id == id }?.goal }
        // Half of 193, 195 and 249, rounded up (98 for every denominator before).
        XCTAssertEqual(try goal("un", "half-the-world"), 97)
        XCTAssertEqual(try goal("un+observers", "half-the-world"), 98)
        XCTAssertEqual(try goal("iso", "half-the-world"), 125)
        XCTAssertEqual(try goal("iso", "every-country"), 249)
        // Antarctica is a continent of --of iso, not an inhabited one.
        let iso = try globe.stats(of: "iso")
        XCTAssertEqual(iso.continents.map(\.continent).filter { $0 == "Antarctica" }, ["Antarctica"])
        let all = try XCTUnwrap(iso.achievements.first { $0.id == "all-continents" })
        XCTAssertEqual(all.detail, "visit a country on each of the 6 inhabited continents")
        XCTAssertEqual(all.goal, 6)
        XCTAssertTrue(iso.text.contains("[ ] All continents — visit a country on each of the 6 inhabited continents (1/6)"), iso.text)
        XCTAssertTrue(iso.text.contains("[ ] Half the world — visit 125 countries (1/125)"), iso.text)
        XCTAssertEqual(try globe.stats().achievements.first { $0.id == "all-continents" }?.goal, 6)
    }

    func testCommonNamesAndAlpha3Codes() throws {
        let set = CountrySet.bundled
        XCTAssertThrowsError(try set.lookup("Korea")) { error in
            XCTAssertEqual("\(error)", "unknown country 'Korea'; did you mean North Korea or South Korea? use an ISO 3166-1 alpha-2 code or the country's name (globe list shows them)")
        }
        for (code3, name) in [("DEU", "Germany"), ("deu", "Germany"), ("GBR", "United Kingdom"), ("KOR", "South Korea"), ("HKG", "Hong Kong"),
                              ("USA", "United States"), ("CHE", "Switzerland")] {
            XCTAssertEqual(try set.lookup(code3).name, name, code3)
        }
        // ISO 3166-1's own names.
        XCTAssertEqual(try set.lookup("Korea, Republic of").code, "KR")
        XCTAssertEqual(try set.lookup("Russian Federation").code, "RU")
        XCTAssertEqual(try set.lookup("Viet Nam").code, "VN")
        XCTAssertEqual(try set.lookup("Federal Republic of Germany").code, "DE")
        // Three letters one off an alpha-3 code suggest its country, not names two edits away.
        XCTAssertThrowsError(try set.lookup("DEX")) { error in
            XCTAssertEqual("\(error)", "unknown country 'DEX'; did you mean Germany or Mexico? use an ISO 3166-1 alpha-2 code or the country's name (globe list shows them)")
        }
        XCTAssertEqual(set.suggestions(for: "Virgin Islands"), ["British Virgin Islands", "United States Virgin Islands"])
        // Text longer than any name suggests nothing, at once (a 100,000-character argument took minutes).
        XCTAssertEqual(set.suggestions(for: String(repeating: "y", count: 100_000)), [])
        XCTAssertEqual(set.suggestions(for: String(repeating: "Virgin Islands ", count: 7)), [], "105 letters")
        // A guess is still a name: alpha-3 codes are not answers.
        let state = ChallengeState(ScheduledChallenge(date: CivilDate(year: 2026, month: 3, day: 1)!, type: .flag, answer: "DE"))
        let today = CivilDate(year: 2026, month: 3, day: 1)!
        XCTAssertEqual(try DailyChallenge.guess("DEU", state: state, country: try set.lookup("DE"), today: today).outcome, .wrong)
    }

    func testSwappedLatitudeAndLongitudeAreSaid() throws {
        let locator = CountryLocator(countries: .bundled)
        // Paris typed the other way round: valid numbers, open sea off Somalia.
        let paris = try locator.locate(lat: 2.35, lon: 48.86)
        XCTAssertNil(paris.code)
        XCTAssertEqual(paris.warning, "no country at --lat 2.35 --lon 48.86, but --lat 48.86 --lon 2.35 is in France (FR); were latitude and longitude swapped? --lat is degrees north, --lon degrees east")
        XCTAssertTrue(paris.text.hasPrefix("2.35, 48.86 is in no country within 25.0 km; nearest is Somalia (SO), "), paris.text)
        XCTAssertTrue(paris.text.hasSuffix("\nwarning: " + (paris.warning ?? "")), paris.text)
        // Sydney the other way round: the latitude is out of range, and the swapped pair is named.
        XCTAssertThrowsError(try locator.locate(lat: 151.21, lon: -33.87)) { error in
            XCTAssertEqual("\(error)", "latitude 151.21 is outside [-90, 90]; were latitude and longitude swapped? (lat -33.87 lon 151.21 is in Australia) lat is degrees north, lon degrees east")
            // The core names the fields; the command line's adapter names them as flags.
            XCTAssertEqual((error as? GlobeError)?.message(naming: { "--" + $0 }),
                           "latitude 151.21 is outside [-90, 90]; were latitude and longitude swapped? (--lat -33.87 --lon 151.21 is in Australia) --lat is degrees north, --lon degrees east")
        }
        // Both orders on land: either may be meant, nothing is said; the right order says nothing either.
        XCTAssertNil(try locator.locate(lat: 30, lon: 31).warning, "Cairo / the Arctic Ocean off Russia")
        XCTAssertNil(try locator.locate(lat: 48.86, lon: 2.35).warning)
        XCTAssertNil(try locator.locate(lat: 0, lon: -30).warning, "open sea both ways")
        XCTAssertThrowsError(try locator.locate(lat: 95, lon: 120)) { error in
            XCTAssertEqual("\(error)", "lat: latitude 95.0 is outside [-90, 90]; give degrees north as a number, e.g. 48.86")
        }
    }

    func testAMistypedUserIsSaidNotShownEmpty() throws {
        let globe = Globe(store: InMemoryGlobeStore(), defaultUser: "traveller")
        // Nobody has marked anything yet: a new user reads as empty.
        XCTAssertEqual(try globe.stats(user: "ana").visited, 0)
        _ = try globe.mark(.init(user: "ana", action: .visit, country: "FR"))
        _ = try globe.mark(.init(user: "bruno", action: .wish, country: "JP"))
        XCTAssertThrowsError(try globe.map(user: "anna")) { error in
            XCTAssertEqual("\(error)", "no user 'anna' has marked anything; did you mean ana? known users: ana, bruno (a user appears with a first visit, wish or challenge guess)")
        }
        for read in [{ _ = try globe.stats(user: "Ana") }, { _ = try globe.list(user: "brno") }, { _ = try globe.mesh(user: "x", fileName: "g.obj") }] {
            XCTAssertThrowsError(try read())
        }
        XCTAssertThrowsError(try globe.list(user: "brno")) { error in
            XCTAssertEqual("\(error)", "no user 'brno' has marked anything; did you mean bruno? known users: ana, bruno (a user appears with a first visit, wish or challenge guess)")
        }
        // The default user, and writes for a new user, are not refused.
        XCTAssertEqual(try globe.stats().visited, 0)
        XCTAssertEqual(try globe.mark(.init(user: "carla", action: .visit, country: "PT")).changed, true)
        XCTAssertEqual(try globe.stats(user: "carla").visited, 1)
    }

    /// The README tour guesses a fixed past day, playable whatever today is (a past challenge stays
    /// open), so the tour works any day. This pins the generated schedule's answer for that day.
    func testTheTourChallengeDay() throws {
        let globe = Globe(store: InMemoryGlobeStore(), defaultUser: "me")
        let today = CivilDate(year: 2026, month: 11, day: 26)!
        let day = try globe.schedule.challenge(on: CivilDate(parsing: Self.tourChallengeDate))
        XCTAssertEqual(day.answer, "PT")
        XCTAssertEqual(day.type, .country)
        let result = try globe.challengeGuess(guess: "Portugal", date: Self.tourChallengeDate, today: today)
        XCTAssertEqual(result.text, "correct: Portugal, solved in 1 guess")
    }

    static let tourChallengeDate = "2026-02-27"
}
