// How the benchmarks call a plugin's command: through the site's router, as every front end does
// (SiteRuntime has no public way around it).

import ClubhouseHost
import ClubhouseJSON

extension SiteRuntime {
    /// `command` of `alias` routed from the command line: resolved, its arguments checked, called.
    func routed(_ alias: String, _ command: String, _ arguments: JSONObject = JSONObject()) -> CallOutcome {
        router.route(alias: alias, .json(command: command, arguments: arguments), origin: .commandLine)
    }
}

/// A call the router prepared once (resolved, its arguments checked) and runs as often as asked: a loop
/// of them measures the call itself — its context, the call into the plugin, the reply read, the
/// background check — as `SiteRuntime.call` did before it became the router's alone.
struct RoutedCall {
    let runtime: SiteRuntime
    let alias: String, command: String, arguments: JSONObject
    let prepared: PreparedCall?

    init(_ runtime: SiteRuntime, _ alias: String, _ command: String, _ arguments: JSONObject = JSONObject()) {
        (self.runtime, self.alias, self.command, self.arguments) = (runtime, alias, command, arguments)
        prepared = try? runtime.router.prepare(alias: alias, .json(command: command, arguments: arguments), origin: .commandLine).get()
    }

    func callAsFunction() -> CallOutcome {
        // Refused when prepared: routed again, for the refusal's outcome.
        guard let prepared else { return runtime.routed(alias, command, arguments) }
        let router = runtime.router
        return router.run(prepared, context: router.context(for: prepared))
    }

    /// The call `times` times in a row, as a front end runs one prepared call: the prepared call is
    /// bound once and lent to the router on every call. (Bound out of `self` on every call, as
    /// `callAsFunction` does, it is copied and destroyed each time — every reference in it retained
    /// and released — which was a third of the no-op bench's 0.9 µs on 2026-11-27, perf record.)
    func repeated(_ times: Int) {
        guard let call = prepared else {
            for _ in 0..<times { _ = runtime.routed(alias, command, arguments) }
            return
        }
        let router = runtime.router
        for _ in 0..<times { _ = router.run(call, context: router.context(for: call)) }
    }
}
