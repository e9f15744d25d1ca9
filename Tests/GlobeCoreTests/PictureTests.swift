import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import GlobeCore
import ClubhouseGraphics

/// Collects elements and attributes of an XML document, failing on malformed XML.
final class XMLSummary: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var text = ""

    static func parse(_ xml: String) throws -> XMLSummary {
        let summary = XMLSummary()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = summary
        guard parser.parse() else {
            throw NSError(domain: "xml", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(parser.parserError.map { "\($0)" } ?? "?")"])
        }
        return summary
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements.append((name, attributes))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func all(_ name: String) -> [[String: String]] { elements.filter { $0.name == name }.map(\.attributes) }
}

final class PictureTests: XCTestCase {
    let countries = CountrySet.bundled

    func testPaletteColours() {
        XCTAssertEqual(Palette.ocean.hex, "#2F86A6")
        XCTAssertEqual(Palette.land.hex, "#34BE82")
        XCTAssertEqual(Palette.visited.hex, "#F2F013")
        XCTAssertEqual(Palette.wishlist.hex, "#9966CC")
        XCTAssertEqual(Palette.fill(.none, selected: true).hex, "#85D8B4")
        // Visited and wishlist keep their own (lighter) colour when selected (the domain's rule) ...
        XCTAssertEqual(Palette.fill(.visited, selected: true).hex, "#F7F671")
        XCTAssertEqual(Palette.fill(.wishlist, selected: true).hex, "#C2A3E0")
        // ... and the map outlines a selected country in a colour far from every fill.
        XCTAssertEqual(Palette.selected.hex, "#E4572E")
        for status in CountryStatus.allCases {
            for selected in [false, true] {
                let a = Palette.fill(status, selected: selected), b = Palette.selected
                let distance = ((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b)).squareRoot()
                XCTAssertGreaterThan(distance, 0.45, "\(status) \(selected) vs the selection outline")
            }
        }
    }

    func testWorldMapColoursLegendAndStats() throws {
        var log = TravelLog()
        for code in ["FR", "JP", "VA"] { try log.visit(code, in: countries) }
        try log.wish("PE", in: countries)
        let svg = WorldMapSVG.render(countries: countries, log: log, options: .init(width: 1000, selected: ["FR", "BR"]))
        let xml = try XMLSummary.parse(svg)
        let root = try XCTUnwrap(xml.elements.first)
        XCTAssertEqual(root.name, "svg")
        // 150° of latitude (cut at 60° S) plus a three-row legend.
        let box = (root.attributes["viewBox"] ?? "").split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(box.count, 4)
        XCTAssertEqual(box.last ?? 0, 1000 * 150 / 360 + 60 * 1.45, accuracy: 0.01)
        let paths = Dictionary(uniqueKeysWithValues: xml.all("path").compactMap { a in a["id"].map { ($0, a) } })
        let circles = Dictionary(uniqueKeysWithValues: xml.all("circle").compactMap { a in a["id"].map { ($0, a) } })
        XCTAssertEqual(paths.count, 176, "every country with an outline but Antarctica")
        XCTAssertNil(paths["AQ"], "Antarctica is south of the map's edge")
        XCTAssertTrue(xml.text.contains("map cut at 60° S: Antarctica not drawn"), xml.text)
        XCTAssertTrue(xml.text.contains("a circle: one of 73 places with no outline at this scale, counted all the same"), xml.text)
        XCTAssertEqual(circles.count, 74, "every country drawn as a point, and the legend's sample circle")
        XCTAssertNotNil(circles["legend-point"])
        XCTAssertEqual(paths["JP"]?["fill"], "#F2F013")
        XCTAssertEqual(paths["FR"]?["fill"], "#F7F671", "visited wins over selected: lighter yellow")
        XCTAssertEqual(paths["BR"]?["fill"], "#85D8B4", "selected land")
        for code in ["FR", "BR"] {
            XCTAssertEqual(paths[code]?["stroke"], "#E4572E", "\(code): selected, outlined")
            XCTAssertEqual(paths[code]?["data-selected"], "true")
        }
        XCTAssertNil(paths["JP"]?["stroke"], "not selected: the group's border")
        // Selected countries come last, so no neighbour covers their outline.
        let order = xml.all("path").compactMap { $0["id"] }
        XCTAssertEqual(Array(order.suffix(2)).sorted(), ["BR", "FR"])
        XCTAssertEqual(paths["PE"]?["fill"], "#9966CC")
        XCTAssertEqual(paths["CA"]?["fill"], "#34BE82")
        XCTAssertEqual(circles["VA"]?["fill"], "#F2F013")
        XCTAssertEqual(xml.all("rect").first?["fill"], "#2F86A6")
        XCTAssertTrue(xml.text.contains("Visited 3 of 195 countries (1.5%) · wishlist 1"), xml.text)
        XCTAssertTrue(xml.text.contains("Europe 2/44"), xml.text)
        XCTAssertTrue(xml.text.contains("Côte d&#39;Ivoire") || xml.text.contains("Côte d'Ivoire"))
        // Lesotho's hole: South Africa's path has two rings, drawn even-odd.
        XCTAssertEqual(paths["ZA"]?["d"]?.filter { $0 == "M" }.count, 2)
        // Equirectangular: Paris lands where x = (lon + 180) / 360 · w.
        let numbers = (paths["FR"]?["d"] ?? "").split(whereSeparator: { "MZ ,".contains($0) }).compactMap { Double($0) }
        XCTAssertTrue(numbers.allSatisfy { $0 >= 0 && $0 <= 1000 })
        // The y scale equals the x scale: Paris (48.86° N) at (90 − lat) / 360 · w.
        let ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
        XCTAssertTrue(ys.contains { abs($0 - (90 - 48.86) / 360 * 1000) < 15 })
        let xs = stride(from: 0, to: numbers.count, by: 2).map { numbers[$0] }
        XCTAssertTrue(xs.contains { abs($0 - (2.35 + 180) / 360 * 1000) < 30 })
    }

    func testSilhouettes() throws {
        let italy = try XCTUnwrap(countries.country(code: "IT"))
        let svg = SilhouetteSVG.render(italy, options: .init(size: 300))
        let xml = try XMLSummary.parse(svg)
        XCTAssertTrue(xml.all("title").isEmpty, "a clue gives no name away")
        XCTAssertEqual(xml.all("path").count, 1)
        let box = (xml.elements.first?.attributes["viewBox"] ?? "").split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(box.count, 4)
        XCTAssertEqual(max(box[2], box[3]), 300)
        XCTAssertLessThan(box[2], box[3], "Italy is taller than wide")
        // Fiji straddles ±180°: its parts are drawn together, not 360° apart.
        let fiji = try XCTUnwrap(countries.country(code: "FJ"))
        let joined = SilhouetteSVG.joinedAcrossAntimeridian(fiji.polygons)
        var bounds = BoundingBox.empty
        for p in joined { bounds.include(p.bounds) }
        XCTAssertLessThan(bounds.width, 3)
        let dot = try XMLSummary.parse(SilhouetteSVG.render(try XCTUnwrap(countries.country(code: "VA")), options: .init(title: "Vatican City")))
        XCTAssertEqual(dot.all("circle").count, 1)
        XCTAssertTrue(dot.text.contains("Vatican City"))
        XCTAssertTrue(TextSilhouette.render(italy).contains("#"))
    }

    func testNumbersAndEscapes() {
        var out = SVGText()
        for v in [0, 1.5, -2.25, 12.345, 0.004, -0.004, 100, 1e20] { out.appendNumber(v); out.appendByte(32) }
        out.appendEscaped("<a & 'b'>\"")
        XCTAssertEqual(out.string, "0 1.5 -2.25 12.35 0 0 100 1e+20 &lt;a &amp; &#39;b&#39;&gt;&quot;")
    }
}
