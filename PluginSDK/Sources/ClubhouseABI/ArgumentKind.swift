// The argument types of the command catalogue (entry.h), shared by PluginKit (which declares them)
// and the host (which parses the command line into them).

public enum ArgumentKind: String, Sendable, CaseIterable {
    case string, integer, number, flag, path, choice, list, point, json
}

/// What a plugin may do with a path argument ("access" in the catalogue; services/files.h): read
/// (the default; "-" is standard input) or write ("-" is standard output).
public enum PathAccess: String, Sendable, CaseIterable {
    case read, write
}
