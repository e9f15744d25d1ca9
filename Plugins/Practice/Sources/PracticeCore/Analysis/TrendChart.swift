/// A line chart of a club's trend as a standalone SVG: A% per session (0–100, with the weighted
/// A% as a dashed line labelled in the right margin), or with `--a-only` the A-shot mean of one
/// metric. Sessions sit at their dates on a time axis (several on one day side by side); a session
/// whose file had no date is drawn hollow at its import date and the footnote says so. Both axes
/// have titles; every point has a tooltip with its numbers.
import ClubhouseGraphics
import ClubhouseToolkit
public enum TrendChart {
    public static func svg(_ trend: TrendResult, width: Int = 760, height: Int = 380) -> String {
        let left = 72.0, right = 112.0, top = 48.0, bottom = 92.0
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
        // x: the session's day on a time axis; sessions of one day are spread a little around it.
        let days = trend.points.map { dayNumber($0.date) ?? 0 }
        let first = Double(days.min() ?? 0), last = Double(days.max() ?? 0)
        let span = max(last - first, 1)
        var sameDay: [Int: Int] = [:], seenOfDay: [Int: Int] = [:]
        for d in days { sameDay[d, default: 0] += 1 }
        let xs: [Double] = days.map { d in
            let inset = 16.0   // points never sit on the axis
            let base = last == first ? left + plotW / 2 : left + inset + (plotW - 2 * inset) * (Double(d) - first) / span
            let n = sameDay[d] ?? 1, k = seenOfDay[d, default: 0]
            seenOfDay[d] = k + 1
            return base + (Double(k) - Double(n - 1) / 2) * 10
        }
        func y(_ v: Double) -> Double { top + plotH * (1 - (v - lo) / max(hi - lo, 1e-9)) }

        let metricName = metric.rawValue.replacingOccurrences(of: "_", with: " ")
        let unit = metric.unit.label.isEmpty ? "" : " (\(metric.unit.label))"
        let title = trend.aOnly ? "\(trend.club): A-shot mean \(metricName)\(unit)" : "\(trend.club): A% per session"
        let yTitle = trend.aOnly ? "mean \(metricName) of A shots\(unit)" : "A shots, % of the session's shots"
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
        // Axis titles.
        let midY = top + plotH / 2
        s += "<text x=\"18\" y=\"\(fmt(midY))\" transform=\"rotate(-90 18 \(fmt(midY)))\" text-anchor=\"middle\" fill=\"#444\">\(SVGText.escape(yTitle))</text>\n"
        s += "<text x=\"\(fmt(left + plotW / 2))\" y=\"\(fmt(top + plotH + 40))\" text-anchor=\"middle\" fill=\"#444\">session date</text>\n"
        // Date labels at the points' days, thinned so they never overlap (at least 80 px apart).
        var lastLabel = -Double.infinity
        let order = trend.points.indices.sorted { (xs[$0], $0) < (xs[$1], $1) }
        for i in order where xs[i] - lastLabel >= 80 || (i == order.last && trend.points.count == 1) {
            s += "<text x=\"\(fmt(xs[i]))\" y=\"\(fmt(top + plotH + 18))\" text-anchor=\"middle\" fill=\"#555\">\(SVGText.escape(String(trend.points[i].date.prefix(10))))</text>\n"
            lastLabel = xs[i]
        }
        if !trend.aOnly, let w = trend.weightedAPercent {
            s += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(y(w)))\" x2=\"\(fmt(left + plotW))\" y2=\"\(fmt(y(w)))\" stroke=\"#d9822b\" stroke-dasharray=\"6 4\"/>\n"
            s += "<text x=\"\(fmt(left + plotW + 8))\" y=\"\(fmt(y(w)))\" dominant-baseline=\"middle\" fill=\"#b8641a\">weighted \(fixed(w, 1))%</text>\n"
        }
        // The line in date order, broken where a point has no value.
        var segment: [String] = []
        func flush() {
            if segment.count > 1 {
                s += "<polyline fill=\"none\" stroke=\"#2b6cb0\" stroke-width=\"2\" points=\"\(segment.joined(separator: " "))\"/>\n"
            }
            segment.removeAll()
        }
        for i in order {
            if let v = values[i] { segment.append("\(fmt(xs[i])),\(fmt(y(v)))") } else { flush() }
        }
        flush()
        for (i, p) in trend.points.enumerated() {
            guard let v = values[i] else { continue }
            let tip = "session \(p.sessionID), \(p.dated ? p.date : "undated, imported \(p.date)"): " + (trend.aOnly
                ? "\(label(v, metric: metric)) over \(p.aCount) A shots"
                : "A% \(fixed(v, 1)) (\(p.aCount) of \(p.shotCount) shots, \(p.validity.rawValue))")
                + ", template \(p.templateHash.prefix(12))"
            let fill = p.dated ? "#2b6cb0" : "#ffffff"
            s += "<circle cx=\"\(fmt(xs[i]))\" cy=\"\(fmt(y(v)))\" r=\"4.5\" fill=\"\(fill)\" stroke=\"#2b6cb0\" stroke-width=\"2\"><title>\(SVGText.escape(tip))</title></circle>\n"
        }
        if trend.points.isEmpty {
            s += "<text x=\"\(fmt(left + plotW / 2))\" y=\"\(fmt(top + plotH / 2))\" text-anchor=\"middle\" fill=\"#888\">no sessions pass the filters</text>\n"
        }
        var footnotes = ["validity ≥ \(trend.minValidity.rawValue); \(trend.excluded.count) session\(trend.excluded.count == 1 ? "" : "s") excluded"]
        let undated = trend.points.filter { !$0.dated }.count
        if undated > 0 {
            footnotes.append("○ \(undated) session\(undated == 1 ? "" : "s") without a date in the file, placed at the import date "
                + "(give one with practice import --date)")
        }
        for (i, note) in footnotes.enumerated() {
            let ny = Double(height) - 14 - 15 * Double(footnotes.count - 1 - i)
            s += "<text x=\"\(fmt(left))\" y=\"\(fmt(ny))\" fill=\"#777\" font-size=\"11\">\(SVGText.escape(note))</text>\n"
        }
        s += "</svg>\n"
        return s
    }

    /// Days since 1970-01-01 of a date that starts "YYYY-MM-DD" (an ISO date or timestamp); nil otherwise.
    static func dayNumber(_ text: String) -> Int? {
        let parts = text.prefix(10).split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), (1...31).contains(d) else { return nil }
        return CivilCalendar.dayNumber(year: y, month: m, day: d)
    }

    /// About five round tick values covering lo…hi.
    static func niceTicks(_ lo: Double, _ hi: Double) -> [Double] {
        // No ticks for a span that is not a finite number (the step search below would never end).
        guard lo.isFinite, hi.isFinite, (hi - lo).isFinite else { return [] }
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
