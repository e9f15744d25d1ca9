// The stateful commands (`player`, `course`, `round`, `score`, `leaderboard`, `rounds`, `index`): one
// function per command, taking the arguments as typed and returning a Codable result with a text
// rendering. Every check runs before the first write, so a rejected command writes nothing.

/// `scorecard player add NAME [--index I]`.
public struct AddPlayerRequest: Sendable {
    public var name: String
    /// The Handicap Index the player comes with, as typed (`12.3`, `+1.2` for a plus index).
    public var index: String?
    public init(name: String, index: String? = nil) {
        self.name = name
        self.index = index
    }
}

/// `scorecard player edit PLAYER --index I|none`.
public struct EditPlayerRequest: Sendable {
    public var player: String
    /// The index the player comes with, as typed; "none" clears it.
    public var index: String?
    public init(player: String, index: String?) {
        self.player = player
        self.index = index
    }
}

/// `scorecard course add FILE.json`: the file's name (for messages) and its content.
public struct AddCourseRequest: Sendable {
    public var file: String
    public var text: String
    public init(file: String, text: String) {
        self.file = file
        self.text = text
    }
}

/// `scorecard round start --course ID --tee NAME --players A,B [--date D] [--holes 9|18]`.
public struct StartRoundRequest: Sendable {
    public var course: String
    public var tee: String
    /// Player names or ids.
    public var players: [String]
    public var date: String?
    /// 9 or 18; the tee's number of holes by default.
    public var holes: Int?
    /// `.front` or `.back` for nine holes of an 18-hole tee (front by default).
    public var nine: Nine?
    /// A `PlayFormat` raw value; individual stroke play by default.
    public var format: String?
    public var pcc: String?
    /// The allowance in percent (0–100); the site's allowance for the format by default.
    public var allowance: String?
    /// Skins only: "net" (default) or "gross".
    public var skins: String?
    /// Skins only: "on" (default) or "off".
    public var carryOvers: String?
    /// The date used when `date` is not given.
    public var today: GolfDate

    public init(course: String, tee: String, players: [String], date: String? = nil, holes: Int? = nil, nine: Nine? = nil,
                format: String? = nil, pcc: String? = nil, allowance: String? = nil, skins: String? = nil,
                carryOvers: String? = nil, today: GolfDate) {
        self.allowance = allowance
        self.skins = skins
        self.carryOvers = carryOvers
        self.course = course
        self.tee = tee
        self.players = players
        self.date = date
        self.holes = holes
        self.nine = nine
        self.format = format
        self.pcc = pcc
        self.today = today
    }
}

/// `scorecard score --round ID --player A --hole N --strokes S`.
public struct ScoreRequest: Sendable {
    public var round: Int
    public var player: String
    public var hole: Int
    public var strokes: Int
    public init(round: Int, player: String, hole: Int, strokes: Int) {
        self.round = round
        self.player = player
        self.hole = hole
        self.strokes = strokes
    }
}

/// `scorecard correct --round ID --player A --hole N --strokes S --reason TEXT`.
public struct CorrectionRequest: Sendable {
    public var round: Int
    public var player: String
    public var hole: Int
    public var strokes: Int
    public var reason: String
    public var today: GolfDate
    public init(round: Int, player: String, hole: Int, strokes: Int, reason: String, today: GolfDate) {
        self.round = round
        self.player = player
        self.hole = hole
        self.strokes = strokes
        self.reason = reason
        self.today = today
    }
}

/// `scorecard round finish ID [--pcc P]`.
public struct FinishRoundRequest: Sendable {
    public var round: Int
    public var pcc: String?
    public var today: GolfDate
    /// The user confirmed finishing with holes unscored (`--yes`).
    public var confirmed: Bool
    public init(round: Int, pcc: String? = nil, today: GolfDate, confirmed: Bool = false) {
        self.round = round
        self.pcc = pcc
        self.today = today
        self.confirmed = confirmed
    }
}

/// Deletes a round for good (a logged tombstone; see ScorecardSchema).
public struct DeleteRoundRequest: Sendable {
    public var round: Int
    public var reason: String?
    public var today: GolfDate
    /// The user confirmed deleting a final round, which changes Handicap Indexes (`--yes`).
    public var confirmed: Bool
    public init(round: Int, reason: String? = nil, today: GolfDate, confirmed: Bool = false) {
        self.round = round
        self.reason = reason
        self.today = today
        self.confirmed = confirmed
    }
}

/// The scorecard's commands over a store.
public struct ScorecardCommands {
    public let store: any ScorecardStore
    /// The site's allowance per format (Appendix C unless the plugin config overrides it).
    public let allowances: AllowanceTable

    public init(store: any ScorecardStore, allowances: AllowanceTable = .appendixC) {
        self.store = store
        self.allowances = allowances
    }

    /// Runs a store call, turning its failure into a one-line error.
    func stored<T>(_ body: () throws -> T) throws(ScorecardError) -> T {
        do { return try body() } catch let error as ScorecardError { throw error } catch { throw .storage("\(error)") }
    }

    // MARK: Players

    public func addPlayer(_ request: AddPlayerRequest) throws(ScorecardError) -> PlayerAdded {
        let name = String(request.name.trimmingSpaces)
        if name.isEmpty { throw .invalidPlayerName(request.name, reason: "is empty — give the player a name") }
        if name.count > 60 { throw .invalidPlayerName(name, reason: "is longer than 60 characters — shorten it") }
        if name.contains(",") { throw .commaInPlayerName(name) }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidPlayerName(name, reason: "contains control characters — use printable characters only")
        }
        if Int(name) != nil { throw .invalidPlayerName(name, reason: "is a number, which would be read as a player id — use a name") }
        let given = try request.index.map { text throws(ScorecardError) in try ArgumentReader.givenIndex(text) }
        let existing = try stored { try store.players() }
        if existing.contains(where: { $0.name.lowercased() == name.lowercased() }) { throw .duplicatePlayer(name) }
        return PlayerAdded(player: try stored { try store.insertPlayer(name: name, givenIndex: given) })
    }

    /// Sets or clears the index a player came with. Refused once the player's record here issues an index
    /// of its own: from then on only scores count (README, "A player who comes with an index").
    public func editPlayer(_ request: EditPlayerRequest) throws(ScorecardError) -> PlayerEdited {
        guard let text = request.index else { throw .missingArgument(argument: "index", detail: " (the Handicap Index the player comes with, or none)") }
        let world = try loadWorld()
        let player = try player(request.player, in: world.players)
        let trimmed = String(text.trimmingSpaces)
        let given = trimmed.lowercased() == "none" ? nil : try ArgumentReader.givenIndex(trimmed)
        let record = world.record(of: player.id)
        if let calculation = record.calculation {
            throw .indexFromRecord(player: player.name, index: calculation.index, differentials: calculation.considered)
        }
        try stored { try store.setGivenIndex(playerID: player.id, index: given) }
        var edited = player
        edited.givenIndex = given
        return PlayerEdited(player: edited, before: player.givenIndex)
    }

    /// The players with their index and finished rounds: the list the store kept, when the data has not
    /// moved on since it was computed (players only are read); else computed from every round and kept.
    public func listPlayers() throws(ScorecardError) -> PlayerList {
        let kept = try stored { try store.keptPlayerSummaries() }
        if let summaries = kept.summaries { return PlayerList(players: summaries) }
        let world = try loadWorld()
        let list = PlayerList(players: world.players.map { player in
            let record = world.record(of: player.id)
            return PlayerSummary(id: player.id, name: player.name, index: record.index,
                                 indexIsGiven: record.calculation == nil && record.givenIndex != nil,
                                 finishedRounds: world.postedRounds(of: player.id).count)
        })
        // Best effort: a read-only database, or a writer in between, only means computing it next time too.
        try? store.keepPlayerSummaries(list.players, generation: kept.generation)
        return list
    }

    func player(_ text: String, in players: [Player]) throws(ScorecardError) -> Player {
        let key = String(text.trimmingSpaces)
        if let id = Int(key), let player = players.first(where: { $0.id == id }) { return player }
        if let player = players.first(where: { $0.name.lowercased() == key.lowercased() }) { return player }
        throw .unknownPlayer(key)
    }

    // MARK: Courses

    public func addCourse(_ request: AddCourseRequest) throws(ScorecardError) -> CourseSummary {
        let draft = try CourseFile.parse(request.text, file: request.file)
        return CourseSummary(try insert(draft))
    }

    func insert(_ draft: CourseDraft) throws(ScorecardError) -> Course {
        let existing = try stored { try store.courses() }
        if existing.contains(where: { $0.name.lowercased() == draft.name.lowercased() }) { throw .duplicateCourse(name: draft.name) }
        return try stored { try store.insertCourse(draft) }
    }

    public func listCourses() throws(ScorecardError) -> CourseList {
        CourseList(courses: try stored { try store.courses() }.map(CourseSummary.init))
    }

    public func showCourse(_ text: String) throws(ScorecardError) -> CourseDetail {
        CourseDetail(course: try course(text, in: try stored { try store.courses() }))
    }

    func course(_ text: String, in courses: [Course]) throws(ScorecardError) -> Course {
        let key = String(text.trimmingSpaces)
        if let id = Int(key), let course = courses.first(where: { $0.id == id }) { return course }
        if let course = courses.first(where: { $0.name.lowercased() == key.lowercased() }) { return course }
        throw .unknownCourse(key)
    }

    // MARK: Rounds

    public func startRound(_ request: StartRoundRequest) throws(ScorecardError) -> RoundStarted {
        let world = try loadWorld()
        let course = try course(request.course, in: world.courses)
        guard let tee = course.tee(named: String(request.tee.trimmingSpaces)) else {
            throw .unknownTee(course: course.name, tee: request.tee, available: course.tees.map(\.name))
        }
        let date: GolfDate
        if let text = request.date {
            guard let parsed = GolfDate(String(text.trimmingSpaces)) else { throw .invalidDate(argument: "date", text: text) }
            date = parsed
        } else {
            date = request.today
        }
        // Without --holes the round is played on all of the tee's holes (9 on a 9-hole tee).
        let holes = try request.holes.map { value throws(ScorecardError) in try ArgumentReader.holes(value) } ?? tee.holeCount
        var nine = Nine.all
        if holes == .nine, tee.holeCount == .eighteen {
            switch request.nine {
            case nil, .front?: nine = .front
            case .back?: nine = .back
            case .all?: throw .invalidNumber(argument: "nine", text: "all", expected: "front or back")
            }
        }
        if holes == .eighteen, tee.holeCount == .nine { throw .nineOfNineHoleTee(tee: tee.name) }
        guard let rated = tee.rating(for: nine) else { throw .nineWithoutRating(tee: tee.name, nine: nine) }
        let format: PlayFormat
        if let text = request.format {
            guard let parsed = PlayFormat(rawValue: String(text.trimmingSpaces).lowercased()) else { throw .invalidFormat(text) }
            format = parsed
        } else {
            format = .strokePlay
        }
        var options = RoundOptions(allowancePercent: allowances.percent(for: format))
        if let text = request.allowance {
            let trimmed = String(text.trimmingSpaces)
            guard let value = Int(trimmed.hasSuffix("%") ? String(trimmed.dropLast()) : trimmed) else {
                throw .invalidNumber(argument: "allowance", text: text, expected: "a whole percent, e.g. 95")
            }
            guard AllowanceTable.range.contains(value) else { throw .allowanceOutOfRange(source: "allowance", argument: "allowance", value: "\(value)") }
            options.allowancePercent = value
        }
        if let text = request.skins {
            guard format == .skins else { throw .optionNotForFormat(option: "skins", format: format) }
            switch String(text.trimmingSpaces).lowercased() {
            case "net": options.netSkins = true
            case "gross": options.netSkins = false
            default: throw .invalidNumber(argument: "skins", text: text, expected: "net or gross")
            }
        }
        if let text = request.carryOvers {
            guard format == .skins else { throw .optionNotForFormat(option: "carry-overs", format: format) }
            switch String(text.trimmingSpaces).lowercased() {
            case "on", "yes", "true": options.carryOvers = true
            case "off", "no", "false": options.carryOvers = false
            default: throw .invalidNumber(argument: "carry-overs", text: text, expected: "on or off")
            }
        }
        let pcc = try ArgumentReader.pcc(request.pcc)
        let names = request.players.map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
        if names.isEmpty { throw .noPlayers }
        switch format {
        case .matchPlay where names.count != 2, .fourBallMatchPlay where names.count != 4,
             .fourBallStrokePlay where names.count % 2 != 0, .skins where names.count < 2:
            throw .playersForFormat(format: format, count: names.count)
        default: break
        }
        var players: [RoundPlayer] = []
        for name in names {
            let player = try player(name, in: world.players)
            if players.contains(where: { $0.playerID == player.id }) { throw .playerTwiceInRound(player.name) }
            let index = world.record(of: player.id).index(on: date)
            var courseHandicap: Int?
            var playingHandicap: Int?
            if let index {
                courseHandicap = holes == .nine
                    ? WorldHandicapSystem.nineHoleCourseHandicap(index: index, slope: rated.rating.slope, rating: rated.rating.rating, par: rated.par)
                    : WorldHandicapSystem.courseHandicap(index: index, slope: rated.rating.slope, rating: rated.rating.rating, par: rated.par)
                playingHandicap = WorldHandicapSystem.playingHandicap(index: index, slope: rated.rating.slope, rating: rated.rating.rating,
                                                                      par: rated.par, holes: holes, allowancePercent: options.allowancePercent)
            }
            players.append(RoundPlayer(playerID: player.id, name: player.name, index: index,
                                       courseHandicap: courseHandicap, playingHandicap: playingHandicap))
        }
        let draft = RoundDraft(courseID: course.id, teeName: tee.name, date: date, nine: nine, format: format, pcc: pcc, players: players,
                               options: options)
        let round = try stored { try store.insertRound(draft) }
        return RoundStarted(round: summary(round, course: course))
    }

    func round(_ id: Int, in rounds: [Round]) throws(ScorecardError) -> Round {
        guard let round = rounds.first(where: { $0.id == id }) else { throw .unknownRound(String(id)) }
        return round
    }

    func summary(_ round: Round, course: Course) -> RoundSummary {
        let holes = course.tee(named: round.teeName).map { $0.holes(for: round.nine).count } ?? 0
        return RoundSummary(id: round.id, date: round.date, course: course.name, tee: round.teeName, holes: holes, nine: round.nine,
                            format: round.format, allowance: round.options.allowancePercent, pcc: round.pcc,
                            status: round.finishedOn == nil ? "open" : "finished",
                            finishedOn: round.finishedOn, players: round.players)
    }

    public func enterScore(_ request: ScoreRequest) throws(ScorecardError) -> ScoreEntered {
        let world = try loadWorld(onlyRound: request.round)
        let round = try round(request.round, in: world.rounds)
        if let finished = round.finishedOn { throw .roundFinished(round: round.id, on: finished) }
        let player = try player(request.player, in: world.players)
        guard round.players.contains(where: { $0.playerID == player.id }) else {
            throw .playerNotInRound(player: player.name, round: round.id)
        }
        let course = try course(String(round.courseID), in: world.courses)
        let holes = course.tee(named: round.teeName)?.holes(for: round.nine).map(\.number) ?? []
        let range = (holes.first ?? 1)...(holes.last ?? 18)
        let hole = request.hole, strokes = request.strokes
        guard holes.contains(hole) else { throw .unknownHole(hole: hole, round: round.id, holes: range) }
        guard CourseValidation.strokesRange.contains(strokes) else { throw .invalidStrokes(strokes: strokes, hole: hole) }
        let card = world.scorecards[round.id] ?? Scorecard(entries: [])
        if round.format.isMatch, let tee = course.tee(named: round.teeName) {
            // Rule 3.2a(3): once a side leads by more holes than remain the match is over; holes after
            // it are not played. Scores on holes up to the deciding one can still change.
            let match = MatchPlay.state(field(round, tee: tee, card: card), sideSize: round.format.sideSize)
            if let after = match.decidedAfterHole,
               let decidedAt = holes.firstIndex(of: after), let at = holes.firstIndex(of: hole), at > decidedAt {
                throw .matchDecided(round: round.id, status: match.status, afterHole: after, hole: hole)
            }
        }
        let previous = card.strokes(player: player.id, hole: hole)
        let entry = try stored { try store.appendScore(roundID: round.id, playerID: player.id, hole: hole, strokes: strokes) }
        return ScoreEntered(entry: entry, player: player.name, replaced: previous)
    }

    /// `scorecard correct`: a new entry with a reason, allowed after the round is finished; the handicap
    /// record is evaluated from the corrected card the next time it is read.
    public func correctScore(_ request: CorrectionRequest) throws(ScorecardError) -> ScoreCorrected {
        let world = try loadWorld()
        let round = try round(request.round, in: world.rounds)
        let player = try player(request.player, in: world.players)
        guard round.players.contains(where: { $0.playerID == player.id }) else {
            throw .playerNotInRound(player: player.name, round: round.id)
        }
        let course = try course(String(round.courseID), in: world.courses)
        let holes = course.tee(named: round.teeName)?.holes(for: round.nine).map(\.number) ?? []
        let range = (holes.first ?? 1)...(holes.last ?? 18)
        let hole = request.hole, strokes = request.strokes
        guard holes.contains(hole) else { throw .unknownHole(hole: hole, round: round.id, holes: range) }
        guard CourseValidation.strokesRange.contains(strokes) else { throw .invalidStrokes(strokes: strokes, hole: hole) }
        let reason = String(request.reason.trimmingSpaces)
        if reason.isEmpty { throw .missingReason }
        let card = world.scorecards[round.id] ?? Scorecard(entries: [])
        guard let previous = card.strokes(player: player.id, hole: hole) else {
            throw .nothingToCorrect(player: player.name, hole: hole, round: round.id)
        }
        if previous == strokes { throw .correctionUnchanged(player: player.name, hole: hole, round: round.id, strokes: strokes) }
        let before = round.isFinished ? world.record(of: player.id).index : nil
        let entry = try stored {
            try store.appendCorrection(roundID: round.id, playerID: player.id, hole: hole, strokes: strokes, reason: reason, on: request.today)
        }
        var after = world
        after.scorecards[round.id] = Scorecard(entries: try stored { try store.scoreEntries(roundID: round.id) })
        let record = after.record(of: player.id)
        let outcome = record.outcomes.first { $0.roundID == round.id }
        return ScoreCorrected(entry: entry, player: player.name, replaced: previous, roundFinished: round.isFinished,
                              differential: outcome?.differential, indexBefore: before, indexAfter: record.index)
    }

    /// `scorecard entries --round ID`: every entry of a round, superseded ones and corrections included.
    public func entries(_ roundID: Int, player playerText: String? = nil) throws(ScorecardError) -> EntryHistory {
        let world = try loadWorld()
        let round = try round(roundID, in: world.rounds)
        var entries = try stored { try store.scoreEntries(roundID: round.id) }
        if let playerText {
            let player = try player(playerText, in: world.players)
            guard round.players.contains(where: { $0.playerID == player.id }) else {
                throw .playerNotInRound(player: player.name, round: round.id)
            }
            entries = entries.filter { $0.playerID == player.id }
        }
        let names = Dictionary(uniqueKeysWithValues: round.players.map { ($0.playerID, $0.name) })
        let latest = Dictionary(entries.map { (PlayerHole(player: $0.playerID, hole: $0.hole), $0.sequence) }, uniquingKeysWith: max)
        return EntryHistory(round: round.id, entries: entries.map { entry in
            HistoryEntry(sequence: entry.sequence, player: names[entry.playerID] ?? "?", hole: entry.hole, strokes: entry.strokes,
                         current: latest[PlayerHole(player: entry.playerID, hole: entry.hole)] == entry.sequence,
                         reason: entry.reason, correctedOn: entry.correctedOn)
        })
    }

    struct PlayerHole: Hashable {
        var player: Int
        var hole: Int
    }

    /// The round's card as the format scorers see it.
    func field(_ round: Round, tee: Tee, card: Scorecard) -> FormatField {
        let holes = Array(tee.holes(for: round.nine))
        let n = holes.count
        var strokes = [Int](repeating: 0, count: round.players.count * n)
        for (e, player) in round.players.enumerated() {
            guard let row = card.strokes[player.playerID] else { continue }
            for (h, hole) in holes.enumerated() { strokes[e * n + h] = row[hole.number] ?? 0 }
        }
        return FormatField(holes: holes, ranks: tee.allocationRanks(for: round.nine),
                           entrants: round.players.map { .init(playerID: $0.playerID, name: $0.name, playingHandicap: $0.playingHandicap) },
                           strokes: strokes)
    }

    public func leaderboard(_ roundID: Int) throws(ScorecardError) -> Leaderboard {
        let world = try loadWorld(onlyRound: roundID)
        return try leaderboard(try round(roundID, in: world.rounds), world: world)
    }

    func leaderboard(_ round: Round, world: World) throws(ScorecardError) -> Leaderboard {
        let course = try course(String(round.courseID), in: world.courses)
        let tee = course.tee(named: round.teeName)
        let holes = tee.map { Array($0.holes(for: round.nine)) } ?? []
        let ranks = tee?.allocationRanks(for: round.nine) ?? []
        let card = world.scorecards[round.id] ?? Scorecard(entries: [])
        var lines: [LeaderboardLine] = round.players.map { player in
            var gross = 0, par = 0, played = 0, received = 0
            for (i, hole) in holes.enumerated() {
                guard let strokes = card.strokes(player: player.playerID, hole: hole.number) else { continue }
                gross += strokes
                par += hole.par
                played += 1
                if let ph = player.playingHandicap {
                    received += WorldHandicapSystem.strokesReceived(courseHandicap: ph, rank: ranks[i], holeCount: holes.count)
                }
            }
            // No hole scored: no score (null, "—"), not a score of 0.
            let scored = played > 0
            return LeaderboardLine(position: "—", playerID: player.playerID, name: player.name, holesPlayed: played,
                                   gross: scored ? gross : nil, toPar: scored ? gross - par : nil, strokesReceived: received,
                                   net: scored ? gross - received : nil, netToPar: scored ? gross - received - par : nil,
                                   playingHandicap: player.playingHandicap)
        }
        lines.sort { a, b in
            if (a.holesPlayed == 0) != (b.holesPlayed == 0) { return b.holesPlayed == 0 }
            return (a.netToPar ?? 0, a.toPar ?? 0, -a.holesPlayed, a.name.lowercased())
                < (b.netToPar ?? 0, b.toPar ?? 0, -b.holesPlayed, b.name.lowercased())
        }
        Positions.assign(&lines, played: { $0.holesPlayed > 0 }, same: { $0.netToPar == $1.netToPar }) { $0.position = $1 }
        var board = Leaderboard(round: summary(round, course: course), lines: lines)
        if let tee {
            let field = field(round, tee: tee, card: card)
            switch round.format {
            case .strokePlay: break
            case .stableford: board.stableford = Stableford.leaderboard(field)
            case .matchPlay, .fourBallMatchPlay: board.match = MatchPlay.state(field, sideSize: round.format.sideSize)
            case .fourBallStrokePlay: board.fourBall = FourBallStroke.leaderboard(field)
            case .skins: board.skins = Skins.state(field, net: round.options.netSkins, carryOvers: round.options.carryOvers)
            }
        }
        return board
    }

    public func finishRound(_ request: FinishRoundRequest) throws(ScorecardError) -> RoundFinished {
        var world = try loadWorld()
        var round = try round(request.round, in: world.rounds)
        if let finished = round.finishedOn { throw .roundFinished(round: round.id, on: finished) }
        let pcc = try request.pcc.map { text throws(ScorecardError) in try ArgumentReader.pcc(text) } ?? round.pcc
        let finishedOn = max(request.today, round.date)
        if !request.confirmed {
            let before = try leaderboard(round, world: world)
            let holes = before.round.holes
            let short = before.lines.filter { $0.holesPlayed < holes }
                .sorted { $0.name.lowercased() < $1.name.lowercased() }
                .map { "\($0.name) \(holes - $0.holesPlayed)" }
            if !short.isEmpty {
                throw .unconfirmed("round \(round.id) has unscored holes (\(short.joined(separator: ", "))); finishing makes it final "
                    + "and its incomplete scores cannot count toward an index — finish it anyway?")
            }
        }
        try stored { try store.finishRound(id: round.id, on: finishedOn, pcc: pcc) }
        round.finishedOn = finishedOn
        round.pcc = pcc
        if let i = world.rounds.firstIndex(where: { $0.id == round.id }) { world.rounds[i] = round }
        let board = try leaderboard(round, world: world)
        let players: [FinishedPlayer] = round.players.map { player in
            let record = world.record(of: player.playerID)
            let outcome = record.outcomes.first { $0.roundID == round.id }
            return FinishedPlayer(name: player.name, gross: (outcome?.holesScored ?? 0) > 0 ? outcome?.gross : nil,
                                  adjustedGross: outcome?.adjustedGross,
                                  differential: outcome?.differential, note: outcome.flatMap(Self.note), indexAfter: record.index)
        }
        return RoundFinished(leaderboard: board, players: players)
    }

    /// Deletes a round; a final round counts toward its players' indexes, so deleting it needs
    /// confirmation. The reply names each player's index before and after.
    public func deleteRound(_ request: DeleteRoundRequest) throws(ScorecardError) -> RoundDeleted {
        let world = try loadWorld()
        let round = try round(request.round, in: world.rounds)
        let reason = request.reason.map { String($0.trimmingSpaces) }
        if let reason, reason.isEmpty { throw .missingReason }
        let board = try leaderboard(round, world: world)
        let before = round.players.map { world.record(of: $0.playerID).index }
        if round.isFinished && !request.confirmed {
            throw .unconfirmed("round \(round.id) (\(board.round.course), \(round.date)) is final and counts toward the index of "
                + round.players.map(\.name).joined(separator: ", ") + "; deleting it cannot be undone — delete it anyway?")
        }
        try stored { try store.deleteRound(id: round.id, on: request.today, wasFinal: round.isFinished, reason: reason) }
        var after = world
        after.rounds.removeAll { $0.id == round.id }
        let players = zip(round.players, before).map { player, indexBefore in
            IndexChange(name: player.name, indexBefore: indexBefore,
                        indexAfter: after.record(of: player.playerID).index)
        }
        return RoundDeleted(round: board.round, wasFinal: round.isFinished, reason: reason, players: players)
    }

    static func note(_ outcome: ScoreOutcome) -> String? {
        switch outcome.kind {
        case .eighteenHoles: return nil
        case .nineWithExpectedScore, .nineWithInitialExpectedScore: return outcome.rule
        case .nineHeld: return "9-hole score held until 54 holes are posted (no index yet, so no expected score)"
        case .incomplete: return "not every hole was scored: not acceptable for handicap purposes"
        }
    }

    public func rounds() throws(ScorecardError) -> RoundHistory {
        let world = try loadWorld()
        var boards: [Leaderboard] = []
        for round in world.rounds.sorted(by: { ($0.date, $0.id) > ($1.date, $1.id) }) {
            boards.append(try leaderboard(round, world: world))
        }
        return RoundHistory(rounds: boards)
    }

    // MARK: Index

    public func index(_ playerText: String) throws(ScorecardError) -> HandicapRecord {
        let world = try loadWorld()
        let player = try player(playerText, in: world.players)
        let record = world.record(of: player.id)
        let scores: [RecordedScore] = record.outcomes.reversed().map { outcome in
            let round = world.rounds.first { $0.id == outcome.roundID }
            let course = round.flatMap { r in world.courses.first { $0.id == r.courseID } }
            let holes = round.flatMap { r in course?.tee(named: r.teeName)?.holes(for: r.nine).count } ?? 0
            return RecordedScore(roundID: outcome.roundID, date: outcome.date, course: course?.name ?? "?",
                                 tee: round?.teeName ?? "?", holes: holes, outcome: outcome)
        }
        return HandicapRecord(player: player, index: record.index, lowIndex: record.lowIndex, calculation: record.calculation,
                              scores: scores, revisions: record.revisions)
    }

    // MARK: Loading

    /// Everything the commands read, loaded once per command.
    struct World {
        var players: [Player]
        var courses: [Course]
        var rounds: [Round]
        var scorecards: [Int: Scorecard]

        /// A player's scoring record: their finished rounds, from the index they came with if any.
        func record(of playerID: Int) -> ScoringRecord {
            ScoringRecord.evaluate(postedRounds(of: playerID), givenIndex: players.first { $0.id == playerID }?.givenIndex)
        }

        /// A player's finished rounds as the handicap engine needs them.
        func postedRounds(of playerID: Int) -> [PostedRound] {
            rounds.compactMap { round -> PostedRound? in
                guard round.isFinished, round.players.contains(where: { $0.playerID == playerID }),
                      let course = courses.first(where: { $0.id == round.courseID }),
                      let tee = course.tee(named: round.teeName), let rated = tee.rating(for: round.nine) else { return nil }
                let card = scorecards[round.id]
                let ranks = tee.allocationRanks(for: round.nine)
                let holes = tee.holes(for: round.nine).enumerated().map { i, hole in
                    PlayedHole(par: hole.par, allocationRank: ranks[i], strokes: card?.strokes(player: playerID, hole: hole.number) ?? 0)
                }
                return PostedRound(roundID: round.id, date: round.date, holeCount: holes.count == 9 ? .nine : .eighteen,
                                   rating: rated.rating.rating, slope: rated.rating.slope, par: rated.par, pcc: round.pcc, holes: holes)
            }
        }
    }

    /// Players, courses and rounds, with the entries of one round only (for the commands that read one
    /// round's card: its leaderboard and score entry). `postedRounds` needs the full `loadWorld()`.
    func loadWorld(onlyRound id: Int) throws(ScorecardError) -> World {
        try stored {
            let rounds = try store.rounds()
            var cards: [Int: Scorecard] = [:]
            if rounds.contains(where: { $0.id == id }) {
                cards[id] = Scorecard(entries: try store.scoreEntries(roundID: id))
            }
            return World(players: try store.players(), courses: try store.courses(), rounds: rounds, scorecards: cards)
        }
    }

    func loadWorld() throws(ScorecardError) -> World {
        try stored {
            let rounds = try store.rounds()
            var cards: [Int: Scorecard] = [:]
            let entries = try store.allScoreEntries()
            for round in rounds { cards[round.id] = Scorecard(entries: entries[round.id] ?? []) }
            return World(players: try store.players(), courses: try store.courses(), rounds: rounds, scorecards: cards)
        }
    }
}
