import ClubhouseJSON
import Glibc

/// One shot row of an MLM2PRO export.
public struct RapsodoShot: Sendable, Equatable {
    /// 1-based line of the row in the file (unique within the file).
    public let rowIndex: Int
    /// The club, normalized (`ClubName`).
    public let club: String
    /// The club as the export wrote it.
    public let clubAsWritten: String
    public let measurements: ShotMeasurements
    /// The row verbatim: a JSON array of its cells as written, in column order (the columns are
    /// the export's `columns`). A row under a repeated header whose columns differ from the first
    /// is written as a JSON object of header → cell instead, so it stays self-describing.
    public let rawJSON: String
}

/// The title row: `"Rapsodo MLM2PRO: <name> - MM/DD/YYYY h:mm AM/PM"`.
public struct RapsodoTitle: Sendable, Equatable, Codable {
    public let text: String
    public let sessionName: String?
    /// ISO 8601 local date-time (`2026-01-27T16:30`), when the title carries a readable one.
    public let date: String?
}

/// A row of an export that is not a shot and cannot be read as one (wrong width, binary bytes, an
/// unknown club, a cell that is not a number): where it is and why.
public struct BadRow: Sendable, Equatable, Codable {
    /// 1-based line of the row in the file.
    public let line: Int
    /// 1-based column (characters) of the cell at fault, when one cell is.
    public let column: Int?
    public let reason: String

    public init(line: Int, column: Int? = nil, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `line:column` or `line`.
    public var location: String { column.map { "\(line):\($0)" } ?? String(line) }
}

/// A parsed MLM2PRO shot export.
public struct RapsodoExport: Sendable {
    public let title: RapsodoTitle?
    /// Header cells as written (of the first header).
    public let columns: [String]
    public let shots: [RapsodoShot]
    /// Rows that are not shots and were skipped on purpose.
    public let footerRows: Int
    public let repeatedHeaders: Int
    public let blankRows: Int
    /// Rows left out under `skipBadRows` (empty otherwise: a bad row refuses the file).
    public var badRows: [BadRow] = []

    /// The clubs in order of first appearance.
    public var clubs: [String] {
        var seen: Set<String> = []
        return shots.compactMap { seen.insert($0.club).inserted ? $0.club : nil }
    }
}

/// Reads Rapsodo MLM2PRO CSV exports: an optional title row, an 18-column header within the first
/// three rows (columns found by name; older exports may lack the last ones), shot rows, footers
/// (`Average`, `Std. Dev.`), and headers and footers repeated per club block.
///
/// A shot row must be text, as wide as its header (or wider with empty extra cells), name a known
/// club (`ClubName.recognized`) and hold numbers. A row that is not is a bad row: by default the
/// whole file is refused naming the first one by line (and counting the others); with
/// `skipBadRows` the good rows are kept and the bad ones listed in `RapsodoExport.badRows`.
public enum RapsodoParser {
    /// Columns without which a file can't be graded.
    public static let requiredColumns = ["Club Type", "Ball Speed", "Smash Factor", "Spin Rate", "Descent Angle"]
    static let footerNames: Set<String> = ["average", "std. dev.", "std dev", "std. dev", "std dev."]

    /// Parses `bytes`; `progress` receives (bytes read, total bytes) every few thousand rows.
    public static func parse(_ bytes: [UInt8], sourceName: String, skipBadRows: Bool = false,
                             progress: ((Int, Int) -> Void)? = nil) throws(PracticeError) -> RapsodoExport {
        var reader = CSVReader(bytes: bytes, sourceName: sourceName)
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard bytes[bom...].contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
            throw .invalidInput("\(sourceName): the file is empty; export a session from the MLM2PRO app as CSV")
        }
        var title: RapsodoTitle? = nil
        var header: Header? = nil
        var firstRows: [CSVRecord] = []
        // The header must be within the first three rows.
        while header == nil, firstRows.count < 3, let record = try reader.next() {
            firstRows.append(record)
            if let t = parseTitle(record) {
                title = t
            } else if isHeaderCandidate(record) {
                header = try Header(record, sourceName: sourceName)
            }
        }
        guard var current = header else {
            let line = firstRows.first?.line ?? 1
            throw .invalidInput("\(sourceName):\(line): no MLM2PRO header in the first 3 rows; expected a row with "
                + "\(requiredColumns.joined(separator: ", ")) (export the session as CSV from the MLM2PRO app)")
        }
        let columns = current.cells
        var shots: [RapsodoShot] = []
        shots.reserveCapacity(max(16, bytes.count / 110))
        var footers = 0, repeatedHeaders = 0, blanks = 0
        var rowsSinceProgress = 0
        // Club spellings repeat on every row: normalize each distinct one once.
        var clubNames = ClubNameCache()
        var badRows: [BadRow] = []
        while let record = try reader.next() {
            rowsSinceProgress += 1
            if rowsSinceProgress == 4096 {
                rowsSinceProgress = 0
                progress?(record.endOffset, reader.byteCount)
            }
            if record.isBlank { blanks += 1; continue }
            if let why = record.notText {
                badRows.append(BadRow(line: record.line, reason: why))
                continue
            }
            if parseTitle(record) != nil { continue }
            if isHeaderCandidate(record) {
                current = try Header(record, sourceName: sourceName)
                current.rowsAsArrays = current.cells == columns
                repeatedHeaders += 1
                continue
            }
            if isFooter(record, 0) || (current.clubColumn < record.count && isFooter(record, current.clubColumn)) {
                footers += 1
                continue
            }
            if record.count < current.cells.count {
                badRows.append(BadRow(line: record.line, reason: "the row has \(record.count) cells but the header (line "
                    + "\(current.line)) has \(current.cells.count); fill in the missing cells or delete the row"))
                continue
            }
            do throws(RowProblem) {
                shots.append(try current.shot(from: record, clubNames: &clubNames))
            } catch {
                badRows.append(BadRow(line: record.line, column: error.cell.map(record.column(ofCell:)), reason: error.reason))
            }
        }
        progress?(reader.byteCount, reader.byteCount)
        if let first = badRows.first {
            let lines = badRows.prefix(10).map { String($0.line) }.joined(separator: ", ") + (badRows.count > 10 ? ", …" : "")
            let count = badRows.count == 1 ? "" : " (\(badRows.count) bad rows: lines \(lines))"
            if !skipBadRows {
                throw .invalidInput("\(sourceName):\(first.location): \(first.reason)\(count); nothing was imported "
                    + "(\(field: "skip-bad-rows") imports the good rows and lists the bad ones)")
            }
            if shots.isEmpty {
                throw .invalidInput("\(sourceName):\(first.location): no good shot rows: \(first.reason)\(count); fix the rows")
            }
        }
        guard !shots.isEmpty else {
            throw .invalidInput("\(sourceName): no shots after the header (only footers or blank rows); "
                + "export a session that has shots")
        }
        return RapsodoExport(title: title, columns: columns, shots: shots, footerRows: footers,
                             repeatedHeaders: repeatedHeaders, blankRows: blanks, badRows: badRows)
    }

    static func isHeaderCandidate(_ record: CSVRecord) -> Bool {
        (0..<record.count).contains { i in
            // Cheap test first: shot cells are numbers and short club names.
            let maybe = record.withField(i) { cell in
                cell.count >= 9 && cell.contains { $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "t") }
            }
            return maybe && Header.columnKey(record.field(i)).name == "club type"
        }
    }

    /// `Average`, `Std. Dev.` or `Std Dev`, in any case, with spaces around.
    static func isFooter(_ record: CSVRecord, _ i: Int) -> Bool {
        let maybe = record.withField(i) { cell in
            guard let first = cell.first(where: { $0 != 0x20 && $0 != 0x09 }) else { return false }
            return first | 0x20 == UInt8(ascii: "a") || first | 0x20 == UInt8(ascii: "s")
        }
        return maybe && footerNames.contains(record.field(i).trimmingSpaces().lowercased())
    }

    /// The title row, if `record` is one.
    static func parseTitle(_ record: CSVRecord) -> RapsodoTitle? {
        let maybe = record.withField(0) { cell in
            cell.first(where: { $0 != 0x20 && $0 != 0x09 }).map { $0 | 0x20 == UInt8(ascii: "r") } ?? false
        }
        guard maybe else { return nil }
        let text = record.field(0).trimmingSpaces()
        let prefix = "rapsodo mlm2pro"
        guard text.lowercased().hasPrefix(prefix) else { return nil }
        var rest = Substring(text.dropFirst(prefix.count))
        if rest.first == ":" { rest = rest.dropFirst() }
        let body = String(rest).trimmingSpaces()
        // "<name> - MM/DD/YYYY h:mm AM/PM": the date follows the last " - ".
        guard let dash = body.ranges(of: " - ").last else {
            return RapsodoTitle(text: text, sessionName: body.isEmpty ? nil : body, date: nil)
        }
        let name = String(body[..<dash.lowerBound]).trimmingSpaces()
        let date = parseDate(String(body[dash.upperBound...]))
        return RapsodoTitle(text: text, sessionName: name.isEmpty ? nil : name, date: date)
    }

    /// `MM/DD/YYYY h:mm AM/PM` (or without the time) as `YYYY-MM-DDTHH:MM` / `YYYY-MM-DD`.
    static func parseDate(_ text: String) -> String? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard let datePart = parts.first else { return nil }
        let mdy = datePart.split(separator: "/")
        guard mdy.count == 3, let m = Int(mdy[0]), let d = Int(mdy[1]), let y = Int(mdy[2]),
              (1...12).contains(m), (1...31).contains(d), (1900...9999).contains(y) else { return nil }
        let day = "\(y)-\(pad2(m))-\(pad2(d))"
        guard parts.count >= 2 else { return day }
        let hm = parts[1].split(separator: ":")
        guard hm.count == 2, var h = Int(hm[0]), let minute = Int(hm[1]), (0...59).contains(minute) else { return day }
        if parts.count >= 3 {
            let meridiem = parts[2].uppercased()
            guard (1...12).contains(h) else { return day }
            if meridiem == "PM" && h != 12 { h += 12 }
            if meridiem == "AM" && h == 12 { h = 0 }
        }
        guard (0...23).contains(h) else { return day }
        return "\(day)T\(pad2(h)):\(pad2(minute))"
    }

    static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// A header row: which column holds what, in which unit.
    struct Header {
        let cells: [String]
        /// JSON keys for a raw row written as an object, unique (a repeated name gets " (2)"), each
        /// as `"key":` with the separator before it (none before the first), back to back.
        let rawKeys: [UInt8]
        let rawKeyRanges: [Range<Int>]
        /// Rows under this header are written as arrays (their columns are the export's columns).
        var rowsAsArrays = true
        let clubColumn: Int
        /// For each metric present: its column and the factor to the kernel's unit.
        let metricColumns: [(metric: ShotMetric, column: Int, factor: Double)]
        let line: Int

        init(_ record: CSVRecord, sourceName: String) throws(PracticeError) {
            cells = record.fields
            line = record.line
            var seen: [String: Int] = [:]
            var keys: [UInt8] = []
            var ranges: [Range<Int>] = []
            for (i, cell) in record.fields.enumerated() {
                let name = cell.trimmingSpaces()
                let n = (seen[name] ?? 0) + 1
                seen[name] = n
                let start = keys.count
                if i > 0 { keys.append(UInt8(ascii: ",")) }
                JSONWriter.appendQuoted(n == 1 ? name : "\(name) (\(n))", to: &keys)
                keys.append(UInt8(ascii: ":"))
                ranges.append(start..<keys.count)
            }
            rawKeys = keys
            rawKeyRanges = ranges
            var club: Int? = nil
            var metrics: [(ShotMetric, Int, Double)] = []
            var found: Set<String> = []
            for (i, cell) in record.fields.enumerated() {
                let key = Header.columnKey(cell)
                if key.name == "club type" && club == nil { club = i; found.insert("club type") }
                guard let metric = ShotMetric.allCases.first(where: { $0.columnName.lowercased() == key.name }),
                      !found.contains(key.name) else { continue }
                found.insert(key.name)
                var factor = 1.0
                if let unit = key.unit {
                    guard let f = metric.unit.factor(from: unit) else {
                        throw .invalidInput("\(sourceName):\(record.line): unknown unit '\(unit)' in column \"\(cell.trimmingSpaces())\"; "
                            + "write it in \(metric.unit.rawValue) or a unit convertible to it")
                    }
                    factor = f
                }
                metrics.append((metric, i, factor))
            }
            let missing = RapsodoParser.requiredColumns.filter { !found.contains($0.lowercased()) }
            guard missing.isEmpty, let clubColumn = club else {
                throw .invalidInput("\(sourceName):\(record.line): the header lacks \(missing.joined(separator: ", ")); "
                    + "an MLM2PRO export needs \(RapsodoParser.requiredColumns.joined(separator: ", "))")
            }
            self.clubColumn = clubColumn
            metricColumns = metrics.map { (metric: $0.0, column: $0.1, factor: $0.2) }
        }

        /// A header cell as a lowercase name and an optional unit: `Carry Distance (m)` →
        /// ("carry distance", "m"); `Ball Speed [mph]` → ("ball speed", "mph").
        static func columnKey(_ cell: String) -> (name: String, unit: String?) {
            var text = cell.trimmingSpaces().lowercased()
            var unit: String? = nil
            if let last = text.last, last == ")" || last == "]",
               let open = text.lastIndex(where: { $0 == "(" || $0 == "[" }) {
                unit = String(text[text.index(after: open)..<text.index(before: text.endIndex)]).trimmingSpaces()
                text = String(text[..<open]).trimmingSpaces()
            }
            let name = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            return (name, unit)
        }

        /// The shot of `record`; a row that can't be one throws its reason (without file:line) and the
        /// cell at fault.
        func shot(from record: CSVRecord, clubNames: inout ClubNameCache) throws(RowProblem) -> RapsodoShot {
            try record.withCells { (row) throws(RowProblem) -> RapsodoShot in
                try shot(row, line: record.line, clubNames: &clubNames)
            }
        }

        private func shot(_ row: CSVRecord.CellBytes, line rowLine: Int,
                          clubNames: inout ClubNameCache) throws(RowProblem) -> RapsodoShot {
            if row.count > cells.count, (cells.count..<row.count).contains(where: { row[$0].contains { $0 != 0x20 && $0 != 0x09 } }) {
                throw RowProblem("the row has \(row.count) cells but the header "
                    + "(line \(line)) has \(cells.count); remove the extra cells")
            }
            // Rows repeat their club: reuse the previous row's name when the bytes are the same.
            let clubCell = clubColumn < row.count ? RapsodoParser.trimmed(row[clubColumn]) : UnsafeBufferPointer(start: nil, count: 0)
            let clubWritten: String
            let recognized: String?
            if let last = clubNames.last, clubCell.elementsEqual(last.bytes) {
                (clubWritten, recognized) = (last.written, last.normalized)
            } else {
                clubWritten = String(decoding: clubCell, as: UTF8.self)
                recognized = ClubName.recognized(clubWritten)
                clubNames.last = (Array(clubCell), clubWritten, recognized)
            }
            guard !clubWritten.isEmpty else {
                throw RowProblem("the shot row has no Club Type; fill in the club or delete the row")
            }
            guard let club = recognized else {
                throw RowProblem("unknown club '\(clubWritten)'; write a known club such as 7i, 7 Iron, PW, 56°, "
                    + "Driver, 3 Wood, 4 Hybrid or Putter (see practice import --help)")
            }
            var measurements = ShotMeasurements()
            for (metric, column, factor) in metricColumns where column < row.count {
                switch RapsodoParser.number(row[column]) {
                case .empty: continue
                case .value(let value):
                    // -0.0 is a zero; the stored value never carries a sign on zero.
                    let v = value * factor
                    if let why = metric.implausibility(v) {
                        throw RowProblem(why + "; fix the cell, or leave it empty or -- for no value", cell: column)
                    }
                    measurements[metric] = v == 0 ? 0 : v
                case .invalid:
                    throw RowProblem("\(cells[column].trimmingSpaces()) is "
                        + "\"\(String(decoding: RapsodoParser.trimmed(row[column]), as: UTF8.self))\", not a number; "
                        + "fix the cell, or leave it empty or -- for no value", cell: column)
                }
            }
            return RapsodoShot(rowIndex: rowLine, club: club, clubAsWritten: clubWritten, measurements: measurements,
                               rawJSON: rawJSON(row))
        }

        /// The row verbatim (see `RapsodoShot.rawJSON`), written in one exact-size buffer when no
        /// cell needs escaping (the usual case).
        private func rawJSON(_ row: CSVRecord.CellBytes) -> String {
            if !rowsAsArrays { return rawObject(row) }
            var plain = true
            var size = 2 + 3 * row.count
            for i in 0..<row.count {
                let cell = row[i]
                size += cell.count
                if plain && cell.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) { plain = false }
            }
            var raw: [UInt8]
            if plain {
                raw = [UInt8](unsafeUninitializedCapacity: size) { out, written in
                    guard let base = out.baseAddress else { return }
                    var at = base
                    at.pointee = UInt8(ascii: "["); at += 1
                    for i in 0..<row.count {
                        if i > 0 { at.pointee = UInt8(ascii: ","); at += 1 }
                        at.pointee = UInt8(ascii: "\""); at += 1
                        let cell = row[i]
                        if let src = cell.baseAddress { at.update(from: src, count: cell.count) }
                        at += cell.count
                        at.pointee = UInt8(ascii: "\""); at += 1
                    }
                    at.pointee = UInt8(ascii: "]"); at += 1
                    written = at - base
                }
            } else {
                raw = [UInt8(ascii: "[")]
                for i in 0..<row.count {
                    if i > 0 { raw.append(UInt8(ascii: ",")) }
                    RapsodoParser.appendQuoted(row[i], to: &raw)
                }
                raw.append(UInt8(ascii: "]"))
            }
            return String(decoding: raw, as: UTF8.self)
        }

        /// The row as a JSON object of header → cell (for rows under a header unlike the first).
        private func rawObject(_ row: CSVRecord.CellBytes) -> String {
            var raw: [UInt8] = [UInt8(ascii: "{")]
            rawKeys.withUnsafeBufferPointer { keys in
                for i in 0..<cells.count {
                    raw.append(contentsOf: UnsafeBufferPointer(rebasing: keys[rawKeyRanges[i]]))
                    if i < row.count {
                        RapsodoParser.appendQuoted(row[i], to: &raw)
                    } else {
                        raw.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: "\"")])
                    }
                }
            }
            raw.append(UInt8(ascii: "}"))
            return String(decoding: raw, as: UTF8.self)
        }
    }

    /// Why a row is not a shot, and the cell at fault (an index into the row) when one is.
    struct RowProblem: Error {
        let reason: String
        let cell: Int?

        init(_ reason: String, cell: Int? = nil) {
            self.reason = reason
            self.cell = cell
        }
    }

    /// The last club cell seen and its normalized name.
    struct ClubNameCache {
        var last: (bytes: [UInt8], written: String, normalized: String?)?
    }

    /// Without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lo = 0, hi = bytes.count
        while lo < hi && (bytes[lo] == 0x20 || bytes[lo] == 0x09) { lo += 1 }
        while hi > lo && (bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09) { hi -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[lo..<hi])
    }

    /// `"text"` with JSON escaping (quote, backslash, control characters), from UTF-8 bytes.
    static func appendQuoted(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if text.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            JSONWriter.appendQuoted(String(decoding: text, as: UTF8.self), to: &out)
        } else {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: text)
            out.append(UInt8(ascii: "\""))
        }
    }

    enum ParsedNumber: Equatable {
        case empty
        case value(Double)
        case invalid
    }

    /// A cell as a number: empty, `-`, `--` and `N/A` are no value; anything else must be a
    /// decimal number. Plain decimals of up to 15 digits are read exactly without strtod
    /// (an integer of < 2^53 divided by an exact power of ten rounds correctly).
    static func number(_ all: UnsafeBufferPointer<UInt8>) -> ParsedNumber {
        var lo = 0, hi = all.count
        while lo < hi && (all[lo] == 0x20 || all[lo] == 0x09) { lo += 1 }
        while hi > lo && (all[hi - 1] == 0x20 || all[hi - 1] == 0x09) { hi -= 1 }
        let text = UnsafeBufferPointer(rebasing: all[lo..<hi])
        if text.isEmpty { return .empty }
        if text.count <= 2 && text.allSatisfy({ $0 == UInt8(ascii: "-") }) { return .empty }
        if text.count == 3, text[0] | 0x20 == UInt8(ascii: "n"), text[1] == UInt8(ascii: "/"), text[2] | 0x20 == UInt8(ascii: "a") {
            return .empty
        }
        var i = 0
        var negative = false
        if text[0] == UInt8(ascii: "-") || text[0] == UInt8(ascii: "+") { negative = text[0] == UInt8(ascii: "-"); i = 1 }
        var mantissa: UInt64 = 0, digits = 0, fraction = 0, pointSeen = false, simple = true
        while i < text.count {
            let b = text[i]
            if b &- UInt8(ascii: "0") < 10 {
                mantissa = mantissa &* 10 &+ UInt64(b &- UInt8(ascii: "0"))
                digits += 1
                if pointSeen { fraction += 1 }
            } else if b == UInt8(ascii: ".") && !pointSeen {
                pointSeen = true
            } else {
                simple = false
                break
            }
            i += 1
        }
        if simple && digits > 0 && digits <= 15 {
            let powers: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]
            let magnitude = Double(mantissa) / powers[fraction]
            return .value(negative ? -magnitude : magnitude)
        }
        // Exponents, long mantissas: decimal digits, sign, point and exponent only (Double()
        // would also take "inf" or hex), then strtod.
        guard text.contains(where: { $0 &- UInt8(ascii: "0") < 10 }),
              text.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                  || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              let value = CanonicalNumber.parseDouble(text), value.isFinite else { return .invalid }
        return .value(value)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s.count == count ? self : String(s)
    }
}
