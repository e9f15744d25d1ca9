// Import of the original Golfer app's seed file (`default_seed.json`):
//
//   { "players": [ { "name": "…", "handicap": 2 } ],
//     "courses": [ { "name": "…", "slopeRating": 140, "courseRating": 78,
//                    "holes": [ { "index": 0, "par": 4, "handicap": 9 }, … ] } ] }
//
// Hole "index" is 0-based, hole "handicap" is the stroke index. Each course becomes a course with one tee
// named "Default" and goes through the same validation as any course: a course that fails (the seed has
// one with stroke index 4 twice and no 14) is reported with file:line:col and not imported. A player's
// "handicap" is the Handicap Index they came to the app with: it is kept as their given index (in force
// until their record here has three differentials; README), checked like `player add --index` (plus 10.0
// to 54.0, at most one decimal) — a player whose handicap is not one is reported with file:line:col and
// not imported.

import ClubhouseJSON

/// `scorecard import FILE`: the file's name and content.
public struct SeedImportRequest: Sendable {
    public var file: String
    public var text: String
    public init(file: String, text: String) {
        self.file = file
        self.text = text
    }
}

/// Something of the seed that was not imported, and why.
public struct SeedRejection: Sendable, Codable, Equatable {
    public var item: String
    public var error: String
}

/// What an import did.
public struct SeedImportReport: Sendable, Codable, Equatable {
    public var playersAdded: [Player]
    public var coursesAdded: [CourseSummary]
    /// Items left out because they already exist (same name).
    public var skipped: [String]
    public var rejected: [SeedRejection]
    public var notes: [String]

    public var text: String {
        var lines = ["imported \(playersAdded.count) player\(playersAdded.count == 1 ? "" : "s") and "
            + "\(coursesAdded.count) course\(coursesAdded.count == 1 ? "" : "s")"]
        lines += playersAdded.map { "  player \($0.id): \($0.name)" + ($0.givenIndex.map { ", given Handicap Index \($0.handicapNotation)" } ?? "") }
        lines += coursesAdded.map { "  course \($0.id): \($0.name)" }
        lines += skipped.map { "  skipped \($0) (already present)" }
        lines += rejected.map { "rejected \($0.item): \($0.error)" }
        lines += notes.map { "note: \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// The parsed seed, before anything is stored.
struct Seed {
    /// Each player's name and given index, or why the entry is not a player.
    var players: [(name: String, index: Result<Tenths?, ScorecardError>)]
    var courses: [Result<CourseDraft, ScorecardError>]
    var courseNames: [String]

    static func parse(_ text: String, file: String) throws(ScorecardError) -> Seed {
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(text)
        } catch {
            throw .invalidSeed(location: "\(file):\(error.location): ", message: error.message + " — fix the JSON syntax")
        }
        let json = LocatedJSON(document: document, file: file, makeError: { .invalidSeed(location: $0, message: $1) })
        _ = try json.object("", what: "the seed", keys: ["_source", "players", "courses"])
        var players: [(String, Result<Tenths?, ScorecardError>)] = []
        for p in try json.array("/players", what: "\"players\"").indices {
            let base = "/players/\(p)"
            _ = try json.object(base, what: "player \(p + 1)", keys: ["name", "handicap"])
            let name = try json.string(base + "/name", what: "player \(p + 1) \"name\"")
            players.append((name, Result { () throws(ScorecardError) -> Tenths? in
                guard let value = json.value(base + "/handicap"), value != .null else { return nil }
                guard case .number(let number) = value, let index = Tenths.parse(number.lexeme), indexRange.contains(index.raw) else {
                    throw json.fail(base + "/handicap", "player '\(name)' \"handicap\" \(value) is not a Handicap Index "
                        + "(plus 10.0 to 54.0 — a plus index is negative here — with at most one decimal); correct it or leave it out")
                }
                return index
            }))
        }
        var courses: [Result<CourseDraft, ScorecardError>] = []
        var names: [String] = []
        for c in try json.array("/courses", what: "\"courses\"").indices {
            let base = "/courses/\(c)"
            let name = (try? json.string(base + "/name", what: "")) ?? "course \(c + 1)"
            names.append(name)
            courses.append(Result { () throws(ScorecardError) in try course(json, base: base) })
        }
        return Seed(players: players, courses: courses, courseNames: names)
    }

    static func course(_ json: LocatedJSON, base: String) throws(ScorecardError) -> CourseDraft {
        _ = try json.object(base, what: "a course", keys: ["name", "slopeRating", "courseRating", "holes"])
        let name = try json.string(base + "/name", what: "the course \"name\"")
        let slope = try json.integer(base + "/slopeRating", what: "course '\(name)' \"slopeRating\"")
        let rating = try json.tenths(base + "/courseRating", what: "course '\(name)' \"courseRating\"")
        var holes: [Hole] = []
        for h in try json.array(base + "/holes", what: "course '\(name)' \"holes\"").indices {
            let pointer = "\(base)/holes/\(h)"
            _ = try json.object(pointer, what: "hole \(h + 1) of '\(name)'", keys: ["index", "par", "handicap"])
            holes.append(Hole(number: try json.integer(pointer + "/index", what: "hole \(h + 1) \"index\"") + 1,
                              par: try json.integer(pointer + "/par", what: "hole \(h + 1) \"par\""),
                              strokeIndex: try json.integer(pointer + "/handicap", what: "hole \(h + 1) \"handicap\"")))
        }
        let draft = CourseDraft(name: name, tees: [Tee(name: "Default", rating: rating, slope: slope, holes: holes)])
        // Our pointers (/tees/0/…) name the seed's places (/courses/c/…).
        try CourseValidation.validate(draft) { pointer in
            var seedPointer = base
            if pointer == "/name" { seedPointer += "/name" }
            else if pointer.hasPrefix("/tees/0/holes") {
                seedPointer += String(pointer.dropFirst("/tees/0".count))
                    .replacingSuffix("/strokeIndex", with: "/handicap")
            } else if pointer == "/tees/0/slope" { seedPointer += "/slopeRating" }
            else if pointer == "/tees/0/rating" { seedPointer += "/courseRating" }
            return "\(json.locate(seedPointer))course '\(name)': "
        }
        return draft
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}

extension ScorecardCommands {
    /// Imports the seed's valid players and courses in one transaction and reports the rest.
    public func importSeed(_ request: SeedImportRequest) throws(ScorecardError) -> SeedImportReport {
        let seed = try Seed.parse(request.text, file: request.file)
        var report = SeedImportReport(playersAdded: [], coursesAdded: [], skipped: [], rejected: [], notes: [])
        let existingPlayers = Set(try stored { try store.players() }.map { $0.name.lowercased() })
        let existingCourses = Set(try stored { try store.courses() }.map { $0.name.lowercased() })
        var newPlayers: [(name: String, index: Tenths?)] = []
        for (name, index) in seed.players {
            let trimmed = String(name.trimmingSpaces)
            if existingPlayers.contains(trimmed.lowercased()) || newPlayers.contains(where: { $0.name.lowercased() == trimmed.lowercased() }) {
                report.skipped.append("player '\(trimmed)'")
            } else if trimmed.isEmpty || trimmed.contains(",") {
                report.rejected.append(SeedRejection(item: "player '\(name)'", error: "a player needs a name without commas"))
            } else {
                switch index {
                case .success(let given): newPlayers.append((trimmed, given))
                case .failure(let error): report.rejected.append(SeedRejection(item: "player '\(trimmed)'", error: error.description))
                }
            }
        }
        var drafts: [CourseDraft] = []
        for (name, result) in zip(seed.courseNames, seed.courses) {
            switch result {
            case .failure(let error):
                report.rejected.append(SeedRejection(item: "course '\(name)'", error: error.description))
            case .success(let draft):
                if existingCourses.contains(draft.name.lowercased()) || drafts.contains(where: { $0.name.lowercased() == draft.name.lowercased() }) {
                    report.skipped.append("course '\(draft.name)'")
                } else {
                    drafts.append(draft)
                }
            }
        }
        if newPlayers.contains(where: { $0.index != nil }) {
            report.notes.append("each player's \"handicap\" is kept as the Handicap Index they came with: in force until "
                + "3 differentials are recorded here (scorecard README)")
        }
        let players = newPlayers
        let courses = drafts
        let added = try stored {
            try store.transaction { () throws -> ([Player], [Course]) in
                (try players.map { try store.insertPlayer(name: $0.name, givenIndex: $0.index) }, try courses.map { try store.insertCourse($0) })
            }
        }
        report.playersAdded = added.0
        report.coursesAdded = added.1.map(CourseSummary.init)
        return report
    }
}
