// The device service in Swift. Compiled with PluginKitTests (page: PluginSDK/docs/services/device.md).

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
/// `feed COUNT`: sends "FEED <n>\n" to the device the site calls "ballmachine" (grant
/// "device:ballmachine") and waits up to 2 s for "OK".
func feedBalls(_ call: Invocation) throws -> Reply {
    let count = try call.arguments.int("count")
    let machine = try call.context.devices().open("ballmachine")
    defer { machine.close() }
    try machine.write(Array("FEED \(count)\n".utf8))
    let answer = try machine.read(upTo: 64, timeoutMilliseconds: 2000)
    if answer.isEmpty { throw PluginError(.timeout, "ballmachine did not answer within 2 s; is it on?") }
    guard answer.starts(with: Array("OK".utf8)) else {
        throw PluginError(.io, "ballmachine refused FEED \(count): \(String(decoding: answer, as: UTF8.self))")
    }
    return Reply(data: .object(["fed": .number(JSONNumber(count))]), text: "fed \(count)\n")
}
// END EXAMPLE
