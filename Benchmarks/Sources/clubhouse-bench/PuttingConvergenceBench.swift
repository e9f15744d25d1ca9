// Putting: is the best line converged in the integrator's step? The 144-putt sweep solved with the production
// integration and with reference integrations (smaller steps, tighter tolerance), side by side.
// Usage: clubhouse-bench putting-converge [--data DIR] [--per-green N] [--lanes N] [--variants a,b,…] [--probe FACTOR]
//        [--reference quarter|eighth] [--verbose]

import PuttingCore
#if canImport(Glibc)
import Glibc
#endif

private struct Variant {
    var name: String
    var cells: Double
    var absolute: Double
    var relative: Double
    var earlyScale: Double
}

func puttingConvergenceBench(_ arguments: [String]) {
    var data = "../shared/data/putting/presidio"
    var perGreen = 16
    var lanes = PuttingService.processorCount
    var only: Set<String>?
    var verbose = false
    var probe = 2.0
    var eighth = false
    var i = 0
    while i < arguments.count {
        let next = i + 1 < arguments.count ? arguments[i + 1] : ""
        switch arguments[i] {
        case "--data": data = next; i += 1
        case "--per-green": perGreen = Swift.max(1, Int(next) ?? perGreen); i += 1
        case "--lanes": lanes = Swift.max(1, Int(next) ?? lanes); i += 1
        case "--variants": only = Set(next.split(separator: ",").map(String.init)); i += 1
        case "--verbose": verbose = true
        case "--probe": probe = Double(next) ?? probe; i += 1
        case "--reference":
            // eighth: a finer reference (steps of an eighth of a cell, 10⁻¹⁰ ft), to check the quarter-cell one.
            if next == "eighth" { eighth = true }
            i += 1
        default: break
        }
        i += 1
    }
    let reference = eighth ? Variant(name: "ref", cells: 0.125, absolute: 1e-10, relative: 1e-12, earlyScale: 1)
        : Variant(name: "ref", cells: 0.25, absolute: 1e-8, relative: 1e-11, earlyScale: 1)
    // Production as it ships (PhysicsParameters' defaults); solved with its stability check whatever --variants says.
    let defaults = PhysicsParameters(stimpFt: 10)
    let shipping = Variant(name: "prod", cells: defaults.maxStepCells, absolute: defaults.absoluteTolerance,
                           relative: defaults.relativeTolerance, earlyScale: defaults.earlyExitToleranceScale)
    var variants = [
        shipping,
        Variant(name: "half", cells: 0.5, absolute: 1e-6, relative: 1e-9, earlyScale: 10),
        Variant(name: "two", cells: 2, absolute: 1e-6, relative: 1e-9, earlyScale: 10),
        Variant(name: "tight", cells: 1, absolute: 1e-8, relative: 1e-11, earlyScale: 1),
        Variant(name: "qtr", cells: 0.25, absolute: 1e-6, relative: 1e-9, earlyScale: 10),
    ]
    if let only { variants = variants.filter { only.contains($0.name) } }
    struct Answer { var aim, speed, p: Double; var stage: String; var holed: Bool; var cpu: Double; var instability: NumericalInstability? }
    func solve(_ surface: GreenSurface, _ v: Variant, _ putt: SweepPutt, check: Bool = false) -> Answer {
        var parameters = PhysicsParameters(stimpFt: 10)
        parameters.maxStepCells = v.cells
        parameters.absoluteTolerance = v.absolute
        parameters.relativeTolerance = v.relative
        parameters.earlyExitToleranceScale = v.earlyScale
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: surface, parameters: parameters))
        solver.strokeErrors = .tour
        solver.lanes = lanes
        solver.checkStability = check
        solver.probeStepFactor = probe
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        let c0 = Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
        let line = solver.bestLine(ball: putt.ball, hole: putt.flag)
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        let c1 = Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
        return Answer(aim: line.aimOffsetDeg, speed: line.speedFps, p: line.probability?.probability ?? .nan, stage: line.stage,
                      holed: line.roll.holed, cpu: c1 - c0, instability: line.instability)
    }
    var worst: [String: (aim: Double, speed: Double, p: Double, failing: Int, cpu: Double)] = [:]
    var refCPU = 0.0
    // Production as it ships: the one-cell integration with its stability check.
    var production = (within: 0, flagged: 0, flaggedWithin: 0, missed: [String](), cpu: 0.0)
    // The worst differences among the putts the nested solve answers (no second search there), and among the rest that
    // were not flagged.
    var nestedWorst = (count: 0, aim: 0.0, speed: 0.0, p: 0.0), otherWorst = (count: 0, aim: 0.0, speed: 0.0, p: 0.0)
    let refFine = Variant(name: "ref/2", cells: 0.125, absolute: 1e-10, relative: 1e-12, earlyScale: 1)
    for n in 1...9 {
        guard let hf = try? Heightfield.read(jsonPath: data + "/hole_\(n)/Hole_\(n)_heightfield.json") else {
            print("putting-converge: no heightfield for hole \(n) under \(data)")
            return
        }
        let surface = GreenSurface(hf)
        for (k, putt) in PuttSweep.putts(on: surface, count: perGreen, seed: UInt64(1000 + n)).enumerated() {
            let ref = solve(surface, reference, putt)
            refCPU += ref.cpu
            var line = "hole \(n) #\(k) \(fmt(putt.ball.distance(to: putt.flag), 1)) ft ref \(ref.stage) aim \(fmt(ref.aim, 3)) v \(fmt(ref.speed, 4)) p \(fmt(ref.p * 100, 2))"
            let shipped = solve(surface, shipping, putt, check: true)
            production.cpu += shipped.cpu
            let sa = abs(shipped.aim - ref.aim), sv = abs(shipped.speed - ref.speed) / ref.speed, sp = abs(shipped.p - ref.p) * 100
            let within = sa <= 0.05 && sv <= 0.005 && !(sp > 0.5)
            if within { production.within += 1 }
            if shipped.stage == "nested" || shipped.stage == "warm" {
                nestedWorst = (nestedWorst.count + 1, Swift.max(nestedWorst.aim, sa), Swift.max(nestedWorst.speed, sv), Swift.max(nestedWorst.p, sp))
            } else if shipped.instability == nil {
                otherWorst = (otherWorst.count + 1, Swift.max(otherWorst.aim, sa), Swift.max(otherWorst.speed, sv), Swift.max(otherWorst.p, sp))
            }
            if let u = shipped.instability {
                production.flagged += 1
                if within { production.flaggedWithin += 1 }
                line += " | shipped: UNSTABLE spread \(fmt(u.aimDeg, 3))° \(fmt(u.speedFraction * 100, 2))% \(u.probabilityPoints.map { fmt($0, 2) } ?? "-") pt (\(u.otherStage))"
            } else if !within {
                let fine = solve(surface, refFine, putt)
                let fa = abs(fine.aim - ref.aim), fv = abs(fine.speed - ref.speed) / ref.speed, fp = abs(fine.p - ref.p) * 100
                let note = "hole \(n) #\(k): Δaim \(fmt(sa, 3))° Δv \(fmt(sv * 100, 3))% Δp \(fmt(sp, 2)) (\(shipped.stage) vs \(ref.stage)); "
                    + "a finer reference (≤ 1/8 cell, 1e-10) is \(fmt(fa, 3))° \(fmt(fv * 100, 3))% \(fmt(fp, 2)) pt from the reference (\(fine.stage))"
                production.missed.append(note)
                line += " | shipped: MISSED"
            }
            for v in variants {
                let a = solve(surface, v, putt)
                let da = abs(a.aim - ref.aim), dv = abs(a.speed - ref.speed) / ref.speed, dp = abs(a.p - ref.p) * 100
                let fails = da > 0.05 || dv > 0.005 || dp > 0.5
                var w = worst[v.name] ?? (0, 0, 0, 0, 0)
                w.aim = Swift.max(w.aim, da); w.speed = Swift.max(w.speed, dv); w.p = Swift.max(w.p, dp.isNaN ? 0 : dp)
                w.cpu += a.cpu
                if fails { w.failing += 1 }
                worst[v.name] = w
                line += " | \(v.name) \(a.stage == ref.stage ? "" : a.stage + " ")Δaim \(fmt(da, 3)) Δv \(fmt(dv * 100, 3))% Δp \(fmt(dp, 2))\(fails ? " FAIL" : "")"
            }
            if verbose || line.contains("FAIL") { print(line) }
        }
    }
    print("reference: steps ≤ \(reference.cells) cell, tolerance \(reference.absolute) ft + \(reference.relative) relative, early-exit rolls as tight; CPU \(fmt(refCPU, 1)) s")
    let total = 9 * perGreen
    print("production (one cell, 1e-6, stability check): \(production.within) of \(total) within 0.05° / 0.5 % / 0.5 point of the reference; "
        + "\(production.flagged) flagged numerically unstable (\(production.flaggedWithin) of them within anyway); "
        + "\(production.missed.count) neither; CPU \(fmt(production.cpu, 1)) s")
    for m in production.missed { print("  neither: \(m)") }
    print("  nested answers (\(nestedWorst.count) putts): worst Δaim \(fmt(nestedWorst.aim, 4))°, Δspeed \(fmt(nestedWorst.speed * 100, 4)) %, Δp \(fmt(nestedWorst.p, 3)) points; "
        + "later stages not flagged (\(otherWorst.count) putts): worst \(fmt(otherWorst.aim, 4))°, \(fmt(otherWorst.speed * 100, 4)) %, \(fmt(otherWorst.p, 3)) points")
    for v in variants {
        guard let w = worst[v.name] else { continue }
        print("\(v.name) (≤ \(v.cells) cell, tol \(v.absolute), early ×\(v.earlyScale)): worst Δaim \(fmt(w.aim, 3))°, Δspeed \(fmt(w.speed * 100, 3)) %, "
            + "Δp \(fmt(w.p, 2)) points; \(w.failing) putts outside 0.05° / 0.5 % / 0.5 point; CPU \(fmt(w.cpu, 1)) s")
    }
}

private func fmt(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite else { return "\(v)" }
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    return "\((v * p).rounded() / p)"
}
