// A Swift plugin that fails the way Swift code fails (fatalError, a failed precondition, a forced
// unwrap of nil), for the isolation tests; and reads whose replies the host may keep ("cache", ABI 1.7) beside
// the writes that change them, for the reply cache's tests (HTTPReplyCacheEndToEndTests). Never put it in a
// site's configuration.

import CClubhouse
import ClubhouseJSON
import PluginKit
import Synchronization

final class FaultyPlugin: Plugin {
    static let info = PluginInfo(id: "org.tests.faulty", version: "1.0.0", name: "Faulty",
                                 summary: "Fails on purpose (tests only)", services: [.log, .storage])

    static let routes: [Route] = [
        .get("/note", command: "note"),
        .post("/note", command: "note set"),
        .get("/tally", command: "tally"),
        .post("/tally", command: "bump"),
    ]

    let context: PluginContext
    /// What `bump` counts, in memory only: a change the database does not see.
    let count = Mutex(0)
    /// How many times `note` and `tally` ran (their replies show it, so a kept reply is told from a new one).
    let served = Mutex(0)

    static let commands: [Command<FaultyPlugin>] = [
        Command("ok", summary: "Answer normally") { _, _ in Reply(data: "fine", text: "fine\n") },
        Command("fatal", summary: "Call fatalError") { _, call in
            if !call.arguments.flag("never") { fatalError("the faulty plugin gives up") }
            return Reply()
        },
        Command("unwrap", summary: "Force-unwrap nil") { _, call in
            let missing: Int? = call.arguments.has("nothing") ? 1 : nil
            return Reply(data: .int(missing!))
        },
        Command("note", summary: "The note in the plugin's database (a cached read)",
                reply: "{note, served}") { plugin, _ in
            let storage = try plugin.context.storage()
            let text = try storage.queryOne("SELECT text FROM note WHERE id = 1")?[0].string
            return Reply(data: ["note": text.map(JSONValue.string) ?? .null, "served": .int(plugin.served.withLock { $0 += 1; return $0 })])
        }.cached(maxAgeMilliseconds: 60_000),
        Command("note set", summary: "Write the note; with --crash its runner dies after the write is committed, with --early before it writes",
                arguments: [.string("text", required: true), .flag("crash"), .flag("early")]) { plugin, call in
            if call.arguments.flag("early") { fatalError("the faulty plugin crashes before it writes") }
            let storage = try plugin.context.storage()
            try storage.run("INSERT OR REPLACE INTO note (id, text) VALUES (1, ?)", [.text(try call.arguments.string("text"))])
            if call.arguments.flag("crash") { fatalError("the faulty plugin crashes after its write was committed") }
            return Reply(data: ["note": .string(try call.arguments.string("text"))])
        },
        Command("tally", summary: "What bump counted, in memory (a cached read); crashes its runner with --crash",
                arguments: [.flag("crash")], reply: "{tally, served}") { plugin, call in
            if call.arguments.flag("crash") { fatalError("the faulty plugin crashes in a cached read") }
            return Reply(data: ["tally": .int(plugin.count.withLock { $0 }), "served": .int(plugin.served.withLock { $0 += 1; return $0 })])
        }.cached(maxAgeMilliseconds: 60_000),
        Command("bump", summary: "Count one more, in memory") { plugin, _ in
            Reply(data: ["tally": .int(plugin.count.withLock { $0 += 1; return $0 })])
        },
    ]

    init(context: PluginContext) throws {
        self.context = context
        // Only where the site grants storage (the isolation tests' sites do not).
        if let storage = try? context.storage() {
            try storage.migrate([Migration(version: 1, name: "notes", sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")])
        }
    }
}

@_cdecl("clubhouse_plugin_entry")
public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? { export(FaultyPlugin.self, info) }
