// The main job: `clubhouse demo` on the embedded default site runs every plugin's demo on sample
// data the project makes itself and writes the pictures and data into one folder.

import ClubhouseJSON
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

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

    /// Issue 30, Deliver 4: Ctrl-C stops the demo (exit 130) and leaves nothing half-written.
    func testCtrlCStopsTheDemoAndLeavesNothingHalfWritten() throws {
        let c = try Clubhouse()
        let out = c.path("demo")
        let demo = try RunningClubhouse(c, ["demo", "--out", out], dataDirectory: "")
        let deadline = Date().addingTimeInterval(60)
        while !demo.stderr.contains("running globe demo") && demo.process.isRunning && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(demo.signal(SIGINT), "the demo ended before the Ctrl-C: \(demo.stderr)")
        let ended = demo.wait(timeout: 60)
        XCTAssertEqual(ended?.status, 130, demo.stderr)
        let errors = demo.stderr.split(separator: "\n").filter { $0.hasPrefix("clubhouse: ") }
        XCTAssertEqual(errors.count, 1, demo.stderr)
        XCTAssertTrue(errors.first?.contains("demo stopped by Ctrl-C during the globe demo; its output was removed (nothing half-written is left in \(out))") ?? false,
                      demo.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "the folder the demo made is gone")
    }

    /// Issue 30, Deliver 4: a full disk (a 600 KiB tmpfs in a private mount namespace) ends the demo
    /// with one error line, no "Demo output written" and no empty databases left behind.
    func testAFullDiskEndsTheDemoWithOneErrorAndNothingLeft() throws {
        let c = try Clubhouse()
        let mount = c.path("small-disk")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let script = try c.write("full-disk.sh", """
            set -u
            mount -t tmpfs -o size=600k tmpfs '\(mount)' || exit 99
            CLUBHOUSE_DATA_DIR= '\(Clubhouse.executable.path)' demo --out '\(mount)/demo' > '\(c.path("out.txt"))' 2> '\(c.path("err.txt"))'
            echo $? > '\(c.path("rc.txt"))'
            find '\(mount)' -name '*.sqlite*' > '\(c.path("left.txt"))'
            """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rm", "sh", script]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw XCTSkip("unshare is not available to mount a small tmpfs: \(error)") }
        process.waitUntilExit()
        guard process.terminationStatus == 0, FileManager.default.fileExists(atPath: c.path("rc.txt")) else {
            throw XCTSkip("cannot mount a tmpfs in a user namespace here (unshare -rm exited \(process.terminationStatus))")
        }
        let read = { (name: String) in (try? String(contentsOfFile: c.path(name), encoding: .utf8)) ?? "" }
        XCTAssertEqual(read("rc.txt").trimmingCharacters(in: .whitespacesAndNewlines), "1", read("err.txt"))
        let errors = read("err.txt").split(separator: "\n").filter { $0.hasPrefix("clubhouse: ") }
        XCTAssertEqual(errors.count, 1, read("err.txt"))
        XCTAssertTrue(errors.first?.contains("clubhouse: demo stopped: the disk holding \(mount)/demo is full (the ") ?? false, read("err.txt"))
        XCTAssertTrue(errors.first?.contains("its output was removed; free some space or give --out on another disk") ?? false, read("err.txt"))
        XCTAssertFalse(read("out.txt").contains("Demo output written"), read("out.txt"))
        XCTAssertFalse(read("err.txt").contains("FAILED"), read("err.txt"))
        XCTAssertEqual(read("left.txt"), "", "databases left on the full disk")
    }

    /// Issue 30, Deliver 4: against the simulator the tennis demo's drill runs on a simulated clock
    /// (its six balls 2 s apart take no time; a real machine keeps real pacing).
    func testTheTennisDemoDrillRunsOnASimulatedClock() throws {
        let c = try Clubhouse()
        let json = try c.succeed(["tennis", "demo", "--out", c.path("tennis"), "--json"]).json()
        XCTAssertEqual(json["simulatedClock"], .bool(true), "\(json)")
        XCTAssertEqual(json["drillBalls"]?.intValue, 6)
        XCTAssertEqual(json["drillCompleted"]?.intValue, 6)
        XCTAssertTrue(try c.succeed(["tennis", "demo", "--out", c.path("tennis2")]).stdout.contains("against device 'ballmachine' on a simulated clock"))
    }
}
