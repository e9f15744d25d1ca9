// Routes in a plugin's catalogue (HTTPRoutes.swift) and a site's table of them (SiteRoutes.swift): what a
// declaration may say, every problem named with the plugin's command and the route, collisions, and how
// a request's path, query and body become the command's arguments.

import ClubhouseABI
import ClubhouseJSON
import XCTest
@testable import ClubhouseHost

final class HTTPRoutesTests: XCTestCase {
    /// A catalogue with one command `c` (arguments course: string, hole: integer, stimp: number, fast: flag,
    /// tags: list, svg: path for writing, csv: path) and the given "http" declaration.
    func catalogue(_ http: String, extra: String = "") -> Result<CommandCatalog, CatalogError> {
        let text = """
        {"commands": [{"name": "c", "summary": "s", "http": \(http),
          "arguments": [{"name": "course", "type": "string", "required": true}, {"name": "hole", "type": "integer"},
                        {"name": "stimp", "type": "number"}, {"name": "fast", "type": "flag"}, {"name": "tags", "type": "list"},
                        {"name": "svg", "type": "path", "access": "write"}, {"name": "csv", "type": "path"}]}\(extra)]}
        """
        return CommandCatalog.parse(Array(text.utf8), plugin: "p")
    }

    func problems(_ http: String, extra: String = "", file: StaticString = #filePath, line: UInt = #line) -> [String] {
        switch catalogue(http, extra: extra) {
        case .success: XCTFail("accepted \(http)", file: file, line: line); return []
        case .failure(let e): return e.problems
        }
    }

    func route(_ http: String, file: StaticString = #filePath, line: UInt = #line) throws -> (HTTPRoute, CommandSpec) {
        switch catalogue(http) {
        case .success(let c):
            let command = try XCTUnwrap(c.command(named: "c"), file: file, line: line)
            return (try XCTUnwrap(command.routes.first, file: file, line: line), command)
        case .failure(let e): throw e
        }
    }

    func testARouteAndItsDefaults() throws {
        let (r, command) = try route(#"{"method": "GET", "path": "/courses/{course}/holes/{hole}"}"#)
        XCTAssertEqual(r.segments, [.literal("courses"), .parameter("course"), .literal("holes"), .parameter("hole")])
        XCTAssertEqual(r.query, .all)
        XCTAssertEqual(r.body, .none)
        XCTAssertEqual(command.access, .write)
        let (post, _) = try route(#"{"method": "POST", "path": "/x/{course}"}"#)
        XCTAssertEqual(post.body, .json)
        XCTAssertEqual(post.query, .names([]))
    }

    func testAccessAndPublicAreTheCommands() throws {
        let text = #"{"commands": [{"name": "c", "summary": "s", "access": "read", "public": true}]}"#
        let c = try CommandCatalog.parse(Array(text.utf8), plugin: "p").get()
        XCTAssertEqual(c.commands[0].access, .read)
        XCTAssertTrue(c.commands[0].isPublic)
        let bad = #"{"commands": [{"name": "c", "summary": "s", "access": "rw"}]}"#
        guard case .failure(let e) = CommandCatalog.parse(Array(bad.utf8), plugin: "p") else { return XCTFail() }
        XCTAssertEqual(e.problems, [#"command 'c': "access" is "rw"; use "read" or "write""#])
    }

    func testEveryProblemNamesTheCommandAndTheRoute() {
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/c/{nope}"}"#),
                       ["command 'c': route GET /c/{nope}: path parameter 'nope' maps to no argument of 'c'; did you mean 'hole'? (arguments: course, hole, stimp, fast, tags, svg, csv)"])
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/c/../admin"}"#),
                       ["command 'c': route GET /c/../admin: a '..' segment would leave the route's prefix"])
        XCTAssertEqual(problems(#"{"method": "GET", "path": "c"}"#), ["command 'c': route GET c: a route's path starts with '/'"])
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/a%2e"}"#).count, 1)
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/a//b"}"#).count, 1)
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/{course}/{course}"}"#), ["command 'c': route GET /{course}/{course}: parameter {course} appears twice"])
        XCTAssertEqual(problems(#"{"method": "FETCH", "path": "/a"}"#), [#"command 'c': route FETCH /a: "method" must be one of GET, POST, PUT, PATCH, DELETE"#])
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/a/{course}", "query": ["svg"]}"#),
                       [#"command 'c': route GET /a/{course}: query parameter 'svg' maps to path argument 'svg'; a client of the network cannot name files on the host (use "body": {"file": …} or "output")"#])
        XCTAssertEqual(problems(#"{"method": "POST", "path": "/a", "query": []}"#.replacingOccurrences(of: "\"query\": []", with: "\"body\": \"none\"")),
                       ["command 'c': route POST /a: required argument 'course' cannot be given through this route (add it to the path, the query or a JSON body)"])
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/a", "output": {"file": "csv", "type": "text/csv"}}"#),
                       [#"command 'c': route GET /a: "output" names 'csv', which is not a path argument declared for writing ("access": "write")"#])
        XCTAssertEqual(problems(#"{"method": "POST", "path": "/a/{course}", "body": {"file": "svg"}}"#),
                       ["command 'c': route POST /a/{course}: the body goes to argument 'svg', which is not a path argument declared for reading"])
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/a", "body": "json"}"#),
                       ["command 'c': route GET /a: a GET request has no body; use POST, PUT or PATCH"])
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/a", "set": {"hole": "three"}}"#),
                       [#"command 'c': route GET /a: "set": argument 'hole' of ' c' must be an integer, got a string"#])
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/a", "colour": 1}"#).count, 1)
    }

    func testRoutesThatOneRequestCouldMatchBothCollide() {
        let extra = #", {"name": "d", "summary": "s", "arguments": [{"name": "id", "type": "string"}], "http": {"method": "GET", "path": "/courses/{id}"}}"#
        XCTAssertEqual(problems(#"{"method": "GET", "path": "/courses/new"}"#, extra: extra),
                       ["command 'd': route GET /courses/{id} collides with route GET /courses/new of command 'c' (one request could match both; make a literal segment differ)"])
        // Another method, another length, or a mount: no collision.
        XCTAssertNoThrow(try catalogue(#"{"method": "POST", "path": "/courses/new"}"#, extra: extra).get())
        XCTAssertNoThrow(try catalogue(#"{"method": "GET", "path": "/courses/new/x"}"#, extra: extra).get())
        XCTAssertNoThrow(try catalogue(#"{"method": "GET", "path": "/courses/new", "mount": true}"#, extra: extra).get())
    }

    func testARequestBecomesTheCommandsArguments() throws {
        let (r, command) = try route(#"{"method": "GET", "path": "/c/{course}/{hole}", "output": {"file": "svg", "type": "image/svg+xml"}}"#)
        let args = try r.bind(pathValues: ["course": "presidio", "hole": "3"],
                              query: [("stimp", "10.5"), ("fast", ""), ("tags", "a,b"), ("tags", "c")], json: nil,
                              files: ["svg": "/tmp/out.svg"], prefix: "/api/p", command: command, plugin: "p")
        XCTAssertEqual(args["course"], "presidio")
        XCTAssertEqual(args["hole"], 3)
        XCTAssertEqual(args["stimp"]?.doubleValue, 10.5)
        XCTAssertEqual(args["fast"], true)
        XCTAssertEqual(args["tags"], ["a", "b", "c"])
        XCTAssertEqual(args["svg"], "/tmp/out.svg")
        func refused(_ values: [String: String], _ query: [(String, String)], _ json: JSONObject? = nil) -> String? {
            do {
                _ = try r.bind(pathValues: values, query: query.map { (name: $0.0, value: $0.1) }, json: json, files: [:], prefix: "/",
                               command: command, plugin: "p")
                return nil
            } catch {
                return error.message
            }
        }
        XCTAssertEqual(refused(["course": "x", "hole": "three"], []), "path parameter 'hole' must be an integer, got 'three'")
        XCTAssertEqual(refused(["course": "x", "hole": "1"], [("svg", "/etc/passwd")]), "query parameter 'svg' names a file on the host, which a request cannot do")
        XCTAssertEqual(refused(["course": "x", "hole": "1"], [("course", "y")]),
                       "query parameter 'course' is not taken by GET /c/{course}/{hole}")
        XCTAssertEqual(refused(["course": "x", "hole": "1"], [("colour", "red")]), "query parameter 'colour' is not taken by GET /c/{course}/{hole}")
        // A value carrying JSON stays the text it is: a string argument gets the string, a number refuses it.
        let injected = #"x","hole":99,"svg":"/etc/passwd"#
        let args2 = try r.bind(pathValues: ["course": injected, "hole": "1"], query: [], json: nil, files: [:], prefix: "/",
                               command: command, plugin: "p")
        XCTAssertEqual(args2["course"]?.stringValue, injected)
        XCTAssertEqual(args2["hole"], 1)
        XCTAssertNil(args2["svg"])
        XCTAssertEqual(refused(["course": "x", "hole": #"1,"svg":"/etc"#], []), #"path parameter 'hole' must be an integer, got '1,"svg":"/etc'"#)
    }

    func testAJSONBodyIsCheckedLikeJSONRPCArguments() throws {
        let (r, command) = try route(#"{"method": "POST", "path": "/c/{course}", "set": {"fast": true}, "prefix_argument": "tags"}"#
            .replacingOccurrences(of: #""prefix_argument": "tags""#, with: #""accepted_if": "job""#))
        let args = try r.bind(pathValues: ["course": "x"], query: [], json: ["hole": 2, "stimp": 9], files: [:], prefix: "/",
                              command: command, plugin: "p")
        XCTAssertEqual(args["hole"], 2)
        XCTAssertEqual(args["fast"], true)
        XCTAssertEqual(r.acceptedIf, "job")
        XCTAssertThrowsError(try r.bind(pathValues: ["course": "x"], query: [], json: ["hole": "two"], files: [:], prefix: "/",
                                        command: command, plugin: "p")) { error in
            XCTAssertEqual((error as? UsageError)?.message, "argument 'hole' of 'p c' must be an integer, got a string")
        }
        XCTAssertThrowsError(try r.bind(pathValues: ["course": "x"], query: [], json: ["csv": "/etc/passwd"], files: [:], prefix: "/",
                                        command: command, plugin: "p")) { error in
            XCTAssertEqual((error as? UsageError)?.message, "body member 'csv' names a file on the host, which a request cannot do")
        }
        XCTAssertThrowsError(try r.bind(pathValues: ["course": "x"], query: [], json: ["fast": false], files: [:], prefix: "/",
                                        command: command, plugin: "p")) { error in
            XCTAssertEqual((error as? UsageError)?.message, "body member 'fast' is set by the route POST /c/{course}; a request cannot give it")
        }
        XCTAssertThrowsError(try r.bind(pathValues: ["course": "x"], query: [], json: ["course": "y"], files: [:], prefix: "/",
                                        command: command, plugin: "p")) { error in
            XCTAssertEqual((error as? UsageError)?.message, "argument 'course' is given twice (body member 'course' and another)")
        }
    }

    func testTheStatusTable() {
        let expected: [Status: Int] = [.ok: 200, .invalidArgument: 400, .denied: 403, .notFound: 404, .needsConfirmation: 409,
                                       .constraint: 409, .cancelled: 499, .error: 500, .io: 500, .unsupported: 501,
                                       .pluginFailed: 502, .busy: 503, .timeout: 504]
        for (status, http) in expected { XCTAssertEqual(HTTPStatusTable.status(for: status), http, status.name) }
    }

    func testMountPoints() {
        XCTAssertNil(SiteHTTP.mountProblem("/"))
        XCTAssertNil(SiteHTTP.mountProblem("/greenreader/v1"))
        XCTAssertEqual(SiteHTTP.mountProblem("/api/x"), "/api/ belongs to the host (plugins' own routes and panels); choose another path")
        XCTAssertEqual(SiteHTTP.mountProblem("/ui"), "/ui/ belongs to the host (plugins' own routes and panels); choose another path")
        XCTAssertEqual(SiteHTTP.mountProblem("gr"), "a mount point starts with '/' (\"/\" for the site's root)")
        XCTAssertEqual(SiteHTTP.mountProblem("/gr/"), "a mount point does not end with '/'")
        XCTAssertEqual(SiteHTTP.mountProblem("/a/../b"), "a '..' segment would leave the route's prefix")
    }

    func testTheSitesHTTPObjectIsChecked() {
        let text = """
        {"sites": {"club": {"http": {"mount": {"puting": "/", "globe": "/api"}, "public_routes": "yes", "cors": 1},
                            "plugins": {"putting": {"id": "org.clubhouse.putting"}, "globe": {"id": "org.clubhouse.globe"}}}}}
        """
        XCTAssertThrowsError(try ConfigurationParser.parse(text, source: "plugins.json", baseDirectory: nil)) { error in
            let lines = (error as? ConfigurationErrors)?.errors.map(\.description) ?? []
            XCTAssertEqual(lines.count, 4, "\(lines)")
            XCTAssertTrue(lines.contains { $0.contains("\"mount\" names plugin 'puting', which site 'club' does not have; did you mean 'putting'?") }, "\(lines)")
            XCTAssertTrue(lines.contains { $0.contains("mount point '/api' of 'globe': /api/ belongs to the host") }, "\(lines)")
            XCTAssertTrue(lines.contains { $0.contains("\"public_routes\" must be true or false, not a string") }, "\(lines)")
            XCTAssertTrue(lines.contains { $0.contains("unknown key 'cors' in \"http\" of site 'club'") }, "\(lines)")
            XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("plugins.json:") }, "\(lines)")
        }
    }

    func testASitesTableMatchesRequestsAndRefusesCollidingMounts() throws {
        func catalogue(_ routes: [(String, String, Bool)]) throws -> CommandCatalog {
            let commands = routes.enumerated().map { i, r in
                #"{"name": "c\#(i)", "summary": "s", "arguments": [{"name": "id", "type": "string"}], "http": {"method": "\#(r.0)", "path": "\#(r.1)", "mount": \#(r.2)}}"#
            }
            return try CommandCatalog.parse(Array(#"{"commands": [\#(commands.joined(separator: ","))]}"#.utf8), plugin: "p").get()
        }
        let putting = try catalogue([("GET", "/courses", false), ("POST", "/courses", false), ("GET", "/courses/{id}", true)])
        let globe = try catalogue([("GET", "/courses/{id}", true), ("GET", "/rest/v1/x", true)])
        var site = Site(name: "club", description: "", plugins: [], devices: [:])
        for alias in ["putting", "globe", "broken"] {
            site.plugins.append(PluginEntry(alias: alias, id: nil, enabled: true, path: "/x", versionRequirement: nil, config: .null, grants: [],
                                            isolation: .auto, timeoutMilliseconds: 1, location: SourceLocation(line: 1, column: 1, offset: 0)))
        }
        site.http.mounts = [SiteHTTP.Mount(alias: "putting", prefix: "/"), SiteHTTP.Mount(alias: "globe", prefix: "/")]
        let catalogues = ["putting": putting, "globe": globe]
        let table = SiteRoutes.build(site: site) { alias in
            catalogues[alias].map { .success($0) } ?? .failure(RuntimeError(status: .error, message: "no such file"))
        }
        XCTAssertEqual(table.problems, [#"plugin 'globe': route GET /courses/{id} (mounted at /) collides with plugin 'putting''s route GET /courses/{id} (mounted at /); one request could match both: give one of them another mount point in plugins.json ("http": {"mount": {…}})"#])
        XCTAssertEqual(table.routes.map(\.shown), ["GET /api/putting/courses", "POST /api/putting/courses", "GET /courses/{id}", "GET /rest/v1/x"])
        guard case .route(let r, let values) = table.match(method: "GET", segments: ["courses", "presidio"]) else { return XCTFail() }
        XCTAssertEqual(r.alias, "putting")
        XCTAssertEqual(values, ["id": "presidio"])
        guard case .route = table.match(method: "HEAD", segments: ["api", "putting", "courses"]) else { return XCTFail() }
        guard case .methodNotAllowed(let allowed) = table.match(method: "DELETE", segments: ["api", "putting", "courses"]) else { return XCTFail() }
        XCTAssertEqual(allowed, ["GET", "HEAD", "OPTIONS", "POST"])
        guard case .unavailable(let alias, let message) = table.match(method: "GET", segments: ["api", "broken", "x"]) else { return XCTFail() }
        XCTAssertEqual(alias, "broken")
        XCTAssertEqual(message, "no such file")
        guard case .notFound = table.match(method: "GET", segments: ["api", "putting", "nothing"]) else { return XCTFail() }
        // Without its mount a plugin's compatibility routes are not served at all.
        site.http.mounts = []
        let unmounted = SiteRoutes.build(site: site) { alias in
            catalogues[alias].map { .success($0) } ?? .failure(RuntimeError(status: .error, message: "no such file"))
        }
        XCTAssertTrue(unmounted.problems.isEmpty)
        guard case .notFound = unmounted.match(method: "GET", segments: ["courses", "presidio"]) else { return XCTFail() }
    }
}
