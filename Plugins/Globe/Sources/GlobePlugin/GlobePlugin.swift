// The globe plugin: `clubhouse globe …` mapped onto GlobeCore. Arguments in, a Core call, files
// written where asked, a reply out; the store is GlobeCore's schema on the host's storage service.

import CClubhouse
import ClubhouseJSON
import Glibc
import GlobeCore
import PluginKit

final class GlobePlugin: Plugin {
    static let info = PluginInfo(
        id: "org.clubhouse.globe", version: "1.3.1", name: "Globe",
        summary: "Countries visited: tracking, stats, world map and 3D globe, daily challenge",
        services: [.log, .config, .storage])

    private static let user = Argument.string("user", help: "Whose marks (default: the config's \"user\")")
    private static let date = Argument.string("date", help: "The day, YYYY-MM-DD (default: today)")

    private static func mark(_ action: Globe.MarkRequest.Action, _ summary: String) -> Command<GlobePlugin> {
        var arguments: [Argument] = [.string("country", help: "ISO code or name, e.g. FR or France", required: true, positional: true), user]
        if action == .visit || action == .unvisit {
            arguments += [.list("city", help: action == .visit ? "Also check these cities (comma-separated)" : "Only uncheck these cities"),
                          .list("attraction", help: action == .visit ? "Also check these attractions" : "Only uncheck these attractions")]
        }
        return Command(action.rawValue, summary: summary, arguments: arguments, reply: "{action, code, name, changed, note}") { plugin, call in
            try plugin.run(call) { globe in
                let user = try call.arguments.optionalString("user")
                let country = try call.arguments.string("country")
                let cities = call.arguments.has("city") ? try call.arguments.list("city") : []
                let attractions = call.arguments.has("attraction") ? try call.arguments.list("attraction") : []
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
        mark(.visit, "Mark a country visited (and check cities or attractions there)"),
        mark(.unvisit, "Unmark a visited country (or only uncheck cities or attractions)"),
        mark(.wish, "Put a country on the wishlist"),
        mark(.unwish, "Take a country off the wishlist"),

        Command("list", summary: "List the countries with their marks",
                arguments: [.flag("visited", help: "Only visited countries"), .flag("wishlist", help: "Only the wishlist"), user],
                reply: "{user, filter, countries: [{code, name, continent, capital, status, countsTowardProgress}]}") { plugin, call in
            try plugin.run(call) { globe in
                let visited = call.arguments.flag("visited"), wishlist = call.arguments.flag("wishlist")
                guard !(visited && wishlist) else { throw PluginError.invalidArgument("give --visited or --wishlist, not both") }
                let list = try globe.list(user: try call.arguments.optionalString("user"),
                                          filter: visited ? .visited : (wishlist ? .wishlist : .all))
                return try Reply(encoding: list, text: list.text + "\n")
            }
        },

        Command("stats", summary: "Progress (of 193 UN members, 195 with observers, or 249 ISO 3166-1 entries), per continent, and achievements",
                arguments: [user, .string("of", help: "Count against un (193), un+observers (195) or iso (249); default: the config's \"denominator\", un+observers")],
                reply: "{visited, total, denominator, denominatorTitle, percent, otherTerritoriesVisited, wishlist, continents, citiesChecked, attractionsChecked, capitalsChecked, achievements}") { plugin, call in
            try plugin.run(call) { globe in
                let stats = try globe.stats(user: try call.arguments.optionalString("user"), of: try call.arguments.optionalString("of"))
                return try Reply(encoding: stats, text: stats.text + "\n")
            }
        },

        Command("highlights", summary: "Cities and attractions of a country, with what you checked",
                arguments: [.string("country", help: "ISO code or name", required: true, positional: true), user],
                reply: "{code, name, capital, visited, cities: [{name, checked}], attractions: [{name, checked}], source, note}") { plugin, call in
            try plugin.run(call) { globe in
                let view = try globe.highlights(user: try call.arguments.optionalString("user"), country: try call.arguments.string("country"))
                return try Reply(encoding: view, text: view.text + "\n")
            }
        },

        Command("where", summary: "Which country is at a latitude/longitude",
                arguments: [.number("lat", help: "Degrees north, -90 to 90", required: true),
                            .number("lon", help: "Degrees east, -180 to 180", required: true),
                            .number("tolerance", help: "Kilometres for microstates drawn as points and coastlines (default: config toleranceKm, 25)")],
                reply: "{lat, lon, code, name, method, distanceKm, toleranceKm, nearestCode, nearestName, nearestKm}") { plugin, call in
            try plugin.run(call) { globe in
                let result = try globe.locate(lat: try call.arguments.double("lat"), lon: try call.arguments.double("lon"),
                                              toleranceKm: try call.arguments.optionalDouble("tolerance"))
                return try Reply(encoding: result, text: result.text + "\n")
            }
        },

        Command("map", summary: "Write the world map (SVG) in the palette, with legend and stats",
                arguments: [.path("svg", help: "Where to write the SVG (- for stdout)", required: true, access: .write),
                            .list("select", help: "Countries to highlight (codes or names)"),
                            .number("width", help: "Width in pixels", default: 1200), user],
                reply: "{file, bytes, width, height, summary}") { plugin, call in
            try plugin.run(call) { globe in
                let selected = call.arguments.has("select") ? try call.arguments.list("select") : []
                let map = try globe.map(user: try call.arguments.optionalString("user"), selected: selected,
                                        width: try call.arguments.double("width"))
                return try plugin.writeSVG(map, to: try call.arguments.string("svg"))
            }
        },

        Command("silhouette", summary: "Write a country's silhouette (SVG)",
                arguments: [.string("country", help: "ISO code or name", required: true, positional: true),
                            .path("svg", help: "Where to write the SVG (- for stdout)", required: true, access: .write),
                            .number("size", help: "Larger side in pixels", default: 400)],
                reply: "{file, bytes, width, height, summary}") { plugin, call in
            try plugin.run(call) { globe in
                let shape = try globe.silhouette(country: try call.arguments.string("country"), size: try call.arguments.double("size"))
                return try plugin.writeSVG(shape, to: try call.arguments.string("svg"))
            }
        },

        Command("mesh", summary: "Write the 3D globe: glTF 2.0 (.gltf) or OBJ with MTL (.obj), a material per country",
                arguments: [.path("out", help: "File to write; .gltf or .obj (the .mtl goes beside it)", required: true, access: .write),
                            .choice("format", ["gltf", "obj"], help: "Override the format the file name implies"),
                            .number("radius", help: "Sphere radius", default: 1),
                            .number("max-edge", help: "Longest triangle edge in degrees before it is split to follow the sphere", default: 5),
                            .flag("no-ocean", help: "Leave out the ocean sphere"),
                            .list("select", help: "Countries drawn in their lighter colour"), user],
                longRunning: true,
                reply: "{format, files: [{name, bytes}], parts, vertices, triangles, radius, maxEdgeDegrees}") { plugin, call in
            try plugin.run(call) { globe in
                defer { call.progress.end() }
                let format = try call.arguments.optionalString("format").flatMap(MeshFormat.init(rawValue:))
                let mesh = try globe.mesh(user: try call.arguments.optionalString("user"), fileName: try call.arguments.string("out"),
                                          format: format, radius: try call.arguments.double("radius"),
                                          maxEdgeDegrees: try call.arguments.double("max-edge"),
                                          includeOcean: !call.arguments.flag("no-ocean"),
                                          selected: call.arguments.has("select") ? try call.arguments.list("select") : [],
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
                arguments: [.path("geojson", help: "A GeoJSON file (default: the site's country set)"),
                            .flag("summary", help: "Totals only, without a line per polygon")],
                reply: "{features, polygons, vertices, holes, triangles, expectedTriangles, polygonsOffCount, polygonArea, triangleArea (Σ |triangle area|), maxRelativeAreaError, maxRelativeAreaErrorAt, invalidPolygons, problems, perPolygon (absent with --summary)}") { plugin, call in
            try plugin.run(call) { globe in
                var report: TriangulationReport
                if let path = try call.arguments.optionalString("geojson") {
                    report = try globe.triangulate(geojson: try plugin.read(path), source: path)
                } else {
                    report = try globe.triangulate()
                }
                let summary = call.arguments.flag("summary")
                // --summary leaves out the per-polygon rows in JSON as well as in text.
                return try Reply(encoding: summary ? report.summary : report, text: report.text(perPolygon: !summary) + "\n")
            }
        },

        Command("challenge show", summary: "Show a day's challenge: the clue, your guesses, what is left",
                arguments: [date, .path("svg", help: "Also write a country challenge's silhouette here", access: .write), user],
                reply: "{date, type, status, guesses, attemptsLeft, prompt, flag, silhouetteSVG, silhouetteText, answer}") { plugin, call in
            try plugin.run(call) { globe in
                let view = try globe.challengeShow(user: try call.arguments.optionalString("user"),
                                                   date: try call.arguments.optionalString("date"), today: CivilDate.today())
                if let path = try call.arguments.optionalString("svg"), let svg = view.silhouetteSVG { try plugin.write(svg, to: path) }
                return try Reply(encoding: view, text: view.text + "\n")
            }
        },

        Command("challenge guess", summary: "Guess a day's challenge (saved straight away)",
                arguments: [.string("text", help: "A country name, or a capital for a capital challenge", required: true, positional: true),
                            date, user],
                reply: "{guess, outcome, state, attemptsLeft, answer, hint: {guessedCode, guessedName, distanceKm, bearingDegrees, direction}}") { plugin, call in
            try plugin.run(call) { globe in
                let result = try globe.challengeGuess(user: try call.arguments.optionalString("user"), guess: try call.arguments.string("text"),
                                                      date: try call.arguments.optionalString("date"), today: CivilDate.today())
                return try Reply(encoding: result, text: result.text + "\n")
            }
        },

        Command("challenge calendar", summary: "A month of challenges with solved/failed marks and the streak",
                arguments: [.string("date", help: "A day of the month to show, YYYY-MM-DD (default: today)"), user],
                reply: "{month, days: [{date, type, mark}], streak, bestStreak, solved, failed}") { plugin, call in
            try plugin.run(call) { globe in
                let calendar = try globe.challengeCalendar(user: try call.arguments.optionalString("user"),
                                                           date: try call.arguments.optionalString("date"), today: CivilDate.today())
                return try Reply(encoding: calendar, text: calendar.text + "\n")
            }
        },

        Command("demo", summary: "A sample traveller: marks, stats, map, silhouette, globe mesh and today's challenge",
                arguments: [.path("out", help: "Folder for the demo's files", required: true)],
                longRunning: true, reply: "{user, stats, files, challenge, guesses, steps}") { plugin, call in
            try plugin.run(call) { globe in
                let out = try call.arguments.string("out")
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
    public var replyMessage: String { description }
    public var replyStatus: PluginStatus {
        switch self {
        case .emptyCountry, .unknownCountry, .invalidLatitude, .invalidLongitude, .invalidTolerance, .emptyUser,
             .unknownHighlight, .invalidDate, .emptyGuess, .invalidOption, .unknownConfigKey:
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
