// Host/Sources/ClubhouseHost/Access/AccessInterface.swift
//
// The contract between the HTTP front door (FrontEnds/Server/HTTP…, branch `http`) and the access
// layer (ClubhouseHost/Access/…, branch `access`): who may call. Both branches add this file with
// exactly this text; change it only by agreement through the integrator (say so in your report).

/// Whether a route reads or writes (from the command's catalogue; default `write`). Token scopes use it.
public enum RouteAccess: String, Sendable, Equatable {
    case read, write
}

/// One HTTP request, as the access layer needs to see it. Header values are raw (as received).
public struct AccessRequest: Sendable {
    public var site: String
    public var method: String          // "GET", "POST", "DELETE", …
    public var path: String            // the decoded path, without the query
    public var alias: String?          // the plugin alias the route belongs to; nil for the host's own routes
    public var access: RouteAccess     // read or write (host routes say which they are)
    public var isPublic: Bool          // the route is declared public by its plugin AND the site allows it
    public var authorization: String?  // the `Authorization` header, if any (`Bearer <token>`)
    public var apiKey: String?         // the `apikey` header, if any (voyage's PostgREST-style publishable key)
    public var cookie: String?         // the `Cookie` header, if any
    public var origin: String?         // the `Origin` header, if any
    public var host: String?           // the `Host` header, if any
    public var clientAddress: String   // the peer, or X-Forwarded-For's client when the peer is a --trusted-proxy
    public var secure: Bool            // HTTPS as said by a trusted proxy's X-Forwarded-Proto
    public var requestID: String

    public init(site: String, method: String, path: String, alias: String?, access: RouteAccess, isPublic: Bool,
                authorization: String?, apiKey: String?, cookie: String?, origin: String?, host: String?,
                clientAddress: String, secure: Bool, requestID: String) {
        self.site = site; self.method = method; self.path = path; self.alias = alias; self.access = access
        self.isPublic = isPublic; self.authorization = authorization; self.apiKey = apiKey; self.cookie = cookie
        self.origin = origin; self.host = host; self.clientAddress = clientAddress; self.secure = secure
        self.requestID = requestID
    }
}

/// Who is calling, once allowed.
public struct Principal: Sendable, Equatable {
    public enum Kind: String, Sendable { case token, browser, anonymous }
    public var kind: Kind
    public var name: String            // the token's name ("Ann's phone"), the browser session's name, or "anonymous"
    public var scopes: [String]        // `alias:read|write|*` as granted

    public init(kind: Kind, name: String, scopes: [String]) {
        self.kind = kind; self.name = name; self.scopes = scopes
    }
}

public enum AccessDecision: Sendable {
    case allow(Principal)
    /// 401 (no or bad credentials), 403 (a valid credential without the scope, or a cross-origin
    /// state-changing request), 429 (too many failures from this address: retryAfterSeconds set).
    case deny(status: Int, message: String, retryAfterSeconds: Int?)
}

/// The answer to `POST /api/_/pair` with body `{"code": "…"}`.
public struct PairingResult: Sendable {
    public var status: Int             // 200 on success; 400/401/429 otherwise
    public var message: String         // shown to the person pairing
    public var setCookie: String?      // the full `Set-Cookie` header value on success (HttpOnly; SameSite=Strict; Path=/; Secure when request.secure)
    public var principal: Principal?

    public init(status: Int, message: String, setCookie: String?, principal: Principal?) {
        self.status = status; self.message = message; self.setCookie = setCookie; self.principal = principal
    }
}

/// One line of the audit log.
public struct AuditEntry: Sendable {
    public var requestID: String
    public var principalName: String   // "anonymous" when nobody was identified
    public var method: String
    public var path: String
    public var status: Int
    public var durationMicroseconds: Int
    public var clientAddress: String

    public init(requestID: String, principalName: String, method: String, path: String, status: Int,
                durationMicroseconds: Int, clientAddress: String) {
        self.requestID = requestID; self.principalName = principalName; self.method = method; self.path = path
        self.status = status; self.durationMicroseconds = durationMicroseconds; self.clientAddress = clientAddress
    }
}

/// What the HTTP server asks. One instance per served site; every method is thread-safe and quick
/// (no blocking I/O beyond a local SQLite read/write and an append to the audit log).
public protocol AccessControlling: Sendable {
    func authorize(_ request: AccessRequest) -> AccessDecision
    func exchangePairingCode(_ code: String, request: AccessRequest) -> PairingResult
    /// CORS response headers for this request: empty unless the site lists allowed origins and this
    /// request's Origin is one of them.
    func corsHeaders(for request: AccessRequest) -> [(name: String, value: String)]
    func record(_ entry: AuditEntry)
    /// Whether the credential `request` carried still allows it (not revoked, scope still granted), asked
    /// again each second for every open event stream and followed call; no back-off, audit or "last used".
    /// A database that cannot be read now answers true (the next check asks again). Appended by the third
    /// outside attack (a17: a revoked token kept its open stream).
    func stillAllows(_ request: AccessRequest) -> Bool
}

extension AccessControlling {
    /// By default, the full check (an access layer with side effects on `authorize` overrides it).
    public func stillAllows(_ request: AccessRequest) -> Bool {
        if case .allow = authorize(request) { return true }
        return false
    }
}
