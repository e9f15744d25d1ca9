// Admission of plugin calls to serve's worker pool, shared by JSON-RPC (socket and stdio) and HTTP.
//
// Issue 27's attack round: a plugin that takes one call at a time (not thread-safe, or isolated:
// CallGates) made every call sent to it wait at its gate on a worker thread, so one client pipelining
// 60 long calls to such a plugin held every worker and nobody else was answered, not even
// `clubhouse.version`. Now:
// - A call for a busy plugin holds no thread: it waits in the plugin's lane (one per plugin alias
//   and reload: after `clubhouse.reload` the new instance has a lane of its own, as it has a gate of
//   its own, while the old one finishes its calls) and is started on a worker when the call ahead ends. A free plugin's call runs at once on
//   the thread that read it (no hand-off).
// - In a lane, clients take turns: the next call to start is the oldest of the client after the one
//   that ran last (round robin), so a second client's call to the busy plugin runs right after the
//   call now running, not after the first client's 60. A turn is one call, or a short run of one
//   client's quick calls (a burst: at most `burstCalls` calls begun within `burstNanoseconds` of the
//   first), so a client pipelining pings gets its answers in one write and sends its next requests
//   in one, as when its calls ran back to back on one thread before the lanes (issue 27's
//   restarting-serve benchmark); a long call always ends its client's turn.
// - The worker that ends a lane's call starts the next one itself (no hand-off, no wake-up), and
//   while a burst goes on its client's replies are held to go out together (`release` lets them
//   go when the burst ends; serve's loop writes held replies within its hold bound in any case).
// - Plugin calls run on at most `capacity` workers at once (the pool less one, with 2 workers or
//   more): one worker is always left for the built-in methods and for queuing calls.
// - A client may have `maxWaiting` calls waiting; one more is refused at once (busy), so a client is
//   never paused with its cancels unread behind them.
// - A waiting call that is cancelled (clubhouse.cancel, its client leaving, the server stopping) is
//   answered at once; one that waited `waitLimitMilliseconds` is refused, as a wait at a gate is.
//
// Lock order: `lock` is a leaf; nothing is called while it is held.

import ClubhouseABI
import ClubhouseHost
import ClubhousePlatform

/// @unchecked Sendable: every var below is guarded by `lock`.
final class PluginLanes: @unchecked Sendable {
    enum Admission {
        /// Run it now on this thread, then call `finished(lane:)`.
        case now
        /// It waits; `start` runs on a worker when its turn comes (or `refuse`, once).
        case waiting
        case refused(RuntimeError)
    }

    private struct Waiting {
        let ticket: UInt64
        let client: Int
        let alias: String
        let since: Int64
        let start: () -> Void
        let refuse: (RuntimeError) -> Void
        /// Lets the client's held replies go (its burst ended).
        let release: (() -> Void)?
    }

    /// Calls of one client that may run back to back in its turn (a burst)…
    static let burstCalls = 16
    /// …all begun within this long of the burst's first call: a long call ends the turn.
    static let burstNanoseconds: Int64 = 1_000_000

    /// One plugin's calls: how many run, and who waits, by client, in turn order.
    private final class Lane {
        var serialized = true
        var running = 0
        var waiting: [Int: [Waiting]] = [:]
        var turns: [Int] = []
        var count = 0
        var lastClient: Int?
        /// The turn of `lastClient`: when its first call began, and how many began since.
        var burstStart: Int64 = 0
        var burstLength = 0

        /// A new turn: `client`'s call begins now.
        func beginTurn(_ client: Int, now: Int64) {
            lastClient = client
            burstStart = now
            burstLength = 1
        }

        /// Whether the client whose turn it is may start another call now (it has one waiting and
        /// its burst is short in calls and time).
        func burstGoesOn(now: Int64) -> Bool {
            guard serialized, let client = lastClient, waiting[client] != nil else { return false }
            return burstLength < PluginLanes.burstCalls && now - burstStart < PluginLanes.burstNanoseconds
        }

        /// The next call to start: the next of the client whose turn it is while its burst goes on,
        /// else the oldest of the first client in turn, skipping the one that ran last.
        func next(now: Int64) -> Waiting? {
            if burstGoesOn(now: now), let client = lastClient, let oldest = waiting[client]?.first,
               let first = remove(ticket: oldest.ticket, client: client) {
                burstLength += 1
                return first
            }
            guard !turns.isEmpty else { return nil }
            let k = turns.count > 1 && turns[0] == lastClient ? 1 : 0
            let client = turns.remove(at: k)
            guard var queue = waiting.removeValue(forKey: client), !queue.isEmpty else { return next(now: now) }
            let first = queue.removeFirst()
            if !queue.isEmpty {
                waiting[client] = queue
                turns.append(client)
            }
            count -= 1
            beginTurn(client, now: now)
            return first
        }

        /// Removes in place (`waiting[client]?.remove`): a copy of the queue taken out first would share its
        /// storage with the dictionary, and the removal would then copy every waiting call (a retain of each
        /// closure) — per call started in a client's burst.
        func remove(ticket: UInt64, client: Int) -> Waiting? {
            guard let i = waiting[client]?.firstIndex(where: { $0.ticket == ticket }),
                  let found = waiting[client]?.remove(at: i) else { return nil }
            if waiting[client]?.isEmpty == true {
                waiting[client] = nil
                turns.removeAll { $0 == client }
            }
            count -= 1
            return found
        }
    }

    let pool: WorkerPool
    /// Plugin calls running at once.
    let capacity: Int
    /// Calls one client may have waiting.
    let maxWaiting: Int
    /// How long a call may wait for its plugin (as a call waits at a busy plugin's gate).
    let waitLimitMilliseconds: Int64
    private let lock = Lock()
    private var running = 0
    private var lanes: [String: Lane] = [:]
    /// Lanes with calls waiting, in the order they are offered a free worker.
    private var order: [String] = []
    private var tickets: [UInt64: (lane: String, client: Int)] = [:]
    private var waitingByClient: [Int: Int] = [:]
    private var nextTicket: UInt64 = 0
    private var sweepDue = false

    init(pool: WorkerPool, maxWaiting: Int = 128, waitLimitMilliseconds: Int64 = 120_000) {
        self.pool = pool
        capacity = max(1, pool.maxThreads - 1)
        self.maxWaiting = maxWaiting
        self.waitLimitMilliseconds = waitLimitMilliseconds
    }

    /// The lane of plugin `alias` after `generation` reloads (SiteRuntime.generation).
    static func lane(_ alias: String, generation: Int) -> String { generation == 0 ? alias : "\(alias)#\(generation)" }

    /// The lane of a call and whether it takes one call at a time: its plugin's lane, or, for a concurrent
    /// command of a plugin whose other calls take turns (`beside`: it runs on the runner's second lane,
    /// SideLane.swift), the plugin's second lane — a lane of its own, so such a call neither waits behind
    /// the plugin's queued calls (a Stop behind the next drill) nor holds a worker while another has the
    /// runner's second lane, which serves one at a time: a flood of them waits here, bounded per client
    /// and cancellable, as calls for a busy plugin do (SideLaneEndToEndTests).
    static func lane(_ alias: String, generation: Int, serialized: Bool, beside: Bool) -> (name: String, serialized: Bool) {
        let name = lane(alias, generation: generation)
        return beside ? ("\(name) (concurrent)", true) : (name, serialized)
    }

    /// Admits a call of `client` to plugin `alias` (`serialized`: it takes one call at a time) in its
    /// lane `lane`. When the answer is `.waiting`, `start` runs later on a worker — or `refuse` runs
    /// instead, once, at once when `context` is cancelled — and the lane is released after `start` by the
    /// lanes themselves; after `.now`, the caller runs the call and calls `finished(lane:)`.
    /// `release`: lets go of replies the client's calls held (`burstGoesOn`), called when its burst ends.
    func admit(lane name: String, alias: String, serialized: Bool, client: Int, context: CallContext,
               start: @escaping () -> Void, refuse: @escaping (RuntimeError) -> Void,
               release: (() -> Void)? = nil) -> Admission {
        let ticket = lock.withLock { () -> UInt64? in
            let lane = lanes[name] ?? Lane()
            lanes[name] = lane
            lane.serialized = serialized
            if lane.count == 0 && (!serialized || lane.running == 0) && running < capacity {
                lane.running += 1
                running += 1
                lane.beginTurn(client, now: Subprocess.monotonicNanoseconds())
                return nil
            }
            if waitingByClient[client, default: 0] >= maxWaiting { return 0 }
            nextTicket += 1
            let ticket = nextTicket
            if lane.count == 0 { order.append(name) }
            lane.waiting[client, default: []].append(Waiting(ticket: ticket, client: client, alias: alias, since: Subprocess.monotonicMilliseconds(),
                                                             start: start, refuse: refuse, release: release))
            if lane.waiting[client]?.count == 1 { lane.turns.append(client) }
            lane.count += 1
            tickets[ticket] = (name, client)
            waitingByClient[client, default: 0] += 1
            if !sweepDue { sweepDue = scheduleSweep() }
            return ticket
        }
        guard let ticket else { return .now }
        guard ticket > 0 else {
            return .refused(RuntimeError(status: .busy,
                                         message: "this client already has \(maxWaiting) calls waiting for busy plugins (serve's bound per client); wait for their answers, or cancel some, before sending more"))
        }
        context.whenCancelled { [weak self] in
            self?.withdraw(ticket, RuntimeError(status: .cancelled, message: "cancelled while waiting for plugin '\(alias)' to finish another call"))
        }
        return .waiting
    }

    /// A call admitted `.now` has ended: its place goes to the next waiting call (on a worker: the
    /// caller still has its reply to send).
    func finished(lane name: String) {
        for (name, waiting) in end(lane: name) {
            pool.submit { [self] in run(waiting, lane: name) }
        }
    }

    /// Whether the call of `client` ending now in lane `name` will be followed by another of its
    /// calls on this thread (its burst goes on): its reply may be held to go out with the next.
    func burstGoesOn(lane name: String, client: Int) -> Bool {
        lock.withLock { lanes[name].map { $0.lastClient == client && $0.burstGoesOn(now: Subprocess.monotonicNanoseconds()) } ?? false }
    }

    /// Runs a call taken from its lane on this worker, then, while the lanes have one for it, the
    /// next: the next call of the same lane (a client's burst, or the next client's turn) needs no
    /// hand-off to another thread.
    private func run(_ first: Waiting, lane: String) {
        var waiting = first
        var name = lane
        while true {
            waiting.start()
            var starts = end(lane: name)
            let i = starts.firstIndex { $0.0 == name } ?? 0
            let next = starts.isEmpty ? nil : starts.remove(at: i)
            for (other, call) in starts {
                pool.submit { [self] in run(call, lane: other) }
            }
            guard let next else {
                waiting.release?()
                return
            }
            if next.0 != name || next.1.client != waiting.client { waiting.release?() }
            (name, waiting) = next
        }
    }

    /// A call of lane `name` has ended; the calls that may start now.
    private func end(lane name: String) -> [(String, Waiting)] {
        lock.withLock { () -> [(String, Waiting)] in
            running -= 1
            if let lane = lanes[name] {
                lane.running -= 1
                if lane.running == 0 && lane.count == 0 { lanes[name] = nil }
            }
            return schedule()
        }
    }

    /// Takes the calls that may start now, in turn (lanes round robin, clients round robin in a lane).
    /// Called with `lock` held.
    private func schedule() -> [(String, Waiting)] {
        var started: [(String, Waiting)] = []
        var i = 0
        let now = Subprocess.monotonicNanoseconds()
        while running < capacity && i < order.count {
            let name = order[i]
            guard let lane = lanes[name], lane.count > 0 else {
                order.remove(at: i)
                continue
            }
            guard !lane.serialized || lane.running == 0, let waiting = lane.next(now: now) else {
                i += 1
                continue
            }
            lane.running += 1
            running += 1
            forget(waiting)
            started.append((name, waiting))
            order.remove(at: i)
            if lane.count > 0 { order.append(name) }
        }
        return started
    }

    /// A waiting call left its lane (started or refused). Called with `lock` held.
    private func forget(_ waiting: Waiting) {
        tickets[waiting.ticket] = nil
        let left = waitingByClient[waiting.client, default: 1] - 1
        waitingByClient[waiting.client] = left > 0 ? left : nil
    }

    /// Refuses a waiting call at once (nothing when it already started or was refused).
    private func withdraw(_ ticket: UInt64, _ refusal: RuntimeError) {
        let found = lock.withLock { () -> Waiting? in
            guard let (name, client) = tickets[ticket], let lane = lanes[name],
                  let waiting = lane.remove(ticket: ticket, client: client) else { return nil }
            forget(waiting)
            if lane.count == 0 {
                order.removeAll { $0 == name }
                if lane.running == 0 { lanes[name] = nil }
            }
            return waiting
        }
        found?.refuse(refusal)
    }

    /// Refuses the calls that waited `waitLimitMilliseconds`, every second while any wait.
    /// False when no timer could be armed: the next call that waits tries again (meanwhile a wait past
    /// the limit is not refused; it still runs when the lane frees).
    private func scheduleSweep() -> Bool {
        do throws(ThreadStartError) {
            try Thread.after(milliseconds: 1000) { [weak self] in self?.sweep() }
            return true
        } catch {
            return false
        }
    }

    private func sweep() {
        let now = Subprocess.monotonicMilliseconds()
        let expired = lock.withLock { () -> [(UInt64, String)] in
            var expired: [(UInt64, String)] = []
            for lane in lanes.values {
                for queue in lane.waiting.values {
                    for waiting in queue where now - waiting.since >= waitLimitMilliseconds { expired.append((waiting.ticket, waiting.alias)) }
                }
            }
            sweepDue = !tickets.isEmpty && scheduleSweep()
            return expired
        }
        for (ticket, alias) in expired {
            withdraw(ticket, RuntimeError(status: .busy,
                                          message: "plugin '\(alias)' stayed busy with other calls for \(waitLimitMilliseconds / 1000) s; try again when it is free"))
        }
    }
}
