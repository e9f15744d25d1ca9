// `serve` on stdio, as a client of the same event loop as a socket client: the caller's standard
// input and output are relayed to one end of a socket pair, and the loop serves the other end
// (JSONRPCServer.serveStdio). Two threads copy bytes and nothing else — requests in, replies out —
// so what the caller gets (when replies go out, in what order, what bounds hold, what a cancel
// does) is what a socket client gets; ServeTransportEndToEndTests runs its tests on both. A caller that
// is gone — its standard output closed (at its end of input or at any time, while its input stays open too), a read of its input or a
// write of a reply failing (a terminal hung up) — is a socket client that closed: the relay shuts its end
// of the pair both ways, the loop sees the hang-up and cancels the caller's calls at once (a drill stops
// its machine). Only the end of input with the output still open is a half-close: the calls in flight
// answer, then the server ends (fourth outside attack, b21: a dead caller's drill ran to its end).

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: the descriptors are fixed at init; each relay thread owns its direction.
final class StdioRelay: @unchecked Sendable {
    let input: Int32
    let output: Int32
    /// The end the relay threads use.
    private let relayEnd: Int32
    /// The end the event loop serves (non-blocking, close-on-exec).
    let serverEnd: Int32
    private let outputDone = Semaphore()
    /// Set (under `lock`) once `finish` closed `relayEnd`: a late hang-up then touches nothing.
    private let lock = Lock()
    private var closed = false

    /// Nil when the socket pair cannot be made.
    init?(input: Int32, output: Int32) {
        guard let (a, b) = Descriptor.socketPair() else { return nil }
        self.input = input
        self.output = output
        relayEnd = a
        serverEnd = b
        _ = fcntl(serverEnd, F_SETFL, fcntl(serverEnd, F_GETFL) | O_NONBLOCK)
    }

    /// Starts both directions; throws when a thread would not start (the replies' thread, started
    /// first, then ends: the relay's end is shut).
    func start() throws(ThreadStartError) {
        // Replies first: without them the requests' thread is not started.
        try startReplies()
        // Requests: the caller's input into the pair; its end of input becomes the client's.
        do throws(ThreadStartError) { try startRequests() } catch {
            shutdown(relayEnd, Int32(SHUT_RDWR))
            throw error
        }
    }

    private func startRequests() throws(ThreadStartError) {
        try Thread.start { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            var failed = false
            while true {
                // Waits for input while watching the output: a caller that closed only our output (its
                // reading end) while its input stays open is gone too, whether or not a reply is due.
                guard inputReadableWhileOutputStays() else { return callerGone() }
                let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                failed = n < 0
                if n <= 0 { break }
                if buffer.withUnsafeBytes({ Descriptor.writeAll(relayEnd, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) != nil { break }
            }
            if failed || hungUp(output, wait: false) { return callerGone() }
            shutdown(relayEnd, Int32(SHUT_WR))
            // A half-close: the calls answer, unless the caller goes meanwhile.
            if hungUp(output, wait: true) { callerGone() }
        }
    }

    private func startReplies() throws(ThreadStartError) {
        // Replies: everything the loop writes, out to the caller, until the loop closes its end.
        try Thread.start { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(relayEnd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                // A caller that stopped reading makes this wait; the loop's write timeout then drops it.
                if buffer.withUnsafeBytes({ Descriptor.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) != nil {
                    callerGone()
                    break
                }
            }
            outputDone.signal()
        }
    }

    /// What cancels the caller's calls (set before `start`): after a half-close the loop no longer watches the
    /// client's socket, so a hang-up there alone would wait for the calls to end.
    var cancelCalls: (@Sendable () -> Void)?

    /// The caller is gone: its calls are cancelled, and the loop's client hangs up (both ways shut).
    private func callerGone() {
        cancelCalls?()
        lock.withLock { if !closed { shutdown(relayEnd, Int32(SHUT_RDWR)) } }
    }

    /// Whether the caller's output is gone (a pipe whose reader closed: POLLERR; a socket or terminal: POLLHUP),
    /// at once or, with `wait`, once it goes (never, for an output that stays: this thread then just waits).
    private func hungUp(_ fd: Int32, wait: Bool) -> Bool {
        var pfd = pollfd(fd: fd, events: 0, revents: 0)
        while true {
            let n = poll(&pfd, 1, wait ? -1 : 0)
            if n < 0 && errno == EINTR { continue }
            return n > 0 && pfd.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
        }
    }

    /// After the loop returned (it closed its end): waits until every reply went out (at most
    /// `milliseconds` more: the write timeout), then closes the relay's end.
    func finish(within milliseconds: Int64) {
        _ = outputDone.wait(milliseconds: Int(milliseconds))
        lock.withLock {
            closed = true
            close(relayEnd)
        }
    }

    /// Waits until the input has bytes or ends (true), or the caller's output is gone (false). When input and
    /// output are one descriptor (a socket handed over as both), its hang-up means both directions shut, which
    /// the read then sees.
    private func inputReadableWhileOutputStays() -> Bool {
        var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0), pollfd(fd: output, events: 0, revents: 0)]
        let watched = input == output ? 1 : 2
        while true {
            let n = poll(&fds, nfds_t(watched), -1)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return true } // the read reports what is wrong
            if watched == 2 && fds[1].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return false }
            if fds[0].revents != 0 { return true }
        }
    }
}
