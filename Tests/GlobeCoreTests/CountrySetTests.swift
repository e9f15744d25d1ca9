import XCTest
@testable import GlobeCore

final class CountrySetTests: XCTestCase {
    func testBundledSetCovers195UNCountries() {
        let set = CountrySet.bundled
        // Every ISO 3166-1 entry (249) and Kosovo.
        XCTAssertEqual(set.countries.count, 250, set.source)
        XCTAssertEqual(set.progressCountries.count, Country.progressTotal)
        XCTAssertEqual(Set(set.countries.map(\.code)).count, 250, "codes are unique")
        XCTAssertEqual(Set(set.countries.map(\.code)).subtracting(["XK"]), Set(ISO3166.codes))
        XCTAssertEqual(set.progressCountries.filter(\.drawnAsPoint).count, 29, "UN microstates drawn as points")
        XCTAssertEqual(set.countries.filter(\.drawnAsPoint).count, 73, "and 44 territories too small for 1:110m")
        XCTAssertEqual(set.continents.sorted(), ["Africa", "Antarctica", "Asia", "Europe", "North America", "Oceania", "South America"])
        let perContinent = Dictionary(grouping: set.progressCountries, by: \.continent).mapValues(\.count)
        XCTAssertEqual(perContinent["Africa"], 54)
        XCTAssertEqual(perContinent["Europe"], 44)
        XCTAssertEqual(perContinent["South America"], 12)
        XCTAssertEqual(perContinent.values.reduce(0, +), 195)
        // Places with no capital: Antarctica, uninhabited islands, Hong Kong and Macao (cities), Tokelau.
        for c in set.countries where !["AQ", "BV", "HM", "IO", "UM", "TK", "HK", "MO"].contains(c.code) {
            XCTAssertNotNil(c.capital, c.code)
            XCTAssertNotNil(c.capitalLocation, c.code)
        }
        // Natural Earth's N. Cyprus and Somaliland are part of Cyprus and Somalia here.
        XCTAssertEqual(set.country(code: "CY")?.polygons.count, 2)
        XCTAssertEqual(set.country(code: "SO")?.polygons.count, 2)
        // French Guiana and Svalbard, which Natural Earth draws as parts of France and Norway, are
        // their own entries.
        XCTAssertEqual(set.country(code: "FR")?.polygons.count, 2, "mainland France and Corsica")
        XCTAssertEqual(set.country(code: "GF")?.polygons.count, 1)
        XCTAssertEqual(set.country(code: "SJ")?.polygons.count, 3)
        XCTAssertEqual(set.country(code: "NO")?.polygons.count, 1)
        XCTAssertLessThan(set.country(code: "FR")?.bounds.minLon ?? -99, 0, "France reaches west of Greenwich (Brittany)")
        XCTAssertGreaterThan(set.country(code: "FR")?.bounds.minLon ?? -99, -6, "but not to South America")
    }

    func testBundledProgressCountriesMatchVoyage() throws {
        let world = try CountrySet(geojson: try SharedData.text(SharedData.voyageWorld), source: "world.geojson")
        XCTAssertEqual(world.countries.count, 206)
        XCTAssertEqual(world.progressCountries.count, 195)
        XCTAssertEqual(Set(world.progressCountries.map(\.code)), Set(CountrySet.bundled.progressCountries.map(\.code)))
        // The eleven territories the domain page names are the ones left out.
        let excluded = world.countries.filter { !$0.countsTowardProgress }.map(\.name).sorted()
        XCTAssertEqual(excluded.count, 11)
        XCTAssertTrue(excluded.contains("Greenland") && excluded.contains("Western Sahara") && excluded.contains("Antarctica"), "\(excluded)")
        XCTAssertEqual(world.countries.filter(\.drawnAsPoint).count, 32)
    }

    func testLookupByCodeNameAliasIgnoringCaseAndAccents() throws {
        let set = CountrySet.bundled
        XCTAssertEqual(try set.lookup("fr").code, "FR")
        XCTAssertEqual(try set.lookup(" France ").code, "FR")
        XCTAssertEqual(try set.lookup("cote d’ivoire").code, "CI")
        XCTAssertEqual(try set.lookup("CÔTE D'IVOIRE").code, "CI")
        XCTAssertEqual(try set.lookup("ivory coast").code, "CI")
        XCTAssertEqual(try set.lookup("united  states of america").code, "US")
        XCTAssertEqual(try set.lookup("Sao Tome and Principe").code, "ST")
        // Precomposed and decomposed accents fold alike (no Foundation normalization behind it).
        XCTAssertEqual(try set.lookup("São Tomé and Príncipe").code, "ST")
        XCTAssertEqual(try set.lookup("Sa\u{0303}o Tome\u{0301} and Pri\u{0301}ncipe").code, "ST")
        XCTAssertEqual(try set.lookup("XK").name, "Kosovo")
    }

    func testUnknownCountryErrors() {
        XCTAssertThrowsError(try CountrySet.bundled.lookup("Frnace")) { error in
            XCTAssertEqual("\(error)", "unknown country 'Frnace'; did you mean France? use an ISO 3166-1 alpha-2 code or the country's name (globe list shows them)")
        }
        XCTAssertThrowsError(try CountrySet.bundled.lookup("ZZ")) { error in
            XCTAssertEqual("\(error)", "unknown country 'ZZ'; use an ISO 3166-1 alpha-2 code or the country's name (globe list shows them)")
        }
        XCTAssertThrowsError(try CountrySet.bundled.lookup("  ")) { error in
            XCTAssertEqual("\(error)", "no country given; pass an ISO 3166-1 alpha-2 code such as FR or a name such as France")
        }
    }

    func testFlagEmojiIsTheRegionalIndicatorPair() {
        XCTAssertEqual(Country.flagEmoji("FR"), "\u{1F1EB}\u{1F1F7}")
        XCTAssertEqual(CountrySet.bundled.country(code: "jp")?.flagEmoji, "🇯🇵")
        XCTAssertEqual(Country.flagEmoji("fr").unicodeScalars.count, 2)
    }

    private func setError(_ text: String) -> CountrySetError? {
        do {
            _ = try CountrySet(geojson: text, source: "c.geojson")
            return nil
        } catch {
            return error
        }
    }

    func testCountryFeatureErrors() {
        let point = #""geometry": {"type": "Point", "coordinates": [1, 2]}"#
        let cases: [(String, String)] = [
            ("{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"id\": \"AA\", \"properties\": {\"continent\": \"Europe\"}, \(point)}]}",
             "c.geojson:2:47: feature 0 (\"AA\"): missing \"name\" property"),
            ("{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"properties\": {\"name\": \"A\", \"continent\": \"Europe\"}, \(point)}]}",
             "c.geojson:2:1: feature 0: no country code; give the feature an \"id\" with its ISO 3166-1 alpha-2 code"),
            ("{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"id\": \"ABC\", \"properties\": {\"name\": \"A\", \"continent\": \"Europe\"}, \(point)}]}",
             "c.geojson:2:27: feature 0 (\"ABC\"): country code \"ABC\" is not two letters; use the ISO 3166-1 alpha-2 code"),
            ("{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"id\": \"AA\", \"properties\": {\"name\": \"A\", \"continent\": 3}, \(point)}]}",
             "c.geojson:2:74: feature 0 (\"AA\"): \"continent\" must be a non-empty string"),
            ("{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"id\": \"AA\", \"properties\": {\"name\": \"A\", \"continent\": \"E\", \"capitalLat\": 95}, \(point)}]}",
             "c.geojson:2:93: feature 0 (\"AA\"): \"capitalLat\" must be a number within ±90"),
            ("{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"id\": \"AA\", \"properties\": {\"name\": \"A\", \"continent\": \"E\"}, \"geometry\": null}]}",
             "c.geojson:2:92: feature 0 (\"AA\"): a country needs a Polygon, MultiPolygon or Point geometry, found null"),
            ("{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"id\": \"AA\", \"properties\": {\"name\": \"A\", \"continent\": \"E\"}, \(point)},\n{\"type\": \"Feature\", \"id\": \"aa\", \"properties\": {\"name\": \"B\", \"continent\": \"E\"}, \(point)}]}",
             "c.geojson:3:27: country code AA appears twice (features 0 and 1); each country needs its own code"),
            ("{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"id\": \"AA\", \"properties\": {\"name\": \"A\", \"continent\": \"E\"}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [200, 2]}}]}",
             "c.geojson:2:126: longitude 200 is outside [-180, 180]; coordinates are [longitude, latitude] in degrees"),
        ]
        for (text, message) in cases {
            XCTAssertEqual(setError(text)?.description, message, text)
        }
    }

    func testUNOverrideProperty() throws {
        let text = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "id": "GL", "properties": {"name": "Greenland", "continent": "North America", "un": true},
           "geometry": {"type": "Point", "coordinates": [-40, 70]}},
          {"type": "Feature", "id": "FR", "properties": {"name": "France", "continent": "Europe", "un": false},
           "geometry": {"type": "Point", "coordinates": [2, 48]}}]}
        """
        let set = try CountrySet(geojson: text, source: "t")
        XCTAssertEqual(set.progressCountries.map(\.code), ["GL"])
    }
}
