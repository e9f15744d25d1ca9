// One psql child kept for several steps: a whole `federation push` (its preliminary query and every batch)
// goes through one psql process, one connection and one server backend, where it used to start a psql
// per step (BENCHMARKS.md, "One psql session per push": that per-session cost was what kept the push
// below raw COPY).
//
// How a step is known to be over: its script goes in on psql's stdin (`-f -`: COPY data inline after its
// statement), followed by `\echo <marker>` — a random token of the session and the step's number. psql
// flushes stdout before it reads its next line, so the step is over when the marker line comes back on
// stdout (a lone ";" before it runs a statement the script left unterminated); what came before it is the step's output (CSV with `--csv -t`). `ON_ERROR_STOP=1`: the first
// statement that fails ends psql (its open transaction rolled back by the server), so a failed step
// reads as psql's exit — its code and its first error line, as for a psql run once (PostgresShell.run) —
// and the next step starts a new psql. A step's timeout and the shell's `PostgresCancel` kill psql.

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Used by one thread at a time (a push runs its steps one after the other): not Sendable.
public final class PostgresSession {
    public let shell: PostgresShell
    private let csv: Bool
    private var child: Child?
    private var steps = 0
    private let token: String
    /// How many psql processes this session started (a push that went well: one).
    public private(set) var started = 0

    private struct Child {
        var pid: pid_t
        var input: Int32
        var output: Int32
        var errors: Int32
    }

    init(_ shell: PostgresShell, csv: Bool) {
        self.shell = shell
        self.csv = csv
        let random = (try? SecureRandom.bytes(8).get()) ?? []
        token = "clubhouse-step-" + random.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "-\(getpid())"
    }

    deinit { finish() }

    /// Runs `script` as the session's next step and returns its stdout. `last`: psql's stdin is closed
    /// after it (psql ends when it has run it: a one-off run).
    @discardableResult
    public func run(_ script: [UInt8], last: Bool = false) throws(FederationError) -> [UInt8] {
        let outcome = step(script, last: last)
        if let error = shell.failure(outcome) { throw error }
        return outcome.standardOutput
    }

    /// The rows of a query run as the session's next step, as CSV fields.
    public func query(_ sql: String) throws(FederationError) -> [[String]] {
        CSVRows.parse(try run(Array(sql.utf8)))
    }

    /// Ends psql: its stdin closed (psql leaves when it reads the end), then waited for a moment, killed
    /// if it does not go.
    public func finish() {
        guard let running = child else { return }
        closeInput()
        child = nil
        let deadline = Subprocess.monotonicMilliseconds() + 5_000
        var fds = [pollfd(fd: running.output, events: Int16(POLLIN), revents: 0), pollfd(fd: running.errors, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 4096)
        var open = 2
        while open > 0 && Subprocess.monotonicMilliseconds() < deadline {
            guard poll(&fds, nfds_t(fds.count), 100) >= 0 || errno == EINTR else { break }
            for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
                if buffer.withUnsafeMutableBytes({ read(fds[i].fd, $0.baseAddress, $0.count) }) <= 0 {
                    fds[i].fd = -1
                    open -= 1
                }
            }
        }
        if open > 0 { PostgresSession.kill(running.pid) }
        close(running.output); close(running.errors)
        var status: Int32 = 0
        while waitpid(running.pid, &status, 0) < 0 && errno == EINTR {}
    }

    private func launch() -> String? {
        var arguments = ["-X", "-q", "--no-password", "-v", "ON_ERROR_STOP=1", "-d", shell.target.conninfo, "-f", "-"]
        if csv { arguments += ["--csv", "-t"] }
        var stdinPipe: [Int32] = [-1, -1], stdoutPipe: [Int32] = [-1, -1], stderrPipe: [Int32] = [-1, -1]
        guard Subprocess.makePipe(&stdinPipe), Subprocess.makePipe(&stdoutPipe), Subprocess.makePipe(&stderrPipe) else {
            return "cannot create pipes: \(String(cString: strerror(errno)))"
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        _ = Descriptor.closeInChild(&actions, from: 3)
        let argv = ([shell.program] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var argvPointers = argv + [nil]
        // PGCONNECT_TIMEOUT: a server that takes the connection and never answers is given up (libpq's connect_timeout).
        let envp = shell.childEnvironment().map { strdup($0) }
        defer { envp.forEach { free($0) } }
        var envPointers = envp + [nil]
        // psql in a process group of its own: a terminal's Ctrl-C reaches the host only, which stops psql
        // itself (and whatever psql's wrapper started: the group is killed), so the command's outcome is the
        // host's to say (FederationCommands.Interrupts), never a race between the two.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, shell.program, &actions, &attributes, &argvPointers, &envPointers)
        close(stdinPipe[0]); close(stdoutPipe[1]); close(stderrPipe[1])
        guard spawned == 0 else {
            close(stdinPipe[1]); close(stdoutPipe[0]); close(stderrPipe[0])
            return "cannot run \(shell.program): \(String(cString: strerror(spawned))) (install PostgreSQL's client: apt-get install postgresql-client)"
        }
        for fd in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        child = Child(pid: pid, input: stdinPipe[1], output: stdoutPipe[0], errors: stderrPipe[0])
        started += 1
        return nil
    }

    private func closeInput() {
        if let input = child?.input, input >= 0 {
            close(input)
            child?.input = -1
        }
    }

    /// Kills psql's process group (psql and what a wrapper of it started), and psql itself.
    static func kill(_ pid: pid_t) {
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Ends the child at once (a timeout, a cancel) and reaps it.
    private func stop(_ running: Child) {
        PostgresSession.kill(running.pid)
        closeInput()
        close(running.output); close(running.errors)
        var status: Int32 = 0
        while waitpid(running.pid, &status, 0) < 0 && errno == EINTR {}
        child = nil
    }

    /// Whether `script` ends its transaction: a line "COMMIT;" (the host's scripts write it so).
    static func commits(_ script: [UInt8]) -> Bool {
        let line = Array("COMMIT;".utf8)
        var start = 0
        for i in 0...script.count where i == script.count || script[i] == 0x0A {
            if i - start == line.count && script[start..<i].elementsEqual(line) { return true }
            start = i + 1
        }
        return false
    }

    /// The step: `script` and the marker written while psql's output is read (any size either way), until
    /// the marker comes back (the step is done; psql stays) or psql ends (`last`, or a failure).
    func step(_ script: [UInt8], last: Bool) -> PostgresShell.Outcome {
        let cancel = shell.cancel
        if cancel?.isFired == true { return PostgresShell.Outcome(problem: "cancelled", cancelled: true) }
        let commits = PostgresSession.commits(script)
        if child == nil {
            if let problem = launch() { return PostgresShell.Outcome(problem: problem) }
            // A script that commits waits for psql's connection first (an empty step: its marker comes back
            // once psql is connected and reading), so a COMMIT is said to be handed over only when psql was
            // connected to take it (b05: `init` stopped while psql was still connecting said "may have been
            // committed").
            if commits {
                let connected = step([], last: false)
                if connected.exitCode != 0 || connected.problem != nil { return connected }
            }
        }
        guard let running = child else { return PostgresShell.Outcome(problem: "psql did not start") }
        steps += 1
        let marker = Array("\(token)-\(steps)\n".utf8)
        var input = script
        if let end = input.last, end != 0x0A { input.append(0x0A) }
        // A lone ";" runs a statement the script left unterminated (psql would run it only after the marker),
        // and is nothing otherwise.
        input += Array(";\n\\echo ".utf8) + marker
        var outcome = PostgresShell.Outcome()
        var written = 0
        var writing = running.input >= 0
        var outputOpen = true, errorsOpen = true
        let deadline = Subprocess.monotonicMilliseconds() + Int64(shell.timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        var exited: Int32?
        func ended() -> Bool {
            let rest = outcome.standardOutput
            return rest.count >= marker.count && rest.suffix(marker.count).elementsEqual(marker)
                && (rest.count == marker.count || rest[rest.count - marker.count - 1] == 0x0A)
        }
        while outputOpen || errorsOpen {
            if !last && ended() { break }
            let remaining = deadline - Subprocess.monotonicMilliseconds()
            if remaining <= 0 {
                stop(running)
                outcome.timedOut = true
                outcome.problem = "psql did not finish within \(shell.timeoutMilliseconds / 1000) s and was stopped"
                return outcome
            }
            var fds: [pollfd] = []
            if outputOpen { fds.append(pollfd(fd: running.output, events: Int16(POLLIN), revents: 0)) }
            if errorsOpen { fds.append(pollfd(fd: running.errors, events: Int16(POLLIN), revents: 0)) }
            if writing { fds.append(pollfd(fd: running.input, events: Int16(POLLOUT), revents: 0)) }
            if let cancel, cancel.readEnd >= 0 { fds.append(pollfd(fd: cancel.readEnd, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 250)))
            if ready < 0 && errno != EINTR { break }
            if cancel?.isFired == true {
                stop(running)
                outcome.cancelled = true
                outcome.problem = "cancelled"
                return outcome
            }
            if ready == 0 {
                // psql (or a wrapper of it) gone while something it started still holds its pipes open.
                var status: Int32 = 0
                if waitpid(running.pid, &status, WNOHANG) == running.pid {
                    exited = status
                    break
                }
                continue
            }
            for f in fds where f.revents != 0 {
                if writing && f.fd == running.input {
                    let n = input.withUnsafeBytes { bytes -> Int in
                        guard let base = bytes.baseAddress else { return 0 }
                        return write(running.input, base + written, min(bytes.count - written, 1 << 20))
                    }
                    if n > 0 {
                        written += n
                        if commits && written >= input.count { outcome.commitSent = true }
                    }
                    if written >= input.count || (n < 0 && errno != EAGAIN && errno != EINTR) {
                        writing = false  // all written (stdin stays open for the next step) or psql stopped reading
                        if last || n < 0 { closeInput() }
                    }
                    continue
                }
                let n = buffer.withUnsafeMutableBytes { read(f.fd, $0.baseAddress, 65536) }
                if n > 0 {
                    if f.fd == running.output { outcome.standardOutput.append(contentsOf: buffer[0..<n]) } else { outcome.standardError.append(contentsOf: buffer[0..<n]) }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    if f.fd == running.output { outputOpen = false } else { errorsOpen = false }
                }
            }
        }
        if !last && ended() {
            outcome.standardOutput.removeLast(marker.count)
            outcome.exitCode = 0
            return outcome
        }
        // psql ended: its status says how.
        closeInput()
        close(running.output); close(running.errors)
        var status: Int32 = exited ?? 0
        if exited == nil { while waitpid(running.pid, &status, 0) < 0 && errno == EINTR {} }
        child = nil
        if last && ended() { outcome.standardOutput.removeLast(marker.count) }
        let signaled = (status & 0x7F) != 0
        outcome.exitCode = signaled ? -1 : (status >> 8) & 0xFF
        if signaled { outcome.signal = status & 0x7F }
        if !last && !signaled && outcome.exitCode == 0 {
            outcome.problem = "psql ended before it had run the whole script"
        }
        return outcome
    }
}
