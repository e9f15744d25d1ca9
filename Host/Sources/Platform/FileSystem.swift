// The few file operations the host needs, on Glibc directly (no Foundation on the start-up path).

#if canImport(Glibc)
import Glibc
#endif

public enum FileSystem {
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// (modification time in ns, size) or nil.
    public static func signature(_ path: String) -> (mtime: Int64, size: Int64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec), Int64(st.st_size))
    }

    /// The identity of the file at `path` (following links), or nil when it cannot be stat'ed.
    public static func identity(_ path: String) -> FileIdentity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileIdentity(st)
    }

    public static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "/" }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    /// The directory of the running executable (where the build puts the plugin libraries too).
    public static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return currentDirectory() }
        return directoryName(String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    public static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments.first ?? "clubhouse" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The `clubhouse` executable for child processes (runners, probes, validation): this process
    /// when it is clubhouse, else the clubhouse beside it (an embedding program or a benchmark).
    public static func hostExecutable() -> String {
        let me = executablePath()
        if baseName(me) == "clubhouse" { return me }
        let sibling = directoryName(me) + "/clubhouse"
        return exists(sibling) ? sibling : me
    }

    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    public static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `path` made absolute against `base` (default: the current directory); "~" expanded.
    public static func absolute(_ path: String, relativeTo base: String? = nil) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        if path == "~" || path.hasPrefix("~/"), let home = getenv("HOME") {
            return normalize(String(cString: home) + path.dropFirst())
        }
        return normalize((base ?? currentDirectory()) + "/" + path)
    }

    /// Removes "." and ".." components and duplicate slashes (lexically).
    public static func normalize(_ path: String) -> String {
        if isNormal(path) { return path }
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Whether `normalize` would give `path` back as it is: absolute, no empty, "." or ".." component, no
    /// trailing slash (but "/"). Checked in one pass over the bytes, for the paths every command normalizes.
    static func isNormal(_ path: String) -> Bool {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var bytes = path.utf8.makeIterator()
        guard bytes.next() == slash else { return false }
        var length = 0
        var dots = 0
        var any = false
        while let b = bytes.next() {
            any = true
            if b == slash {
                if length == 0 || (dots == length && length <= 2) { return false }
                length = 0
                dots = 0
            } else {
                length += 1
                if b == dot { dots += 1 }
            }
        }
        return !any || (length > 0 && !(dots == length && length <= 2))
    }

    /// Creates a directory and its parents (mode 0700 for new ones). Throws a message on failure.
    public static func createDirectory(_ path: String) throws(FileError) {
        if isDirectory(path) { return }
        let parent = directoryName(path)
        if parent != path && !isDirectory(parent) { try createDirectory(parent) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw FileError(path: path, reason: String(cString: strerror(errno)), action: "create directory")
        }
    }

    /// Reads a whole file.
    public static func read(_ path: String) throws(FileError) -> [UInt8] {
        let fd = try openForReading(path, 0)
        defer { close(fd) }
        var st = stat()
        let size = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : nil
        return try readToEnd(fd, path: path, limit: Int.max, expected: size)
    }

    /// `path` opened read-only and close-on-exec, with `flags` besides.
    private static func openForReading(_ path: String, _ flags: Int32) throws(FileError) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC | flags)
        guard fd >= 0 else {
            let code = errno
            throw FileError(path: path, reason: String(cString: strerror(code)), action: "read", code: code)
        }
        return fd
    }

    /// The rest of `fd`'s bytes, refused (EFBIG, naming `limit`) once they pass `limit`. `expected`: the size fstat
    /// gave a regular file, so that a small file (a registry, a cache entry: at every command) is read through a
    /// buffer its size, not a zeroed 64 KiB one; it is read to its end all the same, whatever its size turns out to be.
    private static func readToEnd(_ fd: Int32, path: String, limit: Int, expected: Int? = nil) throws(FileError) -> [UInt8] {
        var result: [UInt8] = []
        let chunkBytes = expected.map { min(max($0 + 1, 256), 65536) } ?? 65536
        if let expected, expected < limit { result.reserveCapacity(expected) }
        var tooLarge = false
        let code = readChunks(fd, chunkBytes: chunkBytes) { chunk in
            guard chunk.count <= limit - result.count else {
                tooLarge = true
                return false
            }
            result.append(contentsOf: chunk)
            return true
        }
        if code != 0 { throw FileError(path: path, reason: String(cString: strerror(code)), action: "read", code: code) }
        if tooLarge { throw FileError(path: path, reason: "it is larger than \(limit) bytes", action: "read", code: EFBIG) }
        return result
    }

    /// Reads `fd` to its end a chunk of at most `chunkBytes` at a time, handing each to `body` (the bytes
    /// are valid during the call only) until the end or until `body` returns false. From the descriptor's
    /// offset with read(2), or, given `offset`, from there with pread(2), leaving the descriptor's offset as
    /// it was (the bytes a later mapping of it sees). An interrupted read is retried. Returns 0, or the
    /// errno of the read that failed.
    public static func readChunks(_ fd: Int32, from offset: off_t? = nil, chunkBytes: Int = 65536,
                                  _ body: (UnsafeRawBufferPointer) -> Bool) -> Int32 {
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        var position = offset ?? 0
        while true {
            let n = chunk.withUnsafeMutableBytes { buffer in
                offset == nil ? Glibc.read(fd, buffer.baseAddress, buffer.count) : pread(fd, buffer.baseAddress, buffer.count, position)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return 0 }
            position += off_t(n)
            guard chunk.withUnsafeBytes({ body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else { return 0 }
        }
    }

    /// Reads a file that must be a regular file of at most `limit` bytes: opened without waiting (a FIFO
    /// or a device put in its place is refused, never read), checked with fstat on the open descriptor,
    /// and read no further than the limit — for files a hostile hand may have swapped (central SQL and
    /// its manifest: a FIFO hung `federation migrate`, `/dev/zero` grew it to gigabytes).
    public static func readRegular(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
        try readRegular(path, limit: limit, flags: 0) { _ in nil }
    }

    /// `readRegular` for a file only this process's user may have written (a cache kept in the user's
    /// folders): not followed through a symbolic link, refused when another user owns it or when its
    /// group or others may write it.
    public static func readOwnRegular(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
        try readRegular(path, limit: limit, flags: O_NOFOLLOW) { st in
            st.st_uid != geteuid() ? "another user owns it"
                : st.st_mode & (S_IWGRP | S_IWOTH) != 0 ? "its group or others may write it" : nil
        }
    }

    /// `readRegular`, opened with `flags` besides and refused with the reason `refusal` gives for its fstat.
    private static func readRegular(_ path: String, limit: Int, flags: Int32,
                                    refusal: (stat) -> String?) throws(FileError) -> [UInt8] {
        let fd = try openForReading(path, O_NONBLOCK | O_NOCTTY | flags)
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw FileError(path: path, reason: "it is not a regular file", action: "read", code: EINVAL)
        }
        if let reason = refusal(st) { throw FileError(path: path, reason: reason, action: "read", code: EACCES) }
        guard st.st_size <= limit else {
            throw FileError(path: path, reason: "it is larger than \(limit) bytes", action: "read", code: EFBIG)
        }
        return try readToEnd(fd, path: path, limit: limit, expected: Int(st.st_size))
    }

    /// Writes a file atomically (temporary file + rename), so readers never see half of it.
    /// `durable: false` skips the fsync, for a cache whose loss only costs recomputing it.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], permissions: mode_t = 0o644,
                                       durable: Bool = true) throws(FileError) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, permissions)
        guard fd >= 0 else { throw FileError(path: path, reason: String(cString: strerror(errno)), action: "write") }
        if let reason = Descriptor.writeAll(fd, bytes) {
            close(fd)
            unlink(temporary)
            throw FileError(path: path, reason: reason, action: "write")
        }
        if durable { fsync(fd) }
        close(fd)
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw FileError(path: path, reason: reason, action: "write")
        }
    }

    /// Regular files in a directory whose names end with `suffix`, sorted.
    public static func files(in directory: String, suffix: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name.hasSuffix(suffix) && !name.hasPrefix(".") { names.append(directory + "/" + name) }
        }
        return names.sorted()
    }

    public static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let s = String(cString: value)
        return s.isEmpty ? nil : s
    }
}

public struct FileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var action: String
    /// The errno of the failure (0 when unknown).
    public var code: Int32 = 0
    public var description: String { "\(path): cannot \(action): \(reason)" }

    /// The path names nothing (or goes through a file as if it were a folder): a path the user got
    /// wrong (exit 2), unlike a file that is there and cannot be read (exit 1).
    public var isMissing: Bool { code == ENOENT || code == ENOTDIR }
    /// `readRegular` refused what it found: not a regular file, or past its limit.
    public var isRefusedByReadRegular: Bool { code == EINVAL || code == EFBIG }
}


/// What says a file is still the same file: device, inode, size, and modification and status-change
/// times in nanoseconds. A rebuilt or replaced file gets another inode or other times, and ctime
/// cannot be set back by any user (utimensat sets it to now), so a file rewritten in place with its
/// old mtime restored still differs. Git's index and the lock's digest cache rely on the same fields.
public struct FileIdentity: Hashable, Sendable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var mtime: Int64
    public var ctime: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, mtime: Int64, ctime: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.mtime = mtime
        self.ctime = ctime
    }

    public init(_ st: stat) {
        self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                  mtime: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                  ctime: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }

    /// The identity of an open descriptor's file.
    public init?(descriptor fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        self.init(st)
    }

    /// "device inode size mtime ctime", the five numbers separated by spaces.
    public var description: String { "\(device) \(inode) \(size) \(mtime) \(ctime)" }

    /// Reads `description`'s form back.
    public init?(_ text: Substring) {
        let f = text.split(separator: " ")
        guard f.count == 5, let d = UInt64(f[0]), let i = UInt64(f[1]), let s = Int64(f[2]), let m = Int64(f[3]),
              let c = Int64(f[4]) else { return nil }
        self.init(device: d, inode: i, size: s, mtime: m, ctime: c)
    }
}
