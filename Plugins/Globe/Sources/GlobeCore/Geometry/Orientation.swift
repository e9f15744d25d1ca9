// The orientation of three points with the exact sign (after Shewchuk's adaptive orient2d): a
// floating-point cross product is tried first, with its error bound; only when the result is
// within that bound of zero is the determinant expanded into exact products (fused multiply-add
// gives each product's rounding error) and summed exactly. So three points are collinear exactly
// when they are, and the answers for (a, b, c), (b, c, a) and (c, a, b) always agree — which a
// plain cross product does not promise once a polygon is turned off the grid its points were on.

import Glibc

enum Orientation {
    /// (3 + 16ε)ε with ε = 2⁻⁵³: Shewchuk's bound on the error of the floating-point determinant,
    /// relative to the sum of the magnitudes of its two products.
    static let errorBound = (3.0 + 16.0 * 0x1p-53) * 0x1p-53

    /// Twice the signed area of abc — positive when a → b → c turns left — whose sign is exact.
    /// The value is the floating-point determinant unless that could have the wrong sign; then it
    /// is the exact determinant rounded to a double (its sign exact, 0 only when truly collinear).
    @inline(__always)
    static func cross(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Double {
        let left = (bx - ax) * (cy - ay)
        let right = (by - ay) * (cx - ax)
        let det = left - right
        let sum: Double
        if left > 0 {
            if right <= 0 { return det }
            sum = left + right
        } else if left < 0 {
            if right >= 0 { return det }
            sum = -left - right
        } else {
            // A zero product has an exactly zero factor (a difference of doubles is 0 only for
            // equal doubles): the other product's sign is exact.
            return det
        }
        let bound = errorBound * sum
        if det > bound || -det > bound { return det }
        return exact(ax, ay, bx, by, cx, cy)
    }

    /// The determinant (bx − ax)(cy − ay) − (by − ay)(cx − ax) expanded as
    /// bx·cy − bx·ay − ax·cy − by·cx + by·ax + ay·cx (the ax·ay terms cancel), each product split
    /// exactly into value and error by a fused multiply-add, and the twelve parts summed exactly
    /// into a nonoverlapping expansion; its largest part carries the sign.
    @inline(never)
    static func exact(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Double {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 13) { e in
            var count = 0
            /// Adds `b` to the nonoverlapping expansion e[0..<count] (smallest part first) exactly,
            /// dropping zero parts (Shewchuk's grow-expansion).
            func grow(_ b: Double) {
                guard b != 0 else { return }
                var q = b
                var kept = 0
                for k in 0..<count {
                    let part = e[k]
                    // Two-sum: q + part = sum + error, exactly.
                    let sum = q + part
                    let bv = sum - q
                    let av = sum - bv
                    let error = (q - av) + (part - bv)
                    if error != 0 {
                        e[kept] = error
                        kept += 1
                    }
                    q = sum
                }
                if q != 0 {
                    e[kept] = q
                    kept += 1
                }
                count = kept
            }
            func product(_ a: Double, _ b: Double) {
                let p = a * b
                grow(p)
                grow((-p).addingProduct(a, b))
            }
            product(bx, cy)
            product(-bx, ay)
            product(-ax, cy)
            product(-by, cx)
            product(by, ax)
            product(ay, cx)
            guard count > 0 else { return 0 }
            // The largest part outweighs all the others together: the sum has its sign.
            var total = 0.0
            for k in 0..<count { total += e[k] }
            return total == 0 || (total > 0) != (e[count - 1] > 0) ? e[count - 1] : total
        }
    }
}
