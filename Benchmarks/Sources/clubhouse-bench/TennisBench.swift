// Benchmarks for the tennis area: bulk image → court projection, homography estimation from the
// 8 calibration pairs, and protocol v0.3 frame encode + decode. Prints one JSON object.
// Usage: clubhouse-bench tennis [--points N] [--repeat R] [--frames N] [--write-pairs PATH]
// Benchmarks/tennis/run.sh runs it beside the OpenCV peer and writes Benchmarks/tennis/RESULTS.md.

#if canImport(Glibc)
import Glibc
#endif
import TennisCore

private func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

private func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return 0 }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

private func option(_ arguments: [String], _ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

func tennisBench(_ arguments: [String]) {
    let points = option(arguments, "--points").flatMap(Int.init) ?? 1_000_000
    let repeats = max(1, option(arguments, "--repeat").flatMap(Int.init) ?? 15)
    let frames = option(arguments, "--frames").flatMap(Int.init) ?? 10_000_000
    let calibration: CameraCalibration
    do {
        calibration = try CameraCalibration.calibrate(TennisDemo.taps(), camera: "bench")
    } catch {
        print("tennis bench: demo calibration failed: \(error)")
        exit(1)
    }
    // The 8 calibration pairs, in the peer's input format, so both estimate from the same data.
    if let path = option(arguments, "--write-pairs") {
        let items = calibration.pairs.map { "{\"image\": [\($0.image.x), \($0.image.y)], \"court\": [\($0.court.x), \($0.court.y)]}" }
        let text = "{\"pairs\": [\n  " + items.joined(separator: ",\n  ") + "\n]}\n"
        guard let file = fopen(path, "w") else {
            print("tennis bench: cannot write \(path)")
            exit(1)
        }
        fputs(text, file)
        fclose(file)
    }

    // 1. Bulk projection of uniformly random image points (1920×1080), single thread.
    var generator = SplitMix64(seed: 0)
    var source = [Double](repeating: 0, count: 2 * points)
    for i in 0..<points {
        source[2 * i] = Double(generator.next() >> 11) / Double(1 << 53) * 1920
        source[2 * i + 1] = Double(generator.next() >> 11) / Double(1 << 53) * 1080
    }
    var destination = [Double](repeating: 0, count: 2 * points)
    let h = calibration.homography
    var projectSeconds: [Double] = []
    var sink = 0.0
    for _ in 0..<repeats {
        let t0 = monotonicSeconds()
        source.withUnsafeBufferPointer { src in destination.withUnsafeMutableBufferPointer { h.project(src, into: $0) } }
        projectSeconds.append(monotonicSeconds() - t0)
        sink += destination[points]
    }

    // 2. Estimating H from the 8 pairs (normalized DLT, SVD), 1000 estimates per sample.
    var estimateSeconds: [Double] = []
    let pairs = calibration.pairs
    for _ in 0..<repeats {
        let t0 = monotonicSeconds()
        for _ in 0..<1000 {
            if let e = try? HomographyEstimator.estimate(pairs) { sink += e.homography.entries[0] }
        }
        estimateSeconds.append((monotonicSeconds() - t0) / 1000)
    }

    // 3. Frame encode + decode over the whole default table, both check bytes.
    let settings = CommandTable.formula().entries.map(\.settings)
    var frameRates: [String: Double] = [:]
    for checksum in Checksum.allCases {
        var seconds: [Double] = []
        for _ in 0..<max(3, repeats / 3) {
            var acc: UInt64 = 0
            let t0 = monotonicSeconds()
            var k = 0
            for i in 0..<frames {
                let frame = CommandFrame(settings: settings[k], start: i & 1 == 0)
                k += 1
                if k == settings.count { k = 0 }
                let bytes = frame.encode(checksum: checksum)
                if let decoded = try? CommandFrame.decode(bytes, checksum: checksum) {
                    acc &+= UInt64(decoded.settings.upperWheel) &+ UInt64(bytes[9])
                }
            }
            seconds.append(monotonicSeconds() - t0)
            sink += Double(acc)
        }
        frameRates[checksum.rawValue] = Double(frames) / median(seconds) / 1e6
    }

    let projectMedian = median(projectSeconds), projectBest = projectSeconds.min() ?? 0
    print("""
    {
     "points": \(points),
     "repeats": \(repeats),
     "project_median_ms": \(projectMedian * 1e3),
     "project_best_ms": \(projectBest * 1e3),
     "project_median_Mpts_per_s": \(Double(points) / projectMedian / 1e6),
     "project_best_Mpts_per_s": \(Double(points) / projectBest / 1e6),
     "estimate_8_pairs_median_us": \(median(estimateSeconds) * 1e6),
     "estimate_8_pairs_best_us": \((estimateSeconds.min() ?? 0) * 1e6),
     "frames": \(frames),
     "frame_encode_decode_xor_M_per_s": \(frameRates["xor"] ?? 0),
     "frame_encode_decode_modbus_M_per_s": \(frameRates["modbus"] ?? 0),
     "sink": \(sink.isFinite ? 1 : 0)
    }
    """)
}
