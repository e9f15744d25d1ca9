// Commands are data: a name, a summary, typed arguments, and a handler. The host reads the
// catalogue (describe) to build --help, validate arguments and route calls.

import ClubhouseABI
import ClubhouseJSON

/// One command of a plugin and the function that runs it.
public struct Command<P: Plugin>: Sendable {
    public typealias Handler = @Sendable (P, Invocation) throws -> Reply

    public var name: String
    public var summary: String
    public var help: String?
    public var arguments: [Argument]
    public var longRunning: Bool
    /// What `data` holds in the reply, shown by --help (eg: "{aimOffsetDeg, speedFps, holed, ...}").
    public var replyDescription: String?
    /// Invocations that must succeed on a fresh data dir, each the command's words then its
    /// arguments (eg: "greet Ada --times 2"): `clubhouse plugin validate` runs every one.
    public var examples: [String]
    public let handler: Handler
    /// Why the arguments type of a typed command makes no argument list (TypedArguments.swift), or
    /// nil: `describe` fails with it, naming the command.
    public internal(set) var argumentsProblem: String?

    /// - Parameter name: words separated by single spaces, eg: "bestline" or "template add".
    public init(_ name: String, summary: String, help: String? = nil, arguments: [Argument] = [],
                longRunning: Bool = false, reply: String? = nil, examples: [String] = [], handler: @escaping Handler) {
        self.name = name
        self.summary = summary
        self.help = help
        self.arguments = arguments
        self.longRunning = longRunning
        self.replyDescription = reply
        self.examples = examples
        self.handler = handler
    }

    /// The command's entry in the catalogue JSON (entry.h).
    public var catalogueEntry: JSONValue {
        var o = JSONObject()
        o["name"] = .string(name)
        o["summary"] = .string(summary)
        if let help { o["help"] = .string(help) }
        if longRunning { o["long_running"] = .bool(true) }
        o["arguments"] = .array(arguments.map(\.catalogueEntry))
        if let replyDescription { o["reply"] = .string(replyDescription) }
        if !examples.isEmpty { o["examples"] = .array(examples.map { .string($0) }) }
        return .object(o)
    }
}

/// A declared argument. The host parses `--name value` (or positionals) into typed JSON.
public struct Argument: Sendable {
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
                              default value: String? = nil) -> Argument {
        Argument(name, .string, help: help, required: required, positional: positional, default: value.map { .string($0) })
    }

    public static func integer(_ name: String, help: String = "", required: Bool = false, positional: Bool = false,
                               default value: Int? = nil) -> Argument {
        Argument(name, .integer, help: help, required: required, positional: positional, default: value.map { .int($0) })
    }

    public static func number(_ name: String, help: String = "", required: Bool = false, positional: Bool = false,
                              default value: Double? = nil) -> Argument {
        Argument(name, .number, help: help, required: required, positional: positional, default: value.map { .double($0) })
    }

    public static func flag(_ name: String, help: String = "") -> Argument {
        Argument(name, .flag, help: help)
    }

    /// A path the caller names. `access: .write` for an output (the plugin gets a descriptor it may
    /// write through the files service; PluginKit's `Files` uses it transparently).
    public static func path(_ name: String, help: String = "", required: Bool = false, positional: Bool = false,
                            access: PathAccess = .read) -> Argument {
        var argument = Argument(name, .path, help: help, required: required, positional: positional)
        argument.access = access
        return argument
    }

    public static func choice(_ name: String, _ choices: [String], help: String = "", required: Bool = false,
                              positional: Bool = false, default value: String? = nil) -> Argument {
        Argument(name, .choice, help: help, required: required, positional: positional,
                 default: value.map { .string($0) }, choices: choices)
    }

    public static func list(_ name: String, help: String = "", required: Bool = false, positional: Bool = false) -> Argument {
        Argument(name, .list, help: help, required: required, positional: positional)
    }

    public static func point(_ name: String, help: String = "", required: Bool = false, positional: Bool = false) -> Argument {
        Argument(name, .point, help: help, required: required, positional: positional)
    }

    public static func json(_ name: String, help: String = "", required: Bool = false) -> Argument {
        Argument(name, .json, help: help, required: required)
    }

    var catalogueEntry: JSONValue {
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

/// What a handler returns: machine data, optional text for people, optional follow-up work.
public struct Reply: Sendable {
    public var data: JSONValue
    public var text: String?
    /// A command of this plugin the host runs after replying (a detached child for the CLI).
    public var background: (command: String, arguments: JSONObject)?

    public init(data: JSONValue = .null, text: String? = nil) {
        self.data = data
        self.text = text
    }

    /// The reply's `data` as JSON bytes the plugin already holds (eg: a result it stored as JSON text), sent
    /// as they are — no parsing and re-encoding. The host checks that they are one JSON value (a reply that
    /// is not fails the call as malformed). `data` stays null on this side.
    public init(rawData: [UInt8], text: String? = nil) {
        self.init(data: .null, text: text)
        self.rawData = rawData
    }

    /// Set by `init(rawData:)`: written as the reply's data instead of `data`.
    private var rawData: [UInt8]?

    /// A reply whose data is an Encodable value (encoded with sorted keys).
    public init<T: Encodable>(encoding value: T, text: String? = nil) throws {
        self.init(data: try JSONBridge.encode(value), text: text)
    }

    /// Asks the host to run `command` with `arguments` after this reply.
    public func continuing(with command: String, arguments: JSONObject) -> Reply {
        var copy = self
        copy.background = (command, arguments)
        return copy
    }

    private static let nullReply: [UInt8] = Array(#"{"data":null}"#.utf8)
    private static let dataKey: [UInt8] = Array(#"{"data":"#.utf8)
    private static let textKey: [UInt8] = Array(#","text":"#.utf8)

    /// `{"data":…,"text":…,"background":…}` (entry.h), written directly.
    func encoded() -> [UInt8] {
        if text == nil && background == nil && data.isNull && rawData == nil { return Reply.nullReply }
        var out = Reply.dataKey
        out.reserveCapacity(64 + (text?.utf8.count ?? 0) + (rawData?.count ?? 0))
        if let rawData { out.append(contentsOf: rawData) } else { JSONWriter.appendCompact(data, to: &out) }
        if let text {
            out.append(contentsOf: Reply.textKey)
            JSONWriter.appendQuoted(text, to: &out)
        }
        if let background {
            out.append(contentsOf: #","background":"#.utf8)
            JSONWriter.appendCompact(["command": .string(background.command), "arguments": .object(background.arguments)], to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
