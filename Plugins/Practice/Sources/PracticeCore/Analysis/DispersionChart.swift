import ClubhouseGraphics
import ClubhouseToolkit

/// Pictures of where shots land, as standalone SVG: one club's shots from above with its 95 %
/// ellipse (equal scale both ways, so the shape is true), and the bag's distance table as bars.
public enum DispersionChart {
    public static func svg(_ d: ClubDispersion, width: Int = 720, height: Int = 720) -> String {
        let left = 64.0, right = 32.0, top = 56.0, bottom = 72.0
        let plotW = Double(width) - left - right, plotH = Double(height) - top - bottom
        let located = d.shots.filter { $0.side != nil }
        var xs = located.compactMap(\.side), ys = located.map(\.carry)
        if let e = d.ellipse {
            for (x, y) in e.outline(48) {
                xs.append(x)
                ys.append(y)
            }
        }
        xs.append(0) // the target line is always in view
        let xLo0 = xs.min() ?? -10, xHi0 = xs.max() ?? 10, yLo0 = ys.min() ?? 0, yHi0 = ys.max() ?? 10
        // Equal yards per pixel on both axes, centred on the data, with some air.
        let span = max((xHi0 - xLo0) / plotW, (yHi0 - yLo0) / plotH, 1e-6) * 1.15
        let cx = (xLo0 + xHi0) / 2, cy = (yLo0 + yHi0) / 2
        let xLo = cx - span * plotW / 2, xHi = cx + span * plotW / 2
        let yLo = cy - span * plotH / 2, yHi = cy + span * plotH / 2
        func px(_ x: Double) -> Double { left + (x - xLo) / span }
        func py(_ y: Double) -> Double { top + plotH - (y - yLo) / span }
        let title = "\(d.club): where the shots land (\(d.kept) kept, \(d.mishits) mishit\(d.mishits == 1 ? "" : "s"))"
        var s = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
        font-family="sans-serif" font-size="12">
        <title>\(SVGText.escape(title))</title>
        <rect width="100%" height="100%" fill="#ffffff"/>
        <rect x="\(f(left))" y="\(f(top))" width="\(f(plotW))" height="\(f(plotH))" fill="#f3f8f1"/>
        <text x="\(f(left))" y="30" font-size="16" font-weight="bold" fill="#222">\(SVGText.escape(title))</text>

        """
        for t in TrendChart.niceTicks(yLo, yHi) where t >= yLo && t <= yHi {
            s += "<line x1=\"\(f(left))\" y1=\"\(f(py(t)))\" x2=\"\(f(left + plotW))\" y2=\"\(f(py(t)))\" stroke=\"#dde6da\"/>\n"
            s += "<text x=\"\(f(left - 8))\" y=\"\(f(py(t)))\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#555\">\(fixed(t, 0))</text>\n"
        }
        for t in TrendChart.niceTicks(xLo, xHi) where t >= xLo && t <= xHi {
            s += "<line x1=\"\(f(px(t)))\" y1=\"\(f(top))\" x2=\"\(f(px(t)))\" y2=\"\(f(top + plotH))\" stroke=\"#dde6da\"/>\n"
            s += "<text x=\"\(f(px(t)))\" y=\"\(f(top + plotH + 18))\" text-anchor=\"middle\" fill=\"#555\">\(fixed(t, 0))</text>\n"
        }
        s += "<line x1=\"\(f(px(0)))\" y1=\"\(f(top))\" x2=\"\(f(px(0)))\" y2=\"\(f(top + plotH))\" stroke=\"#7a8f74\" stroke-dasharray=\"6 4\"/>\n"
        s += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(top + plotH + 38))\" text-anchor=\"middle\" fill=\"#333\">side carry (yd, right +)</text>\n"
        s += "<text x=\"18\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" fill=\"#333\" transform=\"rotate(-90 18 \(f(top + plotH / 2)))\">carry (yd)</text>\n"
        if let e = d.ellipse {
            let points = e.outline().map { "\(f(px($0.0))),\(f(py($0.1)))" }.joined(separator: " ")
            s += "<polygon class=\"ellipse\" points=\"\(points)\" fill=\"#2b6cb0\" fill-opacity=\"0.10\" stroke=\"#2b6cb0\" stroke-width=\"2\"/>\n"
            s += "<circle class=\"mean\" cx=\"\(f(px(e.centerX)))\" cy=\"\(f(py(e.centerY)))\" r=\"5\" fill=\"none\" stroke=\"#c53030\" stroke-width=\"2\">"
                + "<title>mean: carry \(fixed(e.centerY, 1)) yd, side \(fixed(e.centerX, 1)) yd</title></circle>\n"
        }
        for shot in located {
            guard let side = shot.side else { continue }
            let tip = SVGText.escape("session \(shot.sessionID) row \(shot.rowIndex): carry \(fixed(shot.carry, 1)) yd, side \(fixed(side, 1)) yd"
                + (shot.mishit ? " — mishit, excluded" : ""))
            let x = px(side), y = py(shot.carry)
            if shot.mishit {
                s += "<path class=\"mishit\" d=\"M\(f(x - 4)) \(f(y - 4))L\(f(x + 4)) \(f(y + 4))M\(f(x - 4)) \(f(y + 4))L\(f(x + 4)) \(f(y - 4))\" stroke=\"#999\" stroke-width=\"2\"><title>\(tip)</title></path>\n"
            } else {
                s += "<circle class=\"shot\" cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"3.5\" fill=\"#2b6cb0\" fill-opacity=\"0.75\"><title>\(tip)</title></circle>\n"
            }
        }
        let summary = "carry \(d.carryMean.map { fixed($0, 1) } ?? "-") ± \(d.carrySD.map { fixed($0, 1) } ?? "-") yd, side sd "
            + "\(d.sideSD.map { fixed($0, 1) } ?? "-") yd; ellipse: 95% (χ² 2 dof = 5.991); × = mishit (|modified z| > 3.5 on carry)"
        s += "<text x=\"\(f(left))\" y=\"\(height - 12)\" fill=\"#555\" font-size=\"11\">\(SVGText.escape(summary))</text>\n"
        s += "</svg>\n"
        return s
    }

    /// The distance table as horizontal bars: carry mean with ±1 sd whiskers, total as a tick.
    public static func svg(_ table: DistanceTable, width: Int = 720) -> String {
        let rowH = 34.0, left = 80.0, right = 150.0, top = 56.0, bottom = 48.0
        let clubs = table.clubs.filter { $0.carryMean != nil }
        let height = Int(saturating: top + bottom + rowH * Double(max(clubs.count, 1)))
        let plotW = Double(width) - left - right
        let maxYards = clubs.map { max(($0.carryMean ?? 0) + ($0.carrySD ?? 0), $0.totalMean ?? 0) }.max() ?? 100
        let ticks = TrendChart.niceTicks(0, maxYards * 1.05)
        let hi = max(ticks.last ?? 0, maxYards * 1.05, 1)
        func px(_ v: Double) -> Double { left + plotW * v / hi }
        var s = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
        font-family="sans-serif" font-size="12">
        <title>Distances per club</title>
        <rect width="100%" height="100%" fill="#ffffff"/>
        <text x="\(f(left))" y="30" font-size="16" font-weight="bold" fill="#222">Distances per club (yd)</text>

        """
        let plotBottom = top + rowH * Double(max(clubs.count, 1))
        for t in ticks {
            s += "<line x1=\"\(f(px(t)))\" y1=\"\(f(top))\" x2=\"\(f(px(t)))\" y2=\"\(f(plotBottom))\" stroke=\"#e4e4e4\"/>\n"
            s += "<text x=\"\(f(px(t)))\" y=\"\(f(plotBottom + 16))\" text-anchor=\"middle\" fill=\"#555\">\(fixed(t, 0))</text>\n"
        }
        for (i, c) in clubs.enumerated() {
            guard let mean = c.carryMean else { continue }
            let y = top + rowH * Double(i)
            let sd = c.carrySD ?? 0
            let tip = SVGText.escape("\(c.club): carry \(fixed(mean, 1)) ± \(fixed(sd, 1)) yd over \(c.kept) shots"
                + (c.totalMean.map { ", total \(fixed($0, 1)) yd" } ?? "") + ", \(c.mishits) mishits excluded")
            s += "<text x=\"\(f(left - 10))\" y=\"\(f(y + rowH / 2))\" text-anchor=\"end\" dominant-baseline=\"middle\" font-weight=\"bold\" fill=\"#222\">\(SVGText.escape(c.club))</text>\n"
            s += "<rect class=\"carry\" x=\"\(f(left))\" y=\"\(f(y + 8))\" width=\"\(f(px(mean) - left))\" height=\"\(f(rowH - 16))\" fill=\"#2b6cb0\" fill-opacity=\"0.8\"><title>\(tip)</title></rect>\n"
            s += "<line x1=\"\(f(px(mean - sd)))\" y1=\"\(f(y + rowH / 2))\" x2=\"\(f(px(mean + sd)))\" y2=\"\(f(y + rowH / 2))\" stroke=\"#1a365d\" stroke-width=\"2\"/>\n"
            s += "<line x1=\"\(f(px(mean - sd)))\" y1=\"\(f(y + 10))\" x2=\"\(f(px(mean - sd)))\" y2=\"\(f(y + rowH - 10))\" stroke=\"#1a365d\" stroke-width=\"2\"/>\n"
            s += "<line x1=\"\(f(px(mean + sd)))\" y1=\"\(f(y + 10))\" x2=\"\(f(px(mean + sd)))\" y2=\"\(f(y + rowH - 10))\" stroke=\"#1a365d\" stroke-width=\"2\"/>\n"
            if let total = c.totalMean {
                s += "<line class=\"total\" x1=\"\(f(px(total)))\" y1=\"\(f(y + 4))\" x2=\"\(f(px(total)))\" y2=\"\(f(y + rowH - 4))\" stroke=\"#d9822b\" stroke-width=\"3\"/>\n"
            }
            let label = "\(fixed(mean, 0)) ± \(fixed(sd, 0))" + (c.totalMean.map { " (total \(fixed($0, 0)))" } ?? "")
            s += "<text x=\"\(f(max(px(mean + sd), px(c.totalMean ?? 0)) + 8))\" y=\"\(f(y + rowH / 2))\" dominant-baseline=\"middle\" fill=\"#333\">\(SVGText.escape(label))</text>\n"
        }
        if clubs.isEmpty {
            s += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(top + rowH / 2))\" text-anchor=\"middle\" fill=\"#888\">no shots with a carry yet</text>\n"
        }
        s += "<text x=\"\(f(left))\" y=\"\(height - 12)\" fill=\"#555\" font-size=\"11\">bar: mean carry; whiskers: ±1 sd; orange tick: mean total; mishits excluded (|modified z| &gt; 3.5 on carry)</text>\n"
        s += "</svg>\n"
        return s
    }

    static func f(_ v: Double) -> String { fixed(v, 1) }
}
