// Reading inputs and writing outputs (pictures, exports, demo folders) with the messages a user
// needs: which file, what went wrong, what to do.
//
// One rule for every output path a plugin writes:
//   - "-" is standard output;
//   - a regular file (or a new one) is replaced atomically (temporary file beside it + rename), so an
//     export never leaves half a file behind;
//   - a symbolic link is written through to its target (the link stays a link);
//   - a FIFO or a device is written as a stream and never replaced (`--svg /dev/full` is an error,
//     not a new regular file where the device was); a socket or a folder is refused;
//   - a missing parent folder is an error naming it (only folder outputs, like a demo's `--out`,
//     create folders, through `createDirectory`).
//
// Path arguments are capabilities (services/files.h): while a command runs, a path that is one of
// its path arguments (or lies inside a folder argument) is opened BY THE HOST, through the files
// service, and only the descriptor comes here — the only way a sandboxed plugin reaches a file, and
// the same code path under every isolation. The host applies the rule above to writes (a temporary
// file renamed over the target when the call succeeds). Any other path is opened directly, as
// before (a sandbox's kernel refuses it).

import CClubhouse
import ClubhouseABI
import ClubhouseToolkit
#if canImport(Glibc)
import Glibc
#endif

/// The running call's path arguments, reachable through the files service (one per thread while a
/// handler runs; Export.swift sets it).
final class CallFiles {
    let call: UnsafePointer<clubhouse_call>
    let service: UnsafePointer<clubhouse_files_service>?
    let paths: [(name: String, path: String)]
    /// The call came from a client of the network (CLUBHOUSE_CALL_NETWORK): no path but its path
    /// arguments is opened, asked about or listed (a string it gave is not a file of the host).
    let network: Bool

    init(call: UnsafePointer<clubhouse_call>, service: UnsafePointer<clubhouse_files_service>?,
         paths: [(name: String, path: String)], network: Bool = false) {
        self.call = call
        self.service = service
        self.paths = paths
        self.network = network
    }

    /// Whether the running call may reach only its path arguments (a call from the network).
    static var confined: Bool { current?.network == true }

    /// The refusal of a path that is no path argument of a call from the network.
    static func refusal(_ path: String) -> PluginError {
        PluginError.denied("a request over the network cannot name a file on the host ('\(path.prefix(200))'); name what the plugin stores instead")
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: CallFiles? {
        pthread_getspecific(key).map { Unmanaged<CallFiles>.fromOpaque($0).takeUnretainedValue() }
    }

    static func with<R>(_ files: CallFiles?, _ body: () throws -> R) rethrows -> R {
        guard let files else { return try body() }
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(files).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try withExtendedLifetime(files) { try body() }
    }

    /// Opens `path` through the service when it is a path argument (or inside a folder argument,
    /// for reading); nil when it is neither. Throws the host's refusal.
    func open(_ path: String, write: Bool) throws -> Int32? {
        var fd: Int32 = -1
        let buffer = ReplyBuffer()
        let status: Int32
        if let match = paths.first(where: { $0.path == path }) {
            guard let open = service?.pointee.open_argument else { return nil }
            status = buffer.withSink { sink in
                open(call, match.name, write ? UInt32(CLUBHOUSE_FILE_WRITE) : UInt32(CLUBHOUSE_FILE_READ), &fd, sink)
            }
        } else if !write, let folder = paths.first(where: { $0.path != "-" && path.hasPrefix($0.path.hasSuffix("/") ? $0.path : $0.path + "/") }) {
            guard let open = service?.pointee.open_beneath else { return nil }
            let prefix = folder.path.hasSuffix("/") ? folder.path.count : folder.path.count + 1
            let relative = String(path.dropFirst(prefix))
            status = buffer.withSink { sink in open(call, folder.name, relative, &fd, sink) }
        } else {
            if network { throw CallFiles.refusal(path) }
            return nil
        }
        guard status == Int32(CLUBHOUSE_OK), fd >= 0 else {
            let message = String(decoding: buffer.bytes, as: UTF8.self)
            throw PluginError(Status(code: status), message.isEmpty ? "\(path): the host refused to open it" : message)
        }
        return fd
    }

    /// `open` for a question (exists, is a folder): nil when not an argument or refused.
    func stat(_ path: String) -> Glibc.stat? {
        guard let fd = try? open(path, write: false) else { return nil }
        defer { close(fd) }
        var st = Glibc.stat()
        return fstat(fd, &st) == 0 ? st : nil
    }
}

public enum Files {
    /// Reads a whole file ("-" reads standard input). Refuses files above `limit` bytes. The
    /// reading is ClubhouseToolkit's `WholeFile`; this names the file and what to do.
    public static func read(_ path: String, limit: Int = 256 << 20) throws -> [UInt8] {
        if path != "-" && isDirectory(path) {
            throw PluginError.invalidArgument("\(path) is a folder, not a file; give the path of the file to read")
        }
        let result: Result<[UInt8], WholeFile.Failure>
        if let files = CallFiles.current, let fd = try files.open(path, write: false) {
            defer { close(fd) }
            result = WholeFile.read(descriptor: fd, limit: limit)
        } else {
            result = WholeFile.read(path, limit: limit)
        }
        switch result {
        case .success(let bytes):
            return bytes
        case .failure(.folder):
            throw PluginError.invalidArgument("\(path) is a folder, not a file; give the path of the file to read")
        case .failure(.open(let code)):
            let reason = String(cString: strerror(code))
            let hint = code == EACCES ? "check its permissions" : code == ENOENT ? "check the path" : "check the file"
            throw PluginError(code == ENOENT ? .notFound : .io, "\(path): cannot read (\(reason)); \(hint)")
        case .failure(.read(let code)):
            throw PluginError(.io, "\(path): read failed (\(String(cString: strerror(code))))")
        case .failure(.tooLarge):
            throw PluginError.invalidArgument("\(path) is larger than \(limit >> 20) MB; is it the right file?")
        }
    }

    /// Reads a whole file as UTF-8 text.
    public static func readText(_ path: String, limit: Int = 256 << 20) throws -> String {
        String(decoding: try read(path, limit: limit), as: UTF8.self)
    }

    /// Writes an output by the rule at the top of this file.
    public static func write(_ path: String, _ bytes: [UInt8]) throws {
        if let files = CallFiles.current, let fd = try files.open(path, write: true) {
            defer { close(fd) }
            // Asked twice in one call, the host hands the same temporary file: start it over.
            var st = stat()
            if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG {
                _ = ftruncate(fd, 0)
                _ = lseek(fd, 0, SEEK_SET)
            }
            return try stream(bytes, to: fd, path: path == "-" ? "standard output" : path)
        }
        if path == "-" { return try stream(bytes, to: 1, path: "standard output") }
        let target = try followLinks(path)
        var st = stat()
        if lstat(target, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw PluginError.invalidArgument("\(path) is a folder; give the name of a file to write")
            case S_IFIFO, S_IFCHR, S_IFBLK:
                let fd = open(target, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw PluginError(.io, "\(path): cannot open for writing (\(String(cString: strerror(errno))))")
                }
                defer { close(fd) }
                return try stream(bytes, to: fd, path: path)
            default:
                throw PluginError.invalidArgument("\(path) is a socket; give the name of a file to write")
            }
        } else {
            let parent = directoryName(target)
            if !parent.isEmpty && !isDirectory(parent) {
                throw PluginError(.notFound, "\(path): the folder \(parent) does not exist; create it first or choose another path")
            }
        }
        try replace(target, bytes, shownAs: path)
    }

    /// Replaces a regular file: temporary file in the same folder, then rename over it.
    private static func replace(_ target: String, _ bytes: [UInt8], shownAs path: String) throws {
        let temporary = target + ".partial-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw PluginError(.io, "\(path): cannot write (\(String(cString: strerror(errno)))); choose a writable place")
        }
        do {
            try stream(bytes, to: fd, path: path)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw PluginError(.io, "\(path): cannot write (\(reason))")
        }
    }

    /// Writes every byte to an open descriptor.
    private static func stream(_ bytes: [UInt8], to fd: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, bytes.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw PluginError(.io, "\(path): write failed (\(String(cString: strerror(errno))))")
            }
            if n == 0 { throw PluginError(.io, "\(path): write failed (nothing was written)") }
            offset += n
        }
    }

    /// The path a write lands on: symbolic links followed to their final target (which may not exist yet).
    static func followLinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { return current }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : join(directoryName(current).isEmpty ? "." : directoryName(current), target)
        }
        throw PluginError.invalidArgument("\(path): too many symbolic links; give the file's real path")
    }

    /// Writes UTF-8 text atomically. A file is never a terminal: during a call whose text is styled
    /// (TextStyle.current is .terminal, eg a table built for the reply and also saved), the SGR
    /// sequences are left out of what is written.
    public static func write(_ path: String, text: String) throws {
        try write(path, Array((TextStyle.current == .terminal ? TextStyle.unstyled(text) : text).utf8))
    }

    /// Creates a folder and its parents.
    public static func createDirectory(_ path: String) throws {
        if path.isEmpty || path == "/" || isDirectory(path) { return }
        if CallFiles.confined { throw CallFiles.refusal(path) }
        try createDirectory(directoryName(path))
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw PluginError(.io, "\(path): cannot create folder (\(String(cString: strerror(errno))))")
        }
    }

    public static func exists(_ path: String) -> Bool {
        if CallFiles.confined { return CallFiles.current?.stat(path) != nil }
        if access(path, F_OK) == 0 { return true }
        return CallFiles.current?.stat(path) != nil
    }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        if !CallFiles.confined && stat(path, &st) == 0 { return (st.st_mode & S_IFMT) == S_IFDIR }
        guard let found = CallFiles.current?.stat(path) else { return false }
        return (found.st_mode & S_IFMT) == S_IFDIR
    }

    /// The entry names of a folder (sorted, without "." and ".."); empty when it cannot be read.
    /// A folder argument (or a folder inside one) is listed through the files service.
    public static func names(in folder: String) -> [String] {
        var fd: Int32 = -1
        if let files = CallFiles.current, let opened = try? files.open(folder, write: false) {
            fd = opened
        } else if CallFiles.confined {
            return []
        } else {
            fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard fd >= 0 else { return [] }
        guard let dir = fdopendir(fd) else {
            close(fd)
            return []
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// "a/b/c.svg" → "a/b"; "c.svg" → "".
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `name` inside `folder`.
    public static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
