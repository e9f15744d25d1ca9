// Issue 15's "done when": two versions of putting run at two sites at once — the bundled putting
// (beside the executable) at one, an installed build with a bumped version at the other (a C
// fixture claiming org.clubhouse.putting 9.0.0, packed and installed like any package).

import ClubhouseJSON
import Foundation
import XCTest

final class TwoPuttingVersionsEndToEndTests: XCTestCase {
    func testTheBundledAndAnInstalledPuttingRunAtTwoSitesAtOnce() throws {
        let c = try Clubhouse()
        let library = try FixturePlugins.build("OK", id: "org.clubhouse.putting", version: "9.0.0")
        let package = c.path("putting-9.0.0.chpkg")
        try c.succeed(["plugin", "pack", library, "--out", package])
        try c.succeed(["plugin", "install", package])
        let config = try c.write("two-clubs.json", """
            {"sites": {
              "club-a": {"plugins": {"putting": {"id": "org.clubhouse.putting", "version": "^1.1", "grants": ["storage"]}}},
              "club-b": {"plugins": {"putting": {"id": "org.clubhouse.putting", "version": "^9.0", "grants": ["storage"]}}}}}
            """)
        func info(_ site: String) throws -> JSONValue {
            try c.succeed(["--config", config, "--site", site, "plugins", "info", "putting", "--json"]).json()
        }
        let a = try info("club-a"), b = try info("club-b")
        XCTAssertEqual(a["version"]?.stringValue?.hasPrefix("1."), true, "\(a)")
        XCTAssertEqual(b["version"]?.stringValue, "9.0.0")
        XCTAssertEqual(b["path"]?.stringValue?.hasPrefix(c.dataDirectory.appendingPathComponent("plugins").path), true, "\(b)")

        // Both at once: two processes, one per site, each running its own build.
        let group = DispatchGroup()
        nonisolated(unsafe) var results: [String: ClubhouseResult] = [:]
        let lock = NSLock()
        nonisolated(unsafe) let shared = c   // run() only reads it
        for (site, words) in [("club-a", ["putting", "courses", "--json"]), ("club-b", ["putting", "hello"])] {
            group.enter()
            DispatchQueue.global().async {
                let result = try? shared.run(["--config", config, "--site", site] + words, timeout: 60)
                lock.lock(); results[site] = result; lock.unlock()
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 90), .success)
        XCTAssertEqual(results["club-a"]?.exitCode, 0, results["club-a"]?.stderr ?? "")
        XCTAssertNotNil(try results["club-a"]?.json()["courses"]?.arrayValue, results["club-a"]?.stdout ?? "")
        XCTAssertEqual(results["club-b"]?.exitCode, 0, results["club-b"]?.stderr ?? "")
        XCTAssertEqual(results["club-b"]?.stdout, "hello from org.clubhouse.putting\n")
    }
}
