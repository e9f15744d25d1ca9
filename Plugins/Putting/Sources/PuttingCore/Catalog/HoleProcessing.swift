// `putting hole process` and `putting hole export`, and the step `putting course import --process`
// shares with them: a hole's kept traced files → `GreenProcessor` → a heightfield stored like an
// imported one (with its content hash), and a stored heightfield written back in the original format.
import ClubhouseJSON

extension TracedSourceFiles {
    /// Parses and checks both files as processing will (errors name the file, line and column).
    public func parse(what: String) throws(PuttingError) -> (boundary: TracedBoundary, contours: TracedContours) {
        do {
            let boundary = try TracedBoundary.parse(boundaryText, file: boundaryFile)
            let contours = try TracedContours.parse(contoursText, file: contoursFile)
            try GreenProcessor.checkSameGreen(boundary: boundary, contours: contours)
            return (boundary, contours)
        } catch {
            throw .processing(what: what, error)
        }
    }
}

/// One hole processed: the hole with its new heightfield, and what the run learnt.
public struct HoleProcessing: Sendable, Equatable {
    /// The hole as it will be stored (heightfield set, origin `processed`).
    public var hole: Hole
    /// Its status before (source only, imported or processed).
    public var previous: HoleStatus
    public var report: ProcessingReport
    /// One line: grid, inside nodes, samples, time.
    public var summary: String

    public var json: JSONValue {
        guard case .object(var o) = hole.summary.json else { return hole.summary.json }
        o["previous"] = .string(previous.rawValue)
        let r = report
        o["processing"] = [
            "nx": .int(r.nx), "nz": .int(r.nz), "resolution_ft": .double(r.resolutionFt), "x_min_ft": .double(r.xMinFt),
            "z_min_ft": .double(r.zMinFt), "insideNodes": .int(r.insideNodes), "samples": .int(r.samples),
            "shiftFt": .double(r.shiftFt), "conditionEstimate": .double(r.conditionEstimate),
            "warnings": .array(r.warnings.map(JSONValue.string)),
            "timings": ["solveSeconds": .double(r.timings.solveSeconds), "evaluationSeconds": .double(r.timings.evaluationSeconds),
                        "maskSeconds": .double(r.timings.maskSeconds)],
        ]
        return .object(o)
    }

    public var text: String {
        let was = previous == .sourceOnly ? "" : " (replacing its \(previous.label) heightfield)"
        var lines = ["Processed \(hole.courseID) hole \(hole.number)\(was): \(summary); hash \((hole.heightfieldHash ?? "").prefix(12))"]
        for warning in report.warnings { lines.append("  warning: \(warning)") }
        return lines.joined(separator: "\n")
    }
}

/// Builds holes' heightfields from their kept traced files.
public enum HoleProcessor {
    /// The hole with a heightfield built from its traced files. Nothing is stored here.
    public static func process(_ hole: Hole, options: ProcessingOptions = ProcessingOptions(),
                               progress: (ProcessingProgress) -> Void = { _ in }) throws(PuttingError) -> HoleProcessing
    {
        let what = "\(hole.courseID) hole \(hole.number)"
        guard let traced = hole.traced else { throw .noTracedSources(course: hole.courseID, hole: hole.number) }
        let (boundary, contours) = try traced.parse(what: what)
        let result: ProcessingResult
        do {
            result = try GreenProcessor.process(boundary: boundary, contours: contours, options: options, progress: progress)
        } catch {
            throw .processing(what: what, error)
        }
        let grid = result.grid
        // The original format reads height 0 as "off the green", and the lowest inside node is 0 by
        // construction: a boundary around a single node (or a perfectly level surface) leaves no green.
        guard grid.heights.contains(where: { $0 > 0 }) else {
            throw .processing(what: what, GreenProcessingError(
                .emptyMask, at: boundary.source?.locate("/points_xz_ft"),
                "every node inside the boundary ends at height 0, which the heightfield format reads as off the green (\(grid.insideCount) node\(grid.insideCount == 1 ? "" : "s") inside); trace a boundary around the whole green and contours at two or more heights"))
        }
        let heightfield: Heightfield
        do {
            heightfield = try Heightfield(nx: grid.nx, nz: grid.nz, resolutionFt: grid.resolutionFt, xMinFt: grid.xMinFt,
                                          zMinFt: grid.zMinFt, heights: grid.heights)
        } catch {
            throw .heightfield(error)
        }
        var processed = hole
        processed.setHeightfield(heightfield, origin: .processed)
        // The traced files give the green's size exactly; keep the catalog's frame the one the grid was built on.
        processed.greenWidthFt = contours.greenWidthFt
        processed.greenHeightFt = contours.greenHeightFt
        return HoleProcessing(hole: processed, previous: hole.status, report: result.report, summary: result.summary)
    }
}

/// `putting hole process --course ID (--hole N | --all)`
public struct HoleProcessRequest: Sendable, Equatable {
    public var course: String
    /// One hole (processed whatever its status), or nil with `all`.
    public var hole: Int?
    /// Every hole of the course that has traced files and no heightfield yet.
    public var all: Bool

    public init(course: String, hole: Int? = nil, all: Bool = false) {
        self.course = course
        self.hole = hole
        self.all = all
    }
}

/// What `putting hole process` did.
public struct HoleProcessReport: Sendable {
    public var course: Course
    public var processed: [HoleProcessing]
    /// With --all: the holes left as they were (they already have a heightfield).
    public var skipped: [Int]

    public var json: JSONValue {
        ["course": course.json, "holes": .array(processed.map(\.json)), "skipped": .array(skipped.map(JSONValue.int))]
    }

    public var text: String {
        guard !processed.isEmpty else {
            return "Nothing to process in \(course.id): every hole has a heightfield (process one again with `putting hole process --course \(course.id) --hole N`)"
        }
        var lines = processed.map(\.text)
        if !skipped.isEmpty {
            lines.append("Left as they were (they have a heightfield): hole\(skipped.count == 1 ? "" : "s") \(skipped.map(String.init).joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }
}

/// `putting hole export --course ID --hole N --out DIR`: the two files of the original format.
public struct HoleExport: Sendable {
    public var summary: HoleSummary
    /// `Hole_N_heightfield.json` and `Hole_N_heightfield.bin` with their bytes.
    public var files: [(name: String, bytes: [UInt8])]

    /// `directory`: where the adapter wrote the files.
    public func json(directory: String) -> JSONValue {
        ["course": .string(summary.courseID), "hole": .int(summary.number), "status": .string(summary.status.rawValue),
         "heightfieldHash": summary.heightfieldHash.map(JSONValue.string) ?? .null, "out": .string(directory),
         "files": .array(files.map { ["name": .string($0.name), "bytes": .int($0.bytes.count)] })]
    }

    public func text(directory: String) -> String {
        let names = files.map { "\($0.name) (\($0.bytes.count) bytes)" }.joined(separator: " and ")
        return "Wrote \(names) to \(directory): \(summary.courseID) hole \(summary.number), \(summary.status.label) heightfield, hash \((summary.heightfieldHash ?? "").prefix(12))"
    }
}

extension PuttingService {
    /// `putting hole process`: builds the heightfields first, then stores them all in one transaction,
    /// so an error (in any hole) stores nothing. `progress` gets the fraction of the whole run;
    /// `isCancelled` is asked before each hole (a stop stores nothing either).
    public func processHoles(_ request: HoleProcessRequest, options: ProcessingOptions = ProcessingOptions(),
                             progress: ((Double) -> Void)? = nil,
                             isCancelled: () -> Bool = { false }) throws(PuttingError) -> HoleProcessReport
    {
        guard let course = try store.course(id: request.course) else { throw .unknownCourse(request.course) }
        var targets: [Hole] = []
        var skipped: [Int] = []
        switch (request.hole, request.all) {
        case (let n?, false):
            let hole = try hole(course: course.id, number: n)
            guard hole.traced != nil else { throw .noTracedSources(course: course.id, hole: n) }
            targets = [hole]
        case (nil, true):
            for summary in try store.holeSummaries(courseID: course.id) {
                guard summary.status == .sourceOnly else {
                    skipped.append(summary.number)
                    continue
                }
                targets.append(try hole(course: course.id, number: summary.number))
            }
        case (_?, true): throw .processTarget(both: true)
        case (nil, false): throw .processTarget(both: false)
        }
        var done: [HoleProcessing] = []
        for (k, hole) in targets.enumerated() {
            if isCancelled() { throw .cancelled(what: "processing \(course.id) hole \(hole.number)") }
            let base = Double(k), count = Double(targets.count)
            done.append(try HoleProcessor.process(hole, options: options) { p in progress?((base + p.fraction) / count) })
        }
        // The last look before the one write: a stop asked for during the last hole still counts.
        if isCancelled() { throw .cancelled(what: "storing \(done.count) processed hole\(done.count == 1 ? "" : "s") of \(course.id)") }
        if !done.isEmpty { try store.putHoles(done.map(\.hole)) }
        return HoleProcessReport(course: course, processed: done, skipped: skipped)
    }

    /// `putting hole export`: the stored heightfield in the original format (checked against its hash).
    public func exportHole(course: String, number: Int) throws(PuttingError) -> HoleExport {
        let hole = try hole(course: course, number: number)
        let hf = try hole.requireHeightfield()
        let found = hf.contentHash
        guard found == hole.heightfieldHash else {
            throw .heightfieldInconsistent(course: course, hole: number, expected: hole.heightfieldHash ?? "", found: found)
        }
        let names = HeightfieldFileFormat.fileNames(hole: number)
        let json = HeightfieldFileFormat.gridJSON(nx: hf.nx, nz: hf.nz, resolutionFt: hf.resolutionFt, xMinFt: hf.xMinFt, zMinFt: hf.zMinFt)
        return HoleExport(summary: hole.summary, files: [(names.json, Array(json.utf8)), (names.bin, HeightfieldFileFormat.binBytes(hf.heights))])
    }
}
