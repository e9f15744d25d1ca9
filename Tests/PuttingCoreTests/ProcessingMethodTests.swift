// The pieces of the method, each against an independent fact: numpy's arange values, the sampling
// rule, the logarithm, the factorisation's residual, the spline's defining equations, the mask's
// strictness and the file formats.
import Foundation
import XCTest
@testable import PuttingCore

final class ProcessingGridAxisTests: XCTestCase {
    func testAxisFollowsNumpyArangeIncludingTheNodeBeyondHalfTheWidth() {
        // arange(-0.3, 0.8, 0.5) = [-0.3, 0.2, 0.7]: the last node lies beyond W/2 = 0.3.
        let axis = ArangeGridAxis(extentFt: 0.6)
        XCTAssertEqual(axis.values, [-0.3, -0.3 + 0.5, -0.3 + 2 * 0.5])
        XCTAssertEqual(axis.count, 3)
        // ceil((W/2 + 0.5 + W/2)/0.5) nodes: 102.446… ft gives 206 (the shipped hole 1 grid).
        let hole1 = ArangeGridAxis(extentFt: 102.44600597829094)
        XCTAssertEqual(hole1.count, 206)
        XCTAssertEqual(hole1.first, -51.22300298914547)
        XCTAssertEqual(hole1[205], -51.22300298914547 + 205 * 0.5)
        XCTAssertGreaterThan(hole1.last, 102.44600597829094 / 2)
    }

    func testAxisFillsFromTheFirstTwoValuesAsNumpyDoes() {
        // numpy 2.4: arange(-0.65, 0.75, 0.1) fills start + i·((start + 0.1) − start); 12 of these 14
        // values differ from start + i·0.1.
        let numpy = [-0.65, -0.55, -0.45000000000000007, -0.3500000000000001, -0.2500000000000001,
                     -0.15000000000000013, -0.050000000000000155, 0.04999999999999982, 0.1499999999999998,
                     0.24999999999999978, 0.34999999999999976, 0.4499999999999996, 0.5499999999999997, 0.6499999999999998]
        XCTAssertEqual(ArangeGridAxis(extentFt: 1.3, resolutionFt: 0.1).values, numpy)
        XCTAssertNotEqual((0..<14).map { -0.65 + Double($0) * 0.1 }, numpy)
    }
}

final class ProcessingSamplingTests: XCTestCase {
    func testEachSegmentGivesFloorOfItsLengthPointsThenTheLastVertex() {
        // Segment lengths 2.5 (→ 2 points), 0.3 (→ 1 point), 3.0 (→ 3 points), then the last vertex.
        let contour = TracedContour(k: 1, heightFt: 0.25, points: [
            TracedPoint(x: 0, z: 0), TracedPoint(x: 2.5, z: 0), TracedPoint(x: 2.5, z: 0.3), TracedPoint(x: 2.5, z: 3.3),
        ])
        let samples = ContourSamples(contours: [contour])
        XCTAssertEqual(samples.x, [0, 1.25, 2.5, 2.5, 2.5, 2.5, 2.5])
        XCTAssertEqual(samples.z, [0, 0, 0, 0.3, 0.3 + 3 * (1.0 / 3), 0.3 + 3 * (2.0 / 3), 3.3])
        XCTAssertEqual(samples.height, Array(repeating: 0.25, count: 7))
        XCTAssertEqual(ContourSamples.count(of: [contour]), 7)
    }

    func testRepeatedVerticesAreKeptAndClosedPolylinesRepeatTheirStart() {
        let closed = TracedContour(heightFt: 1, points: [
            TracedPoint(x: 0, z: 0), TracedPoint(x: 0, z: 0), TracedPoint(x: 1, z: 0), TracedPoint(x: 0, z: 0),
        ])
        let samples = ContourSamples(contours: [closed])
        // Zero-length segment → 1 point; two unit segments → 1 point each; last vertex.
        XCTAssertEqual(samples.x, [0, 0, 1, 0])
        XCTAssertEqual(samples.z, [0, 0, 0, 0])
    }
}

final class ProcessingKernelTests: XCTestCase {
    func testSLogSAgreesWithTheLibraryLogarithm() {
        var worst = 0.0
        var s = 1e-12
        while s < 1e7 {
            for f in [1.0, 1.0137, 1.41421356, 1.41421357, 0.70710678, 0.7071067812, 1.999999] {
                let v = s * f
                let reference = v * log(v)
                let error = abs(ThinPlateKernel.sLogS(v) - reference) / max(abs(reference), 1e-300)
                worst = max(worst, error)
            }
            s *= 1.7
        }
        XCTAssertLessThan(worst, 4e-15)
        XCTAssertEqual(ThinPlateKernel.sLogS(1), 0)
        XCTAssertEqual(ThinPlateKernel.sLogS(0), 0, accuracy: 1e-300)
        XCTAssertEqual(ThinPlateKernel.phi(squaredDistance: 0), 0, accuracy: 1e-300)
        // φ(r) = r²·log r: r = 3 → 9·log 3.
        XCTAssertEqual(ThinPlateKernel.phi(squaredDistance: 9), 9 * log(3.0), accuracy: 1e-14)
    }
}

final class ProcessingCholeskyTests: XCTestCase {
    /// A reproducible SPD matrix: G·Gᵀ + m·I with G from a linear congruential sequence.
    private func spd(_ m: Int) -> [Double] {
        var state: UInt64 = 12345
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        let g = (0..<(m * m)).map { _ in next() }
        var a = [Double](repeating: 0, count: m * m)
        for i in 0..<m {
            for j in 0..<m {
                var s = 0.0
                for k in 0..<m { s += g[i * m + k] * g[j * m + k] }
                a[i * m + j] = s + (i == j ? Double(m) : 0)
            }
        }
        return a
    }

    func testFactorAndSolveLeaveATinyResidualAcrossBlockSizes() throws {
        // Sizes below, at, and across the block size and the trailing update's column blocks, and not
        // multiples of the 4×4 tile.
        for m in [1, 3, 7, DenseCholesky.blockSize, DenseCholesky.blockSize + 1, 2 * DenseCholesky.blockSize + 13, 301] {
            let a = spd(m)
            var l = a
            let b = (0..<m).map { Double($0 % 7) - 3 }
            var x = b
            var fractions: [Double] = []
            try l.withUnsafeMutableBufferPointer { lp in
                guard let base = lp.baseAddress else { return }
                try DenseCholesky.factor(base, m: m, lda: m) { fractions.append($0) }
                x.withUnsafeMutableBufferPointer { xp in
                    if let xb = xp.baseAddress { DenseCholesky.solve(base, m: m, lda: m, xb) }
                }
            }
            var worst = 0.0
            for i in 0..<m {
                var s = 0.0
                for j in 0..<m { s += a[i * m + j] * x[j] }
                worst = max(worst, abs(s - b[i]))
            }
            XCTAssertLessThan(worst, 1e-12 * Double(m), "m = \(m)")
            XCTAssertEqual(fractions.last, 1, "m = \(m)")
            XCTAssertEqual(fractions, fractions.sorted(), "m = \(m)")
        }
    }

    func testAnIndefiniteMatrixIsRefusedAtItsPivot() {
        // [[4, 2, 0], [2, 1, 0], [0, 0, 1]]: the second pivot is 1 − 2²/4 = 0.
        var a: [Double] = [4, 2, 0, 2, 1, 0, 0, 0, 1]
        let column: Int? = a.withUnsafeMutableBufferPointer { p -> Int? in
            guard let base = p.baseAddress else { return nil }
            do {
                try DenseCholesky.factor(base, m: 3, lda: 3)
                return nil
            } catch {
                return (error as? DenseCholesky.NotPositiveDefinite)?.column
            }
        }
        XCTAssertEqual(column, 1)
    }
}

final class ProcessingSplineTests: XCTestCase {
    /// Scattered samples on a bumpy surface.
    private func scattered(_ n: Int) -> (x: [Double], z: [Double], h: [Double]) {
        var x: [Double] = [], z: [Double] = [], h: [Double] = []
        for i in 0..<n {
            let t = Double(i)
            x.append(9 * sin(t * 1.7) + 0.3 * t.truncatingRemainder(dividingBy: 5))
            z.append(7 * cos(t * 2.3) - 0.2 * t.truncatingRemainder(dividingBy: 3))
            h.append(0.25 * Double(i % 9))
        }
        return (x, z, h)
    }

    func testSolutionSatisfiesTheSmoothedSystemWithSmoothingAddedToTheDiagonal() throws {
        // (K + λI)c + P·a = d  ⇔  h(p_i) = d_i − λ·c_i, and Pᵀc = 0 (scipy's convention: +λ).
        let (x, z, d) = scattered(150)
        let spline = try ThinPlateSpline.fit(x: x, z: z, values: d, smoothing: 0.25)
        for i in 0..<x.count {
            XCTAssertEqual(spline.value(x: x[i], z: z[i]), d[i] - 0.25 * spline.weights[i], accuracy: 1e-9)
        }
        let c = spline.weights
        XCTAssertEqual(c.reduce(0, +), 0, accuracy: 1e-10)
        XCTAssertEqual(zip(c, x).reduce(0) { $0 + $1.0 * $1.1 }, 0, accuracy: 1e-9)
        XCTAssertEqual(zip(c, z).reduce(0) { $0 + $1.0 * $1.1 }, 0, accuracy: 1e-9)
        // The smoothing does something: the surface does not pass through the data.
        XCTAssertGreaterThan(c.map(abs).max() ?? 0, 1e-3)
    }

    func testWithoutSmoothingTheSurfaceInterpolates() throws {
        let (x, z, d) = scattered(60)
        let spline = try ThinPlateSpline.fit(x: x, z: z, values: d, smoothing: 0)
        for i in 0..<x.count { XCTAssertEqual(spline.value(x: x[i], z: z[i]), d[i], accuracy: 1e-8) }
    }

    func testAPlaneIsReproducedExactlyWhateverTheSmoothing() throws {
        let (x, z, _) = scattered(80)
        let d = zip(x, z).map { ProcessingFixture.plane($0, $1) }
        let spline = try ThinPlateSpline.fit(x: x, z: z, values: d, smoothing: 0.25)
        XCTAssertLessThan(spline.weights.map(abs).max() ?? 1, 1e-12)
        for (px, pz) in [(0.0, 0.0), (-8.5, 3.25), (11, -9)] {
            XCTAssertEqual(spline.value(x: px, z: pz), ProcessingFixture.plane(px, pz), accuracy: 1e-12)
        }
        // Shift and scale as scipy: centre and half-range of the samples.
        XCTAssertEqual(spline.shiftX, ((x.max() ?? 0) + (x.min() ?? 0)) / 2)
        XCTAssertEqual(spline.scaleZ, ((z.max() ?? 0) - (z.min() ?? 0)) / 2)
    }

    func testGridRowsMatchPointEvaluation() throws {
        let (x, z, d) = scattered(120)
        let spline = try ThinPlateSpline.fit(x: x, z: z, values: d, smoothing: 0.25)
        let evaluator = SplineRowEvaluator(spline)
        // Includes a node on a sample (s = 0) and odd counts.
        let xs: [Double] = [-10, -3.3, x[7], 0, 2.5, 8.75, 9.9]
        var out = [Double](repeating: .nan, count: xs.count)
        xs.withUnsafeBufferPointer { xb in
            out.withUnsafeMutableBufferPointer { ob in
                guard let xp = xb.baseAddress, let op = ob.baseAddress else { return }
                evaluator.evaluateRow(z: z[7], x: xp, count: xs.count, into: op)
            }
        }
        for (i, px) in xs.enumerated() {
            XCTAssertEqual(out[i], spline.value(x: px, z: z[7]), accuracy: 1e-11)
        }
    }
}

final class ProcessingPipelineTests: XCTestCase {
    func testAPlanarGreenComesOutAsThePlaneShiftedToZero() throws {
        let boundary = ProcessingFixture.boundary(ProcessingFixture.polygon(radius: 7, sides: 24))
        let contours = ProcessingFixture.contours(ProcessingFixture.planeContours)
        var seen: [ProcessingProgress] = []
        let result = try GreenProcessor.process(boundary: boundary, contours: contours) { seen.append($0) }
        let grid = result.grid
        let xs = ArangeGridAxis(extentFt: 20), zs = ArangeGridAxis(extentFt: 16)
        XCTAssertEqual(grid.nx, xs.count)
        XCTAssertEqual(grid.nz, zs.count)
        XCTAssertEqual(grid.xMinFt, -10)
        XCTAssertEqual(grid.zMinFt, -8)
        var lowest = Double.infinity
        for j in 0..<grid.nz { for i in 0..<grid.nx where grid.isInside(i: i, j: j) { lowest = min(lowest, ProcessingFixture.plane(xs[i], zs[j])) } }
        XCTAssertEqual(result.shiftFt, lowest, accuracy: 1e-10)
        for j in 0..<grid.nz {
            for i in 0..<grid.nx {
                if grid.isInside(i: i, j: j) {
                    XCTAssertEqual(Double(grid.height(i: i, j: j)), ProcessingFixture.plane(xs[i], zs[j]) - lowest, accuracy: 1e-6)
                } else {
                    XCTAssertEqual(grid.height(i: i, j: j), 0)
                }
            }
        }
        XCTAssertEqual(result.sampleCount, ContourSamples.count(of: contours.contours))
        XCTAssertEqual(seen.first?.stage, .sampling)
        XCTAssertEqual(seen.last, ProcessingProgress(stage: .done, fraction: 1))
        XCTAssertEqual(seen.map(\.fraction), seen.map(\.fraction).sorted())
        XCTAssertTrue(seen.contains { $0.stage == .solving } && seen.contains { $0.stage == .evaluating })
        XCTAssertTrue(result.warnings.isEmpty)
        XCTAssertTrue(result.summary.hasPrefix("heightfield 41 × 33 nodes at 0.5 ft, \(grid.insideCount) on the green, from \(result.sampleCount) contour samples in "),
                      result.summary)
        XCTAssertGreaterThan(grid.insideCount, 400)
        let report = result.report
        XCTAssertEqual([report.nx, report.nz, report.insideNodes, report.samples], [41, 33, grid.insideCount, result.sampleCount])
        let decoded = try JSONDecoder().decode(ProcessingReport.self, from: JSONEncoder().encode(report))
        XCTAssertEqual(decoded, report)
    }

    func testMaskIsStrictlyInsideTheBoundary() {
        // A square whose edges run through grid nodes: nodes on the edges and corners are outside.
        let xs = ArangeGridAxis(extentFt: 4), zs = ArangeGridAxis(extentFt: 4) // nodes −2, −1.5, …, 2.5
        let square = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map { TracedPoint(x: $0.0, z: $0.1) }
        let mask = TracedBoundaryGeometry.mask(square, xs: xs, zs: zs)
        var inside: [String] = []
        for j in 0..<zs.count { for i in 0..<xs.count where mask[j * xs.count + i] { inside.append("\(xs[i]),\(zs[j])") } }
        XCTAssertEqual(inside, ["-0.5,-0.5", "0.0,-0.5", "0.5,-0.5", "-0.5,0.0", "0.0,0.0", "0.5,0.0", "-0.5,0.5", "0.0,0.5", "0.5,0.5"])
        // A concave outline (a U): the notch's nodes are outside; a vertex on a node row is handled.
        let u = [(-2.0, -2.0), (2.0, -2.0), (2.0, 2.0), (1.0, 2.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 2.0), (-2.0, 2.0)]
            .map { TracedPoint(x: $0.0, z: $0.1) }
        let uMask = TracedBoundaryGeometry.mask(u, xs: ArangeGridAxis(extentFt: 6), zs: ArangeGridAxis(extentFt: 6))
        let axis = ArangeGridAxis(extentFt: 6)
        func at(_ x: Double, _ z: Double) -> Bool {
            guard let i = axis.values.firstIndex(of: x), let j = axis.values.firstIndex(of: z) else { return false }
            return uMask[j * axis.count + i]
        }
        XCTAssertTrue(at(-1.5, 0))
        XCTAssertTrue(at(1.5, 1.5))
        XCTAssertFalse(at(0, 0))     // in the notch
        XCTAssertFalse(at(0, -1))    // on the notch's bottom edge
        XCTAssertTrue(at(0, -1.5))
        XCTAssertFalse(at(-2, 0))    // on the outer edge
    }

    func testFilesHaveTheOriginalLayout() {
        let grid = ProcessedGrid(nx: 2, nz: 1, resolutionFt: 0.5, xMinFt: -51.22300298914547, zMinFt: -4.0,
                                 heights: [1.5, -0.0], mask: [true, false])
        XCTAssertEqual(grid.binBytes, [0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x00, 0x80])
        XCTAssertEqual(grid.gridJSON, """
            {
              "units": {
                "x": "ft",
                "z": "ft",
                "y": "ft"
              },
              "grid": {
                "nx": 2,
                "nz": 1,
                "resolution_ft": 0.5,
                "x_min_ft": -51.22300298914547,
                "z_min_ft": -4.0
              },
              "mask": {
                "format": "uint8",
                "note": "mask array not written yet; inside=true"
              }
            }
            """)
        let files = grid.files(hole: 7)
        XCTAssertEqual(files.map(\.name), ["Hole_7_heightfield.json", "Hole_7_heightfield.bin"])
        XCTAssertEqual(files[1].bytes.count, 8)
    }
}
