// The surface through the contour samples: a thin-plate spline with a linear polynomial term and
// smoothing, with scipy's RBFInterpolator conventions (the original pipeline used it):
//   h(p) = Σ_j c_j·φ(|p − p_j|) + a₀ + a₁·x̂ + a₂·ẑ,   φ(r) = r²·log r, φ(0) = 0,
//   x̂ = (x − shift_x)/scale_x with shift = (max + min)/2, scale = (max − min)/2 over the samples
//   (scale 0 → 1), and the system
//   [ K + λI  P ] [c]   [d]
//   [ Pᵀ      0 ] [a] = [0],   K_ij = φ(|p_i − p_j|), P = [1 x̂ ẑ], λ = smoothing (added, not subtracted).
//
// Solved by the null-space method rather than a general LU: with P = Q·R (three Householder
// reflections, Q = [Q₁ Q₂]), Pᵀc = 0 means c = Q₂·w, and Q₂ᵀ(K + λI)Q₂ is symmetric positive definite
// (φ is conditionally positive definite of order 2 and λ > 0), so w comes from a Cholesky
// factorisation — half the flops of LU with pivoting, and no pivoting decisions; then
// R·a = Q₁ᵀ(d − (K + λI)c). Same solution as scipy's dgesv up to rounding.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fitted surface over the green's plane.
struct ThinPlateSpline: Sendable {
    let centerX: [Double]
    let centerZ: [Double]
    /// c_j.
    let weights: [Double]
    /// a₀, a₁, a₂ of the linear term, in shifted and scaled coordinates.
    let a0: Double, a1: Double, a2: Double
    let shiftX: Double, shiftZ: Double
    let scaleX: Double, scaleZ: Double
    /// Estimated 1-norm condition number of the reduced (positive definite) system.
    let conditionEstimate: Double

    /// Above this estimated condition number the solution may lose more than ~1e-4 relative accuracy.
    static let maxConditionNumber = 1e12

    static func fit(x: [Double], z: [Double], values: [Double], smoothing: Double,
                    progress: (Double) -> Void = { _ in }) throws(GreenProcessingError) -> ThinPlateSpline {
        let n = x.count
        guard n >= 3 else {
            throw GreenProcessingError(.illConditioned,
                                       "the contours give \(n) sample\(n == 1 ? "" : "s"); a surface needs at least 3 not on one line — trace more contour")
        }
        let minX = x.min() ?? 0, maxX = x.max() ?? 0, minZ = z.min() ?? 0, maxZ = z.max() ?? 0
        let shiftX = (maxX + minX) / 2, shiftZ = (maxZ + minZ) / 2
        let halfX = (maxX - minX) / 2, halfZ = (maxZ - minZ) / 2
        let scaleX = halfX == 0 ? 1 : halfX, scaleZ = halfZ == 0 ? 1 : halfZ

        // Scratch: the matrix, three reflectors, and four vectors of n.
        let matrix = UnsafeMutablePointer<Double>.allocate(capacity: n * n)
        defer { matrix.deallocate() }
        let vectors = UnsafeMutablePointer<Double>.allocate(capacity: 7 * n)
        defer { vectors.deallocate() }
        vectors.initialize(repeating: 0, count: 7 * n)
        let reflector = [vectors, vectors + n, vectors + 2 * n]
        let p = vectors + 3 * n, q = vectors + 4 * n, g = vectors + 5 * n, c = vectors + 6 * n

        // Polynomial block P = [1 x̂ ẑ], then P = Q·R by Householder reflections H_k = I − τ_k·v_k·v_kᵀ.
        var columns: [[Double]] = [[Double](repeating: 1, count: n),
                                   x.map { ($0 - shiftX) / scaleX },
                                   z.map { ($0 - shiftZ) / scaleZ }]
        let columnNorms = columns.map { $0.reduce(0) { $0 + $1 * $1 }.squareRoot() }
        var taus = [0.0, 0.0, 0.0]
        var r = [[Double]](repeating: [0, 0, 0], count: 3)
        for k in 0..<3 {
            var norm = 0.0
            for i in k..<n { norm += columns[k][i] * columns[k][i] }
            norm = norm.squareRoot()
            guard norm > 1e-10 * columnNorms[k] else {
                throw GreenProcessingError(
                    .illConditioned,
                    "the contour samples lie on one line, so the surface's tilt across it is undetermined; trace contours that span the green in two directions")
            }
            let alpha = columns[k][k] > 0 ? -norm : norm
            let v = reflector[k]
            for i in k..<n { v[i] = columns[k][i] }
            v[k] -= alpha
            let tau = 2 / DenseCholesky.dot(v + k, v + k, n - k)
            taus[k] = tau
            r[k][k] = alpha
            for l in (k + 1)..<3 {
                var s = 0.0
                for i in k..<n { s += v[i] * columns[l][i] }
                s *= tau
                for i in k..<n { columns[l][i] -= s * v[i] }
                r[k][l] = columns[l][k]
            }
        }

        fillKernelMatrix(matrix, x: x, z: z, smoothing: smoothing)

        // B = Qᵀ(K + λI)Q, one two-sided reflection at a time: H·A·H = A − v·qᵀ − q·vᵀ with
        // p = τ·A·v and q = p − (τ/2)(vᵀp)·v.
        for k in 0..<3 {
            let tau = taus[k], v = reflector[k]
            for i in 0..<n { p[i] = tau * DenseCholesky.dot(matrix + i * n, v, n) }
            let half = 0.5 * tau * DenseCholesky.dot(v, p, n)
            for i in 0..<n { q[i] = p[i] - half * v[i] }
            for i in 0..<n {
                let row = matrix + i * n
                let vi = v[i], qi = q[i]
                for j in 0..<n { row[j] -= vi * q[j] + qi * v[j] }
            }
        }
        // g = Qᵀd.
        for i in 0..<n { g[i] = values[i] }
        for k in 0..<3 { reflect(g, by: reflector[k], tau: taus[k], n: n) }

        // The reduced system M·w = g[3...], M = B[3..., 3...], by Cholesky; w overwrites g[3...].
        let m = n - 3
        let reduced = matrix + 3 * n + 3
        var condition = 1.0
        if m > 0 {
            let norm1 = oneNorm(reduced, m: m, lda: n)
            do {
                try DenseCholesky.factor(reduced, m: m, lda: n, progress: progress)
            } catch {
                throw GreenProcessingError(
                    .illConditioned,
                    "the interpolation system is not positive definite (pivot \(error.column + 1) of \(m)); samples repeat at different heights or the smoothing is 0 — check for crossing or duplicated contours")
            }
            condition = norm1 * inverseOneNormEstimate(reduced, m: m, lda: n, scratch: p, q)
            guard condition.isFinite && condition <= maxConditionNumber else {
                throw GreenProcessingError(
                    .illConditioned,
                    "the interpolation system is ill-conditioned (estimated condition number \(scientific(condition)), limit \(scientific(maxConditionNumber))); check for nearly coincident samples at different heights")
            }
            DenseCholesky.solve(reduced, m: m, lda: n, g + 3)
        }
        let w = g + 3

        // c = Q·[0; w] = H₀·H₁·H₂·[0; w].
        for i in 0..<m { c[i + 3] = w[i] }
        for k in stride(from: 2, through: 0, by: -1) { reflect(c, by: reflector[k], tau: taus[k], n: n) }
        // R·a = g[0..<3] − B[0..<3, 3...]·w.
        var rhs = [0.0, 0.0, 0.0]
        for k in 0..<3 { rhs[k] = g[k] - DenseCholesky.dot(matrix + k * n + 3, w, m) }
        var a = [0.0, 0.0, 0.0]
        for k in stride(from: 2, through: 0, by: -1) {
            var s = rhs[k]
            for l in (k + 1)..<3 { s -= r[k][l] * a[l] }
            a[k] = s / r[k][k]
        }
        let weights = Array(UnsafeBufferPointer(start: c, count: n))
        guard weights.allSatisfy(\.isFinite) && a.allSatisfy(\.isFinite) else {
            throw GreenProcessingError(.illConditioned, "the interpolation produced non-finite coefficients; check the contour heights and coordinates")
        }
        return ThinPlateSpline(centerX: x, centerZ: z, weights: weights, a0: a[0], a1: a[1], a2: a[2],
                               shiftX: shiftX, shiftZ: shiftZ, scaleX: scaleX, scaleZ: scaleZ,
                               conditionEstimate: condition)
    }

    /// 1.6e13-style text for a positive number (messages only).
    static func scientific(_ value: Double) -> String {
        guard value.isFinite && value > 0 else { return "\(value)" }
        var exponent = Int(log10(value).rounded(.down))
        var mantissa = (value / pow(10, Double(exponent)) * 10).rounded() / 10
        if mantissa >= 10 {
            mantissa /= 10
            exponent += 1
        }
        let digits = mantissa == mantissa.rounded() ? "\(Int(mantissa))" : "\(mantissa)"
        return "\(digits)e\(exponent)"
    }

    /// y ← (I − τ·v·vᵀ)·y.
    private static func reflect(_ y: UnsafeMutablePointer<Double>, by v: UnsafePointer<Double>, tau: Double, n: Int) {
        let s = tau * DenseCholesky.dot(v, y, n)
        for i in 0..<n { y[i] -= s * v[i] }
    }

    /// K + λI, full (both triangles).
    private static func fillKernelMatrix(_ matrix: UnsafeMutablePointer<Double>, x: [Double], z: [Double], smoothing: Double) {
        let n = x.count
        x.withUnsafeBufferPointer { xb in
            z.withUnsafeBufferPointer { zb in
                for i in 0..<n {
                    let row = matrix + i * n
                    let xi = xb[i], zi = zb[i]
                    for j in 0..<i {
                        let dx = xb[j] - xi, dz = zb[j] - zi
                        row[j] = 0.5 * ThinPlateKernel.sLogS(dx * dx + dz * dz)
                    }
                    row[i] = smoothing
                    for j in 0..<i { matrix[j * n + i] = row[j] }
                }
            }
        }
    }

    /// max_j Σ_i |M_ij| from the lower triangle of a symmetric matrix.
    private static func oneNorm(_ a: UnsafePointer<Double>, m: Int, lda: Int) -> Double {
        var sums = [Double](repeating: 0, count: m)
        for i in 0..<m {
            let row = a + i * lda
            var rowSum = 0.0
            for j in 0..<i {
                let v = abs(row[j])
                rowSum += v
                sums[j] += v
            }
            sums[i] += rowSum + abs(row[i])
        }
        return sums.max() ?? 0
    }

    /// Hager's estimate of ‖M⁻¹‖₁ from the Cholesky factor (a handful of solves; M is symmetric).
    private static func inverseOneNormEstimate(_ l: UnsafePointer<Double>, m: Int, lda: Int,
                                               scratch y: UnsafeMutablePointer<Double>,
                                               _ zeta: UnsafeMutablePointer<Double>) -> Double {
        var x = [Double](repeating: 1 / Double(m), count: m)
        var estimate = 0.0
        for _ in 0..<5 {
            for j in 0..<m { y[j] = x[j] }
            DenseCholesky.solve(l, m: m, lda: lda, y)
            estimate = 0
            for j in 0..<m {
                estimate += abs(y[j])
                zeta[j] = y[j] >= 0 ? 1 : -1
            }
            DenseCholesky.solve(l, m: m, lda: lda, zeta)
            var best = 0
            var zx = 0.0
            for j in 0..<m {
                if abs(zeta[j]) > abs(zeta[best]) { best = j }
                zx += zeta[j] * x[j]
            }
            if abs(zeta[best]) <= zx { break }
            x = [Double](repeating: 0, count: m)
            x[best] = 1
        }
        return estimate
    }

    /// h at one point, in scipy's order of terms.
    func value(x: Double, z: Double) -> Double {
        var sum = 0.0
        for j in 0..<centerX.count {
            let dx = x - centerX[j], dz = z - centerZ[j]
            sum += weights[j] * ThinPlateKernel.phi(squaredDistance: dx * dx + dz * dz)
        }
        return sum + a0 + a1 * ((x - shiftX) / scaleX) + a2 * ((z - shiftZ) / scaleZ)
    }
}
