// plugins.json: which plugins a site runs, where they are, how they are configured and what they
// may touch. Parsed with source locations so every problem is reported as file:line:column.

import ClubhouseJSON
import ClubhouseWire
import ClubhouseLoader

/// The whole configuration file.
public struct SiteConfiguration: Sendable {
    /// Where it came from (a path, or "<embedded plugins.json>").
    public var source: String
    /// Directory that relative paths in the file are resolved against (nil for the embedded copy).
    public var baseDirectory: String?
    public var defaultSite: String
    public var pluginDirectories: [String]
    public var dataDirectory: String?
    public var sites: [String: Site]
    /// Site names in file order.
    public var siteOrder: [String]
    /// Publisher name → Ed25519 public key every site trusts ("publishers" at the top level).
    public var publishers: [String: [UInt8]] = [:]
    /// How a command a message suggests starts, so that it acts on this configuration and data
    /// directory as written: `clubhouse` and the `--config` / `--data-dir` the command line gave
    /// (set by the front end; "clubhouse" for the embedded configuration).
    public var commandPrefix = "clubhouse"

    public func site(named name: String) throws(ConfigurationError) -> Site {
        guard let site = sites[name] else {
            throw ConfigurationError(file: source, location: nil,
                                     message: "no site '\(name)'; sites are: \(siteOrder.joined(separator: ", "))")
        }
        return site
    }
}

/// One site: its plugins (by command-line alias, in file order) and its devices.
public struct Site: Sendable {
    public var name: String
    public var description: String
    public var plugins: [PluginEntry]
    public var devices: [String: DeviceEntry]
    /// What the site allows over HTTP (`http` in plugins.json).
    public var http = SiteHTTP()
    /// Publisher name → Ed25519 public key whose package signatures the site trusts (the top-level
    /// "publishers" and the site's own; a site's entry wins over a top-level one of the same name).
    public var publishers: [String: [UInt8]] = [:]
    /// "require_signatures": installed packages load only when signed by one of `publishers`.
    public var requireSignatures = false
    /// Where the site's outbox records go ("federation"; FederationConfiguration.swift), or nil.
    public var federation: SiteFederation?

    public func plugin(alias: String) -> PluginEntry? { plugins.first { $0.alias == alias } }
}

/// A site's HTTP settings (`serve --http`): the origins whose pages may call it from a browser (CORS, and
/// the Origin check of cookie requests), whether routes its plugins declare public are open to anyone, and
/// where plugins' compatibility routes are mounted.
public struct SiteHTTP: Sendable, Equatable {
    /// Normalized origins (`https://app.example.org`, `http://localhost:5173`); empty: CORS is off.
    public var allowedOrigins: [String] = []
    /// False (the default): every route needs a credential, even one a plugin declares public.
    public var publicRoutes = false
    /// Where a plugin's compatibility routes are served ("/" or "/greenreader"), in file order.
    public var mounts: [Mount] = []

    public struct Mount: Sendable, Equatable {
        public var alias: String
        public var prefix: String
        public init(alias: String, prefix: String) {
            self.alias = alias
            self.prefix = prefix
        }
    }

    public init(allowedOrigins: [String] = [], publicRoutes: Bool = false, mounts: [Mount] = []) {
        self.allowedOrigins = allowedOrigins
        self.publicRoutes = publicRoutes
        self.mounts = mounts
    }

    public func mount(of alias: String) -> String? { mounts.first { $0.alias == alias }?.prefix }

    /// The host's own paths: no mount point lies under them.
    public static let reservedPrefixes = ["/api", "/ui"]

    /// Why `prefix` cannot be a mount point, or nil: "/" or "/a/b" (letters, digits, '-._~'), never
    /// under /api or /ui (the host's own).
    public static func mountProblem(_ prefix: String) -> String? {
        guard prefix.hasPrefix("/") else { return "a mount point starts with '/' (\"/\" for the site's root)" }
        if prefix == "/" { return nil }
        if prefix.hasSuffix("/") { return "a mount point does not end with '/'" }
        switch HTTPRoute.parsePath(prefix) {
        case .failure(let why): return why.message
        case .success(let segments):
            if segments.contains(where: { if case .parameter = $0 { return true } else { return false } }) {
                return "a mount point has no {parameters}"
            }
        }
        if let reserved = reservedPrefixes.first(where: { prefix == $0 || prefix.hasPrefix($0 + "/") }) {
            return "\(reserved)/ belongs to the host (plugins' own routes and panels); choose another path"
        }
        return nil
    }
}

public enum Isolation: String, Sendable, CaseIterable {
    /// In process for trusted plugins (beside the `clubhouse` executable, or in the install tree);
    /// every other plugin (plugin_dirs, CLUBHOUSE_PLUGIN_PATH, an explicit path elsewhere) runs
    /// sandboxed where the kernel has Landlock, in a plain runner ("process") otherwise — with a
    /// warning from `config validate` (SECURITY.md).
    case auto
    case inProcess = "in-process"
    case process
    /// A runner confined by the kernel (Landlock, seccomp, no_new_privs): for untrusted code.
    case sandbox
}

/// What a plugin may use. For an isolated plugin's runner: address space, CPU time and open files
/// (setrlimit in the runner before it loads the plugin), and the wall-clock time of one call (the
/// host counts it). For every plugin, whatever its isolation, what it may make the host hold through
/// its services (ServiceLimits: open statements and their memory, the SQL and bound values of one
/// call, one reply, one log message or progress label, open devices).
public struct PluginLimits: Sendable, Equatable {
    public var memoryMegabytes = 4096
    /// CPU seconds for one runner process (a runner that used them up is stopped and restarted).
    public var cpuSeconds = 3600
    /// Total time of one call, however much the plugin talks meanwhile.
    public var wallMilliseconds = 3_600_000
    public var openFiles = 1024
    /// `open_statements`, `statement_mb`, `sql_kb`, `bind_mb`, `reply_mb`, `log_kb`, `progress_kb`,
    /// `open_devices` (the host's side: ServiceLimits says what each bounds).
    public var openStatements = 256
    public var statementMegabytes = 64
    public var sqlKilobytes = 1024
    public var bindMegabytes = 16
    public var replyMegabytes = 64
    public var logKilobytes = 1024
    public var progressKilobytes = 16
    public var openDevices = 8
    /// `restart_backoff_ms`: the longest pause before restarting an isolated plugin whose runners keep
    /// ending soon after they start (CrashLoop.swift); 0 restarts at once, every time.
    public var restartBackoffMilliseconds = 1000

    static let memoryRange = 16...1_048_576
    static let cpuRange = 1...2_592_000
    static let wallRange = 1...2_592_000_000
    static let openFilesRange = 16...1_048_576
    static let openStatementsRange = 1...65_536
    static let statementRange = 1...4096
    /// SQLite's own bound on a statement's text (CSQLite/shim.h: SQLITE_LIMIT_SQL_LENGTH, 16,000,000 bytes).
    static let sqlRange = 1...15_625
    /// SQLite's own bound on one value (SQLITE_LIMIT_LENGTH, 256,000,000 bytes).
    static let bindRange = 1...244
    static let replyRange = 1...256
    static let logRange = 1...16_384
    /// A runner's progress frame is capped at 64 KiB (Wire.swift).
    static let progressRange = 1...60
    static let openDevicesRange = 1...1024
    static let restartBackoffRange = 0...60_000

    public init() {}

    public init(memoryMegabytes: Int, cpuSeconds: Int, wallMilliseconds: Int, openFiles: Int) {
        self.memoryMegabytes = memoryMegabytes
        self.cpuSeconds = cpuSeconds
        self.wallMilliseconds = wallMilliseconds
        self.openFiles = openFiles
    }
}

/// A plugin as a site configures it.
public struct PluginEntry: Sendable {
    public var alias: String
    public var id: String?
    public var enabled: Bool
    public var path: String?
    public var versionRequirement: VersionRequirement?
    public var config: JSONValue
    public var grants: [Grant]
    public var isolation: Isolation
    /// Per-call timeout for isolated plugins.
    public var timeoutMilliseconds: Int
    /// Resource limits of an isolated plugin's runner (`limits` in plugins.json).
    public var limits = PluginLimits()
    /// Where in the file the entry is (for messages about it).
    public var location: SourceLocation
    /// "require_signatures" for this plugin (nil: the site's).
    public var requireSignatures: Bool?

    /// Whether this plugin must come from a package signed by one of the site's publishers.
    public func requiresSignature(at site: Site) -> Bool { requireSignatures ?? site.requireSignatures }

    public func isGranted(_ grant: Grant) -> Bool {
        grants.contains(grant) || {
            if case .invoke = grant { return grants.contains(.invoke("*")) }
            return false
        }()
    }
}

/// What a site lets a plugin touch.
public enum Grant: Sendable, Hashable, CustomStringConvertible {
    case storage
    case device(String)
    case invoke(String)
    /// TCP connect to HOST:PORT for a sandboxed plugin (Landlock enforces the port; see SECURITY.md).
    case net(host: String, port: Int)

    public init?(_ text: String) {
        if text == "storage" { self = .storage; return }
        if text.hasPrefix("net:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex,
                  let port = Int(rest[rest.index(after: colon)...]), (1...65535).contains(port)
            else { return nil }
            self = .net(host: String(rest[..<colon]), port: port)
            return
        }
        if text.hasPrefix("device:"), text.count > 7 { self = .device(String(text.dropFirst(7))); return }
        if text.hasPrefix("invoke:"), text.count > 7 { self = .invoke(String(text.dropFirst(7))); return }
        return nil
    }

    public var description: String {
        switch self {
        case .storage: return "storage"
        case .device(let d): return "device:\(d)"
        case .invoke(let p): return "invoke:\(p)"
        case .net(let host, let port): return "net:\(host):\(port)"
        }
    }
}

/// A logical device and the transport a site maps it to.
public struct DeviceEntry: Sendable {
    public enum Transport: Sendable, Equatable {
        case serial(port: String, baud: Int, parity: Parity, dataBits: Int, stopBits: Int)
        case tcp(host: String, port: Int)
        case unix(path: String)
        case simulator(kind: String)
    }

    public enum Parity: String, Sendable, CaseIterable { case none, even, odd }

    public var name: String
    public var transport: Transport
    /// Log every byte in hex at trace level.
    public var trace: Bool
    public var connectTimeoutMilliseconds: Int
    /// Options passed to a simulator (eg: checksum, reject_rate, latency_ms).
    public var options: JSONObject
}

/// Every problem found in a configuration file, in file order (at least one).
public struct ConfigurationErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ConfigurationError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// A problem in the configuration, with where it is. Renders as `file:line:column: message`.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation?
    public var message: String

    public var description: String {
        if let location { return "\(file):\(location.line):\(location.column): \(message)" }
        return "\(file): \(message)"
    }
}

extension ServiceLimits {
    /// The limits a site gives a plugin ("limits" in plugins.json), in bytes.
    public init(_ limits: PluginLimits) {
        self.init()
        openStatements = limits.openStatements
        statementBytes = limits.statementMegabytes << 20
        sqlBytes = limits.sqlKilobytes << 10
        bindBytes = limits.bindMegabytes << 20
        replyBytes = limits.replyMegabytes << 20
        logBytes = limits.logKilobytes << 10
        progressBytes = limits.progressKilobytes << 10
        openDevices = limits.openDevices
    }
}
