/// One CSV record: its cells (quotes removed, `""` undone) and where it starts and ends. Cells
/// point into the file's bytes (shared, not copied); only a cell holding `""` is unescaped into
/// a side buffer. They become Strings only when asked for.
public struct CSVRecord: Sendable {
    /// 1-based line of the record's first byte.
    public let line: Int
    /// Byte offset of the record's first byte.
    public let startOffset: Int
    /// Byte offset just past the record (for progress).
    public let endOffset: Int
    let source: [UInt8]
    let cells: [Cell]
    let unescaped: [UInt8]
    /// Why the record is not text (binary bytes, invalid UTF-8), or nil when it is text.
    public let notText: String?

    struct Cell: Sendable {
        var range: Range<Int>
        /// Byte offset of the cell's first byte in the file (its opening quote when quoted).
        var sourceStart: Int
        /// The range is in `unescaped` rather than `source`.
        var isUnescaped: Bool
        var quoted: Bool
    }

    /// The number of cells.
    public var count: Int { cells.count }

    /// Whether cell `i` was written in quotes.
    public func isQuoted(_ i: Int) -> Bool { cells[i].quoted }

    /// Cell `i` as text (invalid UTF-8 replaced; see `notText`).
    public func field(_ i: Int) -> String {
        withField(i) { String(decoding: $0, as: UTF8.self) }
    }

    /// All cells as text.
    public var fields: [String] { (0..<count).map(field) }

    /// Runs `body` on the bytes of cell `i` without making a String.
    @inline(__always)
    func withField<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let cell = cells[i]
        let buffer = cell.isUnescaped ? unescaped : source
        return try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[cell.range])) }
    }

    /// Runs `body` with direct access to every cell's bytes (one pass over the record without
    /// per-cell bookkeeping).
    @inline(__always)
    func withCells<R, E: Error>(_ body: (CellBytes) throws(E) -> R) throws(E) -> R {
        try source.withUnsafeBufferPointer { (s) throws(E) -> R in
            try unescaped.withUnsafeBufferPointer { (u) throws(E) -> R in
                try cells.withUnsafeBufferPointer { (c) throws(E) -> R in
                    try body(CellBytes(source: s, unescaped: u, cells: c))
                }
            }
        }
    }

    /// The cells of a record as byte buffers, valid inside `withCells`.
    struct CellBytes {
        let source: UnsafeBufferPointer<UInt8>
        let unescaped: UnsafeBufferPointer<UInt8>
        let cells: UnsafeBufferPointer<Cell>

        var count: Int { cells.count }

        @inline(__always) subscript(i: Int) -> UnsafeBufferPointer<UInt8> {
            let cell = cells[i]
            return UnsafeBufferPointer(rebasing: (cell.isUnescaped ? unescaped : source)[cell.range])
        }
    }

    /// The 1-based column (in characters) where cell `i` starts on its line: its opening quote
    /// when quoted.
    public func column(ofCell i: Int) -> Int {
        let start = cells[i].sourceStart
        var lineStart = startOffset
        var k = start
        while k > startOffset {
            if source[k - 1] == 0x0A || source[k - 1] == 0x0D {
                lineStart = k
                break
            }
            k -= 1
        }
        // Characters, not bytes: count the bytes that start a UTF-8 sequence.
        return source[lineStart..<start].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }

    /// True when every cell is empty (a blank line, or a row of bare commas).
    public var isBlank: Bool { cells.allSatisfy { $0.range.isEmpty } }
}

/// Reads RFC 4180 CSV from UTF-8 bytes: comma-separated, fields optionally in double quotes with
/// `""` for a quote, records ending at LF, CRLF or CR, quoted fields free to span lines. A UTF-8
/// byte order mark at the start is skipped. A record holding control bytes other than tab (binary
/// data) or invalid UTF-8 is returned with `notText` set, for the caller to report by line.
public struct CSVReader {
    private let bytes: [UInt8]
    private let sourceName: String
    private var index = 0
    private var line = 1

    public init(bytes: [UInt8], sourceName: String) {
        self.bytes = bytes
        self.sourceName = sourceName
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
    }

    /// The number of bytes (for progress).
    public var byteCount: Int { bytes.count }

    /// The next record, or nil at the end of the input.
    public mutating func next() throws(PracticeError) -> CSVRecord? {
        guard index < bytes.count else { return nil }
        let startLine = line
        let startOffset = index
        var cells: [CSVRecord.Cell] = []
        cells.reserveCapacity(20)
        var unescaped: [UInt8] = []
        var high: UInt8 = 0
        var control: UInt8? = nil
        try bytes.withUnsafeBufferPointer { buffer throws(PracticeError) in
            let n = buffer.count
            var i = index
            defer { index = i }
            while true {
                if i < n && buffer[i] == UInt8(ascii: "\"") {
                    let openLine = line
                    let quote = i
                    i += 1
                    let start = i
                    var escapes = false
                    var closed = false
                    while i < n {
                        let b = buffer[i]
                        if b == UInt8(ascii: "\"") {
                            if i + 1 < n && buffer[i + 1] == UInt8(ascii: "\"") {
                                escapes = true
                                i += 2
                                continue
                            }
                            closed = true
                            break
                        }
                        if b == 0x0A || (b == 0x0D && !(i + 1 < n && buffer[i + 1] == 0x0A)) {
                            line += 1
                        } else if (b < 0x20 && b != 0x09 && b != 0x0D) || b == 0x7F, control == nil {
                            control = b
                        }
                        high |= b
                        i += 1
                    }
                    guard closed else {
                        throw PracticeError.invalidInput(
                            "\(sourceName):\(openLine): a quoted field opened here never closes; add the missing \"")
                    }
                    if escapes {
                        // Undo "" into the side buffer.
                        let from = unescaped.count
                        var k = start
                        while k < i {
                            unescaped.append(buffer[k])
                            k += buffer[k] == UInt8(ascii: "\"") ? 2 : 1
                        }
                        cells.append(.init(range: from..<unescaped.count, sourceStart: quote, isUnescaped: true, quoted: true))
                    } else {
                        cells.append(.init(range: start..<i, sourceStart: quote, isUnescaped: false, quoted: true))
                    }
                    i += 1
                    // After a closing quote only a separator or the end of the record may follow.
                    if i < n {
                        let b = buffer[i]
                        if b != UInt8(ascii: ","), b != 0x0A, b != 0x0D {
                            throw PracticeError.invalidInput(
                                "\(sourceName):\(line): unexpected text after a closing quote; quote the whole field")
                        }
                    }
                } else {
                    let start = i
                    while i < n {
                        let b = buffer[i]
                        if b == UInt8(ascii: ",") || b == 0x0A || b == 0x0D { break }
                        if (b < 0x20 && b != 0x09) || b == 0x7F, control == nil { control = b }
                        high |= b
                        i += 1
                    }
                    cells.append(.init(range: start..<i, sourceStart: start, isUnescaped: false, quoted: false))
                }
                // After the field: a comma (another field follows) or the end of the record.
                if i < n && buffer[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                if i < n && buffer[i] == 0x0D { i += 1 }
                if i < n && buffer[i] == 0x0A { i += 1 }
                line += 1
                return
            }
        }
        var notText: String? = nil
        if let control {
            let hex = String(control, radix: 16, uppercase: true)
            notText = "the row holds binary bytes (control byte 0x\(hex.count == 1 ? "0" + hex : hex)), not text; "
                + "cut whatever follows the export's data"
        } else if high >= 0x80, cells.indices.contains(where: { i in
            let cell = cells[i]
            return (cell.isUnescaped ? unescaped : bytes).withUnsafeBufferPointer {
                !CanonicalStream.isValidUTF8(UnsafeBufferPointer(rebasing: $0[cell.range]))
            }
        }) {
            notText = "the text is not valid UTF-8; save the file as UTF-8"
        }
        return CSVRecord(line: startLine, startOffset: startOffset, endOffset: index, source: bytes, cells: cells, unescaped: unescaped,
                         notText: notText)
    }
}
