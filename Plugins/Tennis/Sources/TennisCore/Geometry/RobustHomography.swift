// Robust homography fitting for sets where most pairs may be wrong (automatic detections): MSAC
// (RANSAC scored by the truncated squared error) over minimal 4-pair samples with a
// confidence-driven sample count, local optimisation of each new best model, and a final
// refinement on the consensus set — normalized DLT least squares, then Levenberg–Marquardt on the
// forward reprojection error. Deterministic for a given seed.

import Glibc

/// What the robust fit did, beside the homography and its inlier mask.
struct RobustFit {
    var homography: Homography
    var inliers: [Bool]
    /// Minimal samples drawn (including ones refused as degenerate).
    var samples: Int
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
        guard var found = best, found.count >= needed else {
            throw .noConsensus(inliers: best?.count ?? 0, needed: needed, threshold: threshold)
        }
        // Refine: least squares on the consensus until it settles, then Levenberg–Marquardt on the
        // forward error of the inliers, repeated while the inlier set still changes.
        var mask = inlierMask(found.h, data, t2: t2)
        for _ in 0..<8 {
            guard let ls = leastSquares(found.h, data, t2: t2, mask: mask) else { break }
            let refined = levenbergMarquardt(ls, data, mask: mask)
            let next = inlierMask(refined, data, t2: t2)
            let count = next.filter { $0 }.count
            guard count >= needed else { break }
            found = (refined, count, found.cost)
            if next == mask { break }
            mask = next
        }
        let inlierPairs = zip(pairs, mask).filter { $0.1 }.map { $0.0 }
        do {
            try HomographyEstimator.validate(inlierPairs)
        } catch {
            throw .degenerateConsensus(inliers: inlierPairs.count)
        }
        let h = data.denormalize(found.h)
        guard h.inverse != nil else { throw .singular }
        return RobustFit(homography: h, inliers: mask, samples: samples)
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

    /// Levenberg–Marquardt on the sum of squared forward errors of the masked pairs, over the 8
    /// entries of `h` (`h[8] = 1`). Returns `h` unchanged when no step lowers the cost (exact data).
    private static func levenbergMarquardt(_ start: [Double], _ d: NormalizedPairs, mask: [Bool], iterations: Int = 30) -> [Double] {
        var h = start
        func cost(_ h: [Double]) -> Double {
            var c = 0.0
            for i in 0..<d.n where mask[i] {
                let x = d.xy[4 * i], y = d.xy[4 * i + 1]
                let w = h[6] * x + h[7] * y + h[8]
                let ex = (h[0] * x + h[1] * y + h[2]) / w - d.xy[4 * i + 2]
                let ey = (h[3] * x + h[4] * y + h[5]) / w - d.xy[4 * i + 3]
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
                let x = d.xy[4 * i], y = d.xy[4 * i + 1]
                let w = h[6] * x + h[7] * y + h[8]
                let u = (h[0] * x + h[1] * y + h[2]) / w, v = (h[3] * x + h[4] * y + h[5]) / w
                let ex = u - d.xy[4 * i + 2], ey = v - d.xy[4 * i + 3]
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
