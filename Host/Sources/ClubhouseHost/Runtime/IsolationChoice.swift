// How a plugin's isolation is chosen, and the reason `plugins info` gives for it. "auto"
// (SECURITY.md) goes by where the plugin comes from, the least confinement for the best known code:
//
//   - bundled with the host (beside the `clubhouse` executable: a build's products; or an installed
//     clubhouse's PREFIX/lib/clubhouse/plugins): in process. That folder is the host's own code,
//     writable only by whoever installed the host; a library copied into it is trusted exactly like
//     the host (third-party code belongs in `clubhouse plugin install`).
//   - an installed package (`<data home>/plugins`, `clubhouse plugin install`): sandboxed where the
//     kernel has Landlock, else a plain runner ("process"), which `config validate` warns about.
//   - anywhere else (plugin_dirs, CLUBHOUSE_PLUGIN_PATH, an explicit path): the same as a package.

import ClubhousePlatform

struct IsolationChoice {
    var isolation: Isolation
    /// Why, eg "installed package in /home/ann/.local/share/clubhouse/plugins".
    var reason: String
    /// Why "auto" runs weaker than it would, nil otherwise.
    var weaker: String?
    /// Where the plugin comes from, as a sentence goes on after its name: "is an installed package".
    var originPhrase: String

    /// The choice for `entry` loaded from `path`; `where_` is the entry's file:line:column.
    static func make(entry: PluginEntry, path: String, installRoot: String, where where_: String) -> IsolationChoice {
        let origin = origin(of: path, installRoot: installRoot)
        guard entry.isolation == .auto else {
            return IsolationChoice(isolation: entry.isolation, reason: "set in \(where_)", weaker: nil, originPhrase: origin.phrase)
        }
        if origin.bundled { return IsolationChoice(isolation: .inProcess, reason: origin.place, weaker: nil, originPhrase: origin.phrase) }
        if let reason = SandboxSupport.unavailableReason() {
            return IsolationChoice(isolation: .process, reason: "\(origin.place), but \(reason)", weaker: reason, originPhrase: origin.phrase)
        }
        return IsolationChoice(isolation: .sandbox, reason: origin.place, weaker: nil, originPhrase: origin.phrase)
    }

    struct Origin {
        var bundled: Bool
        /// "bundled with the host in /opt/clubhouse/lib/clubhouse/plugins"
        var place: String
        /// "is an installed package"
        var phrase: String
    }

    static func origin(of path: String, installRoot: String) -> Origin {
        let real = FileSystem.realPath(path) ?? path
        if InstallTree.isBundled(real) {
            let folder = FileSystem.directoryName(real)
            let besideExecutable = FileSystem.realPath(FileSystem.executableDirectory()) == folder
            return Origin(bundled: true,
                          place: besideExecutable ? "bundled with the host, beside the clubhouse executable in \(folder)"
                              : "bundled with the host in \(folder)",
                          phrase: "is bundled with the host")
        }
        let install = FileSystem.realPath(installRoot) ?? installRoot
        if real.hasPrefix(install + "/") {
            return Origin(bundled: false, place: "installed package in \(install)", phrase: "is an installed package")
        }
        return Origin(bundled: false, place: "from outside the host's folders and the install tree (\(real))",
                      phrase: "comes from outside the install tree")
    }
}
