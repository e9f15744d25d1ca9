// The few file-system questions the catalog import asks, answered with the C library (the
// domain code stays free of Foundation, which would load ICU into the host with the plugin).

import Glibc

/// The four file-system questions the course import asks. `LocalFiles` answers them with the C
/// library; the plugin adapter hands `PuttingService` one that goes through the host's files service,
/// so a course folder given as an argument is readable even where the plugin cannot open files
/// itself (`isolation: "sandbox"`). Passed down the calls (no process-wide hook: instances of the
/// plugin may run concurrently).
public protocol LocalFileAccess: Sendable {
    func exists(_ path: String) -> Bool
    func isDirectory(_ path: String) -> Bool
    func names(in directory: String) -> [String]
    func contents(_ path: String) -> [UInt8]?
}

/// The C library's answers.
public struct LocalFiles: LocalFileAccess {
    public init() {}

    /// True when `path` exists (following links).
    public func exists(_ path: String) -> Bool { Glibc.access(path, F_OK) == 0 }

    /// True when `path` is a directory (following links).
    public func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The entry names of a directory, sorted; empty when it cannot be read.
    public func names(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
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

    /// The whole content of a regular file; nil when it cannot be opened or read.
    public func contents(_ path: String) -> [UInt8]? { try? WholeFile.read(path).get() }
}

/// UTC timestamps in ISO 8601 (`2026-11-22T03:50:31Z`), as the job records keep them.
public typealias UTCTime = UTCClock
