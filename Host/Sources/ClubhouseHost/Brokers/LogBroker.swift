// Log broker: plugin and host messages to stderr, filtered by level (--verbose raises it).

import ClubhousePlatform
import CClubhouse
#if canImport(Glibc)
import Glibc
#endif

public final class LogBroker: @unchecked Sendable {
    /// Messages at or below this level are shown: 1 = errors and warnings (default), 2 = info, ...
    public let threshold: Int32
    let color: Bool
    private let lock = Lock()

    public init(verbosity: Int, color: Bool) {
        threshold = Int32(CLUBHOUSE_LOG_WARNING) + Int32(verbosity)
        self.color = color
    }

    public func isEnabled(_ level: Int32) -> Bool { level <= threshold }

    public func write(level: Int32, source: String, message: String) {
        guard isEnabled(level) else { return }
        let name: String
        switch level {
        case Int32(CLUBHOUSE_LOG_ERROR): name = "error"
        case Int32(CLUBHOUSE_LOG_WARNING): name = "warning"
        case Int32(CLUBHOUSE_LOG_INFO): name = "info"
        case Int32(CLUBHOUSE_LOG_DEBUG): name = "debug"
        default: name = "trace"
        }
        let tag = color && level <= Int32(CLUBHOUSE_LOG_WARNING)
            ? (level == Int32(CLUBHOUSE_LOG_ERROR) ? "\u{1B}[31m\(name)\u{1B}[0m" : "\u{1B}[33m\(name)\u{1B}[0m") : name
        let line = "[\(source)] \(tag): \(message)\n"
        lock.withLock { StandardStreams.writeError(line) }
    }

    public func info(_ message: String) { write(level: Int32(CLUBHOUSE_LOG_INFO), source: "clubhouse", message: message) }
    public func warning(_ message: String) { write(level: Int32(CLUBHOUSE_LOG_WARNING), source: "clubhouse", message: message) }
    public func debug(_ message: String) { write(level: Int32(CLUBHOUSE_LOG_DEBUG), source: "clubhouse", message: message) }
}

/// Unbuffered writes to the standard streams (whole strings, retried on EINTR).
public enum StandardStreams {
    public static func write(_ text: String, to fd: Int32) {
        var text = text
        _ = text.withUTF8 { Descriptor.writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    public static func writeOutput(_ text: String) { write(text, to: 1) }
    public static func writeError(_ text: String) { write(text, to: 2) }
    public static var errorIsTerminal: Bool { isatty(2) != 0 }
    public static var outputIsTerminal: Bool { isatty(1) != 0 }
}
