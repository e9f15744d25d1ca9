// `clubhouse plugin validate`: checks a plugin file the way clap-validator checks a CLAP plugin.
// Every check has a stable name (`plugin validate list`), runs in its own child process
// (`clubhouse __validate PATH CHECK`) with a time bound, and ends passed, failed, skipped (nothing
// to check, or a check it needs failed) or crashed — so a plugin that crashes or hangs in one check
// is reported with that check and the others still run. `--only NAME` runs some; `--site` and
// `--config` give the plugin its real configuration, grants, devices and isolation (on a throwaway
// data directory: validation never touches a site's databases), so a plugin that would be refused
// by the site's sandbox fails here; `--isolation` chooses one (without a site: in process).

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

public enum ValidationStatus: String, Sendable {
    case passed, failed, skipped, crashed
}

public struct ValidationCheck: Sendable {
    /// The stable name (`--only`), e.g. "describe-stable".
    public var id: String
    /// What the check makes sure of, as a sentence.
    public var name: String
    public var status: ValidationStatus
    public var detail: String
    public var milliseconds: Int
    /// Skipped counts as passed: there was nothing to check.
    public var passed: Bool { status == .passed || status == .skipped }
}

public struct ValidationCheckSpec: Sendable {
    public var id: String
    public var name: String
    /// Checks that must have passed for this one to mean anything (else it is skipped).
    public var requires: [String]
}

public enum PluginValidator {
    /// How long a long-running command may take to return once cancelled.
    static let cancellationBoundMilliseconds = 2_000
    /// Create/destroy cycles counted by the descriptor-leak check.
    static let leakCycles = 20

    public static let checks: [ValidationCheckSpec] = [
        .init(id: "elf", name: "file is an ELF shared library", requires: []),
        .init(id: "entry", name: "loads with RTLD_NOW and exports clubhouse_plugin_entry", requires: ["elf"]),
        .init(id: "descriptor", name: "descriptor: magic, ABI, struct_size, fields, toolchain", requires: ["entry"]),
        .init(id: "describe", name: "describe returns a valid command catalogue", requires: ["descriptor"]),
        .init(id: "describe-stable", name: "describe returns the same catalogue every time", requires: ["describe"]),
        .init(id: "create", name: "create succeeds on a fresh site", requires: ["describe"]),
        .init(id: "unknown-command", name: "an unknown command gets an error status, not a crash", requires: ["create"]),
        .init(id: "examples", name: "every example a command declares runs and succeeds", requires: ["create"]),
        .init(id: "cancellation", name: "a long-running command stops within 2 s of cancellation", requires: ["create"]),
        .init(id: "recreate", name: "destroy, then create and destroy again", requires: ["create"]),
        .init(id: "fd-leaks", name: "\(leakCycles) create/destroy cycles leave no file descriptor open", requires: ["create"]),
    ]

    /// Runs the checks (all, or those named in `only`), each in a child process bounded by
    /// `timeoutMilliseconds`. `siteArguments` (["--config", F, "--site", S, "--isolation", I] or
    /// fewer) are passed on.
    public static func validate(path: String, only: [String]? = nil, timeoutMilliseconds: Int = 30_000,
                                siteArguments: [String] = []) -> [ValidationCheck] {
        var results: [ValidationCheck] = []
        for spec in checks where only?.contains(spec.id) ?? true {
            if let missing = spec.requires.first(where: { id in results.contains { $0.id == id && $0.status != .passed } }) {
                results.append(ValidationCheck(id: spec.id, name: spec.name, status: .skipped,
                                               detail: "needs '\(missing)', which did not pass", milliseconds: 0))
                continue
            }
            results.append(runInChild(spec, path: path, timeoutMilliseconds: timeoutMilliseconds, siteArguments: siteArguments))
        }
        return results
    }

    /// Compatibility: every check, no site.
    public static func validateInChild(path: String, timeoutMilliseconds: Int = 30_000) -> [ValidationCheck] {
        validate(path: path, timeoutMilliseconds: timeoutMilliseconds)
    }

    static func runInChild(_ spec: ValidationCheckSpec, path: String, timeoutMilliseconds: Int, siteArguments: [String]) -> ValidationCheck {
        let started = Subprocess.monotonicNanoseconds()
        // No Swift backtrace in the child: a crash is reported here, and fast.
        let result = Subprocess.run(FileSystem.hostExecutable(), ["__validate", path, spec.id] + siteArguments,
                                    environment: ["SWIFT_BACKTRACE": "enable=no"], timeoutMilliseconds: timeoutMilliseconds)
        let elapsed = Int((Subprocess.monotonicNanoseconds() - started) / 1_000_000)
        func make(_ status: ValidationStatus, _ detail: String) -> ValidationCheck {
            ValidationCheck(id: spec.id, name: spec.name, status: status, detail: detail, milliseconds: elapsed)
        }
        if result.timedOut {
            return make(.failed, "did not finish within \(Double(timeoutMilliseconds) / 1000) s (a hang)")
        }
        let line = result.standardOutput.split(separator: 0x0A).last.map(Array.init) ?? []
        if result.exitCode == 0, let v = try? JSONParser.parse(bytes: line),
           let status = v["status"]?.stringValue.flatMap(ValidationStatus.init(rawValue:)) {
            return make(status, v["detail"]?.stringValue ?? "")
        }
        var detail = "the check's process was \(result.outcomeDescription)"
        let tail = String(decoding: result.standardError.suffix(300), as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        if !tail.isEmpty { detail += "; last output: \(tail)" }
        return make(.crashed, detail)
    }

    // MARK: the child

    /// The child side of one check: prints {"status", "detail"} and returns 0 (a crash or hang is
    /// the parent's to report).
    package static func runCheck(path: String, check: String, configPath: String?, siteName: String?, isolation: Isolation? = nil) -> Int32 {
        let (status, detail) = evaluate(path: path, check: check, configPath: configPath, siteName: siteName, isolation: isolation)
        StandardStreams.writeOutput(JSONWriter.compact(["status": .string(status.rawValue), "detail": .string(detail)]) + "\n")
        // Leave at once: a command that ignored cancellation may still be running on another thread.
        exit(0)
    }

    static func evaluate(path: String, check: String, configPath: String?, siteName: String?, isolation: Isolation?) -> (ValidationStatus, String) {
        if check == "elf" {
            do { try PluginLoader.checkELF(path: path) } catch { return (.failed, error.description) }
            return (.passed, "")
        }
        let library: PluginLibrary
        do {
            library = try PluginLoader.open(path: path)
        } catch {
            switch (check, error) {
            case ("entry", .dlopenFailed), ("entry", .noEntry), ("entry", .declined): return (.failed, error.description)
            case ("entry", _): return (.passed, "")
            default: return (.failed, error.description)
            }
        }
        let info = library.info
        switch check {
        case "entry": return (.passed, "")
        case "descriptor":
            var warnings: [String] = []
            for s in info.services where !SiteRuntime.offeredServices.contains(s) {
                warnings.append("needs \(s), which this host does not offer")
            }
            if info.name.isEmpty || info.summary.isEmpty { warnings.append("name and summary should not be empty") }
            return warnings.isEmpty ? (.passed, "\(info.id) \(info.version), ABI \(info.abiMajor).\(info.abiMinor), \(info.build)")
                : (.failed, warnings.joined(separator: "; "))
        default: break
        }
        let describeBytes: [UInt8]
        let catalogue: CommandCatalog
        do {
            describeBytes = try library.describe()
            switch CommandCatalog.parse(describeBytes, plugin: info.name) {
            case .success(let c): catalogue = c
            case .failure(let e): return (.failed, e.description)
            }
        } catch {
            return (.failed, error.description)
        }
        switch check {
        case "describe":
            return (.passed, "\(catalogue.commands.count) command(s): \(catalogue.commands.map(\.name).joined(separator: ", "))")
        case "describe-stable":
            for attempt in 2...5 {
                let again: [UInt8]
                do { again = try library.describe() } catch { return (.failed, "call \(attempt) of describe failed: \(error)") }
                if again != describeBytes {
                    let at = zip(again, describeBytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(again.count, describeBytes.count)
                    return (.failed, "call \(attempt) of describe returned a different catalogue than call 1 (first difference at byte \(at)); describe must be pure")
                }
            }
            return (.passed, "5 calls, \(describeBytes.count) identical bytes")
        default: break
        }
        let site: ValidationSite
        // Descriptors are counted in this process: the leak check runs the plugin here, whatever the site's isolation.
        let isolation = check == "fd-leaks" ? Isolation.inProcess : isolation
        switch ValidationSite.make(path: path, info: info, configPath: configPath, siteName: siteName, isolation: isolation) {
        case .success(let s): site = s
        case .failure(let e): return (.failed, e.message)
        }
        defer { site.removeData() }
        let runtime = site.runtime()
        // How it runs here, as at the site: "sandbox (auto: from outside the host's folders …)".
        var how = ""
        if case .success(let plugin) = runtime.resolve(site.alias) {
            how = "\(plugin.effectiveIsolation.rawValue) (\(plugin.entry.isolation == .auto ? "auto: " : "")\(plugin.isolationReason))"
        }
        switch runtime.instance(site.alias) {
        case .success: break
        case .failure(let e): return (.failed, e.message + (how.isEmpty ? "" : "; it ran \(how)"))
        }
        switch check {
        case "create":
            return (.passed, site.described + (how.isEmpty ? "" : ", \(how)"))
        case "unknown-command":
            // Past the router on purpose (it refuses an undeclared command itself): the plugin must refuse it too.
            let (status, reply) = runtime.callRaw(alias: site.alias, command: "__no_such_command__", arguments: JSONObject(),
                                                  context: CallContext(flags: 0, progress: Router.silent, alias: site.alias))
            let outcome = SiteRuntime.outcome(status: status, reply: reply, alias: site.alias, command: "__no_such_command__")
            if outcome.status == .ok {
                return (.failed, "invoke of an unknown command returned ok; return CLUBHOUSE_NOT_FOUND with a message")
            }
            if outcome.message.isEmpty { return (.failed, "the error status came without a message; write one line to the reply") }
            return (.passed, "\(outcome.status.name): \(outcome.message)")
        case "examples":
            return runExamples(runtime, site.alias, catalogue)
        case "cancellation":
            return checkCancellation(runtime, site.alias, catalogue)
        case "recreate":
            runtime.shutdown()
            let second = site.runtime()
            defer { second.shutdown() }
            switch second.instance(site.alias) {
            case .success: return (.passed, "")
            case .failure(let e): return (.failed, "second create failed: \(e.message)")
            }
        case "fd-leaks":
            runtime.shutdown()
            // Two warm-up cycles (first-use caches), then the counted ones.
            for _ in 0..<2 { if let failure = cycle(site) { return (.failed, failure) } }
            let before = openDescriptors()
            for _ in 0..<leakCycles { if let failure = cycle(site) { return (.failed, failure) } }
            let after = openDescriptors()
            let leaked = after.filter { before[$0.key] == nil }
            if leaked.count > 0 {
                let targets = leaked.values.sorted().prefix(5).joined(separator: ", ")
                return (.failed, "\(leaked.count) file descriptor(s) more after \(leakCycles) create/destroy cycles (\(targets)); close in destroy what create opened")
            }
            return (.passed, "\(before.count) descriptors before and after \(leakCycles) cycles (counted in process)")
        default:
            return (.failed, "unknown check '\(check)'")
        }
    }

    static func cycle(_ site: ValidationSite) -> String? {
        let runtime = site.runtime()
        defer { runtime.shutdown() }
        if case .failure(let e) = runtime.instance(site.alias) { return "create failed during the cycles: \(e.message)" }
        return nil
    }

    /// fd → what it points at, for this process.
    static func openDescriptors() -> [Int: String] {
        var found: [Int: String] = [:]
        guard let dir = opendir("/proc/self/fd") else { return found }
        let own = dirfd(dir)
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int(name), fd != Int(own) else { continue }
            var buffer = [CChar](repeating: 0, count: 1024)
            let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
            found[fd] = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        }
        return found
    }

    /// Each declared example: (command, words after the plugin name).
    static func examples(_ catalogue: CommandCatalog) -> [(CommandSpec, String)] {
        catalogue.commands.flatMap { command in command.examples.map { (command, $0) } }
    }

    /// Splits an example into words: spaces separate, '…' and "…" group.
    static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var quote: Character?
        var started = false
        for c in text {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                started = true
            } else if c == " " {
                if started || !current.isEmpty { out.append(current) }
                current = ""
                started = false
            } else {
                current.append(c)
            }
        }
        if started || !current.isEmpty { out.append(current) }
        return out
    }

    /// Routes one example like the command line would: the words must start with the command's name.
    struct ExampleProblem: Error { var message: String }

    static func prepare(_ spec: CommandSpec, _ example: String, runtime: SiteRuntime, alias: String) -> Result<PreparedCall, ExampleProblem> {
        let all = words(example)
        guard Array(all.prefix(spec.words.count)) == spec.words else {
            return .failure(ExampleProblem(message: "example '\(example)' of '\(spec.name)' does not start with the command's name"))
        }
        switch runtime.router.prepare(alias: alias, .words(all), origin: .commandLine) {
        case .success(let call): return .success(call)
        case .failure(let e): return .failure(ExampleProblem(message: "example '\(example)' of '\(spec.name)' does not parse: \(e.message)"))
        }
    }

    static func runExamples(_ runtime: SiteRuntime, _ alias: String, _ catalogue: CommandCatalog) -> (ValidationStatus, String) {
        let list = examples(catalogue).filter { !$0.0.longRunning }
        guard !list.isEmpty else {
            return (.skipped, "no command declares \"examples\" (describe: \"examples\": [\"COMMAND --arg value\"]); add them so validate can run them")
        }
        let router = runtime.router
        for (spec, example) in list {
            let call: PreparedCall
            switch prepare(spec, example, runtime: runtime, alias: alias) {
            case .success(let prepared): call = prepared
            case .failure(let problem): return (.failed, problem.message)
            }
            let outcome = router.run(call, context: router.context(for: call))
            guard outcome.status == .ok else {
                return (.failed, "example '\(example)' failed (\(outcome.status.name)): \(outcome.message)")
            }
        }
        return (.passed, "\(list.count) example(s): \(list.map(\.1).joined(separator: "; "))")
    }

    static func checkCancellation(_ runtime: SiteRuntime, _ alias: String, _ catalogue: CommandCatalog) -> (ValidationStatus, String) {
        let list = examples(catalogue).filter { $0.0.longRunning }
        guard !list.isEmpty else {
            return (.skipped, "no long-running command declares an example to cancel")
        }
        var stopped: [String] = []
        let router = runtime.router
        for (spec, example) in list {
            let prepared: PreparedCall
            switch prepare(spec, example, runtime: runtime, alias: alias) {
            case .success(let p): prepared = p
            case .failure(let problem): return (.failed, problem.message)
            }
            let context = router.context(for: prepared)
            let done = Semaphore()
            do throws(ThreadStartError) {
                try Thread.start { _ = router.run(prepared, context: context); done.signal() }
            } catch {
                return (.failed, "'\(example)' was not run: \(error)")
            }
            // Cancel once it is under way (a command that finishes first passes).
            if done.wait(milliseconds: 300) {
                stopped.append("'\(example)' finished before the cancel")
                continue
            }
            let cancelledAt = Subprocess.monotonicNanoseconds()
            context.cancel()
            guard done.wait(milliseconds: cancellationBoundMilliseconds) else {
                return (.failed, "'\(example)' did not stop within \(cancellationBoundMilliseconds / 1000) s of cancellation; check is_cancelled (call.h) or call.isCancelled in its loops")
            }
            stopped.append("'\(example)' stopped \((Subprocess.monotonicNanoseconds() - cancelledAt) / 1_000_000) ms after the cancel")
        }
        return (.passed, stopped.joined(separator: "; "))
    }
}

/// The site a check runs the plugin in: the configured one (--site / --config: the plugin's entry,
/// its config, grants, isolation and the site's devices) or a throwaway one granting what the
/// plugin asks for, in process (the check's child process is the crash boundary) unless
/// `--isolation` says otherwise; always on a fresh data directory.
struct ValidationSite {
    var configuration: SiteConfiguration
    var site: Site
    var alias: String
    var dataDirectory: String
    var described: String

    struct Problem: Error { var message: String }

    static func make(path: String, info: PluginDescriptorInfo, configPath: String?, siteName: String?,
                     isolation: Isolation? = nil) -> Result<ValidationSite, Problem> {
        let data = "/tmp/clubhouse-validate-\(getpid())"
        guard configPath != nil || siteName != nil else {
            var grants: [Grant] = [.storage]
            if info.services.contains(CLUBHOUSE_SERVICE_INVOKE) { grants.append(.invoke("*")) }
            var devices: [String: DeviceEntry] = [:]
            if info.services.contains(CLUBHOUSE_SERVICE_DEVICE) {
                devices["ballmachine"] = DeviceEntry(name: "ballmachine", transport: .simulator(kind: "ballmachine"), trace: false,
                                                     connectTimeoutMilliseconds: 1000, options: JSONObject())
                grants.append(.device("ballmachine"))
            }
            let entry = PluginEntry(alias: "validated", id: info.id, enabled: true, path: path, versionRequirement: nil,
                                    config: .object(JSONObject()), grants: grants, isolation: isolation ?? .inProcess,
                                    timeoutMilliseconds: 10_000, location: SourceLocation(line: 1, column: 1, offset: 0))
            let site = Site(name: "validate", description: "", plugins: [entry], devices: devices)
            let configuration = SiteConfiguration(source: "<validate>", baseDirectory: nil, defaultSite: "validate",
                                                  pluginDirectories: [], dataDirectory: data, sites: ["validate": site],
                                                  siteOrder: ["validate"])
            return .success(ValidationSite(configuration: configuration, site: site, alias: "validated", dataDirectory: data,
                                           described: "a throwaway site granting \(grants.map(\.description).joined(separator: ", "))"))
        }
        var configuration: SiteConfiguration
        do {
            if let configPath {
                let absolute = FileSystem.absolute(configPath)
                let bytes: [UInt8]
                do { bytes = try FileSystem.read(absolute) } catch { return .failure(Problem(message: "\(configPath): cannot read the configuration (\(error.reason))")) }
                configuration = try ConfigurationParser.parse(String(decoding: bytes, as: UTF8.self), source: configPath,
                                                              baseDirectory: FileSystem.directoryName(absolute))
            } else {
                configuration = try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "<embedded plugins.json>", baseDirectory: nil)
            }
        } catch {
            return .failure(Problem(message: error.errors.first?.description ?? "invalid configuration"))
        }
        let name = siteName ?? configuration.defaultSite
        guard var site = configuration.sites[name] else {
            return .failure(Problem(message: "no site '\(name)' in \(configuration.source); sites are: \(configuration.siteOrder.joined(separator: ", "))"))
        }
        let real = FileSystem.realPath(path) ?? path
        let paths = site.plugins.map { $0.path.map { FileSystem.absolute($0, relativeTo: configuration.baseDirectory) } }
        let byIDOrFile = site.plugins.indices.first { i in
            site.plugins[i].id == info.id || paths[i].map { FileSystem.realPath($0) == real } == true
        }
        // A plugin the site names by "path" alone is matched by the id in that file (read in a
        // throwaway child): a new build validated at the site that runs an older copy of it.
        let byFileID = byIDOrFile == nil ? site.plugins.indices.first { i in
            site.plugins[i].id == nil && paths[i].map { (try? PluginDiscovery.probeInChild($0).get()) == info.id } == true
        } : nil
        guard let index = byIDOrFile ?? byFileID else {
            return .failure(Problem(message: "site '\(name)' in \(configuration.source) has no plugin with id \(info.id) (its plugins: \(site.plugins.map(\.alias).joined(separator: ", "))); validate without --site, or add it there"))
        }
        var entry = site.plugins[index]
        entry.path = path
        // The site's isolation ("auto" chooses by where the file is, as at the site), or the one asked for.
        entry.isolation = isolation ?? entry.isolation
        entry.enabled = true
        site.plugins = [entry]
        configuration.sites = [name: site]
        configuration.siteOrder = [name]
        configuration.dataDirectory = data
        configuration.pluginDirectories = []
        return .success(ValidationSite(configuration: configuration, site: site, alias: entry.alias, dataDirectory: data,
                                       described: "site '\(name)' of \(configuration.source) as plugin '\(entry.alias)'"))
    }

    func runtime() -> SiteRuntime {
        SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory, log: LogBroker(verbosity: 0, color: false),
                    enforcesLock: false)
    }

    func removeData() { _ = Subprocess.run("/bin/rm", ["-rf", dataDirectory]) }
}
