// `clubhouse federation init|push|migrate|pull`: a site's records to and from a PostgreSQL federation,
// through psql (Federation/ in the host). Each failure is one line; exit 1 when the world failed (the
// server away, a refused batch), 2 when the request is wrong (no "federation" block, a claimed id).

import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON

enum FederationCommands {
    static func failure(_ error: FederationError) -> CLIError {
        CLIError(status: error.isRequestError ? .invalidArgument : .error, message: error.message)
    }

    /// Ctrl-C, SIGTERM, SIGHUP (and the other signals that would end the host: SignalRelay) while a federation
    /// command talks to PostgreSQL: its psql is killed at once (PostgresCancel: the step in progress stops, its
    /// open transaction rolls back on the server) and the command exits 130 with what is true of its work —
    /// instead of waiting for the step's timeout, or dying with psql left running on its own (the eighth outside
    /// attack, a08–a10: SIGTERM left psql holding a transaction open on the central server).
    final class Interrupts {
        let cancel = PostgresCancel()
        private let handler: InterruptHandler
        private let command: String

        init(_ command: String, runtime: SiteRuntime? = nil, log: LogBroker? = nil) {
            self.command = command
            // Not announced: the command's one line says it was interrupted (b05: a second, generic line came first).
            handler = InterruptHandler(runtime: runtime, log: log, announces: false)
            let cancel = self.cancel
            handler.begin(what: "federation \(command)") { cancel.fire() }
        }

        /// Signals back to their defaults (a `defer` right after init: the handler lives until the command ends).
        func end() {
            handler.end()
            handler.remove()
        }

        /// The shell with this command's cancel.
        func wire(_ shell: PostgresShell) -> PostgresShell {
            var wired = shell
            wired.cancel = cancel
            return wired
        }

        /// How the command reports `error`: cancelled (130) when a signal stopped it.
        func failure(_ error: FederationError) -> CLIError {
            guard cancel.isFired || error.cancelled else { return FederationCommands.failure(error) }
            return CLIError(status: .cancelled, message: "federation \(command) interrupted, its psql stopped: \(error.message)")
        }
    }

    /// The site and its federation block, or the one-line reason there is none.
    static func locate(_ options: GlobalOptions) throws(CLIError) -> (site: Site, federation: SiteFederation, folder: String) {
        let (site, folder) = try FederationOutbox.locate(options)
        guard let federation = site.federation else {
            throw CLIError(status: .invalidArgument, message: "site '\(site.name)' has no \"federation\" in plugins.json; add one, eg: \"federation\": {\"service\": \"clubfed\", \"site_id\": \"\(site.name)\"}")
        }
        return (site, federation, folder)
    }

    /// `--url`: a postgresql:// URL or a service name of pg_service.conf. Anything else (a keyword form,
    /// `host=… password=…`) is refused without being repeated: it may hold a password.
    /// A URL carrying a password is refused, not repeated: psql's command line (where the URL goes) can be read by
    /// every user of the machine (the fifth outside attack: `federation init --url postgresql://owner:PW@…`).
    static func target(_ url: String) throws(CLIError) -> PostgresTarget {
        if url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") {
            if SiteFederation.urlProblem(url) != nil {
                throw CLIError(status: .invalidArgument, message: "--url carries a password (not repeated here); a password never goes on a command line, where every user of the machine can read it: put it in ~/.pgpass (or the file PGPASSFILE names) and leave it out of the URL")
            }
            return PostgresTarget(url: url)
        }
        guard !url.isEmpty, url.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x3D && $0 != 0x27 && $0 != 0x5C && $0 < 0x7F }) else {
            throw CLIError(status: .invalidArgument, message: "--url takes a postgresql:// URL or a service name of pg_service.conf; a keyword form (host=… dbname=…) is not taken (its value is not repeated here: it may hold a password): write it as postgresql://user@host/db, with the password in ~/.pgpass")
        }
        return PostgresTarget(service: url)
    }

    static func initialize(url: String, sites: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        for site in sites {
            if let problem = SiteFederation.siteIDProblem(site) { throw CLIError(status: .invalidArgument, message: "--sites: \(problem)") }
        }
        let target = try target(url)
        let interrupts = Interrupts("init")
        defer { interrupts.end() }
        let shell = interrupts.wire(PostgresShell(target: target))
        do { try shell.run(FederationSchema.initScript(sites: sites)) } catch { throw interrupts.failure(error) }
        let roles = sites.map { FederationSchema.role(siteID: $0) }
        let json: JSONValue = ["federation": .string(target.shown), "schemaVersion": .int(FederationSchema.version),
                               "sites": .array(zip(sites, roles).map { ["siteID": .string($0), "role": .string($1)] })]
        var text = "The clubhouse schema (version \(FederationSchema.version)) is ready at \(target.shown).\n"
        for (site, role) in zip(sites, roles) {
            text += "  site \(site): role \(role) (set its password with psql's \\password \(role); the site keeps it in ~/.pgpass)\n"
        }
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }

    static func push(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (site, federation, folder) = try locate(options)
        let interrupts = Interrupts("push")
        defer { interrupts.end() }
        let push = FederationPush(shell: interrupts.wire(PostgresShell(federation)), federation: federation, siteName: site.name,
                                  siteFolder: folder)
        let report: FederationPush.Report
        do { report = try push.run() } catch { throw interrupts.failure(error) }
        let json: JSONValue = ["site": .string(site.name), "siteID": .string(federation.siteID), "shipped": .int(report.shipped),
                               "batches": .int(report.batches),
                               "plugins": .array(report.perPlugin.map { ["plugin": .string($0.plugin), "shipped": .int($0.shipped)] })]
        let text = report.shipped == 0 ? "Nothing waited; site '\(site.name)' is up to date with \(push.shell.target.shown).\n"
            : "Shipped \(report.shipped) record\(report.shipped == 1 ? "" : "s") of site '\(site.name)' as '\(federation.siteID)' in \(report.batches) batch\(report.batches == 1 ? "" : "es")"
                + " (" + report.perPlugin.map { "\($0.plugin): \($0.shipped)" }.joined(separator: ", ") + ").\n"
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }
}

extension FederationCommands {
    static func migrate(url: String, plugin: String, dir: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        if dir.isEmpty { return try migrateInstalled(url: url, plugin: plugin, options) }
        guard !plugin.isEmpty else {
            throw CLIError(status: .invalidArgument, message: "federation migrate: --dir needs --plugin (the id of the plugin whose SQL it holds, eg: org.clubhouse.scorecard)")
        }
        let target = try target(url)
        let interrupts = Interrupts("migrate")
        defer { interrupts.end() }
        let migrations = FederationMigrations(shell: interrupts.wire(PostgresShell(target: target)))
        let given = FederationMigrations.realFolder(dir)
        let folder = installedSQLFolder(identicalTo: given, plugin: plugin, options) ?? given
        let applied: [Int]
        // A folder of an installed package or of the bundled plugins is held to its manifest.
        let manifest: FederationMigrations.ManifestDigests?
        do { manifest = try FederationMigrations.ManifestDigests.covering(sqlFolder: folder) } catch { throw interrupts.failure(error) }
        if manifest != nil { try checkTheSiteLoads(plugin: plugin, sqlFolder: folder, options) }
        do {
            applied = try migrations.apply(plugin: plugin, try FederationMigrations.read(folder: folder), manifest: manifest)
        } catch { throw interrupts.failure(error) }
        let json: JSONValue = ["federation": .string(target.shown), "plugin": .string(plugin), "applied": .array(applied.map { .int($0) })]
        let text = applied.isEmpty ? "The federation at \(target.shown) already has every migration of \(plugin).\n"
            : "Applied migration\(applied.count == 1 ? "" : "s") \(applied.map(String.init).joined(separator: ", ")) of \(plugin) to \(target.shown).\n"
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }

    /// Installed central SQL named with --dir is applied only when the site would load its plugin: a package
    /// the site refuses (unsigned, or its signature gone, where the site requires signatures; a host too old)
    /// has its SQL refused too, with the site's reason (the eleventh outside round, c04: a package's signature
    /// deleted and its manifest rewritten to cover added SQL was applied through --dir). Without a site that
    /// names the plugin by id there is nothing to ask.
    static func checkTheSiteLoads(plugin: String, sqlFolder: String, _ options: GlobalOptions) throws(CLIError) {
        guard let session = try? Session(options: options) else { return }
        for entry in session.site.plugins where entry.enabled && entry.id == plugin {
            if case .failure(let refusal) = session.runtime.resolve(entry.alias) {
                throw CLIError(status: .invalidArgument, message: "federation migrate: \(sqlFolder) is the central SQL of \(plugin), which site '\(session.site.name)' does not load (\(refusal.message)); nothing was applied: fix what stops it loading first")
            }
        }
    }

    /// The installed central SQL folder of `plugin` that `folder` is by device and inode, when it is reached
    /// another way than its path: a bind mount of it, or of a folder above it, where resolving links sees
    /// nothing (the eleventh outside round, c05, applied SQL added to a package through one). Looked for
    /// among the bundled plugins' folders and every installed version of `plugin` in the install tree.
    static func installedSQLFolder(identicalTo folder: String, plugin: String, _ options: GlobalOptions) -> String? {
        guard let identity = FileSystem.identity(folder) else { return nil }
        var candidates = InstallTree.bundledDirectories.map { "\($0)/federation/\(plugin)/postgresql" }
        if let configuration = try? options.loadConfiguration() {
            let root = InstallTree.root(dataDirectory: options.resolveDataDirectory(configuration))
            candidates += InstallTree.installed(id: plugin, root: root).map { FileSystem.directoryName($0.library) + "/federation/postgresql" }
        }
        let same = candidates.first { candidate in
            guard let other = FileSystem.identity(candidate) else { return false }
            return other.device == identity.device && other.inode == identity.inode
        }
        return same.map(FederationMigrations.realFolder)
    }

    /// Without --dir: the central SQL every enabled plugin of the site (or only --plugin) ships beside its
    /// library (FederationMigrations.installedFolder), applied plugin by plugin.
    static func migrateInstalled(url: String, plugin only: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (site, _) = try FederationOutbox.locate(options)
        let session = try Session(options: options)
        var found: [(id: String, folder: String)] = []
        for entry in site.plugins where entry.enabled {
            guard case .success(let plugin) = session.runtime.resolve(entry.alias) else { continue }
            guard only.isEmpty || plugin.info.id == only || entry.alias == only else { continue }
            guard let folder = FederationMigrations.installedFolder(library: plugin.path, id: plugin.info.id) else { continue }
            if !found.contains(where: { $0.id == plugin.info.id }) { found.append((plugin.info.id, FederationMigrations.realFolder(folder))) }
        }
        guard !found.isEmpty else {
            let which = only.isEmpty ? "no plugin of site '\(site.name)'" : "plugin '\(only)' of site '\(site.name)'"
            throw CLIError(status: .invalidArgument, message: "federation migrate: \(which) ships central SQL beside its library (federation/postgresql/ or federation/<plugin id>/postgresql/); name the folder with --plugin ID --dir PATH")
        }
        let target = try target(url)
        let interrupts = Interrupts("migrate", runtime: session.runtime, log: session.log)
        defer { interrupts.end() }
        let migrations = FederationMigrations(shell: interrupts.wire(PostgresShell(target: target)))
        var replies: [JSONValue] = []
        var text = ""
        // Every plugin's files checked (what was applied, the installed package's manifest, SQL only) before
        // any is applied.
        var planned: [(id: String, folder: String, pending: [FederationMigrations.Migration])] = []
        for (id, folder) in found {
            do {
                let manifest = try FederationMigrations.ManifestDigests.covering(sqlFolder: folder)
                planned.append((id, folder, try migrations.pending(plugin: id, try FederationMigrations.read(folder: folder), manifest: manifest)))
            } catch { throw interrupts.failure(error) }
        }
        for (id, folder, pending) in planned {
            let applied: [Int]
            do { applied = try migrations.apply(plugin: id, pending: pending) } catch { throw interrupts.failure(error) }
            replies.append(["plugin": .string(id), "dir": .string(folder), "applied": .array(applied.map { .int($0) })])
            text += applied.isEmpty ? "The federation at \(target.shown) already has every migration of \(id).\n"
                : "Applied migration\(applied.count == 1 ? "" : "s") \(applied.map(String.init).joined(separator: ", ")) of \(id) to \(target.shown) (from \(folder)).\n"
        }
        BuiltinCommands.output(options, json: ["federation": .string(target.shown), "plugins": .array(replies)], text: text)
        return 0
    }

    /// Reads every view the site's plugins pull (their catalogue's "pulls") and hands the rows to each
    /// plugin's receive command (one call, one transaction in the plugin).
    static func pull(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (site, federation, _) = try locate(options)
        let session = try Session(options: options)
        let interrupts = Interrupts("pull", runtime: session.runtime, log: session.log)
        defer { interrupts.end() }
        let shell = interrupts.wire(PostgresShell(federation))
        do { try FederationSchema.checkVersion(shell) } catch { throw interrupts.failure(error) }
        var received: [JSONValue] = []
        var lines: [String] = []
        for entry in site.plugins where entry.enabled {
            guard case .success(let plugin) = session.runtime.resolve(entry.alias) else { continue }
            for pull in plugin.catalogue.pulls {
                let rows: [[String]]
                do { rows = try shell.query("SELECT row_to_json(v)::text FROM \(pull.view) v") } catch { throw interrupts.failure(error) }
                var array: [UInt8] = [0x5B]
                for (i, row) in rows.enumerated() {
                    if i > 0 { array.append(0x2C) }
                    array += Array((row.first ?? "null").utf8)
                }
                array.append(0x5D)
                let arguments: JSONObject = ["rows": .string(String(decoding: array, as: UTF8.self)), "federation": .string(federation.siteID)]
                let outcome = session.runtime.router.route(alias: entry.alias, .json(command: pull.command, arguments: arguments), origin: .commandLine)
                guard outcome.status == .ok else {
                    throw CLIError(status: outcome.status == .invalidArgument ? .invalidArgument : .error,
                                   message: "federation pull: \(entry.alias) \(pull.command) refused the rows of \(pull.view): \(outcome.message)")
                }
                received.append(["plugin": .string(entry.alias), "view": .string(pull.view), "rows": .int(rows.count), "reply": outcome.data])
                lines.append("\(entry.alias): \(rows.count) row\(rows.count == 1 ? "" : "s") of \(pull.view) → \(pull.command)")
            }
        }
        let json: JSONValue = ["site": .string(site.name), "siteID": .string(federation.siteID), "received": .array(received)]
        let text = lines.isEmpty ? "No plugin of site '\(site.name)' pulls anything from its federation.\n"
            : "Pulled from \(shell.target.shown) for site '\(site.name)':\n" + lines.map { "  " + $0 + "\n" }.joined()
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }
}
