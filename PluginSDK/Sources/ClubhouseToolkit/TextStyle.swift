// How a reply's text may be styled: plain everywhere, except when the host says the text goes to a
// terminal that shows colour (CLUBHOUSE_CALL_STYLED_TEXT in clubhouse/call.h; PluginKit sets
// `TextStyle.current` from it for the duration of a command). A thread-local, bound by
// `TextStyle.with(_:_:)`: it is scoped to the code that builds one reply on the call's thread and never
// leaks into another call or a background thread's text. Not a `@TaskLocal`: binding one allocates on
// every call, and it would be the only use of Swift Concurrency on a plugin's call path (issue 33).

#if canImport(Glibc)
import Glibc
#endif

public enum TextStyle: Sendable, Equatable {
    /// No escape sequences (pipes, files, --json, serve, NO_COLOR, --no-color).
    case plain
    /// ANSI SGR sequences are welcome (bold table headers).
    case terminal

    /// The style of the text being built now on this thread; `.plain` unless PluginKit (or a test)
    /// bound it with `with(_:_:)`.
    public static var current: TextStyle { pthread_getspecific(key) == nil ? .plain : .terminal }

    /// Runs `body` with `current` set to `style` on this thread, and restores the previous style after
    /// (also when `body` throws). Threads `body` starts do not inherit it: their text is plain.
    public static func with<R, E: Error>(_ style: TextStyle, _ body: () throws(E) -> R) throws(E) -> R {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, style == .terminal ? UnsafeRawPointer(bitPattern: 1) : nil)
        defer { pthread_setspecific(key, previous) }
        return try body()
    }

    /// The thread-specific slot: nil for `.plain`, the address 1 for `.terminal` (never dereferenced).
    /// Created once, on first use, and never deleted.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// `text` without SGR sequences (ESC [ digits and semicolons m), as a file or a pipe wants it.
    public static func unstyled(_ text: String) -> String {
        guard text.utf8.contains(0x1B) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x1B, i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") {
                var j = i + 2
                while j < bytes.count, (bytes[j] >= UInt8(ascii: "0") && bytes[j] <= UInt8(ascii: "9")) || bytes[j] == UInt8(ascii: ";") { j += 1 }
                if j < bytes.count, bytes[j] == UInt8(ascii: "m") {
                    i = j + 1
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` in bold when the current style allows it (reset after), else unchanged.
    public static func bold(_ text: String) -> String {
        current == .terminal && !text.isEmpty ? "\u{1B}[1m" + text + "\u{1B}[0m" : text
    }
}
