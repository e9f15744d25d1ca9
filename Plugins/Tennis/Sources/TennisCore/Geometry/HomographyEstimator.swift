// Homography estimation: normalized DLT (Hartley–Zisserman), degeneracy checks, and RANSAC.

import Glibc

/// One correspondence: a point in the camera image (pixels) and the same point on the court (metres).
public struct PointPair: Sendable, Equatable, Codable {
    public var image: Point2D
    public var court: Point2D

    public init(image: Point2D, court: Point2D) {
        self.image = image
        self.court = court
    }
}

/// How to fit the pairs.
public enum EstimationMethod: Sendable, Equatable {
    /// Normalized DLT on all pairs: exact for 4, algebraic least squares for more.
    case leastSquares
    /// MSAC over minimal 4-pair samples (confidence-driven sample count, local optimisation), then
    /// the maximum-likelihood fit (image error) on the consensus, inliers by σ-consensus, and a
    /// refusal when the court it gives is too uncertain. Copes with 70 % outliers and more.
    case ransac(RansacOptions)

    public var name: String {
        switch self {
        case .leastSquares: return "dlt"
        case .ransac: return "ransac"
        }
    }
}

/// RANSAC settings. The same seed and pairs always give the same result.
public struct RansacOptions: Sendable, Equatable, Codable {
    /// Largest forward reprojection error (court metres) for a pair to count as an inlier.
    public var threshold: Double
    /// Upper bound on the number of samples drawn (10,000 reaches 99.9 % confidence down to 15 % inliers).
    public var maxIterations: Int
    /// Probability of drawing at least one all-inlier sample; the sample count adapts to it (about
    /// 850 samples for 30 % inliers at 0.999).
    public var confidence: Double
    public var seed: UInt64
    /// Largest uncertainty of the fitted court (3σ at its worst point on the half court, metres)
    /// that is still reported as a fit; beyond it the fit is refused as too few or too noisy pairs.
    public var maxCourtUncertainty: Double

    /// 0.5 m: a quarter of a zone's width.
    public static let defaultMaxCourtUncertainty = 0.5

    public init(threshold: Double = 0.25, maxIterations: Int = 10_000, confidence: Double = 0.999, seed: UInt64 = 1,
                maxCourtUncertainty: Double = RansacOptions.defaultMaxCourtUncertainty) {
        self.threshold = threshold
        self.maxIterations = maxIterations
        self.confidence = confidence
        self.seed = seed
        self.maxCourtUncertainty = maxCourtUncertainty
    }

    enum CodingKeys: String, CodingKey {
        case threshold, maxIterations, confidence, seed, maxCourtUncertainty
    }

    /// Options written before `maxCourtUncertainty` existed read with its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(threshold: try c.decode(Double.self, forKey: .threshold), maxIterations: try c.decode(Int.self, forKey: .maxIterations),
                  confidence: try c.decode(Double.self, forKey: .confidence), seed: try c.decode(UInt64.self, forKey: .seed),
                  maxCourtUncertainty: try c.decodeIfPresent(Double.self, forKey: .maxCourtUncertainty) ?? Self.defaultMaxCourtUncertainty)
    }
}

/// A fitted homography with its errors on the pairs it came from.
public struct HomographyEstimate: Sendable, Equatable, Codable {
    /// Image → court, normalized so that `H[2][2] == 1` (see `Homography.normalized`).
    public var homography: Homography
    /// Court → image, normalized the same way.
    public var inverse: Homography
    public var method: String
    /// Forward reprojection error of each pair, `|H·image − court|` in court metres.
    public var errors: [Double]
    /// Backward error of each pair, `|H⁻¹·court − image|` in image pixels.
    public var imageErrors: [Double]
    /// Root mean square and maximum of `errors` over the pairs used for the fit (all pairs for DLT).
    public var rmsError: Double
    public var maxError: Double
    public var imageRmsError: Double
    public var imageMaxError: Double
    /// For RANSAC: which pairs were used for the final fit.
    public var inliers: [Bool]?
    /// For RANSAC: how many minimal samples were drawn.
    public var samples: Int? = nil
    /// For RANSAC: the inliers' scatter about the fit in the image (σ of a coordinate, pixels).
    public var imageNoise: Double? = nil
    /// For RANSAC: 3σ of the fit's court position at its worst point on the half court (metres).
    public var courtUncertainty: Double? = nil
}

/// Estimates homographies from point pairs.
public enum HomographyEstimator {
    /// Relative tolerance (in Hartley-normalized units, where points sit at mean distance √2 from their
    /// centroid) below which two points count as the same and three points as collinear.
    public static let degeneracyTolerance = 1e-7

    /// Fits image → court and reports the reprojection errors.
    public static func estimate(_ pairs: [PointPair], method: EstimationMethod = .leastSquares) throws(HomographyError)
        -> HomographyEstimate
    {
        try validate(pairs)
        switch method {
        case .leastSquares:
            let h = try directLinearTransform(pairs)
            return try report(h, pairs: pairs, inliers: nil, method: method.name)
        case .ransac(let options):
            guard pairs.count > 4 else {
                // Four pairs fix a homography exactly: nothing to vote on.
                let h = try directLinearTransform(pairs)
                var estimate = try report(h, pairs: pairs, inliers: [Bool](repeating: true, count: pairs.count), method: method.name)
                estimate.samples = 0
                return estimate
            }
            let fit = try RobustHomography.fit(pairs, options: options)
            var estimate = try report(fit.homography, pairs: pairs, inliers: fit.inliers, method: method.name)
            estimate.samples = fit.samples
            estimate.imageNoise = fit.imageNoise
            estimate.courtUncertainty = fit.courtUncertainty
            return estimate
        }
    }

    /// Checks the count, finiteness, repeated points, and that 4 pairs in general position exist.
    public static func validate(_ pairs: [PointPair]) throws(HomographyError) {
        guard pairs.count >= 4 else { throw .tooFewPairs(pairs.count) }
        for (i, p) in pairs.enumerated() {
            if !p.image.isFinite { throw .nonFinitePoint(pair: i, side: .image) }
            if !p.court.isFinite { throw .nonFinitePoint(pair: i, side: .court) }
        }
        for side in [PlaneSide.image, .court] {
            let points = pairs.map { side == .image ? $0.image : $0.court }
            let normalized = NormalizingTransform(points).apply(points)
            if let (i, j) = firstRepeated(normalized) { throw .repeatedPoint(side: side, first: i, second: j) }
            if pairs.count == 4 {
                for t in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
                where collinear(normalized[t.0], normalized[t.1], normalized[t.2]) {
                    throw .collinearPoints(side: side, pairs: [t.0, t.1, t.2])
                }
            } else if !hasGeneralQuadruple(normalized) {
                throw .noGeneralPosition(side: side)
            }
        }
    }

    /// Normalized DLT: Hartley normalization of both sets, SVD of the 2N×9 system, denormalization.
    /// Assumes `validate` passed. Returns image → court normalized so that `H[2][2] == 1`.
    public static func directLinearTransform(_ pairs: [PointPair]) throws(HomographyError) -> Homography {
        let source = pairs.map(\.image), target = pairs.map(\.court)
        let ts = NormalizingTransform(source), td = NormalizingTransform(target)
        let n = pairs.count, rows = 2 * n
        // Column-major 2N×9 matrix; rows 2i and 2i+1 are the two equations of pair i.
        var a = [Double](repeating: 0, count: rows * 9)
        for i in 0..<n {
            let s = ts.apply(source[i]), d = td.apply(target[i])
            let r0 = 2 * i, r1 = 2 * i + 1
            a[0 * rows + r0] = -s.x; a[1 * rows + r0] = -s.y; a[2 * rows + r0] = -1
            a[6 * rows + r0] = d.x * s.x; a[7 * rows + r0] = d.x * s.y; a[8 * rows + r0] = d.x
            a[3 * rows + r1] = -s.x; a[4 * rows + r1] = -s.y; a[5 * rows + r1] = -1
            a[6 * rows + r1] = d.y * s.x; a[7 * rows + r1] = d.y * s.y; a[8 * rows + r1] = d.y
        }
        let svd = try SingularValueDecomposition(columnMajor: a, rows: rows, columns: 9)
        let order = svd.ascendingOrder
        let sigma = svd.singularValues
        // A second (near-)zero singular value means a family of solutions, not one homography.
        guard let largest = sigma.max(), largest > 0, sigma[order[1]] > 1e-10 * largest else { throw .notUnique }
        let hn = Homography(unchecked: svd.vector(order[0]))
        let h = td.inverseMatrix.composed(after: hn.composed(after: ts.matrix))
        guard h.inverse != nil else { throw .singular }
        return h.normalized
    }

    // MARK: - Geometry checks (on normalized points)

    /// The first pair of indices (by the later index) whose points coincide within the tolerance.
    /// Sorted by x, so large sets cost n log n rather than n².
    static func firstRepeated(_ p: [Point2D]) -> (Int, Int)? {
        let order = p.indices.sorted { p[$0].x < p[$1].x }
        var found: (Int, Int)? = nil
        for (k, i) in order.enumerated() {
            var m = k + 1
            while m < order.count, p[order[m]].x - p[i].x <= degeneracyTolerance {
                let j = order[m]
                if p[i].distance(to: p[j]) <= degeneracyTolerance {
                    let pair = (min(i, j), max(i, j))
                    if found.map({ pair.1 < $0.1 || (pair.1 == $0.1 && pair.0 < $0.0) }) ?? true { found = pair }
                }
                m += 1
            }
        }
        return found
    }

    static func collinear(_ a: Point2D, _ b: Point2D, _ c: Point2D) -> Bool {
        let abx = b.x - a.x, aby = b.y - a.y, acx = c.x - a.x, acy = c.y - a.y
        let cross = abs(abx * acy - aby * acx)
        let longest = max(a.distance(to: b), a.distance(to: c), b.distance(to: c))
        // cross / longest is twice the triangle's area over its longest side: the smallest height.
        return cross <= degeneracyTolerance * max(longest, degeneracyTolerance)
    }

    /// True when some 4 of the points have no three collinear. Exhaustive for small sets; for large
    /// sets the search stops after a bounded number of quadruples and defers to the SVD rank test.
    static func hasGeneralQuadruple(_ p: [Point2D]) -> Bool {
        let n = p.count
        var budget = 20_000
        for i in 0..<n {
            for j in (i + 1)..<n {
                for k in (j + 1)..<n where !collinear(p[i], p[j], p[k]) {
                    for l in (k + 1)..<n {
                        budget -= 1
                        if budget <= 0 { return true }
                        if !collinear(p[i], p[j], p[l]) && !collinear(p[i], p[k], p[l]) && !collinear(p[j], p[k], p[l]) {
                            return true
                        }
                    }
                }
            }
        }
        return false
    }

    // MARK: - Report

    static func report(_ h: Homography, pairs: [PointPair], inliers: [Bool]?, method: String) throws(HomographyError)
        -> HomographyEstimate
    {
        guard let inverse = h.inverse else { throw .singular }
        var errors: [Double] = [], imageErrors: [Double] = []
        for p in pairs {
            errors.append(h.apply(p.image).map { $0.distance(to: p.court) } ?? .infinity)
            imageErrors.append(inverse.apply(p.court).map { $0.distance(to: p.image) } ?? .infinity)
        }
        let used = inliers ?? [Bool](repeating: true, count: pairs.count)
        func rms(_ e: [Double]) -> Double {
            let chosen = zip(e, used).filter { $0.1 }.map { $0.0 }
            return chosen.isEmpty ? 0 : (chosen.reduce(0) { $0 + $1 * $1 } / Double(chosen.count)).squareRoot()
        }
        func maximum(_ e: [Double]) -> Double { zip(e, used).filter { $0.1 }.map { $0.0 }.max() ?? 0 }
        return HomographyEstimate(
            homography: h, inverse: inverse, method: method, errors: errors, imageErrors: imageErrors,
            rmsError: rms(errors), maxError: maximum(errors), imageRmsError: rms(imageErrors),
            imageMaxError: maximum(imageErrors), inliers: inliers)
    }
}

/// Hartley normalization: translate to the centroid, scale so the mean distance from it is √2.
struct NormalizingTransform {
    let scale: Double
    let cx: Double
    let cy: Double

    init(_ points: [Point2D]) {
        var sx = 0.0, sy = 0.0
        for p in points {
            sx += p.x
            sy += p.y
        }
        let n = Double(max(points.count, 1))
        cx = sx / n
        cy = sy / n
        var d = 0.0
        for p in points { d += ((p.x - cx) * (p.x - cx) + (p.y - cy) * (p.y - cy)).squareRoot() }
        let mean = d / n
        scale = mean > 0 && mean.isFinite ? 2.0.squareRoot() / mean : 1
    }

    func apply(_ p: Point2D) -> Point2D { Point2D((p.x - cx) * scale, (p.y - cy) * scale) }
    func apply(_ points: [Point2D]) -> [Point2D] { points.map(apply) }

    var matrix: Homography { Homography(unchecked: [scale, 0, -scale * cx, 0, scale, -scale * cy, 0, 0, 1]) }
    var inverseMatrix: Homography { Homography(unchecked: [1 / scale, 0, cx, 0, 1 / scale, cy, 0, 0, 1]) }
}

