// Every error a putting user can cause, each a one-line message: what, where, what to do.

/// Errors of the putting plugin's commands.
public enum PuttingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A heightfield file or grid was refused.
    case heightfield(HeightfieldError)
    /// A green file (config, boundary, contours, request) is not valid JSON.
    case invalidJSON(file: String, line: Int, column: Int, message: String)
    /// A field of a green file is missing or wrong.
    case badField(file: String, line: Int, column: Int, field: String, problem: String)
    case notADirectory(path: String)
    case noHoles(directory: String)
    case duplicateHole(number: Int, first: String, second: String)
    /// A hole folder has no heightfield, or (with `sourcesOnly`) it is to be built from traced files
    /// and `missing` of them are absent.
    case missingGreenFiles(holeDirectory: String, missing: [String], sourcesOnly: Bool)
    case invalidCourseID(String)
    case invalidHoleNumber(Int)
    /// `suggestions`: ids of stored courses close to what was typed (its name, other letters).
    case unknownCourse(String, suggestions: [String] = [])
    case unknownHole(course: String, number: Int)
    case stimpOutOfRange(Double)
    /// Green speeds a real green can have, feet on a stimpmeter: the slowest public greens read about 6,
    /// the fastest tournament greens about 14–15 (USGA stimpmeter guidance). Outside this the model would
    /// answer for a surface no golfer putts on (at 0.001 a ball never stops, at 20 it barely rolls off the putter).
    public static let stimpRange: ClosedRange<Double> = 4...16
    case finishPastOutOfRange(Double)
    case positionOffGreen(what: String, point: PointFt, course: String, hole: Int, spanX: ClosedRange<Double>, spanZ: ClosedRange<Double>)
    /// A position off the green with the nearest point that is on it (`PuttingService.explained`).
    /// `insideBox`: the point is within the grid's span (the box an older message gave), so only the
    /// outline keeps it off.
    case positionOutsideGreen(what: String, point: PointFt, course: String, hole: Int, insideBox: Bool, nearest: PointFt?, distanceFt: Double?)
    /// No `flag` argument and the hole has no stored cup position.
    case noStoredCup(course: String, hole: Int)
    case ballOnHole(distanceFt: Double, cupRadiusFt: Double)
    case notFinite(what: String)
    /// The stored heightfield does not match its recorded hash (the catalog is damaged).
    case heightfieldInconsistent(course: String, hole: Int, expected: String, found: String)
    case unknownModel(String)
    /// A skill level name that is not one of `SkillLevel`'s.
    case unknownSkill(String)
    case unknownJob(String)
    case storage(String)
    case unknownMeshFormat(path: String)
    /// The hole has only its traced sources: a best line, mesh or export needs its heightfield.
    case notProcessed(course: String, hole: Int)
    /// The hole has no traced boundary and contours to build a heightfield from.
    case noTracedSources(course: String, hole: Int)
    /// Building a heightfield from traced contours failed (`what`: e.g. "presidio hole 3").
    case processing(what: String, GreenProcessingError)
    /// `putting hole process` needs exactly one of the `hole` and `all` arguments.
    case processTarget(both: Bool)
    /// The caller asked to stop a long run; `what` was about to start and nothing was stored.
    case cancelled(what: String)
    /// A number outside its allowed range (`limit` says the range, in words).
    case invalidSetting(name: String, value: Double, limit: String)
    /// A green book grid with more positions than the limit.
    case bookTooDense(spacingFt: Double, positions: Int, minimumSpacingFt: Double)
    /// A green book stopped as asked after `done` of `total` positions (those stay cached).
    case bookStopped(done: Int, total: Int)
    /// A book job stopped as asked after `done` of `total` positions; it is queued again.
    case jobStopped(id: String, done: Int, total: Int)

    /// The message with the arguments' own names ("ball", "stimp"); `message(naming:)` for a front end's.
    public var description: String { message(naming: { $0 }) }

    /// The one-line message, each argument named by `name` (the command line's adapter says "--ball").
    public func message(naming name: (String) -> String) -> String {
        switch self {
        case .heightfield(let e):
            return e.description
        case .invalidJSON(let file, let line, let column, let message):
            return "\(file):\(line):\(column): invalid JSON: \(message)"
        case .badField(let file, let line, let column, let field, let problem):
            return "\(file):\(line):\(column): \(field) \(problem)"
        case .notADirectory(let path):
            return "\(path): not a directory: give the folder that holds the Hole_N (or hole_N) folders"
        case .noHoles(let directory):
            return "\(directory): no Hole_N or hole_N folders found: give the course folder of the original layout"
        case .duplicateHole(let number, let first, let second):
            return "hole \(number) appears twice (\(first) and \(second)): keep one folder per hole"
        case .missingGreenFiles(let dir, let missing, let sourcesOnly):
            let list = missing.joined(separator: " or ")
            if sourcesOnly {
                return "\(dir): no \(list) found: \(name("sources-only")) builds each green from its *_boundary.json and *_contours.json; add the file or leave the hole out"
            }
            return "\(dir): no *_heightfield.json found (nor in unity/), and no \(list) to build one from: add the files or leave the hole out"
        case .invalidCourseID(let id):
            return "course id \"\(id)\" is not valid: use 1–64 characters from a–z, 0–9, '-' and '_'"
        case .invalidHoleNumber(let n):
            return "hole number \(n) is not valid: use a number from 1 to 99"
        case .unknownCourse(let id, let suggestions) where !suggestions.isEmpty:
            let list = suggestions.count == 1 ? suggestions[0] : suggestions.dropLast().joined(separator: ", ") + " or " + (suggestions.last ?? "")
            return "unknown course \"\(id)\": did you mean \(list)? \(name("course")) takes the course's id (`putting courses` lists them)"
        case .unknownCourse(let id, _):
            return "unknown course \"\(id)\": list courses with `putting courses` or import one with `putting course import`"
        case .unknownHole(let course, let number):
            return "course \"\(course)\" has no hole \(number): list its holes with `putting holes \(course)`"
        case .stimpOutOfRange(let s):
            // A stimp read in metres (1.2–4.9 m) is 4–16 ft: say so.
            let feet = s * 3.28084
            let metres = s < PuttingError.stimpRange.lowerBound && PuttingError.stimpRange.contains(feet)
                ? "; if \(PuttingError.short(s)) is metres, that is \(name("stimp")) \(PuttingError.short((feet * 10).rounded() / 10)) (feet)" : ""
            return "stimp \(PuttingError.short(s)) ft is out of range: give a green speed from \(PuttingError.short(PuttingError.stimpRange.lowerBound)) "
                + "to \(PuttingError.short(PuttingError.stimpRange.upperBound)) ft (real greens measure about 7 when slow to 13–14 at tournaments)\(metres)"
        case .finishPastOutOfRange(let v):
            return "finish-past distance \(PuttingError.short(v)) ft is out of range: give a value from 0 to 10 ft (default 17 in = 1.417 ft)"
        case .positionOffGreen(let what, let p, let course, let hole, let sx, let sz):
            return "\(what) (\(PuttingError.short(p.x)), \(PuttingError.short(p.z))) is outside the green of \(course) hole \(hole): "
                + "pick a point on the green (x \(PuttingError.short(sx.lowerBound))…\(PuttingError.short(sx.upperBound)), "
                + "z \(PuttingError.short(sz.lowerBound))…\(PuttingError.short(sz.upperBound)) ft)"
        case .positionOutsideGreen(let what, let p, let course, let hole, let insideBox, let nearest, let distance):
            let at = "(\(PuttingError.short(p.x)), \(PuttingError.short(p.z)))"
            guard let nearest, let distance else {
                return "\(what) \(at) is outside the green of \(course) hole \(hole): the green has no cell to play from"
            }
            let option = what == "ball" || what == "flag" ? name(what) : what
            return "\(what) \(at) is outside the green of \(course) hole \(hole)\(insideBox ? " (inside the grid's box, but outside the green's outline)" : ""): "
                + "the nearest point on the green is (\(PuttingError.short(nearest.x)), \(PuttingError.short(nearest.z))), "
                + "\(fixed(distance, 1)) ft away, e.g. \(option) \(PuttingError.short(nearest.x)),\(PuttingError.short(nearest.z)); "
                + "`putting render --course \(course) --hole \(hole) --svg FILE` draws the green with a grid in feet"
        case .noStoredCup(let course, let hole):
            return "\(course) hole \(hole) has no stored cup position (its config.json has no hole_location): give \(name("flag")) X,Z in feet"
        case .ballOnHole(let d, let r):
            return "the ball is on the hole (\(PuttingError.short(d)) ft from the flag): place it at least one cup radius (\(PuttingError.short(r)) ft) away"
        case .notFinite(let what):
            return "\(what) is not a finite number: give plain numbers in feet"
        case .heightfieldInconsistent(let course, let hole, let expected, let found):
            return "the stored heightfield of \(course) hole \(hole) hashes to \(found.prefix(12))…, not the recorded \(expected.prefix(12))…: re-import the hole"
        case .unknownModel(let name):
            return "unknown model \"\(name)\": use physics (default) or compat"
        case .unknownSkill(let name):
            return "unknown skill \"\(name)\": use tour (default), scratch, 10, 20 or 25 (a handicap)"
        case .unknownJob(let id):
            return "unknown job \"\(id)\": job ids are printed by `putting bestline --async` and `putting book --async`"
        case .storage(let message):
            return "putting storage: \(message)"
        case .unknownMeshFormat(let path):
            return "\(path): unknown mesh format: name the file .gltf (glTF 2.0) or .obj (Wavefront OBJ)"
        case .notProcessed(let course, let hole):
            return "\(course) hole \(hole) has no heightfield yet (only its traced contours and boundary): build it with `clubhouse putting hole process --course \(course) --hole \(hole)`"
        case .noTracedSources(let course, let hole):
            return "\(course) hole \(hole) has no traced contours and boundary to build a heightfield from: re-import its folder with Hole_\(hole)_boundary.json and Hole_\(hole)_contours.json"
        case .processing(let what, let error):
            // A located error names its file (which names the hole); otherwise say which hole.
            return error.location == nil ? "\(what): \(error.message)" : error.description
        case .cancelled(let what):
            return "stopped before \(what) as asked: nothing was stored"
        case .invalidSetting(let name, let value, let limit):
            return "\(name) \(PuttingError.short(value)) is out of range: it must be \(limit)"
        case .bookTooDense(let spacing, let positions, let minimum):
            return "grid spacing \(PuttingError.short(spacing)) ft gives about \(positions) positions on this green, more than the limit of \(BookRequest.maxPositions): use \(name("spacing")) \(PuttingError.short(minimum)) or more"
        case .bookStopped(let done, let total):
            return "stopped as asked after \(done) of \(total) positions: those are cached, run the same book again to go on"
        case .jobStopped(let id, let done, let total):
            return "job \(id) stopped as asked after \(done) of \(total) positions: those are kept and the job is queued again; `putting job run \(id)` goes on where it stopped"
        case .processTarget(let both):
            let (hole, all) = (name("hole"), name("all"))
            return both ? "give either \(hole) N or \(all), not both" : "say which hole to process: \(hole) N, or \(all) for every hole that has no heightfield yet"
        }
    }

    /// A number for messages: up to 3 decimals, no trailing zeros.
    static func short(_ v: Double) -> String {
        guard v.isFinite else { return "\(v)" }
        var s = String(format3(v))
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }
}

/// `v` with three decimals (no Foundation formatting, so it is the same everywhere).
func format3(_ v: Double) -> String { fixed(v, 3) }

/// `v` rounded to `decimals` places, written without exponent.
func fixed(_ v: Double, _ decimals: Int) -> String {
    guard v.isFinite else { return v.isNaN ? "nan" : (v > 0 ? "inf" : "-inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(v) * scale).rounded()
    guard scaled < 9e15 else { return "\(v)" }
    let n = Int64(scaled)
    var digits = String(n)
    if decimals > 0 {
        while digits.count <= decimals { digits = "0" + digits }
        digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals))
    }
    return (v < 0 && n != 0 ? "-" : "") + digits
}
