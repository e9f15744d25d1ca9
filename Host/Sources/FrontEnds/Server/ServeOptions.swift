// What `clubhouse serve` is told: its arguments as the command line parsed them against the
// declaration of `serve` (BuiltinCatalogue.swift: types, lists and flags are checked there), read
// into the transport's bounds and, with --http, the front door's options.

import ClubhouseHost
import ClubhouseJSON

struct ServeOptions: Sendable {
    /// `--socket PATH`: JSON-RPC on this Unix socket instead of stdio.
    var socketPath: String?
    var limits = ServeLimits()
    /// `--http ADDR:PORT` and its options; nil without --http.
    var http: HTTPOptions?

    init() {}

    /// Reads serve's parsed arguments; a value out of its range is a usage error naming the option.
    init(_ arguments: JSONObject) throws(CLIError) {
        socketPath = arguments["socket"]?.stringValue
        if let n = try ServeOptions.whole(arguments, "max-connections", minimum: 1) { limits.maxConnections = n }
        if let n = try ServeOptions.whole(arguments, "write-timeout-ms", minimum: 1) { limits.writeTimeoutMilliseconds = Int64(n) }
        if let n = try ServeOptions.whole(arguments, "workers", minimum: 1) { limits.workers = n }
        if let n = try ServeOptions.whole(arguments, "max-event-backlog", minimum: 1024) { limits.eventBacklogBytes = n }
        if arguments["http"] != nil {
            var options = HTTPOptions()
            try options.read(arguments)
            http = options
        } else if let stray = HTTPOptions.names.first(where: { $0 != "http" && arguments[$0] != nil }) {
            throw CLIError(status: .invalidArgument, message: "serve: --\(stray) is an option of --http ADDR:PORT; add --http 127.0.0.1:8080")
        }
    }

    /// The whole number given as `--name` (nil when absent), at least `minimum` and at most 2^30.
    static func whole(_ arguments: JSONObject, _ name: String, minimum: Int, maximum: Int = 1 << 30,
                      range: String? = nil) throws(CLIError) -> Int? {
        guard let value = arguments[name] else { return nil }
        guard let n = value.intValue, n >= minimum, n <= maximum else {
            let shown = value.intValue.map(String.init) ?? JSONWriter.compact(value)
            throw CLIError(status: .invalidArgument,
                           message: "serve: --\(name) needs a whole number \(range ?? "≥ \(minimum)"), not '\(shown)'")
        }
        return n
    }
}
