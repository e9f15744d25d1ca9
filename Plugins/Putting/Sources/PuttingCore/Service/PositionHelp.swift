// Helping a user put the ball and the flag on the green (issue 30, Why 10): a position off the
// green names the nearest point that is on it (the green's outline decides, not the grid's box);
// a hole's stored cup is the flag when none is given; a course named by its name, or its id in
// other letters, gets the id suggested.

extension PuttingService {
    /// The point on the green closest to `point`, by the rule of `model` (physics: the closed mask
    /// of the cells; compat: the original loader's nearest cell with height > 0), rounded to a
    /// tenth of a foot when the rounded point is still on the green. Nil for a green with no cell.
    public static func nearestOnGreen(_ hf: Heightfield, to point: PointFt, model: PuttingModel) -> (point: PointFt, distanceFt: Double)? {
        let mask = model == .physics ? GreenSurface.closedMask(hf) : hf.heights.map { $0 > 0 }
        // The compat model maps a coordinate to the cell whose centre is the largest strictly below
        // it: a quarter cell past the centre lands in that cell.
        let shift = model == .compat ? hf.resolutionFt / 4 : 0
        var candidates: [(PointFt, Double)] = []
        candidates.reserveCapacity(mask.count / 2)
        for row in 0..<hf.nz {
            for column in 0..<hf.nx where mask[row * hf.nx + column] {
                let p = PointFt(x: hf.xFt(column: column) + shift, z: hf.zFt(row: row) + shift)
                candidates.append((p, p.distance(to: point)))
            }
        }
        candidates.sort { $0.1 < $1.1 }
        func onGreen(_ p: PointFt) -> Bool {
            guard hf.spans(xFt: p.x, zFt: p.z) else { return false }
            return model == .compat ? CompatGreen.onGreen(hf, xFt: p.x, zFt: p.z) : mask[cellIndex(hf, p)]
        }
        for (p, _) in candidates.prefix(64) {
            for decimals in [1.0, 100.0] {
                let rounded = PointFt(x: (p.x * decimals).rounded() / decimals, z: (p.z * decimals).rounded() / decimals)
                if onGreen(rounded) { return (rounded, rounded.distance(to: point)) }
            }
            if onGreen(p) { return (p, p.distance(to: point)) }
        }
        return nil
    }

    /// The physics mask's cell of a point (the nearest cell centre), clamped to the grid.
    private static func cellIndex(_ hf: Heightfield, _ p: PointFt) -> Int {
        let c = Swift.min(hf.nx - 1, Swift.max(0, Int(((p.x - hf.xMinFt) / hf.resolutionFt).rounded())))
        let r = Swift.min(hf.nz - 1, Swift.max(0, Int(((p.z - hf.zMinFt) / hf.resolutionFt).rounded())))
        return r * hf.nx + c
    }

    /// `error` with an off-green position said precisely (the nearest point on the green of the
    /// hole it names); any other error as it is.
    public func explained(_ error: PuttingError, model: PuttingModel) -> PuttingError {
        guard case .positionOffGreen(let what, let point, let course, let number, let spanX, let spanZ) = error,
              let hole = try? store.hole(courseID: course, number: number), let hf = hole.heightfield else { return error }
        let nearest = PuttingService.nearestOnGreen(hf, to: point, model: model)
        return .positionOutsideGreen(what: what, point: point, course: course, hole: number,
                                     insideBox: spanX.contains(point.x) && spanZ.contains(point.z), nearest: nearest?.point,
                                     distanceFt: nearest?.distanceFt)
    }

    /// The hole's stored cup (its config's hole location): the flag when a command gets no --flag.
    public func storedCup(course: String, hole number: Int) throws(PuttingError) -> PointFt {
        let hole = try hole(course: course, number: number)
        guard let cup = hole.holePosition else { throw .noStoredCup(course: course, hole: number) }
        return cup
    }

    /// Course ids close to what was typed: the id of a course whose name it is, an id in other
    /// letters, or one a couple of typing errors away.
    func courseSuggestions(_ typed: String) -> [String] {
        guard let courses = try? store.courses() else { return [] }
        let key = typed.lowercased()
        var scored: [(Int, String)] = []
        for c in courses {
            let id = c.id.lowercased(), name = c.name.lowercased()
            if id == key || name == key {
                scored.append((0, c.id))
            } else if id.hasPrefix(key) || name.hasPrefix(key) {
                scored.append((1, c.id))
            } else {
                let d = Swift.min(editDistance(key, id), editDistance(key, name))
                // Two typing errors (a swapped pair is two) in four letters or more.
                if key.count >= 4, d <= Swift.max(2, key.count / 4) { scored.append((1 + d, c.id)) }
            }
        }
        return scored.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.prefix(3).map(\.1)
    }

    private func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var previous = Array(0...y.count), current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
