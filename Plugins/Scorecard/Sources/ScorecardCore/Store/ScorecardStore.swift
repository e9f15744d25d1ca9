// Where the scorecard keeps its data. The plugin implements this on the host's storage service with the
// SQL of `ScorecardSchema`; tests and the demo use `InMemoryScorecardStore`. Every method either does all
// it says or throws having changed nothing; `transaction` groups several writes the same way.

/// Persistent storage of players, courses, rounds and score entries.
public protocol ScorecardStore: AnyObject {
    /// Runs `body` so that either all of its writes happen or none do.
    func transaction<T>(_ body: () throws -> T) throws -> T

    func players() throws -> [Player]
    /// Stores a new player (with the index they came with, if any) and returns it with its id.
    func insertPlayer(name: String, givenIndex: Tenths?) throws -> Player
    /// Sets or clears the index a player came with.
    func setGivenIndex(playerID: Int, index: Tenths?) throws

    func courses() throws -> [Course]
    func insertCourse(_ draft: CourseDraft) throws -> Course

    func rounds() throws -> [Round]
    func insertRound(_ draft: RoundDraft) throws -> Round
    /// Marks an open round finished, with the day's PCC. Finished rounds never change again.
    func finishRound(id: Int, on date: GolfDate, pcc: Tenths) throws
    /// Deletes a round (open or final) for good: it leaves `rounds()` and `allScoreEntries()`.
    func deleteRound(id: Int, on date: GolfDate, wasFinal: Bool, reason: String?) throws

    /// Appends one entry (entries are never updated or deleted).
    func appendScore(roundID: Int, playerID: Int, hole: Int, strokes: Int) throws -> ScoreEntry
    /// Appends a correction: an entry with a reason, allowed in a finished round too.
    func appendCorrection(roundID: Int, playerID: Int, hole: Int, strokes: Int, reason: String, on date: GolfDate) throws -> ScoreEntry
    /// Every entry of a round, superseded ones included, in the order entered.
    func scoreEntries(roundID: Int) throws -> [ScoreEntry]
    /// Every round's entries by round id, in entry order.
    func allScoreEntries() throws -> [Int: [ScoreEntry]]

    /// The data's generation now, and the player list kept for it when there is one: what
    /// `player list` shows without reading a round. A store that keeps none answers (0, nil).
    func keptPlayerSummaries() throws -> (generation: Int64, summaries: [PlayerSummary]?)
    /// Keeps `summaries`, computed from the data as it was at `generation`, unless it has moved on
    /// since (then nothing is kept).
    func keepPlayerSummaries(_ summaries: [PlayerSummary], generation: Int64) throws
}

extension ScorecardStore {
    /// Stores a new player without a given index.
    public func insertPlayer(name: String) throws -> Player { try insertPlayer(name: name, givenIndex: nil) }

    public func keptPlayerSummaries() throws -> (generation: Int64, summaries: [PlayerSummary]?) { (0, nil) }
    public func keepPlayerSummaries(_ summaries: [PlayerSummary], generation: Int64) throws {}
}

/// A store in memory, for tests, the demo and benchmarks. Not thread-safe; use it from one task.
public final class InMemoryScorecardStore: ScorecardStore {
    struct State {
        var players: [Player] = []
        var courses: [Course] = []
        var rounds: [Round] = []
        var entries: [Int: [ScoreEntry]] = [:]
        var nextSequence = 1
    }

    var state = State()
    /// When set, the next write fails with this message (to test that failed commands write nothing).
    public var failNextWrite: String?

    public init() {}

    struct InjectedFailure: Error, CustomStringConvertible {
        let description: String
    }

    private func checkFailure() throws {
        if let message = failNextWrite {
            failNextWrite = nil
            throw InjectedFailure(description: message)
        }
    }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let saved = state
        do {
            return try body()
        } catch {
            state = saved
            throw error
        }
    }

    public func players() throws -> [Player] { state.players }

    public func insertPlayer(name: String, givenIndex: Tenths?) throws -> Player {
        try checkFailure()
        let player = Player(id: (state.players.last?.id ?? 0) + 1, name: name, givenIndex: givenIndex)
        state.players.append(player)
        return player
    }

    public func setGivenIndex(playerID: Int, index: Tenths?) throws {
        try checkFailure()
        guard let i = state.players.firstIndex(where: { $0.id == playerID }) else {
            throw InjectedFailure(description: "player \(playerID) does not exist")
        }
        state.players[i].givenIndex = index
    }

    public func courses() throws -> [Course] { state.courses }

    public func insertCourse(_ draft: CourseDraft) throws -> Course {
        try checkFailure()
        let course = Course(id: (state.courses.last?.id ?? 0) + 1, name: draft.name, tees: draft.tees)
        state.courses.append(course)
        return course
    }

    public func rounds() throws -> [Round] { state.rounds }

    public func insertRound(_ draft: RoundDraft) throws -> Round {
        try checkFailure()
        let round = Round(id: (state.rounds.last?.id ?? 0) + 1, draft: draft)
        state.rounds.append(round)
        return round
    }

    public func finishRound(id: Int, on date: GolfDate, pcc: Tenths) throws {
        try checkFailure()
        guard let i = state.rounds.firstIndex(where: { $0.id == id }), state.rounds[i].finishedOn == nil else {
            throw InjectedFailure(description: "round \(id) is not open")
        }
        state.rounds[i].finishedOn = date
        state.rounds[i].pcc = pcc
    }

    public func deleteRound(id: Int, on date: GolfDate, wasFinal: Bool, reason: String?) throws {
        try checkFailure()
        guard let i = state.rounds.firstIndex(where: { $0.id == id }) else {
            throw InjectedFailure(description: "round \(id) does not exist")
        }
        state.rounds.remove(at: i)
        state.entries[id] = nil
    }

    public func appendScore(roundID: Int, playerID: Int, hole: Int, strokes: Int) throws -> ScoreEntry {
        try checkFailure()
        let entry = ScoreEntry(sequence: state.nextSequence, roundID: roundID, playerID: playerID, hole: hole, strokes: strokes)
        state.nextSequence += 1
        state.entries[roundID, default: []].append(entry)
        return entry
    }

    public func appendCorrection(roundID: Int, playerID: Int, hole: Int, strokes: Int, reason: String,
                                 on date: GolfDate) throws -> ScoreEntry {
        try checkFailure()
        let entry = ScoreEntry(sequence: state.nextSequence, roundID: roundID, playerID: playerID, hole: hole, strokes: strokes,
                               reason: reason, correctedOn: date)
        state.nextSequence += 1
        state.entries[roundID, default: []].append(entry)
        return entry
    }

    public func scoreEntries(roundID: Int) throws -> [ScoreEntry] { state.entries[roundID] ?? [] }
    public func allScoreEntries() throws -> [Int: [ScoreEntry]] { state.entries }
}
