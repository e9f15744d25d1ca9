// Sandbox benchmarks (issue 14), release build: a sandboxed runner (Landlock + seccomp before the
// plugin loads) against a plain `process` runner, same run, interleaved:
//  - runner start: a fresh site's first call (spawn, confine, load, hello, create, one ping),
//    median (target: sandboxed ≤ 1.5× process);
//  - call round trip: ping through a warm runner, median per call (target: sandboxed ≤ 1.2× process).
// Beside each wall time, CPU time (the machine is shared): for a start, this process's and its
// reaped children's (the runner's) CPU; for a round trip, this process's CPU per call.

import ClubhouseFrontEnds
import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

func sandboxBench(_ arguments: [String]) {
    let quick = arguments.contains("--quick")
    let dir = Measure.executableDirectory()
    let scratch = "/tmp/clubhouse-sandbox-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    // One site per mode (a site runs a plugin id once).
    let config = """
        {"sites": {
          "process": {"plugins": {
            "notes": {"path": "\(dir)/libNotesC.so", "grants": ["storage"], "isolation": "process"},
            "greeter": {"path": "\(dir)/libGreeterPlugin.so", "isolation": "process"}}},
          "sandbox": {"plugins": {
            "notes": {"path": "\(dir)/libNotesC.so", "grants": ["storage"], "isolation": "sandbox"},
            "greeter": {"path": "\(dir)/libGreeterPlugin.so", "isolation": "sandbox"}}}
        }}
        """
    guard let (_, configuration) = Measure.scratchConfiguration("sandbox", scratch: scratch, config: config) else { return }
    func runtime(_ mode: String) -> SiteRuntime? {
        guard let site = configuration.sites[mode] else { return nil }
        return SiteRuntime(configuration: configuration, site: site, dataDirectory: scratch + "/data", log: LogBroker(verbosity: 0, color: false))
    }
    print("sandboxed runner vs process runner (kernel \(SandboxSupport.kernelRelease()), Landlock ABI \(Landlock.abiVersion().version))")
    for plugin in ["notes", "greeter"] {
        // Start: a new runtime each time, so each first call starts a new runner; the two modes alternate.
        var starts: [String: [Double]] = ["process": [], "sandbox": []]
        var startCPU: [String: [Double]] = ["process": [], "sandbox": []]
        for _ in 0..<(quick ? 5 : 21) {
            for mode in ["process", "sandbox"] {
                guard let r = runtime(mode) else { return }
                let t0 = Measure.now(), c0 = cpuSeconds(children: true)
                let outcome = r.routed(plugin, "ping")
                starts[mode, default: []].append(Measure.now() - t0)
                r.shutdown()
                startCPU[mode, default: []].append(cpuSeconds(children: true) - c0)
                if outcome.status != .ok {
                    print("  \(plugin) (\(mode)): \(outcome.message)")
                    return
                }
            }
        }
        let p = Measure.median(starts["process"] ?? []), s = Measure.median(starts["sandbox"] ?? [])
        print("  \(plugin) runner start + first ping: process \(Measure.format(p)), sandbox \(Measure.format(s)), ratio \(twoDecimals(s, p)) (target ≤ 1.2); CPU process \(Measure.format(Measure.median(startCPU["process"] ?? []))), sandbox \(Measure.format(Measure.median(startCPU["sandbox"] ?? [])))")

        // Round trip: both runners warm in one runtime, batches interleaved.
        guard let processRuntime = runtime("process"), let sandboxRuntime = runtime("sandbox") else { return }
        defer {
            processRuntime.shutdown()
            sandboxRuntime.shutdown()
        }
        let runtimes = ["process": processRuntime, "sandbox": sandboxRuntime]
        let calls = quick ? 200 : 2000
        var trips: [String: [Double]] = ["process": [], "sandbox": []]
        var tripCPU: [String: [Double]] = ["process": [], "sandbox": []]
        for (_, r) in runtimes { _ = r.routed(plugin, "ping") }
        for _ in 0..<(quick ? 5 : 21) {
            for mode in ["process", "sandbox"] {
                let t0 = Measure.now(), c0 = cpuSeconds(children: false)
                guard let r = runtimes[mode] else { return }
                let call = RoutedCall(r, plugin, "ping")
                for _ in 0..<calls { _ = call() }
                trips[mode, default: []].append((Measure.now() - t0) / Double(calls))
                tripCPU[mode, default: []].append((cpuSeconds(children: false) - c0) / Double(calls))
            }
        }
        let tp = Measure.median(trips["process"] ?? []), ts = Measure.median(trips["sandbox"] ?? [])
        print("  \(plugin) ping round trip: process \(Measure.format(tp)), sandbox \(Measure.format(ts)), ratio \(twoDecimals(ts, tp)) (target ≤ 1.2); host CPU per call process \(Measure.format(Measure.median(tripCPU["process"] ?? []))), sandbox \(Measure.format(Measure.median(tripCPU["sandbox"] ?? [])))")
    }
}

/// User + system CPU seconds of this process (and of its reaped children).
private func cpuSeconds(children: Bool) -> Double {
    func seconds(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    return seconds(RUSAGE_SELF.rawValue) + (children ? seconds(RUSAGE_CHILDREN.rawValue) : 0)
}

/// a / b with two decimals.
private func twoDecimals(_ a: Double, _ b: Double) -> String {
    guard b > 0 else { return "n/a" }
    let hundredths = Int((a / b * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
