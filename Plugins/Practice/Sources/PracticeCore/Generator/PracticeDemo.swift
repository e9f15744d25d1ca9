import ClubhouseJSON

/// What `practice demo` made.
public struct DemoResult: Sendable, Equatable, Codable {
    /// The generated exports (file name → CSV text), for the adapter to write next to the chart.
    public let files: [DemoFile]
    public let sessions: [ImportResult]
    public let trend: TrendResult
    /// The trend chart of the demo's main club.
    public let svg: String

    public struct DemoFile: Sendable, Equatable, Codable {
        public let name: String
        public let csv: String
    }

    public var text: String {
        var lines = ["generated and imported \(sessions.count) MLM2PRO sessions "
            + "(\(sessions.reduce(0) { $0 + $1.session.shotCount }) shots), graded with the bundled default templates"]
        for s in sessions {
            let clubs = s.clubs.map { c in "\(c.analysis.club) \(c.analysis.aPercent.map { fixed($0, 0) + "%" } ?? "-")" }
            lines.append("  session \(s.session.id) \(s.session.sessionDate ?? ""): \(clubs.joined(separator: ", "))")
        }
        lines.append(trend.text)
        return lines.joined(separator: "\n")
    }
}

/// The practice part of `clubhouse demo`: a few weeks of generated multi-club sessions in which the
/// player slowly strikes it better, imported and graded with the bundled templates, and the 7-iron
/// trend as a chart.
public enum PracticeDemo {
    public static let club = "7i"

    public static func run(store: any PracticeStore, now: @escaping @Sendable () -> String,
                           seed: UInt64 = 20_260_127, weeks: Int = 6) throws(PracticeError) -> DemoResult {
        let library = TemplateLibrary(store: store, now: now)
        let importer = SessionImporter(library: library)
        var files: [DemoResult.DemoFile] = []
        var results: [ImportResult] = []
        for week in 0..<weeks {
            let day = 6 + 7 * week
            let (month, dayOfMonth) = day > 31 ? (2, day - 31) : (1, day)
            let clubs: [(club: String, shots: Int)] = [("7i", 18 + week % 3 * 2), ("5i", 10 + week % 2 * 6), ("PW", 12)]
            let configuration = SessionGenerator.Configuration(
                seed: seed &+ UInt64(week), clubs: clubs, sessionName: "Range Session \(week + 1)",
                date: (2026, month, dayOfMonth, 17, 30), form: Double(week) / Double(max(weeks - 1, 1)) * 1.2,
                repeatHeaders: week % 2 == 1)
            let csv = SessionGenerator.csv(configuration)
            let name = "demo-session-\(week + 1).csv"
            files.append(.init(name: name, csv: String(decoding: csv, as: UTF8.self)))
            results.append(try importer.run(ImportRequest(csv: csv, sourceName: name, location: "Clubhouse range")))
        }
        let trend = try TrendQuery(store: store).run(TrendRequest(club: club))
        return DemoResult(files: files, sessions: results, trend: trend, svg: TrendChart.svg(trend))
    }

    /// The demo's template for live shots, as the live warning advises: the club's template in use
    /// without the metrics an Open Connect message never carries (the 7i default grades descent
    /// angle), added to the library and made the club's active template. Nil when the template in
    /// use grades only what Open Connect sends (nothing is added then).
    public static func liveTemplate(library: TemplateLibrary) throws(PracticeError) -> TemplateRow? {
        guard let active = try library.activeTemplate(for: club) else { return nil }
        let stored = try library.resolve(active.hash)
        guard var root = (try? JSONParser.parse(stored.canonicalJSON))?.objectValue,
              var metrics = root["metrics"]?.objectValue else {
            throw .storage("stored template \(stored.hash) is not valid JSON; the database is damaged")
        }
        let unsent = metrics.keys.filter { ShotMetric(rawValue: $0).map { !OpenConnectMessage.metricsSent.contains($0) } ?? false }.sorted()
        guard !unsent.isEmpty, unsent.count < metrics.count else { return nil }
        for key in unsent { metrics[key] = nil }
        root["metrics"] = .object(metrics)
        root["name"] = .string("\(club) live (Open Connect sends no \(unsent.joined(separator: ", ")))")
        let added = try library.insert(try KPITemplate.parse(JSONWriter.pretty(.object(root)), sourceName: "practice demo"))
        return try library.activate(added.template.hash)
    }
}
