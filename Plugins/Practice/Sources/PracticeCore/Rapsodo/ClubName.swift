/// Club names as the kernel keys them: case-insensitive, with the spellings launch monitors and
/// players use folded together ("7 Iron", "7-iron", "7I" → "7i"; "Driver", "DR" → "dr";
/// "Pitching Wedge" → "pw"; "56°" → "56deg").
public enum ClubName {
    public static func normalize(_ raw: String) -> String {
        // Lowercase, drop separators, keep letters, digits and the degree sign.
        let folded = raw.lowercased().replacingOccurrences(of: "degrees", with: "°")
            .replacingOccurrences(of: "degree", with: "°").replacingOccurrences(of: "deg", with: "°")
        var words: [String] = []
        var current = ""
        var previousWasDigit: Bool? = nil
        for ch in folded {
            let isDigit = ch.isASCII && ch.isNumber
            let isWordChar = isDigit || ch.isLetter || ch == "°"
            if !isWordChar {
                if !current.isEmpty { words.append(current); current = "" }
                previousWasDigit = nil
                continue
            }
            // "7i" splits into "7" and "i" so both spellings meet.
            if let previous = previousWasDigit, previous != isDigit, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(ch)
            previousWasDigit = isDigit
        }
        if !current.isEmpty { words.append(current) }
        guard !words.isEmpty else { return "" }

        let number = words.first { Int($0) != nil }
        let rest = words.filter { Int($0) == nil }
        let kind = rest.joined(separator: " ")
        switch (number, kind) {
        case (nil, "driver"), (nil, "dr"), ("1", "w"), ("1", "wood"), (nil, "d"): return "dr"
        case let (n?, k) where ["w", "wood", "fw", "fairway", "fairway wood"].contains(k): return n + "w"
        case let (n?, k) where ["h", "hy", "hyb", "hybrid", "rescue", "ut", "utility"].contains(k): return n + "h"
        case let (n?, k) where ["i", "iron"].contains(k): return n + "i"
        case (nil, "pw"), (nil, "p"), (nil, "pitching wedge"), (nil, "pitching"): return "pw"
        case (nil, "gw"), (nil, "aw"), (nil, "gap wedge"), (nil, "approach wedge"), (nil, "gap"): return "gw"
        case (nil, "sw"), (nil, "sand wedge"), (nil, "sand"): return "sw"
        case (nil, "lw"), (nil, "lob wedge"), (nil, "lob"): return "lw"
        case (nil, "putter"), (nil, "pt"): return "putter"
        case let (n?, k) where ["°", "° wedge", "wedge", "w °", "° w"].contains(k) && (Int(n) ?? 0) >= 40: return n + "deg"
        default: return words.joined()
        }
    }
}

private extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
