// One axis of the heightfield grid, with the values numpy's `arange(-E/2, E/2 + res, res)` gives:
// count = ceil((stop − start)/res); value 0 = start, value 1 = start + res, value i ≥ 2 =
// start + i·δ with δ = (start + res) − start (numpy fills from its first two elements). The last
// node may lie up to one step beyond E/2; the original grid has exactly these nodes.

/// The node coordinates of one grid axis, in feet.
struct ArangeGridAxis: Sendable, Equatable {
    let start: Double
    let step: Double
    let count: Int
    private let delta: Double

    init(extentFt: Double, resolutionFt: Double = ProcessingOptions.originalResolutionFt) {
        let start = -extentFt / 2
        let stop = extentFt / 2 + resolutionFt
        self.start = start
        self.step = resolutionFt
        self.count = max(0, Int(((stop - start) / resolutionFt).rounded(.up)))
        self.delta = (start + resolutionFt) - start
    }

    subscript(i: Int) -> Double {
        switch i {
        case 0: return start
        case 1: return start + step
        default: return start + Double(i) * delta
        }
    }

    var first: Double { self[0] }
    var last: Double { self[count - 1] }

    var values: [Double] { (0..<count).map { self[$0] } }
}
