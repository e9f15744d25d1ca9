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
    /// psql's whole complaint (its standard error), when it said one.
    public var detail = ""
    /// True when psql was stopped or lost its connection after the whole step, its COMMIT included, had been
    /// handed to it: the server may have committed it (its reply lost). The caller asks again or says so.
    public var commitUnknown = false
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
        shown = PostgresTarget.withoutPassword(url)
    }

    /// `url` as messages show it: a password in its user part or its parameters replaced by "…".
    static func withoutPassword(_ url: String) -> String {
        var text = Substring(url)
        var query = ""
        if let mark = text.firstIndex(of: "?") {
            query = text[text.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                let name = SiteFederation.percentDecoded(String(pair.prefix { $0 != "=" })).lowercased()
                return name.contains("password") ? name + "=…" : String(pair)
            }.joined(separator: "&")
            text = text[..<mark]
        }
        if let scheme = text.firstRange(of: "://") {
            let rest = text[scheme.upperBound...]
            let authority = rest.prefix { $0 != "/" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                text = text[..<scheme.upperBound] + authority[..<colon] + ":…" + rest[at...]
            }
        }
        return String(text) + (url.contains("?") ? "?" + query : "")
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
    /// How long one step (a script, a batch of a push) may wait for psql to finish it; then psql is killed.
    public var timeoutMilliseconds: Int
    /// libpq's connect_timeout, given to psql as PGCONNECT_TIMEOUT (a connect_timeout in the URL or the
    /// service file wins over it). Nil: PGCONNECT_TIMEOUT from the environment when set, else
    /// `defaultConnectTimeoutSeconds`.
    public var connectTimeoutSeconds: Int?
    /// Where the two timeouts are set, for messages (a site's federation block), or nil.
    public var timeoutSettings: (connect: String, step: String)?
    /// When set and fired, the running psql is killed and the run fails (`FederationError.cancelled`).
    public var cancel: PostgresCancel?

    /// A server that accepts a connection and never answers is given up after this long.
    public static let defaultConnectTimeoutSeconds = 10

    public init(target: PostgresTarget, program: String = FileSystem.environment("CLUBHOUSE_PSQL") ?? "psql", timeoutMilliseconds: Int = 120_000,
                connectTimeoutSeconds: Int? = nil) {
        self.target = target
        self.program = program
        self.timeoutMilliseconds = timeoutMilliseconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        Signals.ignoreBrokenPipes()  // psql can end while its script is written: EPIPE, never SIGPIPE
    }

    /// A site's federation as its push and pull reach it: its timeouts (`connect_timeout_seconds`,
    /// `step_timeout_seconds`) from its block.
    public init(_ federation: SiteFederation) {
        self.init(target: PostgresTarget(federation), timeoutMilliseconds: federation.stepTimeoutSeconds * 1_000,
                  connectTimeoutSeconds: federation.connectTimeoutSeconds)
        timeoutSettings = ("connect_timeout_seconds of the site's \"federation\" in plugins.json",
                           "step_timeout_seconds of the site's \"federation\" in plugins.json")
    }

    /// The connect timeout psql is given, in seconds.
    var effectiveConnectTimeout: Int {
        if let connectTimeoutSeconds { return connectTimeoutSeconds }
        if let given = FileSystem.environment("PGCONNECT_TIMEOUT").flatMap({ Int($0) }) { return given }
        return PostgresShell.defaultConnectTimeoutSeconds
    }

    /// psql's environment: this process's, with PGCONNECT_TIMEOUT set (`connectTimeoutSeconds`).
    func childEnvironment() -> [String] {
        ChildEnvironment.entries(passing: { _ in true }, adding: ["PGCONNECT_TIMEOUT": "\(effectiveConnectTimeout)"])
    }

    /// Runs `script` (SQL, with COPY data inline) in a psql of its own; stops at the first error.
    /// Returns stdout. (Many steps against one server: `session`.)
    @discardableResult
    public func run(_ script: [UInt8], csv: Bool = false) throws(FederationError) -> [UInt8] {
        let session = PostgresSession(self, csv: csv)
        return try session.run(script, last: true)
    }

    /// A psql kept for many steps (one connection, one backend): `PostgresSession`.
    public func session() -> PostgresSession { PostgresSession(self, csv: true) }

    /// The one-line error of a psql step that did not succeed, or nil.
    func failure(_ result: Outcome) -> FederationError? {
        if result.cancelled {
            var error = FederationError("\(target.shown): psql was stopped (cancelled)" + (result.commitSent ? "; " + PostgresShell.commitUnknownText : ""),
                                        unreachable: true, cancelled: true)
            error.commitUnknown = result.commitSent
            return error
        }
        if result.timedOut {
            let setting = timeoutSettings.map { " (\($0.step))" } ?? ""
            var error = FederationError("\(target.shown): no answer within \(timeoutMilliseconds / 1000) s\(setting), so psql was stopped"
                                        + (result.commitSent ? "; " + PostgresShell.commitUnknownText : " before its COMMIT was sent, so nothing of its transaction was committed"), unreachable: true)
            error.commitUnknown = result.commitSent
            return error
        }
        if let problem = result.problem { return FederationError("\(target.shown): \(problem)", unreachable: true) }
        if let signal = result.signal {
            // Killed (the OOM killer, an operator's kill): whatever its transaction held was rolled back.
            var error = FederationError("\(target.shown): psql ended by signal \(signal) (\(String(cString: strsignal(signal)))) before it finished"
                                        + (result.commitSent ? "; " + PostgresShell.commitUnknownText : "; its COMMIT was never sent, so nothing of it was kept"), unreachable: true, killed: true)
            error.commitUnknown = result.commitSent
            return error
        }
        guard result.exitCode == 0 else {
            // psql exits 2 when the connection failed or was lost, 3 when a statement failed.
            var said = PostgresShell.firstError(result.standardError)
            if result.exitCode == 2 && said.hasSuffix("timeout expired") {
                // libpq's connect_timeout: the server took the connection (or nothing answered) and never answered.
                said += " (no answer within \(effectiveConnectTimeout) s: \(timeoutSettings?.connect ?? "PGCONNECT_TIMEOUT, or connect_timeout in the URL or service"))"
            }
            var error = FederationError("\(target.shown): \(said)", unreachable: result.exitCode == 2)
            error.detail = String(decoding: result.standardError.prefix(1 << 16), as: UTF8.self)
            // psql exits 2 when the connection was lost: after the COMMIT was handed to it, the server may have
            // committed (its reply lost). Exit 3 is a statement that failed: the server rolled back.
            if result.exitCode == 2 && result.commitSent {
                error.commitUnknown = true
                error.message += "; " + PostgresShell.commitUnknownText
            }
            return error
        }
        return nil
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
        /// Killed because the step's deadline passed.
        var timedOut = false
        /// The signal that ended psql, when one did (and it was not ours).
        var signal: Int32?
        /// The step's script ends its transaction (COMMIT) and was handed to psql whole: when it then fails,
        /// the server may have committed it.
        var commitSent = false
    }

    /// What a failure after the COMMIT was sent says (the eighth outside attack, a06/a24: "nothing was
    /// committed" was said of a transaction the server had committed, its reply lost).
    static let commitUnknownText = "its COMMIT had been handed to psql and the server did not confirm it, so it may have been committed"
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
        let shell = PostgresShell(target: PostgresTarget(url: url), timeoutMilliseconds: 600_000)
        do { try shell.run(script) } catch {
            print(error.message)
            return false
        }
        return true
    }
}
