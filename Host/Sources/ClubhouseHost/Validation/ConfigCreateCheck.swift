// `clubhouse config validate` creates every enabled plugin of every site, so what a site's load
// would refuse (a config value out of range, a missing grant, a database it cannot migrate) is
// reported before the site runs: each plugin in its own child process (`__create-check`), bounded
// in time, with the site's configuration, grants, lock and isolation, on a throwaway data
// directory (validation never migrates or writes a site's databases). A crash or a hang in one
// plugin's create is that plugin's failure; the others are still created.

import ClubhousePlatform
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

public enum ConfigCreateCheck {
    /// One plugin to create: its site and its name there.
    public struct Target: Sendable {
        public var site: String
        public var alias: String
        public init(site: String, alias: String) {
            self.site = site
            self.alias = alias
        }
    }

    /// Creates each target in a child of its own (two at a time), each bounded by `timeoutMilliseconds`.
    /// Returns, in the targets' order, nil for a plugin that was created, or why it was not (one line).
    public static func run(_ targets: [Target], configPath: String?, dataDirectory: String,
                           timeoutMilliseconds: Int) -> [String?] {
        let results = Slots(count: targets.count)
        let next = Counter()
        let group = WaitGroup()
        let work = {
            while let i = next.take(below: targets.count) {
                results.set(i, create(targets[i], configPath: configPath, dataDirectory: dataDirectory,
                                      timeoutMilliseconds: timeoutMilliseconds))
            }
        }
        var started = 0
        for _ in 0..<min(2, targets.count) {
            group.enter()
            do throws(ThreadStartError) {
                try Thread.start {
                    work()
                    group.leave()
                }
                started += 1
            } catch {
                group.leave()
            }
        }
        // No thread would start: the targets are created on this one, one at a time.
        if started == 0 { work() }
        group.wait()
        return (0..<targets.count).map { results.get($0) }
    }

    static func create(_ target: Target, configPath: String?, dataDirectory: String, timeoutMilliseconds: Int) -> String? {
        var arguments = ["__create-check", target.site, target.alias, dataDirectory]
        if let configPath { arguments += ["--config", configPath] }
        let result = Subprocess.run(FileSystem.hostExecutable(), arguments, environment: ["SWIFT_BACKTRACE": "enable=no"],
                                    timeoutMilliseconds: timeoutMilliseconds)
        if result.timedOut {
            return "plugin '\(target.alias)' did not finish being created within \(Double(timeoutMilliseconds) / 1000) s (a hang in its create); config validate --timeout SECONDS allows longer"
        }
        let line = result.standardOutput.split(separator: 0x0A).last.map(Array.init) ?? []
        if result.exitCode == 0, let v = try? JSONParser.parse(bytes: line), let status = v["status"]?.stringValue {
            return status == "ok" ? nil : (v["message"]?.stringValue ?? "plugin '\(target.alias)' cannot be created")
        }
        var detail = "plugin '\(target.alias)' crashed while being created (its process was \(result.outcomeDescription))"
        let tail = String(decoding: result.standardError.suffix(300), as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        if !tail.isEmpty { detail += "; last output: \(tail)" }
        return detail
    }

    /// The child: `__create-check SITE ALIAS DATA-DIR [--config FILE]` creates the plugin and prints
    /// {"status": "ok"} or {"status": "failed", "message"}.
    package static func runChild(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3 || (arguments.count == 5 && arguments[3] == "--config") else { return 2 }
        let (siteName, alias, dataDirectory) = (arguments[0], arguments[1], arguments[2])
        let configuration: SiteConfiguration
        do {
            if arguments.count == 5 {
                let path = arguments[4]
                let absolute = FileSystem.absolute(path)
                let bytes: [UInt8]
                do { bytes = try FileSystem.read(absolute) } catch { return report("\(path): cannot read (\(error.reason))") }
                configuration = try ConfigurationParser.parse(String(decoding: bytes, as: UTF8.self), source: path,
                                                              baseDirectory: FileSystem.directoryName(absolute))
            } else {
                configuration = try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "<embedded plugins.json>", baseDirectory: nil)
            }
        } catch {
            return report(error.errors.first?.description ?? "invalid configuration")
        }
        guard let site = configuration.sites[siteName] else { return report("no site '\(siteName)'") }
        let scratch = "/tmp/clubhouse-config-validate-\(getpid())"
        defer { _ = Subprocess.run("/bin/rm", ["-rf", scratch]) }
        let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory,
                                  log: LogBroker(verbosity: 0, color: false), storageDirectory: scratch)
        defer { runtime.shutdown() }
        switch runtime.instance(alias) {
        case .success: return report(nil)
        case .failure(let e): return report(e.message)
        }
    }

    private static func report(_ failure: String?) -> Int32 {
        let reply: JSONValue = failure.map { ["status": "failed", "message": .string($0)] } ?? ["status": "ok"]
        StandardStreams.writeOutput(JSONWriter.compact(reply) + "\n")
        return 0
    }
}

/// Results filled by the workers, one slot each.
/// @unchecked Sendable: `values` is read and written under `lock`.
private final class Slots: @unchecked Sendable {
    // Safe: every access holds `lock`.
    private let lock = Lock()
    private var values: [String?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: String?) { lock.withLock { values[i] = value } }
    func get(_ i: Int) -> String? { lock.withLock { values[i] } }
}

/// Hands out the indexes 0, 1, 2, … once each.
/// @unchecked Sendable: `value` is read and written under `lock`.
private final class Counter: @unchecked Sendable {
    // Safe: every access holds `lock`.
    private let lock = Lock()
    private var value = 0
    func take(below limit: Int) -> Int? {
        lock.withLock {
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}
