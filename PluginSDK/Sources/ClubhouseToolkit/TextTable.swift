// Plain text tables for plugin replies: columns padded to their widest cell (one column per
// character), two spaces between columns. On a terminal that shows colour (TextStyle.current is
// .terminal) the header row is bold; widths never count the escape sequences.

public struct TextTable: Sendable {
    public let header: [String]
    public private(set) var rows: [[String]]

    public init(_ header: [String], _ rows: [[String]] = []) {
        self.header = header
        self.rows = rows
    }

    public mutating func add(_ row: [String]) { rows.append(row) }

    private var widths: [Int] {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: all.map(\.count).max() ?? 0)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return widths
    }

    /// The lines joined by newlines (no final one); every cell padded, trailing spaces dropped.
    public var text: String {
        let widths = widths
        return ([header] + rows).enumerated().map { index, row in
            var line = ""
            for (i, cell) in row.enumerated() {
                line += cell + String(repeating: " ", count: widths[i] - cell.count) + (i + 1 < row.count ? "  " : "")
            }
            while line.last == " " { line.removeLast() }
            return index == 0 ? TextStyle.bold(line) : line
        }.joined(separator: "\n")
    }

    /// Every line ended by a newline; each row's last cell is left as it is (not padded).
    public func render() -> String {
        let widths = widths
        return ([header] + rows).enumerated().map { index, row in
            let line = row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
            return index == 0 ? TextStyle.bold(line) : line
        }.joined(separator: "\n") + "\n"
    }

    /// `render()` with the header bold when `styled`, whatever `TextStyle.current` is (the host's own
    /// tables, which know from its options whether the output shows colour).
    public func render(styled: Bool) -> String { TextStyle.with(styled ? .terminal : .plain) { render() } }
}
