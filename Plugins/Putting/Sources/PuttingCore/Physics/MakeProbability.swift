// Make probability: the chance a putt drops when the stroke carries a golfer's natural errors.
//
// The stroke's aim error is normal with standard deviation σ_aim (degrees), widened for short putts by a
// sideways scatter at the hole that does not shrink with the distance (σ_lat inches: σ_aim,eff² = σ_aim² +
// atan(σ_lat/D)²); its launch speed is normal with mean (1 + bias) and standard deviation σ_speed times the
// intended speed; aim and speed independent. The numbers are fitted to published make rates by distance for
// named skill levels (`SkillLevel`, SkillLevels.swift, with their sources; Benchmarks/putting/calibrate.sh
// refits them and draws the curves). Rolling distance goes with the square of the launch speed, so σ_speed
// of 5.75 % is about 11.5 % of the distance.
//
// The integral is computed, not sampled. At one launch speed the aims that hole form an interval; the aim
// error's share of it is exact (Φ differences). Over the speed (in units of σ_speed, out to 4σ each side of the
// mean) the holing region ends where the ball stops short of the cup or crosses every part of it too fast, and
// there the interval shrinks like the square root of the distance to the end. So each end is found first (the
// best capture margin over the aim, a smooth function of the speed, is 0 there: Illinois), and each side of the
// intended speed gets a 4-point Gauss–Legendre rule in a variable that takes the square root away. At each node
// the margin over the aim is a near-parabola; its top and width start regula falsi (in the squared offset) on
// each end of the interval, to 0.004σ. The same input gives the same number to the last digit; against a
// computation with 24 nodes a side and ends to 0.0005σ it agrees to 0.1 percentage points on the test putts
// (test), in about half the rolls of the 1.1.1 rule (12 nodes a side across the kink at the ends, 1 point off there).
import ClubhouseJSON
import Glibc
import Synchronization

/// A golfer's stroke errors.
public struct StrokeErrors: Sendable, Equatable, Codable {
    /// Standard deviation of the aim, degrees.
    public var aimSDDeg: Double
    /// Standard deviation of the launch speed, as a fraction of the intended speed.
    public var speedSDFraction: Double
    /// Standard deviation of a sideways miss at the hole that does not shrink with the distance, inches (bumps and
    /// the worn ring around a club green's cup, strikes off the sweet spot): it widens the aim spread of short putts.
    public var lateralSDIn: Double
    /// Mean error of the launch speed, as a fraction of the intended speed (negative: putts left short on average).
    public var paceBiasFraction: Double
    /// The named level these numbers are (nil: a site's own numbers).
    public var skill: SkillLevel?

    /// The default: the PGA Tour level (`SkillLevel.tour`), fitted to Broadie's ShotLink make rates.
    public static var tour: StrokeErrors { SkillLevel.tour.errors }

    public init(aimSDDeg: Double, speedSDFraction: Double, lateralSDIn: Double = 0, paceBiasFraction: Double = 0,
                skill: SkillLevel? = nil)
    {
        self.aimSDDeg = aimSDDeg
        self.speedSDFraction = speedSDFraction
        self.lateralSDIn = lateralSDIn
        self.paceBiasFraction = paceBiasFraction
        self.skill = skill
    }

    /// The aim spread of a putt of `distanceFt`, degrees: σ_aim and the sideways scatter's angle at that distance.
    public func aimSDDeg(distanceFt d: Double) -> Double {
        guard lateralSDIn > 0 else { return aimSDDeg }
        let lateral = atan(lateralSDIn / 12 / Swift.max(d, 0.01)) * 180 / .pi
        return (aimSDDeg * aimSDDeg + lateral * lateral).squareRoot()
    }

    /// The errors as the make probability integrates them for a putt of `distanceFt` (the scatter folded into the aim).
    func atDistance(_ d: Double) -> StrokeErrors {
        StrokeErrors(aimSDDeg: aimSDDeg(distanceFt: d), speedSDFraction: speedSDFraction, paceBiasFraction: paceBiasFraction, skill: skill)
    }

    /// Checks the numbers; throws the limit a user should stay within.
    public func validated() throws(PuttingError) -> StrokeErrors {
        guard aimSDDeg.isFinite, aimSDDeg > 0, aimSDDeg <= 10 else {
            throw .invalidSetting(name: "aim spread", value: aimSDDeg, limit: "above 0 and at most 10 degrees")
        }
        guard speedSDFraction.isFinite, speedSDFraction > 0, speedSDFraction <= 0.5 else {
            throw .invalidSetting(name: "speed spread", value: speedSDFraction * 100, limit: "above 0 and at most 50 percent")
        }
        guard lateralSDIn.isFinite, lateralSDIn >= 0, lateralSDIn <= 6 else {
            throw .invalidSetting(name: "sideways scatter", value: lateralSDIn, limit: "0 to 6 inches")
        }
        guard paceBiasFraction.isFinite, abs(paceBiasFraction) <= 0.2 else {
            throw .invalidSetting(name: "pace bias", value: paceBiasFraction * 100, limit: "within ±20 percent")
        }
        return self
    }

    /// "a PGA Tour player's stroke (aim ±1.46°, speed ±5.8%)": how the answers name the errors.
    public var summary: String {
        var numbers = "aim ±\(fixed(aimSDDeg, 2))°"
        if lateralSDIn > 0 { numbers += " and ±\(fixed(lateralSDIn, 2)) in at the hole" }
        numbers += ", speed ±\(fixed(speedSDFraction * 100, 1))%"
        if paceBiasFraction != 0 { numbers += ", \(fixed(abs(paceBiasFraction) * 100, 1))% \(paceBiasFraction < 0 ? "short" : "long") on average" }
        return "\(skill.map { $0.possessive } ?? "a stroke's natural errors:") \(skill == nil ? numbers : "stroke (\(numbers))")"
    }

    /// The errors in the answers' JSON (`strokeErrors`).
    public var json: JSONValue {
        var o = JSONObject()
        o["aimSDDeg"] = .double(aimSDDeg)
        o["speedSDFraction"] = .double(speedSDFraction)
        o["lateralSDIn"] = .double(lateralSDIn)
        o["paceBiasFraction"] = .double(paceBiasFraction)
        o["skill"] = skill.map { .string($0.rawValue) } ?? .null
        return .object(o)
    }

    /// Reads `json` (numbers a stored answer lacks keep their defaults: 0 scatter, no bias).
    public init?(json: JSONValue?) {
        guard let e = json, let a = e["aimSDDeg"]?.doubleValue, let v = e["speedSDFraction"]?.doubleValue else { return nil }
        self.init(aimSDDeg: a, speedSDFraction: v, lateralSDIn: e["lateralSDIn"]?.doubleValue ?? 0,
                  paceBiasFraction: e["paceBiasFraction"]?.doubleValue ?? 0,
                  skill: e["skill"]?.stringValue.flatMap(SkillLevel.init(rawValue:)))
    }
}

/// The chance a stroke drops.
public struct MakeProbability: Sendable, Equatable {
    /// 0…1.
    public var probability: Double
    public var errors: StrokeErrors
    /// Rolls it took.
    public var simulations: Int
}

enum MakeProbabilityCalculator {
    /// Standard normal CDF.
    static func phi(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

    /// Gauss–Legendre nodes and weights on [−1, 1], 12 points.
    static let legendre = legendre(12)
    /// Gauss–Legendre points on each side of the intended speed in the rule that cuts the speed range.
    static let adaptiveNodes = 4
    /// 8 points.
    static let legendre8 = legendre(8)

    /// Gauss–Legendre nodes and weights on [−1, 1], `n` points.
    static func legendre(_ n: Int) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        for i in 1...n {
            var x = cos(.pi * (Double(i) - 0.25) / (Double(n) + 0.5))
            var dp = 0.0
            for _ in 0..<100 {
                var p0 = 1.0, p1 = x
                for k in 2...n {
                    let p2 = ((2 * Double(k) - 1) * x * p1 - (Double(k) - 1) * p0) / Double(k)
                    p0 = p1; p1 = p2
                }
                dp = Double(n) * (x * p1 - p0) / (x * x - 1)
                let dx = p1 / dp
                x -= dx
                if abs(dx) < 1e-15 { break }
            }
            out.append((x, 2 / ((1 - x * x) * dp * dp)))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// P(holed) from a continuous capture margin: `margin(aim, speed)` is ≥ 0 exactly when the stroke drops and
    /// varies smoothly across the edge of the holing region (see `PhysicsRoll.captureMargin`), so each end of
    /// the holing aim interval is found by Illinois regula falsi on the margin (about 3 rolls to 0.002σ)
    /// instead of bisection on a yes/no answer (about 7 rolls to 0.005σ). Same quadrature as `probability`.
    static func probability(aimDeg: Double, speedFps: Double, errors: StrokeErrors, nodes: Int = 12, edgePrecision: Double = 0.002,
                            margin: (Double, Double) -> Double) -> MakeProbability
    {
        var simulations = 0
        func m(_ a: Double, _ v: Double) -> Double {
            simulations += 1
            return margin(a, v)
        }
        let sa = errors.aimSDDeg, sv = errors.speedSDFraction
        let zLimit = 4.0
        func window(at v: Double, guess: Double, previous: (Double, Double)?) -> (Double, Double)? {
            marginWindow(at: v, guess: guess, previous: previous, aimDeg: aimDeg, sa: sa, zLimit: zLimit, edgePrecision: edgePrecision, margin: m)
        }
        func aimShare(_ w: (Double, Double)?) -> Double {
            guard let (lo, hi) = w else { return 0 }
            return phi((hi - aimDeg) / sa) - phi((lo - aimDeg) / sa)
        }
        let rule = nodes == 12 ? legendre : (nodes == 8 ? legendre8 : legendre(nodes))
        let total = overSpeeds(rule: rule, zLimit: zLimit, mean: errors.paceBiasFraction / sv, aimDeg: aimDeg, speedFps: speedFps, sv: sv,
                               window: { window(at: $0, guess: $1, previous: $2) }, aimShare: aimShare)
        return MakeProbability(probability: Swift.min(1, Swift.max(0, total)), errors: errors, simulations: simulations)
    }

    /// The holing aim interval at speed v from the capture margin, searched around `guess` (the previous
    /// speed's interval warm-starts its ends), or nil when no aim within 4σ drops.
    static func marginWindow(at v: Double, guess: Double, previous: (Double, Double)?, aimDeg: Double, sa: Double, zLimit: Double,
                         edgePrecision: Double, margin m: (Double, Double) -> Double) -> (Double, Double)? {
        var centre: (Double, Double)?
        let g = m(guess, v)
        if g >= 0 { centre = (guess, g) } else {
            var k = 1
            while Double(k) * 0.25 <= zLimit, centre == nil {
                for s in [-1.0, 1.0] {
                    let a = guess + s * Double(k) * 0.25 * sa
                    guard abs(a - aimDeg) <= zLimit * sa else { continue }
                    let f = m(a, v)
                    if f >= 0 { centre = (a, f); break }
                }
                k += 1
            }
        }
        guard let (c, fc) = centre else { return nil }
        let reach = zLimit * sa + abs(c - aimDeg)
        func edge(_ dir: Double, hint: Double?) -> Double {
            // Bracket: (good offset, its margin ≥ 0) and (bad offset, its margin < 0).
            var good = (0.0, fc)
            var bad: (Double, Double)?
            if let h = hint, h > 0.02 * sa, h < reach {
                let lo = h - 0.03 * sa, hi = h + 0.03 * sa
                let fh = m(c + dir * hi, v)
                if fh >= 0 { good = (hi, fh) } else {
                    let fl = m(c + dir * lo, v)
                    if fl >= 0 { good = (lo, fl); bad = (hi, fh) } else { bad = (lo, fl) }
                }
            }
            var step = 0.25 * sa
            while bad == nil, good.0 < reach {
                let x = Swift.min(good.0 + step, reach + 1e-9)
                let f = m(c + dir * x, v)
                if f >= 0 { good = (x, f); step *= 2 } else { bad = (x, f) }
            }
            guard let b = bad else { return c + dir * good.0 }
            return c + dir * refineEdge(good: good, bad: b, dir: dir, centre: c, sa: sa, precision: edgePrecision) { m($0, v) }
        }
        return (edge(-1, hint: previous.map { c - $0.0 }), edge(1, hint: previous.map { $0.1 - c }))
    }

    /// P(holed) with the speed range cut where the holing region ends: the holing aims at one launch speed form
    /// an interval that shrinks to nothing where the ball no longer reaches the cup (too soft) or crosses every
    /// part of it too fast; its width goes like the square root of the distance in speed to that end. So the
    /// ends are found first (the best capture margin over the aim at a speed is a smooth function of the speed
    /// that crosses 0 there: Illinois on it), and each side of the intended speed, out to its end or 4σ, gets a
    /// Gauss–Legendre rule in a variable that takes the square root away (z = end·(1 − (1 − s)²)). The integrand
    /// is then smooth, and a few points a side do what 12 did across a kink. At each node the margin over the
    /// aim is a near-parabola (1 − q² − (b/R)², b nearly linear in the aim): three rolls give its top and width,
    /// and each end of the holing aims is then refined by regula falsi in the squared offset from the top.
    /// `margin(aim, speed, full)` is the capture margin of one stroke (`full`: roll to the end, no early exit,
    /// so a ball that stops short reports how far short). When the intended stroke itself does not drop (a
    /// `roll` of the user's own stroke), the holing region may lie anywhere, and the node-by-node rule is used.
    static func probability(aimDeg: Double, speedFps: Double, errors: StrokeErrors, nodes: Int = adaptiveNodes,
                            edgePrecision: Double = 0.004, lanes: Int = 1,
                            margin: @Sendable (Double, Double, Bool) -> Double) -> MakeProbability
    {
        let counter = RollCounter()
        @Sendable func m(_ a: Double, _ v: Double, _ full: Bool = false) -> Double {
            counter.add()
            return margin(a, v, full)
        }
        let sa = errors.aimSDDeg, sv = errors.speedSDFraction
        let zLimit = 4.0
        // The mean speed error in σ units: the density is φ(z − mu), and each side reaches 4σ beyond the mean.
        let mu = errors.paceBiasFraction / sv
        @Sendable func speed(_ z: Double) -> Double { speedFps * (1 + sv * z) }

        /// The best margin over the aim at speed v, searched from `guess`: a parabola through three aims, slid
        /// uphill until the middle one is highest, and its vertex. Also the parabola's curvature k (margin ≈
        /// top − k·(aim − top's aim)²), 0 when unknown.
        @Sendable func peak(_ v: Double, guess: Double, full: Bool, rollTop: Bool = true) -> (aim: Double, margin: Double, k: Double) {
            let d = 0.25 * sa
            var x0 = guess - d, x1 = guess, x2 = guess + d
            var f0 = m(x0, v, full), f1 = m(x1, v, full), f2 = m(x2, v, full)
            var slides = 0
            while !(f1 >= f0 && f1 >= f2), slides < 16, abs(x1 - aimDeg) <= zLimit * sa {
                slides += 1
                if f0 > f2 {
                    x2 = x1; f2 = f1; x1 = x0; f1 = f0; x0 = x1 - d; f0 = m(x0, v, full)
                } else {
                    x0 = x1; f0 = f1; x1 = x2; f1 = f2; x2 = x1 + d; f2 = m(x2, v, full)
                }
            }
            var best = (x1, f1)
            if f0 > best.1 { best = (x0, f0) }
            if f2 > best.1 { best = (x2, f2) }
            let curvature = f0 - 2 * f1 + f2
            guard curvature < 0 else { return (best.0, best.1, 0) }
            let k = -curvature / (2 * d * d)
            let xv = Swift.min(x2, Swift.max(x0, x1 + 0.5 * d * (f0 - f2) / curvature))
            // The top itself: rolled, or (at the nodes, which only need a point inside the window) the parabola's.
            let fv = rollTop && abs(xv - x1) > 1e-6 * d ? m(xv, v, full) : f1 + k * (xv - x1) * (xv - x1)
            if fv > best.1 || !rollTop { best = (xv, fv) }
            return (best.0, best.1, k)
        }
        /// The margin squeezed so that far misses (margin −(gap/R)², hundreds) do not swamp the root finding:
        /// about the miss in cup radii, which goes nearly linearly with the speed.
        @Sendable func squeezed(_ x: Double) -> Double { x >= 0 ? x : 1 - (1 - x).squareRoot() }

        let centre = peak(speedFps, guess: aimDeg, full: false)
        guard centre.margin >= 0 else {
            var out = probability(aimDeg: aimDeg, speedFps: speedFps, errors: errors, nodes: 12, edgePrecision: 0.002,
                                  margin: { a, v in m(a, v) })
            out.simulations = counter.value
            return out
        }
        let rule = nodes == 8 ? legendre8 : legendre(nodes)
        // The slow half and the fast half of the speeds, each on its own lane, added slow half first.
        let halves = Lanes.map(2, lanes: lanes) { half -> Double in
            let direction = half == 0 ? -1.0 : 1.0
            var total = 0.0
            // The end of the holing region on this side (or 4σ).
            let sideLimit = Swift.max(0.5, zLimit + direction * mu)
            var end = sideLimit
            var cut = false
            // Only the slow side rolls to the end (a ball that stops short must say how far short); on the fast side
        // every stroke near the top reaches the cup, and the early exit only stops balls already past it.
        var inner = (z: 0.0, f: squeezed(centre.margin), aim: centre.aim)
            var outer: (z: Double, f: Double, aim: Double)?
            for z in (sideLimit > 2 ? [2.0, sideLimit] : [sideLimit]) where outer == nil {
                guard speed(direction * z) > 0 else { outer = (z, -1, inner.aim); break }
                let p = peak(speed(direction * z), guess: inner.aim, full: direction < 0, rollTop: false)
                if p.margin >= 0 { inner = (z, squeezed(p.margin), p.aim) } else { outer = (z, squeezed(p.margin), p.aim) }
            }
            if let o = outer {
                cut = true
                let (iz, ia, oz, oa) = (inner.z, inner.aim, o.z, o.aim)
                let root = PhysicsSolver.illinois(inner.z, inner.f, inner.aim, o.z, o.f, o.aim, tolerance: 0.05, valueTolerance: 1e-3) { z in
                    guard speed(direction * z) > 0 else { return (-1.0, ia) }
                    // The top's aim moves smoothly with the speed: start from the line between the bracket's ends.
                    let p = peak(speed(direction * z), guess: ia + (oa - ia) * (z - iz) / (oz - iz), full: direction < 0, rollTop: false)
                    return (squeezed(p.margin), p.aim)
                }
                end = root.x
            }
            // Nodes from the intended speed outward; each starts from the previous node's top.
            var guess = centre.aim
            let points = rule.map { (s: ($0.0 + 1) / 2, w: $0.1 / 2) }.sorted { $0.s < $1.s }
            for (s, w) in points {
                // z = end·(1 − (1 − s)²) when cut (dz = 2·end·(1 − s) ds), else z = end·s.
                let z = cut ? end * (1 - (1 - s) * (1 - s)) : end * s
                let jacobian = cut ? 2 * end * (1 - s) : end
                let v = speed(direction * z)
                guard v > 0 else { continue }
                let top = peak(v, guess: guess, full: false, rollTop: false)
                guard top.margin >= 0 else { continue }
                guess = top.aim
                let reach = zLimit * sa + abs(top.aim - aimDeg)
                let hint = top.k > 0 ? (top.margin / top.k).squareRoot() : nil
                let lo = top.aim - marginEdge(dir: -1, centre: top.aim, centreMargin: top.margin, hint: hint, reach: reach, sa: sa,
                                              precision: edgePrecision) { m($0, v) }
                let hi = top.aim + marginEdge(dir: 1, centre: top.aim, centreMargin: top.margin, hint: hint, reach: reach, sa: sa,
                                              precision: edgePrecision) { m($0, v) }
                let share = phi((hi - aimDeg) / sa) - phi((lo - aimDeg) / sa)
                total += w * jacobian * exp(-(direction * z - mu) * (direction * z - mu) / 2) / (2 * Double.pi).squareRoot() * share
            }
            return total
        }
        let total = halves[0] + halves[1]
        return MakeProbability(probability: Swift.min(1, Swift.max(0, total)), errors: errors, simulations: counter.value)
    }

    /// How far from `centre` (margin ≥ 0 there) the holing aims end in direction `dir`: the margin at the `hint`
    /// offset, a bracket, then regula falsi in the squared offset (the margin is nearly linear in it) to
    /// `precision`·σ. `m(aim)` is the margin of one stroke.
    static func marginEdge(dir: Double, centre c: Double, centreMargin fc: Double, hint: Double?, reach: Double, sa: Double,
                           precision: Double, _ m: (Double) -> Double) -> Double
    {
        var good = (0.0, fc)
        var bad: (Double, Double)?
        var step = 0.25 * sa
        if let h = hint, h.isFinite, h > 0.01 * sa, h < reach {
            let fh = m(c + dir * h)
            if fh >= 0 { good = (h, fh); step = 0.05 * sa } else { bad = (h, fh) }
        }
        while bad == nil, good.0 < reach {
            let x = Swift.min(good.0 + step, reach + 1e-9)
            let f = m(c + dir * x)
            if f >= 0 { good = (x, f); step *= 2 } else { bad = (x, f) }
        }
        guard let b = bad else { return good.0 }
        return refineEdge(good: good, bad: b, dir: dir, centre: c, sa: sa, precision: precision, m)
    }

    /// From a bracket of offsets from `centre` — `good` (margin ≥ 0) and `bad` (margin < 0) — to the edge
    /// between them within `precision`·σ: regula falsi in the squared offset (across the cup the margin is
    /// 1 − q² − (b/R)² with b nearly linear in the aim, so nearly linear in the squared offset and a secant step
    /// lands on the edge in one or two rolls), Illinois-weighted, every fourth step a bisection so that a margin
    /// that is not smooth (an early-exit roll) still converges. Returns the offset.
    static func refineEdge(good: (Double, Double), bad: (Double, Double), dir: Double, centre c: Double, sa: Double,
                           precision: Double, _ m: (Double) -> Double) -> Double
    {
        var b = bad
        var gd = good
        var side = 0
        var iteration = 0
        var lastX: Double?
        while b.0 - gd.0 > precision * sa {
            iteration += 1
            let ug = gd.0 * gd.0, ub = b.0 * b.0
            let u = (ug * b.1 - ub * gd.1) / (b.1 - gd.1)
            var x = u > 0 ? u.squareRoot() : .nan
            let width = b.0 - gd.0
            if !x.isFinite || x <= gd.0 + 0.02 * width || x >= b.0 - 0.02 * width || iteration % 4 == 0 { x = (gd.0 + b.0) / 2 }
            let f = m(c + dir * x)
            if f >= 0 {
                gd = (x, f)
                if side == 1 { b.1 /= 2 }
                side = 1
            } else {
                b = (x, f)
                if side == -1 { gd.1 /= 2 }
                side = -1
            }
            if abs(f) < 1e-12 { return x }
            // A secant step that moved the estimate by less than the precision has converged.
            if let p = lastX, abs(x - p) < precision * sa, iteration % 4 != 0 { return x }
            lastX = x
        }
        return (gd.0 + b.0) / 2
    }

    /// P(holed) for a stroke aimed at `aimDeg` with speed `speedFps`; `holes(aim, speed)` rolls one stroke.
    /// `edgePrecision`: the holing aim interval's ends are found to this fraction of σ_aim; `nodes`: the
    /// Gauss–Legendre points on each half of the speed range (the defaults agree with a computation with
    /// twice the nodes and a tenth of the edge error to 0.2 percentage points on most Presidio putts,
    /// 0.5 on one with a sharp end of its holing region in speed: test).
    static func probability(aimDeg: Double, speedFps: Double, errors: StrokeErrors, edgePrecision: Double = 0.005, nodes: Int = 12,
                            holes: (Double, Double) -> Bool) -> MakeProbability
    {
        var simulations = 0
        func holed(_ a: Double, _ v: Double) -> Bool {
            simulations += 1
            return holes(a, v)
        }
        let sa = errors.aimSDDeg, sv = errors.speedSDFraction
        let zLimit = 4.0
        /// The holing aim interval at speed v, searched around `guess`, or nil when none holes within 4σ.
        /// The holing aim interval at speed v, searched around `guess` (the previous node's interval warm-starts
        /// its ends), or nil when none holes within 4σ.
        func window(at v: Double, guess: Double, previous: (Double, Double)?) -> (Double, Double)? {
            var centre: Double?
            if holed(guess, v) { centre = guess } else {
                var k = 1
                while Double(k) * 0.25 <= zLimit, centre == nil {
                    for s in [-1.0, 1.0] {
                        let a = guess + s * Double(k) * 0.25 * sa
                        if abs(a - aimDeg) <= zLimit * sa, holed(a, v) { centre = a; break }
                    }
                    k += 1
                }
            }
            guard let c = centre else { return nil }
            let reach = zLimit * sa + abs(c - aimDeg)
            func edge(_ dir: Double, hint: Double?) -> Double {
                var good = 0.0, step = 0.1 * sa
                var bad: Double?
                if let h = hint, h > 0.05 * sa, h < reach {
                    // Bracket the end near where it was at the previous speed.
                    let lo = h - 0.05 * sa, hi = h + 0.05 * sa
                    if holed(c + dir * hi, v) { good = hi } else if holed(c + dir * lo, v) { good = lo; bad = hi } else { bad = lo }
                }
                while bad == nil, good < reach {
                    if holed(c + dir * (good + step), v) { good += step; step *= 2 } else { bad = good + step }
                }
                guard var b = bad else { return c + dir * good }
                var g = good
                while b - g > edgePrecision * sa {
                    let m = (g + b) / 2
                    if holed(c + dir * m, v) { g = m } else { b = m }
                }
                return c + dir * (g + b) / 2
            }
            return (edge(-1, hint: previous.map { c - $0.0 }), edge(1, hint: previous.map { $0.1 - c }))
        }
        func aimShare(_ w: (Double, Double)?) -> Double {
            guard let (lo, hi) = w else { return 0 }
            return phi((hi - aimDeg) / sa) - phi((lo - aimDeg) / sa)
        }
        // Speed in σ units z ∈ [−4, 4], split in two halves around the intended speed so the cut-offs
        // (too short, too fast) fall between nodes of separate rules.
        let rule = nodes == 12 ? legendre : legendre(nodes)
        let total = overSpeeds(rule: rule, zLimit: zLimit, mean: errors.paceBiasFraction / sv, aimDeg: aimDeg, speedFps: speedFps, sv: sv,
                               window: { window(at: $0, guess: $1, previous: $2) }, aimShare: aimShare)
        return MakeProbability(probability: Swift.min(1, Swift.max(0, total)), errors: errors, simulations: simulations)
    }

    /// The Gauss–Legendre sum over the launch speed (z in σ_speed, out to ±`zLimit`) of the normal density
    /// times `aimShare` of the holing aim window at each speed. Each half walks outward from the intended
    /// speed so each window warm-starts the next (`window(v, guess, previous)`), and stops after two
    /// speeds in a row with no window.
    static func overSpeeds(rule: [(Double, Double)], zLimit: Double, mean mu: Double = 0, aimDeg: Double, speedFps: Double, sv: Double,
                           window: (Double, Double, (Double, Double)?) -> (Double, Double)?,
                           aimShare: ((Double, Double)?) -> Double) -> Double
    {
        var total = 0.0
        for (lo, hi) in [(0.0, mu - zLimit), (0.0, mu + zLimit)] {
            var guess = aimDeg
            var previous: (Double, Double)?
            let points = rule.map { (lo + (hi - lo) * ($0.0 + 1) / 2, $0.1 * abs(hi - lo) / 2) }
                .sorted { abs($0.0) < abs($1.0) }
            var empty = 0
            for (z, w) in points {
                let v = speedFps * (1 + sv * z)
                guard v > 0, empty < 2 else { continue }
                let win = window(v, guess, previous)
                if let (a, b) = win { guess = (a + b) / 2; empty = 0 } else { empty += 1 }
                previous = win
                total += w * exp(-(z - mu) * (z - mu) / 2) / (2 * Double.pi).squareRoot() * aimShare(win)
            }
        }
        return total
    }
}

/// Rolls counted from any lane.
final class RollCounter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.add(1, ordering: .relaxed) }
}
