// The host's own commands: plugins list/info, plugin validate, config validate/schema, demo,
// device simulate, serve.

import ClubhouseABI
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

enum BuiltinCommands {
    static func output(_ options: GlobalOptions, json: JSONValue, text: String) {
        if options.json { StandardStreams.writeOutput(JSONWriter.pretty(json) + "\n") } else { StandardStreams.writeOutput(text) }
    }

    static func usage(_ message: String) -> CLIError { CLIError(status: .invalidArgument, message: message) }

    // MARK: plugins

    static func plugins(_ words: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        switch words.first {
        case "list" where words.count == 1: return try pluginsList(options)
        case "info" where words.count == 2: return try pluginsInfo(words[1], options)
        case "info": throw usage("usage: clubhouse plugins info PLUGIN (a name from clubhouse plugins list, or an id)")
        default: throw usage("usage: clubhouse plugins list | clubhouse plugins info PLUGIN")
        }
    }

    static func pluginsList(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let session = try Session(options: options)
        var rows: [JSONValue] = []
        var table: [[String]] = [["PLUGIN", "ID", "VERSION", "LANG", "COMMANDS", "STATUS"]]
        var failures: [String] = []
        session.runtime.resolveAll()
        for entry in session.site.plugins {
            var row = JSONObject()
            row["plugin"] = .string(entry.alias)
            row["enabled"] = .bool(entry.enabled)
            guard entry.enabled else {
                row["id"] = entry.id.map { .string($0) } ?? .null
                row["status"] = "disabled"
                rows.append(.object(row))
                table.append([entry.alias, entry.id ?? "-", "-", "-", "-", "disabled"])
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
                row["status"] = "loaded"
                table.append([entry.alias, info.id, info.version, info.language, String(p.catalogue.commands.count), "loaded"])
            case .failure(let e):
                row["id"] = entry.id.map { .string($0) } ?? .null
                row["status"] = "error"
                row["error"] = .string(e.message)
                failures.append(e.message)
                table.append([entry.alias, entry.id ?? "-", "-", "-", "-", "error (see below)"])
            }
            rows.append(.object(row))
        }
        var text = "Site '\(session.site.name)' (\(session.configuration.source)):\n" + formatTable(table)
        for f in failures { text += "error: \(f)\n" }
        output(options, json: ["site": .string(session.site.name), "plugins": .array(rows)], text: text)
        if !failures.isEmpty {
            if options.strict {
                var error = CLIError(status: .error, message: "\(failures.count) plugin(s) failed to load (--strict)")
                error.reported = true
                throw error
            }
            if !options.json { StandardStreams.writeError("clubhouse: warning: \(failures.count) plugin(s) failed to load; the others work\n") }
        }
        return 0
    }

    static func formatTable(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = first.map(\.count)
        for row in rows { for (i, c) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        return rows.map { row in
            row.enumerated().map { i, c in i == row.count - 1 ? c : HelpText.pad(c, widths[i]) }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
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
          isolation   \(entry.isolation.rawValue)
          config      \(JSONWriter.compact(entry.config))
          commands\n
        """
        for c in plugin.catalogue.commands { text += "    \(c.name) — \(c.summary)\n" }
        output(options, json: .object(json), text: text)
        return 0
    }

    // MARK: plugin validate

    static func plugin(_ words: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let usageText = "usage: clubhouse plugin validate PATH.so [--timeout SECONDS]"
        guard words.first == "validate", words.count == 2 || words.count == 4 else { throw usage(usageText) }
        var timeout = 30.0
        if words.count == 4 {
            guard words[2] == "--timeout", let t = Double(words[3]), t > 0, t <= 3600 else {
                throw usage("--timeout must be 0-3600 seconds; \(usageText)")
            }
            timeout = t
        }
        let path = FileSystem.absolute(words[1])
        let report = PluginValidator.validateInChild(path: path, timeoutMilliseconds: Int(timeout * 1000))
        let failed = report.filter { !$0.passed }
        var text = "Validating \(path)\n"
        for check in report {
            text += "  \(check.passed ? "PASS" : "FAIL")  \(check.name)\(check.detail.isEmpty ? "" : ": \(check.detail)")\n"
        }
        text += failed.isEmpty ? "\(report.count) checks passed; the plugin is ready for a site.\n"
            : "\(failed.count) of \(report.count) checks failed.\n"
        let json: JSONValue = ["path": .string(path), "ok": .bool(failed.isEmpty),
                               "checks": .array(report.map { ["name": .string($0.name), "passed": .bool($0.passed), "detail": .string($0.detail)] })]
        output(options, json: json, text: text)
        if !failed.isEmpty {
            var error = CLIError(status: .error, message: "\(path): \(failed.count) check(s) failed; first: \(failed[0].name): \(failed[0].detail)")
            error.reported = true
            throw error
        }
        return 0
    }

    // MARK: config

    static func config(_ words: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        switch words.first {
        case "schema" where words.count == 1:
            StandardStreams.writeOutput(EmbeddedDefaults.schemaJSON + "\n")
            return 0
        case "validate" where words.count <= 2:
            var o = options
            if words.count == 2 { o.configPath = words[1] }
            return try configValidate(o)
        default:
            throw usage("usage: clubhouse config validate [FILE] | clubhouse config schema")
        }
    }

    static func configValidate(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let source = options.configPath ?? "<embedded plugins.json>"
        let text: String
        var base: String?
        if let path = options.configPath {
            let absolute = FileSystem.absolute(path)
            do {
                text = String(decoding: try FileSystem.read(absolute), as: UTF8.self)
            } catch {
                throw CLIError(status: .error, message: "\(path): cannot read (\(error.reason))")
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
        if let configuration {
            let dataDirectory = options.resolveDataDirectory(configuration)
            let log = LogBroker(verbosity: options.verbosity, color: false)
            for name in configuration.siteOrder {
                guard let site = configuration.sites[name] else { continue }
                let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: log)
                var loaded = 0
                for entry in site.plugins where entry.enabled {
                    switch runtime.resolve(entry.alias) {
                    case .success: loaded += 1
                    case .failure(let e): problems.append("\(source):\(entry.location.line):\(entry.location.column): site '\(name)': \(e.message)")
                    }
                }
                sitesChecked.append(["site": .string(name), "plugins": .int(site.plugins.count), "loaded": .int(loaded)])
            }
        }
        let json: JSONValue = ["file": .string(source), "ok": .bool(problems.isEmpty),
                               "problems": .array(problems.map { .string($0) }), "sites": .array(sitesChecked)]
        var report = problems.map { $0 + "\n" }.joined()
        if problems.isEmpty {
            report = "\(source): valid (\(sitesChecked.count) site(s); every enabled plugin loads)\n"
        }
        if options.json { StandardStreams.writeOutput(JSONWriter.pretty(json) + "\n") }
        else if problems.isEmpty { StandardStreams.writeOutput(report) } else { StandardStreams.writeError(report) }
        if !problems.isEmpty {
            var error = CLIError(status: .error, message: "\(source): \(problems.count) problem(s) found")
            error.reported = true
            throw error
        }
        return 0
    }

    // MARK: demo

    static func demo(_ words: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        var out = FileSystem.currentDirectory() + "/clubhouse-demo"
        var i = 0
        while i < words.count {
            if words[i] == "--out", i + 1 < words.count { out = FileSystem.absolute(words[i + 1]); i += 2; continue }
            if words[i].hasPrefix("--out=") { out = FileSystem.absolute(String(words[i].dropFirst(6))); i += 1; continue }
            throw usage("usage: clubhouse demo [--out DIR]")
        }
        do {
            try FileSystem.createDirectory(out)
        } catch {
            throw CLIError(status: .error, message: "cannot create the demo folder: \(error)")
        }
        // A fresh data directory inside the output folder, unless one was given explicitly.
        var dataOverride: String?
        if options.dataDirectory == nil {
            let data = out + "/data"
            dataOverride = data
            let configuration = try options.loadConfiguration()
            let siteDir = "\(data)/\(options.site ?? configuration.defaultSite)"
            for file in FileSystem.files(in: siteDir, suffix: "") where file.hasSuffix(".sqlite") || file.hasSuffix(".sqlite-wal")
                || file.hasSuffix(".sqlite-shm") {
                unlink(file)
            }
        }
        let session = try Session(options: options, dataDirectoryOverride: dataOverride)
        var results: [JSONValue] = []
        var failures = 0
        var text = "Clubhouse demo at site '\(session.site.name)' (data in \(session.dataDirectory))\n\n"
        for entry in session.site.plugins where entry.enabled {
            let alias = entry.alias
            guard case .success(let plugin) = session.runtime.resolve(alias) else {
                if case .failure(let e) = session.runtime.resolve(alias) {
                    text += "== \(alias): skipped — \(e.message)\n\n"
                    results.append(["plugin": .string(alias), "status": "unavailable", "message": .string(e.message)])
                    failures += 1
                }
                continue
            }
            guard let command = plugin.catalogue.command(named: "demo") else {
                text += "== \(alias): no demo\n\n"
                results.append(["plugin": .string(alias), "status": "no demo"])
                continue
            }
            let folder = "\(out)/\(alias)"
            var arguments = JSONObject()
            do {
                arguments = try ArgumentParser.validate(["out": .string(folder)], for: command, plugin: alias)
            } catch {
                text += "== \(alias): demo cannot run: \(error.message)\n\n"
                failures += 1
                continue
            }
            if !options.quiet && !options.json { StandardStreams.writeError("running \(alias) demo…\n") }
            let outcome = session.call(alias: alias, command: command, arguments: arguments)
            if outcome.status == .ok {
                text += "== \(alias)\n\(outcome.text ?? JSONWriter.pretty(outcome.data) + "\n")\n"
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

    static func device(_ words: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let usageText = "usage: clubhouse device simulate ballmachine --listen tcp:127.0.0.1:PORT|unix:PATH [--checksum xor|modbus] [--reject-rate R] [--latency MS]"
        guard words.count >= 2, words[0] == "simulate" else { throw usage(usageText) }
        guard words[1] == "ballmachine" else {
            throw usage("unknown device kind '\(words[1])'; the simulator knows: ballmachine")
        }
        var listen: DeviceAddress?
        var simulatorOptions = BallMachineSimulatorOptions()
        var i = 2
        func value() throws(CLIError) -> String {
            guard i + 1 < words.count else { throw usage("\(words[i]) needs a value; \(usageText)") }
            defer { i += 2 }
            return words[i + 1]
        }
        while i < words.count {
            switch words[i] {
            case "--listen":
                let text = try value()
                switch DeviceAddress.parse(text, listening: true) {
                case .success(let a):
                    switch a {
                    case .tcp, .unix: listen = a
                    default: throw usage("--listen takes tcp:HOST:PORT or unix:PATH, not \(text)")
                    }
                case .failure(let e): throw usage("--listen: \(e.description)")
                }
            case "--checksum":
                let text = try value()
                guard let c = BallMachineSimulatorOptions.Checksum(rawValue: text) else {
                    throw usage("--checksum must be xor or modbus, got '\(text)'")
                }
                simulatorOptions.checksum = c
            case "--reject-rate":
                let text = try value()
                guard let r = Double(text), (0...1).contains(r) else { throw usage("--reject-rate must be a number from 0 to 1, got '\(text)'") }
                simulatorOptions.rejectRate = r
            case "--latency":
                let text = try value()
                guard let l = Int(text), (0...10_000).contains(l) else { throw usage("--latency must be 0-10000 milliseconds, got '\(text)'") }
                simulatorOptions.latencyMilliseconds = l
            default:
                throw usage("unknown option '\(words[i])'; \(usageText)")
            }
        }
        guard let listen else { throw usage("--listen is required; \(usageText)") }
        let quiet = options.quiet
        let simulator = BallMachineSimulator(options: simulatorOptions) { line in
            if !quiet { StandardStreams.writeError("simulator: \(line)\n") }
        }
        let stopFlag = StopFlag()
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignalHolder in
            DispatchSourceSignalHolder(sig) { stopFlag.set() }
        }
        defer { sources.forEach { $0.cancel() } }
        do {
            try simulator.listen(on: listen, ready: { bound in
                StandardStreams.writeOutput("listening on \(bound) (checksum \(simulatorOptions.checksum.rawValue), reject rate \(simulatorOptions.rejectRate), latency \(simulatorOptions.latencyMilliseconds) ms)\n")
            }, stop: { stopFlag.isSet })
        } catch {
            throw CLIError(status: error.status, message: error.message)
        }
        return 0
    }

    // MARK: serve

    static func serve(_ words: [String], _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let session = try Session(options: options)
        return try JSONRPCServer.run(words, session: session)
    }
}

final class StopFlag: @unchecked Sendable {
    private let lock = Lock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
