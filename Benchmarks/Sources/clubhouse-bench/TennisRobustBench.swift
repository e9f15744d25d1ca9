// Tennis 1.1 benchmarks: the robust homography on 100 pairs with 70 % wrong matches, and a drill
// streamed to the host's ball-machine simulator over loopback TCP at the protocol's pace (how late
// each command is written against its scheduled time). Prints one JSON object.
// Usage: clubhouse-bench tennis-robust [--repeat R] [--sets N] [--drill-balls N] [--drill-delay S]
//                                      [--write-ransac-pairs PATH]
// Benchmarks/tennis/run.sh runs it beside OpenCV's findHomography(RANSAC) on the same pairs.

#if canImport(Glibc)
import Glibc
#endif
import ClubhouseHost
import Dispatch
import TennisCore

private func seconds() -> Double { SystemSessionClock().now() }

private func medianOf(_ values: [Double]) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return 0 }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

private func percentile(_ values: [Double], _ p: Double) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return 0 }
    return s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))]
}

private func argument(_ arguments: [String], _ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

func tennisRobustBench(_ arguments: [String]) {
    let repeats = max(1, argument(arguments, "--repeat").flatMap(Int.init) ?? 15)
    let setCount = max(1, argument(arguments, "--sets").flatMap(Int.init) ?? 10)
    let balls = max(0, argument(arguments, "--drill-balls").flatMap(Int.init) ?? 15)
    let delay = argument(arguments, "--drill-delay").flatMap(Double.init) ?? 2
    let threshold = 0.25

    // 1. Robust homography: 100 pairs, 70 wrong, 0.5 px noise on the rest; one fit per set per round.
    let sets = (1...setCount).map { SyntheticCalibration(count: 100, outlierFraction: 0.7, noisePixels: 0.5, seed: UInt64($0)) }
    if let path = argument(arguments, "--write-ransac-pairs") {
        // The first set in the peer's format, with court grid probes and their true positions.
        let set = sets[0]
        var probes: [(Point2D, Point2D)] = []
        for i in 0...8 {
            for j in 0...11 {
                let c = Point2D(Double(i) * Court.width / 8, Double(j) * Court.halfLength / 11)
                probes.append((set.camera.apply(c) ?? c, c))
            }
        }
        let pairs = set.pairs.map { "{\"image\": [\($0.image.x), \($0.image.y)], \"court\": [\($0.court.x), \($0.court.y)]}" }
        let text = "{\"pairs\": [\n  " + pairs.joined(separator: ",\n  ") + "\n],\n\"points\": ["
            + probes.map { "[\($0.0.x), \($0.0.y)]" }.joined(separator: ", ")
            + "],\n\"points_true_court\": [" + probes.map { "[\($0.1.x), \($0.1.y)]" }.joined(separator: ", ") + "]}\n"
        guard let file = fopen(path, "w") else {
            print("tennis-robust bench: cannot write \(path)")
            exit(1)
        }
        fputs(text, file)
        fclose(file)
    }
    var perFit: [Double] = []
    var worstError = 0.0, samples: [Double] = [], inliers: [Double] = []
    var failures = 0
    for round in 0..<repeats {
        for set in sets {
            let t0 = seconds()
            let estimate = try? HomographyEstimator.estimate(set.pairs, method: .ransac(RansacOptions(threshold: threshold, seed: 1)))
            perFit.append(seconds() - t0)
            guard let estimate else { failures += 1; continue }
            if round == 0 {
                worstError = max(worstError, set.maxCourtError(of: estimate.homography))
                samples.append(Double(estimate.samples ?? 0))
                inliers.append(Double(estimate.inliers?.filter { $0 }.count ?? 0))
            }
        }
    }
    // The first set alone, for the ratio to the peer on the same pairs.
    var firstSet: [Double] = []
    for _ in 0..<(repeats * 20) {
        let t0 = seconds()
        _ = try? HomographyEstimator.estimate(sets[0].pairs, method: .ransac(RansacOptions(threshold: threshold, seed: 1)))
        firstSet.append(seconds() - t0)
    }
    let firstError = (try? HomographyEstimator.estimate(sets[0].pairs, method: .ransac(RansacOptions(threshold: threshold, seed: 1))))
        .map { sets[0].maxCourtError(of: $0.homography) } ?? .infinity

    // 2. A drill at the protocol's pace against the simulator over loopback TCP.
    let late = balls > 0 ? drillLateness(balls: balls, delay: delay) : []

    print("""
    {
     "ransac_pairs": 100,
     "ransac_outlier_fraction": 0.7,
     "ransac_threshold_m": \(threshold),
     "ransac_sets": \(setCount),
     "ransac_fits": \(perFit.count),
     "ransac_failures": \(failures),
     "ransac_median_ms": \(medianOf(perFit) * 1e3),
     "ransac_p90_ms": \(percentile(perFit, 0.9) * 1e3),
     "ransac_max_ms": \((perFit.max() ?? 0) * 1e3),
     "ransac_first_set_median_ms": \(medianOf(firstSet) * 1e3),
     "ransac_first_set_max_court_error_m": \(firstError),
     "ransac_worst_max_court_error_m": \(worstError),
     "ransac_median_samples": \(medianOf(samples)),
     "ransac_median_inliers": \(medianOf(inliers)),
     "drill_balls": \(late.count),
     "drill_delay_s": \(delay),
     "drill_late_median_ms": \(medianOf(late)),
     "drill_late_p90_ms": \(percentile(late, 0.9)),
     "drill_late_max_ms": \(late.max() ?? 0)
    }
    """)
}

/// Milliseconds between each ball's scheduled time and the write of its command, for a drill of
/// `balls` balls `delay` seconds apart run by TennisCore against the simulator program on a socket pair.
private func drillLateness(balls: Int, delay: Double) -> [Double] {
    // The simulator program on a socket pair, as the host attaches a `simulator:ballmachine` device.
    guard let fd = try? DeviceSimulator.attach(kind: "ballmachine", arguments: ["--checksum", "xor"], name: "bench", report: nil) else {
        print("tennis-robust bench: the simulator \(DeviceSimulator.program("ballmachine")) did not start; no drill figures")
        return []
    }
    defer { close(fd) }
    let text = "{\"name\": \"bench\", \"steps\": [{\"zone\": 5, \"speed\": 50, \"delay\": \(delay)}, "
        + "{\"sector\": {\"x\": [0, 8.2], \"y\": [6.5, 11.8]}, \"speed\": 70, \"spin\": \"flat\", \"delay\": \(delay)}], "
        + "\"repeat\": \((balls + 1) / 2)}"
    guard let drill = try? Drill.parse(text, file: "bench-drill.json"),
          let settings = try? SessionSettings(mode: .drill, speed: BallSpeed(mph: 50), spin: .topspin),
          let report = try? TennisCommands.drillRun(drill, settings: settings, table: .formula(), link: SocketLink(fd: fd),
                                                    clock: SystemSessionClock())
    else {
        print("tennis-robust bench: the drill did not run")
        return []
    }
    return Array(report.timing.compactMap(\.lateMs).prefix(balls))
}
