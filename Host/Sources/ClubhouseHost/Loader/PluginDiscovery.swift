// Finds a plugin file by id: first the clubhouse executable's own directory (the build's
// products, trusted and read in process), then each of the site's plugin_dirs. Files from
// plugin_dirs are probed in a throwaway child process — a broken file cannot take the host
// down. Every answer is cached by path, mtime and size (as GStreamer's registry does), so a
// command loads only the plugins it uses.

import ClubhousePlatform
import ClubhouseJSON
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: `registry` and `probed` are read and written under `lock`; the rest never changes.
public final class PluginDiscovery: @unchecked Sendable {
    let configuration: SiteConfiguration
    let loader: PluginLoader
    let log: LogBroker
    private let lock = Lock()
    private var registry: ProbeRegistry?
    private var probed: [String: String] = [:]
    /// Where probe answers are kept across runs: beside the site's data, so a run with --data-dir
    /// writes nothing outside it.
    let registryFile: String

    init(configuration: SiteConfiguration, loader: PluginLoader, log: LogBroker, registryFile: String) {
        self.configuration = configuration
        self.loader = loader
        self.log = log
        self.registryFile = registryFile
    }

    public struct DiscoveryError: Error, Sendable { public var message: String }

    /// Directories searched, in order.
    public var searchDirectories: [String] {
        var dirs = InstallTree.bundledDirectories
        for dir in configuration.pluginDirectories {
            dirs.append(FileSystem.absolute(dir, relativeTo: configuration.baseDirectory))
        }
        if let extra = FileSystem.environment("CLUBHOUSE_PLUGIN_PATH") {
            dirs += extra.split(separator: ":").map { FileSystem.absolute(String($0)) }
        }
        var seen = Set<String>()
        return dirs.filter { seen.insert($0).inserted }
    }

    /// The install tree (`clubhouse plugin install`), beside the probe registry in the data directory.
    public var installRoot: String { InstallTree.root(dataDirectory: FileSystem.directoryName(registryFile)) }

    /// The file that provides plugin `id`: the highest installed version satisfying `requirement`
    /// (versions side by side are not ambiguous), else the first search directory that has it.
    public func find(id: String, requirement: VersionRequirement? = nil) -> Result<String, DiscoveryError> {
        let installed = InstallTree.installed(id: id, root: installRoot)
        if let best = installed.first(where: { requirement?.isSatisfied(by: $0.version) ?? true }) {
            return .success(best.library)
        }
        var matches: [String] = []
        let bundled = Set(InstallTree.bundledDirectories)
        for dir in searchDirectories {
            for file in FileSystem.files(in: dir, suffix: ".so") {
                if probeID(file, trusted: bundled.contains(dir)) == id { matches.append(file) }
            }
            // The first directory that has the plugin wins; a second copy in the same directory is ambiguous.
            if matches.count == 1 { return .success(matches[0]) }
            if matches.count > 1 {
                return .failure(DiscoveryError(message: "duplicate plugin id \(id): \(matches.joined(separator: " and ")) both provide it; remove one or give an explicit \"path\""))
            }
        }
        if matches.isEmpty, let requirement, !installed.isEmpty {
            return .failure(DiscoveryError(message: "no installed version of \(id) satisfies '\(requirement)' (installed: \(installed.map(\.version.description).joined(separator: ", ")) in \(installRoot)); install a matching package or change \"version\""))
        }
        return .failure(DiscoveryError(message: "no plugin with id \(id) in \(installRoot) or \(searchDirectories.joined(separator: ", ")); install its package (clubhouse plugin install), build it (swift build), add its directory to \"plugin_dirs\", or give a \"path\""))
    }

    /// The id of the plugin in `path` ("" = not a plugin), remembered per path for this process and
    /// across runs by path, mtime and size. Unknown files from the build directory are read in
    /// process (they are the build's own products); others in a throwaway child.
    func probeID(_ path: String, trusted: Bool) -> String? {
        lock.withLock { () -> String? in
            if let known = probed[path] { return known.isEmpty ? nil : known }
            guard let signature = FileSystem.signature(path) else { return nil }
            // Only regular files are probed (opening a FIFO would block).
            var st = stat()
            guard stat(path, &st) == 0, PluginLoader.fileKind(st.st_mode) == nil else { return nil }
            if registry == nil { registry = ProbeRegistry.load(from: registryFile) }
            if let hit = registry?.lookup(path: path, signature: signature) {
                probed[path] = hit
                return hit.isEmpty ? nil : hit
            }
            var id = ""
            if trusted {
                id = (try? loader.load(path: path).info.id) ?? ""
            } else {
                switch Self.probeInChild(path) {
                case .success(let found): id = found
                case .failure(let outcome): log.debug("probe of \(path) failed (\(outcome)); not a usable plugin")
                }
            }
            probed[path] = id
            registry?.record(path: path, signature: signature, id: id)
            registry?.save()
            return id.isEmpty ? nil : id
        }
    }
}

extension PluginDiscovery {
    struct ProbeFailure: Error { var outcome: String }

    /// The id in the descriptor of the plugin file at `path`, read in a throwaway child (a broken
    /// file cannot take the caller down); the child's outcome when it is no usable plugin.
    static func probeInChild(_ path: String) -> Result<String, ProbeFailure> {
        let result = Subprocess.run(FileSystem.hostExecutable(), ["__probe", path],
                                    environment: ["SWIFT_BACKTRACE": "enable=no"], timeoutMilliseconds: 10_000)
        if result.exitCode == 0, let v = try? JSONParser.parse(bytes: result.standardOutput), let found = v["id"]?.stringValue {
            return .success(found)
        }
        return .failure(ProbeFailure(outcome: result.outcomeDescription))
    }
}

/// path → (mtime, size, id) for files outside the build directory ("" = not a plugin).
struct ProbeRegistry {
    var entries: [String: (mtime: Int64, size: Int64, id: String)] = [:]
    let file: String

    static func load(from file: String) -> ProbeRegistry {
        var registry = ProbeRegistry(file: file)
        guard let bytes = try? FileSystem.read(registry.file), let v = try? JSONParser.parse(bytes: bytes),
              let files = v["files"]?.objectValue
        else { return registry }
        for (path, e) in files {
            if let m = e["mtime"]?.numberValue.flatMap({ Int64($0.lexeme) }), let s = e["size"]?.numberValue.flatMap({ Int64($0.lexeme) }),
               let id = e["id"]?.stringValue {
                registry.entries[path] = (m, s, id)
            }
        }
        return registry
    }

    func lookup(path: String, signature: (mtime: Int64, size: Int64)) -> String? {
        guard let e = entries[path], e.mtime == signature.mtime, e.size == signature.size else { return nil }
        return e.id
    }

    mutating func record(path: String, signature: (mtime: Int64, size: Int64), id: String) {
        entries[path] = (signature.mtime, signature.size, id)
    }

    func save() {
        var files = JSONObject()
        for (path, e) in entries.sorted(by: { $0.key < $1.key }) {
            files[path] = ["mtime": .number(JSONNumber(lexeme: String(e.mtime), isInteger: true)),
                           "size": .number(JSONNumber(lexeme: String(e.size), isInteger: true)), "id": .string(e.id)]
        }
        let text = JSONWriter.pretty(["files": .object(files)]) + "\n"
        try? FileSystem.createDirectory(FileSystem.directoryName(file))
        try? FileSystem.writeAtomically(file, Array(text.utf8))
    }
}
