// Runs a child process with pipes, a bounded wait, and a kill when the wait runs out.
// Used to probe and validate plugin files without risking the host process.

#if canImport(Glibc)
import Glibc
#endif

public struct SubprocessResult: Sendable {
    /// Exit code, or nil when the child was killed by a signal.
    public var exitCode: Int32?
    /// The signal that ended the child, if any.
    public var signal: Int32?
    public var standardOutput: [UInt8]
    public var standardError: [UInt8]
    public var timedOut: Bool

    /// "exit code 3", "signal 11 (SIGSEGV)", "timed out after 5000 ms".
    public var outcomeDescription: String {
        if timedOut { return "timed out" }
        if let signal { return "killed by signal \(signal) (\(Subprocess.signalName(signal)))" }
        return "exit code \(exitCode ?? -1)"
    }
}

public enum Subprocess {
    /// Runs `executable` with `arguments`, feeding `input` on stdin; waits at most `timeoutMilliseconds`.
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8] = [],
                           environment: [String: String] = [:], timeoutMilliseconds: Int = 30_000) -> SubprocessResult {
        var stdinPipe: [Int32] = [-1, -1], stdoutPipe: [Int32] = [-1, -1], stderrPipe: [Int32] = [-1, -1]
        guard makePipe(&stdinPipe), makePipe(&stdoutPipe), makePipe(&stderrPipe) else {
            return SubprocessResult(exitCode: 127, signal: nil, standardOutput: [],
                                    standardError: Array("cannot create pipes: \(String(cString: strerror(errno)))".utf8),
                                    timedOut: false)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        guard Descriptor.closeInChild(&actions, from: 3) else {
            for fd in stdinPipe + stdoutPipe + stderrPipe { close(fd) }
            return SubprocessResult(exitCode: 127, signal: nil, standardOutput: [],
                                    standardError: Array("cannot run \(executable): \(Descriptor.closeInChildUnavailable)".utf8), timedOut: false)
        }

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var argvPointers = argv + [nil]
        let envp = ChildEnvironment.entries(passing: { _ in true }, adding: environment).map { strdup($0) }
        defer { envp.forEach { free($0) } }
        var envPointers = envp + [nil]

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, &argvPointers, &envPointers)
        close(stdinPipe[0]); close(stdoutPipe[1]); close(stderrPipe[1])
        guard spawned == 0 else {
            close(stdinPipe[1]); close(stdoutPipe[0]); close(stderrPipe[0])
            return SubprocessResult(exitCode: 127, signal: nil, standardOutput: [],
                                    standardError: Array("cannot run \(executable): \(String(cString: strerror(spawned)))".utf8),
                                    timedOut: false)
        }
        // Feed stdin (small inputs; a full pipe would need the poll loop below), then close it.
        if !input.isEmpty {
            _ = input.withUnsafeBytes { write(stdinPipe[1], $0.baseAddress, input.count) }
        }
        close(stdinPipe[1])

        var out: [UInt8] = [], err: [UInt8] = []
        var open = [stdoutPipe[0], stderrPipe[0]]
        let deadline = monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            let remaining = deadline - monotonicMilliseconds()
            if remaining <= 0 { timedOut = true; break }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1000)))
            if ready < 0 && errno != EINTR { break }
            for f in fds where f.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(f.fd, $0.baseAddress, 65536) }
                if n > 0 {
                    if f.fd == stdoutPipe[0] { out.append(contentsOf: buffer[0..<n]) } else { err.append(contentsOf: buffer[0..<n]) }
                } else if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == f.fd }
                }
            }
        }
        if timedOut { kill(pid, SIGKILL) }
        close(stdoutPipe[0]); close(stderrPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signaled = (status & 0x7F) != 0 && (status & 0x7F) != 0x7F
        return SubprocessResult(exitCode: signaled ? nil : (status >> 8) & 0xFF, signal: signaled ? status & 0x7F : nil,
                                standardOutput: out, standardError: err, timedOut: timedOut)
    }

    /// A pipe whose ends are close-on-exec from birth (the child gets only what dup2 gives it).
    public static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard let (read, write) = Descriptor.pipe() else { return false }
        fds = [read, write]
        return true
    }

    public static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    public static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    public static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: return "SIGSEGV, a crash"
        case SIGABRT: return "SIGABRT, an abort"
        case SIGILL: return "SIGILL, a Swift runtime trap such as fatalError"
        case SIGTRAP: return "SIGTRAP, a trap"
        case SIGBUS: return "SIGBUS, a bad memory access"
        case SIGFPE: return "SIGFPE, an arithmetic fault"
        case SIGKILL: return "SIGKILL"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(signal)"
        }
    }
}
