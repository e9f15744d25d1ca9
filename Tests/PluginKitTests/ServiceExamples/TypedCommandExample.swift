// A typed command in Swift. Compiled with PluginKitTests and shown verbatim in PluginSDK/README.md
// ("Typed commands"); TypedArgumentsTests runs it.

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
enum Nine: String, ArgumentChoice {
    case front, back
}

struct ScoreArguments: CommandArguments {
    var round: Int
    var player: String
    var strokes: Int
    var nine: Nine?
    var markers: [String]?
    var yes: Bool

    static let fields = [
        ArgumentField("round", help: "Round id", positional: true),
        ArgumentField("player", help: "Player name or id"),
        ArgumentField("strokes", help: "Strokes taken, 1–20"),
        ArgumentField("nine", help: "Which nine of an 18-hole tee"),
        ArgumentField("markers", help: "Who marked the card, comma-separated"),
        ArgumentField("yes", help: "Enter it even on a finished round"),
    ]
}

final class Scorer: Plugin {
    static let info = PluginInfo(id: "org.example.scorer", version: "1.0.0", name: "Scorer", summary: "Enters scores")

    static let commands: [Command<Scorer>] = [
        Command("score", summary: "Enter a player's strokes", arguments: ScoreArguments.self,
                reply: "{round, player, strokes, nine}", examples: ["score 3 --player Ann --strokes 4"]) { _, score, _ in
            guard (1...20).contains(score.strokes) else { throw ArgumentError("strokes", "must be 1–20, got \(score.strokes)") }
            let nine: JSONValue = score.nine.map { .string($0.rawValue) } ?? .null
            return Reply(data: ["round": .int(score.round), "player": .string(score.player), "strokes": .int(score.strokes), "nine": nine],
                         text: "\(score.player): \(score.strokes)\n")
        },
    ]

    init(context: PluginContext) throws {}
}
// END EXAMPLE
