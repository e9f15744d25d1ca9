// The arguments of each putting command as a type (PluginKit's CommandArguments): the catalogue's
// argument list is made from these, and each handler gets one decoded — hole numbers as Int, points as
// ArgumentPoint, the model, skill and capture rule as PuttingCore's own enums.

import PluginKit
import PuttingCore

// PuttingCore's enums are the choices (their cases, in order): the adapter declares that they are.
extension PuttingModel: ArgumentChoice {}
extension SkillLevel: ArgumentChoice {}
extension CaptureRule.Falloff: ArgumentChoice {}

/// GreenReader's files of a hole (`GreenReaderAPI.fileNames`, in its order).
enum GreenReaderFile: String, ArgumentChoice {
    case boundary = "boundary.json"
    case contours = "contours.json"
    case heightfieldJSON = "heightfield.json"
    case heightfieldBinary = "heightfield.bin"
}

private let courseField = ArgumentField("course", help: "Course id")
private let holeField = ArgumentField("hole", help: "Hole number")
private let flagField = ArgumentField("flag", help: "Hole (flag) position X,Z in feet (default: the hole's stored cup, when it has one)")
private let stimpField = ArgumentField("stimp", help: "Green speed in feet (default: the site's config, else 10)")
private let modelField = ArgumentField("model", help: "physics (default) or compat (the original service's model)")
private let skillField = ArgumentField("skill", help: "Physics: whose stroke the make probability assumes: tour, scratch, 10, 20 or 25 (a handicap; default: the site's config skill, else tour)")

/// The putt a picture shows (`render`, `mesh`): the arguments every best-line-drawing command shares.
protocol PuttArguments: CommandArguments {
    var course: String { get }
    var hole: Int { get }
    var ball: ArgumentPoint? { get }
    var flag: ArgumentPoint? { get }
    var stimp: Double? { get }
    var model: PuttingModel? { get }
}

/// The fields of the shared putt arguments, in their order.
private let puttFields = [
    courseField, holeField,
    ArgumentField("ball", help: "Ball position X,Z in feet (green frame: +x east, +z north, origin at the centre)"),
    flagField, stimpField, modelField,
]

struct CourseImportArguments: CommandArguments {
    var dir: String
    var id: String
    var name: String?
    var city: String?
    var state: String?
    var process: Bool
    var sourcesOnly: Bool
    enum CodingKeys: String, CodingKey {
        case dir, id, name, city, state, process
        case sourcesOnly = "sources-only"
    }
    static let fields = [
        ArgumentField.path("dir", help: "The course folder", positional: true),
        ArgumentField("id", help: "Course id (a–z, 0–9, '-', '_')"), ArgumentField("name", help: "Course name (default: the id)"),
        ArgumentField("city", help: "City"), ArgumentField("state", help: "State or region"),
        ArgumentField("process", help: "Build the heightfield of every hole that has none from its traced contours and boundary"),
        ArgumentField("sources-only", help: "Ignore *_heightfield files: keep only the traced contours and boundaries"),
    ]
}

struct HoleProcessArguments: CommandArguments {
    var course: String
    var hole: Int?
    var all: Bool
    static let fields = [
        courseField, ArgumentField("hole", help: "Hole number (processed again even if it has a heightfield)"),
        ArgumentField("all", help: "Every hole of the course that has no heightfield yet"),
    ]
}

struct HoleExportArguments: CommandArguments {
    var course: String
    var hole: Int
    var out: String
    static let fields = [courseField, holeField, ArgumentField.path("out", help: "Folder to write the two files into (created if missing)")]
}

struct HoleImportArguments: CommandArguments {
    var course: String
    var hole: Int
    var heightfield: String
    static let fields = [
        ArgumentField("course", help: "Course id (must exist)"), ArgumentField("hole", help: "Hole number 1–99"),
        ArgumentField.path("heightfield", help: "The heightfield .json"),
    ]
}

struct HolesArguments: CommandArguments {
    var course: String
    static let fields = [ArgumentField("course", help: "Course id", positional: true)]
}

struct BestLineArguments: CommandArguments {
    var course: String
    var hole: Int
    var ball: ArgumentPoint
    var flag: ArgumentPoint?
    var stimp: Double?
    var model: PuttingModel?
    var pastIn: Double?
    var skill: SkillLevel?
    var capture: CaptureRule.Falloff?
    var async: Bool
    var noCache: Bool
    enum CodingKeys: String, CodingKey {
        case course, hole, ball, flag, stimp, model
        case pastIn = "past-in"
        case skill, capture, async
        case noCache = "no-cache"
    }
    static let fields = puttFields + [
        ArgumentField("past-in", help: "Physics: inches past the hole the best line would finish (default: config past_hole_in, else 17)"),
        skillField, ArgumentField("capture", help: "Physics: capture limit falloff across the cup (default chord)"),
        ArgumentField("async", help: "Submit a job and return its id at once"),
        ArgumentField("no-cache", help: "Compute again even when a cached result exists"),
    ]
}

struct RollArguments: CommandArguments {
    var course: String
    var hole: Int
    var ball: ArgumentPoint
    var flag: ArgumentPoint?
    var stimp: Double?
    var aim: Double?
    var aimPoint: ArgumentPoint?
    var speed: Double?
    var pace: Double?
    var skill: SkillLevel?
    var svg: String?
    var out: String?
    enum CodingKeys: String, CodingKey {
        case course, hole, ball, flag, stimp, aim
        case aimPoint = "aim-point"
        case speed, pace, skill, svg, out
    }
    static let fields = [
        courseField, holeField, ArgumentField("ball", help: "Ball position X,Z in feet"), flagField, stimpField,
        ArgumentField("aim", help: "Aim, degrees from the straight line to the hole (positive = left)"),
        ArgumentField("aim-point", help: "Aim at this point X,Z instead of --aim"),
        ArgumentField("speed", help: "Launch speed, ft/s"),
        ArgumentField("pace", help: "Feet past the hole the ball would roll on flat ground, instead of --speed"),
        skillField,
        ArgumentField.path("svg", help: "Also write an SVG of the roll", access: .write),
        ArgumentField.path("out", help: "Also write a 3D mesh: name.gltf or name.obj", access: .write),
    ]
}

struct BookArguments: CommandArguments {
    var course: String
    var hole: Int
    var flag: ArgumentPoint?
    var stimp: Double?
    var spacing: Double
    var pastIn: Double?
    var skill: SkillLevel?
    var svg: String?
    var csv: String?
    var jsonFile: String?
    var width: Int
    var async: Bool
    enum CodingKeys: String, CodingKey {
        case course, hole, flag, stimp, spacing
        case pastIn = "past-in"
        case skill, svg, csv
        case jsonFile = "json-file"
        case width, async
    }
    static let fields = [
        courseField, holeField, flagField, stimpField, ArgumentField("spacing", help: "Grid spacing in feet", default: .double(3)),
        ArgumentField("past-in", help: "Inches past the hole the lines finish (default: config past_hole_in, else 17)"), skillField,
        ArgumentField.path("svg", help: "Write the SVG sheet here", access: .write),
        ArgumentField.path("csv", help: "Write one CSV row per position here", access: .write),
        ArgumentField.path("json-file", help: "Write the book's JSON here (the same as --json prints)", access: .write),
        ArgumentField("width", help: "SVG width in pixels", default: 1200),
        ArgumentField("async", help: "Submit a job and return its id at once, or the book when every position is cached (the files are written by running the book again once it is done)"),
    ]
}

struct JobArguments: CommandArguments {
    var id: String
    static let fields = [ArgumentField("id", help: "Job id (printed by bestline --async or book --async)", positional: true)]
}

struct JobRunArguments: CommandArguments {
    var id: String
    static let fields = [ArgumentField("id", help: "Job id", positional: true)]
}

struct RenderArguments: PuttArguments {
    var course: String
    var hole: Int
    var ball: ArgumentPoint?
    var flag: ArgumentPoint?
    var stimp: Double?
    var model: PuttingModel?
    var svg: String
    var width: Int
    var noContours: Bool
    var noBoundary: Bool
    var noShading: Bool
    enum CodingKeys: String, CodingKey {
        case course, hole, ball, flag, stimp, model, svg, width
        case noContours = "no-contours"
        case noBoundary = "no-boundary"
        case noShading = "no-shading"
    }
    static let fields = puttFields + [
        ArgumentField.path("svg", help: "The SVG file to write", access: .write),
        ArgumentField("width", help: "Picture width in pixels", default: 900),
        ArgumentField("no-contours", help: "Leave out the contour lines"), ArgumentField("no-boundary", help: "Leave out the boundary"),
        ArgumentField("no-shading", help: "Leave out the elevation shading"),
    ]
}

struct MeshArguments: PuttArguments {
    var course: String
    var hole: Int
    var ball: ArgumentPoint?
    var flag: ArgumentPoint?
    var stimp: Double?
    var model: PuttingModel?
    var out: String
    var exaggeration: Double
    static let fields = puttFields + [
        ArgumentField.path("out", help: "The mesh file: name.gltf (glTF 2.0, self-contained) or name.obj", access: .write),
        ArgumentField("exaggeration", help: "Vertical exaggeration of the green (1 = true scale)", default: .double(1)),
    ]
}

struct DemoArguments: CommandArguments {
    var out: String
    static let fields = [ArgumentField.path("out", help: "Folder for the demo's pictures")]
}

// GreenReader's API: its own parameter names (courseId, holeNum, ballXFt, …).

private let courseIDField = ArgumentField("courseId", help: "Course id")
private let holeNumField = ArgumentField("holeNum", help: "Hole number")

struct GreenReaderCourseArguments: CommandArguments {
    var courseId: String
    static let fields = [courseIDField]
}

struct GreenReaderHoleArguments: CommandArguments {
    var courseId: String
    var holeNum: Int
    var base: String
    static let fields = [
        courseIDField, holeNumField,
        ArgumentField("base", help: "The path the API is served under (the links in sourceUrls and processedUrls start with it)", default: "/"),
    ]
}

struct GreenReaderFileArguments: CommandArguments {
    var courseId: String
    var holeNum: Int
    var name: GreenReaderFile
    var out: String
    static let fields = [
        courseIDField, holeNumField, ArgumentField("name", help: "Which file"),
        ArgumentField.path("out", help: "Where to write it", access: .write),
    ]
}

struct GreenReaderBestLineArguments: CommandArguments {
    var courseId: String
    var holeNum: Int
    var ballXFt: Double
    var ballZFt: Double
    var holeXFt: Double
    var holeZFt: Double
    var stimpFt: Double?
    static let fields = [
        courseIDField, holeNumField,
        ArgumentField("ballXFt", help: "Ball X in feet (green frame, +X right)"), ArgumentField("ballZFt", help: "Ball Z in feet (+Z up the map)"),
        ArgumentField("holeXFt", help: "Hole (flag) X in feet"), ArgumentField("holeZFt", help: "Hole (flag) Z in feet"),
        ArgumentField("stimpFt", help: "Green speed in feet (default: the site's config, else 10)"),
    ]
}

struct GreenReaderJobArguments: CommandArguments {
    var courseId: String
    var holeNum: Int
    var jobId: String
    static let fields = [courseIDField, holeNumField, ArgumentField("jobId", help: "The job id a best line answered")]
}
