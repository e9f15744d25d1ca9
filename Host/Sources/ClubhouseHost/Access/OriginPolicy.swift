// Origins: whether a browser's request comes from the page the host serves (its `Origin` matches
// the `Host` it asked for) or from an origin the site lists in `http.allowed_origins`; and the CORS
// headers, which the host sends only for a listed origin (CORS is off unless a site lists some).

enum OriginPolicy {
    /// `scheme://host[:port]` in lower case without a default port, or nil for anything that is
    /// not an http(s) origin (`null`, a path, userinfo, a query).
    static func normalized(_ origin: String) -> String? {
        let lower = origin.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") { scheme = "http" } else if lower.hasPrefix("https://") { scheme = "https" } else { return nil }
        var authority = String(lower.dropFirst(scheme.count + 3))
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ \t\\".contains($0) }) else { return nil }
        guard let hostPort = stripDefaultPort(authority, scheme: scheme) else { return nil }
        return scheme + "://" + hostPort
    }

    /// `host[:port]` with the scheme's default port dropped; nil when the port is not a number 1–65535.
    static func stripDefaultPort(_ authority: String, scheme: String) -> String? {
        // The port follows the last colon, unless that colon is inside an IPv6 literal's brackets.
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            let host = String(authority[..<colon])
            guard !host.isEmpty, let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else { return nil }
            return (scheme == "http" && port == 80) || (scheme == "https" && port == 443) ? host : "\(host):\(port)"
        }
        return authority
    }

    /// Whether `origin` names the host the request was sent to (the `Host` header). Over HTTPS (as a
    /// trusted proxy says) the origin must be https too; over plain HTTP either scheme, since a proxy
    /// that is not trusted may have terminated TLS.
    static func sameOrigin(_ origin: String, host: String?, secure: Bool) -> Bool {
        guard let normalized = normalized(origin), let host, !host.isEmpty else { return false }
        let scheme = normalized.hasPrefix("https://") ? "https" : "http"
        if secure && scheme != "https" { return false }
        guard let expected = stripDefaultPort(host.lowercased(), scheme: scheme) else { return false }
        return normalized == scheme + "://" + expected
    }

    /// Whether `origin` is one the site lists (the list holds normalized origins).
    static func listed(_ origin: String?, in allowed: [String]) -> Bool {
        guard let origin, !allowed.isEmpty, let normalized = normalized(origin) else { return false }
        return allowed.contains(normalized)
    }

    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    /// What clients of the host send: tokens, JSON bodies, SSE resume, a call's heartbeat lease, and the PostgREST-style
    /// headers voyage's client adds.
    static let allowedHeaders = "Authorization, Content-Type, apikey, Last-Event-ID, Prefer, Accept-Profile, Content-Profile, X-Client-Info, Clubhouse-Lease"

    /// CORS response headers: none unless `request.origin` is listed. A preflight (OPTIONS) also
    /// gets the methods, headers and how long the answer may be cached. No credentials are allowed
    /// cross-origin (the session cookie is SameSite=Strict; a listed origin's page sends a token).
    static func corsHeaders(_ request: AccessRequest, allowed: [String]) -> [(name: String, value: String)] {
        guard let origin = request.origin, listed(origin, in: allowed) else { return [] }
        var headers: [(name: String, value: String)] = [("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
                                                        ("Access-Control-Expose-Headers", "X-Request-Id, Retry-After, ETag")]
        if request.method == "OPTIONS" {
            headers += [("Access-Control-Allow-Methods", allowedMethods), ("Access-Control-Allow-Headers", allowedHeaders),
                        ("Access-Control-Max-Age", "600")]
        }
        return headers
    }
}
