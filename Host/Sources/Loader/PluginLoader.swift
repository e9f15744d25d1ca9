// Loads a plugin file and checks its descriptor before trusting anything in it:
// file → ELF shared object → dlopen(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE) → entry symbol →
// magic → ABI major → struct_size → mandatory fields → id/version syntax → toolchain fingerprint.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
#if canImport(Glibc)
import Glibc
#endif

/// What a descriptor says, copied into Swift values.
public struct PluginDescriptorInfo: Sendable {
    public var id: String
    public var version: String
    public var semanticVersion: SemanticVersion
    public var name: String
    public var summary: String
    public var build: String
    public var abiMajor: Int
    public var abiMinor: Int
    public var structSize: Int
    public var threadSafe: Bool
    public var services: [String]

    package init(id: String, version: String, semanticVersion: SemanticVersion, name: String, summary: String, build: String,
                 abiMajor: Int, abiMinor: Int, structSize: Int, threadSafe: Bool, services: [String]) {
        self.id = id
        self.version = version
        self.semanticVersion = semanticVersion
        self.name = name
        self.summary = summary
        self.build = build
        self.abiMajor = abiMajor
        self.abiMinor = abiMinor
        self.structSize = structSize
        self.threadSafe = threadSafe
        self.services = services
    }

    /// "swift" or "c" (from the build fingerprint).
    public var language: String { BuildFingerprint.parse(build)["lang"] ?? "unknown" }
}

/// A loaded, checked plugin library. Never unloaded (RTLD_NODELETE; Swift metadata stays mapped).
/// @unchecked Sendable: immutable after init; the descriptor it points to is the plugin's static data, never freed.
public final class PluginLibrary: @unchecked Sendable {
    public let path: String
    public let info: PluginDescriptorInfo
    package let descriptor: UnsafePointer<clubhouse_plugin_descriptor>

    package init(path: String, info: PluginDescriptorInfo, descriptor: UnsafePointer<clubhouse_plugin_descriptor>) {
        self.path = path
        self.info = info
        self.descriptor = descriptor
    }

    /// The command catalogue JSON (describe).
    public func describe() throws(LoadError) -> [UInt8] {
        guard let describe = descriptor.pointee.describe else { throw .missingField(path: path, field: "describe") }
        let buffer = ReplyBuffer()
        let status = buffer.withSink { describe(descriptor, $0) }
        guard status == Int32(CLUBHOUSE_OK) else {
            throw .describeFailed(path: path, message: "describe returned \(Status(code: status).name): \(buffer.text)")
        }
        return buffer.bytes
    }
}

/// Why a plugin file was refused. Each renders as one line naming the file, what was found,
/// what was wanted, and what to do.
public enum LoadError: Error, Sendable, CustomStringConvertible, Equatable {
    case fileMissing(path: String)
    case unreadable(path: String, reason: String)
    case notELF(path: String)
    case notRegularFile(path: String, kind: String)
    case notSharedObject(path: String)
    case dlopenFailed(path: String, message: String)
    case noEntry(path: String)
    case declined(path: String)
    case badMagic(path: String, found: UInt32)
    case abiMajorMismatch(path: String, found: Int, expected: Int)
    case structTooSmall(path: String, found: Int, minimum: Int)
    case missingField(path: String, field: String)
    case invalidField(path: String, field: String, value: String, expected: String)
    case toolchainMismatch(path: String, plugin: String, host: String)
    case describeFailed(path: String, message: String)

    public var description: String {
        switch self {
        case .fileMissing(let p):
            return "\(p): no such plugin file; check the \"path\" in plugins.json or build the plugin"
        case .unreadable(let p, let reason):
            return "\(p): cannot read the plugin file (\(reason)); check its permissions"
        case .notRegularFile(let p, let kind):
            return "\(p) is not a regular file (\(kind)); point \"path\" at the plugin's .so file"
        case .notELF(let p):
            return "\(p): not an ELF shared library (wrong file, or built for another system); point \"path\" at the plugin's .so"
        case .notSharedObject(let p):
            return "\(p): an ELF file but not a shared library; build the plugin as a dynamic library (.so)"
        case .dlopenFailed(let p, let m):
            return "\(p): the dynamic loader refused it: \(m)"
        case .noEntry(let p):
            return "\(p): no '\(CLUBHOUSE_ENTRY_SYMBOL)' symbol, so this is not a Clubhouse plugin; export the entry function (see "
                   + "PluginSDK/README.md)"
        case .declined(let p):
            return "\(p): the plugin declined this host (its entry returned NULL for ABI \(BuildFingerprint.abi)); get a build of the "
                   + "plugin for this host"
        case .badMagic(let p, let found):
            return "\(p): descriptor magic is 0x\(String(found, radix: 16, uppercase: true)), expected "
                   + "0x\(String(CLUBHOUSE_MAGIC, radix: 16, uppercase: true)) ('CLUB'); the entry does not return a "
                   + "clubhouse_plugin_descriptor"
        case .abiMajorMismatch(let p, let found, let expected):
            return "\(p): built for plugin ABI \(found).x but this host speaks ABI \(expected).x; rebuild the plugin against this host's "
                   + "clubhouse.h"
        case .structTooSmall(let p, let found, let minimum):
            return "\(p): descriptor struct_size is \(found) bytes, at least \(minimum) expected for ABI 1.0; rebuild the plugin against "
                   + "clubhouse.h"
        case .missingField(let p, let field):
            return "\(p): descriptor field '\(field)' is NULL; every mandatory field must be set (see entry.h)"
        case .invalidField(let p, let field, let value, let expected):
            return "\(p): descriptor \(field) '\(value)' is not valid; expected \(expected)"
        case .toolchainMismatch(let p, let plugin, let host):
            return "\(p): a Swift plugin built by \(plugin), but this host was built by \(host); Swift has no stable ABI on Linux, so "
                   + "rebuild the plugin with the host's toolchain"
        case .describeFailed(let p, let m):
            return "\(p): \(m)"
        }
    }
}

/// Loads and checks plugin libraries. Keeps one library per real path for the process.
/// @unchecked Sendable: `loaded` is read and written under `lock` only.
public final class PluginLoader: @unchecked Sendable {
    /// The libraries loaded, newest first. A chain of nodes rather than a dictionary: a process loads a few, and
    /// a dictionary of a type of ours has the runtime build its generic metadata at the first load of every command.
    private var loaded: Loaded?
    private let lock = Lock()

    private final class Loaded {
        let path: String
        let library: PluginLibrary
        let next: Loaded?

        init(path: String, library: PluginLibrary, next: Loaded?) {
            self.path = path
            self.library = library
            self.next = next
        }
    }

    /// The library loaded from the real path `real`, if any (under `lock`).
    private func loadedLibrary(at real: String) -> PluginLibrary? {
        var node = loaded
        while let n = node {
            if n.path == real { return n.library }
            node = n.next
        }
        return nil
    }

    public init() {}

    /// `verified`: an open descriptor of the file at `path` whose bytes were checked (the lock's
    /// SHA-256), or whose identity is the one described (SiteRuntime.backend); the library is loaded
    /// from that descriptor, not from the path again, so a file swapped in between is never the one
    /// that runs. The loader takes ownership of it.
    public func load(path: String, verified: Int32? = nil) throws(LoadError) -> PluginLibrary {
        let real = FileSystem.realPath(path) ?? path
        if let library = lock.withLock({ loadedLibrary(at: real) }) {
            if let verified { close(verified) }
            return library
        }
        var descriptor = verified
        var pinnedHere = false
        if let verified { (descriptor, pinnedHere) = PinnedLibraries.shared.pin(verified) }
        let library: PluginLibrary
        do {
            library = try PluginLoader.open(path: real, verified: descriptor)
        } catch {
            // Nothing was mapped from it: a descriptor pinned here, or one that could not be pinned, is closed.
            if let descriptor, pinnedHere {
                PinnedLibraries.shared.unpin(descriptor)
            } else if let verified, descriptor == verified {
                close(verified)
            }
            throw error
        }
        // Newest first: a path loaded twice at once (two threads) answers with the last stored, as before.
        lock.withLock { loaded = Loaded(path: real, library: library, next: loaded) }
        return library
    }

    /// The minimum descriptor size: everything ABI 1.0 defines.
    package static let minimumDescriptorSize = MemoryLayout<clubhouse_plugin_descriptor>.size

    /// `verified`: load from this open descriptor of `path` (through `/proc/self/fd/N`) instead of
    /// the path; the caller keeps it open for as long as the process lives (see `PinnedLibraries`).
    package static func open(path: String, verified: Int32? = nil) throws(LoadError) -> PluginLibrary {
        let target: String
        if let verified {
            try checkELF(descriptor: verified, path: path)
            target = "/proc/self/fd/\(verified)"
        } else {
            try checkELF(path: path)
            target = path
        }
        dlerror()
        guard let handle = dlopen(target, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let message = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw .dlopenFailed(path: path, message: message)
        }
        guard let symbol = dlsym(handle, CLUBHOUSE_ENTRY_SYMBOL) else { throw .noEntry(path: path) }
        let entry = unsafeBitCast(symbol, to: clubhouse_plugin_entry_fn.self)
        var hostInfo = clubhouse_host_info(struct_size: UInt32(MemoryLayout<clubhouse_host_info>.size),
                                           abi_major: UInt16(CLUBHOUSE_ABI_MAJOR), abi_minor: UInt16(CLUBHOUSE_ABI_MINOR),
                                           host_version: nil)
        let descriptor: UnsafePointer<clubhouse_plugin_descriptor>? = ClubhouseVersion.string.withCString { version in
            hostInfo.host_version = version
            return withUnsafePointer(to: &hostInfo) { entry($0) }
        }
        guard let descriptor else { throw .declined(path: path) }
        let info = try check(descriptor, path: path)
        return PluginLibrary(path: path, info: info, descriptor: descriptor)
    }

    /// What kind of file `mode` is, for "is not a regular file (…)".
    package static func fileKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a plain file"
        }
    }

    /// A plugin file must be a regular file, checked without blocking: stat first, then open with
    /// O_NONBLOCK (a FIFO swapped in between cannot hang the open) and check again on the descriptor.
    package static func checkELF(path: String) throws(LoadError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            if errno == ENOENT { throw .fileMissing(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if let kind = fileKind(st.st_mode) { throw .notRegularFile(path: path, kind: kind) }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        try checkELF(descriptor: fd, path: path)
    }

    /// The same checks on an open descriptor of `path` (read at offset 0; the offset is untouched).
    package static func checkELF(descriptor fd: Int32, path: String) throws(LoadError) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        if let kind = fileKind(st.st_mode) { throw .notRegularFile(path: path, kind: kind) }
        var header = [UInt8](repeating: 0, count: 18)
        let n = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 18, 0) }
        guard n == 18, header[0] == 0x7F, header[1] == 0x45, header[2] == 0x4C, header[3] == 0x46 else {
            throw .notELF(path: path)
        }
        // e_type (little-endian on the platforms we build for): 3 = ET_DYN.
        let type = UInt16(header[16]) | UInt16(header[17]) << 8
        guard type == 3 else { throw .notSharedObject(path: path) }
    }

    /// Every descriptor check, in the order that keeps reading safe: magic first, then ABI major,
    /// then size, then the fields.
    package static func check(_ d: UnsafePointer<clubhouse_plugin_descriptor>, path: String) throws(LoadError) -> PluginDescriptorInfo {
        // Read magic and the version/size header without assuming the rest of the struct exists.
        let raw = UnsafeRawPointer(d)
        let magic = raw.loadUnaligned(as: UInt32.self)
        guard magic == CLUBHOUSE_MAGIC else { throw .badMagic(path: path, found: magic) }
        let major = Int(raw.loadUnaligned(fromByteOffset: 4, as: UInt16.self))
        let minor = Int(raw.loadUnaligned(fromByteOffset: 6, as: UInt16.self))
        guard major == Int(CLUBHOUSE_ABI_MAJOR) else {
            throw .abiMajorMismatch(path: path, found: major, expected: Int(CLUBHOUSE_ABI_MAJOR))
        }
        let size = Int(raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard size >= minimumDescriptorSize else {
            throw .structTooSmall(path: path, found: size, minimum: minimumDescriptorSize)
        }
        let p = d.pointee
        func text(_ pointer: UnsafePointer<CChar>?, _ field: String) throws(LoadError) -> String {
            guard let pointer else { throw .missingField(path: path, field: field) }
            return String(cString: pointer)
        }
        let id = try text(p.id, "id")
        let version = try text(p.version, "version")
        // Shown on terminals (plugins list, plugins info, --help): no control character passes.
        let name = TerminalText.plain(try text(p.name, "name"))
        let summary = TerminalText.plain(try text(p.summary, "summary"))
        let build = try text(p.build, "build")
        guard p.services != nil else { throw .missingField(path: path, field: "services") }
        if p.describe == nil { throw .missingField(path: path, field: "describe") }
        if p.create == nil { throw .missingField(path: path, field: "create") }
        if p.destroy == nil { throw .missingField(path: path, field: "destroy") }
        if p.invoke == nil { throw .missingField(path: path, field: "invoke") }
        guard isReverseDNS(id) else {
            throw .invalidField(path: path, field: "id", value: id, expected: "a reverse-DNS id such as org.example.notes (lowercase "
                    + "labels, at most \(Names.maximumIDLength) characters)")
        }
        guard let semantic = SemanticVersion(version) else {
            throw .invalidField(path: path, field: "version", value: version, expected: "a semantic version such as 1.2.0")
        }
        var services: [String] = []
        if let list = p.services {
            var i = 0
            while let s = list[i], i < 64 {
                services.append(String(cString: s))
                i += 1
            }
        }
        let fingerprint = BuildFingerprint.parse(build)
        guard let lang = fingerprint["lang"] else {
            throw .invalidField(path: path, field: "build", value: build, expected: "\"abi=\(BuildFingerprint.abi);lang=c\" or "
                    + "\"abi=\(BuildFingerprint.abi);lang=swift;swift=X;target=T\"")
        }
        if lang == "swift" {
            let pluginToolchain = "Swift \(fingerprint["swift"] ?? "?") for \(fingerprint["target"] ?? "?")"
            let hostToolchain = "Swift \(BuildFingerprint.swiftCompiler) for \(BuildFingerprint.target)"
            if fingerprint["swift"] != BuildFingerprint.swiftCompiler || fingerprint["target"] != BuildFingerprint.target {
                throw .toolchainMismatch(path: path, plugin: pluginToolchain, host: hostToolchain)
            }
        }
        return PluginDescriptorInfo(
            id: id, version: version, semanticVersion: semantic, name: name, summary: summary, build: build,
            abiMajor: major, abiMinor: minor, structSize: size,
            threadSafe: p.flags & UInt32(CLUBHOUSE_PLUGIN_THREAD_SAFE) != 0, services: services)
    }

    /// The id grammar (Names.swift): reverse-DNS, at most 128 characters.
    package static func isReverseDNS(_ id: String) -> Bool { Names.isID(id) }
}

/// Descriptors of libraries loaded through `/proc/self/fd/N`, kept open for the life of the process:
/// glibc knows such a library by that name, so the number must never be reused for another library.
/// One per file (device and inode) for the whole process — glibc's list of loaded libraries is the
/// process's, and it takes a file it already mapped for the same library — so loading one file again,
/// by another runtime's loader (`plugin validate`'s create/destroy cycles, a reloaded site), reuses
/// the first descriptor instead of pinning one more.
/// @unchecked Sendable: `pinned` is read and written under `lock` only.
final class PinnedLibraries: @unchecked Sendable {
    static let shared = PinnedLibraries()

    private struct Pinned {
        var device: UInt64
        var inode: UInt64
        var descriptor: Int32
    }

    private let lock = Lock()
    /// One entry per file (a process loads a few libraries): a list, not a dictionary, whose generic metadata
    /// and Hashable conformance the runtime would build at the first load of every command.
    private var pinned: [Pinned] = []

    /// The descriptor to load from for the file `fd` is open on: a pinned one of the same file (then
    /// `fd` is closed), or `fd` itself, now pinned (`pinnedHere`).
    func pin(_ fd: Int32) -> (descriptor: Int32, pinnedHere: Bool) {
        guard let identity = FileIdentity(descriptor: fd) else { return (fd, false) }
        return lock.withLock {
            if let same = pinned.first(where: { $0.device == identity.device && $0.inode == identity.inode }) {
                close(fd)
                return (same.descriptor, false)
            }
            pinned.append(Pinned(device: identity.device, inode: identity.inode, descriptor: fd))
            return (fd, true)
        }
    }

    /// Forgets and closes a descriptor pinned for a load that failed (nothing was mapped from it).
    func unpin(_ fd: Int32) {
        lock.withLock { pinned.removeAll { $0.descriptor == fd } }
        close(fd)
    }
}
