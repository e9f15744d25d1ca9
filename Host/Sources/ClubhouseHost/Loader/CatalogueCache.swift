// What each plugin file says about itself — its checked descriptor and its command catalogue —
// kept in the data directory (`<data>/catalogues/`, one small file per plugin file), so that
// `--help`, `plugins list`, completions and argument validation answer without loading a plugin:
// no dlopen, no runner. A command loads its own plugin when it runs (SiteRuntime.backend).
//
// An entry is used only while all of this holds, checked with one stat of the plugin file and one
// fstat of the entry (nothing is hashed on the way):
//   - the plugin file has the device, inode, size, mtime and ctime (ns) it had when described
//     (FileIdentity): a rebuilt or replaced library has another inode or other times, and ctime
//     cannot be set back, so even a same-size rewrite with its old mtime restored is described again;
//   - the entry was written by this very host executable (its identity too): a host with other
//     checks describes every plugin again;
//   - under a plugins.lock, the entry was made from the bytes the lock pins (it records their
//     SHA-256; the lock check itself still runs first, on the file as it is now);
//   - the entry is a regular file owned by this user, writable by no one else, opened without
//     following links: a file another user could have written is never read, only replaced.
// A plugin that was loaded anyway (a cache miss) is checked against the entry it replaces, and a
// command whose plugin turns out to differ from the catalogue it was validated against is refused
// (SiteRuntime.backend): a stale catalogue is never served, nor run.
//
// Format: one line of JSON (the identities, the descriptor's fields), then the catalogue bytes
// exactly as `describe` wrote them (parsed by CommandCatalog.parse like a fresh one).

import ClubhouseJSON
import ClubhouseLoader
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// A described plugin file, as remembered.
struct CataloguedPlugin: Sendable {
    var info: PluginDescriptorInfo
    var catalogue: [UInt8]
    /// The plugin file when described.
    var identity: FileIdentity
    /// The SHA-256 of the bytes described, when a lock made the host hash them.
    var sha256: String?
}

struct CatalogueCache: Sendable {
    static let format = 1
    /// `<data>/catalogues`.
    let directory: String
    /// This host executable's identity (nil: unknown, so nothing is cached).
    let host: FileIdentity?

    init(dataDirectory: String, host: FileIdentity? = CatalogueCache.hostIdentity) {
        directory = dataDirectory + "/catalogues"
        self.host = host
    }

    /// Read once per process: the executable does not change under a running host.
    static let hostIdentity: FileIdentity? = FileSystem.identity("/proc/self/exe")

    /// The entry file of the plugin file at `path` (a real path): FNV-1a of the path, in hex. Two
    /// paths with one name overwrite each other's entry, which only costs a miss: the entry names
    /// its path and is used for that path alone.
    func entryFile(for path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        // Sixteen lowercase hex digits, written by hand: String(_:radix:) goes through the generic integer
        // description at every command.
        var name = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 {
            let digit = UInt8(truncatingIfNeeded: hash >> (60 - 4 * UInt64(i))) & 0xF
            name[i] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
        }
        return directory + "/" + String(decoding: name, as: UTF8.self)
    }

    /// The remembered description of the plugin file at `path`, when it is still that file (see the
    /// top of this file). `identity` is the file's identity now; `sha256` what the lock pins, if any.
    func lookup(path: String, identity: FileIdentity, sha256: String?) -> CataloguedPlugin? {
        guard let host, let bytes = Self.readOwnFile(entryFile(for: path)),
              let newline = bytes.firstIndex(of: UInt8(ascii: "\n")),
              let header = try? JSONParser.parse(bytes: Array(bytes[..<newline])),
              header["format"]?.intValue == Self.format,
              header["path"]?.stringValue == path,
              header["host"]?.stringValue.flatMap({ FileIdentity($0[...]) }) == host,
              let described = header["file"]?.stringValue.flatMap({ FileIdentity($0[...]) }), described == identity,
              let info = Self.info(header["descriptor"])
        else { return nil }
        let recorded = header["sha256"]?.stringValue
        if let sha256, recorded != sha256 { return nil }
        return CataloguedPlugin(info: info, catalogue: Array(bytes[(newline + 1)...]), identity: described, sha256: recorded)
    }

    /// Remembers a description (best effort: a data directory that cannot be written only costs the
    /// next run a load).
    func store(path: String, _ plugin: CataloguedPlugin) {
        guard let host else { return }
        let i = plugin.info
        let descriptor: JSONValue = [
            "id": .string(i.id), "version": .string(i.version), "name": .string(i.name), "summary": .string(i.summary),
            "build": .string(i.build), "abi_major": .int(i.abiMajor), "abi_minor": .int(i.abiMinor),
            "struct_size": .int(i.structSize), "thread_safe": .bool(i.threadSafe), "services": .array(i.services.map { .string($0) }),
        ]
        var header: JSONObject = ["format": .int(Self.format), "path": .string(path), "host": .string(host.description),
                                  "file": .string(plugin.identity.description), "descriptor": descriptor]
        if let sha = plugin.sha256 { header["sha256"] = .string(sha) }
        var bytes: [UInt8] = []
        JSONWriter.appendCompact(.object(header), to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        bytes += plugin.catalogue
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { return }
        try? FileSystem.writeAtomically(entryFile(for: path), bytes, permissions: 0o600, durable: false)
    }

    /// Forgets the entry of `path` (its plugin turned out to differ from it).
    func remove(path: String) { unlink(entryFile(for: path)) }

    /// A file's bytes when it is a regular file of this user that no one else may write, opened
    /// without following a link; nil otherwise (or when it is missing or larger than 4 MiB).
    static func readOwnFile(_ path: String) -> [UInt8]? {
        try? FileSystem.readOwnRegular(path, limit: (4 << 20) - 1)
    }

    /// The descriptor fields as stored, checked as the loader checks a descriptor's strings.
    static func info(_ value: JSONValue?) -> PluginDescriptorInfo? {
        guard let d = value, let id = d["id"]?.stringValue, let version = d["version"]?.stringValue,
              let semantic = SemanticVersion(version), let name = d["name"]?.stringValue,
              let summary = d["summary"]?.stringValue, let build = d["build"]?.stringValue,
              let major = d["abi_major"]?.intValue, let minor = d["abi_minor"]?.intValue,
              let size = d["struct_size"]?.intValue, let threadSafe = d["thread_safe"]?.boolValue,
              let services = d["services"]?.arrayValue?.compactMap(\.stringValue)
        else { return nil }
        return PluginDescriptorInfo(id: id, version: version, semanticVersion: semantic, name: name, summary: summary,
                                    build: build, abiMajor: major, abiMinor: minor, structSize: size,
                                    threadSafe: threadSafe, services: services)
    }
}
