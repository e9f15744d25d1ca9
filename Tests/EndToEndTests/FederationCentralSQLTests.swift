// A plugin's central SQL as an attacker writes it (the seventh outside attack round): psql meta-commands
// (`\!` ran a shell command as whoever migrated, `\o` wrote a file, `\set ON_ERROR_STOP 0` hid a failure),
// transaction control that ended the host's transaction early, and files added or changed in an installed
// package before they were applied. Refused with file:line at pack, install and migrate; and run so that
// psql never reads a file's text, whatever gets past the check. Uses FederationEndToEndTests' cluster.

import ClubhouseHost
import ClubhouseJSON
import Foundation
import XCTest

extension FederationEndToEndTests {
    /// A file's SHA-256 (sha256sum's), in hex.
    func sha256(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.split(separator: " ").first ?? "")
    }

    /// A folder of central SQL files in the test's folder.
    private func sqlFolder(_ c: Clubhouse, _ name: String, _ files: [String: String]) throws -> String {
        let folder = c.path(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (file, text) in files { _ = try c.write("\(name)/\(file)", text) }
        return folder
    }

    /// The host's way of running a file, given files that get past no check (the migration as the server
    /// gets it): a meta-command is a syntax error that runs nothing on this machine, transaction control
    /// fails, and a failed file is reported failed with nothing of it kept — not its first statements, not its
    /// record, not the plugin's partition.
    func testCentralSQLIsRunByTheServerNeverByPsql() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let migrations = FederationMigrations(shell: PostgresShell(target: PostgresTarget(url: cluster.adminURL(db))))
        let ran = c.path("meta-ran"), written = c.path("meta-written")
        let hostile: [(plugin: String, sql: String, says: [String])] = [
            ("org.tests.shell", "CREATE TABLE hostile_shell (x int);\n\\! touch \(ran)\n\\o \(written)\nSELECT 1;\n",
             ["syntax error at or near \"\\\"", "at line 2 of the file"]),
            ("org.tests.nostop", "CREATE TABLE hostile_nostop (x int);\n\\set ON_ERROR_STOP 0\nSELECT * FROM nowhere;\n",
             ["syntax error at or near \"\\\""]),
            ("org.tests.fails", "CREATE TABLE hostile_fails (x int);\nINSERT INTO hostile_fails VALUES (1);\n\nSELECT * FROM nowhere;\n",
             ["relation \"nowhere\" does not exist", "at line 4 of the file"]),
            ("org.tests.commit", "CREATE TABLE hostile_commit (x int);\nCOMMIT;\nCREATE TABLE hostile_after (x int);\n",
             ["EXECUTE of transaction commands is not implemented"]),
            ("org.tests.rollback", "CREATE TABLE hostile_rollback (x int);\nROLLBACK;\nSTART TRANSACTION;\nCREATE TABLE hostile_after2 (x int);\n",
             ["EXECUTE of transaction commands is not implemented"]),
            ("org.tests.savepoint", "CREATE TABLE hostile_savepoint (x int);\nSAVEPOINT s;\nRELEASE s;\n",
             ["EXECUTE of transaction commands is not implemented"]),
            ("org.tests.concurrent", "CREATE TABLE hostile_concurrent (x int);\nCREATE INDEX CONCURRENTLY ON hostile_concurrent (x);\n",
             ["CREATE INDEX CONCURRENTLY cannot run inside a transaction block"]),
        ]
        for (plugin, sql, says) in hostile {
            let file = c.path("\(plugin)/001_hostile.sql")
            let m = FederationMigrations.Migration(version: 1, name: "hostile", sql: sql, sha256: String(repeating: "a", count: 64), path: file)
            do {
                _ = try migrations.apply(plugin: plugin, pending: [m])
                XCTFail("\(plugin): applied")
            } catch {
                XCTAssertTrue(error.message.hasPrefix("\(file): migration 1 ('hostile') of plugin \(plugin) failed and changed nothing"), error.message)
                for said in says { XCTAssertTrue(error.message.contains(said), "\(said) in: \(error.message)") }
                XCTAssertFalse(error.message.contains("\n"), error.message)
            }
            XCTAssertEqual(try cluster.sql("SELECT count(*) FROM clubhouse.migrations WHERE plugin = '\(plugin)'", database: db), "0", plugin)
            XCTAssertEqual(try cluster.sql("SELECT count(*) FROM clubhouse.partitions WHERE plugin = '\(plugin)'", database: db), "0", plugin)
        }
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'hostile%'", database: db), "0", "every first statement rolled back")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ran), "\\! ran on this machine")
        XCTAssertFalse(FileManager.default.fileExists(atPath: written), "\\o wrote a file")
        // Backslashes inside quoted text, a function body with BEGIN … END and semicolons, a DO block: SQL, applied.
        let fine = FederationMigrations.Migration(version: 1, name: "fine", sql: """
            CREATE TABLE fine (t text);
            INSERT INTO fine VALUES (E'a\\\\b'), ('c\\d'), ($q$\\! not a command$q$);
            CREATE FUNCTION fine_count() RETURNS bigint LANGUAGE plpgsql AS $$
            BEGIN
              RETURN (SELECT count(*) FROM fine);
            END $$;
            DO $$ BEGIN PERFORM fine_count(); END $$
            """, sha256: String(repeating: "b", count: 64), path: c.path("fine/001_fine.sql"))
        XCTAssertEqual(try migrations.apply(plugin: "org.tests.fine", pending: [fine]), [1])
        XCTAssertEqual(try cluster.sql("SELECT string_agg(t, ' ' ORDER BY t) || ' ' || fine_count() FROM fine", database: db), "\\! not a command a\\b c\\d 3")
    }

    /// The same files refused before anything runs, each naming file:line:column and what to do: by
    /// `plugin pack --federation`, by `plugin install` (a package crafted past pack) and by `federation migrate`.
    func testPsqlMetaCommandsAndTransactionControlAreRefusedAtPackInstallAndMigrate() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let id = "org.tests.fedhostile"
        let library = try FixturePlugins.build("OK", id: id, version: "1.0.0")
        let sql = try sqlFolder(c, "hostile-sql", ["001_base.sql": "CREATE SCHEMA fedhostile;\nCREATE TABLE fedhostile.t (s text);\nINSERT INTO fedhostile.t VALUES (E'x\\\\y');\n",
                                                   "002_more.sql": "INSERT INTO fedhostile.t VALUES ('more');\n"])
        let ran = c.path("meta-ran")
        let cases: [(text: String, says: String)] = [
            ("INSERT INTO fedhostile.t VALUES ('a');\n  \\! id > \(ran)\n", "003_meta.sql:2:3: '\\!' is a psql meta-command; central SQL is run by the PostgreSQL server as SQL"),
            ("\\o \(ran)\nSELECT 1;\n", "003_meta.sql:1:1: '\\o' is a psql meta-command"),
            ("SELECT 1; \\set ON_ERROR_STOP 0\n", "003_meta.sql:1:11: '\\set' is a psql meta-command"),
            ("INSERT INTO fedhostile.t VALUES ('a');\nCOMMIT;\n", "003_meta.sql:2:1: COMMIT is transaction control, but each migration runs inside the host's own transaction"),
            ("/* x */ begin;\nSELECT 1;\n", "003_meta.sql:1:9: BEGIN is transaction control"),
            ("SELECT 1;\n  start transaction;\n", "003_meta.sql:2:3: START TRANSACTION is transaction control"),
            ("SAVEPOINT a;\n", "003_meta.sql:1:1: SAVEPOINT is transaction control"),
            ("CREATE UNIQUE INDEX CONCURRENTLY t_s ON fedhostile.t (s);\n",
             "003_meta.sql:1:1: CREATE UNIQUE INDEX CONCURRENTLY cannot run inside a transaction, and each migration runs inside the host's own: leave out CONCURRENTLY"),
        ]
        // Not UTF-8 (Latin-1 'café'): refused, never sent with U+FFFD in its place (b13).
        let latin1 = Array("SELECT 1;\nSELECT 'caf".utf8) + [0xE9] + Array("';\n".utf8)
        let all = cases.map { (bytes: Array($0.text.utf8), says: $0.says) }
            + [(bytes: latin1, says: "003_meta.sql:2:12: not valid UTF-8 (byte 0xe9): central SQL is UTF-8 text; save the file as UTF-8")]
        let folder = c.dataDirectory.appendingPathComponent("plugins/\(id)/1.0.0/federation/postgresql").path
        var first = true
        for (bytes, says) in all {
            try Data(bytes).write(to: URL(fileURLWithPath: sql + "/003_meta.sql"))
            // pack
            try c.fail(["plugin", "pack", library, "--out", c.path("hostile.chpkg"), "--federation", sql], exitCode: 2,
                       contains: ["\(sql)/\(says)", "; nothing was packed"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: c.path("hostile.chpkg")))
            // install: the package as pack would have made it from a clean file, the file then swapped (manifest digest too).
            try FileManager.default.removeItem(atPath: sql + "/003_meta.sql")
            _ = try c.write("hostile-sql/003_meta.sql", "SELECT 1;\n")
            let clean = c.path("clean.chpkg")
            try? FileManager.default.removeItem(atPath: clean)
            try c.succeed(["plugin", "pack", library, "--out", clean, "--federation", sql])
            var entries = try PackagingEndToEndTests.untar(Array(try Data(contentsOf: URL(fileURLWithPath: clean))))
            let cleanDigest = try sha256(sql + "/003_meta.sql")
            try Data(bytes).write(to: URL(fileURLWithPath: sql + "/003_meta.sql"))
            let hostileDigest = try sha256(sql + "/003_meta.sql")
            for i in entries.indices {
                if entries[i].0 == "federation/postgresql/003_meta.sql" { entries[i].1 = bytes }
                if entries[i].0 == "manifest.json" {
                    entries[i].1 = Array(String(decoding: entries[i].1, as: UTF8.self).replacingOccurrences(of: cleanDigest, with: hostileDigest).utf8)
                }
            }
            let crafted = c.path("crafted.chpkg")
            try Data(PackagingEndToEndTests.tar(entries)).write(to: URL(fileURLWithPath: crafted))
            try c.fail(["plugin", "install", crafted], contains: ["crafted.chpkg: federation/postgresql/\(says)", "nothing was installed"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder), "nothing installed")
            // migrate --dir (001 and 002 applied the first time round; 003 refused each time, nothing of it run)
            let said = try c.fail(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", sql], exitCode: 2,
                                  contains: ["\(sql)/\(says)", "; nothing was applied"])
            XCTAssertEqual(said.stderr.split(separator: "\n").count, 1, said.stderr)
            if first {
                // Nothing applied, not even 001 before the refused 003.
                XCTAssertEqual(try cluster.sql("SELECT count(*) FROM clubhouse.migrations WHERE plugin = '\(id)'", database: db), "0")
                try FileManager.default.removeItem(atPath: sql + "/003_meta.sql")
                XCTAssertEqual(JSONWriter.compact(try c.succeed(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", sql, "--json"])
                    .json()["applied"] ?? .null), "[1,2]")
                first = false
            }
            try? FileManager.default.removeItem(atPath: sql + "/003_meta.sql")
        }
        XCTAssertEqual(try cluster.sql("SELECT string_agg(s, ' ' ORDER BY s) FROM fedhostile.t", database: db), "more x\\y")
        XCTAssertEqual(try cluster.sql("SELECT string_agg(version::text, ',' ORDER BY version) FROM clubhouse.migrations WHERE plugin = '\(id)'", database: db), "1,2")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ran), "a meta-command ran")
    }

    /// Central SQL added to or changed in an installed package before it is applied: migrate checks every file
    /// it would apply against the package's manifest and refuses, naming the file, before applying any.
    func testCentralSQLChangedOrAddedAfterInstallIsRefusedBeforeAnythingIsApplied() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let id = "org.tests.fedmanifest"
        let library = try FixturePlugins.build("OK", id: id, version: "2.0.0")
        let sql = try sqlFolder(c, "manifest-sql", ["001_one.sql": "CREATE SCHEMA fedmanifest;\n",
                                                    "002_two.sql": "CREATE VIEW fedmanifest.two AS SELECT 2 AS n;\n"])
        let package = c.path("fedmanifest.chpkg")
        try c.succeed(["plugin", "pack", library, "--out", package, "--federation", sql])
        try c.succeed(["plugin", "install", package])
        let installed = c.dataDirectory.appendingPathComponent("plugins/\(id)/2.0.0").path
        let folder = installed + "/federation/postgresql"
        let config = try c.write("fedmanifest.json", #"{"sites": {"club-a": {"plugins": {"fm": {"id": "\#(id)", "grants": ["storage"]}}}}}"#)
        let site = ["--config", config, "--site", "club-a"]
        let migrate = site + ["federation", "migrate", "--url", cluster.adminURL(db)]
        let applied = { () throws -> String in
            try cluster.sql("SELECT count(*) FROM clubhouse.migrations WHERE plugin = '\(id)'", database: db)
        }
        // Changed before it was applied.
        let original = try String(contentsOfFile: folder + "/002_two.sql", encoding: .utf8)
        try Data("CREATE VIEW fedmanifest.two AS SELECT 2 AS n; CREATE ROLE intruder SUPERUSER;\n".utf8).write(to: URL(fileURLWithPath: folder + "/002_two.sql"))
        try c.fail(migrate, exitCode: 2, contains: ["\(folder)/002_two.sql: its SHA-256", "is not the one the installed package's manifest (\(installed)/manifest.json) lists",
                                                    "it changed after install; nothing was applied"])
        XCTAssertEqual(try applied(), "0", "not even 001")
        // The same folder named with --dir is held to the same manifest.
        try c.fail(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", folder], exitCode: 2,
                   contains: ["\(folder)/002_two.sql: its SHA-256"])
        try Data(original.utf8).write(to: URL(fileURLWithPath: folder + "/002_two.sql"))
        // Added after install.
        _ = try c.write("added.sql", "CREATE ROLE intruder SUPERUSER;\n")
        try FileManager.default.copyItem(atPath: c.path("added.sql"), toPath: folder + "/003_added.sql")
        try c.fail(migrate, exitCode: 2, contains: ["\(folder)/003_added.sql: not a file of the installed package (its manifest, \(installed)/manifest.json, lists 001_one.sql, 002_two.sql)",
                                                    "nothing was applied"])
        XCTAssertEqual(try applied(), "0")
        // A symbolic link to the folder (the last component, with or without a trailing slash; or a linked
        // parent) is held to the same manifest: --dir is resolved to its real path first (b09).
        try FileManager.default.createSymbolicLink(atPath: c.path("sql-link"), withDestinationPath: folder)
        try FileManager.default.createSymbolicLink(atPath: c.path("package-link"), withDestinationPath: installed)
        for dir in [c.path("sql-link"), c.path("sql-link") + "/", c.path("package-link") + "/federation/postgresql"] {
            try c.fail(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", dir], exitCode: 2,
                       contains: ["\(folder)/003_added.sql: not a file of the installed package (its manifest, \(installed)/manifest.json"])
        }
        // A bind mount of the folder (or of the package above it) is the same folder by device and inode,
        // which resolving links cannot see (c05): held to the same manifest. Mounting needs root.
        for (source, mountPoint, dir) in [(folder, c.path("sql-bind"), c.path("sql-bind")),
                                          (installed, c.path("package-bind"), c.path("package-bind") + "/federation/postgresql")] {
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
            guard try run("/bin/mount", ["--bind", source, mountPoint]) == 0 else {
                print("FederationCentralSQLTests: bind mounts not checked: mount --bind needs root (or CAP_SYS_ADMIN) here")
                break
            }
            defer { _ = try? run("/bin/umount", [mountPoint]) }
            try c.fail(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", dir], exitCode: 2,
                       contains: ["\(folder)/003_added.sql: not a file of the installed package (its manifest, \(installed)/manifest.json"])
        }
        XCTAssertEqual(try applied(), "0")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_roles WHERE rolname = 'intruder'", database: db), "0")
        try FileManager.default.removeItem(atPath: folder + "/003_added.sql")
        // A file the manifest lists, removed.
        try FileManager.default.moveItem(atPath: folder + "/002_two.sql", toPath: c.path("two.sql"))
        try c.fail(migrate, exitCode: 2, contains: ["\(installed)/manifest.json: the installed package lists 002_two.sql but its postgresql/ folder lacks it"])
        try FileManager.default.moveItem(atPath: c.path("two.sql"), toPath: folder + "/002_two.sql")
        XCTAssertEqual(JSONWriter.compact(try c.succeed(migrate + ["--json"]).json()["plugins"]?.arrayValue?.first?["applied"] ?? .null), "[1,2]")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_roles WHERE rolname = 'intruder'", database: db), "0")
        // A signed package whose manifest is rewritten to cover an added file: its signature no longer verifies.
        try c.succeed(["plugin", "keygen", "--out", c.path("publisher.key")])
        let signedLibrary = try FixturePlugins.build("OK", id: id, version: "2.1.0")
        let signed = c.path("fedmanifest-signed.chpkg")
        try c.succeed(["plugin", "pack", signedLibrary, "--out", signed, "--federation", sql, "--sign", c.path("publisher.key")])
        try c.succeed(["plugin", "install", signed])
        let signedFolder = c.dataDirectory.appendingPathComponent("plugins/\(id)/2.1.0").path
        _ = try c.write("third.sql", "CREATE ROLE intruder SUPERUSER;\n")
        try FileManager.default.copyItem(atPath: c.path("third.sql"), toPath: signedFolder + "/federation/postgresql/003_third.sql")
        try forgeManifest(of: signedFolder, listing: "003_third.sql", as: c.path("third.sql"), before: "002_two.sql")
        try c.fail(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", signedFolder + "/federation/postgresql"], exitCode: 2,
                   contains: ["\(signedFolder)/manifest.json: the package's signature (signature.json) does not verify over its manifest"])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_roles WHERE rolname = 'intruder'", database: db), "0")
    }

    /// A signed package's central SQL named with --dir at a site that requires signatures, after its signature
    /// was deleted and its manifest rewritten to cover an added file (c04): the site would not load the package,
    /// so its SQL is refused with the site's reason, and nothing of it runs.
    func testInstalledSQLOfAPackageTheSiteRefusesToLoadIsNotApplied() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let id = "org.tests.fedsigned"
        let key = try c.succeed(["plugin", "keygen", "--out", c.path("publisher.key"), "--json"]).json()["public_key"]?.stringValue ?? ""
        let sql = try sqlFolder(c, "signed-sql", ["001_one.sql": "CREATE SCHEMA fedsigned;\n"])
        let package = c.path("fedsigned.chpkg")
        try c.succeed(["plugin", "pack", try FixturePlugins.build("OK", id: id, version: "1.0.0"), "--out", package, "--federation", sql,
                       "--sign", c.path("publisher.key")])
        try c.succeed(["plugin", "install", package])
        let installed = c.dataDirectory.appendingPathComponent("plugins/\(id)/1.0.0").path
        let folder = installed + "/federation/postgresql"
        let config = try c.write("fedsigned.json", #"{"publishers": {"me": "\#(key)"}, "sites": {"club-a": {"require_signatures": true, "plugins": {"fs": {"id": "\#(id)"}}}}}"#)
        let migrate = ["--config", config, "--site", "club-a", "federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", folder]
        _ = try c.write("evil.sql", "CREATE ROLE intruder SUPERUSER;\n")
        try FileManager.default.copyItem(atPath: c.path("evil.sql"), toPath: folder + "/002_evil.sql")
        try forgeManifest(of: installed, listing: "002_evil.sql", as: c.path("evil.sql"), before: "001_one.sql")
        try FileManager.default.removeItem(atPath: installed + "/signature.json")
        try c.fail(migrate, exitCode: 2, contains: ["federation migrate: \(folder) is the central SQL of \(id), which site 'club-a' does not load (",
                                                     "is not signed, but site 'club-a' requires signatures", "nothing was applied"])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM clubhouse.migrations WHERE plugin = '\(id)'", database: db), "0")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_roles WHERE rolname = 'intruder'", database: db), "0")
    }

    /// Rewrites an installed package's manifest as an attacker would, to list `file` with the SHA-256 of `source`
    /// (put in front of the entry for `before`).
    private func forgeManifest(of package: String, listing file: String, as source: String, before: String) throws {
        let text = try String(contentsOfFile: package + "/manifest.json", encoding: .utf8)
            .replacingOccurrences(of: "\"\(before)\"", with: "\"\(file)\": \"\(try sha256(source))\", \"\(before)\"")
        try Data(text.utf8).write(to: URL(fileURLWithPath: package + "/manifest.json"))
    }

    /// Runs a program quietly; its exit status.
    private func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
