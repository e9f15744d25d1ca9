// The transport of `clubhouse serve --socket PATH`: how bytes move, not what they mean (the
// requests themselves are JSONRPCServer.dispatch's business).
//
// - One event-loop thread owns the listening socket and every client socket, all non-blocking,
//   and waits on them with epoll(7) (level-triggered), looking only at the clients that are ready, were
//   woken or have a timer due (ServeLoop). No thread per connection.
// - Requests run on a small worker pool (calls into plugins may block; the loop never does); a
//   worker that finishes one of a client's requests takes that client's next one itself
//   (JSONRPCServer's per-connection queue), and a queue stuck behind long calls gets one more
//   worker after a few milliseconds. A call for a plugin busy with another call waits in that
//   plugin's lane without a worker, clients taking turns (PluginLanes.swift).
// - Replies are written straight from the worker when the socket takes them; what the socket does
//   not take waits in the connection's output buffer and the loop writes it when the client reads.
//   A worker draining a pipelining client's queue holds its reply (no syscall) while more of the
//   client's requests wait behind it, and the held replies go out in one write when the queue runs
//   empty, when they reach `replyHoldBytes`, or — whichever comes first — when the oldest has been
//   held `replyHoldMilliseconds` (the loop flushes it on its tick, so a slow call taken after them
//   does not keep them). Held or not, a connection's output is one FIFO: no reordering.
//   A client with too much waiting output or too many requests in flight is not read any more
//   (back-pressure); one whose output has made no progress for the write timeout is dropped with a
//   log line. A client that never reads therefore costs a bounded amount of memory and time and
//   never holds up the others.
// - At most `maxConnections` clients; one more gets a JSON-RPC error line and is closed.
// - A client whose descriptor would come within a margin of the process's descriptor limit (a quarter
//   of it, at most 64) is refused like one beyond `maxConnections`, so the server itself never runs
//   out (libdispatch, SQLite and runners keep their descriptors).
// - When the process runs out of file descriptors all the same, the loop spends a reserved descriptor to accept
//   and refuse the waiting client (so poll does not report the same pending connection forever),
//   and pauses accepting when even that fails: the loop never spins.
// - The socket path is guarded by an flock on `PATH.lock` holding the server's pid: a second server
//   on a live path refuses and names the first; a stale socket (no lock holder) is taken over; on
//   exit the server removes the socket only if it is still the one it bound.

import CEventPoll
import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// The bounds of `serve --socket`, set by its options.
struct ServeLimits: Sendable {
    /// Clients connected at once; one more is refused with a JSON-RPC error.
    var maxConnections = 256
    /// How long a client's waiting output may make no progress before the client is dropped.
    var writeTimeoutMilliseconds: Int64 = 10_000
    /// Bytes waiting for one client beyond which the server stops reading its requests.
    var outputLimit = 1 << 20
    /// Requests of one client being worked on beyond which the server stops reading its requests.
    var maxInFlight = 256
    /// Calls of one client waiting for busy plugins (PluginLanes) beyond which one more is refused
    /// (busy): below `maxInFlight`, so the client is still read (its cancels reach the server).
    var maxWaitingCalls = 128
    /// Worker threads for calls (started on demand).
    var workers = 32
    /// Longest a finished reply may be held back to be written with the ones after it.
    var replyHoldMilliseconds: Int64 = 2
    /// Held replies beyond which they are written at once.
    var replyHoldBytes = 1 << 16
    /// Bytes a subscriber may leave unread before its subscription is ended (`--max-event-backlog`).
    var eventBacklogBytes = 1 << 18
}

/// A fixed-size pool of worker threads started on demand, taking jobs in order.
/// @unchecked Sendable: the jobs and counters are read and written holding `mutex`.
final class WorkerPool: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var jobs: [() -> Void] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
    /// A worker is tried again soon (none would start and none runs).
    private var retrying = false
    let maxThreads: Int

    init(maxThreads: Int) {
        self.maxThreads = max(1, maxThreads)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    func submit(_ job: @escaping () -> Void) {
        pthread_mutex_lock(mutex)
        jobs.append(job)
        let queued = jobs.count - head
        let spawn = queued > idle && threads < maxThreads
        if spawn { threads += 1 }
        if idle > 0 { pthread_cond_signal(condition) }
        pthread_mutex_unlock(mutex)
        if spawn { startWorker() }
    }

    /// A worker for the jobs queued. When the system would not start one, the jobs wait for the workers
    /// running; with none running, a new one is tried every 100 ms (said once on standard error).
    private func startWorker() {
        do throws(ThreadStartError) {
            try Thread.start { [self] in work() }
        } catch {
            pthread_mutex_lock(mutex)
            threads -= 1
            let none = threads == 0
            let first = none && !retrying
            if none { retrying = true }
            pthread_mutex_unlock(mutex)
            guard none else { return }
            if first { StandardStreams.writeError("clubhouse: serve: no worker thread runs the calls waiting: \(error); trying again every 100 ms\n") }
            do throws(ThreadStartError) {
                try Thread.after(milliseconds: 100) { [self] in retryWorker() }
            } catch {
                // No timer either: the next call submitted tries again.
                pthread_mutex_lock(mutex)
                retrying = false
                pthread_mutex_unlock(mutex)
            }
        }
    }

    private func retryWorker() {
        pthread_mutex_lock(mutex)
        retrying = false
        let spawn = jobs.count - head > idle && threads < maxThreads
        if spawn { threads += 1 }
        pthread_mutex_unlock(mutex)
        if spawn { startWorker() }
    }

    private func work() {
        pthread_mutex_lock(mutex)
        while true {
            while head == jobs.count {
                idle += 1
                pthread_cond_wait(condition, mutex)
                idle -= 1
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: jobs.capacity <= 4096)
                head = 0
            } else if head >= 1024 && head * 2 >= jobs.count {
                jobs.removeSubrange(0..<head)
                head = 0
            }
            pthread_mutex_unlock(mutex)
            job()
            pthread_mutex_lock(mutex)
        }
    }
}

/// One client socket of the event loop. The loop alone reads it; workers and the loop write it
/// under `lock`, so replies never interleave and the descriptor is never used after close.
/// @unchecked Sendable: the output side (`output`, `inFlight`, `closed`, …) is guarded by `lock`; the
/// input side and the loop's bookkeeping (`input`, `scanned`, `watching`, `slot`, …) are the loop thread's alone.
final class ServeChannel: @unchecked Sendable {
    let fd: Int32
    let number: Int
    private let loop: ServeLoop
    private let lock = Lock()
    private var output: [UInt8] = []
    private var outputHead = 0
    private var inFlight = 0
    private var closed = false
    private var failure: String?
    /// When the waiting output last moved (or began to wait), monotonic milliseconds.
    private var lastProgress: Int64 = 0
    /// Set by the loop when it stopped reading because of back-pressure.
    private var readPaused = false
    /// When the output waiting was held back on purpose (not refused by the socket), the monotonic
    /// milliseconds at which holding began; nil when nothing is held.
    private var heldSince: Int64?
    // The loop's own state (only the loop thread touches these).
    var input: [UInt8] = []
    var inputStart = 0
    /// JSON-RPC lines: `input[inputStart..<scanned]` holds no newline, so the search for the end of a
    /// line resumes there and a long line arriving in many reads is scanned once, not once per read
    /// (issue 27's attack round: a 16 MB line took 763 s of the event loop, every other client waiting).
    var scanned = 0
    /// No more requests will be read (end of input, a hang-up, or the server stopping).
    var readClosed: Bool {
        get { lock.withLock { readEnded } }
        set { lock.withLock { readEnded = newValue } }
    }
    private var readEnded = false
    /// What the front end keeps for this client (released when the client goes away).
    var owner: AnyObject?
    /// The listener it came through (its protocol reads its requests).
    let listener: ServeListener
    /// The peer's address ("192.0.2.1"; "local" on a Unix socket), for logs.
    var peer = "local"
    /// While its remaining input is read and dropped before closing: until when (loop thread).
    var lingerUntil: Int64?
    var lingerMilliseconds: Int64 = 2000
    /// The loop's own: the events its epoll set watches for this client (nil: not in the set), when its
    /// timer will next have the loop look at it, the loop's turn that last looked at it, and its index in the
    /// loop's list of clients (-1 once dropped).
    var watching: UInt32?
    /// The loop's own: the peer's hang-up (both directions closed) was seen and handled, so a client whose
    /// reading ended is no longer watched for it (level-triggered, it would be reported on every turn).
    var hangUpSeen = false
    var timerAt: Int64?
    var examinedTurn = 0
    var slot = -1

    init(fd: Int32, number: Int, loop: ServeLoop, listener: ServeListener) {
        self.fd = fd
        self.number = number
        self.loop = loop
        self.listener = listener
    }

    /// " (192.0.2.1)" for a TCP client, "" otherwise: for log lines.
    var peerSuffix: String { peer == "local" ? "" : " (\(peer))" }

    var isClosed: Bool { lock.withLock { closed } }

    /// Queues one encoded message. Progress notifications are `droppable`: they are skipped while
    /// the client has more than the output limit waiting. With `hold` (more of the client's
    /// requests wait behind this reply) the message is kept to be written with the next ones,
    /// bounded by `replyHoldBytes` and `replyHoldMilliseconds`; without it, whatever is held goes
    /// out now, ahead of it.
    func enqueue(_ bytes: [UInt8], droppable: Bool, hold: Bool = false) {
        var heldAt: Int64?
        let wake = lock.withLock { () -> Bool in
            guard !closed, failure == nil else { return false }
            let waiting = output.count - outputHead
            if waiting > 0 && heldSince == nil {
                // The socket refused earlier output: the loop writes it when the client reads.
                if droppable && waiting >= loop.limits.outputLimit { return false }
                output.append(contentsOf: bytes)
                return false
            }
            if hold && waiting + bytes.count < loop.limits.replyHoldBytes {
                if heldSince == nil {
                    let now = Subprocess.monotonicMilliseconds()
                    heldSince = now
                    heldAt = now
                }
                output.append(contentsOf: bytes)
                return false
            }
            if waiting > 0 {
                // Held replies first, then this one, in one write.
                unhold()
                output.append(contentsOf: bytes)
                return !writeWaiting()
            }
            return sendNow(bytes, [])
        }
        if wake { loop.wake(self) }
        // Held output is written by the loop at the latest when it is due: make sure it looks then.
        if let heldAt { loop.wake(by: heldAt + loop.limits.replyHoldMilliseconds, self) }
    }

    /// Queues a message in two parts — an HTTP response's head and its body — written with one `sendmsg`
    /// (gathered, not joined into a copy first) when nothing waits before it; what the socket does not take
    /// waits as with `enqueue`. Never dropped, never held.
    func enqueue(_ head: [UInt8], _ body: [UInt8]) {
        guard !body.isEmpty else { return enqueue(head, droppable: false) }
        let wake = lock.withLock { () -> Bool in
            guard !closed, failure == nil else { return false }
            let waiting = output.count - outputHead
            if waiting > 0 {
                output.append(contentsOf: head)
                output.append(contentsOf: body)
                // The socket refused earlier output: the loop writes it when the client reads.
                if heldSince == nil { return false }
                // Held replies first, then this one, in one write.
                unhold()
                return !writeWaiting()
            }
            return sendNow(head, body)
        }
        if wake { loop.wake(self) }
    }

    /// Writes `head` then `body` to the socket at once (under `lock`, nothing waiting before them), gathered in
    /// one `sendmsg`; what the socket does not take waits in `output`. True when the loop must be woken (to
    /// watch for POLLOUT, or the client failed).
    private func sendNow(_ head: [UInt8], _ body: [UInt8]) -> Bool {
        let total = head.count + body.count
        var offset = 0
        while offset < total {
            let n = head.withUnsafeBytes { h in
                body.withUnsafeBytes { b -> Int in
                    var parts = (iovec(), iovec())
                    return withUnsafeMutableBytes(of: &parts) { raw -> Int in
                        let iov = raw.bindMemory(to: iovec.self)
                        var count = 0
                        if offset < h.count, let hb = h.baseAddress {
                            iov[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: hb + offset), iov_len: h.count - offset)
                            count += 1
                        }
                        if let bb = b.baseAddress, b.count > 0 {
                            let skip = max(0, offset - h.count)
                            iov[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bb + skip), iov_len: b.count - skip)
                            count += 1
                        }
                        guard count > 0 else { return 0 }
                        var message = msghdr()
                        message.msg_iov = iov.baseAddress
                        message.msg_iovlen = count
                        return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                    }
                }
            }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            failure = n < 0 ? String(cString: strerror(errno)) : "connection closed"
            return true
        }
        if offset == total { return false }
        if offset < head.count {
            output.append(contentsOf: head[offset...])
            output.append(contentsOf: body)
        } else {
            output.append(contentsOf: body[(offset - head.count)...])
        }
        lastProgress = Subprocess.monotonicMilliseconds()
        return true // the loop must now watch for POLLOUT
    }

    /// Ends holding (under `lock`): from now on the output waits for the socket, and the write
    /// timeout counts from now.
    private func unhold() {
        guard heldSince != nil else { return }
        heldSince = nil
        lastProgress = Subprocess.monotonicMilliseconds()
    }

    /// Writes the output waiting (under `lock`, nothing held); true when all of it went out, false
    /// when the rest waits for the socket (or the client failed).
    private func writeWaiting() -> Bool {
        while outputHead < output.count {
            let head = outputHead
            let n = output.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(fd, base + head, raw.count - head, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                outputHead += n
                lastProgress = Subprocess.monotonicMilliseconds()
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return false }
            failure = n < 0 ? String(cString: strerror(errno)) : "connection closed"
            return false
        }
        output.removeAll(keepingCapacity: output.capacity <= 1 << 16)
        outputHead = 0
        return true
    }

    /// Writes the held replies now (a worker leaving the queue calls it: a request that got no
    /// reply, a notification, may have been the last one).
    func releaseHeld() {
        let wake = lock.withLock { () -> Bool in
            guard !closed, failure == nil, heldSince != nil else { return false }
            unhold()
            return !writeWaiting()
        }
        if wake { loop.wake(self) }
    }

    func began() { lock.withLock { inFlight += 1 } }

    func finished() {
        let wake = lock.withLock { () -> Bool in
            inFlight -= 1
            if readPaused && inFlight <= loop.limits.maxInFlight / 2 { return true }
            return inFlight == 0 && (readEnded || closed)
        }
        if wake { loop.wake(self) }
    }

    // MARK: loop side

    struct State {
        var waiting: Int
        var inFlight: Int
        var failure: String?
        var lastProgress: Int64
        /// When the waiting output was held back on purpose (nil: it waits for the socket, if any).
        var heldSince: Int64?
    }

    func state() -> State {
        lock.withLock {
            State(waiting: output.count - outputHead, inFlight: inFlight, failure: failure, lastProgress: lastProgress,
                  heldSince: heldSince)
        }
    }

    /// Whether the loop may read more requests; records a pause so that `finished` wakes the loop.
    func mayRead() -> Bool {
        lock.withLock {
            let ok = inFlight < loop.limits.maxInFlight && output.count - outputHead < loop.limits.outputLimit
            readPaused = !ok
            return ok
        }
    }

    /// Writes waiting output (held or not); false when the client is gone.
    func flush() -> Bool {
        lock.withLock {
            guard !closed else { return false }
            unhold()
            _ = writeWaiting()
            return failure == nil
        }
    }

    /// Closes the socket; `abort`: with a reset, dropping what the kernel still holds for the client (a
    /// client dropped for not reading must not be fed its backlog afterwards).
    func close(abort: Bool = false) {
        lock.withLock {
            guard !closed else { return }
            if abort {
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            }
            closed = true
            output = []
            outputHead = 0
            heldSince = nil
            _ = Glibc.close(fd)
        }
    }
}

/// What the clients of one listener speak (JSON-RPC lines, HTTP/1.1). The loop moves bytes and keeps
/// time; the protocol reads requests from `ServeChannel.input` and answers through `ServeChannel.enqueue`.
/// Every method runs on the loop thread.
protocol ServeProtocol: AnyObject {
    /// Clients of this listener connected at once.
    var maxConnections: Int { get }
    /// A client was accepted at `now` (monotonic ms).
    func opened(_ channel: ServeChannel, now: Int64)
    /// Takes the requests buffered in `channel.input`; true when complete ones remain that could not be
    /// taken now (the loop then looks again at once).
    func take(_ channel: ServeChannel) -> Bool
    /// Whether the loop may read more of the client's input now (besides the channel's own back-pressure).
    func wantsInput(_ channel: ServeChannel) -> Bool
    /// The client sent its last byte.
    func inputEnded(_ channel: ServeChannel)
    /// When the loop must call `expire` at the latest (monotonic ms), or nil.
    func deadline(_ channel: ServeChannel, now: Int64) -> Int64?
    /// At or past the deadline: the log line for dropping the client now ("" to drop it quietly), or nil to keep it.
    func expire(_ channel: ServeChannel, now: Int64) -> String?
    /// Whether a client whose reading ended and whose output went out should have its remaining input read
    /// and dropped for a while before it is closed (so that a refusal is not lost to a reset).
    func lingers(_ channel: ServeChannel) -> Bool
    /// What a client refused at the bound or for lack of descriptors is sent before it is closed.
    func refusal(_ reason: ServeRefusal, connected: Int) -> [UInt8]
    /// A client that may be closed to make room for a new one at the bound (an idle one), or nil.
    func evictable(_ channels: [ServeChannel], now: Int64) -> ServeChannel?
    /// The client went away.
    func closed(_ channel: ServeChannel)
    /// The client closed its socket both ways (no one reads the answers): its work may stop now,
    /// before the loop closes the channel (`closed`).
    func hungUp(_ channel: ServeChannel)
}

extension ServeProtocol {
    func hungUp(_ channel: ServeChannel) {}
}

enum ServeRefusal {
    case busy
    case outOfDescriptors
}

/// A listening socket of the loop and what its clients speak.
final class ServeListener {
    let fd: Int32
    let protocolHandler: any ServeProtocol
    /// Clients of this listener connected now (loop thread).
    var connected = 0
    /// Accepted sockets report their peer's address (TCP): kept on the channel for logs.
    let recordsPeers: Bool

    init(fd: Int32, protocolHandler: any ServeProtocol, recordsPeers: Bool = false) {
        self.fd = fd
        self.protocolHandler = protocolHandler
        self.recordsPeers = recordsPeers
    }
}

/// JSON-RPC's protocol: one request per line.
final class LineProtocol: ServeProtocol {
    let limits: ServeLimits
    /// Called with each complete request line.
    let dispatch: (ServeChannel, [UInt8]) -> Void
    /// Called after the lines at hand of a client were dispatched (the front end may hand them to its workers together).
    var linesTaken: ((ServeChannel) -> Void)?
    /// Called for each client that goes away.
    var closedChannel: ((ServeChannel) -> Void)?

    init(limits: ServeLimits, dispatch: @escaping (ServeChannel, [UInt8]) -> Void) {
        self.limits = limits
        self.dispatch = dispatch
    }

    var maxConnections: Int { limits.maxConnections }
    func opened(_ channel: ServeChannel, now: Int64) {}
    func wantsInput(_ channel: ServeChannel) -> Bool { true }
    /// A last request without its newline is still a request (`printf '{…}' | clubhouse serve`):
    /// it is ended here and taken with the others.
    func inputEnded(_ channel: ServeChannel) {
        guard channel.inputStart < channel.input.count, channel.input.last != 0x0A else { return }
        channel.input.append(0x0A)
        if channel.mayRead() { _ = take(channel) }
    }
    func deadline(_ channel: ServeChannel, now: Int64) -> Int64? { nil }
    func expire(_ channel: ServeChannel, now: Int64) -> String? { nil }
    func lingers(_ channel: ServeChannel) -> Bool { false }
    func evictable(_ channels: [ServeChannel], now: Int64) -> ServeChannel? { nil }
    func closed(_ channel: ServeChannel) { closedChannel?(channel) }
    func hungUp(_ channel: ServeChannel) { closedChannel?(channel) }

    func refusal(_ reason: ServeRefusal, connected: Int) -> [UInt8] {
        switch reason {
        case .busy: return ServeLoop.errorLine(-32003, "server busy: \(connected) clients connected, the --max-connections bound; try again later")
        case .outOfDescriptors: return ServeLoop.errorLine(-32004, "server out of file descriptors (\(connected) clients connected); try again later")
        }
    }

    /// Dispatches the complete lines buffered for `c` while it may be read; true if lines remain.
    func take(_ c: ServeChannel) -> Bool {
        var remaining = false
        while c.inputStart < c.input.count {
            guard let newline = c.input[max(c.inputStart, min(c.scanned, c.input.count))...].firstIndex(of: 0x0A) else {
                c.scanned = c.input.count
                break
            }
            let line = Array(c.input[c.inputStart..<newline])
            c.inputStart = newline + 1
            if !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { dispatch(c, line) }
            if c.inputStart < c.input.count && !c.mayRead() {
                remaining = c.input[c.inputStart...].contains(0x0A)
                break
            }
        }
        linesTaken?(c)
        if c.inputStart == c.input.count {
            c.input.removeAll(keepingCapacity: c.input.capacity <= 1 << 20)
            c.inputStart = 0
            c.scanned = 0
        } else if c.inputStart > 0 && !remaining {
            c.input.removeSubrange(0..<c.inputStart)
            c.scanned = max(0, c.scanned - c.inputStart)
            c.inputStart = 0
        }
        if c.input.count - c.inputStart > 16 << 20 {
            c.enqueue(ServeLoop.errorLine(-32600, "request line longer than 16 MB; dropped"), droppable: false)
            c.input.removeAll()
            c.inputStart = 0
            c.scanned = 0
        }
        return remaining && c.mayRead()
    }
}

/// The event loop of `serve --socket` and `serve --http`: every listener and every client on one thread.
///
/// It waits with epoll(7), level-triggered, and looks only at the clients that need it — those the kernel
/// reports ready, those a worker woke it for (`wake(_:)`), those whose timer is due (a deadline kept in a
/// heap), and those that have complete requests left to take — so one turn costs O(ready clients), not
/// O(connected clients). Every client is still looked at once a second, and at every turn while stopping.
/// @unchecked Sendable: the wake-up state (`wakePending`, `woken`, `wokenAll`, `wokenBy`, `looksBy`) is guarded
/// by `wakeLock`, which workers take; everything else is the loop thread's alone (listeners are added before it runs).
final class ServeLoop: @unchecked Sendable {
    let limits: ServeLimits
    private(set) var listeners: [ServeListener] = []
    /// A pipe that wakes the loop: workers write its end [1], the loop watches end [0].
    private var wakePipe: [Int32] = [-1, -1]
    private var wakeFD: Int32 { wakePipe[0] }
    private let wakeLock = Lock()
    private var wakePending = false
    /// The latest the loop will look at its channels again (monotonic ms; Int64.max while it is
    /// looking, since what it has already looked at may not include a hold begun meanwhile).
    private var looksBy: Int64 = .max
    /// Under `wakeLock`: the clients workers asked the loop to look at, whether it is to look at all of
    /// them, and the clients it must look at by a time (held replies).
    private var woken: [ServeChannel] = []
    private var wokenAll = false
    private var wokenBy: [(Int64, ServeChannel)] = []
    private let stop = StopFlag()
    /// The clients (loop thread); each knows its index (`ServeChannel.slot`).
    private var channels: [ServeChannel] = []
    private var byNumber: [Int: ServeChannel] = [:]
    /// Clients accepted in this turn, to be looked at (and watched) at the next.
    private var fresh: [ServeChannel] = []
    private var epollFD: Int32 = -1
    /// When each client must be looked at next (the loop's own; stale entries are skipped).
    private var timers = MinHeap<ServeTimer>()
    private var nextNumber = 1
    /// A descriptor kept open so that, out of descriptors, one accept can still be made and refused.
    private var reserve: Int32 = -1
    /// Clients whose descriptor would be at or above this number are refused: the process keeps a margin
    /// below its descriptor limit for everything else that opens files (libdispatch's worker monitor reads
    /// /proc and crashes the process when that open fails; SQLite; plugin runners' pipes).
    private let descriptorCeiling: Int32
    private var acceptPausedUntil: Int64 = 0
    private var exhaustionNoted = false
    private let note: (String) -> Void

    /// epoll tags: a client's is its number; the wake pipe's and the listeners' are at the top of the range.
    private static let wakeTag = UInt64.max
    private static func listenerTag(_ k: Int) -> UInt64 { UInt64.max - 1 - UInt64(k) }

    /// `note` receives log lines about clients; listeners are added with `add`.
    init(limits: ServeLimits, note: @escaping (String) -> Void) {
        self.limits = limits
        self.note = note
        if let (read, write) = Descriptor.pipe(nonBlocking: true) { wakePipe = [read, write] }
        reserve = open("/dev/null", O_RDONLY | O_CLOEXEC)
        descriptorCeiling = ServeLoop.descriptorCeiling()
    }

    /// Serves `fd` (a bound, listening socket) with `protocolHandler`.
    func add(listener fd: Int32, _ protocolHandler: any ServeProtocol, recordsPeers: Bool = false) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        listeners.append(ServeListener(fd: fd, protocolHandler: protocolHandler, recordsPeers: recordsPeers))
    }

    /// The soft descriptor limit less a margin (a quarter of it, at most 64), or no ceiling when unlimited.
    static func descriptorCeiling() -> Int32 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0,
              limit.rlim_cur < rlim_t(Int32.max) else { return .max }
        let soft = Int32(limit.rlim_cur)
        return soft - Swift.min(64, Swift.max(4, soft / 4))
    }

    deinit {
        for end in wakePipe where end >= 0 { Glibc.close(end) }
        if reserve >= 0 { Glibc.close(reserve) }
        if epollFD >= 0 { Glibc.close(epollFD) }
    }

    /// Wakes the loop to look at every client (a change the loop cannot pin on one client).
    func wake() {
        let write = wakeLock.withLock { () -> Bool in
            wokenAll = true
            if wakePending { return false }
            wakePending = true
            return true
        }
        if write { poke() }
    }

    /// Wakes the loop to look at `channel` (its output, its calls or its phase changed off the loop).
    func wake(_ channel: ServeChannel) {
        let write = wakeLock.withLock { () -> Bool in
            woken.append(channel)
            if wakePending { return false }
            wakePending = true
            return true
        }
        if write { poke() }
    }

    /// Has the loop look at `channel` by `deadline` (monotonic ms), waking it only when it would not look
    /// by then anyway.
    func wake(by deadline: Int64, _ channel: ServeChannel) {
        let write = wakeLock.withLock { () -> Bool in
            wokenBy.append((deadline, channel))
            if wakePending || looksBy <= deadline { return false }
            wakePending = true
            return true
        }
        if write { poke() }
    }

    private func poke() {
        var one: UInt8 = 1
        _ = Glibc.write(wakePipe[1], &one, 1)
    }

    func requestStop() {
        stop.set()
        wake()
    }

    /// Serves `fd` (a connected, non-blocking stream socket: stdio's relay) as a client of
    /// `protocolHandler`, before `run`. A loop without listeners returns when its clients are gone.
    func adopt(_ fd: Int32, _ protocolHandler: any ServeProtocol) {
        let listener = ServeListener(fd: -1, protocolHandler: protocolHandler)
        listeners.append(listener)
        let channel = ServeChannel(fd: fd, number: nextNumber, loop: self, listener: listener)
        attach(channel)
        listener.connected += 1
        nextNumber += 1
        protocolHandler.opened(channel, now: Subprocess.monotonicMilliseconds())
    }

    private func attach(_ channel: ServeChannel) {
        channel.slot = channels.count
        channels.append(channel)
        byNumber[channel.number] = channel
        fresh.append(channel)
    }

    /// epoll_ctl(2) for one descriptor.
    private func control(_ operation: Int32, _ fd: Int32, _ events: UInt32, _ tag: UInt64) -> Bool {
        var event = epoll_event()
        event.events = events
        event.data.u64 = tag
        return epoll_ctl(epollFD, operation, fd, &event) == 0
    }

    /// Makes the epoll set watch `events` of the client (nil: not watched at all — a hung-up peer would
    /// otherwise be reported at once, forever); false when the kernel refuses (no memory, max_user_watches).
    private func watch(_ c: ServeChannel, _ events: UInt32?) -> Bool {
        guard c.watching != events else { return true }
        if let events {
            guard control(c.watching == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd, events, UInt64(c.number)) else { return false }
        } else {
            _ = control(EPOLL_CTL_DEL, c.fd, 0, 0)
        }
        c.watching = events
        return true
    }

    /// Has the loop look at `c` at `due` (or earlier, when it is already to look earlier).
    private func schedule(_ c: ServeChannel, _ due: Int64) {
        if let at = c.timerAt, at <= due { return }
        c.timerAt = due
        timers.push(ServeTimer(due: due, channel: c))
    }

    private static let readable = UInt32(POLLIN)
    private static let writable = UInt32(POLLOUT)

    /// What the loop does with a client after looking at it.
    private enum Look {
        case dropped
        /// Watch these events (nil: none, not even a hang-up); look again at `due`; `again`: at once (complete
        /// requests are left that could not be taken now).
        case watch(UInt32?, due: Int64?, again: Bool)
    }

    /// Looks at one client: flushes replies held long enough, takes the requests it may, drops it when it
    /// failed, timed out or is done, and says what to wait for.
    private func examine(_ c: ServeChannel, now: Int64, stopping: Bool) -> Look {
        let handler = c.listener.protocolHandler
        var due: Int64?
        var again = false
        func soon(_ at: Int64) { due = min(due ?? at, at) }
        var s = c.state()
        if let held = s.heldSince, now - held >= limits.replyHoldMilliseconds {
            // Replies held behind a call that runs long: they go out now.
            _ = c.flush()
            s = c.state()
        }
        if let failure = s.failure {
            drop(c, reason: "dropped client \(c.number): \(failure)", quiet: true)
            return .dropped
        }
        if c.readClosed && !stopping && c.input.count > c.inputStart && c.mayRead() {
            // Requests that arrived before the client's last byte are taken as its calls
            // finish: a pipelined batch larger than the in-flight bound, then end of input,
            // still has every request answered.
            if handler.take(c) { again = true }
            s = c.state()
        }
        if let until = c.lingerUntil {
            // Reading and dropping what a refused client still sends, until it stops or time is up.
            if now >= until {
                drop(c, reason: "", quiet: true)
                return .dropped
            }
            return .watch(Self.readable, due: until, again: again)
        }
        // Output waiting for the socket (not held back on purpose).
        let writing = s.waiting > 0 && s.heldSince == nil
        if let held = s.heldSince { soon(held + limits.replyHoldMilliseconds) }
        if writing && now - s.lastProgress >= limits.writeTimeoutMilliseconds {
            drop(c, reason: "dropped client \(c.number)\(c.peerSuffix): it read none of its \(s.waiting) bytes of replies for \(limits.writeTimeoutMilliseconds) ms",
                 abort: true)
            return .dropped
        }
        if c.readClosed && s.inFlight == 0 && s.waiting == 0 {
            if !stopping && handler.lingers(c) && shutdown(c.fd, Int32(SHUT_WR)) == 0 {
                c.lingerUntil = now + c.lingerMilliseconds
                return .watch(Self.readable, due: now + c.lingerMilliseconds, again: again)
            }
            drop(c, reason: "", quiet: true)
            return .dropped
        }
        if let deadline = handler.deadline(c, now: now) {
            if now >= deadline, let reason = handler.expire(c, now: now) {
                drop(c, reason: reason, quiet: reason.isEmpty, abort: !reason.isEmpty)
                return .dropped
            }
            if let next = handler.deadline(c, now: now) { soon(next) }
        }
        if c.readClosed && !writing {
            // Nothing to read or write until its calls finish (which wakes the loop) — but a client that only
            // half-closed (its end of input) is still watched for its hang-up (no events asked: epoll reports
            // a hang-up and an error always): one that closes afterwards has its calls cancelled then, not
            // when they end (a drill stops its machine).
            return .watch(c.hangUpSeen ? nil : 0, due: due, again: again)
        }
        var events: UInt32 = 0
        if !c.readClosed && c.mayRead() {
            // Requests already buffered are taken before reading more.
            if c.input.count > c.inputStart && handler.take(c) { again = true }
            if !c.readClosed && handler.wantsInput(c) { events |= Self.readable }
        }
        if writing {
            events |= Self.writable
            soon(s.lastProgress + limits.writeTimeoutMilliseconds)
        }
        return .watch(events, due: due, again: again)
    }

    /// Runs until `requestStop`; then stops accepting and reading, lets the calls in flight finish
    /// and their replies go out (bounded by the write timeout), and closes every client.
    func run() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while epollFD < 0 {
            epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
            if epollFD >= 0 { break }
            note("epoll_create1 failed: \(String(cString: strerror(errno))); trying again in 100 ms")
            usleep(100_000)
        }
        guard control(EPOLL_CTL_ADD, wakeFD, Self.readable, Self.wakeTag) else {
            note("cannot watch the loop's wake pipe: \(String(cString: strerror(errno)))")
            return
        }
        var listening = [Bool](repeating: false, count: listeners.count)
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var stopping = false
        var turn = 0
        var again: [ServeChannel] = []
        var touched: [ServeChannel] = []
        var nextSweep: Int64 = 0
        while true {
            turn &+= 1
            if !stopping && stop.isSet {
                stopping = true
                for c in channels { c.readClosed = true }
            }
            let (wokenNow, all, timed) = wakeLock.withLock { () -> ([ServeChannel], Bool, [(Int64, ServeChannel)]) in
                looksBy = .max
                defer {
                    woken.removeAll(keepingCapacity: true)
                    wokenAll = false
                    wokenBy.removeAll(keepingCapacity: true)
                }
                return (woken, wokenAll, wokenBy)
            }
            let now = Subprocess.monotonicMilliseconds()
            for (due, c) in timed where c.slot >= 0 { schedule(c, due) }
            let accepting = !stopping && now >= acceptPausedUntil
            for (k, listener) in listeners.enumerated() where listener.fd >= 0 {
                let want = accepting
                guard want != listening[k] else { continue }
                if want {
                    if control(EPOLL_CTL_ADD, listener.fd, Self.readable, Self.listenerTag(k)) { listening[k] = true }
                } else {
                    _ = control(EPOLL_CTL_DEL, listener.fd, 0, 0)
                    listening[k] = false
                }
            }
            var timeout: Int64 = stopping ? 100 : 1000
            if !accepting && !stopping { timeout = min(timeout, max(1, acceptPausedUntil - now)) }
            // Whom to look at: everyone (a wake for all, stopping, the once-a-second sweep), or the clients
            // that need it.
            var look: [ServeChannel]
            let sweep = all || stopping || now >= nextSweep
            if sweep { nextSweep = now + 1000 }
            look = sweep ? channels : again + touched + wokenNow + fresh
            while let top = timers.first, top.due <= now {
                timers.removeFirst()
                let c = top.channel
                guard c.timerAt == top.due else { continue }
                c.timerAt = nil
                if !sweep { look.append(c) }
            }
            again.removeAll(keepingCapacity: true)
            touched.removeAll(keepingCapacity: true)
            fresh.removeAll(keepingCapacity: true)
            for c in look where c.slot >= 0 && c.examinedTurn != turn {
                c.examinedTurn = turn
                switch examine(c, now: now, stopping: stopping) {
                case .dropped:
                    continue
                case .watch(let wanted, let due, let more):
                    if !watch(c, wanted) {
                        drop(c, reason: "dropped client \(c.number)\(c.peerSuffix): the loop cannot watch its socket (\(String(cString: strerror(errno))))")
                        continue
                    }
                    if let due { schedule(c, due) }
                    if more {
                        again.append(c)
                        timeout = 0
                    }
                }
            }
            if (stopping || !listeners.contains { $0.fd >= 0 }) && channels.isEmpty { return }
            if let first = timers.first?.due { timeout = min(timeout, max(1, first - now)) }
            if let tick, let most = tick() { timeout = min(timeout, most) }
            let waitStart = Subprocess.monotonicMilliseconds()
            wakeLock.withLock { looksBy = waitStart + timeout }
            let ready = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32($0.count), Int32(timeout)) }
            if ready < 0 {
                if errno == EINTR { continue }
                note("epoll_wait failed: \(String(cString: strerror(errno)))")
                usleep(100_000)
                continue
            }
            var closing: [ServeChannel] = []
            var accept: [ServeListener] = []
            for i in 0..<Int(ready) {
                let tag = events[i].data.u64
                // epoll's event bits are poll's.
                let revents = Int16(truncatingIfNeeded: events[i].events)
                if tag == Self.wakeTag {
                    var drain = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
                    _ = read(wakeFD, &drain, 32)
                    wakeLock.withLock { wakePending = false }
                    continue
                }
                if tag > UInt64(Int.max) {
                    let k = Int(Self.wakeTag - 1 - tag)
                    if k < listeners.count { accept.append(listeners[k]) }
                    continue
                }
                guard let c = byNumber[Int(tag)] else { continue }
                touched.append(c)
                if c.lingerUntil != nil {
                    let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
                    if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { closing.append(c) }
                    continue
                }
                if revents & Int16(POLLOUT) != 0 {
                    if !c.flush() { closing.append(c); continue }
                }
                if revents & Int16(POLLIN) != 0 {
                    let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
                    if n > 0 {
                        if c.inputStart > 0 && c.inputStart == c.input.count {
                            c.input.removeAll(keepingCapacity: true)
                            c.inputStart = 0
                            c.scanned = 0
                        }
                        c.input.append(contentsOf: buffer[0..<n])
                        _ = c.listener.protocolHandler.take(c)
                    } else if n == 0 {
                        c.readClosed = true
                        c.listener.protocolHandler.inputEnded(c)
                        // Closed both ways (not just done writing): nobody waits for its calls'
                        // answers, so they are cancelled now (a drill stops its machine), not at the end.
                        if revents & Int16(POLLHUP) != 0 {
                            c.hangUpSeen = true
                            c.listener.protocolHandler.hungUp(c)
                        }
                    } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                        closing.append(c)
                        continue
                    }
                } else if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && revents & Int16(POLLOUT) == 0 {
                    if !c.readClosed {
                        c.readClosed = true
                        c.listener.protocolHandler.inputEnded(c)
                    }
                    c.hangUpSeen = true
                    c.listener.protocolHandler.hungUp(c)
                    if revents & Int16(POLLERR | POLLNVAL) != 0 { closing.append(c) }
                }
            }
            for c in closing where c.slot >= 0 { drop(c, reason: "", quiet: true) }
            for listener in accept { acceptClients(listener) }
        }
    }

    private func drop(_ c: ServeChannel, reason: String, quiet: Bool = false, abort: Bool = false) {
        guard c.slot >= 0 else { return }
        let last = channels.removeLast()
        if last !== c {
            channels[c.slot] = last
            last.slot = c.slot
        }
        c.slot = -1
        byNumber[c.number] = nil
        if c.watching != nil {
            _ = control(EPOLL_CTL_DEL, c.fd, 0, 0)
            c.watching = nil
        }
        c.listener.connected -= 1
        c.close(abort: abort)
        c.listener.protocolHandler.closed(c)
        c.owner = nil
        c.input = []
        c.inputStart = 0
        if !reason.isEmpty && !quiet { note(reason) }
    }


    /// Called (on the loop thread) before each wait; returns the longest the loop may wait (ms).
    var tick: (() -> Int64?)?

    static func errorLine(_ code: Int, _ message: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.appendCompact(["jsonrpc": "2.0", "id": .null, "error": ["code": .int(code), "message": .string(message)]], to: &bytes)
        bytes.append(0x0A)
        return bytes
    }

    /// Refuses a connection already accepted: one message, best effort, then close.
    private func refuse(_ fd: Int32, _ listener: ServeListener, _ reason: ServeRefusal) {
        let message = listener.protocolHandler.refusal(reason, connected: listener.connected)
        _ = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Glibc.close(fd)
    }

    /// accept4(2): the client is close-on-exec and non-blocking from birth (a runner spawned meanwhile
    /// never holds a client's socket).
    private func acceptOne(_ listener: ServeListener, address: UnsafeMutablePointer<sockaddr_storage>?) -> Int32 {
        Descriptor.accept(listener.fd, nonBlocking: true, address: address)
    }

    private func acceptClients(_ listener: ServeListener) {
        var address = sockaddr_storage()
        for _ in 0..<64 {
            let fd = withUnsafeMutablePointer(to: &address) { acceptOne(listener, address: listener.recordsPeers ? $0 : nil) }
            if fd < 0 {
                let e = errno
                if e == EINTR || e == ECONNABORTED { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return }
                if e == EMFILE || e == ENFILE {
                    // Spend the reserve on the waiting client so it hears why, then take it back.
                    if reserve >= 0 {
                        Glibc.close(reserve)
                        reserve = -1
                        let late = acceptOne(listener, address: nil)
                        if late >= 0 { refuse(late, listener, .outOfDescriptors) }
                        reserve = open("/dev/null", O_RDONLY | O_CLOEXEC)
                        if late >= 0 && reserve >= 0 { continue }
                    }
                    if !exhaustionNoted { note("out of file descriptors with \(channels.count) clients connected; accepting again every 250 ms") }
                    exhaustionNoted = true
                    acceptPausedUntil = Subprocess.monotonicMilliseconds() + 250
                    return
                }
                note("accept failed: \(String(cString: strerror(e))); not accepting for 250 ms")
                acceptPausedUntil = Subprocess.monotonicMilliseconds() + 250
                return
            }
            exhaustionNoted = false
            if fd >= descriptorCeiling {
                refuse(fd, listener, .outOfDescriptors)
                continue
            }
            let now = Subprocess.monotonicMilliseconds()
            let handler = listener.protocolHandler
            if listener.connected >= handler.maxConnections {
                // Room is made by closing an idle client when the protocol has one to spare.
                let mine = channels.filter { $0.listener === listener }
                if let idle = handler.evictable(mine, now: now), idle.slot >= 0 {
                    drop(idle, reason: "", quiet: true)
                } else {
                    refuse(fd, listener, .busy)
                    continue
                }
            }
            let channel = ServeChannel(fd: fd, number: nextNumber, loop: self, listener: listener)
            if listener.recordsPeers { channel.peer = SocketAddress.text(address) }
            attach(channel)
            listener.connected += 1
            nextNumber += 1
            handler.opened(channel, now: now)
        }
    }
}

/// One of the loop's timers (kept in a `MinHeap`, soonest first): when to look at a client next. An entry
/// whose time is no longer its client's `timerAt` is stale and skipped when it comes up.
struct ServeTimer: MinHeapElement {
    let due: Int64
    let channel: ServeChannel

    @inline(__always)
    func precedes(_ other: ServeTimer) -> Bool { due < other.due }
}

/// A peer's address as text: "192.0.2.1", "2001:db8::1" (an IPv4-mapped IPv6 address as IPv4).
enum SocketAddress {
    static func text(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin -> String in
                    var a = sin.pointee.sin_addr
                    guard inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
                    return String(cString: buffer)
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 -> String in
                    var a = sin6.pointee.sin6_addr
                    guard inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
                    let text = String(cString: buffer)
                    return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
                }
            }
        default:
            return "local"
        }
    }
}

/// The Unix socket of `serve --socket PATH`: bound (mode 0600) under the path's lock; `close` removes the
/// socket only if it is still the one this server bound.
final class UnixSocketListener {
    let fd: Int32
    let path: String
    private let pathLock: SocketPathLock
    private let bound: stat

    private init(fd: Int32, path: String, pathLock: SocketPathLock, bound: stat) {
        self.fd = fd
        self.path = path
        self.pathLock = pathLock
        self.bound = bound
    }

    static func open(_ path: String) throws(CLIError) -> UnixSocketListener {
        var address = sockaddr_un()
        guard Transport.fillUnixAddress(&address, path) else {
            throw CLIError(status: .invalidArgument, message: "serve: socket path too long: \(path)")
        }
        let pathLock = SocketPathLock(socketPath: path)
        try pathLock.acquire()
        var st = stat()
        if lstat(path, &st) == 0 {
            // Nobody holds the lock: a socket left there is stale, unless something that does not
            // take the lock (an older server) still answers on it. Anything else is left alone.
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                pathLock.release()
                throw CLIError(status: .error, message: "serve: \(path) exists and is not a socket; choose another --socket path")
            }
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let live = probe >= 0 && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            } == 0
            if probe >= 0 { Glibc.close(probe) }
            if live {
                pathLock.release()
                throw CLIError(status: .error, message: "serve: a server that does not hold \(pathLock.lockPath) is listening on \(path); stop it or choose another --socket path")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            pathLock.release()
            throw CLIError(status: .io, message: "serve: socket: \(String(cString: strerror(errno)))")
        }
        let oldMask = umask(0o177)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(oldMask)
        guard rc == 0, listen(fd, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            pathLock.release()
            throw CLIError(status: .io, message: "serve: cannot listen on \(path): \(reason)")
        }
        chmod(path, 0o600)
        var bound = stat()
        _ = stat(path, &bound)
        return UnixSocketListener(fd: fd, path: path, pathLock: pathLock, bound: bound)
    }

    func close() {
        Glibc.close(fd)
        var now = stat()
        if stat(path, &now) == 0, now.st_ino == bound.st_ino, now.st_dev == bound.st_dev { unlink(path) }
        pathLock.release()
    }
}

/// The lock on a socket path: an flock on `PATH.lock`, which holds the pid of the server.
final class SocketPathLock {
    let path: String
    let lockPath: String
    private var fd: Int32 = -1

    init(socketPath: String) {
        path = socketPath
        lockPath = socketPath + ".lock"
    }

    /// Takes the lock or explains who holds it.
    func acquire() throws(CLIError) {
        for _ in 0..<5 {
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else {
                throw CLIError(status: .io, message: "serve: cannot open the lock file \(lockPath): \(String(cString: strerror(errno)))")
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let e = errno
                let holder = Self.readPid(fd)
                Glibc.close(fd)
                if e == EWOULDBLOCK {
                    let who = holder.map { "pid \($0)" } ?? "another process"
                    throw CLIError(status: .error, message: "serve: another clubhouse serve (\(who)) is serving on \(path); stop it or choose another --socket path")
                }
                throw CLIError(status: .io, message: "serve: cannot lock \(lockPath): \(String(cString: strerror(e)))")
            }
            // The file may have been removed by a server that was exiting: lock the one at the path.
            var mine = stat(), there = stat()
            if fstat(fd, &mine) == 0, stat(lockPath, &there) == 0, mine.st_ino == there.st_ino, mine.st_dev == there.st_dev {
                _ = ftruncate(fd, 0)
                let text = Array("\(getpid())\n".utf8)
                _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                self.fd = fd
                return
            }
            Glibc.close(fd)
        }
        throw CLIError(status: .io, message: "serve: the lock file \(lockPath) keeps changing; is another server starting?")
    }

    private static func readPid(_ fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: bytes[0..<n], as: UTF8.self).trimmingWhitespace()
        return Int32(text)
    }

    /// Removes the lock file (while still holding it) and lets go.
    func release() {
        guard fd >= 0 else { return }
        unlink(lockPath)
        Glibc.close(fd)
        fd = -1
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\n" || f == "\r" || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\n" || l == "\r" || l == "\t" { s.removeLast() }
        return String(s)
    }
}
