// The original service's roll model ("compat"), reproduced operation for operation so that its
// answers match to the last printed digit. Every arithmetic step below is written in the order
// and rounding of the original (NumPy float64, no fused operations) — do not "simplify" them.
//
// Model: a = −g·∇h − a0·v/(|v|+1e-12), a0 = 6²/(2·stimp); ∇h by central differences over the
// heights with off-green cells set to 0 (one-sided at the array edges); semi-implicit Euler with
// dt = 0.01 s for at most 3000 steps; nearest cell = largest axis value strictly below the
// coordinate, clamped; green mask = height > 0.
import Glibc

/// The green as the compat model sees it: per cell the height, the mask and the gradient.
public struct CompatGreen: Sendable {
    /// One grid cell, packed so a roll step touches one cache line.
    @usableFromInline struct Cell: Sendable {
        @usableFromInline var height: Double
        @usableFromInline var gradX: Double
        @usableFromInline var gradZ: Double
        @usableFromInline var green: Bool
    }

    public let heightfield: Heightfield
    @usableFromInline let nx: Int
    @usableFromInline let nz: Int
    @usableFromInline let xAxis: [Double]
    @usableFromInline let zAxis: [Double]
    @usableFromInline let cells: [Cell]
    /// 1/resolution, for the first guess of a cell index (the guess is then corrected exactly).
    @usableFromInline let inverseResolution: Double

    public init(_ heightfield: Heightfield) {
        self.heightfield = heightfield
        let nx = heightfield.nx, nz = heightfield.nz
        let res = heightfield.resolutionFt
        self.nx = nx
        self.nz = nz
        xAxis = (0..<nx).map { heightfield.xFt(column: $0) }
        zAxis = (0..<nz).map { heightfield.zFt(row: $0) }
        inverseResolution = 1 / res

        // Heights as float64, off-green cells (height <= 0) set to 0 before differencing.
        let filled = heightfield.heights.map { $0 > 0 ? Double($0) : 0.0 }
        let twoRes = 2.0 * res
        var cells = [Cell](repeating: Cell(height: 0, gradX: 0, gradZ: 0, green: false), count: nx * nz)
        for row in 0..<nz {
            for column in 0..<nx {
                let k = row * nx + column
                let gx: Double
                if column == 0 {
                    gx = (filled[k + 1] - filled[k]) / res
                } else if column == nx - 1 {
                    gx = (filled[k] - filled[k - 1]) / res
                } else {
                    gx = (filled[k + 1] - filled[k - 1]) / twoRes
                }
                let gz: Double
                if row == 0 {
                    gz = (filled[k + nx] - filled[k]) / res
                } else if row == nz - 1 {
                    gz = (filled[k] - filled[k - nx]) / res
                } else {
                    gz = (filled[k + nx] - filled[k - nx]) / twoRes
                }
                let h = heightfield.heights[k]
                cells[k] = Cell(height: Double(h), gradX: gx, gradZ: gz, green: h > 0)
            }
        }
        self.cells = cells
    }

    /// `searchsorted(axis, value) − 1` clamped to the axis: the largest index whose value is strictly
    /// below `value`. The arithmetic guess is corrected against the stored axis, so it is exact.
    @inlinable static func index(of value: Double, in axis: [Double], inverseResolution: Double) -> Int {
        let n = axis.count
        // Number of axis values strictly below `value`.
        var below: Int
        let guess = (value - axis[0]) * inverseResolution
        if !(guess > -1) {
            below = 0
        } else if !(guess < Double(n)) {
            below = n
        } else {
            below = Int(guess) + 1
        }
        while below > 0 && !(axis[below - 1] < value) { below -= 1 }
        while below < n && axis[below] < value { below += 1 }
        return min(max(below - 1, 0), n - 1)
    }

    /// The flat cell index of the nearest cell (the original's rule) for a position.
    @inlinable func cellIndex(x: Double, z: Double) -> Int {
        let ix = CompatGreen.index(of: x, in: xAxis, inverseResolution: inverseResolution)
        let iz = CompatGreen.index(of: z, in: zAxis, inverseResolution: inverseResolution)
        return iz * nx + ix
    }

    /// True when the original loader counts the position as on the green (its cell's height > 0).
    public func isOnGreen(xFt: Double, zFt: Double) -> Bool { cells[cellIndex(x: xFt, z: zFt)].green }

    /// Height of the position's cell (the original's nearest-cell rule).
    public func height(xFt: Double, zFt: Double) -> Double { cells[cellIndex(x: xFt, z: zFt)].height }
}

/// Parameters of the compat roll; the defaults are the original service's.
public struct CompatParameters: Sendable, Equatable {
    public var stimpFt: Double
    public var dt: Double = 0.01
    public var stimpLaunchFps: Double = 6.0
    public var stopSpeedFps: Double = 0.2
    public var maxTimeS: Double = 30.0
    public var cupRadiusFt: Double = 2.125 / 12.0
    public var maxCupSpeedFps: Double = 4.0

    public init(stimpFt: Double) { self.stimpFt = stimpFt }

    /// Rolling deceleration on the flat, a0 = v²/(2·stimp).
    public var a0: Double { (stimpLaunchFps * stimpLaunchFps) / (2.0 * stimpFt) }
    /// int(max_time / dt), as the original computes its step budget.
    public var maxSteps: Int { Int(maxTimeS / dt) }
}

/// One simulated putt of the compat model.
public struct CompatRoll: Sendable, Equatable {
    public var pathX: [Double] = []
    public var pathZ: [Double] = []
    public var pathY: [Double] = []
    public var holed = false
    public var tEnd = 0.0
    public var finalX: Double
    public var finalZ: Double
    /// |v| when the loop ended (after the last update when the ball left the green or timed out).
    public var finalSpeed: Double
    /// Steps integrated (v, p updates).
    public var steps = 0
}

/// The compat roll simulator (semi-implicit Euler on the nearest-cell gradient).
public struct CompatSimulator: Sendable {
    public let green: CompatGreen
    public let parameters: CompatParameters
    @usableFromInline let g = 32.174
    @usableFromInline let a0: Double
    @usableFromInline let cupRadiusSquared: Double
    @usableFromInline let maxSteps: Int

    public init(green: CompatGreen, parameters: CompatParameters) {
        self.green = green
        self.parameters = parameters
        a0 = parameters.a0
        cupRadiusSquared = parameters.cupRadiusFt * parameters.cupRadiusFt
        maxSteps = parameters.maxSteps
    }

    /// |v| = sqrt(vx² + vz²), the original's `np.linalg.norm` of a 2-vector. (Accumulating the dot
    /// product with a fused multiply-add, as some BLAS kernels do, gives the same Hole 1 answer.)
    @inlinable static func norm(_ vx: Double, _ vz: Double) -> Double {
        (vx * vx + vz * vz).squareRoot()
    }

    /// Rolls a ball from (x, z) with launch velocity (vx, vz). With `record` false the path arrays
    /// stay empty (the search only needs the outcome); the outcome is identical either way.
    public func roll(fromX startX: Double, z startZ: Double, vx vx0: Double, vz vz0: Double,
                                holeX: Double, holeZ: Double, record: Bool) -> CompatRoll
    {
        var px = startX, pz = startZ
        var vx = vx0, vz = vz0
        var t = 0.0
        var holed = false
        var lastX = startX, lastZ = startZ
        var recorded = false
        var steps = 0
        var pathX: [Double] = [], pathZ: [Double] = [], pathY: [Double] = []
        if record {
            pathX.reserveCapacity(1024); pathZ.reserveCapacity(1024); pathY.reserveCapacity(1024)
        }
        let dt = parameters.dt
        let stopSpeed = parameters.stopSpeedFps
        let maxCupSpeed = parameters.maxCupSpeedFps
        let minusG = -g
        let minusA0 = -a0
        green.cells.withUnsafeBufferPointer { cells in
            for _ in 0..<maxSteps {
                let x = px, z = pz
                let cell = cells[green.cellIndex(x: x, z: z)]
                if !cell.green { break }
                lastX = x; lastZ = z; recorded = true
                if record {
                    pathX.append(x); pathZ.append(z); pathY.append(cell.height)
                }
                let speed = CompatSimulator.norm(vx, vz)
                if speed < stopSpeed { break }
                let dx = x - holeX, dz = z - holeZ
                let d2 = dx * dx + dz * dz
                if d2 <= cupRadiusSquared && speed <= maxCupSpeed {
                    holed = true
                    break
                }
                let agx = minusG * cell.gradX
                let agz = minusG * cell.gradZ
                let denominator = speed + 1e-12
                let arx = minusA0 * (vx / denominator)
                let arz = minusA0 * (vz / denominator)
                let ax = agx + arx
                let az = agz + arz
                vx = vx + ax * dt
                vz = vz + az * dt
                px = px + vx * dt
                pz = pz + vz * dt
                t += dt
                steps += 1
            }
        }
        var result = CompatRoll(finalX: recorded ? lastX : startX, finalZ: recorded ? lastZ : startZ,
                                finalSpeed: CompatSimulator.norm(vx, vz))
        result.pathX = pathX
        result.pathZ = pathZ
        result.pathY = pathY
        result.holed = holed
        result.tEnd = t
        result.steps = steps
        return result
    }
}

/// `numpy.arange(start, stop, step)` for floats: length ⌈(stop − start)/step⌉, element 1 is
/// `start + step`, element i ≥ 2 is `start + i·(element1 − start)`.
func numpyArange(_ start: Double, _ stop: Double, _ step: Double) -> [Double] {
    let span = (stop - start) / step
    guard span.isFinite, span > 0 else { return [] }
    let length = Int(span.rounded(.up))
    var values = [start]
    values.reserveCapacity(length)
    guard length > 1 else { return values }
    let second = start + step
    values.append(second)
    let delta = second - start
    if length > 2 {
        for i in 2..<length { values.append(start + Double(i) * delta) }
    }
    return values
}

/// The best line the compat search found, with the original's result fields.
public struct CompatBestLine: Sendable, Equatable {
    public var aimOffsetDeg: Double
    public var speedFps: Double
    public var v0XFps: Double
    public var v0ZFps: Double
    public var score: Double
    public var missFt: Double
    public var roll: CompatRoll
    /// Simulations run by the search (all three stages, plus the re-run that records the path).
    public var simulations: Int
    /// Roll steps integrated by the search.
    public var steps: Int
}

/// The original's three-stage coarse-to-fine grid search over aim offset and launch speed.
public struct CompatSearch: Sendable {
    public let simulator: CompatSimulator
    public var angleSpanDeg = 25.0
    public var speedBounds: (min: Double, max: Double) = (2.0, 16.0)

    public init(simulator: CompatSimulator) { self.simulator = simulator }

    /// A stage of the search: offsets × speeds, scored as the original did.
    struct Stage {
        var angleStep: Double
        var speedStep: Double
        var centreAngle: Double
        var angleWindow: Double
        var speedWindow: (Double, Double)
    }

    struct Candidate {
        var angleDeg: Double
        var speed: Double
        var vx: Double
        var vz: Double
        var score: Double
        var miss: Double
    }

    /// Runs the search. `progress` receives the fraction done (0…1) after each aim angle.
    public func bestLine(ballX: Double, ballZ: Double, holeX: Double, holeZ: Double,
                         progress: ((Double) -> Void)? = nil) -> CompatBestLine
    {
        let baseAngle = atan2(holeZ - ballZ, holeX - ballX)
        var simulations = 0
        var steps = 0
        let (lo, hi) = speedBounds

        // Expected work per stage (26×15, 17×17, 11×13 on the defaults) to scale progress.
        let stageWeights = [0.45, 0.35, 0.20]
        var stageStart = 0.0

        func run(_ stage: Stage, weight: Double) -> Candidate? {
            let angles = numpyArange(stage.centreAngle - stage.angleWindow,
                                     stage.centreAngle + stage.angleWindow + 1e-9, stage.angleStep)
            let speeds = numpyArange(stage.speedWindow.0, stage.speedWindow.1 + 1e-9, stage.speedStep)
            var best: Candidate?
            for (k, angleDeg) in angles.enumerated() {
                let angle = baseAngle + angleDeg * (Double.pi / 180.0)
                let dirX = cos(angle), dirZ = sin(angle)
                for speed in speeds {
                    let vx = dirX * speed, vz = dirZ * speed
                    let roll = simulator.roll(fromX: ballX, z: ballZ, vx: vx, vz: vz,
                                              holeX: holeX, holeZ: holeZ, record: false)
                    simulations += 1
                    steps += roll.steps
                    let miss = hypot(roll.finalX - holeX, roll.finalZ - holeZ)
                    let score = roll.holed ? -1000.0 - miss : miss + 0.15 * roll.finalSpeed
                    if best.map({ score < $0.score }) ?? true {
                        best = Candidate(angleDeg: angleDeg, speed: speed, vx: vx, vz: vz, score: score, miss: miss)
                    }
                }
                progress?(stageStart + weight * Double(k + 1) / Double(angles.count))
            }
            stageStart += weight
            return best
        }

        let fallback = Candidate(angleDeg: 0, speed: lo, vx: cos(baseAngle) * lo, vz: sin(baseAngle) * lo,
                                 score: .infinity, miss: .infinity)
        let best1 = run(Stage(angleStep: 2.0, speedStep: 1.0, centreAngle: 0.0, angleWindow: angleSpanDeg,
                              speedWindow: (lo, hi)), weight: stageWeights[0]) ?? fallback
        let s2 = best1.speed
        let best2 = run(Stage(angleStep: 0.5, speedStep: 0.25, centreAngle: best1.angleDeg, angleWindow: 4.0,
                              speedWindow: (max(lo, s2 - 2.0), min(hi, s2 + 2.0))), weight: stageWeights[1]) ?? best1
        let s3 = best2.speed
        let best3 = run(Stage(angleStep: 0.2, speedStep: 0.1, centreAngle: best2.angleDeg, angleWindow: 1.0,
                              speedWindow: (max(lo, s3 - 0.6), min(hi, s3 + 0.6))), weight: stageWeights[2]) ?? best2

        // Re-run the winner with its path recorded (the outcome is the same by construction).
        let roll = simulator.roll(fromX: ballX, z: ballZ, vx: best3.vx, vz: best3.vz,
                                  holeX: holeX, holeZ: holeZ, record: true)
        simulations += 1
        steps += roll.steps
        return CompatBestLine(aimOffsetDeg: best3.angleDeg, speedFps: best3.speed, v0XFps: best3.vx,
                              v0ZFps: best3.vz, score: best3.score, missFt: best3.miss, roll: roll,
                              simulations: simulations, steps: steps)
    }
}
