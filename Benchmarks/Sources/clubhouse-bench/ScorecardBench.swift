// Benchmarks for the scorecard area: recompute the Handicap Index of a generated population (100,000
// players × 20 hole-by-hole rounds by default), each through the full scoring-record evaluation (net
// double bogey, differentials, exceptional scores, Rule 5.2, Low Handicap Index, caps), single core.
// Usage: clubhouse-bench scorecard [--players N] [--rounds R] [--runs K]

import ScorecardCore
#if canImport(Glibc)
import Glibc
#endif

func scorecardBench(_ arguments: [String]) {
    func option(_ name: String, _ fallback: Int) -> Int {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = Int(arguments[i + 1]), value > 0 else {
            return fallback
        }
        return value
    }
    let players = option("--players", 100_000)
    let rounds = option("--rounds", 20)
    let runs = option("--runs", 7)

    let clock = ContinuousClock()
    let generationStart = clock.now
    let workload = HandicapWorkload.generate(players: players, roundsPerPlayer: rounds)
    let generation = clock.now - generationStart
    print("scorecard: generated \(players) players × \(rounds) rounds (\(workload.roundCount) rounds, "
        + "\(workload.roundCount * 18) hole scores) in \(milliseconds(generation)) ms")

    var times: [Double] = []
    var cpuTimes: [Double] = []
    var checksum = 0
    var withIndex = 0
    for run in 1...runs {
        let start = clock.now
        let cpuStart = threadCPUMilliseconds()
        let indexes = workload.recomputeIndexes()
        let cpu = threadCPUMilliseconds() - cpuStart
        let elapsed = clock.now - start
        times.append(milliseconds(elapsed))
        cpuTimes.append(cpu)
        checksum = indexes.reduce(0) { $0 &+ ($1?.raw ?? -1) }
        withIndex = indexes.lazy.filter { $0 != nil }.count
        print("scorecard: run \(run): recompute \(players) indexes in \(format(milliseconds(elapsed))) ms wall, \(format(cpu)) ms CPU")
    }
    times.sort()
    cpuTimes.sort()
    let median = times[times.count / 2]
    let cpuMedian = cpuTimes[cpuTimes.count / 2]
    print("scorecard: players with an index \(withIndex), checksum \(checksum)")
    print("scorecard: recompute-indexes median \(format(median)) ms for \(players) players "
        + "(\(format(median * 1_000_000 / Double(players)))ns per player, "
        + "\(format(median * 1_000_000 / Double(players * rounds)))ns per round); target <= 1000 ms")
    print("scorecard: recompute-indexes CPU median \(format(cpuMedian)) ms "
        + "(\(format(cpuMedian * 1_000_000 / Double(players)))ns per player; the thread's own CPU time, unaffected by other load)")
}

/// CPU time consumed by the calling thread, in milliseconds.
private func threadCPUMilliseconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1e6
}

private func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

private func format(_ value: Double) -> String {
    let rounded = (value * 10).rounded() / 10
    return "\(rounded)"
}
