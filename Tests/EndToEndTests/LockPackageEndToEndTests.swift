// plugins.lock as an administrator meets it: `clubhouse lock` pins each site's build, a locked site
// stays on its version when a newer one is installed, a swapped library is refused with both
// hashes named, a pinned version cannot be removed, and a damaged or incomplete lock is refused.

import ClubhouseJSON
import Foundation
import XCTest

final class LockPackageEndToEndTests: XCTestCase {
    static let id = "org.tests.lock"

    func pack(_ c: Clubhouse, version: String, variant: String = "OK") throws -> (path: String, sha256: String, library: String) {
        let library = try FixturePlugins.build(variant, id: Self.id, version: version)
        let out = c.path("\(Self.id)-\(version)-\(variant).chpkg")
        let reply = try c.succeed(["plugin", "pack", library, "--out", out, "--json"]).json()
        return (out, reply["manifest"]?["sha256"]?.stringValue ?? "", library)
    }

    func testLockPinsTheBuildAndRefusesASwappedLibraryAndRemovingAPinnedVersion() throws {
        let c = try Clubhouse()
        let one = try pack(c, version: "1.0.0")
        try c.succeed(["plugin", "install", one.path])
        let config = try c.write("sites.json", """
            {"sites": {"a": {"plugins": {"fx": {"id": "\(Self.id)", "grants": ["storage"]}}},
                       "b": {"plugins": {"fy": {"id": "\(Self.id)", "version": "^1.0"}}}}}
            """)
        let lockPath = c.path("sites.lock")
        // Without a lock nothing is checked; --check says so.
        try c.fail(["--config", config, "lock", "--check"], contains: ["\(lockPath) does not exist; run clubhouse lock"])
        let written = try c.succeed(["--config", config, "lock"]).stdout
        XCTAssertTrue(written.hasPrefix("Wrote \(lockPath):\nSITE"), written)
        let lockText = try String(contentsOfFile: lockPath, encoding: .utf8)
        let lock = try JSONParser.parse(lockText)
        XCTAssertEqual(lock["lock_version"]?.intValue, 1)
        for (site, alias) in [("a", "fx"), ("b", "fy")] {
            XCTAssertEqual(lock["sites"]?[site]?[alias]?["id"]?.stringValue, Self.id)
            XCTAssertEqual(lock["sites"]?[site]?[alias]?["version"]?.stringValue, "1.0.0")
            XCTAssertEqual(lock["sites"]?[site]?[alias]?["sha256"]?.stringValue, one.sha256, "the lock pins the packaged library's hash")
        }
        // Deterministic: locking again writes the same bytes; --check agrees.
        try c.succeed(["--config", config, "lock"])
        XCTAssertEqual(try String(contentsOfFile: lockPath, encoding: .utf8), lockText)
        XCTAssertTrue(try c.succeed(["--config", config, "lock", "--check"]).stdout.contains("is up to date"))
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "a", "fx", "hello"]).stdout, "hello from \(Self.id)\n")

        // A newer install does not move a locked site; --check sees the lock is stale.
        let two = try pack(c, version: "1.1.0")
        try c.succeed(["plugin", "install", two.path])
        let info = try c.succeed(["--config", config, "--site", "a", "plugins", "info", "fx", "--json"]).json()
        XCTAssertEqual(info["version"]?.stringValue, "1.0.0")
        try c.fail(["--config", config, "lock", "--check"],
                   contains: ["\(lockPath) is out of date", "a/fx: locked \(Self.id) 1.0.0", "loads \(Self.id) 1.1.0"])

        // A pinned version cannot be removed (alone or with its id); an unpinned one can.
        try c.fail(["--config", config, "plugin", "remove", "\(Self.id)@1.0.0"],
                   contains: ["cannot remove \(Self.id)@1.0.0: \(lockPath) pins \(Self.id) 1.0.0 for site 'a' (plugin 'fx')"])
        try c.fail(["--config", config, "plugin", "remove", Self.id], contains: ["cannot remove \(Self.id): \(lockPath) pins"])
        try c.succeed(["--config", config, "plugin", "remove", "\(Self.id)@1.1.0"])

        // A different build swapped in under the locked version is refused, naming both hashes.
        let other = try FixturePlugins.build("ABI_NEWER_MINOR", id: Self.id, version: "1.0.0")
        let otherBytes = try Data(contentsOf: URL(fileURLWithPath: other))
        let otherSHA = try c.succeed(["plugin", "pack", other, "--out", c.path("other.chpkg"), "--json"]).json()["manifest"]?["sha256"]?.stringValue ?? ""
        XCTAssertNotEqual(otherSHA, one.sha256)
        let installed = c.dataDirectory.appendingPathComponent("plugins/\(Self.id)/1.0.0/" + URL(fileURLWithPath: one.library).lastPathComponent)
        // The digests of loaded libraries are kept beside the lock across runs...
        let digests = URL(fileURLWithPath: lockPath).deletingLastPathComponent()
            .appendingPathComponent("." + URL(fileURLWithPath: lockPath).lastPathComponent + ".digests").path
        XCTAssertTrue((try? String(contentsOfFile: digests, encoding: .utf8))?.contains(one.sha256) ?? false, "digest cache at \(digests)")
        // ...and a library overwritten in place (same inode, new bytes) still misses that cache.
        let handle = try FileHandle(forWritingTo: installed)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: otherBytes)
        try handle.close()
        try c.fail(["--config", config, "--site", "a", "fx", "hello"],
                   contains: ["plugin 'fx': /", "1.0.0.so has SHA-256 \(otherSHA) but \(lockPath) pins \(Self.id) 1.0.0 at SHA-256 \(one.sha256)",
                              "reinstall the locked build, or run clubhouse lock"])
        let listed = try c.run(["--config", config, "--site", "b", "plugins", "list", "--json"])
        XCTAssertTrue(listed.stdout.contains("has SHA-256 \(otherSHA)"), listed.stdout)
        // Locking again accepts the new build (the administrator's decision), and it runs.
        try c.succeed(["--config", config, "lock"])
        XCTAssertEqual(try c.succeed(["--config", config, "--site", "a", "fx", "hello"]).stdout, "hello from \(Self.id)\n")
    }

    /// The lock check and the load read one open descriptor: a library replaced right after its
    /// check (the attacker's moment, simulated by CLUBHOUSE_TEST_SWAP_AFTER_LOCK_CHECK) is not the
    /// one that runs — in process, in a runner and in a sandboxed runner — and is refused next time.
    func testALibrarySwappedBetweenTheLockCheckAndTheLoadIsNotTheOneThatRuns() throws {
        let locked = try FixturePlugins.build("OK", id: Self.id, version: "1.0.0")
        let swapped = try FixturePlugins.build("OK", id: Self.id, version: "1.0.1")
        for isolation in ["in-process", "process", "sandbox"] {
            let c = try Clubhouse()
            let library = c.path("fx-\(isolation).so")
            try FileManager.default.copyItem(atPath: locked, toPath: library)
            let config = try c.write("plugins.json", """
                {"sites": {"main": {"plugins": {"fx": {"path": "\(library)", "isolation": "\(isolation)"}}}}}
                """)
            let probe = try c.run(["--config", config, "lock"])
            if isolation == "sandbox", probe.stderr.contains("has no Landlock") { continue }
            XCTAssertEqual(probe.exitCode, 0, "\(isolation): \(probe.stderr)")
            let replacement = c.path("replacement.so")
            try FileManager.default.copyItem(atPath: swapped, toPath: replacement)
            c.environment["CLUBHOUSE_TEST_SWAP_AFTER_LOCK_CHECK"] = replacement
            let info = try c.run(["--config", config, "plugins", "info", "fx", "--json"])
            XCTAssertEqual(info.exitCode, 0, "\(isolation): \(info.stderr)")
            XCTAssertEqual(try info.json()["version"]?.stringValue, "1.0.0", "\(isolation): the checked bytes ran")
            XCTAssertFalse(FileManager.default.fileExists(atPath: replacement), "\(isolation): the swap happened")
            c.environment["CLUBHOUSE_TEST_SWAP_AFTER_LOCK_CHECK"] = nil
            try c.fail(["--config", config, "fx", "hello"],
                       contains: ["plugin 'fx': \(library) has SHA-256", "pins \(Self.id) 1.0.0 at SHA-256", "reinstall the locked build"])
        }
    }

    func testAnIncompleteOrDamagedLockIsRefusedAndAFailedLockWritesNothing() throws {
        let c = try Clubhouse()
        let library = try FixturePlugins.build("OK", id: Self.id, version: "1.0.0")
        let config = try c.write("plugins.json", """
            {"sites": {"main": {"plugins": {"fx": {"path": "\(library)", "grants": ["storage"]}}}}}
            """)
        let lockPath = c.path("plugins.lock")
        try c.succeed(["--config", config, "lock"])
        XCTAssertEqual(try c.succeed(["--config", config, "fx", "hello"]).stdout, "hello from \(Self.id)\n")
        // A plugin added after locking is not run until it is locked.
        let second = try FixturePlugins.build("OK", id: "org.tests.lock.two", version: "1.0.0")
        try c.write("plugins.json", """
            {"sites": {"main": {"plugins": {"fx": {"path": "\(library)", "grants": ["storage"]}, "fz": {"path": "\(second)"}}}}}
            """)
        try c.fail(["--config", config, "fz", "hello"],
                   contains: ["plugin 'fz' (\(config):1:", "it is not in \(lockPath) (site 'main'); run clubhouse lock to pin it"])
        // A site whose requirement the locked version no longer meets.
        try c.write("plugins.json", """
            {"sites": {"main": {"plugins": {"fx": {"path": "\(library)", "version": "^2.0", "grants": ["storage"]}}}}}
            """)
        try c.fail(["--config", config, "fx", "hello"],
                   contains: ["\(lockPath) pins \(Self.id) 1.0.0 but the site asks for '^2.0'; run clubhouse lock again"])
        // lock itself writes nothing when a plugin does not load.
        let before = try String(contentsOfFile: lockPath, encoding: .utf8)
        try c.write("plugins.json", """
            {"sites": {"main": {"plugins": {"fx": {"path": "\(library)", "grants": ["storage"]}, "gone": {"id": "org.tests.absent"}}}}}
            """)
        try c.fail(["--config", config, "lock"], contains: ["site 'main': plugin 'gone'", "no plugin with id org.tests.absent", "\(lockPath) was not written"])
        XCTAssertEqual(try String(contentsOfFile: lockPath, encoding: .utf8), before)
        // A damaged lock refuses every load.
        try c.write("plugins.lock", "{\"lock_version\": 1}")
        try c.fail(["--config", config, "fx", "hello"], contains: ["\(lockPath): not a valid lock file (no \"sites\" object); run clubhouse lock again"])
        try c.write("plugins.lock", "not json")
        try c.fail(["--config", config, "fx", "hello"], contains: ["\(lockPath): not a valid lock file"])
    }

    func testTheEmbeddedConfigurationLocksInTheDataDirectory() throws {
        let c = try Clubhouse()
        let written = try c.succeed(["lock", "--json"]).json()
        let path = c.dataDirectory.appendingPathComponent("plugins.lock").path
        XCTAssertEqual(written["lock"]?.stringValue, path)
        XCTAssertFalse((written["plugins"]?.arrayValue ?? []).isEmpty)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        let listed = try c.succeed(["plugins", "list", "--json", "--strict"]).json()
        XCTAssertTrue((listed["plugins"]?.arrayValue ?? []).allSatisfy { $0["status"]?.stringValue != "error" }, "\(listed)")
    }
}
