// The host's own write transactions, one copy for every connection the host writes its own tables
// through: a plugin database's version record (the upgrade path) and origin (`plugin adopt`), an
// outbox's shipped mark (OutboxFile), the site's access database (AccessStore).

import CClubhouse
import CSQLite

extension PluginDatabase {
    /// Runs `body` inside one write transaction on `db` and returns what it returns. `BEGIN IMMEDIATE`
    /// takes the write lock before `body` reads anything, so what it reads is what it replaces; a
    /// connection held by another writer is waited for through the connection's busy timeout (5 s on
    /// every connection the host opens), and a lock still held after it fails the BEGIN (SQLITE_BUSY,
    /// which each caller's `failure` reports as busy). `COMMIT` when `body` returns; when it throws, or
    /// the commit fails (a deferred constraint, a full disk, I/O), the transaction is rolled back, so
    /// the connection is never left inside it. `failure` makes the error of a BEGIN or COMMIT that
    /// failed from SQLite's code and message, read before the ROLLBACK replaces them.
    static func writeTransaction<T, E: Error>(on db: OpaquePointer, failure: (_ rc: Int32, _ message: String) -> E,
                                              _ body: () throws(E) -> T) throws(E) -> T {
        let begun = sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil)
        guard begun == SQLITE_OK else { throw failure(begun, String(cString: sqlite3_errmsg(db))) }
        let result: T
        do throws(E) {
            result = try body()
        } catch {
            rollBack(db)
            throw error
        }
        let committed = sqlite3_exec(db, "COMMIT", nil, nil, nil)
        guard committed == SQLITE_OK else {
            // A failed COMMIT leaves the transaction open (SQLite keeps it, for the caller to retry or roll back).
            let error = failure(committed, String(cString: sqlite3_errmsg(db)))
            rollBack(db)
            throw error
        }
        return result
    }

    /// Ends the open transaction, if SQLite has not ended it already (some I/O and full-disk errors do).
    private static func rollBack(_ db: OpaquePointer) {
        if sqlite3_get_autocommit(db) == 0 { _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
    }

    /// The host's own write transaction on this connection (`writeTransaction`), with its statements
    /// let through the authorizer as the host's and its commit not counted as a call's (`hostWriting`).
    /// A failed BEGIN or COMMIT is thrown with SQLite's message naming the file.
    func hostWriteTransaction<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try hostWriteTransaction(failure: { rc, message in
            let (status, described) = describe(rc, message)
            return StorageError(status: status, message: described.hasPrefix(path) ? described : "\(path): \(described)")
        }, body)
    }

    /// The same, a failed BEGIN or COMMIT thrown as `failure` makes it.
    func hostWriteTransaction<T>(failure: (_ rc: Int32, _ message: String) -> StorageError,
                                 _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        hostWriting = true
        defer { hostWriting = false }
        return try PluginDatabase.writeTransaction(on: db, failure: failure, body)
    }
}
