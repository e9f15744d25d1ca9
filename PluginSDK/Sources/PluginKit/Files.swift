// Reading inputs and writing outputs (pictures, exports, demo folders) with the messages a user
// needs: which file, what went wrong, what to do. Writes are atomic (temporary file + rename) and
// create missing parent folders, so a demo or an export never leaves half a file behind.

#if canImport(Glibc)
import Glibc
#endif

public enum Files {
    /// Reads a whole file ("-" reads standard input). Refuses files above `limit` bytes.
    public static func read(_ path: String, limit: Int = 256 << 20) throws -> [UInt8] {
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw PluginError(errno == ENOENT ? .notFound : .io, "\(path): cannot read (\(reason)); check the path")
        }
        defer { if fd != 0 { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw PluginError(.io, "\(path): read failed (\(String(cString: strerror(errno))))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit {
                throw PluginError.invalidArgument("\(path) is larger than \(limit >> 20) MB; is it the right file?")
            }
        }
        return bytes
    }

    /// Reads a whole file as UTF-8 text.
    public static func readText(_ path: String, limit: Int = 256 << 20) throws -> String {
        String(decoding: try read(path, limit: limit), as: UTF8.self)
    }

    /// Writes a file atomically, creating missing parent folders.
    public static func write(_ path: String, _ bytes: [UInt8]) throws {
        try createDirectory(directoryName(path))
        let temporary = path + ".partial-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw PluginError(.io, "\(path): cannot write (\(String(cString: strerror(errno)))); choose a writable place")
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw PluginError(.io, "\(path): write failed (\(reason))")
            }
            offset += n
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw PluginError(.io, "\(path): cannot write (\(reason))")
        }
    }

    /// Writes UTF-8 text atomically.
    public static func write(_ path: String, text: String) throws {
        try write(path, Array(text.utf8))
    }

    /// Creates a folder and its parents.
    public static func createDirectory(_ path: String) throws {
        if path.isEmpty || path == "/" || isDirectory(path) { return }
        try createDirectory(directoryName(path))
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw PluginError(.io, "\(path): cannot create folder (\(String(cString: strerror(errno))))")
        }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
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
