// What `plugin pack` and `plugin install` check of a library before a site ever loads it: its
// descriptor (the loader's checks, the services it needs) and its command catalogue (argument
// types, names, the config schema), read in a throwaway child process confined like a probe
// (`__package-check PATH`), and — at install — that the manifest says what the library is.
// A library that would fail when a site first loads it is refused here, naming the plugin and
// what is wrong.

import ClubhouseHost
import ClubhousePlatform
import ClubhouseABI
import ClubhouseJSON
import ClubhouseRunner
import ClubhouseLoader

enum PackageValidation {
    enum Action: String {
        case pack, install
    }

    struct Findings {
        var id, version, name, summary, abi, build: String
        var problems: [String]
    }

    /// Checks the library at `path` (named `given` in messages); at install, `manifest` is the package's.
    static func check(library path: String, given: String, manifest: JSONValue?, action: Action) throws(CLIError) {
        let result = Subprocess.run(FileSystem.hostExecutable(), ["__package-check", path],
                                    environment: ["SWIFT_BACKTRACE": "enable=no"], timeoutMilliseconds: 30_000)
        let tail = action == .install ? "; nothing was installed" : ""
        guard result.exitCode == 0, let v = try? JSONParser.parse(bytes: result.standardOutput),
              let id = v["id"]?.stringValue, let version = v["version"]?.stringValue else {
            let why = String(decoding: result.standardError, as: UTF8.self).split(separator: "\n").last.map(String.init)
                ?? result.outcomeDescription
            throw CLIError(status: .error, message: "\(given): cannot \(action.rawValue) it: the library does not load (\(why))\(tail)")
        }
        let found = Findings(id: id, version: version, name: v["name"]?.stringValue ?? "", summary: v["summary"]?.stringValue ?? "",
                             abi: v["abi"]?.stringValue ?? "", build: v["build"]?.stringValue ?? "",
                             problems: (v["problems"]?.arrayValue ?? []).compactMap(\.stringValue))
        var problems = found.problems
        if let manifest {
            for (field, actual) in [("name", found.name), ("abi", found.abi), ("build", found.build)] {
                if let said = manifest[field]?.stringValue, said != actual {
                    problems.append("the manifest says \(field) \"\(said)\" but the library's descriptor says \"\(actual)\"")
                }
            }
        }
        guard let first = problems.first else { return }
        let more = problems.count > 1 ? " (and \(problems.count - 1) more: \(problems.dropFirst().joined(separator: "; ")))" : ""
        let fix = action == .pack ? "; fix the plugin (clubhouse plugin validate \(given) runs every check)" : "; ask its publisher for a fixed build"
        throw CLIError(status: .error, message: "\(given): cannot \(action.rawValue) \(found.id) \(found.version): \(first)\(more)\(fix)\(tail)")
    }

    /// The child: `__package-check PATH` prints {id, version, name, summary, abi, build, problems}.
    static func runChild(_ arguments: [String]) -> Int32 {
        guard arguments.count == 1 else { return 2 }
        let path = arguments[0]
        // The library may be untrusted (a package): its constructors run confined where the kernel can.
        if Sandbox.unavailableReason() == nil, let problem = Sandbox.confine(pluginPath: path, connectPorts: []) {
            StandardStreams.writeError("\(path): \(problem)\n")
            return 1
        }
        let library: PluginLibrary
        do { library = try PluginLoader.open(path: path) } catch {
            StandardStreams.writeError("\(error)\n")
            return 1
        }
        let info = library.info
        var problems: [String] = []
        for service in info.services where !SiteRuntime.offeredServices.contains(service) {
            problems.append("its descriptor needs the service \(service), which this host does not offer (it offers \(SiteRuntime.offeredServices.joined(separator: ", ")))")
        }
        if info.name.isEmpty { problems.append("its descriptor has an empty name") }
        if info.summary.isEmpty { problems.append("its descriptor has an empty summary") }
        do {
            let bytes = try library.describe()
            if case .failure(let e) = CommandCatalog.parse(bytes, plugin: info.name) {
                problems += e.problems.map { "its command catalogue is invalid: \($0)" }
            }
        } catch {
            problems.append("describe failed: \(error)")
        }
        let reply: JSONValue = ["id": .string(info.id), "version": .string(info.version), "name": .string(info.name),
                                "summary": .string(info.summary), "abi": .string("\(info.abiMajor).\(info.abiMinor)"),
                                "build": .string(info.build), "problems": .array(problems.map { .string($0) })]
        StandardStreams.writeOutput(JSONWriter.compact(reply) + "\n")
        return 0
    }
}
