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
            var labels = ""
            for group in labelGroups(launches) {
                for l in group.launches {
                    guard let p = l.target else { continue }
                    let ok = l.frame != nil && (l.outcome?.succeeded ?? true)
                    let fill = ok ? "#e8731c" : "none"
                    s += "<circle class=\"target\" data-launch=\"\(l.decision.index)\" data-zone=\"\(l.decision.zone.map(String.init) ?? "none")\" cx=\"\(sx(p.x))\" cy=\"\(sy(p.y))\" r=\"8\" fill=\"\(fill)\" stroke=\"#8a3b00\" stroke-width=\"2\"/>\n"
                }
                // One label per group of targets that would overlap: their launch numbers, in order.
                let numbers = group.launches.map { String($0.decision.index) }
                let text = numbers.count <= 6 ? numbers.joined(separator: ", ")
                    : numbers.prefix(3).joined(separator: ", ") + " … \(numbers.last ?? "") (\(numbers.count) balls)"
                labels += "<text class=\"launch-numbers\" x=\"\(sx(group.at.x))\" y=\"\(sy(group.top))\" dy=\"-11\" fill=\"#5a2600\">\(text)</text>\n"
            }
            // Labels after every circle, with a halo, so that no target covers a number.
            s += "<g class=\"labels\" stroke=\"#f4f1ea\" stroke-width=\"3\" stroke-opacity=\"0.8\" paint-order=\"stroke\">\n" + labels + "</g>\n"
            s += "</g>\n"
        }
        s += "<g class=\"zone-numbers\" font-family=\"sans-serif\" font-size=\"13\" font-weight=\"bold\" fill=\"#ffffff\" stroke=\"#1f4a26\" stroke-width=\"3\" stroke-opacity=\"0.7\" paint-order=\"stroke\">\n"
        s += zoneLabels
        s += "</g>\n"
        // Legend along the bottom.
        let legendY = Court.clampY.upperBound + 0.2
        s += "<g class=\"legend\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\">\n"
        // Only what the picture shows: positions when there are some, sectors when a drill has
        // them, targets when balls were launched; side by side from the court's left edge.
        var entries: [(Double) -> String] = []
        let cy = sy(legendY)
        if positions.contains(where: \.isFinite) {
            entries.append { x in "<circle cx=\"\(sx(x))\" cy=\"\(cy)\" r=\"2.5\" fill=\"#1f5fa8\"/><text x=\"\(sx(x + 0.35))\" y=\"\(cy)\" dy=\"4\">player's feet (projected)</text>" }
        }
        if !sectors.isEmpty {
            entries.append { x in "<rect x=\"\(sx(x - 0.2))\" y=\"\(sy(legendY - 0.15))\" width=\"\(len(0.4))\" height=\"\(len(0.3))\" fill=\"none\" stroke=\"#1f3f8a\" stroke-dasharray=\"4 2\"/><text x=\"\(sx(x + 0.35))\" y=\"\(cy)\" dy=\"4\">random sector</text>" }
        }
        if launches.contains(where: { $0.target?.isFinite ?? false }) {
            entries.append { x in "<circle cx=\"\(sx(x))\" cy=\"\(cy)\" r=\"6\" fill=\"#e8731c\" stroke=\"#8a3b00\"/><text x=\"\(sx(x + 0.35))\" y=\"\(cy)\" dy=\"4\">target (launch numbers)</text>" }
        }
        // Each entry as wide as its marker and label (12 px text, about 0.55 em a character).
        let labels = [positions.contains(where: \.isFinite) ? "player's feet (projected)" : nil, sectors.isEmpty ? nil : "random sector",
                      launches.contains(where: { $0.target?.isFinite ?? false }) ? "target (launch numbers)" : nil].compactMap { $0 }
        var x = -0.6
        for (entry, label) in zip(entries, labels) {
            s += entry(x) + "\n"
            x += 0.35 + Double(label.count) * 12 * 0.55 / scale + 0.5
        }
        s += "</g>\n"
        s += "</svg>\n"
        return s
    }

    /// Launches whose targets would overlap on the picture (closer than a marker, 0.45 m), in
    /// launch order: each group gets one label.
    func labelGroups(_ launches: [LaunchRecord]) -> [(at: Point2D, top: Double, launches: [LaunchRecord])] {
        var groups: [(at: Point2D, top: Double, launches: [LaunchRecord])] = []
        for l in launches {
            guard let p = l.target, p.isFinite else { continue }
            if let k = groups.firstIndex(where: { g in g.launches.contains { ($0.target.map { ($0.x - p.x) * ($0.x - p.x) + ($0.y - p.y) * ($0.y - p.y) } ?? 99) < 0.45 * 0.45 } }) {
                groups[k].launches.append(l)
                groups[k].top = min(groups[k].top, p.y)
            } else {
                groups.append((p, p.y, [l]))
            }
        }
        return groups
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> String {
        "<line x1=\"\(sx(x1))\" y1=\"\(sy(y1))\" x2=\"\(sx(x2))\" y2=\"\(sy(y2))\"/>\n"
    }

}
