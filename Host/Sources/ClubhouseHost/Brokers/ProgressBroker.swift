// Progress broker: where a call's progress goes — a bar with rate and ETA on a terminal,
// nothing in a pipe or with --quiet, JSON-RPC notifications under `serve`.
// One implementation (the call's `ProgressSink`), reached two ways: the C table an in-process
// plugin gets, and the wire face that takes an isolated plugin's one-way progress frames.

import CClubhouse
import ClubhouseWire
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
                // At most `progress_kb` of the label is read; a longer one is cut, as a runner cuts it.
                let limit = context.progressLabelBytes
                context.progress.begin(label: label.map { LimitRefusal.cut(cString: $0, limit: limit, key: "progress_kb") } ?? "",
                                       total: total)
            },
            update: { call, done in
                CallContext.from(call)?.progress.update(done: done)
            },
            end: { call in
                CallContext.from(call)?.progress.end()
            },
            set_unit: { call, unit in
                CallContext.from(call)?.progress.setUnit(ProgressUnit(code: unit))
            })
    }

    /// The wire face: a runner's one-way `progress` frame (u64 call, u8 stage: 0 begin, 1 update,
    /// 2 end, 3 unit, str label, u64 n), applied to the call the runner is serving. A malformed frame
    /// (or a stage this host does not know) is ignored.
    static func serve(progress payload: [UInt8], call: CallContext, limits: ServiceLimits) {
        guard let message = try? ProgressMessage.decode(payload), let stage = ProgressMessage.Stage(rawValue: message.stage) else { return }
        let n = message.n
        switch stage {
        case .begin:
            let slack = LimitRefusal.cutMarker("progress_kb", limits.progressBytes).utf8.count
            call.progress.begin(label: LimitRefusal.cut(message.label, limit: limits.progressBytes + slack, key: "progress_kb"), total: n)
        case .update: call.progress.update(done: n)
        case .end: call.progress.end()
        case .unit: call.progress.setUnit(ProgressUnit(code: UInt32(truncatingIfNeeded: n)))
        }
    }
}

/// What a stage counts (progress.h's CLUBHOUSE_PROGRESS_UNIT_*).
public enum ProgressUnit: String, Sendable {
    case items, bytes

    /// A plugin's code; anything this host does not know counts items (never an error).
    public init(code: UInt32) {
        self = code == UInt32(CLUBHOUSE_PROGRESS_UNIT_BYTES) ? .bytes : .items
    }
}

/// Receives one call's progress. Implementations rate-limit themselves.
public protocol ProgressSink: AnyObject, Sendable {
    func begin(label: String, total: UInt64)
    func update(done: UInt64)
    func end()
    /// The current stage's unit (every begin starts in items).
    func setUnit(_ unit: ProgressUnit)
}

extension ProgressSink {
    public func setUnit(_ unit: ProgressUnit) {}
}

/// Discards progress (pipes, --quiet, --json).
/// @unchecked Sendable: it has no state.
public final class SilentProgress: ProgressSink, @unchecked Sendable {
    public init() {}
    public func begin(label: String, total: UInt64) {}
    public func update(done: UInt64) {}
    public func end() {}
}

/// A one-line bar on stderr: `importing shots  [#########.......]  58%  12,345/21,000  8.1k/s  ETA 0:07`,
/// or for a stage counted in bytes `reading x.csv  [###.....]  30%  12.3 MiB / 40.0 MiB  5.1 MiB/s  ETA 0:07`.
/// @unchecked Sendable: every mutable field is read and written under `lock`.
public final class TerminalProgressBar: ProgressSink, @unchecked Sendable {
    private let lock = Lock()
    private var label = ""
    private var total: UInt64 = 0
    private var done: UInt64 = 0
    private var unit = ProgressUnit.items
    private var started: Int64 = 0
    private var lastDraw: Int64 = 0
    private var drawn = false
    /// The narrowest bar drawn in this stage: the bar only ever shrinks (as the counts, rate and
    /// ETA take more room), so it does not jump back and forth between redraws.
    private var barWidth = 24
    private let width: Int

    public init(width: Int = 80) { self.width = width }

    public func begin(label: String, total: UInt64) {
        lock.withLock {
            clearLine()
            self.label = label
            self.total = total
            self.done = 0
            unit = .items
            barWidth = 24
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

    public func setUnit(_ unit: ProgressUnit) {
        lock.withLock {
            guard self.unit != unit else { return }
            self.unit = unit
            draw(force: true)
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
        let line = TerminalProgressBar.line(label: label, done: done, total: total, unit: unit,
                                            elapsedMilliseconds: now - started, width: width, barWidth: &barWidth)
        StandardStreams.writeError("\r\u{1B}[2K" + line)
        drawn = true
    }

    /// The bar's text for a stage `elapsedMilliseconds` after its begin, cut to `width - 1` characters.
    static func line(label: String, done: UInt64, total: UInt64, unit: ProgressUnit, elapsedMilliseconds: Int64,
                     width: Int = 80) -> String {
        var bar = 24
        return line(label: label, done: done, total: total, unit: unit, elapsedMilliseconds: elapsedMilliseconds,
                    width: width, barWidth: &bar)
    }

    /// The same, with the widest bar allowed (updated to the one drawn).
    static func line(label: String, done: UInt64, total: UInt64, unit: ProgressUnit, elapsedMilliseconds: Int64,
                     width: Int, barWidth widest: inout Int) -> String {
        let elapsed = max(1, elapsedMilliseconds)
        let rate = Double(done) * 1000 / Double(elapsed)
        let limit = max(20, width - 1)
        var line: String
        if total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            var tail = " \(Int(fraction * 100))%  "
            switch unit {
            case .items: tail += "\(grouped(done))/\(grouped(total))"
            case .bytes: tail += "\(bytes(done)) / \(bytes(total))"
            }
            if rate > 0 && done < total {
                tail += "  \(self.rate(rate, unit))  ETA \(duration(Double(total - done) / rate))"
            }
            // The bar gives way first (24 cells down to 8), then the label.
            let barWidth = min(widest, max(8, limit - label.count - 4 - tail.count))
            widest = barWidth
            let filled = Int(fraction * Double(barWidth))
            let bar = "  [" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]"
            let room = max(0, limit - bar.count - tail.count)
            line = (label.count > room ? String(label.prefix(max(0, room - 1))) + "…" : label) + bar + tail
        } else {
            line = label + "  " + (unit == .bytes ? bytes(done) : grouped(done))
            if rate > 0 { line += "  \(self.rate(rate, unit))" }
        }
        if line.count > limit { line = String(line.prefix(limit)) }
        return line
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

    /// A byte count in binary units with one decimal, as ls -h and cargo show them:
    /// 0 → "0 B", 1023 → "1023 B", 1024 → "1.0 KiB", 12_900_000 → "12.3 MiB".
    static func bytes(_ n: UInt64) -> String {
        if n < 1024 { return "\(n) B" }
        return scaledBytes(Double(n))
    }

    private static func scaledBytes(_ value: Double) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var v = value / 1024
        var i = 0
        // Move up a unit before rounding would print "1024.0".
        while v >= 1023.95 && i < units.count - 1 {
            v /= 1024
            i += 1
        }
        return "\(oneDecimal(v)) \(units[i])"
    }

    private static func oneDecimal(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// A rate per second in the stage's unit: "8.1k/s" for items, "5.1 MiB/s" for bytes.
    static func rate(_ perSecond: Double, _ unit: ProgressUnit) -> String {
        switch unit {
        case .items: return format(perSecond) + "/s"
        case .bytes: return (perSecond < 1024 ? "\(Int(perSecond)) B" : scaledBytes(perSecond)) + "/s"
        }
    }

    static func format(_ rate: Double) -> String {
        if rate >= 1_000_000 { return "\((rate / 100_000).rounded() / 10)M" }
        if rate >= 1000 { return "\((rate / 100).rounded() / 10)k" }
        return "\(Int(rate))"
    }

    /// Time left as a clock: 7 s → "0:07", 125 s → "2:05", 7380 s → "2:03:00" (rounded up, so a
    /// bar never says 0:00 while work remains).
    static func duration(_ seconds: Double) -> String {
        let s = seconds.isFinite ? Int(min(seconds, 359_999).rounded(.up)) : 359_999
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if s < 3600 { return "\(s / 60):\(two(s % 60))" }
        return "\(s / 3600):\(two((s % 3600) / 60)):\(two(s % 60))"
    }
}
