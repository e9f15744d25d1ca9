// A calendar date without a time zone (the daily challenge's "day"), proleptic Gregorian,
// written YYYY-MM-DD.

import ClubhouseToolkit
#if canImport(Glibc)
import Glibc
#endif

public struct CivilDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A valid date, or nil (month 1...12, day within the month, year 1...9999).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`.
    public init(parsing text: String) throws(GlobeError) {
        let trimmed = text.trimmingWhitespace
        let parts = trimmed.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              let date = CivilDate(year: y, month: m, day: d) else {
            throw GlobeError.invalidDate(text)
        }
        self = date
    }

    public static func daysInMonth(year: Int, month: Int) -> Int { CivilCalendar.daysIn(month: month, year: year) }

    /// Days since 1970-01-01.
    public var dayNumber: Int { CivilCalendar.dayNumber(year: year, month: month, day: day) }

    public init(dayNumber: Int) {
        (year, month, day) = CivilCalendar.date(dayNumber: dayNumber)
    }

    public func adding(days: Int) -> CivilDate { CivilDate(dayNumber: dayNumber + days) }

    /// 1 = Monday … 7 = Sunday (ISO 8601).
    public var weekday: Int {
        let w = (dayNumber + 3) % 7  // 1970-01-01 was a Thursday
        return (w < 0 ? w + 7 : w) + 1
    }

    public var firstOfMonth: CivilDate { CivilDate(dayNumber: dayNumber - day + 1) }

    /// Today in the process's local time zone.
    public static func today() -> CivilDate {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return CivilDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
            ?? CivilDate(dayNumber: Int(now) / 86_400)
    }

    public var description: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + two(month) + "-" + two(day)
    }

    public static func < (a: CivilDate, b: CivilDate) -> Bool { a.dayNumber < b.dayNumber }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try CivilDate(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
