// Interactive mode's decisions, as a pure state machine over timestamped court positions: when to
// launch, which positions to average, and which zone that gives.

/// A court position at a detection time.
public struct TimedPosition: Sendable, Equatable, Codable {
    public var t: Double
    public var court: Point2D

    public init(t: Double, court: Point2D) {
        self.t = t
        self.court = court
    }
}

/// What to do at one launch time.
public struct LaunchDecision: Sendable, Equatable, Codable {
    /// 1-based launch number.
    public var index: Int
    /// Detection-clock time of the launch.
    public var time: Double
    /// Positions inside the averaging window.
    public var positions: Int
    /// Weighted average of those positions (nil with fewer than the minimum).
    public var average: Point2D?
    /// Zone of the average (nil when skipped).
    public var zone: Int?
    /// Why nothing is sent, when nothing is.
    public var skipReason: String?
}

/// Launch planning for interactive sessions. Launches fall at `t0 + k · interval` (k = 1, 2, …) where
/// `t0` is the first position's time. At each launch the positions of the last
/// `min(0.8 · interval, 2 s)` (times in `[T − window, T]`) are averaged with weights 1…n, oldest
/// lightest; with fewer than `minimumPositions` the launch is skipped. The average's zone is the target.
public struct LaunchPlanner: Sendable {
    public static let intervalRange: ClosedRange<Double> = 2...9
    public static let defaultInterval = 3.0

    public let interval: Double
    public let minimumPositions: Int
    public var window: Double { min(0.8 * interval, 2) }

    private var origin: Double?
    private var nextIndex = 1
    private var buffer: [TimedPosition] = []
    private var lastTime: Double?

    public init(interval: Double = LaunchPlanner.defaultInterval, minimumPositions: Int = 3) throws(CommandError) {
        guard interval.isFinite, LaunchPlanner.intervalRange.contains(interval) else {
            throw .invalidInterval(Format.number(interval))
        }
        self.interval = interval
        self.minimumPositions = max(1, minimumPositions)
    }

    /// Time of the next launch (nil before the first position).
    public var nextLaunchTime: Double? { origin.map { $0 + Double(nextIndex) * interval } }

    /// Adds a position and returns the launches that fell strictly before it (their windows are now
    /// complete). Positions must come in time order; an earlier one is ignored and reported as nil.
    public mutating func add(_ p: TimedPosition) -> [LaunchDecision]? {
        if let last = lastTime, p.t < last { return nil }
        if origin == nil { origin = p.t }
        let due = launches(before: p.t, inclusive: false)
        buffer.append(p)
        lastTime = p.t
        prune()
        return due
    }

    /// Launches due up to and including `time` (the end of the stream, or the current time of a live feed).
    public mutating func advance(to time: Double) -> [LaunchDecision] {
        launches(before: time, inclusive: true)
    }

    private mutating func launches(before time: Double, inclusive: Bool) -> [LaunchDecision] {
        var out: [LaunchDecision] = []
        func due(_ t: Double) -> Bool { inclusive ? t <= time : t < time }
        while let next = nextLaunchTime, due(next) {
            var decision = decide(at: next)
            nextIndex += 1
            // Every buffered position is at or before this launch, so an empty window means every
            // later launch before `time` is empty too: report them once instead of one by one (a
            // feed that pauses for hours must not produce millions of skips).
            if decision.positions == 0, let origin {
                var last = nextIndex - 1
                let estimate = ((time - origin) / interval).rounded(.down)
                if estimate.isFinite, estimate < 1e15 { last = max(last, Int(estimate) - 1) }
                while due(origin + Double(last + 1) * interval) { last += 1 }
                while last >= nextIndex, !due(origin + Double(last) * interval) { last -= 1 }
                let more = last - nextIndex + 1
                if more > 0 {
                    nextIndex += more
                    decision.skipReason = (decision.skipReason ?? "") + "; \(more) more launch(es) skipped until the player was seen again"
                }
            }
            out.append(decision)
        }
        return out
    }

    private func decide(at time: Double) -> LaunchDecision {
        let lower = time - window
        let inWindow = buffer.filter { $0.t >= lower && $0.t <= time }
        var decision = LaunchDecision(index: nextIndex, time: time, positions: inWindow.count)
        guard inWindow.count >= minimumPositions else {
            decision.skipReason = "only \(inWindow.count) position(s) in the last \(Format.number(window)) s, need \(minimumPositions)"
            return decision
        }
        var sx = 0.0, sy = 0.0, sw = 0.0
        for (i, p) in inWindow.enumerated() {
            let w = Double(i + 1)
            sx += w * p.court.x
            sy += w * p.court.y
            sw += w
        }
        let average = Point2D(sx / sw, sy / sw)
        decision.average = average
        decision.zone = CourtZones.zone(at: average)
        if decision.zone == nil {
            decision.skipReason = "average position \(average.rounded(3)) is outside the half court"
        }
        return decision
    }

    private mutating func prune() {
        guard let next = nextLaunchTime else { return }
        let keepFrom = next - window
        if let firstKept = buffer.firstIndex(where: { $0.t >= keepFrom }), firstKept > 0 {
            buffer.removeFirst(firstKept)
        }
    }
}

extension Point2D {
    func rounded(_ decimals: Int) -> String { "(\(Format.fixed(x, decimals)), \(Format.fixed(y, decimals)))" }
}
