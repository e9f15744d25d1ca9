import ClubhouseJSON
import Foundation
import XCTest
@testable import GlobeCore

final class GlobeCommandTests: XCTestCase {
    let today = CivilDate(year: 2026, month: 11, day: 22)!

    func testMarkListStatsThroughTheStore() throws {
        let store = InMemoryGlobeStore()
        let globe = Globe(store: store, defaultUser: "ana")
        XCTAssertEqual(try globe.mark(.init(action: .visit, country: "peru")).text, "Peru (PE) marked visited")
        XCTAssertEqual(try globe.mark(.init(action: .wish, country: "Chile")).text, "Chile (CL) added to the wishlist")
        XCTAssertEqual(try globe.mark(.init(user: "bo", action: .visit, country: "CL")).text, "Chile (CL) marked visited")
        XCTAssertEqual(try store.travelLog(user: "ana").visited, ["PE"])
        XCTAssertEqual(try store.travelLog(user: "bo").visited, ["CL"])
        XCTAssertEqual(try globe.list(filter: .visited).text, "PE  Peru                               South America  visited")
        XCTAssertEqual(try globe.list(filter: .wishlist).countries.map(\.code), ["CL"])
        XCTAssertEqual(try globe.list().countries.count, 250)
        XCTAssertEqual(try globe.list(user: "bo", filter: .wishlist).text, "bo has no countries marked on the wishlist")
        XCTAssertEqual(try globe.stats().visited, 1)
        XCTAssertThrowsError(try globe.mark(.init(user: "  ", action: .visit, country: "PE"))) { error in
            XCTAssertEqual("\(error)", "no user given; pass user NAME or set \"user\" in the globe plugin's config")
        }
        XCTAssertEqual(try globe.mark(.init(action: .unwish, country: "CL")).changed, true)
        XCTAssertEqual(try globe.mark(.init(action: .unvisit, country: "PE")).changed, true)
        XCTAssertEqual(try store.travelLog(user: "ana"), TravelLog())
    }

    func testHighlights() throws {
        let globe = Globe(store: InMemoryGlobeStore(), defaultUser: "ana")
        _ = try globe.check(country: "FR", kind: .attraction, item: "louvre")
        let france = try globe.highlights(country: "France")
        XCTAssertEqual(france.cities.first?.name, "Paris")
        XCTAssertTrue(france.visited)
        XCTAssertEqual(france.attractions.first { $0.name == "Louvre" }?.checked, true)
        XCTAssertNil(france.note)
        let chad = try globe.highlights(country: "TD")
        XCTAssertEqual(chad.cities.map(\.name), ["N'Djamena"])
        XCTAssertEqual(chad.note, "no highlights for Chad in the bundled highlights (27 countries); configure \"highlights\" with a country_highlights.json for more")
        XCTAssertTrue(chad.text.hasPrefix("Chad (TD), capital N'Djamena\ncities: [ ] N'Djamena"), chad.text)
    }

    func testPicturesMeshAndTriangulate() throws {
        let globe = Globe(store: InMemoryGlobeStore(), defaultUser: "ana")
        let map = try globe.map(selected: ["Japan"], width: 800)
        // 150° of latitude (the map stops at 60° S) plus the three-row legend.
        XCTAssertEqual(map.height, 800 * 150 / 360 + 56 * 1.45, accuracy: 1e-9)
        XCTAssertTrue(map.svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 800 414.5"), String(map.svg.prefix(120)))
        XCTAssertEqual(map.summary, "world map of 250 countries for ana: visited 0 of 195, wishlist 0")
        XCTAssertThrowsError(try globe.map(width: 50)) { error in
            XCTAssertEqual("\(error)", "width 50.0 is not a number of pixels from 100 to 20000")
        }
        XCTAssertThrowsError(try globe.map(selected: ["Narnia"]))
        XCTAssertEqual(try globe.silhouette(country: "LI").summary, "silhouette of Liechtenstein (LI), drawn as a dot at this map's scale")
        XCTAssertThrowsError(try globe.silhouette(country: "IT", size: 0)) { error in
            XCTAssertEqual("\(error)", "size 0.0 is not a number of pixels from 16 to 10000")
        }
        let obj = try globe.mesh(fileName: "out/globe.obj", maxEdgeDegrees: 10, includeOcean: false)
        XCTAssertEqual(obj.files.map(\.name), ["out/globe.obj", "out/globe.mtl"])
        XCTAssertTrue(obj.files[0].contents.contains("mtllib globe.mtl\n"))
        XCTAssertEqual(obj.parts, 250)
        XCTAssertThrowsError(try globe.mesh(fileName: "globe.stl")) { error in
            XCTAssertEqual("\(error)", "invalid mesh file 'globe.stl'; expected a name ending in .gltf or .obj")
        }
        XCTAssertThrowsError(try globe.mesh(fileName: "globe.gltf", maxEdgeDegrees: 0.01)) { error in
            XCTAssertEqual("\(error)", "max-edge 0.01 is not degrees from 0.25 to 90")
        }
        let report = try globe.triangulate(geojson: #"{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}"#)
        XCTAssertEqual(report.triangles, 2)
        let data = try JSONEncoder().encode(report)
        XCTAssertNotNil(try JSONParser.parse(bytes: data)["perPolygon"])
        XCTAssertThrowsError(try globe.triangulate(geojson: "{\"type\": \"Polygon\",\n\"coordinates\": 5}", source: "bad.geojson")) { error in
            XCTAssertEqual("\(error)", "bad.geojson:2:16: polygon coordinates must be an array of linear rings, found the number 5")
        }
    }

    func testWhereUsesTheConfiguredTolerance() throws {
        let strict = Globe(store: InMemoryGlobeStore(), toleranceKm: 1)
        XCTAssertNil(try strict.locate(lat: 35.95, lon: 14.40).code)
        XCTAssertEqual(try strict.locate(lat: 35.95, lon: 14.40, toleranceKm: 25).code, "MT")
    }

    func testConfiguration() throws {
        XCTAssertEqual(try GlobeConfiguration(json: .null), GlobeConfiguration())
        let config = try GlobeConfiguration(json: try JSONParser.parse("""
            {"user": "ana", "countries": "world.geojson", "highlights": "h.json", "challenges": "c.json",
             "scheduleEpoch": "2027-01-01", "scheduleSeed": 42, "toleranceKm": 10}
            """))
        XCTAssertEqual(config.user, "ana")
        XCTAssertEqual(config.countriesPath, "world.geojson")
        XCTAssertEqual(config.scheduleEpoch.description, "2027-01-01")
        XCTAssertEqual(config.scheduleSeed, 42)
        XCTAssertEqual(config.toleranceKm, 10)
        let bad: [(String, String)] = [
            (#"{"colour": "red"}"#, "unknown globe config key \"colour\"; known keys: user, countries, highlights, challenges, scheduleEpoch, scheduleSeed, toleranceKm, denominator"),
            (#"{"scheduleSeed": -1}"#, "invalid config \"scheduleSeed\" '-1'; expected a non-negative integer"),
            (#"{"toleranceKm": 900}"#, "invalid config \"toleranceKm\" '900'; expected a number from 0 to 500"),
            (#"{"user": ""}"#, "invalid config \"user\" '\"\"'; expected a non-empty string"),
            (#"{"scheduleEpoch": "soon"}"#, "invalid date 'soon'; use YYYY-MM-DD, e.g. 2026-03-01"),
            (#"[]"#, "invalid globe config '[]'; expected an object"),
        ]
        for (text, message) in bad {
            XCTAssertThrowsError(try GlobeConfiguration(json: try JSONParser.parse(text)), text) { error in
                XCTAssertEqual("\(error)", message)
            }
        }
    }

    func testLoadingVoyageFilesAsTheAlternativeSet() throws {
        let files = [
            "world.geojson": try SharedData.text(SharedData.voyageWorld),
            "h.json": try SharedData.text(SharedData.voyageHighlights),
            "c.json": try SharedData.text(SharedData.voyageChallenges),
        ]
        struct Missing: Error, CustomStringConvertible { var description: String { "no such file" } }
        let config = GlobeConfiguration(user: "ana", countriesPath: "world.geojson", highlightsPath: "h.json", challengesPath: "c.json")
        let globe = try Globe.load(config, store: InMemoryGlobeStore()) { path in
            guard let text = files[path] else { throw Missing() }
            return text
        }
        // voyage's 206 features, and the 44 ISO 3166-1 entries it lacks as dots from the bundled table.
        XCTAssertEqual(globe.countries.countries.count, 250)
        XCTAssertEqual(globe.countries.fromBundledTable.count, 44)
        XCTAssertEqual(try globe.stats().total, 195)
        XCTAssertEqual(try globe.stats(of: "iso").total, 249)
        XCTAssertEqual(try globe.stats(of: "iso").fromBundledTable, 44)
        XCTAssertEqual(globe.schedule.coverage, "2026-02-17 to 2027-02-16")
        XCTAssertGreaterThan(try globe.highlights(country: "TD").attractions.count, 0)
        XCTAssertEqual(try globe.triangulate().features, 206, "the file's own features")
        XCTAssertNoThrow(try globe.challengeShow(today: today))

        var missing = config
        missing.highlightsPath = "nope.json"
        XCTAssertThrowsError(try Globe.load(missing, store: InMemoryGlobeStore()) { path in
            guard let text = files[path] else { throw Missing() }
            return text
        }) { error in
            XCTAssertEqual("\(error)", "cannot read nope.json: no such file; check the path in the globe plugin's config or the command line")
        }
        XCTAssertThrowsError(try Globe.load(GlobeConfiguration(countriesPath: "bad.geojson"), store: InMemoryGlobeStore()) { _ in
            "{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\"}]}"
        }) { error in
            XCTAssertEqual("\(error)", "bad.geojson:1:44: Feature has no \"geometry\" member; add one (null if the feature has no shape)")
        }
    }

    func testDemo() throws {
        let store = InMemoryGlobeStore()
        let globe = Globe(store: store)
        let demo = try globe.demo(today: today)
        XCTAssertEqual(demo.user, "demo-traveller")
        XCTAssertEqual(demo.stats.visited, 30)
        XCTAssertEqual(demo.stats.wishlist, 10)
        XCTAssertTrue(demo.stats.achievements.first { $0.id == "capital-collector" }?.unlocked == true)
        XCTAssertEqual(demo.files.map(\.name), ["clubhouse-demo/globe/world-map.svg", "clubhouse-demo/globe/silhouette-IT.svg",
                                                "clubhouse-demo/globe/globe.gltf"])
        XCTAssertEqual(demo.guesses.map(\.outcome), [.wrong, .repeated, .correct])
        XCTAssertEqual(demo.challenge.status, .solved)
        XCTAssertTrue(demo.text.contains("streak 1"), demo.text)
        // A second run marks nothing new and only shows the finished game.
        let again = try globe.demo(today: today)
        XCTAssertTrue(again.guesses.isEmpty)
        XCTAssertTrue(again.steps[0].hasSuffix("(0 new marks)"), again.steps[0])
    }
}
