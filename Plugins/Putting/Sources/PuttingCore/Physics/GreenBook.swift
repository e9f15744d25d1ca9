// `putting book`: a green book for one pin — the best line from every ball position of a grid over
// the whole green (aligned on the flag, spacing 3 ft by default), each with its aim, pace and make
// probability, as an SVG sheet a golfer reads (contours, cup, one aim marker and pace label per
// position, coloured by make probability, legend, scale bar), JSON and CSV.
//
// Positions are solved on every core in batches; each solved position is cached in the store under
// its own content key (the putt, the green's hash, the model version), so a book that was stopped
// (cancelled, or the host went away) goes on where it stopped when asked again, and a second pin
// nearby costs only its new positions. Balls closer than `minDistanceFt` to the hole are tap-ins and
// left out. Physics model only; no tolerance windows (the make probability says more per position).
import ClubhouseHashing
import ClubhouseJSON
import Glibc

/// `putting book --course C --hole N --flag X,Z [--spacing FT]`
public struct BookRequest: Sendable, Equatable {
    public var course: String
    public var hole: Int
    public var flag: PointFt
    public var stimpFt: Double
    /// Grid spacing, feet: above 0, and the grid may hold at most `maxPositions` positions.
    public var spacingFt: Double
    public var finishPastFt: Double
    public var capture: CaptureRule
    public var errors: StrokeErrors

    public static let maxPositions = 20_000
    /// Balls nearer the hole than this are tap-ins, left out of the book.
    public static let minDistanceFt = 2.0

    public init(course: String, hole: Int, flag: PointFt, stimpFt: Double = 10, spacingFt: Double = 3,
                finishPastFt: Double = 17.0 / 12.0, capture: CaptureRule = CaptureRule(), errors: StrokeErrors = .tour)
    {
        self.course = course
        self.hole = hole
        self.flag = flag
        self.stimpFt = stimpFt
        self.spacingFt = spacingFt
        self.finishPastFt = finishPastFt
        self.capture = capture
        self.errors = errors
    }

    /// The best-line request of one position (its content key is the position's cache key).
    func lineRequest(ball: PointFt) -> BestLineRequest {
        BestLineRequest(course: course, hole: hole, ball: ball, flag: flag, stimpFt: stimpFt, model: .physics,
                        finishPastFt: finishPastFt, capture: capture, errors: errors)
    }

    /// The grid positions on the green (row by row from the south-west), checked against the limits.
    func positions(on surface: GreenSurface) throws(PuttingError) -> [PointFt] {
        guard spacingFt.isFinite, spacingFt > 0 else {
            throw .invalidSetting(name: "grid spacing", value: spacingFt, limit: "above 0 ft (3 ft is usual)")
        }
        let hf = surface.heightfield
        // Count before building: a tiny spacing must not allocate millions of points (or overflow an index) first.
        let area = Double(surface.green.lazy.filter { $0 }.count) * hf.resolutionFt * hf.resolutionFt
        let estimate = area / (spacingFt * spacingFt)
        guard estimate <= Double(BookRequest.maxPositions) * 2 else {
            throw .bookTooDense(spacingFt: spacingFt, positions: Int(Swift.min(estimate, 1e12)), minimumSpacingFt: minimumSpacing(surface))
        }
        let iLo = Int(((hf.xMinFt - flag.x) / spacingFt).rounded(.down)), iHi = Int(((hf.xMaxFt - flag.x) / spacingFt).rounded(.up))
        let jLo = Int(((hf.zMinFt - flag.z) / spacingFt).rounded(.down)), jHi = Int(((hf.zMaxFt - flag.z) / spacingFt).rounded(.up))
        var out: [PointFt] = []
        for j in jLo...jHi {
            for i in iLo...iHi {
                let p = PointFt(x: flag.x + Double(i) * spacingFt, z: flag.z + Double(j) * spacingFt)
                guard surface.isOnGreen(xFt: p.x, zFt: p.z), p.distance(to: flag) >= BookRequest.minDistanceFt else { continue }
                out.append(p)
            }
        }
        guard out.count <= BookRequest.maxPositions else {
            throw .bookTooDense(spacingFt: spacingFt, positions: out.count, minimumSpacingFt: minimumSpacing(surface))
        }
        return out
    }

    /// For each position, the position its best-line search starts from (nil: from scratch): the grid point
    /// on every third row and column (counted from the flag) nearest to it, when that point is on the grid.
    static func warmParents(_ positions: [PointFt], flag: PointFt, spacingFt: Double) -> [Int?] {
        struct Cell: Hashable { var i: Int; var j: Int }
        func cell(_ p: PointFt) -> Cell {
            Cell(i: Int(((p.x - flag.x) / spacingFt).rounded()), j: Int(((p.z - flag.z) / spacingFt).rounded()))
        }
        var index: [Cell: Int] = [:]
        for (k, p) in positions.enumerated() { index[cell(p)] = k }
        return positions.indices.map { k in
            let c = cell(positions[k])
            let anchor = Cell(i: Int((Double(c.i) / 3).rounded()) * 3, j: Int((Double(c.j) / 3).rounded()) * 3)
            guard anchor != c, let p = index[anchor] else { return nil }
            return p
        }
    }

    /// The smallest spacing (0.1 ft steps) whose grid fits the limit, about.
    func minimumSpacing(_ surface: GreenSurface) -> Double {
        let hf = surface.heightfield
        let area = Double(surface.green.lazy.filter { $0 }.count) * hf.resolutionFt * hf.resolutionFt
        return ((area / Double(BookRequest.maxPositions)).squareRoot() * 10).rounded(.up) / 10
    }
}

/// One position of the book.
public struct BookEntry: Sendable, Equatable {
    public var ball: PointFt
    public var distanceFt: Double
    public var aimOffsetDeg: Double
    /// The aim at the hole's distance, inches, positive = left.
    public var aimOffsetIn: Double
    public var speedFps: Double
    /// The putt "plays like" this many feet on flat ground (the distance its speed would roll there, less
    /// the finish past the hole).
    public var playsLikeFt: Double
    public var holed: Bool
    public var holeable: Bool
    public var converged: Bool
    public var makeProbability: Double

    var json: JSONValue {
        ["xFt": .double(ball.x), "zFt": .double(ball.z), "distanceFt": .double(distanceFt), "aimOffsetDeg": .double(aimOffsetDeg),
         "aimOffsetIn": .double(aimOffsetIn), "speedFps": .double(speedFps), "playsLikeFt": .double(playsLikeFt),
         "holed": .bool(holed), "holeable": .bool(holeable), "converged": .bool(converged), "makeProbability": .double(makeProbability)]
    }

    init(ball: PointFt, flag: PointFt, line: PhysicsBestLine, rollingResistance ar: Double, finishPastFt: Double) {
        self.ball = ball
        distanceFt = ball.distance(to: flag)
        aimOffsetDeg = line.aimOffsetDeg
        aimOffsetIn = line.aimOffsetIn
        speedFps = line.speedFps
        playsLikeFt = line.speedFps * line.speedFps / (2 * ar) - finishPastFt
        holed = line.roll.holed
        holeable = line.holeable
        converged = line.converged
        makeProbability = line.probability?.probability ?? 0
    }

    init?(json: JSONValue) {
        guard let x = json["xFt"]?.doubleValue, let z = json["zFt"]?.doubleValue, let d = json["distanceFt"]?.doubleValue,
              let a = json["aimOffsetDeg"]?.doubleValue, let ai = json["aimOffsetIn"]?.doubleValue,
              let v = json["speedFps"]?.doubleValue, let pl = json["playsLikeFt"]?.doubleValue,
              let h = json["holed"]?.boolValue, let ho = json["holeable"]?.boolValue, let c = json["converged"]?.boolValue,
              let p = json["makeProbability"]?.doubleValue
        else { return nil }
        ball = PointFt(x: x, z: z)
        distanceFt = d; aimOffsetDeg = a; aimOffsetIn = ai; speedFps = v; playsLikeFt = pl
        holed = h; holeable = ho; converged = c; makeProbability = p
    }
}

/// A green book.
public struct GreenBook: Sendable {
    public var request: BookRequest
    public var heightfieldHash: String
    public var entries: [BookEntry]
    /// Positions taken from the cache (the rest were solved now).
    public var cachedCount: Int

    public var json: JSONValue {
        var o = JSONObject()
        o["course"] = .string(request.course)
        o["hole"] = .int(request.hole)
        o["flagXFt"] = .double(request.flag.x)
        o["flagZFt"] = .double(request.flag.z)
        o["stimpFt"] = .double(request.stimpFt)
        o["spacingFt"] = .double(request.spacingFt)
        o["finishPastFt"] = .double(request.finishPastFt)
        o["strokeErrors"] = request.errors.json
        o["heightfieldHash"] = .string(heightfieldHash)
        o["positions"] = .int(entries.count)
        o["cached"] = .int(cachedCount)
        o["entries"] = .array(entries.map(\.json))
        return ["book": .object(o)]
    }

    public static let csvHeader = "x_ft,z_ft,distance_ft,aim_offset_deg,aim_offset_in,speed_fps,plays_like_ft,holed,holeable,converged,make_probability"

    public var csv: String {
        var s = GreenBook.csvHeader + "\n"
        for e in entries {
            s += [fixed(e.ball.x, 3), fixed(e.ball.z, 3), fixed(e.distanceFt, 3), fixed(e.aimOffsetDeg, 4), fixed(e.aimOffsetIn, 2),
                  fixed(e.speedFps, 4), fixed(e.playsLikeFt, 2), e.holed ? "true" : "false", e.holeable ? "true" : "false",
                  e.converged ? "true" : "false", fixed(e.makeProbability, 4)].joined(separator: ",") + "\n"
        }
        return s
    }

    public var text: String {
        let n = entries.count
        let holed = entries.filter(\.holed).count, unholeable = entries.filter { !$0.holeable }.count
        var lines = ["Green book for \(request.course) hole \(request.hole), flag (\(fixed(request.flag.x, 2)), \(fixed(request.flag.z, 2))), stimp \(PuttingError.short(request.stimpFt)): "
            + "\(n) positions \(PuttingError.short(request.spacingFt)) ft apart (\(cachedCount) from the cache)"]
        if n > 0 {
            let mean = entries.reduce(0) { $0 + $1.makeProbability } / Double(n)
            lines.append("  best lines hole from \(holed) of \(n); \(unholeable) cannot be holed; mean make probability \(fixed(mean * 100, 1))%")
        }
        return lines.joined(separator: "\n")
    }
}

/// A pointer many workers write distinct slots of.
extension PuttingService {
    /// `putting book`: every position of the grid, from the cache or solved on all cores. `progress`
    /// gets fractions 0…1; `isCancelled` is asked between batches (the batches stored stay cached).
    /// `job`: the book job this runs for (each batch records its progress; see BookJobs.swift).
    public func book(_ request: BookRequest, progress: ((Double) -> Void)? = nil, isCancelled: () -> Bool = { false },
                     threads: Int? = nil, job: JobRecord? = nil) throws(PuttingError) -> GreenBook
    {
        let setup = try validateBook(request)
        var parameters = PhysicsParameters(stimpFt: request.stimpFt)
        parameters.capture = request.capture
        let surface = setup.surface, positions = setup.positions, hash = setup.hash
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: surface, parameters: parameters))
        solver.finishPastFt = request.finishPastFt
        solver.computeTolerance = false
        solver.strokeErrors = request.errors
        // A book is a sheet of summaries: its positions are not searched a second time for numerical instability (the
        // best line of one position says when its line is unstable).
        solver.checkStability = false
        // Positions are solved side by side; a position's own pieces may spread too (the last positions of a batch
        // then finish on both cores instead of one). The same numbers on any number of lanes.
        solver.lanes = Swift.max(1, threads ?? PuttingService.processorCount)

        var cache = bookCache(request, heightfieldHash: hash, job: job)
        var entries = try cache.entries(at: positions)
        let cached = entries.lazy.filter { $0 != nil }.count
        // Warm starts: the grid's every third row and column (aligned on the flag) are solved from scratch; every
        // other position starts from the nearest of those (at most one step away in each direction), as long as
        // that one met both conditions and drops. Which neighbour a position starts from depends on the grid
        // alone, not on what the cache held or on the order of solving, so a book gives the same numbers
        // whether solved at once, resumed, or on any number of cores.
        let parents = BookRequest.warmParents(positions, flag: request.flag, spacingFt: request.spacingFt)
        // Positions that start from scratch come first, so a neighbour is solved before the positions it starts.
        let missing = entries.indices.filter { entries[$0] == nil && parents[$0] == nil }
            + entries.indices.filter { entries[$0] == nil && parents[$0] != nil }
        let workers = Swift.max(1, threads ?? PuttingService.processorCount)
        let batchSize = Swift.max(8, workers * 8)
        var done = 0
        progress?(positions.isEmpty ? 1 : Double(cached) / Double(positions.count))
        let ar = solver.simulator.ar, flag = request.flag, past = request.finishPastFt
        let s = solver
        /// Solves `items` on every core; a position's warm start comes from its parent's entry.
        func solve(_ items: [Int]) -> [BookEntry?] {
            guard !items.isEmpty else { return [] }
            let warm: [PhysicsWarmStart?] = items.map { index in
                guard let p = parents[index], let e = entries[p], e.holeable, e.holed, e.converged else { return nil }
                return PhysicsWarmStart(ball: e.ball, aimDeg: e.aimOffsetDeg, speedFps: e.speedFps)
            }
            // The lanes take the likely longest first (solves from scratch, then the furthest balls), so the batch does
            // not wait on one long solve at its end; the entries come back in the items' order.
            let order = items.indices.sorted {
                let a = (warm[$0] == nil ? 0 : 1, -positions[items[$0]].distance(to: flag))
                let b = (warm[$1] == nil ? 0 : 1, -positions[items[$1]].distance(to: flag))
                return a < b || (a == b && $0 < $1)
            }
            let solved = Lanes.map(items.count, lanes: workers) { j in
                let k = order[j]
                let ball = positions[items[k]]
                let line = s.bestLine(ball: ball, hole: flag, warmStart: warm[k])
                return BookEntry(ball: ball, flag: flag, line: line, rollingResistance: ar, finishPastFt: past)
            }
            var entries = [BookEntry?](repeating: nil, count: items.count)
            for (j, k) in order.enumerated() { entries[k] = solved[j] }
            return entries
        }
        while done < missing.count {
            if isCancelled() { throw .bookStopped(done: cached + done, total: positions.count) }
            let batch = Array(missing[done..<Swift.min(missing.count, done + batchSize)])
            // Positions whose parent is in this same batch wait for it.
            let inBatch = Set(batch)
            let first = batch.filter { parents[$0].map { !inBatch.contains($0) } ?? true }
            let second = batch.filter { parents[$0].map { inBatch.contains($0) } ?? false }
            for items in [first, second] {
                for (k, e) in solve(items).enumerated() { entries[items[k]] = e }
            }
            var solved: [BookEntry] = []
            for index in batch {
                guard let e = entries[index] else { continue }
                solved.append(e)
            }
            // One transaction per batch (with the job's progress): a stop keeps the batches stored.
            try cache.save(solved, done: cached + done + batch.count, total: positions.count)
            done += batch.count
            progress?(Double(cached + done) / Double(positions.count))
        }
        return GreenBook(request: request, heightfieldHash: hash, entries: entries.compactMap { $0 }, cachedCount: cached)
    }

    /// Cores to solve on.
    public static let processorCount = Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The book's SVG sheet.
    public func bookPicture(_ book: GreenBook, widthPx: Double = 1200) throws(PuttingError) -> String {
        let hole = try hole(course: book.request.course, number: book.request.hole)
        var picture = PuttingService.picture(of: hole, result: nil, widthPx: widthPx, contours: true, shading: false)
        picture.flag = book.request.flag
        picture.title = "\(hole.courseID) hole \(hole.number): green book for the pin at (\(fixed(book.request.flag.x, 1)), \(fixed(book.request.flag.z, 1))) ft, stimp \(PuttingError.short(book.request.stimpFt))"
        let e = book.request.errors
        picture.legend = [
            "Each dot is a ball position (\(PuttingError.short(book.request.spacingFt)) ft grid); its tick points where to aim, the number is how far the putt plays, in feet on the flat.",
            "Colour: the make probability with \(e.summary); a grey cross cannot be holed.",
            "Lines aim through the cup to finish \(fixed(book.request.finishPastFt * 12, 0)) in past it. Contours every \(PuttingError.short(hole.contourIntervalFt ?? 0.25)) ft.",
        ]
        picture.legendRamp = (stops: (0...10).map { GreenBook.probabilityColour(Double($0) / 10) }, low: "0 %", high: "100 % make")
        let scale = picture.frame.imageWidthPx / picture.frame.greenWidthFt
        let spacingPx = book.request.spacingFt * scale
        let tick = Swift.min(0.8 * spacingPx, 28)
        let font = Swift.min(Swift.max(spacingPx * 0.34, 6), 13)
        var s = "<g id=\"book\" font-size=\"\(fixed(font, 1))\" text-anchor=\"middle\">\n"
        for entry in book.entries {
            let (u, v) = picture.pixel(entry.ball)
            let base = atan2(book.request.flag.z - entry.ball.z, book.request.flag.x - entry.ball.x) + entry.aimOffsetDeg * .pi / 180
            // Pixel +v is −z.
            let du = cos(base) * tick, dv = -sin(base) * tick
            if !entry.holeable {
                let r = Swift.max(2.5, tick * 0.18)
                s += "<path d=\"M\(fixed(u - r, 1)),\(fixed(v - r, 1))L\(fixed(u + r, 1)),\(fixed(v + r, 1))M\(fixed(u - r, 1)),\(fixed(v + r, 1))L\(fixed(u + r, 1)),\(fixed(v - r, 1))\" stroke=\"#666666\" stroke-width=\"1.5\"><title>(\(fixed(entry.ball.x, 1)), \(fixed(entry.ball.z, 1))): cannot be holed</title></path>\n"
                continue
            }
            let colour = GreenBook.probabilityColour(entry.makeProbability)
            s += "<g><title>(\(fixed(entry.ball.x, 1)), \(fixed(entry.ball.z, 1))): \(fixed(entry.distanceFt, 1)) ft, aim \(fixed(abs(entry.aimOffsetIn), 1)) in \(entry.aimOffsetIn >= 0 ? "left" : "right"), \(fixed(entry.speedFps, 2)) ft/s, plays \(fixed(entry.playsLikeFt, 1)) ft, makes \(fixed(entry.makeProbability * 100, 0))%</title>"
            s += "<line x1=\"\(fixed(u, 1))\" y1=\"\(fixed(v, 1))\" x2=\"\(fixed(u + du, 1))\" y2=\"\(fixed(v + dv, 1))\" stroke=\"#1b1b1b\" stroke-width=\"1.3\"/>"
            s += "<circle cx=\"\(fixed(u, 1))\" cy=\"\(fixed(v, 1))\" r=\"\(fixed(Swift.max(2.5, tick * 0.16), 1))\" fill=\"\(colour)\" stroke=\"#1b1b1b\" stroke-width=\"0.6\"/>"
            // The label sits opposite the tick, so the two never overlap.
            let lu = u - du * 0.45, lv = v - dv * 0.45 + font * 0.35
            s += "<text x=\"\(fixed(lu, 1))\" y=\"\(fixed(lv, 1))\" fill=\"#1b1b1b\" stroke=\"#ffffff\" stroke-width=\"2.2\" paint-order=\"stroke\">\(fixed(entry.playsLikeFt, 0))</text></g>\n"
        }
        s += "</g>\n"
        picture.overlaySVG = s
        return picture.svg()
    }
}

extension GreenBook {
    /// Red (never) through amber to green (always).
    static func probabilityColour(_ p: Double) -> String {
        let stops: [(Double, (Double, Double, Double))] = [(0, (215, 48, 39)), (0.25, (252, 141, 89)), (0.5, (254, 224, 139)),
                                                           (0.75, (145, 207, 96)), (1, (26, 152, 80))]
        let t = Swift.min(1, Swift.max(0, p.isFinite ? p : 0))
        var k = 0
        while k < stops.count - 2 && t > stops[k + 1].0 { k += 1 }
        let (t0, c0) = stops[k], (t1, c1) = stops[k + 1]
        let f = (t - t0) / (t1 - t0)
        func mix(_ a: Double, _ b: Double) -> Int { Int((a + (b - a) * f).rounded()) }
        return GreenPicture.hex(mix(c0.0, c1.0), mix(c0.1, c1.1), mix(c0.2, c1.2))
    }
}
