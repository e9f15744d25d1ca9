// `putting roll`: one stroke the user chooses, rolled on the physics model — "what if I hit it here
// at this pace?". The aim is an offset from the straight line (degrees) or a point to aim at; the
// speed is a launch speed or a pace, the distance the ball would roll past the hole on flat ground
// (v = √(2·a_r·(D + pace))). The answer: the path, holed or missed, where it stops, the time, the
// speed at the rim, and the make probability of that stroke under the site's stroke errors.
import ClubhouseJSON
import Glibc

/// How the user gives the stroke's direction.
public enum RollAim: Sendable, Equatable {
    /// Degrees from the straight line to the hole, positive = left (counter-clockwise), within ±90°.
    case offsetDeg(Double)
    /// Aim at this point on the green.
    case point(PointFt)
}

/// How the user gives the stroke's strength.
public enum RollPace: Sendable, Equatable {
    /// Launch speed, ft/s: above 0 and at most `RollRequest.maxSpeedFps`.
    case speedFps(Double)
    /// Feet past the hole the ball would roll on flat ground (negative: short of it).
    case pastFt(Double)
}

/// `putting roll --course C --hole N --ball X,Z --flag X,Z (--aim DEG | --aim-point X,Z) (--speed FT/S | --pace FT)`
public struct RollRequest: Sendable, Equatable {
    public var course: String
    public var hole: Int
    public var ball: PointFt
    public var flag: PointFt
    public var stimpFt: Double
    public var aim: RollAim
    public var pace: RollPace
    public var capture: CaptureRule
    public var errors: StrokeErrors

    /// 30 ft/s would roll about 250 ft on a flat green at stimp 10: no putt is struck harder.
    public static let maxSpeedFps = 30.0
    /// A pace beyond 100 ft past the hole is no putt either.
    public static let maxPaceFt = 100.0

    public init(course: String, hole: Int, ball: PointFt, flag: PointFt, stimpFt: Double = 10, aim: RollAim, pace: RollPace,
                capture: CaptureRule = CaptureRule(), errors: StrokeErrors = .tour)
    {
        self.course = course
        self.hole = hole
        self.ball = ball
        self.flag = flag
        self.stimpFt = stimpFt
        self.aim = aim
        self.pace = pace
        self.capture = capture
        self.errors = errors
    }

    /// The aim offset in degrees and the launch speed this request means, checked against their limits.
    func stroke(rollingResistance ar: Double) throws(PuttingError) -> (offsetDeg: Double, speedFps: Double) {
        let base = atan2(flag.z - ball.z, flag.x - ball.x)
        let offset: Double
        switch aim {
        case .offsetDeg(let d):
            guard d.isFinite, abs(d) <= 90 else {
                throw .invalidSetting(name: "aim", value: d, limit: "within ±90 degrees of the line to the hole (positive = left)")
            }
            offset = d
        case .point(let p):
            guard p.x.isFinite, p.z.isFinite else { throw .notFinite(what: "aim point") }
            guard p.distance(to: ball) > 1e-6 else {
                throw .invalidSetting(name: "aim point distance from the ball", value: 0, limit: "a point away from the ball")
            }
            var d = (atan2(p.z - ball.z, p.x - ball.x) - base) * 180 / .pi
            while d > 180 { d -= 360 }
            while d < -180 { d += 360 }
            guard abs(d) <= 90 else {
                throw .invalidSetting(name: "aim (toward the aim point)", value: d, limit: "within ±90 degrees of the line to the hole")
            }
            offset = d
        }
        let speed: Double
        switch pace {
        case .speedFps(let v):
            guard v.isFinite, v > 0, v <= RollRequest.maxSpeedFps else {
                throw .invalidSetting(name: "speed", value: v, limit: "above 0 and at most \(PuttingError.short(RollRequest.maxSpeedFps)) ft/s")
            }
            speed = v
        case .pastFt(let p):
            let d = ball.distance(to: flag)
            guard p.isFinite, p > -d, p <= RollRequest.maxPaceFt else {
                throw .invalidSetting(name: "pace", value: p,
                                      limit: "more than \(fixed(-d, 1)) ft (the ball must roll) and at most \(PuttingError.short(RollRequest.maxPaceFt)) ft past the hole")
            }
            speed = (2 * ar * (d + p)).squareRoot()
        }
        return (offset, speed)
    }
}

/// One rolled stroke.
public struct RollResult: Sendable, Equatable {
    public var request: RollRequest
    public var aimOffsetDeg: Double
    public var speedFps: Double
    public var v0XFps: Double
    public var v0ZFps: Double
    public var holed: Bool
    public var end: String
    public var restXFt: Double
    public var restZFt: Double
    /// Distance from the hole where it stopped (0 when holed).
    public var missFt: Double
    public var tEndS: Double
    public var rimSpeedFps: Double?
    public var passOffsetFt: Double?
    public var closestFt: Double
    public var pathXFt: [Double]
    public var pathZFt: [Double]
    public var pathYFt: [Double]
    public var makeProbability: Double
    public var heightfieldHash: String

    public var distanceFt: Double { request.ball.distance(to: request.flag) }

    public var json: JSONValue {
        var o = JSONObject()
        o["course"] = .string(request.course)
        o["hole"] = .int(request.hole)
        o["ballXFt"] = .double(request.ball.x)
        o["ballZFt"] = .double(request.ball.z)
        o["holeXFt"] = .double(request.flag.x)
        o["holeZFt"] = .double(request.flag.z)
        o["stimpFt"] = .double(request.stimpFt)
        o["aimOffsetDeg"] = .double(aimOffsetDeg)
        o["aimSide"] = .string(aimOffsetDeg > 0.005 ? "left" : (aimOffsetDeg < -0.005 ? "right" : "straight"))
        o["speedFps"] = .double(speedFps)
        o["v0XFps"] = .double(v0XFps)
        o["v0ZFps"] = .double(v0ZFps)
        o["holed"] = .bool(holed)
        o["end"] = .string(end)
        o["restXFt"] = .double(restXFt)
        o["restZFt"] = .double(restZFt)
        o["missFt"] = .double(missFt)
        o["closestFt"] = .double(closestFt)
        o["tEndS"] = .double(tEndS)
        o["rimSpeedFps"] = rimSpeedFps.map(JSONValue.double) ?? .null
        o["passOffsetFt"] = passOffsetFt.map(JSONValue.double) ?? .null
        o["makeProbability"] = .double(makeProbability)
        o["strokeErrors"] = request.errors.json
        o["heightfieldHash"] = .string(heightfieldHash)
        o["pathXFt"] = .array(pathXFt.map(JSONValue.double))
        o["pathZFt"] = .array(pathZFt.map(JSONValue.double))
        o["pathYFt"] = .array(pathYFt.map(JSONValue.double))
        return ["roll": .object(o)]
    }

    public var text: String {
        let side = aimOffsetDeg > 0.005 ? " left" : (aimOffsetDeg < -0.005 ? " right" : "")
        var lines = ["Roll on \(request.course) hole \(request.hole): \(fixed(distanceFt, 1)) ft putt at stimp \(PuttingError.short(request.stimpFt))"]
        lines.append("  stroke \(fixed(abs(aimOffsetDeg), 2))°\(side) at \(fixed(speedFps, 2)) ft/s")
        if holed {
            lines.append("  holed after \(fixed(tEndS, 2)) s" + (rimSpeedFps.map { ", \(fixed($0, 2)) ft/s at the rim" } ?? ""))
        } else {
            var s = "  missed: stops \(fixed(missFt, 2)) ft from the hole at (\(fixed(restXFt, 2)), \(fixed(restZFt, 2))) after \(fixed(tEndS, 2)) s"
            if end == RollEnd.offGreen.rawValue { s = "  missed: leaves the green at (\(fixed(restXFt, 2)), \(fixed(restZFt, 2))) after \(fixed(tEndS, 2)) s" }
            lines.append(s)
            if let rim = rimSpeedFps { lines.append("  crossed the cup at \(fixed(rim, 2)) ft/s, \(fixed((passOffsetFt ?? 0) * 12, 1)) in from the centre: too fast to drop") }
            else { lines.append("  closest to the hole: \(fixed(closestFt * 12, 1)) in") }
        }
        lines.append("  makes \(fixed(makeProbability * 100, 1))% of the time with \(request.errors.summary)")
        return lines.joined(separator: "\n")
    }

    /// The roll in the shape the pictures and meshes draw.
    var asLine: BestLineResult {
        let br = BestLineRequest(course: request.course, hole: request.hole, ball: request.ball, flag: request.flag,
                                 stimpFt: request.stimpFt, model: .physics, capture: request.capture, errors: request.errors)
        var r = BestLineResult(request: br, hash: heightfieldHash, aimOffsetDeg: aimOffsetDeg, speedFps: speedFps, v0X: v0XFps, v0Z: v0ZFps,
                               holed: holed, missFt: missFt, tEndS: tEndS, path: (pathXFt, pathZFt, pathYFt), simulations: 1)
        r.rimSpeedFps = rimSpeedFps
        r.makeProbability = makeProbability
        r.errors = request.errors
        r.restXFt = restXFt
        r.restZFt = restZFt
        return r
    }
}

public enum RollEngine {
    /// Validates and rolls. `probability`: also compute the make probability (otherwise 0 is reported).
    public static func roll(_ request: RollRequest, hole: Hole, probability: Bool = true) throws(PuttingError) -> RollResult {
        let lineRequest = BestLineRequest(course: request.course, hole: request.hole, ball: request.ball, flag: request.flag,
                                          stimpFt: request.stimpFt, model: .physics, capture: request.capture, errors: request.errors)
        let heightfield = try BestLineEngine.validate(lineRequest, hole: hole)
        var parameters = PhysicsParameters(stimpFt: request.stimpFt)
        parameters.capture = request.capture
        let sim = PhysicsSimulator(surface: GreenSurface(heightfield), parameters: parameters)
        return try roll(request, simulator: sim, hash: hole.heightfieldHash ?? heightfield.contentHash, probability: probability)
    }

    /// Rolls on a ready simulator (positions already checked).
    /// `lanes`: threads the make probability may use (the same answer on any number).
    public static func roll(_ request: RollRequest, simulator sim: PhysicsSimulator, hash: String, probability: Bool = true,
                            lanes: Int = PuttingService.processorCount) throws(PuttingError) -> RollResult
    {
        let (offset, speed) = try request.stroke(rollingResistance: sim.ar)
        let base = atan2(request.flag.z - request.ball.z, request.flag.x - request.ball.x)
        @Sendable func launch(_ o: Double, _ v: Double, _ options: RollOptions) -> PhysicsRoll {
            let a = base + o * .pi / 180
            return sim.roll(from: request.ball, vx: cos(a) * v, vz: sin(a) * v, hole: request.flag, options: options)
        }
        let r = launch(offset, speed, RollOptions(capture: true, recordPath: true))
        var p = 0.0
        if probability {
            let rule = sim.parameters.capture
            p = MakeProbabilityCalculator.probability(aimDeg: offset, speedFps: speed, errors: request.errors.atDistance(request.ball.distance(to: request.flag)),
                                                      lanes: lanes) { o, v, full in
                launch(o, v, RollOptions(capture: true, recordPath: false, earlyExit: !full)).captureMargin(rule)
            }.probability
        }
        let a = base + offset * .pi / 180
        return RollResult(request: request, aimOffsetDeg: offset, speedFps: speed, v0XFps: cos(a) * speed, v0ZFps: sin(a) * speed,
                          holed: r.holed, end: r.end.rawValue, restXFt: r.final.x, restZFt: r.final.z,
                          missFt: r.holed ? 0 : r.final.distance(to: request.flag), tEndS: r.tEnd, rimSpeedFps: r.rimSpeed,
                          passOffsetFt: r.passOffset, closestFt: r.closestDistance,
                          pathXFt: r.path.map(\.x), pathZFt: r.path.map(\.z), pathYFt: r.path.map(\.y),
                          makeProbability: p, heightfieldHash: hash)
    }
}

extension PuttingService {
    /// `putting roll`: the stroke, rolled now (never cached: it is one simulation).
    public func roll(_ request: RollRequest) throws(PuttingError) -> RollResult {
        let hole = try hole(course: request.course, number: request.hole)
        return try RollEngine.roll(request, hole: hole)
    }

    /// The SVG of a roll, drawn like a best line.
    public func rollPicture(_ result: RollResult, widthPx: Double = 900) throws(PuttingError) -> String {
        let hole = try hole(course: result.request.course, number: result.request.hole)
        var picture = PuttingService.picture(of: hole, result: result.asLine, widthPx: widthPx, contours: true, shading: true)
        picture.title = "\(hole.courseID) hole \(hole.number): your stroke on a \(fixed(result.distanceFt, 1)) ft putt, stimp \(PuttingError.short(result.request.stimpFt))"
        picture.legend = result.text.split(separator: "\n").dropFirst().map { $0.trimmingCharacters() }
        return picture.svg()
    }

    /// A glTF/OBJ mesh of the green with the roll's path.
    public func rollMesh(_ result: RollResult, format: MeshFormat, verticalExaggeration: Double = 1) throws(PuttingError) -> String {
        let hole = try hole(course: result.request.course, number: result.request.hole)
        let heightfield = try hole.requireHeightfield()
        let path = (0..<result.pathXFt.count).map { (x: result.pathXFt[$0], z: result.pathZFt[$0], y: result.pathYFt[$0]) }
        let mesh = GreenMesh(heightfield: heightfield, mask: GreenSurface.closedMask(heightfield), path: path,
                             flag: result.request.flag, verticalExaggeration: verticalExaggeration)
        return format == .gltf ? mesh.gltf() : mesh.obj()
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self
        while s.first == " " { s.removeFirst() }
        return String(s)
    }
}
