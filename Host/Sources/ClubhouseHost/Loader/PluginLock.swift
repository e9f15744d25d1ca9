// plugins.lock: which build each site runs. `clubhouse lock` writes it beside the configuration
// (plugins.json → plugins.lock; the embedded configuration's lock lives in the data directory):
// per site, per plugin, the id, version and SHA-256 of the library. While it exists, every load is
// checked against it before any of the library's code runs: resolution asks for the locked version
// exactly (a newer install does not move a locked site), and the file found is re-hashed — a
// tampered or swapped library is refused with both hashes named.
//
// Re-hashing costs one read of each library per process: the digest is remembered per file by
// (device, inode, size, mtime, ctime), so one process hashes a library once however often it is
// resolved, and a file changed in place (new size, mtime or ctime — ctime cannot be set back by
// a user) is hashed again. Across processes the digests are kept beside the lock file
// (`.plugins.lock.digests`, one line per file: device inode size mtime ctime sha256), so a command
// does not re-read 34 MB of libraries each run; whoever can write that file can write the lock
// itself, and an entry is used only when all five stat fields still match.

import ClubhouseHashing
import ClubhouseJSON
import ClubhousePlatform
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// One locked plugin: what a site's alias must load.
public struct LockedPlugin: Sendable, Equatable {
    public var id: String
    public var version: String
    public var sha256: String
    /// Set when `clubhouse plugin rollback` pinned this version: `clubhouse lock` keeps such a pin
    /// until asked to release it (`--release-pin`), and `lock --check` does not call it stale.
    public var rollback: RollbackPin?

    public init(id: String, version: String, sha256: String, rollback: RollbackPin? = nil) {
        self.id = id
        self.version = version
        self.sha256 = sha256
        self.rollback = rollback
    }
}

/// What a rollback left behind: the version the site ran before, where that version's data was
/// kept, when, and a digest of the database as the rollback restored it (so a roll forward can
/// tell whether the older version has written anything since).
public struct RollbackPin: Sendable, Equatable {
    public var from: String
    /// The backup holding `from`'s data at the rollback (nil when the database already held the
    /// older version's data, eg after a failed migration was restored).
    public var kept: String?
    /// ISO 8601 UTC.
    public var at: String
    public var dataDigest: String?

    public init(from: String, kept: String?, at: String, dataDigest: String?) {
        self.from = from
        self.kept = kept
        self.at = at
        self.dataDigest = dataDigest
    }

    var json: JSONValue {
        var o: JSONObject = ["from": .string(from), "at": .string(at)]
        if let kept { o["kept"] = .string(kept) }
        if let dataDigest { o["data_digest"] = .string(dataDigest) }
        return .object(o)
    }

    init?(_ v: JSONValue) {
        guard let from = v["from"]?.stringValue, SemanticVersion(from) != nil, let at = v["at"]?.stringValue else { return nil }
        self.init(from: from, kept: v["kept"]?.stringValue, at: at, dataDigest: v["data_digest"]?.stringValue)
    }
}

public struct PluginLock: Sendable {
    public static let formatVersion = 1
    /// Where it was read from (or is to be written).
    public var path: String
    /// site → alias → locked plugin.
    public var sites: [String: [String: LockedPlugin]]

    public init(path: String, sites: [String: [String: LockedPlugin]] = [:]) {
        self.path = path
        self.sites = sites
    }

    /// The lock file of a configuration: beside the file with its extension replaced by ".lock"
    /// (plugins.json → plugins.lock), or `<data dir>/plugins.lock` for the embedded configuration.
    public static func path(configuration: SiteConfiguration, dataDirectory: String) -> String {
        guard configuration.baseDirectory != nil else { return dataDirectory + "/plugins.lock" }
        let file = FileSystem.absolute(configuration.source)
        let directory = FileSystem.directoryName(file)
        var name = FileSystem.baseName(file)
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return directory + "/" + name + ".lock"
    }

    public struct LockError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Reads the lock at `path`: nil when there is none; an error when it is not a valid lock.
    public static func load(_ path: String) throws(LockError) -> PluginLock? {
        guard FileSystem.exists(path) else { return nil }
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path) } catch {
            throw LockError(message: "\(path): cannot read the lock file (\(error.reason)); fix its permissions or run clubhouse lock again")
        }
        func bad(_ what: String) -> LockError {
            LockError(message: "\(path): not a valid lock file (\(what)); run clubhouse lock again")
        }
        let root: JSONValue
        do { root = try JSONParser.parse(bytes: bytes) } catch { throw bad("\(error)") }
        guard root["lock_version"]?.intValue == formatVersion else { throw bad("\"lock_version\" is not \(formatVersion)") }
        guard let sites = root["sites"]?.objectValue else { throw bad("no \"sites\" object") }
        var lock = PluginLock(path: path)
        for (site, plugins) in sites {
            guard let plugins = plugins.objectValue else { throw bad("site '\(site)' is not an object") }
            var entries: [String: LockedPlugin] = [:]
            for (alias, p) in plugins {
                guard let id = p["id"]?.stringValue, let version = p["version"]?.stringValue,
                      let sha = p["sha256"]?.stringValue, sha.utf8.count == 64,
                      sha.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
                else { throw bad("site '\(site)' plugin '\(alias)' needs \"id\", \"version\" and a lowercase hex \"sha256\"") }
                var rollback: RollbackPin?
                if let r = p["rollback"] {
                    guard let pin = RollbackPin(r) else { throw bad("site '\(site)' plugin '\(alias)': \"rollback\" needs \"from\" (a version) and \"at\"") }
                    rollback = pin
                }
                entries[alias] = LockedPlugin(id: id, version: version, sha256: sha, rollback: rollback)
            }
            lock.sites[site] = entries
        }
        return lock
    }

    /// The lock as written: sorted keys, two-space indentation, no timestamps (the same sites give
    /// the same bytes).
    public func rendered() -> String {
        var sitesObject = JSONObject()
        for site in sites.keys.sorted() {
            var plugins = JSONObject()
            for (alias, p) in (sites[site] ?? [:]).sorted(by: { $0.key < $1.key }) {
                var entry: JSONObject = ["id": .string(p.id), "sha256": .string(p.sha256), "version": .string(p.version)]
                if let rollback = p.rollback { entry["rollback"] = rollback.json }
                plugins[alias] = .object(entry)
            }
            sitesObject[site] = .object(plugins)
        }
        return JSONWriter.pretty(["lock_version": .int(PluginLock.formatVersion), "sites": .object(sitesObject)]) + "\n"
    }

    public func write() throws(FileError) {
        try FileSystem.writeAtomically(path, Array(rendered().utf8))
    }

    /// Every (site, alias) that pins `id` (at `version`, when given).
    public func pins(id: String, version: String?) -> [(site: String, alias: String, plugin: LockedPlugin)] {
        var found: [(String, String, LockedPlugin)] = []
        for site in sites.keys.sorted() {
            for (alias, p) in (sites[site] ?? [:]).sorted(by: { $0.key < $1.key })
            where p.id == id && (version == nil || p.version == version) {
                found.append((site, alias, p))
            }
        }
        return found
    }
}

/// SHA-256 of plugin libraries, each file read once per process (see the top of this file).
public enum LibraryDigest {
    private typealias Key = FileIdentity

    private static let lock = Lock()
    nonisolated(unsafe) private static var memo: [Key: String] = [:]

    /// Digests remembered across processes, read from `file` once per process.
    nonisolated(unsafe) private static var loadedCaches: Set<String> = []

    /// `<dir>/.<lock name>.digests` for the lock file at `lockPath`.
    public static func cacheFile(forLock lockPath: String) -> String {
        let dir = FileSystem.directoryName(lockPath)
        let name = lockPath.split(separator: "/").last.map(String.init) ?? lockPath
        return (dir.isEmpty ? "." : dir) + "/." + name + ".digests"
    }

    /// Reads `file`'s entries into the memo (once per process per file); a damaged line is skipped.
    private static func loadCache(_ file: String) {
        guard lock.withLock({ loadedCaches.insert(file).inserted }) else { return }
        guard FileSystem.exists(file), let bytes = try? FileSystem.read(file), bytes.count < 1 << 20 else { return }
        var found: [Key: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let space = line.lastIndex(of: " "), let key = Key(line[..<space]) else { continue }
            let digest = line[line.index(after: space)...]
            guard digest.count == 64, digest.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { continue }
            found[key] = String(digest)
        }
        lock.withLock { for (k, v) in found where memo[k] == nil { memo[k] = v } }
    }

    /// Rewrites `file` with every digest this process knows (newest 256), atomically; a folder that
    /// cannot be written only costs the next process a re-read.
    private static func saveCache(_ file: String) {
        let lines = lock.withLock { memo.prefix(256).map { "\($0.key) \($0.value)" } }.sorted()
        try? FileSystem.writeAtomically(file, Array((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// The lowercase hex SHA-256 of the file at `path`, or the reason it cannot be read. With
    /// `cache`, digests are also kept in that file across processes.
    public static func sha256(_ path: String, cache: String? = nil) -> Result<String, LockFileReadError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(LockFileReadError(reason: String(cString: strerror(errno)))) }
        defer { close(fd) }
        return sha256(descriptor: fd, cache: cache)
    }

    /// The same for an open descriptor (read with pread from offset 0; the offset is untouched), so
    /// the bytes hashed are the bytes a load from that descriptor maps.
    public static func sha256(descriptor fd: Int32, cache: String? = nil) -> Result<String, LockFileReadError> {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(LockFileReadError(reason: String(cString: strerror(errno)))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(LockFileReadError(reason: "not a regular file")) }
        let key = Key(st)
        if let cache { loadCache(cache) }
        if let known = lock.withLock({ memo[key] }) { return .success(known) }
        var hash = SHA256()
        let code = FileSystem.readChunks(fd, from: 0, chunkBytes: 1 << 20) { bytes in
            hash.update(bytes)
            return true
        }
        guard code == 0 else { return .failure(LockFileReadError(reason: String(cString: strerror(code)))) }
        let hex = hash.finalize().hex
        lock.withLock { memo[key] = hex }
        if let cache { saveCache(cache) }
        return .success(hex)
    }
}

public struct LockFileReadError: Error, Sendable {
    public var reason: String
}

/// A site runtime's view of its lock file: read once (on first load), consulted at every load.
/// @unchecked Sendable: `state` and `stateSignature` are read and written under `lock`.
final class LockGuard: @unchecked Sendable {
    let path: String
    let enabled: Bool
    private let lock = Lock()
    private var state: Result<PluginLock?, PluginLock.LockError>?
    /// The lock file's (mtime, inode, size) when `state` was read: a rewritten lock is read again.
    private var stateSignature: [Int64] = []

    init(path: String, enabled: Bool) {
        self.path = path
        self.enabled = enabled
    }

    private var current: Result<PluginLock?, PluginLock.LockError> {
        var st = stat()
        let signature: [Int64] = stat(path, &st) == 0
            ? [Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec), Int64(st.st_ino), Int64(st.st_size)] : []
        return lock.withLock {
            if let state, signature == stateSignature { return state }
            let read = LockGuard.read(path)
            state = read
            stateSignature = signature
            return read
        }
    }

    static func read(_ path: String) -> Result<PluginLock?, PluginLock.LockError> {
        do throws(PluginLock.LockError) { return .success(try PluginLock.load(path)) } catch { return .failure(error) }
    }

    /// What the lock pins for `alias` at `site` (nil: no lock, or locks are not enforced), or why
    /// the entry cannot load under the lock.
    func pin(site: String, entry: PluginEntry) -> Result<LockedPlugin?, PluginLock.LockError> {
        guard enabled else { return .success(nil) }
        let lock: PluginLock
        switch current {
        case .failure(let e): return .failure(e)
        case .success(nil): return .success(nil)
        case .success(let l?): lock = l
        }
        guard let locked = lock.sites[site]?[entry.alias] else {
            return .failure(PluginLock.LockError(message: "it is not in \(path) (site '\(site)'); run clubhouse lock to pin it"))
        }
        if let id = entry.id, id != locked.id {
            return .failure(PluginLock.LockError(message: "\(path) pins \(locked.id) but the configuration says \(id); run clubhouse lock again"))
        }
        if let requirement = entry.versionRequirement, let v = SemanticVersion(locked.version), !requirement.isSatisfied(by: v) {
            return .failure(PluginLock.LockError(message: "\(path) pins \(locked.id) \(locked.version) but the site asks for '\(requirement)'; run clubhouse lock again"))
        }
        return .success(locked)
    }

    /// nil when the library open as `descriptor` (the file at `library`) is the locked build; else
    /// the one-line refusal naming both hashes.
    func check(descriptor: Int32, path library: String, locked: LockedPlugin) -> String? {
        switch LibraryDigest.sha256(descriptor: descriptor, cache: LibraryDigest.cacheFile(forLock: path)) {
        case .failure(let e):
            return "\(library): cannot read the library to check it against \(path) (\(e.reason))"
        case .success(let actual) where actual != locked.sha256:
            return "\(library) has SHA-256 \(actual) but \(path) pins \(locked.id) \(locked.version) at SHA-256 \(locked.sha256); the library changed since it was locked: reinstall the locked build, or run clubhouse lock if the change is intended"
        case .success:
            return nil
        }
    }
}
