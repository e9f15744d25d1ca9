// How a plugin's error about one argument reads to each caller. A plugin names the argument the way
// the command line does — its message begins `--NAME …` (PluginKit's ArgumentError, or a C plugin
// writing the same) — and the host, which knows where the call came from and what the command
// declares, words that label for the front end: a JSON-RPC client never typed `--round`.

extension Router {
    /// `message` with a leading `--NAME` of one of `arguments` said in `origin`'s words: unchanged
    /// for the command line and the demo, `argument 'NAME'` for JSON-RPC, another plugin and
    /// background work, `parameter 'NAME'` for HTTP. Anything else is returned as it is.
    static func worded(_ message: String, arguments: [ArgumentSpec], origin: CallOrigin) -> String {
        let label: String
        guard message.hasPrefix("--") else { return message }
        let name = message.dropFirst(2).prefix { $0 != " " && $0 != ":" && $0 != "=" }
        guard !name.isEmpty, arguments.contains(where: { $0.name == name }) else { return message }
        switch origin {
        case .commandLine, .demo: return message
        case .http: label = "parameter '\(name)'"
        case .server, .plugin, .background: label = "argument '\(name)'"
        }
        return label + message.dropFirst(2 + name.count)
    }
}
