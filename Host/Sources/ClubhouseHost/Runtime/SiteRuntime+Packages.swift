// What a site checks of a plugin that comes from an installed package, before any of its code
// runs and after it loads (Loader/PackageManifest.swift):
// - the manifest's min_host_version against this host;
// - the site's "require_signatures": a signature that verifies, by a key in the site's
//   "publishers", over a manifest whose library hash is the hash of the bytes that will be loaded
//   (read from the descriptor the load then uses). Bundled plugins are the host's own; a plugin from
//   anywhere else has no package, so no signature;
// - the manifest's "requires": each required id is another enabled plugin of the site whose
//   version is in the range (checked once every plugin of the site can be loaded).

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

extension SiteRuntime {
    /// The refusal (one line) of the package checks that come before loading, or nil; may open
    /// `verified` (the descriptor the load then uses) to hash the library.
    func packageRefusal(_ entry: PluginEntry, path: String, verified: inout Int32?) -> (message: String, requires: [PackageRequirement])? {
        let where_ = "\(configuration.source):\(entry.location.line):\(entry.location.column)"
        let found = InstalledPackage.of(library: path, installRoot: discovery.installRoot)
        var package: InstalledPackage?
        switch found {
        case .failure(let e)?: return ("plugin '\(entry.alias)': \(e.message)", [])
        case .success(let p)?:
            if let refusal = p.metadata.hostRefusal(id: p.id, version: p.version) { return ("plugin '\(entry.alias)': \(refusal)", []) }
            package = p
        case nil: break
        }
        guard entry.requiresSignature(at: site), !InstallTree.isBundled(path) else { return nil }
        let publishers = site.publishers.keys.sorted().joined(separator: ", ")
        guard let package else {
            return ("plugin '\(entry.alias)': \(path) does not come from an installed package, so it carries no signature, but site '\(site.name)' requires signatures (\(where_)); install it from a package signed by one of its publishers (\(publishers)), or set \"require_signatures\": false for this plugin", [])
        }
        let name = "\(package.id) \(package.version) (\(package.folder))"
        let signature: PackageSignature
        switch package.signature {
        case nil:
            return ("plugin '\(entry.alias)': the package \(name) is not signed, but site '\(site.name)' requires signatures (\(where_)); install a build signed by one of its publishers (\(publishers))", [])
        case .failure(let e)?:
            return ("plugin '\(entry.alias)': the package \(name) has a damaged signature (\(e.message)); reinstall it from its publisher", [])
        case .success(let s)?: signature = s
        }
        let verdict = signature.verify(manifest: package.manifestBytes)
        guard verdict == .valid else {
            return ("plugin '\(entry.alias)': the signature of the package \(name) by key \(signature.keyText) does not verify (\(verdict)); the package was changed after it was signed: reinstall it from its publisher", [])
        }
        guard site.publishers.values.contains(signature.publicKey) else {
            return ("plugin '\(entry.alias)': the package \(name) is signed by key \(signature.keyText) (fingerprint \(signature.fingerprint)), which site '\(site.name)' does not trust (its publishers: \(publishers)); if you trust that key, add it under \"publishers\" in \(configuration.source)", [])
        }
        // The signed manifest names the library's hash: the bytes that will be loaded must have it.
        if verified == nil {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            guard fd >= 0 else { return ("plugin '\(entry.alias)': \(path): cannot read the library to check its signed hash (\(String(cString: strerror(errno))))", []) }
            verified = fd
        }
        let expected = package.manifest["sha256"]?.stringValue?.lowercased() ?? ""
        switch LibraryDigest.sha256(descriptor: verified ?? -1) {
        case .failure(let e): return ("plugin '\(entry.alias)': \(path): cannot read the library to check its signed hash (\(e.reason))", [])
        case .success(let actual) where actual != expected:
            return ("plugin '\(entry.alias)': \(path) has SHA-256 \(actual) but the signed manifest of \(package.id) \(package.version) says \(expected); the library changed after it was installed: reinstall the package", [])
        case .success: return nil
        }
    }

    /// The origin the site's data of the library at `path` is bound to (DataOrigin.swift), `path`
    /// resolved first (the library a command names; a loaded one: `dataOrigin(canonical:)`).
    public func dataOrigin(of path: String) -> DataOrigin {
        dataOrigin(canonical: FileSystem.realPath(path) ?? path)
    }

    /// The library bundled with the host that declares plugin `id`, or nil: the ids of the bundled plugins
    /// are theirs (DataOrigin.swift). Probes the bundled directories as discovery does (remembered by path,
    /// mtime and size); asked only when a library of another origin would create that id's data.
    public func bundledLibrary(declaring id: String) -> String? {
        for directory in InstallTree.bundledDirectories {
            for file in FileSystem.files(in: directory, suffix: ".so") where discovery.probeID(file, trusted: true) == id {
                return FileSystem.realPath(file) ?? file
            }
        }
        return nil
    }

    /// The origin of the library loaded from the canonical path `real` (resolved when it was loaded:
    /// not resolved again, so a link re-pointed since changes nothing): bundled; an installed package
    /// signed by one of the site's publishers (the signature verifies and the library has the signed
    /// hash); any other package, by its folder in the install tree; any other library, by its path.
    func dataOrigin(canonical real: String) -> DataOrigin {
        if InstallTree.isBundled(canonical: real) {
            return DataOrigin(key: DataOrigin.bundledKey, described: "bundled with the host", library: real)
        }
        let root = FileSystem.realPath(discovery.installRoot) ?? discovery.installRoot
        guard real.hasPrefix(root + "/"), case .success(let package)? = InstalledPackage.of(library: real, installRoot: root) else {
            return DataOrigin(key: "unsigned:\(real)", described: "a library loaded from a path (no package, no signature)", library: real)
        }
        let folder = FileSystem.directoryName(package.folder)
        let unsigned = DataOrigin(key: DataOrigin.installedKey(id: FileSystem.baseName(folder)), described: "a package not signed by a publisher of the site, installed in \(folder)",
                                  library: real)
        guard case .success(let signature)? = package.signature, signature.verify(manifest: package.manifestBytes) == .valid,
              let name = site.publishers.first(where: { $0.value == signature.publicKey })?.key,
              case .success(let digest) = LibraryDigest.sha256(real),
              digest == package.manifest["sha256"]?.stringValue?.lowercased()
        else { return unsigned }
        return DataOrigin(key: "publisher:\(signature.fingerprint)",
                          described: "a package signed by publisher '\(name)' (key \(signature.fingerprint))", library: real)
    }

    /// The manifest's "requires" of an installed plugin, from its package (empty for any other).
    func packageRequirements(path: String) -> [PackageRequirement] {
        guard case .success(let p)? = InstalledPackage.of(library: path, installRoot: discovery.installRoot) else { return [] }
        return p.metadata.requires
    }

    /// Why `plugin`'s required plugins are not there at this site, or nil. `load` is the site's
    /// loader (cached), called for the other plugins.
    func requirementRefusal(_ plugin: ResolvedPlugin, load: (String) -> Result<ResolvedPlugin, RuntimeError>) -> String? {
        for required in packageRequirements(path: plugin.path) {
            let what = "\(plugin.info.id) \(plugin.info.version) requires \(required.id) '\(required.requirement)' (its package manifest)"
            var found: (alias: String, plugin: ResolvedPlugin?)?
            for other in site.plugins where other.alias != plugin.entry.alias && other.enabled {
                if let id = other.id, id != required.id { continue }
                switch load(other.alias) {
                case .success(let o) where o.info.id == required.id: found = (other.alias, o)
                case .failure where other.id == required.id: found = (other.alias, nil)
                default: continue
                }
                break
            }
            guard let found else {
                return "plugin '\(plugin.entry.alias)': \(what), which site '\(site.name)' does not run; add it to the site in \(configuration.source) (\"id\": \"\(required.id)\", \"version\": \"\(required.requirement)\")"
            }
            guard let other = found.plugin else {
                return "plugin '\(plugin.entry.alias)': \(what), but plugin '\(found.alias)' that provides it does not load (clubhouse plugins list says why)"
            }
            if !required.requirement.isSatisfied(by: other.info.semanticVersion) {
                return "plugin '\(plugin.entry.alias)': \(what), but site '\(site.name)' runs \(required.id) \(other.info.version) (plugin '\(found.alias)'); install a matching version of \(required.id) or change that plugin's \"version\""
            }
        }
        return nil
    }
}
