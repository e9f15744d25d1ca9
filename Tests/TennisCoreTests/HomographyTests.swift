import Foundation
import XCTest
@testable import TennisCore

final class HomographyTests: XCTestCase {
    /// A known image → court map (a camera behind the baseline, perspective in both axes).
    let known = try! Homography(rows: [[0.0125, 0.0031, -6.2], [0.0004, -0.0298, 21.7], [0.00002, 0.00061, 1]])

    func pairs(_ images: [Point2D], through h: Homography) -> [PointPair] {
        images.map { PointPair(image: $0, court: h.apply($0)!) }
    }

    let fourImages = [Point2D(412, 233), Point2D(861, 219), Point2D(148, 655), Point2D(1107, 671)]

    func testExactRecoveryFromFourPairs() throws {
        let input = pairs(fourImages, through: known)
        let estimate = try HomographyEstimator.estimate(input)
        // Round trip of the pairs themselves and of points elsewhere in the image: ≤ 1e-6 m.
        for p in input { XCTAssertLessThanOrEqual(estimate.homography.apply(p.image)!.distance(to: p.court), 1e-6) }
        for x in stride(from: 100.0, through: 1200, by: 110) {
            for y in stride(from: 250.0, through: 700, by: 90) {
                let p = Point2D(x, y)
                XCTAssertLessThanOrEqual(estimate.homography.apply(p)!.distance(to: known.apply(p)!), 1e-6)
            }
        }
        // Same matrix once both are normalized (H[2][2] = 1).
        for (a, b) in zip(estimate.homography.entries, known.normalized.entries) {
            XCTAssertEqual(a, b, accuracy: 1e-9 * max(1, abs(b)))
        }
        XCTAssertEqual(estimate.homography[2, 2], 1)
        XCTAssertLessThan(estimate.rmsError, 1e-9)
        XCTAssertLessThan(estimate.imageMaxError, 1e-6)
    }

    func testInvariantToScalingTheHomography() throws {
        for k in [1.0, -3.5, 1e-4, 2e5] {
            let scaled = try Homography(entries: known.entries.map { $0 * k })
            for (a, b) in zip(scaled.normalized.entries, known.normalized.entries) {
                XCTAssertEqual(a, b, accuracy: 1e-14 * max(1, abs(b)), "k = \(k)")
            }
            for p in fourImages {
                XCTAssertEqual(scaled.apply(p)!.distance(to: known.apply(p)!), 0, accuracy: 1e-9)
            }
            let estimate = try HomographyEstimator.estimate(pairs(fourImages, through: scaled))
            for (a, b) in zip(estimate.homography.entries, known.normalized.entries) {
                XCTAssertEqual(a, b, accuracy: 1e-9 * max(1, abs(b)))
            }
        }
    }

    func testInvariantToPairOrder() throws {
        var generator = SplitMix64(seed: 3)
        var images = fourImages + [Point2D(640, 400), Point2D(300, 500), Point2D(900, 300), Point2D(700, 600)]
        // Noise so the least-squares answer is not simply the exact one.
        var input = pairs(images, through: known).map { p -> PointPair in
            let n = { Double(generator.next() % 1000) / 1000 * 0.02 - 0.01 }
            return PointPair(image: p.image, court: Point2D(p.court.x + n(), p.court.y + n()))
        }
        let reference = try HomographyEstimator.estimate(input).homography
        for _ in 0..<5 {
            input.shuffle(using: &generator)
            images.shuffle(using: &generator)
            let h = try HomographyEstimator.estimate(input).homography
            for (a, b) in zip(h.entries, reference.entries) { XCTAssertEqual(a, b, accuracy: 1e-10 * max(1, abs(b))) }
        }
    }

    func testLeastSquaresOverMorePairsBeatsNoise() throws {
        var generator = SplitMix64(seed: 11)
        var images: [Point2D] = []
        for x in stride(from: 200.0, through: 1100, by: 150) {
            for y in stride(from: 260.0, through: 680, by: 70) { images.append(Point2D(x, y)) }
        }
        let noisy = pairs(images, through: known).map { p -> PointPair in
            let n = { (Double(generator.next() % 2001) / 1000 - 1) * 0.02 }
            return PointPair(image: p.image, court: Point2D(p.court.x + n(), p.court.y + n()))
        }
        let estimate = try HomographyEstimator.estimate(noisy)
        XCTAssertLessThan(estimate.rmsError, 0.02)
        XCTAssertGreaterThan(estimate.rmsError, 0.001)
        // The fit is much closer to the truth than the noise.
        let deviations = images.map { estimate.homography.apply($0)!.distance(to: known.apply($0)!) }
        XCTAssertLessThan(deviations.max()!, 0.02)
        XCTAssertLessThan(deviations.reduce(0, +) / Double(deviations.count), 0.008)
        XCTAssertEqual(estimate.errors.count, images.count)
        XCTAssertEqual(estimate.maxError, estimate.errors.max()!)
    }

    func testRansacIgnoresOutliersThatSpoilLeastSquares() throws {
        var images: [Point2D] = []
        for x in stride(from: 200.0, through: 1100, by: 180) {
            for y in stride(from: 260.0, through: 680, by: 105) { images.append(Point2D(x, y)) }
        }
        var input = pairs(images, through: known)
        let outliers = [2, 7, 11, 19]
        for i in outliers { input[i].court.x += 3.5 }
        let plain = try HomographyEstimator.estimate(input)
        XCTAssertGreaterThan(plain.rmsError, 0.5)
        let robust = try HomographyEstimator.estimate(input, method: .ransac(RansacOptions(threshold: 0.05, seed: 42)))
        XCTAssertEqual(robust.inliers?.indices.filter { !robust.inliers![$0] }, outliers)
        XCTAssertLessThan(robust.rmsError, 1e-9)
        for p in images { XCTAssertLessThan(robust.homography.apply(p)!.distance(to: known.apply(p)!), 1e-6) }
        // Deterministic: the same seed gives the same answer.
        let again = try HomographyEstimator.estimate(input, method: .ransac(RansacOptions(threshold: 0.05, seed: 42)))
        XCTAssertEqual(again, robust)
        XCTAssertEqual(robust.method, "ransac")
    }

    func testRansacWithoutConsensusSaysSo() {
        var input = pairs(fourImages + [Point2D(640, 400), Point2D(300, 500)], through: known)
        for i in input.indices { input[i].court = Point2D(Double(i * i % 7), Double(i * 3 % 5) + Double(i) * 0.37) }
        assertThrows(try HomographyEstimator.estimate(input, method: .ransac(RansacOptions(threshold: 1e-6, maxIterations: 200))),
                     "robust estimation found no consensus", "(needs 5)", "raise the threshold")
    }

    func testDegenerateInputIsRefusedWithClearErrors() {
        let good = pairs(fourImages, through: known)
        assertThrows(try HomographyEstimator.estimate(Array(good.prefix(3))), "at least 4 point pairs, got 3")
        var repeated = good
        repeated[3].image = repeated[1].image
        assertThrows(try HomographyEstimator.estimate(repeated), "pairs 1 and 3 have the same image point")
        var repeatedCourt = good
        repeatedCourt[2].court = repeatedCourt[0].court
        assertThrows(try HomographyEstimator.estimate(repeatedCourt), "pairs 0 and 2 have the same court point")
        var collinear = good
        collinear[2].image = Point2D(636.5, 226) // midpoint of pairs 0 and 1
        assertThrows(try HomographyEstimator.estimate(collinear), "image points of pairs 0, 1, 2 lie on one line")
        let courtLine = [Point2D(0, 0), Point2D(4.115, 0), Point2D(8.23, 0), Point2D(4, 6)]
        assertThrows(try HomographyEstimator.estimate(zip(fourImages, courtLine).map { PointPair(image: $0.0, court: $0.1) }),
                     "court points of pairs 0, 1, 2 lie on one line")
        // More than four points, all on one line except one.
        let onLine = (0..<6).map { Point2D(Double($0) * 100, Double($0) * 50 + 10) } + [Point2D(50, 400)]
        let many = onLine.enumerated().map { PointPair(image: $0.element, court: Point2D(Double($0.offset), Double($0.offset * $0.offset))) }
        assertThrows(try HomographyEstimator.estimate(many), "the image points all lie on one line (but at most one)")
        var infinite = good
        infinite[1].court.y = .infinity
        assertThrows(try HomographyEstimator.estimate(infinite), "pair 1: the court point is not a finite number")
    }

    func testManyPairsAreValidatedQuickly() throws {
        // 20,000 noisy pairs: validation is n log n, the SVD works on a 9×9 factor.
        var generator = SplitMix64(seed: 21)
        let input = (0..<20_000).map { _ -> PointPair in
            let p = Point2D(200 + Double(generator.next() % 900_000) / 1000, 250 + Double(generator.next() % 450_000) / 1000)
            return PointPair(image: p, court: known.apply(p)!)
        }
        let estimate = try HomographyEstimator.estimate(input)
        XCTAssertLessThan(estimate.maxError, 1e-6)
        var repeated = input
        repeated[19_999].image = repeated[123].image
        assertThrows(try HomographyEstimator.estimate(repeated), "pairs 123 and 19999 have the same image point")
    }

    func testCollinearTriplesAreFineAmongMorePairs() throws {
        // The calibration's 8 court points contain collinear triples (net, sidelines) by design.
        let court = CalibrationLandmark.allCases.map(\.courtPoint)
        let camera = known.inverse!
        let input = court.map { PointPair(image: camera.apply($0)!, court: $0) }
        let estimate = try HomographyEstimator.estimate(input)
        XCTAssertLessThan(estimate.maxError, 1e-9)
    }

    func testInverseAndComposition() throws {
        let inverse = try XCTUnwrap(known.inverse)
        let identity = inverse.composed(after: known).normalized
        for (a, b) in zip(identity.entries, Homography.identity.entries) { XCTAssertEqual(a, b, accuracy: 1e-12) }
        XCTAssertNil(try Homography(rows: [[1, 2, 3], [2, 4, 6], [0, 0, 1]]).inverse)
        assertThrows(try Homography(rows: [[1, 2], [3, 4]]), "expected 3 rows of 3 numbers")
        assertThrows(try Homography(entries: [1, 0, 0, 0, 1, 0, 0, 0, .nan]), "not a finite number")
    }

    func testNormalizationWhenLastEntryIsZero() throws {
        let h = try Homography(rows: [[0, 2, 0], [-4, 0, 0], [0, 0, 0]])
        XCTAssertFalse(h.isNormalizedByLastEntry)
        XCTAssertEqual(h.normalized.norm, 1, accuracy: 1e-15)
        XCTAssertGreaterThan(h.normalized.entries[1], 0)
    }

    func testBulkProjectionMatchesSinglePoints() {
        var generator = SplitMix64(seed: 5)
        let points = (0..<1001).map { _ in Point2D(Double(generator.next() % 1920), Double(generator.next() % 1080) + 0.25) }
        let bulk = known.project(points)
        XCTAssertEqual(bulk.count, points.count)
        for (p, q) in zip(points, bulk) {
            let single = known.apply(p)!
            XCTAssertEqual(q.x, single.x, accuracy: 1e-12 * max(1, abs(single.x)))
            XCTAssertEqual(q.y, single.y, accuracy: 1e-12 * max(1, abs(single.y)))
        }
        // A point on the vanishing line comes out non-finite, not as a made-up value.
        let horizon = Point2D(0, -1 / 0.00061)
        XCTAssertFalse(known.project([horizon])[0].isFinite)
        XCTAssertNil(known.apply(horizon))
    }

    func testCodableAsRows() throws {
        let data = try JSONEncoder().encode(known)
        XCTAssertEqual(try JSONDecoder().decode(Homography.self, from: data), known)
        XCTAssertThrowsError(try JSONDecoder().decode(Homography.self, from: Data("[[1,2,3],[4,5,6]]".utf8)))
    }

    /// The peers' example: a doubles court seen by a broadcast camera, 18 pairs with 0.5 px noise,
    /// and ground truth for five probe points.
    func testPeerExampleAgainstGroundTruth() throws {
        let url = TestPaths.peersData("homography_tennis.json")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw XCTSkip("peer example \(url.path) is absent")
        }
        let report = try TennisCommands.homography(pairsJSON: text, file: url.lastPathComponent)
        XCTAssertEqual(report.pairs, 18)
        guard let root = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let truth = root["points_true_court"] as? [[Double]],
              let gt = root["ground_truth_H_court_to_image"] as? [[Double]]
        else { return XCTFail("peer example lacks ground truth") }
        let maxError = zip(report.projectedPoints, truth).map { $0.0.distance(to: Point2D($0.1[0], $0.1[1])) }.max() ?? .infinity
        // 0.5 px noise on a broadcast view: the peer (OpenCV) reports 0.029 m here.
        XCTAssertLessThan(maxError, 0.05)
        // The court → image inverse is close to the ground truth camera.
        let truthH = try Homography(rows: gt).normalized
        for c in [Point2D(0, 0), Point2D(10.97, 23.77), Point2D(5.5, 11.9)] {
            XCTAssertLessThan(report.inverse.apply(c)!.distance(to: truthH.apply(c)!), 2.0)
        }
        // OpenCV's refined fit gives rms 0.042 m; plain algebraic DLT lands close to it.
        XCTAssertEqual(report.rmsError, 0.042, accuracy: 0.01)
    }

    func testPeerFourPointExampleIsExact() throws {
        let url = TestPaths.peersData("homography_tennis_4pt.json")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw XCTSkip("peer example \(url.path) is absent")
        }
        let report = try TennisCommands.homography(pairsJSON: text, file: url.lastPathComponent)
        XCTAssertEqual(report.pairs, 4)
        XCTAssertLessThan(report.rmsError, 1e-9) // OpenCV (float32 inside) gets 2e-6 m here
    }
}

final class RobustHomographyTests: XCTestCase {
    /// The oracle: 100 pairs, 70 of them wrong matches, 0.5 px noise on the rest: the fit is
    /// within 10 cm of the true camera everywhere on the half court, and finds the wrong matches.
    func testSeventyPercentOutliersFitWithinTenCentimetres() throws {
        for seed: UInt64 in [1, 2, 3, 4, 5] {
            let set = SyntheticCalibration(count: 100, outlierFraction: 0.7, noisePixels: 0.5, seed: seed)
            XCTAssertEqual(set.outliers.filter { $0 }.count, 70)
            // Plain least squares is ruined by them.
            let plain = try HomographyEstimator.estimate(set.pairs)
            XCTAssertGreaterThan(set.maxCourtError(of: plain.homography), 1.0)
            let robust = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.25, seed: seed)))
            let error = set.maxCourtError(of: robust.homography)
            XCTAssertLessThan(error, 0.10, "seed \(seed): max court error \(error) m")
            let inliers = try XCTUnwrap(robust.inliers)
            // Every true pair is kept; a wrong match that happens to lie within the threshold may be too.
            let keptTrue = zip(inliers, set.outliers).filter { $0.0 && !$0.1 }.count
            let keptWrong = zip(inliers, set.outliers).filter { $0.0 && $0.1 }.count
            XCTAssertGreaterThanOrEqual(keptTrue, 29, "seed \(seed)")
            XCTAssertLessThanOrEqual(keptWrong, 3, "seed \(seed)")
            XCTAssertLessThan(robust.rmsError, 0.1)
            // The sample count followed the inlier share (about 850 for 30 % at 0.999), not the cap.
            let samples = try XCTUnwrap(robust.samples)
            XCTAssertLessThan(samples, 5000, "seed \(seed)")
            XCTAssertGreaterThan(samples, 300, "seed \(seed)")
        }
    }

    func testSameSeedSameAnswerAndOtherSeedsAgree() throws {
        let set = SyntheticCalibration(count: 100, outlierFraction: 0.7, seed: 9)
        let a = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(seed: 42)))
        let b = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(seed: 42)))
        XCTAssertEqual(a, b)
        let c = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(seed: 43)))
        XCTAssertLessThan(set.maxCourtError(of: c.homography), 0.10)
    }

    func testRefinementBeatsTheBestMinimalSample() throws {
        // Without outliers the robust fit on noisy data is the maximum-likelihood fit: its image error
        // (where the noise is) is no larger than plain least squares'.
        let set = SyntheticCalibration(count: 60, outlierFraction: 0, noisePixels: 1.0, seed: 4)
        let plain = try HomographyEstimator.estimate(set.pairs)
        let robust = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.5)))
        XCTAssertEqual(robust.inliers?.filter { $0 }.count, 60)
        XCTAssertLessThanOrEqual(robust.imageRmsError, plain.imageRmsError + 1e-12)
        XCTAssertEqual(try XCTUnwrap(robust.imageNoise), 1.0, accuracy: 0.25, "the scatter found is the noise put in")
        XCTAssertLessThan(set.maxCourtError(of: robust.homography), 0.10)
    }

    func testExactDataStaysExactWithOutliers() throws {
        let set = SyntheticCalibration(count: 40, outlierFraction: 0.6, noisePixels: 0, seed: 8)
        let robust = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.05)))
        XCTAssertLessThan(robust.rmsError, 1e-9)
        XCTAssertLessThan(set.maxCourtError(of: robust.homography), 1e-7)
        XCTAssertEqual(robust.inliers, set.outliers.map { !$0 })
    }

    func testTooFewAgreeingPairsIsNoConsensus() {
        // 100 pairs, 95 wrong: 5 true pairs are below the 15 % a consensus needs.
        let set = SyntheticCalibration(count: 100, outlierFraction: 0.95, seed: 3)
        assertThrows(try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.05, maxIterations: 3000))),
                     "robust estimation found no consensus", "(needs 15)")
    }

    func testCollinearConsensusIsRefused() {
        // 12 exact pairs along the net line plus 4 scattered wrong ones: the only agreement is a line.
        let camera = TennisDemo.cameraHomography()
        var pairs = (0..<12).map { i -> PointPair in
            let c = Point2D(Double(i) * 0.7, 0)
            return PointPair(image: camera.apply(c)!, court: c)
        }
        pairs += [PointPair(image: Point2D(300, 500), court: Point2D(2, 9)), PointPair(image: Point2D(900, 300), court: Point2D(1, 3)),
                  PointPair(image: Point2D(600, 650), court: Point2D(7, 2)), PointPair(image: Point2D(700, 250), court: Point2D(5, 10))]
        assertThrows(try HomographyEstimator.estimate(pairs, method: .ransac(RansacOptions(threshold: 0.05))),
                     "robust estimation")
    }

    // MARK: - Issue 31: the court sweep against OpenCV

    /// One case of `clubhouse-bench tennis-sweep` (Benchmarks/tennis/court_sweep.py) with the peers'
    /// figures from that benchmark's run (OpenCV 4.12.0 findHomography, threshold 0.25 m): the
    /// largest court error over a 0.25 m grid of the half court for RANSAC, USAC_MAGSAC, and the
    /// oracle (the maximum-likelihood fit on exactly the true pairs, which no method knows).
    struct SweepCase {
        var index: Int, count: Int, noise: Double, wrong: Double, seed: UInt64
        var ransac: Double, magsac: Double, oracle: Double
    }

    /// A representative subset of the 80 cases: those where the fit before issue 31 was more than
    /// 1.5× the better peer (11, 21, 62, 65, 68, 73), the worst configuration (30 pairs,
    /// 2 px, 70 % wrong: 35, 36, 39), a clean set (44) and easy ones (15, 76).
    static let sweepSubset: [SweepCase] = [
        SweepCase(index: 11, count: 30, noise: 0.5, wrong: 0.5, seed: 2, ransac: 0.1209, magsac: 0.0600, oracle: 0.0357),
        SweepCase(index: 15, count: 30, noise: 0.5, wrong: 0.7, seed: 1, ransac: 0.0609, magsac: 0.1568, oracle: 0.0551),
        SweepCase(index: 21, count: 30, noise: 2.0, wrong: 0.0, seed: 2, ransac: 0.0714, magsac: 0.1018, oracle: 0.0742),
        SweepCase(index: 35, count: 30, noise: 2.0, wrong: 0.7, seed: 1, ransac: 0.2444, magsac: 0.6476, oracle: 0.2213),
        SweepCase(index: 36, count: 30, noise: 2.0, wrong: 0.7, seed: 2, ransac: 0.2352, magsac: 0.3650, oracle: 0.1410),
        SweepCase(index: 39, count: 30, noise: 2.0, wrong: 0.7, seed: 5, ransac: 0.1795, magsac: 1.9168, oracle: 0.2536),
        SweepCase(index: 44, count: 100, noise: 0.5, wrong: 0.0, seed: 5, ransac: 0.0052, magsac: 0.0063, oracle: 0.0088),
        SweepCase(index: 62, count: 100, noise: 2.0, wrong: 0.0, seed: 3, ransac: 0.0392, magsac: 0.0756, oracle: 0.0555),
        SweepCase(index: 65, count: 100, noise: 2.0, wrong: 0.3, seed: 1, ransac: 0.0491, magsac: 0.3473, oracle: 0.0437),
        SweepCase(index: 68, count: 100, noise: 2.0, wrong: 0.3, seed: 4, ransac: 0.0252, magsac: 0.1537, oracle: 0.0314),
        SweepCase(index: 73, count: 100, noise: 2.0, wrong: 0.5, seed: 4, ransac: 0.0270, magsac: 0.2596, oracle: 0.0855),
        SweepCase(index: 76, count: 100, noise: 2.0, wrong: 0.7, seed: 2, ransac: 0.1258, magsac: 0.8606, oracle: 0.0300),
    ]

    /// Each case is fitted within 1.5× the better peer's court error, or refused as too few or too
    /// noisy to trust — or, where the better peer beat even the oracle by more than 1.5× (it kept
    /// or dropped the right noisy pairs by chance), within 1.5× the oracle.
    func testCourtSweepSubsetAgainstThePeers() throws {
        var refused: [Int] = []
        for c in Self.sweepSubset {
            let set = SyntheticCalibration(count: c.count, outlierFraction: c.wrong, noisePixels: c.noise, seed: c.seed)
            let better = min(c.ransac, c.magsac)
            do {
                let fit = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.25, seed: 1)))
                let error = set.maxCourtError(of: fit.homography)
                let peerLuck = better * 1.5 < c.oracle
                XCTAssertTrue(error <= 1.5 * better || (peerLuck && error <= 1.5 * c.oracle),
                              "case \(c.index): \(error) m against RANSAC \(c.ransac), MAGSAC \(c.magsac), oracle \(c.oracle)")
                // The uncertainty it reports bounds the error it made.
                XCTAssertLessThanOrEqual(error, try XCTUnwrap(fit.courtUncertainty), "case \(c.index)")
            } catch {
                refused.append(c.index)
                XCTAssertTrue(error.description.contains("too few or too noisy to trust"), "case \(c.index): \(error)")
            }
        }
        // The worst configuration: 9 agreeing pairs at 2 px leave more than 0.5 m of doubt.
        XCTAssertEqual(refused, [35, 36, 39])
    }

    func testTooNoisyMatchesAreRefusedWithTheirUncertainty() {
        // The worst case (30 pairs, 2 px, 70 % wrong, seed 5): a court that could be off by a metre.
        let set = SyntheticCalibration(count: 30, outlierFraction: 0.7, noisePixels: 2, seed: 5)
        assertThrows(try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.25))),
                     "the matches are too few or too noisy to trust", "the 9 of 30 pairs that agree", "scatter 1.79 px",
                     "uncertain by up to 0.97 m", "the limit is 0.50 m", "add pairs spread over the whole court")
        // A site that accepts a metre of doubt gets the fit, with its uncertainty.
        let lenient = try? HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.25, maxCourtUncertainty: 1.5)))
        XCTAssertEqual(lenient?.courtUncertainty ?? 0, 0.97, accuracy: 0.01)
    }

    func testAgreementThatCouldBeChanceIsRefused() {
        // Twelve unrelated pairs and a 4 m threshold: any 4 pairs plus a few neighbours "agree".
        var generator = SplitMix64(seed: 11)
        func uniform(_ range: Double) -> Double { Double(generator.next() >> 11) / Double(UInt64(1) << 53) * range }
        let pairs = (0..<12).map { _ in
            PointPair(image: Point2D(uniform(1280), uniform(720)), court: Point2D(uniform(Court.width), uniform(Court.halfLength)))
        }
        assertThrows(try HomographyEstimator.estimate(pairs, method: .ransac(RansacOptions(threshold: 4))),
                     "could agree by chance", "the matches are too few to trust", "lower the threshold or add pairs")
        // The same chance is negligible for a true consensus at the default threshold.
        let set = SyntheticCalibration(count: 30, outlierFraction: 0.7, noisePixels: 0.5, seed: 1)
        XCTAssertLessThan(RobustHomography.chanceOfConsensus(9, set.pairs, threshold: 0.25), 1e-9)
    }

    /// A hard case of the sweep (cases 137 and 197: 30 pairs, 70 % wrong, seed 18, at 0.5 and 2 px):
    /// 9 true pairs, and the σ-consensus used to drop one of them (σ from 9 residuals of a fit with 8
    /// parameters is 25 % low), leaving 1.50× the oracle's error (0.0291 m against 0.0194; 0.117 m
    /// against 0.078). With σ corrected for the fitted parameters it keeps exactly the true pairs.
    func testSmallConsensusKeepsEveryTruePair() throws {
        for (noise, ransac, oracle) in [(0.5, 0.0224, 0.0194), (2.0, 0.0912, 0.0780)] {
            let set = SyntheticCalibration(count: 30, outlierFraction: 0.7, noisePixels: noise, seed: 18)
            let fit = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.25, seed: 1)))
            XCTAssertEqual(fit.inliers, set.outliers.map { !$0 }, "\(noise) px")
            let error = set.maxCourtError(of: fit.homography)
            XCTAssertEqual(error, oracle, accuracy: 0.0005, "\(noise) px: the maximum-likelihood fit of the true pairs")
            XCTAssertLessThanOrEqual(error, 1.5 * ransac, "\(noise) px")
        }
    }

    /// The fair comparison (BENCHMARKS.md, "Issue 31, items 3 and 4"): per configuration, the median
    /// over its seeds. At 100 pairs, 2 px, 50 % wrong (seeds 1–5, peers' figures from
    /// court_sweep.py's run) one draw (seed 4, case 73) lets OpenCV's RANSAC beat even the oracle by
    /// 3.2× — ours is then 3.17× RANSAC's error — but over the seeds ours is within 1.5× the better
    /// peer's median, and within 1.5× the oracle on every seed.
    func testCourtSweepConfigurationMedianAgainstThePeers() throws {
        let ransac = [0.0382, 0.0344, 0.0450, 0.0270, 0.0733]
        let magsac = [0.0936, 0.0919, 0.4508, 0.2596, 0.2379]
        let oracle = [0.0242, 0.0411, 0.0282, 0.0855, 0.0623]
        func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
        var ours: [Double] = []
        for seed in 1...5 {
            let set = SyntheticCalibration(count: 100, outlierFraction: 0.5, noisePixels: 2, seed: UInt64(seed))
            let fit = try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: 0.25, seed: 1)))
            let error = set.maxCourtError(of: fit.homography)
            XCTAssertLessThanOrEqual(error, 1.5 * oracle[seed - 1], "seed \(seed)")
            ours.append(error)
        }
        XCTAssertGreaterThan(ours[3], 1.5 * min(ransac[3], magsac[3]), "seed 4 is the draw where the peer was lucky")
        let better = min(median(ransac), median(magsac))
        XCTAssertLessThanOrEqual(median(ours), 1.5 * better, "ours \(ours) against RANSAC \(ransac), MAGSAC \(magsac)")
    }
}
