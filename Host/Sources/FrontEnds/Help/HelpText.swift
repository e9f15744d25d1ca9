// --help at every level, generated from the commands' declarations.

import ClubhousePlatform
import ClubhouseHost
import ClubhouseJSON
import ClubhouseLoader

enum HelpText {
    static func overview(session: Session) -> String {
        var out = """
        clubhouse \(ClubhouseVersion.string) — sports features as plugins

        Usage: clubhouse [options] <plugin> <command> [--argument value …]
               clubhouse [options] <built-in command>

        Built-in commands:

        """
        out += builtinRows(BuiltinCatalogue.catalogue.commands)
        out += "\nPlugins at site '\(session.site.name)':\n"
        let aliasWidth = max(10, session.site.plugins.map(\.alias.count).max() ?? 10)
        for entry in session.site.plugins {
            let summary: String
            if !entry.enabled {
                summary = "(disabled)"
            } else {
                switch session.runtime.resolve(entry.alias) {
                case .success(let p): summary = p.info.summary
                case .failure(let e): summary = "(unavailable: \(e.message))"
                }
            }
            out += "  \(pad(entry.alias, aliasWidth))  \(summary)\n"
        }
        out += """

        Options:
          --site NAME       site from plugins.json (env CLUBHOUSE_SITE; default: the file's default_site)
          --config FILE     plugins.json to use (env CLUBHOUSE_CONFIG; default: the embedded copy)
          --data-dir DIR    where databases live (env CLUBHOUSE_DATA_DIR; default: $XDG_DATA_HOME/clubhouse)
          --json            machine output: one JSON document on stdout
          --quiet, -q       no progress bars or chatter
          --verbose, -v     more log output (-vv debug, -vvv device traffic)
          --strict          treat a plugin that fails to load as an error everywhere
          --no-color        no colors (also NO_COLOR)
          --no-pager        never page long output (a terminal pages with $CLUBHOUSE_PAGER, $PAGER or less)
          --version         print the version
          --help, -h        help for clubhouse, a plugin, or a command

        \(ExitCodes.summary)
        Run 'clubhouse <plugin> --help' for a plugin's commands.

        """
        return out
    }

    /// One line per built-in command: its synopsis and summary.
    static func builtinRows(_ commands: [CommandSpec]) -> String {
        // A long synopsis keeps the column narrow: its summary goes on the next line, under the others.
        let rows = commands.map { (synopsis($0), $0.summary) }
        let width = min(rows.map(\.0.count).max() ?? 20, 36)
        return rows.map { row in
            row.0.count <= width ? "  \(pad(row.0, width))  \(row.1)\n"
                : "  \(row.0)\n  \(pad("", width))  \(row.1)\n"
        }.joined()
    }

    /// The built-in commands of one group (`clubhouse plugins --help`).
    static func builtins(_ commands: [CommandSpec]) -> String {
        "Usage:\n" + builtinRows(commands) + "\nRun 'clubhouse <command> --help' for a command's arguments.\n"
    }

    /// `plugins info PLUGIN`, `demo [--out PATH]`: the name with its positionals and required options.
    static func synopsis(_ command: CommandSpec) -> String {
        var text = command.name
        for a in command.positionals { text += a.required ? " \(a.name.uppercased())" : " [\(a.name.uppercased())]" }
        for a in command.arguments where !a.positional {
            let form = a.kind == .flag ? "--\(a.name)" : "--\(a.name) \(placeholder(a))"
            text += a.required ? " \(form)" : " [\(form)]"
        }
        return text
    }

    static func plugin(_ plugin: ResolvedPlugin) -> String {
        let info = plugin.info
        var out = "\(info.name) \(info.version) (\(info.id)) — \(info.summary)\n\n"
        out += "Usage: clubhouse \(plugin.entry.alias) <command> [--argument value …]\n\nCommands:\n"
        let width = plugin.catalogue.commands.map(\.name.count).max() ?? 10
        for command in plugin.catalogue.commands {
            out += "  \(pad(command.name, width))  \(command.summary)\n"
        }
        out += "\nRun 'clubhouse \(plugin.entry.alias) <command> --help' for a command's arguments.\n"
        return out
    }

    /// A command's help; `plugin` is nil for a built-in command.
    static func command(_ command: CommandSpec, plugin: String?) -> String {
        let usage = "clubhouse " + (plugin.map { "\($0) " } ?? "") + synopsis(command)
        var out = "\(command.summary)\n\nUsage: \(usage)\n"
        if let help = command.help { out += "\n\(help)\n" }
        if !command.arguments.isEmpty {
            out += "\nArguments:\n"
            let rows = command.arguments.map { a -> (String, String) in
                let left = a.positional ? a.name.uppercased() : (a.kind == .flag ? "--\(a.name)" : "--\(a.name) \(placeholder(a))")
                var right = a.help.isEmpty ? a.kind.rawValue : a.help
                if a.kind == .choice { right += " (one of: \(a.choices.joined(separator: ", ")))" }
                if let d = a.defaultValue { right += " [default: \(d.stringValue ?? JSONWriter.compact(d))]" }
                if a.required { right += " (required)" }
                return (left, right)
            }
            let width = rows.map(\.0.count).max() ?? 10
            for (l, r) in rows { out += "  \(pad(l, width))  \(r)\n" }
        }
        if let reply = command.reply { out += "\nWith --json: \(reply)\n" }
        if let plugin, !command.routes.isEmpty {
            out += "\nHTTP (clubhouse serve --http; \(command.access.rawValue)\(command.isPublic ? ", public where the site allows" : "")):\n"
            for route in command.routes {
                let path = route.mount ? route.path : "/api/\(plugin)" + (route.path == "/" ? "" : route.path)
                out += "  \(route.method) \(path)" + (route.mount ? "  (compatibility route, where the site mounts '\(plugin)')" : "") + "\n"
            }
        }
        if command.longRunning { out += "\nShows a progress bar on a terminal; Ctrl-C asks it to stop cleanly.\n" }
        return out
    }

    static func placeholder(_ a: ArgumentSpec) -> String {
        switch a.kind {
        case .string: return a.name.uppercased()
        case .integer: return "N"
        case .number: return "X"
        case .flag: return ""
        case .path: return "PATH"
        case .choice: return a.choices.joined(separator: "|")
        case .list: return "A,B,…"
        case .point: return "X,Y"
        case .json: return "JSON"
        }
    }

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
