// Small greens made up by the tests (never copied from the shared data), written in the original
// file layout so that parse errors have predictable lines and columns.
@testable import PuttingCore

enum ProcessingFixture {
    typealias Contour = (k: Int, height: Double, points: [(Double, Double)])

    /// A contours file: one point per line, starting at line 10 for the first contour.
    static func contoursJSON(width: Double = 20, height: Double = 16, contours: [Contour]) -> String {
        var lines = ["{", "  \"green_width_ft\": \(width),", "  \"green_height_ft\": \(height),",
                     "  \"contour_interval_ft\": 0.25,", "  \"contours\": ["]
        for (c, contour) in contours.enumerated() {
            lines += ["    {", "      \"k\": \(contour.k),", "      \"height_ft\": \(contour.height),", "      \"points_xz_ft\": ["]
            for (i, p) in contour.points.enumerated() {
                lines.append("        {\"x\": \(p.0), \"z\": \(p.1)}" + (i + 1 < contour.points.count ? "," : ""))
            }
            lines += ["      ]", "    }" + (c + 1 < contours.count ? "," : "")]
        }
        lines += ["  ]", "}"]
        return lines.joined(separator: "\n")
    }

    /// A boundary file: one point per line, starting at line 5.
    static func boundaryJSON(width: Double = 20, height: Double = 16, points: [(Double, Double)]) -> String {
        var lines = ["{", "  \"green_width_ft\": \(width),", "  \"green_height_ft\": \(height),", "  \"points_xz_ft\": ["]
        for (i, p) in points.enumerated() {
            lines.append("    {\"x\": \(p.0), \"z\": \(p.1)}" + (i + 1 < points.count ? "," : ""))
        }
        lines += ["  ]", "}"]
        return lines.joined(separator: "\n")
    }

    /// A regular polygon around the centre.
    static func polygon(radius: Double, sides: Int, phase: Double = 0.1) -> [(Double, Double)] {
        (0..<sides).map { i in
            let t = phase + 2 * Double.pi * Double(i) / Double(sides)
            return (radius * cos(t), radius * sin(t))
        }
    }

    /// The plane h = 1 + 0.05·x + 0.02·z, and contour segments along its level lines.
    static func plane(_ x: Double, _ z: Double) -> Double { 1 + 0.05 * x + 0.02 * z }

    /// Level lines of `plane` at heights 0.75, 1.0, 1.25 crossing the green (each a 3-point polyline).
    static var planeContours: [Contour] {
        [0.75, 1.0, 1.25].enumerated().map { k, h in
            // 0.05x + 0.02z = h − 1 → x = (h − 1 − 0.02z)/0.05
            let points = [-6.0, 0.5, 6.0].map { z in ((h - 1 - 0.02 * z) / 0.05, z) }
            return (k: k + 3, height: h, points: points)
        }
    }

    static func boundary(_ points: [(Double, Double)], width: Double = 20, height: Double = 16) -> TracedBoundary {
        TracedBoundary(greenWidthFt: width, greenHeightFt: height, points: points.map { TracedPoint(x: $0.0, z: $0.1) })
    }

    static func contours(_ list: [Contour], width: Double = 20, height: Double = 16) -> TracedContours {
        TracedContours(greenWidthFt: width, greenHeightFt: height,
                       contours: list.map { TracedContour(k: $0.k, heightFt: $0.height, points: $0.points.map { TracedPoint(x: $0.0, z: $0.1) }) },
                       contourIntervalFt: 0.25)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
