// A runner's standard error (and its standard output, which the runner points at it) is a socket
// the host reads, never the host's own fd 2: a plugin that truncates its stderr, makes it
// non-blocking or types into it reaches only its own socket (issue 27, Why 4). A socket rather
// than a pipe, because a socket cannot be reopened through /proc/self/fd (a pipe can: Landlock
// does not cover pipes).
//
// One thread per log broker reads every runner's socket (poll), cuts what arrives into lines, puts
// the plugin's alias in front of each (`[notes] …`) and writes them through the log broker, so they
// never interleave with the host's own lines. Bounds: a line is cut at `lineLimit` bytes; control
// characters (C0, DEL, C1: TerminalText.plain) become '?' (no escape sequence reaches the operator's terminal, no line can pose as the
// host's); each plugin (by alias) may send `burst` bytes at once and then `rate` a second — beyond that
// the bytes are read (the plugin never blocks on a full socket) and dropped, and one warning says how
// many. The budget is the plugin's, not its runner's: a restarted runner draws on what the last one left
// (fourth outside attack, b30: a plugin that crashed after each 1 MB had a fresh megabyte every time and
// grew the log about 60 MB a second). The thread runs while a runner is attached and ends with the last one.

import ClubhouseLoader
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: `sources`, `running` and `wakePipe` are read and written holding `mutex`.
final class StandardErrorRelay: @unchecked Sendable {
    static let lineLimit = 4096
    static let burst = 1 << 20
    static let rate = 64 << 10

    /// One runner's socket. Only the relay thread reads or closes `fd`; the other fields are
    /// guarded by the relay's lock.
    /// @unchecked Sendable: as said above, `fd` is the relay thread's and the rest is under the relay's lock.
    final class Source: @unchecked Sendable {
        let fd: Int32
        let alias: String
        fileprivate var partial: [UInt8] = []
        fileprivate var cutting = false
        /// The plugin's budget, shared by its runners one after the other.
        fileprivate let budget: Budget
        fileprivate var tokens: Double {
            get { budget.tokens }
            set { budget.tokens = newValue }
        }
        fileprivate var refilled: Int64 {
            get { budget.refilled }
            set { budget.refilled = newValue }
        }
        fileprivate var dropped = 0
        fileprivate var finished = false
        /// Set by `finish`: read what is left, then close (or close at once when `abandon`).
        fileprivate var draining = false
        fileprivate var abandon = false

        fileprivate init(fd: Int32, alias: String, budget: Budget) {
            self.fd = fd
            self.alias = alias
            self.budget = budget
        }
    }

    /// What one plugin may still send (a token bucket: `burst`, refilled at `rate`). @unchecked Sendable: made
    /// under the relay's lock, then read and changed on the relay thread only.
    fileprivate final class Budget: @unchecked Sendable {
        var tokens = Double(StandardErrorRelay.burst)
        var refilled = Subprocess.monotonicMilliseconds()
    }

    /// The budgets by alias, kept across runners (one entry per plugin of the configuration).
    private var budgets: [String: Budget] = [:]

    private let write: @Sendable (String) -> Void
    private var condition = pthread_cond_t()
    private var mutex = pthread_mutex_t()
    private var sources: [Source] = []
    private var running = false
    private var wakePipe: (Int32, Int32)?

    /// `write` receives finished lines (each ending in a newline).
    init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        if let (read, write) = wakePipe {
            close(read)
            close(write)
        }
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// Starts forwarding `fd` (the host's end of a runner's standard error; the relay owns it now).
    func attach(fd: Int32, alias: String) -> Source {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        let budget = withState { () -> Budget in
            if let known = budgets[alias] { return known }
            let made = Budget()
            budgets[alias] = made
            return made
        }
        let source = Source(fd: fd, alias: alias, budget: budget)
        let start = withState { () -> Bool in
            if wakePipe == nil { wakePipe = Descriptor.pipe(nonBlocking: true) }
            sources.append(source)
            defer { running = true }
            return !running
        }
        guard start else {
            wake()
            return source
        }
        do throws(ThreadStartError) {
            try Thread.start { [self] in loop() }
        } catch {
            // The runner's lines wait in its pipe (and the runner on them once it is full) until a relay
            // thread starts: the next runner's attach tries again.
            withState { running = false }
            StandardStreams.writeError("clubhouse: plugin '\(alias)''s standard error is not forwarded for now: \(error)\n")
        }
        return source
    }

    /// Forwards what `source` still has (its runner has ended: its socket reaches end of file) and
    /// closes it, waiting at most `milliseconds` (a lingering writer is cut off then).
    func finish(_ source: Source, milliseconds: Int = 500) {
        withState { source.draining = true }
        wake()
        let deadline = Subprocess.monotonicMilliseconds() + Int64(milliseconds)
        pthread_mutex_lock(&mutex)
        while !source.finished {
            let left = deadline - Subprocess.monotonicMilliseconds()
            if left <= 0 {
                source.abandon = true
                break
            }
            var until = timespec()
            clock_gettime(CLOCK_REALTIME, &until)
            let nanoseconds = Int(until.tv_nsec) + Int(min(left, 50)) * 1_000_000
            until.tv_sec += nanoseconds / 1_000_000_000
            until.tv_nsec = nanoseconds % 1_000_000_000
            pthread_cond_timedwait(&condition, &mutex, &until)
        }
        pthread_mutex_unlock(&mutex)
        wake()
    }

    // MARK: the thread

    /// The relay's state is guarded by `mutex` (the condition `finish` waits on shares it).
    private func withState<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }

    private func wake() {
        guard let (_, write) = withState({ wakePipe }) else { return }
        var one: UInt8 = 1
        _ = Glibc.write(write, &one, 1)
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            // Sources to close now (abandoned), and the poll set.
            let (watched, wakeFD, closing) = withState { () -> ([Source], Int32, [Source]) in
                let closing = sources.filter { $0.abandon }
                for source in closing { source.finished = true }
                sources.removeAll { $0.finished }
                if sources.isEmpty { running = false }
                return (sources, wakePipe?.0 ?? -1, closing)
            }
            for source in closing { close(source.fd) }
            if !closing.isEmpty { pthread_cond_broadcast(&condition) }
            if watched.isEmpty { return }
            var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
                + watched.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), 1000)
            if ready < 0 && errno != EINTR { usleep(10_000) }
            if fds[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(wakeFD, &drain, drain.count)
            }
            for (index, source) in watched.enumerated() {
                let draining = withState { source.draining }
                guard fds[index + 1].revents != 0 || draining else { continue }
                var ended = false
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(source.fd, $0.baseAddress, $0.count) }
                    if n > 0 {
                        take(source, buffer[0..<n])
                        continue
                    }
                    if n < 0 && errno == EINTR { continue }
                    ended = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
                    break
                }
                if ended {
                    flush(source, final: true)
                    close(source.fd)
                    withState { source.finished = true }
                    pthread_cond_broadcast(&condition)
                }
            }
        }
    }

    /// Cuts `bytes` into lines and forwards them within the source's budget.
    private func take(_ source: Source, _ bytes: ArraySlice<UInt8>) {
        // Out of budget: the whole read is dropped at once (a flood costs the host a read and a
        // count, not a look at every line); the line it ends inside is dropped to its end.
        refill(source)
        if source.tokens < Double(source.alias.utf8.count + 4) {
            source.dropped += bytes.count
            source.partial.removeAll(keepingCapacity: true)
            source.cutting = bytes.last != 0x0A
            return
        }
        var lines = ""
        var rest = bytes[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: 0x0A)
            let piece = rest[rest.startIndex..<(newline ?? rest.endIndex)]
            if !source.cutting {
                let room = Self.lineLimit - source.partial.count
                source.partial.append(contentsOf: piece.prefix(room))
                if piece.count >= room && (newline == nil || piece.count > room) {
                    lines += line(source, source.partial, cut: true)
                    source.partial.removeAll(keepingCapacity: true)
                    source.cutting = true
                }
            }
            guard let newline else { break }
            if !source.cutting { lines += line(source, source.partial, cut: false) }
            source.partial.removeAll(keepingCapacity: true)
            source.cutting = false
            rest = rest[(newline + 1)...]
        }
        if !lines.isEmpty { write(lines) }
    }

    /// What is left at the end (a last line without a newline, the count of dropped bytes).
    private func flush(_ source: Source, final: Bool) {
        var text = ""
        if !source.partial.isEmpty && !source.cutting { text += line(source, source.partial, cut: false) }
        source.partial.removeAll()
        if final && source.dropped > 0 { text += droppedNote(source) }
        if !text.isEmpty { write(text) }
    }

    /// One forwarded line, or "" when over the budget (counted as dropped).
    private func refill(_ source: Source) {
        let now = Subprocess.monotonicMilliseconds()
        source.tokens = min(Double(Self.burst), source.tokens + Double(now - source.refilled) * Double(Self.rate) / 1000)
        source.refilled = now
    }

    private func line(_ source: Source, _ bytes: [UInt8], cut: Bool) -> String {
        // What reaches the host's stderr counts: the alias, the line, the newline.
        let cost = source.alias.utf8.count + 3 + bytes.count + 1
        guard Double(cost) <= source.tokens else {
            source.dropped += bytes.count + 1
            return ""
        }
        source.tokens -= Double(cost)
        var note = ""
        if source.dropped > 0 { note = droppedNote(source) }
        let clean = TerminalText.plain(String(decoding: bytes, as: UTF8.self))
        return note + "[\(source.alias)] " + clean + (cut ? " … (line cut at \(Self.lineLimit) bytes)" : "") + "\n"
    }

    private func droppedNote(_ source: Source) -> String {
        defer { source.dropped = 0 }
        return "[clubhouse] warning: plugin '\(source.alias)': \(source.dropped) bytes of its standard error dropped (the host forwards at most \(Self.burst >> 20) MB at once, then \(Self.rate >> 10) KB a second, from one plugin across its runner's restarts)\n"
    }
}
