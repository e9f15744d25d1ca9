// One running command as its handler sees it: typed arguments, progress, cancellation, calls to
// other plugins.

import CClubhouse
import ClubhouseABI
import ClubhouseJSON

/// A call in progress. Valid only while the handler runs.
public struct Invocation {
    /// The arguments, validated and typed by the host against the command's declaration.
    public let arguments: Arguments
    /// The caller's working directory (paths in `arguments` are already absolute).
    public var cwd: String {
        switch cwdSource {
        case .text(let text): return text
        case .json(let bytes): return (try? JSONParser.parse(bytes).stringValue) ?? ""
        }
    }

    /// The working directory as sent: decoded only when asked for (most commands never do).
    enum CwdSource {
        case text(String)
        /// The JSON string literal inside the request, valid while the call runs.
        case json(UnsafeBufferPointer<UInt8>)
    }

    let cwdSource: CwdSource
    /// The instance's services.
    public let context: PluginContext
    let call: UnsafePointer<clubhouse_call>

    init(arguments: Arguments, cwd: CwdSource, context: PluginContext, call: UnsafePointer<clubhouse_call>) {
        self.arguments = arguments
        self.cwdSource = cwd
        self.context = context
        self.call = call
    }

    /// True once the caller asked to cancel (Ctrl-C, JSON-RPC cancel). Poll it in long loops.
    public var isCancelled: Bool {
        guard let check = call.pointee.is_cancelled else { return false }
        return check(call) != 0
    }

    /// Throws `PluginError.cancelled` when the caller asked to cancel.
    public func checkCancellation() throws {
        if isCancelled { throw PluginError.cancelled() }
    }

    /// The call came from a client of the network (CLUBHOUSE_CALL_NETWORK): its path arguments are files
    /// the host made for it (an upload's body), and no other path is reachable (Files).
    public var fromNetwork: Bool { call.pointee.flags & UInt32(CLUBHOUSE_CALL_NETWORK) != 0 }

    /// How to name the file of path argument `name` in what the plugin stores or shows: the path as given,
    /// but for a call from the network the file's own name (an upload's name as its client sent it), never
    /// the host's private folder it lies in (Host/HTTP.md, "Uploads").
    public func shownName(ofPath name: String) throws -> String {
        let path = try arguments.string(name)
        guard fromNetwork, let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The caller reads `data` only (--json, JSON-RPC); building `text` can be skipped.
    public var wantsMachineOutput: Bool { call.pointee.flags & UInt32(CLUBHOUSE_CALL_MACHINE_OUTPUT) != 0 }

    /// The reply's text goes to a terminal that shows colour (CLUBHOUSE_CALL_STYLED_TEXT): ANSI
    /// styling is welcome. PluginKit binds `TextStyle.current` from it while the handler runs, so
    /// `TextTable` headers come out bold without the handler doing anything.
    public var wantsStyledText: Bool {
        call.pointee.flags & UInt32(CLUBHOUSE_CALL_STYLED_TEXT) != 0 && !wantsMachineOutput
    }

    /// Progress of this call (a bar on a terminal, notifications over JSON-RPC).
    public var progress: Progress { Progress(service: context.services.progress, call: call) }

    /// Live events on the plugin's topics (Events.swift).
    public var events: Events { Events(services: context.services, call: call) }

    /// Records for the site's federation, written in the call's open transaction (Outbox.swift).
    public var outbox: Outbox { Outbox(services: context.services, call: call) }

    /// Runs another plugin's command (the site must grant "invoke:<alias>").
    public func invoke(_ alias: String, _ command: String, arguments: JSONObject = JSONObject()) throws -> InvokeResult {
        try context.services.invokePlugin(alias: alias, command: command, arguments: arguments, call: call)
    }
}

/// The reply of another plugin's command.
public struct InvokeResult: Sendable {
    public var data: JSONValue
    public var text: String?
}

/// Typed access to a call's arguments. Getters throw `PluginError.invalidArgument` with a message
/// naming the argument, so handlers can simply `try`.
public struct Arguments: Sendable {
    public let values: JSONObject

    public init(_ values: JSONObject) { self.values = values }

    public func has(_ name: String) -> Bool { values[name].map { !$0.isNull } ?? false }

    public subscript(name: String) -> JSONValue? { values[name] }

    private func missing(_ name: String) -> PluginError {
        .invalidArgument("missing argument --\(name)")
    }

    private func wrongType(_ name: String, _ expected: String, _ value: JSONValue) -> PluginError {
        .invalidArgument("argument --\(name) must be \(expected), got \(value.kindName)")
    }

    public func string(_ name: String) throws -> String {
        guard let v = values[name], !v.isNull else { throw missing(name) }
        guard let s = v.stringValue else { throw wrongType(name, "a string", v) }
        return s
    }

    public func optionalString(_ name: String) throws -> String? {
        has(name) ? try string(name) : nil
    }

    public func int(_ name: String) throws -> Int {
        guard let v = values[name], !v.isNull else { throw missing(name) }
        guard let n = v.numberValue, let i = n.int else { throw wrongType(name, "an integer", v) }
        return i
    }

    public func optionalInt(_ name: String) throws -> Int? {
        has(name) ? try int(name) : nil
    }

    public func double(_ name: String) throws -> Double {
        guard let v = values[name], !v.isNull else { throw missing(name) }
        guard let d = v.doubleValue, d.isFinite else { throw wrongType(name, "a finite number", v) }
        return d
    }

    public func optionalDouble(_ name: String) throws -> Double? {
        has(name) ? try double(name) : nil
    }

    /// A flag: true when given.
    public func flag(_ name: String) -> Bool { values[name]?.boolValue ?? false }

    /// A list argument ("a,b,c" on the command line).
    public func list(_ name: String) throws -> [String] {
        guard let v = values[name], !v.isNull else { throw missing(name) }
        guard let a = v.arrayValue else { throw wrongType(name, "a list", v) }
        return try a.map { element in
            guard let s = element.stringValue else { throw wrongType(name, "a list of strings", element) }
            return s
        }
    }

    /// A point argument ("X,Y" on the command line).
    public func point(_ name: String) throws -> (x: Double, y: Double) {
        guard let v = values[name], !v.isNull else { throw missing(name) }
        guard let a = v.arrayValue, a.count == 2, let x = a[0].doubleValue, let y = a[1].doubleValue,
              x.isFinite, y.isFinite
        else { throw wrongType(name, "a point X,Y", v) }
        return (x, y)
    }

    public func optionalPoint(_ name: String) throws -> (x: Double, y: Double)? {
        has(name) ? try point(name) : nil
    }

    /// Decodes all arguments into a Decodable type (keys = argument names).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try JSONBridge.decode(type, from: .object(values))
        } catch {
            throw PluginError.invalidArgument("arguments do not fit \(T.self): \(JSONBridge.describe(error))")
        }
    }
}
