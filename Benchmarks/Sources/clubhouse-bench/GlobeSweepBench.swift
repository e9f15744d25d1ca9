// The rotation sweep (issue 31, item 4): every earcut fixture turned through every whole degree,
// plain and scaled into longitude/latitude, and at random angles, extents and centres; each
// triangulated by GlobeCore's EarClipper and scored as earcut's test scores it (deviation =
// |polygon area − Σ |triangle areas|| / polygon area) with the triangle count beside n + 2h − 2.
// Usage: clubhouse-bench globe-sweep [--fixtures DIR] [--random N] [--seed S] [--step D] [--only ID]
//                                    [--skip ID,…] [--placements K,…] [--cases] [--write-placements FILE] [--dump P --only ID]
// Prints one JSON object per fixture (cases, failures against earcut's published bounds, time);
// with --cases, one per case too. --write-placements writes the placements (rotation cosine and
// sine, scale, shift; exact decimal) so that Benchmarks/globe/rotation_sweep.py turns the fixtures
// exactly the same way for mapbox earcut.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GlobeCore

/// One placement: turn by (c, s) about the origin, then, when scaled, x' = lon + (x − cx)·k with the
/// box centre (cx, cy) of the turned fixture and k = extent / its larger side.
struct SweepPlacement {
    var degrees: Double
    var c: Double
    var s: Double
    var extent: Double?
    var lon: Double
    var lat: Double

    init(degrees: Double, extent: Double? = nil, lon: Double = 0, lat: Double = 0) {
        self.degrees = degrees
        switch degrees {
        case 0: (c, s) = (1, 0)
        case 90: (c, s) = (0, 1)
        case 180: (c, s) = (-1, 0)
        case 270: (c, s) = (0, -1)
        default: (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        }
        self.extent = extent
        self.lon = lon
        self.lat = lat
    }

    /// The whole degrees plain and scaled to 20° around (10.5, 45.25), then `random` placements:
    /// angles uniform, extents log-uniform from 0.001° to 179.9°, centres keeping the box on the globe.
    static func sweep(random: Int, seed: UInt64, step: Int = 1) -> [SweepPlacement] {
        var list: [SweepPlacement] = []
        for d in stride(from: 0, to: 360, by: step) { list.append(SweepPlacement(degrees: Double(d))) }
        for d in stride(from: 0, to: 360, by: step) { list.append(SweepPlacement(degrees: Double(d), extent: 20, lon: 10.5, lat: 45.25)) }
        var generator = SplitMix64(seed: seed)
        func uniform() -> Double { Double(generator.next() >> 11) / Double(UInt64(1) << 53) }
        for _ in 0..<random {
            let degrees = uniform() * 360
            let extent = 0.001 * pow(179_900, uniform())
            let lon = -180 + extent / 2 + uniform() * (360 - extent)
            let lat = -90 + extent / 2 + uniform() * (180 - extent)
            list.append(SweepPlacement(degrees: degrees, extent: extent, lon: lon, lat: lat))
        }
        return list
    }

    /// Flat x, y coordinates of the placed rings (in order).
    func apply(_ flat: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: flat.count)
        var k = 0
        while k < flat.count {
            let x = flat[k], y = flat[k + 1]
            out[k] = c * x - s * y
            out[k + 1] = s * x + c * y
            k += 2
        }
        guard let extent else { return out }
        var x0 = Double.infinity, x1 = -Double.infinity, y0 = Double.infinity, y1 = -Double.infinity
        k = 0
        while k < out.count {
            x0 = min(x0, out[k]); x1 = max(x1, out[k]); y0 = min(y0, out[k + 1]); y1 = max(y1, out[k + 1])
            k += 2
        }
        let size = max(x1 - x0, y1 - y0)
        let scale = size > 0 ? extent / size : 1
        let cx = (x0 + x1) / 2, cy = (y0 + y1) / 2
        k = 0
        while k < out.count {
            out[k] = lon + (out[k] - cx) * scale
            out[k + 1] = lat + (out[k + 1] - cy) * scale
            k += 2
        }
        return out
    }

    var json: String {
        "{\"degrees\": \(degrees), \"c\": \(c), \"s\": \(s), \"extent\": \(extent.map { "\($0)" } ?? "null"), \"lon\": \(lon), \"lat\": \(lat)}"
    }
}

/// earcut's fixture suite: rings per fixture, and the expected triangle counts and bounds.
struct EarcutFixtures {
    var ids: [String] = []
    var coordinates: [[Double]] = []
    var holeStarts: [[Int]] = []
    var triangles: [String: Int] = [:]
    var errors: [String: Double] = [:]
    var rotated: [String: Double] = [:]

    init(directory: String) throws {
        let url = URL(fileURLWithPath: directory)
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: url.appendingPathComponent("_expected.json"))) as? [String: Any] ?? [:]
        triangles = expected["triangles"] as? [String: Int] ?? [:]
        errors = expected["errors"] as? [String: Double] ?? [:]
        rotated = expected["errors-with-rotation"] as? [String: Double] ?? [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() where name.hasSuffix(".json") && !name.hasPrefix("_") {
            guard let rings = try JSONSerialization.jsonObject(with: Data(contentsOf: url.appendingPathComponent(name))) as? [[[Double]]] else { continue }
            var flat: [Double] = [], starts: [Int] = []
            for (r, ring) in rings.enumerated() {
                if r > 0 { starts.append(flat.count / 2) }
                for p in ring { flat += [p[0], p[1]] }
            }
            ids.append(String(name.dropLast(5)))
            coordinates.append(flat)
            holeStarts.append(starts)
        }
    }

    /// earcut's bound for a fixture: the rotation one for a turned fixture if listed, else the plain one.
    func bound(_ id: String, turned: Bool) -> Double { (turned ? rotated[id] : nil) ?? errors[id] ?? 0 }
}

/// |outer| − Σ|holes| and Σ|triangle area| of a triangulation of flat coordinates.
func triangulationAreas(_ flat: [Double], _ holeStarts: [Int], _ t: [Int32]) -> (polygon: Double, triangles: Double) {
    let n = flat.count / 2
    let bounds = [0] + holeStarts + [n]
    var polygon = 0.0
    for r in 0..<(bounds.count - 1) {
        let start = bounds[r], end = bounds[r + 1]
        guard end - start >= 3 else { continue }
        var sum = 0.0
        var j = end - 1
        for i in start..<end {
            sum += (flat[2 * j] - flat[2 * i]) * (flat[2 * i + 1] + flat[2 * j + 1])
            j = i
        }
        polygon += r == 0 ? abs(sum) / 2 : -abs(sum) / 2
    }
    var triangles = 0.0
    var k = 0
    while k + 2 < t.count {
        let a = 2 * Int(t[k]), b = 2 * Int(t[k + 1]), c = 2 * Int(t[k + 2])
        triangles += abs((flat[b] - flat[a]) * (flat[c + 1] - flat[a + 1]) - (flat[b + 1] - flat[a + 1]) * (flat[c] - flat[a]))
        k += 3
    }
    return (polygon, triangles / 2)
}

func globeSweepBench(_ arguments: [String]) {
    func option(_ name: String) -> String? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }
    let directory = option("--fixtures") ?? "../shared/data/globe/earcut-fixtures"
    let random = option("--random").flatMap(Int.init) ?? 300
    let seed = option("--seed").flatMap(UInt64.init) ?? 31
    let only = option("--only")
    let printCases = arguments.contains("--cases")
    let skip = Set((option("--skip") ?? "").split(separator: ",").map(String.init))
    // Only these placement numbers (the rest are still written by --write-placements): a re-run of the cases that failed.
    let chosen = option("--placements").map { Set($0.split(separator: ",").compactMap { Int($0) }) }
    let fixtures: EarcutFixtures
    do {
        fixtures = try EarcutFixtures(directory: directory)
    } catch {
        print("globe-sweep bench: cannot read the earcut fixtures in \(directory): \(error)")
        exit(1)
    }
    let placements = SweepPlacement.sweep(random: random, seed: seed, step: option("--step").flatMap(Int.init) ?? 1)
    if let path = option("--write-placements") {
        let text = placements.map(\.json).joined(separator: "\n") + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            print("globe-sweep bench: cannot write \(path)")
            exit(1)
        }
    }
    let clipper = EarClipper()
    if let dump = option("--dump").flatMap(Int.init), let id = only, let f = fixtures.ids.firstIndex(of: id) {
        // One case's coordinates and triangles, for a closer look.
        let placed = placements[dump].apply(fixtures.coordinates[f])
        let t = placed.withUnsafeBufferPointer { clipper.triangulate(coordinates: $0, holeStarts: fixtures.holeStarts[f]) }
        print("{\"coordinates\": \(placed), \"holeStarts\": \(fixtures.holeStarts[f]), \"triangles\": \(t)}")
        return
    }
    var totalFailures = 0
    var totalSeconds = 0.0
    for (f, id) in fixtures.ids.enumerated() where (only == nil || only == id) && !skip.contains(id) {
        let flat = fixtures.coordinates[f], starts = fixtures.holeStarts[f]
        let n = flat.count / 2
        let formula = n + 2 * starts.count - 2
        let earcutTriangles = fixtures.triangles[id] ?? 0
        var failures = 0, worst = 0.0
        var firstFailure = ""
        var seconds = 0.0
        for (p, placement) in placements.enumerated() where chosen?.contains(p) ?? true {
            let placed = placement.apply(flat)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let t = placed.withUnsafeBufferPointer { clipper.triangulate(coordinates: $0, holeStarts: starts) }
            seconds += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            let inRange = t.count % 3 == 0 && t.allSatisfy { $0 >= 0 && Int($0) < n }
            let areas = inRange ? triangulationAreas(placed, starts, t) : (polygon: 1, triangles: .infinity)
            let bound = fixtures.bound(id, turned: p > 0)
            let deviation: Double
            var ok = inRange
            if earcutTriangles > 0 {
                deviation = abs(areas.triangles - areas.polygon) / areas.polygon
                ok = ok && deviation <= max(1e-9, bound) && (bound > 0 || t.count / 3 == formula)
            } else {
                // Nothing to fill: the triangles' area against the box's.
                var x0 = Double.infinity, x1 = -Double.infinity, y0 = Double.infinity, y1 = -Double.infinity
                for k in stride(from: 0, to: placed.count, by: 2) {
                    x0 = min(x0, placed[k]); x1 = max(x1, placed[k]); y0 = min(y0, placed[k + 1]); y1 = max(y1, placed[k + 1])
                }
                deviation = areas.triangles / max((x1 - x0) * (y1 - y0), .leastNormalMagnitude)
                ok = ok && deviation <= 1e-9
            }
            worst = max(worst, deviation)
            if !ok {
                failures += 1
                if firstFailure.isEmpty {
                    firstFailure = "placement \(p) \(placement.json): \(t.count / 3) triangles (n + 2h − 2 = \(formula)), deviation \(deviation)"
                }
            }
            if printCases {
                print("{\"fixture\": \"\(id)\", \"placement\": \(p), \"triangles\": \(t.count / 3), \"formula\": \(formula), \"deviation\": \(deviation), \"ok\": \(ok)}")
            }
        }
        totalFailures += failures
        totalSeconds += seconds
        print("{\"fixture\": \"\(id)\", \"vertices\": \(n), \"holes\": \(starts.count), \"cases\": \(chosen.map { c in placements.indices.filter { c.contains($0) }.count } ?? placements.count), \"failures\": \(failures), "
            + "\"worst_deviation\": \(worst), \"triangulate_s\": \(seconds), \"first_failure\": \"\(firstFailure.replacingOccurrences(of: "\"", with: "'"))\"}")
    }
    print("{\"total_failures\": \(totalFailures), \"triangulate_s\": \(totalSeconds), \"placements\": \(placements.count)}")
}
