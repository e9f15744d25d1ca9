// Issue 27's attack round: the wire deadlock. A runner writes 50,000 forged service calls (storage
// prepare) and never reads the answers (Tests/Fixtures/plugins/wire_flood.c). The host used to block
// writing an answer to the runner's full pipe while the runner blocked writing the next call to the
// host's: neither `timeout_ms` nor `wall_ms` fired and the command hung for ever. Now every write to a
// runner is polled against the plugin's `timeout_ms`: the runner that does not read is stopped, the
// call fails naming the plugin, and the plugin answers on the next call. Every wait is bounded.

import ClubhouseJSON
import Foundation
import XCTest

final class WireStallEndToEndTests: XCTestCase {
    private func site(_ c: Clubhouse, isolation: String) throws -> String {
        let fixture = try FixturePlugins.build("FLOOD", id: "org.tests.flood", file: "wire_flood.c")
        return try c.write("flood-\(isolation).json", """
            {"sites": {"default": {"plugins": {
              "fl": {"path": "\(fixture)", "grants": ["storage"], "isolation": "\(isolation)", "timeout_ms": 1500}
            }}}}
            """)
    }

    func testARunnerThatNeverReadsItsAnswersIsStoppedAndTheCallFails() throws {
        for isolation in ["process", "sandbox"] {
            let c = try Clubhouse()
            let config = try site(c, isolation: isolation)
            let started = Date()
            let r = try c.run(["--config", config, "fl", "flood"], timeout: 60)
            if r.stderr.contains("has no Landlock") { throw XCTSkip("this kernel has no Landlock: \(r.stderr)") }
            XCTAssertEqual(r.exitCode, 1, "\(isolation): \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("plugin 'fl' stopped reading its pipe: an answer to it could not be written for 1500 ms"),
                          "\(isolation): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("and was stopped during 'flood'; the host keeps running and restarts the plugin on the next call"),
                          "\(isolation): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").filter { $0.contains("stopped reading its pipe") }.count, 1,
                           "\(isolation): one line: \(r.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 20, "\(isolation): bounded by timeout_ms, not for ever")
            // The plugin itself still answers.
            let hello = try c.run(["--config", config, "--json", "fl", "hello"], timeout: 30)
            XCTAssertEqual(hello.exitCode, 0, "\(isolation): \(hello.stderr)")
        }
    }
}
