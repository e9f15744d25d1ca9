// The install tree: `<data home>/plugins/<id>/<version>/` holds one installed package (its
// manifest.json, its library and optional README). `clubhouse plugin install` writes it;
// discovery reads it. Folders whose names start with "." are work in progress and never read.

import ClubhousePlatform
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

public enum InstallTree {
    /// The install tree under a data directory.
    public static func root(dataDirectory: String) -> String { dataDirectory + "/plugins" }

    /// Names usable as one path component: no "/", not "." or "..", not hidden, no control characters.
    public static func isSafeComponent(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 200 && !name.hasPrefix(".") && !name.contains("/")
            && !name.utf8.contains(where: { $0 < 32 || $0 == 127 })
    }

    /// Sub-folders of `directory` (not hidden), sorted by name.
    public static func subdirectories(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") && FileSystem.isDirectory(directory + "/" + name) { names.append(name) }
        }
        return names.sorted()
    }

    /// The installed versions of `id` (valid semantic versions only), highest first, each with its
    /// library (the one `.so` in its folder).
    public static func installed(id: String, root: String) -> [(version: SemanticVersion, library: String)] {
        guard isSafeComponent(id) else { return [] }
        var found: [(version: SemanticVersion, library: String)] = []
        for name in subdirectories(root + "/" + id) {
            guard let version = SemanticVersion(name) else { continue }
            let libraries = FileSystem.files(in: "\(root)/\(id)/\(name)", suffix: ".so")
            if libraries.count == 1 { found.append((version, libraries[0])) }
        }
        return found.sorted { $1.version < $0.version }
    }

    /// The directories of plugins that ship with the host: the executable's own directory (a
    /// build's products) and, for an installed clubhouse (scripts/install.sh), the bundled plugins
    /// under `<prefix>/lib/clubhouse/plugins` beside `<prefix>/bin/clubhouse`. Trusted: read in process.
    public static let bundledDirectories: [String] = {
        let executable = FileSystem.executableDirectory()
        var dirs = [executable]
        let prefixed = FileSystem.normalize(executable + "/../lib/clubhouse/plugins")
        if FileSystem.isDirectory(prefixed) { dirs.append(prefixed) }
        return dirs
    }()

    private static let realBundledDirectories: Set<String> = Set(bundledDirectories.compactMap { FileSystem.realPath($0) })

    /// Whether the library at `path` is one of the host's bundled plugins (its real directory is one
    /// of `bundledDirectories`).
    public static func isBundled(_ path: String) -> Bool {
        let real = FileSystem.realPath(path) ?? path
        return realBundledDirectories.contains(FileSystem.directoryName(real))
    }

    /// The same for a path already canonical (a loaded library's), not resolved again: a link
    /// re-pointed since cannot change the answer.
    public static func isBundled(canonical path: String) -> Bool {
        realBundledDirectories.contains(FileSystem.directoryName(path))
    }
}
