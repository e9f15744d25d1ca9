// The wall-clock bound of one call to a runner, asked by both loops that wait for one: IsolatedPlugin's on
// the pipes and SideLane's on the second lane. At `limits.wall_ms` the call is cancelled (however chatty it
// keeps the wire: a reply or a progress report renews the silence bound, never this one); a call that has
// not ended within the cleanup grace (CallContext.cleanupGraceMilliseconds) after that is stopped. On the
// second lane a cancel from the caller starts the grace as well (a concurrent command is short by
// declaration); on the pipes a cancelled call keeps its silence bound and the wall. The grace runs from
// the wall itself, even when the loop was held in a service the whole time (issue 27, n02/n11): the
// runner is stopped at wall + grace, or up to 1 s after its last service answer, never later.

/// One call's wall clock and cleanup grace, in monotonic milliseconds (Subprocess.monotonicMilliseconds).
struct CallDeadline {
    enum Event: Equatable {
        /// The wall-clock limit was reached just now: cancel the call.
        case wallReached
        /// The grace after the cancel is over and the call has not ended: stop the runner.
        case stop
    }

    let wallMilliseconds: Int
    private let wallAt: Int64
    /// Whether a cancel from the caller, not only the wall, starts the grace.
    private let graceAfterAnyCancel: Bool
    private var graceFrom: Int64?
    /// When the loop last answered a service call of the runner: a call held in a service until its grace
    /// ended (a device read, a nested invoke, a statement) gets `returnMargin` after the answer to return,
    /// once — never past the grace plus that margin (a plugin cannot extend it with more service calls).
    private var servedAt: Int64 = .min
    static let returnMarginMilliseconds: Int64 = 1_000
    /// The call ran into its wall-clock limit.
    private(set) var pastWall = false

    init(wallMilliseconds: Int, startedAt: Int64, graceAfterAnyCancel: Bool) {
        self.wallMilliseconds = wallMilliseconds
        wallAt = startedAt + Int64(wallMilliseconds)
        self.graceAfterAnyCancel = graceAfterAnyCancel
    }

    /// What the loop does at `now`, asked once a round; `cancelled`: the caller cancelled the call.
    mutating func advance(now: Int64, cancelled: Bool) -> Event? {
        if !pastWall && now >= wallAt {
            pastWall = true
            // The grace runs from the wall, not from when the loop noticed it: a loop that was held in a
            // service for the call (a nested invoke, a device read) stops the runner at wall + grace.
            if graceFrom == nil || !graceAfterAnyCancel { graceFrom = min(now, wallAt) }
            return .wallReached
        }
        if cancelled && graceAfterAnyCancel && graceFrom == nil { graceFrom = now }
        if let end = graceEnd, now >= end { return .stop }
        return nil
    }

    /// The loop answered a service call at `now`.
    mutating func noteServed(now: Int64) { servedAt = now }

    /// When the runner is stopped, once the grace has started.
    private var graceEnd: Int64? {
        guard let from = graceFrom else { return nil }
        let end = from + Int64(CallContext.cleanupGraceMilliseconds)
        let margin = CallDeadline.returnMarginMilliseconds
        return max(end, min(servedAt == .min ? end : servedAt + margin, end + margin))
    }

    /// Milliseconds from `now` to the next event (at least 1): the longest a wait may last.
    func untilNext(_ now: Int64) -> Int64 {
        var next = pastWall ? Int64.max : wallAt
        if let end = graceEnd { next = min(next, end) }
        return max(1, next - now)
    }
}
