// The audit log: one JSON object per line (time, request id, who, method, path, status, duration,
// client) in `<data dir>/<site>/_host/audit.log`, rotated by size (audit.log.1 … .N kept). A caller
// only appends to a buffer under a lock; a writer thread started 5 ms after the first line writes and
// rotates what gathered, at once, so a slow disk never holds a request. Past `maxPending` buffered lines new ones
// are dropped and counted, and the count is written as a line of its own when the writer catches up.

import ClubhouseJSON
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

public final class AuditLog: @unchecked Sendable {
    // @unchecked: `pending`, `dropped`, `scheduled` are touched only under `lock`; `fd`, `size` and
    // `reportedFailure` only under `writer`.
    public struct Limits: Sendable {
        /// A file grows to about this size before it is rotated.
        public var maxBytes = 10 * 1024 * 1024
        /// Rotated files kept beside the current one.
        public var keep = 5
        public var maxPending = 10_000

        public init() {}
        public init(maxBytes: Int, keep: Int, maxPending: Int = 10_000) {
            self.maxBytes = maxBytes
            self.keep = keep
            self.maxPending = maxPending
        }
    }

    public let path: String
    let limits: Limits
    private let log: LogBroker?
    /// Held while lines are written (one writer at a time: the file, its size, its rotation).
    let writer = Lock()
    private let lock = Lock()
    private var pending: [String] = []
    private var dropped = 0
    private var scheduled = false
    private var fd: Int32 = -1
    private var size = 0
    private var reportedFailure = false

    public init(path: String, limits: Limits = Limits(), log: LogBroker? = nil) {
        self.path = path
        self.limits = limits
        self.log = log
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// How long the writer lets lines gather before it writes them.
    static let gatherMilliseconds = 5

    /// Queues one line (a JSON object) for the writer; returns at once.
    func append(_ object: JSONObject) {
        let line = JSONWriter.compact(.object(object)) + "\n"
        let armed = lock.withLock { () -> Bool in
            guard pending.count < limits.maxPending else { dropped += 1; return true }
            pending.append(line)
            guard !scheduled else { return true }
            // Lines gathered for a few milliseconds go out in one write: a wake-up of the writer (and a
            // contended lock) per request cost a busy server more than the line itself.
            do throws(ThreadStartError) {
                try Thread.after(milliseconds: AuditLog.gatherMilliseconds) { [self] in writer.withLock { drain() } }
                scheduled = true
                return true
            } catch {
                return false
            }
        }
        // No timer (the scheduler's thread would not start): the line is written now, on this thread.
        if !armed { flush() }
    }

    /// Waits until every line queued so far is written (tests; a server stopping).
    public func flush() {
        writer.withLock { drain() }
    }

    private func drain() {
        let (lines, lost) = lock.withLock { () -> ([String], Int) in
            defer { pending = []; dropped = 0; scheduled = false }
            return (pending, dropped)
        }
        var all = lines
        if lost > 0 {
            all.append(JSONWriter.compact(["time": .string(AccessTime.isoMilliseconds(AccessTime.now())), "event": "dropped",
                                           "lines": .int(lost), "why": "the audit writer fell behind"]) + "\n")
        }
        // One write per drain (not one per line), the file rotated between lines as before.
        guard !all.isEmpty else { return }
        if fd < 0 { openFile() }
        var batch: [UInt8] = []
        for line in all {
            let count = line.utf8.count
            if fd >= 0 && size + batch.count > 0 && size + batch.count + count > limits.maxBytes {
                if !batch.isEmpty { write(batch) }
                batch.removeAll(keepingCapacity: true)
                if fd >= 0 && size > 0 {
                    rotate()
                    openFile()
                }
            }
            batch.append(contentsOf: line.utf8)
        }
        if !batch.isEmpty { write(batch) }
    }

    private func write(_ bytes: [UInt8]) {
        if fd < 0 { openFile() }
        guard fd >= 0 else { return }
        if let reason = Descriptor.writeAll(fd, bytes) {
            report("cannot write \(path): \(reason)")
            return
        }
        size += bytes.count
    }

    private func openFile() {
        let folder = FileSystem.directoryName(path)
        try? FileSystem.createDirectory(folder)
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            report("cannot open \(path): \(String(cString: strerror(errno)))")
            return
        }
        var st = stat()
        size = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
        reportedFailure = false
    }

    /// audit.log → audit.log.1 → … → audit.log.<keep> (the oldest is overwritten).
    private func rotate() {
        close(fd)
        fd = -1
        if limits.keep > 0 {
            for i in stride(from: limits.keep - 1, through: 1, by: -1) { rename("\(path).\(i)", "\(path).\(i + 1)") }
            rename(path, "\(path).1")
        } else {
            unlink(path)
        }
        size = 0
    }

    /// One warning per run of failures, not one per line.
    private func report(_ message: String) {
        guard !reportedFailure else { return }
        reportedFailure = true
        log?.warning("audit log: \(message); lines are lost until it can be written")
    }
}
