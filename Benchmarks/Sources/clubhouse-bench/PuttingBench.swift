// Benchmarks for the putting area: the compat best line on Presidio hole 1 (target ≤ 0.3 s) against a
// straightforward implementation of the same model, the physics best line (target ≤ 0.1 s) with and
// without the energy-bound early exit, and roll simulations per second.
// Usage: clubhouse-bench putting [--data DIR] [--runs N]   (DIR = shared/data/putting/presidio)

import Foundation
import PuttingCore
#if canImport(Glibc)
import Glibc
#endif

private func nowSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Median, min and all timings of `runs` calls.
private func measure(runs: Int, _ body: () -> Void) -> (median: Double, min: Double) {
    var times: [Double] = []
    for _ in 0..<runs {
        let t0 = nowSeconds()
        body()
        times.append(nowSeconds() - t0)
    }
    times.sort()
    return (times[times.count / 2], times[0])
}

private func ms(_ s: Double) -> String { String(format: "%.3f ms", s * 1000) }

/// The compat model written the straightforward way, as the original did it: per step a binary search
/// of both axes, the mask, height and gradient read from separate row arrays, the path always
/// recorded. Same arithmetic, so the same answers — it is the baseline of the speed-up.
private struct StraightforwardCompat {
    let xAxis: [Double], zAxis: [Double]
    let mask: [[Bool]], height: [[Double]], gradX: [[Double]], gradZ: [[Double]]
    let a0: Double

    init(_ hf: Heightfield, stimp: Double) {
        xAxis = (0..<hf.nx).map { Double($0) * hf.resolutionFt + hf.xMinFt }
        zAxis = (0..<hf.nz).map { Double($0) * hf.resolutionFt + hf.zMinFt }
        let y = (0..<hf.nz).map { r in (0..<hf.nx).map { c in Double(hf[c, r]) } }
        let green = y.map { $0.map { $0 > 0 } }
        let filled = (0..<hf.nz).map { r in (0..<hf.nx).map { c in green[r][c] ? y[r][c] : 0 } }
        mask = green
        height = y
        let res = hf.resolutionFt
        gradX = (0..<hf.nz).map { r in (0..<hf.nx).map { c in
            c == 0 ? (filled[r][1] - filled[r][0]) / res
                : c == hf.nx - 1 ? (filled[r][c] - filled[r][c - 1]) / res : (filled[r][c + 1] - filled[r][c - 1]) / (2.0 * res)
        } }
        gradZ = (0..<hf.nz).map { r in (0..<hf.nx).map { c in
            r == 0 ? (filled[1][c] - filled[0][c]) / res
                : r == hf.nz - 1 ? (filled[r][c] - filled[r - 1][c]) / res : (filled[r + 1][c] - filled[r - 1][c]) / (2.0 * res)
        } }
        a0 = 36.0 / (2.0 * stimp)
    }

    static func searchsorted(_ axis: [Double], _ v: Double) -> Int {
        var lo = 0, hi = axis.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if axis[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    func index(_ x: Double, _ z: Double) -> (Int, Int) {
        (min(max(Self.searchsorted(zAxis, z) - 1, 0), zAxis.count - 1), min(max(Self.searchsorted(xAxis, x) - 1, 0), xAxis.count - 1))
    }

    func simulate(_ x0: Double, _ z0: Double, _ vx0: Double, _ vz0: Double, _ hx: Double, _ hz: Double)
        -> (holed: Bool, finalX: Double, finalZ: Double, finalSpeed: Double, path: [[Double]])
    {
        var p = [x0, z0], v = [vx0, vz0]
        var px: [Double] = [], pz: [Double] = [], py: [Double] = []
        var holed = false
        for _ in 0..<Int(30.0 / 0.01) {
            let (iz, ix) = index(p[0], p[1])
            if !mask[iz][ix] { break }
            px.append(p[0]); pz.append(p[1]); py.append(height[iz][ix])
            let speed = (v[0] * v[0] + v[1] * v[1]).squareRoot()
            if speed < 0.2 { break }
            let d2 = (p[0] - hx) * (p[0] - hx) + (p[1] - hz) * (p[1] - hz)
            if d2 <= (2.125 / 12.0) * (2.125 / 12.0) && speed <= 4.0 { holed = true; break }
            let ag = [-32.174 * gradX[iz][ix], -32.174 * gradZ[iz][ix]]
            let vhat = [v[0] / (speed + 1e-12), v[1] / (speed + 1e-12)]
            let a = [ag[0] + -a0 * vhat[0], ag[1] + -a0 * vhat[1]]
            v = [v[0] + a[0] * 0.01, v[1] + a[1] * 0.01]
            p = [p[0] + v[0] * 0.01, p[1] + v[1] * 0.01]
        }
        return (holed, px.last ?? x0, pz.last ?? z0, (v[0] * v[0] + v[1] * v[1]).squareRoot(), [px, pz, py])
    }

    /// The three-stage search; returns (aim, speed, simulations).
    func bestLine(_ bx: Double, _ bz: Double, _ hx: Double, _ hz: Double) -> (Double, Double, Int) {
        let base = atan2(hz - bz, hx - bx)
        var sims = 0
        func arange(_ a: Double, _ b: Double, _ step: Double) -> [Double] {
            let n = Int(((b - a) / step).rounded(.up))
            guard n > 0 else { return [] }
            var out = [a]
            if n > 1 { out.append(a + step) }
            let d = (a + step) - a
            if n > 2 { for i in 2..<n { out.append(a + Double(i) * d) } }
            return out
        }
        func grid(_ angles: [Double], _ speeds: [Double]) -> (Double, Double) {
            var best: (score: Double, a: Double, s: Double)?
            for a in angles {
                let ang = base + a * (Double.pi / 180.0)
                for s in speeds {
                    let r = simulate(bx, bz, cos(ang) * s, sin(ang) * s, hx, hz)
                    sims += 1
                    let miss = hypot(r.finalX - hx, r.finalZ - hz)
                    let score = r.holed ? -1000.0 - miss : miss + 0.15 * r.finalSpeed
                    if best.map({ score < $0.score }) ?? true { best = (score, a, s) }
                }
            }
            return (best?.a ?? 0, best?.s ?? 2)
        }
        let (a1, s1) = grid(arange(-25, 25 + 1e-9, 2), arange(2, 16 + 1e-9, 1))
        let (a2, s2) = grid(arange(a1 - 4, a1 + 4 + 1e-9, 0.5), arange(max(2, s1 - 2), min(16, s1 + 2) + 1e-9, 0.25))
        let (a3, s3) = grid(arange(a2 - 1, a2 + 1 + 1e-9, 0.2), arange(max(2, s2 - 0.6), min(16, s2 + 0.6) + 1e-9, 0.1))
        _ = simulate(bx, bz, cos(base + a3 * Double.pi / 180) * s3, sin(base + a3 * Double.pi / 180) * s3, hx, hz)
        return (a3, s3, sims + 1)
    }
}

func puttingBench(_ arguments: [String]) {
    var data = "../shared/data/putting/presidio"
    var runs = 15
    var i = 0
    while i < arguments.count {
        if arguments[i] == "--data", i + 1 < arguments.count { data = arguments[i + 1]; i += 1 }
        if arguments[i] == "--runs", i + 1 < arguments.count, let n = Int(arguments[i + 1]) { runs = max(3, n); i += 1 }
        i += 1
    }
    let hf: Heightfield
    do {
        hf = try Heightfield.read(jsonPath: data + "/hole_1/Hole_1_heightfield.json")
    } catch {
        print("putting: \(error) (give the Presidio folder with --data)")
        return
    }
    // The original's putt on hole 1.
    let ball = PointFt(x: 0.4926911974398753, z: -5.874042977297358)
    let hole = PointFt(x: 14.254094985568514, z: -4.302736929024233)

    // Compat: optimised vs straightforward.
    let compatSim = CompatSimulator(green: CompatGreen(hf), parameters: CompatParameters(stimpFt: 10))
    let search = CompatSearch(simulator: compatSim)
    var best = search.bestLine(ballX: ball.x, ballZ: ball.z, holeX: hole.x, holeZ: hole.z)
    let compat = measure(runs: runs) {
        best = search.bestLine(ballX: ball.x, ballZ: ball.z, holeX: hole.x, holeZ: hole.z)
    }
    let setup = measure(runs: runs) { _ = CompatGreen(hf) }
    let naive = StraightforwardCompat(hf, stimp: 10)
    var naiveResult = (0.0, 0.0, 0)
    let naiveTime = measure(runs: max(3, runs / 3)) { naiveResult = naive.bestLine(ball.x, ball.z, hole.x, hole.z) }
    let same = naiveResult.0 == best.aimOffsetDeg && naiveResult.1 == best.speedFps
    print("putting compat best line, hole 1:       median \(ms(compat.median)) (min \(ms(compat.min)), \(runs) runs), "
        + "\(best.simulations) rolls, \(best.steps) steps, \(String(format: "%.0f", Double(best.simulations) / compat.median)) rolls/s, "
        + "\(String(format: "%.1f", Double(best.steps) / compat.median / 1e6)) M steps/s; aim \(best.aimOffsetDeg)°, speed \(best.speedFps) ft/s, holed \(best.roll.holed)")
    print("putting compat green setup (gradients): median \(ms(setup.median))")
    print("putting compat straightforward:         median \(ms(naiveTime.median)) (same answer: \(same)); speed-up \(String(format: "%.1f", naiveTime.median / compat.median))×")

    // Physics: full best line (solve + tolerances), with and without the early exit.
    let physicsSim = PhysicsSimulator(surface: GreenSurface(hf), parameters: PhysicsParameters(stimpFt: 10))
    var solver = PhysicsSolver(simulator: physicsSim)
    var line = solver.bestLine(ball: ball, hole: hole)
    let physics = measure(runs: runs) { line = solver.bestLine(ball: ball, hole: hole) }
    solver.computeTolerance = false
    let solveOnly = measure(runs: runs) { _ = solver.bestLine(ball: ball, hole: hole) }
    solver.computeTolerance = true
    solver.earlyExit = false
    var slowLine = line
    let noExit = measure(runs: runs) { slowLine = solver.bestLine(ball: ball, hole: hole) }
    let surfaceSetup = measure(runs: runs) { _ = GreenSurface(hf) }
    print("putting physics best line, hole 1:      median \(ms(physics.median)) (min \(ms(physics.min))), \(line.simulations) rolls, "
        + "\(line.evaluations) force evaluations; aim \(String(format: "%.3f", line.aimOffsetDeg))°, speed \(String(format: "%.4f", line.speedFps)) ft/s, "
        + "holed \(line.roll.holed), converged \(line.converged)")
    print("putting physics solve only (no windows): median \(ms(solveOnly.median))")
    print("putting physics without early exit:      median \(ms(noExit.median)), \(slowLine.evaluations) force evaluations "
        + "(same windows: \(slowLine.tolerance == line.tolerance)); early exit speed-up \(String(format: "%.2f", noExit.median / physics.median))×")
    print("putting physics surface setup:           median \(ms(surfaceSetup.median)); slope bound \(String(format: "%.3f", physicsSim.surface.maximumSlope))")

    // Roll throughput: rolls at random aims and speeds from the ball, cup in place.
    var rng = SeededGenerator(seed: 1)
    let launches = (0..<400).map { _ in (rng.uniform(-0.6, 0.6), rng.uniform(3, 12)) }
    let base = atan2(hole.z - ball.z, hole.x - ball.x)
    var steps = 0
    let rolls = measure(runs: 5) {
        steps = 0
        for (a, v) in launches {
            let r = physicsSim.roll(from: ball, vx: cos(base + a) * v, vz: sin(base + a) * v, hole: hole,
                                    options: RollOptions(capture: true, recordPath: false))
            steps += r.steps
        }
    }
    print("putting physics rolls:                  \(String(format: "%.0f", Double(launches.count) / rolls.median)) rolls/s, "
        + "\(String(format: "%.0f", Double(steps) / rolls.median)) Dormand–Prince steps/s (\(steps / launches.count) steps per roll)")
}
