// Whose data a plugin database is. A plugin's database is found by its site and the id its library
// declares, and any library may declare any id; so the host records, in the database, the origin of
// the library that created it, and opens it for a library of another origin only after the
// administrator says so (`clubhouse plugin adopt`). Origins (SiteRuntime.dataOrigin(of:)):
//   bundled               the host's bundled plugins (beside the executable, PREFIX/lib/clubhouse/plugins):
//                         a new host version's build keeps the data
//   publisher:<key>       an installed package signed by a publisher the site lists (the key's
//                         fingerprint, not its name, which the administrator may reuse): every version
//                         that publisher signs keeps the data
//   unsigned:plugins/<id> any other package installed in the site's install tree: its folder there,
//                         relative to the data directory that holds the tree (what `plugin install` of
//                         any version of that id writes to), so moving or restoring the data directory
//                         elsewhere keeps the binding; a record made when this was the folder's absolute
//                         path (`unsigned:/…/plugins/<id>`) is the same folder, and is rewritten so
//   unsigned:<path>       a library loaded from a path: its canonical path, so a library rebuilt in
//                         place keeps the data and a file elsewhere declaring the same id does not
// A database made by a host without the record adopts the origin of the first library that opens it,
// except that the ids of the plugins bundled with the host are theirs: a library of another origin that
// declares one is refused its data even when none exists yet (and none is created).
// The binding is checked again under a running host when the file changes (`plugin adopt` in another
// process): at each call's first use of storage, when `PRAGMA data_version` moved (ownershipRefusal(call:)).

import ClubhousePlatform
import CClubhouse
import CSQLite

/// Where a plugin's library comes from, as the host binds data to it.
public struct DataOrigin: Sendable, Equatable {
    /// What the database records and opens compare: "bundled", "publisher:<fingerprint>", "unsigned:<path>".
    public var key: String
    /// The same for a person: "bundled with the host", "signed by publisher 'acme' (key 3f2a…)".
    public var described: String
    /// The library loaded now (canonical path).
    public var library: String

    public init(key: String, described: String, library: String) {
        self.key = key
        self.described = described
        self.library = library
    }
}

/// What an open checks the database's recorded origin against, with what its refusal names.
public struct OriginClaim: Sendable {
    public var origin: DataOrigin
    public var site: String
    public var pluginID: String
    /// The command that re-binds the data, as the person would type it ("clubhouse --config c.json plugin adopt …").
    public var adoptCommand: String

    /// The library bundled with the host that declares `pluginID`, or nil (asked only when the data has no
    /// owner yet and this origin is not bundled: it may probe the bundled plugins).
    public var bundledOwner: @Sendable () -> String?

    public init(origin: DataOrigin, site: String, pluginID: String, adoptCommand: String, bundledOwner: @escaping @Sendable () -> String? = { nil }) {
        self.origin = origin
        self.site = site
        self.pluginID = pluginID
        self.adoptCommand = adoptCommand
        self.bundledOwner = bundledOwner
    }

    /// The refusal when no data exists yet (or none is bound) and `pluginID` is a bundled plugin's id
    /// that this library, of another origin, declares; nil otherwise.
    func bundledIDRefusal(path: String) -> String? {
        guard origin.key != DataOrigin.bundledKey, let library = bundledOwner() else { return nil }
        return "\(pluginID) is the id of a plugin bundled with the host (\(library)), so its data at site '\(site)' (\(path)) is that plugin's; "
            + "this library, \(origin.library), is \(origin.described), so it may not create or open it: give this library an id of its own, "
            + "or, to hand the bundled plugin's data to it, run: \(adoptCommand)"
    }
}

extension DataOrigin {
    static let bundledKey = "bundled"
    /// The key of a package in the site's install tree: its folder relative to the data directory.
    static func installedKey(id: String) -> String { "unsigned:plugins/\(id)" }

    /// Whether `recorded` is this installed package's folder as recorded before package origins were
    /// relative: `unsigned:<absolute install tree>/<id>`, wherever the data directory was then. A package's
    /// record names a library inside that folder; a path library's names the library itself, so it never matches.
    func isFormerRecord(_ recorded: DataOrigin) -> Bool {
        let prefix = "unsigned:"
        guard key.hasPrefix(prefix + "plugins/"), recorded.key.hasPrefix(prefix + "/") else { return false }
        let folder = String(recorded.key.dropFirst(prefix.count))
        return recorded.library.hasPrefix(folder + "/") && "plugins/" + FileSystem.baseName(folder) == key.dropFirst(prefix.count)
    }
}

/// What a connection opened for an origin checks again while it lives (PluginDatabase.ownershipRefusal).
struct Ownership {
    var claim: OriginClaim
    /// `PRAGMA data_version` when the record was last read (nil: could not be read).
    var version: Int64?
    /// Set when the record read last names another origin.
    var refusal: String?
}

/// The host's record of the origin that owns a database (one row; plugins may read it, never write it).
let originTable = "_clubhouse_origin"

extension PluginDatabase {
    /// The origin recorded in the database, or nil (a database no host has bound yet).
    public func recordedOrigin() -> DataOrigin? {
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, "SELECT origin, described, library FROM main.\(originTable) WHERE id = 1", -1, &stmt, nil) == SQLITE_OK,
              sqlite3_step(stmt) == SQLITE_ROW else { return nil }
        func text(_ column: Int32) -> String { sqlite3_column_text(stmt, column).map { String(cString: $0) } ?? "" }
        return DataOrigin(key: text(0), described: text(1), library: text(2))
    }

    /// Refuses the open when the database belongs to another origin; records `claim`'s origin in a
    /// database that has none yet (the first open, or the first after a host without the record).
    /// Runs before the plugin's version is checked or recorded, so a refused library changes nothing.
    func checkOrigin(_ claim: OriginClaim) throws(StorageError) {
        // What the connection keeps for its re-checks never asks the bundled plugins again (only an open
        // does), so it does not keep what `bundledOwner` captured (the site's runtime: PluginInstance).
        var kept = claim
        kept.bundledOwner = { nil }
        if recordedOrigin() == nil {
            if let refusal = claim.bundledIDRefusal(path: path) { throw StorageError(status: Int32(CLUBHOUSE_DENIED), message: refusal) }
            // INSERT OR IGNORE: of two hosts creating the database side by side, the first one's row stands.
            if !readOnly { try writeOrigin(claim.origin, replacing: false) }
        }
        guard let recorded = recordedOrigin(), recorded.key != claim.origin.key else {
            ownership = Ownership(claim: kept, version: dataVersion())
            return
        }
        if claim.origin.isFormerRecord(recorded) {
            // The same package folder, recorded by its absolute path before: rewritten relative, so a later move keeps it.
            if !readOnly { try writeOrigin(claim.origin, replacing: true) }
            ownership = Ownership(claim: kept, version: dataVersion())
            return
        }
        throw StorageError(status: Int32(CLUBHOUSE_DENIED), message: PluginDatabase.originRefusal(recorded: recorded, claim: claim, path: path))
    }

    /// `PRAGMA data_version` of this connection: moves when another connection commits to the file.
    /// Compiled once per connection and kept (`dataVersionStatement`, finalized at close): each call's first
    /// storage use asks it, and compiling it every time was a third of the question's cost (issue 27, perf
    /// record of an isolated `notes list`). Asked under the connection's mutex, or at open.
    func dataVersion() -> Int64? {
        if dataVersionStatement == nil {
            var stmt: OpaquePointer?
            guard sqlite3_prepare_v3(db, "PRAGMA data_version", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil) == SQLITE_OK,
                  let stmt else { return nil }
            dataVersionStatement = stmt
        }
        guard let stmt = dataVersionStatement else { return nil }
        // Reset at once: a kept statement must not hold the read transaction its step began.
        defer { sqlite3_reset(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(stmt, 0)
    }

    /// CLUBHOUSE_DENIED, with the refusal recorded, when the data was handed to another origin since this
    /// connection checked (`plugin adopt` under a running host). Checked at each call's first storage use
    /// (and outside a call at most every 100 ms): the call's id compared first, then `PRAGMA data_version`, and the
    /// record read again only when the file changed (that slow path under the connection's mutex).
    func ownershipRefusal(call: UInt64) -> Int32? {
        // The quick answer, without the mutex: this call already found the binding good; or, outside any call
        // (an in-process plugin's own thread), a use did less than 100 ms ago by the coarse clock (a tick of
        // 1–4 ms). Checked at every statement outside a call, each one was 28 times dearer
        // (`clubhouse-bench services`, 3.3 µs against 116 ns a step); so an adopt reaches such a thread within
        // about 100 ms. Both are 0 while refused, so a refused connection always takes the slow path.
        if call != 0 {
            if ownershipVerifiedCall.load(ordering: .relaxed) == call { return nil }
        } else {
            let at = ownershipVerifiedOutsideAt.load(ordering: .relaxed)
            if at != 0, CallContext.coarseMonotonicNanoseconds() &- at < 100_000_000 { return nil }
        }
        return serialized { recheckOwnership(call: call) }
    }

    /// The slow half of `ownershipRefusal`, under the connection's mutex: the data version read, the record
    /// only when it moved.
    private func recheckOwnership(call: UInt64) -> Int32? {
        guard var owned = ownership else {
            verified(call)
            return nil
        }
        if let version = dataVersion(), version != owned.version {
            owned.version = version
            if let recorded = recordedOrigin(), recorded.key != owned.claim.origin.key, !owned.claim.origin.isFormerRecord(recorded) {
                owned.refusal = PluginDatabase.originRefusal(recorded: recorded, claim: owned.claim, path: path)
            } else {
                owned.refusal = nil
            }
        }
        ownership = owned
        guard let refusal = owned.refusal else {
            verified(call)
            return nil
        }
        ownershipVerifiedCall.store(0, ordering: .relaxed)
        ownershipVerifiedOutsideAt.store(0, ordering: .relaxed)
        setError(refusal)
        return Int32(CLUBHOUSE_DENIED)
    }

    /// Records that `call` (0: a use outside any call, now) found the binding good.
    private func verified(_ call: UInt64) {
        if call != 0 {
            ownershipVerifiedCall.store(call, ordering: .relaxed)
        } else {
            ownershipVerifiedOutsideAt.store(max(1, CallContext.coarseMonotonicNanoseconds()), ordering: .relaxed)
        }
    }

    /// The one-line refusal: what, where, and what to do.
    static func originRefusal(recorded: DataOrigin, claim: OriginClaim, path: String) -> String {
        "the data of \(claim.pluginID) at site '\(claim.site)' (\(path)) belongs to the library that created it, "
            + "\(recorded.described) (\(recorded.library)); this library, \(claim.origin.library), is \(claim.origin.described), "
            + "so it may not open that data; if it should take the data over, run: \(claim.adoptCommand)"
    }

    /// Binds the database to `origin` (the host's own write: `plugin adopt`, or the first open).
    func writeOrigin(_ origin: DataOrigin, replacing: Bool) throws(StorageError) {
        // Inside `hostWriteTransaction` the flag is already up and stays up until its COMMIT.
        let wasHostWriting = hostWriting
        hostWriting = true
        defer { hostWriting = wasHostWriting }
        var insert: OpaquePointer?
        let verb = replacing ? "INSERT OR REPLACE" : "INSERT OR IGNORE"
        var rc = sqlite3_prepare_v2(db, "\(verb) INTO main.\(originTable)(id, origin, described, library) VALUES (1, ?, ?, ?)", -1, &insert, nil)
        if rc == SQLITE_OK {
            sqlite3_bind_text(insert, 1, origin.key, -1, clubhouse_sqlite_transient())
            sqlite3_bind_text(insert, 2, origin.described, -1, clubhouse_sqlite_transient())
            sqlite3_bind_text(insert, 3, origin.library, -1, clubhouse_sqlite_transient())
            rc = sqlite3_step(insert)
        }
        let sqliteMessage = String(cString: sqlite3_errmsg(db))
        sqlite3_finalize(insert)
        guard rc == SQLITE_DONE else {
            let (_, message) = describe(rc, sqliteMessage)
            throw StorageError(status: PluginDatabase.status(for: rc),
                               message: "\(path): cannot record whose data it is: \(message); if the file is damaged, plugin backups lists its kept copies")
        }
    }

    /// `plugin adopt`: binds the data to `origin`, whatever it was bound to, and returns what that was —
    /// read and replaced in one write transaction (`BEGIN IMMEDIATE`), so of two adopts side by side the
    /// second sees the first's record and says so (the thirteenth outside round, n25: both read "bundled",
    /// both said they had taken the data from it, and one of them was wrong).
    @discardableResult
    public func adopt(_ origin: DataOrigin) throws(StorageError) -> DataOrigin? {
        // Already this origin's: nothing to write (nor a write lock to take, on a file that may be read-only).
        if let current = recordedOrigin(), current.key == origin.key { return current }
        return try hostWriteTransaction(failure: { rc, message in
            StorageError(status: PluginDatabase.status(for: rc), message: "\(path): cannot record whose data it is: \(message); nothing was adopted")
        }) { () throws(StorageError) -> DataOrigin? in
            let previous = recordedOrigin()
            // Bound to it by another adopt since the read above: nothing is written.
            if previous?.key == origin.key { return previous }
            try writeOrigin(origin, replacing: true)
            return previous
        }
    }
}
