import ClubhouseJSON
import ClubhouseHashing

/// Text renderings of club sub-sessions shared by import, session and trends.
enum SubsessionText {
    /// One line per club: shots, A/B/C, validity, A%, template.
    static func table(_ clubs: [ClubResult]) -> String {
        var table = TextTable(["CLUB", "SHOTS", "A", "B", "C", "VALIDITY", "A%", "TEMPLATE"])
        for c in clubs {
            let a = c.analysis
            table.add([a.club, String(a.shotCount), a.aCount.map(String.init) ?? "-", a.bCount.map(String.init) ?? "-",
                       a.cCount.map(String.init) ?? "-", validityLabel(a.validity), a.aPercent.map { fixed($0, 1) } ?? "-",
                       a.templateHash.map { String($0.prefix(12)) + (c.templateName.map { " \($0)" } ?? "") } ?? "none (not graded)"])
        }
        return table.render()
    }

    static func validityLabel(_ v: Validity) -> String {
        switch v {
        case .invalid: return "invalid (<5 shots)"
        case .validLowSample: return "valid, low sample"
        case .valid: return "valid"
        }
    }

    /// The averages block of one club: all shots and A shots side by side, labelled.
    static func averages(_ a: SubsessionAnalysis) -> String {
        var table = TextTable(["METRIC", "ALL SHOTS (\(a.averagesAll.shotCount))",
                               a.averagesAOnly.map { "A SHOTS ONLY (\($0.shotCount))" } ?? "A SHOTS ONLY"])
        for metric in ShotMetric.allCases {
            guard let all = a.averagesAll.means[metric] else { continue }
            let unit = metric.unit.label.isEmpty ? "" : " " + metric.unit.label
            let aOnly = a.averagesAOnly?.means[metric].map { fixed($0, metric.displayDecimals) + unit } ?? "-"
            table.add([metric.rawValue, fixed(all, metric.displayDecimals) + unit, aOnly])
        }
        return table.render()
    }
}

/// A session in `practice sessions`.
public struct SessionRow: Sendable, Equatable, Codable {
    public let session: StoredSession
    public let clubs: [String]
}

public struct SessionListResult: Sendable, Equatable, Codable {
    public let sessions: [SessionRow]

    public var text: String {
        guard !sessions.isEmpty else { return "no sessions yet; import one with `practice import FILE.csv`\n" }
        var table = TextTable(["ID", "DATE", "SHOTS", "CLUBS", "LOCATION", "SOURCE"])
        for row in sessions {
            let s = row.session
            table.add([String(s.id), s.sessionDate ?? "(imported \(s.importedAt))", String(s.shotCount),
                       row.clubs.joined(separator: " "), s.location ?? "-", s.sourceName])
        }
        return table.render()
    }
}

/// One stored shot as `practice session ID --shots` lists it.
public struct ShotRow: Sendable, Equatable, Codable {
    public let rowIndex: Int
    public let club: String
    public let grade: Grade?
    public let measurements: ShotMeasurements
    /// The source row verbatim.
    public let raw: String

    enum CodingKeys: String, CodingKey { case rowIndex = "row_index", club, grade, measurements, raw }
}

/// `practice session ID [--shots]`: the session and each club's analysis (and its shots).
public struct SessionDetail: Sendable, Equatable, Codable {
    public let session: StoredSession
    public let clubs: [ClubResult]
    /// Every shot in file order, when asked for.
    public let shots: [ShotRow]?

    public init(session: StoredSession, clubs: [ClubResult], shots: [ShotRow]? = nil) {
        self.session = session
        self.clubs = clubs
        self.shots = shots
    }

    public var text: String {
        let s = session
        var lines = ["session \(s.id)" + (s.title.map { ": \($0)" } ?? ""),
                     "date:      \(s.sessionDate ?? "-") (imported \(s.importedAt))",
                     "location:  \(s.location ?? "-")",
                     "source:    \(s.sourceName) (sha256 \(s.contentHash))",
                     "shots:     \(s.shotCount)", ""]
        lines.append(SubsessionText.table(clubs))
        for c in clubs {
            lines.append("\(c.analysis.club) averages")
            lines.append(SubsessionText.averages(c.analysis))
        }
        if let shots {
            let metrics: [ShotMetric] = [.carry, .ballSpeed, .smashFactor, .spinRate, .descentAngle]
            var table = TextTable(["ROW", "CLUB", "GRADE"] + metrics.map { $0.rawValue.uppercased() })
            for shot in shots {
                table.add([String(shot.rowIndex), shot.club, shot.grade?.rawValue ?? "-"]
                    + metrics.map { m in shot.measurements[m].map { fixed($0, m.displayDecimals) } ?? "-" })
            }
            lines.append("shots")
            lines.append(table.render())
        }
        return lines.joined(separator: "\n")
    }
}

/// Read-side commands over a store: sessions, session, export.
public struct SessionQueries {
    public let library: TemplateLibrary

    public init(library: TemplateLibrary) { self.library = library }

    var store: any PracticeStore { library.store }

    public func sessions() throws(PracticeError) -> SessionListResult {
        let sessions = try storeCall { try store.sessions() }
        let subsessions = try storeCall { try store.subsessions(sessionID: nil, club: nil) }
        var clubs: [Int64: [String]] = [:]
        for s in subsessions where !(clubs[s.sessionID]?.contains(s.analysis.club) ?? false) {
            clubs[s.sessionID, default: []].append(s.analysis.club)
        }
        return SessionListResult(sessions: sessions.map { SessionRow(session: $0, clubs: clubs[$0.id] ?? []) })
    }

    public func session(_ id: Int64, includeShots: Bool = false) throws(PracticeError) -> SessionDetail {
        guard let session = try storeCall({ try store.session(id: id) }) else {
            throw .notFound("no session \(id); `practice sessions` lists them")
        }
        var clubs: [ClubResult] = []
        for s in try storeCall({ try store.subsessions(sessionID: id, club: nil) }) {
            var name: String? = nil
            if let hash = s.analysis.templateHash { name = try library.row(hash: hash).displayName }
            clubs.append(ClubResult(analysis: s.analysis, templateName: name))
        }
        var shots: [ShotRow]? = nil
        if includeShots {
            shots = try storeCall { try store.shots(sessionID: id) }.map {
                ShotRow(rowIndex: $0.rowIndex, club: $0.club, grade: $0.grade, measurements: $0.measurements, raw: $0.rawJSON)
            }
        }
        return SessionDetail(session: session, clubs: clubs, shots: shots)
    }

    /// Parses a session id argument.
    public static func sessionID(_ text: String) throws(PracticeError) -> Int64 {
        guard let id = Int64(text.trimmingSpaces()), id > 0 else {
            throw .usage("'\(text)' is not a session id; use the number `practice sessions` shows")
        }
        return id
    }

    /// `practice export ID`: the session summary as canonical JSON (raid-v2) with its hash.
    public func export(_ id: Int64) throws(PracticeError) -> SessionSummary {
        let detail = try session(id)
        // The import's analysis of each club: a later re-grade never changes the summary's hash.
        var seen: Set<String> = []
        let imported = detail.clubs.filter { seen.insert($0.analysis.club).inserted }
        return try SessionSummary(SessionDetail(session: detail.session, clubs: imported))
    }
}

/// A portable session summary: no local ids, no template display names, no generation time, so
/// the same facts always give the same bytes and the same hash.
public struct SessionSummary: Sendable, Equatable, Codable {
    public static let kind = "clubhouse.practice.session_summary"
    public static let schemaVersion = "1.0"

    public let document: JSONValue
    /// raid-v2 canonical JSON of `document`.
    public let canonicalJSON: String
    public let sha256: String

    enum CodingKeys: String, CodingKey { case document = "summary", canonicalJSON = "canonical_json", sha256 }

    public var text: String { canonicalJSON + "\n" }

    init(_ detail: SessionDetail) throws(PracticeError) {
        let s = detail.session
        func averages(_ a: MetricAverages) -> JSONValue {
            var means = JSONObject()
            for metric in ShotMetric.allCases { if let v = a.means[metric] { means[metric.rawValue] = .double(v) } }
            return ["shot_count": .int(a.shotCount), "means": .object(means)]
        }
        let clubs: [JSONValue] = detail.clubs.map { c in
            let a = c.analysis
            var o = JSONObject()
            o["club"] = .string(a.club)
            o["kpi_template_hash"] = a.templateHash.map(JSONValue.string) ?? .null
            o["shot_count"] = .int(a.shotCount)
            o["a_count"] = a.aCount.map(JSONValue.int) ?? .null
            o["b_count"] = a.bCount.map(JSONValue.int) ?? .null
            o["c_count"] = a.cCount.map(JSONValue.int) ?? .null
            o["validity"] = .string(a.validity.rawValue)
            o["a_percentage"] = a.aPercent.map(JSONValue.double) ?? .null
            o["averages_all_shots"] = averages(a.averagesAll)
            o["averages_a_only"] = a.averagesAOnly.map(averages) ?? .null
            return .object(o)
        }
        var root = JSONObject()
        root["kind"] = .string(Self.kind)
        root["schema_version"] = .string(Self.schemaVersion)
        root["source_sha256"] = .string(s.contentHash)
        root["session_date"] = s.sessionDate.map(JSONValue.string) ?? .null
        root["location"] = s.location.map(JSONValue.string) ?? .null
        root["shot_count"] = .int(s.shotCount)
        root["clubs"] = .array(clubs)
        document = .object(root)
        do {
            let bytes = try CanonicalJSON.bytes(of: document, profile: .raidV2)
            canonicalJSON = String(decoding: bytes, as: UTF8.self)
            sha256 = SHA256.hash(bytes).hex
        } catch {
            throw .storage("session \(s.id) has a value JSON can't hold (\(error))")
        }
    }
}
