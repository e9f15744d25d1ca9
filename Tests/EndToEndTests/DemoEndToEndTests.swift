// The main job: `clubhouse demo` on the embedded default site runs every plugin's demo on sample
// data the project makes itself and writes the pictures and data into one folder.

import ClubhouseJSON
import Foundation
import XCTest

final class DemoEndToEndTests: XCTestCase {
    func testDemoRunsEveryPluginAndWritesItsFiles() throws {
        let c = try Clubhouse()
        c.environment["CLUBHOUSE_DATA_DIR"] = ""
        let out = c.path("demo")
        let result = try c.run(["demo", "--out", out, "--json"])
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        let json = try result.json()
        let statuses = Dictionary(uniqueKeysWithValues: (json["plugins"]?.arrayValue ?? []).map {
            ($0["plugin"]?.stringValue ?? "", $0["status"]?.stringValue ?? "")
        })
        for plugin in ["putting", "globe", "tennis", "practice", "scorecard", "notes", "greeter"] {
            XCTAssertEqual(statuses[plugin], "ok", "\(plugin): \(json)")
        }
        // A fresh data directory inside the output folder, one database per plugin.
        let databases = try FileManager.default.contentsOfDirectory(atPath: out + "/data/default").filter { $0.hasSuffix(".sqlite") }
        XCTAssertEqual(Set(databases), ["org.clubhouse.putting.sqlite", "org.clubhouse.globe.sqlite", "org.clubhouse.tennis.sqlite",
                                        "org.clubhouse.practice.sqlite", "org.clubhouse.scorecard.sqlite", "org.example.notes.sqlite"])
        // Pictures and meshes are real files of their kind.
        let files = FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? []
        let svgs = files.filter { $0.hasSuffix(".svg") }
        XCTAssertGreaterThanOrEqual(svgs.count, 5, "\(files)")
        for svg in svgs {
            let text = try String(contentsOfFile: out + "/" + svg, encoding: .utf8)
            XCTAssertTrue(text.contains("<svg") && text.contains("</svg>"), svg)
        }
        for gltf in files.filter({ $0.hasSuffix(".gltf") }) {
            let mesh = try JSONParser.parse(try String(contentsOfFile: out + "/" + gltf, encoding: .utf8))
            XCTAssertEqual(mesh["asset"]?["version"], "2.0", gltf)
        }
        // Running it again starts from a fresh data directory and succeeds again.
        XCTAssertEqual(try c.run(["demo", "--out", out, "--quiet"]).exitCode, 0)
    }
}
