// Evaluates a fitted thin-plate spline along grid rows, four nodes per SIMD lane group: for each
// centre, s = (x − x_j)² + (z − z_j)² and the sum gains (c_j/2)·s·log s. The row's (z − z_j)² are
// computed once per row. Double precision throughout.

/// Row evaluation with buffers that live as long as the evaluator (one per processing run).
final class SurfaceEvaluator {
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
        let a = spline.linear
        let zTerm = a[0] + a[2] * ((z - spline.shift.y) / spline.scale.y)
        var i = 0
        while i < count {
            let lanes = min(8, count - i)
            var x0 = SIMD4<Double>(), x1 = SIMD4<Double>()
            for l in 0..<lanes {
                if l < 4 { x0[l] = x[i + l] } else { x1[l - 4] = x[i + l] }
            }
            var acc0 = SIMD4<Double>(), acc1 = SIMD4<Double>()
            for j in 0..<n {
                let cx = centerX[j], d2 = dz2[j], w = halfWeight[j]
                let dx0 = x0 - cx, dx1 = x1 - cx
                acc0 += w * ThinPlateKernel.sLogS(dx0 * dx0 + d2)
                acc1 += w * ThinPlateKernel.sLogS(dx1 * dx1 + d2)
            }
            for l in 0..<lanes {
                let xHat = (x[i + l] - spline.shift.x) / spline.scale.x
                let sum = l < 4 ? acc0[l] : acc1[l - 4]
                out[i + l] = sum + (zTerm + a[1] * xHat)
            }
            i += lanes
        }
    }
}
