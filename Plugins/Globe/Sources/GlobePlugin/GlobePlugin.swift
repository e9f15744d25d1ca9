// The globe plugin: `clubhouse globe …` mapped onto GlobeCore. Arguments in, a Core call, files
// written where asked, a reply out; the store is GlobeCore's schema on the host's storage service.

import CClubhouse
import ClubhouseJSON
import Glibc
import GlobeCore
import PluginKit

final class GlobePlugin: Plugin {
    static let info = PluginInfo(
        id: "org.clubhouse.globe", version: "1.4.2", name: "Globe",
        summary: "Countries visited: tracking, stats, world map and 3D globe, daily challenge",
        services: [.log, .config, .storage])

    private static func mark<A: PlaceMarkArguments>(_ action: Globe.MarkRequest.Action, _ summary: String,
                                                    _ arguments: A.Type) -> Command<GlobePlugin> {
        Command(action.rawValue, summary: summary, arguments: A.self, reply: "{action, code, name, changed, note}") { plugin, a, call in
            try plugin.run(call) { globe in
                let user = a.user, country = a.country
                let cities = a.city ?? [], attractions = a.attraction ?? []
                // All or nothing: an unknown city after a known one leaves the country unmarked too.
                let results: [MarkResult] = try plugin.store.storage.transaction {
                    var results: [MarkResult] = []
                    if action == .visit || cities.isEmpty && attractions.isEmpty {
                        results.append(try globe.mark(.init(user: user, action: action, country: country)))
                    }
                    for (kind, items) in [(PlaceKind.city, cities), (.attraction, attractions)] {
                        for item in items {
                            results.append(try globe.check(user: user, country: country, kind: kind, item: item, checked: action == .visit))
                        }
                    }
                    return results
                }
                let text = results.map(\.text).joined(separator: "\n") + "\n"
                return results.count == 1 ? try Reply(encoding: results[0], text: text) : try Reply(encoding: results, text: text)
            }
        }
    }

    static let commands: [Command<GlobePlugin>] = [
        mark(.visit, "Mark a country visited (and check cities or attractions there)", VisitArguments.self),
        mark(.unvisit, "Unmark a visited country (or only uncheck cities or attractions)", UnvisitArguments.self),
        mark(.wish, "Put a country on the wishlist", MarkArguments.self),
        mark(.unwish, "Take a country off the wishlist", MarkArguments.self),

        Command("list", summary: "List the countries with their marks",
                arguments: ListArguments.self,
                reply: "{user, filter, countries: [{code, name, continent, capital, status, countsTowardProgress}]}") { plugin, a, call in
            try plugin.run(call) { globe in
                guard !(a.visited && a.wishlist) else { throw PluginError.invalidArgument("give --visited or --wishlist, not both") }
                let list = try globe.list(user: a.user, filter: a.visited ? .visited : (a.wishlist ? .wishlist : .all))
                return try Reply(encoding: list, text: list.text + "\n")
            }
        },

        Command("stats", summary: "Progress (of 193 UN members, 195 with observers, or 249 ISO 3166-1 entries), per continent, and achievements",
                arguments: StatsArguments.self,
                reply: "{visited, total, denominator, denominatorTitle, percent, otherTerritoriesVisited, wishlist, continents, citiesChecked, attractionsChecked, capitalsChecked, achievements}") { plugin, a, call in
            try plugin.run(call) { globe in
                let stats = try globe.stats(user: a.user, of: a.of)
                return try Reply(encoding: stats, text: stats.text + "\n")
            }
        },

        Command("highlights", summary: "Cities and attractions of a country, with what you checked",
                arguments: HighlightsArguments.self,
                reply: "{code, name, capital, visited, cities: [{name, checked}], attractions: [{name, checked}], source, note}") { plugin, a, call in
            try plugin.run(call) { globe in
                let view = try globe.highlights(user: a.user, country: a.country)
                return try Reply(encoding: view, text: view.text + "\n")
            }
        },

        Command("where", summary: "Which country is at a latitude/longitude",
                arguments: WhereArguments.self,
                reply: "{lat, lon, code, name, method, distanceKm, toleranceKm, nearestCode, nearestName, nearestKm}") { plugin, a, call in
            try plugin.run(call) { globe in
                let result = try globe.locate(lat: a.lat, lon: a.lon, toleranceKm: a.tolerance)
                return try Reply(encoding: result, text: result.text + "\n")
            }
        },

        Command("map", summary: "Write the world map (SVG) in the palette, with legend and stats",
                arguments: MapArguments.self, reply: "{file, bytes, width, height, summary}") { plugin, a, call in
            try plugin.run(call) { globe in
                let map = try globe.map(user: a.user, selected: a.select ?? [], width: a.width)
                return try plugin.writeSVG(map, to: a.svg)
            }
        },

        Command("silhouette", summary: "Write a country's silhouette (SVG)",
                arguments: SilhouetteArguments.self, reply: "{file, bytes, width, height, summary}") { plugin, a, call in
            try plugin.run(call) { globe in
                let shape = try globe.silhouette(country: a.country, size: a.size)
                return try plugin.writeSVG(shape, to: a.svg)
            }
        },

        Command("mesh", summary: "Write the 3D globe: glTF 2.0 (.gltf) or OBJ with MTL (.obj), a material per country",
                arguments: MeshArguments.self, longRunning: true,
                reply: "{format, files: [{name, bytes}], parts, vertices, triangles, radius, maxEdgeDegrees}") { plugin, a, call in
            try plugin.run(call) { globe in
                defer { call.progress.end() }
                let mesh = try globe.mesh(user: a.user, fileName: a.out, format: a.format?.format, radius: a.radius,
                                          maxEdgeDegrees: a.maxEdge, includeOcean: !a.noOcean, selected: a.select ?? [],
                                          progress: { done, total in
                                              if done == 0 { call.progress.begin("building the globe mesh", total: total) } else { call.progress.update(done) }
                                          },
                                          isCancelled: { call.isCancelled })
                var written: [JSONValue] = []
                for file in mesh.files {
                    try plugin.write(file.contents, to: file.name)
                    written.append(["name": .string(file.name), "bytes": .int(file.contents.utf8.count)])
                }
                var data = try JSONBridge.encode(mesh)
                if case .object(var o) = data {
                    o["files"] = .array(written)
                    data = .object(o)
                }
                return Reply(data: data, text: mesh.text + "\n")
            }
        },

        Command("triangulate", summary: "Triangulate every polygon and check counts (n + 2h − 2) and areas",
                arguments: TriangulateArguments.self,
                reply: "{features, polygons, vertices, holes, triangles, expectedTriangles, polygonsOffCount, polygonArea, triangleArea (Σ |triangle area|), maxRelativeAreaError, maxRelativeAreaErrorAt, invalidPolygons, problems, perPolygon (absent with --summary)}") { plugin, a, call in
            try plugin.run(call) { globe in
                var report: TriangulationReport
                if let path = a.geojson {
                    report = try globe.triangulate(geojson: try plugin.read(path), source: path)
                } else {
                    report = try globe.triangulate()
                }
                let summary = a.summary
                // --summary leaves out the per-polygon rows in JSON as well as in text.
                return try Reply(encoding: summary ? report.summary : report, text: report.text(perPolygon: !summary) + "\n")
            }
        },

        Command("challenge show", summary: "Show a day's challenge: the clue, your guesses, what is left",
                arguments: ChallengeShowArguments.self,
                reply: "{date, type, status, guesses, attemptsLeft, prompt, flag, silhouetteSVG, silhouetteText, answer}") { plugin, a, call in
            try plugin.run(call) { globe in
                let view = try globe.challengeShow(user: a.user, date: a.date, today: CivilDate.today())
                if let path = a.svg, let svg = view.silhouetteSVG { try plugin.write(svg, to: path) }
                return try Reply(encoding: view, text: view.text + "\n")
            }
        },

        Command("challenge guess", summary: "Guess a day's challenge (saved straight away)",
                arguments: ChallengeGuessArguments.self,
                reply: "{guess, outcome, state, attemptsLeft, answer, hint: {guessedCode, guessedName, distanceKm, bearingDegrees, direction}}") { plugin, a, call in
            try plugin.run(call) { globe in
                let result = try globe.challengeGuess(user: a.user, guess: a.text, date: a.date, today: CivilDate.today())
                return try Reply(encoding: result, text: result.text + "\n")
            }
        },

        Command("challenge calendar", summary: "A month of challenges with solved/failed marks and the streak",
                arguments: ChallengeCalendarArguments.self,
                reply: "{month, days: [{date, type, mark}], streak, bestStreak, solved, failed}") { plugin, a, call in
            try plugin.run(call) { globe in
                let calendar = try globe.challengeCalendar(user: a.user, date: a.date, today: CivilDate.today())
                return try Reply(encoding: calendar, text: calendar.text + "\n")
            }
        },

        Command("demo", summary: "A sample traveller: marks, stats, map, silhouette, globe mesh and today's challenge",
                arguments: DemoArguments.self, longRunning: true, reply: "{user, stats, files, challenge, guesses, steps}") { plugin, a, call in
            try plugin.run(call) { globe in
                let out = a.out
                defer { call.progress.end() }
                // One transaction: a stop (or any failure) leaves no marks of the demo traveller.
                let demo = try plugin.store.storage.transaction {
                    try globe.demo(directory: out, today: CivilDate.today(),
                                   progress: { done, total in
                                       if done == 0 { call.progress.begin("globe demo: building the mesh", total: total) } else { call.progress.update(done) }
                                   },
                                   isCancelled: { call.isCancelled })
                }
                try Files.createDirectory(out)
                for file in demo.files { try plugin.write(file.contents, to: file.name) }
                var data = try JSONBridge.encode(demo)
                if case .object(var o) = data {
                    // The files are on disk; the reply names them instead of carrying them.
                    o["files"] = .array(demo.files.map { .string($0.name) })
                    data = .object(o)
                }
                return Reply(data: data, text: demo.text + "\nfiles: " + demo.files.map(\.name).joined(separator: ", ") + "\n")
            }
        },
    ] + postgrestCommands

    let context: PluginContext
    let configuration: GlobeConfiguration
    let store: SQLGlobeStore
    /// Built at the first call: the configured files are read relative to the caller's folder.
    private var loaded: Globe?

    init(context: PluginContext) throws {
        self.context = context
        do {
            configuration = try GlobeConfiguration(json: context.config.value("") ?? .null)
        } catch {
            throw PluginError.failed(error.description)
        }
        let storage = try context.storage()
        try storage.migrate(GlobeSchema.migrations)
        store = SQLGlobeStore(storage: storage)
    }

    /// Runs a command body with the globe (loaded on first use); its GlobeErrors reply as DomainErrors.
    func run(_ call: Invocation, _ body: (Globe) throws -> Reply) throws -> Reply {
        if loaded == nil {
            let cwd = call.cwd
            loaded = try Globe.load(configuration, store: store) { path in try Self.readFile(Self.resolve(path, in: cwd)) }
        }
        guard let globe = loaded else { throw PluginError.failed("the globe could not be loaded") }
        return try body(globe)
    }
}

/// Domain errors as replies: bad requests exit 2, a missing challenge is "not found", a locked
/// one "denied", the rest failures.
extension GlobeError: DomainError {
    /// The core names arguments by their fields; the command line's word for one is its flag (the
    /// host words a leading flag its own way for JSON-RPC and HTTP: PluginKit's ArgumentError).
    public var replyMessage: String { message(naming: { "--" + $0 }) }
    public var replyStatus: PluginStatus {
        switch self {
        case .emptyCountry, .unknownCountry, .invalidLatitude, .invalidLongitude, .invalidTolerance, .emptyUser,
             .unknownHighlight, .invalidDate, .emptyGuess, .invalidOption, .invalidArgument, .unknownConfigKey:
            return .invalidArgument
        case .noChallenge, .unknownUser:
            return .notFound
        case .challengeLocked:
            return .denied
        // A malformed file (GeoJSON, highlights, schedule) is a wrong request, as in every plugin (README's
        // exit-code rule); so is a file that is missing or not text. A file that exists and cannot be read is I/O.
        case .invalidData:
            return .invalidArgument
        case .unreadableFile(_, let reason):
            return GlobePlugin.FileProblem.requestProblems.contains(reason) ? .invalidArgument : .error
        case .alreadyVisited, .challengeOver, .storage:
            return .error
        case .cancelled:
            return .cancelled
        }
    }
}

extension GlobePlugin {
    // MARK: - Files

    static func resolve(_ path: String, in cwd: String) -> String {
        path.hasPrefix("/") || cwd.isEmpty ? path : cwd + "/" + path
    }

    struct FileProblem: Error, CustomStringConvertible {
        var description: String

        static let missing = "no such file"
        static let notText = "it is not UTF-8 text"
        /// What the user got wrong (exit 2), unlike a file that exists and cannot be read (exit 1).
        static let requestProblems: Set<String> = [missing, notText]
    }

    static func readFile(_ path: String) throws -> String {
        guard Files.exists(path) else { throw FileProblem(description: FileProblem.missing) }
        guard let bytes = try? Files.read(path) else { throw FileProblem(description: "it cannot be read") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw FileProblem(description: FileProblem.notText) }
        return text
    }

    func read(_ path: String) throws -> String {
        do {
            return try Self.readFile(path)
        } catch {
            let wrongRequest = FileProblem.requestProblems.contains("\(error)")
            throw PluginError(wrongRequest ? .invalidArgument : .error, "cannot read \(path): \(error); check the path")
        }
    }

    func write(_ text: String, to path: String) throws {
        try Files.write(path, text: text)
    }

    /// Writes an SVG (or prints it for "-") and says what was written.
    func writeSVG(_ result: Globe.SVGResult, to path: String) throws -> Reply {
        if path == "-" { return Reply(data: ["bytes": .int(result.svg.utf8.count)], text: result.svg) }
        try write(result.svg, to: path)
        let data: JSONValue = ["file": .string(path), "bytes": .int(result.svg.utf8.count), "width": .double(result.width),
                               "height": .double(result.height), "summary": .string(result.summary)]
        return Reply(data: data, text: "\(result.summary) → \(path)\n")
    }
}

@_cdecl("clubhouse_plugin_entry")
public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? {
    export(GlobePlugin.self, info)
}
