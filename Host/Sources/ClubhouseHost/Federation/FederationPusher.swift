// `serve`'s background push (issue 34): while `clubhouse serve` runs for a site with a "federation"
// block, one thread of its own ships what waits in the site's outboxes (FederationPush, the same engine
// as `clubhouse federation push`):
//
//   - soon after a commit that published records (OutboxCommits; a short window gathers a burst of
//     commits into one push), and every `push_every_seconds` besides (records other processes of the
//     site published: the command line, a second serve);
//   - while the federation is away (or refuses), with exponential back-off and jitter: 1 s, 2 s, 4 s, …
//     up to `retry_max_seconds`, each wait a random 50–100 % of its step, so clubs cut off together do
//     not come back together; commits do not shorten a back-off;
//   - one log line per change of state (the federation went away, with psql's reason; it is back, with
//     what was caught up), never one per retry;
//   - `stop()` (serve's shutdown) kills a psql that is running (a hung server never holds serve up) and
//     waits a bounded time for the thread. A batch cut short is not marked shipped: the next push sends it
//     again and the federation keeps one copy (FederationPush.send).

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: the mutable state (`due`, `stopping`, `failures`, `running`) is
/// read and written holding `lock`; the rest is immutable after init.
public final class FederationPusher: @unchecked Sendable {
    public struct Timing: Sendable {
        /// After a commit, how long to gather further commits into the same push.
        public var gatherMilliseconds: Int64 = 500
        /// A push this often even without a commit.
        public var everyMilliseconds: Int64
        /// The first wait after a failure; doubled per failure up to `retryMaxMilliseconds`.
        public var firstRetryMilliseconds: Int64 = 1_000
        public var retryMaxMilliseconds: Int64

        public init(_ federation: SiteFederation) {
            everyMilliseconds = Int64(federation.pushEverySeconds) * 1_000
            retryMaxMilliseconds = Int64(federation.retryMaxSeconds) * 1_000
        }

        /// The wait after the `failures`-th failure in a row (1, 2, …): the step doubled per failure, capped,
        /// then a random 50–100 % of it (`random`: 0..<1).
        public func retryDelay(failures: Int, random: Double) -> Int64 {
            var step = max(1, firstRetryMilliseconds)
            for _ in 1..<max(1, min(failures, 40)) where step < retryMaxMilliseconds { step *= 2 }
            step = min(step, retryMaxMilliseconds)
            return max(1, Int64(Double(step) * (0.5 + 0.5 * min(max(random, 0), 1))))
        }
    }

    private let push: FederationPush
    private let timing: Timing
    private let say: @Sendable (String) -> Void
    private let cancel = PostgresCancel()
    private let lock = Lock()
    private let wake = Semaphore()
    private let finished = Semaphore()
    private var due: Int64 = 0
    private var stopping = false
    private var running = false
    private var failures = 0

    /// `say` gets the one-line state changes (serve logs them as warnings).
    /// psql's timeouts are the federation block's (`connect_timeout_seconds`, `step_timeout_seconds`).
    public init(federation: SiteFederation, siteName: String, siteFolder: String, timing: Timing? = nil,
                say: @escaping @Sendable (String) -> Void) {
        var shell = PostgresShell(federation)
        shell.cancel = cancel
        push = FederationPush(shell: shell, federation: federation, siteName: siteName, siteFolder: siteFolder)
        self.timing = timing ?? Timing(federation)
        self.say = say
    }

    /// Starts the thread; the first push comes at once (what waited while serve was down). Throws when
    /// the thread would not start (nothing is pushed then; the outbox keeps every record for later).
    public func start() throws(ThreadStartError) {
        let first = lock.withLock { () -> Bool in
            defer { running = true }
            return !running && !stopping
        }
        guard first else { return }
        do throws(ThreadStartError) {
            try Thread.start { [self] in loop() }
        } catch {
            lock.withLock { running = false }
            throw error
        }
    }

    /// A commit published records: push soon (not sooner than the back-off while the federation is away).
    public func committed() {
        let now = Subprocess.monotonicMilliseconds()
        let woken = lock.withLock { () -> Bool in
            guard failures == 0, due > now + timing.gatherMilliseconds else { return false }
            due = now + timing.gatherMilliseconds
            return true
        }
        if woken { wake.signal() }
    }

    /// Stops pushing: kills a running psql, waits up to `milliseconds` for the thread.
    public func stop(within milliseconds: Int = 5_000) {
        let wasRunning = lock.withLock { () -> Bool in
            stopping = true
            return running
        }
        cancel.fire()
        wake.signal()
        if wasRunning { _ = finished.wait(milliseconds: milliseconds) }
    }

    private func loop() {
        defer { finished.signal() }
        while true {
            let wait = lock.withLock { () -> Int64? in
                stopping ? nil : due - Subprocess.monotonicMilliseconds()
            }
            guard let wait else { return }
            if wait > 0 {
                _ = self.wake.wait(milliseconds: Int(min(wait, 3_600_000)))
                continue
            }
            attempt()
        }
    }

    private func attempt() {
        let outcome: Result<FederationPush.Report, FederationError>
        // Nothing to ship while all is well: the server is not bothered. While it is away, the retry
        // goes ahead whatever waits (it is how the pusher learns that the server is back).
        if lock.withLock({ failures == 0 }) && push.nothingWaits() {
            lock.withLock { due = Subprocess.monotonicMilliseconds() + timing.everyMilliseconds }
            return
        }
        do { outcome = .success(try push.run()) } catch { outcome = .failure(error) }
        let now = Subprocess.monotonicMilliseconds()
        let line = lock.withLock { () -> String? in
            if stopping { return nil }
            switch outcome {
            case .success(let report):
                let wasAway = failures > 0
                failures = 0
                due = now + timing.everyMilliseconds
                guard wasAway else { return nil }
                return "federation: \(push.shell.target.shown) is reachable again; caught up \(report.shipped) record\(report.shipped == 1 ? "" : "s") of site '\(push.siteName)'"
            case .failure(let error):
                if error.cancelled { return nil }
                failures += 1
                let random = Double(SecureRandom.bytes(2).map { Int($0[0]) << 8 | Int($0[1]) }.get(or: 0x8000)) / 65_536
                let delay = timing.retryDelay(failures: failures, random: random)
                due = now + delay
                guard failures == 1 else { return nil }
                return "federation: background push of site '\(push.siteName)' failed: \(error.message); retrying with back-off (at most every \(timing.retryMaxMilliseconds / 1_000) s), nothing is lost"
            }
        }
        if let line { say(line) }
    }
}

extension Result {
    fileprivate func get(or fallback: Success) -> Success {
        if case .success(let value) = self { return value }
        return fallback
    }
}
