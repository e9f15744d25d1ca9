// The few file-system questions the catalog import asks, answered with the C library (the
// domain code stays free of Foundation, which would load ICU into the host with the plugin).

import Glibc

/// Another way to answer the same four questions. The plugin adapter installs one that goes
/// through the host's files service, so a course folder given as an argument is readable even
/// where the plugin cannot open files itself (`isolation: "sandbox"`).
public protocol LocalFileAccess: Sendable {
    func exists(_ path: String) -> Bool
    func isDirectory(_ path: String) -> Bool
    func names(in directory: String) -> [String]
    func contents(_ path: String) -> [UInt8]?
}

public enum LocalFiles {
    /// Set once by the plugin adapter before any call; nil: the C library.
    public nonisolated(unsafe) static var access: (any LocalFileAccess)?

    /// True when `path` exists (following links).
    static func exists(_ path: String) -> Bool {
        if let access { return access.exists(path) }
        return Glibc.access(path, F_OK) == 0
    }

    /// True when `path` is a directory (following links).
    static func isDirectory(_ path: String) -> Bool {
        if let access { return access.isDirectory(path) }
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The entry names of a directory, sorted; empty when it cannot be read.
    static func names(in directory: String) -> [String] {
        if let access { return access.names(in: directory) }
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
    static func contents(_ path: String) -> [UInt8]? {
        if let access { return access.contents(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}

/// UTC timestamps in ISO 8601 (`2026-11-22T03:50:31Z`), as the job records keep them.
public enum UTCTime {
    /// Seconds since 1970 now.
    public static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func iso8601(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : String(v) }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// The seconds of a timestamp `iso8601` wrote; nil for anything else.
    static func parse(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 90 else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var v: Int32 = 0
            for i in range {
                guard b[i] >= 48 && b[i] <= 57 else { return nil }
                v = v * 10 + Int32(b[i] - 48)
            }
            return v
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Double(timegm(&parts))
    }
}
