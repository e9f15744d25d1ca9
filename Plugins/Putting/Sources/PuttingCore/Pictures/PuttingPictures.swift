// `putting render`, `putting mesh` and `putting demo`: pictures of greens and putts, and the demo
// that builds procedural greens, solves putts on them with both models and draws them.
import ClubhouseJSON

/// A putt to draw on a hole: positions and model (a best line is solved or taken from the cache).
public struct PuttSpec: Sendable, Equatable {
    public var ball: PointFt
    public var flag: PointFt
    public var stimpFt: Double
    public var model: PuttingModel

    public init(ball: PointFt, flag: PointFt, stimpFt: Double = 10, model: PuttingModel = .physics) {
        self.ball = ball
        self.flag = flag
        self.stimpFt = stimpFt
        self.model = model
    }
}

/// `putting render --course ID --hole N [--ball X,Z --flag X,Z …] --svg FILE`
public struct RenderRequest: Sendable, Equatable {
    public var course: String
    public var hole: Int
    public var putt: PuttSpec?
    public var widthPx: Double
    /// Draw the contour lines (the traced ones when stored, else traced from the heightfield).
    public var contours: Bool
    public var shading: Bool
    public var boundary: Bool

    public init(course: String, hole: Int, putt: PuttSpec? = nil, widthPx: Double = 900, contours: Bool = true, shading: Bool = true,
                boundary: Bool = true)
    {
        self.course = course
        self.hole = hole
        self.putt = putt
        self.widthPx = widthPx
        self.contours = contours
        self.shading = shading
        self.boundary = boundary
    }
}

/// An SVG and the best line drawn on it.
public struct RenderOutput: Sendable {
    public var svg: String
    public var result: BestLineResult?

    public var json: JSONValue {
        var o = JSONObject()
        o["bytes"] = .int(svg.utf8.count)
        if let result, let line = result.json["bestLine"] { o["bestLine"] = line }
        return .object(o)
    }

    public var text: String {
        "SVG of \(svg.utf8.count) bytes" + (result.map { "\n" + $0.text } ?? "")
    }
}

extension MeshFormat {
    /// From a file name's extension (.gltf or .obj), or the putting error naming the path.
    public init(path: String) throws(PuttingError) {
        guard let format = MeshFormat(fileName: path) else { throw .unknownMeshFormat(path: path) }
        self = format
    }
}

/// `putting mesh --course ID --hole N [--ball X,Z --flag X,Z …] --out FILE`
public struct MeshRequest: Sendable, Equatable {
    public var course: String
    public var hole: Int
    public var putt: PuttSpec?
    public var format: MeshFormat
    public var verticalExaggeration: Double

    public init(course: String, hole: Int, putt: PuttSpec? = nil, format: MeshFormat = .gltf, verticalExaggeration: Double = 1) {
        self.course = course
        self.hole = hole
        self.putt = putt
        self.format = format
        self.verticalExaggeration = verticalExaggeration
    }
}

/// A mesh file's text and what it holds.
public struct MeshOutput: Sendable {
    public var contents: String
    public var format: MeshFormat
    public var parts: [(name: String, vertices: Int, triangles: Int)]
    public var result: BestLineResult?

    public var json: JSONValue {
        var o = JSONObject()
        o["format"] = .string(format.rawValue)
        o["bytes"] = .int(contents.utf8.count)
        o["parts"] = .array(parts.map { ["name": .string($0.name), "vertices": .int($0.vertices), "triangles": .int($0.triangles)] })
        if let result, let line = result.json["bestLine"] { o["bestLine"] = line }
        return .object(o)
    }

    public var text: String {
        let list = parts.map { "\($0.name) \($0.triangles) triangles" }.joined(separator: ", ")
        return "\(format == .gltf ? "glTF 2.0" : "Wavefront OBJ") mesh of \(contents.utf8.count) bytes: \(list)"
    }
}

/// `putting demo`: what it made.
public struct DemoOutput: Sendable {
    /// File name → contents (the adapter writes them into its output folder).
    public var files: [(name: String, contents: String)]
    public var results: [BestLineResult]
    public var course: Course
    /// The hole built from generated traced files, when the demo made one.
    public var traced: TracedDemo?

    public var json: JSONValue {
        var o = JSONObject()
        o["course"] = course.json
        o["files"] = .array(files.map { .string($0.name) })
        o["bestLines"] = .array(results.compactMap { $0.json["bestLine"] })
        o["traced"] = traced.map(\.json) ?? .null
        return .object(o)
    }

    public var text: String {
        let procedural = results.filter { $0.hole != traced?.processing.hole.number }
        var lines = ["Demo course \(course.id): \(procedural.count / 2) procedural greens, best lines with both models"]
        for r in results {
            lines.append("  hole \(r.hole) \(r.model.rawValue): aim \(r.aimDescription), \(fixed(r.speedFps, 2)) ft/s, \(r.holed ? "holed" : "missed by \(fixed(r.missFt, 2)) ft")")
        }
        if let traced { lines.append(traced.text) }
        lines.append("Files: " + files.map(\.name).joined(separator: ", "))
        return lines.joined(separator: "\n")
    }
}

/// The demo's green rebuilt from traced files it generated, and how close it came to the surface
/// the contours were traced from.
public struct TracedDemo: Sendable {
    public var processing: HoleProcessing
    /// Contour lines in the traced file.
    public var contourCount: Int
    /// The course folder (relative to the demo's output) holding the traced files, ready for import.
    public var folder: String
    /// Over the cells on the green in both: the mean of (rebuilt − generated) and the RMS and largest
    /// deviation from that mean, feet.
    public var offsetFt: Double
    public var rmsFt: Double
    public var maxFt: Double

    public var json: JSONValue {
        guard case .object(var o) = processing.json else { return processing.json }
        o["contourLines"] = .int(contourCount)
        o["folder"] = .string(folder)
        o["fit"] = ["offsetFt": .double(offsetFt), "rmsFt": .double(rmsFt), "maxFt": .double(maxFt)]
        return .object(o)
    }

    public var text: String {
        "  hole \(processing.hole.number): rebuilt from \(contourCount) traced contour lines (\(processing.report.samples) samples), "
            + "RMS \(fixed(rmsFt, 3)) ft (largest \(fixed(maxFt, 3)) ft) from the generated surface; its traced files are in \(folder)/ "
            + "(`putting course import \(folder) --id ID --process`)"
    }
}

extension PuttingService {
    /// Solves (or fetches from the cache) the best line a picture shows.
    func bestLine(for putt: PuttSpec, course: String, hole: Int) throws(PuttingError) -> BestLineResult {
        let request = BestLineRequest(course: course, hole: hole, ball: putt.ball, flag: putt.flag, stimpFt: putt.stimpFt, model: putt.model)
        guard case .result(let r, _) = try bestLine(request) else { throw .storage("a synchronous best line returned a job") }
        return r
    }

    /// The picture of a hole with an optional best line on it. A hole without a heightfield yet is
    /// drawn from its traced contours and boundary alone (no shading).
    public static func picture(of hole: Hole, result: BestLineResult?, widthPx: Double, contours: Bool, shading: Bool,
                               boundary: Bool = true) -> GreenPicture
    {
        let frame = hole.pixelFrame
        let canvas = hole.heightfield ?? sourceCanvas(hole)
        var picture = GreenPicture(heightfield: canvas, widthPx: widthPx, greenWidthFt: frame.greenWidthFt,
                                   greenHeightFt: frame.greenHeightFt)
        picture.mask = hole.heightfield.map(GreenSurface.closedMask) ?? [Bool](repeating: false, count: canvas.heights.count)
        picture.shading = shading && hole.heightfield != nil
        if contours {
            let interval = hole.contourIntervalFt ?? 0.25
            picture.contourIntervalFt = interval
            if !hole.contours.isEmpty {
                picture.contours = hole.contours
            } else if let hf = hole.heightfield {
                picture.contours = ContourTracer.trace(hf, interval: interval, mask: { hf.isGreen(column: $0, row: $1) })
            }
        }
        if boundary { picture.boundary = hole.boundary }
        picture.title = "\(hole.courseID) hole \(hole.number)"
        if hole.heightfield == nil {
            picture.title = "\(hole.courseID) hole \(hole.number): traced contours and boundary (no heightfield yet)"
            picture.legend = ["Build the heightfield with `putting hole process --course \(hole.courseID) --hole \(hole.number)`"]
        }
        if result == nil, hole.heightfield != nil {
            // The plain green is where a user reads positions from: a grid in feet, named axes,
            // and the stored cup.
            picture.grid = true
            picture.flag = hole.holePosition
            picture.flagLabel = hole.holePosition == nil ? nil : "cup"
            let cup = hole.holePosition.map { "; the stored cup is at \(fixed($0.x, 2)),\(fixed($0.z, 2)) (the default --flag)" } ?? ""
            picture.cropToGreen()
            picture.legend = ["Positions are X,Z in feet from the green's centre, x east, z north: grid every "
                + "\(PuttingError.short(picture.gridSpacingFt)) ft, e.g. --ball 0,-10 is 10 ft south of the centre\(cup)"]
            return picture
        }
        if let r = result {
            picture.ball = PointFt(x: r.ballXFt, z: r.ballZFt)
            picture.flag = PointFt(x: r.holeXFt, z: r.holeZFt)
            picture.path = zip(r.pathXFt, r.pathZFt).map { PointFt(x: $0, z: $1) }
            // The aim line runs on past the hole's distance (a quarter more, at least 3 ft), so it reads as a
            // direction and not a stub hidden under the path.
            let from = PointFt(x: r.ballXFt, z: r.ballZFt), to = r.aimPoint
            let reach = Swift.max(1.25, (r.distanceFt + 3) / Swift.max(r.distanceFt, 1e-9))
            picture.aimLine = (from, PointFt(x: from.x + (to.x - from.x) * reach, z: from.z + (to.z - from.z) * reach))
            picture.title = "\(hole.courseID) hole \(hole.number): \(fixed(r.distanceFt, 1)) ft putt, stimp \(PuttingError.short(r.stimpFt)), \(r.model.rawValue) model"
            picture.legend = ["Aim \(r.aimDescription)",
                              "Speed \(fixed(r.speedFps, 2)) ft/s (\(fixed(r.speedFps * 0.3048, 3)) m/s)",
                              "Result: \(r.holed ? "holed" : "missed by \(fixed(r.missFt, 2)) ft")"]
            if let t = r.tolerance {
                picture.legend.append("Still holes aimed \(AimSide.window(minIn: t.aimMinIn, maxIn: t.aimMaxIn)) of the hole "
                    + "or struck \(fixed(t.speedMinFps, 2))–\(fixed(t.speedMaxFps, 2)) ft/s")
            }
            if let p = r.makeProbability, let e = r.errors {
                picture.legend.append("Make probability \(fixed(p * 100, 1))% with \(e.summary)")
            }
            if r.holeable == false {
                picture.legend.append("Cannot be holed: \(r.notHoleableReason ?? "no stroke drops"); best leave shown")
            }
        }
        picture.cropToGreen()
        return picture
    }

    /// A flat, all-off-green grid over the processing grid's span: the canvas a hole without a
    /// heightfield is drawn on.
    static func sourceCanvas(_ hole: Hole) -> Heightfield {
        let res = ProcessingOptions.originalResolutionFt
        let xs = ArangeGridAxis(extentFt: hole.greenWidthFt, resolutionFt: res)
        let zs = ArangeGridAxis(extentFt: hole.greenHeightFt, resolutionFt: res)
        return Heightfield.zeros(nx: xs.count, nz: zs.count, resolutionFt: res, xMinFt: -hole.greenWidthFt / 2,
                                 zMinFt: -hole.greenHeightFt / 2)
    }

    /// `putting render`
    public func render(_ request: RenderRequest) throws(PuttingError) -> RenderOutput {
        let hole = try hole(course: request.course, number: request.hole)
        let result = try request.putt.map { (p: PuttSpec) throws(PuttingError) in try bestLine(for: p, course: request.course, hole: request.hole) }
        let picture = PuttingService.picture(of: hole, result: result, widthPx: request.widthPx, contours: request.contours,
                                             shading: request.shading, boundary: request.boundary)
        return RenderOutput(svg: picture.svg(), result: result)
    }

    /// `putting mesh`
    public func mesh(_ request: MeshRequest) throws(PuttingError) -> MeshOutput {
        let hole = try hole(course: request.course, number: request.hole)
        let heightfield = try hole.requireHeightfield()
        let result = try request.putt.map { (p: PuttSpec) throws(PuttingError) in try bestLine(for: p, course: request.course, hole: request.hole) }
        let path = result.map { r in (0..<r.pathXFt.count).map { (x: r.pathXFt[$0], z: r.pathZFt[$0], y: r.pathYFt[$0]) } } ?? []
        let mesh = GreenMesh(heightfield: heightfield, mask: GreenSurface.closedMask(heightfield), path: path,
                             flag: result.map { PointFt(x: $0.holeXFt, z: $0.holeZFt) } ?? hole.holePosition,
                             verticalExaggeration: request.verticalExaggeration)
        let contents = request.format == .gltf ? mesh.gltf() : mesh.obj()
        return MeshOutput(contents: contents, format: request.format,
                          parts: mesh.parts.map { ($0.name, $0.vertexCount, $0.triangleCount) }, result: result)
    }

    /// `putting demo`: makes `count` procedural greens (seeded), plus (with `traced`) one more built
    /// from generated traced files by the processing step, stores them as course `courseID`, solves one
    /// putt on each (both models on the procedural greens), and returns SVGs, a glTF mesh of the first
    /// green and the traced files.
    public func demo(courseID: String = "demo", count: Int = 3, seed: UInt64 = 2024, stimpFt: Double = 10, traced: Bool = true,
                     progress: ((Double) -> Void)? = nil) throws(PuttingError) -> DemoOutput
    {
        var holes: [Hole] = []
        var greens: [GeneratedGreen] = []
        for k in 0..<Swift.max(1, count) {
            let green: GeneratedGreen
            do { green = try GreenGenerator.procedural(seed: seed &+ UInt64(k), name: "Demo \(k + 1)") } catch { throw .heightfield(error) }
            greens.append(green)
            holes.append(Hole(courseID: courseID, number: k + 1, greenWidthFt: Double(green.heightfield.nx - 1) * green.heightfield.resolutionFt,
                              greenHeightFt: Double(green.heightfield.nz - 1) * green.heightfield.resolutionFt,
                              holePosition: green.hole, heightfield: green.heightfield, boundary: green.boundary,
                              contours: green.contours, contourIntervalFt: green.contourIntervalFt, source: "generated seed \(seed &+ UInt64(k))"))
        }
        let steps = Double(holes.count * 2 + (traced ? 2 : 0))
        var done = 0.0
        var files: [(String, String)] = []
        var tracedDemo: TracedDemo?
        var tracedGreen: GeneratedGreen?
        if traced {
            let (hole, demo, texts) = try tracedDemoHole(courseID: courseID, number: holes.count + 1, seed: seed &+ 1000) { fraction in
                progress?((done + fraction) / steps)
            }
            holes.append(hole.processing.hole)
            tracedDemo = demo
            tracedGreen = hole.green
            files += texts
            done += 1
        }
        let course = Course(id: courseID, name: "Clubhouse demo greens")
        try store.replaceCourse(course, holes: holes)
        var results: [BestLineResult] = []
        for (k, hole) in holes.enumerated() {
            let green = k < greens.count ? greens[k] : tracedGreen
            guard let green else { continue }
            let ball = green.balls.first ?? PointFt(x: green.hole.x - 10, z: green.hole.z)
            // The rebuilt green gets the default model only: it is there to show the traced lines.
            let models = k < greens.count ? PuttingModel.allCases : [.physics]
            for model in models {
                let putt = PuttSpec(ball: ball, flag: green.hole, stimpFt: stimpFt, model: model)
                let r = try bestLine(for: putt, course: courseID, hole: hole.number)
                results.append(r)
                let picture = PuttingService.picture(of: hole, result: r, widthPx: 900, contours: true, shading: true)
                let name = k < greens.count ? "\(courseID)-hole-\(hole.number)-\(model.rawValue).svg" : "\(courseID)-hole-\(hole.number)-traced.svg"
                files.append((name, picture.svg()))
                done += 1
                progress?(done / steps)
            }
            if k == 0, let r = results.first(where: { $0.hole == hole.number && $0.model == .physics }) {
                let path = (0..<r.pathXFt.count).map { (x: r.pathXFt[$0], z: r.pathZFt[$0], y: r.pathYFt[$0]) }
                let mesh = GreenMesh(heightfield: green.heightfield, mask: GreenSurface.closedMask(green.heightfield), path: path,
                                     flag: green.hole, verticalExaggeration: 3)
                files.append(("\(courseID)-hole-\(hole.number).gltf", mesh.gltf()))
            }
        }
        return DemoOutput(files: files, results: results, course: course, traced: tracedDemo)
    }

    /// A smaller procedural green's boundary and contours written as traced files, read back as a user's
    /// would be, processed, and compared with the surface they were traced from.
    private func tracedDemoHole(courseID: String, number: Int, seed: UInt64, progress: (Double) -> Void) throws(PuttingError)
        -> (hole: (processing: HoleProcessing, green: GeneratedGreen), demo: TracedDemo, files: [(String, String)])
    {
        let green: GeneratedGreen
        do { green = try GreenGenerator.procedural(seed: seed, name: "Demo traced", sizeFt: 44) } catch { throw .heightfield(error) }
        // A tenth of a foot apart: enough lines to rebuild this gentle a green closely.
        let (boundary, contours) = GreenGenerator.traced(green, intervalFt: 0.1)
        let folder = "\(courseID)-traced"
        let stem = "\(folder)/hole_\(number)/Hole_\(number)"
        let sources = TracedSourceFiles(boundaryFile: stem + "_boundary.json", boundaryText: boundary.fileText,
                                        contoursFile: stem + "_contours.json", contoursText: contours.fileText)
        let source = Hole(courseID: courseID, number: number, greenWidthFt: boundary.greenWidthFt, greenHeightFt: boundary.greenHeightFt,
                          holePosition: green.hole, boundary: green.boundary,
                          contours: contours.contours.map { ContourLine(heightFt: $0.heightFt, points: $0.points.map { PointFt(x: $0.x, z: $0.z) }) },
                          contourIntervalFt: contours.contourIntervalFt, traced: sources, source: "generated seed \(seed), traced")
        let processing = try HoleProcessor.process(source) { progress($0.fraction) }
        // Compare on the cells both call green.
        let rebuilt = try processing.hole.requireHeightfield(), original = green.heightfield
        var differences: [Double] = []
        if rebuilt.nx == original.nx, rebuilt.nz == original.nz {
            for k in original.heights.indices where original.heights[k] > 0 && rebuilt.heights[k] > 0 {
                differences.append(Double(rebuilt.heights[k]) - Double(original.heights[k]))
            }
        }
        let mean = differences.isEmpty ? 0 : differences.reduce(0, +) / Double(differences.count)
        let rms = differences.isEmpty ? 0 : (differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(differences.count)).squareRoot()
        let largest = differences.reduce(0) { Swift.max($0, abs($1 - mean)) }
        let demo = TracedDemo(processing: processing, contourCount: contours.contours.count, folder: folder, offsetFt: mean,
                              rmsFt: rms, maxFt: largest)
        return ((processing, green), demo, [(sources.boundaryFile, sources.boundaryText), (sources.contoursFile, sources.contoursText)])
    }
}
