// Wall-clock time for the access layer (credentials' dates, pairing codes' expiry, the audit log),
// in the toolkit's UTC clock and ISO 8601 text, as plugins stamp what they store.

import ClubhouseToolkit

public enum AccessTime {
    /// Seconds since 1970 now.
    public static func now() -> Double { UTCClock.now() }

    /// "2026-11-22T03:50:31Z".
    public static func iso(_ seconds: Int) -> String { UTCClock.iso8601(seconds: Int64(seconds)) }

    /// "2026-11-22T03:50:31.123Z", for the audit log.
    static func isoMilliseconds(_ seconds: Double) -> String {
        let whole = seconds.rounded(.down)
        return UTCClock.iso8601(seconds: Int64(whole), milliseconds: min(999, Int((seconds - whole) * 1000)))
    }
}
