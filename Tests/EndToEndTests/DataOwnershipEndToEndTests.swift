// A plugin's data belongs to the library that created it (the fourth outside attack, b25): a library
// loaded from a path that declares the id of a plugin the site already ran — the bundled scorecard
// here — is refused that plugin's database by the storage service, in process and in a runner
// alike, and the file is left exactly as it was (no upgrade, no backup). `clubhouse plugin adopt`
// hands the data over when the administrator means it; the library it belonged to is then refused
// until it is adopted back. A library rebuilt in place, and a publisher's next signed version, keep
// their data without adopting.

import ClubhouseJSON
import Foundation
import XCTest

final class DataOwnershipEndToEndTests: XCTestCase {
    static let scorecard = "org.clubhouse.scorecard"

    /// A site running the bundled scorecard, with one player stored; returns the config and the database.
    func realScorecard(_ c: Clubhouse) throws -> (config: String, database: String, version: String) {
        let config = try c.write("real.json", #"{"sites": {"club": {"plugins": {"scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"]}}}}}"#)
        try c.succeed(["--config", config, "scorecard", "player", "add", "Ann"])
        let version = try c.succeed(["--config", config, "plugins", "info", "scorecard", "--json"]).json()["version"]?.stringValue ?? ""
        return (config, c.dataDirectory.appendingPathComponent("club/\(Self.scorecard).sqlite").path, version)
    }

    /// A site running `library` (a fixture declaring the scorecard's id) from its path.
    func squatterConfig(_ c: Clubhouse, _ library: String, isolation: String) throws -> String {
        try c.write("squat-\(isolation).json", """
            {"sites": {"club": {"plugins": {"fake": {"path": "\(library)", "grants": ["storage"], "isolation": "\(isolation)"}}}}}
            """)
    }

    func recordedVersion(_ database: String) -> String {
        KeptDatabases.query(database, "SELECT version FROM _clubhouse_plugin_version").first ?? ""
    }

    func testALibraryDeclaringTheBundledScorecardsIdIsRefusedItsDataAndChangesNothing() throws {
        let c = try Clubhouse()
        let (real, database, version) = try realScorecard(c)
        let squatter = try FixturePlugins.build("SANDBOX", id: Self.scorecard, version: "99.0.0", file: "hostile_sandbox.c")
        let squatterReal = URL(fileURLWithPath: squatter).resolvingSymlinksInPath().path
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let backups = c.dataDirectory.appendingPathComponent("club/\(Self.scorecard).backups").path
        // In process, in a plain runner and in the sandbox: a runner's storage is served by the host, so no way round.
        for isolation in ["in-process", "process", "sandbox"] {
            let config = try squatterConfig(c, squatter, isolation: isolation)
            let result = try c.run(["--config", config, "fake", "store"])
            if isolation == "sandbox" && result.stderr.contains("has no Landlock") {
                print("sandbox not checked: \(result.stderr)")
                continue
            }
            XCTAssertEqual(result.exitCode, 1, "\(isolation): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("the data of \(Self.scorecard) at site 'club' (\(database)) belongs to the library that created it, "
                + "bundled with the host ("), "\(isolation): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("this library, \(squatterReal), is a library loaded from a path (no package, no signature), so it may not open that data; "
                + "if it should take the data over, run: clubhouse --config \(config) plugin adopt \(Self.scorecard) --site club"), "\(isolation): \(result.stderr)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), before, "\(isolation): the refused library changed the file")
            XCTAssertFalse(FileManager.default.fileExists(atPath: backups), "\(isolation): no backup is made: nothing was upgraded")
            XCTAssertEqual(recordedVersion(database), version, isolation)
        }
        // The real plugin goes on as before.
        XCTAssertTrue(try c.succeed(["--config", real, "scorecard", "player", "list"]).stdout.contains("Ann"))
    }

    func testAdoptHandsTheDataOverAndTheLibraryItBelongedToIsThenRefused() throws {
        let c = try Clubhouse()
        let (real, database, version) = try realScorecard(c)
        // The same version as the real one, so that handing the data back needs no downgrade.
        let squatter = try FixturePlugins.build("SANDBOX", id: Self.scorecard, version: version, file: "hostile_sandbox.c")
        let squatterReal = URL(fileURLWithPath: squatter).resolvingSymlinksInPath().path
        let config = try squatterConfig(c, squatter, isolation: "in-process")
        try c.fail(["--config", config, "fake", "store"], contains: ["belongs to the library that created it, bundled with the host"])

        let adopted = try c.succeed(["--config", config, "--site", "club", "plugin", "adopt", Self.scorecard]).stdout
        XCTAssertTrue(adopted.hasPrefix("Adopted the data of \(Self.scorecard) at site 'club' (\(database)): it belonged to bundled with the host ("), adopted)
        XCTAssertTrue(adopted.contains("; it now belongs to a library loaded from a path (no package, no signature) (\(squatterReal)), which plugin 'fake' loads. "
            + "From now on "), adopted)
        XCTAssertTrue(adopted.hasSuffix(" (bundled with the host) is refused this data unless it is adopted back.\n"), adopted)
        XCTAssertTrue(try c.succeed(["--config", config, "fake", "store"]).stdout.contains("stored through the host"))
        // Adopting again changes nothing, and says so.
        let again = try c.succeed(["--config", config, "--site", "club", "plugin", "adopt", "fake", "--json"]).json()
        XCTAssertEqual(again["changed"], false)
        XCTAssertEqual(again["to"]?["origin"]?.stringValue, "unsigned:\(squatterReal)")
        XCTAssertTrue(try c.succeed(["--config", config, "--site", "club", "plugin", "adopt", "fake"]).stdout
            .hasSuffix("already belongs to a library loaded from a path (no package, no signature) (\(squatterReal)), which plugin 'fake' loads (\(squatterReal)); nothing changed\n"))

        // The bundled scorecard is now the stranger.
        try c.fail(["--config", real, "scorecard", "player", "list"],
                   contains: ["belongs to the library that created it, a library loaded from a path (no package, no signature) (\(squatterReal)); "
                              + "this library, ", ", is bundled with the host, so it may not open that data; if it should take the data over, run: "
                              + "clubhouse --config \(real) plugin adopt \(Self.scorecard) --site club"])
        let back = try c.succeed(["--config", real, "--site", "club", "plugin", "adopt", "scorecard", "--json"]).json()
        XCTAssertEqual(back["changed"], true)
        XCTAssertEqual(back["from"]?["origin"]?.stringValue, "unsigned:\(squatterReal)")
        XCTAssertEqual(back["to"]?["origin"], "bundled")
        XCTAssertTrue(try c.succeed(["--config", real, "scorecard", "player", "list"]).stdout.contains("Ann"), "the data came back with the adoption")
        try c.fail(["--config", config, "fake", "store"], contains: ["this library, \(squatterReal), is a library loaded from a path"])
    }

    func testAdoptSaysWhatItCannotDo() throws {
        let c = try Clubhouse()
        let (real, _, _) = try realScorecard(c)
        try c.fail(["--config", real, "--site", "club", "plugin", "adopt", "org.example.nothing"], exitCode: 2,
                   contains: ["site 'club' has no enabled plugin 'org.example.nothing' (clubhouse --config \(real) --site club plugins list shows its plugins); adopt binds data to a library the site loads"])
        let missing = try c.write("missing.json", #"{"sites": {"club": {"plugins": {"gone": {"path": "/nonexistent/libgone.so", "grants": ["storage"]}}}}}"#)
        try c.fail(["--config", missing, "--site", "club", "plugin", "adopt", "gone"], exitCode: 1,
                   contains: ["nothing was adopted: adopt binds the data to the library the site loads, so the plugin must load first"])
        // A database the host will not open (a link in its place) is not adopted.
        let linked = c.dataDirectory.appendingPathComponent("linked").path
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linked + "/\(Self.scorecard).sqlite",
                                                   withDestinationPath: c.dataDirectory.appendingPathComponent("club/\(Self.scorecard).sqlite").path)
        let linkedConfig = try c.write("linked.json", #"{"sites": {"linked": {"plugins": {"scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"]}}}}}"#)
        try c.fail(["--config", linkedConfig, "--site", "linked", "plugin", "adopt", "scorecard"], exitCode: 1,
                   contains: ["\(linked)/\(Self.scorecard).sqlite is a symbolic link; the host opens a plugin database only as a regular file", "; nothing was adopted"])
        // No data yet: nothing to adopt (the first library to open it will own it).
        let fresh = try c.write("fresh.json", #"{"sites": {"new": {"plugins": {"scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"]}}}}}"#)
        let none = try c.succeed(["--config", fresh, "--site", "new", "plugin", "adopt", "scorecard"]).stdout
        XCTAssertTrue(none.hasPrefix("\(Self.scorecard) has no data at site 'new' yet ("), none)
        XCTAssertTrue(none.hasSuffix("nothing to adopt: the first library to open it, \(Clubhouse.productsDirectory.resolvingSymlinksInPath().path)/libScorecardPlugin.so (bundled with the host), will own it\n"), none)
    }

    func testALibraryRebuiltInPlaceKeepsItsDataAndACopyElsewhereDoesNot() throws {
        let c = try Clubhouse()
        let folder = c.path("build")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let library = folder + "/libnotes.so"
        let first = try FixturePlugins.build("SANDBOX", id: "org.tests.rebuilt", version: "1.0.0", file: "hostile_sandbox.c")
        try FileManager.default.copyItem(atPath: first, toPath: library)
        let config = try c.write("site.json", """
            {"sites": {"club": {"plugins": {"notes": {"path": "\(library)", "grants": ["storage"], "isolation": "in-process"}}}}}
            """)
        try c.succeed(["--config", config, "notes", "store"])
        // Rebuilt (a newer build, other bytes) at the same path: the same library to the site.
        let rebuilt = try FixturePlugins.build("SANDBOX", id: "org.tests.rebuilt", version: "1.1.0", file: "hostile_sandbox.c")
        try FileManager.default.removeItem(atPath: library)
        try FileManager.default.copyItem(atPath: rebuilt, toPath: library)
        try c.succeed(["--config", config, "notes", "store"])
        let database = c.dataDirectory.appendingPathComponent("club/org.tests.rebuilt.sqlite").path
        XCTAssertEqual(KeptDatabases.count(database, "notes"), 2)
        // The same file copied elsewhere is another library.
        let elsewhere = c.path("libnotes-copy.so")
        try FileManager.default.copyItem(atPath: library, toPath: elsewhere)
        let copy = try c.write("copy.json", """
            {"sites": {"club": {"plugins": {"notes": {"path": "\(elsewhere)", "grants": ["storage"], "isolation": "in-process"}}}}}
            """)
        try c.fail(["--config", copy, "notes", "store"],
                   contains: ["(\(database)) belongs to the library that created it, a library loaded from a path (no package, no signature) (\(URL(fileURLWithPath: library).resolvingSymlinksInPath().path))"])
        XCTAssertEqual(KeptDatabases.count(database, "notes"), 2)
    }

    func testAPublishersNextSignedVersionKeepsTheDataAndAnUnsignedPackageOfTheIdDoesNot() throws {
        let c = try Clubhouse()
        let id = "org.tests.owned"
        let key = try c.succeed(["plugin", "keygen", "--out", c.path("acme.key"), "--json"]).json()["public_key"]?.stringValue ?? ""
        func install(_ variant: String, _ version: String, signed: Bool) throws {
            let library = try FixturePlugins.build(variant, id: id, version: version, file: "upgrade_plugin.c")
            let package = c.path("\(version).chpkg")
            try c.succeed(["plugin", "pack", library, "--out", package] + (signed ? ["--sign", c.path("acme.key")] : []))
            try c.succeed(["plugin", "install", package])
        }
        let config = try c.write("site.json", """
            {"publishers": {"acme": "\(key)"},
             "sites": {"club": {"plugins": {"notes": {"id": "\(id)", "grants": ["storage"], "isolation": "process"}}}}}
            """)
        try install("V1", "1.0.0", signed: true)
        try c.succeed(["--config", config, "notes", "add"])
        try install("V2", "2.0.0", signed: true)
        XCTAssertEqual(try c.succeed(["--config", config, "notes", "count", "--json"]).json()["notes"], 1, "the publisher's next version keeps the data")
        // A package of the same id that the publisher did not sign is another origin.
        try install("V2", "3.0.0", signed: false)
        let database = c.dataDirectory.appendingPathComponent("club/\(id).sqlite").path
        try c.fail(["--config", config, "notes", "count"],
                   contains: ["the data of \(id) at site 'club' (\(database)) belongs to the library that created it, a package signed by publisher 'acme' (key ",
                              "is a package not signed by a publisher of the site, installed in "])
        XCTAssertEqual(KeptDatabases.query(database, "SELECT version FROM _clubhouse_plugin_version").first, "2.0.0", "3.0.0 upgraded nothing")
    }

    /// The origin is the library's path as it was loaded, never resolved again: a library whose own
    /// folder it re-points at the host's bundled plugins (a link in the folder's place) before asking for
    /// the data is still the library from its folder, in process and in a runner.
    func testALibraryThatRePointsItsFolderAtTheBundledPluginsIsStillItself() throws {
        let c = try Clubhouse()
        let (_, database, _) = try realScorecard(c)
        let squatter = try FixturePlugins.build("SANDBOX", id: Self.scorecard, version: "99.0.0", file: "hostile_sandbox.c")
        let bundled = Clubhouse.productsDirectory.resolvingSymlinksInPath().path
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        for isolation in ["in-process", "process"] {
            let folder = c.path("evil-\(isolation)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // Named as the bundled library, so that the path through the link names it.
            try FileManager.default.copyItem(atPath: squatter, toPath: folder + "/libScorecardPlugin.so")
            let config = try squatterConfig(c, folder + "/libScorecardPlugin.so", isolation: isolation)
            try c.fail(["--config", config, "fake", "relink", "--target", "\(folder)=\(bundled)"],
                       contains: ["this library, \(folder)/libScorecardPlugin.so, is a library loaded from a path (no package, no signature), so it may not open that data"])
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: folder), bundled, "\(isolation): the fixture re-pointed its folder")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), before, isolation)
        }
    }

    // MARK: the twelfth outside attack (b13, b21, b09)

    /// b13: an unsigned package installed in the site's install tree is bound to its folder there, relative to
    /// the data directory: moving the data directory (or restoring it elsewhere) keeps its data; a library
    /// loaded from a path that declares the id is still refused.
    func testAnInstalledPackageKeepsItsDataWhenTheDataDirectoryMoves() throws {
        let c = try Clubhouse()
        let id = "org.tests.moved"
        let library = try FixturePlugins.build("V1", id: id, version: "1.0.0", file: "upgrade_plugin.c")
        try c.succeed(["plugin", "pack", library, "--out", c.path("moved.chpkg")])
        try c.succeed(["plugin", "install", c.path("moved.chpkg")])
        let config = try c.write("site.json", #"{"sites": {"club": {"plugins": {"notes": {"id": "org.tests.moved", "grants": ["storage"]}}}}}"#)
        try c.succeed(["--config", config, "notes", "add"])
        let moved = c.path("moved-data")
        try FileManager.default.moveItem(atPath: c.dataDirectory.path, toPath: moved)
        c.environment["CLUBHOUSE_DATA_DIR"] = moved
        XCTAssertEqual(try c.succeed(["--config", config, "notes", "count", "--json"]).json()["notes"], 1, "the package keeps its data")
        try c.succeed(["--config", config, "notes", "add"])
        let path = try c.write("path.json", """
            {"sites": {"club": {"plugins": {"notes": {"path": "\(library)", "grants": ["storage"]}}}}}
            """)
        try c.fail(["--config", path, "notes", "count"],
                   contains: ["belongs to the library that created it, a package not signed by a publisher of the site, installed in "])
        XCTAssertEqual(KeptDatabases.count(moved + "/club/\(id).sqlite", "notes"), 2)
    }

    /// b21: a server already running the bundled scorecard is refused the data once `plugin adopt` hands it
    /// to another library (checked again at each call's first storage use when the file changed), and
    /// served again once it is adopted back — without a restart.
    func testARunningServerIsRefusedTheDataOnceItIsAdoptedAway() throws {
        let c = try Clubhouse()
        let (real, database, version) = try realScorecard(c)
        let squatter = try FixturePlugins.build("SANDBOX", id: Self.scorecard, version: version, file: "hostile_sandbox.c")
        let other = try squatterConfig(c, squatter, isolation: "in-process")
        let server = try RunningClubhouse(c, ["--config", real, "serve", "--socket", c.path("rpc.sock")])
        defer {
            server.signal(SIGTERM)
            _ = server.wait()
        }
        let client = try RPCSocketClient(path: c.path("rpc.sock"))
        func add(_ id: Int, _ name: String) throws -> JSONValue {
            client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"scorecard","command":"player add","arguments":{"name":"\#(name)"}}}"#)
            return try client.response(id: id).0
        }
        XCTAssertNotNil(try add(1, "Bob")["result"])
        try c.succeed(["--config", other, "--site", "club", "plugin", "adopt", Self.scorecard])
        let refused = try add(2, "Carol")
        XCTAssertTrue(refused["error"]?["message"]?.stringValue?.contains("the data of \(Self.scorecard) at site 'club' (\(database)) belongs to the library that created it, "
            + "a library loaded from a path (no package, no signature)") == true, "\(refused)")
        XCTAssertEqual(KeptDatabases.query(database, "SELECT group_concat(name) FROM players").first, "Ann,Bob")
        try c.succeed(["--config", real, "--site", "club", "plugin", "adopt", "scorecard"])
        XCTAssertNotNil(try add(3, "Dan")["result"], "adopted back: served again")
    }

    /// b09: on a fresh site, a library loaded from a path that declares a bundled plugin's id is refused the
    /// data and no database is created (so the bundled plugin cannot be locked out by whoever runs first);
    /// `plugin adopt` creates it bound to that library when the administrator means it.
    func testABundledPluginsIdIsRefusedToAPathLibraryOnAFreshSite() throws {
        let c = try Clubhouse()
        let squatter = try FixturePlugins.build("SANDBOX", id: Self.scorecard, version: "1.0.0", file: "hostile_sandbox.c")
        let squatterReal = URL(fileURLWithPath: squatter).resolvingSymlinksInPath().path
        let config = try squatterConfig(c, squatter, isolation: "process")
        let database = c.dataDirectory.appendingPathComponent("club/\(Self.scorecard).sqlite").path
        let bundled = Clubhouse.productsDirectory.resolvingSymlinksInPath().path + "/libScorecardPlugin.so"
        try c.fail(["--config", config, "fake", "store"],
                   contains: ["\(Self.scorecard) is the id of a plugin bundled with the host (\(bundled)), so its data at site 'club' (\(database)) is that plugin's; "
                              + "this library, \(squatterReal), is a library loaded from a path (no package, no signature), so it may not create or open it: "
                              + "give this library an id of its own, or, to hand the bundled plugin's data to it, run: clubhouse --config \(config) plugin adopt \(Self.scorecard) --site club"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: database), "no database was created")
        // The bundled scorecard is then the first to own it.
        let real = try c.write("real.json", #"{"sites": {"club": {"plugins": {"scorecard": {"id": "org.clubhouse.scorecard", "grants": ["storage"]}}}}}"#)
        try c.succeed(["--config", real, "scorecard", "player", "add", "Ann"])
        XCTAssertEqual(KeptDatabases.query(database, "SELECT origin FROM _clubhouse_origin").first, "bundled")
        try FileManager.default.removeItem(atPath: c.dataDirectory.appendingPathComponent("club").path)
        // Adopting the id for the path library creates the data bound to it.
        let adopted = try c.succeed(["--config", config, "--site", "club", "plugin", "adopt", Self.scorecard]).stdout
        XCTAssertTrue(adopted.hasPrefix("Adopted the data of \(Self.scorecard) at site 'club' (\(database)): it belonged to no one yet "
            + "(it had no data; its id is that of the plugin bundled with the host, \(bundled)); it now belongs to a library loaded from a path"), adopted)
        XCTAssertTrue(try c.succeed(["--config", config, "fake", "store"]).stdout.contains("stored through the host"))
    }
}
