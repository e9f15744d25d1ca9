// The host's own commands: plugins list/info, plugin validate, config validate/schema, demo,
// device simulate, serve, token (TokenCommands).

import ClubhouseHost
import ClubhousePlatform
import ClubhouseABI
import ClubhouseJSON
import ClubhouseToolkit
import ClubhouseRunner
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

enum BuiltinCommands {
    static func output(_ options: GlobalOptions, json: JSONValue, text: String) {
        if options.json { StandardStreams.writeOutput(JSONWriter.pretty(json) + "\n") } else { Pager.show(text, enabled: options.pager) }
    }

    static func usage(_ message: String) -> CLIError { CLIError(status: .invalidArgument, message: message) }

    // MARK: version

    /// `clubhouse version` (and `--version`): the versions of clubhouse, its plugin ABI and its build.
    static func version(_ options: GlobalOptions) -> Int32 {
        let text = "clubhouse \(ClubhouseVersion.string) (plugin ABI \(BuildFingerprint.abi), Swift \(BuildFingerprint.swiftCompiler), "
                + "\(BuildFingerprint.target))"
        StandardStreams.writeOutput((options.json ? JSONWriter.pretty(versionDocument) : text) + "\n")
        return 0
    }

    /// `{version, abi, build}`: what `version --json` prints and serve's `clubhouse.version` answers.
    static var versionDocument: JSONValue {
        ["version": .string(ClubhouseVersion.string), "abi": .string(BuildFingerprint.abi), "build": .string(BuildFingerprint.swift)]
    }

    // MARK: plugins

    static func pluginsList(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let session = try Session(options: options)
        let rows = pluginListing(session)
        var table: [[String]] = [["PLUGIN", "ID", "VERSION", "LANG", "COMMANDS", "STATUS"]]
        for row in rows {
            let cells = ["plugin", "id", "version", "language"].map { row[$0]?.stringValue ?? "-" }
            let status = row["status"]?.stringValue ?? "-"
            let commands = row["commands"]?.arrayValue.map { String($0.count) } ?? "-"
            table.append(cells + [commands, status == "error" ? "error (see below)" : status])
        }
        let failures = rows.compactMap { $0["error"]?.stringValue }
        var text = "Site '\(session.site.name)' (\(session.configuration.source)):\n" + formatTable(table, styled: options.stylesOutput())
        for f in failures { text += "error: \(f)\n" }
        output(options, json: ["site": .string(session.site.name), "plugins": .array(rows)], text: text)
        if !failures.isEmpty {
            if options.strict {
                var error = CLIError(status: .error, message: "\(failures.count) plugin(s) failed to load (--strict)")
                error.reported = true
                throw error
            }
            if !options.json {
                StandardStreams.writeError("clubhouse: warning: \(failures.count) plugin(s) failed to load; the others work\n")
            }
        }
        return 0
    }

    /// The site's plugins in file order, one row each: `{plugin, enabled, id, status: "loaded" | "disabled" |
    /// "error"}`, with `version, name, summary, language, path, commands, isolated` when loaded and `error`
    /// (one line) when not. The one answer to "list the plugins": `plugins list --json` prints every row,
    /// serve's `clubhouse.plugins` answers the enabled ones.
    static func pluginListing(_ session: Session) -> [JSONValue] {
        var rows: [JSONValue] = []
        session.runtime.resolveAll()
        for entry in session.site.plugins {
            var row = JSONObject()
            row["plugin"] = .string(entry.alias)
            row["enabled"] = .bool(entry.enabled)
            guard entry.enabled else {
                row["id"] = entry.id.map { .string($0) } ?? .null
                row["status"] = "disabled"
                rows.append(.object(row))
                continue
            }
            switch session.runtime.resolve(entry.alias) {
            case .success(let p):
                let info = p.info
                row["id"] = .string(info.id)
                row["version"] = .string(info.version)
                row["name"] = .string(info.name)
                row["summary"] = .string(info.summary)
                row["language"] = .string(info.language)
                row["path"] = .string(p.path)
                row["commands"] = .array(p.catalogue.commands.map { .string($0.name) })
                row["isolated"] = .bool(p.isolated)
                row["status"] = "loaded"
            case .failure(let e):
                row["id"] = entry.id.map { .string($0) } ?? .null
                row["status"] = "error"
                row["error"] = .string(e.message)
            }
            rows.append(.object(row))
        }
        return rows
    }

    /// The host's own tables (the first row is the header), laid out as plugins' TextTable lays them
    /// out: the header bold when `styled` (a terminal that shows colour: GlobalOptions.stylesOutput).
    static func formatTable(_ rows: [[String]], styled: Bool = false) -> String {
        guard let first = rows.first else { return "" }
        return TextTable(first, Array(rows.dropFirst())).render(styled: styled)
    }

    static func pluginsInfo(_ name: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let session = try Session(options: options)
        let alias = session.site.plugins.first { $0.alias == name || $0.id == name }?.alias ?? name
        let plugin: ResolvedPlugin
        switch session.runtime.resolve(alias) {
        case .success(let p): plugin = p
        case .failure(let e): throw CLIError(status: e.status, message: e.message)
        }
        let info = plugin.info
        let entry = plugin.entry
        var json = JSONObject()
        json["plugin"] = .string(entry.alias)
        json["id"] = .string(info.id)
        json["version"] = .string(info.version)
        json["name"] = .string(info.name)
        json["summary"] = .string(info.summary)
        json["path"] = .string(plugin.path)
        json["abi"] = .string("\(info.abiMajor).\(info.abiMinor)")
        json["build"] = .string(info.build)
        json["thread_safe"] = .bool(info.threadSafe)
        json["services"] = .array(info.services.map { .string($0) })
        json["grants"] = .array(entry.grants.map { .string($0.description) })
        json["isolation"] = .string(entry.isolation.rawValue)
        json["effective_isolation"] = .string(plugin.effectiveIsolation.rawValue)
        json["isolation_reason"] = .string(plugin.isolationReason)
        if let schema = plugin.catalogue.configSchema { json["config_schema"] = schema.source }
        json["reach"] = .string(plugin.reach)
        json["config"] = entry.config
        json["commands"] = .array(plugin.catalogue.commands.map { c in
            ["name": .string(c.name), "summary": .string(c.summary), "long_running": .bool(c.longRunning),
             "arguments": .array(c.arguments.map { .string($0.name) })]
        })
        var text = """
        \(info.name) \(info.version) — \(info.summary)
          plugin      \(entry.alias) at site '\(session.site.name)'
          id          \(info.id)
          file        \(plugin.path)
          abi         \(info.abiMajor).\(info.abiMinor), struct_size \(info.structSize)
          build       \(info.build)
          threading   \(info.threadSafe ? "thread-safe (calls may run concurrently)" : "serialized by the host")
          services    \(info.services.isEmpty ? "none" : info.services.joined(separator: ", "))
          grants      \(entry.grants.isEmpty ? "none" : entry.grants.map(\.description).joined(separator: ", "))
          isolation   \(entry.isolation == .auto ? "auto → " : "")\(plugin.effectiveIsolation.rawValue): \(plugin.isolationReason)
          reach       \(plugin.reach)
          config      \(JSONWriter.compact(entry.config))
          commands\n
        """
        for c in plugin.catalogue.commands { text += "    \(c.name) — \(c.summary)\n" }
        output(options, json: .object(json), text: text)
        return 0
    }

    // MARK: plugin validate, plugin pack

    static func validateList(_ options: GlobalOptions) -> Int32 {
        let rows = PluginValidator.checks.map { [$0.id, $0.name, $0.requires.isEmpty ? "-" : $0.requires.joined(separator: ",")] }
        output(options, json: ["checks": .array(PluginValidator.checks.map { ["name": .string($0.id), "summary": .string($0.name),
                                                                              "requires": .array($0.requires.map { .string($0) })] })],
               text: formatTable([["CHECK", "WHAT IT MAKES SURE OF", "NEEDS"]] + rows, styled: options.stylesOutput()))
        return 0
    }

    static func pack(_ arguments: JSONObject, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let publisher = PackageSigning.PackOptions(author: arguments["author"]?.stringValue,
                                                   license: arguments["license"]?.stringValue,
                                                   homepage: arguments["homepage"]?.stringValue,
                                                   requires: arguments["requires"]?.stringValue,
                                                   minHost: arguments["min-host"]?.stringValue, sign: arguments["sign"]?.stringValue)
        return try PluginPackages.pack(library: arguments["library"]?.stringValue ?? "", out: arguments["out"]?.stringValue ?? "",
                                       readme: arguments["readme"]?.stringValue, web: arguments["web"]?.stringValue,
                                       federation: arguments["federation"]?.stringValue, publisher: publisher, options)
    }

    static func pluginValidate(path given: String, timeout: Double, only: String?, isolation: String? = nil,
                               _ options: GlobalOptions) throws(CLIError) -> Int32 {
        guard timeout > 0, timeout <= 3600 else {
            throw usage("--timeout must be more than 0 and at most 3600 seconds, got \(timeout)")
        }
        var selected: [String]?
        if let only {
            let names = only.split(separator: ",")
                .map { String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
                .filter { !$0.isEmpty }
            let known = PluginValidator.checks.map(\.id)
            if let unknown = names.first(where: { !known.contains($0) }) {
                throw usage("--only: no check named '\(unknown)'; checks are \(known.joined(separator: ", ")) (clubhouse plugin validate "
                        + "list)")
            }
            guard !names.isEmpty else { throw usage("--only needs at least one check name (clubhouse plugin validate list)") }
            selected = names
        }
        // --site / --config: the plugin runs with the site's entry (config, grants, devices).
        var siteArguments: [String] = []
        var siteText = ""
        if options.configPath != nil || options.site != nil {
            let configuration = try options.loadConfiguration()
            let name = options.site ?? configuration.defaultSite
            guard configuration.sites[name] != nil else {
                throw usage("no site '\(name)' in \(configuration.source); sites are: \(configuration.siteOrder.joined(separator: ", "))")
            }
            if let config = options.configPath { siteArguments += ["--config", FileSystem.absolute(config)] }
            siteArguments += ["--site", name]
            siteText = " at site '\(name)' of \(configuration.source)"
        }
        if let isolation {
            // Never silently weaker: a sandbox this kernel cannot give is refused before any check runs.
            if isolation == Isolation.sandbox.rawValue, let reason = Sandbox.unavailableReason() {
                throw CLIError(status: .error, message: "--isolation sandbox: \(reason); validate with --isolation process instead")
            }
            siteArguments += ["--isolation", isolation]
        }
        let path = FileSystem.absolute(given)
        let report = PluginValidator.validate(path: path, only: selected, timeoutMilliseconds: Int(timeout * 1000),
                                              siteArguments: siteArguments)
        let failed = report.filter { !$0.passed }
        let width = report.map(\.id.count).max() ?? 0
        var text = "Validating \(path)\(siteText)\n"
        for check in report {
            let label: String
            switch check.status {
            case .passed: label = "PASS "
            case .failed: label = "FAIL "
            case .skipped: label = "SKIP "
            case .crashed: label = "CRASH"
            }
            let padded = check.id + String(repeating: " ", count: width - check.id.count)
            text += "  \(label)  \(padded)  \(check.name)\(check.detail.isEmpty ? "" : ": \(check.detail)")\n"
        }
        let skipped = report.filter { $0.status == .skipped }.count
        text += failed.isEmpty ? "\(report.count) checks: \(report.count - skipped) passed, \(skipped) skipped; the plugin is ready for "
                + "a site.\n"
            : "\(failed.count) of \(report.count) checks failed.\n"
        let json: JSONValue = ["path": .string(path), "ok": .bool(failed.isEmpty),
                               "checks": .array(report.map {
                                   ["name": .string($0.id), "summary": .string($0.name), "status": .string($0.status.rawValue),
                                    "passed": .bool($0.passed), "detail": .string($0.detail), "ms": .int($0.milliseconds)]
                               })]
        output(options, json: json, text: text)
        if !failed.isEmpty {
            var error = CLIError(status: .error, message: "\(path): \(failed.count) check(s) failed; first: \(failed[0].name) "
                    + "(\(failed[0].id)): \(failed[0].detail)")
            error.reported = true
            throw error
        }
        return 0
    }

    // MARK: config

    /// `config validate [FILE] [--timeout S]`: FILE stands for --config.
    static func configValidate(_ arguments: JSONObject, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        var o = options
        if let file = arguments["file"]?.stringValue { o.configPath = file }
        return try configValidate(o, timeout: arguments["timeout"]?.doubleValue ?? 30)
    }

    static func configSchema() -> Int32 {
        StandardStreams.writeOutput(EmbeddedDefaults.schemaJSON + "\n")
        return 0
    }

    static func configValidate(_ options: GlobalOptions, timeout: Double = 30) throws(CLIError) -> Int32 {
        guard timeout > 0, timeout <= 3600 else {
            throw usage("--timeout must be more than 0 and at most 3600 seconds, got \(timeout)")
        }
        let source = options.configPath ?? "<embedded plugins.json>"
        let text: String
        var base: String?
        if let path = options.configPath {
            let absolute = FileSystem.absolute(path)
            do {
                text = String(decoding: try FileSystem.read(absolute), as: UTF8.self)
            } catch {
                throw CLIError(status: error.isMissing ? .invalidArgument : .error, message: "\(path): cannot read (\(error.reason))")
            }
            base = FileSystem.directoryName(absolute)
        } else {
            text = EmbeddedDefaults.pluginsJSON
        }
        var problems: [String] = []
        var configuration: SiteConfiguration?
        do {
            configuration = try ConfigurationParser.parse(text, source: source, baseDirectory: base)
        } catch {
            problems = error.errors.map(\.description)
        }
        var sitesChecked: [JSONValue] = []
        var warnings: [String] = []
        if let configuration {
            let dataDirectory = options.resolveDataDirectory(configuration)
            let log = LogBroker(verbosity: options.verbosity, color: false)
            // Every plugin that loads is then created, each in a child (ConfigCreateCheck.swift).
            var toCreate: [(target: ConfigCreateCheck.Target, place: String)] = []
            for name in configuration.siteOrder {
                guard let site = configuration.sites[name] else { continue }
                // It says "every enabled plugin loads": each is loaded, never only read from the catalogue cache.
                let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: log,
                                          describesFromCache: false)
                var loaded = 0
                for entry in site.plugins where entry.enabled {
                    let place = "\(source):\(entry.location.line):\(entry.location.column)"
                    switch runtime.resolve(entry.alias) {
                    case .success(let plugin):
                        loaded += 1
                        // Its config against its schema, every problem with its own place; then created.
                        let misfits = ConfigSchemaLocation.refusals(plugin.catalogue.configSchema, configuration: configuration,
                                                                    site: name, entry: entry)
                        if misfits.isEmpty { toCreate.append((ConfigCreateCheck.Target(site: name, alias: entry.alias), place)) }
                        problems += misfits
                        if let reason = plugin.weakerThanAuto {
                            warnings.append("\(source):\(entry.location.line):\(entry.location.column): warning: site '\(name)': plugin "
                                    + "'\(entry.alias)' \(plugin.originPhrase), so \"auto\" would sandbox it, but \(reason); it runs "
                                    + "with \"process\" (crash isolation, not confinement); set \"isolation\": \"process\" to choose "
                                    + "that knowingly, or move it to a kernel with Landlock")
                        }
                    case .failure(let e):
                        problems.append("\(place): site '\(name)': \(e.message)")
                    }
                }
                sitesChecked.append(["site": .string(name), "plugins": .int(site.plugins.count), "loaded": .int(loaded)])
            }
            let failures = ConfigCreateCheck.run(toCreate.map(\.target), configPath: options.configPath.map { FileSystem.absolute($0) },
                                                 dataDirectory: dataDirectory, timeoutMilliseconds: Int(timeout * 1000))
            for (i, failure) in failures.enumerated() {
                guard let failure else { continue }
                let (target, place) = toCreate[i]
                problems.append("\(place): site '\(target.site)': plugin '\(target.alias)' loads but cannot be created: \(failure)")
            }
            for (i, site) in sitesChecked.enumerated() {
                let name = site["site"]?.stringValue
                let created = zip(toCreate, failures).filter { $0.0.target.site == name && $0.1 == nil }.count
                sitesChecked[i] = ["site": site["site"] ?? .null, "plugins": site["plugins"] ?? .null, "loaded": site["loaded"] ?? .null,
                                   "created": .int(created)]
            }
        }
        let json: JSONValue = ["file": .string(source), "ok": .bool(problems.isEmpty),
                               "problems": .array(problems.map { .string($0) }), "warnings": .array(warnings.map { .string($0) }),
                               "sites": .array(sitesChecked)]
        if !options.json && !warnings.isEmpty { StandardStreams.writeError(warnings.map { $0 + "\n" }.joined()) }
        var report = problems.map { $0 + "\n" }.joined()
        if problems.isEmpty {
            report = "\(source): valid (\(sitesChecked.count) site(s); every enabled plugin loads and was created, each in a child "
                    + "process on a scratch data directory)\n"
        }
        if options.json { StandardStreams.writeOutput(JSONWriter.pretty(json) + "\n") }
        else if problems.isEmpty { StandardStreams.writeOutput(report) } else { StandardStreams.writeError(report) }
        if !problems.isEmpty {
            // A file that does not parse is invalid input (2); one that parses but whose plugins fail to load is a failure
            // of the world (1).
            var error = CLIError(status: configuration == nil ? .invalidArgument : .error, message: "\(source): \(problems.count) "
                    + "problem(s) found")
            error.reported = true
            throw error
        }
        return 0
    }

    // MARK: demo

    static func demo(out given: String?, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let out = given.map { FileSystem.absolute($0) } ?? FileSystem.currentDirectory() + "/clubhouse-demo"
        let outExisted = FileSystem.exists(out)
        do {
            try FileSystem.createDirectory(out)
        } catch {
            throw CLIError(status: .error, message: "cannot create the demo folder: \(error)")
        }
        // A fresh data directory inside the output folder, always: the demo never writes sample
        // data into the user's own data (--data-dir and CLUBHOUSE_DATA_DIR are for real work).
        let data = out + "/data"
        let dataOverride: String? = data
        let configuration = try options.loadConfiguration()
        let siteDir = "\(data)/\(options.site ?? configuration.defaultSite)"
        for file in FileSystem.files(in: siteDir, suffix: "") where file.hasSuffix(".sqlite") || file.hasSuffix(".sqlite-wal")
            || file.hasSuffix(".sqlite-shm") {
            unlink(file)
        }
        let session = try Session(options: options, dataDirectoryOverride: dataOverride)
        // Ctrl-C and SIGTERM between the plugins' demos too: the run stops, and what it wrote goes.
        let interrupts = InterruptHandler(runtime: session.runtime, log: session.log)
        session.interrupts = interrupts
        defer { interrupts.remove() }
        /// A stopped demo (Ctrl-C, a full disk) leaves nothing half-written: the folders it writes go
        /// (the data folder and one per plugin; the output folder when this run made it).
        func removeOutput() {
            session.runtime.shutdown()
            PluginPackages.removeTree(data)
            for entry in session.site.plugins { PluginPackages.removeTree("\(out)/\(entry.alias)") }
            if !outExisted { rmdir(out) }
        }
        var results: [JSONValue] = []
        var failures = 0
        var text = "Clubhouse demo at site '\(session.site.name)' (data in \(session.dataDirectory))\n\n"
        for entry in session.site.plugins where entry.enabled {
            let alias = entry.alias
            if interrupts.interrupted {
                removeOutput()
                throw CLIError(status: .cancelled, message: "demo stopped by Ctrl-C before the \(alias) demo; its output was removed "
                        + "(nothing half-written is left in \(out))")
            }
            let router = session.runtime.router
            if case .success(let plugin) = session.runtime.resolve(alias), plugin.catalogue.command(named: "demo") == nil {
                text += "== \(alias): no demo\n\n"
                results.append(["plugin": .string(alias), "status": "no demo"])
                continue
            }
            let folder = "\(out)/\(alias)"
            let prepared: PreparedCall
            switch router.prepare(alias: alias, .json(command: "demo", arguments: ["out": .string(folder)]), origin: .demo) {
            case .success(let p): prepared = p
            case .failure(let e):
                let skipped = e.step == .plugin
                text += skipped ? "== \(alias): skipped — \(e.message)\n\n" : "== \(alias): demo cannot run: \(e.message)\n\n"
                results.append(["plugin": .string(alias), "status": skipped ? "unavailable" : "failed", "message": .string(e.message)])
                failures += 1
                continue
            }
            if !options.quiet && !options.json { StandardStreams.writeError("running \(alias) demo…\n") }
            let outcome = session.call(prepared)
            if outcome.status == .cancelled || interrupts.interrupted {
                removeOutput()
                throw CLIError(status: .cancelled, message: "demo stopped by Ctrl-C during the \(alias) demo; its output was removed "
                        + "(nothing half-written is left in \(out))")
            }
            if outcome.status != .ok, let full = DemoDisk.fullness(of: out, after: outcome.message) {
                removeOutput()
                throw CLIError(status: .io, message: "demo stopped: \(full) (the \(alias) demo: \(outcome.message)); its output was "
                        + "removed; free some space or give --out on another disk")
            }
            if outcome.status == .ok {
                let shown = outcome.text.map { TerminalText.shown($0, styled: false) } ?? JSONWriter.pretty(outcome.data) + "\n"
                text += "== \(alias)\n\(shown)\n"
                results.append(["plugin": .string(alias), "status": "ok", "out": .string(folder), "data": outcome.data])
            } else {
                failures += 1
                text += "== \(alias): FAILED — \(outcome.message)\n\n"
                results.append(["plugin": .string(alias), "status": "failed", "message": .string(outcome.message)])
            }
        }
        text += "Demo output written to \(out)\n"
        output(options, json: ["out": .string(out), "site": .string(session.site.name), "plugins": .array(results)], text: text)
        if failures > 0 {
            var error = CLIError(status: .error, message: "\(failures) plugin demo(s) failed (details above)")
            error.reported = true
            throw error
        }
        return 0
    }

    // MARK: device simulate

    /// The simulator is a program of its own (`clubhouse-KIND` beside clubhouse; the ball machine's is the
    /// tennis plugin's tool, Devices/DeviceSimulator.swift): this process becomes it, with the options checked here.
    static func deviceSimulate(_ arguments: JSONObject, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let kind = arguments["kind"]?.stringValue ?? "ballmachine"
        let text = arguments["listen"]?.stringValue ?? ""
        switch DeviceAddress.parse(text, listening: true) {
        case .success(.tcp), .success(.unix): break
        case .success: throw usage("--listen takes tcp:HOST:PORT or unix:PATH, not \(text)")
        case .failure(let e): throw usage("--listen: \(e.description)")
        }
        var words = ["--listen", text]
        if let c = arguments["checksum"]?.stringValue { words += ["--checksum", c] }
        if let r = arguments["reject-rate"]?.doubleValue {
            guard (0...1).contains(r) else { throw usage("--reject-rate must be a number from 0 to 1, got \(r)") }
            words += ["--reject-rate", String(r)]
        }
        if let l = arguments["latency"]?.intValue {
            guard (0...10_000).contains(l) else { throw usage("--latency must be 0-10000 milliseconds, got \(l)") }
            words += ["--latency", String(l)]
        }
        if options.quiet { words.append("--quiet") }
        let program = DeviceSimulator.program(kind)
        let argv = ([program] + words).map { strdup($0) }
        var pointers = argv + [nil]
        execv(program, &pointers)
        let reason = String(cString: strerror(errno))
        argv.forEach { free($0) }
        throw CLIError(status: .error, message: "cannot start the \(kind) simulator \(program): \(reason); it is installed beside "
                + "clubhouse (scripts/install.sh)")
    }

}

/// @unchecked Sendable: `value` is read and written under `lock`.
final class StopFlag: @unchecked Sendable {
    private let lock = Lock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Whether a demo's failure came from a full disk (the demo then stops instead of going on).
enum DemoDisk {
    /// What is full, or nil: a failure whose message says the disk is full (ENOSPC, SQLite's "database
    /// or disk is full", EFBIG under a file-size limit), or any failure while the output's file system
    /// has less than 64 KiB left.
    static func fullness(of folder: String, after message: String) -> String? {
        for sign in ["No space left on device", "database or disk is full", "File too large", "Disk quota exceeded"]
        where message.contains(sign) {
            return "the disk holding \(folder) is full"
        }
        var fs = statvfs()
        if statvfs(folder, &fs) == 0, UInt64(fs.f_bavail) * UInt64(fs.f_frsize) < 64 * 1024 {
            return "the disk holding \(folder) is full"
        }
        return nil
    }
}
