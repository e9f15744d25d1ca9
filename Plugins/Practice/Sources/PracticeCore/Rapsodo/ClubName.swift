/// Club names as the kernel keys them: case-insensitive, with the spellings launch monitors and
/// players use folded together ("7 Iron", "7-iron", "7I" → "7i"; "Driver", "DR" → "dr";
/// "Pitching Wedge" → "pw"; "56°" → "56deg").
///
/// The import rule (`recognized`), also in `practice import --help`; it never drops a character
/// silently — a label either names a known club or is refused with the label as written:
/// 1. Leading and trailing spaces and tabs are trimmed.
/// 2. Words are split at runs of spaces, tabs, `-`, `_`, `.` and `/`, and where digits meet letters
///    ("7i" → "7 i"); ASCII letters are case-folded; "deg", "degree", "degrees" mean "°".
/// 3. The words must spell a known club: a driver (Driver, DR, D, 1W), a wood (3W, 3 Wood, 3 FW), a
///    hybrid (4H, 4 Hybrid, 4 Rescue, 4 UT), an iron (7i, 7 Iron), a wedge (PW, GW/AW, SW, LW, their
///    names, or a loft of 40–70° such as 56°), or the putter. The key is dr, 3w, 4h, 7i, pw, gw, sw, lw,
///    56deg, putter.
/// 4. Any other character (a letter outside ASCII, an emoji, other punctuation) or any other club
///    makes the label unknown: `recognized` returns nil and the import reports the row.
public enum ClubName {
    /// Characters a club label may hold besides ASCII letters and digits.
    static let separators: Set<Character> = [" ", "\t", "-", "_", ".", "/"]

    /// The club key of `raw` under the import rule above, or nil when `raw` is not a known club.
    public static func recognized(_ raw: String) -> String? {
        let trimmed = raw.trimmingSpaces()
        guard !trimmed.isEmpty,
              trimmed.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "°" || separators.contains($0) })
        else { return nil }
        let key = normalize(trimmed)
        return isKnownKey(key) ? key : nil
    }

    /// The known clubs as one line, for messages that refuse a club.
    public static let knownClubsHint = "a club is a driver (dr), a wood (3w), a hybrid (4h), an iron (7i), a wedge "
        + "(pw, gw, sw, lw, or a loft of 40–70° such as 56deg) or the putter; the spellings `practice import --help` lists are accepted"

    /// The club key an argument such as `club` names, by the import rule; an unknown club is refused
    /// (a usage error) with the known clubs, never stored under a made-up key ("not a club" → "notaclub").
    public static func option(_ raw: String, field name: String = "club") throws(PracticeError) -> String {
        guard !normalize(raw).isEmpty else { throw .usage("\(field: name) needs a club name such as 7i") }
        guard let key = recognized(raw) else {
            throw .usage("\(field: name) '\(raw)' is not a known club; \(knownClubsHint)")
        }
        return key
    }

    /// Whether `key` is a key `normalize` gives for a known club.
    public static func isKnownKey(_ key: String) -> Bool {
        if ["dr", "putter", "pw", "gw", "sw", "lw"].contains(key) { return true }
        let bytes = Array(key.utf8)
        func digits(_ n: Int) -> Bool { bytes.prefix(n).allSatisfy { $0 &- 48 < 10 } }
        if bytes.count == 2 || bytes.count == 3, digits(bytes.count - 1), bytes[0] != UInt8(ascii: "0"),
           let last = bytes.last, [UInt8(ascii: "w"), UInt8(ascii: "i"), UInt8(ascii: "h")].contains(last) {
            return true
        }
        if bytes.count == 5, key.hasSuffix("deg"), let loft = Int(key.prefix(2)), (40...70).contains(loft) { return true }
        return false
    }

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
