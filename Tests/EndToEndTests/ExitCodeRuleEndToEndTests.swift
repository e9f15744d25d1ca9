// One exit-code rule across every plugin (README table): 2 when the request is wrong (malformed or
// invalid input file, an unknown name the user gave), 1 when the world fails (I/O, a device).

import Foundation
import XCTest

final class ExitCodeRuleEndToEndTests: XCTestCase {
    func testInvalidInputExitsTwoInEveryPlugin() throws {
        let c = try Clubhouse()
        let malformed = try c.write("bad.json", "{bad\n")
        let csv = try c.write("bad.csv", "x,y\n1\n")
        try FileManager.default.createDirectory(atPath: c.path("course"), withIntermediateDirectories: true)
        let cases: [([String], String)] = [
            (["putting", "holes", "nowhere"], "unknown course \"nowhere\""),
            (["putting", "course", "import", c.path("course"), "--id", "x"], "no Hole_N or hole_N folders found"),
            (["globe", "visit", "Atlantis", "--user", "u"], "unknown country 'Atlantis'"),
            (["globe", "where", "--lat", "100", "--lon", "0"], "latitude 100.0 is outside [-90, 90]"),
            (["tennis", "calibrate", "--image-points", malformed], "bad.json:1:2:"),
            (["tennis", "calibrate", "--image-points", c.path("missing.json")], "missing.json"),
            (["tennis", "table", "validate", malformed], "bad.json:1:2:"),
            (["practice", "import", csv], "bad.csv:1: no MLM2PRO header"),
            (["scorecard", "course", "add", malformed], "bad.json:1:2:"),
            (["scorecard", "course", "show", "Nowhere"], "no course 'Nowhere'"),
            (["config", "validate", malformed], "bad.json:1:"),
            (["--config", malformed, "plugins", "list"], "bad.json:1:"),
        ]
        for (arguments, fragment) in cases {
            try c.fail(arguments, exitCode: 2, contains: [fragment])
        }
    }

    func testFailuresOfTheWorldExitOne() throws {
        let c = try Clubhouse()
        // A device that does not answer: the courtside site's machine is on 127.0.0.1:9000.
        let config = try c.write("site.json", """
            {"sites": {"s": {"devices": {"m": {"transport": "unix:\(c.path("nobody.sock"))"}},
              "plugins": {"tennis": {"id": "org.clubhouse.tennis", "grants": ["storage", "device:m"], "config": {"device": "m"}}}}}}
            """)
        try c.fail(["--config", config, "tennis", "send", "--zone", "6"], exitCode: 1, contains: ["nobody.sock"])
        // A disk that is full.
        if FileManager.default.fileExists(atPath: "/dev/full") {
            try c.fail(["globe", "map", "--svg", "/dev/full"], exitCode: 1, contains: ["/dev/full"])
        }
    }
}
