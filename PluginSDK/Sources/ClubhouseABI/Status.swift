// Swift names for the ABI's status codes (status.h) and how the CLI maps them to exit codes.

import CClubhouse

public enum Status: Int32, Sendable, CaseIterable {
    case ok = 0
    case error = 1
    case invalidArgument = 2
    case notFound = 3
    case denied = 4
    case unsupported = 5
    case busy = 6
    case timeout = 7
    case cancelled = 8
    case io = 9
    case constraint = 10
    case pluginFailed = 11
    case needsConfirmation = 12
    case row = 100
    case done = 101

    /// A status from the wire; unknown codes read as `.error` (a newer plugin's code is still a failure).
    public init(code: Int32) {
        self = Status(rawValue: code) ?? .error
    }

    /// The header's short name, eg: "invalid-argument".
    public var name: String { String(cString: clubhouse_status_name(rawValue)) }

    /// The process exit code for a command that ended with this status — the one rule of the
    /// README's table: 0 ok; 2 the request is wrong (usage, invalid or malformed input, a name the
    /// user gave that does not exist, a permanent action not confirmed with --yes); 130 cancelled (as a shell reports Ctrl-C); 1 a failure of the
    /// world (I/O, a device, a plugin that failed, anything else).
    public var exitCode: Int32 {
        switch self {
        case .ok, .row, .done: return 0
        case .invalidArgument, .notFound, .needsConfirmation: return 2
        case .cancelled: return 130
        default: return 1
        }
    }
}
