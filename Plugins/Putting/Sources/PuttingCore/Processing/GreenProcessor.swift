// The "process hole" step of the original app: traced contours + boundary → heightfield.
//   1. grid: numpy arange(−W/2, W/2 + res, res) along x, the same along z (ArangeGridAxis);
//   2. samples along the contours at 1 ft steps, at each contour's height_ft (ContourSamples);
//   3. thin-plate spline with a linear term and smoothing 0.25, one dense solve (ThinPlateSpline);
//   4. mask: nodes strictly inside the boundary (TracedBoundaryGeometry);
//   5. the surface evaluated in double precision at the inside nodes (the outside ones are written
//      as 0.0 anyway), shifted so the lowest inside node is 0, stored as float32.

import ClubhouseToolkit

/// Parameters of the method; the defaults are the original pipeline's.
public struct ProcessingOptions: Sendable, Equatable {
    public static let originalResolutionFt = 0.5
    public static let originalSmoothing = 0.25

    /// Grid spacing in feet.
    public var resolutionFt: Double
    /// λ added to the kernel matrix's diagonal.
    public var smoothing: Double
    /// Refuse more contour samples than this (the dense system needs 8·n² bytes and ~n³/3 flops).
    public var maxSamples: Int
    /// Refuse grids with more nodes than this.
    public var maxNodes: Int

    public init(resolutionFt: Double = originalResolutionFt, smoothing: Double = originalSmoothing,
                maxSamples: Int = 6_000, maxNodes: Int = 4_000_000) {
        self.resolutionFt = resolutionFt
        self.smoothing = smoothing
        self.maxSamples = maxSamples
        self.maxNodes = maxNodes
    }
}

/// Where a processing run is, for a progress bar. `fraction` grows monotonically from 0 to 1.
public struct ProcessingProgress: Sendable, Equatable {
    public enum Stage: String, Sendable, Codable {
        case sampling, solving, masking, evaluating, done
    }

    public let stage: Stage
    public let fraction: Double
}

/// Wall-clock seconds spent in each part of a run.
public struct ProcessingTimings: Sendable, Equatable, Codable {
    /// Checks, sampling, building and solving the system.
    public var solveSeconds: Double
    /// Evaluating the surface at the inside nodes.
    public var evaluationSeconds: Double
    /// The inside-the-boundary mask, the shift to 0 and the float32 conversion.
    public var maskSeconds: Double

    public var totalSeconds: Double { solveSeconds + evaluationSeconds + maskSeconds }
}

/// A processed green with what was learnt on the way.
public struct ProcessingResult: Sendable {
    public let grid: ProcessedGrid
    /// Number of contour samples the surface was fitted to.
    public let sampleCount: Int
    /// The raw surface's lowest inside value, subtracted from every inside node (feet).
    public let shiftFt: Double
    /// Estimated condition number of the solved system.
    public let conditionEstimate: Double
    /// Things worth telling the user that did not stop the run (e.g. a contour whose k disagrees with its height).
    public let warnings: [String]
    public let timings: ProcessingTimings

    /// The run's facts without the heights, for a `--json` reply.
    public var report: ProcessingReport {
        ProcessingReport(nx: grid.nx, nz: grid.nz, resolutionFt: grid.resolutionFt, xMinFt: grid.xMinFt,
                         zMinFt: grid.zMinFt, insideNodes: grid.insideCount, samples: sampleCount, shiftFt: shiftFt,
                         conditionEstimate: conditionEstimate, warnings: warnings, timings: timings)
    }

    /// One line for a person: what was built from what, and how long it took.
    public var summary: String {
        let seconds = (timings.totalSeconds * 100).rounded() / 100
        return "heightfield \(grid.nx) × \(grid.nz) nodes at \(grid.resolutionFt) ft, \(grid.insideCount) on the green, "
            + "from \(sampleCount) contour samples in \(seconds) s"
    }
}

/// What a processing run produced, minus the heights (Codable for JSON replies).
public struct ProcessingReport: Sendable, Equatable, Codable {
    public let nx: Int
    public let nz: Int
    public let resolutionFt: Double
    public let xMinFt: Double
    public let zMinFt: Double
    public let insideNodes: Int
    public let samples: Int
    public let shiftFt: Double
    public let conditionEstimate: Double
    public let warnings: [String]
    public let timings: ProcessingTimings
}

public enum GreenProcessor {
    /// Builds the heightfield of one green from its traced boundary and contours.
    /// `progress` is called on the calling thread, a few hundred times at most.
    public static func process(boundary: TracedBoundary, contours: TracedContours,
                               options: ProcessingOptions = ProcessingOptions(),
                               progress: (ProcessingProgress) -> Void = { _ in }) throws(GreenProcessingError) -> ProcessingResult {
        let clock = MonotonicClock()
        let started = clock.now
        progress(ProcessingProgress(stage: .sampling, fraction: 0))
        try checkOptions(options)
        try boundary.validate()
        try contours.validate()
        try checkSameGreen(boundary: boundary, contours: contours)
        let xs = ArangeGridAxis(extentFt: contours.greenWidthFt, resolutionFt: options.resolutionFt)
        let zs = ArangeGridAxis(extentFt: contours.greenHeightFt, resolutionFt: options.resolutionFt)
        guard xs.count <= options.maxNodes / max(1, zs.count) else {
            throw GreenProcessingError(
                .tooLarge, "the grid would have \(xs.count) × \(zs.count) nodes, more than the limit of \(options.maxNodes); use a coarser resolution")
        }
        let sampleCount = ContourSamples.count(of: contours.contours)
        guard sampleCount <= options.maxSamples else {
            throw GreenProcessingError(
                .tooLarge, "the contours give \(sampleCount) samples, more than the limit of \(options.maxSamples) (one per foot of contour); simplify or shorten the contours")
        }
        // The mask first: a boundary around no node is refused before the expensive solve.
        let maskStarted = clock.now
        progress(ProcessingProgress(stage: .masking, fraction: 0.01))
        let mask = TracedBoundaryGeometry.mask(boundary.points, xs: xs, zs: zs)
        guard mask.contains(true) else {
            throw GreenProcessingError(.emptyMask, at: boundary.source?.locate("/points_xz_ft"),
                                       "no grid node lies inside the boundary; check that the boundary and the contours use the same frame")
        }
        let masked = clock.now

        let samples = ContourSamples(contours: contours.contours)
        progress(ProcessingProgress(stage: .solving, fraction: 0.02))
        let spline = try ThinPlateSpline.fit(x: samples.x, z: samples.z, values: samples.height,
                                             smoothing: options.smoothing) { done in
            progress(ProcessingProgress(stage: .solving, fraction: 0.02 + 0.38 * done))
        }
        let solved = clock.now


        let nx = xs.count, nz = zs.count
        var raw = [Double](repeating: 0, count: nx * nz)
        let xValues = xs.values
        let evaluator = SplineRowEvaluator(spline)
        var minimum = Double.infinity
        raw.withUnsafeMutableBufferPointer { out in
            xValues.withUnsafeBufferPointer { xb in
                for j in 0..<nz {
                    let row = j * nx
                    guard let first = (0..<nx).first(where: { mask[row + $0] }),
                          let last = (0..<nx).last(where: { mask[row + $0] }),
                          let base = xb.baseAddress, let outBase = out.baseAddress else { continue }
                    evaluator.evaluateRow(z: zs[j], x: base + first, count: last - first + 1, into: outBase + row + first)
                    for i in first...last where mask[row + i] { minimum = min(minimum, out[row + i]) }
                    if j % 4 == 3 {
                        progress(ProcessingProgress(stage: .evaluating, fraction: 0.4 + 0.6 * Double(j + 1) / Double(nz)))
                    }
                }
            }
        }
        let evaluated = clock.now

        let heights = try shiftedToZero(raw, mask: mask, minimum: minimum)
        let finished = clock.now
        progress(ProcessingProgress(stage: .done, fraction: 1))

        let grid = ProcessedGrid(nx: nx, nz: nz, resolutionFt: options.resolutionFt, xMinFt: xs.first,
                                 zMinFt: zs.first, heights: heights, mask: mask)
        let timings = ProcessingTimings(solveSeconds: seconds(maskStarted - started) + seconds(solved - masked),
                                        evaluationSeconds: seconds(evaluated - solved),
                                        maskSeconds: seconds(masked - maskStarted) + seconds(finished - evaluated))
        return ProcessingResult(grid: grid, sampleCount: samples.count, shiftFt: minimum,
                                conditionEstimate: spline.conditionEstimate,
                                warnings: contours.inconsistentLevels, timings: timings)
    }

    /// The boundary and the contours must describe the same green (the same width and height).
    public static func checkSameGreen(boundary: TracedBoundary, contours: TracedContours) throws(GreenProcessingError) {
        let sameSize = abs(boundary.greenWidthFt - contours.greenWidthFt) <= 1e-9 * contours.greenWidthFt
            && abs(boundary.greenHeightFt - contours.greenHeightFt) <= 1e-9 * contours.greenHeightFt
        guard sameSize else {
            throw GreenProcessingError(
                .greenSize, at: boundary.source?.locate(""),
                "the boundary says the green is \(boundary.greenWidthFt) × \(boundary.greenHeightFt) ft but the contours say \(contours.greenWidthFt) × \(contours.greenHeightFt) ft; export both from the same traced image")
        }
    }

    /// Inside nodes minus the lowest inside value, as float32; outside nodes 0.
    static func shiftedToZero(_ raw: [Double], mask: [Bool], minimum: Double) throws(GreenProcessingError) -> [Float] {
        var heights = [Float](repeating: 0, count: raw.count)
        for k in 0..<raw.count where mask[k] {
            let h = Float(raw[k] - minimum)
            guard h.isFinite else {
                throw GreenProcessingError(.illConditioned, "the surface is not finite inside the boundary (node \(k)); check the contour heights")
            }
            heights[k] = h
        }
        return heights
    }

    /// Parses both files (errors name file:line:column) and processes them.
    public static func process(boundaryJSON: String, boundaryFile: String, contoursJSON: String, contoursFile: String,
                               options: ProcessingOptions = ProcessingOptions(),
                               progress: (ProcessingProgress) -> Void = { _ in }) throws(GreenProcessingError) -> ProcessingResult {
        let boundary = try TracedBoundary.parse(boundaryJSON, file: boundaryFile)
        let contours = try TracedContours.parse(contoursJSON, file: contoursFile)
        return try process(boundary: boundary, contours: contours, options: options, progress: progress)
    }

    private static func checkOptions(_ options: ProcessingOptions) throws(GreenProcessingError) {
        guard options.resolutionFt.isFinite && options.resolutionFt >= 0.01 else {
            throw GreenProcessingError(.greenSize, "the grid resolution is \(options.resolutionFt) ft; use at least 0.01 ft (the original uses 0.5)")
        }
        guard options.smoothing.isFinite && options.smoothing >= 0 else {
            throw GreenProcessingError(.illConditioned, "the smoothing is \(options.smoothing); use a finite value ≥ 0 (the original uses 0.25)")
        }
    }

    private static func seconds(_ d: Duration) -> Double {
        let c = d.components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }
}
