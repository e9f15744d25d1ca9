// A best-line request, its validation, the result in the original API's field names (plus extras),
// and the engine that runs either model.
import ClubhouseJSON
import Glibc
import ClubhouseHashing

/// The roll model.
public enum PuttingModel: String, Sendable, Codable, CaseIterable {
    /// Rolling sphere on a smooth surface, exact cup crossing, solved best line (the default).
    case physics
    /// The original service's model and grid search, reproduced exactly.
    case compat

    public init(name: String) throws(PuttingError) {
        guard let m = PuttingModel(rawValue: name.lowercased()) else { throw .unknownModel(name) }
        self = m
    }
}

/// Which putt to solve.
public struct BestLineRequest: Sendable, Equatable {
    public var course: String
    public var hole: Int
    public var ball: PointFt
    public var flag: PointFt
    public var stimpFt: Double
    public var model: PuttingModel
    /// Physics: how far past the hole the best line would finish.
    public var finishPastFt: Double
    /// Physics: the capture rule.
    public var capture: CaptureRule
    /// Physics: the stroke errors the make probability assumes.
    public var errors: StrokeErrors

    public init(course: String, hole: Int, ball: PointFt, flag: PointFt, stimpFt: Double = 10,
                model: PuttingModel = .physics, finishPastFt: Double = 17.0 / 12.0, capture: CaptureRule = CaptureRule(),
                errors: StrokeErrors = .tour)
    {
        self.errors = errors
        self.course = course
        self.hole = hole
        self.ball = ball
        self.flag = flag
        self.stimpFt = stimpFt
        self.model = model
        self.finishPastFt = finishPastFt
        self.capture = capture
    }

    /// Version of the models' arithmetic; bump it when a change alters results, so old cache entries
    /// are no longer found.
    public static let modelVersion = 12

    /// The request as JSON (stored with jobs).
    public var json: JSONValue {
        var o = JSONObject()
        o["course"] = .string(course)
        o["hole"] = .int(hole)
        o["ballXFt"] = .double(ball.x)
        o["ballZFt"] = .double(ball.z)
        o["holeXFt"] = .double(flag.x)
        o["holeZFt"] = .double(flag.z)
        o["stimpFt"] = .double(stimpFt)
        o["model"] = .string(model.rawValue)
        if model == .physics {
            o["finishPastFt"] = .double(finishPastFt)
            o["capture"] = capture.storedJSON
            o["errors"] = errors.storedJSON
        }
        return .object(o)
    }

    /// Reads a request stored by `json`.
    public init(json: JSONValue) throws(PuttingError) {
        func number(_ key: String) throws(PuttingError) -> Double {
            guard let v = json[key]?.doubleValue, v.isFinite else { throw .storage("stored job request lacks \(key)") }
            return v
        }
        guard let course = json["course"]?.stringValue, let hole = json["hole"]?.intValue,
              let modelName = json["model"]?.stringValue else { throw .storage("stored job request is incomplete") }
        self.init(course: course, hole: hole, ball: PointFt(x: try number("ballXFt"), z: try number("ballZFt")),
                  flag: PointFt(x: try number("holeXFt"), z: try number("holeZFt")), stimpFt: try number("stimpFt"),
                  model: try PuttingModel(name: modelName))
        if model == .physics {
            finishPastFt = try number("finishPastFt")
            capture.update(fromStored: json["capture"])
            errors.update(fromStored: json["errors"])
        }
    }

    /// SHA-256 of everything that determines the answer: course, hole, positions, stimp, model (and its
    /// parameters), the model version, and the green's content hash.
    public func contentKey(heightfieldHash: String) -> String {
        guard case .object(var o) = json else { return "" }
        o["heightfield"] = .string(heightfieldHash)
        o["modelVersion"] = .int(BestLineRequest.modelVersion)
        return SHA256.hex(JSONWriter.compact(.object(o)))
    }
}

/// A best line, with the original API's field names and this plugin's extras.
public struct BestLineResult: Sendable, Equatable {
    // The original fields, in the original order.
    public var ballXFt: Double
    public var ballZFt: Double
    public var holeXFt: Double
    public var holeZFt: Double
    public var stimpFt: Double
    public var aimOffsetDeg: Double
    public var speedFps: Double
    public var v0XFps: Double
    public var v0ZFps: Double
    public var holed: Bool
    public var missFt: Double
    public var tEndS: Double
    public var pathXFt: [Double]
    public var pathZFt: [Double]
    public var pathYFt: [Double]
    // Extras.
    public var model: PuttingModel
    public var course: String
    public var hole: Int
    public var heightfieldHash: String
    /// Aim as lateral inches at the hole's distance (positive = left).
    public var aimOffsetIn: Double
    public var simulations: Int
    /// Physics only.
    public var converged: Bool?
    public var finishPastFt: Double?
    /// Physics only: the finish-past distance asked for.
    public var finishTargetFt: Double?
    public var restXFt: Double?
    public var restZFt: Double?
    public var rimSpeedFps: Double?
    public var tolerance: BestLineTolerance?
    /// Physics only: false when no stroke drops, with the reason.
    public var holeable: Bool?
    public var notHoleableReason: String?
    /// Physics only: the chance the putt drops under the stroke errors.
    public var makeProbability: Double?
    public var errors: StrokeErrors?
    /// Physics only: set when the line is numerically unstable (a second search with longer steps lands elsewhere).
    public var instability: NumericalInstability?
    /// Compat only: the search's score of the winner.
    public var score: Double?

    /// Distance from ball to hole.
    public var distanceFt: Double { ((holeXFt - ballXFt) * (holeXFt - ballXFt) + (holeZFt - ballZFt) * (holeZFt - ballZFt)).squareRoot() }

    /// `{"bestLine": {…}}` with the original fields first.
    public var json: JSONValue {
        var o = JSONObject()
        o["ballXFt"] = .double(ballXFt)
        o["ballZFt"] = .double(ballZFt)
        o["holeXFt"] = .double(holeXFt)
        o["holeZFt"] = .double(holeZFt)
        o["stimpFt"] = .double(stimpFt)
        o["aimOffsetDeg"] = .double(aimOffsetDeg)
        o["speedFps"] = .double(speedFps)
        o["v0XFps"] = .double(v0XFps)
        o["v0ZFps"] = .double(v0ZFps)
        o["holed"] = .bool(holed)
        o["missFt"] = .double(missFt)
        o["tEndS"] = .double(tEndS)
        o["pathXFt"] = .array(pathXFt.map(JSONValue.double))
        o["pathZFt"] = .array(pathZFt.map(JSONValue.double))
        o["pathYFt"] = .array(pathYFt.map(JSONValue.double))
        o["model"] = .string(model.rawValue)
        o["course"] = .string(course)
        o["hole"] = .int(hole)
        o["heightfieldHash"] = .string(heightfieldHash)
        o["aimOffsetIn"] = .double(aimOffsetIn)
        // Signs: positive = left of the straight line to the hole (as seen from the ball), negative = right.
        o["aimSide"] = .string(AimSide.name(inches: aimOffsetIn))
        o["speedMps"] = .double(speedFps * 0.3048)
        o["distanceFt"] = .double(distanceFt)
        o["simulations"] = .int(simulations)
        if let converged { o["converged"] = .bool(converged) }
        if let finishPastFt { o["finishPastFt"] = .double(finishPastFt) }
        if let finishTargetFt { o["finishTargetFt"] = .double(finishTargetFt) }
        if let restXFt, let restZFt {
            o["restXFt"] = .double(restXFt)
            o["restZFt"] = .double(restZFt)
        }
        if let rimSpeedFps { o["rimSpeedFps"] = .double(rimSpeedFps) }
        if let t = tolerance {
            o["tolerance"] = [
                "aimMinDeg": .double(t.aimMinDeg), "aimMaxDeg": .double(t.aimMaxDeg),
                "aimMinIn": .double(t.aimMinIn), "aimMaxIn": .double(t.aimMaxIn),
                "speedMinFps": .double(t.speedMinFps), "speedMaxFps": .double(t.speedMaxFps),
                "aimWindow": .string(AimSide.window(minIn: t.aimMinIn, maxIn: t.aimMaxIn)),
            ]
        }
        if let holeable { o["holeable"] = .bool(holeable) }
        if let notHoleableReason { o["reason"] = .string(notHoleableReason) }
        if let makeProbability { o["makeProbability"] = .double(makeProbability) }
        if let errors { o["strokeErrors"] = errors.json }
        if model == .physics {
            o["numericallyUnstable"] = .bool(instability != nil)
            if let u = instability {
                o["instability"] = [
                    "otherAimDeg": .double(u.otherAimDeg), "otherSpeedFps": .double(u.otherSpeedFps), "otherStage": .string(u.otherStage),
                    "otherMakeProbability": u.otherProbability.map(JSONValue.double) ?? .null,
                    "spreadAimDeg": .double(u.aimDeg), "spreadSpeedPct": .double(u.speedFraction * 100),
                    "spreadMakeProbabilityPoints": u.probabilityPoints.map(JSONValue.double) ?? .null,
                ]
            }
        }
        if let score { o["score"] = .double(score) }
        return ["bestLine": .object(o)]
    }

    /// Reads `{"bestLine": {…}}` as written by `json`.
    public init(json: JSONValue) throws(PuttingError) {
        guard let o = json["bestLine"]?.objectValue else { throw .storage("cached result has no bestLine object") }
        func d(_ key: String) throws(PuttingError) -> Double {
            guard let v = o[key]?.doubleValue else { throw .storage("cached result lacks \(key)") }
            return v
        }
        func list(_ key: String) throws(PuttingError) -> [Double] {
            guard let a = o[key]?.arrayValue else { throw .storage("cached result lacks \(key)") }
            return a.compactMap(\.doubleValue)
        }
        guard let holed = o["holed"]?.boolValue, let modelName = o["model"]?.stringValue,
              let course = o["course"]?.stringValue, let hole = o["hole"]?.intValue,
              let hash = o["heightfieldHash"]?.stringValue, let simulations = o["simulations"]?.intValue
        else { throw .storage("cached result is incomplete") }
        ballXFt = try d("ballXFt"); ballZFt = try d("ballZFt"); holeXFt = try d("holeXFt"); holeZFt = try d("holeZFt")
        stimpFt = try d("stimpFt"); aimOffsetDeg = try d("aimOffsetDeg"); speedFps = try d("speedFps")
        v0XFps = try d("v0XFps"); v0ZFps = try d("v0ZFps"); self.holed = holed; missFt = try d("missFt"); tEndS = try d("tEndS")
        pathXFt = try list("pathXFt"); pathZFt = try list("pathZFt"); pathYFt = try list("pathYFt")
        model = try PuttingModel(name: modelName)
        self.course = course
        self.hole = hole
        heightfieldHash = hash
        aimOffsetIn = try d("aimOffsetIn")
        self.simulations = simulations
        converged = o["converged"]?.boolValue
        finishPastFt = o["finishPastFt"]?.doubleValue
        finishTargetFt = o["finishTargetFt"]?.doubleValue
        restXFt = o["restXFt"]?.doubleValue
        restZFt = o["restZFt"]?.doubleValue
        rimSpeedFps = o["rimSpeedFps"]?.doubleValue
        if let t = o["tolerance"], let a = t["aimMinDeg"]?.doubleValue, let b = t["aimMaxDeg"]?.doubleValue,
           let c = t["aimMinIn"]?.doubleValue, let e = t["aimMaxIn"]?.doubleValue,
           let f = t["speedMinFps"]?.doubleValue, let g = t["speedMaxFps"]?.doubleValue
        {
            tolerance = BestLineTolerance(aimMinDeg: a, aimMaxDeg: b, aimMinIn: c, aimMaxIn: e, speedMinFps: f, speedMaxFps: g)
        }
        score = o["score"]?.doubleValue
        if let u = o["instability"], let a = u["otherAimDeg"]?.doubleValue, let v = u["otherSpeedFps"]?.doubleValue,
           let da = u["spreadAimDeg"]?.doubleValue, let dv = u["spreadSpeedPct"]?.doubleValue
        {
            instability = NumericalInstability(otherAimDeg: a, otherSpeedFps: v, otherStage: u["otherStage"]?.stringValue ?? "",
                                               otherProbability: u["otherMakeProbability"]?.doubleValue, aimDeg: da, speedFraction: dv / 100,
                                               probabilityPoints: u["spreadMakeProbabilityPoints"]?.doubleValue)
        }
        holeable = o["holeable"]?.boolValue
        notHoleableReason = o["reason"]?.stringValue
        makeProbability = o["makeProbability"]?.doubleValue
        if let e = StrokeErrors(json: o["strokeErrors"]) {
            errors = e
        }
    }

    init(request: BestLineRequest, hash: String, aimOffsetDeg: Double, speedFps: Double, v0X: Double, v0Z: Double,
         holed: Bool, missFt: Double, tEndS: Double, path: (x: [Double], z: [Double], y: [Double]), simulations: Int)
    {
        ballXFt = request.ball.x; ballZFt = request.ball.z
        holeXFt = request.flag.x; holeZFt = request.flag.z
        stimpFt = request.stimpFt
        self.aimOffsetDeg = aimOffsetDeg
        self.speedFps = speedFps
        v0XFps = v0X; v0ZFps = v0Z
        self.holed = holed
        self.missFt = missFt
        self.tEndS = tEndS
        pathXFt = path.x; pathZFt = path.z; pathYFt = path.y
        model = request.model
        course = request.course
        hole = request.hole
        heightfieldHash = hash
        let distance = request.ball.distance(to: request.flag)
        aimOffsetIn = distance * tan(aimOffsetDeg * .pi / 180) * 12
        self.simulations = simulations
    }

    /// The aim direction's end point at the hole's distance (for drawing the aim line).
    public var aimPoint: PointFt {
        let base = atan2(holeZFt - ballZFt, holeXFt - ballXFt) + aimOffsetDeg * .pi / 180
        return PointFt(x: ballXFt + cos(base) * distanceFt, z: ballZFt + sin(base) * distanceFt)
    }

    /// "2.43° right (5.5 in right of the hole)" / "0.00° (straight at the hole)".
    public var aimDescription: String { AimSide.describe(deg: aimOffsetDeg, inches: aimOffsetIn) }

    /// The human-readable rendering.
    public var text: String {
        var lines: [String] = []
        lines.append("Best line (\(model.rawValue)) on \(course) hole \(hole): \(fixed(distanceFt, 1)) ft putt at stimp \(PuttingError.short(stimpFt))")
        lines.append("  aim    \(aimDescription)")
        lines.append("  speed  \(fixed(speedFps, 2)) ft/s (\(fixed(speedFps * 0.3048, 3)) m/s)")
        lines.append("  result \(holed ? "holed" : "missed by \(fixed(missFt, 2)) ft") after \(fixed(tEndS, 2)) s, \(pathXFt.count) path points")
        if let t = tolerance {
            lines.append("  still holes aimed \(AimSide.window(minIn: t.aimMinIn, maxIn: t.aimMaxIn)) of the hole "
                + "(\(AimSide.window(minDeg: t.aimMinDeg, maxDeg: t.aimMaxDeg))) or struck \(fixed(t.speedMinFps, 2))–\(fixed(t.speedMaxFps, 2)) ft/s")
        }
        if let p = makeProbability, let e = errors {
            lines.append("  makes \(fixed(p * 100, 1))% of the time with \(e.summary)")
        }
        if let u = instability {
            var note = "  numerically unstable: a knife-edge line (\(u.otherLineName) aims \(AimSide.describe(deg: u.otherAimDeg, inches: distanceFt * tan(u.otherAimDeg * .pi / 180) * 12))"
                + " at \(fixed(u.otherSpeedFps, 2)) ft/s: \(fixed(u.aimDeg, 2))° and \(fixed(u.speedFraction * 100, 1))% apart"
            if let p = u.otherProbability, let d = u.probabilityPoints { note += ", makes \(fixed(p * 100, 1))%, \(fixed(d, 1)) points apart" }
            lines.append(note + "): several strokes drop here and which one the search finds is not settled")
        }
        if holeable == false {
            lines.append("  holeable: no — \(notHoleableReason ?? "no stroke drops"); this is the best leave, \(fixed(missFt, 2)) ft from the hole")
        } else if let converged, !converged {
            lines.append(holed ? "  note: no line through the centre finishes \(fixed((finishTargetFt ?? 17.0 / 12) * 12, 0)) in past here; this one still drops"
                               : "  note: no line that drops was found; this is the closest")
        }
        return lines.joined(separator: "\n")
    }
}

/// Validates requests and runs the models.
public enum BestLineEngine {
    /// Checks a request against its hole; throws the first problem a user should fix. Returns the
    /// hole's heightfield (checked against its recorded hash).
    @discardableResult
    public static func validate(_ request: BestLineRequest, hole: Hole) throws(PuttingError) -> Heightfield {
        let hf = try hole.requireHeightfield()
        for (name, v) in [("ball x", request.ball.x), ("ball z", request.ball.z), ("flag x", request.flag.x),
                          ("flag z", request.flag.z)] where !v.isFinite
        {
            throw .notFinite(what: name)
        }
        guard request.stimpFt.isFinite, PuttingError.stimpRange.contains(request.stimpFt) else {
            throw .stimpOutOfRange(request.stimpFt)
        }
        if request.model == .physics {
            _ = try request.errors.validated()
            guard request.finishPastFt.isFinite, (0...10).contains(request.finishPastFt) else {
                throw .finishPastOutOfRange(request.finishPastFt)
            }
        }
        let found = hf.contentHash
        guard found == hole.heightfieldHash else {
            throw .heightfieldInconsistent(course: hole.courseID, hole: hole.number, expected: hole.heightfieldHash ?? "", found: found)
        }
        func onGreen(_ p: PointFt) -> Bool {
            guard hf.spans(xFt: p.x, zFt: p.z) else { return false }
            switch request.model {
            case .compat: return CompatGreen.onGreen(hf, xFt: p.x, zFt: p.z)
            case .physics: return GreenSurface.closedMaskContains(hf, xFt: p.x, zFt: p.z)
            }
        }
        let spanX = hf.xMinFt...hf.xMaxFt, spanZ = hf.zMinFt...hf.zMaxFt
        guard onGreen(request.ball) else {
            throw .positionOffGreen(what: "ball", point: request.ball, course: hole.courseID, hole: hole.number, spanX: spanX, spanZ: spanZ)
        }
        guard onGreen(request.flag) else {
            throw .positionOffGreen(what: "flag", point: request.flag, course: hole.courseID, hole: hole.number, spanX: spanX, spanZ: spanZ)
        }
        let radius = request.model == .compat ? CompatParameters(stimpFt: 10).cupRadiusFt : request.capture.cupRadiusFt
        let d = request.ball.distance(to: request.flag)
        guard d > radius else { throw .ballOnHole(distanceFt: d, cupRadiusFt: radius) }
        return hf
    }

    /// Validates and solves. `progress` receives fractions 0…1.
    public static func solve(_ request: BestLineRequest, hole: Hole, progress: ((Double) -> Void)? = nil)
        throws(PuttingError) -> BestLineResult
    {
        let heightfield = try validate(request, hole: hole)
        let hash = hole.heightfieldHash ?? heightfield.contentHash
        switch request.model {
        case .compat:
            let sim = CompatSimulator(green: CompatGreen(heightfield), parameters: CompatParameters(stimpFt: request.stimpFt))
            let best = CompatSearch(simulator: sim).bestLine(ballX: request.ball.x, ballZ: request.ball.z,
                                                             holeX: request.flag.x, holeZ: request.flag.z, progress: progress)
            var result = BestLineResult(request: request, hash: hash, aimOffsetDeg: best.aimOffsetDeg,
                                        speedFps: best.speedFps, v0X: best.v0XFps, v0Z: best.v0ZFps, holed: best.roll.holed,
                                        missFt: best.missFt, tEndS: best.roll.tEnd,
                                        path: (best.roll.pathX, best.roll.pathZ, best.roll.pathY), simulations: best.simulations)
            result.score = best.score
            return result
        case .physics:
            var parameters = PhysicsParameters(stimpFt: request.stimpFt)
            parameters.capture = request.capture
            let sim = PhysicsSimulator(surface: GreenSurface(heightfield), parameters: parameters)
            var solver = PhysicsSolver(simulator: sim)
            solver.finishPastFt = request.finishPastFt
            solver.strokeErrors = request.errors
            // One best line at a time here: it may use every core (the answer is the same on any number).
            solver.lanes = PuttingService.processorCount
            let best = solver.bestLine(ball: request.ball, hole: request.flag, progress: progress)
            return physicsResult(request, best: best, hash: hash)
        }
    }

    /// The result of a physics solve, in the best-line answer's shape.
    static func physicsResult(_ request: BestLineRequest, best: PhysicsBestLine, hash: String) -> BestLineResult {
        let roll = best.roll
        let miss = roll.holed ? (roll.passOffset ?? roll.final.distance(to: request.flag)) : roll.final.distance(to: request.flag)
        var result = BestLineResult(request: request, hash: hash, aimOffsetDeg: best.aimOffsetDeg,
                                    speedFps: best.speedFps, v0X: best.v0XFps, v0Z: best.v0ZFps, holed: roll.holed,
                                    missFt: miss, tEndS: roll.tEnd,
                                    path: (roll.path.map(\.x), roll.path.map(\.z), roll.path.map(\.y)),
                                    simulations: best.simulations)
        result.converged = best.converged
        result.finishPastFt = best.finishPastFt
        result.finishTargetFt = request.finishPastFt
        result.restXFt = best.restPoint.x
        result.restZFt = best.restPoint.z
        result.rimSpeedFps = roll.rimSpeed
        result.tolerance = best.tolerance
        result.holeable = best.holeable
        result.notHoleableReason = best.notHoleableReason
        result.makeProbability = best.probability?.probability
        result.errors = best.probability?.errors
        result.instability = best.instability
        result.simulations = best.simulations
        return result
    }
}

extension CompatGreen {
    /// The original loader's mask at a position without building the whole model.
    static func onGreen(_ hf: Heightfield, xFt x: Double, zFt z: Double) -> Bool {
        let xs = (0..<hf.nx).map { hf.xFt(column: $0) }, zs = (0..<hf.nz).map { hf.zFt(row: $0) }
        let ix = CompatGreen.index(of: x, in: xs, inverseResolution: 1 / hf.resolutionFt)
        let iz = CompatGreen.index(of: z, in: zs, inverseResolution: 1 / hf.resolutionFt)
        return hf.isGreen(column: ix, row: iz)
    }
}

extension GreenSurface {
    /// The physics model's green mask at a position without building the whole surface.
    static func closedMaskContains(_ hf: Heightfield, xFt x: Double, zFt z: Double) -> Bool {
        let u = ((x - hf.xMinFt) / hf.resolutionFt).rounded(), w = ((z - hf.zMinFt) / hf.resolutionFt).rounded()
        guard u >= 0, w >= 0, u <= Double(hf.nx - 1), w <= Double(hf.nz - 1) else { return false }
        let c = Int(u), r = Int(w)
        if hf.isGreen(column: c, row: r) { return true }
        // Closing by one cell: off-green cells all of whose neighbours' neighbourhoods touch green.
        let mask = closedMask(hf)
        return mask[r * hf.nx + c]
    }
}

/// Names the side of an aim: positive offsets are left of the straight line to the hole (seen from the
/// ball), negative ones right. Every text, legend and JSON string of an aim goes through here, so a
/// window and the aim it surrounds never disagree in sign.
public enum AimSide {
    /// "left", "right" or "straight" (within 0.05 in).
    public static func name(inches: Double) -> String {
        inches > 0.05 ? "left" : (inches < -0.05 ? "right" : "straight")
    }

    /// "2.43° right (5.5 in right of the hole)".
    public static func describe(deg: Double, inches: Double) -> String {
        let side = name(inches: inches)
        if side == "straight" { return "\(fixed(abs(deg), 2))° (straight at the hole)" }
        return "\(fixed(abs(deg), 2))° \(side) (\(fixed(abs(inches), 1)) in \(side) of the hole)"
    }

    /// One end of a window: "3.9 in right", "0.0 in".
    static func end(_ v: Double, unit: String, decimals: Int) -> String {
        let side = v > 0.05 ? " left" : (v < -0.05 ? " right" : "")
        return "\(fixed(abs(v), decimals))\(unit)\(side)"
    }

    /// "3.9–7.0 in right", "1.2 in right to 2.0 in left".
    public static func window(minIn lo: Double, maxIn hi: Double) -> String {
        range(lo, hi, unit: " in", decimals: 1)
    }

    /// "0.85–1.60° right", "0.20° right to 0.30° left".
    public static func window(minDeg lo: Double, maxDeg hi: Double) -> String {
        range(lo, hi, unit: "°", decimals: 2)
    }

    static func range(_ lo: Double, _ hi: Double, unit: String, decimals: Int) -> String {
        let a = Swift.min(lo, hi), b = Swift.max(lo, hi)
        if a > 0.05 { return "\(fixed(a, decimals))–\(fixed(b, decimals))\(unit) left" }
        if b < -0.05 { return "\(fixed(-b, decimals))–\(fixed(-a, decimals))\(unit) right" }
        return "\(end(a, unit: unit, decimals: decimals)) to \(end(b, unit: unit, decimals: decimals))"
    }
}
