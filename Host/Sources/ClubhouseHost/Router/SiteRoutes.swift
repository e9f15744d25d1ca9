// Every HTTP route of a site: each loaded plugin's routes under /api/<alias>/, plus the compatibility
// routes of the plugins the site mounts (plugins.json `"http": {"mount": {…}}`). Built when
// `serve --http` starts (and again when a plugin is reloaded) and by `clubhouse routes`; a request is
// matched against it segment by segment. Two mounted routes of different plugins that one request
// could match are a problem that names both plugins and both routes.

import ClubhouseJSON

/// A route as the site serves it.
public struct SiteRoute: Sendable {
    public var alias: String
    public var command: CommandSpec
    public var route: HTTPRoute
    /// The full path's segments (`/api/putting/courses/{course}` → api, putting, courses, {course}).
    public var segments: [RouteSegment]
    /// The served path with its parameters, eg: /api/putting/courses/{course}.
    public var path: String
    /// Declared public by the plugin and allowed by the site (`"http": {"public_routes": true}`).
    public var isPublic: Bool
    /// The mount point of a compatibility route, nil for a route under /api/<alias>/.
    public var mountedAt: String?

    public var method: String { route.method }
    public var access: RouteAccess { command.access }
    public var maxBodyBytes: Int { route.maxBodyBytes ?? HTTPRoute.defaultMaxBodyBytes }
    public var shown: String { "\(method) \(path)" }
}

public struct SiteRoutes: Sendable {
    public private(set) var routes: [SiteRoute] = []
    /// Plugins of the site that did not load: their /api/<alias>/ answers 503 with the reason.
    public private(set) var unavailable: [String: String] = [:]
    /// Routes that cannot be served (colliding mounts): `serve --http` refuses to start on any.
    public private(set) var problems: [String] = []
    /// Things an administrator may want to know (a mount for a plugin with no mounted routes).
    public private(set) var warnings: [String] = []
    private var byLength: [Int: [Int]] = [:]

    public init() {}

    /// The routes of `site`'s enabled plugins, each resolved by `resolve`.
    public static func build(site: Site, resolve: (String) -> Result<ResolvedPlugin, RuntimeError>) -> SiteRoutes {
        build(site: site) { alias in resolve(alias).map(\.catalogue) }
    }

    /// The routes of `site`'s enabled plugins, given each one's catalogue.
    public static func build(site: Site, catalogue: (String) -> Result<CommandCatalog, RuntimeError>) -> SiteRoutes {
        var table = SiteRoutes()
        for entry in site.plugins where entry.enabled {
            let plugin: CommandCatalog
            switch catalogue(entry.alias) {
            case .success(let p): plugin = p
            case .failure(let e):
                table.unavailable[entry.alias] = e.message
                continue
            }
            let mount = site.http.mount(of: entry.alias)
            let allowsPublic = site.http.publicRoutes
            var mounted = 0
            for command in plugin.commands {
                for route in command.routes {
                    let prefix: [RouteSegment]
                    if route.mount {
                        guard let mount else { continue }
                        prefix = mount == "/" ? [] : mount.dropFirst().split(separator: "/").map { .literal(String($0)) }
                        mounted += 1
                    } else {
                        prefix = [.literal("api"), .literal(entry.alias)]
                    }
                    let segments = prefix + route.segments
                    table.add(SiteRoute(alias: entry.alias, command: command, route: route, segments: segments,
                                        path: SiteRoutes.render(segments), isPublic: command.isPublic && allowsPublic,
                                        mountedAt: route.mount ? mount : nil))
                }
            }
            if let mount, mounted == 0 {
                table.warnings.append("plugin '\(entry.alias)' is mounted at \(mount), but declares no mounted routes; nothing is served there")
            }
        }
        return table
    }

    /// "/api/putting/courses/{course}".
    public static func render(_ segments: [RouteSegment]) -> String {
        if segments.isEmpty { return "/" }
        return segments.map { s -> String in
            switch s {
            case .literal(let l): return "/" + l
            case .parameter(let p): return "/{\(p)}"
            }
        }.joined()
    }

    private mutating func add(_ route: SiteRoute) {
        if route.mountedAt != nil {
            // Routes under /api/<alias> cannot meet another plugin's (each alias is its own prefix, and
            // a catalogue's own collisions refuse the plugin); mounted ones can.
            for other in routes where other.method == route.method && HTTPRoute.collide(other.segments, route.segments) {
                problems.append("plugin '\(route.alias)': route \(route.shown) (mounted at \(route.mountedAt ?? "/")) collides with plugin '\(other.alias)''s route \(other.shown)\(other.mountedAt.map { " (mounted at \($0))" } ?? ""); one request could match both: give one of them another mount point in plugins.json (\"http\": {\"mount\": {…}})")
                return
            }
        }
        byLength[route.segments.count, default: []].append(routes.count)
        routes.append(route)
    }

    public enum Match: Sendable {
        /// The route and its path parameters (decoded), by name.
        case route(SiteRoute, [String: String])
        /// The path is a route's, the method is not: the methods it has (for `Allow`).
        case methodNotAllowed([String])
        /// Under /api/<alias>/ of a plugin that does not load.
        case unavailable(alias: String, message: String)
        case notFound
    }

    /// The route `method` and the decoded path `segments` reach. HEAD reaches GET's routes.
    public func match(method: String, segments: [String]) -> Match {
        let wanted = method == "HEAD" ? "GET" : method
        var allowed: [String] = []
        for index in byLength[segments.count] ?? [] {
            let candidate = routes[index]
            var values: [String: String] = [:]
            var fits = true
            for (pattern, given) in zip(candidate.segments, segments) {
                switch pattern {
                case .literal(let l): if l != given { fits = false }
                case .parameter(let p): values[p] = given
                }
                if !fits { break }
            }
            guard fits else { continue }
            if candidate.method == wanted { return .route(candidate, values) }
            allowed.append(candidate.method)
        }
        if !allowed.isEmpty {
            if allowed.contains("GET") { allowed.append("HEAD") }
            return .methodNotAllowed(Array(Set(allowed + ["OPTIONS"])).sorted())
        }
        if segments.count >= 2, segments[0] == "api", let message = unavailable[segments[1]] {
            return .unavailable(alias: segments[1], message: message)
        }
        return .notFound
    }
}
