// The invoke service in Swift. Compiled with PluginKitTests (page: PluginSDK/docs/services/invoke.md).

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
/// `rounds PLAYER`: asks the plugin the site calls "scorecard" (grant "invoke:scorecard") and
/// passes on how many rounds it found. Its errors arrive as a thrown PluginError with its status.
func playerRounds(_ call: Invocation) throws -> Reply {
    let player = try call.arguments.string("player")
    let result = try call.invoke("scorecard", "rounds", arguments: ["player": .string(player)])
    let count = result.data.objectValue?["rounds"]?.arrayValue?.count ?? 0
    return Reply(data: .object(["player": .string(player), "rounds": .number(JSONNumber(count))]),
                 text: "\(player): \(count) rounds\n")
}
// END EXAMPLE
