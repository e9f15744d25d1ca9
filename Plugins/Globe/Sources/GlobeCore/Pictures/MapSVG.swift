// Pictures: the world map (equirectangular, cut at 60° S so that Antarctica is not a band as wide
// as the world along the bottom; the legend says so) in the palette with a legend and the
// traveller's stats, and a country's silhouette (the daily challenge's clue).

#if canImport(Glibc)
import Glibc
import ClubhouseGraphics
#endif

public enum WorldMapSVG {
    public struct Options: Sendable {
        /// Width of the map in pixels; the map is half as tall, plus the legend band.
        public var width: Double
        /// Countries drawn in the lighter variant of their colour.
        public var selected: Set<String>
        public var title: String
        public var showLegend: Bool

        public init(width: Double = 1200, selected: Set<String> = [], title: String = "Countries visited",
                    showLegend: Bool = true) {
            self.width = width
            self.selected = selected
            self.title = title
            self.showLegend = showLegend
        }
    }

    /// The southern edge of the map: land south of it (Antarctica) is not drawn.
    public static let southernEdge = -60.0

    /// Height of the map itself (without the legend) for a width: 150° of latitude.
    public static func mapHeight(width: Double) -> Double { width * (90 - southernEdge) / 360 }

    /// Height of the legend band for a width (0 without a legend): three rows.
    public static func legendHeight(width: Double) -> Double { max(56, width * 0.06) * 1.45 }

    public static func render(countries: CountrySet, log: TravelLog, options: Options = Options()) -> String {
        let w = max(100, min(20000, options.width.isFinite ? options.width : 1200))
        let h = mapHeight(width: w)
        let legendHeight = options.showLegend ? legendHeight(width: w) : 0
        let sx = w / 360, sy = w / 360
        var out = SVGText(capacity: 600_000)
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " as StaticString)
        out.appendNumber(w)
        out.appendByte(32)
        out.appendNumber(h + legendHeight)
        out.append("\" width=\"" as StaticString)
        out.appendNumber(w)
        out.append("\" height=\"" as StaticString)
        out.appendNumber(h + legendHeight)
        out.append("\" font-family=\"sans-serif\">\n<title>" as StaticString)
        out.appendEscaped(options.title)
        out.append("</title>\n<rect width=\"" as StaticString)
        out.appendNumber(w)
        out.append("\" height=\"" as StaticString)
        out.appendNumber(h)
        out.append("\" fill=\"" as StaticString)
        out.append(Palette.ocean.hex)
        out.append("\"/>\n<clipPath id=\"map-area\"><rect width=\"" as StaticString)
        out.appendNumber(w)
        out.append("\" height=\"" as StaticString)
        out.appendNumber(h)
        out.append("\"/></clipPath>\n<g id=\"countries\" clip-path=\"url(#map-area)\" stroke=\"" as StaticString)
        out.append(Palette.border.hex)
        out.append("\" stroke-width=\"0.4\" stroke-linejoin=\"round\" fill-rule=\"evenodd\">\n" as StaticString)
        let fills = Dictionary(uniqueKeysWithValues: CountryStatus.allCases.flatMap { s in
            [false, true].map { sel in ("\(s.rawValue)\(sel)", Palette.fill(s, selected: sel).hex) }
        })
        var points: [(Country, String)] = []
        var cutOff: [Country] = []
        // Selected countries last, so that their outline is not covered by a neighbour's fill.
        let outline = max(1.5, w / 600)
        let ordered = countries.countries.filter { !options.selected.contains($0.code) }
            + countries.countries.filter { options.selected.contains($0.code) }
        for c in ordered {
            if !c.drawnAsPoint && !c.polygons.isEmpty && c.bounds.maxLat <= southernEdge {
                cutOff.append(c)
                continue
            }
            let status = CountryStatus(code: c.code, log: log)
            let fill = fills["\(status.rawValue)\(options.selected.contains(c.code))"] ?? Palette.land.hex
            if c.drawnAsPoint || c.polygons.isEmpty {
                points.append((c, fill))
                continue
            }
            out.append("<path id=\"" as StaticString)
            out.appendEscaped(c.code)
            out.append("\" class=\"" as StaticString)
            out.append(status.rawValue)
            out.append("\" fill=\"" as StaticString)
            out.append(fill)
            if options.selected.contains(c.code) { appendSelectedStroke(&out, width: outline) }
            out.append("\" d=\"" as StaticString)
            for polygon in c.polygons {
                for ring in polygon.rings where ring.count >= 3 {
                    var first = true
                    for p in ring {
                        out.appendByte(first ? UInt8(ascii: "M") : UInt8(ascii: " "))
                        first = false
                        out.appendNumber((p.lon + 180) * sx, decimals: 2)
                        out.appendByte(UInt8(ascii: ","))
                        out.appendNumber((90 - p.lat) * sy, decimals: 2)
                    }
                    out.appendByte(UInt8(ascii: "Z"))
                }
            }
            out.append("\"><title>" as StaticString)
            out.appendEscaped(c.name)
            out.append("</title></path>\n" as StaticString)
        }
        out.append("</g>\n<g id=\"points\" stroke=\"" as StaticString)
        out.append(Palette.border.hex)
        out.append("\" stroke-width=\"0.6\">\n" as StaticString)
        let radius = max(1.5, w / 480)
        for (c, fill) in points {
            let p = c.markerLocation
            out.append("<circle id=\"" as StaticString)
            out.appendEscaped(c.code)
            out.append("\" cx=\"" as StaticString)
            out.appendNumber((p.lon + 180) * sx)
            out.append("\" cy=\"" as StaticString)
            out.appendNumber((90 - p.lat) * sy)
            out.append("\" r=\"" as StaticString)
            out.appendNumber(radius)
            out.append("\" fill=\"" as StaticString)
            out.append(fill)
            if options.selected.contains(c.code) { appendSelectedStroke(&out, width: outline) }
            out.append("\"><title>" as StaticString)
            out.appendEscaped(c.name)
            out.append("</title></circle>\n" as StaticString)
        }
        out.append("</g>\n" as StaticString)
        if options.showLegend {
            appendLegend(&out, stats: TravelStats(log: log, countries: countries), y: h, width: w, height: legendHeight,
                         selected: !options.selected.isEmpty, cutOff: cutOff.map { c in
                             let status = CountryStatus(code: c.code, log: log)
                             return status == .none ? c.name : "\(c.name) (\(status == .visited ? "visited" : "on the wishlist"))"
                         }, pointRadius: radius, dots: points.count, fromTable: countries.fromBundledTable.count)
        }
        out.append("</svg>\n" as StaticString)
        return out.string
    }

    /// `" stroke="#E4572E" stroke-width="…` inside an element's attributes (the caller closes the quote).
    private static func appendSelectedStroke(_ out: inout SVGText, width: Double) {
        out.append("\" data-selected=\"true\" stroke=\"" as StaticString)
        out.append(Palette.selected.hex)
        out.append("\" stroke-width=\"" as StaticString)
        out.appendNumber(width)
    }

    private static func appendLegend(_ out: inout SVGText, stats: TravelStats, y: Double, width: Double, height: Double,
                                     selected: Bool, cutOff: [String], pointRadius: Double, dots: Int, fromTable: Int) {
        // The rows hold about 60 em at most (swatches and stats; the continents): a narrow map (a
        // phone's) gets a smaller font instead of rows running off its right edge.
        let font = min(height / 1.45 / 4, width / 62)
        out.append("<g id=\"legend\" font-size=\"" as StaticString)
        out.appendNumber(font)
        out.append("\">\n<rect y=\"" as StaticString)
        out.appendNumber(y)
        out.append("\" width=\"" as StaticString)
        out.appendNumber(width)
        out.append("\" height=\"" as StaticString)
        out.appendNumber(height)
        out.append("\" fill=\"#FFFFFF\"/>\n" as StaticString)
        var entries: [(String, RGBColor)] = [("visited", Palette.visited), ("wishlist", Palette.wishlist), ("not visited", Palette.land)]
        if selected { entries.append(("selected", Palette.land.lighter())) }
        var x = font
        let row1 = y + height / 1.45 * 0.38
        for (label, color) in entries {
            out.append("<rect x=\"" as StaticString)
            out.appendNumber(x)
            out.append("\" y=\"" as StaticString)
            out.appendNumber(row1 - font * 0.8)
            out.append("\" width=\"" as StaticString)
            out.appendNumber(font)
            out.append("\" height=\"" as StaticString)
            out.appendNumber(font)
            out.append("\" fill=\"" as StaticString)
            out.append(color.hex)
            if label == "selected" {
                out.append("\" stroke=\"" as StaticString)
                out.append(Palette.selected.hex)
                out.append("\" stroke-width=\"2\"/><text x=\"" as StaticString)
            } else {
                out.append("\" stroke=\"#333333\" stroke-width=\"0.5\"/><text x=\"" as StaticString)
            }
            out.appendNumber(x + font * 1.4)
            out.append("\" y=\"" as StaticString)
            out.appendNumber(row1)
            out.append("\">" as StaticString)
            out.append(label)
            out.append("</text>\n" as StaticString)
            x += font * (2.2 + Double(label.count) * 0.6)
        }
        out.append("<text id=\"stats\" x=\"" as StaticString)
        out.appendNumber(x + font)
        out.append("\" y=\"" as StaticString)
        out.appendNumber(row1)
        out.append("\" font-weight=\"bold\">" as StaticString)
        out.appendEscaped("Visited \(stats.visited) of \(stats.total) countries (\(stats.percent)%) · wishlist \(stats.wishlist)")
        out.append("</text>\n<text id=\"continents\" x=\"" as StaticString)
        out.appendNumber(font)
        out.append("\" y=\"" as StaticString)
        out.appendNumber(y + height / 1.45 * 0.8)
        out.append("\">" as StaticString)
        out.appendEscaped(stats.continents.map { "\($0.continent) \($0.visited)/\($0.total)" }.joined(separator: " · "))
        out.append("</text>\n" as StaticString)
        // Third row: what the circles are, and what the cut at 60° S leaves out.
        let row3 = y + height / 1.45 * 1.22
        out.append("<circle id=\"legend-point\" cx=\"" as StaticString)
        out.appendNumber(font * 1.5)
        out.append("\" cy=\"" as StaticString)
        out.appendNumber(row3 - font * 0.3)
        out.append("\" r=\"" as StaticString)
        out.appendNumber(max(pointRadius, font * 0.3))
        out.append("\" fill=\"" as StaticString)
        out.append(Palette.land.hex)
        out.append("\" stroke=\"" as StaticString)
        out.append(Palette.border.hex)
        // Countries and territories without an outline still count: the legend says how many are dots.
        var note = "a circle: one of \(dots) places with no outline at this scale, counted all the same"
        if fromTable > 0 { note += " (\(fromTable) not in this map's data, at their capital)" }
        let southern = "\(Int(-southernEdge))° S"
        if !cutOff.isEmpty { note += " · map cut at \(southern): \(cutOff.joined(separator: ", ")) not drawn" }
        // One line across the width: a long note gets a smaller font rather than running off the edge
        // (sans-serif averages about 0.55 em a character).
        let available = width - font * 3
        let size = min(font, available / (0.56 * Double(max(1, note.count))))
        out.append("\" stroke-width=\"0.6\"/><text id=\"notes\" x=\"" as StaticString)
        out.appendNumber(font * 2.4)
        out.append("\" y=\"" as StaticString)
        out.appendNumber(row3)
        if size < font {
            out.append("\" font-size=\"" as StaticString)
            out.appendNumber(size, decimals: 2)
        }
        out.append("\">" as StaticString)
        out.appendEscaped(note)
        out.append("</text>\n</g>\n" as StaticString)
    }
}

public enum SilhouetteSVG {
    public struct Options: Sendable {
        /// The larger side of the picture in pixels.
        public var size: Double
        public var fill: RGBColor
        /// Shown as the SVG title; nil for a challenge clue that must not give the answer away.
        public var title: String?

        public init(size: Double = 400, fill: RGBColor = Palette.land, title: String? = nil) {
            self.size = size
            self.fill = fill
            self.title = title
        }
    }

    /// The country's outline alone, scaled to fit, longitudes shrunk by cos(latitude) so the shape
    /// is not stretched, and parts on both sides of ±180° drawn side by side.
    public static func render(_ country: Country, options: Options = Options()) -> String {
        let size = max(16, min(10000, options.size.isFinite ? options.size : 400))
        let polygons = joinedAcrossAntimeridian(country.polygons)
        var box = BoundingBox.empty
        for p in polygons { box.include(p.bounds) }
        var out = SVGText(capacity: 16_384)
        if box.isEmpty {
            // Drawn as a point at the globe's scale: a dot is all there is.
            out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 100 100\" width=\"" as StaticString)
            out.appendNumber(size)
            out.append("\" height=\"" as StaticString)
            out.appendNumber(size)
            out.append("\">\n" as StaticString)
            appendTitle(&out, options.title)
            out.append("<circle cx=\"50\" cy=\"50\" r=\"12\" fill=\"" as StaticString)
            out.append(options.fill.hex)
            out.append("\"/>\n</svg>\n" as StaticString)
            return out.string
        }
        let k = max(0.05, cos((box.minLat + box.maxLat) / 2 * .pi / 180))
        let spanX = max(box.width * k, 1e-6), spanY = max(box.height, 1e-6)
        let pad = 0.05
        let scale = size * (1 - 2 * pad) / max(spanX, spanY)
        let w = (spanX * scale + 2 * pad * size).rounded(), h = (spanY * scale + 2 * pad * size).rounded()
        let ox = (w - spanX * scale) / 2, oy = (h - spanY * scale) / 2
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " as StaticString)
        out.appendNumber(w)
        out.appendByte(32)
        out.appendNumber(h)
        out.append("\" width=\"" as StaticString)
        out.appendNumber(w)
        out.append("\" height=\"" as StaticString)
        out.appendNumber(h)
        out.append("\">\n" as StaticString)
        appendTitle(&out, options.title)
        out.append("<path fill=\"" as StaticString)
        out.append(options.fill.hex)
        out.append("\" fill-rule=\"evenodd\" d=\"" as StaticString)
        for polygon in polygons {
            for ring in polygon.rings where ring.count >= 3 {
                var first = true
                for p in ring {
                    out.appendByte(first ? UInt8(ascii: "M") : UInt8(ascii: " "))
                    first = false
                    out.appendNumber(ox + (p.lon - box.minLon) * k * scale)
                    out.appendByte(UInt8(ascii: ","))
                    out.appendNumber(oy + (box.maxLat - p.lat) * scale)
                }
                out.appendByte(UInt8(ascii: "Z"))
            }
        }
        out.append("\"/>\n</svg>\n" as StaticString)
        return out.string
    }

    private static func appendTitle(_ out: inout SVGText, _ title: String?) {
        guard let title else { return }
        out.append("<title>" as StaticString)
        out.appendEscaped(title)
        out.append("</title>\n" as StaticString)
    }

    /// Moves the western parts of a country split at ±180° (Fiji, Russia) east by 360° when that
    /// makes the shape narrower.
    static func joinedAcrossAntimeridian(_ polygons: [GeoPolygon]) -> [GeoPolygon] {
        var box = BoundingBox.empty
        for p in polygons { box.include(p.bounds) }
        guard box.width > 180 else { return polygons }
        let shifted = polygons.map { p -> GeoPolygon in
            let b = p.bounds
            return (b.minLon + b.maxLon) / 2 < 0 ? p.shifted(byLongitude: 360) : p
        }
        var shiftedBox = BoundingBox.empty
        for p in shifted { shiftedBox.include(p.bounds) }
        return shiftedBox.width < box.width ? shifted : polygons
    }
}
