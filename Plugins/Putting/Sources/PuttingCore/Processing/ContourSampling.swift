// The samples the surface is fitted to: along each contour polyline, every segment contributes
// n = max(1, ⌊length⌋) points at fractions 0, 1/n, …, (n−1)/n of the segment (a 1 ft step, end
// excluded), then the polyline's last vertex; all at the contour's height. No de-duplication and no
// boundary samples, as in the original pipeline.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sample positions (feet) and heights, in contour order.
struct ContourSamples: Sendable {
    var x: [Double] = []
    var z: [Double] = []
    var height: [Double] = []

    var count: Int { x.count }

    /// How many samples `contours` give, without making them (to refuse an oversized set up front).
    static func count(of contours: [TracedContour]) -> Int {
        var total = 0
        for contour in contours {
            for (a, b) in zip(contour.points, contour.points.dropFirst()) {
                total += pointsOnSegment(a, b)
            }
            total += 1
        }
        return total
    }

    init(contours: [TracedContour]) {
        let total = ContourSamples.count(of: contours)
        x.reserveCapacity(total)
        z.reserveCapacity(total)
        height.reserveCapacity(total)
        for contour in contours {
            guard let last = contour.points.last else { continue }
            for (a, b) in zip(contour.points, contour.points.dropFirst()) {
                let n = ContourSamples.pointsOnSegment(a, b)
                let dx = b.x - a.x
                let dz = b.z - a.z
                for j in 0..<n {
                    let t = Double(j) / Double(n)
                    x.append(a.x + dx * t)
                    z.append(a.z + dz * t)
                    height.append(contour.heightFt)
                }
            }
            x.append(last.x)
            z.append(last.z)
            height.append(contour.heightFt)
        }
    }

    /// n = max(1, ⌊|b − a|⌋). Validated points are finite and on the grid; anything else counts as
    /// 2⁴⁰ samples so the size limit refuses it instead of trapping on the conversion.
    static func pointsOnSegment(_ a: TracedPoint, _ b: TracedPoint) -> Int {
        let length = hypot(b.x - a.x, b.z - a.z)
        guard length < 1e12 else { return 1 << 40 }
        return max(1, Int(length.rounded(.down)))
    }
}
