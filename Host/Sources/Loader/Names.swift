// One grammar for the names a configuration gives: site names, plugin aliases and plugin ids.
// A site name and an id become parts of a path (`<data>/<site>/<id>.sqlite`) and an alias is
// typed on the command line, so none may hold a separator, a dot-dot, a space or a capital:
//
//   site name, alias   1–64 characters: a lowercase ASCII letter, then letters, digits and '-'
//                      eg: "presidio-golf-club", "putting"
//   id                 reverse-DNS: two or more labels joined by '.', each 1–63 characters of
//                      lowercase letters, digits and '-'; 128 characters in all (the database file
//                      `<id>.sqlite` and its backups stay under the file-name limit)
//                      eg: "org.clubhouse.putting"
//
// Checked where a name is read: plugins.json (and the embedded copy), --site, CLUBHOUSE_SITE, a
// runner's hello, the loader; and once more where a name becomes a path (StorageBroker).

public enum Names {
    public static let maximumNameLength = 64
    public static let maximumIDLength = 128
    public static let maximumLabelLength = 63

    /// What is wrong with `name` as a site name or a plugin alias (`what`: "site name", "plugin
    /// name"), or nil when it follows the grammar.
    public static func nameProblem(_ name: String, what: String) -> String? {
        let scalars = Array(name.unicodeScalars)
        let rule = "a lowercase letter, then lowercase letters, digits and '-', at most \(maximumNameLength) characters"
        guard let first = scalars.first else { return "\(what) is empty; it must be \(rule)" }
        guard scalars.count <= maximumNameLength else {
            return "\(what) '\(shown(name))' is \(scalars.count) characters long; it must be \(rule)"
        }
        guard isLetter(first), scalars.allSatisfy({ isLetter($0) || isDigit($0) || $0 == "-" }) else {
            return "\(what) '\(shown(name))' must be \(rule) (eg: \"presidio-golf-club\")"
        }
        return nil
    }

    /// What is wrong with `id` as a plugin id, or nil when it is reverse-DNS within the limits.
    public static func idProblem(_ id: String) -> String? {
        if isPlainID(id) { return nil }
        let rule = "reverse-DNS: labels of lowercase letters, digits and '-' joined by '.', such as org.example.notes"
        guard id.utf8.count <= maximumIDLength else {
            return "id '\(shown(id))' is \(id.utf8.count) characters long; an id has at most \(maximumIDLength)"
        }
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        if let long = labels.first(where: { $0.unicodeScalars.count > maximumLabelLength }) {
            return "id '\(shown(id))' has a label of \(long.unicodeScalars.count) characters ('\(shown(String(long.prefix(16))))…'); a label has at most \(maximumLabelLength)"
        }
        guard labels.count >= 2, labels.allSatisfy({ label in
            !label.isEmpty && label.unicodeScalars.count <= maximumLabelLength
                && label.unicodeScalars.allSatisfy { isLetter($0) || isDigit($0) || $0 == "-" }
        }) else {
            return "id '\(shown(id))' is not \(rule)"
        }
        return nil
    }

    /// The common case in bytes (every site entry's id is checked at every command): ASCII lowercase
    /// letters, digits, '-' and '.', two labels or more, none empty or too long, not too long in all.
    /// For such text the checks below (on characters and scalars) find nothing either; anything else
    /// goes through them for its message.
    static func isPlainID(_ id: String) -> Bool {
        var labels = 1, label = 0, total = 0
        for byte in id.utf8 {
            total += 1
            switch byte {
            case UInt8(ascii: "."):
                if label == 0 { return false }
                labels += 1
                label = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                label += 1
                if label > maximumLabelLength { return false }
            default:
                return false
            }
        }
        return labels >= 2 && label > 0 && total <= maximumIDLength
    }

    public static func isSiteName(_ name: String) -> Bool { nameProblem(name, what: "site name") == nil }
    public static func isID(_ id: String) -> Bool { idProblem(id) == nil }

    private static func isLetter(_ s: Unicode.Scalar) -> Bool { s.value >= 0x61 && s.value <= 0x7A }
    private static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 0x30 && s.value <= 0x39 }

    /// A name as a message quotes it: control characters escaped, cut at 80 characters.
    static func shown(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars.prefix(80) {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return name.unicodeScalars.count > 80 ? out + "…" : out
    }
}
