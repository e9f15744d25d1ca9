// Putting 1.1 benchmarks: the physics best line with tolerance windows and make probability over a
// seeded sweep of random putts on the nine Presidio greens (targets: median ≤ 25 ms, p95 ≤ 100 ms;
// the sweep's holed and converged rates beside the times), one `roll` (≤ 2 ms), and a green book of
// a Presidio green at 3 ft spacing on every core (≤ 3 s).
// Usage: clubhouse-bench putting-sweep [--data DIR] [--per-green N] [--runs N] [--book-hole N] [--lanes N] [--no-stability-check]
//        [--exhaustive-leave] [--compare-leave] [--search-1.6.0] [--scan-growth F] [--probe-family]
// (--exhaustive-leave: the centre family and the lag scan roll every stroke, as up to putting 1.5.1 (`exhaustiveSearch`);
// --compare-leave: every such putt is solved both ways too, untimed, and the best leaves compared: within 2 in or 5 %;
// --search-1.6.0: the scans' brackets grow at most 25 % a step and flagged centre-family answers run the second search, as
// up to putting 1.6.0; --scan-growth F: the scans' largest bracket step alone; --probe-family: the second search alone)
// (--lanes: threads one best line may use, as `putting bestline` does: every core by default)

import PuttingCore
#if canImport(Glibc)
import Glibc
#endif

private func sweepNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// CPU seconds of this thread (or of the whole process): on a machine shared with other builds the wall
/// time measures the load as much as the code; CPU time is reported beside it.
private func sweepCPU(process: Bool = false) -> Double {
    var ts = timespec()
    clock_gettime(process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

private func sweepLoad() -> String {
    guard let f = fopen("/proc/loadavg", "r") else { return "?" }
    defer { fclose(f) }
    var buffer = [CChar](repeating: 0, count: 128)
    guard fgets(&buffer, 128, f) != nil else { return "?" }
    return String(cString: buffer).split(separator: " ").prefix(3).joined(separator: " ")
}

private func sweepMs(_ s: Double) -> String {
    let v = (s * 1_000_000).rounded() / 1000
    return "\(v) ms"
}

private func quantile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
}

func puttingSweepBench(_ arguments: [String]) {
    var data = "../shared/data/putting/presidio"
    var perGreen = 16, runs = 21, bookHole = 1
    var diagnose = false, skipBook = false, brute = false, checkStability = true, exhaustiveSearch = false, compareLeave = false
    var lanes = PuttingService.processorCount
    var scanGrowth160 = false, probeFamily = false
    var scanMaxGrowth: Double?
    var i = 0
    while i < arguments.count {
        let next = i + 1 < arguments.count ? arguments[i + 1] : ""
        switch arguments[i] {
        case "--data": data = next; i += 1
        case "--per-green": perGreen = Swift.max(1, Int(next) ?? perGreen); i += 1
        case "--runs": runs = Swift.max(3, Int(next) ?? runs); i += 1
        case "--book-hole": bookHole = Swift.min(9, Swift.max(1, Int(next) ?? bookHole)); i += 1
        case "--lanes": lanes = Swift.max(1, Int(next) ?? lanes); i += 1
        case "--diagnose": diagnose = true
        case "--brute": brute = true
        case "--no-book": skipBook = true
        // The best line without its stability check (the second search of putts the nested solve does not answer).
        case "--no-stability-check": checkStability = false
        case "--exhaustive-leave": exhaustiveSearch = true
        case "--compare-leave": compareLeave = true
        // Putting 1.6.0's search: the scans' brackets grow at most 25 % a step, and flagged centre-family answers are probed.
        case "--search-1.6.0": scanGrowth160 = true
        case "--scan-growth": scanMaxGrowth = Double(next); i += 1
        case "--probe-family": probeFamily = true
        default: break
        }
        i += 1
    }
    var greens: [(Int, Heightfield, GreenSurface)] = []
    for n in 1...9 {
        do {
            let hf = try Heightfield.read(jsonPath: data + "/hole_\(n)/Hole_\(n)_heightfield.json")
            greens.append((n, hf, GreenSurface(hf)))
        } catch {
            print("putting-sweep: \(error) (give the Presidio folder with --data)")
            return
        }
    }

    // 1. Best line (solve + windows + make probability) over the sweep; surface set up once per green.
    print("load average at the start: \(sweepLoad())")
    var times: [Double] = [], solveOnly: [Double] = [], cpuTimes: [Double] = []
    var evaluations = 0
    var byStage: [String: (count: Int, times: [Double], rolls: Int)] = [:]
    // Rolls a putt (the timed best line's, its stability check's second search included): how many the search makes.
    var rollsPerPutt: [Double] = []
    var total = 0, holed = 0, converged = 0, notHoleable = 0, rolls = 0, unstable = 0
    var sample: (PhysicsSimulator, PointFt, PointFt, Double, Double)?
    var leaveChecks: [Bool] = []
    for (n, _, surface) in greens {
        let sim = PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: 10))
        var solver = PhysicsSolver(simulator: sim)
        solver.strokeErrors = .tour
        solver.lanes = lanes
        solver.checkStability = checkStability
        solver.exhaustiveSearch = exhaustiveSearch
        if scanGrowth160 { solver.scanBracketMaxGrowth = 1.25; solver.probesFlaggedFamily = true }
        if let scanMaxGrowth { solver.scanBracketMaxGrowth = scanMaxGrowth }
        if probeFamily { solver.probesFlaggedFamily = true }
        let L = solver.finishPastFt
        _ = L
        var bare = PhysicsSolver(simulator: sim)
        bare.computeTolerance = false
        bare.lanes = lanes
        for putt in PuttSweep.putts(on: surface, count: perGreen, seed: UInt64(1000 + n)) {
            let t0 = sweepNow(), c0 = sweepCPU(process: true)
            let line = solver.bestLine(ball: putt.ball, hole: putt.flag)
            times.append(sweepNow() - t0)
            cpuTimes.append(sweepCPU(process: true) - c0)
            evaluations += line.evaluations
            byStage[line.stage, default: (0, [], 0)].count += 1
            byStage[line.stage, default: (0, [], 0)].times.append(cpuTimes.last ?? 0)
            byStage[line.stage, default: (0, [], 0)].rolls += line.simulations
            rollsPerPutt.append(Double(line.simulations))
            let t1 = sweepNow()
            _ = bare.bestLine(ball: putt.ball, hole: putt.flag)
            solveOnly.append(sweepNow() - t1)
            total += 1
            if diagnose {
                let ok = line.roll.holed && abs(line.finishPastFt - solver.finishPastFt) <= 2.0 / 12
                let exists = ok || !brute ? "-" : sweepExistenceCheck(sim, putt.ball, putt.flag, L: solver.finishPastFt)
                print("diag hole \(n) d \(sweepFixed(putt.ball.distance(to: putt.flag))) ft: \(sweepMs(times.last ?? 0)) CPU \(sweepMs(cpuTimes.last ?? 0)) stage \(line.stage) "
                    + "holed \(line.roll.holed) conv \(line.converged) within2in \(ok) past \(sweepFixed(line.finishPastFt * 12)) in "
                    + "centre \(sweepFixed(line.centreOffsetFt * 12)) in aim \(sweepFixed(line.aimOffsetDeg)) v \(sweepFixed(line.speedFps)) "
                    + "p \(line.probability.map { sweepFixed($0.probability * 100) } ?? "-") % rolls \(line.simulations) flag \(line.instability?.otherStage ?? "-") | brute: \(exists)")
            }
            if compareLeave, !line.holeable {
                // The same putt solved with the exhaustive and with the cheaper search: holeable both ways or neither, and
                // the leaves within 2 in or 5 % (whichever is larger) of each other.
                var cheap = solver, full = solver
                cheap.exhaustiveSearch = false
                full.exhaustiveSearch = true
                let c = cheap.bestLine(ball: putt.ball, hole: putt.flag), f = full.bestLine(ball: putt.ball, hole: putt.flag)
                let dc = c.roll.final.distance(to: putt.flag), df = f.roll.final.distance(to: putt.flag)
                let ok = c.holeable == f.holeable && abs(dc - df) <= Swift.max(2.0 / 12, 0.05 * df)
                leaveChecks.append(ok)
                print("leave hole \(n) d \(sweepFixed(putt.ball.distance(to: putt.flag))) ft: cheaper \(sweepFixed(dc * 12)) in (\(c.simulations) rolls), "
                    + "exhaustive \(sweepFixed(df * 12)) in (\(f.simulations) rolls) \(ok ? "ok" : "OUTSIDE 2 in / 5 %")\n"
                    + "  cheaper: \(c.notHoleableReason ?? "-")\n  exhaustive: \(f.notHoleableReason ?? "-")")
            }
            rolls += line.simulations
            if line.roll.holed { holed += 1 }
            if line.converged { converged += 1 }
            if !line.holeable { notHoleable += 1 }
            if line.instability != nil { unstable += 1 }
            if sample == nil, line.roll.holed { sample = (sim, putt.ball, putt.flag, line.aimOffsetDeg, line.speedFps) }
        }
    }
    times.sort(); solveOnly.sort(); cpuTimes.sort()
    print("best line, windows + make probability, \(total) putts (\(perGreen) per green, 4–40 ft, stimp 10), \(lanes) lane(s):")
    print("  median \(sweepMs(quantile(times, 0.5)))  p95 \(sweepMs(quantile(times, 0.95)))  max \(sweepMs(times.last ?? .nan))  "
        + "mean rolls \(rolls / Swift.max(1, total))")
    print("  CPU time (all lanes): median \(sweepMs(quantile(cpuTimes, 0.5)))  p95 \(sweepMs(quantile(cpuTimes, 0.95)))  "
        + "max \(sweepMs(cpuTimes.last ?? .nan))  mean right-hand-side evaluations \(evaluations / Swift.max(1, total))")
    rollsPerPutt.sort()
    print("  rolls a putt: median \(Int(quantile(rollsPerPutt, 0.5)))  p95 \(Int(quantile(rollsPerPutt, 0.95)))  max \(Int(rollsPerPutt.last ?? 0))")
    print("  holed \(holed)/\(total)  converged \(converged)/\(total)  not holeable \(notHoleable)  numerically unstable \(unstable)")
    for (stage, v) in byStage.sorted(by: { $0.key < $1.key }) {
        print("  stage \(stage): \(v.count) putts, CPU median \(sweepMs(quantile(v.times.sorted(), 0.5))) max \(sweepMs(v.times.max() ?? .nan)), "
            + "mean rolls \(v.rolls / Swift.max(1, v.count))")
    }
    if compareLeave {
        print("  leaves of the putts that cannot be holed, cheaper against exhaustive search: \(leaveChecks.filter { $0 }.count) of "
            + "\(leaveChecks.count) within 2 in or 5 %\(exhaustiveSearch ? " (timed: exhaustive)" : " (timed: cheaper)")")
    }
    print("best line, solve only: median \(sweepMs(quantile(solveOnly, 0.5)))  p95 \(sweepMs(quantile(solveOnly, 0.95)))")

    // 2. One roll of a best line's stroke (path recorded), with and without its make probability.
    if let (sim, ball, flag, aim, speed) = sample {
        let request = RollRequest(course: "presidio", hole: 1, ball: ball, flag: flag, aim: .offsetDeg(aim), pace: .speedFps(speed))
        var plain: [Double] = [], withP: [Double] = []
        for _ in 0..<Swift.max(runs, 51) {
            let t0 = sweepNow()
            _ = try? RollEngine.roll(request, simulator: sim, hash: "", probability: false)
            plain.append(sweepNow() - t0)
        }
        for _ in 0..<runs {
            let t0 = sweepNow()
            _ = try? RollEngine.roll(request, simulator: sim, hash: "", probability: true, lanes: lanes)
            withP.append(sweepNow() - t0)
        }
        plain.sort(); withP.sort()
        print("roll: median \(sweepMs(quantile(plain, 0.5)))  p95 \(sweepMs(quantile(plain, 0.95)));  "
            + "with make probability: median \(sweepMs(quantile(withP, 0.5)))")
    }

    if skipBook { return }
    // 3. A green book at 3 ft on every core, from an empty cache, twice.
    let (n, hf, _) = greens[bookHole - 1]
    let cups: [Int: PointFt] = [1: PointFt(x: 28.03, z: -3.46), 2: PointFt(x: 7.22, z: -9.19), 3: PointFt(x: 17.84, z: 18.84)]
    let flag = cups[n] ?? PuttSweep.putts(on: greens[bookHole - 1].2, count: 1, seed: 99).first?.flag ?? PointFt(x: 0, z: 0)
    for run in 1...2 {
        let store = InMemoryPuttingStore()
        do {
            try store.replaceCourse(Course(id: "presidio", name: "Presidio"), holes: [
                Hole(courseID: "presidio", number: n, greenWidthFt: Double(hf.nx - 1) * hf.resolutionFt,
                     greenHeightFt: Double(hf.nz - 1) * hf.resolutionFt, heightfield: hf),
            ])
            let service = PuttingService(store: store)
            let t0 = sweepNow(), c0 = sweepCPU(process: true)
            let book = try service.book(BookRequest(course: "presidio", hole: n, flag: flag))
            let t = sweepNow() - t0, cpu = sweepCPU(process: true) - c0
            let holedCount = book.entries.filter(\.holed).count
            print("book hole \(n) at 3 ft, run \(run): \(book.entries.count) positions in \(sweepMs(t)) "
                + "(\(sweepMs(t / Double(Swift.max(1, book.entries.count)))) per position), holed \(holedCount), "
                + "not holeable \(book.entries.filter { !$0.holeable }.count); CPU \(sweepMs(cpu)) on every core (half of it is the wall "
                + "time two idle cores would take), load \(sweepLoad())")
            let t1 = sweepNow()
            _ = try service.book(BookRequest(course: "presidio", hole: n, flag: flag))
            if run == 2 { print("book again from the cache: \(sweepMs(sweepNow() - t1))") }
        } catch {
            print("book: \(error)")
        }
    }
}

private func sweepFixed(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return "\(r)"
}

/// Brute force: for aims every 0.25° within ±60°, the launch speed whose ghost finishes L past (bisection),
/// and whether that stroke drops; also whether any stroke on a coarse aim × speed grid drops at all.
private func sweepExistenceCheck(_ sim: PhysicsSimulator, _ ball: PointFt, _ hole: PointFt, L: Double) -> String {
    let base = atan2(hole.z - ball.z, hole.x - ball.x)
    func ghost(_ a: Double, _ v: Double) -> PhysicsRoll {
        let t = base + a * .pi / 180
        return sim.roll(from: ball, vx: cos(t) * v, vz: sin(t) * v, hole: hole,
                        options: RollOptions(capture: false, recordPath: false, endAtFirstStop: true, endAtApex: true))
    }
    func holes(_ a: Double, _ v: Double) -> Bool {
        let t = base + a * .pi / 180
        return sim.roll(from: ball, vx: cos(t) * v, vz: sin(t) * v, hole: hole,
                        options: RollOptions(capture: true, recordPath: false, earlyExit: true)).holed
    }
    var withFinish: [Double] = []
    var anyHole = 0
    func finish(_ g: PhysicsRoll) -> Double {
        g.closestArcLength < g.length - 1e-9 && g.closestSpeed > 1e-3 ? g.lengthPastClosest - L : -L - 1
    }
    var a = -60.0
    while a <= 60 {
        var v = 0.5
        var previous: (Double, Double)?
        while v <= 30 {
            if holes(a, v) { anyHole += 1 }
            let f = finish(ghost(a, v))
            if let (pv, pf) = previous, (pf < 0) != (f < 0) {
                var lo = pv, hi = v
                for _ in 0..<30 {
                    let m = (lo + hi) / 2
                    if finish(ghost(a, m)) < 0 { lo = m } else { hi = m }
                }
                let m = (lo + hi) / 2
                if holes(a, m), abs(finish(ghost(a, m))) <= 2.0 / 12 { withFinish.append(a) }
            }
            previous = (v, f)
            v *= 1.03
        }
        a += 0.25
    }
    let aims = withFinish.isEmpty ? "none" : "\(sweepFixed(withFinish.min() ?? 0))…\(sweepFixed(withFinish.max() ?? 0))"
    return "holing grid strokes \(anyHole), with ±2in finish at aims \(aims) (\(withFinish.count))"
}
