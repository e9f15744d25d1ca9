// The arguments of each scorecard command as a type (PluginKit's CommandArguments): the catalogue's
// argument list is made from these, and each handler gets one decoded. Decimals (an index, a rating,
// the PCC) keep the text they were given: the core reads them exactly, to the tenth.

import PluginKit
import ScorecardCore

struct PlayerAddArguments: CommandArguments {
    var name: String
    var index: String?
    var member: String?
    static let fields = [
        ArgumentField("name", help: "The player's name (unique, no commas)", positional: true),
        ArgumentField("index", help: "The Handicap Index the player comes with (12.3; +1.2 = plus 1.2): "
            + "in force until 3 differentials are recorded here"),
        ArgumentField("member", help: "The golfer's federation member id (the same at every club, eg: M-1001): "
            + "their rounds count toward one index of record"),
    ]
}

struct PlayerEditArguments: CommandArguments {
    var player: String
    var index: String
    static let fields = [
        ArgumentField("player", help: "Player name or id", positional: true),
        ArgumentField("index", help: "The Handicap Index the player comes with (12.3; +1.2 = plus 1.2), or none"),
    ]
}

struct FederationReceiveArguments: CommandArguments {
    var rows: String
    var federation: String
    static let fields = [
        ArgumentField("rows", help: "The rows of scorecard.index_of_record as a JSON array"),
        ArgumentField("federation", help: "The site's id in the federation"),
    ]
}

struct CourseFileArguments: CommandArguments {
    var file: String
    static let fields = [ArgumentField.path("file", help: "Course file (JSON)", positional: true)]
}

struct SeedFileArguments: CommandArguments {
    var file: String
    static let fields = [ArgumentField.path("file", help: "Seed file (default_seed.json format)", positional: true)]
}

struct CourseArguments: CommandArguments {
    var course: String
    static let fields = [ArgumentField("course", help: "Course id or name", positional: true)]
}

struct PlayerArguments: CommandArguments {
    var player: String
    static let fields = [ArgumentField("player", help: "Player name or id", positional: true)]
}

/// Which nine of an 18-hole tee.
enum NineArgument: String, ArgumentChoice {
    case front, back
    var nine: Nine { self == .front ? .front : .back }
}

struct RoundStartArguments: CommandArguments {
    var course: String
    var tee: String
    var players: [String]
    var date: String?
    var holes: Int?
    var nine: NineArgument?
    var format: String?
    var pcc: ArgumentDecimal?
    var allowance: String?
    var skins: String?
    var carryOvers: String?

    enum CodingKeys: String, CodingKey {
        case course, tee, players, date, holes, nine, format, pcc, allowance, skins
        case carryOvers = "carry-overs"
    }

    static let fields = [
        ArgumentField("course", help: "Course id or name"),
        ArgumentField("tee", help: "Tee name"),
        ArgumentField("players", help: "Player names or ids, comma-separated"),
        ArgumentField("date", help: "YYYY-MM-DD (default: today)"),
        ArgumentField("holes", help: "9 or 18 (default: the tee's number of holes)"),
        ArgumentField("nine", help: "Which nine of an 18-hole tee for --holes 9 (default front)"),
        ArgumentField("format", help: "Format of play: " + PlayFormat.allCases.map(\.rawValue).joined(separator: ", ")
            + " (default stroke-play). Four-ball partners are listed together: A,B,C,D is A & B v C & D"),
        ArgumentField("pcc", help: "Playing Conditions Calculation, -1 to +3 (can also be set at finish)"),
        ArgumentField("allowance", help: "Handicap allowance in percent, 0–100 (default: the site's for the format, Appendix C: "
            + "stroke play and Stableford 95, four-ball stroke 85, match 100, four-ball match 90, skins 100)"),
        ArgumentField("skins", help: "Skins on net (default) or gross scores"),
        ArgumentField("carry-overs", help: "Skins: on (default; a tied hole carries its skin) or off (the skin is void)"),
    ]
}

struct ScoreArguments: CommandArguments {
    var round: Int
    var player: String
    var hole: Int
    var strokes: Int
    static let fields = [
        ArgumentField("round", help: "Round id"),
        ArgumentField("player", help: "Player name or id"),
        ArgumentField("hole", help: "Hole number"),
        ArgumentField("strokes", help: "Strokes taken, 1–20"),
    ]
}

struct CorrectArguments: CommandArguments {
    var round: Int
    var player: String
    var hole: Int
    var strokes: Int
    var reason: String
    static let fields = [
        ArgumentField("round", help: "Round id"),
        ArgumentField("player", help: "Player name or id"),
        ArgumentField("hole", help: "Hole number"),
        ArgumentField("strokes", help: "The right number of strokes, 1–20"),
        ArgumentField("reason", help: "Why the score was wrong (kept with the entry)"),
    ]
}

struct EntriesArguments: CommandArguments {
    var round: Int
    var player: String?
    static let fields = [ArgumentField("round", help: "Round id"), ArgumentField("player", help: "Only this player's entries")]
}

struct RoundArguments: CommandArguments {
    var round: Int
    static let fields = [ArgumentField("round", help: "Round id")]
}

struct RoundFinishArguments: CommandArguments {
    var round: Int
    var pcc: ArgumentDecimal?
    var yes: Bool
    static let fields = [
        ArgumentField("round", help: "Round id", positional: true),
        ArgumentField("pcc", help: "Playing Conditions Calculation of the day, -1 to +3"),
        ArgumentField("yes", help: "Finish even with unscored holes"),
    ]
}

struct RoundDeleteArguments: CommandArguments {
    var round: Int
    var reason: String?
    var yes: Bool
    static let fields = [
        ArgumentField("round", help: "Round id", positional: true),
        ArgumentField("reason", help: "Why (kept with the deletion)"),
        ArgumentField("yes", help: "Delete even a final round"),
    ]
}

struct DifferentialArguments: CommandArguments {
    var ags: Int
    var rating: ArgumentDecimal
    var slope: Int
    var pcc: ArgumentDecimal?
    var holes: Int
    var index: String?
    static let fields = [
        ArgumentField("ags", help: "Adjusted gross score"),
        ArgumentField("rating", help: "Course Rating of the holes played"),
        ArgumentField("slope", help: "Slope Rating, 55–155"),
        ArgumentField("pcc", help: "Playing Conditions Calculation, -1 to +3 (default 0)"),
        ArgumentField("holes", help: "9 or 18", default: 18),
        ArgumentField("index", help: "Handicap Index for the expected score of a 9-hole round (+2.3 = plus 2.3)"),
    ]
}

struct IndexFromArguments: CommandArguments {
    var differentials: [String]
    var lowIndex: String?
    enum CodingKeys: String, CodingKey {
        case differentials
        case lowIndex = "low-index"
    }
    static let fields = [
        ArgumentField("differentials", help: "Score Differentials in the order played, e.g. 15.3,15.2,16.6"),
        ArgumentField("low-index", help: "Low Handicap Index, for the soft and hard caps (20 differentials or more)"),
    ]
}

struct CourseHandicapArguments: CommandArguments {
    var index: String
    var slope: Int
    var rating: ArgumentDecimal
    var par: Int
    var holes: Int
    var allowance: String?
    static let fields = [
        ArgumentField("index", help: "Handicap Index (+2.3 = plus 2.3)"),
        ArgumentField("slope", help: "Slope Rating"),
        ArgumentField("rating", help: "Course Rating"),
        ArgumentField("par", help: "Par"),
        ArgumentField("holes", help: "9 (index/2 with the nine's slope, rating and par) or 18", default: 18),
        ArgumentField("allowance", help: "Handicap allowance in percent (95 stroke play, 85 four-ball, 100 match play)"),
    ]
}

struct StrokesArguments: CommandArguments {
    var courseHandicap: String
    var strokeIndexes: [String]
    enum CodingKeys: String, CodingKey {
        case courseHandicap = "course-handicap"
        case strokeIndexes = "stroke-indexes"
    }
    static let fields = [
        ArgumentField("course-handicap", help: "Course or Playing Handicap (+2 = plus 2)"),
        ArgumentField("stroke-indexes", help: "Stroke index of each hole played, in hole order (9 or 18)"),
    ]
}

struct DemoArguments: CommandArguments {
    var out: String
    static let fields = [ArgumentField.path("out", help: "Folder for the demo's output (demo.txt, demo.json)")]
}
