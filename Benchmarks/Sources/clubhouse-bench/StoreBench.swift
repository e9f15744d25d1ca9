// Store-path benchmark (issue 19): a plugin's typical read through the storage service, in
// process, release build: scorecard's `player list` (players with their Handicap Index: players,
// rounds, round players, courses with tees and holes, every score entry) and practice's `sessions`
// (the imported sessions), each on the data its `demo` command leaves in the site's database.
// The plugins come from `--plugins DIR`, so one run of Benchmarks/store/run.sh times the plugins
// built before the storage kit and after it with the same host, interleaved.
// Usage: clubhouse-bench store [--plugins DIR] [--label NAME] [--calls N] [--samples K]

import ClubhouseHost
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

func storeBench(_ arguments: [String]) {
    func option(_ name: String) -> String? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }
    let dir = option("--plugins") ?? Measure.executableDirectory()
    let label = option("--label") ?? dir
    let calls = option("--calls").flatMap(Int.init) ?? 200
    let samples = option("--samples").flatMap(Int.init) ?? 11
    let scratch = "/tmp/clubhouse-store-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    let config = """
        {"sites": {"bench": {"plugins": {
          "scorecard": {"path": "\(dir)/libScorecardPlugin.so", "grants": ["storage"], "isolation": "in-process"},
          "practice": {"path": "\(dir)/libPracticePlugin.so", "grants": ["storage"], "isolation": "in-process"}
        }}}}
        """
    guard let (_, configuration) = Measure.scratchConfiguration("store", scratch: scratch, config: config),
          let site = configuration.sites["bench"] else { return }
    let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: scratch + "/data",
                              log: LogBroker(verbosity: 0, color: false))
    defer { runtime.shutdown() }

    // The data: each plugin's demo fills its empty database.
    for alias in ["scorecard", "practice"] {
        let result = runtime.routed(alias, "demo", ["out": .string(scratch + "/demo-" + alias)])
        guard result.status == .ok else {
            print("store bench: \(alias) demo failed: \(result.status)")
            return
        }
    }

    /// The median per call, and the reply text's size and FNV-1a hash (the same before and after).
    func perCall(_ alias: String, _ command: String) -> (seconds: Double, cpu: Double, bytes: Int, hash: String)? {
        let first = runtime.routed(alias, command)
        guard first.status == .ok else {
            print("store bench: \(alias) \(command) failed: \(first.status)")
            return nil
        }
        // Wall time and the calling thread's CPU time per batch (an in-process call runs on this
        // thread; CPU time is what other load on the machine disturbs least).
        var walls: [Double] = [], cpus: [Double] = []
        for sample in 0...samples {
            let cpuStart = threadCPUSeconds()
            let start = Measure.now()
            let call = RoutedCall(runtime, alias, command)
            for _ in 0..<calls { _ = call() }
            if sample == 0 { continue }  // warm-up
            walls.append((Measure.now() - start) / Double(calls))
            cpus.append((threadCPUSeconds() - cpuStart) / Double(calls))
        }
        let seconds = Measure.median(walls), cpu = Measure.median(cpus)
        let text = Array((first.text ?? "").utf8)
        let hash = text.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        return (seconds, cpu, text.count, String(hash, radix: 16))
    }
    print("store [\(label)]: medians of \(samples) batches of \(calls) calls, in process")
    if let players = perCall("scorecard", "player list") {
        print("store [\(label)]   scorecard player list (with indexes)  wall \(Measure.format(players.seconds))  cpu \(Measure.format(players.cpu))  reply \(players.bytes) bytes, fnv \(players.hash)")
    }
    if let sessions = perCall("practice", "sessions") {
        print("store [\(label)]   practice sessions                    wall \(Measure.format(sessions.seconds))  cpu \(Measure.format(sessions.cpu))  reply \(sessions.bytes) bytes, fnv \(sessions.hash)")
    }
}

/// CPU time consumed by the calling thread, in seconds.
private func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
