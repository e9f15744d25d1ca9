// Upgrades that can go back: the first use of a newer version backs the database up before its
// new migrations, a failed migration restores the backup (so the older version opens the database
// again), and `plugin rollback` returns a site to the previous version and its data. The fixture
// (Tests/Fixtures/plugins/upgrade_plugin.c) is built at 1.0.0 (one migration), 2.0.0 (two) and a
// 2.0.0 whose third migration fails after the second succeeded.

import ClubhouseJSON
import Foundation
import XCTest

final class UpgradePackageEndToEndTests: XCTestCase {
    static let id = "org.tests.upgrade"

    func install(_ c: Clubhouse, _ variant: String, version: String) throws {
        let library = try FixturePlugins.build(variant, id: Self.id, version: version, file: "upgrade_plugin.c")
        let package = c.path("\(variant)-\(version).chpkg")
        try c.succeed(["plugin", "pack", library, "--out", package])
        try c.succeed(["plugin", "install", package])
    }

    func count(_ c: Clubhouse, _ config: String) throws -> JSONValue {
        try c.succeed(["--config", config, "--site", "s", "fx", "count", "--json"]).json()
    }

    var backups: (Clubhouse) -> String { { $0.dataDirectory.appendingPathComponent("s/\(Self.id).backups").path } }

    /// The kept copies as "VERSION WHY", oldest first.
    func kept(_ c: Clubhouse) -> [String] { KeptDatabases.list(backups(c)).map(\.label) }

    func testAnUpgradeIsBackedUpAndRollbackReturnsTheSiteToThePreviousVersionAndItsData() throws {
        let c = try Clubhouse()
        let config = try c.write("plugins.json", """
            {"sites": {"s": {"plugins": {"fx": {"id": "\(Self.id)", "grants": ["storage"]}}}}}
            """)
        try install(c, "V1", version: "1.0.0")
        try c.succeed(["--config", config, "--site", "s", "fx", "add"])
        try c.succeed(["--config", config, "--site", "s", "fx", "add"])
        var counted = try count(c, config)
        XCTAssertEqual(counted["version"]?.stringValue, "1.0.0")
        XCTAssertEqual(counted["notes"]?.intValue, 2)
        XCTAssertEqual(counted["migrations"]?.intValue, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: backups(c)), "no upgrade yet, no backup")

        // The newer version: its first use backs 1.0.0's database up, then migrates.
        try install(c, "V2", version: "2.0.0")
        counted = try count(c, config)
        XCTAssertEqual(counted["version"]?.stringValue, "2.0.0")
        XCTAssertEqual(counted["notes"]?.intValue, 2)
        XCTAssertEqual(counted["migrations"]?.intValue, 2)
        XCTAssertEqual(kept(c), ["1.0.0 upgrade-2.0.0"])
        try c.succeed(["--config", config, "--site", "s", "fx", "add"])
        XCTAssertEqual(try count(c, config)["notes"]?.intValue, 3)

        // An older version cannot open what the newer one wrote.
        let pinned = try c.write("pinned.json", """
            {"sites": {"s": {"plugins": {"fx": {"id": "\(Self.id)", "version": "=1.0.0", "grants": ["storage"]}}}}}
            """)
        try c.fail(["--config", pinned, "--site", "s", "fx", "count"], contains: ["was written by version 2.0.0", "newer than this version 1.0.0"])
        // A site that asks for ^2 cannot be rolled back to 1.0.0.
        let strict = try c.write("strict.json", """
            {"sites": {"s": {"plugins": {"fx": {"id": "\(Self.id)", "version": "^2.0", "grants": ["storage"]}}}}}
            """)
        try c.fail(["--config", strict, "--site", "s", "plugin", "rollback", Self.id],
                   contains: ["site 's' asks for \(Self.id) '^2.0' (\(strict):1:", "which 1.0.0 does not satisfy",
                              "change that plugin's \"version\" to \">=1.0.0 <3.0.0\" (it admits 1.0.0 and 2.0.0)"])
        try c.fail(["--config", config, "--site", "s", "plugin", "rollback", "nope"], exitCode: 2,
                   contains: ["site 's' has no plugin 'nope'"])

        // Rollback: 1.0.0's data comes back, the 2.0.0 data is kept, the site is pinned.
        let rolled = try c.succeed(["--config", config, "--site", "s", "plugin", "rollback", Self.id]).stdout
        XCTAssertTrue(rolled.contains("Rolled \(Self.id) at site 's' back from 2.0.0 to 1.0.0"), rolled)
        XCTAssertTrue(rolled.contains("pinned 1.0.0 in \(c.path("plugins.lock"))"), rolled)
        XCTAssertEqual(kept(c), ["1.0.0 upgrade-2.0.0", "2.0.0 rollback-1.0.0"])
        counted = try count(c, config)
        XCTAssertEqual(counted["version"]?.stringValue, "1.0.0", "the lock keeps the site on 1.0.0 though 2.0.0 is installed")
        XCTAssertEqual(counted["notes"]?.intValue, 2, "the database is as 1.0.0 left it")
        XCTAssertEqual(counted["migrations"]?.intValue, 1)
        try c.fail(["--config", config, "--site", "s", "plugin", "rollback", Self.id],
                   contains: ["no backup of \(Self.id) older than 1.0.0 in \(backups(c))"])
        // Locking again keeps the rollback pin; releasing it rolls forward with the 2.0.0 data.
        try c.succeed(["--config", config, "lock"])
        XCTAssertEqual(try count(c, config)["version"]?.stringValue, "1.0.0")
        try c.succeed(["--config", config, "lock", "--release-pin", "fx"])
        counted = try count(c, config)
        XCTAssertEqual(counted["version"]?.stringValue, "2.0.0")
        XCTAssertEqual(counted["notes"]?.intValue, 3, "the row added under 2.0.0 is back")
    }

    func testAFailedMigrationRestoresTheBackupAndSaysSo() throws {
        let c = try Clubhouse()
        let config = try c.write("plugins.json", """
            {"sites": {"s": {"plugins": {"fx": {"id": "\(Self.id)", "grants": ["storage"]}}}}}
            """)
        try install(c, "V1", version: "1.0.0")
        try c.succeed(["--config", config, "--site", "s", "fx", "add"])
        try install(c, "V2_FAILS", version: "2.0.0")
        try c.fail(["--config", config, "--site", "s", "fx", "count"],
                   contains: ["migration 3 ('tags') of plugin 'fx' failed", "no such table: no_such_table",
                              "the database was restored from the backup made before the upgrade from 1.0.0 to 2.0.0 (",
                              ".sqlite), as 1.0.0 left it",
                              "clubhouse --config \(config) plugin rollback \(Self.id) --site s"])
        // Every later use tries again and restores again: the database never stays half-upgraded.
        try c.fail(["--config", config, "--site", "s", "fx", "add"], contains: ["the database was restored from the backup"])

        // Rolling back needs the previous version installed.
        try c.succeed(["--config", config, "plugin", "remove", "\(Self.id)@1.0.0"])
        try c.fail(["--config", config, "--site", "s", "plugin", "rollback", Self.id],
                   contains: ["\(Self.id) 1.0.0 is not installed in", "install its package first"])
        try install(c, "V1", version: "1.0.0")
        let rolled = try c.succeed(["--config", config, "--site", "s", "plugin", "rollback", Self.id, "--json"]).json()
        XCTAssertEqual(rolled["from"]?.stringValue, "2.0.0")
        XCTAssertEqual(rolled["to"]?.stringValue, "1.0.0")
        XCTAssertEqual(rolled["kept"], .null, "the database already held 1.0.0's data")
        // 1.0.0 opens the restored database (the failed upgrade left no 2.0.0 mark and no migration 2).
        let counted = try count(c, config)
        XCTAssertEqual(counted["version"]?.stringValue, "1.0.0")
        XCTAssertEqual(counted["notes"]?.intValue, 1)
        XCTAssertEqual(counted["migrations"]?.intValue, 1)
    }
}
