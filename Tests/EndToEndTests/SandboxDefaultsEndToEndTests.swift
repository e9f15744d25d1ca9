// `"isolation": "auto"` fits the trust model (SECURITY.md): the bundled plugins beside the
// `clubhouse` executable run in process; a plugin from anywhere else (an explicit path here)
// runs sandboxed where the kernel has Landlock — its escapes refused — and in a plain runner
// otherwise, which `config validate` reports as a warning. Every wait is bounded.

import ClubhouseJSON
import Foundation
import XCTest

final class SandboxDefaultsEndToEndTests: XCTestCase {
    /// The hostile sandbox fixture as `fx`, with no "isolation" (auto).
    private func site(_ c: Clubhouse) throws -> String {
        let fixture = try FixturePlugins.build("SANDBOX", id: "org.tests.sandbox", file: "hostile_sandbox.c")
        return try c.write("auto.json", """
            {"sites": {"default": {"plugins": {
              "fx": {"path": "\(fixture)", "grants": ["storage"]},
              "practice": {"id": "org.clubhouse.practice", "grants": ["storage"]}
            }}}}
            """)
    }

    private func effective(_ c: Clubhouse, _ config: String, _ alias: String) throws -> String? {
        try c.succeed(["--config", config, "plugins", "info", alias, "--json"]).json()["effective_isolation"]?.stringValue
    }

    func testAutoSandboxesAPluginFromOutsideAndKeepsBundledOnesInProcess() throws {
        let c = try Clubhouse()
        let config = try site(c)
        XCTAssertEqual(try effective(c, config, "practice"), "in-process", "a bundled plugin beside the executable is trusted")
        let probe = try c.run(["--config", config, "fx", "store"], timeout: 60)
        if probe.stderr.contains("has no Landlock") { throw XCTSkip("this kernel has no Landlock") }
        let info0 = try c.run(["--config", config, "plugins", "info", "fx"]).stdout
        guard try effective(c, config, "fx") == "sandbox" else { throw XCTSkip("this kernel cannot sandbox: \(info0)") }
        let info = try c.succeed(["--config", config, "plugins", "info", "fx"]).stdout
        XCTAssertTrue(info.contains("isolation   auto → sandbox: from outside the host's folders and the install tree ("), info)
        // The attacks are refused without the site asking for it.
        let open = try c.succeed(["--config", config, "fx", "open", "--target", "/etc/passwd", "--json"]).json()
        XCTAssertEqual(open["errno"]?.intValue, 13, "/etc/passwd under auto: \(open)")
        let exec = try c.succeed(["--config", config, "fx", "exec", "--json"]).json()
        XCTAssertEqual(exec["errno"]?.intValue, 1, "execve under auto: \(exec)")
        XCTAssertTrue(try c.succeed(["--config", config, "fx", "store"]).stdout.contains("stored through the host"))
        XCTAssertTrue(try c.succeed(["--config", config, "config", "validate"]).stderr.isEmpty, "no warning when auto can sandbox")
    }

    /// Without Landlock, auto runs an outside plugin in a plain runner — and says so in
    /// `config validate`; an explicit "sandbox" is still refused, never run weaker.
    func testWithoutLandlockAutoFallsBackToProcessWithAWarning() throws {
        let c = try Clubhouse()
        let config = try site(c)
        c.environment["CLUBHOUSE_TEST_LANDLOCK_ABI"] = "0"
        XCTAssertEqual(try effective(c, config, "fx"), "process")
        XCTAssertEqual(try effective(c, config, "practice"), "in-process")
        let validated = try c.succeed(["--config", config, "config", "validate"])
        XCTAssertTrue(validated.stdout.contains("valid"), validated.stdout)
        XCTAssertTrue(validated.stderr.contains("\(config):2:"), validated.stderr)
        XCTAssertTrue(validated.stderr.contains("warning: site 'default': plugin 'fx' comes from outside the install tree, so \"auto\" would sandbox it, but this kernel"),
                      validated.stderr)
        XCTAssertTrue(validated.stderr.contains("set \"isolation\": \"process\" to choose that knowingly"), validated.stderr)
        XCTAssertFalse(validated.stderr.contains("'practice'"), "bundled plugins are not warned about: \(validated.stderr)")
        let json = try c.succeed(["--config", config, "config", "validate", "--json"]).json()
        XCTAssertEqual(json["warnings"]?.arrayValue?.count, 1, "\(json)")
        XCTAssertEqual(json["ok"], .bool(true))
        XCTAssertTrue(try c.succeed(["--config", config, "fx", "store"]).stdout.contains("stored through the host"))
    }
}
