// One exit-code rule across every plugin (README table): 2 when the request is wrong (malformed or
// invalid input file, an unknown name the user gave), 1 when the world fails (I/O, a device), 130 when
// cancelled.

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

    /// Issue 30: the file-parse errors that exited 1. Malformed or invalid GeoJSON (given on the command
    /// line or by a site's config), a missing --config / config / package file, taps that give no
    /// calibration and pairs that give no homography are wrong requests (2), as every other malformed file.
    func testMalformedFilesAndMissingPathsExitTwoInEveryPlugin() throws {
        let c = try Clubhouse()
        let malformed = try c.write("bad.json", "{bad\n")
        let ring = try c.write("ring.json", """
            {"type": "FeatureCollection", "features": [{"type": "Feature", "id": "FR", "properties": {"name": "France"},
             "geometry": {"type": "Polygon", "coordinates": [[[0, 40], [5, 40]]]}}]}
            """)
        let site = try c.write("site.json", """
            {"sites": {"s": {"plugins": {"globe": {"id": "org.clubhouse.globe", "grants": ["storage"], "config": {"countries": "\(ring)"}}}}}}
            """)
        let missingCountries = try c.write("site2.json", """
            {"sites": {"s": {"plugins": {"globe": {"id": "org.clubhouse.globe", "grants": ["storage"], "config": {"countries": "\(c.path("none.geojson"))"}}}}}}
            """)
        let taps = try c.write("taps.json", #"{"net_left": [430, 200], "net_right": [850, 200], "baseline_left": [850, 200], "baseline_right": [1120, 640], "t": [640, 348]}"#)
        let pairs = try c.write("pairs.json", #"{"pairs": [{"image": [0, 0], "court": [0, 0]}, {"image": [1, 1], "court": [1, 1]}, {"image": [2, 2], "court": [2, 2]}, {"image": [3, 3], "court": [3, 3]}]}"#)
        let cases: [([String], String)] = [
            (["globe", "triangulate", "--geojson", malformed], "bad.json:1:2: malformed JSON"),
            (["globe", "triangulate", "--geojson", ring], "ring.json:2:50: a linear ring needs at least 4 positions"),
            (["globe", "triangulate", "--geojson", c.path("none.geojson")], "cannot read \(c.path("none.geojson")): no such file; check the path"),
            (["--config", site, "globe", "list"], "ring.json:2:50: a linear ring needs at least 4 positions"),
            (["--config", missingCountries, "globe", "list"], "cannot read \(c.path("none.geojson")): no such file"),
            (["--config", c.path("missing.json"), "plugins", "list"], "missing.json: cannot read the configuration (No such file or directory)"),
            (["config", "validate", c.path("missing.json")], "missing.json: cannot read (No such file or directory)"),
            (["plugin", "install", c.path("missing.chpkg")], "missing.chpkg: cannot read the package (No such file or directory)"),
            (["tennis", "calibrate", "--image-points", taps], "taps net_right and baseline_left are the same image point"),
            (["tennis", "homography", "--pairs", pairs], "lie on one line"),
        ]
        for (arguments, fragment) in cases {
            try c.fail(arguments, exitCode: 2, contains: [fragment])
        }
    }

    /// Issue 30: a `practice import` cancelled while it writes (the host interrupts the statement of a
    /// cancelled call) exits 130 and says it was cancelled, not "storage failed" with 1; nothing is kept.
    /// The call is cancelled at the first progress update of the writing stage (20 000 rows: four
    /// reading updates, the reading's last, then writing), the moment a Ctrl-C would land there.
    func testAnInterruptedImportExits130() throws {
        let c = try Clubhouse()
        var lines = [#""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle","Carry Distance""#]
        for i in 0..<20_000 {
            lines.append("\"\(i % 2 == 0 ? "7i" : "PW")\",\"\(95 + i % 15)\",\"1.\(20 + i % 15)\",\"\(4000 + i % 2000)\",\"\(40 + i % 10)\",\"\(130 + i % 25)\"")
        }
        let csv = try c.write("big.csv", lines.joined(separator: "\n") + "\n")
        c.environment["CLUBHOUSE_TEST_CANCEL_AT_PROGRESS"] = "6"
        try c.fail(["practice", "import", csv], exitCode: 130,
                   contains: ["cancelled while writing to the practice database; nothing of what was being written was kept — run the command again"])
        c.environment["CLUBHOUSE_TEST_CANCEL_AT_PROGRESS"] = nil
        XCTAssertEqual(try c.succeed(["practice", "sessions", "--json"]).json()["sessions"]?.arrayValue?.count, 0)
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
