// The argument types of the command catalogue (entry.h), shared by PluginKit (which declares them)
// and the host (which parses the command line into them).

public enum ArgumentKind: String, Sendable, CaseIterable {
    case string, integer, number, flag, path, choice, list, point, json
}
