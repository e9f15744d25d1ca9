// A planar homography: a 3x3 matrix acting on homogeneous points, defined up to scale.

/// A plane-to-plane projective map `p' ~ H p`. Entries are row-major; the matrix is meaningful up to scale.
/// Encoded in JSON as three rows of three numbers.
public struct Homography: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Row-major entries `h00 h01 h02 h10 h11 h12 h20 h21 h22` (always 9, all finite).
    public let entries: [Double]

    /// A homography from 9 finite row-major entries.
    public init(entries: [Double]) throws(HomographyError) {
        guard entries.count == 9 else { throw .malformedMatrix("expected 9 entries, got \(entries.count)") }
        guard entries.allSatisfy(\.isFinite) else { throw .malformedMatrix("an entry is not a finite number") }
        self.entries = entries
    }

    /// A homography from three rows of three finite numbers.
    public init(rows: [[Double]]) throws(HomographyError) {
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 }) else {
            throw .malformedMatrix("expected 3 rows of 3 numbers")
        }
        try self.init(entries: rows.flatMap { $0 })
    }

    /// For values computed here (entries known to be 9 finite numbers).
    init(unchecked entries: [Double]) { self.entries = entries }

    public static let identity = Homography(unchecked: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    public var rows: [[Double]] { [Array(entries[0..<3]), Array(entries[3..<6]), Array(entries[6..<9])] }

    public subscript(row: Int, column: Int) -> Double { entries[row * 3 + column] }

    public var determinant: Double {
        let h = entries
        return h[0] * (h[4] * h[8] - h[5] * h[7]) - h[1] * (h[3] * h[8] - h[5] * h[6]) + h[2] * (h[3] * h[7] - h[4] * h[6])
    }

    /// Frobenius norm of the entries.
    public var norm: Double { entries.reduce(0) { $0 + $1 * $1 }.squareRoot() }

    /// The same map scaled so that `H[2][2] == 1`; when `H[2][2]` is (nearly) zero, scaled to unit
    /// Frobenius norm with a positive first non-zero entry instead (the map is unchanged either way).
    public var normalized: Homography {
        let n = norm
        guard n > 0 else { return self }
        let h22 = entries[8]
        if abs(h22) > 1e-12 * n {
            return Homography(unchecked: entries.map { $0 / h22 })
        }
        let sign: Double = (entries.first { $0 != 0 } ?? 1) < 0 ? -1 : 1
        return Homography(unchecked: entries.map { $0 / (n * sign) })
    }

    /// True when `H[2][2] == 1` can be (and is) the normalization.
    public var isNormalizedByLastEntry: Bool { abs(entries[8]) > 1e-12 * norm }

    /// The inverse map, normalized; nil when the matrix is singular.
    public var inverse: Homography? {
        let h = entries
        let c00 = h[4] * h[8] - h[5] * h[7], c01 = h[2] * h[7] - h[1] * h[8], c02 = h[1] * h[5] - h[2] * h[4]
        let c10 = h[5] * h[6] - h[3] * h[8], c11 = h[0] * h[8] - h[2] * h[6], c12 = h[2] * h[3] - h[0] * h[5]
        let c20 = h[3] * h[7] - h[4] * h[6], c21 = h[1] * h[6] - h[0] * h[7], c22 = h[0] * h[4] - h[1] * h[3]
        let det = h[0] * c00 + h[1] * c10 + h[2] * c20
        let scale = norm
        // Singular relative to the matrix's own size (scale-invariant test).
        guard det.isFinite, abs(det) > 1e-14 * scale * scale * scale else { return nil }
        let inv = [c00, c01, c02, c10, c11, c12, c20, c21, c22].map { $0 / det }
        guard inv.allSatisfy(\.isFinite) else { return nil }
        return Homography(unchecked: inv).normalized
    }

    /// `self ∘ other`: first `other`, then `self`.
    public func composed(after other: Homography) -> Homography {
        let a = entries, b = other.entries
        var c = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                c[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j]
            }
        }
        return Homography(unchecked: c)
    }

    /// The homogeneous weight `w` of the image of `p` (its sign tells the side of the horizon line).
    @inline(__always)
    public func weight(at p: Point2D) -> Double {
        entries[6] * p.x + entries[7] * p.y + entries[8]
    }

    /// The image of `p`, or nil when `p` lies on the line that the map sends to infinity.
    public func apply(_ p: Point2D) -> Point2D? {
        let h = entries
        let w = h[6] * p.x + h[7] * p.y + h[8]
        let x = (h[0] * p.x + h[1] * p.y + h[2]) / w
        let y = (h[3] * p.x + h[4] * p.y + h[5]) / w
        guard x.isFinite, y.isFinite, abs(w) > 1e-300 else { return nil }
        return Point2D(x, y)
    }

    /// Maps many points: `source` and `destination` hold interleaved `x0 y0 x1 y1 …` and have equal
    /// counts (the smaller even count is used). Points on the vanishing line come out non-finite.
    public func project(_ source: UnsafeBufferPointer<Double>, into destination: UnsafeMutableBufferPointer<Double>) {
        let count = min(source.count, destination.count) / 2
        guard count > 0, let src = source.baseAddress, let dst = destination.baseAddress else { return }
        let h = entries
        let h00 = h[0], h01 = h[1], h02 = h[2], h10 = h[3], h11 = h[4], h12 = h[5], h20 = h[6], h21 = h[7], h22 = h[8]
        var i = 0
        // Two points per step as SIMD4 lanes (x0, y0, x1, y1): one multiply-add chain per row, one division.
        let cx = SIMD4(h00, h10, h00, h10), cy = SIMD4(h01, h11, h01, h11), c1 = SIMD4(h02, h12, h02, h12)
        let raw = UnsafeRawPointer(src), rawOut = UnsafeMutableRawPointer(dst)
        while i + 2 <= count {
            let p = raw.loadUnaligned(fromByteOffset: i * 16, as: SIMD4<Double>.self)
            let xs = SIMD4(p[0], p[0], p[2], p[2])
            let ys = SIMD4(p[1], p[1], p[3], p[3])
            let w0 = h20 * p[0] + h21 * p[1] + h22
            let w1 = h20 * p[2] + h21 * p[3] + h22
            let num = cx * xs + cy * ys + c1
            let q = num / SIMD4(w0, w0, w1, w1)
            rawOut.storeBytes(of: q, toByteOffset: i * 16, as: SIMD4<Double>.self)
            i += 2
        }
        while i < count {
            let x = src[2 * i], y = src[2 * i + 1]
            let w = h20 * x + h21 * y + h22
            dst[2 * i] = (h00 * x + h01 * y + h02) / w
            dst[2 * i + 1] = (h10 * x + h11 * y + h12) / w
            i += 1
        }
    }

    /// Maps an array of points (non-finite results where a point lies on the vanishing line).
    public func project(_ points: [Point2D]) -> [Point2D] {
        var flat = [Double](repeating: 0, count: points.count * 2)
        for (i, p) in points.enumerated() {
            flat[2 * i] = p.x
            flat[2 * i + 1] = p.y
        }
        var out = [Double](repeating: 0, count: flat.count)
        flat.withUnsafeBufferPointer { src in out.withUnsafeMutableBufferPointer { project(src, into: $0) } }
        return (0..<points.count).map { Point2D(out[2 * $0], out[2 * $0 + 1]) }
    }

    public init(from decoder: any Decoder) throws {
        let rows = try [[Double]](from: decoder)
        do {
            try self.init(rows: rows)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws { try rows.encode(to: encoder) }

    public var description: String {
        rows.map { "[" + $0.map { Format.number($0) }.joined(separator: ", ") + "]" }.joined(separator: "\n")
    }
}
