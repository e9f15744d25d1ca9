// The daily challenge as a pure state machine. Rules: one challenge per date; past dates and
// today are playable, future dates are locked; at most 5 attempts; a repeated guess (compared
// case-insensitively) does not count; the answer is the country's name for country and flag
// challenges and its capital for capital challenges (case, accents and spacing ignored); the game
// ends when solved or after 5 misses. The caller saves the state after every guess.

import ClubhouseJSON
import Glibc

public enum ChallengeStatus: String, Sendable, Codable {
    case playing, solved, failed
}

/// One user's game for one date; Codable so a store keeps it as JSON.
public struct ChallengeState: Sendable, Codable, Equatable {
    public var date: CivilDate
    public var type: ChallengeType
    /// ISO code of the country the challenge is about.
    public var answer: String
    /// The guesses that counted, as typed (trimmed), in order.
    public var guesses: [String]
    public var status: ChallengeStatus
    /// The day (by the player's clock) the game was solved or failed.
    public var finishedOn: CivilDate?

    public static let maxAttempts = 5

    public init(_ challenge: ScheduledChallenge) {
        date = challenge.date
        type = challenge.type
        answer = challenge.answer
        guesses = []
        status = .playing
        finishedOn = nil
    }

    public var attemptsLeft: Int { status == .playing ? max(0, Self.maxAttempts - guesses.count) : 0 }

    /// Solved on the challenge's own date (what a streak counts).
    public var solvedOnTheDay: Bool { status == .solved && finishedOn == date }

    /// The JSON a store saves.
    public func jsonText() -> String {
        guard let value = try? JSONValueEncoder().encode(self) else { return "{}" }
        return JSONWriter.compact(value)
    }

    /// Reads what `jsonText()` wrote.
    public init(jsonText: String) throws(GlobeError) {
        do {
            self = try JSONValueDecoder().decode(ChallengeState.self, from: JSONParser.parse(bytes: Array(jsonText.utf8)))
        } catch {
            throw GlobeError.storage("a saved challenge state is unreadable (\(JSONValueDecoder.describe(error))); delete it to start that day again")
        }
    }
}

public enum GuessOutcome: String, Sendable, Codable {
    case correct, wrong, repeated
}

public struct GuessResult: Sendable, Codable, Equatable {
    public var guess: String
    public var outcome: GuessOutcome
    public var state: ChallengeState
    public var attemptsLeft: Int
    /// The answer, once the game is over.
    public var answer: String?
    /// After a wrong guess that names a country: distance and direction to the answer.
    public var hint: QuizHint? = nil

    private enum CodingKeys: String, CodingKey { case guess, outcome, state, attemptsLeft, answer, hint }

    /// The state as a reply shows it: the answer's code only once the game is over (a wrong guess's reply
    /// carried it while the game was still being played, as `GET` never did: the third outside attack, a19).
    private struct ShownState: Encodable {
        var date: CivilDate
        var type: ChallengeType
        var answer: String?
        var guesses: [String]
        var status: ChallengeStatus
        var finishedOn: CivilDate?
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(guess, forKey: .guess)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(ShownState(date: state.date, type: state.type, answer: state.status == .playing ? nil : state.answer,
                                guesses: state.guesses, status: state.status, finishedOn: state.finishedOn), forKey: .state)
        try c.encode(attemptsLeft, forKey: .attemptsLeft)
        try c.encodeIfPresent(answer, forKey: .answer)
        try c.encodeIfPresent(hint, forKey: .hint)
    }

    public var text: String {
        switch outcome {
        case .repeated:
            return "'\(guess)' was already guessed; it does not count (\(attemptsLeft) \(attemptsLeft == 1 ? "attempt" : "attempts") left)"
        case .correct:
            let tries = state.guesses.count
            return "correct: \(answer ?? guess), solved in \(tries) \(tries == 1 ? "guess" : "guesses")"
        case .wrong:
            if state.status == .failed { return "'\(guess)' is wrong; no attempts left, the answer was \(answer ?? "?")" }
            let left = "'\(guess)' is wrong; \(attemptsLeft) \(attemptsLeft == 1 ? "attempt" : "attempts") left"
            return hint.map { left + "; " + $0.text } ?? left
        }
    }
}

public enum DailyChallenge {
    /// Refuses dates after today.
    public static func checkUnlocked(_ date: CivilDate, today: CivilDate) throws(GlobeError) {
        if date > today { throw GlobeError.challengeLocked(date: date.description, today: today.description) }
    }

    /// The names that solve a challenge: the country's name and aliases, or its capital's.
    public static func acceptedAnswers(type: ChallengeType, country: Country) -> [String] {
        switch type {
        case .country, .flag: return [country.name] + country.aliases
        case .capital: return (country.capital.map { [$0] } ?? []) + country.capitalAliases
        }
    }

    /// What the player sees as the answer once the game is over.
    public static func answerText(type: ChallengeType, country: Country) -> String {
        switch type {
        case .country, .flag: return country.name
        case .capital: return "\(country.capital ?? "?") (capital of \(country.name))"
        }
    }

    /// Applies one guess.
    public static func guess(_ text: String, state: ChallengeState, country: Country, today: CivilDate) throws(GlobeError)
        -> GuessResult
    {
        try checkUnlocked(state.date, today: today)
        let shown = answerText(type: state.type, country: country)
        guard state.status == .playing else {
            throw GlobeError.challengeOver(date: state.date.description, solved: state.status == .solved, answer: shown)
        }
        let guess = text.trimmingWhitespace
        let key = TextKey.fold(guess)
        guard !key.isEmpty else { throw GlobeError.emptyGuess }
        if state.guesses.contains(where: { TextKey.fold($0) == key }) {
            return GuessResult(guess: guess, outcome: .repeated, state: state, attemptsLeft: state.attemptsLeft, answer: nil)
        }
        var next = state
        next.guesses.append(guess)
        let correct = acceptedAnswers(type: state.type, country: country).contains { TextKey.fold($0) == key }
        if correct {
            next.status = .solved
            next.finishedOn = today
        } else if next.guesses.count >= ChallengeState.maxAttempts {
            next.status = .failed
            next.finishedOn = today
        }
        return GuessResult(guess: guess, outcome: correct ? .correct : .wrong, state: next, attemptsLeft: next.attemptsLeft,
                           answer: next.status == .playing ? nil : shown)
    }

    /// Consecutive days solved on the day itself, ending today, or yesterday while today's game
    /// is not yet won.
    public static func currentStreak(_ states: [ChallengeState], today: CivilDate) -> Int {
        let days = Set(states.filter(\.solvedOnTheDay).map(\.date.dayNumber))
        var day = days.contains(today.dayNumber) ? today.dayNumber : today.dayNumber - 1
        var streak = 0
        while days.contains(day) {
            streak += 1
            day -= 1
        }
        return streak
    }

    /// The longest run of consecutive days solved on the day.
    public static func bestStreak(_ states: [ChallengeState]) -> Int {
        let days = Set(states.filter(\.solvedOnTheDay).map(\.date.dayNumber)).sorted()
        var best = 0, run = 0
        var previous = Int.min
        for d in days {
            run = (d == previous + 1) ? run + 1 : 1
            best = max(best, run)
            previous = d
        }
        return best
    }
}
