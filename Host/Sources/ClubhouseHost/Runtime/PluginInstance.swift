// A created plugin instance: its host struct (with the services the site grants), its database,
// and the lock that serializes calls into it unless the plugin declared itself thread-safe.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseWire
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// Where a plugin's code runs: loaded into this process, or in a runner child process.
/// @unchecked Sendable: both payloads are thread-safe classes (PluginLibrary is immutable, IsolatedPlugin locks).
enum PluginBackend: @unchecked Sendable {
    case library(PluginLibrary)
    case isolated(IsolatedPlugin)

    var info: PluginDescriptorInfo {
        switch self {
        case .library(let l): return l.info
        case .isolated(let i): return i.info
        }
    }

    var path: String {
        switch self {
        case .library(let l): return l.path
        case .isolated(let i): return i.path
        }
    }

    var isIsolated: Bool { if case .isolated = self { return true } else { return false } }
}

/// @unchecked Sendable: `callsInFlight` and `retired` are guarded by the site runtime's lock; `database` by
/// `databaseLock`; `pathArguments`, `topics` and `records` are set once before the first call; calls into a plugin
/// that is not thread-safe pass the gate (and use `replyBuffer`) one at a time.
final class PluginInstance: @unchecked Sendable {
    let backend: PluginBackend
    var info: PluginDescriptorInfo { backend.info }
    /// Calls into a plugin that is not thread-safe are serialized (read once: it is on every call);
    /// so are calls into a runner, which serves one call at a time.
    let serializesCalls: Bool
    /// The reply buffer of serialized calls, reused from call to call.
    private let replyBuffer = ReplyBuffer()
    let entry: PluginEntry
    /// What the plugin may make the host hold through its services (the site's "limits").
    let limits: ServiceLimits
    let siteName: String
    unowned let runtime: SiteRuntime
    let host: UnsafeMutablePointer<clubhouse_host>
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private(set) var instance: UnsafeMutableRawPointer?
    private var created = false
    private let databaseLock = Lock()
    private var database: PluginDatabase?
    private(set) var databaseError: String?
    /// The commands that take path arguments (set once, before the first call): their grants are
    /// built per call (CallFiles.swift).
    var pathArguments: [String: CommandSpec] = [:]
    /// Commands that run beside the plugin's other calls, not through its gate ("concurrent" in the
    /// catalogue of a thread-safe plugin; set once, before the first call).
    var concurrentCommands: Set<String> = []
    /// Commands whose replies `serve --http` may keep ("cache" in the catalogue, ABI 1.7; set once, before
    /// the first call): a call of any other command counts as a change (SiteRuntime.changes(of:)).
    var cachedCommands: Set<String> = []
    /// Calls running in this instance, and whether a reload retired it (it is destroyed after its
    /// last call). Both guarded by the site runtime's lock.
    var callsInFlight = 0
    var retired = false
    /// The gate serialized calls take turns through (CallGates).
    let gate = CallGate()
    /// The topics its catalogue declares (set once, before the first call): the events service
    /// refuses any other.
    var topics: [EventTopic] = []
    /// The record topics its catalogue declares (set once, before the first call): the publish
    /// service refuses any other.
    var records: [EventTopic] = []

    static func pathArguments(of catalogue: CommandCatalog) -> [String: CommandSpec] {
        var commands: [String: CommandSpec] = [:]
        for command in catalogue.commands where command.arguments.contains(where: { $0.kind == .path }) {
            commands[command.name] = command
        }
        return commands
    }

    init(backend: PluginBackend, entry: PluginEntry, siteName: String, runtime: SiteRuntime) {
        self.backend = backend
        serializesCalls = !backend.info.threadSafe || backend.isIsolated
        self.entry = entry
        limits = ServiceLimits(entry.limits)
        self.siteName = siteName
        self.runtime = runtime
        host = .allocate(capacity: 1)
        func keep(_ s: String) -> UnsafePointer<CChar> {
            let p = strdup(s)!
            cStrings.append(p)
            return UnsafePointer(p)
        }
        host.initialize(to: clubhouse_host(
            struct_size: UInt32(MemoryLayout<clubhouse_host>.size),
            abi_major: UInt16(CLUBHOUSE_ABI_MAJOR), abi_minor: UInt16(CLUBHOUSE_ABI_MINOR),
            name: nil, version: nil, site: nil, alias: nil, host_data: nil,
            get_service: { host, id in
                guard let instance = PluginInstance.from(host), let id else { return nil }
                return instance.service(String(cString: id))
            }))
        host.pointee.name = keep("clubhouse")
        host.pointee.version = keep(ClubhouseVersion.string)
        host.pointee.site = keep(siteName)
        host.pointee.alias = keep(entry.alias)
        host.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        destroy()
        host.deinitialize(count: 1)
        host.deallocate()
        cStrings.forEach { free($0) }
    }

    static func from(_ host: UnsafePointer<clubhouse_host>?) -> PluginInstance? {
        guard let data = host?.pointee.host_data else { return nil }
        return Unmanaged<PluginInstance>.fromOpaque(data).takeUnretainedValue()
    }

    /// Why a service is withheld, or nil when this plugin may have it.
    func refusal(for service: String) -> String? {
        switch service {
        case CLUBHOUSE_SERVICE_LOG, CLUBHOUSE_SERVICE_CONFIG, CLUBHOUSE_SERVICE_PROGRESS, CLUBHOUSE_SERVICE_FILES,
             CLUBHOUSE_SERVICE_EVENTS: return nil
        case CLUBHOUSE_SERVICE_STORAGE:
            return entry.isGranted(.storage) ? nil : "the site does not grant \"storage\""
        case CLUBHOUSE_SERVICE_PUBLISH:
            return entry.isGranted(.storage) ? nil : "the site does not grant \"storage\" (the outbox lives in the plugin's database)"
        case CLUBHOUSE_SERVICE_DEVICE:
            return entry.grants.contains(where: { if case .device = $0 { return true } else { return false } })
                ? nil : "the site grants no \"device:NAME\""
        case CLUBHOUSE_SERVICE_INVOKE:
            return entry.grants.contains(where: { if case .invoke = $0 { return true } else { return false } })
                ? nil : "the site grants no \"invoke:PLUGIN\""
        default:
            return "this host does not offer it (it offers \(SiteRuntime.offeredServices.joined(separator: ", ")))"
        }
    }

    func service(_ id: String) -> UnsafeRawPointer? {
        guard refusal(for: id) == nil else { return nil }
        return ServiceTables.shared.table(for: id)
    }

    /// Creates the plugin's instance (once). Throws the plugin's message when create fails.
    func create() throws(RuntimeError) {
        guard !created else { return }
        for service in info.services {
            if let reason = refusal(for: service) {
                throw RuntimeError(status: .denied,
                                   message: "plugin '\(entry.alias)' needs \(service) but \(reason) at site '\(siteName)'; add the grant in plugins.json")
            }
        }
        do throws(RuntimeError) {
            try createBackend()
        } catch {
            throw restoreAfterFailedUpgrade(error)
        }
        created = true
        abandonTransactions()
    }

    /// A create that failed in a migration of an upgrade: the database goes back to the backup made
    /// before it (Brokers/DatabaseBackups.swift), and the message says so.
    private func restoreAfterFailedUpgrade(_ error: RuntimeError) -> RuntimeError {
        let failed = databaseLock.withLock { () -> PluginDatabase? in
            guard let database, database.upgrade != nil, database.migrationFailed else { return nil }
            return database
        }
        guard let failed, let upgrade = failed.upgrade else { return error }
        databaseLock.withLock {
            failed.close()
            database = nil
        }
        do {
            try DatabaseBackups.restore(database: failed.path, from: upgrade.backup)
        } catch let restoreError {
            return RuntimeError(status: .error, message: "\(error.message); restoring the backup made before the upgrade from \(upgrade.from) to \(upgrade.to) failed too (\(restoreError.message)): restore \(upgrade.backup) by hand")
        }
        var restored = error
        restored.message += "; the database was restored from the backup made before the upgrade from \(upgrade.from) to \(upgrade.to) (\(upgrade.backup)), as \(upgrade.from) left it; fix the plugin, or keep the site on \(upgrade.from) with \(runtime.configuration.commandPrefix) plugin rollback \(info.id) --site \(siteName)"
        return restored
    }

    private func createBackend() throws(RuntimeError) {
        switch backend {
        case .isolated(let runner):
            try runner.create(instance: self)
        case .library(let library):
            guard let create = library.descriptor.pointee.create else {
                throw RuntimeError(status: .error, message: LoadError.missingField(path: library.path, field: "create").description)
            }
            let buffer = ReplyBuffer()
            buffer.limit = limits.replyBytes
            var made: UnsafeMutableRawPointer?
            let status = buffer.withSink { create(library.descriptor, host, &made, $0) }
            guard status == Int32(CLUBHOUSE_OK), let made else {
                let message = buffer.text.isEmpty ? "create returned \(Status(code: status).name)" : buffer.text
                throw RuntimeError(status: status == Int32(CLUBHOUSE_OK) ? .error : Status(code: status),
                                   message: "plugin '\(entry.alias)' (\(library.info.id)) could not start: \(message)")
            }
            instance = made
        }
    }

    func destroy() {
        guard created else { return }
        created = false
        switch backend {
        case .isolated(let runner):
            runner.destroy(instance: self)
        case .library(let library):
            if let made = instance { library.descriptor.pointee.destroy?(library.descriptor, made) }
            instance = nil
        }
        databaseLock.withLock {
            if let database {
                if !database.openStatements.isEmpty {
                    runtime.log.warning("plugin '\(entry.alias)' left \(database.openStatements.count) statement(s) open; finalized")
                }
                database.close()
            }
            database = nil
        }
    }

    /// Rolls back a transaction a call left open (or a crashed runner could not finish).
    func abandonTransactions() {
        if let db = databaseLock.withLock({ database }), db.rollbackAbandoned() {
            runtime.log.warning("plugin '\(entry.alias)' left a transaction open; rolled back")
        }
    }

    /// At the end of every call, thread-safe plugins included: a transaction the call left open
    /// is rolled back (its writes since begin are not kept), with a log line. A thread-safe
    /// plugin's concurrent calls share one connection: only the call that opened the transaction
    /// (or any call, when it was opened outside a call) ends it.
    private func abandonTransactions(of call: CallContext, command: String) {
        guard let db = databaseLock.withLock({ database }) else { return }
        let rolledBack = serializesCalls ? db.rollbackAbandoned() : db.rollbackAbandoned(by: call.id)
        if rolledBack {
            runtime.log.warning("plugin '\(entry.alias)' left a transaction open at the end of '\(command)'; rolled back (nothing it wrote since begin is kept)")
        }
    }

    /// The database, opened on first use.
    var openDatabase: PluginDatabase? {
        databaseLock.withLock {
            if database == nil && databaseError == nil {
                do {
                    // The data is this library's only when its origin owns it (DataOrigin.swift): in process and
                    // for a runner alike, since a runner's storage is served from here. `backend.path` is the real
                    // path as loaded (the loader's; the one a runner was started on), not resolved again.
                    database = try runtime.storage.open(site: siteName, pluginID: info.id, owner: entry.alias,
                                                        pluginVersion: info.version, origin: runtime.dataOrigin(canonical: backend.path),
                                                        adoptCommand: "\(runtime.configuration.commandPrefix) plugin adopt",
                                                        bundledOwner: { [runtime = self.runtime, id = self.info.id] in runtime.bundledLibrary(declaring: id) },
                                                        limits: limits, shared: !serializesCalls)
                    if let note = database?.upgrade?.note { runtime.log.warning(note) }
                } catch let error as StorageError {
                    databaseError = error.message
                } catch {
                    databaseError = "\(error)"
                }
            }
            return database
        }
    }

    /// Runs one command. Serialized through the site's call gates unless the plugin is thread-safe. The call is the thread's
    /// current call while it runs (storage reads it to interrupt a statement when the call is
    /// cancelled or past its deadline, and to know who opened a transaction).
    func invoke(command: String, request: [UInt8], call: CallContext) -> (status: Int32, reply: [UInt8]) {
        // Most plugins declare no concurrent command: their calls hash no command name here.
        let serialize = serializesCalls && (concurrentCommands.isEmpty || !concurrentCommands.contains(command))
        if serialize, let refusal = runtime.gates.enter(gate, alias: entry.alias, call: call) {
            call.progress.end()
            return (refusal.status.rawValue, Array(refusal.message.utf8))
        }
        defer { if serialize { runtime.gates.leave(gate) } }
        // The call's path arguments become its capabilities (only commands that declare any pay for this).
        var files: CallFiles?
        let paths = pathArguments
        if !paths.isEmpty, let spec = paths[command], let parsed = try? JSONParser.parse(bytes: request),
           let arguments = parsed["arguments"]?.objectValue {
            var grants = CallFiles.grants(for: spec, arguments: arguments)
            // Nested in another plugin's call: only paths that call holds itself (no confused deputy).
            if let outer = call.outerFiles { grants = grants.filter { outer?.covers($0.value) ?? false } }
            if !grants.isEmpty { files = CallFiles(grants: grants, callID: call.id) }
        }
        if let refusal = files?.checkWriteTargets() {
            call.progress.end()
            return (refusal.status.rawValue, Array(refusal.message.utf8))
        }
        // A call without path capabilities leaves the context's (nil for a fresh call) as it is.
        let previousFiles: CallFiles?? = files == nil ? .none : .some(call.files)
        if files != nil { call.files = files }
        call.progressLabelBytes = limits.progressBytes
        defer { if case .some(let previous) = previousFiles { call.files = previous } }
        var result: (Int32, [UInt8]) = call.makeCurrent {
            switch backend {
            case .isolated(let runner):
                return runner.invoke(instance: self, command: command, request: request, call: call)
            case .library(let library):
                guard let invoke = library.descriptor.pointee.invoke, let made = instance else {
                    return (Int32(CLUBHOUSE_ERROR), Array("plugin '\(entry.alias)' is not running".utf8))
                }
                let buffer = serialize ? replyBuffer : ReplyBuffer()
                buffer.removeAll()
                buffer.limit = limits.replyBytes
                // `withCString` lends the command's own bytes (a String passed straight to a C
                // parameter is copied into a new array on every call).
                let status: Int32 = call.withCStruct { callPointer in
                    buffer.withSink { sink in
                        command.withCString { name in
                            request.withUnsafeBufferPointer { bytes in
                                bytes.withMemoryRebound(to: CChar.self) { chars in
                                    invoke(library.descriptor, made, callPointer, name, chars.baseAddress, chars.count, sink)
                                }
                            }
                        }
                    }
                }
                if buffer.overflowed {
                    return (Int32(CLUBHOUSE_DENIED), Array(LimitRefusal.replyBytes(entry.alias, limits).utf8))
                }
                return (status, buffer.bytes)
            }
        }
        call.progress.end()
        if let files, let problem = files.finish(success: result.0 == Int32(CLUBHOUSE_OK)) {
            result = (Status.io.rawValue, Array(problem.utf8))
        }
        // A concurrent command of a plugin that otherwise takes one call at a time (isolated: it ran on
        // the runner's second lane, SideLane.swift) ran beside the call that holds the gate. The plugin's
        // connection is that call's — opened for one call at a time, without SQLite's mutex — and the
        // lane cannot use storage, so this call left no transaction: rolling back "what it left" here
        // rolled back the other call's transaction, from another thread (a drill stopped from another
        // client lost its session, or failed with "near '-': syntax error" when the two threads' depth
        // counts crossed; SideLaneEndToEndTests.testAConcurrentCommandLeavesTheCallOnThePipesItsTransactions).
        if serialize || !serializesCalls { abandonTransactions(of: call, command: command) }
        runtime.devices.callEnded(call, command: command)
        // A call that was asked to stop and then failed (its storage interrupted, its device taken
        // over…) ended because it was stopped: `cancelled` (exit 130), or `timeout` when its time
        // limit asked; the plugin's message stays.
        // One reading of the clock for both questions (a wall-clock limit makes each read it).
        var clock = CallContext.ClockReading()
        if call.isCancelled(&clock), result.0 == Status.error.rawValue || result.0 == Status.io.rawValue {
            result.0 = call.wasCancelledByDeadline ? Status.timeout.rawValue : Status.cancelled.rawValue
        }
        // A result that comes after the call's cleanup grace was over (its storage was refused from then
        // on; issue 27) is not reported as a success: the call ends as it was stopped, `cancelled` or
        // `timeout` (a wall-clock limit), and says why.
        if result.0 == Status.ok.rawValue, let (status, why) = call.pastGrace(&clock) {
            result = (status, Array("plugin '\(entry.alias)' returned after it was stopped: \(why); its storage was refused from then on and its result is dropped".utf8))
        }
        return result
    }
}

/// A runtime failure with the status it maps to.
public struct RuntimeError: Error, Sendable, CustomStringConvertible {
    public var status: Status
    public var message: String
    public var description: String { message }

    public init(status: Status, message: String) {
        self.status = status
        self.message = message
    }
}
