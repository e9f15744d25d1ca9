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

/// Mesh file formats.
public enum MeshFormat: String, Sendable, CaseIterable {
    case gltf, obj

    /// From a file name's extension (.gltf or .obj).
    public init(path: String) throws(PuttingError) {
        let lower = path.lowercased()
        if lower.hasSuffix(".gltf") { self = .gltf } else if lower.hasSuffix(".obj") { self = .obj } else {
            throw .unknownMeshFormat(path: path)
        }
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

    public var json: JSONValue {
        ["course": course.json, "files": .array(files.map { .string($0.name) }),
         "bestLines": .array(results.compactMap { $0.json["bestLine"] })]
    }

    public var text: String {
        var lines = ["Demo course \(course.id): \(results.count / 2) procedural greens, best lines with both models"]
        for r in results {
            lines.append("  hole \(r.hole) \(r.model.rawValue): aim \(r.aimDescription), \(fixed(r.speedFps, 2)) ft/s, \(r.holed ? "holed" : "missed by \(fixed(r.missFt, 2)) ft")")
        }
        lines.append("Files: " + files.map(\.name).joined(separator: ", "))
        return lines.joined(separator: "\n")
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
        if let r = result {
            picture.ball = PointFt(x: r.ballXFt, z: r.ballZFt)
            picture.flag = PointFt(x: r.holeXFt, z: r.holeZFt)
            picture.path = zip(r.pathXFt, r.pathZFt).map { PointFt(x: $0, z: $1) }
            picture.aimLine = (PointFt(x: r.ballXFt, z: r.ballZFt), r.aimPoint)
            picture.title = "\(hole.courseID) hole \(hole.number): \(fixed(r.distanceFt, 1)) ft putt, stimp \(PuttingError.short(r.stimpFt)), \(r.model.rawValue) model"
            picture.legend = ["Aim \(r.aimDescription)",
                              "Speed \(fixed(r.speedFps, 2)) ft/s (\(fixed(r.speedFps * 0.3048, 3)) m/s)",
                              "Result: \(r.holed ? "holed" : "missed by \(fixed(r.missFt, 2)) ft")"]
            if let t = r.tolerance {
                picture.legend.append("Still holes with aim \(fixed(t.aimMinIn, 1))…\(fixed(t.aimMaxIn, 1)) in or speed \(fixed(t.speedMinFps, 2))…\(fixed(t.speedMaxFps, 2)) ft/s")
            }
        }
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

    /// `putting demo`: makes `count` procedural greens (seeded), stores them as course `courseID`, solves
    /// one putt on each with both models, and returns SVGs of both and a glTF mesh of the first.
    public func demo(courseID: String = "demo", count: Int = 3, seed: UInt64 = 2024, stimpFt: Double = 10,
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
        let course = Course(id: courseID, name: "Clubhouse demo greens")
        try store.replaceCourse(course, holes: holes)
        var files: [(String, String)] = []
        var results: [BestLineResult] = []
        let steps = Double(holes.count * 2)
        var done = 0.0
        for (k, hole) in holes.enumerated() {
            let ball = greens[k].balls.first ?? PointFt(x: greens[k].hole.x - 10, z: greens[k].hole.z)
            for model in PuttingModel.allCases {
                let putt = PuttSpec(ball: ball, flag: greens[k].hole, stimpFt: stimpFt, model: model)
                let r = try bestLine(for: putt, course: courseID, hole: hole.number)
                results.append(r)
                let picture = PuttingService.picture(of: hole, result: r, widthPx: 900, contours: true, shading: true)
                files.append(("\(courseID)-hole-\(hole.number)-\(model.rawValue).svg", picture.svg()))
                done += 1
                progress?(done / steps)
            }
            if k == 0, let r = results.first(where: { $0.hole == hole.number && $0.model == .physics }) {
                let path = (0..<r.pathXFt.count).map { (x: r.pathXFt[$0], z: r.pathZFt[$0], y: r.pathYFt[$0]) }
                let mesh = GreenMesh(heightfield: greens[k].heightfield, mask: GreenSurface.closedMask(greens[k].heightfield), path: path,
                                     flag: greens[k].hole, verticalExaggeration: 3)
                files.append(("\(courseID)-hole-\(hole.number).gltf", mesh.gltf()))
            }
        }
        return DemoOutput(files: files, results: results, course: course)
    }
}
