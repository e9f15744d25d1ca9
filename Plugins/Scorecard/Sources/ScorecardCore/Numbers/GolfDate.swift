// Calendar dates as day numbers (days since 1970-01-01, proleptic Gregorian), so "the 365 days before
// the latest score" is integer arithmetic and independent of time zones (ClubhouseToolkit's CivilCalendar).

import ClubhouseToolkit

/// A calendar day, written `YYYY-MM-DD`.
public struct GolfDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let dayNumber: Int

    public init(dayNumber: Int) { self.dayNumber = dayNumber }

    /// A valid civil date, or nil (month 1–12, day within the month, year 1900–9999).
    public init?(year: Int, month: Int, day: Int) {
        guard (1900...9999).contains(year), (1...12).contains(month),
              (1...GolfDate.daysIn(month: month, year: year)).contains(day) else { return nil }
        dayNumber = CivilCalendar.dayNumber(year: year, month: month, day: day)
    }

    /// Parses `YYYY-MM-DD`; nil for anything else or an impossible date (`2023-02-29`).
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public var components: (year: Int, month: Int, day: Int) { CivilCalendar.date(dayNumber: dayNumber) }

    public var description: String {
        let (year, month, day) = components
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    public func adding(days: Int) -> GolfDate { GolfDate(dayNumber: dayNumber + days) }

    public static func < (lhs: GolfDate, rhs: GolfDate) -> Bool { lhs.dayNumber < rhs.dayNumber }

    static func daysIn(month: Int, year: Int) -> Int { CivilCalendar.daysIn(month: month, year: year) }
}

extension GolfDate: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = GolfDate(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a YYYY-MM-DD date")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
