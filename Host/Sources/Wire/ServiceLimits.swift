// What one plugin may make the host hold through its services, whatever its isolation: open
// statements and the memory they keep, the SQL and bound values of one call, one reply, one log
// message or progress label, open devices. The site sets them ("limits" in plugins.json,
// PluginLimits, which the host turns into these); the host applies them in each service's one implementation (so the C face and the
// wire face refuse alike) and sizes the frames it accepts from a runner by them (WireCaps); a
// runner receives them with `create` and refuses on its side exactly where the host would, so an
// honest plugin gets the same answer in process and isolated, and only a runner that ignores them
// meets the frame caps (a protocol violation).

import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

public struct ServiceLimits: Equatable, Sendable {
    /// Statements a plugin holds open (prepared, not finalized) at once.
    package var openStatements = 256
    /// Memory of its open statements: what SQLite holds for each compiled statement
    /// (SQLITE_STMTSTATUS_MEMUSED, taken at prepare) plus the text and blobs bound to them.
    package var statementBytes = 64 << 20
    /// SQL text of one exec, prepare or migrate.
    package var sqlBytes = 1 << 20
    /// Text and blobs bound to one statement at once (what one step carries).
    package var bindBytes = 16 << 20
    /// One reply: a command's reply, and one row.
    package var replyBytes = 64 << 20
    /// One log message (longer ones are cut) and one progress label (likewise).
    package var logBytes = 1 << 20
    package var progressBytes = 16 << 10
    /// Devices a plugin holds open at once.
    package var openDevices = 8

    public init() {}

    /// As the runner receives them with `create`.
    package var json: JSONValue {
        ["open_statements": .int(openStatements), "statement_bytes": .int(statementBytes), "sql_bytes": .int(sqlBytes),
         "bind_bytes": .int(bindBytes), "reply_bytes": .int(replyBytes), "log_bytes": .int(logBytes),
         "progress_bytes": .int(progressBytes), "open_devices": .int(openDevices)]
    }

    package init(json: JSONValue?) {
        guard let json else { return }
        func take(_ key: String, _ value: inout Int) {
            if let n = json[key]?.intValue, n > 0 { value = n }
        }
        take("open_statements", &openStatements)
        take("statement_bytes", &statementBytes)
        take("sql_bytes", &sqlBytes)
        take("bind_bytes", &bindBytes)
        take("reply_bytes", &replyBytes)
        take("log_bytes", &logBytes)
        take("progress_bytes", &progressBytes)
        take("open_devices", &openDevices)
    }

    /// What SQLite may allocate in the host, net, while one statement of the plugin steps once or
    /// one exec runs: the row it computes must fit in `replyBytes`, plus room for SQLite's own
    /// working memory (page caches, a sort's in-memory run, lookaside).
    package var stepMemoryBytes: Int { replyBytes + ServiceLimits.sqliteWorkingRoom }
    package static let sqliteWorkingRoom = 16 << 20

    /// The longest value (text or blob) and table row SQLite builds or stores for the plugin
    /// (SQLITE_LIMIT_LENGTH): no value longer than a reply or a bind could ever be read or written.
    package var valueBytes: Int { min(max(replyBytes, bindBytes), 1_000_000_000) }

    /// The largest service call an honest runner sends: SQL, a step's binds, a device write or a
    /// nested invoke's request (bounded like a reply), plus room for the framing.
    package var serviceCallBytes: Int { max(sqlBytes, bindBytes, replyBytes, 1 << 20) + (64 << 10) }
}

/// The refusal of a call past a limit: status CLUBHOUSE_DENIED (the site's limits do not allow it)
/// and one line naming the plugin, the limit and the key that raises it.
package enum LimitRefusal {
    /// eg: plugin 'hr' may hold 256 open statements ("limits": {"open_statements": 256} in
    /// plugins.json): this prepare would be the 257th; finalize statements it no longer needs, or
    /// raise the limit
    package static func message(plugin: String, key: String, limit: Int, unit: Unit, happened: String, remedy: String) -> String {
        "plugin '\(plugin)' is over its limit of \(unit.describe(limit)) (\"limits\": {\"\(key)\": \(unit.value(limit))} in plugins.json): \(happened); \(remedy), or raise the limit"
    }

    package enum Unit {
        case count(String), kilobytes, megabytes

        func describe(_ n: Int) -> String {
            switch self {
            case .count(let what): return "\(n) \(what)"
            case .kilobytes: return "\(n >> 10) KiB"
            case .megabytes: return "\(n >> 20) MiB"
            }
        }

        func value(_ n: Int) -> Int {
            switch self {
            case .count: return n
            case .kilobytes: return n >> 10
            case .megabytes: return n >> 20
            }
        }
    }

    package static func openStatements(_ plugin: String, _ limits: ServiceLimits) -> String {
        message(plugin: plugin, key: "open_statements", limit: limits.openStatements, unit: .count("open statements"),
                happened: "this prepare would be one more", remedy: "finalize statements it no longer needs")
    }

    package static func statementBytes(_ plugin: String, _ limits: ServiceLimits, wanted: Int64) -> String {
        message(plugin: plugin, key: "statement_mb", limit: limits.statementBytes, unit: .megabytes,
                happened: "its open statements and their bound values would hold \(wanted) bytes",
                remedy: "finalize statements it no longer needs")
    }

    package static func sqlBytes(_ plugin: String, _ limits: ServiceLimits) -> String {
        message(plugin: plugin, key: "sql_kb", limit: limits.sqlBytes, unit: .kilobytes,
                happened: "this SQL is longer than that", remedy: "send it in smaller statements")
    }

    package static func bindBytes(_ plugin: String, _ limits: ServiceLimits, wanted: Int) -> String {
        message(plugin: plugin, key: "bind_mb", limit: limits.bindBytes, unit: .megabytes,
                happened: "the values bound to this statement would be \(wanted) bytes", remedy: "bind smaller values")
    }

    package static func rowBytes(_ plugin: String, _ limits: ServiceLimits, wanted: Int) -> String {
        message(plugin: plugin, key: "reply_mb", limit: limits.replyBytes, unit: .megabytes,
                happened: "this row is \(wanted) bytes", remedy: "select fewer or smaller columns")
    }

    /// A statement whose row (or whose values on the way to it) needed more memory than the plugin's
    /// `reply_mb` allows: refused by the host's SQLite allocator before it grew further.
    package static func stepMemory(_ plugin: String, _ limits: ServiceLimits) -> String {
        message(plugin: plugin, key: "reply_mb", limit: limits.replyBytes, unit: .megabytes,
                happened: "SQLite needed more memory than that (beside \(ServiceLimits.sqliteWorkingRoom >> 20) MiB of working room) to compute this statement's row",
                remedy: "select fewer or smaller values")
    }

    /// A value (or a table row) longer than SQLite may build for the plugin (SQLITE_TOOBIG).
    package static func valueBytes(_ plugin: String, _ limits: ServiceLimits) -> String {
        let key = limits.bindBytes > limits.replyBytes ? "bind_mb" : "reply_mb"
        return message(plugin: plugin, key: key, limit: max(limits.bindBytes, limits.replyBytes), unit: .megabytes,
                       happened: "a value or a table row would be longer than that (string or blob too big)",
                       remedy: "build smaller values")
    }

    package static func replyBytes(_ plugin: String, _ limits: ServiceLimits) -> String {
        message(plugin: plugin, key: "reply_mb", limit: limits.replyBytes, unit: .megabytes,
                happened: "its reply grew past it", remedy: "write large results to a file argument")
    }

    package static func openDevices(_ plugin: String, _ limits: ServiceLimits) -> String {
        message(plugin: plugin, key: "open_devices", limit: limits.openDevices, unit: .count("open devices"),
                happened: "this open would be one more", remedy: "close devices it no longer needs")
    }

    /// What ends a cut log message or progress label.
    package static func cutMarker(_ key: String, _ limit: Int) -> String { " … (cut at \(limit >> 10) KiB: \"limits\": {\"\(key)\"})" }

    /// `text` cut to at most `limit` bytes on a character boundary, with the marker, or as it is.
    package static func cut(_ text: String, limit: Int, key: String) -> String {
        guard text.utf8.count > limit else { return text }
        var text = text
        return text.withUTF8 { cut(UnsafeRawBufferPointer($0), limit: limit, key: key) }
    }

    /// The same for borrowed UTF-8 bytes (a C string the host has not copied yet).
    package static func cut(_ bytes: UnsafeRawBufferPointer, limit: Int, key: String) -> String {
        guard bytes.count > limit else { return String(decoding: bytes, as: UTF8.self) }
        // Back to the start of the character that straddles the limit (a continuation byte is 10xxxxxx).
        var end = limit
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self) + cutMarker(key, limit)
    }

    /// A C string of at most `limit` bytes as a String, cut (with the marker) when it is longer; the
    /// host reads no more than `limit + 1` bytes of it.
    package static func cut(cString: UnsafePointer<CChar>, limit: Int, key: String) -> String {
        let length = strnlen(cString, limit + 1)
        return cut(UnsafeRawBufferPointer(start: cString, count: length), limit: limit, key: key)
    }
}
