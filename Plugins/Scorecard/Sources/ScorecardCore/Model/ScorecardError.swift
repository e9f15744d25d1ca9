// Every error a user can cause, each rendered as one line: what is wrong, where, and what to do.

/// An error of the scorecard domain. `description` is the one-line message shown to the user.
public enum ScorecardError: Error, Equatable, Sendable, CustomStringConvertible {
    // Courses and tees (`location` is "file:line:col: " or a course/tee description).
    case invalidPar(location: String, hole: Int, par: Int)
    case invalidSlope(location: String, slope: Int)
    case implausibleRating(location: String, rating: Tenths, par: Int, holes: Int)
    case strokeIndexes(location: String, tee: String, duplicates: [Int: [Int]], missing: [Int], outOfRange: [Int], holes: Int)
    case invalidHoleCount(location: String, tee: String, count: Int)
    case holeNumbering(location: String, tee: String, expected: Int, found: Int)
    case invalidCourseFile(location: String, message: String)
    case duplicateCourse(name: String)
    case duplicateTee(course: String, tee: String)
    case unknownCourse(String)
    case unknownTee(course: String, tee: String, available: [String])
    case nineWithoutRating(tee: String, nine: Nine)
    case nineOfNineHoleTee(tee: String)

    // Players.
    case invalidPlayerName(String, reason: String)
    case commaInPlayerName(String)
    case duplicatePlayer(String)
    case unknownPlayer(String)
    case indexFromRecord(player: String, index: Tenths, differentials: Int)

    // Rounds and scores.
    case unknownRound(String)
    case noPlayers
    case playerTwiceInRound(String)
    case playerNotInRound(player: String, round: Int)
    case unknownHole(hole: Int, round: Int, holes: ClosedRange<Int>)
    case invalidStrokes(strokes: Int, hole: Int)
    case roundFinished(round: Int, on: GolfDate)
    case invalidHolesOption(Int)

    // Values of arguments: `argument` is the argument's name ("pcc"), never a front end's word for it.
    case invalidNumber(argument: String, text: String, expected: String)
    /// An error about one item of a list argument ("differential 2" of "differentials").
    indirect case item(String, ScorecardError)
    /// An index given with 18 holes, where only a 9-hole round's expected score needs one.
    case indexWithEighteenHoles(String)
    case outOfRange(argument: String, value: String, range: String)
    case invalidDate(argument: String, text: String)
    /// `detail` follows the argument's name as it is, eg: " (the Handicap Index the player comes with, or none)".
    case missingArgument(argument: String, detail: String)
    case invalidStrokeIndexList(duplicates: [Int: [Int]], missing: [Int], outOfRange: [Int], holes: Int)
    case invalidFormat(String)
    /// `argument`: the argument that gave it, or nil for `source`, a config key.
    case allowanceOutOfRange(source: String, argument: String?, value: String)
    case playersForFormat(format: PlayFormat, count: Int)
    case optionNotForFormat(option: String, format: PlayFormat)
    case matchDecided(round: Int, status: String, afterHole: Int, hole: Int)

    // Corrections.
    case missingReason
    case nothingToCorrect(player: String, hole: Int, round: Int)
    case correctionUnchanged(player: String, hole: Int, round: Int, strokes: Int)

    // Seed import.
    case invalidSeed(location: String, message: String)

    /// The storage underneath failed; nothing of this command was written.
    case storage(String)

    // Federation (FederationMembers.swift).
    case invalidMemberID(String)
    case duplicateMember(member: String, player: String)
    case invalidFederationRows(String)

    /// A permanent action on incomplete or counted data that the user has not confirmed (`--yes`);
    /// the text is the question.
    case unconfirmed(String)

    /// The message with the core's own names for arguments ("pcc '0.5' is not …"). Front ends name
    /// them their way: `message(naming:)`.
    public var description: String { message(naming: { $0 }) }

    /// The argument a user error begins with ("pcc" for "pcc '0.5' is not …"), or nil.
    public var argument: String? {
        switch self {
        case let .invalidNumber(argument, _, _), let .outOfRange(argument, _, _), let .invalidDate(argument, _),
             let .missingArgument(argument, _):
            return argument
        case let .allowanceOutOfRange(_, argument?, _): return argument
        case let .optionNotForFormat(option, _): return option
        case .invalidHolesOption: return "holes"
        case .indexWithEighteenHoles: return "index"
        default: return nil
        }
    }

    /// The one-line message, each argument named by `name` (a command line says "--pcc").
    public func message(naming name: (String) -> String) -> String {
        switch self {
        case let .unconfirmed(question):
            return question
        case let .invalidMemberID(problem):
            return problem
        case let .duplicateMember(member, player):
            return "member id \(member) is already \(player)'s at this club — a member id names one golfer"
        case let .invalidFederationRows(problem):
            return "federation rows: \(problem); nothing of them was kept"
        case let .invalidPar(location, hole, par):
            return "\(location)hole \(hole) has par \(par); par must be 3 to 6 — correct the hole's par"
        case let .invalidSlope(location, slope):
            return "\(location)slope rating \(slope) is outside 55–155 — use the Slope Rating printed on the scorecard"
        case let .implausibleRating(location, rating, par, holes):
            let spread = holes == 9 ? 5 : 10
            return "\(location)course rating \(rating) is implausible for par \(par) over \(holes) holes "
                + "(expected \(par - spread).0–\(par + spread).0) — check the rating and the pars"
        case let .strokeIndexes(location, tee, duplicates, missing, outOfRange, holes):
            return "\(location)tee '\(tee)' has invalid stroke indexes: "
                + Self.strokeIndexProblems(duplicates: duplicates, missing: missing, outOfRange: outOfRange)
                + " — each of 1–\(holes) must appear exactly once"
        case let .invalidHoleCount(location, tee, count):
            return "\(location)tee '\(tee)' has \(count) holes; a tee has 9 or 18 holes"
        case let .holeNumbering(location, tee, expected, found):
            return "\(location)tee '\(tee)': hole number \(found) where hole \(expected) belongs — number the holes 1, 2, 3, … in order"
        case let .invalidCourseFile(location, message):
            return "\(location)\(message)"
        case let .duplicateCourse(name):
            return "a course named '\(name)' already exists — choose another name or use the existing course"
        case let .duplicateTee(course, tee):
            return "course '\(course)' lists tee '\(tee)' twice — give each tee its own name"
        case let .unknownCourse(text):
            return "no course '\(text)' — see 'scorecard course list' for ids and names"
        case let .unknownTee(course, tee, available):
            return "course '\(course)' has no tee '\(tee)' — its tees are \(available.joined(separator: ", "))"
        case let .nineWithoutRating(tee, nine):
            return "tee '\(tee)' has no \(nine.rawValue)-nine rating — add \"\(nine.rawValue)\": {\"rating\": …, \"slope\": …} to the tee to play 9 holes on it"
        case let .nineOfNineHoleTee(tee):
            return "tee '\(tee)' has 9 holes; an 18-hole round needs an 18-hole tee — start the round with \(name("holes")) 9"
        case let .invalidPlayerName(name, reason):
            return "player name '\(name)' \(reason)"
        case let .duplicatePlayer(name):
            return "a player named '\(name)' already exists — names must be unique (case does not count)"
        case let .unknownPlayer(text):
            return "no player '\(text)' — add them with 'scorecard player add' or see 'scorecard player list'"
        case let .indexFromRecord(player, index, differentials):
            return "\(player) has a Handicap Index of \(index.handicapNotation) from \(differentials) differential"
                + "\(differentials == 1 ? "" : "s") recorded here; a given index only starts a record — their scores decide it now"
        case let .unknownRound(text):
            return "no round '\(text)' — see 'scorecard rounds' for round ids"
        case .noPlayers:
            return "a round needs at least one player — pass \(name("players")) A,B"
        case let .playerTwiceInRound(name):
            return "player '\(name)' is listed twice for the round — list each player once"
        case let .playerNotInRound(player, round):
            return "player '\(player)' is not playing in round \(round) — see 'scorecard leaderboard --round \(round)'"
        case let .unknownHole(hole, round, holes):
            return "hole \(hole) is not played in round \(round) (holes \(holes.lowerBound)–\(holes.upperBound))"
        case let .invalidStrokes(strokes, hole):
            return "\(strokes) strokes on hole \(hole) is outside 1–20 — enter the strokes actually taken"
        case let .roundFinished(round, on):
            return "round \(round) was finished on \(on) and is final — scores can no longer change"
        case let .invalidHolesOption(holes):
            return "\(name("holes")) \(holes) is not possible — a round is 9 or 18 holes"
        case let .invalidNumber(argument, text, expected):
            return "\(name(argument)) '\(text)' is not \(expected)"
        case let .item(item, error):
            return error.message(naming: { "\(item) of \(name($0))" })
        case let .indexWithEighteenHoles(text):
            return "\(name("index")) '\(text)' is not used with 18 holes (the index is only needed for the expected score of \(name("holes")) 9)"
        case let .commaInPlayerName(player):
            return "player name '\(player)' contains a comma — \(name("players")) A,B uses commas to separate names"
        case let .outOfRange(argument, value, range):
            return "\(name(argument)) \(value) is outside \(range)"
        case let .invalidDate(argument, text):
            return "\(name(argument)) '\(text)' is not a date — write it as YYYY-MM-DD, e.g. 2024-06-01"
        case let .missingArgument(argument, detail):
            return "\(name(argument))\(detail) is required"
        case let .invalidStrokeIndexList(duplicates, missing, outOfRange, holes):
            return "invalid stroke indexes: "
                + Self.strokeIndexProblems(duplicates: duplicates, missing: missing, outOfRange: outOfRange)
                + " — give 9 or 18 indexes, each of 1–\(holes) exactly once"
        case let .invalidFormat(text):
            return "format '\(text)' is unknown — use one of "
                + PlayFormat.allCases.map(\.rawValue).joined(separator: ", ")
        case let .allowanceOutOfRange(source, argument, value):
            return "\(argument.map(name) ?? source): allowance \(value) % is outside 0–100 % — an allowance is a share of the Course Handicap (Appendix C), e.g. 95"
        case let .playersForFormat(format, count):
            let needed: String
            switch format {
            case .matchPlay: needed = "exactly 2 players"
            case .fourBallMatchPlay: needed = "exactly 4 players (partners listed together: A,B against C,D)"
            case .fourBallStrokePlay: needed = "an even number of players (partners listed together: A,B,C,D is A & B and C & D)"
            case .skins: needed = "at least 2 players"
            case .strokePlay, .stableford: needed = "at least 1 player"
            }
            return "\(format.title) needs \(needed); \(name("players")) lists \(count)"
        case let .optionNotForFormat(option, format):
            return "\(name(option)) applies to skins only, not to \(format.title) — leave it out or start the round with \(name("format")) skins"
        case let .matchDecided(round, status, afterHole, hole):
            return "the match of round \(round) is already decided (\(status) after hole \(afterHole)) — hole \(hole) is not played; "
                + "use 'scorecard correct' with a reason if an earlier hole's score was wrong"
        case .missingReason:
            return "a correction needs a reason — pass \(name("reason")) \"what was wrong\""
        case let .nothingToCorrect(player, hole, round):
            return "player '\(player)' has no score on hole \(hole) of round \(round) to correct — enter it with 'scorecard score'"
        case let .correctionUnchanged(player, hole, round, strokes):
            return "player '\(player)' already has \(strokes) strokes on hole \(hole) of round \(round) — nothing to correct"
        case let .invalidSeed(location, message):
            return "\(location)\(message)"
        case let .storage(message):
            return "storage failed: \(message); nothing was written"
        }
    }

    static func strokeIndexProblems(duplicates: [Int: [Int]], missing: [Int], outOfRange: [Int]) -> String {
        var parts: [String] = []
        for (index, holes) in duplicates.sorted(by: { $0.key < $1.key }) {
            parts.append("stroke index \(index) is on holes " + Self.list(holes.map(String.init)))
        }
        if !missing.isEmpty {
            parts.append("stroke index" + (missing.count > 1 ? "es " : " ") + Self.list(missing.map(String.init))
                + (missing.count > 1 ? " are" : " is") + " missing")
        }
        for value in outOfRange { parts.append("stroke index \(value) is out of range") }
        return parts.joined(separator: ", ")
    }

    static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
        }
    }
}
