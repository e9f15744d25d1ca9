// Whole writes to a file descriptor (files, pipes, sockets, ttys, blocking or not) and detached
// threads: the two pieces of plumbing every broker needs.

#if canImport(Glibc)
import Glibc
#endif

public enum Descriptor {
    /// Writes every byte, retrying after EINTR and waiting (up to `timeoutMilliseconds`, -1 =
    /// forever) while a non-blocking descriptor is full. Returns nil, or what went wrong.
    /// SIGPIPE is ignored by the host, so a closed peer is an EPIPE error here, not a signal.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, timeoutMilliseconds: Int32 = -1) -> String? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, base + offset, bytes.count - offset)
            if n > 0 {
                offset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&pfd, 1, timeoutMilliseconds) <= 0 { return "write timed out" }
                continue
            }
            return String(cString: strerror(errno))
        }
        return nil
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], timeoutMilliseconds: Int32 = -1) -> String? {
        bytes.withUnsafeBytes { writeAll(fd, $0, timeoutMilliseconds: timeoutMilliseconds) }
    }
}

/// A detached POSIX thread running a closure.
public enum Thread {
    final class Box { let body: () -> Void; init(_ b: @escaping () -> Void) { body = b } }

    public static func detach(_ body: @escaping () -> Void) {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if rc == 0 { pthread_detach(thread) } else { Unmanaged<Box>.fromOpaque(box).release() }
    }
}
