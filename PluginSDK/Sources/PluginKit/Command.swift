// Commands are data: a name, a summary, typed arguments, and a handler. The host reads the
// catalogue (describe) to build --help, validate arguments and route calls.

import ClubhouseABI
import ClubhouseJSON

/// One command of a plugin: its declaration (ClubhouseABI's `CommandDeclaration`, the model the host
/// reads catalogues into) and the function that runs it. Its fields read as the declaration's
/// (`command.name`, `command.arguments`).
///
/// A typed command's argument list is made from its type (TypedArguments.swift) when it is first
/// read — by `describe`, or by the command's own first call — not when the command is declared: a
/// process that runs one command of a plugin reflects that command's type alone.
@dynamicMemberLookup
public struct Command<P: Plugin>: Sendable {
    public typealias Handler = @Sendable (P, Invocation) throws -> Reply

    /// The declaration as written; a typed command's arguments come from `typed` until they are written.
    private var base: CommandDeclaration
    /// A typed command's argument list, made once on first need (nil for a command that lists its arguments).
    let typed: LazyArgumentShape?
    /// False while a typed command's arguments are still to be made from its type.
    private var argumentsInBase: Bool
    public let handler: Handler

    /// The declaration (for a typed command, with the arguments its type makes).
    public var declaration: CommandDeclaration {
        get {
            guard let typed, !argumentsInBase else { return base }
            var made = base
            made.arguments = typed.shape.arguments
            return made
        }
        set {
            base = newValue
            argumentsInBase = true
        }
    }

    /// The command's name (read without making a typed command's argument list).
    public var name: String {
        get { base.name }
        set { base.name = newValue }
    }

    /// A typed command's shape while its arguments are still to be made from its type (nil once written).
    var pendingShape: LazyArgumentShape? { argumentsInBase ? nil : typed }

    /// Why the arguments type of a typed command makes no argument list (TypedArguments.swift), or
    /// nil: `describe` fails with it, naming the command.
    public var argumentsProblem: String? { typed?.shape.problem }

    /// - Parameter name: words separated by single spaces, eg: "bestline" or "template add".
    public init(_ name: String, summary: String, help: String? = nil, arguments: [Argument] = [],
                longRunning: Bool = false, concurrent: Bool = false, reply: String? = nil, examples: [String] = [],
                handler: @escaping Handler) {
        self.init(CommandDeclaration(name, summary: summary, help: help, arguments: arguments, longRunning: longRunning,
                                     concurrent: concurrent, reply: reply, examples: examples), handler: handler)
    }

    public init(_ declaration: CommandDeclaration, handler: @escaping Handler) {
        self.init(declaration, typed: nil, handler: handler)
    }

    init(_ declaration: CommandDeclaration, typed: LazyArgumentShape?, handler: @escaping Handler) {
        base = declaration
        self.typed = typed
        argumentsInBase = typed == nil
        self.handler = handler
    }

    public subscript<T>(dynamicMember path: WritableKeyPath<CommandDeclaration, T>) -> T {
        get { declaration[keyPath: path] }
        // Written through the whole declaration: a typed command's arguments are made, then kept as written.
        set { declaration[keyPath: path] = newValue }
    }

    public subscript<T>(dynamicMember path: KeyPath<CommandDeclaration, T>) -> T { declaration[keyPath: path] }

    /// The command with its reply kept by the host for at most `maxAgeMilliseconds` (the catalogue's `"cache"`,
    /// ABI 1.7): declare it only on a read whose reply depends on nothing but its arguments, the plugin's
    /// database and what the plugin's other commands change (PluginSDK/README.md, "Cached replies").
    public func cached(maxAgeMilliseconds: Int) -> Command {
        var copy = self
        copy.base.cacheMaxAgeMilliseconds = maxAgeMilliseconds
        return copy
    }

    /// What `data` holds in the reply, shown by --help (the declaration's `reply`).
    public var replyDescription: String? {
        get { base.reply }
        set { base.reply = newValue }
    }
}

/// A declared argument (ClubhouseABI's `ArgumentDeclaration`: `.string("course", required: true)`, …).
public typealias Argument = ArgumentDeclaration

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
