// A plugin's command catalogue (what `describe` returns), read into host types and checked.

import ClubhouseABI
import ClubhouseJSON

public struct ArgumentSpec: Sendable {
    public typealias Kind = ArgumentKind

    public var name: String
    public var kind: Kind
    public var help: String
    public var required: Bool
    public var positional: Bool
    public var defaultValue: JSONValue?
    public var choices: [String]
    /// For a path argument: the access the plugin gets to it through the files service.
    public var access: PathAccess = .read
}

public struct CommandSpec: Sendable {
    public var name: String
    public var words: [String]
    public var summary: String
    public var help: String?
    public var longRunning: Bool
    public var arguments: [ArgumentSpec]
    public var reply: String?

    public var positionals: [ArgumentSpec] { arguments.filter(\.positional) }
}

public struct CommandCatalog: Sendable {
    public var commands: [CommandSpec]

    public func command(named name: String) -> CommandSpec? { commands.first { $0.name == name } }

    /// Option names the host keeps for itself; a plugin argument may not use them.
    public static let reservedNames: Set<String> = [
        "help", "json", "site", "config", "data-dir", "quiet", "verbose", "version", "strict", "no-color", "no-pager",
    ]

    /// Reads a catalogue; every problem is listed (the validator reports them all).
    public static func parse(_ bytes: [UInt8], plugin: String) -> Result<CommandCatalog, CatalogError> {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes: bytes)
        } catch {
            return .failure(CatalogError(problems: ["describe returned malformed JSON (\(error))"]))
        }
        var problems: [String] = []
        guard let list = root["commands"]?.arrayValue else {
            return .failure(CatalogError(problems: ["describe must return {\"commands\": [...]}"]))
        }
        var commands: [CommandSpec] = []
        var seen = Set<String>()
        for (i, value) in list.enumerated() {
            guard let o = value.objectValue else {
                problems.append("command #\(i + 1) is \(value.kindName), not an object")
                continue
            }
            guard let name = o["name"]?.stringValue, !name.isEmpty else {
                problems.append("command #\(i + 1) has no \"name\"")
                continue
            }
            let words = name.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if words.contains(where: { $0.isEmpty || $0.hasPrefix("-") || $0.contains(where: \.isWhitespace) }) {
                problems.append("command '\(name)': a name is words separated by single spaces, none starting with '-'")
            }
            if !seen.insert(name).inserted { problems.append("command '\(name)' is declared twice") }
            let summary = o["summary"]?.stringValue ?? ""
            if summary.isEmpty { problems.append("command '\(name)' has no \"summary\"") }
            var arguments: [ArgumentSpec] = []
            var argumentNames = Set<String>()
            for (j, a) in (o["arguments"]?.arrayValue ?? []).enumerated() {
                guard let ao = a.objectValue, let argName = ao["name"]?.stringValue, !argName.isEmpty else {
                    problems.append("command '\(name)': argument #\(j + 1) has no \"name\"")
                    continue
                }
                guard let kind = ao["type"]?.stringValue.flatMap(ArgumentSpec.Kind.init(rawValue:)) else {
                    problems.append("command '\(name)': argument '\(argName)' has type \(ao["type"].map(JSONWriter.compact) ?? "none"); use one of \(ArgumentSpec.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
                    continue
                }
                if reservedNames.contains(argName) {
                    problems.append("command '\(name)': argument '--\(argName)' clashes with the host's global option of that name")
                }
                if !argumentNames.insert(argName).inserted {
                    problems.append("command '\(name)': argument '\(argName)' is declared twice")
                }
                let choices = (ao["choices"]?.arrayValue ?? []).compactMap(\.stringValue)
                if kind == .choice && choices.isEmpty {
                    problems.append("command '\(name)': choice argument '\(argName)' lists no \"choices\"")
                }
                var spec = ArgumentSpec(name: argName, kind: kind, help: ao["help"]?.stringValue ?? "",
                                        required: ao["required"]?.boolValue ?? false,
                                        positional: ao["positional"]?.boolValue ?? false,
                                        defaultValue: ao["default"], choices: choices)
                if let declared = ao["access"] {
                    if kind != .path {
                        problems.append("command '\(name)': argument '\(argName)' declares \"access\", which only a path argument has")
                    } else if let access = declared.stringValue.flatMap(PathAccess.init(rawValue:)) {
                        spec.access = access
                    } else {
                        problems.append("command '\(name)': path argument '\(argName)' has \"access\": \(JSONWriter.compact(declared)); use \"read\" or \"write\"")
                    }
                }
                if kind == .path && ao["default"] != nil {
                    // A path argument is a capability its caller gives (clubhouse.files/1); a default
                    // would let the plugin name a file nobody gave it (issue 27's attack round).
                    problems.append("command '\(name)': path argument '\(argName)' declares a \"default\"; a path is a capability only its caller gives, so leave it out (the plugin applies its own default when the argument is absent)")
                }
                if spec.positional && kind == .flag {
                    problems.append("command '\(name)': flag '\(argName)' cannot be positional")
                }
                arguments.append(spec)
            }
            commands.append(CommandSpec(name: name, words: words, summary: summary, help: o["help"]?.stringValue,
                                        longRunning: o["long_running"]?.boolValue ?? false, arguments: arguments,
                                        reply: o["reply"]?.stringValue))
        }
        if !problems.isEmpty { return .failure(CatalogError(problems: problems)) }
        return .success(CommandCatalog(commands: commands))
    }
}

public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public var problems: [String]
    public var description: String { problems.joined(separator: "; ") }
}
