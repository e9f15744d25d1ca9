// The exit codes, read from the one rule (`Status.exitCode`, ClubhouseABI): the man page's EXIT
// STATUS and the overview's last lines are written from it, so a status or code added there shows
// up here without anyone editing the help (a test compares the man page with the statuses).

import ClubhouseABI

enum ExitCodes {
    struct Code {
        var code: Int32
        var meaning: String
        /// The statuses that end a command with this code (their `--json` names).
        var statuses: [String]
    }

    /// What each code means to the person reading it; a code without a line here reads "see the README".
    static let meanings: [Int32: String] = [
        0: "done",
        1: "a failure of the world: I/O, a device, a plugin that failed, a refusal, a timeout",
        2: "the request is wrong: usage, invalid or malformed input, a name or file you gave that does not exist, a permanent action on incomplete data not confirmed (--yes)",
        130: "cancelled (Ctrl-C, or clubhouse.cancel over JSON-RPC)",
    ]

    /// Every code a command can end with, lowest first, with the statuses behind it.
    static var codes: [Code] {
        // `row` and `done` are results of a storage step, never the end of a command.
        let statuses = Status.allCases.filter { $0 != .row && $0 != .done }
        let numbers = Set(statuses.map(\.exitCode)).sorted()
        return numbers.map { code in
            Code(code: code, meaning: meanings[code] ?? "see the README's exit-code table",
                 statuses: statuses.filter { $0.exitCode == code }.map(\.name))
        }
    }

    /// One line for `clubhouse --help`: "Exit codes: 0 done, 1 …, 2 …, 130 cancelled (…)."
    static var summary: String {
        "Exit codes: " + codes.map { code -> String in
            let short = code.meaning.split(separator: ":").first.map(String.init) ?? code.meaning
            return "\(code.code) \(short)"
        }.joined(separator: ", ") + "."
    }
}
