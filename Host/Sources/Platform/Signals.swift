// Process-wide signal dispositions, set up once: the host writes to pipes, sockets and devices whose
// other end can vanish, and that must be an error to handle (EPIPE), never the process's death.

#if canImport(Glibc)
import Glibc
#endif

public enum Signals {
    private static let pipesIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Makes a write to a closed pipe or socket fail with EPIPE instead of killing the process.
    public static func ignoreBrokenPipes() { _ = pipesIgnored }
}
