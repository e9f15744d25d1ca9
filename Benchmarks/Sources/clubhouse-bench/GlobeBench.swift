// Benchmarks for the globe area: triangulating every polygon of a GeoJSON file (compared with
// mapbox earcut through ../shared/peers/earcut_peer.py by Benchmarks/globe/run.sh) and rendering
// the full world map SVG.
// Usage: clubhouse-bench globe [--geojson FILE] [--repeat N] [--json]

import Foundation
import GlobeCore

func globeBench(_ arguments: [String]) {
    var geojsonPath = "../shared/peers/data/naturalearth_lowres_countries.geojson"
    var repeatCount = 50
    var json = false
    var k = 0
    while k < arguments.count {
        switch arguments[k] {
        case "--geojson" where k + 1 < arguments.count: geojsonPath = arguments[k + 1]; k += 1
        case "--repeat" where k + 1 < arguments.count: repeatCount = max(1, Int(arguments[k + 1]) ?? 50); k += 1
        case "--json": json = true
        default:
            print("globe bench: unknown option '\(arguments[k])'; use --geojson FILE, --repeat N, --json")
            return
        }
        k += 1
    }
    guard let data = FileManager.default.contents(atPath: geojsonPath), let text = String(data: data, encoding: .utf8) else {
        print("globe bench: cannot read \(geojsonPath); pass --geojson FILE")
        return
    }
    let features: [GeoFeature]
    do {
        features = try GeoJSONReader.read(text, source: geojsonPath)
    } catch {
        print("globe bench: \(error)")
        return
    }
    let polygons = features.flatMap { $0.geometry?.polygons ?? [] }
    // Flatten once, as the peer does (numpy arrays prepared before its timed loop).
    let prepared: [(coordinates: [Double], holeStarts: [Int])] = polygons.map { polygon in
        var coordinates: [Double] = []
        var holeStarts: [Int] = []
        for (r, ring) in polygon.rings.enumerated() {
            if r > 0 { holeStarts.append(coordinates.count / 2) }
            for p in ring { coordinates += [p.lon, p.lat] }
        }
        return (coordinates, holeStarts)
    }
    let vertices = polygons.reduce(0) { $0 + $1.vertexCount }

    let clipper = EarClipper()
    var triangleCount = 0
    let triangulateTimes = measure(repeatCount) {
        triangleCount = 0
        for item in prepared {
            let indices = item.coordinates.withUnsafeBufferPointer {
                clipper.triangulate(coordinates: $0, holeStarts: item.holeStarts)
            }
            triangleCount += indices.count / 3
        }
    }

    // The world map: the bundled countries with a sample traveller's marks.
    let countries = CountrySet.bundled
    var log = TravelLog()
    for code in DemoTraveller.visited { _ = try? log.visit(code, in: countries) }
    for code in DemoTraveller.wishlist { _ = try? log.wish(code, in: countries) }
    var svgBytes = 0
    let mapTimes = measure(repeatCount) {
        let svg = WorldMapSVG.render(countries: countries, log: log, options: WorldMapSVG.Options())
        svgBytes = svg.utf8.count
    }

    let tri = Summary(triangulateTimes)
    let map = Summary(mapTimes)
    if json {
        print("""
        {"triangulate":{"file":"\(geojsonPath)","polygons":\(polygons.count),"vertices":\(vertices),"triangles":\(triangleCount),\
        "repeat":\(repeatCount),"median_ms":\(tri.median),"best_ms":\(tri.best)},\
        "world_map_svg":{"countries":\(countries.countries.count),"bytes":\(svgBytes),"repeat":\(repeatCount),\
        "median_ms":\(map.median),"best_ms":\(map.best)}}
        """)
    } else {
        print("globe triangulate: \(polygons.count) polygons, \(vertices) vertices, \(triangleCount) triangles; "
            + "median \(format(tri.median)) ms, best \(format(tri.best)) ms over \(repeatCount) runs")
        print("globe world map SVG: \(countries.countries.count) countries, \(svgBytes) bytes; "
            + "median \(format(map.median)) ms, best \(format(map.best)) ms over \(repeatCount) runs")
    }
}

private struct Summary {
    var median: Double
    var best: Double

    init(_ times: [Double]) {
        let sorted = times.sorted()
        best = sorted.first ?? 0
        median = sorted.isEmpty ? 0 : (sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2)
    }
}

/// Wall-clock milliseconds of each of `count` runs, after one warm-up run.
private func measure(_ count: Int, _ body: () -> Void) -> [Double] {
    body()
    var times: [Double] = []
    times.reserveCapacity(count)
    for _ in 0..<count {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times
}

private func format(_ ms: Double) -> String { String(format: "%.3f", ms) }
