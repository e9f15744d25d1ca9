// The one router. Every entry point — the command line, `serve` (JSON-RPC and HTTP), a plugin invoking
// another plugin, background work, `demo`, `plugin validate` — reaches a plugin's command through
// `Router.prepare` then one of the `run` functions. Here: the invoke grant (a calling plugin needs
// "invoke:<target>"), resolving the alias (SiteRuntime.resolve, which refuses a site that loads one id
// twice), selecting the command, checking the arguments against the catalogue (CommandLineParser),
// standard input as a path only from a shell, the call context by origin (output flags, the caller's
// chain), and the background policy (`startBackground`, applied to every reply). The runtime does the
// rest: the chain check of a nested call (SiteRuntime.invokeFromPlugin), creating the instance on
// first use, the call gates that serialize a plugin, and reading the reply (SiteRuntime.callRaw, outcome).

import CClubhouse
import ClubhouseABI
import ClubhouseJSON

/// Where a call comes from; the router applies the rules that differ by origin in one place.
public enum CallOrigin: Sendable, Equatable {
    /// `clubhouse PLUGIN COMMAND …` from a shell.
    case commandLine
    /// A JSON-RPC client of `serve` (standard input is the channel, so no path argument may be `-`).
    case server
    /// A request to `serve --http` (a route a plugin declared; its path arguments are files the host made).
    case http
    /// Another plugin of the site, through the invoke service.
    case plugin(caller: String)
    /// Follow-up work a reply asked for, running in a detached child.
    case background
    /// `clubhouse demo`.
    case demo
}

/// What the caller asks for, before anything is checked.
public enum RouteInput: Sendable {
    /// Command-line words after the plugin alias: the command's name words, then its arguments.
    case words([String])
    /// A command by name with a JSON arguments object.
    case json(command: String, arguments: JSONObject)
}

/// A refused route: the status it maps to, the message, and which step refused it.
public struct RouteError: Error, Sendable, CustomStringConvertible {
    public enum Step: Sendable { case plugin, command, arguments, permission }
    public var step: Step
    public var status: Status
    public var message: String
    public var description: String { message }
}

/// A call that passed every check and is ready to run.
public struct PreparedCall: Sendable {
    public var plugin: ResolvedPlugin
    public private(set) var command: CommandSpec
    public var arguments: JSONObject
    public var origin: CallOrigin
    public var alias: String { plugin.entry.alias }
    /// `command.name`, read once: the declaration's `name` is an observed property of another module,
    /// and reading it through `command` copied the whole declaration on every call (perf record of
    /// the no-op bench, 2026-11-27: a tenth of the call).
    public let commandName: String

    init(plugin: ResolvedPlugin, command: CommandSpec, arguments: JSONObject, origin: CallOrigin) {
        self.plugin = plugin
        self.command = command
        self.arguments = arguments
        self.origin = origin
        commandName = command.name
    }
    /// Whether this call takes its turn with the plugin's other calls: the plugin's rule
    /// (`serializesCalls`), except a thread-safe plugin's "concurrent" command, which runs beside
    /// them even in a runner (SideLane.swift).
    public var serializes: Bool { plugin.serializes(command) }
    /// Whether it runs on the runner's second lane, one such call at a time (`ResolvedPlugin.runsBeside`).
    public var runsBeside: Bool { plugin.runsBeside(command) }
}

/// Starts follow-up work a reply asked for (`{"background": {…}}`), outside the call that asked.
public protocol BackgroundLauncher: Sendable {
    func launch(alias: String, command: String, arguments: JSONObject)
}

/// @unchecked Sendable: immutable after init (the runtime it routes to guards itself).
public final class Router: @unchecked Sendable {
    /// Progress nobody shows (it holds nothing: one serves every call).
    static let silent = SilentProgress()
    /// The site's runtime, which owns this router.
    public unowned let runtime: SiteRuntime
    /// Where background work goes; nil runs none (and says so in the log).
    public let background: (any BackgroundLauncher)?

    public init(runtime: SiteRuntime, background: (any BackgroundLauncher)?) {
        self.runtime = runtime
        self.background = background
    }

    /// Resolves, selects and validates: everything but the call itself.
    public func prepare(alias: String, _ input: RouteInput, origin: CallOrigin) -> Result<PreparedCall, RouteError> {
        if case .plugin(let caller) = origin, let refusal = invokeRefusal(caller: caller, target: alias) {
            return .failure(refusal)
        }
        let plugin: ResolvedPlugin
        switch runtime.resolve(alias) {
        case .success(let p): plugin = p
        case .failure(let e):
            // Another plugin naming a missing plugin gets `not found`, not a usage error.
            let status: Status = { if case .plugin = origin, e.status == .invalidArgument { return .notFound } else { return e.status } }()
            return .failure(RouteError(step: .plugin, status: status, message: e.message))
        }
        let command: CommandSpec
        var rest: [String] = []
        switch input {
        case .words(let words):
            switch CommandLineParser.selectCommand(words, in: plugin.catalogue, plugin: alias) {
            case .success(let (c, r)): (command, rest) = (c, r)
            case .failure(let e): return .failure(RouteError(step: .command, status: .invalidArgument, message: e.message))
            }
        case .json(let name, _):
            guard let c = plugin.catalogue.command(named: name) else {
                var message = "plugin '\(alias)' has no command '\(name)'"
                if let s = closest(name, among: plugin.catalogue.commands.map(\.name)) { message += "; did you mean '\(s)'?" }
                return .failure(RouteError(step: .command, status: .notFound, message: message))
            }
            command = c
        }
        let arguments: JSONObject
        do {
            switch input {
            case .words: arguments = try CommandLineParser.parse(rest, for: command, plugin: alias)
            case .json(_, let given): arguments = try CommandLineParser.validate(given, for: command, plugin: alias)
            }
        } catch {
            return .failure(RouteError(step: .arguments, status: .invalidArgument, message: error.message))
        }
        if origin != .commandLine {
            // Only a shell has a standard input of its own to give a command.
            for spec in command.arguments where spec.kind == .path && arguments[spec.name]?.stringValue == "-" {
                return .failure(RouteError(step: .arguments, status: .invalidArgument,
                                           message: "argument '\(spec.name)': standard input is not available to \(Router.describe(origin)); pass a file path"))
            }
        }
        return .success(PreparedCall(plugin: plugin, command: command, arguments: arguments, origin: origin))
    }

    /// The context a prepared call runs with: output flags by origin, the caller's chain when nested.
    /// `wantsText`: a JSON-RPC client asked for the reply's text too (it is then written).
    public func context(for call: PreparedCall, flags: UInt32 = 0, progress: (any ProgressSink)? = nil,
                        parent: CallContext? = nil, wantsText: Bool = false) -> CallContext {
        var f = flags
        switch call.origin {
        case .server, .http, .plugin, .background:
            // Machine output, and never styled text: nobody's terminal shows it.
            if !(wantsText && call.origin == .server) { f |= UInt32(CLUBHOUSE_CALL_MACHINE_OUTPUT) }
            f &= ~UInt32(CLUBHOUSE_CALL_STYLED_TEXT)
            // A client of the network names no file of the host but through declared path arguments.
            if call.origin == .http { f |= UInt32(CLUBHOUSE_CALL_NETWORK) }
        case .commandLine, .demo: break
        }
        return CallContext(flags: f, progress: progress ?? Router.silent, alias: call.alias, parent: parent)
    }

    /// Runs a prepared call and applies the background policy to its outcome.
    public func run(_ call: PreparedCall, context: CallContext) -> CallOutcome {
        let (status, reply) = runtime.callRaw(alias: call.alias, command: call.commandName, arguments: call.arguments, context: context)
        var outcome = SiteRuntime.outcome(status: status, reply: reply, alias: call.alias, command: call.commandName)
        if outcome.status == .ok, let follow = outcome.background { startBackground(follow, after: call) }
        if outcome.status != .ok {
            outcome.message = Router.worded(outcome.message, arguments: call.command.arguments, origin: call.origin)
        }
        return outcome
    }

    /// The background policy, the one place it is written (`run`, `runRaw` and `runData` apply it to
    /// every reply): follow-up work a reply asked for starts outside the call, never from background
    /// work itself, only where the host runs any, and never with a path the asking call was not given.
    func startBackground(_ follow: (command: String, arguments: JSONObject), after call: PreparedCall) {
        if call.origin == .background {
            runtime.log.warning("'\(call.alias) \(call.commandName)' asked for more background work ('\(follow.command)') while running in the background; not started")
        } else if let background {
            if let refusal = Router.backgroundPathRefusal(call, follow, catalogue: call.plugin.catalogue) {
                runtime.log.warning(refusal)
                return
            }
            background.launch(alias: call.alias, command: follow.command, arguments: follow.arguments)
        } else {
            runtime.log.warning("'\(call.alias) \(call.commandName)' asked for background work ('\(follow.command)') but this host runs none")
        }
    }

    /// prepare + context + run, for callers with nothing to do in between.
    public func route(alias: String, _ input: RouteInput, origin: CallOrigin, flags: UInt32 = 0,
                      progress: (any ProgressSink)? = nil, parent: CallContext? = nil) -> CallOutcome {
        switch prepare(alias: alias, input, origin: origin) {
        case .failure(let e): return .failure(e.status, e.message)
        case .success(let call): return run(call, context: context(for: call, flags: flags, progress: progress, parent: parent))
        }
    }

    /// A plugin calling another: it needs the grant, and the target must not already be in its chain.
    private func invokeRefusal(caller: String, target: String) -> RouteError? {
        guard let entry = runtime.site.plugin(alias: caller), entry.isGranted(.invoke(target)) else {
            return RouteError(step: .permission, status: .denied,
                              message: "plugin '\(caller)' may not call '\(target)': the site does not grant \"invoke:\(target)\"")
        }
        return nil
    }

    static func describe(_ origin: CallOrigin) -> String {
        switch origin {
        case .commandLine: return "the command line"
        case .server: return "a JSON-RPC call (it is the serve channel)"
        case .http: return "an HTTP request"
        case .plugin(let caller): return "a call from plugin '\(caller)'"
        case .background: return "background work"
        case .demo: return "the demo"
        }
    }
}

extension Router {
    /// `run` for the invoke service: the calling plugin gets the reply's bytes as they are; the
    /// background policy still applies when the reply asks for follow-up work.
    func runRaw(_ call: PreparedCall, context: CallContext) -> (Int32, [UInt8]) {
        let (status, reply) = runtime.callRaw(alias: call.alias, command: call.commandName, arguments: call.arguments, context: context)
        if status == Status.ok.rawValue, Router.mentionsBackground(reply),
           let follow = SiteRuntime.outcome(status: status, reply: reply, alias: call.alias, command: call.commandName).background {
            startBackground(follow, after: call)
        }
        return (status, reply)
    }

    /// Why background work may not start: a path argument of the follow-up command that the asking
    /// call was not given with at least that access (nil: none). A path argument is a capability only
    /// a caller gives (clubhouse.files/1), and the plugin is not its own caller — the same rule as a
    /// nested call's (`CallFiles.covers`). Issue 27's attack round: a sandboxed plugin replied
    /// `{"background": {"command": "steal", "arguments": {"file": "/home/me/secret", "out":
    /// "/home/me/.bashrc"}}}` and the host opened both for it.
    static func backgroundPathRefusal(_ call: PreparedCall, _ follow: (command: String, arguments: JSONObject),
                                      catalogue: CommandCatalog) -> String? {
        let held = CallFiles(grants: CallFiles.grants(for: call.command, arguments: call.arguments), callID: 0)
        let asked = CallFiles.grants(for: catalogue.command(named: follow.command), arguments: follow.arguments)
        for name in asked.keys.sorted() {
            guard let grant = asked[name], !held.covers(grant) else { continue }
            return "'\(call.alias) \(call.commandName)' asked for background work ('\(follow.command)') with path argument '\(name)' (\(grant.path)), which its own call was not given; not started"
        }
        return nil
    }

    /// Whether a reply may carry `"background"` (most do not; they need no parse).
    static func mentionsBackground(_ reply: [UInt8]) -> Bool {
        let needle = Array("\"background\"".utf8)
        guard reply.count >= needle.count else { return false }
        return reply.withUnsafeBufferPointer { bytes in
            var i = 0
            while i + needle.count <= bytes.count {
                if bytes[i] == needle[0] {
                    var k = 1
                    while k < needle.count && bytes[i + k] == needle[k] { k += 1 }
                    if k == needle.count { return true }
                }
                i += 1
            }
            return false
        }
    }
}

/// A reply as a front end passes it on without reading it: the bytes of its `data`.
public struct ReplyData: Sendable {
    public var status: Status
    /// On success, the reply's `data`: one JSON value (checked), as the plugin wrote it.
    public var data: [UInt8]
    /// On failure, the one-line message.
    public var message: String
}

extension Router {
    /// Runs a prepared call (the background policy applied) and hands back its `data` as the plugin's own
    /// bytes — checked to be one JSON value, not parsed into values and written again — or the failure.
    public func runData(_ call: PreparedCall, context: CallContext) -> ReplyData {
        let (code, reply) = runtime.callRaw(alias: call.alias, command: call.commandName, arguments: call.arguments, context: context)
        let status = Status(code: code)
        // One pass over the reply finds `data`, checks the rest, and sees whether it asks for background work.
        if status == .ok, let found = reply.withUnsafeBufferPointer({ JSONScanner.members(["data", "background"], in: $0) }),
           let range = found["data"] {
            if found["background"] != nil,
               let follow = SiteRuntime.outcome(status: code, reply: reply, alias: call.alias, command: call.commandName).background {
                startBackground(follow, after: call)
            }
            // One byte of room past the value: an HTTP body ends it with a newline without copying it again.
            var data: [UInt8] = []
            data.reserveCapacity(range.count + 1)
            data.append(contentsOf: reply[range])
            return ReplyData(status: .ok, data: data, message: "")
        }
        // Anything else (a failure, a reply without data, a malformed one) is read as `run` reads it.
        let outcome = SiteRuntime.outcome(status: code, reply: reply, alias: call.alias, command: call.commandName)
        guard outcome.status == .ok else {
            return ReplyData(status: outcome.status, data: [], message: Router.worded(outcome.message, arguments: call.command.arguments, origin: call.origin))
        }
        var data: [UInt8] = []
        JSONWriter.appendCompact(outcome.data, to: &data)
        return ReplyData(status: .ok, data: data, message: "")
    }
}
