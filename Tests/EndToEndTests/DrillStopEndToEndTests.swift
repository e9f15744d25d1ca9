// Issue 30, Deliver 1: a ball machine that always stops. A simulated drill is interrupted at 100
// random moments in each isolation (in process, `process`, `sandbox`), once or twice (Ctrl-C, Ctrl-C
// again; some with SIGTERM instead); every time the simulator must receive the stop command within 200 ms of the first Ctrl-C
// (or have received it before, when the drill had already ended), no start command after it, and the
// session must be stored with exactly the balls the machine received.
// On a loaded machine the 200 ms are the product's: the path from the Ctrl-C to the simulator's report
// line is a chain of at most `hops` wake-ups (the host's signal thread, the plugin's wait, a runner's
// pipe, the simulator's socket, the test's reader), and each may be delayed by as much as the machine
// delayed a sleeping thread of this process meanwhile or in the second before (WakeUpLateness, measured
// in the same run), so the
// bound is 200 ms plus `hops` times that delay. Unloaded it is 200 ms; a stop that waits for the drill's
// end (2 s) or never comes still fails.
// Quick: a one-ball drill (the protocol's shortest delay, 2 s), moments spread over the run, five
// drills at a time against five simulators (more would load two cores enough to delay the stops
// they measure). The drill is saved at the site and run by name (a
// sandboxed plugin reads only path arguments, and `drill run` takes a name or a file).
// The suite runs 25 moments per isolation (about 10 s each in a debug build);
// CLUBHOUSE_DRILL_STOP_TRIALS=100 runs the issue's full sweep (Benchmarks/field/drill-stop.sh).

import ClubhouseJSON
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class DrillStopEndToEndTests: XCTestCase {
    static let drill = #"{"name": "one ball", "steps": [{"zone": 5, "speed": 50, "delay": 2}]}"#
    static let trials = ProcessInfo.processInfo.environment["CLUBHOUSE_DRILL_STOP_TRIALS"].flatMap { Int($0) }.map { max(1, $0) } ?? 25
    static let slots = 5
    static let stopBoundNanoseconds: UInt64 = 200_000_000
    /// The wake-ups between the Ctrl-C and the stop's report line (see the top of the file).
    static let hops: UInt64 = 5

    func testInterruptedInProcess() throws { try interruptAtRandomMoments(isolation: "in-process") }
    func testInterruptedInARunner() throws { try interruptAtRandomMoments(isolation: "process") }
    func testInterruptedSandboxed() throws { try interruptAtRandomMoments(isolation: "sandbox") }

    /// What one interrupted run showed.
    struct Trial {
        var moment: Double
        var twice: Bool
        var exit: String
        /// First Ctrl-C → stop received (ms); negative when the stop came first (the drill had ended).
        var stopAfterMs: Double?
        var ballsReceived: Int
        var problem: String?
        /// The machine's worst wake-up delay between the Ctrl-C and the stop (ms).
        var machineDelayMs: Double = 0
    }

    private func interruptAtRandomMoments(isolation: String) throws {
        let scratch = try Clubhouse()
        let drill = try scratch.write("one.json", DrillStopEndToEndTests.drill)
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 1...UInt64.max, using: &generator)
        print("DrillStopEndToEndTests \(isolation): seed \(seed)")
        let results = SlotResults(slots: DrillStopEndToEndTests.slots)
        let lateness = WakeUpLateness()
        defer { lateness.stop() }
        let perSlot = (DrillStopEndToEndTests.trials + DrillStopEndToEndTests.slots - 1) / DrillStopEndToEndTests.slots
        // The scratch folder is only read by the slots (paths, the binary), each writes its own files.
        nonisolated(unsafe) let c = scratch
        // One thread per slot (concurrentPerform would run only as many as there are cores).
        let group = DispatchGroup()
        for slot in 0..<DrillStopEndToEndTests.slots {
          group.enter()
          Thread.detachNewThread {
            defer { group.leave() }
            let count = min(perSlot, DrillStopEndToEndTests.trials - slot * perSlot)
            guard count > 0 else { return }
            do {
                let simulator = try StampedSimulator(c, latency: 10)
                defer { simulator.stop() }
                let config = try simulator.config(c, name: "slot\(slot).json", isolation: isolation)
                let data = c.path("data-\(slot)")
                let saved = try c.run(["--config", config, "--data-dir", data, "tennis", "drill", "save", drill])
                guard saved.exitCode == 0 else { throw XCTSkip("cannot save the drill: \(saved.stderr)") }
                var random = SplitMix(seed: seed &+ UInt64(slot) &* 0x9E37_79B9_7F4A_7C15)
                var mine: [Trial] = []
                for _ in 0..<count {
                    mine.append(try DrillStopEndToEndTests.run(c, simulator: simulator, config: config, data: data, drill: drill,
                                                               random: &random, lateness: lateness))
                }
                // Every run is stored, newest first, with the balls the machine received.
                let listed = try c.run(["--config", config, "--data-dir", data, "tennis", "sessions", "--last", "1000", "--json"])
                let sessions = (try? listed.json())?["sessions"]?.arrayValue ?? []
                let sent = sessions.reversed().map { $0["summary"]?["sent"]?.intValue ?? -1 }
                if sent != mine.map(\.ballsReceived) {
                    mine.append(Trial(moment: 0, twice: false, exit: "", stopAfterMs: nil, ballsReceived: 0,
                                      problem: "stored sessions (balls sent) \(sent) ≠ balls the machine received \(mine.map(\.ballsReceived)): \(listed.stderr)"))
                }
                results.set(slot, mine)
            } catch {
                results.fail(error)
            }
          }
        }
        group.wait()
        if let error = results.error { throw error }
        let all = results.all
        let problems = all.compactMap { t in t.problem.map { "moment \(String(format: "%.3f", t.moment)) s\(t.twice ? " (twice)" : ""): \($0)" } }
        let delays = all.compactMap(\.stopAfterMs).filter { $0 >= 0 }.sorted()
        print("DrillStopEndToEndTests \(isolation): \(all.count) runs, \(all.filter(\.twice).count) with a second Ctrl-C, "
              + "\(delays.count) stopped after the Ctrl-C (max \(String(format: "%.1f", delays.last ?? 0)) ms, median \(String(format: "%.1f", delays.isEmpty ? 0 : delays[delays.count / 2])) ms), "
              + "\(all.filter { ($0.stopAfterMs ?? 0) < 0 }.count) had ended before it; exits \(Dictionary(grouping: all, by: \.exit).mapValues(\.count)); "
              + "the machine delayed wake-ups by up to \(String(format: "%.1f", Double(lateness.worstSoFar) / 1e6)) ms")
        XCTAssertEqual(problems, [], "seed \(seed)")
        XCTAssertEqual(all.count, DrillStopEndToEndTests.trials)
    }

    /// One drill, interrupted `moment` seconds after it opened the machine.
    private static func run(_ c: Clubhouse, simulator: StampedSimulator, config: String, data: String, drill: String,
                     random: inout SplitMix, lateness: WakeUpLateness) throws -> Trial {
        let moment = random.unit() * 2.3
        let twice = random.unit() < 0.3
        let gap = random.unit() * 0.15
        // Some are a service manager's SIGTERM instead of Ctrl-C: the same stop.
        let signal = random.unit() < 0.15 ? SIGTERM : SIGINT
        let from = simulator.lines.count
        let process = try RunningClubhouse(c, ["--config", config, "tennis", "drill", "run", "one ball"], dataDirectory: data)
        guard let opened = simulator.wait(from: from, until: { !process.process.isRunning }, { $0.opened }) else {
            _ = process.wait(timeout: 1)
            return Trial(moment: moment, twice: twice, exit: "", stopAfterMs: nil, ballsReceived: 0,
                         problem: "the drill never opened the machine: \(process.stderr)")
        }
        let at = opened.at + UInt64(moment * 1e9)
        let now = monotonicNanoseconds()
        if at > now { usleep(useconds_t((at - now) / 1000)) }
        let interruptedAt = monotonicNanoseconds()
        let delivered = process.signal(signal)
        if twice && delivered {
            usleep(useconds_t(gap * 1e6))
            process.signal(signal)
        }
        guard let (status, bySignal) = process.wait(timeout: 20) else {
            return Trial(moment: moment, twice: twice, exit: "hung", stopAfterMs: nil, ballsReceived: 0,
                         problem: "the drill did not end within 20 s of the Ctrl-C: \(process.stderr)")
        }
        // The run's lines: every start, then the stop, until each connection it opened (the host's
        // stop may come on one of its own) has closed; the next run starts after that.
        let closed = simulator.waitUntilAllClosed(timeout: 5)
        let run = Array(simulator.lines.dropFirst(from))
        let starts = run.filter(\.isStart)
        let exit = bySignal ? "signal \(status)" : "\(status)"
        var trial = Trial(moment: moment, twice: twice, exit: exit, stopAfterMs: nil, ballsReceived: starts.count)
        guard let stop = run.last(where: \.isStop) else {
            trial.problem = "the machine never received the stop command (exit \(exit)); it received \(run.map(\.text)): \(process.stderr)"
            return trial
        }
        guard closed else {
            trial.problem = "a connection to the machine was still open 5 s after the run ended: \(run.map(\.text))"
            return trial
        }
        trial.stopAfterMs = (Double(stop.at) - Double(interruptedAt)) / 1e6
        // From 1 s before the Ctrl-C: a host the machine starved just before it (a drill's first moments are
        // its start-up) is still that far behind when the signal comes.
        let machineDelay = lateness.worst(from: interruptedAt &- 1_000_000_000, to: stop.at)
        trial.machineDelayMs = Double(machineDelay) / 1e6
        let bound = DrillStopEndToEndTests.stopBoundNanoseconds + DrillStopEndToEndTests.hops * machineDelay
        if let lastStart = starts.last, lastStart.at > stop.at {
            trial.problem = "a start command reached the machine after the stop: \(run.map(\.text))"
        } else if stop.at > interruptedAt + bound {
            trial.problem = "the stop came \(String(format: "%.1f", trial.stopAfterMs ?? 0)) ms after the Ctrl-C, past its bound of "
                + "\(String(format: "%.1f", Double(bound) / 1e6)) ms (200 ms + \(DrillStopEndToEndTests.hops) × the machine's worst wake-up delay from 1 s before, "
                + "\(String(format: "%.1f", trial.machineDelayMs)) ms) (exit \(exit)): \(process.stderr)"
        } else if !bySignal && status != 0 && status != 130 {
            trial.problem = "exit \(status): \(process.stderr)"
        }
        return trial
    }
}

/// The slots' trials (guarded by `lock`, hence @unchecked Sendable).
final class SlotResults: @unchecked Sendable {
    private let lock = NSLock()
    private var trials: [[DrillStopEndToEndTests.Trial]]
    private(set) var error: Error?

    init(slots: Int) { trials = Array(repeating: [], count: slots) }

    func set(_ slot: Int, _ list: [DrillStopEndToEndTests.Trial]) { lock.withLock { trials[slot] = list } }
    func fail(_ e: Error) { lock.withLock { error = e } }
    var all: [DrillStopEndToEndTests.Trial] { lock.withLock { trials.flatMap { $0 } } }
}

/// SplitMix64: a seeded generator, so a failing run can be named by its seed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
