import ClubhouseJSON

/// A template as the template commands show it.
public struct TemplateRow: Sendable, Equatable, Codable {
    public let hash: String
    public let club: String
    /// The display name the user chose, else the template's own `name`, else nil.
    public let displayName: String?
    public let source: TemplateSource
    public let active: Bool
    public let hidden: Bool
    public let insertedAt: String
    public let thresholds: [MetricThreshold]

    /// The first 12 hex digits, enough to refer to it.
    public var shortHash: String { String(hash.prefix(12)) }

    enum CodingKeys: String, CodingKey {
        case hash, club, displayName = "display_name", source, active, hidden, insertedAt = "inserted_at", thresholds
    }

    /// `ball_speed ≥ 108 (B ≥ 101), spin_rate ≤ 3000 (B ≤ 3500)`.
    public var thresholdSummary: String {
        thresholds.map { t in
            let op = t.direction == .higherIsBetter ? "≥" : "≤"
            let b = t.b.map { " (B \(op) \(TemplateRow.format($0)))" } ?? ""
            return "\(t.metric.rawValue) \(op) \(TemplateRow.format(t.a))\(b)"
        }.joined(separator: ", ")
    }

    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}

/// What `template add` and `template duplicate` report.
public struct TemplateAddResult: Sendable, Equatable, Codable {
    public let template: TemplateRow
    /// True when the same content (same hash) was already in the library: nothing was inserted.
    public let alreadyStored: Bool
    /// True when the template became its club's active template.
    public let activated: Bool
    public let warnings: [String]

    enum CodingKeys: String, CodingKey { case template, alreadyStored = "already_stored", activated, warnings }

    public var text: String {
        var lines = [alreadyStored
            ? "template \(template.hash) is already in the library (\(template.club)); nothing added"
            : "added template \(template.hash) for \(template.club)"]
        if activated { lines.append("it is now the active template for \(template.club)") }
        lines += warnings.map { "warning: \($0)" }
        return lines.joined(separator: "\n") + "\n"
    }
}

public struct TemplateListResult: Sendable, Equatable, Codable {
    public let templates: [TemplateRow]
    public let includesHidden: Bool

    enum CodingKeys: String, CodingKey { case templates, includesHidden = "includes_hidden" }

    public var text: String {
        guard !templates.isEmpty else { return "no templates; add one with `practice template add FILE`\n" }
        var table = TextTable(["HASH", "CLUB", "NAME", "SOURCE", "ACTIVE", "THRESHOLDS"])
        for t in templates {
            table.add([t.shortHash, t.club, t.displayName ?? "-", t.source.rawValue + (t.hidden ? " (hidden)" : ""),
                       t.active ? "*" : "", t.thresholdSummary])
        }
        return table.render()
    }
}

public struct TemplateDetail: Sendable, Equatable, Codable {
    public let template: TemplateRow
    /// The canonical JSON the hash is of.
    public let canonicalJSON: String

    enum CodingKeys: String, CodingKey { case template, canonicalJSON = "canonical_json" }

    public var text: String {
        var lines = [
            "template \(template.hash)",
            "club:       \(template.club)",
            "name:       \(template.displayName ?? "-")",
            "source:     \(template.source.rawValue)\(template.hidden ? ", hidden" : "")\(template.active ? ", active" : "")",
            "inserted:   \(template.insertedAt)",
            "grading:    worst metric",
        ]
        for t in template.thresholds {
            let op = t.direction == .higherIsBetter ? "≥" : "≤"
            let unit = t.metric.unit.label
            let b = t.b.map { "B \(op) \(TemplateRow.format($0))\(unit.isEmpty ? "" : " " + unit)" } ?? "no B band"
            lines.append("  \(t.metric.rawValue): A \(op) \(TemplateRow.format(t.a))\(unit.isEmpty ? "" : " " + unit), \(b), else C")
        }
        lines.append("canonical:  \(canonicalJSON)")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The template commands over a store: add (insert once, hash once), list, show, activate, hide,
/// rename, duplicate. Bundled defaults are inserted on first use; they never displace a template
/// the user added.
public struct TemplateLibrary {
    public let store: any PracticeStore
    /// The current time as ISO 8601 text (injected so tests are repeatable).
    public let now: @Sendable () -> String

    /// Whether this library has checked the bundled templates are stored (once per library).
    private let defaults = DefaultsState()

    private final class DefaultsState {
        var ensured = false
    }

    public init(store: any PracticeStore, now: @escaping @Sendable () -> String) {
        self.store = store
        self.now = now
    }

    /// Inserts the bundled templates that are not stored yet.
    public func ensureDefaults() throws(PracticeError) {
        if defaults.ensured { return }
        let stored = Set(try storeCall { try store.templates() }.map(\.hash))
        let missing = try DefaultTemplates.templates().filter { !stored.contains($0.hash) }
        // All the defaults or none: a failure half-way must not leave some clubs without theirs.
        try storeCall {
            try store.transaction {
                for template in missing {
                    try store.insertTemplate(StoredTemplate(hash: template.hash, club: template.club,
                                                            canonicalJSON: template.canonicalJSON, source: .bundled,
                                                            insertedAt: now()))
                }
            }
        }
        defaults.ensured = true
    }

    /// `template add FILE`: validates, hashes once, inserts once. The first template a user adds
    /// for a club becomes its active one.
    public func add(_ bytes: [UInt8], sourceName: String) throws(PracticeError) -> TemplateAddResult {
        try ensureDefaults()
        let template = try KPITemplate.parse(bytes, sourceName: sourceName)
        return try insert(template)
    }

    func insert(_ template: KPITemplate) throws(PracticeError) -> TemplateAddResult {
        if try storeCall({ try store.template(hash: template.hash) }) != nil {
            return TemplateAddResult(template: try row(hash: template.hash), alreadyStored: true, activated: false,
                                     warnings: template.warnings)
        }
        // The template and, for a club's first, its activation: one transaction (both or neither).
        let activated = try storeCall {
            try store.transaction { () throws -> Bool in
                try store.insertTemplate(StoredTemplate(hash: template.hash, club: template.club, canonicalJSON: template.canonicalJSON,
                                                        source: .user, insertedAt: now()))
                guard try store.activeTemplates()[template.club] == nil else { return false }
                try store.setActiveTemplate(club: template.club, hash: template.hash)
                return true
            }
        }
        return TemplateAddResult(template: try row(hash: template.hash), alreadyStored: false, activated: activated,
                                 warnings: template.warnings)
    }

    /// `template list [--club C] [--all]`: hidden templates only with `includeHidden`.
    public func list(club: String? = nil, includeHidden: Bool = false) throws(PracticeError) -> TemplateListResult {
        try ensureDefaults()
        let key = try club.map { (c) throws(PracticeError) in try ClubName.option(c) }
        let rows = try allRows().filter { (includeHidden || !$0.hidden) && (key == nil || $0.club == key) }
        return TemplateListResult(templates: rows, includesHidden: includeHidden)
    }

    /// `template show REF`.
    public func show(_ reference: String) throws(PracticeError) -> TemplateDetail {
        try ensureDefaults()
        let stored = try resolve(reference)
        return TemplateDetail(template: try row(hash: stored.hash), canonicalJSON: stored.canonicalJSON)
    }

    /// `template activate REF`: makes it the active template of its club.
    public func activate(_ reference: String) throws(PracticeError) -> TemplateRow {
        try ensureDefaults()
        let stored = try resolve(reference)
        if stored.hidden {
            throw .conflict("template \(stored.hash.prefix(12)) is hidden; unhide it (template hide \(stored.hash.prefix(12)) \(field: "unhide")) before activating it")
        }
        try storeCall { try store.setActiveTemplate(club: stored.club, hash: stored.hash) }
        return try row(hash: stored.hash)
    }

    /// `template hide REF [--unhide]`: hidden templates leave the list but keep grading history.
    public func hide(_ reference: String, hidden: Bool = true) throws(PracticeError) -> TemplateRow {
        try ensureDefaults()
        let stored = try resolve(reference)
        if hidden, try activeHash(for: stored.club) == stored.hash {
            throw .conflict("template \(stored.hash.prefix(12)) is the active template for \(stored.club); activate another one first")
        }
        try storeCall { try store.setTemplatePreferences(hash: stored.hash, displayName: stored.displayName, hidden: hidden) }
        return try row(hash: stored.hash)
    }

    /// `template rename REF NAME`: sets the display name (an empty name clears it). The content,
    /// and so the hash, never changes.
    public func rename(_ reference: String, to name: String) throws(PracticeError) -> TemplateRow {
        try ensureDefaults()
        let stored = try resolve(reference)
        let trimmed = name.trimmingSpaces()
        guard trimmed.count <= 80 else { throw .usage("a template name has at most 80 characters; this one has \(trimmed.count)") }
        if !trimmed.isEmpty { try checkNameIsFree(trimmed, except: stored.hash) }
        try storeCall {
            try store.setTemplatePreferences(hash: stored.hash, displayName: trimmed.isEmpty ? nil : trimmed, hidden: stored.hidden)
        }
        return try row(hash: stored.hash)
    }

    /// `template duplicate REF [--club C] [--name N] [--set metric.key=value …]`: a new template
    /// from an existing one with changes (templates are immutable, so this is how one is edited).
    public func duplicate(_ reference: String, club: String? = nil, name: String? = nil,
                          changes: [String] = []) throws(PracticeError) -> TemplateAddResult {
        try ensureDefaults()
        let stored = try resolve(reference)
        guard var root = (try? JSONParser.parse(stored.canonicalJSON))?.objectValue else {
            throw .storage("stored template \(stored.hash) is not valid JSON; the database is damaged")
        }
        if let club {
            root["club"] = .string(try ClubName.option(club))
        }
        let newName = name?.trimmingSpaces()
        if let newName { root["name"] = newName.isEmpty ? nil : .string(newName) }
        for change in changes {
            let parts = change.split(separator: "=", maxSplits: 1).map(String.init)
            let path = parts.first?.split(separator: ".").map(String.init) ?? []
            guard parts.count == 2, path.count == 2, let value = Double(parts[1]), value.isFinite else {
                throw .usage("\(field: "set") \(change) is not metric.key=number (e.g. ball_speed.a_min=105)")
            }
            var metrics = root["metrics"]?.objectValue ?? JSONObject()
            var metric = metrics[path[0]]?.objectValue ?? JSONObject()
            metric[path[1]] = .double(value)
            metrics[path[0]] = .object(metric)
            root["metrics"] = .object(metrics)
        }
        let template = try KPITemplate.parse(JSONWriter.pretty(.object(root)), sourceName: "duplicate of \(stored.hash.prefix(12))")
        if template.hash == stored.hash {
            throw .usage("the duplicate would be identical to \(stored.hash.prefix(12)); change the club, the name or a threshold (\(field: "set") metric.key=value)")
        }
        if let newName, !newName.isEmpty { try checkNameIsFree(newName, except: template.hash) }
        return try insert(template)
    }

    /// The name a template is referred to by: its display name, else the name inside it.
    func effectiveName(_ stored: StoredTemplate) -> String? {
        stored.displayName ?? templateName(stored)
    }

    /// Refuses `name` when another template (hidden ones too) is already called so: a name must
    /// stay a reference to one template.
    func checkNameIsFree(_ name: String, except hash: String) throws(PracticeError) {
        let all = try storeCall { try store.templates() }
        guard let other = all.first(where: { $0.hash != hash && effectiveName($0) == name }) else { return }
        throw .conflict("template \(other.hash.prefix(12)) (\(other.club)\(other.hidden ? ", hidden" : "")) is already named '\(name)'; "
            + "choose another name, or rename that one first (practice template rename \(other.hash.prefix(12)) NEW-NAME)")
    }

    /// The template a club's shots are graded with when the import names none: the one the user
    /// made active, else the bundled default for the club, else none.
    public func activeTemplate(for club: String) throws(PracticeError) -> KPITemplate? {
        try ensureDefaults()
        guard let hash = try activeHash(for: club), let stored = try storeCall({ try store.template(hash: hash) }) else { return nil }
        return try KPITemplate.stored(canonicalJSON: stored.canonicalJSON, hash: stored.hash)
    }

    func activeHash(for club: String) throws(PracticeError) -> String? {
        if let chosen = try storeCall({ try store.activeTemplates() })[club] { return chosen }
        return try storeCall({ try store.templates() }).first { $0.source == .bundled && $0.club == club }?.hash
    }

    /// A template by full hash, unique hash prefix (at least 4 digits) or exact display name.
    public func resolve(_ reference: String) throws(PracticeError) -> StoredTemplate {
        let ref = reference.trimmingSpaces()
        let all = try storeCall { try store.templates() }
        let lower = ref.lowercased()
        if lower.count == 64, let exact = all.first(where: { $0.hash == lower }) { return exact }
        var matches: [StoredTemplate] = []
        if lower.count >= 4, lower.allSatisfy({ $0.isHexDigit }) {
            matches = all.filter { $0.hash.hasPrefix(lower) }
        }
        if matches.isEmpty {
            matches = all.filter { $0.displayName == ref || (templateName($0) == ref && $0.displayName == nil) }
        }
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty {
            throw .notFound("no template matches '\(ref)'; give a hash (or its first digits) or a name from `practice template list --all`")
        }
        let listed = matches.prefix(4).map { String($0.hash.prefix(12)) }.joined(separator: ", ")
        throw .conflict("'\(ref)' matches \(matches.count) templates (\(listed)); give more digits of the hash")
    }

    func templateName(_ stored: StoredTemplate) -> String? {
        (try? JSONParser.parse(stored.canonicalJSON))?["name"]?.stringValue
    }

    func allRows() throws(PracticeError) -> [TemplateRow] {
        let stored = try storeCall { try store.templates() }
        var rows: [TemplateRow] = []
        for s in stored { rows.append(try makeRow(s)) }
        return rows
    }

    func row(hash: String) throws(PracticeError) -> TemplateRow {
        guard let stored = try storeCall({ try store.template(hash: hash) }) else {
            throw .notFound("no template \(hash.prefix(12)) is stored")
        }
        return try makeRow(stored)
    }

    private func makeRow(_ stored: StoredTemplate) throws(PracticeError) -> TemplateRow {
        let template = try KPITemplate.stored(canonicalJSON: stored.canonicalJSON, hash: stored.hash)
        return TemplateRow(hash: stored.hash, club: stored.club, displayName: stored.displayName ?? template.name,
                           source: stored.source, active: try activeHash(for: stored.club) == stored.hash,
                           hidden: stored.hidden, insertedAt: stored.insertedAt, thresholds: template.thresholds)
    }
}

/// Runs a store call, turning its errors into one-line `PracticeError`s.
func storeCall<T>(_ body: () throws -> T) throws(PracticeError) -> T {
    do {
        return try body()
    } catch let error as PracticeError {
        throw error
    } catch let error as PracticeStoreError {
        switch error {
        case .duplicateSession, .duplicateTemplate: throw .conflict(error.description)
        case .unknownTemplate, .unknownSession: throw .notFound(error.description)
        case .duplicateAnalysis, .liveSessionNotOpen, .duplicateLiveShot, .liveRecorded: throw .conflict(error.description)
        }
    } catch {
        throw .storage("storage failed: \(error)")
    }
}
