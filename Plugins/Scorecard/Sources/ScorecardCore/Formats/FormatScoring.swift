// The formats of play on one round's card: Stableford points, match play, four-ball better ball (stroke
// and match) and skins, from gross strokes, the players' Playing Handicaps and the holes' allocation.
//
// Sources: Rules of Handicapping Appendix C (allowances; in match play strokes are given off the lowest
// Playing Handicap, in stroke play and Stableford the full Playing Handicap is received), Rule 6.2 and
// Appendix E (strokes given by the hole's stroke index); Rules of Golf Rule 3.2 (match play: a hole is won
// with the lower net score, halved on a tie, the match is won when a side leads by more holes than remain),
// Rule 21.1 (Stableford points against the fixed score, par: 0 for net double bogey or worse, 1 bogey,
// 2 par, 3 birdie, 4 eagle, 5 albatross), Rule 23 (four-ball: the side's score on a hole is the better of
// the partners' scores). Skins is not in the Rules: the lowest unique score on a hole wins it; a tie
// carries the skin to the next hole when carry-overs are on, or voids it.
//
// A player without a Handicap Index plays off 0 (gross). Partners in four-ball are consecutive in the
// round's player list (players 1 & 2 against 3 & 4).

/// One round's holes, players and current strokes, for the format scorers.
public struct FormatField: Sendable {
    public struct Entrant: Sendable {
        public var playerID: Int
        public var name: String
        /// Course Handicap × the round's allowance; nil without a Handicap Index (plays off 0).
        public var playingHandicap: Int?

        public init(playerID: Int, name: String, playingHandicap: Int?) {
            self.playerID = playerID
            self.name = name
            self.playingHandicap = playingHandicap
        }
    }

    public var holes: [Hole]
    /// Allocation rank of each played hole (its stroke index among the holes played, 1 = hardest).
    public var ranks: [Int]
    public var entrants: [Entrant]
    /// Gross strokes, row-major: `strokes[e * holes.count + h]`, 0 when the hole has no score.
    public var strokes: [Int]

    public init(holes: [Hole], ranks: [Int], entrants: [Entrant], strokes: [Int]) {
        self.holes = holes
        self.ranks = ranks
        self.entrants = entrants
        self.strokes = strokes
    }

    @inline(__always)
    func gross(_ e: Int, _ h: Int) -> Int { strokes[e * holes.count + h] }

    /// Strokes each entrant receives on each hole (row-major like `strokes`; negative for a plus
    /// handicap giving strokes back). Stroke formats allocate the full Playing Handicap; match formats the
    /// difference from the lowest Playing Handicap in the match (Appendix C).
    public func received(offTheLowest: Bool) -> [Int] {
        let n = holes.count
        let handicaps = entrants.map { $0.playingHandicap ?? 0 }
        let low = offTheLowest ? (handicaps.min() ?? 0) : 0
        var result = [Int](repeating: 0, count: entrants.count * n)
        for (e, handicap) in handicaps.enumerated() {
            let c = handicap - low
            if c == 0 { continue }
            for h in 0..<n { result[e * n + h] = WorldHandicapSystem.strokesReceived(courseHandicap: c, rank: ranks[h], holeCount: n) }
        }
        return result
    }
}

// MARK: Stableford

/// One player's line on a Stableford leaderboard.
public struct StablefordLine: Sendable, Codable, Equatable {
    public var position: String
    public var playerID: Int
    public var name: String
    public var playingHandicap: Int?
    public var holesPlayed: Int
    /// Points from net scores (the competition's result); null before the player's first hole.
    public var points: Int?
    /// Points from gross scores; null before the player's first hole.
    public var grossPoints: Int?
}

public enum Stableford {
    /// Rule 21.1b: 2 points for the fixed score (par), one more per stroke better, one fewer per stroke
    /// worse, never below 0 (net double bogey or worse, or no score, scores 0).
    @inline(__always)
    public static func points(par: Int, net: Int) -> Int { max(0, 2 + par - net) }

    /// The Stableford leaderboard: most points first; equal points share a position ("T2").
    public static func leaderboard(_ field: FormatField) -> [StablefordLine] {
        let n = field.holes.count
        let received = field.received(offTheLowest: false)
        var lines: [StablefordLine] = []
        lines.reserveCapacity(field.entrants.count)
        for (e, entrant) in field.entrants.enumerated() {
            var points = 0, gross = 0, played = 0
            for h in 0..<n {
                let strokes = field.strokes[e * n + h]
                if strokes == 0 { continue }
                let par = field.holes[h].par
                played += 1
                points += Self.points(par: par, net: strokes - received[e * n + h])
                gross += Self.points(par: par, net: strokes)
            }
            lines.append(StablefordLine(position: "—", playerID: entrant.playerID, name: entrant.name,
                                        playingHandicap: entrant.playingHandicap, holesPlayed: played,
                                        points: played > 0 ? points : nil, grossPoints: played > 0 ? gross : nil))
        }
        lines.sort { a, b in
            if (a.holesPlayed == 0) != (b.holesPlayed == 0) { return b.holesPlayed == 0 }
            if a.points != b.points { return (a.points ?? 0) > (b.points ?? 0) }
            if a.holesPlayed != b.holesPlayed { return a.holesPlayed < b.holesPlayed }
            return a.name.lowercased() < b.name.lowercased()
        }
        Positions.assign(&lines, played: { $0.holesPlayed > 0 }, same: { $0.points == $1.points }) { $0.position = $1 }
        return lines
    }
}

/// Shared "1, T2, T2, 4" positions over a sorted list.
enum Positions {
    static func assign<T>(_ lines: inout [T], played: (T) -> Bool, same: (T, T) -> Bool, set: (inout T, String) -> Void) {
        var i = 0
        while i < lines.count {
            guard played(lines[i]) else { i += 1; continue }
            var j = i + 1
            while j < lines.count, played(lines[j]), same(lines[i], lines[j]) { j += 1 }
            let label = (j - i > 1 ? "T" : "") + String(i + 1)
            for k in i..<j { set(&lines[k], label) }
            i = j
        }
    }
}

// MARK: Match play (individual and four-ball)

/// One hole of a match.
public struct MatchHole: Sendable, Codable, Equatable {
    public var hole: Int
    /// Each side's net score on the hole (four-ball: the better of the partners').
    public var net: [Int]
    /// 0 or 1: the side that won the hole; nil when halved.
    public var winner: Int?
    /// Holes up for side 1 after this hole (negative: side 2 leads).
    public var standing: Int
}

/// The state of a match.
public struct MatchState: Sendable, Codable, Equatable {
    /// The two sides' names ("Ann", or "Ann & Ben" in four-ball).
    public var sides: [String]
    /// Strokes each player receives in the match (off the lowest Playing Handicap), in player order.
    public var strokes: [Int]
    public var holes: [MatchHole]
    /// Holes up for side 1 (negative: side 2 leads).
    public var up: Int
    public var holesPlayed: Int
    public var holesRemaining: Int
    /// True once a side leads by more holes than remain, or every hole is played.
    public var decided: Bool
    /// The last hole the match was played to, once decided.
    public var decidedAfterHole: Int?
    /// Leading side's name when it is dormie (its lead equals the holes left).
    public var dormie: Bool
    /// "3&2", "1 up", "halved" once decided; nil while the match goes on.
    public var result: String?
    /// Human-readable state: "Ann 2 up thru 10", "Ann dormie 2", "Ann wins 3&2", "all square thru 4".
    public var status: String
}

public enum MatchPlay {
    /// Plays the match hole by hole in the order of the round's holes, as far as both sides have a score
    /// on each hole (for four-ball, at least one partner of each side). `sideSize` is 1 or 2.
    public static func state(_ field: FormatField, sideSize: Int) -> MatchState {
        let n = field.holes.count
        let received = field.received(offTheLowest: true)
        let sides = [0, 1].map { s in (0..<sideSize).map { s * sideSize + $0 }.filter { $0 < field.entrants.count } }
        let names = sides.map { $0.map { field.entrants[$0].name }.joined(separator: " & ") }
        var holes: [MatchHole] = []
        var up = 0
        var decidedAfter: Int?
        for h in 0..<n {
            var nets: [Int] = []
            for side in sides {
                let best = side.compactMap { e -> Int? in
                    let strokes = field.gross(e, h)
                    return strokes == 0 ? nil : strokes - received[e * n + h]
                }.min()
                guard let best else { break }
                nets.append(best)
            }
            guard nets.count == 2 else { break }
            let winner: Int? = nets[0] < nets[1] ? 0 : nets[1] < nets[0] ? 1 : nil
            if winner == 0 { up += 1 } else if winner == 1 { up -= 1 }
            holes.append(MatchHole(hole: field.holes[h].number, net: nets, winner: winner, standing: up))
            let remaining = n - holes.count
            if abs(up) > remaining || remaining == 0 {
                decidedAfter = field.holes[h].number
                break
            }
        }
        let played = holes.count
        let remaining = n - played
        let leader = up > 0 ? names[0] : up < 0 ? names[1] : nil
        var result: String?
        var status: String
        let dormie = decidedAfter == nil && up != 0 && abs(up) == remaining
        if decidedAfter != nil {
            if up == 0 {
                result = "halved"
                status = "match halved (all square after \(played))"
            } else {
                result = remaining == 0 ? "\(abs(up)) up" : "\(abs(up))&\(remaining)"
                status = "\(leader ?? "") wins \(result ?? "")"
            }
        } else if played == 0 {
            status = "not started"
        } else if let leader {
            status = dormie ? "\(leader) dormie \(abs(up))" : "\(leader) \(abs(up)) up thru \(played)"
        } else {
            status = "all square thru \(played)"
        }
        let strokes = (0..<field.entrants.count).map { e in (0..<n).reduce(0) { $0 + received[e * n + $1] } }
        return MatchState(sides: names, strokes: strokes, holes: holes, up: up, holesPlayed: played, holesRemaining: remaining,
                          decided: decidedAfter != nil, decidedAfterHole: decidedAfter, dormie: dormie, result: result, status: status)
    }
}

// MARK: Four-ball stroke play

/// One side's line on a four-ball better-ball stroke play leaderboard.
public struct SideLine: Sendable, Codable, Equatable {
    public var position: String
    public var side: String
    public var playerIDs: [Int]
    public var holesPlayed: Int
    /// The side's better-ball net score over the holes played; null before the side's first hole.
    public var betterBall: Int?
    /// Par of the holes played; null before the side's first hole.
    public var par: Int?
    public var toPar: Int?
}

public enum FourBallStroke {
    /// Each hole counts the better net score of the partners (Rule 23.2); a hole counts once either
    /// partner has a score. Lowest to par first.
    public static func leaderboard(_ field: FormatField) -> [SideLine] {
        let n = field.holes.count
        let received = field.received(offTheLowest: false)
        var lines: [SideLine] = []
        var start = 0
        while start < field.entrants.count {
            let members = Array(start..<min(start + 2, field.entrants.count))
            var total = 0, par = 0, played = 0
            for h in 0..<n {
                let best = members.compactMap { e -> Int? in
                    let strokes = field.gross(e, h)
                    return strokes == 0 ? nil : strokes - received[e * n + h]
                }.min()
                guard let best else { continue }
                total += best
                par += field.holes[h].par
                played += 1
            }
            lines.append(SideLine(position: "—", side: members.map { field.entrants[$0].name }.joined(separator: " & "),
                                  playerIDs: members.map { field.entrants[$0].playerID }, holesPlayed: played,
                                  betterBall: played > 0 ? total : nil, par: played > 0 ? par : nil, toPar: played > 0 ? total - par : nil))
            start += 2
        }
        lines.sort { a, b in
            if (a.holesPlayed == 0) != (b.holesPlayed == 0) { return b.holesPlayed == 0 }
            return (a.toPar ?? 0, -a.holesPlayed, a.side.lowercased()) < (b.toPar ?? 0, -b.holesPlayed, b.side.lowercased())
        }
        Positions.assign(&lines, played: { $0.holesPlayed > 0 }, same: { $0.toPar == $1.toPar }) { $0.position = $1 }
        return lines
    }
}

// MARK: Skins

/// One hole of a skins game.
public struct SkinHole: Sendable, Codable, Equatable {
    public var hole: Int
    /// The winner's name; nil when tied.
    public var winner: String?
    /// Skins won on the hole (1 + those carried to it); on a tie, the skins now carried (or 0 when void).
    public var value: Int
    /// "won", "carried" (tie, carry-overs on) or "void" (tie, carry-overs off).
    public var outcome: String
}

/// One player's skins.
public struct SkinsLine: Sendable, Codable, Equatable {
    public var playerID: Int
    public var name: String
    public var skins: Int
    /// Holes whose skins the player won.
    public var holes: [Int]
}

/// The state of a skins game.
public struct SkinsState: Sendable, Codable, Equatable {
    /// "net" or "gross".
    public var basis: String
    public var carryOvers: Bool
    public var holes: [SkinHole]
    public var players: [SkinsLine]
    /// Skins carried and not yet won (after the last decided hole).
    public var carried: Int
    public var holesDecided: Int
}

public enum Skins {
    /// Decides holes in order while every player has a score on the hole.
    public static func state(_ field: FormatField, net: Bool, carryOvers: Bool) -> SkinsState {
        let n = field.holes.count
        let received = net ? field.received(offTheLowest: false) : [Int](repeating: 0, count: field.entrants.count * n)
        var lines = field.entrants.map { SkinsLine(playerID: $0.playerID, name: $0.name, skins: 0, holes: []) }
        var holes: [SkinHole] = []
        var carried = 0
        for h in 0..<n {
            var best = Int.max, winner = -1, tied = false, complete = true
            for e in field.entrants.indices {
                let strokes = field.gross(e, h)
                if strokes == 0 { complete = false; break }
                let score = strokes - received[e * n + h]
                if score < best { best = score; winner = e; tied = false } else if score == best { tied = true }
            }
            guard complete, !field.entrants.isEmpty else { break }
            let number = field.holes[h].number
            if !tied {
                lines[winner].skins += carried + 1
                lines[winner].holes.append(number)
                holes.append(SkinHole(hole: number, winner: field.entrants[winner].name, value: carried + 1, outcome: "won"))
                carried = 0
            } else if carryOvers {
                carried += 1
                holes.append(SkinHole(hole: number, winner: nil, value: carried, outcome: "carried"))
            } else {
                holes.append(SkinHole(hole: number, winner: nil, value: 0, outcome: "void"))
            }
        }
        lines.sort { $0.skins != $1.skins ? $0.skins > $1.skins : $0.name.lowercased() < $1.name.lowercased() }
        return SkinsState(basis: net ? "net" : "gross", carryOvers: carryOvers, holes: holes, players: lines,
                          carried: carried, holesDecided: holes.count)
    }
}
