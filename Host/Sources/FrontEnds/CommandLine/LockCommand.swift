// `clubhouse lock`: resolves every site's enabled plugins as they load today (the highest version
// satisfying each requirement, ignoring any old lock) and writes plugins.lock (see
// Loader/PluginLock.swift). With --site (or CLUBHOUSE_SITE) only that site is re-locked and the
// others keep their pins. `--check` writes nothing and fails when the lock is missing or stale.
// Nothing is written when any plugin fails to load.

import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON

enum LockCommand {
    static func lockPath(_ options: GlobalOptions) throws(CLIError) -> (configuration: SiteConfiguration, dataDirectory: String, path: String) {
        let configuration = try options.loadConfiguration()
        let dataDirectory = options.resolveDataDirectory(configuration)
        return (configuration, dataDirectory, PluginLock.path(configuration: configuration, dataDirectory: dataDirectory))
    }

    /// The lock at `path`, nil when there is none; a damaged lock is a one-line error.
    static func existing(_ path: String) throws(CLIError) -> PluginLock? {
        do { return try PluginLock.load(path) } catch { throw CLIError(status: .error, message: error.message) }
    }

    /// What `site` loads now, alias → pin (nothing cached: a fresh runtime that ignores the lock).
    static func resolveSite(_ site: Site, _ configuration: SiteConfiguration, dataDirectory: String, log: LogBroker,
                            problems: inout [String]) -> [String: LockedPlugin] {
        let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: log, enforcesLock: false)
        defer { runtime.shutdown() }
        runtime.resolveAll()
        var pins: [String: LockedPlugin] = [:]
        for entry in site.plugins where entry.enabled {
            switch runtime.resolve(entry.alias) {
            case .success(let plugin):
                switch LibraryDigest.sha256(plugin.path) {
                case .success(let sha): pins[entry.alias] = LockedPlugin(id: plugin.info.id, version: plugin.info.version, sha256: sha)
                case .failure(let e): problems.append("site '\(site.name)': \(plugin.path): cannot read the library (\(e.reason))")
                }
            case .failure(let e):
                problems.append("site '\(site.name)': \(e.message)")
            }
        }
        return pins
    }

    static func lock(check: Bool, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (configuration, dataDirectory, path) = try lockPath(options)
        let old = try existing(path)
        var siteNames = configuration.siteOrder
        if let only = options.site {
            guard configuration.sites[only] != nil else {
                throw CLIError(status: .invalidArgument, message: "no site '\(only)'; sites are: \(configuration.siteOrder.joined(separator: ", "))")
            }
            siteNames = [only]
        }
        let log = LogBroker(verbosity: options.verbosity, color: false)
        var lock = PluginLock(path: path, sites: old?.sites ?? [:])
        // Sites no longer in the configuration lose their pins.
        for name in lock.sites.keys where configuration.sites[name] == nil { lock.sites[name] = nil }
        var problems: [String] = []
        for name in siteNames {
            guard let site = configuration.sites[name] else { continue }
            lock.sites[name] = resolveSite(site, configuration, dataDirectory: dataDirectory, log: log, problems: &problems)
        }
        if let first = problems.first {
            let more = problems.count > 1 ? " (and \(problems.count - 1) more)" : ""
            throw CLIError(status: .error, message: "\(first)\(more); \(path) was not written")
        }
        var rows: [JSONValue] = []
        var table: [[String]] = [["SITE", "PLUGIN", "ID", "VERSION", "SHA256"]]
        for site in lock.sites.keys.sorted() {
            for (alias, p) in (lock.sites[site] ?? [:]).sorted(by: { $0.key < $1.key }) {
                rows.append(["site": .string(site), "plugin": .string(alias), "id": .string(p.id), "version": .string(p.version), "sha256": .string(p.sha256)])
                table.append([site, alias, p.id, p.version, String(p.sha256.prefix(12))])
            }
        }
        if check {
            let current = (try? FileSystem.read(path)).map { String(decoding: $0, as: UTF8.self) }
            guard let current else {
                throw CLIError(status: .error, message: "\(path) does not exist; run clubhouse lock to write it")
            }
            guard current == lock.rendered() else {
                let stale = staleEntries(old: old?.sites ?? [:], new: lock.sites)
                throw CLIError(status: .error, message: "\(path) is out of date (\(stale.isEmpty ? "its text differs" : stale.joined(separator: "; "))); run clubhouse lock to update it")
            }
            BuiltinCommands.output(options, json: ["lock": .string(path), "status": "current", "plugins": .array(rows)],
                                   text: "\(path) is up to date\n")
            return 0
        }
        do { try lock.write() } catch { throw CLIError(status: .error, message: "\(path): cannot write the lock file (\(error.reason))") }
        BuiltinCommands.output(options, json: ["lock": .string(path), "plugins": .array(rows)],
                               text: "Wrote \(path):\n" + BuiltinCommands.formatTable(table, styled: options.stylesOutput()))
        return 0
    }

    /// "site/alias: old → new" for each pin that differs.
    static func staleEntries(old: [String: [String: LockedPlugin]], new: [String: [String: LockedPlugin]]) -> [String] {
        var out: [String] = []
        for site in Set(old.keys).union(new.keys).sorted() {
            let a = old[site] ?? [:], b = new[site] ?? [:]
            for alias in Set(a.keys).union(b.keys).sorted() where a[alias] != b[alias] {
                func show(_ p: LockedPlugin?) -> String { p.map { "\($0.id) \($0.version) \($0.sha256.prefix(12))" } ?? "nothing" }
                out.append("\(site)/\(alias): locked \(show(a[alias])), loads \(show(b[alias]))")
            }
        }
        return out
    }

    /// `plugin remove` refuses a version a lock pins (the lock of the configuration in use).
    static func refuseRemovingPinned(id: String, version: String?, installed: [String], spec: String, _ options: GlobalOptions) throws(CLIError) {
        let (_, _, path) = try lockPath(options)
        guard let lock = try existing(path) else { return }
        for pin in lock.pins(id: id, version: version) where installed.contains(pin.plugin.version) {
            throw CLIError(status: .error, message: "cannot remove \(spec): \(path) pins \(id) \(pin.plugin.version) for site '\(pin.site)' (plugin '\(pin.alias)'); move the site to another version first (change its \"version\", install the other build, run clubhouse lock), then remove")
        }
    }
}
