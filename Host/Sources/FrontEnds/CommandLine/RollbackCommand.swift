// `clubhouse plugin rollback ID --site S`: the site goes back to the plugin's previous version.
// The previous version is the newest one with a database backup older than the version the site
// runs now (or last wrote the database); its backup is restored (the newer data is kept as that
// version's backup first, so nothing is lost) and the site is pinned to it in plugins.lock (the
// site's other plugins are pinned as they load now when the site was not locked yet).

import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON
import ClubhouseLoader

enum RollbackCommand {
    static func failure(_ message: String) -> CLIError { CLIError(status: .error, message: message) }

    static func rollback(_ name: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (configuration, dataDirectory, lockPath) = try LockCommand.lockPath(options)
        let siteName = options.site ?? configuration.defaultSite
        guard let site = configuration.sites[siteName] else {
            throw CLIError(status: .invalidArgument, message: "no site '\(siteName)'; sites are: \(configuration.siteOrder.joined(separator: ", ")); choose one with --site")
        }
        let log = LogBroker(verbosity: options.verbosity, color: false)
        // What the site runs now (its lock applied), to know the plugin's id and current version.
        let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: log)
        defer { runtime.shutdown() }
        guard let entry = site.plugins.first(where: { $0.id == name || $0.alias == name }) else {
            throw CLIError(status: .notFound, message: "site '\(siteName)' has no plugin '\(name)' (clubhouse --site \(siteName) plugins list shows its plugins)")
        }
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
        guard let previous = DatabaseBackups.list(database: database).first(where: { $0.version < current }) else {
            throw failure("no backup of \(id) older than \(current) in \(DatabaseBackups.folder(database: database)); a backup is made when a newer version first opens the database, so there is nothing to roll back to")
        }
        let root = InstallTree.root(dataDirectory: dataDirectory)
        guard let library = InstallTree.installed(id: id, root: root).first(where: { $0.version == previous.version })?.library else {
            throw failure("\(id) \(previous.version) is not installed in \(root); install its package first (clubhouse plugin install FILE.chpkg), then roll back")
        }
        if let requirement = entry.versionRequirement, !requirement.isSatisfied(by: previous.version) {
            throw failure("site '\(siteName)' asks for \(id) '\(requirement)', which \(previous.version) does not satisfy; change \"version\" in \(configuration.source) first")
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
            var problems: [String] = []
            var pins = LockCommand.resolveSite(site, configuration, dataDirectory: dataDirectory, log: log, problems: &problems)
            pins[entry.alias] = nil
            if let first = problems.first(where: { !$0.contains("plugin '\(entry.alias)'") }) {
                throw failure("\(first); to roll back, the site's other plugins are pinned as they load now, so fix this first")
            }
            lock.sites[siteName] = pins
        }
        lock.sites[siteName]?[entry.alias] = LockedPlugin(id: id, version: previous.version.description, sha256: sha)
        runtime.shutdown()
        // The newer data is kept (as its version's backup) before the older copy replaces it.
        var kept: String?
        if let recorded, recorded > previous.version {
            do { kept = try DatabaseBackups.backup(database: database, version: recorded.description) } catch {
                throw failure("\(error.message); nothing was rolled back")
            }
        }
        do { try DatabaseBackups.restore(database: database, from: previous.file) } catch {
            throw failure("\(error.message); the site still runs \(current)")
        }
        do { try lock.write() } catch {
            throw failure("\(lockPath): cannot write the lock file (\(error.reason)); the database was restored to \(previous.version) but the site is not pinned: pin it by hand")
        }
        let keptText = kept.map { "; the \(recorded?.description ?? "") data is kept in \($0)" } ?? ""
        BuiltinCommands.output(options, json: ["site": .string(siteName), "plugin": .string(entry.alias), "id": .string(id),
                                               "from": .string(current.description), "to": .string(previous.version.description),
                                               "restored": .string(previous.file), "kept": kept.map { .string($0) } ?? .null,
                                               "lock": .string(lockPath)],
                               text: "Rolled \(id) at site '\(siteName)' back from \(current) to \(previous.version): restored \(previous.file) and pinned \(previous.version) in \(lockPath)\(keptText)\n")
        return 0
    }
}
