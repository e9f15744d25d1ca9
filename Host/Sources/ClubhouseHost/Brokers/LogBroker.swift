// Log broker: plugin and host messages to stderr, filtered by level (--verbose raises it).
// One implementation (`write`), reached two ways: the C table an in-process plugin gets, and the
// wire face that takes an isolated plugin's one-way log frames.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
#if canImport(Glibc)
import Glibc
#endif

public final class LogBroker: @unchecked Sendable {
    /// Messages at or below this level are shown: 1 = errors and warnings (default), 2 = info, ...
    public let threshold: Int32
    let color: Bool
    private let lock = Lock()
    /// Where finished lines go (stderr unless a test captures them).
    private let output: (@Sendable (String) -> Void)?

    public init(verbosity: Int, color: Bool) {
        threshold = Int32(CLUBHOUSE_LOG_WARNING) + Int32(verbosity)
        self.color = color
        output = nil
    }

    /// A broker whose lines go to `output` instead of stderr.
    init(verbosity: Int, color: Bool, output: @escaping @Sendable (String) -> Void) {
        threshold = Int32(CLUBHOUSE_LOG_WARNING) + Int32(verbosity)
        self.color = color
        self.output = output
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
        lock.withLock {
            if let output { output(line) } else { StandardStreams.writeError(line) }
        }
    }

    public func error(_ message: String) { write(level: Int32(CLUBHOUSE_LOG_ERROR), source: "clubhouse", message: message) }
    public func info(_ message: String) { write(level: Int32(CLUBHOUSE_LOG_INFO), source: "clubhouse", message: message) }
    public func warning(_ message: String) { write(level: Int32(CLUBHOUSE_LOG_WARNING), source: "clubhouse", message: message) }
    public func debug(_ message: String) { write(level: Int32(CLUBHOUSE_LOG_DEBUG), source: "clubhouse", message: message) }
}

// MARK: the two faces

extension LogBroker {
    /// The C face: `write` and `enabled` for the plugin whose host struct is passed.
    static func makeServiceTable() -> clubhouse_log_service {
        clubhouse_log_service(
            struct_size: UInt32(MemoryLayout<clubhouse_log_service>.size),
            write: { host, level, message in
                guard let instance = PluginInstance.from(host), let message else { return }
                instance.runtime.log.write(level: level, source: instance.entry.alias, message: String(cString: message))
            },
            enabled: { host, level in
                guard let instance = PluginInstance.from(host) else { return 0 }
                return instance.runtime.log.isEnabled(level) ? 1 : 0
            })
    }

    /// The wire face: a runner's one-way `log` frame (i32 level, str message) from plugin `source`.
    /// The runner filters by the threshold it was sent with `create`; the broker filters again.
    func serve(log payload: [UInt8], source: String) {
        var r = WireReader(payload)
        guard let level = try? r.i32(), let text = try? r.str() else { return }
        write(level: level, source: source, message: text)
    }
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
