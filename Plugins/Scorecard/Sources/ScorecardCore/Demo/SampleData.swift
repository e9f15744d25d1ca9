// Sample players and courses written for Clubhouse's demo (fictional clubs and golfers; not the seed's),
// and the deterministic random numbers the demo and the benchmark workload use.


/// The demo's own players and courses.
public enum SampleData {
    public static let players = ["Maren Holt", "Tomas Reyes", "Priya Nandakumar", "Callum Birch"]

    static func holes(pars: [Int], strokeIndexes: [Int]) -> [Hole] {
        zip(pars, strokeIndexes).enumerated().map { Hole(number: $0.offset + 1, par: $0.element.0, strokeIndex: $0.element.1) }
    }

    /// An 18-hole links (par 72) with two tees and ratings for each nine; a 9-hole course (par 34);
    /// an 18-hole inland course (par 71).
    public static let courses: [CourseDraft] = {
        let heronPars = [4, 4, 3, 5, 4, 4, 3, 4, 5, 4, 3, 5, 4, 4, 4, 3, 4, 5]
        let heronIndexes = [7, 11, 15, 1, 5, 9, 17, 13, 3, 8, 16, 4, 12, 2, 10, 18, 6, 14]
        let quarryPars = [4, 5, 4, 3, 4, 4, 3, 4, 4, 4, 4, 3, 5, 4, 3, 4, 4, 5]
        let quarryIndexes = [5, 3, 11, 17, 1, 9, 15, 7, 13, 6, 2, 16, 4, 12, 18, 8, 14, 10]
        return [
            CourseDraft(name: "Heron Bay Links", tees: [
                Tee(name: "Blue", rating: Tenths(raw: 734), slope: 131, holes: holes(pars: heronPars, strokeIndexes: heronIndexes),
                    front: Rating(rating: Tenths(raw: 369), slope: 133), back: Rating(rating: Tenths(raw: 365), slope: 129)),
                Tee(name: "White", rating: Tenths(raw: 711), slope: 125, holes: holes(pars: heronPars, strokeIndexes: heronIndexes),
                    front: Rating(rating: Tenths(raw: 357), slope: 127), back: Rating(rating: Tenths(raw: 354), slope: 123)),
            ]),
            CourseDraft(name: "Juniper Hill", tees: [
                Tee(name: "Yellow", rating: Tenths(raw: 338), slope: 112,
                    holes: holes(pars: [4, 3, 4, 4, 3, 5, 4, 3, 4], strokeIndexes: [3, 7, 1, 5, 9, 2, 4, 8, 6])),
            ]),
            CourseDraft(name: "Quarry Ridge", tees: [
                Tee(name: "Gold", rating: Tenths(raw: 726), slope: 138, holes: holes(pars: quarryPars, strokeIndexes: quarryIndexes),
                    front: Rating(rating: Tenths(raw: 360), slope: 140), back: Rating(rating: Tenths(raw: 366), slope: 136)),
            ]),
        ]
    }()

    /// Strokes on a hole for a golfer who averages `overPerHole` tenths over par: randomized rounding of
    /// a value spread ±1 stroke around the average, never below par − 1.
    static func strokes(par: Int, overPerHoleTenths: Int, using rng: inout SplitMix64) -> Int {
        let spread = rng.modulo(21) - 10               // −1.0 … +1.0 in tenths
        let value = overPerHoleTenths + spread * (overPerHoleTenths + 10) / 10
        let whole = ExactRounding.floorDivide(value, 10)
        let fraction = value - whole * 10
        let over = whole + (rng.modulo(10) < fraction ? 1 : 0)
        return min(20, max(1, par + max(-1, over)))
    }
}
