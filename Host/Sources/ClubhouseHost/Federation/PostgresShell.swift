// PostgreSQL's own client as the host's driver: `psql` (Debian's postgresql-client) run as a child
// process, never a linked library (the product links none). Scripts go in on stdin (`-f -`, so
// `COPY … FROM STDIN` data follows its statement inline), results come back as CSV (`--csv -t`).
// Connection settings are psql's own: a service name (pg_service.conf) or a URL; passwords come from
// ~/.pgpass, PGPASSFILE or the service file, never from the host (`--no-password`: never a prompt).

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Why talking to PostgreSQL failed: one line (psql's own message, trimmed).
public struct FederationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// True when psql never reached the server (connection refused, authentication, no psql).
    public var unreachable = false
    /// The exit code the CLI uses (1: the world failed; 2: the request is wrong).
    public var isRequestError = false
    /// True when the run was stopped by its `PostgresCancel`.
    public var cancelled = false
    /// True when psql was killed by a signal not of ours (the server may well be there).
    public var killed = false
    public var description: String { message }

    public init(_ message: String, unreachable: Bool = false, isRequestError: Bool = false, cancelled: Bool = false, killed: Bool = false) {
        self.message = message
        self.killed = killed
        self.unreachable = unreachable
        self.isRequestError = isRequestError
        self.cancelled = cancelled
    }
}

/// Where a federation is: psql's connection string for a service name or a URL.
public struct PostgresTarget: Sendable, Equatable {
    public var conninfo: String
    /// What messages call it ("service clubfed", "postgresql://…").
    public var shown: String

    public init(service: String) {
        conninfo = "service=\(service)"
        shown = "service '\(service)'"
    }

    public init(url: String) {
        conninfo = url
        shown = url
    }

    public init(_ federation: SiteFederation) {
        if let service = federation.service { self.init(service: service) } else { self.init(url: federation.url ?? "") }
    }
}

/// Stops the psql a shell is running, at once (serve's background push when serve stops: its shutdown
/// never waits on a hung server). Once fired it stays fired: later runs fail straight away.
/// @unchecked Sendable: the pipe's descriptors are set once in init; `fired` is read and written
/// holding `lock`.
public final class PostgresCancel: @unchecked Sendable {
    private let lock = Lock()
    private var fired = false
    /// Readable once fired (the spawn loop polls it beside psql's pipes).
    let readEnd: Int32
    private let writeEnd: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        if Subprocess.makePipe(&fds) {
            readEnd = fds[0]
            writeEnd = fds[1]
        } else {
            readEnd = -1
            writeEnd = -1
        }
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    public var isFired: Bool { lock.withLock { fired } }

    public func fire() {
        let first = lock.withLock { () -> Bool in
            defer { fired = true }
            return !fired
        }
        if first && writeEnd >= 0 {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
    }
}

public struct PostgresShell: Sendable {
    public var target: PostgresTarget
    /// The psql program (PATH lookup when not a path).
    public var program: String
    public var timeoutMilliseconds: Int
    /// When set and fired, the running psql is killed and the run fails (`FederationError.cancelled`).
    public var cancel: PostgresCancel?

    public init(target: PostgresTarget, program: String = FileSystem.environment("CLUBHOUSE_PSQL") ?? "psql", timeoutMilliseconds: Int = 120_000) {
        self.target = target
        self.program = program
        self.timeoutMilliseconds = timeoutMilliseconds
        Signals.ignoreBrokenPipes()  // psql can end while its script is written: EPIPE, never SIGPIPE
    }

    /// Runs `script` (SQL, with COPY data inline) in one psql session; stops at the first error.
    /// Returns stdout.
    @discardableResult
    public func run(_ script: [UInt8], csv: Bool = false) throws(FederationError) -> [UInt8] {
        var arguments = ["-X", "-q", "--no-password", "-v", "ON_ERROR_STOP=1", "-d", target.conninfo, "-f", "-"]
        if csv { arguments += ["--csv", "-t"] }
        let result = PostgresShell.spawn(program, arguments, input: script, timeoutMilliseconds: timeoutMilliseconds, cancel: cancel)
        if result.cancelled { throw FederationError("\(target.shown): psql was stopped (the push was cancelled)", unreachable: true, cancelled: true) }
        if let problem = result.problem { throw FederationError("\(target.shown): \(problem)", unreachable: true) }
        if let signal = result.signal {
            // Killed (the OOM killer, an operator's kill): whatever its transaction held was rolled back.
            throw FederationError("\(target.shown): psql ended by signal \(signal) (\(String(cString: strsignal(signal)))) before it finished; its transaction was not committed, so nothing of it was kept", unreachable: true, killed: true)
        }
        guard result.exitCode == 0 else {
            let said = PostgresShell.firstError(result.standardError)
            // psql exits 2 when the connection failed or was lost, 3 when a statement failed.
            throw FederationError("\(target.shown): \(said)", unreachable: result.exitCode == 2)
        }
        return result.standardOutput
    }

    public func run(_ script: String) throws(FederationError) { try run(Array(script.utf8)) }

    /// The rows of a query, as CSV fields.
    public func query(_ sql: String) throws(FederationError) -> [[String]] {
        CSVRows.parse(try run(Array(sql.utf8), csv: true))
    }

    /// The first line of psql's complaint that says something ("psql: error: … FATAL: …", "ERROR: …"),
    /// with its prefixes trimmed.
    static func firstError(_ bytes: [UInt8]) -> String {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { $0.trimmedForMessage() }
        let pick = lines.first { $0.contains("ERROR:") || $0.contains("FATAL:") || $0.contains("error:") } ?? lines.first ?? "psql failed without a message"
        var text = pick
        for prefix in ["psql:<stdin>:", "psql: error: "] where text.hasPrefix(prefix) {
            text = String(text.dropFirst(prefix.count))
        }
        // "psql:<stdin>:12: ERROR:  …" → "ERROR: …"
        if let range = text.firstRange(of: "ERROR:") { text = "ERROR:" + text[range.upperBound...] }
        return text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    struct Outcome {
        var exitCode: Int32 = -1
        var standardOutput: [UInt8] = []
        var standardError: [UInt8] = []
        /// Why psql could not run or finish (not found, timed out), or nil.
        var problem: String?
        /// Killed because its `PostgresCancel` fired.
        var cancelled = false
        /// The signal that ended psql, when one did (and it was not ours).
        var signal: Int32?
    }

    /// Runs `program` with `input` written to its stdin while its output is read (any size either way).
    static func spawn(_ program: String, _ arguments: [String], input: [UInt8], timeoutMilliseconds: Int,
                      cancel: PostgresCancel? = nil) -> Outcome {
        if cancel?.isFired == true { return Outcome(problem: "cancelled", cancelled: true) }
        var stdinPipe: [Int32] = [-1, -1], stdoutPipe: [Int32] = [-1, -1], stderrPipe: [Int32] = [-1, -1]
        guard Subprocess.makePipe(&stdinPipe), Subprocess.makePipe(&stdoutPipe), Subprocess.makePipe(&stderrPipe) else {
            return Outcome(problem: "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        _ = Descriptor.closeInChild(&actions, from: 3)
        let argv = ([program] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var argvPointers = argv + [nil]
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, program, &actions, nil, &argvPointers, environ)
        close(stdinPipe[0]); close(stdoutPipe[1]); close(stderrPipe[1])
        guard spawned == 0 else {
            close(stdinPipe[1]); close(stdoutPipe[0]); close(stderrPipe[0])
            return Outcome(problem: "cannot run \(program): \(String(cString: strerror(spawned))) (install PostgreSQL's client: apt-get install postgresql-client)")
        }
        var outcome = Outcome()
        var writing: Int32 = stdinPipe[1]
        _ = fcntl(writing, F_SETFL, fcntl(writing, F_GETFL) | O_NONBLOCK)
        var written = 0
        if input.isEmpty { close(writing); writing = -1 }
        var reading = [stdoutPipe[0], stderrPipe[0]]
        let deadline = Subprocess.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !reading.isEmpty || writing >= 0 {
            let remaining = deadline - Subprocess.monotonicMilliseconds()
            if remaining <= 0 {
                kill(pid, SIGKILL)
                outcome.problem = "psql did not finish within \(timeoutMilliseconds / 1000) s and was stopped"
                break
            }
            var fds = reading.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if writing >= 0 { fds.append(pollfd(fd: writing, events: Int16(POLLOUT), revents: 0)) }
            if let cancel, cancel.readEnd >= 0 { fds.append(pollfd(fd: cancel.readEnd, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1000)))
            if ready < 0 && errno != EINTR { break }
            if cancel?.isFired == true {
                kill(pid, SIGKILL)
                outcome.cancelled = true
                outcome.problem = "cancelled"
                break
            }
            for f in fds where f.revents != 0 {
                if f.fd == writing {
                    let n = input.withUnsafeBytes { write(writing, $0.baseAddress! + written, min(input.count - written, 1 << 20)) }
                    if n > 0 { written += n }
                    if written >= input.count || (n < 0 && errno != EAGAIN && errno != EINTR) {
                        close(writing)
                        writing = -1
                    }
                    continue
                }
                let n = buffer.withUnsafeMutableBytes { read(f.fd, $0.baseAddress, 65536) }
                if n > 0 {
                    if f.fd == stdoutPipe[0] { outcome.standardOutput.append(contentsOf: buffer[0..<n]) } else { outcome.standardError.append(contentsOf: buffer[0..<n]) }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    reading.removeAll { $0 == f.fd }
                }
            }
        }
        if writing >= 0 { close(writing) }
        close(stdoutPipe[0]); close(stderrPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signaled = (status & 0x7F) != 0
        outcome.exitCode = signaled ? -1 : (status >> 8) & 0xFF
        if signaled && outcome.problem == nil { outcome.signal = status & 0x7F }
        return outcome
    }
}

/// RFC 4180 rows as psql --csv writes them.
enum CSVRows {
    static func parse(_ bytes: [UInt8]) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var i = 0
        var any = false
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == 0x22 {
                    if i + 1 < bytes.count && bytes[i + 1] == 0x22 { field.append(0x22); i += 1 } else { quoted = false }
                } else {
                    field.append(b)
                }
            } else if b == 0x22 {
                quoted = true
                any = true
            } else if b == 0x2C {
                row.append(String(decoding: field, as: UTF8.self))
                field = []
                any = true
            } else if b == 0x0A {
                row.append(String(decoding: field, as: UTF8.self))
                rows.append(row)
                row = []
                field = []
                any = false
            } else if b != 0x0D {
                field.append(b)
                any = true
            }
            i += 1
        }
        if any || !field.isEmpty {
            row.append(String(decoding: field, as: UTF8.self))
            rows.append(row)
        }
        return rows
    }
}

extension Substring {
    fileprivate func trimmedForMessage() -> String {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}

extension PostgresShell {
    /// Runs `script` through psql at `url` (the benchmark's raw COPY, the peer of a push); true when it
    /// succeeded.
    public static func spawnForBenchmark(_ url: String, _ script: [UInt8]) -> Bool {
        let outcome = spawn(FileSystem.environment("CLUBHOUSE_PSQL") ?? "psql",
                            ["-X", "-q", "--no-password", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", "-"], input: script,
                            timeoutMilliseconds: 600_000)
        if outcome.exitCode != 0 { print(String(decoding: outcome.standardError, as: UTF8.self)) }
        return outcome.exitCode == 0
    }
}
