// The court-fit sweep (issue 31, item 3): 80 synthetic calibration sets — 30 or 100 pairs, 0.5 or
// 2 px of image noise, 0, 30, 50 or 70 % wrong matches, seeds 1–5 — each fitted by TennisCore's
// robust estimator (what `tennis homography --method ransac` runs), scored by the largest distance
// between the fit and the true camera over a 0.25 m grid of the half court.
// Usage: clubhouse-bench tennis-sweep [--write-cases DIR] [--threshold M] [--seed S] [--max-uncertainty M] [--seeds N]
// (--seeds N: the same grid for seeds 6…N after the 80, to tell an estimator's error from chance.)
// Prints one JSON object per case per line. With --write-cases, each case is also written as
// DIR/case-NN.json in the peers' pairs format, with the grid's image points ("points") and their
// true court positions ("points_true_court"): Benchmarks/tennis/court_sweep.py fits them with
// `clubhouse tennis homography --method ransac` and with OpenCV's RANSAC and MAGSAC.

#if canImport(Glibc)
import Glibc
#endif
import ClubhouseHost
import TennisCore

struct CourtSweepCase {
    var index: Int
    var count: Int
    var noise: Double
    var outliers: Double
    var seed: UInt64

    /// The 80 cases (seeds 1–5), in a fixed order; with `seeds` above 5 the same grid for seeds 6…`seeds`
    /// follows (indices 80 on), so the first 80 keep their numbers.
    static func all(seeds: Int = 5) -> [CourtSweepCase] {
        var cases: [CourtSweepCase] = []
        func grid(_ seedRange: ClosedRange<Int>) {
            for count in [30, 100] {
                for noise in [0.5, 2.0] {
                    for outliers in [0.0, 0.3, 0.5, 0.7] {
                        for seed in seedRange {
                            cases.append(CourtSweepCase(index: cases.count, count: count, noise: noise, outliers: outliers, seed: UInt64(seed)))
                        }
                    }
                }
            }
        }
        grid(1...5)
        if seeds > 5 { grid(6...seeds) }
        return cases
    }
}

private func sweepSeconds() -> Double { SystemSessionClock().now() }

private func sweepOption(_ arguments: [String], _ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

private func jsonString(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
        switch c {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        default: out.unicodeScalars.append(c)
        }
    }
    return out + "\""
}

func tennisSweepBench(_ arguments: [String]) {
    let threshold = sweepOption(arguments, "--threshold").flatMap(Double.init) ?? 0.25
    let seed = sweepOption(arguments, "--seed").flatMap(UInt64.init) ?? 1
    let limit = sweepOption(arguments, "--max-uncertainty").flatMap(Double.init) ?? RansacOptions.defaultMaxCourtUncertainty
    let directory = sweepOption(arguments, "--write-cases")
    let seeds = sweepOption(arguments, "--seeds").flatMap(Int.init) ?? 5
    for c in CourtSweepCase.all(seeds: seeds) {
        let set = SyntheticCalibration(count: c.count, outlierFraction: c.outliers, noisePixels: c.noise, seed: c.seed)
        if let directory {
            var probes: [String] = [], truth: [String] = []
            for c in set.courtGrid {
                let image = set.camera.apply(c) ?? c
                probes.append("[\(image.x), \(image.y)]")
                truth.append("[\(c.x), \(c.y)]")
            }
            let pairs = set.pairs.map { "{\"image\": [\($0.image.x), \($0.image.y)], \"court\": [\($0.court.x), \($0.court.y)]}" }
            let text = "{\"case\": {\"index\": \(c.index), \"pairs\": \(c.count), \"noise_px\": \(c.noise), \"outliers\": \(c.outliers), \"seed\": \(c.seed)},\n"
                + "\"pairs\": [\n  " + pairs.joined(separator: ",\n  ") + "\n],\n"
                + "\"wrong\": [" + set.outliers.map { $0 ? "1" : "0" }.joined(separator: ", ") + "],\n"
                + "\"points\": [" + probes.joined(separator: ", ") + "],\n"
                + "\"points_true_court\": [" + truth.joined(separator: ", ") + "]}\n"
            let path = "\(directory)/case-\(c.index < 10 ? "00" : c.index < 100 ? "0" : "")\(c.index).json"
            guard let file = fopen(path, "w") else {
                print("tennis-sweep bench: cannot write \(path)")
                exit(1)
            }
            fputs(text, file)
            fclose(file)
        }
        let t0 = sweepSeconds()
        let result = Result { () throws(HomographyError) in
            try HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: threshold, seed: seed, maxCourtUncertainty: limit)))
        }
        let ms = (sweepSeconds() - t0) * 1e3
        var line = "{\"index\": \(c.index), \"pairs\": \(c.count), \"noise_px\": \(c.noise), \"outliers\": \(c.outliers), \"seed\": \(c.seed), \"ms\": \(ms), "
        switch result {
        case .success(let estimate):
            let used = estimate.inliers?.filter { $0 }.count ?? c.count
            let trueInliers = zip(estimate.inliers ?? [], set.outliers).filter { $0.0 && !$0.1 }.count
            line += "\"error_m\": \(set.maxCourtError(of: estimate.homography)), \"inliers\": \(used), \"true_inliers_used\": \(trueInliers), \"samples\": \(estimate.samples ?? 0), \"uncertainty_m\": \(estimate.courtUncertainty ?? 0), \"noise_px\": \(estimate.imageNoise ?? 0)}"
        case .failure(let error):
            line += "\"error_m\": null, \"refused\": \(jsonString(error.description))}"
        }
        print(line)
    }
}
