// Comparing names the way people type them: case, accents, apostrophe styles and runs of spaces
// do not matter ("cote d’ivoire" finds "Côte d'Ivoire").

enum TextKey {
    /// The comparison key of a name.
    static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for original in text.lowercased().unicodeScalars {
            if original.properties.generalCategory == .nonspacingMark { continue }
            let scalar = BaseLetters.strip(original)
            if scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            switch scalar.value {
            case 0x2018, 0x2019, 0x02BC, 0x0060, 0x00B4: out.append("'")
            case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014: out.append("-")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}

extension String {
    /// The string without leading and trailing whitespace and newlines.
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }
}
