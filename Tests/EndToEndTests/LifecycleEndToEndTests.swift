// Lifecycle commands that never lose data (issue 32): rollback and roll forward keep every row a
// version wrote, backups are kept per version and time (never overwritten), `lock` keeps a
// rollback pin until it is released and `lock --check` tells it from a stale lock, and
// `plugin remove` asks every lock written for the data directory. Each sequence ends with
// `PRAGMA integrity_check` and a count of rows in every file. Fixture: upgrade_plugin.c (1.0.0 with
// one migration, 2.0.0 with two; `add` writes a note, `count` counts them).

import ClubhouseJSON
import Foundation
import XCTest

final class LifecycleEndToEndTests: XCTestCase {
    static let id = "org.tests.upgrade"

    func install(_ c: Clubhouse, _ variant: String, version: String) throws {
        let library = try FixturePlugins.build(variant, id: Self.id, version: version, file: "upgrade_plugin.c")
        let package = c.path("\(variant)-\(version).chpkg")
        try c.succeed(["plugin", "pack", library, "--out", package])
        try c.succeed(["plugin", "install", package])
    }

    func site(_ c: Clubhouse, _ config: String, _ words: [String]) throws -> ClubhouseResult {
        try c.succeed(["--config", config, "--site", "s"] + words)
    }

    /// (version, notes) the site runs now.
    func count(_ c: Clubhouse, _ config: String) throws -> (String, Int) {
        let v = try site(c, config, ["fx", "count", "--json"]).json()
        return (v["version"]?.stringValue ?? "", v["notes"]?.intValue ?? -1)
    }

    /// "VERSION NOTES" the site runs now.
    func running(_ c: Clubhouse, _ config: String) throws -> String {
        let (version, notes) = try count(c, config)
        return "\(version) \(notes)"
    }

    func database(_ c: Clubhouse) -> String { c.dataDirectory.appendingPathComponent("s/\(Self.id).sqlite").path }
    func backups(_ c: Clubhouse) -> String { c.dataDirectory.appendingPathComponent("s/\(Self.id).backups").path }

    /// Every file sound; the live database and each backup's notes, by label.
    func checkEveryFile(_ c: Clubhouse, file: StaticString = #filePath, line: UInt = #line) -> (live: Int, kept: [(String, Int)]) {
        XCTAssertEqual(KeptDatabases.integrity(database(c)), "ok", file: file, line: line)
        var kept: [(String, Int)] = []
        for copy in KeptDatabases.list(backups(c)) {
            XCTAssertEqual(KeptDatabases.integrity(copy.file), "ok", copy.file, file: file, line: line)
            kept.append((copy.label, KeptDatabases.count(copy.file, "notes")))
        }
        return (KeptDatabases.count(database(c), "notes"), kept)
    }

    func config(_ c: Clubhouse, version: String? = nil) throws -> String {
        try c.write("plugins.json", """
            {"sites": {"s": {"plugins": {"fx": {"id": "\(Self.id)", \(version.map { "\"version\": \"\($0)\", " } ?? "")"grants": ["storage"]}}}}}
            """)
    }

    /// The cycle that lost a row for good before: lock to 2.0.0, add a row, roll back, lock to
    /// 2.0.0 again, add another, roll back again. Now the first roll forward brings the row back,
    /// the second rollback keeps a second copy beside the first, and nothing is ever deleted.
    func testTheRollbackCycleLosesNoRow() throws {
        let c = try Clubhouse()
        let config = try config(c)
        try install(c, "V1", version: "1.0.0")
        try c.succeed(["--config", config, "lock"])
        try site(c, config, ["fx", "add"])
        try site(c, config, ["fx", "add"])
        XCTAssertTrue(try site(c, config, ["plugin", "backups", "fx"]).stdout.contains("No backups in \(backups(c)) (one is made when a newer version first opens the database)"))
        try install(c, "V2", version: "2.0.0")
        try c.succeed(["--config", config, "lock"])                      // lock to 2.0.0
        XCTAssertEqual(try count(c, config).0, "2.0.0")
        try site(c, config, ["fx", "add"])                               // the row that was lost
        XCTAssertEqual(try count(c, config).1, 3)

        let rolled = try site(c, config, ["plugin", "rollback", "fx"]).stdout
        XCTAssertTrue(rolled.contains("Rolled \(Self.id) at site 's' back from 2.0.0 to 1.0.0"), rolled)
        XCTAssertTrue(rolled.contains("The pin stays until clubhouse --config \(config) lock --site s --release-pin fx"), rolled)
        XCTAssertEqual(try count(c, config).1, 2)

        // A deliberate pin, not a stale lock: lock --check says so and succeeds; lock keeps it.
        let checked = try c.succeed(["--config", config, "lock", "--check"]).stdout
        XCTAssertTrue(checked.contains("is up to date"), checked)
        XCTAssertTrue(checked.contains("s/fx is held at 1.0.0 by the rollback from 2.0.0"), checked)
        XCTAssertTrue(checked.contains("not stale; clubhouse --config \(config) lock --site s --release-pin fx moves it to 2.0.0"), checked)
        XCTAssertFalse(checked.contains("loads \(Self.id) 2.0.0"), checked)
        let relocked = try c.succeed(["--config", config, "lock", "--json"]).json()
        XCTAssertEqual(relocked["held"]?.arrayValue?.first?["version"]?.stringValue, "1.0.0")
        XCTAssertEqual(relocked["held"]?.arrayValue?.first?["would_load"]?.stringValue, "2.0.0")
        XCTAssertEqual(try count(c, config).0, "1.0.0", "lock does not move a site off its rollback pin")

        // Rolling forward brings back the 2.0.0 data (and says so).
        let forward = try c.succeed(["--config", config, "lock", "--release-pin", "fx"]).stdout
        XCTAssertTrue(forward.contains("Rolled \(Self.id) at site 's' forward from 1.0.0 to 2.0.0 (--release-pin released the rollback pin): restored the 2.0.0 data kept at the rollback"), forward)
        XCTAssertTrue(forward.contains("(nothing was written since the rollback)"), forward)
        XCTAssertEqual(try count(c, config).0, "2.0.0")
        XCTAssertEqual(try count(c, config).1, 3, "the row added under 2.0.0 before the rollback is back")
        try site(c, config, ["fx", "add"])                               // another
        try site(c, config, ["plugin", "rollback", "fx"])
        XCTAssertEqual(try count(c, config).1, 2)
        try c.succeed(["--config", config, "lock", "--release-pin", Self.id])   // by id too
        XCTAssertEqual(try count(c, config).1, 4, "both rows written under 2.0.0 survive two rollbacks")

        let files = checkEveryFile(c)
        XCTAssertEqual(files.live, 4)
        XCTAssertEqual(files.kept.map(\.0), ["1.0.0 upgrade-2.0.0", "2.0.0 rollback-1.0.0", "1.0.0 forward-2.0.0",
                                            "2.0.0 rollback-1.0.0", "1.0.0 forward-2.0.0"])
        XCTAssertEqual(files.kept.map(\.1), [2, 3, 2, 4, 2], "each copy holds what its version had; none was overwritten")

        // plugin backups lists them: version, time, size, why; newest first within a version.
        let listed = try site(c, config, ["plugin", "backups", "fx", "--json"]).json()
        XCTAssertEqual(listed["live_version"]?.stringValue, "2.0.0")
        let rows = listed["backups"]?.arrayValue ?? []
        XCTAssertEqual(rows.compactMap { $0["version"]?.stringValue }, ["2.0.0", "2.0.0", "1.0.0", "1.0.0", "1.0.0"])
        XCTAssertEqual(rows.first?["why"]?.stringValue, "kept at the rollback to 1.0.0")
        XCTAssertEqual(rows.last?["why"]?.stringValue, "before the upgrade to 2.0.0")
        XCTAssertTrue(rows.allSatisfy { ($0["size"]?.intValue ?? 0) > 0 && ($0["made_at"]?.stringValue?.hasSuffix("Z") ?? false) })
        let text = try site(c, config, ["plugin", "backups", Self.id]).stdout
        XCTAssertTrue(text.hasPrefix("\(Self.id) at site 's': live database \(database(c)) (written by 2.0.0, "), text)
        XCTAssertTrue(text.contains("VERSION  MADE (UTC)"), text)
        XCTAssertTrue(text.contains("kept at the roll-forward to 2.0.0"), text)
        try c.fail(["--config", config, "--site", "s", "plugin", "backups", "nope"], exitCode: 2, contains: ["site 's' has no plugin 'nope'"])
    }

    /// Rows the older version wrote after the rollback are never dropped: rolling forward keeps
    /// them in a copy and says so (`--data newer`, the default), or keeps them live (`--data current`),
    /// and a later rollback can restore exactly that copy (`--backup`).
    func testRowsWrittenAfterTheRollbackAreKeptAndTheAdministratorChooses() throws {
        let c = try Clubhouse()
        let config = try config(c)
        try install(c, "V1", version: "1.0.0")
        try site(c, config, ["fx", "add"])
        try install(c, "V2", version: "2.0.0")
        try site(c, config, ["fx", "add"])                               // 2.0.0: 2 notes
        try site(c, config, ["plugin", "rollback", "fx"])                // 1.0.0: 1 note
        try site(c, config, ["fx", "add"])
        try site(c, config, ["fx", "add"])                               // 1.0.0: 3 notes, 2 since the rollback
        XCTAssertEqual(try count(c, config).1, 3)

        let forward = try c.succeed(["--config", config, "lock", "--release-pin", "fx", "--json"]).json()
        let moved = forward["forwarded"]?.arrayValue?.first
        XCTAssertEqual(moved?["written_since_rollback"]?.boolValue, true)
        XCTAssertEqual(moved?["data"]?.stringValue, "newer")
        let aside = moved?["kept_data"]?.stringValue ?? ""
        XCTAssertTrue(aside.contains("/1.0.0@") && aside.hasSuffix(".forward-2.0.0.sqlite"), aside)
        XCTAssertEqual(try running(c, config), "2.0.0 2")
        XCTAssertEqual(KeptDatabases.count(aside, "notes"), 3, "the 1.0.0 rows are kept beside the live database")

        // The administrator prefers the 1.0.0 rows: back to exactly that copy, then forward keeping it.
        let back = try site(c, config, ["plugin", "rollback", "fx", "--backup", aside, "--json"]).json()
        XCTAssertEqual(back["restored"]?.stringValue, aside)
        XCTAssertEqual(try running(c, config), "1.0.0 3")
        let text = try c.succeed(["--config", config, "lock", "--release-pin", "fx", "--data", "current"])
        XCTAssertTrue(text.stdout.contains("the live database (1.0.0) stays; 2.0.0 migrates it at its next use, after backing it up; the 2.0.0 data kept at the rollback stays in \(backups(c))/2.0.0@"), text.stdout)
        let migrated = try c.succeed(["--config", config, "--site", "s", "fx", "count", "--json"])
        XCTAssertEqual(try migrated.json()["notes"]?.intValue, 3)
        XCTAssertEqual(try migrated.json()["version"]?.stringValue, "2.0.0")
        XCTAssertTrue(migrated.stderr.contains("the 2.0.0 data this site had when it rolled back to 1.0.0"), migrated.stderr)
        XCTAssertTrue(migrated.stderr.contains("is not what is upgraded now: 2.0.0 migrates the 1.0.0 database"), migrated.stderr)

        let files = checkEveryFile(c)
        XCTAssertEqual(files.live, 3)
        // The upgrade reused the forward copy (the same data): no second copy of identical data.
        XCTAssertEqual(files.kept.map(\.0), ["1.0.0 upgrade-2.0.0", "2.0.0 rollback-1.0.0", "1.0.0 forward-2.0.0", "2.0.0 rollback-1.0.0"])
        XCTAssertEqual(files.kept.map(\.1), [1, 2, 3, 2], "every state the site went through is still on disk")

        // The --backup choice is checked.
        try c.fail(["--config", config, "--site", "s", "plugin", "rollback", "fx", "--backup", "nope.sqlite"], exitCode: 2,
                   contains: ["--backup \(c.path("nope.sqlite")) is not a backup of \(Self.id) at site 's'", "plugin backups \(Self.id) lists them"])
        let newer = KeptDatabases.list(backups(c)).first { $0.version == "2.0.0" }?.file ?? ""
        try c.fail(["--config", config, "--site", "s", "plugin", "rollback", "fx", "--backup", newer], exitCode: 2,
                   contains: ["holds 2.0.0's data, not older than 2.0.0"])
    }

    /// A rollback refused by the site's range says what to write; changing the range back releases
    /// the pin on the next lock; the lock's own refusals are one line each.
    func testARangeRefusalNamesTheRangeAndARangeChangeReleasesThePin() throws {
        let c = try Clubhouse()
        try install(c, "V1", version: "1.0.0")
        var config = try self.config(c, version: "^1.0")
        try site(c, config, ["fx", "add"])
        try install(c, "V2", version: "2.0.0")
        config = try self.config(c, version: "^2.0")
        try site(c, config, ["fx", "add"])
        try c.fail(["--config", config, "--site", "s", "plugin", "rollback", "fx"],
                   contains: ["site 's' asks for \(Self.id) '^2.0' (\(config):1:", "which 1.0.0 does not satisfy",
                              "to roll back, change that plugin's \"version\" to \">=1.0.0 <3.0.0\" (it admits 1.0.0 and 2.0.0), then run the rollback again"])
        config = try self.config(c, version: ">=1.0.0 <3.0.0")        // as the message says
        try site(c, config, ["plugin", "rollback", "fx"])
        XCTAssertEqual(try running(c, config), "1.0.0 1")
        try c.fail(["--config", config, "lock", "--check", "--release-pin", "fx"], exitCode: 2,
                   contains: ["--check writes nothing, so it cannot release a pin"])
        try c.fail(["--config", config, "lock", "--release-pin", "nope"], exitCode: 2,
                   contains: ["no rollback pin of 'nope' in \(c.path("plugins.lock"))", "pins held by a rollback: s/fx"])
        // The site asks for ^2.0 again: the pin cannot stand, so lock releases it and says why.
        config = try self.config(c, version: "^2.0")
        let relocked = try c.succeed(["--config", config, "lock"]).stdout
        XCTAssertTrue(relocked.contains("forward from 1.0.0 to 2.0.0 (the site's \"version\" no longer admits 1.0.0, which released the rollback pin)"), relocked)
        XCTAssertEqual(try running(c, config), "2.0.0 2")
        let files = checkEveryFile(c)
        XCTAssertEqual(files.live, 2)
        XCTAssertEqual(files.kept.map(\.1), [1, 2, 1])
        try c.fail(["--config", config, "lock", "--release-pin", "fx"], exitCode: 2, contains: ["it holds none"])

        // A rollback pin whose version was removed with --force: lock says so and writes nothing;
        // releasing the pin moves on.
        let wide = try self.config(c, version: ">=1.0.0 <3.0.0")
        try site(c, wide, ["plugin", "rollback", "fx"])
        let forced = try c.succeed(["--config", wide, "plugin", "remove", "\(Self.id)@1.0.0", "--force"])
        XCTAssertTrue(forced.stderr.contains("pins \(Self.id) 1.0.0 for site 's'"), forced.stderr)
        try c.fail(["--config", wide, "lock"], contains: ["site 's': plugin 'fx' is held at \(Self.id) 1.0.0 by a rollback, but that version is no longer installed",
                                                        "release the pin (clubhouse --config \(wide) lock --site s --release-pin fx)", "was not written"])
        try c.succeed(["--config", wide, "lock", "--release-pin", "fx"])
        XCTAssertEqual(try running(c, wide), "2.0.0 2")
    }

    /// `plugin remove` without the configuration that pins a version used to remove it; the site
    /// then failed to load. The data directory now records every lock written for it.
    func testRemoveAsksEveryLockWrittenForTheDataDirectory() throws {
        let c = try Clubhouse()
        let id = "org.tests.lock"
        for version in ["1.0.0", "2.0.0"] {
            let library = try FixturePlugins.build("OK", id: id, version: version)
            try c.succeed(["plugin", "pack", library, "--out", c.path("\(version).chpkg")])
            try c.succeed(["plugin", "install", c.path("\(version).chpkg")])
        }
        let a = try c.write("a/club.json", #"{"sites": {"a": {"plugins": {"fx": {"id": "\#(id)", "version": "^1.0", "grants": ["storage"]}}}}}"#)
        let b = try c.write("b/club.json", #"{"sites": {"b": {"plugins": {"fx": {"id": "\#(id)", "version": "^2.0", "grants": ["storage"]}}}}}"#)
        try c.succeed(["--config", a, "lock"])
        try c.succeed(["--config", b, "lock"])
        let bLock = c.path("b/club.lock")
        let recorded = try JSONParser.parse(String(contentsOfFile: c.dataDirectory.appendingPathComponent("plugin-locks.json").path, encoding: .utf8))
        XCTAssertEqual(recorded["locks"]?.arrayValue?.compactMap(\.stringValue), [c.path("a/club.lock"), bLock])

        // Neither the embedded configuration nor a's knows b's lock; the data directory does.
        try c.fail(["plugin", "remove", "\(id)@2.0.0"],
                   contains: ["cannot remove \(id)@2.0.0: \(bLock) pins \(id) 2.0.0 for site 'b' (plugin 'fx')", "or pass --force"])
        try c.fail(["--config", a, "plugin", "remove", id], contains: ["cannot remove \(id): \(c.path("a/club.lock")) pins \(id) 1.0.0"])
        XCTAssertEqual(try c.succeed(["--config", b, "--site", "b", "fx", "hello"]).stdout, "hello from \(id)\n")

        // A damaged lock cannot be asked: refused, naming it.
        let saved = try String(contentsOfFile: bLock, encoding: .utf8)
        try c.write("b/club.lock", "{")
        try c.fail(["plugin", "remove", "\(id)@2.0.0"], contains: ["cannot tell whether \(bLock) pins \(id)@2.0.0", "fix or delete that lock, or pass --force"])
        try c.write("b/club.lock", saved)

        // --force removes it and says which site it breaks.
        let forced = try c.succeed(["plugin", "remove", "\(id)@2.0.0", "--force"])
        XCTAssertTrue(forced.stderr.contains("warning: removed with --force: \(bLock) pins \(id) 2.0.0 for site 'b'"), forced.stderr)
        try c.fail(["--config", b, "--site", "b", "fx", "hello"], contains: ["no installed version of \(id)"])
        XCTAssertEqual(try c.succeed(["--config", a, "--site", "a", "fx", "hello"]).stdout, "hello from \(id)\n")
    }
}
