// ScorecardPlugin: the thin adapter from ScorecardCore to PluginKit. Each command hands its arguments
// (as typed, numbers by their exact text) to a Core function and replies with the Core result's JSON
// (stable keys, exact decimals) and text. Storage is the plugin's own SQLite database through
// `SQLScorecardStore`, with the schema of `ScorecardSchema`.

import CClubhouse
import ClubhouseJSON
import PluginKit
import ScorecardCore
#if canImport(Glibc)
import Glibc
#endif

final class Scorecard: Plugin {
    static let info = PluginInfo(
        id: "org.clubhouse.scorecard", version: "1.4.1", name: "Scorecard",
        summary: "Rounds for several players in the formats golfers play (stroke, Stableford, match, four-ball, skins) and the World Handicap System",
        services: [.log, .config, .storage, .events])

    /// Every score entry and correction is published on "score" (every open leaderboard updates).
    static let topics = [Topic("score", summary: "a score entered or corrected: {round, player, hole, strokes, sequence, replaced (the strokes it replaced, or null), correction (a correction's reason)}")]

    static let commands: [Command<Scorecard>] = [
        Command("player add", summary: "Add a player",
                arguments: [.string("name", help: "The player's name (unique, no commas)", required: true, positional: true),
                            .string("index", help: "The Handicap Index the player comes with (12.3; +1.2 = plus 1.2): "
                                        + "in force until 3 differentials are recorded here"),
                            .string("member", help: "The golfer's federation member id (the same at every club, eg: M-1001): "
                                        + "their rounds count toward one index of record")],
                reply: "{player: {id, name, givenIndex, member}}") { plugin, call in
            let request = AddPlayerRequest(name: try call.arguments.string("name"), index: try call.arguments.optionalString("index"))
            return try plugin.addPlayer(call, request, member: try call.arguments.optionalString("member"))
        },
        Command("player edit", summary: "Set or clear the Handicap Index a player comes with (before their record here has one)",
                arguments: [.string("player", help: "Player name or id", required: true, positional: true),
                            .string("index", help: "The Handicap Index the player comes with (12.3; +1.2 = plus 1.2), or none",
                                    required: true)],
                reply: "{player: {id, name, givenIndex}, before}") { plugin, call in
            let request = EditPlayerRequest(player: try call.arguments.string("player"), index: try call.arguments.optionalString("index"))
            return try plugin.run(call) { try $0.editPlayer(request) } text: { $0.text }
        },
        Command("player list", summary: "List the players with their current Handicap Index",
                reply: "{players: [{id, name, index, indexIsGiven, finishedRounds, member, federationIndex, federationScores, federationClubs}]}") { plugin, call in
            return try plugin.listPlayers(call)
        },
        Command("federation receive", summary: "Keep the federation's Handicap Index of record per member (clubhouse federation pull sends it)",
                arguments: [.string("rows", help: "The rows of scorecard.index_of_record as a JSON array", required: true),
                            .string("federation", help: "The site's id in the federation", required: true)],
                reply: "{received, members}") { plugin, call in
            return try plugin.receive(call, rows: try call.arguments.string("rows"), federation: try call.arguments.string("federation"))
        },
        Command("course add", summary: "Add a course from a JSON file (tees, ratings, par and stroke index per hole)",
                help: """
                    The file: {"name": "…", "tees": [{"name": "White", "rating": 71.2, "slope": 128,
                    "front": {"rating": 35.8, "slope": 127}, "back": {"rating": 35.4, "slope": 129},
                    "holes": [{"number": 1, "par": 4, "strokeIndex": 7}, …]}]}. 9 or 18 holes; par 3–6;
                    stroke indexes 1–9 or 1–18 once each; slope 55–155; front/back optional.
                    """,
                arguments: [.path("file", help: "Course file (JSON)", required: true, positional: true)],
                reply: "{id, name, tees: [{name, holes, par, rating, slope, front, back}]}") { plugin, call in
            let path = try call.arguments.string("file")
            let text = try readFile(path)
            return try plugin.run(call) { try $0.addCourse(AddCourseRequest(file: path, text: text)) } text: { $0.text }
        },
        Command("course list", summary: "List the courses and their tees",
                reply: "{courses: [{id, name, tees}]}") { plugin, call in
            return try plugin.run(call) { try $0.listCourses() } text: { $0.text }
        },
        Command("course show", summary: "Show a course: every tee's ratings, pars and stroke indexes",
                arguments: [.string("course", help: "Course id or name", required: true, positional: true)],
                reply: "{course: {id, name, tees: [{name, rating, slope, holes: [{number, par, strokeIndex}], front, back}]}}") { plugin, call in
            return try plugin.run(call) { try $0.showCourse(try call.arguments.string("course")) } text: { $0.text }
        },
        Command("round start", summary: "Start a round for several players",
                arguments: [
                    .string("course", help: "Course id or name", required: true),
                    .string("tee", help: "Tee name", required: true),
                    .list("players", help: "Player names or ids, comma-separated", required: true),
                    .string("date", help: "YYYY-MM-DD (default: today)"),
                    .integer("holes", help: "9 or 18 (default: the tee's number of holes)"),
                    .choice("nine", ["front", "back"], help: "Which nine of an 18-hole tee for --holes 9 (default front)"),
                    .string("format", help: "Format of play: " + PlayFormat.allCases.map(\.rawValue).joined(separator: ", ")
                                + " (default stroke-play). Four-ball partners are listed together: A,B,C,D is A & B v C & D"),
                    .number("pcc", help: "Playing Conditions Calculation, -1 to +3 (can also be set at finish)"),
                    .string("allowance", help: "Handicap allowance in percent, 0–100 (default: the site's for the format, Appendix C: "
                                + "stroke play and Stableford 95, four-ball stroke 85, match 100, four-ball match 90, skins 100)"),
                    .string("skins", help: "Skins on net (default) or gross scores"),
                    .string("carry-overs", help: "Skins: on (default; a tied hole carries its skin) or off (the skin is void)"),
                ],
                reply: "{round: {id, date, course, tee, holes, nine, format, allowance, pcc, status, finishedOn, players: [{playerID, name, index, courseHandicap, playingHandicap}]}}") { plugin, call in
            let a = call.arguments
            let request = StartRoundRequest(
                course: try a.string("course"), tee: try a.string("tee"), players: try a.list("players").joined(separator: ","),
                date: try a.optionalString("date"), holes: try a.optionalInt("holes").map(String.init),
                nine: try a.optionalString("nine"), format: try a.optionalString("format"),
                pcc: numberText(a["pcc"]), allowance: try a.optionalString("allowance"), skins: try a.optionalString("skins"),
                carryOvers: try a.optionalString("carry-overs"), today: today())
            return try plugin.run(call) { try $0.startRound(request) } text: { $0.text }
        },
        Command("score", summary: "Enter a player's strokes on a hole (every entry is kept; the latest counts)",
                arguments: [
                    .integer("round", help: "Round id", required: true),
                    .string("player", help: "Player name or id", required: true),
                    .integer("hole", help: "Hole number", required: true),
                    .integer("strokes", help: "Strokes taken, 1–20", required: true),
                ],
                reply: "{entry: {sequence, roundID, playerID, hole, strokes}, player, replaced}") { plugin, call in
            let a = call.arguments
            let request = ScoreRequest(round: String(try a.int("round")), player: try a.string("player"),
                                       hole: String(try a.int("hole")), strokes: String(try a.int("strokes")))
            return try plugin.run(call, publishing: "score") { try $0.enterScore(request) } text: { $0.text }
        },
        Command("correct", summary: "Correct a score entered wrongly, with a reason (also in a finished round; every entry is kept)",
                arguments: [
                    .integer("round", help: "Round id", required: true),
                    .string("player", help: "Player name or id", required: true),
                    .integer("hole", help: "Hole number", required: true),
                    .integer("strokes", help: "The right number of strokes, 1–20", required: true),
                    .string("reason", help: "Why the score was wrong (kept with the entry)", required: true),
                ],
                reply: "{entry: {sequence, roundID, playerID, hole, strokes, reason, correctedOn}, player, replaced, roundFinished, differential, indexBefore, indexAfter}") { plugin, call in
            let a = call.arguments
            let request = CorrectionRequest(round: String(try a.int("round")), player: try a.string("player"),
                                            hole: String(try a.int("hole")), strokes: String(try a.int("strokes")),
                                            reason: try a.string("reason"), today: today())
            return try plugin.run(call, publishing: "score") { try $0.correctScore(request) } text: { $0.text }
        },
        Command("entries", summary: "Every score entry of a round, superseded ones and corrections with their reasons",
                arguments: [.integer("round", help: "Round id", required: true),
                            .string("player", help: "Only this player's entries")],
                reply: "{round, entries: [{sequence, player, hole, strokes, current, reason, correctedOn}]}") { plugin, call in
            let round = String(try call.arguments.int("round"))
            let player = try call.arguments.optionalString("player")
            return try plugin.run(call) { try $0.entries(round, player: player) } text: { $0.text }
        },
        Command("leaderboard", summary: "The live leaderboard of a round in its format: net/gross strokes, Stableford points, the match, four-ball sides or skins",
                arguments: [.integer("round", help: "Round id", required: true)],
                reply: "{round, lines: [{position, playerID, name, holesPlayed, gross, toPar, strokesReceived, net, netToPar, playingHandicap}], stableford: [{position, playerID, name, playingHandicap, holesPlayed, points, grossPoints}], match: {sides, strokes, holes: [{hole, net, winner, standing}], up, holesPlayed, holesRemaining, decided, decidedAfterHole, dormie, result, status}, fourBall: [{position, side, playerIDs, holesPlayed, betterBall, par, toPar}], skins: {basis, carryOvers, holes: [{hole, winner, value, outcome}], players: [{playerID, name, skins, holes}], carried, holesDecided}}") { plugin, call in
            let round = String(try call.arguments.int("round"))
            return try plugin.run(call) { try $0.leaderboard(round) } text: { $0.text }
        },
        Command("round finish", summary: "Finish a round (final: no more scores); shows differentials and new indexes",
                help: "A round with unscored holes is only finished when confirmed: on a terminal you are asked; "
                    + "in scripts pass --yes (without it the command changes nothing and exits 2).",
                arguments: [.integer("round", help: "Round id", required: true, positional: true),
                            .number("pcc", help: "Playing Conditions Calculation of the day, -1 to +3"),
                            .flag("yes", help: "Finish even with unscored holes")],
                reply: "{leaderboard, players: [{name, gross, adjustedGross, differential, note, indexAfter}]}") { plugin, call in
            let request = FinishRoundRequest(round: String(try call.arguments.int("round")), pcc: numberText(call.arguments["pcc"]),
                                             today: today(), confirmed: call.arguments.flag("yes"))
            let (result, data) = try plugin.runRecorded(call, { try $0.finishRound(request) }) { Scorecard.roundRecords($0, members: (try? plugin.members()) ?? [:]) }
            return Reply(data: data, text: call.wantsMachineOutput ? nil : result.text + "\n")
        },
        Command("round delete", summary: "Delete a round for good (it leaves lists, leaderboards and indexes; its entries stay on record)",
                help: "Deleting a final round changes its players' Handicap Indexes, so it is confirmed: on a terminal you are "
                    + "asked; in scripts pass --yes. An open round is deleted at once. The deletion is logged with its date "
                    + "and reason and cannot be undone.",
                arguments: [.integer("round", help: "Round id", required: true, positional: true),
                            .string("reason", help: "Why (kept with the deletion)"),
                            .flag("yes", help: "Delete even a final round")],
                reply: "{round, wasFinal, reason, players: [{name, indexBefore, indexAfter}]}") { plugin, call in
            let request = DeleteRoundRequest(round: String(try call.arguments.int("round")),
                                             reason: try call.arguments.optionalString("reason"), today: today(),
                                             confirmed: call.arguments.flag("yes"))
            let (result, data) = try plugin.runRecorded(call, { try $0.deleteRound(request) }, records: Scorecard.deletionRecords)
            return Reply(data: data, text: call.wantsMachineOutput ? nil : result.text + "\n")
        },
        Command("rounds", summary: "History of rounds, newest first",
                reply: "{rounds: [leaderboard]}") { plugin, call in
            return try plugin.run(call) { try $0.rounds() } text: { $0.text }
        },
        Command("index", summary: "A player's Handicap Index and the record behind it",
                arguments: [.string("player", help: "Player name or id", required: true, positional: true)],
                reply: "{player, index, lowIndex, calculation: {considered, used, adjustment, counted, average, calculated, lowIndex, softCapApplied, hardCapApplied, maximumApplied, index}, scores: [{roundID, date, course, tee, holes, outcome}], revisions: [{effective, index, differentials}]}") { plugin, call in
            let player = try call.arguments.string("player")
            return try plugin.run(call) { try $0.index(player) } text: { $0.text }
        },
        Command("import", summary: "Import players and courses from the Golfer app's seed file (defects are reported, not imported)",
                arguments: [.path("file", help: "Seed file (default_seed.json format)", required: true, positional: true)],
                reply: "{playersAdded, coursesAdded, skipped, rejected: [{item, error}], notes}") { plugin, call in
            let path = try call.arguments.string("file")
            let text = try readFile(path)
            return try plugin.run(call) { try $0.importSeed(SeedImportRequest(file: path, text: text)) } text: { $0.text }
        },
        Command("differential", summary: "Score Differential of an adjusted gross score (9 holes: plus the expected score)",
                arguments: [
                    .integer("ags", help: "Adjusted gross score", required: true),
                    .number("rating", help: "Course Rating of the holes played", required: true),
                    .integer("slope", help: "Slope Rating, 55–155", required: true),
                    .number("pcc", help: "Playing Conditions Calculation, -1 to +3 (default 0)"),
                    .integer("holes", help: "9 or 18", default: 18),
                    .string("index", help: "Handicap Index for the expected score of a 9-hole round (+2.3 = plus 2.3)"),
                ],
                reply: "{holes, adjustedGrossScore, courseRating, slopeRating, pcc, index, nineHoleDifferential, expectedDifferential, unroundedDifferential, differential}") { _, call in
            let a = call.arguments
            let request = DifferentialRequest(ags: String(try a.int("ags")), rating: numberText(a["rating"]) ?? "",
                                              slope: String(try a.int("slope")), pcc: numberText(a["pcc"]),
                                              holes: try a.optionalInt("holes").map(String.init), index: try a.optionalString("index"))
            return try reply(call) { try Calculators.differential(request) } text: { $0.text }
        },
        Command("index-from", summary: "Handicap Index from differentials (oldest first; the most recent 20 count)",
                arguments: [
                    .list("differentials", help: "Score Differentials in the order played, e.g. 15.3,15.2,16.6", required: true),
                    .string("low-index", help: "Low Handicap Index, for the soft and hard caps (20 differentials or more)"),
                ],
                reply: "{index, differentials, considered, used, adjustment, average, calculated, counted, countedPositions, lowIndex, softCapApplied, hardCapApplied, maximumApplied, note}") { _, call in
            let request = IndexFromRequest(differentials: try call.arguments.list("differentials").joined(separator: ","),
                                           lowIndex: try call.arguments.optionalString("low-index"))
            return try reply(call) { try Calculators.indexFrom(request) } text: { $0.text }
        },
        Command("course-handicap", summary: "Course Handicap (and Playing Handicap with an allowance) for an index and a tee",
                arguments: [
                    .string("index", help: "Handicap Index (+2.3 = plus 2.3)", required: true),
                    .integer("slope", help: "Slope Rating", required: true),
                    .number("rating", help: "Course Rating", required: true),
                    .integer("par", help: "Par", required: true),
                    .integer("holes", help: "9 (index/2 with the nine's slope, rating and par) or 18", default: 18),
                    .string("allowance", help: "Handicap allowance in percent (95 stroke play, 85 four-ball, 100 match play)"),
                ],
                reply: "{holes, index, nineHoleIndex, slopeRating, courseRating, par, unroundedCourseHandicap, courseHandicap, allowance, playingHandicap}") { plugin, call in
            let a = call.arguments
            let request = CourseHandicapRequest(
                index: try a.string("index"), slope: String(try a.int("slope")), rating: numberText(a["rating"]) ?? "",
                par: String(try a.int("par")), holes: try a.optionalInt("holes").map(String.init),
                allowance: try a.optionalString("allowance") ?? plugin.defaultAllowance)
            return try reply(call) { try Calculators.courseHandicap(request) } text: { $0.text }
        },
        Command("strokes", summary: "Strokes received per hole for a Course Handicap (plus handicaps give strokes back)",
                arguments: [
                    .string("course-handicap", help: "Course or Playing Handicap (+2 = plus 2)", required: true),
                    .list("stroke-indexes", help: "Stroke index of each hole played, in hole order (9 or 18)", required: true),
                ],
                reply: "{courseHandicap, holes, strokeIndexes, strokes, total}") { _, call in
            let request = StrokesRequest(courseHandicap: try call.arguments.string("course-handicap"),
                                         strokeIndexes: try call.arguments.list("stroke-indexes").joined(separator: ","))
            return try reply(call) { try Calculators.strokes(request) } text: { $0.text }
        },
        Command("demo", summary: "Sample players and courses, a season of rounds, indexes with their records, a live leaderboard",
                arguments: [.path("out", help: "Folder for the demo's output (demo.txt, demo.json)", required: true)],
                reply: "{players, courses, finishedRounds, records, liveRound}") { plugin, call in
            let out = try call.arguments.string("out")
            // The demo fills the plugin's database when it is empty (so `clubhouse demo` leaves data to
            // browse); a database that already holds data is left alone and the demo runs in memory.
            let empty = try plugin.store.players().isEmpty && plugin.store.courses().isEmpty
            let commands = ScorecardCommands(store: empty ? plugin.store : InMemoryScorecardStore(), allowances: plugin.allowances)
            let report: DemoReport
            report = try commands.runDemo(today: today())
            let json = JSONWriter.pretty(ScorecardJSON.value(report)) + "\n"
            try Files.createDirectory(out)
            try writeFile(out + "/demo.txt", report.text + "\n")
            try writeFile(out + "/demo.json", json)
            var text = report.text + "\n"
            text += empty ? "\n(the demo's players, courses and rounds are in this site's scorecard database)\n"
                : "\n(this site's scorecard database already has data; the demo ran in memory)\n"
            text += "written: \(out)/demo.txt, \(out)/demo.json\n"
            return Reply(data: ScorecardJSON.value(report), text: text)
        },
    ]

    let context: PluginContext
    let store: SQLScorecardStore
    /// `allowance_percent` from the site's config: the default of `course-handicap --allowance`.
    let defaultAllowance: String?
    /// `allowance_<format>` from the site's config (Appendix C where not set).
    let allowances: AllowanceTable

    init(context: PluginContext) throws {
        self.context = context
        let storage = try context.storage()
        try storage.migrate(ScorecardSchema.migrations)
        store = SQLScorecardStore(storage: storage)
        let allowance = context.config.int("allowance_percent", default: 0)
        guard (0...100).contains(allowance) else {
            throw PluginError.invalidArgument("config key 'allowance_percent' must be 1–100, got \(allowance)")
        }
        defaultAllowance = allowance == 0 ? nil : String(allowance)
        var overrides: [String: Int] = [:]
        for format in PlayFormat.allCases {
            let value = context.config.int(format.configKey, default: -1)
            if value != -1 { overrides[format.configKey] = value }
        }
        do { allowances = try AllowanceTable(config: overrides) } catch { throw PluginError.invalidArgument(error.description) }
    }

    /// Runs a stateful command against the database.
    func run<T: Encodable>(_ call: Invocation, _ body: (ScorecardCommands) throws -> T, text: (T) -> String) throws -> Reply {
        try reply(call, { try body(ScorecardCommands(store: store, allowances: allowances)) }, text: text)
    }

    /// Runs a command that stores a score entry, then publishes the entry on `topic`: the round, the
    /// player's name, the hole, the strokes, the entry's sequence, whether it replaced an earlier one and,
    /// for a correction, its reason. The entry is stored before it is published: a refused event (a
    /// host without the events service) is logged and the reply stands.
    func run<T: Encodable>(_ call: Invocation, publishing topic: String, _ body: (ScorecardCommands) throws -> T,
                           text: (T) -> String) throws -> Reply {
        // The entry and its outbox record are stored in one transaction (ScorecardRecords.swift).
        let (result, data) = try runRecorded(call, body, records: Scorecard.entryRecords)
        let entry = data["entry"]
        var event: JSONObject = [:]
        event["round"] = entry?["roundID"] ?? .null
        event["player"] = data["player"] ?? .null
        event["hole"] = entry?["hole"] ?? .null
        event["strokes"] = entry?["strokes"] ?? .null
        event["sequence"] = entry?["sequence"] ?? .null
        event["replaced"] = data["replaced"] ?? .null
        if let reason = entry?["reason"] { event["correction"] = reason }
        do {
            try call.events.publish(topic: topic, .object(event))
        } catch {
            context.log.warning("score stored; its live event was not published: \(error)")
        }
        return Reply(data: data, text: call.wantsMachineOutput ? nil : text(result) + "\n")
    }
}

/// The reply for a Core result: its JSON, and its text unless only JSON is wanted.
func reply<T: Encodable>(_ call: Invocation, _ body: () throws -> T, text: (T) -> String) throws -> Reply {
    let result = try body()
    return Reply(data: ScorecardJSON.value(result), text: call.wantsMachineOutput ? nil : text(result) + "\n")
}

/// Domain errors as replies: unknown things are "not found", storage trouble a failure, everything
/// else bad input (exit code 2).
extension ScorecardError: DomainError {
    public var replyStatus: PluginStatus {
        switch self {
        case .unknownCourse, .unknownPlayer, .unknownRound: return .notFound
        case .storage, .roundFinished: return .error
        case .unconfirmed: return .needsConfirmation
        default: return .invalidArgument
        }
    }
    public var replyMessage: String { description }
}

/// The exact text of a number argument (its lexeme), or nil when absent.
func numberText(_ value: JSONValue?) -> String? {
    switch value {
    case .number(let n)?: return n.lexeme
    case .string(let s)?: return s
    default: return nil
    }
}

/// Today's date in UTC.
func today() -> GolfDate {
    let days = Int(time(nil)) / 86_400
    return GolfDate(dayNumber: days)
}

func readFile(_ path: String) throws -> String {
    try Files.readText(path, limit: 16 << 20)
}

func writeFile(_ path: String, _ text: String) throws {
    try Files.write(path, text: text)
}

@_cdecl("clubhouse_plugin_entry")
public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? { export(Scorecard.self, info) }
