// The arguments of each tennis command as a type (PluginKit's CommandArguments): the catalogue's
// argument list is made from these, and each handler gets one decoded — zones, speeds and seeds as
// Int, points as ArgumentPoint, the spin and the check byte as TennisCore's own enums.

import PluginKit
import TennisCore

// TennisCore's enums are the choices (their cases, in order): the adapter declares that they are.
extension Spin: ArgumentChoice {}
extension Checksum: ArgumentChoice {}

/// `homography --method`.
enum EstimationArgument: String, ArgumentChoice {
    case dlt, ransac
}

private let cameraField = ArgumentField("camera", help: "Calibrated camera", default: "default")
private let checksumField = ArgumentField("checksum", help: "Check byte (default: the site's)")
private let dryRunField = ArgumentField("dry-run", help: "Print the frames; open no device")
private let zoneField = ArgumentField("zone", help: "Target zone 0–15")
private let pointField = ArgumentField("point", help: "Target court point X,Y in metres")
private let seedField = ArgumentField("seed", help: "Seed for shuffling and sectors (default: the drill's)")
private let drillField = ArgumentField("drill", help: "Drill file, or the name or hash of a saved drill", positional: true)
private let drillFileField = ArgumentField.path("file", help: "Drill file (JSON)", positional: true)

struct HomographyArguments: CommandArguments {
    var pairs: String
    var method: EstimationArgument
    var threshold: Double
    var seed: Int
    static let fields = [
        ArgumentField.path("pairs", help: "Pairs file (JSON)"),
        ArgumentField("method", help: "Least squares on all pairs, or RANSAC first", default: "dlt"),
        ArgumentField("threshold", help: "RANSAC inlier threshold in court metres", default: .double(0.25)),
        ArgumentField("seed", help: "RANSAC seed", default: 1),
    ]
}

struct CalibrateArguments: CommandArguments {
    var imagePoints: String
    var camera: String?
    enum CodingKeys: String, CodingKey {
        case imagePoints = "image-points"
        case camera
    }
    static let fields = [
        ArgumentField.path("image-points", help: "Taps file (JSON)"),
        ArgumentField("camera", help: "Camera name (default: the file's \"camera\", else \"default\")"),
    ]
}

struct ProjectArguments: CommandArguments {
    var point: ArgumentPoint
    var camera: String
    static let fields = [ArgumentField("point", help: "Image point X,Y in pixels", positional: true), cameraField]
}

struct ZoneArguments: CommandArguments {
    var point: ArgumentPoint
    static let fields = [ArgumentField("point", help: "Court point X,Y in metres", positional: true)]
}

/// Where a frame or a shot goes: a zone or a court point (one of them).
protocol TargetArguments {
    var zone: Int? { get }
    var point: ArgumentPoint? { get }
}

struct FrameArguments: CommandArguments, TargetArguments {
    var zone: Int?
    var point: ArgumentPoint?
    var speed: Int
    var spin: Spin
    var checksum: Checksum?
    var stop: Bool
    static let fields = [
        zoneField, pointField, ArgumentField("speed", help: "Ball speed in mph (20–80, steps of 10)"), ArgumentField("spin", help: "Spin"),
        checksumField, ArgumentField("stop", help: "CTRL 0 (stop) instead of 1 (start)"),
    ]
}

struct DecodeArguments: CommandArguments {
    var hex: String
    var checksum: Checksum?
    static let fields = [
        ArgumentField("hex", help: "Frame bytes, eg: \"5A A5 82 01 7C\"", positional: true),
        ArgumentField("checksum", help: "Check byte kind (default: whichever matches)"),
    ]
}

private let speedField = ArgumentField("speed", help: "Ball speed in mph (default: the site's, else 50)")
private let spinField = ArgumentField("spin", help: "Spin (default: the site's, else topspin)")

struct SendArguments: CommandArguments, TargetArguments {
    var zone: Int?
    var point: ArgumentPoint?
    var speed: Int?
    var spin: Spin?
    var checksum: Checksum?
    var dryRun: Bool
    enum CodingKeys: String, CodingKey {
        case zone, point, speed, spin, checksum
        case dryRun = "dry-run"
    }
    static let fields = [zoneField, pointField, speedField, spinField, checksumField, dryRunField]
}

struct SessionArguments: CommandArguments {
    var detections: String
    var interval: Double?
    var speed: Int?
    var spin: Spin?
    var svg: String?
    var camera: String
    var checksum: Checksum?
    var dryRun: Bool
    var pace: Bool
    var skipBadRows: Bool
    enum CodingKeys: String, CodingKey {
        case detections, interval, speed, spin, svg, camera, checksum
        case dryRun = "dry-run"
        case pace
        case skipBadRows = "skip-bad-rows"
    }
    static let fields = [
        ArgumentField.path("detections", help: "Detections file (JSON lines) or - for stdin"),
        ArgumentField("interval", help: "Seconds between launches, 2–9 (default: the site's, else 3)"), speedField, spinField,
        ArgumentField.path("svg", help: "Write the court picture (zones, positions, targets) here", access: .write),
        cameraField, checksumField, dryRunField,
        ArgumentField("pace", help: "Replay a file in real time (launches keep the detections' timing)"),
        ArgumentField("skip-bad-rows", help: "Use the good lines of a detections file and list the bad ones"),
    ]
}

struct SessionsArguments: CommandArguments {
    var last: Int
    static let fields = [ArgumentField("last", help: "How many", default: 10)]
}

struct TableShowArguments: CommandArguments {
    var backspin: Bool
    static let fields = [ArgumentField("backspin", help: "Include the backspin spins in the default table")]
}

struct TableFileArguments: CommandArguments {
    var file: String
    static let fields = [ArgumentField.path("file", help: "Table file (JSON)", positional: true)]
}

struct DrillFileArguments: CommandArguments {
    var file: String
    static let fields = [drillFileField]
}

struct DrillShowArguments: CommandArguments {
    var drill: String
    var seed: Int?
    static let fields = [drillField, seedField]
}

struct DrillRunArguments: CommandArguments {
    var drill: String
    var seed: Int?
    var svg: String?
    var checksum: Checksum?
    var dryRun: Bool
    enum CodingKeys: String, CodingKey {
        case drill, seed, svg, checksum
        case dryRun = "dry-run"
    }
    static let fields = [
        drillField, seedField, ArgumentField.path("svg", help: "Write the landing pattern on the court here", access: .write),
        checksumField, ArgumentField("dry-run", help: "Print the frames; open no device, do not wait"),
    ]
}

struct StopArguments: CommandArguments {
    var run: Int?
    static let fields = [ArgumentField("run", help: "Only this run (from the drill events or `tennis running`)")]
}

struct DemoArguments: CommandArguments {
    var out: String
    static let fields = [ArgumentField.path("out", help: "Folder for the demo's output")]
}
