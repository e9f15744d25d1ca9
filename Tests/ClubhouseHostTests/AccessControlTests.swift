// Who may call (Access/): tokens and their scopes, public routes, the back-off of repeated failures,
// browser pairing and its cookie, the Origin check, CORS, "last used", the audit log, and where the
// credentials live. A real SQLite file in a scratch data directory; the clock is the test's.

import ClubhouseJSON
import CSQLite
import Foundation
import XCTest
@testable import ClubhouseHost
@testable import ClubhouseLoader

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    // @unchecked: `value` is touched only under `lock`.
    private let lock = NSLock()
    private var value: Double
    init(_ start: Double) { value = start }
    var now: Double { lock.lock(); defer { lock.unlock() }; return value }
    func advance(_ seconds: Double) { lock.lock(); value += seconds; lock.unlock() }
}

final class AccessControlTests: XCTestCase {
    var directory = ""
    let clock = TestClock(1_750_000_000)

    override func setUp() {
        directory = NSTemporaryDirectory() + "clubhouse-access-\(UUID().uuidString)"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func site(_ http: SiteHTTP = SiteHTTP()) -> Site {
        let plugins = ["putting", "scorecard", "globe"].map { alias in
            PluginEntry(alias: alias, id: "org.clubhouse.\(alias)", enabled: true, path: nil, versionRequirement: nil, config: .object(JSONObject()),
                        grants: [], isolation: .auto, timeoutMilliseconds: 1000, location: SourceLocation(line: 1, column: 1, offset: 0))
        }
        var s = Site(name: "club", description: "", plugins: plugins, devices: [:])
        s.http = http
        return s
    }

    func control(_ http: SiteHTTP = SiteHTTP(), audit: AuditLog.Limits = AuditLog.Limits()) throws -> AccessControl {
        let clock = self.clock
        return try AccessControl(dataDirectory: directory, site: site(http), log: nil, clock: { clock.now }, auditLimits: audit)
    }

    func scopes(_ text: String) throws -> [Scope] { try Scopes.parse(text, aliases: ["putting", "scorecard", "globe"], site: "club").get() }

    func request(_ method: String = "GET", alias: String? = "putting", access: RouteAccess = .read, isPublic: Bool = false,
                 bearer: String? = nil, authorization: String? = nil, apiKey: String? = nil, cookie: String? = nil,
                 origin: String? = nil, host: String? = "club.example:8080", client: String = "192.0.2.1", secure: Bool = false) -> AccessRequest {
        AccessRequest(site: "club", method: method, path: "/api/\(alias ?? "_")/x", alias: alias, access: access, isPublic: isPublic,
                      authorization: authorization ?? bearer.map { "Bearer \($0)" }, apiKey: apiKey, cookie: cookie, origin: origin, host: host,
                      clientAddress: client, secure: secure, requestID: "r1")
    }

    func allowed(_ decision: AccessDecision, file: StaticString = #filePath, line: UInt = #line) -> Principal? {
        if case .allow(let p) = decision { return p }
        XCTFail("refused: \(decision)", file: file, line: line)
        return nil
    }

    func denied(_ decision: AccessDecision, _ status: Int, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case .deny(let s, let message, _) = decision else { return XCTFail("allowed, expected \(status)", file: file, line: line) }
        XCTAssertEqual(s, status, message, file: file, line: line)
        XCTAssertTrue(message.contains(fragment), "'\(message)' lacks '\(fragment)'", file: file, line: line)
    }

    // MARK: tokens and scopes

    func testATokenCallsWithinItsScopesAndWriteIncludesRead() throws {
        let access = try control()
        let (_, token) = try access.store.createToken(name: "Ann's phone", scopes: try scopes("putting:read,scorecard:write"), now: 100)
        XCTAssertTrue(token.hasPrefix("chtok_"))
        XCTAssertEqual(token.count, 6 + 8 + 1 + 43)
        let ann = Principal(kind: .token, name: "Ann's phone", scopes: ["putting:read", "scorecard:write"])
        XCTAssertEqual(allowed(access.authorize(request(bearer: token))), ann)
        XCTAssertEqual(allowed(access.authorize(request(alias: "scorecard", access: .read, bearer: token))), ann, "write includes read")
        XCTAssertEqual(allowed(access.authorize(request("POST", alias: "scorecard", access: .write, bearer: token))), ann)
        XCTAssertEqual(allowed(access.authorize(request(alias: nil, bearer: token))), ann, "the host's own routes need a valid credential only")
        denied(access.authorize(request("POST", access: .write, bearer: token)), 403,
               "POST /api/putting/x needs the scope putting:write; 'Ann's phone' has putting:read,scorecard:write")
        denied(access.authorize(request(alias: "globe", bearer: token)), 403, "needs the scope globe:read")
        // The `apikey` header (voyage's publishable key) and a lower-case scheme are the same token.
        XCTAssertEqual(allowed(access.authorize(request(apiKey: token))), ann)
        XCTAssertEqual(allowed(access.authorize(request(authorization: "bearer  \(token) "))), ann)
        let (_, star) = try access.store.createToken(name: "admin", scopes: try scopes("globe:*"), now: 100)
        XCTAssertNotNil(allowed(access.authorize(request("DELETE", alias: "globe", access: .write, bearer: star))))
    }

    func testWithoutAValidCredentialIs401ExceptOnPublicRoutes() throws {
        let access = try control()
        let (_, token) = try access.store.createToken(name: "phone", scopes: try scopes("putting:read"), now: 100)
        denied(access.authorize(request()), 401, "this needs a token: send Authorization: Bearer <token> (clubhouse token create --site club)")
        denied(access.authorize(request(bearer: token + "x")), 401, "the token is not valid (revoked, mistyped, or for another site)")
        denied(access.authorize(request(bearer: String(token.dropLast()) + (token.last == "A" ? "B" : "A"))), 401, "the token is not valid")
        denied(access.authorize(request(authorization: "Basic YWxhZGRpbjpvcGVu")), 401, "only Bearer tokens are accepted")
        // A browser session's secret is not a token, nor a token a session cookie.
        denied(access.authorize(request(bearer: "chses_" + token.dropFirst(6))), 401, "the token is not valid")
        XCTAssertEqual(allowed(access.authorize(request(isPublic: true))), AccessControl.anonymous)
        XCTAssertEqual(allowed(access.authorize(request(isPublic: true, bearer: "wrong"))), AccessControl.anonymous)
        XCTAssertEqual(allowed(access.authorize(request(isPublic: true, bearer: token)))?.name, "phone", "a public route still names a valid caller")
    }

    func testARevokedTokenIsRefusedFromTheNextRequest() throws {
        let access = try control()
        let (record, token) = try access.store.createToken(name: "phone", scopes: try scopes("putting:read"), now: 100)
        XCTAssertNotNil(allowed(access.authorize(request(bearer: token))))
        // `clubhouse token revoke` is another process with its own connection to the same file.
        let cli = try AccessStore(path: AccessStore.path(dataDirectory: directory, site: "club"))
        guard case .credential(let revoked) = try cli.revoke(record.id, site: "club", now: 200) else { return XCTFail("not revoked") }
        XCTAssertEqual(revoked.name, "phone")
        denied(access.authorize(request(bearer: token)), 401, "the token is not valid")
    }

    // MARK: back-off

    func testRepeatedFailuresSlowOneAddressDownBoundedAndLogged() throws {
        let access = try control()
        let (_, token) = try access.store.createToken(name: "phone", scopes: try scopes("putting:read"), now: 100)
        let guess = "chtok_aaaaaaaa_" + String(repeating: "A", count: 43)
        for _ in 0..<5 { denied(access.authorize(request(bearer: guess, client: "203.0.113.9")), 401, "not valid") }
        // The sixth failure starts a lock-out of 1 s; then 2, 4, … at most 60.
        guard case .deny(429, let message, 1) = access.authorize(request(bearer: guess, client: "203.0.113.9")) else { return XCTFail("no 429") }
        XCTAssertTrue(message.contains("too many failed attempts from 203.0.113.9: try again in 1 s"), message)
        // While it lasts, even a good token from that address is not checked; another address is served.
        guard case .deny(429, _, 1) = access.authorize(request(bearer: token, client: "203.0.113.9")) else { return XCTFail("no 429") }
        XCTAssertNotNil(allowed(access.authorize(request(bearer: token, client: "198.51.100.7"))), "a success elsewhere does not reset it")
        guard case .deny(429, _, 1) = access.authorize(request(bearer: token, client: "203.0.113.9")) else { return XCTFail("another address's success reset it") }
        var waits: [Int] = []
        for _ in 0..<9 {
            clock.advance(61)
            if case .deny(429, _, let wait?) = access.authorize(request(bearer: guess, client: "203.0.113.9")) { waits.append(wait) }
        }
        XCTAssertEqual(waits, [2, 4, 8, 16, 32, 60, 60, 60, 60])
        // Its own success does not clear it (the third outside attack, a06): the next failure is locked out
        // again; only time forgets (`forgetAfter` without a failure).
        clock.advance(61)
        XCTAssertNotNil(allowed(access.authorize(request(bearer: token, client: "203.0.113.9"))))
        guard case .deny(429, _, 60) = access.authorize(request(bearer: guess, client: "203.0.113.9")) else { return XCTFail("a success reset the back-off") }
        // A request with no credential at all is not a failure.
        for _ in 0..<20 { denied(access.authorize(request(client: "192.0.2.50")), 401, "this needs a token") }
        access.audit.flush()
        let lines = try String(contentsOfFile: access.audit.path, encoding: .utf8).split(separator: "\n")
        let events = try lines.map { try JSONParser.parse(String($0)) }.filter { $0["event"]?.stringValue == "backoff" }
        XCTAssertEqual(events.count, 11)
        XCTAssertEqual(events.first?["client"]?.stringValue, "203.0.113.9")
        XCTAssertEqual(events.first?["failures"]?.intValue, 6)
        XCTAssertEqual(events.last?["retry_after_s"]?.intValue, 60)
    }

    /// The third outside attack (a06): four wrong guesses, then one request with the attacker's own valid token,
    /// over and over, guessed without end (240 guesses in 0.7 s). A success no longer clears the address's
    /// failures: the sixth wrong guess is refused 429 as if no success came between.
    func testTheAttackersOwnSuccessDoesNotResetTheBackoff() throws {
        let access = try control()
        let (_, token) = try access.store.createToken(name: "attacker", scopes: try scopes("putting:read"), now: 100)
        let guess = "chtok_bbbbbbbb_" + String(repeating: "B", count: 43)
        var refused = 0, guesses = 0
        for _ in 0..<10 {
            for _ in 0..<4 {
                guesses += 1
                if case .deny(429, _, _) = access.authorize(request(bearer: guess, client: "203.0.113.77")) { refused += 1 }
            }
            _ = access.authorize(request(bearer: token, client: "203.0.113.77"))
            if refused > 0 { break }
        }
        XCTAssertEqual(guesses, 8, "the sixth failure is refused, in the second round")
        XCTAssertEqual(refused, 3)
        // And the next guess, after one more success, is still refused.
        _ = access.authorize(request(bearer: token, client: "203.0.113.77"))
        guard case .deny(429, _, _) = access.authorize(request(bearer: guess, client: "203.0.113.77")) else { return XCTFail("no 429") }
    }

    func testTheBackoffForgetsAndStaysBoundedInMemory() {
        let backoff = FailureBackoff(policy: FailureBackoff.Policy(free: 1, ceiling: 8, forgetAfter: 100, maxAddresses: 50))
        XCTAssertNil(backoff.fail("a", now: 0).lockedFor)
        XCTAssertEqual(backoff.fail("a", now: 1).lockedFor, 1)
        XCTAssertEqual(backoff.retryAfter("a", now: 1.5), 1)
        XCTAssertNil(backoff.retryAfter("a", now: 2.5))
        XCTAssertNil(backoff.fail("a", now: 500).lockedFor, "forgotten after 100 s without a failure")
        for i in 0..<500 { _ = backoff.fail("10.0.\(i / 256).\(i % 256)", now: 600 + Double(i)) }
        XCTAssertLessThanOrEqual(backoff.rememberedAddresses, 50)
    }

    // MARK: last used

    func testLastUsedIsWrittenAtMostOnceAMinute() throws {
        let access = try control()
        let (_, token) = try access.store.createToken(name: "phone", scopes: try scopes("putting:read"), now: 100)
        func lastUsed() throws -> Int? { try access.store.credentials().first?.lastUsed }
        XCTAssertNil(try lastUsed())
        let start = Int(clock.now)
        XCTAssertNotNil(allowed(access.authorize(request(bearer: token))))
        XCTAssertEqual(try lastUsed(), start)
        clock.advance(59)
        XCTAssertNotNil(allowed(access.authorize(request(bearer: token))))
        XCTAssertEqual(try lastUsed(), start, "not a write per request")
        clock.advance(2)
        XCTAssertNotNil(allowed(access.authorize(request(bearer: token))))
        XCTAssertEqual(try lastUsed(), start + 61)
    }

    // MARK: pairing and the cookie

    func testAPairingCodeBecomesOneBrowserSessionOnce() throws {
        let access = try control()
        let (record, code) = try access.store.createPairing(name: "kitchen tablet", scopes: try scopes("scorecard:write"), now: Int(clock.now), minutes: 10)
        XCTAssertEqual(code.count, 8)
        XCTAssertTrue(code.allSatisfy { Credentials.codeAlphabet.contains($0) })
        XCTAssertEqual(try access.store.pendingPairings(now: Int(clock.now)), [record])
        // Typed in lower case with the dash it is shown with.
        let typed = Credentials.displayed(code: code).lowercased()
        let result = access.exchangePairingCode(typed, request: request("POST", alias: nil, origin: "http://club.example:8080"))
        XCTAssertEqual(result.status, 200, result.message)
        XCTAssertEqual(result.message, "paired: this browser is 'kitchen tablet' at site 'club' (scorecard:write)")
        XCTAssertEqual(result.principal, Principal(kind: .browser, name: "kitchen tablet", scopes: ["scorecard:write"]))
        let setCookie = try XCTUnwrap(result.setCookie)
        XCTAssertTrue(setCookie.hasPrefix("clubhouse-club=chses_"), setCookie)
        XCTAssertTrue(setCookie.hasSuffix("; HttpOnly; SameSite=Strict; Path=/; Max-Age=34560000"), "no Secure over plain HTTP: \(setCookie)")
        let cookie = String(setCookie.prefix { $0 != ";" })
        // The session is listed like a token, and its cookie calls within its scopes.
        let sessions = try access.store.credentials()
        XCTAssertEqual(sessions.map(\.kind), [.browser])
        XCTAssertEqual(sessions.first?.name, "kitchen tablet")
        XCTAssertTrue(try access.store.pendingPairings(now: Int(clock.now)).isEmpty)
        XCTAssertEqual(allowed(access.authorize(request(alias: "scorecard", cookie: "theme=dark; \(cookie); other=1")))?.kind, .browser)
        denied(access.authorize(request(alias: "putting", cookie: cookie)), 403, "needs the scope putting:read")
        // The same code again; a code that expired; one never made; one that is no code at all.
        let again = access.exchangePairingCode(code, request: request("POST", alias: nil))
        XCTAssertEqual(again.status, 401)
        XCTAssertEqual(again.message, "this pairing code was already used (a code pairs one browser); ask for a new one (clubhouse token pair)")
        let (_, late) = try access.store.createPairing(name: nil, scopes: try scopes("putting:read"), now: Int(clock.now), minutes: 1)
        clock.advance(61)
        let expired = access.exchangePairingCode(late, request: request("POST", alias: nil, client: "192.0.2.2"))
        XCTAssertEqual(expired.status, 401)
        XCTAssertEqual(expired.message, "this pairing code has expired; ask for a new one (clubhouse token pair, --minutes for longer)")
        let unknown = access.exchangePairingCode("2345-6789", request: request("POST", alias: nil, client: "192.0.2.3"))
        XCTAssertEqual(unknown.status, 401)
        XCTAssertEqual(unknown.message, "unknown pairing code; check it, or ask for a new one (clubhouse token pair)")
        let malformed = access.exchangePairingCode("OOPS-1111", request: request("POST", alias: nil, client: "192.0.2.3"))
        XCTAssertEqual(malformed.status, 400)
        XCTAssertEqual(malformed.message, "a pairing code is 8 letters and digits, like ABCD-EFGH (clubhouse token pair prints one)")
        XCTAssertNil(malformed.setCookie)
        // Revoking the session ends the cookie.
        _ = try access.store.revoke("kitchen tablet", site: "club", now: Int(clock.now))
        denied(access.authorize(request(alias: "scorecard", cookie: cookie)), 401, "this browser's session is not valid (revoked, or from another host)")
    }

    func testPairingOverHTTPSSetsASecureCookieAndGuessingCodesSlowsDown() throws {
        let access = try control()
        let (_, code) = try access.store.createPairing(name: nil, scopes: try scopes("putting:read"), now: Int(clock.now), minutes: 10)
        for i in 0..<6 {
            let guess = access.exchangePairingCode("ZZZZ-ZZZZ", request: request("POST", alias: nil, client: "203.0.113.5"))
            XCTAssertEqual(guess.status, i < 5 ? 401 : 429, guess.message)
        }
        XCTAssertEqual(access.exchangePairingCode(code, request: request("POST", alias: nil, client: "203.0.113.5")).status, 429,
                       "while locked out not even the right code is tried")
        let result = access.exchangePairingCode(code, request: request("POST", alias: nil, origin: "https://club.example", host: "club.example",
                                                                       client: "198.51.100.1", secure: true))
        XCTAssertEqual(result.status, 200, result.message)
        XCTAssertTrue(result.setCookie?.hasSuffix("; Secure") ?? false)
        XCTAssertEqual(result.principal?.name.hasPrefix("browser-"), true)
        let crossSite = access.exchangePairingCode(code, request: request("POST", alias: nil, origin: "https://evil.example", host: "club.example"))
        XCTAssertEqual(crossSite.status, 403)
        XCTAssertEqual(crossSite.message, "cross-origin pairing refused: Origin https://evil.example is not this host (club.example)")
    }

    func testCookieRequestsThatChangeStateMustComeFromTheHostsOwnOrigin() throws {
        let access = try control(SiteHTTP(allowedOrigins: ["https://app.example.org"]))
        let (_, code) = try access.store.createPairing(name: "laptop", scopes: try scopes("scorecard:write"), now: Int(clock.now), minutes: 10)
        let cookie = String(try XCTUnwrap(access.exchangePairingCode(code, request: request("POST", alias: nil)).setCookie).prefix { $0 != ";" })
        func post(_ origin: String?, host: String? = "club.example:8080", secure: Bool = false, method: String = "POST") -> AccessDecision {
            access.authorize(request(method, alias: "scorecard", access: .write, cookie: cookie, origin: origin, host: host, secure: secure))
        }
        XCTAssertNotNil(allowed(post("http://club.example:8080")))
        XCTAssertNotNil(allowed(post("http://CLUB.example:8080/")))
        XCTAssertNotNil(allowed(post("https://club.example", host: "club.example", secure: true)))
        XCTAssertNotNil(allowed(post("https://club.example:443", host: "club.example", secure: true)))
        XCTAssertNotNil(allowed(post("https://app.example.org")), "an origin the site lists")
        denied(post("http://evil.example:8080"), 403,
               "cross-origin request refused: Origin http://evil.example:8080 is neither this host (club.example:8080) nor listed in the site's http.allowed_origins")
        denied(post("http://club.example:8081"), 403, "cross-origin request refused")
        denied(post("http://club.example", host: "club.example", secure: true), 403, "cross-origin", )
        denied(post("null"), 403, "cross-origin request refused")
        denied(post(nil), 403, "a POST with the session cookie needs an Origin header (browsers send one); refused")
        denied(post("http://evil.example", method: "DELETE"), 403, "cross-origin")
        XCTAssertNotNil(allowed(access.authorize(request(alias: "scorecard", cookie: cookie, origin: "http://evil.example"))), "a GET changes nothing")
        // A token is no ambient credential: no Origin check for it.
        let (_, token) = try access.store.createToken(name: "app", scopes: try scopes("scorecard:write"), now: 100)
        XCTAssertNotNil(allowed(access.authorize(request("POST", alias: "scorecard", access: .write, bearer: token, origin: "http://evil.example"))))
    }

    // MARK: CORS

    func testCORSIsOffUnlessTheSiteListsOrigins() throws {
        let closed = try control()
        XCTAssertTrue(closed.corsHeaders(for: request(origin: "https://app.example.org")).isEmpty)
        denied(closed.authorize(request("OPTIONS", origin: "https://app.example.org")), 401, "this needs a token")
        try FileManager.default.removeItem(atPath: directory)
        let open = try control(SiteHTTP(allowedOrigins: ["https://app.example.org", "http://localhost:5173"]))
        let headers = Dictionary(uniqueKeysWithValues: open.corsHeaders(for: request(origin: "https://app.example.org")).map { ($0.name, $0.value) })
        XCTAssertEqual(headers["Access-Control-Allow-Origin"], "https://app.example.org")
        XCTAssertEqual(headers["Vary"], "Origin")
        XCTAssertNil(headers["Access-Control-Allow-Credentials"], "cookies never go cross-origin")
        XCTAssertNil(headers["Access-Control-Allow-Methods"], "only a preflight gets the methods")
        let preflight = Dictionary(uniqueKeysWithValues: open.corsHeaders(for: request("OPTIONS", origin: "http://localhost:5173")).map { ($0.name, $0.value) })
        XCTAssertEqual(preflight["Access-Control-Allow-Methods"], "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        XCTAssertTrue(preflight["Access-Control-Allow-Headers"]?.contains("Authorization") ?? false)
        XCTAssertEqual(preflight["Access-Control-Max-Age"], "600")
        XCTAssertEqual(allowed(open.authorize(request("OPTIONS", origin: "http://localhost:5173"))), AccessControl.anonymous, "a preflight carries no credential")
        XCTAssertTrue(open.corsHeaders(for: request(origin: "https://evil.example")).isEmpty)
        XCTAssertTrue(open.corsHeaders(for: request(origin: nil)).isEmpty)
        denied(open.authorize(request("OPTIONS", origin: "https://evil.example")), 401, "this needs a token")
    }

    // MARK: audit log

    func testTheAuditLogIsJSONLinesRotatedBySize() throws {
        let access = try control(audit: AuditLog.Limits(maxBytes: 1000, keep: 2))
        for i in 0..<40 {
            access.record(AuditEntry(requestID: "req-\(i)", principalName: "Ann's \"phone\"", method: "GET", path: "/api/putting/courses",
                                     status: 200, durationMicroseconds: 1234, clientAddress: "192.0.2.1"))
        }
        access.audit.flush()
        let path = access.audit.path
        XCTAssertEqual(path, directory + "/club/_host/audit.log")
        for file in [path, path + ".1", path + ".2"] { XCTAssertTrue(FileManager.default.fileExists(atPath: file), file) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".3"), "only two rotated files are kept")
        var ids: [String] = []
        for file in [path + ".2", path + ".1", path] {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            XCTAssertLessThanOrEqual(text.utf8.count, 1000)
            for line in text.split(separator: "\n") {
                let entry = try JSONParser.parse(String(line))
                XCTAssertEqual(entry["token"]?.stringValue, "Ann's \"phone\"")
                XCTAssertEqual(entry["method"]?.stringValue, "GET")
                XCTAssertEqual(entry["path"]?.stringValue, "/api/putting/courses")
                XCTAssertEqual(entry["status"]?.intValue, 200)
                XCTAssertEqual(entry["duration_us"]?.intValue, 1234)
                XCTAssertEqual(entry["client"]?.stringValue, "192.0.2.1")
                XCTAssertEqual(entry["time"]?.stringValue, "2025-06-15T15:06:40.000Z")
                ids.append(entry["request_id"]?.stringValue ?? "")
            }
        }
        XCTAssertEqual(ids, (40 - ids.count..<40).map { "req-\($0)" }, "the newest lines, in order")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
    }

    func testTheAuditLogDropsAndCountsWhatItCannotKeepUp() throws {
        let audit = AuditLog(path: directory + "/audit.log", limits: AuditLog.Limits(maxBytes: 1 << 20, keep: 1, maxPending: 3))
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Block the writer so lines pile up behind it.
        audit.writer.lock()
        for i in 0..<10 { audit.append(["n": .int(i)]) }
        audit.writer.unlock()
        audit.flush()
        let lines = try String(contentsOfFile: audit.path, encoding: .utf8).split(separator: "\n").map { try JSONParser.parse(String($0)) }
        XCTAssertEqual(lines.compactMap { $0["n"]?.intValue }, [0, 1, 2])
        XCTAssertEqual(lines.last?["event"]?.stringValue, "dropped")
        XCTAssertEqual(lines.last?["lines"]?.intValue, 7)
    }

    // MARK: where the secrets live

    func testTheAccessDatabaseIsTheHostsAndHoldsOnlyDigests() throws {
        let access = try control()
        let (_, token) = try access.store.createToken(name: "phone", scopes: try scopes("putting:read"), now: 100)
        let (_, code) = try access.store.createPairing(name: nil, scopes: try scopes("putting:read"), now: 100, minutes: 10)
        let path = AccessStore.path(dataDirectory: directory, site: "club")
        XCTAssertEqual(access.store.path, path)
        XCTAssertEqual(path, directory + "/club/_host/access.sqlite")
        // No plugin's database or backup folder can be named `_host` (an id is reverse-DNS, without `_`).
        XCTAssertFalse(PluginLoader.isReverseDNS("_host"))
        XCTAssertFalse(PluginLoader.isReverseDNS("_host.access"))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o600)
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil), SQLITE_OK)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT hex(secret_sha256) FROM credentials UNION ALL SELECT hex(code_sha256) FROM pairing_codes", -1, &statement, nil)
        var digests: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { digests.append(String(cString: sqlite3_column_text(statement, 0))) }
        sqlite3_finalize(statement)
        sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &statement, nil)
        XCTAssertEqual(sqlite3_step(statement), SQLITE_ROW)
        XCTAssertEqual(String(cString: sqlite3_column_text(statement, 0)), "wal")
        sqlite3_finalize(statement)
        XCTAssertEqual(digests, [Credentials.digest(token), Credentials.digest(code)].map { $0.map { String(format: "%02X", $0) }.joined() })
        // Neither secret is anywhere in the files.
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            XCTAssertNil(bytes.range(of: Data(token.utf8)), file)
            XCTAssertNil(bytes.range(of: Data(code.utf8)), file)
        }
    }

    func testSecretsAreFreshAndOfTheirShape() throws {
        var seen = Set<String>()
        for _ in 0..<200 {
            let id = try Credentials.newID()
            let secret = try Credentials.newSecret(kind: .token, id: id)
            XCTAssertEqual(Credentials.id(in: secret, kind: .token), id)
            XCTAssertNil(Credentials.id(in: secret, kind: .browser))
            XCTAssertTrue(seen.insert(secret).inserted)
        }
        XCTAssertNil(Credentials.id(in: "chtok_ABCDEFGH_" + String(repeating: "a", count: 43), kind: .token), "ids are lower case")
        XCTAssertNil(Credentials.id(in: "chtok_abcdefgh_" + String(repeating: "a", count: 42) + "=", kind: .token))
        XCTAssertNil(Credentials.id(in: "chtok_abcdefgh-" + String(repeating: "a", count: 43), kind: .token))
        XCTAssertTrue(Credentials.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        XCTAssertFalse(Credentials.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(Credentials.constantTimeEqual([1, 2], [1, 2, 3]))
        XCTAssertEqual(Credentials.base64URL([0xFB, 0xFF, 0xBF]), "-_-_")
        XCTAssertEqual(Credentials.base64URL(Array("any carnal pleas".utf8)), "YW55IGNhcm5hbCBwbGVhcw")
        XCTAssertEqual(Credentials.normalizedCode(" abcd-efgh "), "ABCDEFGH")
        XCTAssertNil(Credentials.normalizedCode("ABCD-EFG"))
        XCTAssertNil(Credentials.normalizedCode("ABCD-EFGI"), "I is not in the alphabet (it reads as 1)")
        XCTAssertEqual(Credentials.cookieValues("a=1; clubhouse-club=\"x\"; clubhouse-club=y", name: "clubhouse-club"), ["x", "y"])
        XCTAssertEqual(Credentials.cookieName(site: "riverside tennis;academy"), "clubhouse-riverside_tennis_academy")
        // A pairing code is drawn from 32 symbols without 0, O, 1 or I.
        XCTAssertEqual(Set(Credentials.codeAlphabet).count, 32)
        XCTAssertTrue(Set(Credentials.codeAlphabet).isDisjoint(with: Set("01OI")))
    }

    // MARK: every message a person can be given

    func testScopeMessages() {
        func message(_ text: String) -> String? {
            if case .failure(let e) = Scopes.parse(text, aliases: ["putting", "scorecard"], site: "club") { XCTAssertEqual(e.status, .invalidArgument); return e.message }
            return nil
        }
        XCTAssertEqual(message(" , "), "--scope needs at least one ALIAS:read, ALIAS:write or ALIAS:* (site 'club': its plugins: putting, scorecard)")
        XCTAssertEqual(message("putting"), "--scope 'putting' needs an access after a colon: putting:read, putting:write or putting:* (write includes read)")
        XCTAssertEqual(message("putting:rw"), "--scope 'putting:rw': the access 'rw' must be read, write or * (write includes read)")
        XCTAssertEqual(message("puttin:read"), "--scope 'puttin:read': site 'club' has no plugin 'puttin'; did you mean 'putting'? (its plugins: putting, scorecard)")
        XCTAssertEqual(message("tennis:read"), "--scope 'tennis:read': site 'club' has no plugin 'tennis'; (its plugins: putting, scorecard)")
        XCTAssertEqual(try Scopes.parse("scorecard:read, putting:write,scorecard:*,putting:read", aliases: ["putting", "scorecard"], site: "club").get().map(\.description),
                       ["putting:write", "scorecard:*"], "one per alias, the widest, sorted")
    }

    func testNameMessagesAndNamesAreUniquePerSite() throws {
        let access = try control()
        func message(_ name: String) -> String? {
            do { try AccessNames.validate(name); return nil } catch { XCTAssertEqual(error.status, .invalidArgument); return error.message }
        }
        XCTAssertEqual(message("  "), "--name is empty; name it after who holds it, eg: --name \"Ann's phone\"")
        XCTAssertEqual(message(String(repeating: "x", count: 65)), "--name is 65 characters long; at most 64")
        XCTAssertEqual(message("a\nb"), "--name holds a control character (a newline, a tab, an escape); use plain text")
        XCTAssertEqual(message(" Ann"), "--name ' Ann' begins or ends with a space; drop it")
        XCTAssertNil(message("Ann’s phone ⛳"))
        _ = try access.store.createToken(name: "Ann's phone", scopes: try scopes("putting:read"), now: 1_750_000_000)
        XCTAssertThrowsError(try access.store.createToken(name: "ANN'S PHONE", scopes: try scopes("putting:read"), now: 1_750_000_100)) { error in
            XCTAssertEqual((error as? AccessError)?.status, .invalidArgument)
            XCTAssertEqual((error as? AccessError)?.message,
                           "a token named 'ANN'S PHONE' already exists at this site (created 2025-06-15T15:06:40Z); choose another --name, or revoke it first (clubhouse token revoke 'ANN'S PHONE')")
        }
        _ = try access.store.createPairing(name: "laptop", scopes: try scopes("putting:read"), now: 1_750_000_000, minutes: 10)
        XCTAssertThrowsError(try access.store.createToken(name: "laptop", scopes: try scopes("putting:read"), now: 1_750_000_100)) { error in
            XCTAssertEqual((error as? AccessError)?.message,
                           "a pairing code waiting to be used will name its browser 'laptop'; choose another --name, or revoke the code first (clubhouse token revoke 'laptop')")
        }
        // Once the code has expired the name is free again.
        XCTAssertNoThrow(try access.store.createToken(name: "laptop", scopes: try scopes("putting:read"), now: 1_750_000_000 + 601))
        XCTAssertThrowsError(try access.store.revoke("nobody", site: "club", now: 1_750_000_000)) { error in
            XCTAssertEqual((error as? AccessError)?.status, .notFound)
            XCTAssertEqual((error as? AccessError)?.message,
                           "site 'club' has no token, browser session or pairing code named 'nobody' (nor with that id); clubhouse token list --site club shows them")
        }
    }

    func testTooManyWaitingPairingCodesAreRefused() throws {
        let store = try AccessStore(path: AccessStore.path(dataDirectory: directory, site: "club"))
        for _ in 0..<AccessStore.pendingLimit { _ = try store.createPairing(name: nil, scopes: try scopes("putting:read"), now: 1000, minutes: 10) }
        XCTAssertThrowsError(try store.createPairing(name: nil, scopes: try scopes("putting:read"), now: 1000, minutes: 10)) { error in
            XCTAssertEqual((error as? AccessError)?.status, .busy)
            XCTAssertEqual((error as? AccessError)?.message,
                           "50 pairing codes are waiting to be used at this site (at most 50); let them expire or revoke some (clubhouse token list)")
        }
        XCTAssertNoThrow(try store.createPairing(name: nil, scopes: try scopes("putting:read"), now: 1000 + 601, minutes: 10), "expired codes do not count")
    }

    func testADatabaseThatCannotBeReadIs503AndNoOnesFailure() throws {
        let access = try control()
        let (_, token) = try access.store.createToken(name: "phone", scopes: try scopes("putting:read"), now: 100)
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(access.store.path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, "DROP TABLE credentials; DROP TABLE pairing_codes", nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        for _ in 0..<10 {
            guard case .deny(503, let message, 1) = access.authorize(request(bearer: token)) else { return XCTFail("not 503") }
            XCTAssertTrue(message.hasPrefix("the host cannot read its access database now; try again ("), message)
            XCTAssertTrue(message.contains("no such table: credentials"), message)
        }
        let pairing = access.exchangePairingCode("ABCD-EFGH", request: request("POST", alias: nil))
        XCTAssertEqual(pairing.status, 500)
        XCTAssertTrue(pairing.message.hasPrefix("the host cannot pair this browser now: \(access.store.path): cannot read the access database: no such table: pairing_codes"),
                      pairing.message)
    }

    func testADatabaseFromANewerClubhouseIsRefused() throws {
        let path = AccessStore.path(dataDirectory: directory, site: "club")
        _ = try AccessStore(path: path)
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, "PRAGMA user_version = 99", nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        XCTAssertThrowsError(try AccessStore(path: path)) { error in
            XCTAssertEqual((error as? AccessError)?.message, "\(path) was written by a newer clubhouse (schema 99, this one knows 1); use that version")
        }
    }

    func testProcessesOpeningTheDatabaseAtOnceAgreeOnItsSchema() throws {
        let path = AccessStore.path(dataDirectory: directory, site: "club")
        let failures = NSLock()
        nonisolated(unsafe) var errors: [String] = []
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do { _ = try AccessStore(path: path) } catch { failures.lock(); errors.append("\(error)"); failures.unlock() }
        }
        XCTAssertEqual(errors, [])
    }

    func testAnUnwritableDataDirectoryIsOneLine() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/club", contents: Data("not a folder".utf8)))
        XCTAssertThrowsError(try control()) { error in
            XCTAssertEqual((error as? AccessError)?.status, .io)
            XCTAssertTrue((error as? AccessError)?.message.hasPrefix("\(self.directory)/club/_host/access.sqlite: cannot create the folder for the access database") ?? false, "\(error)")
        }
    }
}
