/// Left-aligned columns for text output, padded by display width (one column per character).
struct TextTable {
    private let header: [String]
    private var rows: [[String]] = []

    init(_ header: [String]) { self.header = header }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return all.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

/// Fixed-point text for people (`fixed(83.3333, 1)` → "83.3").
func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let negative = value < 0 && scaled != 0
    let whole = Int(scaled / scale)
    var text = String(whole)
    if decimals > 0 {
        let fraction = String(Int(scaled) - whole * Int(scale))
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return (negative ? "-" : "") + text
}

extension String {
    /// Every `target` character replaced by `replacement`.
    func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
