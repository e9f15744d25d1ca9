// The path arguments of one call, as capabilities (services/files.h): the host opens exactly the
// paths the caller passed, by argument name, with the access the catalogue declares, and hands the
// plugin the descriptor (in process: the number; to a runner: over its socket with SCM_RIGHTS).
// Writes to regular files go to a temporary file beside the target that `finish` renames over it
// when the call succeeds and removes otherwise, so a failed call leaves nothing behind.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

/// A refused or failed open: the status and the one-line message the plugin gets.
struct FileRefusal: Error, Sendable {
    var status: Status
    var message: String
}

/// @unchecked Sendable: `grants` never changes; `writes` is read and written under `lock`.
final class CallFiles: @unchecked Sendable {
    struct Grant: Sendable {
        var path: String
        var access: PathAccess
    }

    /// Argument name → the path the caller passed and the declared access.
    let grants: [String: Grant]
    private let lock = Lock()
    /// Write targets opened in this call, by argument name: the host's copy of the descriptor and,
    /// for a regular file, the temporary file to rename.
    private var writes: [String: (fd: Int32, temporary: String?, target: String, shown: String)] = [:]
    private let callID: UInt64

    init(grants: [String: Grant], callID: UInt64) {
        self.grants = grants
        self.callID = callID
    }

    /// The grants of a call: every path argument of `command` present in `arguments`.
    static func grants(for command: CommandSpec?, arguments: JSONObject) -> [String: Grant] {
        var grants: [String: Grant] = [:]
        for spec in command?.arguments ?? [] where spec.kind == .path {
            if let path = arguments[spec.name]?.stringValue, !path.isEmpty {
                grants[spec.name] = Grant(path: path, access: spec.access)
            }
        }
        return grants
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Whether this call holds `grant` (to pass it on to a plugin it invokes): the same path with at
    /// least that access. Not a path inside a folder it holds (the callee's host would open that
    /// path directly, following links the folder's own resolution refuses); standard input and
    /// output stay with the outermost call.
    func covers(_ grant: Grant) -> Bool {
        guard grant.path != "-" else { return false }
        return grants.values.contains { $0.path == grant.path && (grant.access == .read || $0.access == .write) }
    }

    /// Checks, before the plugin runs, that every file this call may write can be written: its
    /// folder exists and it is not a folder or a socket. A command that stores data and then writes
    /// a picture must not store anything when the picture's path was wrong from the start.
    func checkWriteTargets() -> FileRefusal? {
        for name in grants.keys.sorted() {
            guard let grant = grants[name], grant.access == .write, grant.path != "-" else { continue }
            if case .failure(let refusal) = CallFiles.writeTarget(grant.path) { return refusal }
        }
        return nil
    }

    /// Where a write to `path` lands (links followed) and the kind of file already there (nil: none
    /// yet, and its folder exists), or why it cannot be written: a folder, a socket, a missing folder.
    static func writeTarget(_ path: String) -> Result<(target: String, kind: mode_t?), FileRefusal> {
        let target: String
        switch followLinks(path) {
        case .success(let t): target = t
        case .failure(let refusal): return .failure(refusal)
        }
        var st = stat()
        if lstat(target, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG, S_IFIFO, S_IFCHR, S_IFBLK: return .success((target, st.st_mode & S_IFMT))
            case S_IFDIR: return .failure(FileRefusal(status: .invalidArgument, message: "\(path) is a folder; give the name of a file to write"))
            default: return .failure(FileRefusal(status: .invalidArgument, message: "\(path) is a socket; give the name of a file to write"))
            }
        }
        let parent = FileSystem.directoryName(target)
        var ps = stat()
        if !parent.isEmpty && !(stat(parent, &ps) == 0 && (ps.st_mode & S_IFMT) == S_IFDIR) {
            return .failure(FileRefusal(status: .notFound, message: "\(path): the folder \(parent) does not exist; create it first or choose another path"))
        }
        return .success((target, nil))
    }

    /// Opens argument `name` for `access`; the descriptor is the caller's.
    func open(argument name: String, write: Bool) -> Result<Int32, FileRefusal> {
        guard let grant = grants[name] else {
            let known = grants.keys.sorted()
            return .failure(FileRefusal(status: .notFound, message: "this call has no path argument '\(name)'"
                + (known.isEmpty ? " (it was given none)" : " (it was given \(known.map { "'\($0)'" }.joined(separator: ", ")))")))
        }
        if write && grant.access != .write {
            return .failure(FileRefusal(status: .denied, message: "argument '\(name)' (\(grant.path)) is declared for reading; the plugin may not write it (declare \"access\": \"write\" in the catalogue)"))
        }
        if grant.path == "-" {
            let fd = fcntl(write ? 1 : 0, F_DUPFD_CLOEXEC, 3)
            guard fd >= 0 else { return .failure(FileRefusal(status: .io, message: "cannot pass standard \(write ? "output" : "input") (\(CallFiles.reason(errno)))")) }
            return .success(fd)
        }
        return write ? openForWriting(name, grant.path) : CallFiles.openForReading(grant.path)
    }

    /// Read access: the file or folder, never blocking on a FIFO without a writer.
    static func openForReading(_ path: String) -> Result<Int32, FileRefusal> {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            let hint = code == EACCES ? "check its permissions" : code == ENOENT ? "check the path" : "check the file"
            return .failure(FileRefusal(status: code == ENOENT ? .notFound : .io, message: "\(path): cannot read (\(reason(code))); \(hint)"))
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return .success(fd)
    }

    /// Write access, by the output rule of PluginKit's `Files`.
    private func openForWriting(_ name: String, _ path: String) -> Result<Int32, FileRefusal> {
        lock.lock()
        defer { lock.unlock() }
        if let open = writes[name] {
            let fd = fcntl(open.fd, F_DUPFD_CLOEXEC, 3)
            guard fd >= 0 else { return .failure(FileRefusal(status: .io, message: "\(path): cannot write (\(CallFiles.reason(errno)))")) }
            return .success(fd)
        }
        let target: String
        switch CallFiles.writeTarget(path) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let found):
            target = found.target
            // A FIFO or a device is written as a stream, never replaced.
            if let kind = found.kind, kind != S_IFREG {
                let fd = CallFiles.openStream(target)
                if fd < 0, errno == ECANCELED, let (status, message) = ServiceGate.refusal(.openFile) {
                    return .failure(FileRefusal(status: Status(rawValue: status) ?? .cancelled,
                                                message: "\(path): no reader came to the FIFO and \(message)"))
                }
                guard fd >= 0 else {
                    return .failure(FileRefusal(status: .io, message: "\(path): cannot open for writing (\(CallFiles.reason(errno)))"))
                }
                writes[name] = (fd, nil, target, path)
                return dup(name, fd, path)
            }
        }
        let partial = target + ".partial-\(getpid())-\(callID)"
        let hostFD = Glibc.open(partial, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard hostFD >= 0 else {
            return .failure(FileRefusal(status: .io, message: "\(path): cannot write (\(CallFiles.reason(errno))); choose a writable place"))
        }
        writes[name] = (hostFD, partial, target, path)
        return dup(name, hostFD, path)
    }

    /// Opens a FIFO or a device to write. A FIFO without a reader is waited for (a reader may come), but
    /// never past the end of the running call's grace (ServiceGate.waitBound): opening it blocking
    /// waited for ever, whatever happened to the call (issue 27). -1 with errno set on failure.
    static func openStream(_ target: String) -> Int32 {
        while true {
            let fd = Glibc.open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
            if fd >= 0 {
                let flags = fcntl(fd, F_GETFL)
                if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
                return fd
            }
            guard errno == ENXIO else { return -1 }
            let pause = ServiceGate.waitBound(50)
            guard pause > 0 else {
                errno = ECANCELED
                return -1
            }
            usleep(UInt32(pause) * 1000)
        }
    }

    private func dup(_ name: String, _ fd: Int32, _ path: String) -> Result<Int32, FileRefusal> {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { return .failure(FileRefusal(status: .io, message: "\(path): cannot write (\(CallFiles.reason(errno)))")) }
        return .success(copy)
    }

    /// Opens `relative` beneath the folder of read argument `name`, read-only.
    func open(beneath name: String, relative: String) -> Result<Int32, FileRefusal> {
        let folder: Int32
        switch open(argument: name, write: false) {
        case .success(let fd): folder = fd
        case .failure(let refusal): return .failure(refusal)
        }
        defer { close(folder) }
        let path = grants[name]?.path ?? name
        var st = stat()
        guard fstat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            return .failure(FileRefusal(status: .invalidArgument, message: "argument '\(name)' (\(path)) is not a folder; nothing can be opened beneath it"))
        }
        return CallFiles.openBeneath(folder: folder, relative: relative, shownFolder: path)
    }

    /// openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS); without openat2 (Linux < 5.6), a walk that
    /// refuses ".." and every symbolic link.
    static func openBeneath(folder: Int32, relative: String, shownFolder: String) -> Result<Int32, FileRefusal> {
        let shown = relative.isEmpty ? shownFolder : shownFolder + "/" + relative
        func escape() -> Result<Int32, FileRefusal> {
            .failure(FileRefusal(status: .denied, message: "\(relative) leaves the folder \(shownFolder) (an absolute path, '..' or a link pointing outside); only what is inside it can be opened"))
        }
        if relative.isEmpty || relative.hasPrefix("/") || relative.utf8.contains(0) { return escape() }
        let flags = UInt64(O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        // struct open_how { u64 flags, mode, resolve }: RESOLVE_NO_MAGICLINKS 0x02, RESOLVE_BENEATH 0x08.
        var how: (UInt64, UInt64, UInt64) = (flags, 0, 0x02 | 0x08)
        var fd = Int32(withUnsafeMutablePointer(to: &how) { pointer in
            relative.withCString { Kernel.syscall4(437, Int(folder), Int(bitPattern: $0), Int(bitPattern: pointer), 24) }
        })
        if fd < 0 && errno == ENOSYS {
            fd = walkBeneath(folder: folder, relative: relative, flags: Int32(flags))
        }
        guard fd >= 0 else {
            let code = errno
            if code == EXDEV || code == ELOOP { return escape() }
            let hint = code == ENOENT ? "check the path" : "check the file"
            return .failure(FileRefusal(status: code == ENOENT ? .notFound : .io, message: "\(shown): cannot read (\(reason(code))); \(hint)"))
        }
        let current = fcntl(fd, F_GETFL)
        if current >= 0 { _ = fcntl(fd, F_SETFL, current & ~O_NONBLOCK) }
        return .success(fd)
    }

    /// The fallback: component by component, no "..", no symbolic links (errno EXDEV for both).
    private static func walkBeneath(folder: Int32, relative: String, flags: Int32) -> Int32 {
        let parts = relative.split(separator: "/").map(String.init).filter { $0 != "." }
        if parts.contains("..") {
            errno = EXDEV
            return -1
        }
        var current = fcntl(folder, F_DUPFD_CLOEXEC, 3)
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            let next = openat(current, part, (last ? flags : 0o10_000_000 /* O_PATH */ | O_DIRECTORY | O_CLOEXEC) | O_NOFOLLOW)
            let code = errno
            close(current)
            if next < 0 {
                errno = code == ELOOP ? EXDEV : code
                return -1
            }
            current = next
        }
        return current
    }

    /// The final target of a write through symbolic links (it may not exist yet).
    static func followLinks(_ path: String) -> Result<String, FileRefusal> {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return .success(current) }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { return .success(current) }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let folder = FileSystem.directoryName(current)
            current = target.hasPrefix("/") ? target : (folder.isEmpty ? "." : folder) + "/" + target
        }
        return .failure(FileRefusal(status: .invalidArgument, message: "\(path): too many symbolic links; give the file's real path"))
    }

    /// Ends the call: renames each written temporary file over its target when `success`, removes
    /// it otherwise. Returns a message when a rename failed (the call then fails).
    func finish(success: Bool) -> String? {
        lock.lock()
        defer { lock.unlock() }
        var problem: String?
        for (_, write) in writes.sorted(by: { $0.key < $1.key }) {
            close(write.fd)
            guard let temporary = write.temporary else { continue }
            if success {
                if rename(temporary, write.target) != 0 {
                    let code = errno
                    unlink(temporary)
                    problem = problem ?? "\(write.shown): cannot write (\(CallFiles.reason(code)))"
                }
            } else {
                unlink(temporary)
            }
        }
        writes.removeAll()
        return problem
    }
}
