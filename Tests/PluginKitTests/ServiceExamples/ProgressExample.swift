// The progress service in Swift. Compiled with PluginKitTests (page: PluginSDK/docs/services/progress.md).

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
/// `replay` for a command declared `longRunning`: a stage counted in bytes (reading the carries,
/// one a line), then one stage of shots, stopping cleanly when the caller cancels.
func replayShots(_ call: Invocation, data: [UInt8]) throws -> Reply {
    let progress = call.progress
    // Bytes: the bar shows "1.2 MiB / 3.0 MiB  5.1 MiB/s" (a host older than ABI 1.2 shows items).
    progress.begin("reading shots", total: data.count, unit: .bytes)
    var shots: [Double] = []
    var start = 0
    for (offset, byte) in data.enumerated() where byte == UInt8(ascii: "\n") {
        shots.append(Double(String(decoding: data[start..<offset], as: UTF8.self)) ?? 0)
        start = offset + 1
        progress.update(offset + 1)
    }
    progress.begin("replaying shots", total: shots.count) // ends the previous stage; items again
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
