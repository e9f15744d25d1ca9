// Modes the host runs in its own child processes: probing a plugin file, validating one, and
// running background work a reply asked for.

import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON
import ClubhouseLoader
import ClubhouseRunner

enum InternalModes {
    static func run(_ mode: String, _ arguments: [String]) -> Int32 {
        switch mode {
        case "__probe":
            // Print a plugin file's id and version (used by discovery for files outside the build).
            guard arguments.count == 1 else { return 2 }
            // A file found in plugin_dirs may be untrusted: its constructors run confined when
            // the kernel can confine (a sandboxed plugin's code never runs unconfined).
            if Sandbox.unavailableReason() == nil, let problem = Sandbox.confine(pluginPath: arguments[0], connectPorts: []) {
                StandardStreams.writeError("\(arguments[0]): \(problem)\n")
                return 1
            }
            do {
                let library = try PluginLoader.open(path: arguments[0])
                let info = library.info
                StandardStreams.writeOutput(JSONWriter.compact(["id": .string(info.id), "version": .string(info.version),
                                                                "name": .string(info.name), "summary": .string(info.summary),
                                                                "abi": .string("\(info.abiMajor).\(info.abiMinor)"),
                                                                "build": .string(info.build)]) + "\n")
                return 0
            } catch {
                StandardStreams.writeError("\(error)\n")
                return 1
            }
        case "__completions":
            // __completions bash|zsh|fish: the shell completion script (scripts/install.sh).
            guard arguments.count == 1, let script = Completions.script(arguments[0]) else {
                StandardStreams.writeError("clubhouse: usage: clubhouse __completions bash|zsh|fish\n")
                return 2
            }
            StandardStreams.writeOutput(script)
            return 0
        case "__manpage":
            StandardStreams.writeOutput(Completions.manPage())
            return 0
        case "__create-check":
            // __create-check SITE ALIAS DATA-DIR [--config FILE]: creates one plugin (config validate).
            return ConfigCreateCheck.runChild(arguments)
        case "__package-check":
            // __package-check PATH: a library's descriptor and catalogue, checked (plugin pack and install).
            return PackageValidation.runChild(arguments)
        case "__swift-sdk-manifest":
            // The installed Swift SDK's Package.swift, naming this clubhouse's compiler (scripts/install.sh).
            StandardStreams.writeOutput(SwiftSDK.manifest())
            return 0
        case "__validate":
            // __validate PATH CHECK [--config FILE] [--site NAME] [--isolation I]: one check, one JSON line.
            guard arguments.count >= 2, arguments.count % 2 == 0 else { return 2 }
            var config: String?, site: String?, isolation: Isolation?
            for i in stride(from: 2, to: arguments.count, by: 2) {
                switch arguments[i] {
                case "--config": config = arguments[i + 1]
                case "--site": site = arguments[i + 1]
                case "--isolation":
                    guard let i = Isolation(rawValue: arguments[i + 1]) else { return 2 }
                    isolation = i
                default: return 2
                }
            }
            return PluginValidator.runCheck(path: arguments[0], check: arguments[1], configPath: config, siteName: site, isolation: isolation)
        case "__run":
            return runBackground(arguments)
        case "__runner":
            // __runner PATH [--limits MEMORY_MB,CPU_SECONDS,OPEN_FILES] [--id ID] [--sandbox PORT,…|-] [--verified FD]
            guard let path = arguments.first, arguments.count % 2 == 1 else { return 2 }
            var limits: [Int]?
            var id: String?
            var sandbox: [UInt16]?
            var verified: Int32?
            for i in stride(from: 1, to: arguments.count, by: 2) {
                switch arguments[i] {
                case "--limits": limits = arguments[i + 1].split(separator: ",").compactMap { Int($0) }
                case "--id": id = arguments[i + 1]
                case "--sandbox": sandbox = arguments[i + 1].split(separator: ",").compactMap { UInt16($0) }
                case "--verified": verified = Int32(arguments[i + 1])
                default: return 2
                }
            }
            return RunnerProcess.run(path: path, limits: limits, expectedID: id, sandbox: sandbox, verified: verified)
        default:
            StandardStreams.writeError("clubhouse: unknown internal mode \(mode)\n")
            return 2
        }
    }

    /// `__run [global options] ALIAS COMMAND ARGUMENTS-JSON`: runs a command a reply deferred.
    static func runBackground(_ arguments: [String]) -> Int32 {
        do {
            let options = try GlobalOptions.parse(arguments)
            guard options.words.count == 3 else { return 2 }
            let (alias, command, json) = (options.words[0], options.words[1], options.words[2])
            let session = try Session(options: options)
            guard let given = try JSONParser.parse(json).objectValue else {
                StandardStreams.writeError("background: arguments must be a JSON object\n")
                return 2
            }
            let outcome = session.runtime.router.route(alias: alias, .json(command: command, arguments: given), origin: .background)
            let line = outcome.status == .ok ? "background \(alias) \(command): ok" : "background \(alias) \(command): \(outcome.message)"
            StandardStreams.writeError(line + "\n")
            return outcome.status.exitCode
        } catch {
            StandardStreams.writeError("background: \(error)\n")
            return 1
        }
    }
}
