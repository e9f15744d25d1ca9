// Reads what the lifecycle commands leave on disk, independently of the host's code: the backups
// folder of a plugin database (names `<version>@<stamp>.<why>-<version>.sqlite`), and any SQLite
// file's integrity (`PRAGMA integrity_check`) and row count, through the system SQLite.

import CSQLite
import Foundation
import XCTest

enum KeptDatabases {
    struct Copy: Equatable {
        var version: String
        /// "upgrade-2.0.0", "rollback-1.0.0", "forward-2.0.0".
        var why: String
        var file: String
        /// "VERSION WHY", for comparing lists.
        var label: String { "\(version) \(why)" }
    }

    /// The backups in `folder`, oldest first (their names sort by time within a version; this sorts by time).
    static func list(_ folder: String) -> [Copy] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(".sqlite") }.compactMap { name -> (String, Copy)? in
            guard let at = name.firstIndex(of: "@"), let stampEnd = name.range(of: "Z.") else { return nil }
            let stamp = String(name[name.index(after: at)..<stampEnd.lowerBound])
            let why = String(name[stampEnd.upperBound..<name.index(name.endIndex, offsetBy: -7)])
            return (stamp, Copy(version: String(name[..<at]), why: why, file: folder + "/" + name))
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// `PRAGMA integrity_check`'s rows joined ("ok" for a sound file).
    static func integrity(_ path: String) -> String {
        query(path, "PRAGMA integrity_check").joined(separator: "; ")
    }

    /// SELECT count(*) FROM table.
    static func count(_ path: String, _ table: String) -> Int {
        Int(query(path, "SELECT count(*) FROM \(table)").first ?? "") ?? -1
    }

    static func query(_ path: String, _ sql: String) -> [String] {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            XCTFail("cannot open \(path)")
            return []
        }
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK else {
            XCTFail("\(path): \(String(cString: sqlite3_errmsg(db)))")
            return []
        }
        var rows: [String] = []
        while sqlite3_step(stmt) == SQLITE_ROW { rows.append(sqlite3_column_text(stmt, 0).map { String(cString: $0) } ?? "") }
        return rows
    }
}
