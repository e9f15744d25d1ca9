// Reads plugins.json into a SiteConfiguration, reporting every problem with file:line:column:
// malformed JSON, unknown keys (with a suggestion), wrong types, unknown grants, bad versions.

import ClubhouseJSON
import ClubhouseLoader

public enum ConfigurationParser {
    static let topKeys = ["$schema", "version", "default_site", "plugin_dirs", "data_dir", "sites", "publishers"]
    static let siteKeys = ["description", "plugins", "devices", "http", "publishers", "require_signatures", "federation"]
    static let httpKeys = ["allowed_origins", "public_routes", "mount"]
    static let pluginKeys = ["id", "enabled", "path", "version", "config", "grants", "isolation", "timeout_ms", "limits",
                             "description", "require_signatures"]
    static let limitKeys = ["memory_mb", "cpu_seconds", "wall_ms", "open_files", "open_statements", "statement_mb", "sql_kb",
                            "bind_mb", "reply_mb", "log_kb", "progress_kb", "open_devices", "restart_backoff_ms"]
    static let deviceKeys = ["transport", "baud", "parity", "data_bits", "stop_bits", "trace", "connect_timeout_ms", "options",
                             "description"]

    /// Parses `text`. Throws every problem found (at least one), in file order.
    public static func parse(_ text: String, source: String, baseDirectory: String?) throws(ConfigurationErrors)
        -> SiteConfiguration
    {
        try parse(text, source: source, baseDirectory: baseDirectory, document: { () throws(JSONParseError) in
            try JSONParser.parseDocument(text)
        })
    }

    /// Parses `text` for one site: `site`, or the file's `default_site` when nil. The other sites are scanned
    /// (well-formed JSON, their names checked and listed in `siteOrder`) but not read: `sites` holds the one
    /// site, and a problem inside another one is not found. Only for a text whose every site is known to be
    /// right — the embedded copy, which `ConfigurationParserTests.testTheBundledFileParses` reads whole — so
    /// that a command on one site does not read four. Without `site`, and without a `default_site` string
    /// before `"sites"`, the whole text is read.
    public static func parse(_ text: String, source: String, baseDirectory: String?, onlySite site: String?)
        throws(ConfigurationErrors) -> SiteConfiguration
    {
        try parse(text, source: source, baseDirectory: baseDirectory, document: { () throws(JSONParseError) in
            try JSONParser.parseDocument(text, skippingMembersOf: "/sites",
                                         except: site.map { .named($0) } ?? .namedByRootMember("default_site"))
        })
    }

    private static func parse(_ text: String, source: String, baseDirectory: String?,
                              document read: () throws(JSONParseError) -> JSONDocument) throws(ConfigurationErrors)
        -> SiteConfiguration
    {
        let document: JSONDocument
        do {
            document = try read()
        } catch {
            throw ConfigurationErrors(errors: [ConfigurationError(file: source, location: error.location, message: error.message)])
        }
        var reader = Reader(document: document, source: source)
        let configuration = reader.readConfiguration(baseDirectory: baseDirectory)
        if !reader.errors.isEmpty {
            throw ConfigurationErrors(errors: reader.errors.sorted { ($0.location?.offset ?? 0) < ($1.location?.offset ?? 0) })
        }
        return configuration
    }
}

/// Internal (not private) so the federation block is read in its own file (FederationConfiguration.swift).
struct Reader {
    let document: JSONDocument
    let source: String
    var errors: [ConfigurationError] = []
    /// The top-level "publishers", which every site trusts.
    var topPublishers: [String: [UInt8]] = [:]

    init(document: JSONDocument, source: String) {
        self.document = document
        self.source = source
    }

    mutating func error(_ pointer: String, _ message: String) {
        errors.append(ConfigurationError(file: source, location: document.location(of: pointer), message: message))
    }

    mutating func keyError(_ pointer: String, _ message: String) {
        errors.append(ConfigurationError(file: source, location: document.keyLocation(of: pointer), message: message))
    }

    func pointer(_ parent: String, _ key: String) -> String { parent + "/" + JSONDocument.escapePointerToken(key) }

    mutating func checkKeys(_ object: JSONObject, at path: String, known: [String], what: String) {
        for key in object.keys where !known.contains(key) {
            var message = "unknown key '\(key)' in \(what)"
            if let suggestion = closest(key, among: known) { message += "; did you mean '\(suggestion)'?" }
            else { message += " (known keys: \(known.joined(separator: ", ")))" }
            keyError(pointer(path, key), message)
        }
    }

    mutating func object(_ value: JSONValue?, at path: String, what: String) -> JSONObject? {
        guard let value else { return nil }
        guard let o = value.objectValue else {
            error(path, "\(what) must be an object, not \(value.kindName)")
            return nil
        }
        return o
    }

    mutating func string(_ value: JSONValue?, at path: String, what: String) -> String? {
        guard let value else { return nil }
        guard let s = value.stringValue else {
            error(path, "\(what) must be a string, not \(value.kindName)")
            return nil
        }
        return s
    }

    mutating func bool(_ value: JSONValue?, at path: String, what: String) -> Bool? {
        guard let value else { return nil }
        guard let b = value.boolValue else {
            error(path, "\(what) must be true or false, not \(value.kindName)")
            return nil
        }
        return b
    }

    mutating func int(_ value: JSONValue?, at path: String, what: String, range: ClosedRange<Int>) -> Int? {
        guard let value else { return nil }
        guard let n = value.numberValue, n.isInteger, let i = n.int else {
            error(path, "\(what) must be an integer, not \(value.kindName)")
            return nil
        }
        guard range.contains(i) else {
            error(path, "\(what) must be between \(range.lowerBound) and \(range.upperBound), not \(i)")
            return nil
        }
        return i
    }

    mutating func stringArray(_ value: JSONValue?, at path: String, what: String) -> [String]? {
        guard let value else { return nil }
        guard let a = value.arrayValue else {
            error(path, "\(what) must be an array of strings, not \(value.kindName)")
            return nil
        }
        var out: [String] = []
        for (i, element) in a.enumerated() {
            if let s = string(element, at: path + "/\(i)", what: "each entry of \(what)") { out.append(s) }
        }
        return out
    }

    mutating func readConfiguration(baseDirectory: String?) -> SiteConfiguration {
        var configuration = SiteConfiguration(source: source, baseDirectory: baseDirectory, defaultSite: "default",
                                              pluginDirectories: [], dataDirectory: nil, sites: [:], siteOrder: [])
        guard let root = object(document.value, at: "", what: "the configuration") else { return configuration }
        checkKeys(root, at: "", known: ConfigurationParser.topKeys, what: "the configuration")
        if let v = root["version"], int(v, at: "/version", what: "\"version\"", range: 1...1) == nil { _ = v }
        if let dirs = stringArray(root["plugin_dirs"], at: "/plugin_dirs", what: "\"plugin_dirs\"") {
            configuration.pluginDirectories = dirs
        }
        configuration.dataDirectory = string(root["data_dir"], at: "/data_dir", what: "\"data_dir\"")
        configuration.publishers = readPublishers(root["publishers"], at: "/publishers")
        topPublishers = configuration.publishers
        guard let sites = object(root["sites"], at: "/sites", what: "\"sites\"") else {
            if root["sites"] == nil { error("", "the configuration has no \"sites\" object; add {\"sites\": {\"default\": {\"plugins\": {}}}}") }
            return configuration
        }
        if sites.isEmpty { error("/sites", "\"sites\" is empty; define at least one site") }
        let skipped = document.skippedMembers
        for (name, value) in sites {
            let path = pointer("/sites", name)
            // A site name is a folder of the data directory: `..` or `a/b` would put databases elsewhere.
            let problem = Names.nameProblem(name, what: "site name")
            if let problem { keyError(path, "\(problem); it names the site's folder in the data directory") }
            // Scanned, not read (ConfigurationParser.parse(_:source:baseDirectory:onlySite:)): named, never kept.
            if !skipped.isEmpty, skipped.contains(name) {
                if problem == nil { configuration.siteOrder.append(name) }
                continue
            }
            guard let siteObject = object(value, at: path, what: "site '\(name)'") else { continue }
            // Read all the same, so every problem inside it is reported too; never kept.
            guard problem == nil else {
                _ = readSite(name: name, siteObject, at: path)
                continue
            }
            configuration.sites[name] = readSite(name: name, siteObject, at: path)
            configuration.siteOrder.append(name)
        }
        if let d = string(root["default_site"], at: "/default_site", what: "\"default_site\"") {
            configuration.defaultSite = d
            if let problem = Names.nameProblem(d, what: "default_site") {
                error("/default_site", problem)
            } else if !configuration.siteOrder.contains(d) && !sites.isEmpty {
                error("/default_site", "default_site '\(d)' is not one of the sites (\(configuration.siteOrder.joined(separator: ", ")))")
            }
        } else if configuration.sites["default"] == nil, let first = configuration.siteOrder.first {
            configuration.defaultSite = first
        }
        return configuration
    }

    mutating func readSite(name: String, _ site: JSONObject, at path: String) -> Site {
        checkKeys(site, at: path, known: ConfigurationParser.siteKeys, what: "site '\(name)'")
        var result = Site(name: name, description: string(site["description"], at: pointer(path, "description"),
                                                          what: "\"description\"") ?? "",
                          plugins: [], devices: [:])
        if let devices = object(site["devices"], at: pointer(path, "devices"), what: "\"devices\"") {
            for (deviceName, value) in devices {
                let p = pointer(pointer(path, "devices"), deviceName)
                guard let d = object(value, at: p, what: "device '\(deviceName)'") else { continue }
                if let device = readDevice(name: deviceName, d, at: p) { result.devices[deviceName] = device }
            }
        }
        readSignaturePolicy(site, at: path, into: &result)
        if let plugins = object(site["plugins"], at: pointer(path, "plugins"), what: "\"plugins\"") {
            for (alias, value) in plugins {
                let p = pointer(pointer(path, "plugins"), alias)
                if let problem = Names.nameProblem(alias, what: "plugin name") {
                    keyError(p, "\(problem); it is typed on the command line")
                    continue
                }
                guard let entry = object(value, at: p, what: "plugin '\(alias)'") else { continue }
                if var plugin = readPlugin(alias: alias, site: name, entry, at: p, devices: result.devices) {
                    plugin.requireSignatures = readPluginSignaturePolicy(entry, at: p, site: result)
                    result.plugins.append(plugin)
                }
            }
        } else if site["plugins"] == nil {
            error(path, "site '\(name)' has no \"plugins\" object")
        }
        if let http = object(site["http"], at: pointer(path, "http"), what: "\"http\"") {
            result.http = readHTTP(http, at: pointer(path, "http"), site: result)
        }
        if let federation = object(site["federation"], at: pointer(path, "federation"), what: "\"federation\"") {
            result.federation = readFederation(federation, at: pointer(path, "federation"), site: name)
        }
        return result
    }

    /// `"http": {"allowed_origins": ["https://app.example.org"], "public_routes": false, "mount": {"putting": "/"}}`
    /// (read after the plugins: a mount names one).
    mutating func readHTTP(_ o: JSONObject, at path: String, site: Site) -> SiteHTTP {
        checkKeys(o, at: path, known: ConfigurationParser.httpKeys, what: "\"http\" of site '\(site.name)'")
        var http = SiteHTTP()
        http.publicRoutes = bool(o["public_routes"], at: pointer(path, "public_routes"), what: "\"public_routes\"") ?? false
        let at = pointer(path, "allowed_origins")
        let origins = o["allowed_origins"]
        if origins != nil && origins?.arrayValue == nil { _ = stringArray(origins, at: at, what: "\"allowed_origins\"") }
        for (i, value) in (origins?.arrayValue ?? []).enumerated() {
            guard let origin = string(value, at: at + "/\(i)", what: "each entry of \"allowed_origins\"") else { continue }
            if origin == "*" {
                error(at + "/\(i)", "\"*\" is not allowed in \"allowed_origins\": list each origin whose pages may call the site, eg: \"https://app.example.org\"")
            } else if let normalized = OriginPolicy.normalized(origin) {
                if !http.allowedOrigins.contains(normalized) { http.allowedOrigins.append(normalized) }
            } else {
                error(at + "/\(i)", "origin '\(origin)' must be a scheme and host with an optional port and nothing after, eg: \"https://app.example.org\" or \"http://localhost:5173\"")
            }
        }
        let aliases = site.plugins.map(\.alias)
        if let mounts = object(o["mount"], at: pointer(path, "mount"), what: "\"mount\"") {
            for (alias, value) in mounts {
                let p = pointer(pointer(path, "mount"), alias)
                guard let prefix = string(value, at: p, what: "the mount point of '\(alias)'") else { continue }
                guard site.plugin(alias: alias) != nil else {
                    var message = "\"mount\" names plugin '\(alias)', which site '\(site.name)' does not have"
                    if let s = closest(alias, among: aliases) { message += "; did you mean '\(s)'?" }
                    error(p, message + " (its plugins: \(aliases.joined(separator: ", ")))")
                    continue
                }
                if let problem = SiteHTTP.mountProblem(prefix) {
                    error(p, "mount point '\(prefix)' of '\(alias)': \(problem)")
                    continue
                }
                // Two plugins may share a mount point; their routes must not collide (SiteRoutes checks).
                http.mounts.append(SiteHTTP.Mount(alias: alias, prefix: prefix))
            }
        }
        return http
    }

    /// "publishers": {"NAME": "ed25519:BASE64"} (grammar: PublisherNames.swift).
    mutating func readPublishers(_ value: JSONValue?, at path: String) -> [String: [UInt8]] {
        guard let o = object(value, at: path, what: "\"publishers\"") else { return [:] }
        var keys: [String: [UInt8]] = [:]
        for (name, v) in o {
            let p = pointer(path, name)
            if let problem = PublisherNames.problem(name) { keyError(p, problem); continue }
            guard let text = string(v, at: p, what: "publisher '\(name)'") else { continue }
            switch PublisherNames.key(text) {
            case .success(let key): keys[name] = key
            case .failure(let e): error(p, "publisher '\(name)': \(e.message)")
            }
        }
        return keys
    }

    /// A site's "publishers" (added to the top-level ones) and "require_signatures".
    mutating func readSignaturePolicy(_ site: JSONObject, at path: String, into result: inout Site) {
        result.publishers = topPublishers
        for (name, key) in readPublishers(site["publishers"], at: pointer(path, "publishers")) { result.publishers[name] = key }
        let at = pointer(path, "require_signatures")
        result.requireSignatures = bool(site["require_signatures"], at: at, what: "\"require_signatures\"") ?? false
        if result.requireSignatures && result.publishers.isEmpty {
            error(at, "site '\(result.name)' requires signatures but trusts no publisher; add \"publishers\": {\"NAME\": \"ed25519:…\"} (the key clubhouse plugin keygen printed) to the site or the top level")
        }
    }

    /// A plugin's "require_signatures" (nil: the site's).
    mutating func readPluginSignaturePolicy(_ o: JSONObject, at path: String, site: Site) -> Bool? {
        let at = pointer(path, "require_signatures")
        guard let value = bool(o["require_signatures"], at: at, what: "\"require_signatures\"") else { return nil }
        if value && site.publishers.isEmpty {
            error(at, "plugin requires signatures but site '\(site.name)' trusts no publisher; add \"publishers\": {\"NAME\": \"ed25519:…\"} to the site or the top level")
        }
        return value
    }

    mutating func readPlugin(alias: String, site: String, _ o: JSONObject, at path: String,
                             devices: [String: DeviceEntry]) -> PluginEntry? {
        checkKeys(o, at: path, known: ConfigurationParser.pluginKeys, what: "plugin '\(alias)' of site '\(site)'")
        var id = string(o["id"], at: pointer(path, "id"), what: "\"id\"")
        if let given = id, let problem = Names.idProblem(given) {
            error(pointer(path, "id"), "\(problem); the id names the plugin's database file")
            id = nil
        }
        let pluginPath = string(o["path"], at: pointer(path, "path"), what: "\"path\"")
        if id == nil && pluginPath == nil && o["id"] == nil && o["path"] == nil {
            error(path, "plugin '\(alias)' needs an \"id\" (found in the plugin directories) or a \"path\" to its .so file")
        }
        var requirement: VersionRequirement?
        if let text = string(o["version"], at: pointer(path, "version"), what: "\"version\"") {
            requirement = VersionRequirement(text)
            if requirement == nil {
                error(pointer(path, "version"),
                      "version requirement '\(text)' is not valid; write eg: \">=1.0.0\", \"^1.2\", \">=1.0.0 <2.0.0\"")
            }
        }
        var grants: [Grant] = []
        if let texts = stringArray(o["grants"], at: pointer(path, "grants"), what: "\"grants\"") {
            for (i, text) in texts.enumerated() {
                guard let grant = Grant(text) else {
                    if text.hasPrefix("net:") {
                        error(pointer(path, "grants") + "/\(i)",
                              "grant '\(text)' needs HOST:PORT with a port from 1 to 65535, eg: \"net:127.0.0.1:5432\"")
                        continue
                    }
                    error(pointer(path, "grants") + "/\(i)",
                          "unknown grant '\(text)'; grants are \"storage\", \"device:NAME\", \"invoke:PLUGIN\" (or \"invoke:*\") and \"net:HOST:PORT\"")
                    continue
                }
                if case .device(let d) = grant, devices[d] == nil {
                    error(pointer(path, "grants") + "/\(i)",
                          "grant '\(text)' names a device this site does not define ("
                          + (devices.isEmpty ? "it defines none" : "it defines \(devices.keys.sorted().joined(separator: ", "))")
                          + "); add it under \"devices\" or fix the grant")
                }
                grants.append(grant)
            }
        }
        var isolation = Isolation.auto
        if let text = string(o["isolation"], at: pointer(path, "isolation"), what: "\"isolation\"") {
            if let i = Isolation(rawValue: text) { isolation = i } else {
                error(pointer(path, "isolation"), "isolation '\(text)' must be \"auto\", \"in-process\", \"process\" or \"sandbox\"")
            }
        }
        var limits = PluginLimits()
        if let l = o["limits"].flatMap({ object($0, at: pointer(path, "limits"), what: "\"limits\"") }) {
            let at = pointer(path, "limits")
            checkKeys(l, at: at, known: ConfigurationParser.limitKeys, what: "\"limits\" of plugin '\(alias)'")
            func limit(_ key: String, _ range: ClosedRange<Int>, _ fallback: Int) -> Int {
                int(l[key], at: pointer(at, key), what: "\"\(key)\"", range: range) ?? fallback
            }
            limits = PluginLimits(memoryMegabytes: limit("memory_mb", PluginLimits.memoryRange, limits.memoryMegabytes),
                                  cpuSeconds: limit("cpu_seconds", PluginLimits.cpuRange, limits.cpuSeconds),
                                  wallMilliseconds: limit("wall_ms", PluginLimits.wallRange, limits.wallMilliseconds),
                                  openFiles: limit("open_files", PluginLimits.openFilesRange, limits.openFiles))
            limits.openStatements = limit("open_statements", PluginLimits.openStatementsRange, limits.openStatements)
            limits.statementMegabytes = limit("statement_mb", PluginLimits.statementRange, limits.statementMegabytes)
            limits.sqlKilobytes = limit("sql_kb", PluginLimits.sqlRange, limits.sqlKilobytes)
            limits.bindMegabytes = limit("bind_mb", PluginLimits.bindRange, limits.bindMegabytes)
            limits.replyMegabytes = limit("reply_mb", PluginLimits.replyRange, limits.replyMegabytes)
            limits.logKilobytes = limit("log_kb", PluginLimits.logRange, limits.logKilobytes)
            limits.progressKilobytes = limit("progress_kb", PluginLimits.progressRange, limits.progressKilobytes)
            limits.openDevices = limit("open_devices", PluginLimits.openDevicesRange, limits.openDevices)
            limits.restartBackoffMilliseconds = limit("restart_backoff_ms", PluginLimits.restartBackoffRange, limits.restartBackoffMilliseconds)
        }
        let config = o["config"] ?? .object(JSONObject())
        if config.objectValue == nil { error(pointer(path, "config"), "\"config\" must be an object, not \(config.kindName)") }
        return PluginEntry(
            alias: alias, id: id,
            enabled: bool(o["enabled"], at: pointer(path, "enabled"), what: "\"enabled\"") ?? true,
            path: pluginPath, versionRequirement: requirement, config: config, grants: grants, isolation: isolation,
            timeoutMilliseconds: int(o["timeout_ms"], at: pointer(path, "timeout_ms"), what: "\"timeout_ms\"",
                                     range: 1...86_400_000) ?? 60_000,
            limits: limits, location: document.location(of: path))
    }

    mutating func readDevice(name: String, _ o: JSONObject, at path: String) -> DeviceEntry? {
        checkKeys(o, at: path, known: ConfigurationParser.deviceKeys, what: "device '\(name)'")
        guard let text = string(o["transport"], at: pointer(path, "transport"), what: "\"transport\"") else {
            if o["transport"] == nil {
                error(path, "device '\(name)' needs a \"transport\": \"serial:/dev/ttyUSB0\", \"tcp:HOST:PORT\", \"unix:/path\" or \"simulator:ballmachine\"")
            }
            return nil
        }
        let options = o["options"].flatMap { object($0, at: pointer(path, "options"), what: "\"options\"") } ?? JSONObject()
        let trace = bool(o["trace"], at: pointer(path, "trace"), what: "\"trace\"") ?? false
        let connectTimeout = int(o["connect_timeout_ms"], at: pointer(path, "connect_timeout_ms"),
                                 what: "\"connect_timeout_ms\"", range: 1...600_000) ?? 3000
        let transportPath = pointer(path, "transport")
        guard let transport = parseTransport(text, o, at: path, transportPath: transportPath) else { return nil }
        return DeviceEntry(name: name, transport: transport, trace: trace, connectTimeoutMilliseconds: connectTimeout,
                           options: options)
    }

    mutating func parseTransport(_ text: String, _ o: JSONObject, at path: String, transportPath: String)
        -> DeviceEntry.Transport?
    {
        switch DeviceAddress.parse(text) {
        case .failure(let message):
            error(transportPath, message.description)
            return nil
        case .success(let address):
            switch address {
            case .serial(let port):
                let baud = int(o["baud"], at: pointer(path, "baud"), what: "\"baud\"", range: 50...4_000_000) ?? 9600
                var parity = DeviceEntry.Parity.none
                if let p = string(o["parity"], at: pointer(path, "parity"), what: "\"parity\"") {
                    if let v = DeviceEntry.Parity(rawValue: p) { parity = v } else {
                        error(pointer(path, "parity"), "parity '\(p)' must be \"none\", \"even\" or \"odd\"")
                    }
                }
                let dataBits = int(o["data_bits"], at: pointer(path, "data_bits"), what: "\"data_bits\"", range: 5...8) ?? 8
                let stopBits = int(o["stop_bits"], at: pointer(path, "stop_bits"), what: "\"stop_bits\"", range: 1...2) ?? 1
                if !SerialSpeed.isSupported(baud) {
                    error(pointer(path, "baud"), "baud \(baud) is not a standard rate (eg: 9600, 19200, 38400, 57600, 115200)")
                }
                return .serial(port: port, baud: baud, parity: parity, dataBits: dataBits, stopBits: stopBits)
            case .tcp(let host, let port): return .tcp(host: host, port: port)
            case .unix(let p): return .unix(path: p)
            case .simulator(let kind): return .simulator(kind: kind)
            }
        }
    }
}

/// Where a device is: "serial:/dev/ttyUSB0", "tcp:127.0.0.1:9000", "unix:/run/x.sock", "simulator:ballmachine".
public enum DeviceAddress: Sendable, Equatable, CustomStringConvertible {
    case serial(String)
    case tcp(host: String, port: Int)
    case unix(String)
    case simulator(String)

    public static let simulators = ["ballmachine"]

    /// - Parameter listening: port 0 is allowed (the system picks a free port).
    public static func parse(_ text: String, listening: Bool = false) -> Result<DeviceAddress, AddressError> {
        let usage = "write \"serial:/dev/ttyUSB0\", \"tcp:HOST:PORT\", \"unix:/path/to.sock\" or \"simulator:ballmachine\""
        guard let colon = text.firstIndex(of: ":") else {
            return .failure(AddressError("transport '\(text)' has no scheme; \(usage)"))
        }
        let scheme = text[..<colon]
        let rest = String(text[text.index(after: colon)...])
        switch scheme {
        case "serial":
            guard rest.hasPrefix("/") else { return .failure(AddressError("serial transport needs an absolute device path, eg: serial:/dev/ttyUSB0")) }
            return .success(.serial(rest))
        case "tcp":
            guard let last = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: last)...]),
                  ((listening ? 0 : 1)...65535).contains(port),
                  !rest[..<last].isEmpty
            else { return .failure(AddressError("tcp transport '\(text)' needs HOST:PORT with a port 1-65535, eg: tcp:127.0.0.1:9000")) }
            var host = String(rest[..<last])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return .success(.tcp(host: host, port: port))
        case "unix":
            guard !rest.isEmpty else { return .failure(AddressError("unix transport needs a socket path, eg: unix:/tmp/ballmachine.sock")) }
            return .success(.unix(rest))
        case "simulator":
            guard simulators.contains(rest) else {
                return .failure(AddressError("unknown simulator '\(rest)'; available: \(simulators.joined(separator: ", "))"))
            }
            return .success(.simulator(rest))
        default:
            return .failure(AddressError("unknown transport '\(scheme)'; \(usage)"))
        }
    }

    public var description: String {
        switch self {
        case .serial(let p): return "serial:\(p)"
        case .tcp(let h, let p): return h.contains(":") ? "tcp:[\(h)]:\(p)" : "tcp:\(h):\(p)"
        case .unix(let p): return "unix:\(p)"
        case .simulator(let k): return "simulator:\(k)"
        }
    }

    public struct AddressError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }
}

/// The closest candidate within edit distance 2 (for "did you mean").
func closest(_ word: String, among candidates: [String]) -> String? {
    var best: (String, Int)?
    for c in candidates {
        let d = editDistance(Array(word.lowercased()), Array(c.lowercased()))
        if d <= 2 && d < (best?.1 ?? Int.max) { best = (c, d) }
    }
    return best?.0
}

func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
