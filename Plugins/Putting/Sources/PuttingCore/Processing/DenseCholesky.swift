// Cholesky factorisation M = L·Lᵀ of a dense symmetric positive definite matrix, in place, blocked
// for cache. Row-major storage with a leading dimension; only the lower triangle is read, and L
// overwrites it (the strict upper triangle is scratch afterwards).
//
// Right-looking by panels of `blockSize` columns: (1) the panel's columns are finished row by row
// (each row of L solved against the panel's diagonal block: dot products of contiguous rows);
// (2) the panel is packed, transposed, into 4-row slivers; (3) the trailing matrix takes the
// rank-`blockSize` update M₂₂ −= L₂₁·L₂₁ᵀ (lower half), tile by 4×4 tile, in column blocks that
// stay in cache; almost all of the m³/3 flops go there. Plain scalar code throughout, written so the
// optimiser vectorises it (two doubles per SSE2 register) and debug builds stay usable.

enum DenseCholesky {
    static let blockSize = 48

    struct NotPositiveDefinite: Error {
        /// The column whose pivot was not positive (or not finite).
        let column: Int
    }

    /// Factors the m×m matrix at `a` (row stride `lda`). `progress(done)` gets the fraction of flops done.
    static func factor(_ a: UnsafeMutablePointer<Double>, m: Int, lda: Int,
                       progress: (Double) -> Void = { _ in }) throws(NotPositiveDefinite) {
        guard m > 0 else { return }
        let nb = blockSize
        // Packed panel: for each 4-row sliver of the trailing rows, nb × 4 values (p-major).
        let packed = UnsafeMutablePointer<Double>.allocate(capacity: nb * (m + 4))
        defer { packed.deallocate() }
        let total = Double(m) * Double(m) * Double(m)
        var k0 = 0
        while k0 < m {
            let kb = min(nb, m - k0)
            try factorPanel(a, m: m, lda: lda, k0: k0, kb: kb)
            let k1 = k0 + kb
            if k1 < m {
                pack(a, lda: lda, rows: k1..<m, columns: k0..<k1, into: packed)
                trailingUpdate(a, lda: lda, rows: k1..<m, kb: kb, packed: packed)
            }
            k0 = k1
            let left = Double(m - k0)
            progress(1 - left * left * left / total)
        }
    }

    /// Finishes columns k0..<k0+kb for every row ≥ k0 (the trailing update has already removed the
    /// contribution of the columns before k0).
    private static func factorPanel(_ a: UnsafeMutablePointer<Double>, m: Int, lda: Int, k0: Int, kb: Int)
        throws(NotPositiveDefinite)
    {
        let k1 = k0 + kb
        // Diagonal block: classic row-oriented Cholesky.
        for i in k0..<k1 {
            let rowI = a + i * lda
            for j in k0..<i {
                let rowJ = a + j * lda
                let s = rowI[j] - dot(rowI + k0, rowJ + k0, j - k0)
                rowI[j] = s / rowJ[j]
            }
            let d = rowI[i] - dot(rowI + k0, rowI + k0, i - k0)
            guard d > 0 && d.isFinite else { throw NotPositiveDefinite(column: i) }
            rowI[i] = d.squareRoot()
        }
        // Rows below: forward substitution against the diagonal block.
        guard k1 < m else { return }
        var inverseDiagonal = [Double](repeating: 0, count: kb)
        for j in 0..<kb { inverseDiagonal[j] = 1 / a[(k0 + j) * lda + k0 + j] }
        for i in k1..<m {
            let rowI = a + i * lda
            for j in k0..<k1 {
                let rowJ = a + j * lda
                rowI[j] = (rowI[j] - dot(rowI + k0, rowJ + k0, j - k0)) * inverseDiagonal[j - k0]
            }
        }
    }

    /// Σ x[i]·y[i] with four partial sums (scalar code the optimiser vectorises; quick in debug too).
    @inline(__always)
    static func dot(_ x: UnsafePointer<Double>, _ y: UnsafePointer<Double>, _ n: Int) -> Double {
        var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
        var i = 0
        while i + 4 <= n {
            s0 += x[i] * y[i]
            s1 += x[i + 1] * y[i + 1]
            s2 += x[i + 2] * y[i + 2]
            s3 += x[i + 3] * y[i + 3]
            i += 4
        }
        while i < n {
            s0 += x[i] * y[i]
            i += 1
        }
        return (s0 + s1) + (s2 + s3)
    }

    /// Copies L[rows, columns] into slivers of 4 rows: sliver t holds, for p in columns, the 4 values
    /// L[r0+4t ..< r0+4t+4, p] contiguously (zero-padded past the last row).
    private static func pack(_ a: UnsafeMutablePointer<Double>, lda: Int, rows: Range<Int>, columns: Range<Int>,
                             into packed: UnsafeMutablePointer<Double>) {
        let kb = columns.count
        var t = 0
        var r = rows.lowerBound
        while r < rows.upperBound {
            let sliver = packed + t * kb * 4
            for q in 0..<4 {
                let row = r + q
                if row < rows.upperBound {
                    let src = a + row * lda + columns.lowerBound
                    for p in 0..<kb { sliver[p * 4 + q] = src[p] }
                } else {
                    for p in 0..<kb { sliver[p * 4 + q] = 0 }
                }
            }
            t += 1
            r += 4
        }
    }

    /// M[rows, rows] −= L·Lᵀ on and below the diagonal, tile by 4×4 tile.
    private static func trailingUpdate(_ a: UnsafeMutablePointer<Double>, lda: Int, rows: Range<Int>, kb: Int,
                                       packed: UnsafeMutablePointer<Double>) {
        let r0 = rows.lowerBound
        let n = rows.count
        let tiles = (n + 3) / 4
        // Column blocks of 32 tiles (128 rows of the packed panel, 48 KB at kb = 48) stay in cache
        // while every row of tiles below them streams past.
        let columnBlock = 32
        for jb in stride(from: 0, to: tiles, by: columnBlock) {
          for ti in jb..<tiles {
            let pi = packed + ti * kb * 4
            for tj in jb..<min(jb + columnBlock, ti + 1) {
                let pj = packed + tj * kb * 4
                // c[ii][q] = Σ_p L[i+ii, p]·L[j+q, p]; 16 scalar sums that the optimiser keeps in vector
                // registers (the q values of one p are adjacent in the packed sliver).
                var c00 = 0.0, c01 = 0.0, c02 = 0.0, c03 = 0.0, c10 = 0.0, c11 = 0.0, c12 = 0.0, c13 = 0.0
                var c20 = 0.0, c21 = 0.0, c22 = 0.0, c23 = 0.0, c30 = 0.0, c31 = 0.0, c32 = 0.0, c33 = 0.0
                for p in 0..<kb {
                    let a = pi + p * 4, b = pj + p * 4
                    let a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3]
                    let b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3]
                    c00 += a0 * b0; c01 += a0 * b1; c02 += a0 * b2; c03 += a0 * b3
                    c10 += a1 * b0; c11 += a1 * b1; c12 += a1 * b2; c13 += a1 * b3
                    c20 += a2 * b0; c21 += a2 * b1; c22 += a2 * b2; c23 += a2 * b3
                    c30 += a3 * b0; c31 += a3 * b1; c32 += a3 * b2; c33 += a3 * b3
                }
                let i0 = r0 + ti * 4, j0 = r0 + tj * 4
                let iCount = min(4, rows.upperBound - i0), jCount = min(4, rows.upperBound - j0)
                if iCount == 4 && jCount == 4 {
                    var row = a + i0 * lda + j0
                    row[0] -= c00; row[1] -= c01; row[2] -= c02; row[3] -= c03
                    row += lda
                    row[0] -= c10; row[1] -= c11; row[2] -= c12; row[3] -= c13
                    row += lda
                    row[0] -= c20; row[1] -= c21; row[2] -= c22; row[3] -= c23
                    row += lda
                    row[0] -= c30; row[1] -= c31; row[2] -= c32; row[3] -= c33
                } else {
                    let c = [[c00, c01, c02, c03], [c10, c11, c12, c13], [c20, c21, c22, c23], [c30, c31, c32, c33]]
                    for ii in 0..<iCount {
                        let row = a + (i0 + ii) * lda + j0
                        for q in 0..<jCount { row[q] -= c[ii][q] }
                    }
                }
            }
          }
        }
    }
    /// Solves L·Lᵀ·x = b in place (b has m entries).
    static func solve(_ l: UnsafePointer<Double>, m: Int, lda: Int, _ b: UnsafeMutablePointer<Double>) {
        // L·y = b (rows of L are contiguous).
        for i in 0..<m {
            let row = l + i * lda
            b[i] = (b[i] - dot(row, b, i)) / row[i]
        }
        // Lᵀ·x = y, column-oriented over the rows of L.
        var i = m - 1
        while i >= 0 {
            let row = l + i * lda
            let xi = b[i] / row[i]
            b[i] = xi
            for j in 0..<i { b[j] -= row[j] * xi }
            i -= 1
        }
    }
}
