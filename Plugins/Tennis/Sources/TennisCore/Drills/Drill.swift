// Ball-machine drills: a shareable JSON file of steps (where, how fast, which spin, how long before
// the ball, how many times), repeated and optionally shuffled with a seed. A drill's identity is the
// SHA-256 of its canonical JSON (the validated drill with defaults filled in, keys sorted, compact),
// so the same drill written differently has the same hash. Schema: Plugins/Tennis/drill.schema.json.

import ClubhouseHashing
import ClubhouseJSON

/// Where the balls of a step go: one zone, or a random point inside a rectangle of the court (its
/// zone is targeted; the point is drawn per ball from the drill's seed).
public enum DrillPlacement: Sendable, Equatable {
    case zone(Int)
    case sector(x: ClosedRange<Double>, y: ClosedRange<Double>)
}

public struct DrillStep: Sendable, Equatable {
    public var placement: DrillPlacement
    public var speed: BallSpeed
    public var spin: Spin
    /// Seconds before this step's ball is launched (2–9, the protocol's launch interval).
    public var delay: Double
    /// Balls of this step in a row.
    public var repeats: Int
    public var note: String?
}

public struct Drill: Sendable, Equatable {
    public static let delayRange: ClosedRange<Double> = LaunchPlanner.intervalRange
    public static let repeatRange: ClosedRange<Int> = 1...100
    /// At most this many balls in one run (a full hopper is about 150).
    public static let maximumBalls = 1000

    public var name: String
    public var description: String?
    public var steps: [DrillStep]
    /// How many times the whole sequence runs.
    public var repeats: Int
    /// Shuffle the balls (all repetitions together) with `seed`.
    public var shuffle: Bool
    public var seed: UInt64

    /// The canonical JSON (what the hash is of) and its lowercase hex SHA-256.
    public var canonicalJSON: String { JSONWriter.compact(canonicalValue) }
    public var hash: String { SHA256.hash(Array(canonicalJSON.utf8)).hex }
    /// The first 12 hex digits, as shown and accepted in place of a name.
    public var shortHash: String { String(hash.prefix(12)) }

    public var ballCount: Int { steps.reduce(0) { $0 + $1.repeats } * repeats }
    public var totalDelay: Double { steps.reduce(0) { $0 + $1.delay * Double($1.repeats) } * Double(repeats) }

    static let topKeys = ["name", "description", "repeat", "shuffle", "seed", "steps"]
    static let stepKeys = ["zone", "sector", "speed", "spin", "delay", "repeat", "note"]
    static let sectorKeys = ["x", "y"]

    // MARK: Parsing

    /// Parses and validates drill text. Errors are one line: the file, line and column, and the
    /// step they belong to (`step 2: …`).
    public static func parse(_ text: String, file: String) throws(InputError) -> Drill {
        try parse(try JSONInput(text: text, file: file, expecting: expected))
    }

    /// What a drill file holds, in one line (for a file that is not JSON at all).
    static let expected = #"a JSON drill (schema: drill.schema.json in the tennis plugin's folder): {"name": "…", "steps": [{"zone": 0–15, "speed": 20–80, "spin": "topspin", "delay": 2–9}]}"#

    public static func parse(_ input: JSONInput) throws(InputError) -> Drill {
        let root = try input.object(at: "")
        try input.rejectUnknownKeys(root, allowed: topKeys, at: "")
        guard let nameValue = root["name"] else { throw input.error(at: "", "a drill needs a \"name\"") }
        guard let name = nameValue.stringValue, !name.trimmingSpacesString.isEmpty, name.utf8.count <= 100 else {
            throw input.error(at: "/name", "\"name\" must be a non-empty string of at most 100 bytes")
        }
        let description = try root["description"].map { value throws(InputError) -> String in
            guard let s = value.stringValue else { throw input.error(at: "/description", "\"description\" must be a string") }
            return s
        }
        let repeats = root["repeat"] == nil ? 1 : try input.integer(at: "/repeat", in: repeatRange, what: "drill repeat")
        var shuffle = false
        if let value = root["shuffle"] {
            guard let b = value.boolValue else { throw input.error(at: "/shuffle", "\"shuffle\" must be true or false") }
            shuffle = b
        }
        let seed = root["seed"] == nil ? 1 : UInt64(try input.integer(at: "/seed", in: 0...Int(Int32.max), what: "seed"))
        guard let stepsValue = root["steps"] else { throw input.error(at: "", "a drill needs \"steps\": a list of at least one step") }
        guard let steps = stepsValue.arrayValue else { throw input.error(at: "/steps", "\"steps\" must be a list of steps, found \(stepsValue.kindName)") }
        guard !steps.isEmpty else { throw input.error(at: "/steps", "the drill has an empty sequence: \"steps\" needs at least one step") }
        var parsed: [DrillStep] = []
        for i in steps.indices { parsed.append(try parseStep(input, index: i)) }
        let drill = Drill(name: name, description: description, steps: parsed, repeats: repeats, shuffle: shuffle, seed: seed)
        guard drill.ballCount <= maximumBalls else {
            throw input.error(at: "/steps", "the drill has \(drill.ballCount) balls, more than \(maximumBalls); lower the repeats")
        }
        return drill
    }

    private static func parseStep(_ input: JSONInput, index i: Int) throws(InputError) -> DrillStep {
        let at = "/steps/\(i)"
        let label = "step \(i + 1)"
        func fail(_ pointer: String, _ message: String) -> InputError { input.error(at: pointer, "\(label): \(message)") }
        guard let object = input.value(at: at)?.objectValue else { throw fail(at, "a step must be an object") }
        for key in object.keys where !stepKeys.contains(key) {
            throw input.keyError(at: at + "/" + JSONDocument.escapePointerToken(key),
                                 "\(label): unknown key \"\(key)\"; expected \(stepKeys.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        let placement: DrillPlacement
        switch (object["zone"], object["sector"]) {
        case (let zone?, nil):
            guard let n = zone.numberValue, let z = n.int, Double(z) == n.double, (0..<CourtZones.count).contains(z) else {
                let shown = zone.numberValue?.lexeme ?? zone.stringValue.map { "\"\($0)\"" } ?? zone.kindName
                throw fail(at + "/zone", "unknown zone \(shown); zones are numbered 0–15 (row · 4 + column, row 0 at the net)")
            }
            placement = .zone(z)
        case (nil, let sector?):
            guard let s = sector.objectValue else { throw fail(at + "/sector", "\"sector\" must be an object {\"x\": [from, to], \"y\": [from, to]} in court metres") }
            for key in s.keys where !sectorKeys.contains(key) {
                throw fail(at + "/sector/" + JSONDocument.escapePointerToken(key), "unknown sector key \"\(key)\"; expected \"x\", \"y\"")
            }
            func range(_ key: String, _ limit: Double) throws(InputError) -> ClosedRange<Double> {
                let p = at + "/sector/" + key
                guard let pair = s[key]?.arrayValue, pair.count == 2, let lo = pair[0].numberValue?.double, let hi = pair[1].numberValue?.double,
                      lo.isFinite, hi.isFinite
                else { throw fail(s[key] == nil ? at + "/sector" : p, "sector \(key) must be [from, to] in metres") }
                guard lo < hi, lo >= 0, hi <= limit else {
                    throw fail(p, "sector \(key) [\(Format.number(lo)), \(Format.number(hi))] must rise and lie within 0–\(Format.number(limit)) m (the half court)")
                }
                return lo...hi
            }
            placement = .sector(x: try range("x", Court.width), y: try range("y", Court.halfLength))
        case (nil, nil):
            throw fail(at, "give a \"zone\" (0–15) or a \"sector\" {\"x\": [from, to], \"y\": [from, to]}")
        case (.some, .some):
            throw fail(at, "give either \"zone\" or \"sector\", not both")
        }
        guard let speedValue = object["speed"] else { throw fail(at, "missing \"speed\" (mph: 20, 30, … 80)") }
        guard let n = speedValue.numberValue, let mph = n.int, Double(mph) == n.double, let speed = try? BallSpeed(mph: mph) else {
            let shown = speedValue.numberValue?.lexeme ?? speedValue.stringValue.map { "\"\($0)\"" } ?? speedValue.kindName
            throw fail(at + "/speed", "speed \(shown) is out of range; the machine takes 20–80 mph in steps of 10")
        }
        var spin = Spin.topspin
        if let spinValue = object["spin"] {
            guard let text = spinValue.stringValue, let s = Spin(rawValue: text) else {
                throw fail(at + "/spin", "spin \(spinValue.stringValue.map { "\"\($0)\"" } ?? spinValue.kindName) is not one of \(Spin.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            spin = s
        }
        guard let delayValue = object["delay"] else { throw fail(at, "missing \"delay\" (seconds before the ball, 2–9)") }
        guard let d = delayValue.numberValue?.double, d.isFinite else { throw fail(at + "/delay", "\"delay\" must be a number of seconds (2–9)") }
        guard delayRange.contains(d) else {
            throw fail(at + "/delay", "delay \(delayValue.numberValue?.lexeme ?? Format.number(d)) s is outside 2–9 s (the machine's launch interval)")
        }
        var repeats = 1
        if let r = object["repeat"] {
            guard let n = r.numberValue, let k = n.int, Double(k) == n.double, repeatRange.contains(k) else {
                throw fail(at + "/repeat", "repeat must be a whole number 1–100, found \(r.numberValue?.lexeme ?? r.kindName)")
            }
            repeats = k
        }
        var note: String? = nil
        if let value = object["note"] {
            guard let s = value.stringValue else { throw fail(at + "/note", "\"note\" must be a string") }
            note = s
        }
        return DrillStep(placement: placement, speed: speed, spin: spin, delay: d, repeats: repeats, note: note)
    }

    // MARK: Canonical form

    /// The drill with defaults filled in, keys sorted (what `canonicalJSON` writes).
    public var canonicalValue: JSONValue {
        func number(_ d: Double) -> JSONValue { .number(JSONValueEncoder.number(d) ?? JSONNumber(0)) }
        var top: [(String, JSONValue)] = []
        if let description { top.append(("description", .string(description))) }
        top.append(("name", .string(name)))
        top.append(("repeat", .number(JSONNumber(repeats))))
        top.append(("seed", .number(JSONNumber(Int(seed)))))
        top.append(("shuffle", .bool(shuffle)))
        let stepValues: [JSONValue] = steps.map { step in
            var members: [(String, JSONValue)] = [("delay", number(step.delay))]
            if let note = step.note { members.append(("note", .string(note))) }
            members.append(("repeat", .number(JSONNumber(step.repeats))))
            switch step.placement {
            case .zone: break
            case .sector(let x, let y):
                members.append(("sector", .object(JSONObject([
                    (key: "x", value: .array([number(x.lowerBound), number(x.upperBound)])),
                    (key: "y", value: .array([number(y.lowerBound), number(y.upperBound)])),
                ]))))
            }
            members.append(("speed", .number(JSONNumber(step.speed.mph))))
            members.append(("spin", .string(step.spin.rawValue)))
            if case .zone(let z) = step.placement { members.append(("zone", .number(JSONNumber(z)))) }
            return .object(JSONObject(members.map { (key: $0.0, value: $0.1) }))
        }
        top.append(("steps", .array(stepValues)))
        return .object(JSONObject(top.map { (key: $0.0, value: $0.1) }))
    }

    // MARK: Plan

    /// The balls in launch order: steps × their repeats, the whole sequence × the drill's repeats,
    /// shuffled when asked; sector points drawn. Same drill and seed → same plan.
    public func plan(seed override: UInt64? = nil) -> [DrillBall] {
        var generator = SplitMix64(seed: override ?? seed)
        var order: [(Int, Int)] = []  // (step index, repetition within the step)
        for _ in 0..<repeats {
            for (s, step) in steps.enumerated() { for k in 0..<step.repeats { order.append((s, k)) } }
        }
        if shuffle, order.count > 1 {
            for i in stride(from: order.count - 1, to: 0, by: -1) {
                let j = Int(generator.next() % UInt64(i + 1))
                order.swapAt(i, j)
            }
        }
        func uniform(_ r: ClosedRange<Double>) -> Double {
            r.lowerBound + Double(generator.next() >> 11) / Double(UInt64(1) << 53) * (r.upperBound - r.lowerBound)
        }
        var balls: [DrillBall] = []
        for (n, (s, _)) in order.enumerated() {
            let step = steps[s]
            let zone: Int, target: Point2D
            switch step.placement {
            case .zone(let z):
                zone = z
                target = CourtZones.center(of: z) ?? Point2D(0, 0)
            case .sector(let x, let y):
                // Zones are half-open: a point on the far edge of the court belongs to no zone, so
                // draw again (at most a few times) and fall back to the sector's centre.
                var p = Point2D(uniform(x), uniform(y))
                var tries = 0
                while CourtZones.zone(at: p) == nil && tries < 8 { p = Point2D(uniform(x), uniform(y)); tries += 1 }
                if CourtZones.zone(at: p) == nil { p = Point2D((x.lowerBound + x.upperBound) / 2, (y.lowerBound + y.upperBound) / 2) }
                target = p
                zone = CourtZones.zone(at: p) ?? 0
            }
            balls.append(DrillBall(index: n + 1, step: s + 1, zone: zone, target: target, speed: step.speed, spin: step.spin, delay: step.delay))
        }
        return balls
    }
}

/// One ball of a planned drill.
public struct DrillBall: Sendable, Equatable, Codable {
    /// 1-based launch number and step number.
    public var index: Int
    public var step: Int
    public var zone: Int
    /// Where it is aimed: the zone's centre, or the point drawn in the sector.
    public var target: Point2D
    public var speed: BallSpeed
    public var spin: Spin
    /// Seconds before this ball.
    public var delay: Double
}

extension String {
    var trimmingSpacesString: String { String(Substring(self).trimmingSpaces) }
}
