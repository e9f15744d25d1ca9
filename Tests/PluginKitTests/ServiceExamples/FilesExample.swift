// The files service in Swift. Compiled with PluginKitTests (page: PluginSDK/docs/services/files.md).

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
/// `upper INPUT OUTPUT`: reads the path argument "input" and writes an upper-cased copy to the
/// path argument "output". `Files` asks the files service for the descriptors of exactly these
/// arguments, so the same code runs in process, in a runner and in the sandbox.
let upperArguments: [Argument] = [
    .path("input", help: "Text file to read (- for standard input)", required: true, positional: true),
    .path("output", help: "Where to write (- for standard output)", required: true, positional: true, access: .write),
]

func upperCase(_ call: Invocation) throws -> Reply {
    let input = try call.arguments.string("input")
    let output = try call.arguments.string("output")
    let text = try Files.readText(input)
    try Files.write(output, text: text.uppercased()) // temporary file, renamed when the call succeeds
    return Reply(data: .object(["bytes": .number(JSONNumber(text.utf8.count))]), text: "wrote \(output)\n")
}
// END EXAMPLE
