// What `globe challenge show` and `globe challenge calendar` return: the day's clue and game, and
// a month with solved/failed marks and the streak.

#if canImport(Glibc)
import Glibc
#endif

/// A challenge as the player sees it.
public struct ChallengeView: Sendable, Codable, Equatable {
    public var date: CivilDate
    public var type: ChallengeType
    public var status: ChallengeStatus
    public var guesses: [String]
    public var attemptsLeft: Int
    /// The question, e.g. "What is the capital of Peru?".
    public var prompt: String
    /// The flag emoji (flag challenges).
    public var flag: String?
    /// The silhouette as SVG (country challenges).
    public var silhouetteSVG: String?
    /// The silhouette drawn in text for a terminal (country challenges).
    public var silhouetteText: String?
    /// Revealed once the game is over.
    public var answer: String?

    public init(state: ChallengeState, country: Country) {
        date = state.date
        type = state.type
        status = state.status
        guesses = state.guesses
        attemptsLeft = state.attemptsLeft
        switch state.type {
        case .country:
            prompt = "Which country has this shape?"
            silhouetteSVG = SilhouetteSVG.render(country, options: .init(size: 320))
            silhouetteText = TextSilhouette.render(country)
        case .capital:
            prompt = "What is the capital of \(country.name)?"
        case .flag:
            prompt = "Which country has this flag? \(country.flagEmoji)"
            flag = country.flagEmoji
        }
        answer = state.status == .playing ? nil : DailyChallenge.answerText(type: state.type, country: country)
    }

    public var text: String {
        var lines = ["daily challenge \(date) (\(type.rawValue)): \(prompt)"]
        if let art = silhouetteText { lines.append(art) }
        if !guesses.isEmpty { lines.append("guesses: " + guesses.joined(separator: ", ")) }
        switch status {
        case .playing: lines.append("\(attemptsLeft) of \(ChallengeState.maxAttempts) attempts left; answer with: globe challenge guess TEXT")
        case .solved: lines.append("solved: \(answer ?? "?")")
        case .failed: lines.append("failed: the answer was \(answer ?? "?")")
        }
        return lines.joined(separator: "\n")
    }
}

/// A country's outline rasterised to characters, for a terminal.
enum TextSilhouette {
    static func render(_ country: Country, columns: Int = 40) -> String {
        let polygons = SilhouetteSVG.joinedAcrossAntimeridian(country.polygons)
        var box = BoundingBox.empty
        for p in polygons { box.include(p.bounds) }
        guard !box.isEmpty, box.width > 0, box.height > 0 else { return "(too small to draw: a dot on the map)" }
        let k = max(0.05, cos((box.minLat + box.maxLat) / 2 * .pi / 180))
        // Terminal cells are about twice as tall as wide.
        let cell = box.width * k / Double(columns)
        let rows = max(1, min(30, Int((box.height / (2 * cell)).rounded(.up))))
        let cellLat = box.height / Double(rows)
        let cellLon = box.width / Double(columns)
        var lines: [String] = []
        for r in 0..<rows {
            var line = ""
            for c in 0..<columns {
                let p = LonLat(lon: box.minLon + (Double(c) + 0.5) * cellLon, lat: box.maxLat - (Double(r) + 0.5) * cellLat)
                line.append(polygons.contains { $0.bounds.contains(p) && $0.contains(p) } ? "#" : " ")
            }
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// One day of the calendar.
public struct CalendarDay: Sendable, Codable, Equatable {
    public enum Mark: String, Sendable, Codable {
        /// Solved on the day.
        case solved
        /// Solved, but on a later day (does not count for the streak).
        case late
        case failed
        case playing
        /// Playable, not started.
        case open
        /// In the future.
        case locked
        /// No challenge scheduled.
        case none
    }

    public var date: CivilDate
    public var type: ChallengeType?
    public var mark: Mark
}

public struct ChallengeCalendar: Sendable, Codable, Equatable {
    /// "2026-11".
    public var month: String
    public var days: [CalendarDay]
    public var streak: Int
    public var bestStreak: Int
    public var solved: Int
    public var failed: Int

    public init(month date: CivilDate, today: CivilDate, schedule: ChallengeSchedule, states: [ChallengeState]) {
        let first = date.firstOfMonth
        let count = CivilDate.daysInMonth(year: first.year, month: first.month)
        let byDay = Dictionary(states.map { ($0.date.dayNumber, $0) }, uniquingKeysWith: { a, _ in a })
        let scheduledByDay = Dictionary(schedule.challenges(from: first, days: count).map { ($0.date.dayNumber, $0) },
                                        uniquingKeysWith: { a, _ in a })
        var days: [CalendarDay] = []
        for i in 0..<count {
            let d = first.adding(days: i)
            let scheduled = scheduledByDay[d.dayNumber]
            let mark: CalendarDay.Mark
            if let s = byDay[d.dayNumber] {
                switch s.status {
                case .solved: mark = s.solvedOnTheDay ? .solved : .late
                case .failed: mark = .failed
                case .playing: mark = .playing
                }
            } else if scheduled == nil {
                mark = .none
            } else {
                mark = d > today ? .locked : .open
            }
            days.append(CalendarDay(date: d, type: scheduled?.type, mark: mark))
        }
        let monthText = first.description
        month = String(monthText.prefix(7))
        self.days = days
        streak = DailyChallenge.currentStreak(states, today: today)
        bestStreak = DailyChallenge.bestStreak(states)
        solved = days.filter { $0.mark == .solved || $0.mark == .late }.count
        failed = days.filter { $0.mark == .failed }.count
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    static func symbol(_ mark: CalendarDay.Mark) -> String {
        switch mark {
        case .solved: return "✓"
        case .late: return "+"
        case .failed: return "✗"
        case .playing: return "…"
        case .open: return "·"
        case .locked, .none: return " "
        }
    }

    public var text: String {
        guard let first = days.first?.date else { return month }
        var lines = ["\(Self.monthNames[first.month - 1]) \(first.year)   streak \(streak) (best \(bestStreak)), solved \(solved), failed \(failed)"]
        lines.append(" Mo  Tu  We  Th  Fr  Sa  Su")
        var line = String(repeating: "    ", count: first.weekday - 1)
        for d in days {
            let n = String(d.date.day)
            line += (n.count == 1 ? "  " : " ") + n + Self.symbol(d.mark)
            if d.date.weekday == 7 {
                lines.append(line)
                line = ""
            }
        }
        if !line.isEmpty { lines.append(line) }
        lines.append("✓ solved on the day  + solved later  ✗ failed  … in progress  · open")
        return lines.joined(separator: "\n")
    }
}
