// A generated population for the recompute benchmark: many players, each with a scoring record of
// rounds played hole by hole on generated tees. Kept compact (one byte a hole) so a hundred thousand
// records fit in tens of megabytes; `recomputeIndexes` loads each record into reusable buffers and runs
// the full scoring-record evaluation (net double bogey, differentials, exceptional scores, Rule 5.2,
// Low Handicap Index and caps) on it.

/// Generated players with their rounds.
public struct HandicapWorkload: Sendable {
    /// Generated tees: par, rating and slope of 18 holes (stroke index = allocation rank).
    public struct GeneratedTee: Sendable {
        public var pars: [Int]
        public var strokeIndexes: [Int]
        public var rating: Tenths
        public var slope: Int
        public var par: Int
    }

    public let tees: [GeneratedTee]
    public let players: Int
    public let roundsPerPlayer: Int
    /// Per round (player-major, in date order): tee number, day number, PCC in tenths.
    let roundTee: [UInt16]
    let roundDay: [Int32]
    let roundPCC: [Int8]
    /// 18 bytes of gross strokes per round.
    let strokes: [UInt8]

    public var roundCount: Int { roundTee.count }

    /// Generates `players` players with `roundsPerPlayer` 18-hole rounds each, deterministically from `seed`.
    public static func generate(players: Int, roundsPerPlayer: Int, seed: UInt64 = 2024) -> HandicapWorkload {
        var rng = SplitMix64(seed: seed)
        var tees: [GeneratedTee] = []
        for _ in 0..<64 {
            let pars = (0..<18).map { _ in [3, 4, 4, 4, 5][rng.modulo(5)] }
            var indexes = Array(1...18)
            indexes.shuffle(using: &rng)
            let par = pars.reduce(0, +)
            tees.append(GeneratedTee(pars: pars, strokeIndexes: indexes, rating: Tenths(raw: 10 * par - 40 + rng.modulo(81)),
                                     slope: 100 + rng.modulo(51), par: par))
        }
        let total = players * roundsPerPlayer
        var roundTee = [UInt16](), roundDay = [Int32](), roundPCC = [Int8](), strokes = [UInt8]()
        roundTee.reserveCapacity(total)
        roundDay.reserveCapacity(total)
        roundPCC.reserveCapacity(total)
        strokes.reserveCapacity(total * 18)
        let start = GolfDate(year: 2023, month: 1, day: 1)?.dayNumber ?? 0
        for _ in 0..<players {
            let skill = rng.modulo(25)                      // 0.0 … 2.4 over par a hole on average
            var day = start + rng.modulo(30)
            for _ in 0..<roundsPerPlayer {
                let tee = rng.modulo(tees.count)
                roundTee.append(UInt16(tee))
                roundDay.append(Int32(day))
                roundPCC.append(rng.modulo(10) == 0 ? Int8(10 * (rng.modulo(5) - 1)) : 0)
                // An occasional day far better or worse than usual (exceptional scores, caps).
                let form = rng.modulo(40) == 0 ? -8 : (rng.modulo(20) == 0 ? 10 : 0)
                for par in tees[tee].pars {
                    strokes.append(UInt8(SampleData.strokes(par: par, overPerHoleTenths: max(0, skill * 1 + form), using: &rng)))
                }
                day += 3 + rng.modulo(30)
            }
        }
        return HandicapWorkload(tees: tees, players: players, roundsPerPlayer: roundsPerPlayer,
                                roundTee: roundTee, roundDay: roundDay, roundPCC: roundPCC, strokes: strokes)
    }

    /// The rounds of one player, as the scoring record takes them.
    public func rounds(ofPlayer player: Int) -> [PostedRound] {
        var buffer: [PostedRound] = []
        load(player: player, into: &buffer)
        return buffer
    }

    /// Loads a player's rounds into `buffer`, reusing its storage.
    func load(player: Int, into buffer: inout [PostedRound]) {
        let first = player * roundsPerPlayer
        if buffer.count != roundsPerPlayer {
            buffer = (0..<roundsPerPlayer).map { _ in
                PostedRound(roundID: 0, date: GolfDate(dayNumber: 0), holeCount: .eighteen, rating: .zero, slope: 113, par: 72,
                            pcc: .zero, holes: Array(repeating: PlayedHole(par: 4, allocationRank: 1, strokes: 0), count: 18))
            }
        }
        for r in 0..<roundsPerPlayer {
            let round = first + r
            let tee = tees[Int(roundTee[round])]
            buffer[r].roundID = round + 1
            buffer[r].date = GolfDate(dayNumber: Int(roundDay[round]))
            buffer[r].rating = tee.rating
            buffer[r].slope = tee.slope
            buffer[r].par = tee.par
            buffer[r].pcc = Tenths(raw: Int(roundPCC[round]))
            let base = round * 18
            buffer[r].holes.withUnsafeMutableBufferPointer { holes in
                for h in 0..<18 {
                    holes[h] = PlayedHole(par: tee.pars[h], allocationRank: tee.strokeIndexes[h], strokes: Int(strokes[base + h]))
                }
            }
        }
    }

    /// Recomputes every player's Handicap Index; returns the indexes (nil: no index) in player order.
    public func recomputeIndexes() -> [Tenths?] {
        var engine = ScoringRecordEngine(capacity: roundsPerPlayer)
        var buffer: [PostedRound] = []
        var result: [Tenths?] = []
        result.reserveCapacity(players)
        for player in 0..<players {
            load(player: player, into: &buffer)
            result.append(ScoringRecord.currentIndex(ofOrdered: buffer, scratch: &engine))
        }
        return result
    }
}
