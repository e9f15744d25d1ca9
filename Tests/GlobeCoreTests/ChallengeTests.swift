import ClubhouseJSON
import XCTest
@testable import GlobeCore

final class ChallengeTests: XCTestCase {
    let countries = CountrySet.bundled
    let today = CivilDate(year: 2026, month: 11, day: 22)!

    /// A schedule written for these tests: FR (country) on 11-20, PE (capital) on 11-21,
    /// JP (flag) on 11-22, BO (capital) on 11-23.
    func schedule() throws -> ChallengeSchedule {
        try ChallengeSchedule(json: """
            {"challenges": [
              {"date": "2026-11-20", "type": "country", "answer": "FR"},
              {"date": "2026-11-21", "type": "capital", "answer": "PE"},
              {"date": "2026-11-22", "type": "flag", "answer": "JP"},
              {"date": "2026-11-23", "type": "capital", "answer": "BO"}]}
            """, source: "test schedule", countries: countries)
    }

    func globe(_ store: InMemoryGlobeStore = InMemoryGlobeStore()) throws -> Globe {
        Globe(countries: countries, schedule: try schedule(), store: store, defaultUser: "ana")
    }

    func testGuessesFoldCaseAccentsApostrophesAndSpaces() {
        XCTAssertEqual(TextKey.fold("  Ærø ÅLAND   Ñandú "), "ærø aland nandu")
        XCTAssertEqual(TextKey.fold("Ha\u{0300} No\u{0323}\u{0302}i"), TextKey.fold("Hà Nội".lowercased()))
        XCTAssertEqual(TextKey.fold("Hà Nội"), "ha noi")
        XCTAssertEqual(TextKey.fold("Côte d’Ivoire"), "cote d'ivoire")
        XCTAssertEqual(TextKey.fold("Guinea–Bissau"), "guinea-bissau")
        XCTAssertEqual(TextKey.fold("Αθήνα"), "αθηνα")
    }

    func testRepeatedGuessesDoNotCountAndEveryGuessIsSaved() throws {
        let store = InMemoryGlobeStore()
        let g = try globe(store)
        let view = try g.challengeShow(date: "2026-11-20", today: today)
        XCTAssertEqual(view.prompt, "Which country has this shape?")
        XCTAssertNotNil(view.silhouetteSVG)
        XCTAssertEqual(view.attemptsLeft, 5)
        var r = try g.challengeGuess(guess: "Spain", date: "2026-11-20", today: today)
        XCTAssertEqual(r.outcome, .wrong)
        XCTAssertEqual(r.text, "'Spain' is wrong; 4 attempts left; Spain borders the answer, which lies NE ↗ of it")
        for again in ["spain", "  SPAIN ", "Spáin"] {
            r = try g.challengeGuess(guess: again, date: "2026-11-20", today: today)
            XCTAssertEqual(r.outcome, .repeated, again)
            XCTAssertEqual(r.attemptsLeft, 4)
        }
        XCTAssertEqual(r.text, "'Spáin' was already guessed; it does not count (4 attempts left)")
        r = try g.challengeGuess(guess: "Italy", date: "2026-11-20", today: today)
        XCTAssertEqual(r.attemptsLeft, 3)
        r = try g.challengeGuess(guess: "fRANCE", date: "2026-11-20", today: today)
        XCTAssertEqual(r.outcome, .correct)
        XCTAssertEqual(r.state.status, .solved)
        XCTAssertEqual(r.text, "correct: France, solved in 3 guesses")
        XCTAssertEqual(r.state.guesses, ["Spain", "Italy", "fRANCE"])
        XCTAssertEqual(r.state.finishedOn, today)
        XCTAssertFalse(r.state.solvedOnTheDay, "played two days late")
        XCTAssertEqual(store.challengeSaves, 6, "saved after every guess")
        XCTAssertEqual(try store.challengeState(user: "ana", date: CivilDate(year: 2026, month: 11, day: 20)!), r.state)
        XCTAssertThrowsError(try g.challengeGuess(guess: "France", date: "2026-11-20", today: today)) { error in
            XCTAssertEqual("\(error)", "the challenge for 2026-11-20 is over (solved; the answer was France); try another date with date")
        }
    }

    func testFiveMissesEndTheGame() throws {
        let g = try globe()
        var last: GuessResult?
        for (k, guess) in ["Chile", "Ecuador", "Bogota", "Quito", "La Paz"].enumerated() {
            last = try g.challengeGuess(guess: guess, date: "2026-11-21", today: today)
            XCTAssertEqual(last?.attemptsLeft, 4 - k)
        }
        XCTAssertEqual(last?.state.status, .failed)
        XCTAssertEqual(last?.text, "'La Paz' is wrong; no attempts left, the answer was Lima (capital of Peru)")
        let view = try g.challengeShow(date: "2026-11-21", today: today)
        XCTAssertEqual(view.status, .failed)
        XCTAssertEqual(view.answer, "Lima (capital of Peru)")
        XCTAssertThrowsError(try g.challengeGuess(guess: "Lima", date: "2026-11-21", today: today)) { error in
            XCTAssertEqual("\(error)", "the challenge for 2026-11-21 is over (failed; the answer was Lima (capital of Peru)); try another date with date")
        }
    }

    /// The third outside attack (a19): a wrong guess's reply carried `state.answer` (the country's code) while
    /// the game was still being played. It is in the reply only once the game is over.
    func testAWrongGuessDoesNotRevealTheAnswer() throws {
        let g = try globe()
        let wrong = try g.challengeGuess(guess: "Chile", date: "2026-11-21", today: today)
        XCTAssertEqual(wrong.state.status, .playing)
        let json = JSONWriter.compact(try JSONValueEncoder().encode(wrong))
        XCTAssertFalse(json.contains("\"PE\"") || json.contains("answer"), json)
        XCTAssertNotNil(try JSONValueEncoder().encode(wrong)["state"]?["guesses"])
        var last = wrong
        for guess in ["Ecuador", "Bogota", "Quito", "La Paz"] { last = try g.challengeGuess(guess: guess, date: "2026-11-21", today: today) }
        XCTAssertEqual(try JSONValueEncoder().encode(last)["state"]?["answer"]?.stringValue, "PE", "over: the answer is shown")
    }

    func testCapitalChallengesWantTheCapital() throws {
        let g = try globe()
        let view = try g.challengeShow(date: "2026-11-21", today: today)
        XCTAssertEqual(view.prompt, "What is the capital of Peru?")
        XCTAssertEqual(try g.challengeGuess(guess: "Peru", date: "2026-11-21", today: today).outcome, .wrong)
        XCTAssertEqual(try g.challengeGuess(guess: "LIMA", date: "2026-11-21", today: today).outcome, .correct)
        // Bolivia has two capitals; La Paz counts as well as Sucre.
        let tomorrow = today.adding(days: 1)
        XCTAssertEqual(try g.challengeGuess(guess: "la paz", date: "2026-11-23", today: tomorrow).outcome, .correct)
    }

    func testFlagClueAndAnswers() throws {
        let g = try globe()
        let view = try g.challengeShow(today: today)
        XCTAssertEqual(view.type, .flag)
        XCTAssertEqual(view.flag, "\u{1F1EF}\u{1F1F5}")
        XCTAssertEqual(view.prompt, "Which country has this flag? 🇯🇵")
        XCTAssertNil(view.answer)
        XCTAssertEqual(try g.challengeGuess(guess: "Tokyo", today: today).outcome, .wrong, "flag answers are country names")
        let r = try g.challengeGuess(guess: "japan", today: today)
        XCTAssertEqual(r.outcome, .correct)
        XCTAssertTrue(r.state.solvedOnTheDay)
    }

    func testFutureDatesAreLocked() throws {
        let g = try globe()
        for action in ["show", "guess"] {
            XCTAssertThrowsError(action == "show" ? try g.challengeShow(date: "2026-11-23", today: today) as Any
                                                  : try g.challengeGuess(guess: "Sucre", date: "2026-11-23", today: today) as Any) { error in
                XCTAssertEqual("\(error)", "the challenge for 2026-11-23 is locked until that day (today is 2026-11-22); play today's or an earlier one")
            }
        }
        XCTAssertThrowsError(try g.challengeShow(date: "2026-11-19", today: today)) { error in
            XCTAssertEqual("\(error)", "no daily challenge for 2026-11-19; the schedule covers 2026-11-20 to 2026-11-23")
        }
        XCTAssertThrowsError(try g.challengeShow(date: "22/11/2026", today: today)) { error in
            XCTAssertEqual("\(error)", "invalid date '22/11/2026'; use YYYY-MM-DD, e.g. 2026-03-01")
        }
        XCTAssertThrowsError(try g.challengeGuess(guess: "   ", today: today)) { error in
            XCTAssertEqual("\(error)", "empty guess; type a country name (or a capital for a capital challenge)")
        }
    }

    func testStreakCountsDaysSolvedOnTheDay() {
        func state(_ offset: Int, _ status: ChallengeStatus, lateBy: Int = 0) -> ChallengeState {
            var s = ChallengeState(ScheduledChallenge(date: today.adding(days: offset), type: .flag, answer: "FR"))
            s.status = status
            s.finishedOn = status == .playing ? nil : today.adding(days: offset + lateBy)
            return s
        }
        // Solved yesterday and the two days before; today not played yet: the streak is alive.
        var states = [state(-3, .solved), state(-2, .solved), state(-1, .solved)]
        XCTAssertEqual(DailyChallenge.currentStreak(states, today: today), 3)
        states.append(state(0, .solved))
        XCTAssertEqual(DailyChallenge.currentStreak(states, today: today), 4)
        // A day solved late breaks the run.
        states = [state(-3, .solved), state(-2, .solved, lateBy: 1), state(-1, .solved), state(0, .solved)]
        XCTAssertEqual(DailyChallenge.currentStreak(states, today: today), 2)
        XCTAssertEqual(DailyChallenge.bestStreak(states), 2)
        // Failing yesterday ends it.
        states = [state(-2, .solved), state(-1, .failed)]
        XCTAssertEqual(DailyChallenge.currentStreak(states, today: today), 0)
        states = [state(-10, .solved), state(-9, .solved), state(-8, .solved), state(-1, .playing)]
        XCTAssertEqual(DailyChallenge.currentStreak(states, today: today), 0)
        XCTAssertEqual(DailyChallenge.bestStreak(states), 3)
    }

    func testCalendarMarks() throws {
        let g = try globe()
        _ = try g.challengeGuess(guess: "France", date: "2026-11-20", today: CivilDate(year: 2026, month: 11, day: 20)!)
        for guess in ["A", "B", "C", "D", "E"] { _ = try g.challengeGuess(guess: guess, date: "2026-11-21", today: today) }
        _ = try g.challengeGuess(guess: "Korea", today: today)
        let calendar = try g.challengeCalendar(today: today)
        XCTAssertEqual(calendar.month, "2026-11")
        XCTAssertEqual(calendar.days.count, 30)
        let marks = Dictionary(uniqueKeysWithValues: calendar.days.map { ($0.date.day, $0.mark) })
        XCTAssertEqual(marks[20], .solved)
        XCTAssertEqual(marks[21], .failed)
        XCTAssertEqual(marks[22], .playing)
        XCTAssertEqual(marks[23], .locked)
        XCTAssertEqual(marks[1], CalendarDay.Mark.none)
        XCTAssertEqual(calendar.streak, 0)
        XCTAssertEqual(calendar.bestStreak, 1)
        XCTAssertEqual(calendar.solved, 1)
        XCTAssertEqual(calendar.failed, 1)
        let lines = calendar.text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines[0], "November 2026   streak 0 (best 1), solved 1, failed 1")
        XCTAssertEqual(lines[1], " Mo  Tu  We  Th  Fr  Sa  Su")
        XCTAssertEqual(lines[2], "                          1 ", "1 November 2026 is a Sunday")
        XCTAssertTrue(lines[5].contains("20✓ 21✗ 22…"), String(lines[5]))
    }

    func testGeneratedScheduleIsDeterministicAndRotates() throws {
        let a = ChallengeSchedule.generated(countries: countries)
        let b = ChallengeSchedule.generated(countries: countries)
        let start = ChallengeSchedule.defaultEpoch
        let year = a.challenges(from: start, days: 365)
        XCTAssertEqual(year.count, 365)
        XCTAssertEqual(year, b.challenges(from: start, days: 365), "same seed, same schedule")
        XCTAssertNotEqual(year, ChallengeSchedule.generated(countries: countries, seed: 7).challenges(from: start, days: 365))
        for (k, c) in year.enumerated() {
            XCTAssertEqual(c.date, start.adding(days: k))
            XCTAssertEqual(c.type, [ChallengeType.country, .capital, .flag][k % 3])
            let country = try XCTUnwrap(countries.country(code: c.answer))
            XCTAssertTrue(country.countsTowardProgress)
            if c.type == .country { XCTAssertFalse(country.drawnAsPoint, "no silhouette for \(country.name)") }
        }
        // Every country comes up once before any repeats.
        let firstRound = year.prefix(190).map(\.answer)
        XCTAssertEqual(Set(firstRound).count, firstRound.count)
        XCTAssertEqual(Set(year.map(\.answer)).count, 195)
        // Dates outside the first cycle have challenges too.
        XCTAssertNoThrow(try a.challenge(on: CivilDate(year: 2019, month: 3, day: 4)!))
        XCTAssertNoThrow(try a.challenge(on: CivilDate(year: 2031, month: 12, day: 31)!))
        XCTAssertEqual(try a.challenge(on: today), try b.challenge(on: today))
    }

    func testVoyageSchedule() throws {
        let world = try CountrySet(geojson: try SharedData.text(SharedData.voyageWorld), source: "world.geojson")
        let schedule = try ChallengeSchedule(json: try SharedData.text(SharedData.voyageChallenges), source: "daily_challenges.json", countries: world)
        XCTAssertEqual(schedule.coverage, "2026-02-17 to 2027-02-16")
        let all = schedule.challenges(from: CivilDate(year: 2026, month: 2, day: 17)!, days: 365)
        XCTAssertEqual(all.count, 365)
        XCTAssertEqual(all.prefix(3).map(\.type), [.country, .capital, .flag])
        let g = Globe(countries: world, schedule: schedule, store: InMemoryGlobeStore())
        let view = try g.challengeShow(today: today)
        XCTAssertEqual(view.date, today)
        XCTAssertThrowsError(try g.challengeShow(date: "2026-01-01", today: today)) { error in
            XCTAssertEqual("\(error)", "no daily challenge for 2026-01-01; the schedule covers 2026-02-17 to 2027-02-16")
        }
    }

    func testScheduleFileErrors() {
        let cases: [(String, String)] = [
            ("[1]", "s.json:1:2: challenge 0 must be an object with date, type and answer"),
            ("{\"challenges\": [{\"date\": \"2026-13-01\", \"type\": \"flag\", \"answer\": \"FR\"}]}",
             "s.json:1:26: challenge 0: invalid date '2026-13-01'; use YYYY-MM-DD, e.g. 2026-03-01"),
            ("{\"challenges\": [{\"date\": \"2026-01-01\", \"type\": \"anthem\", \"answer\": \"FR\"}]}",
             "s.json:1:48: challenge 0: \"type\" must be \"country\", \"capital\" or \"flag\""),
            ("{\"challenges\": [{\"date\": \"2026-01-01\", \"type\": \"flag\", \"answer\": \"QQ\"}]}",
             "s.json:1:66: challenge 0: \"answer\" must be the ISO code of a country in \(countries.source)"),
            ("{\"challenges\": [{\"date\": \"2026-01-01\", \"type\": \"capital\", \"answer\": \"AQ\"}]}",
             "s.json:1:69: challenge 0: Antarctica has no capital in the country set, so it cannot be a capital challenge"),
            ("{\"challenges\": [{\"date\": \"2026-01-01\", \"type\": \"flag\", \"answer\": \"FR\"},\n {\"date\": \"2026-01-01\", \"type\": \"flag\", \"answer\": \"DE\"}]}",
             "s.json:2:11: challenge 1: a second challenge for 2026-01-01; one per date"),
            ("{\"challenges\": []}", "s.json:1:16: the schedule has no challenges"),
            ("{\"days\": 3}", "s.json:1:1: expected {\"challenges\": [{\"date\": \"YYYY-MM-DD\", \"type\": \"country|capital|flag\", \"answer\": \"ISO code\"}, …]}"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try ChallengeSchedule(json: text, source: "s.json", countries: countries), text) { error in
                XCTAssertEqual("\(error)", message)
            }
        }
    }

    func testStateRoundTripsThroughJSON() throws {
        var state = ChallengeState(ScheduledChallenge(date: today, type: .capital, answer: "PE"))
        state.guesses = ["Quito"]
        let text = state.jsonText()
        XCTAssertEqual(text, #"{"answer":"PE","date":"2026-11-22","guesses":["Quito"],"status":"playing","type":"capital"}"#)
        XCTAssertEqual(try ChallengeState(jsonText: text), state)
        XCTAssertThrowsError(try ChallengeState(jsonText: #"{"date":"2026-02-30"}"#)) { error in
            XCTAssertTrue("\(error)".hasPrefix("storage failed: a saved challenge state is unreadable ("), "\(error)")
        }
    }

    func testCivilDates() throws {
        XCTAssertEqual(CivilDate(year: 1970, month: 1, day: 1)?.dayNumber, 0)
        XCTAssertEqual(CivilDate(year: 2000, month: 2, day: 29)?.dayNumber, 11_016)
        XCTAssertNil(CivilDate(year: 2026, month: 2, day: 29))
        XCTAssertEqual(today.weekday, 7)
        XCTAssertEqual(CivilDate(dayNumber: today.dayNumber), today)
        XCTAssertEqual(try CivilDate(parsing: "2024-02-29").description, "2024-02-29")
        XCTAssertEqual(today.adding(days: 40).description, "2027-01-01")
        for bad in ["2026-2-01", "2026-02-30", "twenty", "", "2026-02-01T00:00"] {
            XCTAssertThrowsError(try CivilDate(parsing: bad)) { error in
                XCTAssertEqual("\(error)", "invalid date '\(bad)'; use YYYY-MM-DD, e.g. 2026-03-01")
            }
        }
    }
}
