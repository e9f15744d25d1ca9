// putting-processing: contours + boundary → heightfield for the nine Presidio greens (issue 9).
// Usage: clubhouse-bench putting-processing [--data DIR] [--repeat N] [--check]
// Prints, per hole, the median over N runs of the wall-clock solve, grid-evaluation and mask times
// and of the whole run's CPU time (this thread), then the sums of the per-hole medians. --check
// compares the result with the shipped .bin (largest inside difference, cells whose mask differs).
import Foundation
import PuttingCore

func puttingProcessingBench(_ arguments: [String]) {
    var data = "../shared/data/putting/presidio"
    var repeats = 5
    var check = false
    var k = 0
    while k < arguments.count {
        switch arguments[k] {
        case "--data" where k + 1 < arguments.count: data = arguments[k + 1]; k += 1
        case "--repeat" where k + 1 < arguments.count: repeats = max(1, Int(arguments[k + 1]) ?? 5); k += 1
        case "--check": check = true
        default:
            print("usage: clubhouse-bench putting-processing [--data DIR] [--repeat N] [--check]")
            exit(2)
        }
        k += 1
    }
    func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    var totals: [Double] = []
    var cpuTotals: [Double] = []
    for hole in 1...9 {
        let folder = "\(data)/hole_\(hole)"
        guard let boundaryText = try? String(contentsOfFile: "\(folder)/Hole_\(hole)_boundary.json", encoding: .utf8),
              let contoursText = try? String(contentsOfFile: "\(folder)/Hole_\(hole)_contours.json", encoding: .utf8)
        else {
            print("putting-processing: cannot read the files of hole \(hole) in \(folder)")
            exit(1)
        }
        var runs: [ProcessingTimings] = []
        var cpu: [Double] = []
        var last: ProcessingResult?
        for _ in 0..<repeats {
            let cpuStart = threadCPUSeconds()
            defer { cpu.append(threadCPUSeconds() - cpuStart) }
            do {
                last = try GreenProcessor.process(boundaryJSON: boundaryText, boundaryFile: "Hole_\(hole)_boundary.json",
                                                  contoursJSON: contoursText, contoursFile: "Hole_\(hole)_contours.json")
            } catch {
                print("putting-processing: hole \(hole): \(error)")
                exit(1)
            }
            if let last { runs.append(last.timings) }
        }
        guard let result = last else { continue }
        let solve = median(runs.map(\.solveSeconds))
        let evaluation = median(runs.map(\.evaluationSeconds))
        let mask = median(runs.map(\.maskSeconds))
        totals.append(median(runs.map(\.totalSeconds)))
        cpuTotals.append(median(cpu))
        var line = String(format: "swift hole %d samples %d grid %dx%d solve %.4f s eval %.4f s mask %.4f s cpu %.4f s cond %.2g",
                          hole, result.sampleCount, result.grid.nx, result.grid.nz, solve, evaluation, mask,
                          median(cpu), result.conditionEstimate)
        if check, let shipped = FileManager.default.contents(atPath: "\(folder)/Hole_\(hole)_heightfield.bin") {
            let grid = result.grid
            var maxDiff = 0.0
            var maskDiff = 0
            shipped.withUnsafeBytes { raw in
                for c in 0..<min(grid.heights.count, shipped.count / 4) {
                    let value = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * c, as: UInt32.self)))
                    if grid.mask[c] { maxDiff = max(maxDiff, abs(Double(value) - Double(grid.heights[c]))) }
                    if (value != 0) != grid.mask[c] { maskDiff += 1 }
                }
            }
            line += String(format: " maxdiff %.3g maskdiff %d size %@", maxDiff, maskDiff,
                           shipped.count == 4 * grid.heights.count ? "ok" : "MISMATCH")
        }
        print(line)
    }
    print(String(format: "swift total %.4f s cpu %.4f s (sums of per-hole medians, %d runs each)",
                 totals.reduce(0, +), cpuTotals.reduce(0, +), repeats))
}

/// CPU time of the calling thread (unaffected by other processes competing for the cores).
private func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
