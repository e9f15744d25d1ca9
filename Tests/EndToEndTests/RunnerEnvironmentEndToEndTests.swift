// What a runner sees of the host's environment (the ninth outside attack, a28: a sandboxed plugin read
// PGPASSWORD and the host's other secrets from its environ). A runner and a device simulator get an
// allow-list (Host/Sources/Platform/ChildEnvironment.swift; SECURITY.md, "A runner's environment");
// C fixture environment_report.c reports the names in its environ.

import ClubhouseJSON
import Foundation
import XCTest

final class RunnerEnvironmentEndToEndTests: XCTestCase {
    /// The host runs with PGPASSWORD, SECRET_TOKEN and a CLUBHOUSE_ variable no runner needs; a plugin
    /// in a `process` and in a `sandbox` runner sees none of them, and still sees PATH and the data folder.
    func testARunnerSeesTheAllowListNotTheHostsSecrets() throws {
        let fixture = try FixturePlugins.build("ENVIRONMENT", id: "org.tests.environment", file: "environment_report.c")
        for isolation in ["process", "sandbox"] {
            let c = try Clubhouse()
            c.environment["PGPASSWORD"] = "x"
            c.environment["SECRET_TOKEN"] = "y"
            c.environment["CLUBHOUSE_PSQL"] = "/bin/false"
            let config = try c.write("env.json", """
                {"sites": {"default": {"plugins": {
                  "env": {"path": "\(fixture)", "isolation": "\(isolation)"}
                }}}}
                """)
            let result = try c.run(["--config", config, "--json", "env", "names"], timeout: 60)
            if isolation == "sandbox" && result.stderr.contains("has no Landlock") { continue }
            XCTAssertEqual(result.exitCode, 0, "\(isolation): \(result.stderr)")
            let names = try result.json()["names"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for secret in ["PGPASSWORD", "SECRET_TOKEN", "CLUBHOUSE_PSQL"] {
                XCTAssertFalse(names.contains(secret), "\(isolation): the runner saw \(secret): \(names)")
            }
            XCTAssertTrue(names.contains("PATH"), "\(isolation): \(names)")
            XCTAssertTrue(names.contains("CLUBHOUSE_DATA_DIR"), "\(isolation): \(names)")
            XCTAssertEqual(Set(names).subtracting(["PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH", "SWIFT_BACKTRACE", "CLUBHOUSE_DATA_DIR"])
                            .filter { !$0.hasPrefix("LC_") && !$0.hasPrefix("CLUBHOUSE_TEST_") }, [],
                           "\(isolation): only the allow-list")
        }
    }
}
