// Whose data a plugin database is. A plugin's database is found by its site and the id its library
// declares, and any library may declare any id; so the host records, in the database, the origin of
// the library that created it, and opens it for a library of another origin only after the
// administrator says so (`clubhouse plugin adopt`). Origins (SiteRuntime.dataOrigin(of:)):
//   bundled               the host's bundled plugins (beside the executable, PREFIX/lib/clubhouse/plugins):
//                         a new host version's build keeps the data
//   publisher:<key>       an installed package signed by a publisher the site lists (the key's
//                         fingerprint, not its name, which the administrator may reuse): every version
//                         that publisher signs keeps the data
//   unsigned:<folder>     any other installed package: its folder in the install tree, <root>/<id>
//                         (what `plugin install` of any version of that id writes to)
//   unsigned:<path>       a library loaded from a path: its canonical path, so a library rebuilt in
//                         place keeps the data and a file elsewhere declaring the same id does not
// A database made by a host without the record adopts the origin of the first library that opens it.

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

    public init(origin: DataOrigin, site: String, pluginID: String, adoptCommand: String) {
        self.origin = origin
        self.site = site
        self.pluginID = pluginID
        self.adoptCommand = adoptCommand
    }
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
        if recordedOrigin() == nil && !readOnly {
            // INSERT OR IGNORE: of two hosts creating the database side by side, the first one's row stands.
            try writeOrigin(claim.origin, replacing: false)
        }
        guard let recorded = recordedOrigin(), recorded.key != claim.origin.key else { return }
        throw StorageError(status: Int32(CLUBHOUSE_DENIED), message: PluginDatabase.originRefusal(recorded: recorded, claim: claim, path: path))
    }

    /// The one-line refusal: what, where, and what to do.
    static func originRefusal(recorded: DataOrigin, claim: OriginClaim, path: String) -> String {
        "the data of \(claim.pluginID) at site '\(claim.site)' (\(path)) belongs to the library that created it, "
            + "\(recorded.described) (\(recorded.library)); this library, \(claim.origin.library), is \(claim.origin.described), "
            + "so it may not open that data; if it should take the data over, run: \(claim.adoptCommand)"
    }

    /// Binds the database to `origin` (the host's own write: `plugin adopt`, or the first open).
    func writeOrigin(_ origin: DataOrigin, replacing: Bool) throws(StorageError) {
        hostWriting = true
        defer { hostWriting = false }
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

    /// `plugin adopt`: binds the data to `origin`, whatever it was bound to.
    public func adopt(_ origin: DataOrigin) throws(StorageError) {
        try writeOrigin(origin, replacing: true)
    }
}
