// A plugin's command catalogue (what `describe` returns), read into the one command model
// (ClubhouseABI's CommandDeclaration, which PluginKit declares with) and checked.

import ClubhouseABI
import ClubhouseJSON
import ClubhouseLoader

/// A declared argument, as the host reads it from a catalogue: ClubhouseABI's `ArgumentDeclaration`,
/// the type PluginKit declares arguments with.
public typealias ArgumentSpec = ArgumentDeclaration

/// A command of a catalogue as the host holds it: its declaration (ClubhouseABI's `CommandDeclaration`,
/// which PluginKit's `Command` and the host's built-in commands declare too) and what the host reads
/// beside it for the front door. Its declaration's fields read as its own (`command.name`).
@dynamicMemberLookup
public struct CommandSpec: Sendable {
    public var declaration: CommandDeclaration
    /// Whether the command reads or writes (`"access"`; default write): device tokens' scopes use it.
    public var access: RouteAccess = .write
    /// Declared `"public"`: its routes need no credential where the site allows it (plugins.json).
    public var isPublic = false
    /// The HTTP routes that reach it (`"http"`; HTTPRoutes.swift).
    public var routes: [HTTPRoute] = []

    public init(_ declaration: CommandDeclaration) {
        self.declaration = declaration
    }

    @inlinable
    public subscript<T>(dynamicMember path: KeyPath<CommandDeclaration, T>) -> T { declaration[keyPath: path] }
}

/// A topic a plugin publishes live events on (`"topics"` in the catalogue; services/events.h).
public struct EventTopic: Sendable, Equatable {
    public var name: String
    public var summary: String

    public init(name: String, summary: String) {
        self.name = name
        self.summary = summary
    }

    /// Topic names beginning with this are the host's own signals to subscribers (SSE's and
    /// JSON-RPC's `clubhouse.missed`: "reload your state"); no plugin declares or publishes one.
    public static let reservedPrefix = "clubhouse."
    /// "Load your state again": events were lost to this subscriber (or one was too large to deliver).
    public static let missed = "clubhouse.missed"

    /// Whether `name` is in the host's reserved space (`clubhouse.…`).
    public static func isReserved(_ name: String) -> Bool { name.hasPrefix(reservedPrefix) }

    /// The one-line reason a plugin may not use the reserved topic `name`.
    public static func reservedProblem(_ name: String) -> String {
        "topic '\(name)': names beginning with '\(reservedPrefix)' are the host's own signals to subscribers (such as clubhouse.missed); rename the topic"
    }

    /// 1–64 characters: lowercase letters, digits, '-' and '.'.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2E }
    }
}

public struct CommandCatalog: Sendable {
    public var commands: [CommandSpec]
    /// The topics of the plugin's live events, in declaration order.
    public var topics: [EventTopic] = []
    /// The topics of the records it publishes to the outbox (`"records"`; services/publish.h, ABI 1.4).
    public var records: [EventTopic] = []
    /// What `clubhouse federation pull` brings back to it (`"pulls"`; RecordTopics.swift).
    public var pulls: [FederationPull] = []
    /// What the plugin's `config` may hold (`"config_schema"` beside `"commands"`; ConfigSchema.swift).
    public var configSchema: ConfigSchema?

    public init(commands: [CommandSpec], topics: [EventTopic] = [], configSchema: ConfigSchema? = nil) {
        self.commands = commands
        self.topics = topics
        self.configSchema = configSchema
    }

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
            if !CommandCatalog.isWordSequence(name) {
                problems.append("command '\(name)': a name is words separated by single spaces, none starting with '-'")
            }
            if !seen.insert(name).inserted { problems.append("command '\(name)' is declared twice") }
            let summary = TerminalText.plain(o["summary"]?.stringValue ?? "")
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
                var spec = ArgumentSpec(argName, kind, help: TerminalText.plain(ao["help"]?.stringValue ?? ""),
                                        required: ao["required"]?.boolValue ?? false,
                                        positional: ao["positional"]?.boolValue ?? false,
                                        default: ao["default"], choices: choices)
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
            var command = CommandSpec(CommandDeclaration(name, summary: summary, help: o["help"]?.stringValue.map { TerminalText.plain($0, keepNewlines: true) },
                                                         arguments: arguments, longRunning: o["long_running"]?.boolValue ?? false,
                                                         reply: o["reply"]?.stringValue,
                                                         examples: (o["examples"]?.arrayValue ?? []).compactMap(\.stringValue)))
            if let declared = o["access"] {
                if let access = declared.stringValue.flatMap(RouteAccess.init(rawValue:)) {
                    command.access = access
                } else {
                    problems.append("command '\(name)': \"access\" is \(JSONWriter.compact(declared)); use \"read\" or \"write\"")
                }
            }
            if let declared = o["concurrent"] {
                if let flag = declared.boolValue { command.declaration.concurrent = flag } else {
                    problems.append("command '\(name)': \"concurrent\" must be true or false")
                }
            }
            if let declared = o["cache"] {
                let limit = CommandDeclaration.cacheMaxAgeLimitMilliseconds
                if let ms = declared["max_age_ms"]?.intValue, declared.objectValue?.count == 1, (1...limit).contains(ms) {
                    command.declaration.cacheMaxAgeMilliseconds = ms
                } else {
                    problems.append("command '\(name)': \"cache\" is \(JSONWriter.compact(declared)); write {\"max_age_ms\": N} with N from 1 to \(limit)")
                }
                if command.access != .read {
                    problems.append("command '\(name)' declares \"cache\" but writes (its \"access\" is not \"read\"): only a read's reply may be kept; make it a read or drop \"cache\"")
                }
                if let path = arguments.first(where: { $0.kind == .path }) {
                    problems.append("command '\(name)' declares \"cache\" but takes path argument '\(path.name)': its reply may depend on a file the host does not watch; drop \"cache\"")
                }
            }
            if let declared = o["public"] {
                if let flag = declared.boolValue { command.isPublic = flag } else {
                    problems.append("command '\(name)': \"public\" must be true or false")
                }
            }
            if let http = o["http"] {
                for value in http.arrayValue ?? [http] {
                    switch HTTPRoute.parse(value, command: name, arguments: arguments) {
                    case .success(let route): command.routes.append(route)
                    case .failure(let found): problems += found.messages
                    }
                }
            }
            commands.append(command)
        }
        problems += routeCollisions(commands)
        var topics: [EventTopic] = []
        if let declared = root["topics"] {
            for (i, value) in (declared.arrayValue ?? [declared]).enumerated() {
                guard let name = value["name"]?.stringValue else {
                    problems.append("topic #\(i + 1) has no \"name\" (\"topics\": [{\"name\": \"score\", \"summary\": \"…\"}])")
                    continue
                }
                if !EventTopic.isValidName(name) {
                    problems.append("topic '\(name)': a topic name is 1–64 lowercase letters, digits, '-' and '.'")
                } else if EventTopic.isReserved(name) {
                    problems.append(EventTopic.reservedProblem(name))
                } else if topics.contains(where: { $0.name == name }) {
                    problems.append("topic '\(name)' is declared twice")
                } else {
                    topics.append(EventTopic(name: name, summary: TerminalText.plain(value["summary"]?.stringValue ?? "")))
                }
            }
            for command in commands {
                for route in command.routes where !route.mount && route.method == "GET" && route.segments == [.literal("events")] && !topics.isEmpty {
                    problems.append("command '\(command.name)': its route GET /events is the host's event stream of this plugin's topics; choose another path")
                }
            }
        }
        var configSchema: ConfigSchema?
        if let declared = root["config_schema"] {
            switch ConfigSchema.parse(declared) {
            case .success(let schema): configSchema = schema
            case .failure(let e): problems += e.problems
            }
        }
        let records = RecordTopics.parse(root["records"], problems: &problems)
        let pulls = FederationPull.parse(root["pulls"], commands: commands, problems: &problems)
        if !problems.isEmpty { return .failure(CatalogError(problems: problems)) }
        var catalogue = CommandCatalog(commands: commands, topics: topics, configSchema: configSchema)
        catalogue.records = records
        catalogue.pulls = pulls
        return .success(catalogue)
    }
}

extension CommandCatalog {
    /// Whether a command name is words separated by single spaces, none empty, none starting with '-', none
    /// holding whitespace. Plain ASCII (every catalogue so far) in one pass over the bytes; anything else by
    /// Characters, as it always was.
    static func isWordSequence(_ name: String) -> Bool {
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            var atWordStart = true
            for b in name.utf8 {
                if atWordStart && (b == UInt8(ascii: " ") || b == UInt8(ascii: "-")) { return false }
                // ASCII whitespace by Character.isWhitespace: tab, line feed, vertical tab, form feed, carriage return.
                if (0x09...0x0D).contains(b) { return false }
                atWordStart = b == UInt8(ascii: " ")
            }
            return !atWordStart
        }
        let words = name.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        return !words.contains(where: { $0.isEmpty || $0.hasPrefix("-") || $0.contains(where: \.isWhitespace) })
    }
}

/// Two routes of one catalogue that one request could both match (the same method, the same
/// shape), among its own routes under /api/<alias> and, separately, among its mounted ones.
func routeCollisions(_ commands: [CommandSpec]) -> [String] {
    var problems: [String] = []
    var seen: [(command: String, route: HTTPRoute)] = []
    for command in commands {
        for route in command.routes {
            for earlier in seen where earlier.route.method == route.method && earlier.route.mount == route.mount
                && HTTPRoute.collide(earlier.route.segments, route.segments) {
                problems.append("command '\(command.name)': route \(route.shown) collides with route \(earlier.route.shown) of command '\(earlier.command)' (one request could match both; make a literal segment differ)")
            }
            seen.append((command.name, route))
        }
    }
    return problems
}

public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public var problems: [String]
    public var description: String { problems.joined(separator: "; ") }
}
