// The progress service in Swift. Compiled with PluginKitTests (page: PluginSDK/docs/services/progress.md).

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
/// `replay` for a command declared `longRunning`: one stage with a known total, a unit at a time,
/// stopping cleanly when the caller cancels.
func replayShots(_ call: Invocation, shots: [Double]) throws -> Reply {
    let progress = call.progress
    progress.begin("replaying shots", total: shots.count)
    var longest = 0.0
    for (done, carry) in shots.enumerated() {
        try call.checkCancellation() // throws "cancelled": the handler returns, the stage ends
        longest = max(longest, carry)
        progress.update(done + 1) // cheap: the host rate-limits what it draws
    }
    progress.end()
    return Reply(data: .object(["longest": .number(JSONNumber(longest))]), text: "longest carry \(longest) m\n")
}
// END EXAMPLE
