// Process-wide signal dispositions, set up once: the host writes to pipes, sockets and devices whose
// other end can vanish, and that must be an error to handle (EPIPE), never the process's death; likewise a
// write past RLIMIT_FSIZE fails with EFBIG instead of SIGXFSZ ending the host mid-call (with a device running).
// The other signals that would end the process are handled like SIGTERM (SignalRelay, CommandLineTool.swift).

#if canImport(Glibc)
import Glibc
#endif

public enum Signals {
    private static let pipesIgnored: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
        _ = signal(SIGXFSZ, SIG_IGN)
    }()

    /// Makes a write to a closed pipe or socket fail with EPIPE (and one past the file size limit with EFBIG)
    /// instead of killing the process.
    public static func ignoreBrokenPipes() { _ = pipesIgnored }
}
