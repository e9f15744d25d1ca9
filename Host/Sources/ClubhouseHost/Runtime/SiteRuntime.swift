// The running site: resolves each configured plugin to a checked library, creates instances on
// first use, owns the brokers, and runs calls (from the CLI, JSON-RPC, or another plugin).

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseLoader
import ClubhouseToolkit
#if canImport(Glibc)
import Glibc
#endif

/// A configured plugin resolved to its file, its descriptor and its catalogue (or the reason it
/// could not be). Its code is loaded only when a call needs an instance (SiteRuntime.backend): a
/// description may come from the catalogue cache (Loader/CatalogueCache.swift).
public struct ResolvedPlugin: Sendable {
    public var entry: PluginEntry
    public var catalogue: CommandCatalog
    public var info: PluginDescriptorInfo
    public var path: String
    /// What the plugin runs with: "auto" resolved (SiteRuntime.automaticIsolation).
    public var effectiveIsolation: Isolation
    /// True when the plugin runs in its own child process.
    public var isolated: Bool { effectiveIsolation != .inProcess }
    /// True when its calls take turns through its gate (CallGates): it is not thread-safe, or it runs
    /// in a runner, which serves one call at a time (as PluginInstance.serializesCalls).
    public var serializesCalls: Bool { !info.threadSafe || isolated }
    /// Whether a call of `command` takes its turn with the plugin's other calls: `serializesCalls`,
    /// except a thread-safe plugin's "concurrent" command, which runs beside them even in a runner
    /// (SideLane.swift).
    public func serializes(_ command: CommandSpec) -> Bool { serializesCalls && !(info.threadSafe && command.concurrent) }
    /// Whether a call of `command` runs on the runner's second lane (SideLane.swift): a concurrent command
    /// of a plugin whose other calls take turns. The lane serves one such command at a time.
    public func runsBeside(_ command: CommandSpec) -> Bool { serializesCalls && !serializes(command) }
    /// Why an "auto" plugin that would be sandboxed is not (config validate warns).
    public var weakerThanAuto: String?
    /// Why it runs with `effectiveIsolation`, for `plugins info`: "installed package (…)",
    /// "bundled with the host in …", "set in plugins.json (…)" (IsolationChoice.swift).
    public var isolationReason = ""
    /// Where it comes from, as the start of a sentence about it: "is an installed package".
    public var originPhrase = ""
    /// The loaded library or started runner, when resolving loaded it (a cache miss).
    var backend: PluginBackend?
    /// The catalogue's bytes as described, and the file's identity then: a backend loaded later
    /// must describe the same.
    var described: [UInt8] = []
    var identity: FileIdentity?
}

/// The outcome of one command.
public struct CallOutcome: Sendable {
    public var status: Status
    /// The reply's data (null on failure).
    public var data: JSONValue
    public var text: String?
    /// The one-line message on failure.
    public var message: String
    public var background: (command: String, arguments: JSONObject)?

    static func failure(_ status: Status, _ message: String) -> CallOutcome {
        CallOutcome(status: status, data: .null, text: nil, message: message, background: nil)
    }
}

/// Results filled by concurrent workers, one slot each.
/// @unchecked Sendable: `slots` is read and written under `lock`.
private final class ResolutionSlots: @unchecked Sendable {
    private let lock = Lock()
    private var slots: [Result<ResolvedPlugin, RuntimeError>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ result: Result<ResolvedPlugin, RuntimeError>) { lock.withLock { slots[i] = result } }
    func get(_ i: Int) -> Result<ResolvedPlugin, RuntimeError>? { lock.withLock { slots[i] } }
}

/// @unchecked Sendable: the tables of plugins (`loaded`, `resolved`, `backends`, `instances`, `retiring`, …)
/// are read and written under `lock`, loading under `loadLock`, creation under `creationLock`; the rest never changes.
public final class SiteRuntime: @unchecked Sendable {
    public static let offeredServices = [
        CLUBHOUSE_SERVICE_LOG, CLUBHOUSE_SERVICE_CONFIG, CLUBHOUSE_SERVICE_STORAGE, CLUBHOUSE_SERVICE_PROGRESS,
        CLUBHOUSE_SERVICE_INVOKE, CLUBHOUSE_SERVICE_DEVICE, CLUBHOUSE_SERVICE_FILES, CLUBHOUSE_SERVICE_EVENTS,
        CLUBHOUSE_SERVICE_PUBLISH,
    ]

    public let configuration: SiteConfiguration
    public let site: Site
    public let log: LogBroker
    public let storage: StorageBroker
    /// Commits to the plugins' databases, for the reply cache (`replyStamp`).
    let databaseWatch = DatabaseChangeWatch()
    public let devices: DeviceBroker
    /// The plugins' live events (EventsBroker.swift): what `serve --http` streams.
    public let events = EventHub()
    /// Told when a transaction that published records commits (`serve`'s background push listens).
    public let outboxCommits = OutboxCommits()
    let loader: PluginLoader
    let discovery: PluginDiscovery
    /// plugins.lock (Loader/PluginLock.swift): every load is checked against it unless disabled.
    let lockGuard: LockGuard
    /// The caller's working directory, sent with every request (read once: the host never changes it).
    let workingDirectory = FileSystem.currentDirectory()
    /// `,"cwd":"<working directory>"}`: the tail of every request, encoded once.
    private let requestTail: [UInt8]
    private let emptyRequest: [UInt8]
    private static let requestHead = Array(#"{"arguments":"#.utf8)
    private static let nullReply: [UInt8] = Array(#"{"data":null}"#.utf8)

    /// Serialized plugins take turns here; a wait that would deadlock is refused (CallGates.swift).
    let gates = CallGates()
    /// Background work a reply asks for goes here (set by the front end; nil runs none).
    private let backgroundLauncher: (any BackgroundLauncher)?
    /// The one router every entry point uses (Router.swift).
    public private(set) lazy var router = Router(runtime: self, background: backgroundLauncher)

    private let lock = Lock()
    /// One load at a time (a plugin file is opened and checked once). Never held while calling a plugin.
    private let loadLock = Lock()
    /// Held while plugins are created; recursive, because a plugin's create may invoke another
    /// plugin, created then on the same thread.
    private let creationLock = RecursiveLock()
    /// Aliases whose create is running, outermost first (guarded by `creationLock`).
    private var creating: [String] = []
    /// Each alias's plugin as loaded, and as resolved (loaded and not a duplicate).
    private var loaded: [String: Result<ResolvedPlugin, RuntimeError>] = [:]
    private var resolved: [String: Result<ResolvedPlugin, RuntimeError>] = [:]
    /// Backends loaded after a description from the catalogue cache (SiteRuntime.backend).
    private var backends: [String: PluginBackend] = [:]
    private var instances: [String: PluginInstance] = [:]
    private var creationOrder: [String] = []
    /// Instances a reload retired while calls were in flight (PluginInstance.callsInFlight): each is
    /// destroyed once its last call has finished (Runtime/SiteReload.swift).
    private var retiring: [ObjectIdentifier: PluginInstance] = [:]
    /// How many times each alias was reloaded: its calls from then on go to a new instance, with a gate
    /// of its own (serve's lanes follow it).
    private var reloads: [String: Int] = [:]
    /// Calls of a command that is not a cached read, ended, per alias of a plugin that declares cached reads
    /// (`changes(of:)`); guarded by `lock`.
    private var changeCounts: [String: Int] = [:]
    /// Each alias's install-tree and lock signature when it was resolved (serve's reload watch).
    private var signatures: [String: [Int64]] = [:]

    /// Descriptions of plugin files kept across runs (nil: every resolution loads the plugin).
    let catalogues: CatalogueCache?
    /// Whether a plugin described from the catalogue cache keeps its location for the load that follows
    /// (`keepsLocation` in init). Guarded by `lock`: the location kept — the last plugin described (a run of
    /// one command loads one) —, taken once by `backend`. One slot, not a dictionary: its generic metadata
    /// would cost the command more than the slot saves it.
    let keepsLocation: Bool
    private var keptLocation: KeptLocation?

    private struct KeptLocation {
        var alias: String
        var location: Location
    }

    /// Takes the location kept for `alias` (any: nil), leaving none.
    private func takeKeptLocation(_ alias: String?) -> Location? {
        lock.withLock { () -> Location? in
            guard let kept = keptLocation, alias == nil || kept.alias == alias else { return nil }
            keptLocation = nil
            return kept.location
        }
    }

    /// Forgets the location kept for `alias` (any: nil), closing the descriptor its lock check kept open.
    private func dropKeptLocation(_ alias: String?) {
        if let fd = takeKeptLocation(alias)?.verified { close(fd) }
    }

    /// `storageDirectory`: where the plugins' databases go when not in `dataDirectory` (config
    /// validate creates plugins on a throwaway one, with the site's install tree and lock).
    /// `describesFromCache: false` loads every plugin it resolves (config validate: "every plugin loads").
    /// `keepsLocation`: for a run of one command (the command line's plugin commands), whose plugin is loaded
    /// milliseconds after it is described: the location found then — the entry, the lock's check (and the open
    /// descriptor it checked), the file discovery found, its isolation — is the one the load uses, instead of
    /// all of it being found again. Never for `serve`, whose loads may come long after (a lock or an install
    /// changed in between is then seen by the load's own `locate`).
    public init(configuration: SiteConfiguration, site: Site, dataDirectory: String, log: LogBroker,
                loader: PluginLoader = PluginLoader(), background: (any BackgroundLauncher)? = nil, enforcesLock: Bool = true,
                storageDirectory: String? = nil, describesFromCache: Bool = true, keepsLocation: Bool = false) {
        catalogues = describesFromCache ? CatalogueCache(dataDirectory: dataDirectory) : nil
        self.keepsLocation = keepsLocation
        self.configuration = configuration
        lockGuard = LockGuard(path: PluginLock.path(configuration: configuration, dataDirectory: dataDirectory), enabled: enforcesLock)
        backgroundLauncher = background
        self.site = site
        self.log = log
        self.loader = loader
        // Devices, runners and clients can vanish mid-write: that must be an error, not SIGPIPE.
        Signals.ignoreBrokenPipes()
        var tail = Array(#","cwd":"#.utf8)
        JSONWriter.appendQuoted(workingDirectory, to: &tail)
        tail.append(UInt8(ascii: "}"))
        requestTail = tail
        emptyRequest = SiteRuntime.requestHead + Array("{}".utf8) + tail
        storage = StorageBroker(dataDirectory: storageDirectory ?? dataDirectory)
        devices = DeviceBroker(site: site, log: log)
        discovery = PluginDiscovery(configuration: configuration, loader: loader, log: log,
                                    registryFile: dataDirectory + "/plugin-registry.json")
    }

    deinit { shutdown() }

    /// Destroys every instance, newest first, and closes their databases.
    public func shutdown() {
        let order = lock.withLock { () -> [PluginInstance] in
            let list = creationOrder.reversed().compactMap { instances[$0] }
            instances.removeAll()
            creationOrder.removeAll()
            return list
        }
        order.forEach { $0.destroy() }
        lock.withLock { () -> [PluginInstance] in
            defer { retiring.removeAll() }
            return Array(retiring.values)
        }.forEach { $0.destroy() }
        dropKeptLocation(nil)
        devices.closeAll()
    }

    /// Kills every runner now (the front end is about to `_exit`, calls may be in progress): no
    /// isolated plugin outlives the host.
    public func killRunnersNow() {
        let all = lock.withLock { Array(instances.values) + Array(retiring.values) }
        for instance in all {
            if case .isolated(let runner) = instance.backend { runner.killNow() }
        }
    }

    /// Aliases of the site's plugins, in file order (enabled or not).
    public var aliases: [String] { site.plugins.map(\.alias) }

    /// Loads and checks the plugin the site calls `alias`, and refuses it when another enabled plugin
    /// of the site loads the same id (they would share one database). The refusal names both files
    /// and does not depend on which alias was loaded first: every other enabled entry that declares
    /// this id, or declares only a path, is loaded to know its id.
    public func resolve(_ alias: String) -> Result<ResolvedPlugin, RuntimeError> {
        if let cached = lock.withLock({ resolved[alias] }) { return cached }
        let result = load(alias)
        var final = result
        if case .success(let plugin) = result {
            for other in site.plugins where other.alias != alias && other.enabled {
                if let id = other.id, id != plugin.info.id { continue }
                guard case .success(let o) = load(other.alias), o.info.id == plugin.info.id else { continue }
                final = .failure(RuntimeError(status: .error,
                                              message: "duplicate plugin id \(plugin.info.id) at site '\(site.name)': plugins '\(alias)' "
                                                      + "(\(plugin.path)) and '\(other.alias)' (\(o.path)) both load it and would share "
                                                      + "one database; a site runs a plugin once, so remove or disable one in "
                                                      + "\(configuration.source)"))
                break
            }
            if case .success = final, let refusal = requirementRefusal(plugin, load: load) {
                final = .failure(RuntimeError(status: .error, message: refusal))
            }
        }
        lock.withLock { resolved[alias] = final }
        return final
    }

    /// The plugin of `alias` when it is resolved already (nothing is loaded: for a thread that must not wait).
    public func resolvedIfLoaded(_ alias: String) -> ResolvedPlugin? {
        guard case .success(let plugin)? = lock.withLock({ resolved[alias] }) else { return nil }
        return plugin
    }

    /// Loads the plugin of `alias` (cached), without the duplicate rule.
    private func load(_ alias: String) -> Result<ResolvedPlugin, RuntimeError> {
        if let cached = lock.withLock({ loaded[alias] }) { return cached }
        loadLock.lock()
        defer { loadLock.unlock() }
        if let cached = lock.withLock({ loaded[alias] }) { return cached }
        let result = resolveUncached(alias)
        lock.withLock { loaded[alias] = result }
        return result
    }

    /// Loads every enabled plugin not loaded yet, several at a time: loading a library is mostly
    /// the dynamic loader and first-run work inside it, which overlap across cores (a runner's start,
    /// for isolated plugins, even more). The duplicate rule runs afterwards, per alias.
    public func resolveAll() {
        let pending = site.plugins.filter { entry in entry.enabled && lock.withLock { loaded[entry.alias] == nil } }.map(\.alias)
        let results = ResolutionSlots(count: pending.count)
        do {
            loadLock.lock()
            defer { loadLock.unlock() }
            Parallel.perform(iterations: pending.count) { i in
                results.set(i, resolveUncached(pending[i]))
            }
        }
        lock.withLock {
            for (i, alias) in pending.enumerated() where loaded[alias] == nil {
                if let result = results.get(i) { loaded[alias] = result }
            }
        }
        for entry in site.plugins where entry.enabled { _ = resolve(entry.alias) }
    }

    /// Where a site's alias leads: its entry, the file, what the lock pins, how it runs.
    private struct Location {
        var entry: PluginEntry
        /// "plugins.json:LINE:COLUMN" of the entry.
        var place: String
        var path: String
        var locked: LockedPlugin?
        /// Under a lock: an open descriptor of the file, checked against it (the bytes to load).
        var verified: Int32?
        /// How it runs, and why (IsolationChoice.swift).
        var choice: IsolationChoice
        var isolation: Isolation { choice.isolation }
    }

    /// The checks that need no plugin code: the entry, the lock, the file and its isolation.
    private func locate(_ alias: String) -> Result<Location, RuntimeError> {
        if let entry = site.plugin(alias: alias) {
            let signature = watchSignature(entry)
            lock.withLock { signatures[alias] = signature }
        }
        guard let entry = site.plugin(alias: alias) else {
            var message = "unknown plugin '\(alias)' at site '\(site.name)'"
            if let suggestion = closest(alias, among: aliases + ["plugins", "plugin", "config", "demo", "serve", "device"]) {
                message += "; did you mean '\(suggestion)'?"
            }
            message += " (clubhouse plugins list shows them)"
            return .failure(RuntimeError(status: .invalidArgument, message: message))
        }
        let where_ = "\(configuration.source):\(entry.location.line):\(entry.location.column)"
        guard entry.enabled else {
            return .failure(RuntimeError(status: .error,
                                         message: "plugin '\(alias)' is disabled at site '\(site.name)'; set \"enabled\": true at "
                                                 + "\(where_)"))
        }
        // Never silently weaker: a kernel that cannot confine the runner refuses the plugin
        // before any of its code runs (discovery probes it).
        if entry.isolation == .sandbox, let reason = SandboxSupport.unavailableReason() {
            return .failure(RuntimeError(status: .error, message: "plugin '\(alias)' asks for \"isolation\": \"sandbox\" (\(where_)), "
                    + "but \(reason); to run it without kernel confinement, set \"isolation\": \"process\" there knowingly (the plugin "
                    + "can then read and write whatever this user can)"))
        }
        let locked: LockedPlugin?
        switch lockGuard.pin(site: site.name, entry: entry) {
        case .success(let l): locked = l
        case .failure(let e): return .failure(RuntimeError(status: .error, message: "plugin '\(alias)' (\(where_)): \(e.message)"))
        }
        let path: String
        if let explicit = entry.path {
            path = FileSystem.absolute(explicit, relativeTo: configuration.baseDirectory)
        } else if let id = entry.id {
            // A locked site asks for the locked version exactly: a newer install does not move it.
            let requirement = locked.flatMap { VersionRequirement("=" + $0.version) } ?? entry.versionRequirement
            switch discovery.find(id: id, requirement: requirement) {
            case .success(let found): path = found
            case .failure(let error):
                return .failure(RuntimeError(status: .error, message: "plugin '\(alias)' (\(where_)): \(error.message)"))
            }
        } else {
            return .failure(RuntimeError(status: .error, message: "plugin '\(alias)' has neither \"id\" nor \"path\" (\(where_))"))
        }
        // A locked build is checked and then loaded through one open descriptor: the bytes hashed
        // are the bytes mapped, even if the file is replaced in between.
        var verified: Int32?
        if let locked {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            guard fd >= 0 else {
                return .failure(RuntimeError(status: .error, message: "plugin '\(alias)': \(path): cannot read the library to check it "
                        + "against \(lockGuard.path) (\(String(cString: strerror(errno))))"))
            }
            if let refusal = lockGuard.check(descriptor: fd, path: path, locked: locked) {
                close(fd)
                return .failure(RuntimeError(status: .error, message: "plugin '\(alias)': \(refusal)"))
            }
            SiteRuntime.testSwapAfterLockCheck(path)
            verified = fd
        }
        if let refusal = packageRefusal(entry, path: path, verified: &verified) {
            if let verified { close(verified) }
            return .failure(RuntimeError(status: .error, message: refusal.message))
        }
        let choice = IsolationChoice.make(entry: entry, path: path, installRoot: discovery.installRoot, where: where_)
        return .success(Location(entry: entry, place: where_, path: path, locked: locked, verified: verified, choice: choice))
    }

    /// Loads the library (in process) or starts its runner, and reads its catalogue. Takes the
    /// location's verified descriptor.
    private func openBackend(_ l: Location) -> Result<(PluginBackend, [UInt8]), RuntimeError> {
        let alias = l.entry.alias
        if l.isolation != .inProcess {
            do {
                if let verified = l.verified {
                    try PluginLoader.checkELF(descriptor: verified, path: l.path)
                } else {
                    try PluginLoader.checkELF(path: l.path)
                }
            } catch {
                if let verified = l.verified { close(verified) }
                return .failure(RuntimeError(status: .error, message: "plugin '\(alias)': \(error)"))
            }
            do {
                // The runner loads the real path (resolved now, not through a link again at each start): the
                // library whose origin owns its data (DataOrigin.swift) is the one that runs.
                let runner = try IsolatedPlugin(path: FileSystem.realPath(l.path) ?? l.path, alias: alias, timeoutMilliseconds: l.entry.timeoutMilliseconds,
                                                expectedID: l.entry.id, limits: l.entry.limits,
                                                sandboxPorts: l.isolation == .sandbox ? Self.grantedPorts(l.entry) : nil,
                                                verifiedLibrary: l.verified, standardError: log.runnerErrors)
                return .success((.isolated(runner), runner.catalogue))
            } catch {
                return .failure(error)
            }
        }
        do {
            let library = try loader.load(path: l.path, verified: l.verified)
            return .success((.library(library), try library.describe()))
        } catch {
            return .failure(RuntimeError(status: .error, message: "plugin '\(alias)': \(error)"))
        }
    }

    private func resolveUncached(_ alias: String) -> Result<ResolvedPlugin, RuntimeError> {
        let l: Location
        switch locate(alias) {
        case .success(let found): l = found
        case .failure(let e): return .failure(e)
        }
        // The file as it is before anything reads it: a file replaced after this is described
        // under its old identity, which the next lookup no longer matches.
        let real = FileSystem.realPath(l.path) ?? l.path
        let identity = l.verified.flatMap { FileIdentity(descriptor: $0) } ?? FileSystem.identity(real)
        if let catalogues, let identity, let known = catalogues.lookup(path: real, identity: identity, sha256: l.locked?.sha256) {
            let remembered = describe(l, info: known.info, catalogue: known.catalogue, backend: nil, identity: identity)
            if case .success = remembered {
                if keepsLocation {
                    let replaced = lock.withLock { () -> Location? in
                        defer { keptLocation = KeptLocation(alias: alias, location: l) }
                        return keptLocation?.location
                    }
                    if let fd = replaced?.verified { close(fd) }
                } else if let verified = l.verified {
                    close(verified)
                }
                return remembered
            }
            // A damaged entry (its catalogue does not parse) is forgotten: the plugin itself says what it is.
            catalogues.remove(path: real)
        }
        let backend: PluginBackend
        let bytes: [UInt8]
        switch openBackend(l) {
        case .success(let opened): (backend, bytes) = opened
        case .failure(let e): return .failure(e)
        }
        let result = describe(l, info: backend.info, catalogue: bytes, backend: backend, identity: identity)
        if case .success = result, let catalogues, let identity {
            catalogues.store(path: real, CataloguedPlugin(info: backend.info, catalogue: bytes, identity: identity,
                                                          sha256: l.locked?.sha256))
        }
        return result
    }

    /// The checks of a description against the site (id, version), and its catalogue read.
    private func describe(_ l: Location, info: PluginDescriptorInfo, catalogue bytes: [UInt8], backend: PluginBackend?,
                          identity: FileIdentity?) -> Result<ResolvedPlugin, RuntimeError> {
        let alias = l.entry.alias
        if let id = l.entry.id, id != info.id {
            return .failure(RuntimeError(status: .error,
                                         message: "plugin '\(alias)': \(l.path) is \(info.id), but the site expects \(id) (\(l.place)); "
                                                 + "fix \"id\" or \"path\""))
        }
        if let requirement = l.entry.versionRequirement, !requirement.isSatisfied(by: info.semanticVersion) {
            return .failure(RuntimeError(status: .error,
                                         message: "plugin '\(alias)': \(info.id) \(info.version) (\(l.path)) does not satisfy the site's "
                                                 + "version requirement '\(requirement)' (\(l.place)); install a matching build or "
                                                 + "change \"version\""))
        }
        switch CommandCatalog.parse(bytes, plugin: alias) {
        case .success(let catalogue):
            var resolved = ResolvedPlugin(entry: l.entry, catalogue: catalogue, info: info, path: l.path, effectiveIsolation: l.isolation,
                                          weakerThanAuto: l.choice.weaker, backend: backend, described: bytes, identity: identity)
            resolved.isolationReason = l.choice.reason
            resolved.originPhrase = l.choice.originPhrase
            return .success(resolved)
        case .failure(let e):
            return .failure(RuntimeError(status: .error, message: "plugin '\(alias)' (\(l.path)): bad command catalogue: \(e)"))
        }
    }

    /// The loaded library or started runner of `alias`: loaded on the first call that needs an
    /// instance when its description came from the catalogue cache. The plugin loaded must be the
    /// one described (same id, version and catalogue); a file changed in between is refused, and
    /// forgotten, so that the next call describes it again.
    ///
    /// In process, the file is opened once and loaded from that descriptor: when it is still the very
    /// file described (its identity, read on the descriptor that is loaded, is the one the cache entry
    /// was made from), its catalogue is the one the call was checked against without asking the plugin
    /// again (`describe` builds the plugin's whole catalogue, which one command does not need). Any
    /// other file describes itself and must match.
    func backend(_ alias: String) -> Result<PluginBackend, RuntimeError> {
        let plugin: ResolvedPlugin
        switch resolve(alias) {
        case .success(let p): plugin = p
        case .failure(let e): return .failure(e)
        }
        if let backend = plugin.backend ?? lock.withLock({ backends[alias] }) { return .success(backend) }
        loadLock.lock()
        defer { loadLock.unlock() }
        if let backend = lock.withLock({ backends[alias] }) { return .success(backend) }
        var l: Location
        if let kept = takeKeptLocation(alias) {
            l = kept
        } else {
            switch locate(alias) {
            case .success(let found): l = found
            case .failure(let e): return .failure(e)
            }
        }
        if l.isolation == .inProcess, l.path == plugin.path, let described = plugin.identity {
            if l.verified == nil { l.verified = SiteRuntime.openForLoading(l.path) }
            if let fd = l.verified, FileIdentity(descriptor: fd) == described {
                let library: PluginLibrary
                do {
                    library = try loader.load(path: l.path, verified: fd)
                } catch {
                    return .failure(RuntimeError(status: .error, message: "plugin '\(alias)': \(error)"))
                }
                guard library.info.id == plugin.info.id, library.info.version == plugin.info.version else {
                    return .failure(changed(alias, plugin, path: l.path, now: library.info, stopping: nil))
                }
                let backend = PluginBackend.library(library)
                lock.withLock { backends[alias] = backend }
                return .success(backend)
            }
        }
        let backend: PluginBackend
        let bytes: [UInt8]
        switch openBackend(l) {
        case .success(let opened): (backend, bytes) = opened
        case .failure(let e): return .failure(e)
        }
        guard l.path == plugin.path, backend.info.id == plugin.info.id, backend.info.version == plugin.info.version,
              bytes == plugin.described else {
            return .failure(changed(alias, plugin, path: l.path, now: backend.info, stopping: backend))
        }
        lock.withLock { backends[alias] = backend }
        return .success(backend)
    }

    /// A plugin that is not the one described: its cache entry and resolution are forgotten (the next
    /// call describes it again), a runner started for it stopped, and the call refused.
    private func changed(_ alias: String, _ plugin: ResolvedPlugin, path: String, now: PluginDescriptorInfo,
                         stopping backend: PluginBackend?) -> RuntimeError {
        catalogues?.remove(path: FileSystem.realPath(plugin.path) ?? plugin.path)
        lock.withLock {
            loaded[alias] = nil
            resolved[alias] = nil
        }
        dropKeptLocation(alias)
        if case .isolated(let runner)? = backend { runner.stop() }
        return RuntimeError(status: .error, message: "plugin '\(alias)': \(path) changed since its commands were read "
                                + "(now \(now.id) \(now.version)); the command did not run: run it again")
    }

    /// An open descriptor of the plugin file at `path` to load from (nil when it cannot be opened: the
    /// load by path then says why). Opened without blocking, so a FIFO put there cannot hang it.
    static func openForLoading(_ path: String) -> Int32? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        return fd >= 0 ? fd : nil
    }

    /// Tests only: CLUBHOUSE_TEST_SWAP_AFTER_LOCK_CHECK=FILE renames FILE over the library just
    /// after its lock check, the moment an attacker would swap it (LockPackageEndToEndTests).
    static func testSwapAfterLockCheck(_ library: String) {
        guard let replacement = FileSystem.environment("CLUBHOUSE_TEST_SWAP_AFTER_LOCK_CHECK"), !replacement.isEmpty else { return }
        _ = rename(replacement, library)
    }

    /// The TCP ports a sandboxed plugin's `net:HOST:PORT` grants open (Landlock filters by port).
    static func grantedPorts(_ entry: PluginEntry) -> [UInt16] {
        entry.grants.compactMap { grant in
            if case .net(_, let port) = grant { return UInt16(exactly: port) }
            return nil
        }
    }

    /// The running instance for `alias`, created on first use.
    func instance(_ alias: String) -> Result<PluginInstance, RuntimeError> {
        let plugin: ResolvedPlugin
        switch resolve(alias) {
        case .success(let p): plugin = p
        case .failure(let e): return .failure(e)
        }
        if let existing = lock.withLock({ instances[alias] }) { return .success(existing) }
        // One creation at a time, so concurrent first calls (serve) create the instance once.
        creationLock.lock()
        defer { creationLock.unlock() }
        if let existing = lock.withLock({ instances[alias] }) { return .success(existing) }
        // The site's config against the schema the plugin declares, before its create reads it: a
        // configuration that does not fit is wrong input (exit 2), like one that does not parse.
        if let refusal = ConfigSchemaLocation.refusal(plugin.catalogue.configSchema, configuration: configuration,
                                                      site: site.name, entry: plugin.entry) {
            return .failure(RuntimeError(status: .invalidArgument, message: refusal))
        }
        if let start = creating.firstIndex(of: alias) {
            let cycle = (creating[start...] + [alias]).joined(separator: " → ")
            return .failure(RuntimeError(status: .error,
                                         message: "plugin '\(alias)' is still being created (\(cycle)); its create cannot be called back "
                                                 + "into"))
        }
        creating.append(alias)
        defer { creating.removeLast() }
        let backend: PluginBackend
        switch self.backend(alias) {
        case .success(let b): backend = b
        case .failure(let e): return .failure(e)
        }
        let made = PluginInstance(backend: backend, entry: plugin.entry, siteName: site.name, runtime: self)
        made.pathArguments = PluginInstance.pathArguments(of: plugin.catalogue)
        if plugin.info.threadSafe { made.concurrentCommands = Set(plugin.catalogue.commands.filter { $0.concurrent }.map { $0.name }) }
        made.cachedCommands = Set(plugin.catalogue.commands.filter { $0.cacheMaxAgeMilliseconds != nil }.map { $0.name })
        made.topics = plugin.catalogue.topics
        made.records = plugin.catalogue.records
        do {
            try made.create()
        } catch {
            return .failure(error)
        }
        lock.withLock {
            instances[alias] = made
            creationOrder.append(alias)
        }
        return .success(made)
    }

    /// Runs `body` with the host struct the instance of `alias` sees (its services as the site grants
    /// them). For embedding the host and for benchmarks of the service tables.
    public func withHostStruct<R>(of alias: String, _ body: (UnsafePointer<clubhouse_host>) throws -> R) throws -> R {
        switch instance(alias) {
        case .success(let made): return try body(UnsafePointer(made.host))
        case .failure(let error): throw error
        }
    }

    /// Runs `command` of plugin `alias` with arguments the router checked, without reading the reply:
    /// the status and the plugin's bytes (Router.run reads them; the invoke service hands them to the
    /// calling plugin as they are). Only the router calls it (and the validator's unknown-command check).
    func callRaw(alias: String, command: String, arguments: JSONObject, context: CallContext) -> (Int32, [UInt8]) {
        // Fast path: the instance exists already. Counted in flight, so a reload waits for the call.
        let target: PluginInstance
        if let existing = lock.withLock({ () -> PluginInstance? in
            guard let found = instances[alias] else { return nil }
            found.callsInFlight += 1
            return found
        }) {
            target = existing
        } else {
            switch instance(alias) {
            case .failure(let error): return (error.status.rawValue, Array(error.message.utf8))
            case .success(let made):
                target = made
                lock.withLock { made.callsInFlight += 1 }
            }
        }
        defer { finished(target, changing: target.cachedCommands.isEmpty ? nil : target.cachedCommands.contains(command) ? nil : alias) }
        return target.invoke(command: command, request: encodeRequest(arguments), call: context)
    }

    /// A call into `target` ended: a retired instance is destroyed after its last call. `changing`: the
    /// call may have changed what the plugin's kept replies depend on (a command without "cache" of a plugin
    /// that declares some), so its count of changes moves.
    private func finished(_ target: PluginInstance, changing: String? = nil) {
        let retired = lock.withLock { () -> PluginInstance? in
            if let changing { changeCounts[changing, default: 0] += 1 }
            target.callsInFlight -= 1
            guard target.callsInFlight == 0, target.retired else { return nil }
            return retiring.removeValue(forKey: ObjectIdentifier(target))
        }
        retired?.destroy()
    }

    /// Forgets how `alias` was resolved, so its next call resolves and creates it again; its
    /// instance is destroyed now when idle, else after its calls in flight (Runtime/SiteReload.swift).
    /// In-process plugins cannot be unloaded (RTLD_NODELETE): nothing changes for them.
    public func reload(_ alias: String) -> ReloadOutcome {
        defer { dropKeptLocation(alias) }
        let (outcome, idle) = lock.withLock { () -> (ReloadOutcome, PluginInstance?) in
            guard let current = loaded[alias] else { return (.notLoaded, nil) }
            if case .success(let plugin) = current, !plugin.isolated { return (.needsRestart(version: plugin.info.version), nil) }
            loaded[alias] = nil
            resolved[alias] = nil
            backends[alias] = nil
            signatures[alias] = nil
            reloads[alias, default: 0] += 1
            guard let old = instances.removeValue(forKey: alias) else { return (.restartsOnNextCall, nil) }
            creationOrder.removeAll { $0 == alias }
            if old.callsInFlight > 0 {
                old.retired = true
                retiring[ObjectIdentifier(old)] = old
                return (.restartsOnNextCall, nil)
            }
            return (.restartsOnNextCall, old)
        }
        idle?.destroy()
        return outcome
    }

    /// How many times `alias` was reloaded (an isolated plugin restarted): calls made after a reload
    /// go to a new instance while the old one finishes its calls in flight.
    public func generation(of alias: String) -> Int { lock.withLock { reloads[alias] ?? 0 } }

    /// What a kept reply of `alias` depends on besides its request (`serve --http`'s reply cache, ABI 1.7
    /// "cache"): the plugin's reloads, its runner's generation (an isolated plugin's runner restarted or dead —
    /// killed while idle, crashed in a cached read — has lost its memory: IsolatedPlugin.generation), the calls of
    /// its commands that are not cached reads ended in this process since the host started, and its database's data
    /// version (any commit by any connection or process moves it: DatabaseChangeWatch). A kept reply is answered
    /// only while this is equal to the stamp taken just before the call that made it. nil: not known now (the
    /// database cannot be read this moment): neither answer nor keep. An in-process plugin has no runner: it is
    /// never re-created while the host runs (a reload leaves it as it is, `reload`), so its memory stays.
    public func replyStamp(of alias: String) -> ReplyStamp? {
        let (plugin, counts, instance) = lock.withLock {
            (resolved[alias], (reloads[alias] ?? 0, changeCounts[alias] ?? 0), instances[alias])
        }
        guard case .success(let found)? = plugin else { return nil }
        var runner = 0
        if case .isolated(let isolated)? = instance?.backend { runner = isolated.generation }
        var version: Int64 = -1
        if found.entry.isGranted(.storage) {
            guard let v = databaseWatch.version(of: storage.databasePath(site: site.name, pluginID: found.info.id)) else { return nil }
            version = v
        }
        return ReplyStamp(reloads: counts.0, calls: counts.1, dataVersion: version, runner: runner)
    }

    /// Aliases resolved from the install tree or under a lock whose install folder or lock file
    /// changed since (a version installed or removed, the lock rewritten).
    public func changedSinceResolution() -> [String] {
        let known = lock.withLock { signatures }
        return site.plugins.compactMap { entry in
            guard let before = known[entry.alias], watchSignature(entry) != before else { return nil }
            return entry.alias
        }
    }

    /// Marks `alias` as seen at its current signature (an in-process plugin told to restart once).
    public func acknowledgeChange(_ alias: String) {
        guard let entry = site.plugin(alias: alias) else { return }
        let signature = watchSignature(entry)
        lock.withLock { signatures[alias] = signature }
    }

    public func encodeRequestForBenchmark(_ arguments: JSONObject) -> [UInt8] { encodeRequest(arguments) }
    public static func outcomeForBenchmark(_ reply: [UInt8]) -> CallOutcome { outcome(status: 0, reply: reply, alias: "a", command: "c") }

    /// `{"arguments":{…},"cwd":"…"}` (entry.h).
    func encodeRequest(_ arguments: JSONObject) -> [UInt8] {
        if arguments.isEmpty { return emptyRequest }
        var request = SiteRuntime.requestHead
        request.reserveCapacity(requestTail.count + 64)
        JSONWriter.appendCompact(.object(arguments), to: &request)
        request.append(contentsOf: requestTail)
        return request
    }

    /// Reads a plugin's reply into an outcome (a reply that is not the documented JSON is a failure).
    static func outcome(status: Int32, reply: [UInt8], alias: String, command: String) -> CallOutcome {
        let s = Status(code: status)
        guard s == .ok else {
            var message = String(decoding: reply, as: UTF8.self)
            if message.isEmpty { message = "\(alias) \(command) failed (\(s.name)) without a message" }
            if let newline = message.firstIndex(of: "\n") { message = String(message[..<newline]) }
            return .failure(s, message)
        }
        // A reply without data or text (a command that only acts) needs no parsing.
        if reply == SiteRuntime.nullReply {
            return CallOutcome(status: .ok, data: .null, text: nil, message: "", background: nil)
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes: reply)
        } catch {
            return .failure(.pluginFailed, "plugin '\(alias)' returned a malformed reply to '\(command)': \(error)")
        }
        guard let object = parsed.objectValue else {
            return .failure(.pluginFailed, "plugin '\(alias)' returned \(parsed.kindName) to '\(command)', not {\"data\": …}")
        }
        // One pass over the members (the reply has at most three).
        var data: JSONValue = .null
        var text: String?
        var background: (String, JSONObject)?
        for member in object {
            switch member.key {
            case "data": data = member.value
            case "text": text = member.value.stringValue
            case "background":
                if let b = member.value.objectValue, let c = b["command"]?.stringValue {
                    background = (c, b["arguments"]?.objectValue ?? JSONObject())
                }
            default: break
            }
        }
        return CallOutcome(status: .ok, data: data, text: text, message: "", background: background)
    }

    /// A plugin calling another plugin's command (the invoke service, in process or from a runner):
    /// the router checks the grant, the command and the arguments exactly as for any other caller.
    func invokeFromPlugin(caller: PluginInstance, call: CallContext, alias: String, command: String,
                          request: [UInt8]) -> (status: Int32, reply: [UInt8]) {
        func refuse(_ status: Status, _ message: String) -> (Int32, [UInt8]) { (status.rawValue, Array(message.utf8)) }
        if let (status, message) = ServiceGate.refusal(.invoke, call: call) {
            return (status, Array("plugin '\(caller.entry.alias)' may not call '\(alias)' now: \(message)".utf8))
        }
        if call.passedThrough(alias) {
            return refuse(.denied, "plugin '\(caller.entry.alias)' may not call '\(alias)': '\(alias)' is already running this call "
                    + "(\(call.chain.joined(separator: " → ")))")
        }
        let given: JSONObject
        do {
            let parsed = try JSONParser.parse(bytes: request)
            if let a = parsed["arguments"], a.objectValue == nil, !a.isNull {
                return refuse(.invalidArgument, "malformed request to \(alias) \(command): \"arguments\" must be an object")
            }
            given = parsed["arguments"]?.objectValue ?? JSONObject()
        } catch {
            return refuse(.invalidArgument, "malformed request to \(alias) \(command): \(error)")
        }
        let prepared: PreparedCall
        switch router.prepare(alias: alias, .json(command: command, arguments: given), origin: .plugin(caller: caller.entry.alias)) {
        case .success(let p): prepared = p
        case .failure(let e): return refuse(e.status, e.message)
        }
        let nested = router.context(for: prepared, flags: call.flags, progress: call.progress, parent: call)
        return router.runRaw(prepared, context: nested)
    }
}

extension ResolvedPlugin {
    /// What the plugin can reach, in one line, for `plugins info` (SECURITY.md has the details).
    public var reach: String {
        switch effectiveIsolation {
        case .sandbox:
            let ports = SiteRuntime.grantedPorts(entry)
            let network = ports.isEmpty ? "no network" : "TCP connect to port\(ports.count == 1 ? "" : "s") "
                    + "\(ports.map(String.init).joined(separator: ", ")) (any host)"
            return "confined by the kernel: the host's services by grant; files only as the path arguments of each call "
                   + "(clubhouse.files/1; read-only libraries); \(network); no programs, no child processes"
        case .inProcess, .process, .auto:
            return isolated
                ? "everything this user can, in a child process (crash isolation, not confinement)"
                : "everything this user can, inside the host (trusted code)"
        }
    }
}

/// What a kept reply was made under (SiteRuntime.replyStamp): equal stamps, nothing it depends on changed.
public struct ReplyStamp: Sendable, Equatable {
    public var reloads: Int
    public var calls: Int
    public var dataVersion: Int64
    /// The isolated plugin's runner generation (IsolatedPlugin.generation); 0 in process.
    public var runner: Int

    public init(reloads: Int, calls: Int, dataVersion: Int64, runner: Int = 0) {
        self.reloads = reloads
        self.calls = calls
        self.dataVersion = dataVersion
        self.runner = runner
    }
}
