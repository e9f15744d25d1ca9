// Putting: the stroke-error levels against the published make rates they are fitted to. Rolls the physics model on
// a flat green at each data set's green speed, integrates the make probability as a best line does, and prints model
// beside data; --fit refits each level's numbers (least squares, Nelder–Mead) and prints them beside the shipped
// ones; --svg draws the curves with the data points.
// Usage: clubhouse-bench putting-calibrate [--fit] [--svg FILE] [--levels tour,scratch,…] [--curve]

import PuttingCore
#if canImport(Glibc)
import Glibc
#endif

/// A flat green long enough for 30 ft putts, and a solver on it at one green speed.
private struct FlatGreen {
    let surface: GreenSurface

    init?() {
        // 0.5 ft cells like the Presidio greens; the ball and hole sit on the x axis, centred.
        guard let hf = try? GreenGenerator.plane(widthFt: 80, depthFt: 24, slopeX: 0, slopeZ: 0) else { return nil }
        surface = GreenSurface(hf)
    }

    func simulator(stimp: Double) -> PhysicsSimulator {
        PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: stimp))
    }

    /// The make probability of the best line over `d` feet.
    func makeRate(_ d: Double, _ errors: StrokeErrors, stimp: Double) -> Double {
        var solver = PhysicsSolver(simulator: simulator(stimp: stimp))
        solver.computeTolerance = false
        solver.strokeErrors = errors
        solver.lanes = 1
        let line = solver.bestLine(ball: PointFt(x: -d / 2, z: 0), hole: PointFt(x: d / 2, z: 0))
        return line.probability?.probability ?? .nan
    }

    /// The share of missed putts that finish short of the hole over putts of 3, 6, … 30 ft alike: a grid over the
    /// aim (±5σ) and speed (±5σ around the mean) with normal weights, each stroke rolled with the cup.
    func missedShort(_ errors: StrokeErrors, stimp: Double) -> Double {
        let sim = simulator(stimp: stimp)
        var missed = 0.0, short = 0.0
        for d in stride(from: 3.0, through: 30, by: 3) {
            let ball = PointFt(x: -d / 2, z: 0), hole = PointFt(x: d / 2, z: 0)
            let v0 = (2 * sim.parameters.rollingResistance * (d + 17.0 / 12)).squareRoot()
            let sa = errors.aimSDDeg(distanceFt: d), sv = errors.speedSDFraction, mu = errors.paceBiasFraction / sv
            let na = 21, nv = 31
            for i in 0..<nv {
                let z = mu - 5 + 10 * Double(i) / Double(nv - 1)
                let v = v0 * (1 + sv * z)
                guard v > 0 else { continue }
                let wz = exp(-(z - mu) * (z - mu) / 2)
                for j in 0..<na {
                    let a = -5 + 10 * Double(j) / Double(na - 1)
                    let w = wz * exp(-a * a / 2)
                    let angle = a * sa * .pi / 180
                    let r = sim.roll(from: ball, vx: cos(angle) * v, vz: sin(angle) * v, hole: hole,
                                     options: RollOptions(capture: true, recordPath: false))
                    guard !r.holed else { continue }
                    missed += w
                    if r.final.x < hole.x { short += w }
                }
            }
        }
        return missed > 0 ? short / missed : .nan
    }
}

private func calibrationFixed(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite else { return "\(v)" }
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let s = "\((v * p).rounded() / p)"
    return s
}

/// The model's rate for a published bin (its distances weighted as the bin says).
private func modelRate(_ green: FlatGreen, _ bin: PublishedMakeRate, _ errors: StrokeErrors, stimp: Double) -> Double {
    let total = bin.points.reduce(0) { $0 + $1.weight }
    return bin.points.reduce(0) { $0 + $1.weight * green.makeRate($1.distanceFt, errors, stimp: stimp) } / total
}

/// Refits one level: tour by aim and speed spread alone (its data need no more); an amateur level by aim spread,
/// sideways scatter and pace bias, and speed spread where its data reach 18–24 ft (else `speed`), none below tour's.
private func fit(_ level: SkillLevel, _ green: FlatGreen, speed: Double?) -> StrokeErrors {
    let tour = SkillLevel.tour.errors, stimp = level.dataStimpFt
    let shipped = level.errors
    func errors(_ y: [Double]) -> StrokeErrors {
        if level == .tour { return StrokeErrors(aimSDDeg: y[0], speedSDFraction: y[1], skill: level) }
        return StrokeErrors(aimSDDeg: tour.aimSDDeg + exp(y[0]), speedSDFraction: speed ?? tour.speedSDFraction + exp(y[3]),
                            lateralSDIn: exp(y[1]), paceBiasFraction: y[2], skill: level)
    }
    func cost(_ y: [Double]) -> Double {
        let e = errors(y)
        guard e.aimSDDeg > 0.1, e.speedSDFraction > 0.005, abs(e.paceBiasFraction) < 0.2 else { return 1e9 }
        var sum = 0.0
        for bin in level.data { let d = modelRate(green, bin, e, stimp: stimp) - bin.rate; sum += d * d }
        if let short = level.missedShort { let d = green.missedShort(e, stimp: stimp) - short; sum += d * d }
        return sum * 1e4
    }
    let start: [Double] = level == .tour ? [shipped.aimSDDeg, shipped.speedSDFraction]
        : [log(Swift.max(1e-3, shipped.aimSDDeg - tour.aimSDDeg)), log(Swift.max(1e-3, shipped.lateralSDIn)), shipped.paceBiasFraction,
           log(Swift.max(1e-3, shipped.speedSDFraction - tour.speedSDFraction))]
    let first = speed == nil ? start : Array(start.prefix(3)), step = level == .tour ? 0.02 : 0.1
    let y = PhysicsSolver.nelderMead(start: first, steps: first.map { _ in step }, iterations: 120, size: first.map { _ in 1e-4 }, cost)
    return errors(y + (speed == nil || level == .tour ? [] : [0]))
}

func puttingCalibrationBench(_ arguments: [String]) {
    var refit = false
    var svgPath: String?
    var levels = SkillLevel.allCases
    var i = 0
    while i < arguments.count {
        let next = i + 1 < arguments.count ? arguments[i + 1] : ""
        switch arguments[i] {
        case "--fit": refit = true
        case "--curve":
            // Each level's make rate every 0.5 ft from 0.5 to 25 ft, on the flat at its data's green speed.
            guard let green = FlatGreen() else { return }
            for level in SkillLevel.allCases {
                print("\(level.rawValue): " + stride(from: 0.5, through: 25, by: 0.5).map {
                    "\(calibrationFixed($0, 1)) \(calibrationFixed(green.makeRate($0, level.errors, stimp: level.dataStimpFt) * 100, 2))"
                }.joined(separator: ", "))
            }
            return
        case "--svg": svgPath = next; i += 1
        case "--levels": levels = next.split(separator: ",").compactMap { SkillLevel(rawValue: String($0)) }; i += 1
        default: break
        }
        i += 1
    }
    guard let green = FlatGreen() else { return print("putting-calibrate: could not make the flat green") }
    var fitted: [SkillLevel: StrokeErrors] = [:]
    if refit {
        // Scratch and 25 first: 10 and 20 take their speed spread on the line between those two.
        for level in [SkillLevel.tour, .scratch, .twentyFive] where levels.contains(level) || level != .tour {
            fitted[level] = fit(level, green, speed: nil)
        }
        for level in [SkillLevel.ten, .twenty] where levels.contains(level) {
            let lo = fitted[.scratch]?.speedSDFraction ?? SkillLevel.scratch.errors.speedSDFraction
            let hi = fitted[.twentyFive]?.speedSDFraction ?? SkillLevel.twentyFive.errors.speedSDFraction
            fitted[level] = fit(level, green, speed: lo + (hi - lo) * (Double(level.rawValue) ?? 0) / 25)
        }
    }
    var allMet = true
    for level in levels {
        let e = level.errors, stimp = level.dataStimpFt
        print("\(level.rawValue): \(e.summary) at stimp \(calibrationFixed(stimp, 0)); \(level.source)")
        if let f = fitted[level] {
            print("  refitted: aim ±\(calibrationFixed(f.aimSDDeg, 4))°, scatter ±\(calibrationFixed(f.lateralSDIn, 4)) in, "
                + "speed ±\(calibrationFixed(f.speedSDFraction * 100, 3))%, bias \(calibrationFixed(f.paceBiasFraction * 100, 3))% "
                + "(shipped: \(calibrationFixed(e.aimSDDeg, 4))°, \(calibrationFixed(e.lateralSDIn, 4)) in, \(calibrationFixed(e.speedSDFraction * 100, 3))%, "
                + "\(calibrationFixed(e.paceBiasFraction * 100, 3))%)")
        }
        print("  distance        data   model   off (points; target ±\(calibrationFixed(level.targetPoints, 0)))")
        var worst = 0.0
        for bin in level.data {
            let m = modelRate(green, bin, e, stimp: stimp)
            let off = (m - bin.rate) * 100
            worst = Swift.max(worst, abs(off))
            print("  \(bin.label.padding(toLength: 14, withPad: " ", startingAt: 0))\(calibrationFixed(bin.rate * 100, 1).leftPadded(6))% "
                + "\(calibrationFixed(m * 100, 1).leftPadded(6))% \(calibrationFixed(off, 1).leftPadded(6))")
        }
        if let short = level.missedShort {
            print("  misses left short: data \(calibrationFixed(short * 100, 0))%, model \(calibrationFixed(green.missedShort(e, stimp: stimp) * 100, 1))%")
        }
        if level == .tour {
            print("  at stimp 10 (the plugin's default green): " + [5.0, 8, 10, 15, 20].map {
                "\(calibrationFixed($0, 0)) ft \(calibrationFixed(green.makeRate($0, e, stimp: 10) * 100, 1))%"
            }.joined(separator: ", "))
            print("  Berry (1995), professional golfers, a check (not fitted), at stimp 10: " + SkillLevel.berryPros.filter { [3, 5, 8, 10, 15, 20].contains($0.loFt) }.map {
                "\(calibrationFixed($0.loFt, 0)) ft \(calibrationFixed($0.rate * 100, 1))/\(calibrationFixed(green.makeRate($0.loFt, e, stimp: 10) * 100, 1))%"
            }.joined(separator: ", ") + " (data/model)")
        }
        let met = worst <= level.targetPoints
        allMet = allMet && met
        print("  worst \(calibrationFixed(worst, 2)) points: \(met ? "within" : "OUTSIDE") ±\(calibrationFixed(level.targetPoints, 0))")
    }
    print(allMet ? "every level within its target" : "SOME LEVEL OUTSIDE ITS TARGET")
    if let svgPath {
        let svg = calibrationSVG(green, levels)
        guard let f = fopen(svgPath, "w") else { print("cannot write \(svgPath)"); return }
        fputs(svg, f)
        fclose(f)
        print("wrote \(svgPath)")
    }
}

/// Make rate against distance: each level's curve (0.5–25 ft) and its data (circles: a mean distance; bars: a bin).
private func calibrationSVG(_ green: FlatGreen, _ levels: [SkillLevel]) -> String {
    let w = 900.0, h = 560.0, left = 70.0, right = 170.0, top = 40.0, bottom = 60.0
    let maxD = 25.0
    func x(_ d: Double) -> Double { left + d / maxD * (w - left - right) }
    func y(_ p: Double) -> Double { top + (1 - p) * (h - top - bottom) }
    let colours: [SkillLevel: String] = [.tour: "#1b5e20", .scratch: "#1565c0", .ten: "#6a1b9a", .twenty: "#ef6c00", .twentyFive: "#c62828"]
    var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" font-family=\"sans-serif\" font-size=\"13\">\n"
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    s += "<text x=\"\(left)\" y=\"24\" font-size=\"15\">Make rate by distance on a flat green: model (lines) and published data (marks)</text>\n"
    for k in 0...10 {
        let p = Double(k) / 10
        s += "<line x1=\"\(left)\" y1=\"\(y(p))\" x2=\"\(w - right)\" y2=\"\(y(p))\" stroke=\"#ddd\"/>"
        s += "<text x=\"\(left - 8)\" y=\"\(y(p) + 4)\" text-anchor=\"end\">\(k * 10)%</text>\n"
    }
    for d in stride(from: 0, through: 25, by: 5) {
        s += "<line x1=\"\(x(Double(d)))\" y1=\"\(y(0))\" x2=\"\(x(Double(d)))\" y2=\"\(y(0) + 5)\" stroke=\"black\"/>"
        s += "<text x=\"\(x(Double(d)))\" y=\"\(y(0) + 20)\" text-anchor=\"middle\">\(d)</text>\n"
    }
    s += "<text x=\"\((left + w - right) / 2)\" y=\"\(h - 15)\" text-anchor=\"middle\">distance from the hole, ft</text>\n"
    s += "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(w - right)\" y2=\"\(y(0))\" stroke=\"black\"/><line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(left)\" y2=\"\(y(1))\" stroke=\"black\"/>\n"
    for (k, level) in levels.enumerated() {
        let colour = colours[level] ?? "black"
        let e = level.errors, stimp = level.dataStimpFt
        var points: [String] = []
        for d in stride(from: 0.5, through: maxD, by: 0.5) {
            points.append("\(calibrationFixed(x(d), 1)),\(calibrationFixed(y(green.makeRate(d, e, stimp: stimp)), 1))")
        }
        s += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
        for bin in level.data {
            if bin.loFt == bin.hiFt {
                s += "<circle cx=\"\(x(bin.loFt))\" cy=\"\(y(bin.rate))\" r=\"4\" fill=\"white\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            } else {
                s += "<line x1=\"\(x(bin.loFt))\" y1=\"\(y(bin.rate))\" x2=\"\(x(bin.hiFt))\" y2=\"\(y(bin.rate))\" stroke=\"\(colour)\" stroke-width=\"5\" stroke-opacity=\"0.6\"/>\n"
            }
        }
        let ly = top + 20 + Double(k) * 22
        s += "<line x1=\"\(w - right + 15)\" y1=\"\(ly)\" x2=\"\(w - right + 40)\" y2=\"\(ly)\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
        s += "<text x=\"\(w - right + 46)\" y=\"\(ly + 4)\">\(level == .tour ? "tour (stimp 12)" : level.rawValue == "scratch" ? "scratch" : level.rawValue + " hcp")</text>\n"
    }
    if levels.contains(.tour) {
        for bin in SkillLevel.berryPros where bin.loFt <= maxD {
            let cx = x(bin.loFt), cy = y(bin.rate)
            s += "<path d=\"M\(cx - 4),\(cy - 4)L\(cx + 4),\(cy + 4)M\(cx - 4),\(cy + 4)L\(cx + 4),\(cy - 4)\" stroke=\"#555\" stroke-width=\"1.5\"/>\n"
        }
    }
    let ly = top + 20 + Double(levels.count) * 22 + 10
    s += "<circle cx=\"\(w - right + 27)\" cy=\"\(ly)\" r=\"4\" fill=\"white\" stroke=\"black\" stroke-width=\"2\"/><text x=\"\(w - right + 46)\" y=\"\(ly + 4)\">Broadie tour bins</text>\n"
    s += "<line x1=\"\(w - right + 15)\" y1=\"\(ly + 22)\" x2=\"\(w - right + 40)\" y2=\"\(ly + 22)\" stroke=\"black\" stroke-width=\"5\" stroke-opacity=\"0.6\"/><text x=\"\(w - right + 46)\" y=\"\(ly + 26)\">Shot Scope bins</text>\n"
    s += "<path d=\"M\(w - right + 23),\(ly + 40)L\(w - right + 31),\(ly + 48)M\(w - right + 23),\(ly + 48)L\(w - right + 31),\(ly + 40)\" stroke=\"#555\" stroke-width=\"1.5\"/><text x=\"\(w - right + 46)\" y=\"\(ly + 48)\">Berry (1995)</text>\n"
    s += "</svg>\n"
    return s
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
