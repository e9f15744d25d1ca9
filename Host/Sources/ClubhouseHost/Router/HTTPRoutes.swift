// Routes a plugin declares in its catalogue (`"http"` on a command): how an HTTP request reaches the
// command, and how its path parameters, query parameters and body become the command's declared
// arguments. Checked when the catalogue is read (a bad route refuses the plugin, naming the plugin,
// the command and the route); the site's table of every plugin's routes (SiteRoutes.swift) adds the
// checks across plugins.
//
//   "http": {"method": "GET", "path": "/courses/{course}/holes/{hole}",
//            "params": {"courseId": "course"},          // a path, query or body name → the argument (default: the same name)
//            "query": ["stimp"] | "*",                  // query parameters taken (default "*" for GET/DELETE, none otherwise)
//            "body": "json" | "none" | {"file": "csv", "types": ["text/csv"]},
//            "output": {"file": "svg", "type": "image/svg+xml"},
//            "accepted_if": "job",                      // 202 instead of 200 when the reply's data has this member
//            "set": {"async": true},                    // arguments the route fixes (a request cannot give them)
//            "prefix_argument": "base",                 // the path the route is served under ("/api/putting", a mount point)
//            "max_body": 1048576, "mount": false}
//
// A route's path is relative to `/api/<alias>` unless `"mount": true`, which makes it a compatibility
// route served at the site's mount point for the plugin (plugins.json `"http": {"mount": {…}}`) and
// nowhere else. Path arguments (files on the host) are never taken from a request: a client of the
// network cannot name files; `"body": {"file": …}` hands the request body to the plugin as a file the
// host writes, and `"output"` answers with the file the command writes.

import ClubhouseABI
import ClubhouseJSON

/// One segment of a route's path: a literal, or a `{name}` parameter standing for a whole segment.
public enum RouteSegment: Sendable, Equatable {
    case literal(String)
    case parameter(String)
}

/// Why a route path or mount point is refused.
public struct RouteProblem: Error, Sendable, CustomStringConvertible {
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Every problem of one route declaration.
public struct RouteProblems: Error, Sendable {
    public var messages: [String]
}

/// A route a command declares.
public struct HTTPRoute: Sendable {
    public enum Body: Sendable, Equatable {
        /// No body (a request that carries one is refused).
        case none
        /// A JSON object whose members are arguments.
        case json
        /// The raw body, written by the host to a file passed as path argument `argument`; its
        /// Content-Type must be one of `types` (any when empty).
        case file(argument: String, types: [String])
    }

    /// The file a command writes that is the response (a path argument the host fills in).
    public struct Output: Sendable, Equatable {
        public var argument: String
        public var contentType: String
    }

    public enum Query: Sendable, Equatable {
        /// Every argument the path does not bind, by its name (or a name `params` maps to it).
        case all
        case names([String])
    }

    public var method: String
    /// The path as declared (relative to /api/<alias> unless `mount`).
    public var path: String
    public var segments: [RouteSegment]
    /// Request name (path parameter, query parameter, body member) → argument name.
    public var params: [String: String]
    public var query: Query
    public var body: Body
    public var output: Output?
    public var acceptedIf: String?
    public var maxBodyBytes: Int?
    public var mount: Bool
    /// Arguments the route fixes, whatever the request says.
    public var fixed = JSONObject()
    /// A string argument that receives the path prefix the route is served under (for links in replies).
    public var prefixArgument: String?

    /// Methods a route may declare (HEAD is served wherever GET is).
    public static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    /// The default limit on a request body (bytes), where a route does not set `max_body`.
    public static let defaultMaxBodyBytes = 1 << 20
    /// The largest `max_body` a route may declare.
    public static let largestMaxBodyBytes = 1 << 30

    /// The argument a request name stands for.
    public func argument(for name: String) -> String { params[name] ?? name }

    /// The names of the path's parameters, in order.
    public var pathParameters: [String] {
        segments.compactMap { if case .parameter(let p) = $0 { return p } else { return nil } }
    }

    /// `GET /courses/{course}` as declared, for messages.
    public var shown: String { "\(method) \(path)" }

    // MARK: reading a declaration

    /// Parses a route path: `/`-separated segments, each a literal of letters, digits and `-._~`
    /// (never `.` or `..`) or a `{name}` parameter. "/" alone is the prefix itself.
    public static func parsePath(_ path: String) -> Result<[RouteSegment], RouteProblem> {
        guard path.hasPrefix("/") else { return .failure(RouteProblem("a route's path starts with '/'")) }
        if path == "/" { return .success([]) }
        var segments: [RouteSegment] = []
        var names = Set<String>()
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let s = String(raw)
            if s.isEmpty { return .failure(RouteProblem("an empty segment ('//' or a trailing '/')")) }
            if s.hasPrefix("{") || s.hasSuffix("}") {
                let name = String(s.dropFirst().dropLast())
                guard s.hasPrefix("{"), s.hasSuffix("}"), !name.isEmpty,
                      name.unicodeScalars.allSatisfy({ isNameScalar($0) }) else {
                    return .failure(RouteProblem("'\(s)' is not a parameter: write {name} for a whole segment (letters, digits, '-', '_')"))
                }
                if !names.insert(name).inserted { return .failure(RouteProblem("parameter {\(name)} appears twice")) }
                segments.append(.parameter(name))
                continue
            }
            if s == "." || s == ".." { return .failure(RouteProblem("a '\(s)' segment would leave the route's prefix")) }
            guard s.unicodeScalars.allSatisfy({ isLiteralScalar($0) }) else {
                return .failure(RouteProblem("segment '\(s)' has a character other than letters, digits and '-._~' (percent-encoding is not allowed in a route)"))
            }
            segments.append(.literal(s))
        }
        return .success(segments)
    }

    static func isNameScalar(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-" || c == "_"
    }

    static func isLiteralScalar(_ c: Unicode.Scalar) -> Bool {
        isNameScalar(c) || c == "." || c == "~"
    }

    /// Reads one `"http"` declaration of `command`; the problems found, if any, each naming the route.
    static func parse(_ value: JSONValue, command: String, arguments: [ArgumentSpec]) -> Result<HTTPRoute, RouteProblems> {
        guard let o = value.objectValue else {
            return .failure(RouteProblems(messages: ["command '\(command)': \"http\" is \(value.kindName); give an object {\"method\", \"path\", …} or an array of them"]))
        }
        let method = o["method"]?.stringValue ?? ""
        let path = o["path"]?.stringValue ?? ""
        let label = "command '\(command)': route \(method.isEmpty ? "?" : method) \(path.isEmpty ? "?" : path)"
        var problems: [String] = []
        let known = ["method", "path", "params", "query", "body", "output", "accepted_if", "max_body", "mount", "set", "prefix_argument"]
        for key in o.keys where !known.contains(key) {
            problems.append("\(label): unknown key '\(key)' (known: \(known.joined(separator: ", ")))")
        }
        if !methods.contains(method) {
            problems.append("\(label): \"method\" must be one of \(methods.joined(separator: ", "))")
        }
        var segments: [RouteSegment] = []
        switch parsePath(path) {
        case .success(let s): segments = s
        case .failure(let why): problems.append("\(label): \(why.message)")
        }
        let byName = Dictionary(arguments.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var params: [String: String] = [:]
        if let p = o["params"] {
            if let object = p.objectValue {
                for (name, target) in object {
                    guard let argument = target.stringValue else {
                        problems.append("\(label): \"params\" maps '\(name)' to \(target.kindName); give an argument's name")
                        continue
                    }
                    params[name] = argument
                }
            } else {
                problems.append("\(label): \"params\" must be an object {\"requestName\": \"argument\"}")
            }
        }
        func argument(_ name: String) -> String { params[name] ?? name }
        /// Checks that request name `name` (from `place`) stands for a declared argument a client may give.
        func check(_ name: String, from place: String) {
            let target = argument(name)
            guard let spec = byName[target] else {
                var message = "\(label): \(place) '\(name)' maps to no argument of '\(command)'"
                if let suggestion = closest(target, among: arguments.map(\.name)) { message += "; did you mean '\(suggestion)'?" }
                problems.append(message + " (arguments: \(arguments.map(\.name).joined(separator: ", ")))")
                return
            }
            if spec.kind == .path {
                problems.append("\(label): \(place) '\(name)' maps to path argument '\(target)'; a client of the network cannot name files on the host (use \"body\": {\"file\": …} or \"output\")")
            }
        }
        for name in segments.compactMap({ if case .parameter(let p) = $0 { return p } else { return nil } }) {
            check(name, from: "path parameter")
        }
        let bodyless = method == "GET" || method == "DELETE"
        var query: Query = bodyless ? .all : .names([])
        if let q = o["query"] {
            if q.stringValue == "*" {
                query = .all
            } else if let list = q.arrayValue, list.allSatisfy({ $0.stringValue != nil }) {
                let names = list.compactMap(\.stringValue)
                for name in names { check(name, from: "query parameter") }
                query = .names(names)
            } else {
                problems.append("\(label): \"query\" must be \"*\" or an array of parameter names")
            }
        }
        var body: Body = bodyless ? .none : .json
        if let b = o["body"] {
            if let s = b.stringValue, s == "json" || s == "none" {
                body = s == "json" ? .json : .none
            } else if let f = b.objectValue, let name = f["file"]?.stringValue {
                let types = f["types"]?.arrayValue?.compactMap(\.stringValue) ?? []
                if let spec = byName[name] {
                    if spec.kind != .path || spec.access != .read {
                        problems.append("\(label): the body goes to argument '\(name)', which is not a path argument declared for reading")
                    }
                } else {
                    problems.append("\(label): the body goes to '\(name)', which is no argument of '\(command)'")
                }
                body = .file(argument: name, types: types)
            } else {
                problems.append("\(label): \"body\" must be \"json\", \"none\" or {\"file\": ARGUMENT, \"types\": [media types]}")
            }
            if bodyless && body != .none {
                problems.append("\(label): a \(method) request has no body; use POST, PUT or PATCH")
            }
        }
        var output: Output?
        if let out = o["output"] {
            if let f = out.objectValue, let name = f["file"]?.stringValue, let type = f["type"]?.stringValue, !type.isEmpty {
                if let spec = byName[name], spec.kind == .path, spec.access == .write {
                    output = Output(argument: name, contentType: type)
                } else {
                    problems.append("\(label): \"output\" names '\(name)', which is not a path argument declared for writing (\"access\": \"write\")")
                }
                if type.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                    problems.append("\(label): \"output\" has a control character in its type")
                }
            } else {
                problems.append("\(label): \"output\" must be {\"file\": ARGUMENT, \"type\": \"media/type\"}")
            }
        }
        var acceptedIf: String?
        if let a = o["accepted_if"] {
            if let s = a.stringValue, !s.isEmpty { acceptedIf = s } else { problems.append("\(label): \"accepted_if\" must be a member name") }
        }
        var maxBody: Int?
        if let m = o["max_body"] {
            if let n = m.intValue, (0...largestMaxBodyBytes).contains(n) { maxBody = n } else {
                problems.append("\(label): \"max_body\" must be a number of bytes from 0 to \(largestMaxBodyBytes)")
            }
        }
        var mount = false
        if let m = o["mount"] {
            if let b = m.boolValue { mount = b } else { problems.append("\(label): \"mount\" must be true or false") }
        }
        var fixed = JSONObject()
        if let f = o["set"] {
            if let object = f.objectValue {
                for (name, value) in object {
                    guard let spec = byName[name], spec.kind != .path else {
                        problems.append("\(label): \"set\" fixes '\(name)', which is no argument of '\(command)' a route may set")
                        continue
                    }
                    do {
                        fixed[name] = try CommandLineParser.check(value, spec, plugin: "", command: command)
                    } catch {
                        problems.append("\(label): \"set\": \(error.message)")
                    }
                }
            } else {
                problems.append("\(label): \"set\" must be an object {\"argument\": value}")
            }
        }
        var prefixArgument: String?
        if let p = o["prefix_argument"] {
            if let name = p.stringValue, byName[name]?.kind == .string {
                prefixArgument = name
            } else {
                problems.append("\(label): \"prefix_argument\" must name a string argument of '\(command)'")
            }
        }
        if mount && segments.isEmpty {
            problems.append("\(label): a mounted route cannot be the mount point itself ('/')")
        }
        // Every renamed name must be used somewhere; every required argument must be reachable.
        for name in params.keys.sorted() {
            let usedInPath = segments.contains(.parameter(name))
            let usedInQuery: Bool = { if case .names(let n) = query { return n.contains(name) } else { return query == .all } }()
            if !usedInPath && !usedInQuery && body != .json {
                problems.append("\(label): \"params\" renames '\(name)', which neither the path, the query nor a JSON body carries")
            }
        }
        var route = HTTPRoute(method: method, path: path, segments: segments, params: params, query: query, body: body,
                              output: output, acceptedIf: acceptedIf, maxBodyBytes: maxBody, mount: mount)
        route.fixed = fixed
        route.prefixArgument = prefixArgument
        for name in route.pathParameters where route.isHostBound(route.argument(for: name)) {
            problems.append("\(label): path parameter '\(name)' maps to '\(route.argument(for: name))', which the route sets itself")
        }
        for spec in arguments where spec.required && spec.defaultValue == nil {
            if !route.canBind(spec) {
                problems.append("\(label): required argument '\(spec.name)' cannot be given through this route (add it to the path, the query or a JSON body)")
            }
        }
        return problems.isEmpty ? .success(route) : .failure(RouteProblems(messages: problems))
    }

    /// Whether a request to this route can give argument `spec`.
    func canBind(_ spec: ArgumentSpec) -> Bool {
        if isHostBound(spec.name) { return true }
        if spec.kind == .path {
            if case .file(let a, _) = body, a == spec.name { return true }
            return output?.argument == spec.name
        }
        if pathParameters.contains(where: { argument(for: $0) == spec.name }) { return true }
        if body == .json { return true }
        switch query {
        case .all: return true
        case .names(let names): return names.contains { argument(for: $0) == spec.name }
        }
    }

    /// Whether the route itself gives argument `name` (`set`, `prefix_argument`): a request cannot.
    public func isHostBound(_ name: String) -> Bool { fixed[name] != nil || prefixArgument == name }

    /// Whether two routes could both match one request (the same method, HEAD being GET's, and
    /// segment by segment equal literals or a parameter on either side).
    public static func collide(_ a: [RouteSegment], _ b: [RouteSegment]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            if case .literal(let l) = x, case .literal(let r) = y, l != r { return false }
        }
        return true
    }
}

/// The status of a reply as an HTTP status: one table for every route (Host/HTTP.md lists it; a
/// test checks the two agree).
public enum HTTPStatusTable {
    public static func status(for status: Status) -> Int {
        switch status {
        case .ok, .row, .done: return 200
        case .invalidArgument: return 400
        case .denied: return 403
        case .notFound: return 404
        case .needsConfirmation, .constraint: return 409
        // nginx's "client closed request": the caller went away or asked to stop.
        case .cancelled: return 499
        case .unsupported: return 501
        case .pluginFailed: return 502
        case .busy: return 503
        case .timeout: return 504
        case .error, .io: return 500
        }
    }
}

extension HTTPRoute {
    /// The arguments a request gives this route's command: path parameters, query parameters and a
    /// JSON body, typed as the command line types them (path and query values are text), then checked
    /// against the declaration. `files` are the paths the host made for a file body and the output.
    public func bind(pathValues: [String: String], query pairs: [(name: String, value: String)], json: JSONObject?,
                     files: [String: String], prefix: String, command: CommandSpec, plugin: String) throws(UsageError) -> JSONObject {
        var values = JSONObject()
        let byName = Dictionary(command.arguments.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        func put(_ name: String, _ value: JSONValue, from place: String) throws(UsageError) {
            let target = argument(for: name)
            guard let spec = byName[target] else {
                throw UsageError("\(place) '\(name)' is not an argument of '\(plugin) \(command.name)'"
                    + (command.arguments.isEmpty ? "" : " (it takes: \(command.arguments.filter { $0.kind != .path }.map(\.name).joined(separator: ", ")))"))
            }
            if spec.kind == .path && files[target] == nil {
                throw UsageError("\(place) '\(name)' names a file on the host, which a request cannot do")
            }
            if isHostBound(target) {
                throw UsageError("\(place) '\(name)' is set by the route \(method) \(path); a request cannot give it")
            }
            if values[target] != nil { throw UsageError("argument '\(target)' is given twice (\(place) '\(name)' and another)") }
            values[target] = value
        }
        /// A path or query value typed as the command line types it; errors name the parameter.
        func text(_ raw: String, _ spec: ArgumentSpec, _ place: String, _ name: String) throws(UsageError) -> JSONValue {
            if spec.kind == .flag {
                switch raw {
                case "", "true", "1": return .bool(true)
                case "false", "0": return .bool(false)
                default: throw UsageError("\(place) '\(name)' is true or false, not '\(raw)'")
                }
            }
            do {
                return try CommandLineParser.convert(raw, spec, plugin: plugin, command: command.name)
            } catch {
                let label = spec.positional ? spec.name.uppercased() : "--\(spec.name)"
                let rest = error.message.hasPrefix(label) ? String(error.message.dropFirst(label.count)) : ": " + error.message
                throw UsageError("\(place) '\(name)'\(rest)")
            }
        }
        for name in pathParameters {
            guard let raw = pathValues[name], let spec = byName[argument(for: name)] else { continue }
            try put(name, try text(raw, spec, "path parameter", name), from: "path parameter")
        }
        for pair in pairs {
            let allowed: Bool
            switch query {
            case .all: allowed = !pathParameters.contains(pair.name)
            case .names(let names): allowed = names.contains(pair.name)
            }
            guard allowed, let spec = byName[argument(for: pair.name)] else {
                throw UsageError("query parameter '\(pair.name)' is not taken by \(method) \(path)"
                    + { if case .names(let n) = query { return n.isEmpty ? " (it takes none)" : " (it takes: \(n.joined(separator: ", ")))" } else { return "" } }())
            }
            if spec.kind == .list, !isHostBound(spec.name), let existing = values[spec.name]?.arrayValue,
               let more = try text(pair.value, spec, "query parameter", pair.name).arrayValue {
                values[spec.name] = .array(existing + more)
                continue
            }
            if spec.kind == .path || isHostBound(spec.name) { try put(pair.name, .null, from: "query parameter") }
            try put(pair.name, try text(pair.value, spec, "query parameter", pair.name), from: "query parameter")
        }
        if let json {
            for (name, value) in json { try put(name, value, from: "body member") }
        }
        for (name, path) in files { values[name] = .string(path) }
        for (name, value) in fixed { values[name] = value }
        if let prefixArgument { values[prefixArgument] = .string(prefix) }
        return try CommandLineParser.validate(values, for: command, plugin: plugin)
    }
}
