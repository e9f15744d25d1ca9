// A crash loop's back-off for an isolated plugin (RELIABILITY.md, "A plugin that crashes in a loop").
// The first runner that ends is restarted at once; when the runner started in its place ends too
// before it has run for `restart_backoff_ms`, the next start waits 10 ms, then 20, 40 … up to
// `restart_backoff_ms` (1 s by default). A runner that ran that long before it ended starts a new
// count. So a plugin that crashes on every call is restarted at most about once per
// `restart_backoff_ms`, whoever calls it and however fast, while a plugin that crashes now and then is
// restarted at once, as before. systemd's `RestartSec=` with `RestartSteps=`/`RestartMaxDelaySec=`
// (a delay that grows toward a cap) is the model; its `StartLimitBurst=` and Erlang's supervisor
// intensity give up for good instead, which a server whose plugin may be fixed by a retry should not.
//
// Uptime, not a successful call, ends a count: a client that alternates a crashing call with one that
// succeeds would otherwise restart the runner every other call with no pause at all.

struct CrashLoop: Sendable {
    /// Runners in a row that ended within `restart_backoff_ms` of starting (the last one included).
    private(set) var count = 0
    private var startedAt: Int64 = 0
    private var endedAt: Int64 = 0
    private var lastCause = ""
    /// The pause after the second runner in a row that ended soon; it doubles with each one after.
    static let firstPauseMilliseconds = 10

    /// A runner started at `now` (monotonic milliseconds).
    mutating func started(at now: Int64) { startedAt = now }

    /// A runner ended at `now` because of `cause`: returns the pause before the next one may start.
    @discardableResult
    mutating func ended(at now: Int64, cause: String, maximum: Int) -> Int {
        if count > 0, now - startedAt >= Int64(maximum) { count = 0 }
        count += 1
        endedAt = now
        lastCause = cause
        return Self.pause(after: count, maximum: maximum)
    }

    /// The pause after `count` runners in a row ended soon: none for the first, then 10 ms doubling
    /// up to `maximum` (0 turns the back-off off).
    static func pause(after count: Int, maximum: Int) -> Int {
        guard count >= 2, maximum > 0 else { return 0 }
        return min(maximum, firstPauseMilliseconds << min(count - 2, 20))
    }

    /// The monotonic time in milliseconds before which the next runner must not start.
    func restartAllowed(maximum: Int) -> Int64 { endedAt + Int64(Self.pause(after: count, maximum: maximum)) }

    /// "its runner ended 4 times in a row soon after starting (the last: crashed …)".
    var summary: String { "its runner ended \(count) times in a row soon after starting (the last: \(lastCause))" }
}
