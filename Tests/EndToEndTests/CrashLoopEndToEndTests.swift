// A plugin that crashes in a loop under `serve` (issue 27, Performance: serve throughput with runners
// restarting): its restarts are spaced by a pause that doubles up to `limits.restart_backoff_ms`
// (CrashLoop.swift), another plugin's client is answered while a call waits for the restart, a
// cancel ends that wait at once, and the plugin answers again once it stops crashing.

import ClubhouseJSON
import Foundation
import XCTest

final class CrashLoopEndToEndTests: XCTestCase {
    func testACrashLoopsRestartsAreSpacedOthersAreServedAndItRecovers() throws {
        let c = try Clubhouse()
        let fixture = try FixturePlugins.build("LOOP", id: "org.tests.crashloop", file: "crash_loop.c")
        // No "limits": the default back-off (10 ms doubling up to 1000 ms).
        let config = try c.write("loop.json", """
            {"sites": {"default": {"plugins": {
              "loop": {"path": "\(fixture)", "isolation": "process"},
              "notes": {"id": "org.example.notes", "grants": ["storage"], "isolation": "in-process"}
            }}}}
            """)
        try FileManager.default.createDirectory(at: c.dataDirectory, withIntermediateDirectories: true)
        let server = try RunningClubhouse(c, ["--config", config, "serve", "--socket", c.path("rpc.sock")])
        defer {
            server.signal(SIGTERM)
            _ = server.wait()
        }
        let a = try RPCSocketClient(path: c.path("rpc.sock"))
        let b = try RPCSocketClient(path: c.path("rpc.sock"))
        func call(_ id: Int, _ plugin: String, _ command: String) -> String {
            #"{"jsonrpc":"2.0","id":\#(id),"method":"clubhouse.call","params":{"plugin":"\#(plugin)","command":"\#(command)"}}"#
        }
        // Eight crashes in a row; after the k-th the next runner waits 0, 10, 20 … 640 ms.
        let pauses = [0, 10, 20, 40, 80, 160, 320, 640]
        for (k, pause) in zip(1..., pauses) {
            a.send(call(k, "loop", "crash"))
            let (reply, _) = try a.response(id: k)
            let message = reply["error"]?["message"]?.stringValue ?? ""
            XCTAssertEqual(reply["error"]?["data"]?["status"], "plugin-failed", "\(reply)")
            XCTAssertTrue(message.contains("SIGSEGV"), message)
            if pause == 0 {
                XCTAssertTrue(message.hasSuffix("restarts the plugin on the next call"), message)
            } else {
                XCTAssertTrue(message.hasSuffix("restarts the plugin on the next call, \(pause) ms from now at the earliest (its runner ended \(k) times in a row soon after starting; a crash loop's restarts wait, doubling up to \"limits\": {\"restart_backoff_ms\": 1000})"), message)
            }
        }
        // A call now waits 640 ms for the restart, holding nothing another plugin needs: the other
        // client's calls are answered meanwhile, and the waiting call is still unanswered after them.
        a.send(call(9, "loop", "hello"))
        for n in 0..<5 {
            b.send(call(100 + n, "notes", "ping"))
            XCTAssertNotNil(try b.response(id: 100 + n).0["result"])
        }
        var pending = pollfd(fd: a.fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pending, 1, 0), 0, "the call waiting for the restart was answered before the pause ended")
        // A cancel ends the wait at once.
        a.send(#"{"jsonrpc":"2.0","id":10,"method":"clubhouse.cancel","params":{"id":9}}"#)
        let (cancelled, _) = try a.response(id: 9)
        XCTAssertEqual(cancelled["error"]?["data"]?["status"], "cancelled", "\(cancelled)")
        let said = cancelled["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(said.hasPrefix("cancelled while plugin 'loop' waited "), said)
        XCTAssertTrue(said.contains(" ms more to restart after its runner ended 8 times in a row soon after starting (the last: crashed (killed by signal 11, SIGSEGV"), said)
        // It stopped crashing: the next call starts a runner once the pause is over, and it answers.
        a.send(call(11, "loop", "hello"))
        let (hello, _) = try a.response(id: 11)
        XCTAssertNotNil(hello["result"]?["pid"]?.intValue, "\(hello)")
        a.send(call(12, "loop", "hello"))
        XCTAssertEqual(try a.response(id: 12).0["result"]?["pid"], hello["result"]?["pid"], "one runner serves both calls")

        // The fixture's log: each runner after a crash started no sooner than the pause the host announced.
        let log = try String(contentsOf: c.dataDirectory.appendingPathComponent("crash_loop.log"), encoding: .utf8)
        let events = log.split(separator: "\n").compactMap { line -> (String, UInt64)? in
            let words = line.split(separator: " ")
            guard words.count == 2, let at = UInt64(words[1]) else { return nil }
            return (String(words[0]), at)
        }
        let crashes = events.enumerated().filter { $0.element.0 == "crash" }
        XCTAssertEqual(crashes.count, 8, log)
        for (k, crash) in crashes.enumerated() {
            guard let start = events[(crash.offset + 1)...].first(where: { $0.0 == "start" }) else {
                XCTFail("no runner started after crash \(k + 1):\n\(log)")
                continue
            }
            let waited = Double(start.1 - crash.element.1) / 1e6
            XCTAssertGreaterThanOrEqual(waited, Double(pauses[k]), "runner \(k + 2) started \(waited) ms after crash \(k + 1)")
        }
    }
}
