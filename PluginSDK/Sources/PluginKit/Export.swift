// The entry glue: turns a `Plugin` type into the C descriptor the host loads. An author writes
//
//     @_cdecl("clubhouse_plugin_entry")
//     public func entry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? {
//         export(MyPlugin.self, info)
//     }
//
// Nothing Swift crosses the boundary: the descriptor's functions are C function pointers that
// find the Swift side again through `plugin_data` (the factory) and the instance pointer.

import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseToolkit
#if canImport(Glibc)
import Glibc
#endif

/// Builds the descriptor for `P`. Returns nil (declining the host) when the host's ABI major differs.
public func export<P: Plugin>(_ type: P.Type, _ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? {
    if let info, info.pointee.abi_major != UInt16(CLUBHOUSE_ABI_MAJOR) { return nil }
    let factory = PluginFactory<P>()
    return factory.descriptor
}

/// Type-erased access to a plugin type from C callbacks.
class AnyPluginFactory {
    let descriptorStorage: UnsafeMutablePointer<clubhouse_plugin_descriptor>
    var descriptor: UnsafePointer<clubhouse_plugin_descriptor> { UnsafePointer(descriptorStorage) }

    init(info: PluginInfo) {
        descriptorStorage = .allocate(capacity: 1)
        // The strings live as long as the process (the library is never unmapped).
        func keep(_ s: String) -> UnsafePointer<CChar> {
            let utf8 = Array(s.utf8CString)
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
            p.initialize(from: utf8, count: utf8.count)
            return UnsafePointer(p)
        }
        let services = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: info.services.count + 1)
        for (i, s) in info.services.enumerated() { services[i] = keep(s.rawValue) }
        services[info.services.count] = nil
        descriptorStorage.initialize(to: clubhouse_plugin_descriptor(
            magic: CLUBHOUSE_MAGIC,
            abi_major: UInt16(CLUBHOUSE_ABI_MAJOR),
            abi_minor: UInt16(CLUBHOUSE_ABI_MINOR),
            struct_size: UInt32(MemoryLayout<clubhouse_plugin_descriptor>.size),
            flags: info.threadSafe ? UInt32(CLUBHOUSE_PLUGIN_THREAD_SAFE) : 0,
            id: keep(info.id),
            version: keep(info.version),
            name: keep(info.name),
            summary: keep(info.summary),
            build: keep(BuildFingerprint.swift),
            services: UnsafePointer(services),
            plugin_data: nil,
            describe: { descriptor, reply in
                guard let factory = AnyPluginFactory.from(descriptor), let reply else { return Int32(CLUBHOUSE_ERROR) }
                if let problem = factory.catalogueProblem {
                    reply.write(problem)
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                reply.write(bytes: factory.catalogue)
                return Int32(CLUBHOUSE_OK)
            },
            create: { descriptor, host, instance, reply in
                guard let factory = AnyPluginFactory.from(descriptor), let host, let instance else {
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                do {
                    let box = try factory.makeInstance(host: host)
                    instance.pointee = Unmanaged.passRetained(box).toOpaque()
                    return Int32(CLUBHOUSE_OK)
                } catch {
                    let (status, message) = describeError(error)
                    reply?.write(message)
                    return status
                }
            },
            destroy: { _, instance in
                guard let instance else { return }
                Unmanaged<AnyInstanceBox>.fromOpaque(instance).release()
            },
            invoke: { _, instance, call, command, request, length, reply in
                guard let instance, let call, let command, let reply else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let box = Unmanaged<AnyInstanceBox>.fromOpaque(instance).takeUnretainedValue()
                let bytes = UnsafeRawBufferPointer(start: request, count: request == nil ? 0 : length)
                return box.invoke(command: command, request: bytes.bindMemory(to: UInt8.self), call: call, reply: reply)
            }))
        descriptorStorage.pointee.plugin_data = Unmanaged.passRetained(self).toOpaque()
    }

    static func from(_ descriptor: UnsafePointer<clubhouse_plugin_descriptor>?) -> AnyPluginFactory? {
        guard let data = descriptor?.pointee.plugin_data else { return nil }
        return Unmanaged<AnyPluginFactory>.fromOpaque(data).takeUnretainedValue()
    }

    var catalogue: [UInt8] { fatalError("subclass") }
    /// Why the catalogue cannot be described (a route naming no command), or nil.
    var catalogueProblem: String? { nil }
    func makeInstance(host: UnsafePointer<clubhouse_host>) throws -> AnyInstanceBox { fatalError("subclass") }
}

/// `describe` may come from several host threads: `described` is written once, under `mutex`,
/// and read under it.
final class PluginFactory<P: Plugin>: AnyPluginFactory {
    /// The catalogue and why it is invalid, built at the first `describe`: the host keeps each
    /// plugin's catalogue in a cache, so most processes that load a plugin never ask for it.
    private var described: (bytes: [UInt8], problem: String?)?
    private var mutex = pthread_mutex_t()

    init() {
        pthread_mutex_init(&mutex, nil)
        super.init(info: P.info)
    }

    private func describedOnce() -> (bytes: [UInt8], problem: String?) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        if let described { return described }
        var out: [UInt8] = []
        let (entries, problems) = catalogueEntries(P.commands, routes: P.routes)
        var catalogue: JSONObject = ["commands": .array(entries)]
        if let schema = P.configSchema { catalogue["config_schema"] = schema }
        if !P.topics.isEmpty {
            catalogue["topics"] = .array(P.topics.map { .object(["name": .string($0.name), "summary": .string($0.summary)]) })
        }
        if !P.pulls.isEmpty {
            catalogue["pulls"] = .array(P.pulls.map { .object(["view": .string($0.view), "command": .string($0.command)]) })
        }
        if !P.records.isEmpty {
            catalogue["records"] = .array(P.records.map { .object(["name": .string($0.name), "summary": .string($0.summary)]) })
        }
        JSONWriter.appendCompact(.object(catalogue), to: &out)
        let made = (bytes: out, problem: problems.isEmpty ? nil : problems.joined(separator: "; "))
        described = made
        return made
    }

    override var catalogue: [UInt8] { describedOnce().bytes }
    override var catalogueProblem: String? { describedOnce().problem }

    override func makeInstance(host: UnsafePointer<clubhouse_host>) throws -> AnyInstanceBox {
        let context = PluginContext(host: host)
        let plugin = try P(context: context)
        // Bind each handler to the instance once, so calls run through non-generic code. A typed
        // command's path arguments are read from its type at its first call (LazyArgumentShape).
        var commands: [String: InstanceBox.BoundCommand] = [:]
        for command in P.commands {
            let handler = command.handler
            let pending = command.pendingShape
            let paths = pending == nil ? command.arguments.filter { $0.kind == .path }.map(\.name) : []
            commands[command.name] = InstanceBox.BoundCommand(handler: { invocation in try handler(plugin, invocation) },
                                                              paths: paths, typed: pending)
        }
        return InstanceBox(plugin: plugin, context: context, commands: commands)
    }
}

class AnyInstanceBox {
    func invoke(command: UnsafePointer<CChar>, request: UnsafeBufferPointer<UInt8>, call: UnsafePointer<clubhouse_call>,
                reply: UnsafePointer<clubhouse_reply>) -> Int32 { fatalError("subclass") }
}

final class InstanceBox: AnyInstanceBox {
    typealias Handler = (Invocation) throws -> Reply

    /// A command bound to the instance: its handler and where its path arguments are named (Files
    /// reaches them through the files service).
    struct BoundCommand {
        var handler: Handler
        /// The path arguments of a command that lists its arguments.
        var paths: [String]
        /// A typed command's shape, which names its path arguments.
        var typed: LazyArgumentShape?
    }

    let plugin: AnyObject
    let context: PluginContext
    let commands: [String: BoundCommand]

    init(plugin: AnyObject, context: PluginContext, commands: [String: BoundCommand]) {
        self.plugin = plugin
        self.context = context
        self.commands = commands
    }

    override func invoke(command: UnsafePointer<CChar>, request: UnsafeBufferPointer<UInt8>,
                         call: UnsafePointer<clubhouse_call>, reply: UnsafePointer<clubhouse_reply>) -> Int32 {
        let name = String(cString: command)
        guard let bound = commands[name] else {
            reply.write("unknown command '\(name)'")
            return Int32(CLUBHOUSE_NOT_FOUND)
        }
        let handler = bound.handler
        do {
            let (arguments, cwd) = try InstanceBox.decodeRequest(request)
            let invocation = Invocation(arguments: Arguments(arguments), cwd: cwd, context: context, call: call)
            var paths: [(name: String, path: String)] = []
            for argument in bound.typed?.shape.paths ?? bound.paths {
                if let path = arguments[argument]?.stringValue { paths.append((argument, path)) }
            }
            // Tables (and anything else reading TextStyle.current) style the reply's text only when
            // the host says it goes to a terminal that shows colour; scoped to this call.
            let style: TextStyle = invocation.wantsStyledText ? .terminal : .plain
            let result = try TextStyle.with(style) {
                // A call from the network reaches only its path arguments: CallFiles is then set even
                // without any (or without the files service), and refuses every other path.
                let network = call.pointee.flags & UInt32(CLUBHOUSE_CALL_NETWORK) != 0
                let files: CallFiles? = network ? CallFiles(call: call, service: context.services.files, paths: paths, network: true)
                    : paths.isEmpty ? nil : context.services.files.map { CallFiles(call: call, service: $0, paths: paths) }
                return try CallFiles.with(files) { try handler(invocation) }
            }
            reply.write(bytes: result.encoded())
            return Int32(CLUBHOUSE_OK)
        } catch {
            let (status, message) = describeError(error)
            reply.write(message)
            return status
        }
    }
}

extension InstanceBox {
    private static let emptyArgumentsPrefix: [UInt8] = Array(#"{"arguments":{},"cwd":"#.utf8)

    /// The request envelope `{"arguments":{…},"cwd":"…"}` (entry.h). A command without arguments
    /// (the host writes exactly this prefix) skips the general parse.
    static func decodeRequest(_ request: UnsafeBufferPointer<UInt8>) throws -> (JSONObject, Invocation.CwdSource) {
        let prefix = emptyArgumentsPrefix
        if request.count > prefix.count + 2, request[request.count - 1] == UInt8(ascii: "}"),
           request[prefix.count] == UInt8(ascii: "\""), request.starts(with: prefix) {
            return (JSONObject(), .json(UnsafeBufferPointer(rebasing: request[prefix.count..<(request.count - 1)])))
        }
        let parsed = try JSONParser.parse(request)
        return (parsed["arguments"]?.objectValue ?? JSONObject(), .text(parsed["cwd"]?.stringValue ?? ""))
    }
}

/// The status and one-line message for any error a handler throws.
func describeError(_ error: any Error) -> (Int32, String) {
    if let e = error as? any DomainError { return (e.replyStatus.rawValue, e.replyMessage) }
    if let e = error as? JSONParseError { return (Int32(CLUBHOUSE_INVALID_ARGUMENT), "malformed request: \(e)") }
    return (Int32(CLUBHOUSE_ERROR), String(describing: error))
}
