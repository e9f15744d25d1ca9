// The course file of `scorecard course add FILE.json`:
//
//   { "name": "Heron Bay Links",
//     "tees": [ { "name": "White", "rating": 71.2, "slope": 128,
//                 "front": { "rating": 35.8, "slope": 127 }, "back": { "rating": 35.4, "slope": 129 },
//                 "holes": [ { "number": 1, "par": 4, "strokeIndex": 7 }, … ] } ] }
//
// `number` is optional (holes are numbered in order), `front`/`back` are optional. Ratings are decimals
// with one digit after the point, read from the exact JSON lexeme. Every error names file:line:col.

import ClubhouseJSON

/// Typed access to a parsed JSON document that reports file:line:col for every mistake.
struct LocatedJSON {
    let document: JSONDocument
    let file: String
    let makeError: @Sendable (_ location: String, _ message: String) -> ScorecardError

    func locate(_ pointer: String) -> String {
        "\(file):\(document.location(of: pointer)): "
    }

    func fail(_ pointer: String, _ message: String) -> ScorecardError {
        makeError(locate(pointer), message)
    }

    func value(_ pointer: String) -> JSONValue? {
        var current = document.value
        for token in pointer.split(separator: "/", omittingEmptySubsequences: true) {
            let key = token.replacingTilde
            switch current {
            case .object(let object):
                guard let next = object[key] else { return nil }
                current = next
            case .array(let array):
                guard let index = Int(key), array.indices.contains(index) else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }

    func object(_ pointer: String, what: String, keys allowed: [String]) throws(ScorecardError) -> JSONObject {
        guard let value = value(pointer) else { throw fail(pointer, "\(what) is missing") }
        guard case .object(let object) = value else { throw fail(pointer, "\(what) must be an object, found \(value.kindName)") }
        for key in object.keys where !allowed.contains(key) {
            throw fail(pointer + "/" + JSONDocument.escapePointerToken(key),
                       "unknown key \"\(key)\" in \(what) — known keys are " + allowed.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return object
    }

    func array(_ pointer: String, what: String) throws(ScorecardError) -> [JSONValue] {
        guard let value = value(pointer) else { throw fail(pointer, "\(what) is missing") }
        guard case .array(let array) = value else { throw fail(pointer, "\(what) must be an array, found \(value.kindName)") }
        return array
    }

    func string(_ pointer: String, what: String) throws(ScorecardError) -> String {
        guard let value = value(pointer) else { throw fail(pointer, "\(what) is missing") }
        guard case .string(let text) = value else { throw fail(pointer, "\(what) must be a string, found \(value.kindName)") }
        return text
    }

    func integer(_ pointer: String, what: String) throws(ScorecardError) -> Int {
        guard let value = value(pointer) else { throw fail(pointer, "\(what) is missing") }
        guard case .number(let number) = value, number.isInteger, let int = Int(number.lexeme), abs(int) < 1_000_000 else {
            throw fail(pointer, "\(what) must be a whole number, found \(value)")
        }
        return int
    }

    func tenths(_ pointer: String, what: String) throws(ScorecardError) -> Tenths {
        guard let value = value(pointer) else { throw fail(pointer, "\(what) is missing") }
        guard case .number(let number) = value, let tenths = Tenths.parse(number.lexeme), abs(tenths.raw) < 10_000 else {
            throw fail(pointer, "\(what) must be a decimal with at most one digit after the point (like 71.2), found \(value)")
        }
        return tenths
    }
}

extension Substring {
    var replacingTilde: String {
        guard contains("~") else { return String(self) }
        return split(separator: "~1", omittingEmptySubsequences: false).joined(separator: "/")
            .split(separator: "~0", omittingEmptySubsequences: false).joined(separator: "~")
    }
}

/// Reads and validates a course file.
public enum CourseFile {
    /// Parses `text` (the content of `file`) into a validated course draft.
    public static func parse(_ text: String, file: String) throws(ScorecardError) -> CourseDraft {
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(text)
        } catch {
            throw .invalidCourseFile(location: "\(file):\(error.location): ", message: error.message + " — fix the JSON syntax")
        }
        let json = LocatedJSON(document: document, file: file, makeError: { .invalidCourseFile(location: $0, message: $1) })
        _ = try json.object("", what: "the course", keys: ["name", "tees"])
        let name = try json.string("/name", what: "the course's \"name\"")
        let teeValues = try json.array("/tees", what: "the course's \"tees\"")
        var tees: [Tee] = []
        for t in teeValues.indices {
            tees.append(try tee(json, "/tees/\(t)", number: t + 1))
        }
        let draft = CourseDraft(name: String(name.trimmingSpaces), tees: tees)
        try CourseValidation.validate(draft, locate: json.locate)
        return draft
    }

    static func tee(_ json: LocatedJSON, _ base: String, number: Int) throws(ScorecardError) -> Tee {
        let object = try json.object(base, what: "tee \(number)", keys: ["name", "rating", "slope", "front", "back", "holes"])
        let name = try json.string(base + "/name", what: "tee \(number)'s \"name\"")
        let rating = try json.tenths(base + "/rating", what: "tee '\(name)' \"rating\"")
        let slope = try json.integer(base + "/slope", what: "tee '\(name)' \"slope\"")
        var nines: [Rating?] = []
        for side in ["front", "back"] {
            if object[side] == nil {
                nines.append(nil)
                continue
            }
            let pointer = base + "/" + side
            _ = try json.object(pointer, what: "tee '\(name)' \"\(side)\"", keys: ["rating", "slope"])
            nines.append(Rating(rating: try json.tenths(pointer + "/rating", what: "tee '\(name)' \(side)-nine \"rating\""),
                                slope: try json.integer(pointer + "/slope", what: "tee '\(name)' \(side)-nine \"slope\"")))
        }
        let holeValues = try json.array(base + "/holes", what: "tee '\(name)' \"holes\"")
        var holes: [Hole] = []
        for h in holeValues.indices {
            let pointer = "\(base)/holes/\(h)"
            let hole = try json.object(pointer, what: "hole \(h + 1) of tee '\(name)'", keys: ["number", "par", "strokeIndex"])
            let holeNumber = hole["number"] == nil ? h + 1 : try json.integer(pointer + "/number", what: "hole \(h + 1) \"number\"")
            holes.append(Hole(number: holeNumber,
                              par: try json.integer(pointer + "/par", what: "hole \(holeNumber) \"par\""),
                              strokeIndex: try json.integer(pointer + "/strokeIndex", what: "hole \(holeNumber) \"strokeIndex\"")))
        }
        return Tee(name: String(name.trimmingSpaces), rating: rating, slope: slope, holes: holes, front: nines[0], back: nines[1])
    }

    /// The course as a course file (the format `parse` reads).
    public static func render(_ draft: CourseDraft) -> String {
        func rating(_ r: Rating) -> JSONValue {
            .object(JSONObject([("rating", .number(JSONNumber(lexeme: r.rating.description, isInteger: false))),
                                ("slope", .int(r.slope))]))
        }
        let tees: [JSONValue] = draft.tees.map { tee in
            var members: [(key: String, value: JSONValue)] = [
                ("name", .string(tee.name)),
                ("rating", .number(JSONNumber(lexeme: tee.rating.description, isInteger: false))),
                ("slope", .int(tee.slope)),
            ]
            if let front = tee.front { members.append(("front", rating(front))) }
            if let back = tee.back { members.append(("back", rating(back))) }
            members.append(("holes", .array(tee.holes.map {
                .object(JSONObject([("number", .int($0.number)), ("par", .int($0.par)), ("strokeIndex", .int($0.strokeIndex))]))
            })))
            return .object(JSONObject(members))
        }
        return JSONWriter.pretty(.object(JSONObject([("name", .string(draft.name)), ("tees", .array(tees))])))
    }
}
