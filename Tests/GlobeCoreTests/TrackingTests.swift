import Foundation
import XCTest
@testable import GlobeCore

final class TrackingTests: XCTestCase {
    let countries = CountrySet.bundled
    let highlights = HighlightsCatalog.bundled

    func testVisitAndWishlistRules() throws {
        var log = TravelLog()
        XCTAssertEqual(try log.wish("Japan", in: countries).text, "Japan (JP) added to the wishlist")
        XCTAssertEqual(try log.wish("jp", in: countries).text, "Japan (JP) already on the wishlist")
        let visit = try log.visit("JP", in: countries)
        XCTAssertEqual(visit.text, "Japan (JP) marked visited (removed from the wishlist)")
        XCTAssertEqual(log.visited, ["JP"])
        XCTAssertEqual(log.wishlist, [])
        XCTAssertFalse(try log.visit("Japan", in: countries).changed)
        XCTAssertThrowsError(try log.wish("JP", in: countries)) { error in
            XCTAssertEqual("\(error)", "Japan (JP) is already visited; unvisit it first to put it on the wishlist")
        }
        XCTAssertEqual(try log.unvisit("JP", in: countries).text, "Japan (JP) no longer visited")
        XCTAssertEqual(try log.unvisit("JP", in: countries).text, "Japan (JP) was not visited")
        XCTAssertEqual(try log.unwish("JP", in: countries).text, "Japan (JP) was not on the wishlist")
        XCTAssertThrowsError(try log.visit("Atlantis", in: countries))
    }

    func testCheckingPlaces() throws {
        var log = TravelLog()
        let result = try log.check("paris", kind: .city, of: "FR", in: countries, highlights: highlights)
        XCTAssertEqual(result.text, "France (FR) checked (Paris; France marked visited)")
        XCTAssertEqual(log.visited, ["FR"])
        XCTAssertEqual(log.cities["FR"], ["Paris"])
        // A capital is a city of every country, highlights or not.
        try log.check("N'Djamena", kind: .city, of: "Chad", in: countries, highlights: highlights)
        XCTAssertEqual(log.cities["TD"], ["N'Djamena"])
        XCTAssertThrowsError(try log.check("Gotham", kind: .city, of: "FR", in: countries, highlights: highlights)) { error in
            XCTAssertEqual("\(error)", "'Gotham' is not a city of France (FR); known: Paris, Lyon, Marseille, Nice, Bordeaux")
        }
        XCTAssertThrowsError(try log.check("Louvre", kind: .attraction, of: "TD", in: countries, highlights: highlights)) { error in
            XCTAssertEqual("\(error)", "'Louvre' is not an attraction of Chad (TD); none are listed")
        }
        try log.check("Eiffel Tower", kind: .attraction, of: "FR", in: countries, highlights: highlights)
        XCTAssertEqual(try log.unvisit("FR", in: countries).note, "2 checked places unchecked")
        XCTAssertNil(log.cities["FR"])
        XCTAssertNil(log.attractions["FR"])
    }

    func testChangesReplayOntoAStore() throws {
        var log = TravelLog()
        try log.visit("FR", in: countries)
        try log.wish("PE", in: countries)
        try log.check("Rome", kind: .city, of: "IT", in: countries, highlights: highlights)
        let old = log
        try log.unvisit("FR", in: countries)
        try log.visit("PE", in: countries)
        try log.check("Colosseum", kind: .attraction, of: "IT", in: countries, highlights: highlights)
        let changes = log.changes(from: old)
        XCTAssertEqual(changes, [.mark(code: "PE", kind: .visited, on: true), .mark(code: "FR", kind: .visited, on: false),
                                 .mark(code: "PE", kind: .wishlist, on: false),
                                 .place(code: "IT", kind: .attraction, item: "Colosseum", on: true)])
        var replayed = old
        for c in changes { replayed.apply(c) }
        XCTAssertEqual(replayed, log)
        let json = try JSONEncoder().encode(log)
        XCTAssertEqual(try JSONDecoder().decode(TravelLog.self, from: json), log)
    }

    func testStatsCountThe195AndContinents() throws {
        var log = TravelLog()
        for code in ["FR", "IT", "GL", "TW", "JP", "PE"] { try log.visit(code, in: countries) }
        try log.wish("NZ", in: countries)
        let stats = TravelStats(log: log, countries: countries)
        XCTAssertEqual(stats.total, 195)
        XCTAssertEqual(stats.visited, 4, "Greenland and Taiwan are not counted")
        XCTAssertEqual(stats.otherTerritoriesVisited, 2)
        XCTAssertEqual(stats.percent, 2.1)
        XCTAssertEqual(stats.wishlist, 1)
        XCTAssertEqual(stats.continents.map(\.continent), ["Africa", "Asia", "Europe", "North America", "Oceania", "South America"])
        XCTAssertEqual(stats.continents.reduce(0) { $0 + $1.total }, 195)
        XCTAssertEqual(stats.continents.first { $0.continent == "Europe" }?.visited, 2)
        let unlocked = Set(stats.achievements.filter(\.unlocked).map(\.id))
        XCTAssertEqual(unlocked, ["first-steps"])
        XCTAssertTrue(stats.text.hasPrefix("visited 4 of 195 countries (2.1%), plus 2 other territories; wishlist 1"), stats.text)
    }

    func testAchievementsFollowFromTheData() throws {
        var log = TravelLog()
        for c in countries.progressCountries where c.continent == "South America" { try log.visit(c.code, in: countries) }
        let capitals = ["FR", "IT", "ES", "DE", "GB", "JP", "PE", "AR", "BR", "CL"]
        for code in capitals {
            let capital = try XCTUnwrap(countries.country(code: code)?.capital)
            try log.check(capital, kind: .city, of: code, in: countries, highlights: highlights)
        }
        var stats = TravelStats(log: log, countries: countries)
        let byID = Dictionary(uniqueKeysWithValues: stats.achievements.map { ($0.id, $0) })
        XCTAssertEqual(byID["continent-south-america"]?.unlocked, true)
        XCTAssertEqual(byID["continent-europe"]?.unlocked, false)
        XCTAssertEqual(byID["capital-collector"]?.unlocked, true)
        XCTAssertEqual(stats.capitalsChecked, 10)
        XCTAssertEqual(byID["explorer"]?.unlocked, true)
        XCTAssertEqual(byID["all-continents"]?.progress, 3)

        for c in countries.countries { try log.visit(c.code, in: countries) }
        stats = TravelStats(log: log, countries: countries)
        XCTAssertEqual(stats.visited, 195)
        XCTAssertEqual(stats.percent, 100)
        XCTAssertTrue(stats.achievements.allSatisfy(\.unlocked))
    }

    func testVoyageWorldProgressCountsAgainst195() throws {
        let world = try CountrySet(geojson: try SharedData.text(SharedData.voyageWorld), source: "world.geojson")
        var log = TravelLog()
        for c in world.countries { try log.visit(c.code, in: world) }
        let stats = TravelStats(log: log, countries: world)
        XCTAssertEqual(stats.total, 195)
        XCTAssertEqual(stats.visited, 195)
        XCTAssertEqual(stats.otherTerritoriesVisited, 11)
    }

    func testHighlightsFileReading() throws {
        let catalog = try HighlightsCatalog(json: try SharedData.text(SharedData.voyageHighlights), source: "country_highlights.json")
        XCTAssertEqual(catalog.byCode.count, 206)
        XCTAssertTrue(catalog.byCode.values.allSatisfy { (1...5).contains($0.cities.count) })
        let bad: [(String, String)] = [
            ("[]", "h.json:1:1: highlights must be an object keyed by ISO alpha-2 code, e.g. {\"FR\": {\"cities\": [...], \"attractions\": [...]}}"),
            ("{\"fr\": {}}", "h.json:1:8: highlight key \"fr\" is not an upper-case ISO alpha-2 code"),
            ("{\"FR\": {\"cities\": \"Paris\"}}", "h.json:1:19: \"cities\" of FR must be an array of strings"),
            ("{\"FR\": {\"cities\": [\"\"]}}", "h.json:1:20: \"cities\" of FR must hold non-empty strings"),
            ("{\"FR\": 3}", "h.json:1:8: highlights of FR must be an object with \"cities\" and \"attractions\" arrays"),
            ("{\"FR\": ", "h.json:1:8: malformed JSON: unexpected end of input; expected a value"),
        ]
        for (text, message) in bad {
            XCTAssertThrowsError(try HighlightsCatalog(json: text, source: "h.json"), text) { error in
                XCTAssertEqual("\(error)", message)
            }
        }
    }
}
