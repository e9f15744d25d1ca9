// Reading a whole file with the C library (no Foundation, which would load ICU into the host with
// the plugin): the one reader behind PluginKit's `Files.read` and the cores that read inputs.

#if canImport(Glibc)
import Glibc
#endif

public enum WholeFile {
    /// Why a file could not be read.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The path names a folder.
        case folder
        /// open(2) failed with this errno.
        case open(errno: Int32)
        /// read(2) failed with this errno.
        case read(errno: Int32)
        /// The file holds more than `limit` bytes.
        case tooLarge(limit: Int)

        public var description: String {
            switch self {
            case .folder: return "it is a folder"
            case .open(let code), .read(let code): return String(cString: strerror(code))
            case .tooLarge(let limit): return "it is larger than \(limit) bytes"
            }
        }
    }

    /// The whole content of `path` ("-": standard input), at most `limit` bytes.
    public static func read(_ path: String, limit: Int = Int.max) -> Result<[UInt8], Failure> {
        if path != "-" {
            var st = stat()
            if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { return .failure(.folder) }
        }
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.open(errno: errno)) }
        defer { if fd != 0 { close(fd) } }
        return read(descriptor: fd, limit: limit)
    }

    /// The rest of an open descriptor (the caller closes it), at most `limit` bytes.
    public static func read(descriptor fd: Int32, limit: Int = Int.max) -> Result<[UInt8], Failure> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.read(errno: errno))
            }
            if n == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit { return .failure(.tooLarge(limit: limit)) }
        }
    }
}
