// Issue 27, Why 7: site names left the data directory. A site named `..` (or `../elsewhere`) wrote
// its databases outside the data dir and `config validate` called the file valid. One grammar for
// site names, plugin names and ids (Host/Sources/Loader/Names.swift) is now enforced where the
// configuration is read: the file, --site and CLUBHOUSE_SITE.

import Foundation
import XCTest

final class NamesEndToEndTests: XCTestCase {
    func testASiteNamedDotDotIsRefusedEverywhereAndNothingIsWrittenOutsideTheDataDir() throws {
        let c = try Clubhouse()
        let config = try c.write("escape.json", """
            {"sites": {
              "..": {"plugins": {"notes": {"id": "org.example.notes", "grants": ["storage"]}}},
              "../elsewhere": {"plugins": {"notes": {"id": "org.example.notes", "grants": ["storage"]}}}
            }}
            """)
        let validate = try c.fail(["config", "validate", config], exitCode: 2, contains: [
            "escape.json:2:3: site name '..' must be a lowercase letter, then lowercase letters, digits and '-', at most 64 characters",
            "it names the site's folder in the data directory",
        ])
        XCTAssertTrue(validate.stderr.contains("escape.json:3:3: site name '../elsewhere' must be"), validate.stderr)
        XCTAssertTrue(validate.stderr.contains("2 problem(s) found"), validate.stderr)

        // Used, the file is refused before anything runs; nothing appears beside the data dir.
        for site in ["..", "../elsewhere"] {
            try c.fail(["--config", config, "--site", site, "notes", "add", "--text", "escaped"], exitCode: 2,
                       contains: ["--site '\(site)' must be a lowercase letter"])
            c.environment["CLUBHOUSE_SITE"] = site
            try c.fail(["--config", config, "notes", "add", "--text", "escaped"], exitCode: 2,
                       contains: ["CLUBHOUSE_SITE '\(site)' must be a lowercase letter", "fix the environment variable or pass --site"])
            c.environment["CLUBHOUSE_SITE"] = nil
        }
        try c.fail(["--config", config, "notes", "add", "--text", "escaped"], exitCode: 2, contains: ["escape.json:2:3: site name '..'"])
        let around = try FileManager.default.contentsOfDirectory(atPath: c.scratch.path)
        XCTAssertFalse(around.contains { $0.hasSuffix(".sqlite") || $0 == "elsewhere" }, "written beside the data dir: \(around)")
    }

    func testBadPluginNamesAndIdsAreRefusedWithFileLineAndColumn() throws {
        let c = try Clubhouse()
        let config = try c.write("names.json", """
            {"sites": {"club": {"plugins": {
              "Notes": {"id": "org.example.notes"},
              "n": {"id": "org.example/../../x"}
            }}}}
            """)
        let result = try c.fail(["config", "validate", config], exitCode: 2, contains: [
            "names.json:2:3: plugin name 'Notes' must be a lowercase letter",
        ])
        XCTAssertTrue(result.stderr.contains("names.json:3:15: id 'org.example/../../x' is not reverse-DNS"), result.stderr)
        XCTAssertTrue(result.stderr.contains("the id names the plugin's database file"), result.stderr)
    }
}
