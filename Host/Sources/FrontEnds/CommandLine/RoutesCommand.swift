// `clubhouse routes [--site S]`: every HTTP route `serve --http` would serve at the site — the host's own,
// each plugin's under /api/<alias>/, the compatibility routes of the plugins the site mounts — and the
// problems that would keep `serve --http` from starting (exit 1).

import ClubhouseHost
import ClubhouseJSON

enum RoutesCommand {
    /// The host's own routes (not in any catalogue).
    static let hostRoutes: [(method: String, path: String, what: String)] = [
        ("POST", "/api/_/pair", "pairing: a browser's one-time code for a cookie (public)"),
        ("GET", "/api/_/session", "who this browser or token is, and the site's panels (public)"),
        ("GET", "/pair", "the pairing URL token pair prints: the home page, which pairs with the code after '#' (public)"),
        ("GET", "/ui/_/{file}", "the host's files (public)"),
        ("GET", "/ui/{plugin}/{file}", "a plugin's panel (public)"),
        ("POST", "/api/_/leases/{key}", "renews the heartbeat lease (Clubhouse-Lease) of the caller's running call"),
        ("DELETE", "/api/_/leases/{key}", "cancels the caller's call that holds this lease, now"),
    ]

    static func run(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let session = try Session(options: options)
        session.runtime.resolveAll()
        let table = SiteRoutes.build(site: session.site) { session.runtime.resolve($0) }
        var rows: [[String]] = [["METHOD", "PATH", "PLUGIN", "COMMAND", "ACCESS", "PUBLIC"]]
        var json: [JSONValue] = []
        for route in table.routes {
            rows.append([route.method, route.path, route.alias, route.command.name, route.access.rawValue,
                         route.isPublic ? "yes" : (route.command.isPublic ? "not allowed" : "-")])
            var o: JSONObject = ["method": .string(route.method), "path": .string(route.path), "plugin": .string(route.alias),
                                 "command": .string(route.command.name), "access": .string(route.access.rawValue),
                                 "public": .bool(route.isPublic)]
            o["mountedAt"] = route.mountedAt.map(JSONValue.string) ?? .null
            json.append(.object(o))
        }
        for host in hostRoutes {
            rows.append([host.method, host.path, "-", host.what, host.method == "GET" ? "read" : "write", host.what.hasSuffix("(public)") ? "yes" : "no"])
        }
        // Compatibility routes a plugin declares that the site does not mount.
        var notMounted: [JSONValue] = []
        var lines: [String] = []
        for entry in session.site.plugins where entry.enabled && session.site.http.mount(of: entry.alias) == nil {
            guard case .success(let plugin) = session.runtime.resolve(entry.alias) else { continue }
            let count = plugin.catalogue.commands.reduce(0) { $0 + $1.routes.filter(\.mount).count }
            guard count > 0 else { continue }
            notMounted.append(["plugin": .string(entry.alias), "routes": .int(count)])
            lines.append("\(entry.alias) declares \(count) compatibility route\(count == 1 ? "" : "s"), not mounted at this site (plugins.json \"http\": {\"mount\": {\"\(entry.alias)\": \"/\"}})")
        }
        var text = "HTTP routes of site '\(session.site.name)' (clubhouse serve --http):\n" + BuiltinCommands.formatTable(rows, styled: options.stylesOutput())
        for line in lines { text += line + "\n" }
        for (alias, message) in table.unavailable.sorted(by: { $0.key < $1.key }) { text += "unavailable: \(alias): \(message)\n" }
        for warning in table.warnings { text += "warning: \(warning)\n" }
        for problem in table.problems { text += "error: \(problem)\n" }
        let unavailable: [JSONValue] = table.unavailable.sorted { $0.key < $1.key }.map { ["plugin": .string($0.key), "error": .string($0.value)] }
        BuiltinCommands.output(options, json: ["site": .string(session.site.name), "routes": .array(json), "notMounted": .array(notMounted),
                                               "unavailable": .array(unavailable), "problems": .array(table.problems.map { .string($0) }),
                                               "warnings": .array(table.warnings.map { .string($0) })], text: text)
        if let first = table.problems.first {
            var error = CLIError(status: .error, message: first + (table.problems.count > 1 ? " (and \(table.problems.count - 1) more)" : ""))
            error.reported = options.json
            throw error
        }
        return 0
    }
}
