// Robust homography fitting for sets where most pairs may be wrong (automatic detections).
//
// 1. Search: MSAC (RANSAC scored by the truncated squared error) over minimal 4-pair samples with a
//    confidence-driven sample count and local optimisation of each new best model; the caller's
//    threshold (court metres, forward error) decides the consensus.
// 2. Maximum likelihood on the consensus: the court points are exact landmarks and the noise is in
//    the image (detections), so the fit minimizes the image error of court → image (Levenberg–
//    Marquardt), not the court error, which over-weights the far end of the court (a pixel there is
//    many centimetres) — the cause of fits worse than OpenCV's on noisy sets.
// 3. σ-consensus (after MAGSAC): the final inliers are decided by the data's own noise — within
//    3.72 σ (99.9 % of a 2-D Gaussian) of the fit in the image, σ estimated robustly from the
//    consensus — so a threshold set too tight (true pairs left out, the fit drawn to a corner) or
//    too loose (wrong matches let in) matters much less.
// 4. Trust: the fit's covariance (from its Jacobian and the 95 % upper bound of the noise given the
//    redundancy) is carried to the half court; when its 3σ error somewhere on the court exceeds
//    `RansacOptions.maxCourtUncertainty`, or when that many agreeing pairs could be chance at this
//    threshold, the fit is refused: a wrong court is worse than no court.
// Deterministic for a given seed.

import Glibc

/// What the robust fit did, beside the homography and its inlier mask.
struct RobustFit {
    var homography: Homography
    var inliers: [Bool]
    /// Minimal samples drawn (including ones refused as degenerate).
    var samples: Int
    /// Scatter of the inliers about the fit in the image: σ of each coordinate, pixels.
    var imageNoise: Double
    /// 3σ of the fit's error at the worst point of the half court, metres.
    var courtUncertainty: Double
}

/// The pairs in Hartley-normalized coordinates, flat for the sampling loop.
private struct NormalizedPairs {
    let n: Int
    /// Image x, image y, court x, court y of pair i at 4i ..< 4i+4.
    let xy: [Double]
    let image: NormalizingTransform
    let court: NormalizingTransform

    init(_ pairs: [PointPair]) {
        n = pairs.count
        image = NormalizingTransform(pairs.map(\.image))
        court = NormalizingTransform(pairs.map(\.court))
        var xy = [Double](repeating: 0, count: 4 * pairs.count)
        for (i, p) in pairs.enumerated() {
            let s = image.apply(p.image), d = court.apply(p.court)
            xy[4 * i] = s.x; xy[4 * i + 1] = s.y; xy[4 * i + 2] = d.x; xy[4 * i + 3] = d.y
        }
        self.xy = xy
    }

    /// Homography between the normalized planes → image → court in the caller's units.
    func denormalize(_ h: [Double]) -> Homography {
        court.inverseMatrix.composed(after: Homography(unchecked: h).composed(after: image.matrix)).normalized
    }

    /// Image → court in the caller's units → the same map between the normalized planes, `h[8] = 1`
    /// (nil when the centroid of the image points maps to infinity, which a fitted map never does).
    func normalize(_ h: Homography) -> [Double]? {
        let e = court.matrix.composed(after: h.composed(after: image.inverseMatrix)).entries
        guard abs(e[8]) > 1e-12 * max(1e-300, e.reduce(0) { max($0, abs($1)) }) else { return nil }
        return e.map { $0 / e[8] }
    }
}

enum RobustHomography {
    /// Smallest share of the pairs a consensus must explain (beside the absolute minimum of 5).
    static let minimumInlierFraction = 0.15
    /// A consensus this likely (or more) to gather by chance is refused.
    static let chanceLimit = 1e-3
    /// (3.717 σ)²: 99.9 % of a 2-D Gaussian lies within 3.717 σ.
    static let sigmaConsensusLimit = 13.82

    /// The number of inliers a model must have for a set of `n` pairs.
    static func needed(_ n: Int) -> Int { min(n, max(5, Int((minimumInlierFraction * Double(n)).rounded(.up)))) }

    static func fit(_ pairs: [PointPair], options: RansacOptions) throws(HomographyError) -> RobustFit {
        let n = pairs.count
        let threshold = max(options.threshold, 0)
        let data = NormalizedPairs(pairs)
        // The threshold in normalized court units, squared.
        let t = threshold * data.court.scale
        let t2 = t * t
        let confidence = min(max(options.confidence, 0), 0.999999)
        var generator = SplitMix64(seed: options.seed)
        var scratch = [Double](repeating: 0, count: 72)
        var model = [Double](repeating: 0, count: 9)
        var best: (h: [Double], count: Int, cost: Double)? = nil
        var limit = max(options.maxIterations, 1)
        var samples = 0
        var sample = [0, 0, 0, 0]
        while samples < limit {
            samples += 1
            drawSample(&sample, from: n, using: &generator)
            guard sampleIsUsable(sample, data), solveMinimal(sample, data, &scratch, into: &model) else { continue }
            let (count, cost) = score(model, data, t2: t2, bestCost: best?.cost ?? .infinity)
            guard count >= 5, cost < best?.cost ?? .infinity else { continue }
            best = (model, count, cost)
            // Local optimisation: a least-squares fit on the new consensus usually explains more
            // pairs than the 4-pair model it came from, which shortens the search.
            if count >= 8, let refit = leastSquares(best!.h, data, t2: t2) {
                let (c2, cost2) = score(refit, data, t2: t2, bestCost: .infinity)
                if cost2 < best!.cost { best = (refit, c2, cost2) }
            }
            limit = min(limit, max(samples, requiredSamples(inliers: best!.count, of: n, confidence: confidence)))
        }
        let needed = needed(n)
        guard let found = best, found.count >= needed else {
            throw .noConsensus(inliers: best?.count ?? 0, needed: needed, threshold: threshold)
        }
        let chance = chanceOfConsensus(found.count, pairs, threshold: threshold)
        guard chance < chanceLimit else { throw .chanceConsensus(inliers: found.count, pairs: n, threshold: threshold) }

        // Maximum likelihood on the consensus (image error of court → image), repeated while the
        // consensus at the caller's threshold still changes.
        var h = found.h
        var mask = inlierMask(h, data, t2: t2)
        guard var g = invert(h) else { throw .singular }
        for _ in 0..<8 {
            g = levenbergMarquardt(g, data, mask: mask)
            guard let forward = invert(g) else { break }
            h = forward
            let next = inlierMask(h, data, t2: t2)
            guard next.filter({ $0 }).count >= needed, next != mask else { break }
            mask = next
        }
        // σ-consensus: the inliers are the pairs within 3.72 σ of the fit in the image, σ from the
        // median squared residual of the current inliers (for a 2-D Gaussian, median r² = 2 ln 2 σ²).
        // The fit's 8 parameters absorb part of the scatter of the 2m coordinates it was fitted to
        // (a residual's variance is (1 − 8 / 2m) σ² on average), so the median is scaled back by
        // 2m / (2m − 8): without it, 9 agreeing pairs gave a σ 25 % low and a true pair could fall
        // outside 3.72 "σ" (issue 31).
        let floor = 1e-18  // (1e-9 normalized units)²: exact data keeps its exact pairs
        for _ in 0..<10 {
            let e2 = imageResiduals(g, data)
            var chosen: [Double] = []
            for i in 0..<n where mask[i] { chosen.append(e2[i]) }
            let coordinates = 2 * Double(chosen.count)
            let dof = coordinates > 8 ? coordinates / (coordinates - 8) : 1
            let sigma2 = max(median(chosen) / (2 * log(2.0)) * dof, floor)
            let next = e2.map { $0 <= sigmaConsensusLimit * sigma2 }
            guard next.filter({ $0 }).count >= needed, next != mask else { break }
            mask = next
            g = levenbergMarquardt(g, data, mask: mask)
            guard let forward = invert(g) else { break }
            h = forward
        }
        let inlierPairs = zip(pairs, mask).filter { $0.1 }.map { $0.0 }
        do {
            try HomographyEstimator.validate(inlierPairs)
        } catch {
            throw .degenerateConsensus(inliers: inlierPairs.count)
        }
        let spread = uncertainty(g, data, mask: mask)
        let noise = spread.sigma / data.image.scale
        guard spread.court <= options.maxCourtUncertainty else {
            throw .untrustworthyFit(inliers: inlierPairs.count, pairs: n, uncertainty: spread.court, limit: options.maxCourtUncertainty,
                                    noise: noise)
        }
        let result = data.denormalize(h)
        guard result.inverse != nil else { throw .singular }
        return RobustFit(homography: result, inliers: mask, samples: samples, imageNoise: noise, courtUncertainty: spread.court)
    }

    /// The probability that a wrong model explains `count` pairs by chance: the 4 of its sample
    /// plus `count − 4` others, each of which lands within the threshold of it with the chance that
    /// a point uniform over the court points' bounding box lies within the threshold of a given
    /// point (binomial tail). Tiny for a true consensus; large when the threshold covers much of
    /// the court.
    static func chanceOfConsensus(_ count: Int, _ pairs: [PointPair], threshold: Double) -> Double {
        var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
        for p in pairs {
            x0 = min(x0, p.court.x); x1 = max(x1, p.court.x); y0 = min(y0, p.court.y); y1 = max(y1, p.court.y)
        }
        // The box, widened by the threshold so that a thin strip of points still has an area.
        let area = (x1 - x0 + 2 * threshold) * (y1 - y0 + 2 * threshold)
        let p = area > 0 ? min(1, Double.pi * threshold * threshold / area) : 1
        let trials = pairs.count - 4, k = count - 4
        guard k > 0, trials > 0 else { return 1 }
        if p >= 1 { return 1 }
        if p <= 0 { return 0 }
        // P(Binomial(trials, p) ≥ k), summed in log space.
        var tail = 0.0
        for j in k...trials {
            let logTerm = lgamma(Double(trials + 1)) - lgamma(Double(j + 1)) - lgamma(Double(trials - j + 1))
                + Double(j) * log(p) + Double(trials - j) * log1p(-p)
            tail += exp(logTerm)
        }
        return min(1, tail)
    }

    private static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// The inverse of a normalized-plane map, scaled so that its last entry is 1 (nil when singular
    /// or when that entry is 0).
    private static func invert(_ h: [Double]) -> [Double]? {
        guard let inverse = Homography(unchecked: h).inverse?.entries, abs(inverse[8]) > 1e-12 else { return nil }
        let e = inverse.map { $0 / inverse[8] }
        return e.allSatisfy(\.isFinite) ? e : nil
    }

    /// Squared image error of each pair under the court → image map `g` (normalized units).
    private static func imageResiduals(_ g: [Double], _ d: NormalizedPairs) -> [Double] {
        (0..<d.n).map { i in
            let u = d.xy[4 * i + 2], v = d.xy[4 * i + 3]
            let w = g[6] * u + g[7] * v + g[8]
            let ex = (g[0] * u + g[1] * v + g[2]) / w - d.xy[4 * i]
            let ey = (g[3] * u + g[4] * v + g[5]) / w - d.xy[4 * i + 1]
            let e2 = ex * ex + ey * ey
            return e2.isFinite ? e2 : .infinity
        }
    }

    /// The noise of the inliers about the court → image fit `g` (σ of a coordinate, normalized image
    /// units) and 3σ of the court position of an image point, at the worst of a 0.5 m grid over the
    /// half court (metres). The covariance of `g` is s²(JᵀJ)⁻¹ with s² the 95 % upper confidence
    /// bound of the noise variance given the 2m − 8 degrees of freedom left (few agreeing pairs
    /// cannot claim a small noise); an image point's court position c solves g(c) = x, so
    /// dc = −(∂g/∂c)⁻¹ (∂g/∂θ) dθ.
    private static func uncertainty(_ g: [Double], _ d: NormalizedPairs, mask: [Bool]) -> (sigma: Double, court: Double) {
        let m = mask.filter { $0 }.count
        let dof = 2 * m - 8
        guard dof > 0 else { return (.infinity, .infinity) }
        var jtj = [Double](repeating: 0, count: 64)
        var rss = 0.0
        var jx = [Double](repeating: 0, count: 8), jy = [Double](repeating: 0, count: 8)
        for i in 0..<d.n where mask[i] {
            let u = d.xy[4 * i + 2], v = d.xy[4 * i + 3]
            let w = g[6] * u + g[7] * v + g[8]
            let x = (g[0] * u + g[1] * v + g[2]) / w, y = (g[3] * u + g[4] * v + g[5]) / w
            let ex = x - d.xy[4 * i], ey = y - d.xy[4 * i + 1]
            rss += ex * ex + ey * ey
            jacobian(u, v, w, x, y, &jx, &jy)
            for a in 0..<8 { for b in 0..<8 { jtj[a * 8 + b] += jx[a] * jx[b] + jy[a] * jy[b] } }
        }
        let s2 = rss / Double(dof)
        let upper = s2 * Double(dof) / chiSquareLowerQuantile(dof)
        // (JᵀJ)⁻¹, column by column.
        var covariance = [Double](repeating: 0, count: 64)
        var system = [Double](repeating: 0, count: 72)
        for col in 0..<8 {
            for a in 0..<8 {
                for b in 0..<8 { system[a * 9 + b] = jtj[a * 8 + b] }
                system[a * 9 + 8] = a == col ? 1 : 0
            }
            guard solve(&system, size: 8) else { return (s2.squareRoot(), .infinity) }
            for a in 0..<8 { covariance[a * 8 + col] = upper * system[a * 9 + 8] }
        }
        var worst = 0.0
        let columns = Int((Court.width / 0.5).rounded(.up)), rows = Int((Court.halfLength / 0.5).rounded(.up))
        for i in 0...columns {
            for j in 0...rows {
                let c = d.court.apply(Point2D(min(Double(i) * 0.5, Court.width), min(Double(j) * 0.5, Court.halfLength)))
                let u = c.x, v = c.y
                let w = g[6] * u + g[7] * v + g[8]
                guard abs(w) > 1e-12 else { return (s2.squareRoot(), .infinity) }
                let x = (g[0] * u + g[1] * v + g[2]) / w, y = (g[3] * u + g[4] * v + g[5]) / w
                jacobian(u, v, w, x, y, &jx, &jy)
                // A = ∂(x, y)/∂(u, v); D = −A⁻¹ B, B = [jx; jy].
                let a00 = (g[0] - x * g[6]) / w, a01 = (g[1] - x * g[7]) / w
                let a10 = (g[3] - y * g[6]) / w, a11 = (g[4] - y * g[7]) / w
                let det = a00 * a11 - a01 * a10
                guard abs(det) > 1e-300 else { return (s2.squareRoot(), .infinity) }
                var du = [Double](repeating: 0, count: 8), dv = [Double](repeating: 0, count: 8)
                for k in 0..<8 {
                    du[k] = -(a11 * jx[k] - a01 * jy[k]) / det
                    dv[k] = -(-a10 * jx[k] + a00 * jy[k]) / det
                }
                var cuu = 0.0, cuv = 0.0, cvv = 0.0
                for a in 0..<8 {
                    var su = 0.0, sv = 0.0
                    for b in 0..<8 {
                        su += covariance[a * 8 + b] * du[b]
                        sv += covariance[a * 8 + b] * dv[b]
                    }
                    cuu += du[a] * su
                    cuv += dv[a] * su
                    cvv += dv[a] * sv
                }
                // Largest eigenvalue of the 2×2 covariance.
                let mean = (cuu + cvv) / 2, diff = (cuu - cvv) / 2
                let largest = mean + (diff * diff + cuv * cuv).squareRoot()
                worst = max(worst, largest)
            }
        }
        let court = 3 * worst.squareRoot() / d.court.scale
        return (s2.squareRoot(), court.isFinite ? court : .infinity)
    }

    /// ∂(x, y)/∂θ of the map θ (θ₈ = 1) at (u, v), with w and the image (x, y) already computed.
    @inline(__always)
    private static func jacobian(_ u: Double, _ v: Double, _ w: Double, _ x: Double, _ y: Double,
                                 _ jx: inout [Double], _ jy: inout [Double]) {
        jx[0] = u / w; jx[1] = v / w; jx[2] = 1 / w; jx[3] = 0; jx[4] = 0; jx[5] = 0; jx[6] = -x * u / w; jx[7] = -x * v / w
        jy[0] = 0; jy[1] = 0; jy[2] = 0; jy[3] = u / w; jy[4] = v / w; jy[5] = 1 / w; jy[6] = -y * u / w; jy[7] = -y * v / w
    }

    /// The 5 % quantile of χ² with `k` degrees of freedom (Wilson–Hilferty; a little low for k < 3,
    /// which only makes the bound more careful).
    static func chiSquareLowerQuantile(_ k: Int) -> Double {
        let kk = Double(max(k, 1))
        let c = 2 / (9 * kk)
        let base = 1 - c - 1.6449 * c.squareRoot()
        return max(kk * base * base * base, 1e-3)
    }

    /// Samples needed so that, with probability `confidence`, one of them is all inliers.
    static func requiredSamples(inliers: Int, of n: Int, confidence: Double) -> Int {
        let w = Double(inliers) / Double(max(n, 1))
        let allInlier = w * w * w * w
        if allInlier >= 1 { return 1 }
        guard allInlier > 0 else { return Int.max }
        let k = (log(1 - confidence) / log(1 - allInlier)).rounded(.up)
        return k.isFinite && k < 1e9 ? max(1, Int(k)) : Int.max
    }

    // MARK: Sampling

    private static func drawSample(_ sample: inout [Int], from n: Int, using generator: inout SplitMix64) {
        var k = 0
        while k < 4 {
            // Lemire's multiply-shift maps 64 random bits to 0..<n without a division.
            let i = Int(generator.next().multipliedFullWidth(by: UInt64(n)).high)
            var seen = false
            for j in 0..<k where sample[j] == i { seen = true }
            if !seen {
                sample[k] = i
                k += 1
            }
        }
    }

    /// No three points collinear on either side, and the same orientation of every triangle on both
    /// sides (a camera looking at the court never mirrors part of it): most bad samples stop here.
    private static func sampleIsUsable(_ s: [Int], _ d: NormalizedPairs) -> Bool {
        var sign = 0.0
        for (a, b, c) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)] {
            let ia = 4 * s[a], ib = 4 * s[b], ic = 4 * s[c]
            let pa = Point2D(d.xy[ia], d.xy[ia + 1]), pb = Point2D(d.xy[ib], d.xy[ib + 1]), pc = Point2D(d.xy[ic], d.xy[ic + 1])
            let qa = Point2D(d.xy[ia + 2], d.xy[ia + 3]), qb = Point2D(d.xy[ib + 2], d.xy[ib + 3]), qc = Point2D(d.xy[ic + 2], d.xy[ic + 3])
            if HomographyEstimator.collinear(pa, pb, pc) || HomographyEstimator.collinear(qa, qb, qc) { return false }
            let image = (pb.x - pa.x) * (pc.y - pa.y) - (pb.y - pa.y) * (pc.x - pa.x)
            let court = (qb.x - qa.x) * (qc.y - qa.y) - (qb.y - qa.y) * (qc.x - qa.x)
            let product = image * court
            if sign == 0 { sign = product } else if (sign > 0) != (product > 0) { return false }
        }
        return true
    }

    /// The homography through 4 normalized pairs with `h[8] = 1`: the 8×8 system by Gaussian
    /// elimination with partial pivoting. False when the system is (nearly) singular.
    private static func solveMinimal(_ s: [Int], _ d: NormalizedPairs, _ a: inout [Double], into h: inout [Double]) -> Bool {
        // Row r of the augmented 8×9 matrix at a[9r ..< 9r+9].
        for k in 0..<4 {
            let i = 4 * s[k]
            let x = d.xy[i], y = d.xy[i + 1], u = d.xy[i + 2], v = d.xy[i + 3]
            let r0 = 18 * k, r1 = r0 + 9
            a[r0] = x; a[r0 + 1] = y; a[r0 + 2] = 1; a[r0 + 3] = 0; a[r0 + 4] = 0; a[r0 + 5] = 0
            a[r0 + 6] = -u * x; a[r0 + 7] = -u * y; a[r0 + 8] = u
            a[r1] = 0; a[r1 + 1] = 0; a[r1 + 2] = 0; a[r1 + 3] = x; a[r1 + 4] = y; a[r1 + 5] = 1
            a[r1 + 6] = -v * x; a[r1 + 7] = -v * y; a[r1 + 8] = v
        }
        guard solve(&a, size: 8) else { return false }
        for k in 0..<8 { h[k] = a[9 * k + 8] }
        h[8] = 1
        return h.allSatisfy(\.isFinite)
    }

    /// Solves the augmented `size × (size+1)` row-major system in place; the solution ends in the last
    /// column. False when a pivot is negligible.
    private static func solve(_ a: inout [Double], size m: Int) -> Bool {
        let w = m + 1
        var scale = 0.0
        for v in a[0..<(m * w)] { scale = max(scale, abs(v)) }
        guard scale > 0 else { return false }
        for col in 0..<m {
            var pivot = col
            for r in (col + 1)..<m where abs(a[r * w + col]) > abs(a[pivot * w + col]) { pivot = r }
            guard abs(a[pivot * w + col]) > 1e-12 * scale else { return false }
            if pivot != col { for c in 0..<w { a.swapAt(pivot * w + c, col * w + c) } }
            let p = a[col * w + col]
            for r in 0..<m where r != col {
                let f = a[r * w + col] / p
                if f == 0 { continue }
                for c in col..<w { a[r * w + c] -= f * a[col * w + c] }
            }
        }
        for r in 0..<m { a[r * w + m] /= a[r * w + r] }
        return true
    }

    // MARK: Scoring

    /// Inlier count and MSAC cost (squared error truncated at the threshold). Stops early once the
    /// cost exceeds `bestCost` (the count is then not used).
    private static func score(_ h: [Double], _ d: NormalizedPairs, t2: Double, bestCost: Double) -> (Int, Double) {
        let h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3], h4 = h[4], h5 = h[5], h6 = h[6], h7 = h[7], h8 = h[8]
        var count = 0
        var cost = 0.0
        d.xy.withUnsafeBufferPointer { p in
            for i in 0..<d.n {
                let x = p[4 * i], y = p[4 * i + 1]
                let w = h6 * x + h7 * y + h8
                let ex = (h0 * x + h1 * y + h2) / w - p[4 * i + 2]
                let ey = (h3 * x + h4 * y + h5) / w - p[4 * i + 3]
                let e2 = ex * ex + ey * ey
                if e2 <= t2 {
                    count += 1
                    cost += e2
                } else {
                    cost += t2
                }
                if cost >= bestCost { return }
            }
        }
        return (count, cost)
    }

    private static func inlierMask(_ h: [Double], _ d: NormalizedPairs, t2: Double) -> [Bool] {
        (0..<d.n).map { i in
            let x = d.xy[4 * i], y = d.xy[4 * i + 1]
            let w = h[6] * x + h[7] * y + h[8]
            let ex = (h[0] * x + h[1] * y + h[2]) / w - d.xy[4 * i + 2]
            let ey = (h[3] * x + h[4] * y + h[5]) / w - d.xy[4 * i + 3]
            return ex * ex + ey * ey <= t2
        }
    }

    // MARK: Refinement

    /// Normalized DLT on the pairs within the threshold of `h` (or on `mask`), in normalized
    /// coordinates; nil when they do not determine a homography.
    private static func leastSquares(_ h: [Double], _ d: NormalizedPairs, t2: Double, mask: [Bool]? = nil) -> [Double]? {
        let chosen = mask ?? inlierMask(h, d, t2: t2)
        var pairs: [PointPair] = []
        for i in 0..<d.n where chosen[i] {
            pairs.append(PointPair(image: Point2D(d.xy[4 * i], d.xy[4 * i + 1]), court: Point2D(d.xy[4 * i + 2], d.xy[4 * i + 3])))
        }
        guard pairs.count >= 4, let fit = try? HomographyEstimator.directLinearTransform(pairs) else { return nil }
        let e = fit.entries
        guard abs(e[8]) > 1e-12 else { return nil }
        return e.map { $0 / e[8] }
    }

    /// Levenberg–Marquardt on the sum of squared image errors of the masked pairs under the court →
    /// image map `h` (its 8 entries, `h[8] = 1`). Returns `h` unchanged when no step lowers the cost
    /// (exact data).
    private static func levenbergMarquardt(_ start: [Double], _ d: NormalizedPairs, mask: [Bool], iterations: Int = 30) -> [Double] {
        var h = start
        // Offsets of the source (court) and target (image) point of a pair in its four numbers.
        let s = 2, t = 0
        func cost(_ h: [Double]) -> Double {
            var c = 0.0
            for i in 0..<d.n where mask[i] {
                let x = d.xy[4 * i + s], y = d.xy[4 * i + s + 1]
                let w = h[6] * x + h[7] * y + h[8]
                let ex = (h[0] * x + h[1] * y + h[2]) / w - d.xy[4 * i + t]
                let ey = (h[3] * x + h[4] * y + h[5]) / w - d.xy[4 * i + t + 1]
                c += ex * ex + ey * ey
            }
            return c.isFinite ? c : .infinity
        }
        var current = cost(h)
        var lambda = 1e-3
        var jtj = [Double](repeating: 0, count: 64), jtr = [Double](repeating: 0, count: 8)
        var system = [Double](repeating: 0, count: 72)
        var jx = [Double](repeating: 0, count: 8), jy = [Double](repeating: 0, count: 8)
        for _ in 0..<iterations {
            guard current > 0 else { break }
            for k in 0..<64 { jtj[k] = 0 }
            for k in 0..<8 { jtr[k] = 0 }
            for i in 0..<d.n where mask[i] {
                let x = d.xy[4 * i + s], y = d.xy[4 * i + s + 1]
                let w = h[6] * x + h[7] * y + h[8]
                let u = (h[0] * x + h[1] * y + h[2]) / w, v = (h[3] * x + h[4] * y + h[5]) / w
                let ex = u - d.xy[4 * i + t], ey = v - d.xy[4 * i + t + 1]
                jx[0] = x / w; jx[1] = y / w; jx[2] = 1 / w; jx[3] = 0; jx[4] = 0; jx[5] = 0; jx[6] = -u * x / w; jx[7] = -u * y / w
                jy[0] = 0; jy[1] = 0; jy[2] = 0; jy[3] = x / w; jy[4] = y / w; jy[5] = 1 / w; jy[6] = -v * x / w; jy[7] = -v * y / w
                for a in 0..<8 {
                    jtr[a] += jx[a] * ex + jy[a] * ey
                    for b in a..<8 { jtj[a * 8 + b] += jx[a] * jx[b] + jy[a] * jy[b] }
                }
            }
            for a in 0..<8 { for b in 0..<a { jtj[a * 8 + b] = jtj[b * 8 + a] } }
            var improved = false
            for _ in 0..<8 {
                for a in 0..<8 {
                    for b in 0..<8 { system[a * 9 + b] = jtj[a * 8 + b] }
                    system[a * 9 + a] += lambda * max(jtj[a * 8 + a], 1e-12)
                    system[a * 9 + 8] = -jtr[a]
                }
                guard solve(&system, size: 8) else { lambda *= 10; continue }
                var candidate = h
                for a in 0..<8 { candidate[a] += system[a * 9 + 8] }
                let c = cost(candidate)
                if c < current {
                    let gain = current - c
                    h = candidate
                    current = c
                    lambda = max(lambda / 10, 1e-12)
                    improved = gain > 1e-12 * c
                    break
                }
                lambda *= 10
            }
            if !improved { break }
        }
        return h
    }
}
