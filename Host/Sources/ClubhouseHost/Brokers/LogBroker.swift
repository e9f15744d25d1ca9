// Log broker: plugin and host messages to stderr, filtered by level (--verbose raises it).
// One implementation (`write`), reached two ways: the C table an in-process plugin gets, and the
// wire face that takes an isolated plugin's one-way log frames.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseWire
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: immutable; lines are written under `lock`.
public final class LogBroker: @unchecked Sendable {
    /// Messages at or below this level are shown: 1 = errors and warnings (default), 2 = info, ...
    public let threshold: Int32
    let color: Bool
    private let lock: Lock
    /// Where finished lines go (stderr unless a test captures them).
    private let output: (@Sendable (String) -> Void)?
    /// Reads isolated plugins' standard error and forwards it here, line by line with the plugin's
    /// alias in front (Runner/StandardErrorRelay.swift).
    let runnerErrors: StandardErrorRelay

    public convenience init(verbosity: Int, color: Bool) {
        self.init(verbosity: verbosity, color: color, optionalOutput: nil)
    }

    /// A broker whose lines go to `output` instead of stderr.
    convenience init(verbosity: Int, color: Bool, output: @escaping @Sendable (String) -> Void) {
        self.init(verbosity: verbosity, color: color, optionalOutput: output)
    }

    private init(verbosity: Int, color: Bool, optionalOutput output: (@Sendable (String) -> Void)?) {
        threshold = Int32(CLUBHOUSE_LOG_WARNING) + Int32(verbosity)
        self.color = color
        self.output = output
        let lock = Lock()
        self.lock = lock
        runnerErrors = StandardErrorRelay { text in
            lock.withLock { if let output { output(text) } else { StandardStreams.writeError(text) } }
        }
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
                let log = instance.runtime.log
                guard log.isEnabled(level) else { return }
                // At most `log_kb` of the message is read; a longer one is cut, as a runner cuts it.
                // One line without control characters: no line posing as the host's, no escape
                // sequence on the operator's terminal (issue 27's attack round).
                log.write(level: level, source: instance.entry.alias,
                          message: TerminalText.plain(LimitRefusal.cut(cString: message, limit: instance.limits.logBytes, key: "log_kb")))
            },
            enabled: { host, level in
                guard let instance = PluginInstance.from(host) else { return 0 }
                return instance.runtime.log.isEnabled(level) ? 1 : 0
            })
    }

    /// The wire face: a runner's one-way `log` frame (LogMessage) from plugin `source`. The runner
    /// filters by the threshold it was sent with `create` and cuts at `log_kb`; the broker does both
    /// again (a frame past the cap never arrives: WireCaps).
    func serve(log payload: [UInt8], source: String, limits: ServiceLimits) {
        guard let message = try? LogMessage.decode(payload), isEnabled(message.level) else { return }
        write(level: message.level, source: source,
              message: TerminalText.plain(LimitRefusal.cut(message.text, limit: limits.logBytes + LimitRefusal.cutMarker("log_kb", limits.logBytes).utf8.count,
                                                        key: "log_kb")))
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
