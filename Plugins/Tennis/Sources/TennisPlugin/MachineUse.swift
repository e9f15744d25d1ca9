// Who is using the site's ball machine right now, for this plugin instance (issue 29: a drill started
// from another client shows on every open tennis panel, and any of them may stop it).
//
// The plugin is thread-safe (PluginInfo.threadSafe): while a drill runs, the panel's other calls (the
// drills, the sessions, `running`, `stop`) are answered beside it instead of waiting for the drill to
// end. The machine itself takes one user at a time: a shot, a session or a drill claims it here, and
// another claim meanwhile is refused at once (busy) — two callers' frames never interleave on the
// machine, and a shot sent during a drill does not fire minutes later when the drill is over.
// `stop` marks the running drill or session; its loop looks at the mark every 20 ms (with the call's
// own cancel) and ends with the stop command.

import Glibc
import PluginKit

/// @unchecked Sendable: `current` and `counter` are read and written only under `mutex`.
final class MachineUse: @unchecked Sendable {
    /// What runs on the machine: a drill, a session, a shot, the demo.
    struct Use: Sendable {
        var run: Int
        var kind: String
        var drill: String?
        var of: Int?
        var launched = 0
        var startedAt: String
        var stopRequested = false
    }

    private var mutex = pthread_mutex_t()
    private var current: Use?
    private var counter = 0

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }

    /// Claims the machine for `kind`; busy (a one-line error saying what runs and how to stop it) while
    /// another use holds it.
    func claim(_ kind: String, drill: String? = nil, of: Int? = nil, device: String) throws -> Use {
        try locked {
            if let busy = current {
                throw PluginError(.busy, MachineUse.busyMessage(busy, device: device))
            }
            counter += 1
            let use = Use(run: counter, kind: kind, drill: drill, of: of, startedAt: Timestamp.now())
            current = use
            return use
        }
    }

    static func busyMessage(_ use: Use, device: String) -> String {
        let what = use.drill.map { "drill \"\($0)\" (ball \(use.launched) of \(use.of ?? 0))" } ?? "a \(use.kind)"
        return "the ball machine '\(device)' is running \(what); stop it first (Stop in the tennis panel, POST /api/tennis/stop) or wait for it to end"
    }

    func release(_ run: Int) {
        locked { if current?.run == run { current = nil } }
    }

    func launched(_ run: Int, count: Int) {
        locked { if current?.run == run { current?.launched = count } }
    }

    /// Marks the running drill or session to stop (only `run` when given); answers what was marked.
    func requestStop(run: Int?) -> Use? {
        locked {
            guard var use = current, run == nil || use.run == run, use.kind == "drill" || use.kind == "session" else { return nil }
            use.stopRequested = true
            current = use
            return use
        }
    }

    func stopRequested(_ run: Int) -> Bool {
        locked { current?.run == run && current?.stopRequested == true }
    }

    /// The use now, if any.
    func now() -> Use? { locked { current } }
}
