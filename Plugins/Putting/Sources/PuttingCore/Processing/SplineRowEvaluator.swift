// Evaluates a fitted thin-plate spline along grid rows, four nodes per SIMD lane group: for each
// centre, s = (x − x_j)² + (z − z_j)² and the sum gains (c_j/2)·s·log s. The row's (z − z_j)² are
// computed once per row. Double precision throughout.

/// Row evaluation with buffers that live as long as the evaluator (one per processing run).
final class SplineRowEvaluator {
    private let n: Int
    private let centerX: UnsafeMutablePointer<Double>
    private let centerZ: UnsafeMutablePointer<Double>
    private let halfWeight: UnsafeMutablePointer<Double>
    private let dz2: UnsafeMutablePointer<Double>
    private let spline: ThinPlateSpline

    init(_ spline: ThinPlateSpline) {
        self.spline = spline
        n = spline.weights.count
        centerX = .allocate(capacity: n)
        centerZ = .allocate(capacity: n)
        halfWeight = .allocate(capacity: n)
        dz2 = .allocate(capacity: n)
        for j in 0..<n {
            centerX[j] = spline.centerX[j]
            centerZ[j] = spline.centerZ[j]
            halfWeight[j] = 0.5 * spline.weights[j]
        }
    }

    deinit {
        centerX.deallocate()
        centerZ.deallocate()
        halfWeight.deallocate()
        dz2.deallocate()
    }

    /// out[i] = h(x[i], z) for i in 0..<count.
    func evaluateRow(z: Double, x: UnsafePointer<Double>, count: Int, into out: UnsafeMutablePointer<Double>) {
        for j in 0..<n {
            let dz = z - centerZ[j]
            dz2[j] = dz * dz
        }
        let zTerm = spline.a0 + spline.a2 * ((z - spline.shiftZ) / spline.scaleZ)
        let a1 = spline.a1, shiftX = spline.shiftX, scaleX = spline.scaleX
        // Centres outer, nodes inner: the inner loop updates independent outputs (no reduction),
        // which the compiler vectorises.
        for i in 0..<count { out[i] = 0 }
        for j in 0..<n {
            let cx = centerX[j], d2 = dz2[j], w = halfWeight[j]
            for i in 0..<count {
                let dx = x[i] - cx
                out[i] += w * ThinPlateKernel.sLogS(dx * dx + d2)
            }
        }
        for i in 0..<count {
            out[i] = out[i] + (zTerm + a1 * ((x[i] - shiftX) / scaleX))
        }
    }
}
