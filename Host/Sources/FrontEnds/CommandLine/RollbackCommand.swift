// `clubhouse plugin rollback ID --site S`: the site goes back to the plugin's previous version.
// The previous version is the newest one with a database backup older than the version the site
// runs now (or last wrote the database); its newest backup (or the one --backup names) is
// restored, the newer data is first kept as a new backup of its own (never over another), and the
// site is pinned to the older version in plugins.lock with a rollback mark: `clubhouse lock` keeps
// that pin until `--release-pin` (LockCommand.swift). The site's other plugins are pinned as they
// load now when the site was not locked yet.
//
// `clubhouse plugin backups ID --site S` lists every kept copy: version, time, size, why.

import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

enum RollbackCommand {
    static func failure(_ message: String) -> CLIError { CLIError(status: .error, message: message) }

    /// The site (--site or the default) and the plugin entry named `name` (alias or id).
    static func siteAndEntry(_ name: String, _ configuration: SiteConfiguration, _ options: GlobalOptions) throws(CLIError)
        -> (site: Site, entry: PluginEntry?) {
        let siteName = options.site ?? configuration.defaultSite
        guard let site = configuration.sites[siteName] else {
            throw CLIError(status: .invalidArgument, message: "no site '\(siteName)'; sites are: \(configuration.siteOrder.joined(separator: ", ")); choose one with --site")
        }
        return (site, site.plugins.first(where: { $0.id == name || $0.alias == name }))
    }

    static func rollback(_ name: String, backup chosen: String?, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (configuration, dataDirectory, lockPath) = try LockCommand.lockPath(options)
        let (site, found) = try siteAndEntry(name, configuration, options)
        let siteName = site.name
        guard let entry = found else {
            throw CLIError(status: .notFound, message: "site '\(siteName)' has no plugin '\(name)' (clubhouse --site \(siteName) plugins list shows its plugins)")
        }
        let log = LogBroker(verbosity: options.verbosity, color: false)
        // What the site runs now (its lock applied), to know the plugin's id and current version.
        let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: log)
        defer { runtime.shutdown() }
        let running: ResolvedPlugin?
        if case .success(let p) = runtime.resolve(entry.alias) { running = p } else { running = nil }
        guard let id = entry.id ?? running?.info.id else {
            throw failure("plugin '\(entry.alias)' at site '\(siteName)' does not load, so its id is unknown; give it an \"id\" in \(configuration.source)")
        }
        let database = StorageBroker(dataDirectory: dataDirectory).databasePath(site: siteName, pluginID: id)
        let recorded = DatabaseBackups.recordedVersion(database: database).flatMap(SemanticVersion.init)
        let candidates = [recorded, running?.info.semanticVersion].compactMap { $0 }
        guard let current = candidates.max() else {
            throw failure("\(id) at site '\(siteName)' has no version to roll back from: \(database) records none and the plugin does not load")
        }
        let backups = DatabaseBackups.list(database: database)
        let previous: DatabaseBackup
        if let chosen {
            let path = FileSystem.absolute(chosen)
            // A name as plugin backups lists it works from any folder.
            let named = { (b: DatabaseBackup) in !FileSystem.exists(path) && FileSystem.baseName(b.file) == FileSystem.baseName(path) }
            guard let b = backups.first(where: { $0.file == path || named($0) }) else {
                throw CLIError(status: .notFound, message: "--backup \(chosen) is not a backup of \(id) at site '\(siteName)' (\(configuration.commandPrefix) --site \(siteName) plugin backups \(id) lists them)")
            }
            guard b.version < current else {
                throw CLIError(status: .invalidArgument, message: "--backup \(chosen) holds \(b.version)'s data, not older than \(current), which the site runs; a rollback goes to an older version")
            }
            previous = b
        } else {
            // The newest version below the current one, and its newest copy.
            guard let b = backups.first(where: { $0.version < current }) else {
                throw failure("no backup of \(id) older than \(current) in \(DatabaseBackups.folder(database: database)); a backup is made when a newer version first opens the database, so there is nothing to roll back to")
            }
            previous = b
        }
        let root = InstallTree.root(dataDirectory: dataDirectory)
        guard let library = InstallTree.installed(id: id, root: root).first(where: { $0.version == previous.version })?.library else {
            throw failure("\(id) \(previous.version) is not installed in \(root); install its package first (clubhouse plugin install FILE.chpkg), then roll back")
        }
        if let requirement = entry.versionRequirement, !requirement.isSatisfied(by: previous.version) {
            let at = "\(configuration.source):\(entry.location.line):\(entry.location.column)"
            throw failure("site '\(siteName)' asks for \(id) '\(requirement)' (\(at)), which \(previous.version) does not satisfy; to roll back, change that plugin's \"version\" to \"\(requirement.widened(admitting: previous.version))\" (it admits \(previous.version) and \(current)), then run the rollback again")
        }
        let sha: String
        switch LibraryDigest.sha256(library) {
        case .success(let s): sha = s
        case .failure(let e): throw failure("\(library): cannot read the library (\(e.reason))")
        }
        // The lock is prepared before the database changes, so a refusal leaves both as they were.
        var lock: PluginLock
        if let existing = try LockCommand.existing(lockPath) { lock = existing } else { lock = PluginLock(path: lockPath) }
        if lock.sites[siteName] == nil {
            var (pins, problems) = LockCommand.resolveSite(site, configuration, dataDirectory: dataDirectory, log: log)
            pins[entry.alias] = nil
            problems[entry.alias] = nil
            if let first = problems.keys.sorted().first.flatMap({ problems[$0] }) {
                throw failure("\(first); to roll back, the site's other plugins are pinned as they load now, so fix this first")
            }
            lock.sites[siteName] = pins
        }
        runtime.shutdown()
        if let reason = LockRegistry.record(lockPath: lockPath, dataDirectory: dataDirectory) {
            throw failure("\(reason); nothing was rolled back")
        }
        // The newer data is kept (as a new backup of its version) before the older copy replaces it.
        var kept: String?
        if let recorded, recorded > previous.version {
            do { kept = try DatabaseBackups.backup(database: database, version: recorded.description, reason: .rollback(to: previous.version.description)) }
            catch { throw failure("\(error.message); nothing was rolled back") }
        }
        do { try DatabaseBackups.restore(database: database, from: previous.file) } catch {
            throw failure("\(error.message); the site still runs \(current)")
        }
        let rollback = RollbackPin(from: current.description, kept: kept, at: DatabaseBackups.now,
                                   dataDigest: DatabaseBackups.contentDigest(database: database))
        lock.sites[siteName]?[entry.alias] = LockedPlugin(id: id, version: previous.version.description, sha256: sha, rollback: rollback)
        do { try lock.write() } catch {
            // Put the newer data back: the site keeps running what it ran.
            if let kept { try? DatabaseBackups.restore(database: database, from: kept) }
            throw failure("\(lockPath): cannot write the lock file (\(error.reason)); \(kept == nil ? "the database holds \(previous.version)'s data, but the site is not pinned: pin it by hand" : "the database was put back; nothing was rolled back")")
        }
        let keptText = kept.map { "; the \(recorded?.description ?? "") data is kept in \($0)" } ?? ""
        BuiltinCommands.output(options, json: ["site": .string(siteName), "plugin": .string(entry.alias), "id": .string(id),
                                               "from": .string(current.description), "to": .string(previous.version.description),
                                               "restored": .string(previous.file), "kept": kept.map { .string($0) } ?? .null,
                                               "lock": .string(lockPath)],
                               text: "Rolled \(id) at site '\(siteName)' back from \(current) to \(previous.version): restored \(previous.file) (made \(previous.madeAt), \(previous.reason.description)) and pinned \(previous.version) in \(lockPath)\(keptText). The pin stays until \(configuration.commandPrefix) lock --site \(siteName) --release-pin \(entry.alias) (\(configuration.commandPrefix) --site \(siteName) plugin backups \(id) lists every copy)\n")
        return 0
    }

    static func listBackups(_ name: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (configuration, dataDirectory, _) = try LockCommand.lockPath(options)
        let (site, entry) = try siteAndEntry(name, configuration, options)
        var id = entry?.id
        if id == nil, let entry {
            let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory,
                                      log: LogBroker(verbosity: options.verbosity, color: false))
            defer { runtime.shutdown() }
            if case .success(let p) = runtime.resolve(entry.alias) { id = p.info.id }
        }
        if entry == nil && name.contains(".") && InstallTree.isSafeComponent(name) { id = name }
        guard let id else {
            throw CLIError(status: .notFound, message: "site '\(site.name)' has no plugin '\(name)' (clubhouse --site \(site.name) plugins list shows its plugins; an id such as org.example.notes works too)")
        }
        let database = StorageBroker(dataDirectory: dataDirectory).databasePath(site: site.name, pluginID: id)
        let backups = DatabaseBackups.list(database: database)
        let live = DatabaseBackups.recordedVersion(database: database)
        var st = stat()
        let liveSize: Int64? = stat(database, &st) == 0 ? Int64(st.st_size) : nil
        var table: [[String]] = [["VERSION", "MADE (UTC)", "SIZE", "WHY", "FILE"]]
        for b in backups {
            table.append([b.version.description, b.madeAt, byteCount(b.size), b.reason.description, b.file])
        }
        var text = "\(id) at site '\(site.name)': live database \(database)"
        text += liveSize.map { " (\(live.map { "written by \($0), " } ?? "")\(byteCount($0)))" } ?? " (none yet)"
        text += "\n"
        text += backups.isEmpty ? "No backups in \(DatabaseBackups.folder(database: database)) (one is made when a newer version first opens the database)\n"
            : BuiltinCommands.formatTable(table, styled: options.stylesOutput())
        let json: JSONValue = ["site": .string(site.name), "id": .string(id), "database": .string(database),
                               "live_version": live.map { .string($0) } ?? .null, "live_size": liveSize.map { .int(Int($0)) } ?? .null,
                               "backups": .array(backups.map { b in
                                   ["version": .string(b.version.description), "made_at": .string(b.madeAt), "size": .int(Int(b.size)),
                                    "why": .string(b.reason.description), "file": .string(b.file)]
                               })]
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }

    /// "12.3 KiB", "812 B".
    static func byteCount(_ n: Int64) -> String {
        if n < 1024 { return "\(n) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(n) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
