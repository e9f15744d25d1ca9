/// A line chart of a club's trend as a standalone SVG: A% per session (0–100, with the weighted
/// A% as a dashed line), or with `--a-only` the A-shot mean of one metric. Sessions are spaced
/// evenly in date order; every point has a tooltip with its numbers.
import ClubhouseGraphics
public enum TrendChart {
    public static func svg(_ trend: TrendResult, width: Int = 720, height: Int = 360) -> String {
        let left = 64.0, right = 48.0, top = 48.0, bottom = 64.0
        let plotW = Double(width) - left - right, plotH = Double(height) - top - bottom
        let metric = trend.chartMetric
        let values: [Double?] = trend.points.map { p in
            trend.aOnly ? p.aOnlyAverages?.means[metric] : p.aPercent
        }
        let present = values.compactMap { $0 }
        // The y range: 0–100 for A%; the data's range with some air for a metric.
        var lo = 0.0, hi = 100.0
        if trend.aOnly {
            lo = present.min() ?? 0
            hi = present.max() ?? 1
            let pad = max((hi - lo) * 0.15, 0.5)
            lo -= pad
            hi += pad
        }
        let ticks = niceTicks(lo, hi)
        lo = min(lo, ticks.first ?? lo)
        hi = max(hi, ticks.last ?? hi)
        func x(_ i: Int) -> Double {
            trend.points.count <= 1 ? left + plotW / 2 : left + plotW * Double(i) / Double(trend.points.count - 1)
        }
        func y(_ v: Double) -> Double { top + plotH * (1 - (v - lo) / max(hi - lo, 1e-9)) }

        let title = trend.aOnly
            ? "\(trend.club): A-shot mean \(metric.rawValue.replacingOccurrences(of: "_", with: " "))"
                + (metric.unit.label.isEmpty ? "" : " (\(metric.unit.label))")
            : "\(trend.club): A% per session"
        var s = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
        font-family="sans-serif" font-size="12">
        <title>\(SVGText.escape(title))</title>
        <rect width="100%" height="100%" fill="#ffffff"/>
        <text x="\(left)" y="28" font-size="16" font-weight="bold" fill="#222">\(SVGText.escape(title))</text>

        """
        for t in ticks {
            let ty = fmt(y(t))
            s += "<line x1=\"\(fmt(left))\" y1=\"\(ty)\" x2=\"\(fmt(left + plotW))\" y2=\"\(ty)\" stroke=\"#e4e4e4\"/>\n"
            s += "<text x=\"\(fmt(left - 8))\" y=\"\(ty)\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#555\">\(label(t, metric: trend.aOnly ? metric : nil))</text>\n"
        }
        s += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(top + plotH))\" x2=\"\(fmt(left + plotW))\" y2=\"\(fmt(top + plotH))\" stroke=\"#888\"/>\n"
        s += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(top))\" x2=\"\(fmt(left))\" y2=\"\(fmt(top + plotH))\" stroke=\"#888\"/>\n"
        // Date labels, thinned so they don't overlap.
        let every = max(1, Int((Double(trend.points.count) * 80 / plotW).rounded(.up)))
        for (i, p) in trend.points.enumerated() where i % every == 0 || i == trend.points.count - 1 {
            s += "<text x=\"\(fmt(x(i)))\" y=\"\(fmt(top + plotH + 18))\" text-anchor=\"middle\" fill=\"#555\">\(SVGText.escape(String(p.date.prefix(10))))</text>\n"
        }
        if !trend.aOnly, let w = trend.weightedAPercent {
            s += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(y(w)))\" x2=\"\(fmt(left + plotW))\" y2=\"\(fmt(y(w)))\" stroke=\"#d9822b\" stroke-dasharray=\"6 4\"/>\n"
            s += "<text x=\"\(fmt(left + plotW))\" y=\"\(fmt(y(w) - 6))\" text-anchor=\"end\" fill=\"#d9822b\">weighted \(fixed(w, 1))%</text>\n"
        }
        // The line, broken where a point has no value.
        var segment: [String] = []
        func flush() {
            if segment.count > 1 {
                s += "<polyline fill=\"none\" stroke=\"#2b6cb0\" stroke-width=\"2\" points=\"\(segment.joined(separator: " "))\"/>\n"
            }
            segment.removeAll()
        }
        for (i, v) in values.enumerated() {
            if let v { segment.append("\(fmt(x(i))),\(fmt(y(v)))") } else { flush() }
        }
        flush()
        for (i, p) in trend.points.enumerated() {
            guard let v = values[i] else { continue }
            let tip = "session \(p.sessionID), \(p.date): " + (trend.aOnly
                ? "\(label(v, metric: metric)) over \(p.aCount) A shots"
                : "A% \(fixed(v, 1)) (\(p.aCount) of \(p.shotCount) shots, \(p.validity.rawValue))")
                + ", template \(p.templateHash.prefix(12))"
            s += "<circle cx=\"\(fmt(x(i)))\" cy=\"\(fmt(y(v)))\" r=\"4\" fill=\"#2b6cb0\"><title>\(SVGText.escape(tip))</title></circle>\n"
        }
        if trend.points.isEmpty {
            s += "<text x=\"\(fmt(left + plotW / 2))\" y=\"\(fmt(top + plotH / 2))\" text-anchor=\"middle\" fill=\"#888\">no sessions pass the filters</text>\n"
        }
        let footnote = "validity ≥ \(trend.minValidity.rawValue); \(trend.excluded.count) session\(trend.excluded.count == 1 ? "" : "s") excluded"
        s += "<text x=\"\(fmt(left))\" y=\"\(height - 16)\" fill=\"#777\" font-size=\"11\">\(SVGText.escape(footnote))</text>\n"
        s += "</svg>\n"
        return s
    }

    /// About five round tick values covering lo…hi.
    static func niceTicks(_ lo: Double, _ hi: Double) -> [Double] {
        let span = max(hi - lo, 1e-9)
        let raw = span / 5
        var step = 1.0
        while step * 10 <= raw { step *= 10 }
        while step > raw { step /= 10 }
        for m in [1.0, 2.0, 2.5, 5.0, 10.0] where step * m >= raw { step *= m; break }
        var t = (lo / step).rounded(.down) * step
        var ticks: [Double] = []
        while t <= hi + step * 1e-9 && ticks.count < 20 {
            ticks.append(t)
            t += step
        }
        return ticks
    }

    static func label(_ v: Double, metric: ShotMetric?) -> String {
        guard let metric else { return fixed(v, 0) }
        return fixed(v, metric.displayDecimals)
    }

    static func fmt(_ v: Double) -> String { fixed(v, 1) }

}
