/// A `--template` argument of `practice import`: a template file to add, or a stored one by hash
/// or name.
import ClubhouseHashing
public enum TemplateArgument: Sendable, Equatable {
    case file(name: String, bytes: [UInt8])
    case reference(String)
}

/// `practice import CSV [--template …] [--date …] [--location …]`.
public struct ImportRequest: Sendable {
    public var csv: [UInt8]
    public var sourceName: String
    public var templates: [TemplateArgument]
    /// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`; defaults to the date in the export's title row.
    public var date: String?
    public var location: String?
    /// Keep the good rows of a file with bad ones (listed in the result) instead of refusing it.
    public var skipBadRows: Bool

    public init(csv: [UInt8], sourceName: String, templates: [TemplateArgument] = [], date: String? = nil,
                location: String? = nil, skipBadRows: Bool = false) {
        self.skipBadRows = skipBadRows
        self.csv = csv
        self.sourceName = sourceName
        self.templates = templates
        self.date = date
        self.location = location
    }
}

/// Where a long import is.
public struct ImportProgress: Sendable, Equatable {
    public enum Phase: String, Sendable { case reading, writing }
    public let phase: Phase
    public let done: Int
    public let total: Int
}

/// A club of an imported session, with the name of the template that graded it.
public struct ClubResult: Sendable, Equatable, Codable {
    public let analysis: SubsessionAnalysis
    public let templateName: String?

    enum CodingKeys: String, CodingKey { case analysis, templateName = "template_name" }
}

public struct ImportResult: Sendable, Equatable, Codable {
    public let session: StoredSession
    public let clubs: [ClubResult]
    public let footerRows: Int
    public let repeatedHeaders: Int
    public let blankRows: Int
    /// Rows left out under `--skip-bad-rows`, by line.
    public var badRows: [BadRow] = []

    enum CodingKeys: String, CodingKey {
        case session, clubs, footerRows = "footer_rows", repeatedHeaders = "repeated_headers", blankRows = "blank_rows"
        case badRows = "bad_rows"
    }

    public var text: String {
        var lines = ["imported \(session.sourceName) as session \(session.id): \(session.shotCount) shot\(session.shotCount == 1 ? "" : "s"), "
            + "\(clubs.count) club\(clubs.count == 1 ? "" : "s")"
            + (session.sessionDate.map { ", \($0)" } ?? "") + (session.location.map { ", \($0)" } ?? "")]
        var skipped: [String] = []
        if footerRows > 0 { skipped.append("\(footerRows) footer row\(footerRows == 1 ? "" : "s")") }
        if repeatedHeaders > 0 { skipped.append("\(repeatedHeaders) repeated header\(repeatedHeaders == 1 ? "" : "s")") }
        if !skipped.isEmpty { lines.append("skipped " + skipped.joined(separator: " and ")) }
        if !badRows.isEmpty {
            lines.append("left out \(badRows.count) bad row\(badRows.count == 1 ? "" : "s") (--skip-bad-rows):")
            lines += badRows.map { "  line \($0.location): \($0.reason)" }
        }
        lines.append(SubsessionText.table(clubs))
        return lines.joined(separator: "\n")
    }
}

/// Imports one MLM2PRO file as one session: parse, grade each club with its template, write
/// session, sub-sessions and shots in one transaction. The same file (same content hash) is
/// refused the second time.
///
/// Duplicates are found by the session's canonical content (`canonicalContent`): the same export
/// saved with a BOM, CRLF line endings or trailing whitespace is the same session. Since 1.2.0 a
/// new session's `content_hash` is the SHA-256 of that canonical content; sessions imported before
/// keep theirs (the SHA-256 of the file's bytes, which is the same value for a file already in
/// canonical form), and an import also looks the file's byte hash up, so re-importing the very file
/// of an older session is still refused. No stored hash changes and no migration is needed.
public struct SessionImporter {
    public let library: TemplateLibrary

    public init(library: TemplateLibrary) { self.library = library }

    public var store: any PracticeStore { library.store }

    /// `cancelled` is asked after reading the file and before writing it; when it says yes, nothing
    /// is written (the write itself is one transaction and runs to its end once begun).
    public func run(_ request: ImportRequest, progress: ((ImportProgress) -> Void)? = nil,
                    cancelled: () -> Bool = { false }) throws(PracticeError) -> ImportResult {
        let contentHash = SHA256.hash(Self.canonicalContent(request.csv)).hex
        let byteHash = SHA256.hash(request.csv).hex
        if let existing = try storeCall({
            try store.session(contentHash: contentHash) ?? (byteHash == contentHash ? nil : store.session(contentHash: byteHash))
        }) {
            throw .conflict("\(request.sourceName): already imported as session \(existing.id) "
                + "(\(existing.sessionDate ?? existing.importedAt), content hash \(contentHash.prefix(12))…); "
                + "importing it again would duplicate its shots, so nothing was written; see it with `practice session \(existing.id)`, "
                + "or delete it (`practice session delete \(existing.id)`) to import the file anew")
        }
        let date = try request.date.map { (d) throws(PracticeError) in try Self.checkedDate(d) }
        let export = try RapsodoParser.parse(request.csv, sourceName: request.sourceName,
                                             skipBadRows: request.skipBadRows) { done, total in
            progress?(ImportProgress(phase: .reading, done: done, total: total))
        }
        func stopIfCancelled() throws(PracticeError) {
            if cancelled() {
                throw .cancelled("\(request.sourceName): import stopped before its shots were written; nothing was written "
                    + "— run it again to import the file")
            }
        }
        try stopIfCancelled()
        try library.ensureDefaults()
        let clubOrder = export.clubs
        let explicit = try explicitTemplates(request.templates, clubs: clubOrder, sourceName: request.sourceName)

        // Group shots by club (as indices), in order of first appearance.
        var indicesByClub: [String: [Int]] = [:]
        for (i, shot) in export.shots.enumerated() { indicesByClub[shot.club, default: []].append(i) }
        var analyses: [SubsessionAnalysis] = []
        var clubs: [ClubResult] = []
        var grades = [Grade?](repeating: nil, count: export.shots.count)
        for club in clubOrder {
            let indices = indicesByClub[club] ?? []
            var template = explicit[club]
            if template == nil { template = try library.activeTemplate(for: club) }
            let (analysis, shotGrades) = SubsessionAnalysis.analyze(club: club, shots: indices.map { export.shots[$0].measurements },
                                                                    template: template)
            if let shotGrades {
                for (i, grade) in zip(indices, shotGrades) { grades[i] = grade }
            }
            analyses.append(analysis)
            var name: String? = nil
            if let hash = template?.hash { name = try library.row(hash: hash).displayName }
            clubs.append(ClubResult(analysis: analysis, templateName: name))
        }
        let shots = export.shots.enumerated().map { i, shot in
            StoredShot(rowIndex: shot.rowIndex, club: shot.club, measurements: shot.measurements, grade: grades[i],
                       rawJSON: shot.rawJSON)
        }
        let batch = SessionBatch(contentHash: contentHash, sourceName: request.sourceName, importedAt: library.now(),
                                 sessionDate: date ?? export.title?.date, location: request.location,
                                 title: export.title?.sessionName, sourceColumns: export.columns, subsessions: analyses,
                                 shots: shots)
        try stopIfCancelled()
        let session = try storeCall {
            try store.insertSession(batch) { done, total in progress?(ImportProgress(phase: .writing, done: done, total: total)) }
        }
        return ImportResult(session: session, clubs: clubs, footerRows: export.footerRows,
                            repeatedHeaders: export.repeatedHeaders, blankRows: export.blankRows, badRows: export.badRows)
    }

    /// The canonical content of an export, what its duplicate hash is taken of: without a UTF-8 BOM,
    /// with every line ending (CRLF, CR, LF) as LF, without spaces and tabs at the end of a line,
    /// without blank lines at the end, and ending with one LF. A file already so is returned as is.
    public static func canonicalContent(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 1)
        var i = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        var lineStart = 0
        func endLine() {
            var end = out.count
            while end > lineStart && (out[end - 1] == 0x20 || out[end - 1] == 0x09) { end -= 1 }
            out.removeSubrange(end...)
            out.append(0x0A)
            lineStart = out.count
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0D {
                endLine()
                if i + 1 < bytes.count && bytes[i + 1] == 0x0A { i += 1 }
            } else if b == 0x0A {
                endLine()
            } else {
                out.append(b)
            }
            i += 1
        }
        if out.count > lineStart { endLine() }
        while out.count >= 2 && out[out.count - 1] == 0x0A && out[out.count - 2] == 0x0A { out.removeLast() }
        if out == [0x0A] { out.removeAll() }
        return out
    }

    /// The `--template` arguments by club: files are added to the library first (insert once).
    func explicitTemplates(_ arguments: [TemplateArgument], clubs: [String],
                           sourceName: String) throws(PracticeError) -> [String: KPITemplate] {
        var result: [String: KPITemplate] = [:]
        for argument in arguments {
            let template: KPITemplate
            switch argument {
            case .file(let name, let bytes):
                let added = try library.add(bytes, sourceName: name)
                template = try KPITemplate.parse(bytes, sourceName: name)
                assert(added.template.hash == template.hash)
            case .reference(let reference):
                let stored = try library.resolve(reference)
                template = try KPITemplate.stored(canonicalJSON: stored.canonicalJSON, hash: stored.hash)
            }
            guard clubs.contains(template.club) else {
                throw .usage("template \(template.hash.prefix(12)) grades \(template.club), but \(sourceName) has no "
                    + "\(template.club) shots (clubs: \(clubs.joined(separator: ", ")))")
            }
            if let other = result[template.club], other.hash != template.hash {
                throw .usage("two templates for \(template.club) (\(other.hash.prefix(12)) and \(template.hash.prefix(12))); "
                    + "give one \(field: "template") per club")
            }
            result[template.club] = template
        }
        return result
    }

    /// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` or `YYYY-MM-DD HH:MM`, as stored (with a `T`).
    static func checkedDate(_ text: String) throws(PracticeError) -> String {
        let t = text.trimmingSpaces().replacingOccurrences(of: " ", with: "T")
        let bytes = Array(t.utf8)
        func digits(_ r: Range<Int>) -> Int? {
            guard r.upperBound <= bytes.count, bytes[r].allSatisfy({ $0 &- 48 < 10 }) else { return nil }
            return bytes[r].reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        let ok: Bool = {
            guard bytes.count == 10 || bytes.count == 16, let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10),
                  bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), y >= 1900, (1...12).contains(m),
                  (1...31).contains(d) else { return false }
            if bytes.count == 16 {
                guard bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), let h = digits(11..<13),
                      let mi = digits(14..<16), h < 24, mi < 60 else { return false }
            }
            return true
        }()
        guard ok else { throw .usage("\(field: "date") '\(text)' is not a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM") }
        return t
    }
}
