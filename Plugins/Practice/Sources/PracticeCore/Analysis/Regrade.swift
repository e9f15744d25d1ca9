/// `practice regrade --template REF (--session ID | --all)`: grades stored shots again under another
/// template and appends the result as a new analysis of each club sub-session. Shots and earlier
/// analyses are facts and stay as they are; a trend picks the analysis it shows by template hash
/// (`practice trends --template`). All the new analyses are written in one transaction.
public struct RegradeRequest: Sendable, Equatable {
    /// Hash, unique hash prefix or display name of a stored template.
    public var template: String
    /// One session, or nil with `all`.
    public var sessionID: Int64?
    /// Every session that has shots of the template's club.
    public var all: Bool

    public init(template: String, sessionID: Int64? = nil, all: Bool = false) {
        self.template = template
        self.sessionID = sessionID
        self.all = all
    }
}

/// One session's outcome in a re-grade.
public struct RegradedSession: Sendable, Equatable, Codable {
    public let sessionID: Int64
    /// The new analysis; nil when the session already had one under this template.
    public let analysis: SubsessionAnalysis?
    /// The analysis at import (what the session was first graded with), for comparison.
    public let importAnalysis: SubsessionAnalysis?

    enum CodingKeys: String, CodingKey { case sessionID = "session_id", analysis, importAnalysis = "import_analysis" }
}

public struct RegradeResult: Sendable, Equatable, Codable {
    public let templateHash: String
    public let club: String
    /// Sessions that got a new analysis.
    public let regraded: [RegradedSession]
    /// Sessions already analyzed under this template (left alone).
    public let alreadyGraded: [Int64]
    /// Shots graded in this run.
    public let shotsGraded: Int

    enum CodingKeys: String, CodingKey {
        case templateHash = "template_hash", club, regraded, alreadyGraded = "already_graded", shotsGraded = "shots_graded"
    }

    public var text: String {
        var lines = ["re-graded \(regraded.count) \(club) sub-session\(regraded.count == 1 ? "" : "s") (\(shotsGraded) shots) "
            + "under template \(templateHash.prefix(12)); shots and earlier analyses are unchanged"]
        if !regraded.isEmpty {
            var table = TextTable(["SESSION", "SHOTS", "A", "B", "C", "A%", "A% AT IMPORT", "IMPORT TEMPLATE"])
            for r in regraded {
                guard let a = r.analysis else { continue }
                let i = r.importAnalysis
                table.add([String(r.sessionID), String(a.shotCount), a.aCount.map(String.init) ?? "-",
                           a.bCount.map(String.init) ?? "-", a.cCount.map(String.init) ?? "-",
                           a.aPercent.map { fixed($0, 1) } ?? "-", i?.aPercent.map { fixed($0, 1) } ?? "-",
                           i?.templateHash.map { String($0.prefix(12)) } ?? "none"])
            }
            lines.append(table.render())
        }
        if !alreadyGraded.isEmpty {
            lines.append("already graded under this template: session" + (alreadyGraded.count == 1 ? " " : "s ")
                + alreadyGraded.map(String.init).joined(separator: ", "))
        }
        lines.append("see it with: practice trends --club \(club) --template \(templateHash.prefix(12))")
        return lines.joined(separator: "\n") + "\n"
    }
}

public struct Regrader {
    public let library: TemplateLibrary

    public init(library: TemplateLibrary) { self.library = library }

    var store: any PracticeStore { library.store }

    /// `cancelled` is asked before each session is graded; when it says yes, nothing is written.
    public func run(_ request: RegradeRequest, progress: ((Int, Int) -> Void)? = nil,
                    cancelled: () -> Bool = { false }) throws(PracticeError) -> RegradeResult {
        switch (request.sessionID, request.all) {
        case (nil, false): throw .usage("regrade needs \(field: "session") ID or \(field: "all") (which sessions to grade again)")
        case (.some, true): throw .usage("give either \(field: "session") ID or \(field: "all"), not both")
        default: break
        }
        try library.ensureDefaults()
        let stored = try library.resolve(request.template)
        let template = try KPITemplate.stored(canonicalJSON: stored.canonicalJSON, hash: stored.hash)
        let club = template.club
        let rows = try storeCall { try store.subsessions(sessionID: request.sessionID, club: nil) }
        if let id = request.sessionID {
            guard try storeCall({ try store.session(id: id) }) != nil else {
                throw .notFound("no session \(id); `practice sessions` lists them")
            }
            guard rows.contains(where: { $0.analysis.club == club }) else {
                let clubs = Set(rows.map(\.analysis.club)).sorted().joined(separator: ", ")
                throw .usage("session \(id) has no \(club) shots (clubs: \(clubs.isEmpty ? "none" : clubs)); "
                    + "template \(stored.hash.prefix(12)) grades \(club)")
            }
        }
        // Sessions with the club, in id order; the first analysis of each is the import's.
        var importAnalysis: [Int64: SubsessionAnalysis] = [:]
        var graded: Set<Int64> = []
        var sessionIDs: [Int64] = []
        for row in rows where row.analysis.club == club {
            if importAnalysis[row.sessionID] == nil {
                importAnalysis[row.sessionID] = row.analysis
                sessionIDs.append(row.sessionID)
            }
            if row.analysis.templateHash == stored.hash { graded.insert(row.sessionID) }
        }
        if sessionIDs.isEmpty { throw .notFound("no session has \(club) shots; nothing was re-graded") }
        var appended: [AppendedAnalysis] = []
        var regraded: [RegradedSession] = []
        var already: [Int64] = []
        var shotCount = 0
        for (n, id) in sessionIDs.enumerated() {
            if cancelled() {
                throw .cancelled("re-grade stopped after \(n) of \(sessionIDs.count) sessions; nothing was written "
                    + "(the re-grade is one transaction) — run it again to grade them")
            }
            if graded.contains(id) {
                already.append(id)
                continue
            }
            // A value an older version stored outside its plausible range is not a measurement: it grades
            // as missing (ShotMetric.plausibleRange).
            let measurements = try storeCall { try store.measurements(sessionID: id, club: club) }.map { $0.plausible.measurements }
            let (analysis, _) = SubsessionAnalysis.analyze(club: club, shots: measurements, template: template)
            shotCount += measurements.count
            appended.append(AppendedAnalysis(sessionID: id, analysis: analysis))
            regraded.append(RegradedSession(sessionID: id, analysis: analysis, importAnalysis: importAnalysis[id]))
            progress?(n + 1, sessionIDs.count)
        }
        // The last look before the one write: a stop asked for during the last session still counts.
        if cancelled() {
            throw .cancelled("re-grade stopped before writing its \(appended.count) analyses; nothing was written — run it again to grade them")
        }
        if !appended.isEmpty { try storeCall { try store.appendAnalyses(appended) } }
        return RegradeResult(templateHash: stored.hash, club: club, regraded: regraded, alreadyGraded: already, shotsGraded: shotCount)
    }
}
