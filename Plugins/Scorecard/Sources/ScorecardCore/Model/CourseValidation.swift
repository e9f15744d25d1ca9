// The checks a course must pass before it is stored. Each failure names the place (file:line:col when the
// course came from a file) and what to fix; nothing is stored while any check fails.

/// Validation of courses and tees, and of stroke index lists.
public enum CourseValidation {
    public static let parRange = 3...6
    public static let slopeRange = 55...155
    public static let strokesRange = 1...20

    /// How far a Course Rating may sit from par: 10.0 strokes over 18 holes, 5.0 over nine.
    public static func ratingSpread(holes: Int) -> Int { holes == 9 ? 50 : 100 }

    /// What is wrong with a list of stroke indexes for `count` holes (each of 1…count exactly once);
    /// nil when nothing is.
    public static func strokeIndexProblems(_ values: [Int], holes count: Int)
        -> (duplicates: [Int: [Int]], missing: [Int], outOfRange: [Int])?
    {
        var positions: [Int: [Int]] = [:]
        var outOfRange: [Int] = []
        for (offset, value) in values.enumerated() {
            if (1...count).contains(value) { positions[value, default: []].append(offset + 1) } else { outOfRange.append(value) }
        }
        let duplicates = positions.filter { $0.value.count > 1 }
        let missing = (1...count).filter { positions[$0] == nil }
        if duplicates.isEmpty && missing.isEmpty && outOfRange.isEmpty { return nil }
        return (duplicates, missing, outOfRange)
    }

    /// Throws the first problem of the course. `locate` turns a JSON Pointer into a location prefix
    /// ("course.json:12:7: "); without a file it may describe the course instead.
    public static func validate(_ draft: CourseDraft, locate: (String) -> String) throws(ScorecardError) {
        if draft.name.trimmingSpaces.isEmpty {
            throw .invalidCourseFile(location: locate("/name"), message: "the course has no name — give it a \"name\"")
        }
        if draft.tees.isEmpty {
            throw .invalidCourseFile(location: locate("/tees"), message: "course '\(draft.name)' has no tees — add at least one tee")
        }
        var seen: Set<String> = []
        for (t, tee) in draft.tees.enumerated() {
            let base = "/tees/\(t)"
            if tee.name.trimmingSpaces.isEmpty {
                throw .invalidCourseFile(location: locate(base + "/name"), message: "tee \(t + 1) has no name — give it a \"name\" such as \"White\"")
            }
            if !seen.insert(tee.name.lowercased()).inserted { throw .duplicateTee(course: draft.name, tee: tee.name) }
            try validate(tee, base: base, locate: locate)
        }
    }

    static func validate(_ tee: Tee, base: String, locate: (String) -> String) throws(ScorecardError) {
        let count = tee.holes.count
        guard count == 9 || count == 18 else {
            throw .invalidHoleCount(location: locate(base + "/holes"), tee: tee.name, count: count)
        }
        for (h, hole) in tee.holes.enumerated() {
            if hole.number != h + 1 {
                throw .holeNumbering(location: locate("\(base)/holes/\(h)"), tee: tee.name, expected: h + 1, found: hole.number)
            }
            if !parRange.contains(hole.par) {
                throw .invalidPar(location: locate("\(base)/holes/\(h)/par"), hole: hole.number, par: hole.par)
            }
        }
        let indexes = tee.holes.map(\.strokeIndex)
        if let problems = strokeIndexProblems(indexes, holes: count) {
            // Point at the second occurrence of the first duplicate, or the first out-of-range value.
            var pointer = base + "/holes"
            if let first = problems.duplicates.min(by: { $0.key < $1.key }), first.value.count > 1 {
                pointer = "\(base)/holes/\(first.value[1] - 1)/strokeIndex"
            } else if let bad = problems.outOfRange.first, let at = indexes.firstIndex(of: bad) {
                pointer = "\(base)/holes/\(at)/strokeIndex"
            }
            throw .strokeIndexes(location: locate(pointer), tee: tee.name, duplicates: problems.duplicates,
                                 missing: problems.missing, outOfRange: problems.outOfRange, holes: count)
        }
        try validate(Rating(rating: tee.rating, slope: tee.slope), par: tee.par, holes: count, pointer: base, locate: locate)
        if count == 9, tee.front != nil || tee.back != nil {
            throw .invalidCourseFile(location: locate(base + (tee.front != nil ? "/front" : "/back")),
                                     message: "tee '\(tee.name)' has 9 holes; front and back ratings belong to 18-hole tees — remove them")
        }
        if let front = tee.front {
            try validate(front, par: tee.holes.prefix(9).reduce(0) { $0 + $1.par }, holes: 9, pointer: base + "/front", locate: locate)
        }
        if let back = tee.back {
            try validate(back, par: tee.holes.dropFirst(9).reduce(0) { $0 + $1.par }, holes: 9, pointer: base + "/back", locate: locate)
        }
    }

    static func validate(_ rating: Rating, par: Int, holes: Int, pointer: String, locate: (String) -> String) throws(ScorecardError) {
        if !slopeRange.contains(rating.slope) {
            throw .invalidSlope(location: locate(pointer + "/slope"), slope: rating.slope)
        }
        if abs(rating.rating.raw - 10 * par) > ratingSpread(holes: holes) {
            throw .implausibleRating(location: locate(pointer + "/rating"), rating: rating.rating, par: par, holes: holes)
        }
    }
}

extension String {
    var trimmingSpaces: Substring {
        var s = self[...]
        while let first = s.first, first.isWhitespace { s = s.dropFirst() }
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        return s
    }
}
