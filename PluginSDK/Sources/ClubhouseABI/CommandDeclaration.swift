// The one model of a command and its arguments: what a catalogue entry says (entry.h, "Commands are
// data"). PluginKit declares a plugin's commands with it (and adds a handler: `Command`), the host
// reads a plugin's catalogue into it (`CommandCatalog`, adding the HTTP routes) and declares its own
// built-in commands with it; the host's `CommandLineParser` parses words into the arguments it declares.

import ClubhouseJSON

/// A declared argument of a command. The host parses `--name value` (or positionals) into typed JSON.
public struct ArgumentDeclaration: Sendable {
    public typealias Kind = ArgumentKind

    public var name: String
    public var kind: Kind
    public var help: String
    public var required: Bool
    public var positional: Bool
    public var defaultValue: JSONValue?
    public var choices: [String]
    /// For a path: what the plugin does with it (services/files.h); read by default.
    public var access: PathAccess = .read

    public init(_ name: String, _ kind: Kind, help: String = "", required: Bool = false, positional: Bool = false,
                default defaultValue: JSONValue? = nil, choices: [String] = []) {
        self.name = name
        self.kind = kind
        self.help = help
        self.required = required
        self.positional = positional
        self.defaultValue = defaultValue
        self.choices = choices
    }

    public static func string(_ name: String, help: String = "", required: Bool = false, positional: Bool = false,
                              default value: String? = nil) -> ArgumentDeclaration {
        ArgumentDeclaration(name, .string, help: help, required: required, positional: positional, default: value.map { .string($0) })
    }

    public static func integer(_ name: String, help: String = "", required: Bool = false, positional: Bool = false,
                               default value: Int? = nil) -> ArgumentDeclaration {
        ArgumentDeclaration(name, .integer, help: help, required: required, positional: positional, default: value.map { .int($0) })
    }

    public static func number(_ name: String, help: String = "", required: Bool = false, positional: Bool = false,
                              default value: Double? = nil) -> ArgumentDeclaration {
        ArgumentDeclaration(name, .number, help: help, required: required, positional: positional, default: value.map { .double($0) })
    }

    public static func flag(_ name: String, help: String = "") -> ArgumentDeclaration {
        ArgumentDeclaration(name, .flag, help: help)
    }

    /// A path the caller names. `access: .write` for an output (the plugin gets a descriptor it may
    /// write through the files service; PluginKit's `Files` uses it transparently).
    public static func path(_ name: String, help: String = "", required: Bool = false, positional: Bool = false,
                            access: PathAccess = .read) -> ArgumentDeclaration {
        var argument = ArgumentDeclaration(name, .path, help: help, required: required, positional: positional)
        argument.access = access
        return argument
    }

    public static func choice(_ name: String, _ choices: [String], help: String = "", required: Bool = false,
                              positional: Bool = false, default value: String? = nil) -> ArgumentDeclaration {
        ArgumentDeclaration(name, .choice, help: help, required: required, positional: positional,
                            default: value.map { .string($0) }, choices: choices)
    }

    public static func list(_ name: String, help: String = "", required: Bool = false, positional: Bool = false) -> ArgumentDeclaration {
        ArgumentDeclaration(name, .list, help: help, required: required, positional: positional)
    }

    public static func point(_ name: String, help: String = "", required: Bool = false, positional: Bool = false) -> ArgumentDeclaration {
        ArgumentDeclaration(name, .point, help: help, required: required, positional: positional)
    }

    public static func json(_ name: String, help: String = "", required: Bool = false) -> ArgumentDeclaration {
        ArgumentDeclaration(name, .json, help: help, required: required)
    }

    /// The argument's entry in the catalogue JSON (entry.h).
    public var catalogueEntry: JSONValue {
        var o = JSONObject()
        o["name"] = .string(name)
        o["type"] = .string(kind.rawValue)
        if !help.isEmpty { o["help"] = .string(help) }
        if required { o["required"] = .bool(true) }
        if positional { o["positional"] = .bool(true) }
        if let defaultValue { o["default"] = defaultValue }
        if !choices.isEmpty { o["choices"] = .array(choices.map { .string($0) }) }
        if kind == .path && access == .write { o["access"] = .string(access.rawValue) }
        return .object(o)
    }
}

/// A declared command: its name, what it does and its arguments (the catalogue's entry, entry.h).
public struct CommandDeclaration: Sendable {
    /// Words separated by single spaces, eg: "bestline" or "template add".
    public var name: String {
        didSet { words = CommandDeclaration.words(of: name) }
    }
    /// `name` split at its spaces (the command line selects a command by them).
    public private(set) var words: [String]
    public var summary: String
    public var help: String?
    public var arguments: [ArgumentDeclaration]
    public var longRunning: Bool
    /// Runs beside the plugin's other calls even when the plugin runs isolated — a short command that
    /// acts on them, such as a Stop for a drill another client started (`"concurrent"`, entry.h, ABI
    /// 1.6). Read only from a thread-safe plugin.
    public var concurrent: Bool
    /// The reply of this read may be kept by the host and answered again, for at most this many
    /// milliseconds, while nothing the reply depends on changed (`"cache": {"max_age_ms": N}`, entry.h,
    /// ABI 1.7): the plugin declares that the reply is a function of the command's arguments, its own
    /// database and what its other commands change, nothing else (no clock, no file, no device). nil: never kept.
    public var cacheMaxAgeMilliseconds: Int?
    /// What `data` holds in the reply, shown by --help (eg: "{aimOffsetDeg, speedFps, holed, ...}").
    public var reply: String?
    /// Invocations that must succeed on a fresh data dir, each the command's words then its
    /// arguments (eg: "greet Ada --times 2"): `clubhouse plugin validate` runs every one.
    public var examples: [String]

    public init(_ name: String, summary: String, help: String? = nil, arguments: [ArgumentDeclaration] = [],
                longRunning: Bool = false, concurrent: Bool = false, reply: String? = nil, examples: [String] = []) {
        self.name = name
        self.words = CommandDeclaration.words(of: name)
        self.summary = summary
        self.help = help
        self.arguments = arguments
        self.longRunning = longRunning
        self.concurrent = concurrent
        self.reply = reply
        self.examples = examples
    }

    /// The arguments that may be given without their `--name`, in order.
    public var positionals: [ArgumentDeclaration] { arguments.filter(\.positional) }

    /// The declared argument called `name`.
    public func argument(named name: String) -> ArgumentDeclaration? { arguments.first { $0.name == name } }

    /// The command's entry in the catalogue JSON (entry.h).
    public var catalogueEntry: JSONValue {
        var o = JSONObject()
        o["name"] = .string(name)
        o["summary"] = .string(summary)
        if let help { o["help"] = .string(help) }
        if longRunning { o["long_running"] = .bool(true) }
        if concurrent { o["concurrent"] = .bool(true) }
        if let cacheMaxAgeMilliseconds { o["cache"] = .object(["max_age_ms": .int(cacheMaxAgeMilliseconds)]) }
        o["arguments"] = .array(arguments.map(\.catalogueEntry))
        if let reply { o["reply"] = .string(reply) }
        if !examples.isEmpty { o["examples"] = .array(examples.map { .string($0) }) }
        return .object(o)
    }

    /// The longest a declared `"cache"` may keep a reply (a day).
    public static let cacheMaxAgeLimitMilliseconds = 86_400_000

    static func words(of name: String) -> [String] {
        name.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    }
}
