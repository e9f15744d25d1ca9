/// `practice trends --club CLUB [--a-only] [--min-validity …]`.
public struct TrendRequest: Sendable, Equatable {
    public var club: String
    /// Report A-shot averages (each session's A shots as its own template graded them).
    public var aOnly: Bool
    /// Sub-sessions below this validity are left out (and listed as excluded).
    public var minValidity: Validity
    /// The metric the A-only chart plots.
    public var chartMetric: ShotMetric
    /// Show each session's analysis under this template (full hash; see `practice regrade`); nil
    /// shows the analysis made at import.
    public var templateHash: String?

    public init(club: String, aOnly: Bool = false, minValidity: Validity = .validLowSample, chartMetric: ShotMetric = .carry,
                templateHash: String? = nil) {
        self.club = club
        self.aOnly = aOnly
        self.minValidity = minValidity
        self.chartMetric = chartMetric
        self.templateHash = templateHash
    }
}

/// One session's point on a club's trend.
public struct TrendPoint: Sendable, Equatable, Codable {
    public let sessionID: Int64
    public let date: String
    public let shotCount: Int
    public let aCount: Int
    public let validity: Validity
    public let aPercent: Double?
    /// The template this session's grades come from: the one it was analyzed with at import.
    public let templateHash: String
    /// Means over the session's A shots (A-only trends).
    public let aOnlyAverages: MetricAverages?
    /// False when the file had no date and `--date` was not given: `date` is then the import time.
    public var dated: Bool = true

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id", date, shotCount = "shot_count", aCount = "a_count", validity
        case aPercent = "a_percent", templateHash = "template_hash", aOnlyAverages = "a_only_averages", dated
    }
}

/// A sub-session the filters left out, and why (no silent filtering).
public struct ExcludedPoint: Sendable, Equatable, Codable {
    public let sessionID: Int64
    public let date: String
    public let reason: String

    enum CodingKeys: String, CodingKey { case sessionID = "session_id", date, reason }
}

public struct TrendResult: Sendable, Equatable, Codable {
    public let club: String
    public let aOnly: Bool
    public let minValidity: Validity
    public let chartMetric: ShotMetric
    /// Oldest first.
    public let points: [TrendPoint]
    public let excluded: [ExcludedPoint]
    /// Σ A / Σ shots · 100 over the points (sessions weigh by their shot counts); nil without points.
    public let weightedAPercent: Double?
    /// A-only means weighted by each session's A count.
    public let weightedAOnlyAverages: MetricAverages?
    /// The template the points are pinned to (`--template`); nil: each session's import analysis.
    public var pinnedTemplate: String? = nil

    enum CodingKeys: String, CodingKey {
        case club, aOnly = "a_only", minValidity = "min_validity", chartMetric = "chart_metric", points, excluded
        case weightedAPercent = "weighted_a_percent", weightedAOnlyAverages = "weighted_a_only_averages"
        case pinnedTemplate = "pinned_template"
    }

    public var text: String {
        var lines = ["\(club) trend over \(points.count) session\(points.count == 1 ? "" : "s") "
            + "(validity ≥ \(minValidity.rawValue)\(aOnly ? ", A shots only" : "")"
            + (pinnedTemplate.map { ", every session graded by template \($0.prefix(12)))" } ?? (aOnly ? ", each graded by its own template)" : ")"))]
        if aOnly {
            let metrics: [ShotMetric] = [.carry, .ballSpeed, .smashFactor, .spinRate, .descentAngle]
            var table = TextTable(["SESSION", "DATE", "A SHOTS"] + metrics.map { $0.rawValue.uppercased() } + ["TEMPLATE"])
            for p in points {
                let means = p.aOnlyAverages?.means ?? [:]
                table.add([String(p.sessionID), p.date, String(p.aCount)]
                    + metrics.map { m in means[m].map { fixed($0, m.displayDecimals) } ?? "-" } + [String(p.templateHash.prefix(12))])
            }
            lines.append(table.render())
            if let w = weightedAOnlyAverages {
                lines.append("weighted A-only means over \(w.shotCount) A shots: " + metrics.compactMap { m in
                    w.means[m].map { "\(m.rawValue) \(fixed($0, m.displayDecimals))" }
                }.joined(separator: ", "))
            }
        } else {
            var table = TextTable(["SESSION", "DATE", "SHOTS", "A", "A%", "VALIDITY", "TEMPLATE"])
            for p in points {
                table.add([String(p.sessionID), p.date, String(p.shotCount), String(p.aCount), p.aPercent.map { fixed($0, 1) } ?? "-",
                           p.validity.rawValue, String(p.templateHash.prefix(12))])
            }
            lines.append(table.render())
            lines.append("weighted A%: " + (weightedAPercent.map { fixed($0, 1) } ?? "-")
                + " over \(points.reduce(0) { $0 + $1.shotCount }) shots")
        }
        for e in excluded { lines.append("excluded session \(e.sessionID) (\(e.date)): \(e.reason)") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Trends per club over sessions, from the stored analyses (so adding a template later never
/// changes them).
public struct TrendQuery {
    public let store: any PracticeStore

    public init(store: any PracticeStore) { self.store = store }

    public func run(_ request: TrendRequest) throws(PracticeError) -> TrendResult {
        let club = try ClubName.option(request.club)
        let sessions = try storeCall { try store.sessions() }
        let byID = Dictionary(uniqueKeysWithValues: sessions.map { ($0.id, $0) })
        let rows = try storeCall { try store.subsessions(sessionID: nil, club: club) }
        if rows.isEmpty {
            let known = Set(try storeCall { try store.subsessions(sessionID: nil, club: nil) }.map(\.analysis.club)).sorted()
            throw .notFound("no sessions have \(club) shots" + (known.isEmpty ? "; import a session first" : " (clubs: \(known.joined(separator: ", ")))"))
        }
        // Oldest first; one point per session: its first analysis of the club (the import's), or
        // the one under the pinned template.
        let ordered = rows.sorted { l, r in
            let (a, b) = (byID[l.sessionID]?.sortDate ?? "", byID[r.sessionID]?.sortDate ?? "")
            return (a, l.sessionID, l.id) < (b, r.sessionID, r.id)
        }
        var pinned: [Int64: StoredSubsession] = [:]
        if let hash = request.templateHash {
            for row in ordered where row.analysis.templateHash == hash && pinned[row.sessionID] == nil { pinned[row.sessionID] = row }
        }
        var seen: Set<Int64> = []
        var points: [TrendPoint] = []
        var excluded: [ExcludedPoint] = []
        for first in ordered where seen.insert(first.sessionID).inserted {
            let date = byID[first.sessionID]?.sortDate ?? ""
            var row = first
            if let hash = request.templateHash {
                guard let chosen = pinned[first.sessionID] else {
                    excluded.append(ExcludedPoint(sessionID: first.sessionID, date: date,
                                                  reason: "no analysis under template \(hash.prefix(12)) "
                                                    + "(practice regrade --template \(hash.prefix(12)) --session \(first.sessionID))"))
                    continue
                }
                row = chosen
            }
            let a = row.analysis
            guard let hash = a.templateHash, let aCount = a.aCount else {
                excluded.append(ExcludedPoint(sessionID: row.sessionID, date: date, reason: "not graded (no template for \(club) at import)"))
                continue
            }
            guard a.validity >= request.minValidity else {
                excluded.append(ExcludedPoint(sessionID: row.sessionID, date: date,
                                              reason: "\(a.validity.rawValue) (\(a.shotCount) shots) is below \(request.minValidity.rawValue)"))
                continue
            }
            if request.aOnly && aCount == 0 {
                excluded.append(ExcludedPoint(sessionID: row.sessionID, date: date, reason: "no A shots"))
                continue
            }
            var point = TrendPoint(sessionID: row.sessionID, date: date, shotCount: a.shotCount, aCount: aCount,
                                   validity: a.validity, aPercent: a.aPercent, templateHash: hash,
                                   aOnlyAverages: a.averagesAOnly)
            point.dated = byID[first.sessionID]?.sessionDate != nil
            points.append(point)
        }
        // Weighted by shot count: sessions with a percentage (invalid ones have none) count by their shots.
        let graded = points.filter { $0.aPercent != nil }
        let shots = graded.reduce(0) { $0 + $1.shotCount }
        let aShots = graded.reduce(0) { $0 + $1.aCount }
        let weighted = shots > 0 ? Double(aShots) / Double(shots) * 100 : nil
        var weightedAOnly: MetricAverages? = nil
        if request.aOnly {
            var sums: [ShotMetric: Double] = [:], weights: [ShotMetric: Int] = [:]
            for p in points {
                guard let avg = p.aOnlyAverages else { continue }
                for (metric, mean) in avg.means {
                    sums[metric, default: 0] += mean * Double(avg.shotCount)
                    weights[metric, default: 0] += avg.shotCount
                }
            }
            var means: [ShotMetric: Double] = [:]
            for (metric, sum) in sums where (weights[metric] ?? 0) > 0 { means[metric] = sum / Double(weights[metric] ?? 1) }
            weightedAOnly = MetricAverages(shotCount: points.reduce(0) { $0 + $1.aCount }, means: means)
        }
        var result = TrendResult(club: club, aOnly: request.aOnly, minValidity: request.minValidity, chartMetric: request.chartMetric,
                                 points: points, excluded: excluded, weightedAPercent: weighted, weightedAOnlyAverages: weightedAOnly)
        result.pinnedTemplate = request.templateHash
        return result
    }
}
