// Issue 32, "the least confinement for the least known code": under "auto", a plugin installed
// from a package runs sandboxed where the kernel has Landlock (a plain runner otherwise, with a
// warning), the plugins bundled with the host run in process, and `plugins info` says for each
// why it runs as it does.

import ClubhouseJSON
import Foundation
import XCTest

final class ConfinementByOriginEndToEndTests: XCTestCase {
    /// The hostile sandbox fixture, packed and installed; a site naming it by id (auto).
    func installedHostile(_ c: Clubhouse) throws -> String {
        let library = try FixturePlugins.build("SANDBOX", id: "org.tests.packaged", file: "hostile_sandbox.c")
        try c.succeed(["plugin", "pack", library, "--out", c.path("hostile.chpkg")])
        try c.succeed(["plugin", "install", c.path("hostile.chpkg")])
        return try c.write("site.json", #"{"sites": {"club": {"plugins": {"fx": {"id": "org.tests.packaged", "grants": ["storage"]}}}}}"#)
    }

    func testAnInstalledPackageIsSandboxedAndPluginsInfoSaysWhy() throws {
        let c = try Clubhouse()
        let config = try installedHostile(c)
        let root = c.dataDirectory.appendingPathComponent("plugins").path
        let info = try c.succeed(["--config", config, "plugins", "info", "fx", "--json"]).json()
        if info["isolation_reason"]?.stringValue?.contains("has no Landlock") == true { throw XCTSkip("this kernel has no Landlock") }
        XCTAssertEqual(info["effective_isolation"], "sandbox", "\(info)")
        let real = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        XCTAssertEqual(info["isolation_reason"]?.stringValue, "installed package in \(real)")
        let text = try c.succeed(["--config", config, "plugins", "info", "fx"]).stdout
        XCTAssertTrue(text.contains("isolation   auto → sandbox: installed package in \(real)\n"), text)
        // It is confined: the package's code cannot read /etc/passwd or start a program.
        XCTAssertEqual(try c.succeed(["--config", config, "fx", "open", "--target", "/etc/passwd", "--json"]).json()["errno"]?.intValue, 13)
        XCTAssertEqual(try c.succeed(["--config", config, "fx", "exec", "--json"]).json()["errno"]?.intValue, 1)
        XCTAssertTrue(try c.succeed(["--config", config, "fx", "store"]).stdout.contains("stored through the host"))
        XCTAssertTrue(try c.succeed(["--config", config, "config", "validate"]).stderr.isEmpty)

        // A bundled plugin (beside this build's clubhouse) runs in process, and says so.
        let putting = try c.succeed(["plugins", "info", "putting", "--json"]).json()
        XCTAssertEqual(putting["effective_isolation"], "in-process")
        XCTAssertEqual(putting["isolation_reason"]?.stringValue,
                       "bundled with the host, beside the clubhouse executable in \(Clubhouse.productsDirectory.resolvingSymlinksInPath().path)")
        // An isolation the site sets is the site's choice, with where it is set.
        let chosen = try c.write("chosen.json", #"{"sites": {"club": {"plugins": {"fx": {"id": "org.tests.packaged", "grants": ["storage"], "isolation": "process"}}}}}"#)
        let set = try c.succeed(["--config", chosen, "plugins", "info", "fx"]).stdout
        XCTAssertTrue(set.contains("isolation   process: set in \(chosen):1:39\n"), set)
    }

    /// Without Landlock an installed package runs in a plain runner, and config validate says so.
    func testWithoutLandlockAnInstalledPackageRunsInAChildWithAWarning() throws {
        let c = try Clubhouse()
        let config = try installedHostile(c)
        c.environment["CLUBHOUSE_TEST_LANDLOCK_ABI"] = "0"
        let info = try c.succeed(["--config", config, "plugins", "info", "fx", "--json"]).json()
        XCTAssertEqual(info["effective_isolation"], "process")
        XCTAssertTrue(info["isolation_reason"]?.stringValue?.hasPrefix("installed package in ") == true, "\(info)")
        XCTAssertTrue(info["isolation_reason"]?.stringValue?.contains(", but this kernel (") == true, "\(info)")
        let validated = try c.succeed(["--config", config, "config", "validate"])
        XCTAssertTrue(validated.stderr.contains("\(config):1:39: warning: site 'club': plugin 'fx' is an installed package, so \"auto\" would sandbox it, but this kernel"),
                      validated.stderr)
    }
}
