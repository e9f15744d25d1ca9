// An SVG picture of the half court: the 16 zones, projected positions, and chosen targets.

/// Draws the half court seen from above, net at the top, in a fixed scale (deterministic output).
import ClubhouseGraphics
public struct CourtSVG: Sendable {
    /// Pixels per metre.
    public var scale = 40.0
    public var title = "Tennis half court"

    public init(title: String = "Tennis half court", scale: Double = 40) {
        self.title = title
        self.scale = scale
    }

    private let minX = Court.clampX.lowerBound - 0.5, maxX = Court.clampX.upperBound + 0.5
    private let minY = Court.clampY.lowerBound - 1.5, maxY = Court.clampY.upperBound + 0.5

    private func sx(_ x: Double) -> String { Format.fixed((x - minX) * scale, 1) }
    private func sy(_ y: Double) -> String { Format.fixed((y - minY) * scale, 1) }
    private func len(_ d: Double) -> String { Format.fixed(d * scale, 1) }

    /// Renders positions (small dots) and launches (numbered targets: filled when sent or dry-run,
    /// hollow when skipped or failed); zones are shaded by how many launches went to them.
    /// `sectors` (court rectangles a drill draws random balls from) are outlined, dashed.
    public func render(positions: [Point2D] = [], launches: [LaunchRecord] = [],
                       sectors: [(x: ClosedRange<Double>, y: ClosedRange<Double>)] = []) -> String {
        let width = len(maxX - minX), height = len(maxY - minY)
        var counts = [Int](repeating: 0, count: CourtZones.count)
        for l in launches where l.frame != nil { if let z = l.decision.zone { counts[z] += 1 } }
        let most = max(counts.max() ?? 0, 1)
        var s = ""
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
        s += "<title>\(SVGText.escape(title))</title>\n"
        s += "<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#f4f1ea\"/>\n"
        s += "<text x=\"\(sx(minX + 0.2))\" y=\"\(sy(minY + 0.8))\" font-family=\"sans-serif\" font-size=\"16\" fill=\"#222\">\(SVGText.escape(title))</text>\n"
        // The clamping area around the half court.
        s += "<rect class=\"clamp-area\" x=\"\(sx(Court.clampX.lowerBound))\" y=\"\(sy(Court.clampY.lowerBound))\" width=\"\(len(Court.clampX.upperBound - Court.clampX.lowerBound))\" height=\"\(len(Court.clampY.upperBound - Court.clampY.lowerBound))\" fill=\"#d9e4d0\" stroke=\"#b8c4ae\" stroke-dasharray=\"4 3\"/>\n"
        var zoneLabels = ""
        s += "<g class=\"zones\">\n"
        for zone in 0..<CourtZones.count {
            guard let b = CourtZones.bounds(of: zone) else { continue }
            let shade = counts[zone] == 0 ? 0 : 0.15 + 0.55 * Double(counts[zone]) / Double(most)
            s += "<rect class=\"zone\" data-zone=\"\(zone)\" data-launches=\"\(counts[zone])\" x=\"\(sx(b.minX))\" y=\"\(sy(b.minY))\" width=\"\(len(b.maxX - b.minX))\" height=\"\(len(b.maxY - b.minY))\" fill=\"#3a7d44\" fill-opacity=\"\(Format.fixed(0.35 + shade, 2))\" stroke=\"#ffffff\" stroke-opacity=\"0.35\"/>\n"
            // The number goes in the zone's corner (targets aim at zone centres) and is drawn
            // after the targets, with a halo, so that no marker hides it.
            zoneLabels += "<text class=\"zone-number\" data-zone=\"\(zone)\" x=\"\(sx(b.minX + 0.12))\" y=\"\(sy(b.minY + 0.12))\" dy=\"11\">\(zone)</text>\n"
        }
        s += "</g>\n"
        // Court lines: sidelines, baseline, service line, centre service line, and the net.
        s += "<g class=\"lines\" stroke=\"#ffffff\" stroke-width=\"3\" fill=\"none\">\n"
        s += "<rect x=\"\(sx(0))\" y=\"\(sy(0))\" width=\"\(len(Court.width))\" height=\"\(len(Court.halfLength))\"/>\n"
        s += line(0, Court.serviceLine, Court.width, Court.serviceLine)
        s += line(Court.width / 2, 0, Court.width / 2, Court.serviceLine)
        s += "</g>\n"
        s += "<line class=\"net\" x1=\"\(sx(-0.5))\" y1=\"\(sy(0))\" x2=\"\(sx(Court.width + 0.5))\" y2=\"\(sy(0))\" stroke=\"#333333\" stroke-width=\"5\"/>\n"
        if !sectors.isEmpty {
            s += "<g class=\"sectors\" fill=\"#ffffff\" fill-opacity=\"0.12\" stroke=\"#1f3f8a\" stroke-width=\"2\" stroke-dasharray=\"7 4\">\n"
            for r in sectors {
                s += "<rect class=\"sector\" x=\"\(sx(r.x.lowerBound))\" y=\"\(sy(r.y.lowerBound))\" width=\"\(len(r.x.upperBound - r.x.lowerBound))\" height=\"\(len(r.y.upperBound - r.y.lowerBound))\"/>\n"
            }
            s += "</g>\n"
        }
        if !positions.isEmpty {
            s += "<g class=\"positions\" fill=\"#1f5fa8\" fill-opacity=\"0.55\">\n"
            for p in positions where p.isFinite {
                s += "<circle cx=\"\(sx(p.x))\" cy=\"\(sy(p.y))\" r=\"2.5\"/>\n"
            }
            s += "</g>\n"
        }
        if !launches.isEmpty {
            s += "<g class=\"targets\" font-family=\"sans-serif\" font-size=\"11\" text-anchor=\"middle\">\n"
            for l in launches {
                guard let p = l.target, p.isFinite else { continue }
                let ok = l.frame != nil && (l.outcome?.succeeded ?? true)
                let fill = ok ? "#e8731c" : "none"
                s += "<circle class=\"target\" data-launch=\"\(l.decision.index)\" data-zone=\"\(l.decision.zone.map(String.init) ?? "none")\" cx=\"\(sx(p.x))\" cy=\"\(sy(p.y))\" r=\"8\" fill=\"\(fill)\" stroke=\"#8a3b00\" stroke-width=\"2\"/>\n"
                s += "<text x=\"\(sx(p.x))\" y=\"\(sy(p.y))\" dy=\"-11\" fill=\"#5a2600\">\(l.decision.index)</text>\n"
            }
            s += "</g>\n"
        }
        s += "<g class=\"zone-numbers\" font-family=\"sans-serif\" font-size=\"13\" font-weight=\"bold\" fill=\"#ffffff\" stroke=\"#1f4a26\" stroke-width=\"3\" stroke-opacity=\"0.7\" paint-order=\"stroke\">\n"
        s += zoneLabels
        s += "</g>\n"
        // Legend along the bottom.
        let legendY = Court.clampY.upperBound + 0.2
        s += "<g class=\"legend\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\">\n"
        if sectors.isEmpty {
            s += "<circle cx=\"\(sx(0))\" cy=\"\(sy(legendY))\" r=\"2.5\" fill=\"#1f5fa8\"/><text x=\"\(sx(0.25))\" y=\"\(sy(legendY))\" dy=\"4\">position (feet, projected)</text>\n"
        } else {
            s += "<rect x=\"\(sx(-0.2))\" y=\"\(sy(legendY - 0.15))\" width=\"\(len(0.4))\" height=\"\(len(0.3))\" fill=\"none\" stroke=\"#1f3f8a\" stroke-dasharray=\"4 2\"/><text x=\"\(sx(0.35))\" y=\"\(sy(legendY))\" dy=\"4\">random sector</text>\n"
        }
        s += "<circle cx=\"\(sx(4.6))\" cy=\"\(sy(legendY))\" r=\"6\" fill=\"#e8731c\" stroke=\"#8a3b00\"/><text x=\"\(sx(4.9))\" y=\"\(sy(legendY))\" dy=\"4\">target (launch number)</text>\n"
        s += "</g>\n"
        s += "</svg>\n"
        return s
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> String {
        "<line x1=\"\(sx(x1))\" y1=\"\(sy(y1))\" x2=\"\(sx(x2))\" y2=\"\(sy(y2))\"/>\n"
    }

}
