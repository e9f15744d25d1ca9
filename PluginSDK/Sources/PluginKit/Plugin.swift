// What a Swift plugin author writes against: a type conforming to `Plugin`, its commands as
// data with handlers, and one exported entry line (see Export.swift).

import CClubhouse
@_exported import ClubhouseABI
import ClubhouseJSON

/// A Clubhouse plugin written in Swift.
///
///     final class Greeter: Plugin {
///         static let info = PluginInfo(id: "org.example.greeter", version: "1.0.0",
///                                      name: "Greeter", summary: "Says hello", services: [.log])
///         static let commands: [Command<Greeter>] = [
///             Command("hello", summary: "Say hello", arguments: [.string("name", default: "world")]) { plugin, call in
///                 let name = try call.arguments.string("name")
///                 return Reply(data: ["greeting": .string("Hello, \(name)")], text: "Hello, \(name)!\n")
///             },
///         ]
///         init(context: PluginContext) throws {}
///     }
///
///     @_cdecl("clubhouse_plugin_entry")
///     public func entry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? { export(Greeter.self, info) }
public protocol Plugin: AnyObject {
    /// Who the plugin is and what it needs from the host.
    static var info: PluginInfo { get }
    /// The command catalogue with a handler per command.
    static var commands: [Command<Self>] { get }
    /// What a site's `config` may hold, as a JSON Schema (the subset PluginSDK/README.md lists:
    /// type, properties, required, additionalProperties, enum, minimum, maximum, items, default).
    /// The host checks the site's config against it before `init` runs, and `config validate`
    /// reports what does not fit with its file:line:column. nil (the default): any object.
    static var configSchema: JSONValue? { get }
    /// HTTP routes to the commands (Route.swift); none by default.
    static var routes: [Route] { get }
    /// The topics of its live events (Events.swift); none by default.
    static var topics: [Topic] { get }
    /// The topics of the records it publishes to the outbox (Outbox.swift); none by default.
    static var records: [Topic] { get }
    /// What it brings back from the site's federation (Outbox.swift); none by default.
    static var pulls: [Pull] { get }
    /// Makes an instance for one site. Throw to refuse (the message reaches the user).
    init(context: PluginContext) throws
}

extension Plugin {
    public static var configSchema: JSONValue? { nil }
}

/// The descriptor's fields in Swift.
public struct PluginInfo: Sendable {
    public var id: String
    public var version: String
    public var name: String
    public var summary: String
    public var services: [Service]
    /// Declare true only when handlers may run concurrently on one instance.
    public var threadSafe: Bool

    public init(id: String, version: String, name: String, summary: String, services: [Service] = [],
                threadSafe: Bool = false) {
        self.id = id
        self.version = version
        self.name = name
        self.summary = summary
        self.services = services
        self.threadSafe = threadSafe
    }
}

/// The host services a plugin can ask for (the header's CLUBHOUSE_SERVICE_* ids).
public enum Service: String, Sendable, CaseIterable {
    case log = "clubhouse.log/1"
    case config = "clubhouse.config/1"
    case storage = "clubhouse.storage/1"
    case progress = "clubhouse.progress/1"
    case invoke = "clubhouse.invoke/1"
    case device = "clubhouse.device/1"
    /// ABI 1.3 (services/events.h): live events on the plugin's topics.
    case events = "clubhouse.events/1"
    /// ABI 1.4 (services/publish.h): records published to the site's outbox, shipped to its federation.
    case publish = "clubhouse.publish/1"
}

/// An error a handler throws: a status and a one-line message saying what, where and what to do.
public struct PluginError: Error, Sendable, CustomStringConvertible {
    public var status: PluginStatus
    public var message: String

    public init(_ status: PluginStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public static func invalidArgument(_ message: String) -> PluginError { PluginError(.invalidArgument, message) }
    public static func notFound(_ message: String) -> PluginError { PluginError(.notFound, message) }
    public static func failed(_ message: String) -> PluginError { PluginError(.error, message) }
    public static func denied(_ message: String) -> PluginError { PluginError(.denied, message) }
    public static func cancelled(_ message: String = "cancelled") -> PluginError { PluginError(.cancelled, message) }

    public var description: String { message }
}

/// A problem with one argument, named by the argument's catalogue name — how a core's error about
/// a field reaches the caller. It crosses the ABI as `--NAME PROBLEM` (the command line's words, as
/// the host's own argument errors read), and the host words the label for the front end the call
/// came from: `--round` on the command line, `argument 'round'` over JSON-RPC, the request's
/// parameter over HTTP (Host/JSON-RPC.md, "Errors").
///
///     throw ArgumentError("strokes", "must be 1–20, got 25")     // --strokes must be 1–20, got 25
public struct ArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The argument's name in the catalogue, eg: "strokes".
    public var argument: String
    /// The rest of the sentence, eg: "must be 1–20, got 25".
    public var problem: String
    public var status: PluginStatus

    public init(_ argument: String, _ problem: String, status: PluginStatus = .invalidArgument) {
        self.argument = argument
        self.problem = problem
        self.status = status
    }

    public var description: String { "--\(argument) \(problem)" }
}

extension ArgumentError: DomainError {
    public var replyStatus: PluginStatus { status }
    public var replyMessage: String { description }
}

/// A plugin core's error as a reply, in one way for every plugin: the adapter declares the
/// conformance of its core's error type (the core knows nothing of PluginKit), and handlers let
/// those errors through; PluginKit answers with `replyStatus` and `replyMessage`.
///
///     extension GlobeError: DomainError {
///         public var replyStatus: PluginStatus { self == .noChallenge ? .notFound : .invalidArgument }
///         public var replyMessage: String { description }
///     }
public protocol DomainError: Error {
    /// The status the call ends with (eg: `.invalidArgument` for bad input, exit code 2).
    var replyStatus: PluginStatus { get }
    /// One line: what, where and what to do.
    var replyMessage: String { get }
}

extension DomainError {
    /// The same error as a PluginError.
    public var pluginError: PluginError { PluginError(replyStatus, replyMessage) }
}

extension PluginError: DomainError {
    public var replyStatus: PluginStatus { status }
    public var replyMessage: String { message }
}

/// Statuses a plugin may return (status.h); the same type the host uses.
public typealias PluginStatus = Status
