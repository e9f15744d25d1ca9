// The null vector of a tall matrix by Householder QR followed by one-sided (Hestenes) Jacobi SVD of R.
// QR keeps the cost independent of the row count after one pass, and Jacobi on R never squares the
// condition number (unlike an eigen-decomposition of AᵀA), so exact data gives a residual near 1e-15.

/// The right singular vectors and singular values of a small dense matrix.
struct SingularValueDecomposition {
    /// Singular values, in the order of the columns of `v` (not sorted).
    let singularValues: [Double]
    /// Right singular vectors, column-major: column `k` is `v[k*n ..< (k+1)*n]`.
    let v: [Double]
    let columns: Int

    /// `a` is `rows x columns`, column-major. Throws when Jacobi does not converge in 60 sweeps.
    init(columnMajor a: [Double], rows: Int, columns n: Int) throws(HomographyError) {
        precondition(a.count == rows * n)
        var r = SingularValueDecomposition.triangularFactor(a, rows: rows, columns: n)
        let m = max(min(rows, n), 1)
        var v = [Double](repeating: 0, count: n * n)
        for k in 0..<n { v[k * n + k] = 1 }
        var converged = false
        // Columns whose norm has fallen to rounding noise (the null space of a wide matrix) are left
        // alone: rotating noise against a real column never settles.
        let frobenius2 = r.reduce(0) { $0 + $1 * $1 }
        let negligible = 1e-28 * frobenius2
        r.withUnsafeMutableBufferPointer { r in
            v.withUnsafeMutableBufferPointer { v in
                for _ in 0..<60 {
                    var rotated = false
                    for p in 0..<(n - 1) {
                        for q in (p + 1)..<n {
                            var alpha = 0.0, beta = 0.0, gamma = 0.0
                            for i in 0..<m {
                                let rp = r[p * m + i], rq = r[q * m + i]
                                alpha += rp * rp
                                beta += rq * rq
                                gamma += rp * rq
                            }
                            if gamma == 0 || alpha <= negligible || beta <= negligible
                                || abs(gamma) <= 1e-15 * (alpha * beta).squareRoot() { continue }
                            rotated = true
                            let zeta = (beta - alpha) / (2 * gamma)
                            let t = (zeta >= 0 ? 1.0 : -1.0) / (abs(zeta) + (1 + zeta * zeta).squareRoot())
                            let c = 1 / (1 + t * t).squareRoot()
                            let s = c * t
                            for i in 0..<m {
                                let rp = r[p * m + i], rq = r[q * m + i]
                                r[p * m + i] = c * rp - s * rq
                                r[q * m + i] = s * rp + c * rq
                            }
                            for i in 0..<n {
                                let vp = v[p * n + i], vq = v[q * n + i]
                                v[p * n + i] = c * vp - s * vq
                                v[q * n + i] = s * vp + c * vq
                            }
                        }
                    }
                    if !rotated {
                        converged = true
                        break
                    }
                }
            }
        }
        guard converged else { throw .solverDidNotConverge }
        var sigma = [Double](repeating: 0, count: n)
        for k in 0..<n {
            var s = 0.0
            for i in 0..<m { s += r[k * m + i] * r[k * m + i] }
            sigma[k] = s.squareRoot()
        }
        self.singularValues = sigma
        self.v = v
        self.columns = n
    }

    /// Column indices ordered by increasing singular value.
    var ascendingOrder: [Int] { singularValues.indices.sorted { singularValues[$0] < singularValues[$1] } }

    func vector(_ k: Int) -> [Double] { Array(v[(k * columns)..<((k + 1) * columns)]) }

    /// The `min(rows, n) x n` factor R of `a = QR` (column-major), computed by Householder reflections;
    /// with fewer rows than columns, `a` itself (the right singular vectors are the same).
    private static func triangularFactor(_ a: [Double], rows: Int, columns n: Int) -> [Double] {
        guard rows > n else { return a }
        var a = a
        a.withUnsafeMutableBufferPointer { a in
            var vec = [Double](repeating: 0, count: rows)
            for k in 0..<n {
                var norm2 = 0.0
                for i in k..<rows { norm2 += a[k * rows + i] * a[k * rows + i] }
                let norm = norm2.squareRoot()
                if norm == 0 { continue }
                let x0 = a[k * rows + k]
                let alpha = x0 > 0 ? -norm : norm
                for i in k..<rows { vec[i] = a[k * rows + i] }
                vec[k] -= alpha
                let vnorm2 = norm2 - x0 * x0 + vec[k] * vec[k]
                if vnorm2 == 0 { continue }
                for j in k..<n {
                    var dot = 0.0
                    for i in k..<rows { dot += vec[i] * a[j * rows + i] }
                    let tau = 2 * dot / vnorm2
                    for i in k..<rows { a[j * rows + i] -= tau * vec[i] }
                }
            }
        }
        var r = [Double](repeating: 0, count: n * n)
        for j in 0..<n {
            for i in 0...j { r[j * n + i] = a[j * rows + i] }
        }
        return r
    }
}
