// The cold-start floor: a Swift executable that links Foundation and the system SQLite, touches
// both (so neither is dropped at link time), opens the database named as its argument (read-only,
// as a command that reads a plugin's file would; none: nothing is opened), and exits.

import CSQLite
import Foundation

if sqlite3_libversion_number() < 3_000_000 || Date.distantPast > Date() { print("impossible") }
if CommandLine.arguments.count > 1 {
    var db: OpaquePointer?
    if sqlite3_open_v2(CommandLine.arguments[1], &db, SQLITE_OPEN_READONLY, nil) != SQLITE_OK { print("cannot open") }
    sqlite3_close(db)
}
