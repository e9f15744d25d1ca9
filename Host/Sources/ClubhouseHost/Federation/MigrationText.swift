// What a plugin's central SQL (federation/postgresql/NNN_name.sql) may hold besides SQL, checked at
// `plugin pack --federation`, `plugin install` and `federation migrate` (the seventh outside attack ran
// `\! id` as root through psql, switched ON_ERROR_STOP off with `\set`, and ended the host's transaction
// with a COMMIT inside a file). Refused, each naming file:line:column and what to do:
//
//   - a psql meta-command: a backslash outside quoted text (where psql would take it as one), and any line
//     whose first non-blank character is a backslash, quoted or not;
//   - transaction control as a statement of its own (BEGIN, START TRANSACTION, COMMIT, END, ROLLBACK,
//     ABORT, SAVEPOINT, RELEASE, PREPARE TRANSACTION): each file runs inside the host's transaction;
//   - what cannot run inside a transaction at all (CREATE/DROP INDEX CONCURRENTLY, REINDEX … CONCURRENTLY,
//     ALTER TABLE … DETACH PARTITION … CONCURRENTLY).
//
// This is the early, explained refusal; what makes meta-commands inert whatever the check misses is how a
// file is run (FederationMigrations.script: psql never reads the file's text, the server runs it as one
// string inside the host's transaction, where transaction control fails).
//
// The scan follows psql's own lexer (psqlscan.l) where it matters: quoted strings ('…', E'…' with
// backslash escapes, "…"), dollar quotes ($tag$…$tag$), -- and nested /* */ comments, parentheses, and
// the BEGIN … END of a `CREATE [OR REPLACE] FUNCTION|PROCEDURE … BEGIN ATOMIC` body, so a semicolon or a
// BEGIN inside a function body is not taken for a statement of its own.

public enum MigrationText {
    public struct Problem: Sendable, Equatable {
        public var line: Int
        public var column: Int
        /// What is wrong and what to do (the caller puts "file:line:column: " before it).
        public var message: String
    }

    /// `text`'s first problem, or nil.
    public static func problem(in text: [UInt8]) -> Problem? {
        if let bad = encodingProblem(in: text) { return bad }
        var scan = Scanner(text)
        return scan.run()
    }

    /// Where `text` is first not valid UTF-8, or nil. Central SQL is UTF-8 text: bytes that are not would
    /// be replaced (U+FFFD) on the way to the server, so it would not run the file's text (b13).
    public static func encodingProblem(in text: [UInt8]) -> Problem? {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = text.makeIterator()
        var offset = 0, line = 1, column = 1
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let scalar):
                offset += scalar.count
                if scalar.count == 1 && scalar.first == 0x0A { line += 1; column = 1 } else { column += 1 }
            case .error:
                let byte = String(text[offset], radix: 16, uppercase: false)
                return Problem(line: line, column: column,
                               message: "not valid UTF-8 (byte 0x\(byte.count == 1 ? "0" : "")\(byte)): central SQL is UTF-8 text; save the file as UTF-8 (eg: iconv -f latin1 -t utf-8)")
            case .emptyInput:
                return nil
            }
        }
    }

    /// "where:line:column: message" for `text`'s first problem, or nil.
    public static func problem(in text: [UInt8], where place: String) -> String? {
        problem(in: text).map { "\(place):\($0.line):\($0.column): \($0.message)" }
    }

    private struct Scanner {
        let b: [UInt8]
        var i = 0
        var line = 1
        var lineStart = 0
        // The statement being read, its words at the top level (outside parentheses): the first four kept,
        // the one before this, how many, whether DETACH was one; where it starts (its column is counted
        // only for a message: counting it for every statement of a long line would be quadratic).
        var words: [String] = []
        var count = 0
        var previous = ""
        var sawDetach = false
        var firstWordAt = (line: 1, offset: 0, lineStart: 0)
        var parens = 0
        var beginDepth = 0

        init(_ bytes: [UInt8]) { b = bytes }

        func column(_ at: Int, from start: Int? = nil) -> Int {
            // Characters, not bytes: UTF-8 continuation bytes do not count.
            b[(start ?? lineStart)..<at].reduce(1) { $0 + (($1 & 0xC0) == 0x80 ? 0 : 1) }
        }

        /// Moves to `to`, counting lines; a line whose first non-blank character is a backslash is a problem.
        mutating func advance(to end: Int) -> Problem? {
            while i < end {
                if b[i] == 0x0A {
                    line += 1
                    lineStart = i + 1
                    var j = i + 1
                    while j < b.count && (b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0D || b[j] == 0x0C) { j += 1 }
                    if j < b.count && b[j] == 0x5C {
                        i += 1
                        return metaCommand(at: j)
                    }
                }
                i += 1
            }
            return nil
        }

        func metaCommand(at position: Int) -> Problem {
            var end = position + 1
            while end < b.count && end - position < 12 && b[end] > 0x20 && b[end] != 0x5C { end += 1 }
            let shown = String(decoding: b[position..<end], as: UTF8.self)
            return Problem(line: line, column: column(position),
                           message: "'\(shown)' is a psql meta-command; central SQL is run by the PostgreSQL server as SQL, never by psql on the machine that migrates: remove it (a backslash outside a quoted string, or first on a line, is refused)")
        }

        static func isWordStart(_ c: UInt8) -> Bool { (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x5F || c >= 0x80 }
        static func isWordPart(_ c: UInt8) -> Bool { isWordStart(c) || (0x30...0x39).contains(c) || c == 0x24 }

        mutating func run() -> Problem? {
            // A file whose very first character is a backslash.
            var j = 0
            while j < b.count && (b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0D || b[j] == 0x0C) { j += 1 }
            if j < b.count && b[j] == 0x5C { return metaCommand(at: j) }
            while i < b.count {
                let c = b[i]
                let next: UInt8 = i + 1 < b.count ? b[i + 1] : 0
                switch c {
                case 0x5C:
                    return metaCommand(at: i)
                case 0x2D where next == 0x2D:  // -- to the end of the line
                    var end = i
                    while end < b.count && b[end] != 0x0A { end += 1 }
                    if let p = advance(to: end) { return p }
                case 0x2F where next == 0x2A:  // /* … */, nested
                    var depth = 0, end = i
                    while end < b.count {
                        if b[end] == 0x2F && end + 1 < b.count && b[end + 1] == 0x2A { depth += 1; end += 2; continue }
                        if b[end] == 0x2A && end + 1 < b.count && b[end + 1] == 0x2F {
                            depth -= 1
                            end += 2
                            if depth == 0 { break }
                            continue
                        }
                        end += 1
                    }
                    if let p = advance(to: end) { return p }
                case 0x27:  // '…' ('' inside)
                    if let p = quoted(0x27, backslashEscapes: false) { return p }
                case 0x22:  // "…"
                    note("\"")
                    if let p = quoted(0x22, backslashEscapes: false) { return p }
                case 0x24 where next == 0x24 || Scanner.isWordStart(next):  // $tag$ … $tag$
                    var end = i + 1
                    while end < b.count && Scanner.isWordPart(b[end]) && b[end] != 0x24 { end += 1 }
                    guard end < b.count && b[end] == 0x24 else { i += 1; continue }
                    let tag = Array(b[i...end])
                    var close = end + 1
                    while close < b.count && !(b[close] == 0x24 && b[close...].starts(with: tag)) { close += 1 }
                    note("$")
                    if let p = advance(to: min(b.count, close + tag.count)) { return p }
                case 0x28:
                    parens += 1
                    i += 1
                case 0x29:
                    parens = max(0, parens - 1)
                    i += 1
                case 0x3B:
                    if parens == 0 && beginDepth == 0 {
                        words = []
                        count = 0
                        previous = ""
                        sawDetach = false
                        beginDepth = 0
                    }
                    i += 1
                case 0x0A:
                    if let p = advance(to: i + 1) { return p }
                default:
                    if Scanner.isWordStart(c) {
                        let start = i
                        var end = i
                        while end < b.count && Scanner.isWordPart(b[end]) { end += 1 }
                        let word = String(decoding: b[start..<end], as: UTF8.self).uppercased()
                        i = end
                        // E'…': backslash escapes inside.
                        if (word == "E") && i < b.count && b[i] == 0x27 {
                            if let p = quoted(0x27, backslashEscapes: true) { return p }
                            note("'")
                            continue
                        }
                        if count == 0 { firstWordAt = (line, start, lineStart) }
                        if let p = statementWord(word) { return p }
                    } else {
                        i += 1
                    }
                }
            }
            return nil
        }

        /// A token that is not a word (a quoted identifier, a dollar-quoted body) in the statement.
        mutating func note(_ token: String) {
            guard parens == 0 else { return }
            if count == 0 { firstWordAt = (line, i, lineStart) }
            if words.count < 4 { words.append(token) }
            count += 1
            previous = token
        }

        /// A quoted string or identifier from `i` (its opening quote) past its closing quote.
        mutating func quoted(_ quote: UInt8, backslashEscapes: Bool) -> Problem? {
            var end = i + 1
            while end < b.count {
                if backslashEscapes && b[end] == 0x5C { end += 2; continue }
                if b[end] == quote {
                    if end + 1 < b.count && b[end + 1] == quote { end += 2; continue }
                    end += 1
                    break
                }
                end += 1
            }
            return advance(to: min(end, b.count))
        }

        /// A word of the current statement: transaction control or CONCURRENTLY where it cannot run.
        mutating func statementWord(_ word: String) -> Problem? {
            guard parens == 0 else { return nil }
            if words.count < 4 { words.append(word) }
            count += 1
            let before = previous
            previous = word
            if word == "DETACH" { sawDetach = true }
            // psql's heuristic for a SQL-standard function body (BEGIN ATOMIC … END): inside CREATE [OR
            // REPLACE] FUNCTION|PROCEDURE, BEGIN opens, CASE opens inside it, END closes.
            if words.count > 1, words[0] == "CREATE",
               words[1] == "FUNCTION" || words[1] == "PROCEDURE" || (words.count > 3 && words[1] == "OR" && words[2] == "REPLACE" && (words[3] == "FUNCTION" || words[3] == "PROCEDURE")) {
                if word == "BEGIN" { beginDepth += 1 } else if word == "CASE" && beginDepth > 0 { beginDepth += 1 } else if word == "END" && beginDepth > 0 { beginDepth -= 1 }
                return nil
            }
            let start = firstWordAt
            func refuse(_ what: String) -> Problem {
                Problem(line: start.line, column: column(start.offset, from: start.lineStart),
                        message: "\(what) is transaction control, but each migration runs inside the host's own transaction (the file and its record in clubhouse.migrations commit together, or neither does): remove it, and ship a step that must commit on its own as the next migration")
            }
            func concurrently(_ what: String) -> Problem {
                Problem(line: start.line, column: column(start.offset, from: start.lineStart),
                        message: "\(what) cannot run inside a transaction, and each migration runs inside the host's own: leave out CONCURRENTLY (the migration's transaction builds it), or run that statement yourself outside federation migrate")
            }
            switch count {
            case 1:
                if ["BEGIN", "COMMIT", "ROLLBACK", "END", "ABORT", "SAVEPOINT", "RELEASE"].contains(word) { return refuse(word) }
            case 2:
                if (words[0] == "START" || words[0] == "PREPARE") && word == "TRANSACTION" { return refuse(words[0] + " TRANSACTION") }
                if words[0] == "DROP" && words[1] == "INDEX" { return nil }
            default:
                break
            }
            guard word == "CONCURRENTLY" else { return nil }
            switch words[0] {
            case "CREATE" where count >= 3 && before == "INDEX":
                return concurrently(words.prefix(count - 1).joined(separator: " ") + " CONCURRENTLY")
            case "DROP" where count == 3 && words[1] == "INDEX":
                return concurrently("DROP INDEX CONCURRENTLY")
            case "REINDEX":
                return concurrently("REINDEX … CONCURRENTLY")
            case "ALTER" where sawDetach:
                return concurrently("ALTER TABLE … DETACH PARTITION … CONCURRENTLY")
            default:
                return nil
            }
        }
    }
}
