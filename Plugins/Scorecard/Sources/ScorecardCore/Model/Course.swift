// Courses and tees: what a scorecard prints (par and stroke index per hole) and what the course rating
// authority issues (Course Rating and Slope Rating, for 18 holes and, when given, for each nine).

/// One hole of a tee.
public struct Hole: Hashable, Sendable, Codable {
    /// 1-based hole number.
    public var number: Int
    public var par: Int
    /// Stroke index: 1 is the hole where the first handicap stroke is given.
    public var strokeIndex: Int

    public init(number: Int, par: Int, strokeIndex: Int) {
        self.number = number
        self.par = par
        self.strokeIndex = strokeIndex
    }
}

/// Course Rating and Slope Rating of some holes (the whole tee or one nine).
public struct Rating: Hashable, Sendable, Codable {
    public var rating: Tenths
    public var slope: Int

    public init(rating: Tenths, slope: Int) {
        self.rating = rating
        self.slope = slope
    }
}

/// Which holes of a tee a round is played over.
public enum Nine: String, Hashable, Sendable, Codable, CaseIterable {
    /// Every hole of the tee (9 or 18).
    case all
    /// Holes 1–9 of an 18-hole tee.
    case front
    /// Holes 10–18 of an 18-hole tee.
    case back
}

/// A set of tees of a course: its holes and ratings.
public struct Tee: Hashable, Sendable, Codable {
    public var name: String
    /// Course Rating and Slope Rating over all the tee's holes.
    public var rating: Tenths
    public var slope: Int
    /// 9 or 18 holes, numbered from 1.
    public var holes: [Hole]
    /// Ratings of the front and back nine of an 18-hole tee, when the rating authority issued them.
    public var front: Rating?
    public var back: Rating?

    public init(name: String, rating: Tenths, slope: Int, holes: [Hole], front: Rating? = nil, back: Rating? = nil) {
        self.name = name
        self.rating = rating
        self.slope = slope
        self.holes = holes
        self.front = front
        self.back = back
    }

    public var holeCount: HoleCount { holes.count == 9 ? .nine : .eighteen }
    public var par: Int { holes.reduce(0) { $0 + $1.par } }

    /// The holes a round over `nine` plays.
    public func holes(for nine: Nine) -> ArraySlice<Hole> {
        switch nine {
        case .all: return holes[...]
        case .front: return holes.prefix(9)
        case .back: return holes.dropFirst(9)
        }
    }

    /// The rating and par of the holes a round over `nine` plays; nil when the nine has no rating.
    public func rating(for nine: Nine) -> (rating: Rating, par: Int)? {
        let par = holes(for: nine).reduce(0) { $0 + $1.par }
        switch nine {
        case .all: return (Rating(rating: rating, slope: slope), par)
        case .front: return front.map { ($0, par) }
        case .back: return back.map { ($0, par) }
        }
    }

    /// Each played hole's allocation rank: its stroke index among the holes played, 1 = hardest.
    /// For a whole tee that is the stroke index itself; for one nine of 18, the order of the nine's indexes.
    public func allocationRanks(for nine: Nine) -> [Int] {
        let played = Array(holes(for: nine))
        let order = played.indices.sorted { played[$0].strokeIndex < played[$1].strokeIndex }
        var ranks = [Int](repeating: 0, count: played.count)
        for (rank, position) in order.enumerated() { ranks[position] = rank + 1 }
        return ranks
    }
}

/// A course with one or more tees.
public struct Course: Hashable, Sendable, Codable {
    public var id: Int
    public var name: String
    public var tees: [Tee]

    public init(id: Int, name: String, tees: [Tee]) {
        self.id = id
        self.name = name
        self.tees = tees
    }

    /// The tee with this name (case-insensitive).
    public func tee(named name: String) -> Tee? {
        tees.first { $0.name.lowercased() == name.lowercased() }
    }
}

/// A course before it is stored (no id yet).
public struct CourseDraft: Hashable, Sendable, Codable {
    public var name: String
    public var tees: [Tee]

    public init(name: String, tees: [Tee]) {
        self.name = name
        self.tees = tees
    }
}

/// A golfer.
public struct Player: Hashable, Sendable, Codable {
    public var id: Int
    public var name: String
    /// The Handicap Index the player came with (from their association, another club or the Golfer
    /// app): in force until their record here produces one (README, "A player who comes with an index").
    public var givenIndex: Tenths?

    public init(id: Int, name: String, givenIndex: Tenths? = nil) {
        self.id = id
        self.name = name
        self.givenIndex = givenIndex
    }
}
