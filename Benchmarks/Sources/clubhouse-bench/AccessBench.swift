// Access benchmark (issue 28, "who may call"): what `AccessControl.authorize` costs an HTTP request
// that carries a valid device token, in a release build, beside its floor in the same run: the two
// things a check that sees a revocation at once cannot skip, the SHA-256 of the presented token and
// one SQLite read (here a point read of its row by id through a prepared statement on the same file,
// C API; authorize reads `PRAGMA data_version` and keeps rows until the file changes). Also a request with no credential
// (401, no database read) and the audit line `record` queues. Wall and thread CPU time, medians.
// Usage: clubhouse-bench access [--calls N] [--samples K]

import ClubhouseHashing
import ClubhouseHost
import ClubhouseJSON
import CSQLite
#if canImport(Glibc)
import Glibc
#endif

func accessBench(_ arguments: [String]) {
    func option(_ name: String) -> Int? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
        return Int(arguments[i + 1])
    }
    let calls = option("--calls") ?? 20_000
    let samples = option("--samples") ?? 11
    let scratch = "/tmp/clubhouse-access-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    let config = #"{"sites": {"bench": {"plugins": {"putting": {"id": "org.clubhouse.putting"}}}}}"#
    guard let (_, configuration) = Measure.scratchConfiguration("access", scratch: scratch, config: config),
          let site = configuration.sites["bench"] else { return }
    let access: AccessControl
    let token: String
    do {
        access = try AccessControl(dataDirectory: scratch + "/data", site: site)
        let scope = try Scopes.parse("putting:read", aliases: ["putting"], site: "bench").get()
        // Some other credentials in the table, as a club would have.
        for i in 0..<200 { _ = try access.store.createToken(name: "device \(i)", scopes: scope, now: 1000) }
        token = try access.store.createToken(name: "Ann's phone", scopes: scope, now: 1000).secret
    } catch {
        print("access bench: \(error)")
        return
    }
    func request(_ bearer: String?) -> AccessRequest {
        AccessRequest(site: "bench", method: "GET", path: "/api/putting/courses", alias: "putting", access: .read, isPublic: false,
                      authorization: bearer.map { "Bearer \($0)" }, apiKey: nil, cookie: nil, origin: nil, host: "127.0.0.1:8080",
                      clientAddress: "127.0.0.1", secure: false, requestID: "bench")
    }
    let valid = request(token), none = request(nil)
    guard case .allow = access.authorize(valid) else { print("access bench: the token is refused"); return }

    // The floor: hash the token, read its row by id (the same columns) with a prepared statement.
    var db: OpaquePointer?
    sqlite3_open_v2(access.store.path, &db, SQLITE_OPEN_READONLY, nil)
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT id, kind, name, scopes, created_at, last_used_at, secret_sha256 FROM credentials WHERE id = ? AND kind = ?",
                       -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    let id = String(token.dropFirst(6).prefix(8))
    var sink = 0
    func floor() {
        let digest = SHA256.hash(token).bytes
        sqlite3_bind_text(statement, 1, id, -1, clubhouse_sqlite_transient())
        sqlite3_bind_text(statement, 2, "token", -1, clubhouse_sqlite_transient())
        if sqlite3_step(statement) == SQLITE_ROW { sink &+= Int(sqlite3_column_bytes(statement, 6)) + Int(digest[0]) }
        sqlite3_reset(statement)
    }

    func perCall(_ body: () -> Void) -> (wall: Double, cpu: Double) {
        var walls: [Double] = [], cpus: [Double] = []
        for sample in 0...samples {
            let cpu0 = accessThreadCPU(), wall0 = Measure.now()
            for _ in 0..<calls { body() }
            if sample > 0 {
                walls.append((Measure.now() - wall0) / Double(calls))
                cpus.append((accessThreadCPU() - cpu0) / Double(calls))
            }
        }
        return (Measure.median(walls), Measure.median(cpus))
    }
    // Interleaved, so a change of the machine's load hits both alike.
    var authorizeRuns: [(wall: Double, cpu: Double)] = [], floorRuns: [(wall: Double, cpu: Double)] = []
    for _ in 0..<3 {
        authorizeRuns.append(perCall { if case .allow = access.authorize(valid) { sink &+= 1 } })
        floorRuns.append(perCall(floor))
    }
    let authorize = (wall: Measure.median(authorizeRuns.map(\.wall)), cpu: Measure.median(authorizeRuns.map(\.cpu)))
    let floorTime = (wall: Measure.median(floorRuns.map(\.wall)), cpu: Measure.median(floorRuns.map(\.cpu)))
    let refused = perCall { if case .deny = access.authorize(none) { sink &+= 1 } }
    let entry = AuditEntry(requestID: "bench", principalName: "Ann's phone", method: "GET", path: "/api/putting/courses", status: 200,
                           durationMicroseconds: 120, clientAddress: "127.0.0.1")
    let audit = perCall { access.record(entry) }
    access.audit.flush()
    func us(_ s: Double) -> String { String(format: "%.2f µs", s * 1e6) }
    print("authorize, valid token (SHA-256, data_version, row):   \(us(authorize.wall)) wall, \(us(authorize.cpu)) CPU per request")
    print("floor, SHA-256 + prepared point SELECT (C API):         \(us(floorTime.wall)) wall, \(us(floorTime.cpu)) CPU")
    print(String(format: "ratio authorize / floor: %.2f× wall, %.2f× CPU", authorize.wall / floorTime.wall, authorize.cpu / floorTime.cpu))
    print("authorize, no credential (401):                         \(us(refused.wall)) wall, \(us(refused.cpu)) CPU")
    print("record (audit line queued; written by its own queue):   \(us(audit.wall)) wall, \(us(audit.cpu)) CPU")
    if sink == 42 { print("") }
}

private func accessThreadCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
