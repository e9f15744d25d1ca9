// The UTC clock and its ISO-8601 text, the way every plugin stamps what it stores
// ("2026-11-22T03:50:31Z", or with milliseconds "2026-11-22T03:50:31.123Z").

#if canImport(Glibc)
import Glibc
#endif

public enum UTCClock {
    /// Seconds since 1970 now (CLOCK_REALTIME).
    public static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Now as ISO 8601 in UTC, to the second ("2026-11-22T03:50:31Z").
    public static func iso8601Now() -> String { iso8601(seconds: Int64(time(nil))) }

    /// Now as ISO 8601 in UTC, to the millisecond ("2026-11-22T03:50:31.123Z").
    public static func iso8601NowMilliseconds() -> String {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return iso8601(seconds: Int64(t.tv_sec), milliseconds: Int(t.tv_nsec / 1_000_000))
    }

    /// `seconds` since 1970 as ISO 8601 in UTC; with `milliseconds`, three more digits.
    public static func iso8601(seconds: Int64, milliseconds: Int? = nil) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return milliseconds == nil ? "1970-01-01T00:00:00Z" : "1970-01-01T00:00:00.000Z" }
        func digits(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        let date = "\(digits(Int(parts.tm_year) + 1900, 4))-\(digits(Int(parts.tm_mon) + 1, 2))-\(digits(Int(parts.tm_mday), 2))"
        let clock = "\(digits(Int(parts.tm_hour), 2)):\(digits(Int(parts.tm_min), 2)):\(digits(Int(parts.tm_sec), 2))"
        return date + "T" + clock + (milliseconds.map { "." + digits($0, 3) } ?? "") + "Z"
    }

    /// `seconds` since 1970 (the fraction dropped) as ISO 8601 in UTC, to the second.
    public static func iso8601(_ seconds: Double) -> String { iso8601(seconds: Int64(seconds.rounded(.down))) }

    /// The seconds of a "YYYY-MM-DDTHH:MM:SSZ" timestamp; nil for anything else.
    public static func parse(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 90 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Double(timegm(&parts))
    }
}

/// The monotonic clock (CLOCK_MONOTONIC), read as `ContinuousClock` is, for the modules built
/// without `_Concurrency` (where `ContinuousClock` lives; Package.swift, productSettings).
public struct MonotonicClock: Sendable {
    public struct Instant: Sendable, Comparable {
        let nanoseconds: Int64
        public static func - (later: Instant, earlier: Instant) -> Duration { .nanoseconds(later.nanoseconds - earlier.nanoseconds) }
        public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }
    }

    public init() {}

    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}
