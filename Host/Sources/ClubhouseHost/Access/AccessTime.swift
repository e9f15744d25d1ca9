// Wall-clock time for the access layer: credentials' dates, pairing codes' expiry, the audit log.

#if canImport(Glibc)
import Glibc
#endif

/// Times as the access layer shows them: ISO 8601 in UTC, to the second.
public enum AccessTime {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public static func iso(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// With milliseconds, for the audit log.
    static func isoMilliseconds(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        let milliseconds = min(999, Int((seconds - Double(whole)) * 1000))
        let text = iso(whole)
        let ms = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return String(text.dropLast()) + "." + ms + "Z"
    }
}
