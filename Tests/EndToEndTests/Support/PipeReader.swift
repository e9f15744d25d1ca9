// Reading a child's output while it runs, without libdispatch: a thread of its own per pipe, poll(2)
// and read(2).
//
// Why not `FileHandle.readabilityHandler`: it arms a libdispatch read source on a dup of the pipe, and
// setting such sources up and tearing them down from several threads at once corrupts libdispatch's
// epoll bookkeeping on Linux: its manager thread then dereferences a freed muxnote in
// `_dispatch_event_loop_drain` and the whole test process dies with SIGSEGV (swift-corelibs-libdispatch
// issue 949, swift-corelibs-foundation issue 3276). DrillStopEndToEndTests did exactly that (five
// threads, a process and a handler per trial) and crashed the suite once in CI. A blocking read never
// registers the descriptor with libdispatch, so there is nothing to race.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads the read end of `pipe` on its own thread until end of file (or `finish`), handing each chunk to
/// `take` on that thread. @unchecked Sendable: `state` is read and written under `lock`; the descriptor
/// is read by the reading thread alone, and `pipe` (which closes it when released) is kept until that
/// thread has ended.
final class PipeReader: @unchecked Sendable {
    private let pipe: Pipe
    private let take: @Sendable (Data) -> Void
    private let ended = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var state: (stopRequested: Bool, finished: Bool) = (false, false)

    init(_ pipe: Pipe, _ take: @escaping @Sendable (Data) -> Void) {
        self.pipe = pipe
        self.take = take
        let thread = Thread { [self] in self.readUntilEnd() }
        thread.name = "PipeReader"
        thread.start()
    }

    private var stopRequested: Bool { lock.withLock { state.stopRequested } }

    private func readUntilEnd() {
        let fd = pipe.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 50)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { break }
            // Nothing for 50 ms: stop only now, so what was already written is read first.
            if ready == 0 { if stopRequested { break } else { continue } }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { take(Data(buffer[0..<count])); continue }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            break  // end of file (every writer has closed it) or an error
        }
        ended.signal()
    }

    /// Waits up to `timeout` s for the end of file (the child and whatever inherited the pipe have
    /// exited), then reads what is left and stops; returns once the reading thread has ended, so every
    /// chunk has been handed to `take`. Later calls return at once.
    func finish(endWithin timeout: TimeInterval = 2) {
        guard lock.withLock({ () -> Bool in
            defer { state.finished = true }
            return !state.finished
        }) else { return }
        if ended.wait(timeout: .now() + timeout) == .success { return }
        lock.withLock { state.stopRequested = true }
        ended.wait()
    }

    /// Asks the thread to stop once the pipe is idle, without waiting (for a `deinit`).
    func stopSoon() { lock.withLock { state.stopRequested = true } }
}
