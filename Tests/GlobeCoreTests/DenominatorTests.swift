import ClubhouseJSON
import XCTest
@testable import GlobeCore

final class DenominatorTests: XCTestCase {
    private func globe(visiting codes: [String], denominator: Denominator = .default) throws -> Globe {
        let globe = Globe(store: InMemoryGlobeStore(), defaultUser: "ana", defaultDenominator: denominator)
        for code in codes { _ = try globe.mark(.init(action: .visit, country: code)) }
        return globe
    }

    func testTheThreeTotals() throws {
        // France, the Holy See (observer), Greenland (ISO only), Kosovo (none of the three).
        let globe = try globe(visiting: ["FR", "VA", "GL", "XK"])
        let un = try globe.stats(of: "un"), observers = try globe.stats(of: "un+observers"), iso = try globe.stats(of: "iso")
        XCTAssertEqual([un.total, observers.total, iso.total], [193, 195, 249])
        XCTAssertEqual([un.visited, observers.visited, iso.visited], [1, 2, 3])
        XCTAssertEqual([un.otherTerritoriesVisited, observers.otherTerritoriesVisited, iso.otherTerritoriesVisited], [3, 2, 1])
        XCTAssertEqual(try globe.stats().total, 195, "the default stays 195")
        XCTAssertEqual(try globe.stats().denominator, "un+observers")
        XCTAssertEqual(iso.percent, 1.2)
    }

    func testContinentTotalsFollowTheDenominator() throws {
        let globe = try globe(visiting: ["VA", "PS", "AQ", "TW"])
        func totals(_ of: String) throws -> [String: Int] {
            Dictionary(uniqueKeysWithValues: try globe.stats(of: of).continents.map { ($0.continent, $0.total) })
        }
        let un = try totals("un"), observers = try totals("un+observers"), iso = try totals("iso")
        XCTAssertEqual(un.values.reduce(0, +), 193)
        XCTAssertEqual(observers.values.reduce(0, +), 195)
        XCTAssertEqual(iso.values.reduce(0, +), 249)
        XCTAssertEqual(observers["Europe"].map { $0 - 1 }, un["Europe"], "the Holy See")
        XCTAssertEqual(observers["Asia"].map { $0 - 1 }, un["Asia"], "Palestine")
        XCTAssertNil(un["Antarctica"])
        XCTAssertEqual(iso["Antarctica"], 5, "AQ, TF, BV, GS, HM")
        XCTAssertEqual(un.values.reduce(0, +), 193)
        // Visits per continent follow too: Palestine and Taiwan count in ISO's Asia, neither in the UN's.
        let asia = try globe.stats(of: "iso").continents.first { $0.continent == "Asia" }
        XCTAssertEqual(asia?.visited, 2)
        XCTAssertEqual(try globe.stats(of: "un").continents.first { $0.continent == "Asia" }?.visited, 0)
    }

    func testTheOutputSaysWhatItCounts() throws {
        let globe = try globe(visiting: ["FR"])
        let lines = try globe.stats().text.split(separator: "\n")
        XCTAssertEqual(lines[0], "visited 1 of 195 countries (0.5%); wishlist 0")
        XCTAssertEqual(lines[1], "counted against: 195 UN member states and observers (--of un+observers; also un, iso)")
        XCTAssertTrue(try globe.stats(of: "iso").text.contains("counted against: 249 ISO 3166-1 entries (--of iso; also un, un+observers)"))
        let json = try JSONValueEncoder().encode(try globe.stats(of: "un"))
        XCTAssertEqual(json["denominator"]?.stringValue, "un")
        XCTAssertEqual(json["denominatorTitle"]?.stringValue, "UN member states")
    }

    func testTheSiteSetsTheDefault() throws {
        let config = try GlobeConfiguration(json: ["denominator": "iso"])
        XCTAssertEqual(config.denominator, .iso)
        let globe = try Globe.load(config, store: InMemoryGlobeStore()) { _ in "" }
        XCTAssertEqual(try globe.stats().total, 249)
        XCTAssertEqual(try globe.stats(of: "un").total, 193, "--of still wins")
        XCTAssertThrowsError(try GlobeConfiguration(json: ["denominator": "nato"])) { error in
            XCTAssertEqual("\(error)", "invalid denominator for config \"denominator\" 'nato'; expected un (193 UN members), un+observers (195) or iso (249 ISO 3166-1 entries)")
        }
    }

    func testAnUnknownDenominatorIsOneClearLine() throws {
        let globe = try globe(visiting: [])
        XCTAssertThrowsError(try globe.stats(of: "eu")) { error in
            let text = "\(error)"
            XCTAssertEqual(text, "invalid denominator for of 'eu'; expected un (193 UN members), un+observers (195) or iso (249 ISO 3166-1 entries)")
            XCTAssertFalse(text.contains("\n"))
        }
        XCTAssertEqual(try globe.stats(of: "UN").total, 193, "names are case-insensitive")
    }

    func testTheISOTableIsComplete() {
        XCTAssertEqual(ISO3166.codes.count, 249)
        XCTAssertEqual(Set(ISO3166.codes).count, 249)
        for country in CountrySet.bundled.countries where country.code != "XK" {
            XCTAssertTrue(ISO3166.codes.contains(country.code), country.code)
        }
        for code in ISO3166.codes where CountrySet.bundled.country(code: code) == nil {
            XCTAssertNotNil(ISO3166.continentOfUnlisted[code], "\(code) has no continent")
        }
    }
}
