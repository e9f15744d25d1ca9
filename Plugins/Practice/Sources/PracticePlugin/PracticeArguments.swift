// The arguments of each practice command as a type (PluginKit's CommandArguments): the catalogue's
// argument list is made from these, and each handler gets one decoded — ids as Int, lists as
// [String], choices as enums.

import PluginKit
import PracticeCore

/// `--profile`: CanonicalProfile's cases, in its order.
enum ProfileArgument: String, ArgumentChoice {
    case raidV2 = "raid-v2"
    case rfc8785

    var profile: CanonicalProfile {
        switch self {
        case .raidV2: return .raidV2
        case .rfc8785: return .rfc8785
        }
    }
}

/// `trends --min-validity`: the lowest validity a sub-session needs to count.
enum MinValidityArgument: String, ArgumentChoice {
    case invalid
    case lowSample = "low_sample"
    case valid

    var validity: Validity {
        switch self {
        case .invalid: return .invalid
        case .lowSample: return .validLowSample
        case .valid: return .valid
        }
    }
}

/// `trends --metric`: a gradeable metric (ShotMetric.gradeable, in its order).
enum GradeableMetricArgument: String, ArgumentChoice {
    case ballSpeed = "ball_speed"
    case smashFactor = "smash_factor"
    case spinRate = "spin_rate"
    case descentAngle = "descent_angle"
    case carry

    var metric: ShotMetric {
        switch self {
        case .ballSpeed: return .ballSpeed
        case .smashFactor: return .smashFactor
        case .spinRate: return .spinRate
        case .descentAngle: return .descentAngle
        case .carry: return .carry
        }
    }
}

private let profileField = ArgumentField("profile", help: "raid-v2 (kernel v2, canonicaljson numbers) or rfc8785 (strict JCS)",
                                         default: .string(CanonicalProfile.raidV2.rawValue))
private let templateReference = ArgumentField("template", help: "Hash, its first digits, or display name", positional: true)

struct CanonicalizeArguments: CommandArguments {
    var file: String
    var profile: ProfileArgument
    static let fields = [ArgumentField.path("file", help: "JSON file, or - for standard input", positional: true), profileField]
}

struct HashArguments: CommandArguments {
    var file: String
    var profile: ProfileArgument
    var jsonl: Bool
    var skipBadLines: Bool
    enum CodingKeys: String, CodingKey {
        case file, profile, jsonl
        case skipBadLines = "skip-bad-lines"
    }
    static let fields = [
        ArgumentField.path("file", help: "JSON or JSON Lines file, or - for standard input", positional: true), profileField,
        ArgumentField("jsonl", help: "One document per line"),
        ArgumentField("skip-bad-lines", help: "With --jsonl: hash the valid lines and list the bad ones instead of failing"),
    ]
}

struct TemplateFileArguments: CommandArguments {
    var file: String
    static let fields = [ArgumentField.path("file", help: "Template file (JSON)", positional: true)]
}

struct TemplateListArguments: CommandArguments {
    var club: String?
    var all: Bool
    static let fields = [ArgumentField("club", help: "Only this club"), ArgumentField("all", help: "Include hidden templates")]
}

struct TemplateArguments: CommandArguments {
    var template: String
    static let fields = [templateReference]
}

struct TemplateHideArguments: CommandArguments {
    var template: String
    var unhide: Bool
    static let fields = [templateReference, ArgumentField("unhide", help: "Show it again")]
}

struct TemplateRenameArguments: CommandArguments {
    var template: String
    var name: String
    static let fields = [templateReference, ArgumentField("name", help: "The new name (empty clears it)", positional: true)]
}

struct TemplateDuplicateArguments: CommandArguments {
    var template: String
    var club: String?
    var name: String?
    var set: [String]?
    static let fields = [
        templateReference, ArgumentField("club", help: "Club of the copy"), ArgumentField("name", help: "Name inside the copy"),
        ArgumentField("set", help: "Threshold changes, e.g. ball_speed.a_min=105,spin_rate.b_min=4000"),
    ]
}

struct ImportArguments: CommandArguments {
    var csv: String
    var template: [String]?
    var date: String?
    var location: String?
    var skipBadRows: Bool
    enum CodingKeys: String, CodingKey {
        case csv, template, date, location
        case skipBadRows = "skip-bad-rows"
    }
    static let fields = [
        ArgumentField.path("csv", help: "The MLM2PRO shot export (CSV)", positional: true),
        ArgumentField("template", help: "Template file(s) or stored template hash(es), one per club"),
        ArgumentField("date", help: "Session date YYYY-MM-DD[THH:MM] (default: the export's title row)"),
        ArgumentField("location", help: "Where the session was hit"),
        ArgumentField("skip-bad-rows", help: "Import the good rows of a file with bad ones and list the bad ones by line"),
    ]
}

struct RegradeArguments: CommandArguments {
    var template: String
    var session: Int?
    var all: Bool
    static let fields = [
        ArgumentField("template", help: "The template: hash, its first digits, or display name"),
        ArgumentField("session", help: "One session id"), ArgumentField("all", help: "Every session with the template's club"),
    ]
}

struct SessionDeleteArguments: CommandArguments {
    var id: Int
    var reason: String?
    var yes: Bool
    static let fields = [
        ArgumentField("id", help: "Session id (see practice sessions)", positional: true),
        ArgumentField("reason", help: "Why (kept in the deletion log)"), ArgumentField("yes", help: "Delete without asking"),
    ]
}

struct SessionArguments: CommandArguments {
    var id: Int
    var shots: Bool
    static let fields = [
        ArgumentField("id", help: "Session id (see practice sessions)", positional: true),
        ArgumentField("shots", help: "Also list every shot with its grade and its source row"),
    ]
}

struct TrendsArguments: CommandArguments {
    var club: String
    var aOnly: Bool
    var minValidity: MinValidityArgument
    var metric: GradeableMetricArgument
    var svg: String?
    var template: String?
    enum CodingKeys: String, CodingKey {
        case club
        case aOnly = "a-only"
        case minValidity = "min-validity"
        case metric, svg, template
    }
    static let fields = [
        ArgumentField("club", help: "The club, e.g. 7i"),
        ArgumentField("a-only", help: "Averages of the A shots, each session graded by its own template"),
        ArgumentField("min-validity", help: "Leave out sub-sessions below this (they are listed as excluded)", default: "low_sample"),
        ArgumentField("metric", help: "What the --a-only chart plots", default: .string(ShotMetric.carry.rawValue)),
        ArgumentField.path("svg", help: "Write the trend chart to this SVG file", access: .write),
        ArgumentField("template", help: "Show every session as graded by this template (hash, prefix or name; see practice regrade)"),
    ]
}

struct DispersionArguments: CommandArguments {
    var club: String
    var session: Int?
    var svg: String?
    static let fields = [
        ArgumentField("club", help: "The club, e.g. 7i"), ArgumentField("session", help: "Only this session (default: every session)"),
        ArgumentField.path("svg", help: "Write the picture (shots and ellipse) to this SVG file", access: .write),
    ]
}

struct DistancesArguments: CommandArguments {
    var session: Int?
    var svg: String?
    static let fields = [
        ArgumentField("session", help: "Only this session (default: every session)"),
        ArgumentField.path("svg", help: "Write the table as a bar chart to this SVG file", access: .write),
    ]
}

struct LiveArguments: CommandArguments {
    var device: String
    var club: String?
    var idleTimeout: Double?
    var maxShots: Int?
    enum CodingKeys: String, CodingKey {
        case device, club
        case idleTimeout = "idle-timeout"
        case maxShots = "max-shots"
    }
    static let fields = [
        ArgumentField("device", help: "The site's device name, e.g. launchmonitor"),
        ArgumentField("club", help: "The club hit (messages may name their own)"),
        ArgumentField("idle-timeout", help: "Close after this many seconds without a message"),
        ArgumentField("max-shots", help: "Close after this many shots"),
    ]
}

struct LiveSimArguments: CommandArguments {
    var csv: String
    var listen: String
    var intervalMs: Int
    var fault: SimulatorFault?
    var faultAfter: Int
    var acceptTimeout: Int
    var deviceID: String
    enum CodingKeys: String, CodingKey {
        case csv, listen
        case intervalMs = "interval-ms"
        case fault
        case faultAfter = "fault-after"
        case acceptTimeout = "accept-timeout"
        case deviceID = "device-id"
    }
    static let fields = [
        ArgumentField.path("csv", help: "The MLM2PRO export to replay", positional: true),
        ArgumentField("listen", help: "unix:PATH or tcp:HOST:PORT"),
        ArgumentField("interval-ms", help: "Pause between shots", default: 0),
        ArgumentField("fault", help: "How the stream ends badly"),
        ArgumentField("fault-after", help: "Shots sent before the fault", default: 3),
        ArgumentField("accept-timeout", help: "Seconds to wait for the client", default: 30),
        ArgumentField("device-id", help: "DeviceID in the messages", default: "Clubhouse simulator"),
    ]
}

struct ExportArguments: CommandArguments {
    var id: Int
    var out: String?
    static let fields = [
        ArgumentField("id", help: "Session id", positional: true),
        ArgumentField.path("out", help: "Also write the canonical JSON to this file", access: .write),
    ]
}

struct DemoArguments: CommandArguments {
    var out: String
    static let fields = [ArgumentField.path("out", help: "Folder for the demo's output (CSV exports, trend SVG, a session summary)")]
}
