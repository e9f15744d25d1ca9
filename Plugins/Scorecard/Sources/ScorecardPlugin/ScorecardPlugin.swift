// ScorecardPlugin: the thin adapter from ScorecardCore to PluginKit. Each command decodes its arguments
// into a type (ScorecardArguments.swift; decimals keep their exact text) and hands them to a Core function and replies with the Core result's JSON
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
        id: "org.clubhouse.scorecard", version: "1.6.2", name: "Scorecard",
        summary: "Rounds for several players in the formats golfers play (stroke, Stableford, match, four-ball, skins) and the World Handicap System",
        services: [.log, .config, .storage, .events])

    /// Every score entry and correction is published on "score" (every open leaderboard updates).
    static let topics = [Topic("score", summary: "a score entered or corrected: {round, player, hole, strokes, sequence, replaced (the strokes it replaced, or null), correction (a correction's reason)}")]

    static let commands: [Command<Scorecard>] = [
        Command("player add", summary: "Add a player", arguments: PlayerAddArguments.self,
                reply: "{player: {id, name, givenIndex, member}}") { plugin, a, call in
            try plugin.addPlayer(call, AddPlayerRequest(name: a.name, index: a.index), member: a.member)
        },
        Command("player edit", summary: "Set or clear the Handicap Index a player comes with (before their record here has one)",
                arguments: PlayerEditArguments.self, reply: "{player: {id, name, givenIndex}, before}") { plugin, a, call in
            try plugin.run(call) { try $0.editPlayer(EditPlayerRequest(player: a.player, index: a.index)) } text: { $0.text }
        },
        Command("player list", summary: "List the players with their current Handicap Index",
                reply: "{players: [{id, name, index, indexIsGiven, finishedRounds, member, federationIndex, federationScores, federationClubs}]}") { plugin, call in
            return try plugin.listPlayers(call)
        },
        Command("federation receive", summary: "Keep the federation's Handicap Index of record per member (clubhouse federation pull sends it)",
                arguments: FederationReceiveArguments.self, reply: "{received, members}") { plugin, a, call in
            try plugin.receive(call, rows: a.rows, federation: a.federation)
        },
        Command("course add", summary: "Add a course from a JSON file (tees, ratings, par and stroke index per hole)",
                help: """
                    The file: {"name": "…", "tees": [{"name": "White", "rating": 71.2, "slope": 128,
                    "front": {"rating": 35.8, "slope": 127}, "back": {"rating": 35.4, "slope": 129},
                    "holes": [{"number": 1, "par": 4, "strokeIndex": 7}, …]}]}. 9 or 18 holes; par 3–6;
                    stroke indexes 1–9 or 1–18 once each; slope 55–155; front/back optional.
                    """,
                arguments: CourseFileArguments.self, reply: "{id, name, tees: [{name, holes, par, rating, slope, front, back}]}") { plugin, a, call in
            let text = try readFile(a.file)
            return try plugin.run(call) { try $0.addCourse(AddCourseRequest(file: a.file, text: text)) } text: { $0.text }
        },
        Command("course list", summary: "List the courses and their tees",
                reply: "{courses: [{id, name, tees}]}") { plugin, call in
            return try plugin.run(call) { try $0.listCourses() } text: { $0.text }
        },
        Command("course show", summary: "Show a course: every tee's ratings, pars and stroke indexes", arguments: CourseArguments.self,
                reply: "{course: {id, name, tees: [{name, rating, slope, holes: [{number, par, strokeIndex}], front, back}]}}") { plugin, a, call in
            try plugin.run(call) { try $0.showCourse(a.course) } text: { $0.text }
        },
        Command("round start", summary: "Start a round for several players", arguments: RoundStartArguments.self,
                reply: "{round: {id, date, course, tee, holes, nine, format, allowance, pcc, status, finishedOn, players: [{playerID, name, index, courseHandicap, playingHandicap}]}}") { plugin, a, call in
            let request = StartRoundRequest(
                course: a.course, tee: a.tee, players: a.players, date: a.date, holes: a.holes, nine: a.nine?.nine, format: a.format,
                pcc: a.pcc?.text, allowance: a.allowance, skins: a.skins, carryOvers: a.carryOvers, today: today())
            return try plugin.run(call) { try $0.startRound(request) } text: { $0.text }
        },
        Command("score", summary: "Enter a player's strokes on a hole (every entry is kept; the latest counts)", arguments: ScoreArguments.self,
                reply: "{entry: {sequence, roundID, playerID, hole, strokes}, player, replaced}") { plugin, a, call in
            let request = ScoreRequest(round: a.round, player: a.player, hole: a.hole, strokes: a.strokes)
            return try plugin.run(call, publishing: "score") { try $0.enterScore(request) } text: { $0.text }
        },
        Command("correct", summary: "Correct a score entered wrongly, with a reason (also in a finished round; every entry is kept)",
                arguments: CorrectArguments.self,
                reply: "{entry: {sequence, roundID, playerID, hole, strokes, reason, correctedOn}, player, replaced, roundFinished, differential, indexBefore, indexAfter}") { plugin, a, call in
            let request = CorrectionRequest(round: a.round, player: a.player, hole: a.hole, strokes: a.strokes, reason: a.reason, today: today())
            return try plugin.run(call, publishing: "score") { try $0.correctScore(request) } text: { $0.text }
        },
        Command("entries", summary: "Every score entry of a round, superseded ones and corrections with their reasons",
                arguments: EntriesArguments.self,
                reply: "{round, entries: [{sequence, player, hole, strokes, current, reason, correctedOn}]}") { plugin, a, call in
            try plugin.run(call) { try $0.entries(a.round, player: a.player) } text: { $0.text }
        },
        Command("leaderboard", summary: "The live leaderboard of a round in its format: net/gross strokes, Stableford points, the match, four-ball sides or skins",
                arguments: RoundArguments.self,
                reply: "{round, lines: [{position, playerID, name, holesPlayed, gross, toPar, strokesReceived, net, netToPar, playingHandicap}], stableford: [{position, playerID, name, playingHandicap, holesPlayed, points, grossPoints}], match: {sides, strokes, holes: [{hole, net, winner, standing}], up, holesPlayed, holesRemaining, decided, decidedAfterHole, dormie, result, status}, fourBall: [{position, side, playerIDs, holesPlayed, betterBall, par, toPar}], skins: {basis, carryOvers, holes: [{hole, winner, value, outcome}], players: [{playerID, name, skins, holes}], carried, holesDecided}}") { plugin, a, call in
            try plugin.run(call) { try $0.leaderboard(a.round) } text: { $0.text }
        },
        Command("round finish", summary: "Finish a round (final: no more scores); shows differentials and new indexes",
                help: "A round with unscored holes is only finished when confirmed: on a terminal you are asked; "
                    + "in scripts pass --yes (without it the command changes nothing and exits 2).",
                arguments: RoundFinishArguments.self,
                reply: "{leaderboard, players: [{name, gross, adjustedGross, differential, note, indexAfter}]}") { plugin, a, call in
            let request = FinishRoundRequest(round: a.round, pcc: a.pcc?.text, today: today(), confirmed: a.yes)
            let (result, data) = try plugin.runRecorded(call, { try $0.finishRound(request) }) { Scorecard.roundRecords($0, members: (try? plugin.members()) ?? [:]) }
            return Reply(data: data, text: call.wantsMachineOutput ? nil : result.text + "\n")
        },
        Command("round delete", summary: "Delete a round for good (it leaves lists, leaderboards and indexes; its entries stay on record)",
                help: "Deleting a final round changes its players' Handicap Indexes, so it is confirmed: on a terminal you are "
                    + "asked; in scripts pass --yes. An open round is deleted at once. The deletion is logged with its date "
                    + "and reason and cannot be undone.",
                arguments: RoundDeleteArguments.self,
                reply: "{round, wasFinal, reason, players: [{name, indexBefore, indexAfter}]}") { plugin, a, call in
            let request = DeleteRoundRequest(round: a.round, reason: a.reason, today: today(), confirmed: a.yes)
            let (result, data) = try plugin.runRecorded(call, { try $0.deleteRound(request) }, records: Scorecard.deletionRecords)
            return Reply(data: data, text: call.wantsMachineOutput ? nil : result.text + "\n")
        },
        Command("rounds", summary: "History of rounds, newest first",
                reply: "{rounds: [leaderboard]}") { plugin, call in
            return try plugin.run(call) { try $0.rounds() } text: { $0.text }
        },
        Command("index", summary: "A player's Handicap Index and the record behind it", arguments: PlayerArguments.self,
                reply: "{player, index, lowIndex, calculation: {considered, used, adjustment, counted, average, calculated, lowIndex, softCapApplied, hardCapApplied, maximumApplied, index}, scores: [{roundID, date, course, tee, holes, outcome}], revisions: [{effective, index, differentials}]}") { plugin, a, call in
            try plugin.run(call) { try $0.index(a.player) } text: { $0.text }
        },
        Command("import", summary: "Import players and courses from the Golfer app's seed file (defects are reported, not imported)",
                arguments: SeedFileArguments.self,
                reply: "{playersAdded, coursesAdded, skipped, rejected: [{item, error}], notes}") { plugin, a, call in
            let text = try readFile(a.file)
            return try plugin.run(call) { try $0.importSeed(SeedImportRequest(file: a.file, text: text)) } text: { $0.text }
        },
        Command("differential", summary: "Score Differential of an adjusted gross score (9 holes: plus the expected score)",
                arguments: DifferentialArguments.self,
                reply: "{holes, adjustedGrossScore, courseRating, slopeRating, pcc, index, nineHoleDifferential, expectedDifferential, unroundedDifferential, differential}") { _, a, call in
            let request = DifferentialRequest(ags: a.ags, rating: a.rating.text, slope: a.slope, pcc: a.pcc?.text, holes: a.holes, index: a.index)
            return try reply(call) { try Calculators.differential(request) } text: { $0.text }
        },
        Command("index-from", summary: "Handicap Index from differentials (oldest first; the most recent 20 count)",
                arguments: IndexFromArguments.self,
                reply: "{index, differentials, considered, used, adjustment, average, calculated, counted, countedPositions, lowIndex, softCapApplied, hardCapApplied, maximumApplied, note}") { _, a, call in
            let request = IndexFromRequest(differentials: a.differentials, lowIndex: a.lowIndex)
            return try reply(call) { try Calculators.indexFrom(request) } text: { $0.text }
        },
        Command("course-handicap", summary: "Course Handicap (and Playing Handicap with an allowance) for an index and a tee",
                arguments: CourseHandicapArguments.self,
                reply: "{holes, index, nineHoleIndex, slopeRating, courseRating, par, unroundedCourseHandicap, courseHandicap, allowance, playingHandicap}") { plugin, a, call in
            let request = CourseHandicapRequest(index: a.index, slope: a.slope, rating: a.rating.text, par: a.par, holes: a.holes,
                                                allowance: a.allowance ?? plugin.defaultAllowance)
            return try reply(call) { try Calculators.courseHandicap(request) } text: { $0.text }
        },
        Command("strokes", summary: "Strokes received per hole for a Course Handicap (plus handicaps give strokes back)",
                arguments: StrokesArguments.self, reply: "{courseHandicap, holes, strokeIndexes, strokes, total}") { _, a, call in
            let request = StrokesRequest(courseHandicap: a.courseHandicap, strokeIndexes: a.strokeIndexes)
            return try reply(call) { try Calculators.strokes(request) } text: { $0.text }
        },
        Command("demo", summary: "Sample players and courses, a season of rounds, indexes with their records, a live leaderboard",
                arguments: DemoArguments.self, reply: "{players, courses, finishedRounds, records, liveRound}") { plugin, a, call in
            let out = a.out
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
    /// The core names arguments by their names; the command line's word for one is its flag (the host
    /// words a leading flag its own way for JSON-RPC and HTTP: PluginKit's ArgumentError).
    public var replyMessage: String { message(naming: { "--" + $0 }) }
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
