// Results of the stateful commands: Codable (their JSON keys are the property names, in this order) and
// a text rendering for the terminal.

/// `scorecard player add`.
public struct PlayerAdded: Sendable, Codable, Equatable {
    public var player: Player
    public var text: String {
        "added player \(player.id): \(player.name)"
            + (player.givenIndex.map { ", Handicap Index \($0.handicapNotation) (given: in force until 3 differentials are recorded here)" } ?? "")
    }
}

/// `scorecard player edit`.
public struct PlayerEdited: Sendable, Codable, Equatable {
    public var player: Player
    /// The given index before the edit.
    public var before: Tenths?
    public var text: String {
        "\(player.name): given Handicap Index \(before?.handicapNotation ?? "—") → \(player.givenIndex?.handicapNotation ?? "—")"
    }
}

/// One line of `scorecard player list`.
public struct PlayerSummary: Sendable, Codable, Equatable {
    public var id: Int
    public var name: String
    /// Current Handicap Index: from the record (three differentials or more), else the one the player
    /// came with; null when neither exists.
    public var index: Tenths?
    /// True when `index` is the given one (no index from the record yet).
    public var indexIsGiven: Bool
    public var finishedRounds: Int

    public init(id: Int, name: String, index: Tenths?, indexIsGiven: Bool, finishedRounds: Int) {
        self.id = id
        self.name = name
        self.index = index
        self.indexIsGiven = indexIsGiven
        self.finishedRounds = finishedRounds
    }
}

/// `scorecard player list`.
public struct PlayerList: Sendable, Codable, Equatable {
    public var players: [PlayerSummary]
    public var text: String {
        if players.isEmpty { return "no players yet — add one with 'scorecard player add NAME'" }
        return TextTable(["id", "name", "index", "rounds"], players.map {
            ["\($0.id)", $0.name, ($0.index?.handicapNotation ?? "—") + ($0.indexIsGiven ? " (given)" : ""), "\($0.finishedRounds)"]
        }).text
    }
}

/// A tee in listings: its ratings and totals.
public struct TeeSummary: Sendable, Codable, Equatable {
    public var name: String
    public var holes: Int
    public var par: Int
    public var rating: Tenths
    public var slope: Int
    public var front: Rating?
    public var back: Rating?

    init(_ tee: Tee) {
        name = tee.name
        holes = tee.holes.count
        par = tee.par
        rating = tee.rating
        slope = tee.slope
        front = tee.front
        back = tee.back
    }

    var line: String {
        var text = "\(name): \(holes) holes, par \(par), \(rating)/\(slope)"
        if let front { text += ", front \(front.rating)/\(front.slope)" }
        if let back { text += ", back \(back.rating)/\(back.slope)" }
        return text
    }
}

/// `scorecard course add` and one entry of `scorecard course list`.
public struct CourseSummary: Sendable, Codable, Equatable {
    public var id: Int
    public var name: String
    public var tees: [TeeSummary]

    init(_ course: Course) {
        id = course.id
        name = course.name
        tees = course.tees.map(TeeSummary.init)
    }

    public var text: String {
        (["course \(id): \(name)"] + tees.map { "  " + $0.line }).joined(separator: "\n")
    }
}

/// `scorecard course list`.
public struct CourseList: Sendable, Codable, Equatable {
    public var courses: [CourseSummary]
    public var text: String {
        courses.isEmpty ? "no courses yet — add one with 'scorecard course add FILE.json'"
            : courses.map(\.text).joined(separator: "\n")
    }
}

/// `scorecard course show`.
public struct CourseDetail: Sendable, Codable, Equatable {
    public var course: Course
    public var text: String {
        var lines = ["course \(course.id): \(course.name)"]
        for tee in course.tees {
            lines.append("")
            lines.append("tee " + TeeSummary(tee).line)
            let numbers = tee.holes.map { String($0.number) }
            lines.append(TextTable(["hole"] + numbers + ["total"], [
                ["par"] + tee.holes.map { String($0.par) } + [String(tee.par)],
                ["index"] + tee.holes.map { String($0.strokeIndex) } + [""],
            ]).text)
        }
        return lines.joined(separator: "\n")
    }
}

/// A round as listed: who played where and how it stands.
public struct RoundSummary: Sendable, Codable, Equatable {
    public var id: Int
    public var date: GolfDate
    public var course: String
    public var tee: String
    public var holes: Int
    public var nine: Nine
    public var format: PlayFormat
    public var allowance: Int
    public var pcc: Tenths
    public var status: String
    public var finishedOn: GolfDate?
    public var players: [RoundPlayer]

    var heading: String {
        var text = "round \(id) · \(date) · \(course), tee \(tee) · \(holes) holes"
        if nine != .all { text += " (\(nine.rawValue) nine)" }
        text += " · \(format.title) \(allowance)% · \(status)"
        if pcc != .zero { text += " · PCC \(pcc.raw > 0 ? "+" : "")\(pcc)" }
        return text
    }
}

/// `scorecard round start`.
public struct RoundStarted: Sendable, Codable, Equatable {
    public var round: RoundSummary
    public var text: String {
        var lines = ["started " + round.heading]
        for player in round.players {
            if let index = player.index, let ch = player.courseHandicap, let ph = player.playingHandicap {
                lines.append("  \(player.name): index \(index.handicapNotation), course handicap \(CourseHandicapResult.signed(ch)), "
                    + "playing handicap \(CourseHandicapResult.signed(ph))")
            } else {
                lines.append("  \(player.name): no Handicap Index yet (gross only; holes capped at par + 5 for handicap purposes)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// `scorecard score`.
public struct ScoreEntered: Sendable, Codable, Equatable {
    public var entry: ScoreEntry
    public var player: String
    /// The strokes this entry replaced, when the hole already had an entry.
    public var replaced: Int?
    public var text: String {
        var text = "round \(entry.roundID), \(player), hole \(entry.hole): \(entry.strokes)"
        if let replaced { text += " (was \(replaced); every entry is kept, the latest counts)" }
        return text
    }
}

/// One player's line on a leaderboard. The scores are null (shown "—") before the player's first hole:
/// no score is not a score of 0.
public struct LeaderboardLine: Sendable, Codable, Equatable {
    /// "1", "T2", … by net to par; "—" before any hole is scored.
    public var position: String
    public var playerID: Int
    public var name: String
    public var holesPlayed: Int
    public var gross: Int?
    public var toPar: Int?
    /// Strokes received on the holes played (from the playing handicap).
    public var strokesReceived: Int
    public var net: Int?
    public var netToPar: Int?
    public var playingHandicap: Int?
}

/// `scorecard leaderboard`: gross and net stroke lines for every format, and the format's own standing.
public struct Leaderboard: Sendable, Codable, Equatable {
    public var round: RoundSummary
    public var lines: [LeaderboardLine]
    /// Stableford rounds: points, most first.
    public var stableford: [StablefordLine]?
    /// Match play rounds (individual or four-ball).
    public var match: MatchState?
    /// Four-ball stroke play rounds: the sides' better-ball scores.
    public var fourBall: [SideLine]?
    /// Skins rounds.
    public var skins: SkinsState?

    public init(round: RoundSummary, lines: [LeaderboardLine], stableford: [StablefordLine]? = nil, match: MatchState? = nil,
                fourBall: [SideLine]? = nil, skins: SkinsState? = nil) {
        self.round = round
        self.lines = lines
        self.stableford = stableford
        self.match = match
        self.fourBall = fourBall
        self.skins = skins
    }

    static func par(_ value: Int) -> String { value == 0 ? "E" : value > 0 ? "+\(value)" : "\(value)" }

    /// A score, or "—" when there is none yet.
    static func score(_ value: Int?) -> String { value.map(String.init) ?? "—" }

    /// A score to par, or "—" when there is none yet.
    static func toPar(_ value: Int?) -> String { value.map(par) ?? "—" }

    func thru(_ played: Int) -> String { played == round.holes ? "F" : "\(played)" }

    /// The gross and net stroke table.
    var strokeTable: String {
        let rows = lines.map { line in
            [line.position, line.name, thru(line.holesPlayed),
             Self.score(line.gross), Self.toPar(line.toPar),
             line.playingHandicap.map(CourseHandicapResult.signed) ?? "—",
             Self.score(line.net), Self.toPar(line.netToPar)]
        }
        return TextTable(["pos", "player", "thru", "gross", "to par", "hcp", "net", "net to par"], rows).text
    }

    public var text: String {
        var parts = [round.heading]
        if let stableford {
            parts.append(TextTable(["pos", "player", "thru", "hcp", "points", "gross pts"], stableford.map {
                [$0.position, $0.name, thru($0.holesPlayed), $0.playingHandicap.map(CourseHandicapResult.signed) ?? "—",
                 Self.score($0.points), Self.score($0.grossPoints)]
            }).text)
        } else if let match {
            var lines = ["\(match.sides[0]) v \(match.sides[1]): \(match.status)"]
            let strokes = zip(round.players, match.strokes).filter { $0.1 != 0 }.map { "\($0.0.name) \($0.1)" }
            lines.append("strokes received off the lowest: " + (strokes.isEmpty ? "none" : strokes.joined(separator: ", ")))
            if !match.holes.isEmpty {
                lines.append(TextTable(["hole"] + match.holes.map { "\($0.hole)" },
                                       [[match.sides[0] + " (net)"] + match.holes.map { "\($0.net[0])" },
                                        [match.sides[1] + " (net)"] + match.holes.map { "\($0.net[1])" },
                                        ["state"] + match.holes.map { $0.standing == 0 ? "AS" : $0.standing > 0 ? "\($0.standing)↑" : "\(-$0.standing)↓" }]).text)
            }
            parts.append(lines.joined(separator: "\n"))
        } else if let fourBall {
            parts.append(TextTable(["pos", "side", "thru", "better ball", "net to par"], fourBall.map {
                [$0.position, $0.side, thru($0.holesPlayed), Self.score($0.betterBall), Self.toPar($0.toPar)]
            }).text)
        } else if let skins {
            var lines = ["\(skins.basis) skins, carry-overs \(skins.carryOvers ? "on" : "off")"]
            lines.append(TextTable(["player", "skins", "holes"], skins.players.map {
                [$0.name, "\($0.skins)", $0.holes.map(String.init).joined(separator: ", ")]
            }).text)
            let holes = skins.holes.map { h in
                "\(h.hole): " + (h.winner.map { "\($0) (\(h.value))" } ?? (h.outcome == "void" ? "tied, void" : "tied, \(h.value) carried"))
            }
            if !holes.isEmpty { lines.append("holes " + holes.joined(separator: " · ")) }
            if skins.carried > 0 { lines.append("\(skins.carried) skin\(skins.carried == 1 ? "" : "s") carried, not yet won") }
            parts.append(lines.joined(separator: "\n"))
        }
        if stableford == nil && match == nil && fourBall == nil && skins == nil { parts.append(strokeTable) }
        return parts.joined(separator: "\n")
    }
}

/// `scorecard correct`.
public struct ScoreCorrected: Sendable, Codable, Equatable {
    public var entry: ScoreEntry
    public var player: String
    /// The strokes the correction replaced.
    public var replaced: Int
    public var roundFinished: Bool
    /// The round's Score Differential for the player after the correction (finished rounds).
    public var differential: Tenths?
    /// The player's Handicap Index before and after (recomputed from the corrected record).
    public var indexBefore: Tenths?
    public var indexAfter: Tenths?

    public var text: String {
        var line = "corrected hole \(entry.hole) for \(player) in round \(entry.roundID): \(replaced) → \(entry.strokes) "
            + "(\(entry.reason ?? ""); entry \(entry.sequence), every earlier entry kept)"
        if roundFinished {
            line += "\nrecord recomputed: differential " + (differential?.description ?? "—") + ", index "
                + (indexBefore?.handicapNotation ?? "—") + " → " + (indexAfter?.handicapNotation ?? "—")
        }
        return line
    }
}

/// One entry in a round's history.
public struct HistoryEntry: Sendable, Codable, Equatable {
    public var sequence: Int
    public var player: String
    public var hole: Int
    public var strokes: Int
    /// True for the entry that counts (the latest for its player and hole).
    public var current: Bool
    public var reason: String?
    public var correctedOn: GolfDate?
}

/// `scorecard entries`.
public struct EntryHistory: Sendable, Codable, Equatable {
    public var round: Int
    public var entries: [HistoryEntry]
    public var text: String {
        if entries.isEmpty { return "round \(round) has no entries yet" }
        return "round \(round): \(entries.count) entries (* counts)\n" + TextTable(["#", "player", "hole", "strokes", "", "correction"], entries.map { e in
            let day = e.correctedOn.map { "\($0): " } ?? ""
            return ["\(e.sequence)", e.player, "\(e.hole)", "\(e.strokes)", e.current ? "*" : "", e.reason.map { day + $0 } ?? ""]
        }).text
    }
}

/// One player's result in a finished round.
public struct FinishedPlayer: Sendable, Codable, Equatable {
    public var name: String
    /// Null when the player scored no hole.
    public var gross: Int?
    public var adjustedGross: Int?
    public var differential: Tenths?
    /// Why the round has no differential (incomplete card, 9-hole score waiting, …).
    public var note: String?
    public var indexAfter: Tenths?
}

/// `scorecard round finish`.
public struct RoundFinished: Sendable, Codable, Equatable {
    public var leaderboard: Leaderboard
    public var players: [FinishedPlayer]
    public var text: String {
        var lines = [leaderboard.text, ""]
        for player in players {
            var line = "\(player.name): gross \(Leaderboard.score(player.gross))"
            if let ags = player.adjustedGross { line += ", adjusted \(ags)" }
            if let d = player.differential { line += ", differential \(d)" }
            if let note = player.note { line += " (\(note))" }
            line += ", index now " + (player.indexAfter?.handicapNotation ?? "—")
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// `scorecard rounds`.
public struct RoundHistory: Sendable, Codable, Equatable {
    public var rounds: [Leaderboard]
    public var text: String {
        if rounds.isEmpty { return "no rounds yet — start one with 'scorecard round start'" }
        return rounds.map { board in
            board.round.heading + "\n" + board.lines.map {
                "  \($0.name): \($0.holesPlayed) holes, gross \(Leaderboard.score($0.gross)), net \(Leaderboard.score($0.net))"
            }.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

/// One score in a player's record, with where it was played.
public struct RecordedScore: Sendable, Codable, Equatable {
    public var roundID: Int
    public var date: GolfDate
    public var course: String
    public var tee: String
    public var holes: Int
    public var outcome: ScoreOutcome
}

/// `scorecard index PLAYER`: the index and the record behind it.
public struct HandicapRecord: Sendable, Codable, Equatable {
    public var player: Player
    /// Current Handicap Index: from the record once three differentials exist, before that the index the
    /// player came with (`player.givenIndex`), else null.
    public var index: Tenths?
    /// Low Handicap Index (lowest index in force in the 365 days before the latest score), once 20 differentials exist.
    public var lowIndex: Tenths?
    /// How the current index was calculated.
    public var calculation: IndexCalculation?
    /// Every finished round of the player, newest first.
    public var scores: [RecordedScore]
    /// Daily revisions of the index, oldest first.
    public var revisions: [IndexRevision]

    public var text: String {
        var heading = "\(player.name): Handicap Index " + (index?.handicapNotation ?? "— (needs 3 differentials)")
        if calculation == nil, index != nil { heading += " (given: in force until 3 differentials are recorded here)" }
        var lines = [heading]
        if let c = calculation {
            var how = "lowest \(c.used) of the most recent \(c.considered) differentials, average \(c.average)"
            if c.adjustment != .zero { how += ", adjustment \(c.adjustment)" }
            lines.append(how + " → \(c.calculated)")
        }
        if let low = lowIndex {
            var line = "Low Handicap Index \(low.handicapNotation)"
            if calculation?.hardCapApplied == true { line += ": hard cap applied (at most 5.0 above)" }
            else if calculation?.softCapApplied == true { line += ": soft cap applied (half the rise above 3.0 removed)" }
            lines.append(line)
        }
        if calculation?.maximumApplied == true { lines.append("limited to the maximum 54.0") }
        let rows = scores.map { s -> [String] in
            let o = s.outcome
            var note = ""
            switch o.kind {
            case .incomplete: note = "incomplete: \(o.holesScored) of \(s.holes) holes"
            case .nineHeld: note = "9 holes, held until 54 holes"
            case .nineWithExpectedScore: note = "9 holes + expected score of \(o.expectedScoreIndex?.handicapNotation ?? "—") (Rule 5.1b)"
            case .nineWithInitialExpectedScore:
                note = "9 holes + expected score of provisional \(o.expectedScoreIndex?.handicapNotation ?? "—") (54-hole rule, 5.2a)"
            case .eighteenHoles: note = "18 holes (Rule 5.1a)"
            }
            if o.exceptionalReduction != .zero { note += (note.isEmpty ? "" : "; ") + "exceptional: −\(o.exceptionalReduction) on the last 20" }
            // "·" only beside an index: without one (fewer than 3 differentials) nothing is older than the 20.
            return [o.counted ? "*" : (o.differential != nil && !o.considered && calculation != nil ? "·" : ""), "\(s.date)", "\(s.course) (\(s.tee))", o.holesScored > 0 ? "\(o.gross)" : "—",
                    o.adjustedGross.map(String.init) ?? "—", o.differential?.description ?? "—",
                    o.reductionApplied == .zero ? "" : "−\(o.reductionApplied)", note]
        }
        if !rows.isEmpty {
            lines.append(TextTable(["", "date", "course", "gross", "adj", "diff", "esr", ""], rows).text)
            if calculation != nil {
                lines.append("* counted in the index" + (rows.contains { $0[0] == "·" } ? "   · older than the most recent 20" : ""))
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// What `round delete` did: the round, whether it was final, and each player's index around it.
public struct RoundDeleted: Sendable, Codable, Equatable {
    public var round: RoundSummary
    public var wasFinal: Bool
    public var reason: String?
    public var players: [IndexChange]
    public var text: String {
        var lines = ["Deleted round \(round.id) (\(round.course), \(round.tee), \(round.date))" + (reason.map { ": \($0)" } ?? "")]
        if wasFinal {
            for player in players {
                lines.append("  \(player.name): index " + (player.indexBefore?.handicapNotation ?? "—") + " → "
                    + (player.indexAfter?.handicapNotation ?? "—"))
            }
        }
        return lines.joined(separator: "\n")
    }
}

public struct IndexChange: Sendable, Codable, Equatable {
    public var name: String
    public var indexBefore: Tenths?
    public var indexAfter: Tenths?
}
