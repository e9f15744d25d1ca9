// The site's credentials in a host-owned SQLite file, `<data dir>/<site>/_host/access.sqlite`: device
// tokens, browser sessions and pending pairing codes, each stored as the SHA-256 of its secret only.
// No plugin reaches it: a plugin's database is `<site>/<reverse-DNS id>.sqlite` and an id has no `_`
// (PluginLoader.isReverseDNS), the storage broker's authorizer refuses ATTACH, and a sandboxed
// plugin sees only the files of its call. One connection (WAL, busy timeout 5 s) guarded by a lock;
// the CLI (`token create/list/revoke/pair`) and a running server each hold their own.

import ClubhouseABI
import ClubhousePlatform
import CSQLite
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// A token or browser session as `token list` shows it (never its secret).
public struct CredentialRecord: Sendable, Equatable {
    public var id: String
    public var kind: CredentialKind
    public var name: String
    public var scopes: [String]
    /// Unix seconds.
    public var created: Int
    public var lastUsed: Int?
}

/// A pairing code not yet exchanged (nor expired).
public struct PairingRecord: Sendable, Equatable {
    public var id: String
    /// The name the browser session will take (nil: `browser-<id>`).
    public var name: String?
    public var scopes: [String]
    public var created: Int
    public var expires: Int
}

/// What `revoke` removed.
public enum RevokedCredential: Sendable, Equatable {
    case credential(CredentialRecord)
    case pairing(PairingRecord)
}

/// How an exchanged pairing code turned out.
enum Redemption {
    case paired(CredentialRecord, secret: String)
    case unknown
    case expired
    case used
}

/// Names of tokens and browser sessions: who holds them ("Ann's phone"), unique per site.
public enum AccessNames {
    public static func validate(_ name: String) throws(AccessError) {
        guard !name.allSatisfy({ $0 == " " || $0 == "\t" }) else {
            throw AccessError(.invalidArgument, "--name is empty; name it after who holds it, eg: --name \"Ann's phone\"")
        }
        guard name.count <= AccessStore.nameLimit else {
            throw AccessError(.invalidArgument, "--name is \(name.count) characters long; at most \(AccessStore.nameLimit)")
        }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) }) else {
            throw AccessError(.invalidArgument, "--name holds a control character (a newline, a tab, an escape); use plain text")
        }
        guard Credentials.trim(name) == name else {
            throw AccessError(.invalidArgument, "--name '\(name)' begins or ends with a space; drop it")
        }
    }
}

/// The host's access database. Every method is thread-safe (one connection behind `lock`).
/// @unchecked Sendable: the connection, its statements and the cache are used under `lock` only.
public final class AccessStore: @unchecked Sendable {
    // @unchecked: `db` and `statements` are touched only while `lock` is held.
    public let path: String
    private let db: OpaquePointer
    private let lock = Lock()
    private var statements: [String: OpaquePointer] = [:]

    /// Names are unique per site (case-insensitively) across tokens, browser sessions and pending codes.
    public static let nameLimit = 64
    /// Pending pairing codes a site may have at once (each is checked on every exchange).
    public static let pendingLimit = 50

    /// `<data dir>/<site>/_host/access.sqlite`: `_host` can never be a plugin's database or backup folder.
    public static func path(dataDirectory: String, site: String) -> String {
        "\(dataDirectory)/\(site)/_host/access.sqlite"
    }

    /// The schema, one step per change (applied in order; PRAGMA user_version counts them; never
    /// edit a step, append one).
    static let schema: [String] = [
        """
        CREATE TABLE credentials (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('token', 'browser')),
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            scopes TEXT NOT NULL,
            secret_sha256 BLOB NOT NULL CHECK (length(secret_sha256) = 32),
            created_at INTEGER NOT NULL,
            last_used_at INTEGER);
        CREATE TABLE pairing_codes (
            id TEXT PRIMARY KEY,
            name TEXT COLLATE NOCASE,
            scopes TEXT NOT NULL,
            code_sha256 BLOB NOT NULL UNIQUE CHECK (length(code_sha256) = 32),
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at INTEGER);
        """,
    ]

    public init(path: String) throws(AccessError) {
        self.path = path
        let folder = FileSystem.directoryName(path)
        do { try FileSystem.createDirectory(folder) } catch {
            throw AccessError(.io, "\(path): cannot create the folder for the access database (\(error.reason)); set --data-dir or CLUBHOUSE_DATA_DIR to a writable place")
        }
        var handle: OpaquePointer?
        // SQLite opens its files close-on-exec; NOFOLLOW refuses a link planted in place of the file.
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw AccessError(.io, "\(path): cannot open the access database (\(message)); check the data directory's permissions")
        }
        db = handle
        sqlite3_busy_timeout(db, 5000)
        chmod(path, 0o600)
        do throws(AccessError) {
            // Switching a new file to WAL takes an exclusive lock for which SQLite does not always
            // call the busy handler (several processes opening a fresh site's database at once got
            // "database is locked" at once): retried here for up to the busy timeout.
            var waited = 0
            while true {
                do throws(AccessError) {
                    try exec("PRAGMA journal_mode=WAL")
                    break
                } catch where error.status == .busy && waited < 5000 {
                    usleep(10_000)
                    waited += 10
                }
            }
            try exec("PRAGMA synchronous=NORMAL")
            let version = try userVersion()
            guard version <= AccessStore.schema.count else {
                throw AccessError(.error, "\(path) was written by a newer clubhouse (schema \(version), this one knows \(AccessStore.schema.count)); use that version")
            }
            for (index, step) in AccessStore.schema.enumerated() where index >= version {
                try transaction { () throws(AccessError) in
                    // Another process may have applied it while this one waited for the write lock.
                    guard try userVersion() <= index else { return }
                    try exec(step)
                    try exec("PRAGMA user_version = \(index + 1)")
                }
            }
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    // MARK: tokens and pairing codes

    /// Stores a new device token; returns it with its secret (shown once, never stored).
    public func createToken(name: String, scopes: [Scope], now: Int) throws(AccessError) -> (record: CredentialRecord, secret: String) {
        try locked { () throws(AccessError) -> (CredentialRecord, String) in
            try AccessNames.validate(name)
            return try transaction { () throws(AccessError) -> (CredentialRecord, String) in
                try refuseTaken(name, now: now)
                return try insertCredential(kind: .token, name: name, scopes: scopes.map(\.description), now: now)
            }
        }
    }

    /// Stores a new pairing code valid for `minutes`; returns it with the code (shown once).
    public func createPairing(name: String?, scopes: [Scope], now: Int, minutes: Int) throws(AccessError) -> (record: PairingRecord, code: String) {
        try locked { () throws(AccessError) -> (PairingRecord, String) in
            if let name { try AccessNames.validate(name) }
            return try transaction { () throws(AccessError) -> (PairingRecord, String) in
                // Codes used or expired a day ago are of no more use, even as a message.
                try run("DELETE FROM pairing_codes WHERE expires_at < ?", [.int(now - 86_400)])
                if let name { try refuseTaken(name, now: now) }
                let pending = try rows("SELECT count(*) FROM pairing_codes WHERE used_at IS NULL AND expires_at > ?", [.int(now)])
                if let count = pending.first?.first?.int, count >= AccessStore.pendingLimit {
                    throw AccessError(.busy, "\(count) pairing codes are waiting to be used at this site (at most \(AccessStore.pendingLimit)); let them expire or revoke some (clubhouse token list)")
                }
                for _ in 0..<8 {
                    let id = try Credentials.newID()
                    let code = try Credentials.newPairingCode()
                    let record = PairingRecord(id: id, name: name, scopes: scopes.map(\.description), created: now, expires: now + minutes * 60)
                    let rc = try run("INSERT OR IGNORE INTO pairing_codes (id, name, scopes, code_sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                                     [.text(id), name.map { .text($0) } ?? .null, .text(record.scopes.joined(separator: ",")),
                                      .blob(Credentials.digest(code)), .int(now), .int(record.expires)])
                    if rc == 1 { return (record, code) }
                }
                throw AccessError(.error, "\(path): cannot store a new pairing code (eight random codes collided); try again")
            }
        }
    }

    /// Every token and browser session, oldest first.
    public func credentials() throws(AccessError) -> [CredentialRecord] {
        try locked { () throws(AccessError) -> [CredentialRecord] in
            try rows("SELECT id, kind, name, scopes, created_at, last_used_at FROM credentials ORDER BY created_at, name", [])
                .compactMap(AccessStore.credential)
        }
    }

    /// Pairing codes neither used nor expired at `now`, oldest first.
    public func pendingPairings(now: Int) throws(AccessError) -> [PairingRecord] {
        try locked { () throws(AccessError) -> [PairingRecord] in
            try rows("SELECT id, name, scopes, created_at, expires_at FROM pairing_codes WHERE used_at IS NULL AND expires_at > ? ORDER BY created_at, id",
                     [.int(now)]).compactMap(AccessStore.pairing)
        }
    }

    /// Removes the token, browser session or pending pairing code with this name (first) or id.
    public func revoke(_ nameOrID: String, site: String, now: Int) throws(AccessError) -> RevokedCredential {
        try locked { () throws(AccessError) -> RevokedCredential in
            try transaction { () throws(AccessError) -> RevokedCredential in
                let columns = "SELECT id, kind, name, scopes, created_at, last_used_at FROM credentials"
                let byName = try rows("\(columns) WHERE name = ?", [.text(nameOrID)]).first
                let byID = try rows("\(columns) WHERE id = ?", [.text(nameOrID)]).first
                if let found = (byName ?? byID).flatMap(AccessStore.credential) {
                    try run("DELETE FROM credentials WHERE id = ?", [.text(found.id)])
                    cache[found.id] = nil
                    return .credential(found)
                }
                let pending = "SELECT id, name, scopes, created_at, expires_at FROM pairing_codes WHERE used_at IS NULL AND expires_at > ?"
                let pendingByName = try rows("\(pending) AND name = ?", [.int(now), .text(nameOrID)]).first
                let pendingByID = try rows("\(pending) AND id = ?", [.int(now), .text(nameOrID)]).first
                if let found = (pendingByName ?? pendingByID).flatMap(AccessStore.pairing) {
                    try run("DELETE FROM pairing_codes WHERE id = ?", [.text(found.id)])
                    return .pairing(found)
                }
                throw AccessError(.notFound, "site '\(site)' has no token, browser session or pairing code named '\(nameOrID)' (nor with that id); clubhouse token list --site \(site) shows them")
            }
        }
    }

    // MARK: what the server asks

    /// A credential as the server checks it: its row, the SHA-256 of its secret, its scopes parsed.
    struct Stored {
        var record: CredentialRecord
        var digest: [UInt8]
        var scopes: [Scope]
    }

    /// Rows already read, by id; emptied whenever the file changed (`PRAGMA data_version` moves
    /// when another connection commits, eg `clubhouse token revoke`) and on this connection's own
    /// changes to who may call. Only under `lock`.
    private var cache: [String: Stored] = [:]
    private var dataVersion = -1

    /// The credential of `kind` with `id`, or nil when there is none; throws when the database
    /// cannot be read.
    func lookup(id: String, kind: CredentialKind) throws(AccessError) -> Stored? {
        try locked { () throws(AccessError) -> Stored? in
            let version = try rows("PRAGMA data_version", []).first?.first?.int ?? -1
            if version != dataVersion {
                cache.removeAll(keepingCapacity: true)
                dataVersion = version
            }
            if let hit = cache[id] { return hit.record.kind == kind ? hit : nil }
            guard let row = try rows("SELECT id, kind, name, scopes, created_at, last_used_at, secret_sha256 FROM credentials WHERE id = ?",
                                     [.text(id)]).first,
                  let record = AccessStore.credential(row), row.count > 6, case .blob(let digest) = row[6] else { return nil }
            let stored = Stored(record: record, digest: digest, scopes: record.scopes.compactMap(Scope.init))
            if cache.count >= 10_000 { cache.removeAll(keepingCapacity: true) }
            cache[id] = stored
            return stored.record.kind == kind ? stored : nil
        }
    }

    /// Records a use of the credential (the caller limits how often).
    func touch(id: String, at time: Int) {
        lock.withLock { _ = try? run("UPDATE credentials SET last_used_at = ? WHERE id = ?", [.int(time), .text(id)]) }
    }

    /// Exchanges a pairing code (its SHA-256) for a new browser session, once.
    func redeem(codeDigest: [UInt8], now: Int) throws(AccessError) -> Redemption {
        try locked { () throws(AccessError) -> Redemption in
            try transaction { () throws(AccessError) -> Redemption in
                // Every code of the last day is compared, in constant time each: no lookup by the secret.
                let candidates = try rows("SELECT id, name, scopes, code_sha256, created_at, expires_at, used_at FROM pairing_codes WHERE expires_at >= ?",
                                          [.int(now - 86_400)])
                var match: [AccessStore.Value]?
                for row in candidates {
                    if case .blob(let digest) = row[3], Credentials.constantTimeEqual(digest, codeDigest) { match = row }
                }
                guard let row = match, let id = row[0].text, let expires = row[5].int else { return .unknown }
                if row[6].int != nil { return .used }
                if expires <= now { return .expired }
                guard try run("UPDATE pairing_codes SET used_at = ? WHERE id = ? AND used_at IS NULL", [.int(now), .text(id)]) == 1 else { return .used }
                let scopes = (row[2].text ?? "").split(separator: ",").map(String.init)
                var name = row[1].text ?? "browser-\(id)"
                if try !rows("SELECT 1 FROM credentials WHERE name = ?", [.text(name)]).isEmpty { name += " (\(id))" }
                let (record, secret) = try insertCredential(kind: .browser, name: name, scopes: scopes, now: now)
                return .paired(record, secret: secret)
            }
        }
    }

    // MARK: inside the lock

    private func refuseTaken(_ name: String, now: Int) throws(AccessError) {
        if let row = try rows("SELECT kind, created_at FROM credentials WHERE name = ?", [.text(name)]).first {
            let kind = row[0].text == CredentialKind.browser.rawValue ? "browser session" : "token"
            throw AccessError(.invalidArgument, "a \(kind) named '\(name)' already exists at this site (created \(AccessTime.iso(row[1].int ?? 0))); choose another --name, or revoke it first (clubhouse token revoke '\(name)')")
        }
        if try !rows("SELECT 1 FROM pairing_codes WHERE name = ? AND used_at IS NULL AND expires_at > ?", [.text(name), .int(now)]).isEmpty {
            throw AccessError(.invalidArgument, "a pairing code waiting to be used will name its browser '\(name)'; choose another --name, or revoke the code first (clubhouse token revoke '\(name)')")
        }
    }

    private func insertCredential(kind: CredentialKind, name: String, scopes: [String], now: Int) throws(AccessError) -> (CredentialRecord, String) {
        for _ in 0..<8 {
            let id = try Credentials.newID()
            let secret = try Credentials.newSecret(kind: kind, id: id)
            let inserted = try run("INSERT OR IGNORE INTO credentials (id, kind, name, scopes, secret_sha256, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                                   [.text(id), .text(kind.rawValue), .text(name), .text(scopes.joined(separator: ",")),
                                    .blob(Credentials.digest(secret)), .int(now)])
            if inserted == 1 { return (CredentialRecord(id: id, kind: kind, name: name, scopes: scopes, created: now, lastUsed: nil), secret) }
        }
        throw AccessError(.error, "\(path): cannot store the new \(kind.rawValue) (eight random ids collided); try again")
    }

    private static func credential(_ row: [Value]) -> CredentialRecord? {
        guard row.count >= 6, let id = row[0].text, let kind = row[1].text.flatMap(CredentialKind.init(rawValue:)), let name = row[2].text,
              let scopes = row[3].text, let created = row[4].int else { return nil }
        return CredentialRecord(id: id, kind: kind, name: name, scopes: scopes.split(separator: ",").map(String.init), created: created,
                                lastUsed: row[5].int)
    }

    private static func pairing(_ row: [Value]) -> PairingRecord? {
        guard row.count >= 5, let id = row[0].text, let scopes = row[2].text, let created = row[3].int, let expires = row[4].int else { return nil }
        return PairingRecord(id: id, name: row[1].text, scopes: scopes.split(separator: ",").map(String.init), created: created, expires: expires)
    }

    // MARK: SQLite

    enum Value: Equatable {
        case int(Int)
        case text(String)
        case blob([UInt8])
        case null

        var int: Int? { if case .int(let i) = self { return i }; return nil }
        var text: String? { if case .text(let t) = self { return t }; return nil }
    }

    private func failure(_ what: String) -> AccessError {
        let code = sqlite3_errcode(db)
        let status: Status = code == SQLITE_BUSY || code == SQLITE_LOCKED ? .busy : (code == SQLITE_READONLY || code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN) ? .io : .error
        return AccessError(status, "\(path): \(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    private func exec(_ sql: String) throws(AccessError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure("cannot update the access database") }
    }

    private func userVersion() throws(AccessError) -> Int {
        try rows("PRAGMA user_version", []).first?.first?.int ?? 0
    }

    private func locked<T>(_ body: () throws(AccessError) -> T) throws(AccessError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// One write transaction (PluginDatabase.writeTransaction): a failed BEGIN or COMMIT says it could not update the file.
    private func transaction<T>(_ body: () throws(AccessError) -> T) throws(AccessError) -> T {
        try PluginDatabase.writeTransaction(on: db, failure: { _, _ in failure("cannot update the access database") }, body)
    }

    private func prepared(_ sql: String, _ values: [Value]) throws(AccessError) -> OpaquePointer {
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var s: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK, let s else { throw failure("cannot read the access database") }
            statements[sql] = s
            statement = s
        }
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .int(let n): sqlite3_bind_int64(statement, index, sqlite3_int64(n))
            case .text(let t): sqlite3_bind_text(statement, index, t, -1, clubhouse_sqlite_transient())
            case .blob(let b): b.withUnsafeBytes { _ = sqlite3_bind_blob(statement, index, $0.baseAddress, Int32(b.count), clubhouse_sqlite_transient()) }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        return statement
    }

    /// Runs a statement that returns no rows; the number of rows it changed.
    @discardableResult
    private func run(_ sql: String, _ values: [Value]) throws(AccessError) -> Int {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure("cannot update the access database") }
        return Int(sqlite3_changes(db))
    }

    private func rows(_ sql: String, _ values: [Value]) throws(AccessError) -> [[Value]] {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        var out: [[Value]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return out }
            guard rc == SQLITE_ROW else { throw failure("cannot read the access database") }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.int(Int(sqlite3_column_int64(statement, column))))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let bytes = sqlite3_column_blob(statement, column) {
                        row.append(.blob(Array(UnsafeRawBufferPointer(start: bytes, count: count))))
                    } else {
                        row.append(.blob([]))
                    }
                default: row.append(.null)
                }
            }
            out.append(row)
        }
    }
}
