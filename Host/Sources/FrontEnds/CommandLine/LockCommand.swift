// `clubhouse lock`: resolves every site's enabled plugins as they load today (the highest version
// satisfying each requirement, ignoring any old lock) and writes plugins.lock (see
// Loader/PluginLock.swift). With --site (or CLUBHOUSE_SITE) only that site is re-locked and the
// others keep their pins. `--check` writes nothing and fails when the lock is missing or stale.
// Nothing is written when any plugin fails to load.
//
// A pin written by `clubhouse plugin rollback` is deliberate: `lock` keeps it (re-hashing the
// pinned build) and `lock --check` reports it as held, not stale, until `--release-pin PLUGIN`
// asks for the site to move on (or the site's "version" no longer admits it). Releasing a pin
// rolls the site forward: by default the newer version's data kept at the rollback becomes the
// live database again (`--data newer`), the database the older version ran is kept beside the
// other backups, and the command says which is where; `--data current` keeps the live database
// instead and lets the newer version migrate it (README: "Rolling back and forward").

import ClubhouseHost
import ClubhousePlatform
import ClubhouseLoader
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

    /// What `site` loads now, alias → pin (nothing cached: a fresh runtime that ignores the lock),
    /// and alias → why it does not load.
    static func resolveSite(_ site: Site, _ configuration: SiteConfiguration, dataDirectory: String, log: LogBroker)
        -> (pins: [String: LockedPlugin], problems: [String: String]) {
        let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: log, enforcesLock: false)
        defer { runtime.shutdown() }
        runtime.resolveAll()
        var pins: [String: LockedPlugin] = [:]
        var problems: [String: String] = [:]
        for entry in site.plugins where entry.enabled {
            switch runtime.resolve(entry.alias) {
            case .success(let plugin):
                switch LibraryDigest.sha256(plugin.path) {
                case .success(let sha): pins[entry.alias] = LockedPlugin(id: plugin.info.id, version: plugin.info.version, sha256: sha)
                case .failure(let e): problems[entry.alias] = "site '\(site.name)': \(plugin.path): cannot read the library (\(e.reason))"
                }
            case .failure(let e):
                problems[entry.alias] = "site '\(site.name)': \(e.message)"
            }
        }
        return (pins, problems)
    }

    /// What the site does with data when a rollback pin is released.
    enum ForwardData: String { case newer, current }

    /// A rollback pin released by this run: the site moves from `held` to `to`.
    struct Forward {
        var site, alias: String
        var held: LockedPlugin
        var to: LockedPlugin
        var rollback: RollbackPin
        /// Why: asked with --release-pin, or the site's "version" no longer admits the pinned one.
        var asked: Bool
    }

    static func lock(check: Bool, release: String?, data dataText: String?, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (configuration, dataDirectory, path) = try lockPath(options)
        if check && release != nil {
            throw CLIError(status: .invalidArgument, message: "--check writes nothing, so it cannot release a pin; run clubhouse lock --release-pin \(release ?? "") without --check")
        }
        guard let data = ForwardData(rawValue: dataText ?? "newer") else {
            throw CLIError(status: .invalidArgument, message: "--data must be newer or current, not '\(dataText ?? "")'")
        }
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
        let root = InstallTree.root(dataDirectory: dataDirectory)
        var problems: [String] = []
        var held: [(site: String, alias: String, pin: LockedPlugin, wouldLoad: LockedPlugin?)] = []
        var forwards: [Forward] = []
        for name in siteNames {
            guard let site = configuration.sites[name] else { continue }
            var (pins, failures) = resolveSite(site, configuration, dataDirectory: dataDirectory, log: log)
            for (alias, pin) in (old?.sites[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard let rollback = pin.rollback, let entry = site.plugin(alias: alias), entry.enabled,
                      let version = SemanticVersion(pin.version) else { continue }
                let asked = release == alias || release == pin.id
                let admitted = entry.versionRequirement?.isSatisfied(by: version) ?? true
                if !asked && admitted {
                    // Held: the pinned build as installed now (the newer build's problems do not matter).
                    failures[alias] = nil
                    guard let library = InstallTree.installed(id: pin.id, root: root).first(where: { $0.version == version })?.library else {
                        problems.append("site '\(name)': plugin '\(alias)' is held at \(pin.id) \(pin.version) by a rollback, but that version is no longer installed in \(root); install its package again, or release the pin (\(configuration.commandPrefix) lock --site \(name) --release-pin \(alias))")
                        continue
                    }
                    switch LibraryDigest.sha256(library) {
                    case .success(let sha):
                        let wouldLoad = pins[alias]
                        pins[alias] = LockedPlugin(id: pin.id, version: pin.version, sha256: sha, rollback: rollback)
                        held.append((name, alias, pins[alias] ?? pin, wouldLoad))
                    case .failure(let e): problems.append("site '\(name)': \(library): cannot read the library (\(e.reason))")
                    }
                } else if let to = pins[alias] {
                    forwards.append(Forward(site: name, alias: alias, held: pin, to: to, rollback: rollback, asked: asked))
                }
            }
            problems += failures.keys.sorted().compactMap { failures[$0] }
            lock.sites[name] = pins
        }
        if let release, !forwards.contains(where: { $0.asked }) {
            let holding = held.map { "\($0.site)/\($0.alias)" }
            throw CLIError(status: .notFound, message: "no rollback pin of '\(release)' in \(path)\(options.site.map { " for site '\($0)'" } ?? "") to release (\(holding.isEmpty ? "it holds none" : "pins held by a rollback: " + holding.joined(separator: ", ")))")
        }
        if let first = problems.first {
            let more = problems.count > 1 ? " (and \(problems.count - 1) more)" : ""
            throw CLIError(status: .error, message: "\(first)\(more); \(path) was not written")
        }
        var rows: [JSONValue] = []
        var table: [[String]] = [["SITE", "PLUGIN", "ID", "VERSION", "SHA256"]]
        for site in lock.sites.keys.sorted() {
            for (alias, p) in (lock.sites[site] ?? [:]).sorted(by: { $0.key < $1.key }) {
                var row: JSONObject = ["site": .string(site), "plugin": .string(alias), "id": .string(p.id), "version": .string(p.version), "sha256": .string(p.sha256)]
                if let r = p.rollback { row["held_by_rollback_from"] = .string(r.from) }
                rows.append(.object(row))
                table.append([site, alias, p.id, p.version + (p.rollback == nil ? "" : " (rollback)"), String(p.sha256.prefix(12))])
            }
        }
        let heldText = held.map { h in
            let from = h.pin.rollback?.from ?? "?"
            let move = h.wouldLoad.map { "\(configuration.commandPrefix) lock --site \(h.site) --release-pin \(h.alias) moves it to \($0.version)" }
                ?? "\(configuration.commandPrefix) lock --site \(h.site) --release-pin \(h.alias) moves it on"
            return "\(h.site)/\(h.alias) is held at \(h.pin.version) by the rollback from \(from) (\(h.pin.rollback?.at ?? "")), not stale; \(move)\n"
        }.joined()
        let heldJSON: JSONValue = .array(held.map { h in
            ["site": .string(h.site), "plugin": .string(h.alias), "version": .string(h.pin.version),
             "rolled_back_from": .string(h.pin.rollback?.from ?? ""), "would_load": h.wouldLoad.map { .string($0.version) } ?? .null]
        })
        if check {
            let current = (try? FileSystem.read(path)).map { String(decoding: $0, as: UTF8.self) }
            guard let current else {
                throw CLIError(status: .error, message: "\(path) does not exist; run clubhouse lock to write it")
            }
            guard current == lock.rendered() else {
                let stale = staleEntries(old: old?.sites ?? [:], new: lock.sites)
                throw CLIError(status: .error, message: "\(path) is out of date (\(stale.isEmpty ? "its text differs" : stale.joined(separator: "; "))); run clubhouse lock to update it")
            }
            BuiltinCommands.output(options, json: ["lock": .string(path), "status": "current", "plugins": .array(rows), "held": heldJSON],
                                   text: "\(path) is up to date\n" + heldText)
            return 0
        }
        if let failure = LockRegistry.record(lockPath: path, dataDirectory: dataDirectory) {
            throw CLIError(status: .error, message: "\(failure); \(path) was not written (the data directory records every lock written for it, so plugin remove can ask them all)")
        }
        // The databases move first; a lock that then cannot be written puts them back.
        var moved: [(database: String, aside: String?)] = []
        var forwardText = ""
        var forwardJSON: [JSONValue] = []
        for forward in forwards {
            let outcome: (text: String, json: JSONValue, undo: (String, String?)?)
            do throws(CLIError) {
                outcome = try rollForward(forward, data: data, dataDirectory: dataDirectory)
            } catch {
                undo(moved)
                throw error
            }
            forwardText += outcome.text
            forwardJSON.append(outcome.json)
            if let u = outcome.undo { moved.append((u.0, u.1)) }
        }
        do { try lock.write() } catch {
            undo(moved)
            throw CLIError(status: .error, message: "\(path): cannot write the lock file (\(error.reason))\(moved.isEmpty ? "" : "; the databases were put back as they were")")
        }
        BuiltinCommands.output(options, json: ["lock": .string(path), "plugins": .array(rows), "held": heldJSON, "forwarded": .array(forwardJSON)],
                               text: "Wrote \(path):\n" + BuiltinCommands.formatTable(table, styled: options.stylesOutput()) + heldText + forwardText)
        return 0
    }

    /// Puts back databases replaced by roll-forwards (from the copies made just before).
    static func undo(_ moved: [(database: String, aside: String?)]) {
        for m in moved.reversed() {
            if let aside = m.aside { try? DatabaseBackups.restore(database: m.database, from: aside) }
        }
    }

    /// Moves one site's database forward as `data` says; the sentence that says what happened,
    /// its JSON, and how to undo it (database, the copy of what it held).
    static func rollForward(_ f: Forward, data: ForwardData, dataDirectory: String) throws(CLIError)
        -> (text: String, json: JSONValue, undo: (String, String?)?) {
        let database = StorageBroker(dataDirectory: dataDirectory).databasePath(site: f.site, pluginID: f.to.id)
        let why = f.asked ? "--release-pin released the rollback pin" : "the site's \"version\" no longer admits \(f.held.version), which released the rollback pin"
        let head = "Rolled \(f.to.id) at site '\(f.site)' forward from \(f.held.version) to \(f.to.version) (\(why))"
        var json: JSONObject = ["site": .string(f.site), "plugin": .string(f.alias), "id": .string(f.to.id), "from": .string(f.held.version),
                                "to": .string(f.to.version), "database": .string(database), "data": .string(data.rawValue)]
        let liveVersion = DatabaseBackups.recordedVersion(database: database)
        // The version that wrote the kept data (its backup's name says).
        let from = f.rollback.kept.flatMap(DatabaseBackups.parse)?.version
        let restorable = f.rollback.kept.map(FileSystem.exists) ?? false
        guard data == .newer, restorable, let kept = f.rollback.kept, let from, let target = SemanticVersion(f.to.version), from <= target,
              FileSystem.exists(database) else {
            var reason = ""
            if data == .newer {
                if f.rollback.kept == nil { reason = " (the rollback kept no newer data: the database already held \(f.held.version)'s)" }
                else if !restorable { reason = " (the \(f.rollback.from) data kept at the rollback, \(f.rollback.kept ?? ""), is gone)" }
                else if let from, let target = SemanticVersion(f.to.version), from > target {
                    reason = " (the data kept at the rollback was written by \(from), newer than \(target), which cannot open it; it stays in \(f.rollback.kept ?? ""))"
                }
            } else if let kept = f.rollback.kept {
                reason = "; the \(f.rollback.from) data kept at the rollback stays in \(kept)"
            }
            json["kept_data"] = f.rollback.kept.map { .string($0) } ?? .null
            json["restored"] = .null
            return ("\(head): the live database (\(liveVersion ?? f.held.version)) stays; \(f.to.version) migrates it at its next use, after backing it up\(reason)\n",
                    .object(json), nil)
        }
        let changed = DatabaseBackups.contentDigest(database: database).map { $0 != f.rollback.dataDigest } ?? true
        let aside: String
        do { aside = try DatabaseBackups.backup(database: database, version: liveVersion ?? f.held.version, reason: .forward(to: f.to.version)) }
        catch { throw CLIError(status: .error, message: "\(error.message); nothing was rolled forward and the lock was not written") }
        do { try DatabaseBackups.restore(database: database, from: kept) } catch {
            throw CLIError(status: .error, message: "\(error.message); the live database is as it was (also in \(aside)); nothing was rolled forward")
        }
        json["restored"] = .string(kept)
        json["kept_data"] = .string(aside)
        json["written_since_rollback"] = .bool(changed)
        let since = changed
            ? "it holds what \(f.held.version) wrote since the rollback, which the live database does not; to run on that data instead, roll back again and release with --data current"
            : "nothing was written since the rollback"
        return ("\(head): restored the \(from) data kept at the rollback (\(kept)); the \(liveVersion ?? f.held.version) database it replaced is kept in \(aside) (\(since))\n",
                .object(json), (database, aside))
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

    /// `plugin remove` refuses a version that any lock written for this data directory pins (the
    /// data directory records them; the lock of the configuration in use is asked too), naming the
    /// lock; `force` removes it anyway and returns a warning per pin it breaks.
    static func refuseRemovingPinned(id: String, version: String?, installed: [String], spec: String, force: Bool,
                                     _ options: GlobalOptions) throws(CLIError) -> [String] {
        let (_, dataDirectory, current) = try lockPath(options)
        var warnings: [String] = []
        for path in Set(LockRegistry.locks(dataDirectory: dataDirectory) + [current]).sorted() {
            let lock: PluginLock
            do {
                guard let l = try PluginLock.load(path) else { continue }
                lock = l
            } catch {
                if force { warnings.append("\(error.message) (so whether it pins \(spec) is unknown)"); continue }
                throw CLIError(status: .error, message: "cannot tell whether \(path) pins \(spec): \(error.message); fix or delete that lock, or pass --force")
            }
            for pin in lock.pins(id: id, version: version) where installed.contains(pin.plugin.version) {
                if force {
                    warnings.append("\(path) pins \(id) \(pin.plugin.version) for site '\(pin.site)' (plugin '\(pin.alias)'); that site does not load it until it is locked again (clubhouse lock) or the version is reinstalled")
                    continue
                }
                throw CLIError(status: .error, message: "cannot remove \(spec): \(path) pins \(id) \(pin.plugin.version) for site '\(pin.site)' (plugin '\(pin.alias)'); move the site to another version first (change its \"version\", install the other build, run clubhouse lock for that configuration), then remove — or pass --force")
            }
        }
        return warnings
    }
}
