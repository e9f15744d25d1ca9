// Every globe picture type rendered to PNG by an independent SVG renderer (rsvg-convert, from
// Debian's librsvg2-bin): it must render, at the size the SVG declares. Without rsvg-convert on
// the PATH the test skips and says why.

import Foundation
import TestSupport
import XCTest
@testable import GlobeCore

final class RenderedPictureTests: XCTestCase {
    let countries = CountrySet.bundled

    func check(_ svg: String, name: String) throws {
        try RenderedPicture.check(svg: svg, name: name, minimumBytes: 500)
    }

    func testWorldMapRenders() throws {
        var log = TravelLog()
        for code in ["FR", "JP", "VA", "AQ"] { try log.visit(code, in: countries) }
        try log.wish("PE", in: countries)
        try check(WorldMapSVG.render(countries: countries, log: log, options: .init(width: 1200, selected: ["BR"])), name: "map")
        try check(WorldMapSVG.render(countries: countries, log: TravelLog(), options: .init(width: 300, showLegend: false)), name: "map-small")
        // A phone's width, with the legend (its notes row shrinks to fit rather than running off).
        try check(WorldMapSVG.render(countries: countries, log: log, options: .init(width: 400)), name: "map-phone")
    }

    func testSilhouettesRender() throws {
        // A plain shape, one across ±180°, one with a hole, one drawn as a point.
        for code in ["IT", "FJ", "ZA", "VA"] {
            let country = try countries.lookup(code)
            try check(SilhouetteSVG.render(country, options: .init(size: 400, title: country.name)), name: "silhouette-\(code)")
        }
    }
}
