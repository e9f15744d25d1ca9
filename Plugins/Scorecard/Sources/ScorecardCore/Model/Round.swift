// Rounds (a game for several players on one tee and date), their append-only score entries and the
// formats of play with their handicap allowances (Appendix C of the Rules of Handicapping).

/// A format of play and its recommended handicap allowance.
public enum PlayFormat: String, Hashable, Sendable, Codable, CaseIterable {
    case strokePlay = "stroke-play"
    case stableford = "stableford"
    case matchPlay = "match-play"
    case fourBallStrokePlay = "four-ball-stroke-play"
    case fourBallMatchPlay = "four-ball-match-play"
    case skins = "skins"

    /// The recommended allowance in percent of the Course Handicap (Rules of Handicapping, Appendix C).
    /// Skins is not in Appendix C; it is played off the full Course Handicap unless the site or the
    /// round says otherwise.
    public var allowancePercent: Int {
        switch self {
        case .strokePlay, .stableford: return 95
        case .fourBallStrokePlay: return 85
        case .matchPlay: return 100
        case .fourBallMatchPlay: return 90
        case .skins: return 100
        }
    }

    public var title: String {
        switch self {
        case .strokePlay: return "individual stroke play"
        case .fourBallStrokePlay: return "four-ball better ball stroke play"
        case .matchPlay: return "individual match play"
        case .fourBallMatchPlay: return "four-ball better ball match play"
        case .stableford: return "individual Stableford"
        case .skins: return "skins"
        }
    }

    /// Players per side: 2 for four-ball (partners are consecutive in the round's player list).
    public var sideSize: Int {
        switch self {
        case .fourBallStrokePlay, .fourBallMatchPlay: return 2
        default: return 1
        }
    }

    /// Match play: strokes are given off the lowest Playing Handicap (Appendix C).
    public var isMatch: Bool { self == .matchPlay || self == .fourBallMatchPlay }

    /// The site config key that overrides this format's allowance, e.g. `allowance_four_ball_match_play`.
    public var configKey: String {
        // Byte by byte (the raw values are ASCII): read at every create, once per format.
        var bytes = Array("allowance_".utf8)
        bytes.reserveCapacity(bytes.count + rawValue.utf8.count)
        for b in rawValue.utf8 { bytes.append(b == UInt8(ascii: "-") ? UInt8(ascii: "_") : b) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// How a round is scored beyond its format: the allowance used and the skins options.
public struct RoundOptions: Hashable, Sendable, Codable {
    /// Percent of the Course Handicap that makes the Playing Handicap (0–100).
    public var allowancePercent: Int
    /// Skins on net scores (true) or gross scores.
    public var netSkins: Bool
    /// Skins: a tied hole carries its skin to the next hole (true) or the skin is void.
    public var carryOvers: Bool

    public init(allowancePercent: Int, netSkins: Bool = true, carryOvers: Bool = true) {
        self.allowancePercent = allowancePercent
        self.netSkins = netSkins
        self.carryOvers = carryOvers
    }
}

/// A player in a round, with the handicaps fixed when the round started.
public struct RoundPlayer: Hashable, Sendable, Codable {
    public var playerID: Int
    public var name: String
    /// The Handicap Index in force on the round's date; nil for a player without one.
    public var index: Tenths?
    /// Course Handicap for the holes played (9-hole one for nine holes).
    public var courseHandicap: Int?
    /// Course Handicap × the format's allowance: the strokes received in this round.
    public var playingHandicap: Int?

    public init(playerID: Int, name: String, index: Tenths?, courseHandicap: Int?, playingHandicap: Int?) {
        self.playerID = playerID
        self.name = name
        self.index = index
        self.courseHandicap = courseHandicap
        self.playingHandicap = playingHandicap
    }
}

/// A round before it is stored.
public struct RoundDraft: Hashable, Sendable, Codable {
    public var courseID: Int
    public var teeName: String
    public var date: GolfDate
    public var nine: Nine
    public var format: PlayFormat
    public var pcc: Tenths
    public var players: [RoundPlayer]
    public var options: RoundOptions

    public init(courseID: Int, teeName: String, date: GolfDate, nine: Nine, format: PlayFormat, pcc: Tenths,
                players: [RoundPlayer], options: RoundOptions? = nil) {
        self.courseID = courseID
        self.teeName = teeName
        self.date = date
        self.nine = nine
        self.format = format
        self.pcc = pcc
        self.players = players
        self.options = options ?? RoundOptions(allowancePercent: format.allowancePercent)
    }
}

/// A round: a course, a tee, a date, its players; open until finished, final afterwards.
public struct Round: Hashable, Sendable, Codable {
    public var id: Int
    public var courseID: Int
    public var teeName: String
    public var date: GolfDate
    public var nine: Nine
    public var format: PlayFormat
    /// Playing Conditions Calculation for the day (−1.0 … +3.0).
    public var pcc: Tenths
    public var players: [RoundPlayer]
    public var options: RoundOptions
    /// Set when the round is finished; a finished round never changes again (except by a correction
    /// with a reason, which is a new entry).
    public var finishedOn: GolfDate?

    public init(id: Int, draft: RoundDraft, finishedOn: GolfDate? = nil) {
        self.id = id
        courseID = draft.courseID
        teeName = draft.teeName
        date = draft.date
        nine = draft.nine
        format = draft.format
        pcc = draft.pcc
        players = draft.players
        options = draft.options
        self.finishedOn = finishedOn
    }

    public var isFinished: Bool { finishedOn != nil }
}

/// One entry on a scorecard. Entries are only ever appended; for a player's hole the latest entry wins.
public struct ScoreEntry: Hashable, Sendable, Codable {
    /// Increases with every entry in the store.
    public var sequence: Int
    public var roundID: Int
    public var playerID: Int
    public var hole: Int
    public var strokes: Int
    /// Why the score was corrected; nil for an ordinary entry.
    public var reason: String?
    /// The day a correction was made.
    public var correctedOn: GolfDate?

    public init(sequence: Int, roundID: Int, playerID: Int, hole: Int, strokes: Int, reason: String? = nil,
                correctedOn: GolfDate? = nil) {
        self.sequence = sequence
        self.roundID = roundID
        self.playerID = playerID
        self.hole = hole
        self.strokes = strokes
        self.reason = reason
        self.correctedOn = correctedOn
    }
}

/// The current strokes of each player and hole: the latest entry wins.
public struct Scorecard: Sendable {
    /// strokes[playerID][hole number] for holes with an entry.
    public private(set) var strokes: [Int: [Int: Int]] = [:]
    /// Number of entries, superseded ones included.
    public private(set) var entryCount = 0

    public init(entries: [ScoreEntry]) {
        for entry in entries.sorted(by: { $0.sequence < $1.sequence }) {
            strokes[entry.playerID, default: [:]][entry.hole] = entry.strokes
            entryCount += 1
        }
    }

    public func strokes(player: Int, hole: Int) -> Int? { strokes[player]?[hole] }
}
