// Text a plugin wrote that the host prints on a terminal or in its logs: the descriptor's name and
// summary, the catalogue's summaries and help, log lines, and every reply's text and error message the
// command line prints (which may carry what a phone stored: a correction's reason, a drill's name). A
// plugin — or what it stored — must not move the cursor, set a window title, clear the screen, reorder
// what follows (bidi overrides) or start a line that looks like the host's own: every control character
// and bidi override becomes "?" (issue 27's attack round, #10 and #11; the third outside attack, a14).

package enum TerminalText {
    /// Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they reorder what follows.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// `text` with each control character — C0 except tab (and newline where `keepNewlines`), DEL and
    /// C1 — and each bidi override replaced by "?". Text without any is returned as it is, without a copy.
    package static func plain(_ text: String, keepNewlines: Bool = false) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            if scalar == "\t" || (keepNewlines && scalar == "\n") { return false }
            return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isBidiControl(scalar)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(isControl(scalar) ? "?" : scalar) }
        return String(out)
    }

    /// A reply's text as the command line prints it: newlines, tabs and CR LF kept; where `styled` (the
    /// host asked the plugin for colour: CLUBHOUSE_CALL_STYLED_TEXT), SGR sequences of styles and
    /// foreground colours (ESC [ 1 m, ESC [ 0 m, ESC [ 31 m …) kept too; every other control character and
    /// bidi override becomes "?" (a title, a cleared screen, a moved cursor, concealed text never get through).
    /// A reply's text may carry what a phone stored (a drill's name), so a kept style never outlives its
    /// line: where one is in force, a reset is written before each newline and at the end (the fourth
    /// outside attack, b09: a stored `ESC [ 30 m` turned every later row and the prompt black).
    package static func shown(_ text: String, styled: Bool) -> String {
        let scalars = Array(text.unicodeScalars)
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isBidiControl(scalar)
        }
        guard scalars.contains(where: { isControl($0) && $0 != "\n" && $0 != "\t" }) else { return text }
        var out = String.UnicodeScalarView()
        var styleInForce = false
        let reset = "\u{1B}[0m".unicodeScalars
        var i = 0
        while i < scalars.count {
            let s = scalars[i]
            if s == "\n" || (s == "\r" && i + 1 < scalars.count && scalars[i + 1] == "\n") {
                if styleInForce { out.append(contentsOf: reset); styleInForce = false }
                out.append(s)
                i += 1
            } else if !isControl(s) || s == "\t" {
                out.append(s)
                i += 1
            } else if styled, s == "\u{1B}", i + 1 < scalars.count, scalars[i + 1] == "[", let (end, resets) = sgrEnd(scalars, from: i + 2) {
                out.append(contentsOf: scalars[i...end])
                styleInForce = !resets
                i = end + 1
            } else {
                out.append("?")
                i += 1
            }
        }
        if styleInForce { out.append(contentsOf: reset) }
        return String(out)
    }

    /// SGR parameters kept: reset, bold, italic, underline and their ends, the default foreground and the
    /// six chromatic foreground colours (normal and bright). Not dim, black, white or grey (30, 37, 90, 97:
    /// each unreadable on one of a dark or a light terminal), blink, reverse, conceal or backgrounds.
    private static let keptSGR: Set<Int> = Set([0, 1, 3, 4, 22, 23, 24, 39] + Array(31...36) + Array(91...96))

    /// The index of the `m` that ends an SGR sequence whose parameters start at `from` and are all kept,
    /// and whether it ends in a reset (`ESC [ m` or a last parameter 0), or nil.
    private static func sgrEnd(_ scalars: [Unicode.Scalar], from: Int) -> (Int, Bool)? {
        var j = from
        var parameter = ""
        while j < scalars.count && j - from <= 32 {
            let s = scalars[j]
            if s == "m" || s == ";" {
                guard parameter.isEmpty || Int(parameter).map(keptSGR.contains) == true else { return nil }
                if s == "m" { return (j, parameter.isEmpty || Int(parameter) == 0) }
                parameter = ""
            } else if ("0"..."9").contains(s) {
                parameter.unicodeScalars.append(s)
            } else {
                return nil
            }
            j += 1
        }
        return nil
    }
}
