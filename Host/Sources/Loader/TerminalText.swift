// Text a plugin wrote that the host prints on a terminal or in its logs: the descriptor's name and
// summary, the catalogue's summaries and help, log lines. A plugin must not move the cursor, set a
// window title, clear the screen or start a line that looks like the host's own: every control
// character becomes "?" (issue 27's attack round, #10 and #11).

package enum TerminalText {
    /// `text` with each control character — C0 except tab (and newline where `keepNewlines`), DEL and
    /// C1 — replaced by "?". Text without any is returned as it is, without a copy.
    package static func plain(_ text: String, keepNewlines: Bool = false) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            if scalar == "\t" || (keepNewlines && scalar == "\n") { return false }
            return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(isControl(scalar) ? "?" : scalar) }
        return String(out)
    }
}
