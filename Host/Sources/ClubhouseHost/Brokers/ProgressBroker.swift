// Progress broker: where a call's progress goes — a bar with rate and ETA on a terminal,
// nothing in a pipe or with --quiet, JSON-RPC notifications under `serve`.
// One implementation (the call's `ProgressSink`), reached two ways: the C table an in-process
// plugin gets, and the wire face that takes an isolated plugin's one-way progress frames.

import CClubhouse
#if canImport(Glibc)
import ClubhousePlatform
import Glibc
#endif

/// The progress service's two faces over the call's sink.
enum ProgressBroker {
    /// The C face: begin / update / end on the call whose `clubhouse_call` is passed.
    static func makeServiceTable() -> clubhouse_progress_service {
        clubhouse_progress_service(
            struct_size: UInt32(MemoryLayout<clubhouse_progress_service>.size),
            begin: { call, label, total in
                guard let context = CallContext.from(call) else { return }
                context.progress.begin(label: label.map { String(cString: $0) } ?? "", total: total)
            },
            update: { call, done in
                CallContext.from(call)?.progress.update(done: done)
            },
            end: { call in
                CallContext.from(call)?.progress.end()
            })
    }

    /// The wire face: a runner's one-way `progress` frame (u64 call, u8 stage: 0 begin, 1 update,
    /// 2 end, str label, u64 n), applied to the call the runner is serving. A malformed frame is ignored.
    static func serve(progress payload: [UInt8], call: CallContext) {
        var r = WireReader(payload)
        guard (try? r.u64()) != nil, let stage = try? r.u8(), let label = try? r.str(), let n = try? r.u64() else { return }
        switch stage {
        case 0: call.progress.begin(label: label, total: n)
        case 1: call.progress.update(done: n)
        default: call.progress.end()
        }
    }
}

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
            line += " \(Int(fraction * 100))%  \(TerminalProgressBar.grouped(done))/\(TerminalProgressBar.grouped(total))"
            if rate > 0 && done < total {
                let eta = Double(total - done) / rate
                line += "  \(TerminalProgressBar.format(rate))/s  ETA \(TerminalProgressBar.duration(eta))"
            }
        } else {
            line += "  \(TerminalProgressBar.grouped(done))"
            if rate > 0 { line += "  \(TerminalProgressBar.format(rate))/s" }
        }
        if line.count > width - 1 { line = String(line.prefix(width - 1)) }
        StandardStreams.writeError("\r\u{1B}[2K" + line)
        drawn = true
    }

    /// 1234567 → "1,234,567" (the bar's counts, readable at a glance).
    static func grouped(_ n: UInt64) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
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
