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
/// The prepared call is held in a class and lent to the router on each call: bound out of an
/// optional struct, it was copied and destroyed per call (every reference in it retained and
/// released), a third of what the no-op bench measured on 2026-11-27 and no part of a real call.
struct RoutedCall {
    final class Prepared {
        let call: PreparedCall
        init(_ call: PreparedCall) { self.call = call }
    }
    let runtime: SiteRuntime
    let alias: String, command: String, arguments: JSONObject
    let prepared: Prepared?

    init(_ runtime: SiteRuntime, _ alias: String, _ command: String, _ arguments: JSONObject = JSONObject()) {
        (self.runtime, self.alias, self.command, self.arguments) = (runtime, alias, command, arguments)
        prepared = (try? runtime.router.prepare(alias: alias, .json(command: command, arguments: arguments), origin: .commandLine).get())
            .map(Prepared.init)
    }

    func callAsFunction() -> CallOutcome {
        // Refused when prepared: routed again, for the refusal's outcome.
        guard let prepared else { return runtime.routed(alias, command, arguments) }
        let router = runtime.router
        return router.run(prepared.call, context: router.context(for: prepared.call))
    }
}
