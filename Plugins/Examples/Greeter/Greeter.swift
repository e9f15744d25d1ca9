// An example plugin in Swift with PluginKit: greetings from the site's config, a long-running
// countdown that reports progress and honours Ctrl-C, a call into another plugin (notes), and a
// demo. Copy this folder to start a plugin of your own (see PluginSDK/README.md).

import CClubhouse
import ClubhouseJSON
import PluginKit
#if canImport(Glibc)
import Glibc
#endif

final class Greeter: Plugin {
    static let info = PluginInfo(
        id: "org.example.greeter", version: "1.0.1", name: "Greeter",
        summary: "Example Swift plugin: greetings, progress, and calling another plugin",
        services: [.log, .config, .progress])

    /// What a site's `config` may hold: the host refuses anything else before `init` runs, with
    /// its file:line:column in plugins.json (and `clubhouse config validate` lists it).
    static let configSchema: JSONValue? = [
        "type": "object", "additionalProperties": false,
        "properties": ["greeting": ["type": "string", "default": "Hello", "description": "How to greet, eg: \"Howdy\""]],
    ]

    static let commands: [Command<Greeter>] = [
        Command("hello", summary: "Greet someone with the site's greeting",
                arguments: [.string("name", help: "Who to greet", positional: true, default: "world")],
                reply: "{greeting}", examples: ["hello", "hello Ada"]) { plugin, call in
            let name = try call.arguments.string("name")
            let greeting = "\(plugin.greeting), \(name)!"
            return Reply(data: ["greeting": .string(greeting)], text: greeting + "\n")
        },
        Command("ping", summary: "Do nothing (measures the host's round trip)", reply: "null") { _, _ in
            Reply()
        },
        Command("countdown", summary: "Count down with a progress bar (Ctrl-C stops it cleanly)",
                arguments: [.integer("from", help: "Where to start", default: 3),
                            .integer("step-ms", help: "Milliseconds per step", default: 300)],
                longRunning: true, reply: "{counted}", examples: ["countdown --from 20 --step-ms 200"]) { _, call in
            let from = try call.arguments.int("from")
            let stepMilliseconds = try call.arguments.int("step-ms")
            guard (0...1_000_000).contains(from), (0...10_000).contains(stepMilliseconds) else {
                throw PluginError.invalidArgument("--from must be 0-1000000 and --step-ms 0-10000")
            }
            call.progress.begin("counting down", total: from)
            for i in 0..<from {
                try call.checkCancellation()
                Sleep.milliseconds(stepMilliseconds)
                call.progress.update(i + 1)
            }
            call.progress.end()
            return Reply(data: ["counted": .int(from)], text: "Counted down from \(from).\n")
        },
        Command("remember", summary: "Store a note through the notes plugin (needs grant invoke:notes)",
                arguments: [.string("text", help: "The note", required: true, positional: true)],
                reply: "{id, text} from notes add") { _, call in
            let text = try call.arguments.string("text")
            let result = try call.invoke("notes", "add", arguments: ["text": .string("greeter: " + text)])
            return Reply(data: result.data, text: "notes says: \(result.text ?? "ok")")
        },
        Command("demo", summary: "Greet the demo and count to three",
                arguments: [.path("out", help: "Folder for the demo's output", required: true)]) { plugin, call in
            let greeting = "\(plugin.greeting), Clubhouse demo!"
            let out = try call.arguments.string("out")
            plugin.context.log.info("greeter demo writing to \(out)")
            try Files.createDirectory(out)
            let file = Files.join(out, "greeting.txt")
            try Files.write(file, text: greeting + "\n")
            return Reply(data: ["greeting": .string(greeting), "file": .string(file)], text: "\(greeting)\nwritten: \(file)\n")
        },
    ]

    let context: PluginContext
    let greeting: String

    init(context: PluginContext) throws {
        self.context = context
        greeting = context.config.string("greeting", default: "Hello")
        guard !greeting.isEmpty else { throw PluginError.invalidArgument("config key 'greeting' must not be empty") }
    }
}

/// Sleeping without Foundation.
enum Sleep {
    static func milliseconds(_ ms: Int) {
        var ts = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
        nanosleep(&ts, nil)
    }
}

@_cdecl("clubhouse_plugin_entry")
public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? { export(Greeter.self, info) }
