// Whole writes to a file descriptor (files, pipes, sockets, ttys, blocking or not) and detached
// threads: the two pieces of plumbing every broker needs.

#if canImport(Glibc)
import Glibc
#endif

public enum Descriptor {
    /// What `writeAll` returns when its time ran out before every byte went out.
    public static let writeTimedOut = "write timed out"

    /// Writes every byte, retrying after EINTR and waiting while a non-blocking descriptor is full,
    /// `timeoutMilliseconds` in all (-1 = forever; a reader that takes a byte now and then does not
    /// stretch it). Returns nil, or what went wrong (`writeTimedOut` when the time ran out).
    /// SIGPIPE is ignored by the host, so a closed peer is an EPIPE error here, not a signal.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, timeoutMilliseconds: Int32 = -1) -> String? {
        guard let base = bytes.baseAddress else { return nil }
        let deadline = timeoutMilliseconds < 0 ? Int64.max : Subprocess.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, base + offset, bytes.count - offset)
            if n > 0 {
                offset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard waitWritable(fd, until: deadline) else { return writeTimedOut }
                continue
            }
            return String(cString: strerror(errno))
        }
        return nil
    }

    /// Waits until `fd` takes more bytes (or fails: the write then says why); false when `deadline`
    /// (monotonic milliseconds; Int64.max = none) came first.
    static func waitWritable(_ fd: Int32, until deadline: Int64) -> Bool {
        while true {
            let left = deadline == Int64.max ? -1 : Int32(clamping: max(0, deadline - Subprocess.monotonicMilliseconds()))
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&pfd, 1, left)
            if ready > 0 { return true }
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return true }
            return false
        }
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], timeoutMilliseconds: Int32 = -1) -> String? {
        bytes.withUnsafeBytes { writeAll(fd, $0, timeoutMilliseconds: timeoutMilliseconds) }
    }
}

/// A thread the system would not start (`pthread_create`'s error, EAGAIN when the process or user is
/// at its thread limit): the caller decides what to do instead — refuse, or do the safe thing now.
public struct ThreadStartError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public init(code: Int32) { self.code = code }
    public var description: String {
        "the system would not start a thread (pthread_create: \(String(cString: strerror(code))), errno \(code)); "
            + "the process or its user is at the thread limit (ulimit -u, /proc/sys/kernel/threads-max) or out of memory"
    }
}

/// A detached POSIX thread running a closure.
public enum Thread {
    final class Box { let body: () -> Void; init(_ b: @escaping () -> Void) { body = b } }

    /// Starts `body` on a detached thread of its own; throws when the system would not start one (then
    /// `body` never runs: the caller refuses its work or does it another way).
    public static func start(_ body: @escaping () -> Void) throws(ThreadStartError) {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw ThreadStartError(code: rc)
        }
        pthread_detach(thread)
    }

    /// `start` for the callers not moved to it yet (the runner's): a thread the system would not start
    /// is written to standard error, never dropped without a word; answers false then.
    @available(*, deprecated, message: "use `try Thread.start`: the caller must decide what a thread that did not start means")
    @discardableResult
    public static func detach(_ body: @escaping () -> Void) -> Bool {
        do {
            try start(body)
            return true
        } catch {
            _ = Descriptor.writeAll(2, Array("clubhouse: \(error); work meant for it did not run\n".utf8))
            return false
        }
    }
}
