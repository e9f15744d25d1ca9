// Progress broker: where a call's progress goes — a bar with rate and ETA on a terminal,
// nothing in a pipe or with --quiet, JSON-RPC notifications under `serve`.

#if canImport(Glibc)
import ClubhousePlatform
import Glibc
#endif

/// Receives one call's progress. Implementations rate-limit themselves.
public protocol ProgressSink: AnyObject, Sendable {
    func begin(label: String, total: UInt64)
    func update(done: UInt64)
    func end()
}

/// Discards progress (pipes, --quiet, --json).
public final class SilentProgress: ProgressSink, @unchecked Sendable {
    public init() {}
    public func begin(label: String, total: UInt64) {}
    public func update(done: UInt64) {}
    public func end() {}
}

/// A one-line bar on stderr: `importing shots  [#########.......]  58%  12,345/21,000  8.1k/s  ETA 1s`.
public final class TerminalProgressBar: ProgressSink, @unchecked Sendable {
    private let lock = Lock()
    private var label = ""
    private var total: UInt64 = 0
    private var done: UInt64 = 0
    private var started: Int64 = 0
    private var lastDraw: Int64 = 0
    private var drawn = false
    private let width: Int

    public init(width: Int = 80) { self.width = width }

    public func begin(label: String, total: UInt64) {
        lock.withLock {
            clearLine()
            self.label = label
            self.total = total
            self.done = 0
            started = Subprocess.monotonicMilliseconds()
            lastDraw = 0
            draw(force: true)
        }
    }

    public func update(done: UInt64) {
        lock.withLock {
            self.done = done
            draw(force: false)
        }
    }

    public func end() {
        lock.withLock { clearLine() }
    }

    private func clearLine() {
        if drawn { StandardStreams.writeError("\r\u{1B}[2K") }
        drawn = false
    }

    private func draw(force: Bool) {
        let now = Subprocess.monotonicMilliseconds()
        guard force || now - lastDraw >= 100 else { return }
        lastDraw = now
        let elapsed = max(1, now - started)
        let rate = Double(done) * 1000 / Double(elapsed)
        var line = label
        if total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let barWidth = 24
            let filled = Int(fraction * Double(barWidth))
            line += "  [" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]"
            line += " \(Int(fraction * 100))%  \(done)/\(total)"
            if rate > 0 && done < total {
                let eta = Double(total - done) / rate
                line += "  \(TerminalProgressBar.format(rate))/s  ETA \(TerminalProgressBar.duration(eta))"
            }
        } else {
            line += "  \(done)"
            if rate > 0 { line += "  \(TerminalProgressBar.format(rate))/s" }
        }
        if line.count > width - 1 { line = String(line.prefix(width - 1)) }
        StandardStreams.writeError("\r\u{1B}[2K" + line)
        drawn = true
    }

    static func format(_ rate: Double) -> String {
        if rate >= 1_000_000 { return "\((rate / 100_000).rounded() / 10)M" }
        if rate >= 1000 { return "\((rate / 100).rounded() / 10)k" }
        return "\(Int(rate))"
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return "\(Int(seconds.rounded(.up)))s" }
        let s = Int(seconds)
        if s < 3600 { return "\(s / 60)m\(s % 60)s" }
        return "\(s / 3600)h\((s % 3600) / 60)m"
    }
}
