// A calibration set as automatic court detection produces it: true pairs seen by the demo camera
// with Gaussian pixel noise, mixed with wrong matches (an image point paired with an unrelated court
// point). Tests and benchmarks fit it and compare the result with the camera it came from.

import Glibc

public struct SyntheticCalibration: Sendable {
    /// Court → image of the camera that took the picture.
    public let camera: Homography
    /// Image → court (what a fit should find).
    public let truth: Homography
    public let pairs: [PointPair]
    /// Which pairs are wrong matches.
    public let outliers: [Bool]

    /// `count` pairs of which `outlierFraction` (rounded) are wrong, true pairs with `noisePixels`
    /// standard deviation of image noise, positions uniform over the half court (plus 1 m around it).
    /// The order is shuffled; the same seed always gives the same set.
    public init(count: Int, outlierFraction: Double, noisePixels: Double = 0.5, seed: UInt64 = 1) {
        camera = TennisDemo.cameraHomography()
        truth = camera.inverse ?? .identity
        var generator = SplitMix64(seed: seed)
        func uniform() -> Double { Double(generator.next() >> 11) / Double(UInt64(1) << 53) }
        func gaussian() -> Double {
            // Box–Muller.
            let u = max(uniform(), 1e-300), v = uniform()
            return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        }
        func courtPoint() -> Point2D { Point2D(-1 + uniform() * (Court.width + 2), -1 + uniform() * (Court.halfLength + 2)) }
        let wrong = min(count, max(0, Int((outlierFraction * Double(count)).rounded())))
        var pairs: [PointPair] = []
        var outliers: [Bool] = []
        for i in 0..<count {
            if i < wrong {
                // A detection somewhere on the court matched to the wrong court point.
                let image = camera.apply(courtPoint()) ?? Point2D(0, 0)
                pairs.append(PointPair(image: image, court: courtPoint()))
                outliers.append(true)
            } else {
                let court = courtPoint()
                let image = camera.apply(court) ?? Point2D(0, 0)
                pairs.append(PointPair(image: Point2D(image.x + noisePixels * gaussian(), image.y + noisePixels * gaussian()), court: court))
                outliers.append(false)
            }
        }
        // Fisher–Yates with the same generator, so the outliers are not all first.
        if count > 1 {
            for i in stride(from: count - 1, to: 0, by: -1) {
                let j = Int(generator.next() % UInt64(i + 1))
                pairs.swapAt(i, j)
                outliers.swapAt(i, j)
            }
        }
        self.pairs = pairs
        self.outliers = outliers
    }

    /// The court points of a 0.25 m grid over the half court (33 × 48), where fits are compared.
    public var courtGrid: [Point2D] {
        var points: [Point2D] = []
        for i in 0...Int((Court.width / 0.25).rounded(.down)) {
            for j in 0...Int((Court.halfLength / 0.25).rounded(.down)) {
                points.append(Point2D(Double(i) * 0.25, Double(j) * 0.25))
            }
        }
        return points
    }

    /// Largest distance between where `h` and the true camera put the points of `courtGrid`
    /// (image → court through `h`, compared with the court point itself).
    public func maxCourtError(of h: Homography) -> Double {
        var worst = 0.0
        for c in courtGrid {
            guard let image = camera.apply(c), let back = h.apply(image) else { return .infinity }
            worst = max(worst, back.distance(to: c))
        }
        return worst
    }
}
