// `clubhouse plugin validate`: checks a plugin file the way clap-validator checks a CLAP plugin.
// The checks run in a child process (`clubhouse __validate PATH`) that prints one JSON line per
// check as it goes, so a plugin that crashes or hangs is reported with the check it broke.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

public struct ValidationCheck: Sendable {
    public var name: String
    public var passed: Bool
    public var detail: String
}

public enum PluginValidator {
    /// The checks in order; the child reports each before starting the next.
    static let stages = [
        "file is an ELF shared library",
        "loads with RTLD_NOW and exports clubhouse_plugin_entry",
        "descriptor: magic, ABI, struct_size, fields, toolchain",
        "describe returns a valid command catalogue",
        "create succeeds on a fresh site",
        "an unknown command gets an error status, not a crash",
        "destroy, then create and destroy again",
    ]

    /// Runs the checks in a child and collects the report (a crash or hang fails the stage it hit).
    public static func validateInChild(path: String, timeoutMilliseconds: Int = 30_000) -> [ValidationCheck] {
        // No Swift backtrace in the child: a crash is reported here, and fast.
        let result = Subprocess.run(FileSystem.hostExecutable(), ["__validate", path],
                                    environment: ["SWIFT_BACKTRACE": "enable=no"], timeoutMilliseconds: timeoutMilliseconds)
        var checks: [ValidationCheck] = []
        for line in result.standardOutput.split(separator: 0x0A) {
            guard let v = try? JSONParser.parse(bytes: line), let name = v["name"]?.stringValue else { continue }
            checks.append(ValidationCheck(name: name, passed: v["passed"]?.boolValue ?? false, detail: v["detail"]?.stringValue ?? ""))
        }
        let ended = result.exitCode == 0 || result.exitCode == 1
        if !ended || result.timedOut {
            let stage = checks.count < stages.count ? stages[checks.count] : "after the last check"
            let cause = result.timedOut ? "did not finish within \(Double(timeoutMilliseconds) / 1000) s (a hang)" : "the validator process was \(result.outcomeDescription)"
            var detail = cause
            let stderrTail = String(decoding: result.standardError.suffix(300), as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? ""
            if !stderrTail.isEmpty { detail += "; last output: \(stderrTail)" }
            checks.append(ValidationCheck(name: stage, passed: false, detail: detail))
        }
        if checks.isEmpty {
            checks.append(ValidationCheck(name: stages[0], passed: false,
                                          detail: "the validator produced no report (\(result.outcomeDescription))"))
        }
        return checks
    }

    /// The child side: runs every check, printing one JSON line each, stopping at the first failure
    /// that makes later checks meaningless. Returns the exit code (0 all passed, 1 a check failed).
    package static func runChecks(path: String) -> Int32 {
        func report(_ index: Int, _ passed: Bool, _ detail: String = "") {
            let line: JSONValue = ["name": .string(stages[index]), "passed": .bool(passed), "detail": .string(detail)]
            StandardStreams.writeOutput(JSONWriter.compact(line) + "\n")
        }
        do {
            try PluginLoader.checkELF(path: path)
            report(0, true)
        } catch {
            report(0, false, error.description)
            return 1
        }
        let library: PluginLibrary
        do {
            library = try PluginLoader.open(path: path)
        } catch {
            switch error {
            case .dlopenFailed, .noEntry, .declined: report(1, false, error.description)
            default:
                report(1, true)
                report(2, false, error.description)
            }
            return 1
        }
        report(1, true)
        let info = library.info
        var warnings: [String] = []
        for s in info.services where !SiteRuntime.offeredServices.contains(s) {
            warnings.append("needs \(s), which this host does not offer")
        }
        if info.name.isEmpty || info.summary.isEmpty { warnings.append("name and summary should not be empty") }
        report(2, warnings.isEmpty, warnings.isEmpty
            ? "\(info.id) \(info.version), ABI \(info.abiMajor).\(info.abiMinor), \(info.build)" : warnings.joined(separator: "; "))
        let catalogue: CommandCatalog
        do {
            switch CommandCatalog.parse(try library.describe(), plugin: info.name) {
            case .success(let c):
                catalogue = c
                report(3, true, "\(c.commands.count) command(s): \(c.commands.map(\.name).joined(separator: ", "))")
            case .failure(let e):
                report(3, false, e.description)
                return 1
            }
        } catch {
            report(3, false, error.description)
            return 1
        }
        _ = catalogue
        // A throwaway site that grants what the plugin asks for.
        let temporary = "/tmp/clubhouse-validate-\(getpid())"
        defer { _ = Subprocess.run("/bin/rm", ["-rf", temporary]) }
        var grants: [Grant] = [.storage]
        if info.services.contains(CLUBHOUSE_SERVICE_INVOKE) { grants.append(.invoke("*")) }
        var devices: [String: DeviceEntry] = [:]
        if info.services.contains(CLUBHOUSE_SERVICE_DEVICE) {
            devices["ballmachine"] = DeviceEntry(name: "ballmachine", transport: .simulator(kind: "ballmachine"), trace: false,
                                                 connectTimeoutMilliseconds: 1000, options: JSONObject())
            grants.append(.device("ballmachine"))
        }
        let entry = PluginEntry(alias: "validated", id: info.id, enabled: true, path: path, versionRequirement: nil,
                                config: .object(JSONObject()), grants: grants, isolation: .inProcess,
                                timeoutMilliseconds: 10_000, location: SourceLocation(line: 1, column: 1, offset: 0))
        let site = Site(name: "validate", description: "", plugins: [entry], devices: devices)
        let configuration = SiteConfiguration(source: "<validate>", baseDirectory: nil, defaultSite: "validate",
                                              pluginDirectories: [], dataDirectory: temporary, sites: ["validate": site],
                                              siteOrder: ["validate"])
        let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: temporary,
                                  log: LogBroker(verbosity: 0, color: false))
        switch runtime.instance("validated") {
        case .success: report(4, true)
        case .failure(let e):
            report(4, false, e.message)
            return 1
        }
        let outcome = runtime.call(alias: "validated", command: "__no_such_command__", arguments: JSONObject())
        if outcome.status == .ok {
            report(5, false, "invoke of an unknown command returned ok; return CLUBHOUSE_NOT_FOUND with a message")
        } else if outcome.message.isEmpty {
            report(5, false, "the error status came without a message; write one line to the reply")
        } else {
            report(5, true, "\(outcome.status.name): \(outcome.message)")
        }
        runtime.shutdown()
        let second = SiteRuntime(configuration: configuration, site: site, dataDirectory: temporary,
                                 log: LogBroker(verbosity: 0, color: false))
        switch second.instance("validated") {
        case .success:
            second.shutdown()
            report(6, true)
        case .failure(let e):
            report(6, false, "second create failed: \(e.message)")
            return 1
        }
        return outcome.status == .ok ? 1 : 0
    }
}
