// HTTP routes of a plugin's commands (the catalogue's "http", "access" and "public"; PluginSDK/README.md
// "HTTP routes"). A plugin lists them in one table, each naming its command:
//
//     static let routes: [Route] = [
//         .get("/courses", command: "courses"),
//         .get("/courses/{course}/holes", command: "holes"),
//         .post("/courses/{course}/holes/{hole}/bestline", command: "bestline", acceptedIf: "job"),
//         .get("/courses/{course}/holes/{hole}/render", command: "render", output: .file("svg", type: "image/svg+xml")),
//     ]
//
// The host serves them under /api/<alias>/ (a `mount` route at the site's mount point instead), turns
// path parameters, query parameters and a JSON body into the command's declared arguments, and checks
// every route when it loads the plugin.

import ClubhouseJSON

/// One HTTP route to a command.
public struct Route: Sendable {
    public enum Method: String, Sendable { case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE" }

    /// What the request body is.
    public enum Body: Sendable {
        /// None (GET, DELETE).
        case none
        /// A JSON object whose members are the command's arguments (by name, or as `params` maps them).
        case json
        /// The raw body, written by the host to a file it passes as path argument `argument` (declared for
        /// reading); its Content-Type must be one of `types` (any when empty).
        case file(_ argument: String, types: [String] = [])
    }

    /// The file a command writes (a path argument declared for writing) that is the response, with its type.
    public struct Output: Sendable {
        public var argument: String
        public var type: String
        public static func file(_ argument: String, type: String) -> Output { Output(argument: argument, type: type) }
    }

    public var command: String
    public var method: Method
    /// Relative to /api/<alias> (or to the site's mount point when `mount`), eg: "/courses/{course}".
    public var path: String
    /// Request names (path or query parameter, body member) → argument names, where they differ.
    public var params: [String: String]
    /// Query parameters taken: nil for the default (every argument for GET and DELETE, none otherwise).
    public var query: [String]?
    public var body: Body?
    public var output: Output?
    /// 202 Accepted instead of 200 when the reply's data has this member (eg: a job was submitted).
    public var acceptedIf: String?
    /// Largest request body in bytes (default 1 MiB).
    public var maxBody: Int?
    /// A compatibility route outside /api/<alias>/, served where the site mounts the plugin.
    public var mount: Bool
    /// Whether the command only reads (`.read`) or changes something (`.write`): tokens' scopes use it.
    public var access: RouteAccessLevel
    /// Served without a credential where the site allows it (plugins.json "http": {"public_routes": true}).
    public var isPublic: Bool
    /// Arguments the route fixes, whatever the request says (eg: ["async": true]).
    public var set: JSONObject = [:]
    /// A string argument that receives the path the route is served under ("/api/<alias>" or the mount
    /// point), for links in a reply.
    public var prefixArgument: String?

    public init(_ method: Method, _ path: String, command: String, params: [String: String] = [:], query: [String]? = nil,
                body: Body? = nil, output: Output? = nil, acceptedIf: String? = nil, maxBody: Int? = nil,
                mount: Bool = false, access: RouteAccessLevel? = nil, isPublic: Bool = false, set: JSONObject = [:],
                prefixArgument: String? = nil) {
        self.method = method
        self.path = path
        self.command = command
        self.params = params
        self.query = query
        self.body = body
        self.output = output
        self.acceptedIf = acceptedIf
        self.maxBody = maxBody
        self.mount = mount
        self.access = access ?? (method == .get ? .read : .write)
        self.isPublic = isPublic
        self.set = set
        self.prefixArgument = prefixArgument
    }

    /// A GET route (access `.read` unless said otherwise).
    public static func get(_ path: String, command: String, params: [String: String] = [:], query: [String]? = nil,
                           output: Output? = nil, mount: Bool = false, access: RouteAccessLevel = .read,
                           isPublic: Bool = false) -> Route {
        Route(.get, path, command: command, params: params, query: query, output: output, mount: mount, access: access,
              isPublic: isPublic)
    }

    /// A POST route (access `.write` unless said otherwise).
    public static func post(_ path: String, command: String, params: [String: String] = [:], query: [String]? = nil,
                            body: Body = .json, output: Output? = nil, acceptedIf: String? = nil, maxBody: Int? = nil,
                            mount: Bool = false, access: RouteAccessLevel = .write, isPublic: Bool = false) -> Route {
        Route(.post, path, command: command, params: params, query: query, body: body, output: output, acceptedIf: acceptedIf,
              maxBody: maxBody, mount: mount, access: access, isPublic: isPublic)
    }

    /// A DELETE route (access `.write`).
    public static func delete(_ path: String, command: String, params: [String: String] = [:], query: [String]? = nil,
                              mount: Bool = false) -> Route {
        Route(.delete, path, command: command, params: params, query: query, mount: mount, access: .write)
    }

    /// The route's `"http"` object in the catalogue.
    var catalogueEntry: JSONValue {
        var o = JSONObject()
        o["method"] = .string(method.rawValue)
        o["path"] = .string(path)
        if !params.isEmpty {
            o["params"] = .object(JSONObject(params.sorted { $0.key < $1.key }.map { (key: $0.key, value: .string($0.value)) }))
        }
        if let query { o["query"] = .array(query.map { .string($0) }) }
        switch body {
        case nil: break
        case .none?: o["body"] = "none"
        case .json?: o["body"] = "json"
        case .file(let argument, let types)?:
            o["body"] = ["file": .string(argument), "types": .array(types.map { .string($0) })]
        }
        if let output { o["output"] = ["file": .string(output.argument), "type": .string(output.type)] }
        if let acceptedIf { o["accepted_if"] = .string(acceptedIf) }
        if let maxBody { o["max_body"] = .int(maxBody) }
        if mount { o["mount"] = true }
        if !set.isEmpty { o["set"] = .object(set) }
        if let prefixArgument { o["prefix_argument"] = .string(prefixArgument) }
        return .object(o)
    }
}

/// Whether a command reads or writes (the catalogue's "access").
public enum RouteAccessLevel: String, Sendable { case read, write }

extension Plugin {
    /// No routes unless the plugin lists some.
    public static var routes: [Route] { [] }
}

/// The catalogue's commands with their routes merged in: each command with routes gets "http" (one
/// object, or an array), "access" (read only when every route of it reads) and "public" (when any route
/// says so). A route naming no command is a problem (describe then fails, naming it).
func catalogueEntries<P: Plugin>(_ commands: [Command<P>], routes: [Route]) -> (entries: [JSONValue], problems: [String]) {
    let names = Set(commands.map(\.name))
    let problems = routes.filter { !names.contains($0.command) }.map {
        "route \($0.method.rawValue) \($0.path) names command '\($0.command)', which \(P.info.name) does not declare"
    } + commands.compactMap { command in command.argumentsProblem.map { "command '\(command.name)': \($0)" } }
    let entries = commands.map { command -> JSONValue in
        var entry = command.catalogueEntry
        let mine = routes.filter { $0.command == command.name }
        guard !mine.isEmpty, case .object(var o) = entry else { return entry }
        o["http"] = mine.count == 1 ? mine[0].catalogueEntry : .array(mine.map(\.catalogueEntry))
        o["access"] = .string(mine.allSatisfy { $0.access == .read } ? "read" : "write")
        if mine.contains(where: \.isPublic) { o["public"] = true }
        entry = .object(o)
        return entry
    }
    return (entries, problems)
}
