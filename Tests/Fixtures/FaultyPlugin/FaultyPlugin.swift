// A Swift plugin that fails the way Swift code fails (fatalError, a failed precondition, a forced
// unwrap of nil), for the isolation tests. Never put it in a site's configuration.

import CClubhouse
import PluginKit

final class FaultyPlugin: Plugin {
    static let info = PluginInfo(id: "org.tests.faulty", version: "1.0.0", name: "Faulty",
                                 summary: "Fails on purpose (tests only)", services: [.log])

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
    ]

    init(context: PluginContext) throws {}
}

@_cdecl("clubhouse_plugin_entry")
public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? { export(FaultyPlugin.self, info) }
