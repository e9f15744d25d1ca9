// Who may call a site over HTTP (AccessInterface.swift is the contract with the server):
// - a route a plugin declares public and the site allows: anyone;
// - a CORS preflight (OPTIONS) from an origin the site lists: anyone (browsers send no credentials
//   with one, and it runs nothing);
// - otherwise a valid credential: a device token (`Authorization: Bearer`, or `apikey`) or the
//   browser session cookie; 401 without one. A plugin's route needs the scope `alias:read` or
//   `alias:write` (403 names it); the host's own routes need only a valid credential.
// - with the cookie, a state-changing request (not GET, HEAD or OPTIONS) must come from this host's
//   own origin or one the site lists (403 otherwise): the cookie is SameSite=Strict as well.
// - repeated failures from one address are slowed (FailureBackoff: 429 with Retry-After).
// "Last used" is written at most once a minute per credential.

import ClubhouseABI
import ClubhouseJSON
import ClubhousePlatform

/// @unchecked Sendable: `lastTouched` is guarded by `touchLock`; every other member is immutable or thread-safe.
public final class AccessControl: AccessControlling, @unchecked Sendable {
    // @unchecked: every stored property is immutable or thread-safe itself (AccessStore, AuditLog and
    // FailureBackoff each guard their state with a lock); `lastTouched` is touched only under `touchLock`.
    public let site: String
    public let store: AccessStore
    public let audit: AuditLog
    let http: SiteHTTP
    let backoff: FailureBackoff
    let clock: @Sendable () -> Double
    let log: LogBroker?
    let cookieName: String
    private let touchLock = Lock()
    private var lastTouched: [String: Double] = [:]

    /// "Last used" is written at most this often per credential (seconds).
    static let touchInterval = 60.0
    /// How long a browser keeps the session cookie (400 days, the longest browsers honour);
    /// the session itself lasts until it is revoked.
    static let cookieMaxAge = 400 * 86_400

    /// The access control of `site`, whose credentials are in `<dataDirectory>/<site>/_host/access.sqlite`
    /// and whose audit log is `<dataDirectory>/<site>/_host/audit.log`. Throws when the database
    /// cannot be opened (a failure of the world: `.io`, `.busy` or `.error`).
    public convenience init(dataDirectory: String, site: Site, log: LogBroker? = nil) throws(AccessError) {
        try self.init(dataDirectory: dataDirectory, site: site, log: log, clock: { AccessTime.now() })
    }

    init(dataDirectory: String, site: Site, log: LogBroker?, clock: @escaping @Sendable () -> Double,
         backoff: FailureBackoff.Policy = FailureBackoff.Policy(), auditLimits: AuditLog.Limits = AuditLog.Limits()) throws(AccessError) {
        self.site = site.name
        store = try AccessStore(path: AccessStore.path(dataDirectory: dataDirectory, site: site.name))
        audit = AuditLog(path: AccessControl.auditPath(dataDirectory: dataDirectory, site: site.name), limits: auditLimits, log: log)
        http = site.http
        self.backoff = FailureBackoff(policy: backoff)
        self.clock = clock
        self.log = log
        cookieName = Credentials.cookieName(site: site.name)
    }

    public static func auditPath(dataDirectory: String, site: String) -> String {
        "\(dataDirectory)/\(site)/_host/audit.log"
    }

    static let anonymous = Principal(kind: .anonymous, name: "anonymous", scopes: [])

    // MARK: AccessControlling

    public func authorize(_ request: AccessRequest) -> AccessDecision {
        if request.method == "OPTIONS" && OriginPolicy.listed(request.origin, in: http.allowedOrigins) {
            return .allow(AccessControl.anonymous)
        }
        if request.isPublic {
            // Public: anyone; a valid credential still names the caller in the audit log.
            if case .valid(let principal, _, _, _) = identify(request) { return .allow(principal) }
            return .allow(AccessControl.anonymous)
        }
        let now = clock()
        if let wait = backoff.retryAfter(request.clientAddress, now: now) {
            return .deny(status: 429, message: "too many failed attempts from \(request.clientAddress); try again in \(wait) s", retryAfterSeconds: wait)
        }
        switch identify(request) {
        case .none:
            return .deny(status: 401, message: "this needs a token: send Authorization: Bearer <token> (clubhouse token create --site \(site)), or pair this browser (clubhouse token pair --site \(site))",
                         retryAfterSeconds: nil)
        case .unavailable(let message):
            return .deny(status: 503, message: message, retryAfterSeconds: 1)
        case .invalid(let message, let counts):
            if counts, let wait = failed(request, now: now) {
                return .deny(status: 429, message: "\(message); too many failed attempts from \(request.clientAddress): try again in \(wait) s", retryAfterSeconds: wait)
            }
            return .deny(status: 401, message: message, retryAfterSeconds: nil)
        case .valid(let principal, let scopes, let id, let byCookie):
            touch(id, now: now)
            if byCookie && !["GET", "HEAD", "OPTIONS"].contains(request.method) {
                guard let origin = request.origin else {
                    return .deny(status: 403, message: "a \(request.method) with the session cookie needs an Origin header (browsers send one); refused",
                                 retryAfterSeconds: nil)
                }
                guard OriginPolicy.sameOrigin(origin, host: request.host, secure: request.secure) || OriginPolicy.listed(origin, in: http.allowedOrigins) else {
                    return .deny(status: 403, message: "cross-origin request refused: Origin \(origin) is neither this host (\(request.host ?? "no Host header")) nor listed in the site's http.allowed_origins",
                                 retryAfterSeconds: nil)
                }
            }
            if let alias = request.alias, !scopes.contains(where: { $0.allows(alias: alias, access: request.access) }) {
                let has = principal.scopes.isEmpty ? "no scopes" : principal.scopes.joined(separator: ",")
                return .deny(status: 403, message: "\(request.method) \(request.path) needs the scope \(Scopes.needed(alias: alias, access: request.access)); '\(principal.name)' has \(has)",
                             retryAfterSeconds: nil)
            }
            return .allow(principal)
        }
    }

    public func stillAllows(_ request: AccessRequest) -> Bool {
        if request.isPublic { return true }
        switch identify(request) {
        case .none, .invalid: return false
        case .unavailable: return true
        case .valid(_, let scopes, _, _):
            guard let alias = request.alias else { return true }
            return scopes.contains { $0.allows(alias: alias, access: request.access) }
        }
    }

    public func exchangePairingCode(_ code: String, request: AccessRequest) -> PairingResult {
        if let origin = request.origin, !OriginPolicy.sameOrigin(origin, host: request.host, secure: request.secure),
           !OriginPolicy.listed(origin, in: http.allowedOrigins) {
            return PairingResult(status: 403, message: "cross-origin pairing refused: Origin \(origin) is not this host (\(request.host ?? "no Host header"))",
                                 setCookie: nil, principal: nil)
        }
        let now = clock()
        if let wait = backoff.retryAfter(request.clientAddress, now: now) {
            return PairingResult(status: 429, message: "too many failed attempts from \(request.clientAddress); try again in \(wait) s", setCookie: nil, principal: nil)
        }
        guard let normalized = Credentials.normalizedCode(code) else {
            return PairingResult(status: 400, message: "a pairing code is \(Credentials.codeLength) letters and digits, like ABCD-EFGH (clubhouse token pair prints one)",
                                 setCookie: nil, principal: nil)
        }
        let redemption: Redemption
        do {
            redemption = try store.redeem(codeDigest: Credentials.digest(normalized), now: Int(now))
        } catch {
            log?.warning("pairing: \(error.message)")
            return PairingResult(status: error.status == .busy ? 503 : 500, message: "the host cannot pair this browser now: \(error.message)", setCookie: nil, principal: nil)
        }
        let refusal: String
        switch redemption {
        case .paired(let record, let secret):
            let principal = Principal(kind: .browser, name: record.name, scopes: record.scopes)
            var cookie = "\(cookieName)=\(secret); HttpOnly; SameSite=Strict; Path=/; Max-Age=\(AccessControl.cookieMaxAge)"
            if request.secure { cookie += "; Secure" }
            let scopes = record.scopes.isEmpty ? "no scopes" : record.scopes.joined(separator: ", ")
            return PairingResult(status: 200, message: "paired: this browser is '\(record.name)' at site '\(site)' (\(scopes))", setCookie: cookie, principal: principal)
        case .unknown: refusal = "unknown pairing code; check it, or ask for a new one (clubhouse token pair)"
        case .expired: refusal = "this pairing code has expired; ask for a new one (clubhouse token pair, --minutes for longer)"
        case .used: refusal = "this pairing code was already used (a code pairs one browser); ask for a new one (clubhouse token pair)"
        }
        if let wait = failed(request, now: now) {
            return PairingResult(status: 429, message: "\(refusal); too many failed attempts from \(request.clientAddress): try again in \(wait) s",
                                 setCookie: nil, principal: nil)
        }
        return PairingResult(status: 401, message: refusal, setCookie: nil, principal: nil)
    }

    public func corsHeaders(for request: AccessRequest) -> [(name: String, value: String)] {
        OriginPolicy.corsHeaders(request, allowed: http.allowedOrigins)
    }

    public func record(_ entry: AuditEntry) {
        audit.append(["time": .string(AccessTime.isoMilliseconds(clock())), "request_id": .string(entry.requestID),
                      "token": .string(entry.principalName), "method": .string(entry.method), "path": .string(entry.path),
                      "status": .int(entry.status), "duration_us": .int(entry.durationMicroseconds), "client": .string(entry.clientAddress)])
    }

    // MARK: credentials

    enum Identity {
        case none
        /// A credential was presented and refused; `counts`: it is a failure for the back-off.
        case invalid(String, counts: Bool)
        /// The access database cannot be read (no one's fault: not a failure for the back-off).
        case unavailable(String)
        case valid(Principal, scopes: [Scope], id: String, byCookie: Bool)
    }

    /// Who the request's credential names. The Authorization header is read first, then `apikey`,
    /// then the site's session cookie.
    func identify(_ request: AccessRequest) -> Identity {
        if let authorization = request.authorization {
            guard let token = Credentials.bearer(authorization) else {
                return .invalid("only Bearer tokens are accepted: Authorization: Bearer chtok_… (clubhouse token create)", counts: true)
            }
            return verify(token, kind: .token)
        }
        if let key = request.apiKey { return verify(Credentials.trim(key), kind: .token) }
        let cookies = Credentials.cookieValues(request.cookie, name: cookieName)
        guard !cookies.isEmpty else { return .none }
        for value in cookies {
            switch verify(value, kind: .browser) {
            case .valid(let principal, let scopes, let id, _): return .valid(principal, scopes: scopes, id: id, byCookie: true)
            case .unavailable(let message): return .unavailable(message)
            default: continue
            }
        }
        // A session secret has 256 bits: an unknown cookie is a revoked or stale session, not a guess
        // worth slowing (and slowing it would keep that browser from pairing again).
        return .invalid("this browser's session is not valid (revoked, or from another host); pair it again (clubhouse token pair --site \(site))", counts: false)
    }

    private func verify(_ text: String, kind: CredentialKind) -> Identity {
        let refused = Identity.invalid("the token is not valid (revoked, mistyped, or for another site)", counts: true)
        guard let id = Credentials.id(in: text, kind: kind) else { return refused }
        let found: AccessStore.Stored?
        do { found = try store.lookup(id: id, kind: kind) } catch {
            log?.warning("access: \(error.message)")
            return .unavailable("the host cannot read its access database now; try again (\(error.message))")
        }
        guard let found, Credentials.constantTimeEqual(Credentials.digest(text), found.digest) else { return refused }
        return .valid(Principal(kind: kind == .token ? .token : .browser, name: found.record.name, scopes: found.record.scopes),
                      scopes: found.scopes, id: found.record.id, byCookie: false)
    }

    /// Counts a failure from the request's address; the lock-out in seconds when it starts one (logged).
    private func failed(_ request: AccessRequest, now: Double) -> Int? {
        let (failures, lockedFor) = backoff.fail(request.clientAddress, now: now)
        guard let lockedFor else { return nil }
        log?.warning("access: \(failures) failed attempts from \(request.clientAddress) at site '\(site)'; refusing it for \(lockedFor) s")
        audit.append(["time": .string(AccessTime.isoMilliseconds(now)), "event": "backoff", "request_id": .string(request.requestID),
                      "client": .string(request.clientAddress), "failures": .int(failures), "retry_after_s": .int(lockedFor)])
        return lockedFor
    }

    /// Writes "last used" when the last write for this credential is a minute old or more.
    private func touch(_ id: String, now: Double) {
        let due = touchLock.withLock { () -> Bool in
            if let last = lastTouched[id], now - last < AccessControl.touchInterval { return false }
            if lastTouched.count > 10_000 { lastTouched = [:] }
            lastTouched[id] = now
            return true
        }
        if due { store.touch(id: id, at: Int(now)) }
    }
}
