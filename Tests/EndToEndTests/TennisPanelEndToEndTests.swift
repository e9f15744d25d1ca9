// The tennis panel in a real browser (headless Chromium through chromedriver) against a real
// `clubhouse serve --http` whose ball machine is the simulator on a loopback port (its report lines
// stamped as they arrive): a tap on a court spot reaches the machine as that zone's frame at the chosen
// speed and spin; a drill's launches appear in the page while it runs (the plugin's `launch` events);
// Stop gets the machine's stop command to the simulator — the time from the click in the page to the
// frame at the machine is printed and must stay within 200 ms; a tab closed during a drill stops it too.
// A drill started by another client shows on the open panel within a second and its Stop stops it.
// Any console error or failed request fails the test. Screenshots at 375×812 and 1280×800 go to the
// folder printed (CLUBHOUSE_SCREENSHOTS, else $TMPDIR/clubhouse-screenshots). Skipped, saying why,
// without chromium and chromedriver.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class TennisPanelEndToEndTests: XCTestCase {
    static let drills = [
        "four": ##"{"name": "four", "steps": [{"zone": 12, "speed": 50, "spin": "topspin", "delay": 2}, {"zone": 15, "speed": 60, "spin": "flat", "delay": 2}, {"sector": {"x": [0.5, 7.7], "y": [8.4, 11.5]}, "speed": 40, "spin": "extreme-topspin", "delay": 2, "repeat": 2}], "seed": 3}"##,
        "long": ##"{"name": "long rally", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 12}]}"##,
    ]

    /// The running drill has launched its first ball (the list shows this run's launches, not the last drill's).
    static let firstLaunch = ##"return !document.getElementById("running").hidden && document.getElementById("run-title").textContent.startsWith("Running") && document.querySelectorAll("#launches li").length >= 1;"##

    /// The host's pages and the tennis panel, as `serve --ui-dir` serves them.
    func uiFolder(_ c: Clubhouse) throws -> URL { try c.uiFolder(["tennis": "Plugins/Tennis/web"]) }

    func testTheTennisPanelDrivesTheMachine() throws {
        let c = try Clubhouse()
        let driver = try WebDriver.start(folder: c.scratch)
        defer { driver.stop() }
        let simulator = try StampedSimulator(c, latency: 5)
        defer { simulator.stop() }
        let config = try simulator.config(c, name: "tennis-site.json")
        for (name, drill) in TennisPanelEndToEndTests.drills {
            try c.succeed(["--config", config, "tennis", "drill", "save", try c.write("\(name).json", drill)])
        }
        let shots = WebPanelsEndToEndTests.screenshots
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        print("TennisPanelEndToEndTests: screenshots in \(shots.path)")
        let server = try HTTPServerProcess(c, arguments: ["--config", config], options: ["--ui-dir", try uiFolder(c).path])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        func pairingURL(_ name: String) throws -> String {
            let pairing = try c.succeed(["--config", config, "--json", "token", "pair", "--scope", "tennis:*", "--name", name]).json()
            return base + "/pair#code=" + (try XCTUnwrap(pairing["code"]?.stringValue)).replacingOccurrences(of: "-", with: "")
        }
        let phone = try driver.session(width: 375, height: 812, mobile: true)
        defer { phone.close() }
        let desk = try driver.session(width: 1280, height: 800, mobile: false)
        defer { desk.close() }
        for (browser, name) in [(phone, "phone"), (desk, "desk")] {
            try browser.open(try pairingURL(name))
            try browser.wait("pairing", ##"return document.getElementById("pairing").hidden && document.getElementById("who").textContent.length > 0;"##)
        }
        var renders: [String] = []
        func open(_ browser: BrowserSession, _ size: String) throws {
            try browser.open(base + "/ui/tennis/")
            try browser.wait("the drills", ##"return document.querySelectorAll("#drills button[data-drill]").length === 2 && document.querySelectorAll("#court .zone").length === 16;"##)
            try browser.wait("the page's first render", ##"return performance.getEntriesByName("clubhouse:rendered").length > 0;"##)
            let ms = try browser.run(##"return performance.getEntriesByName("clubhouse:rendered")[0].startTime;"##).doubleValue ?? .nan
            renders.append("tennis \(size) \(Int(ms.rounded())) ms")
            try browser.wait("the live events", ##"return document.getElementById("live").dataset.state === "open";"##)
        }
        /// The viewport point of a court point (metres), by the picture's own transform.
        func screen(_ browser: BrowserSession, _ x: Double, _ y: Double) throws -> (x: Int, y: Int) {
            try browser.scrollIntoView("#court")
            let p = (try browser.run(##"const m = document.getElementById("court").getScreenCTM(); const p = new DOMPoint(arguments[0], arguments[1]).matrixTransform(m); return [p.x, p.y];"##,
                                     [.double(x), .double(y)]).arrayValue ?? []).map { $0.doubleValue ?? 0 }
            return (Int(p[0].rounded()), Int(p[1].rounded()))
        }

        // 1. Tap a spot: the machine receives that zone's frame at the speed and spin chosen.
        try open(phone, "375x812")
        try phone.screenshot(to: shots.appendingPathComponent("tennis-375x812.png"))
        // A tap beyond the net is no target: said where the tap was, and nothing is sent.
        var from = simulator.lines.count
        try phone.drag(at: try screen(phone, 4.0, -1.5), dx: 0, dy: 0, pointer: "touch")
        try phone.wait("the refusal", ##"return !document.getElementById("court-error").hidden;"##)
        XCTAssertEqual(try phone.text("#court-error"), "clubhouse: that spot is outside your half of the court; tap inside the lines")
        try phone.run(##"const s = document.getElementById("speed"); s.value = "70"; s.dispatchEvent(new Event("input", {bubbles: true}));"##)
        try phone.click(##"input[name=spin][value="extreme-topspin"]"##)
        XCTAssertFalse(simulator.lines.dropFirst(from).contains(where: \.isStart), "a tap beyond the net sent a frame")
        from = simulator.lines.count
        // (3.0, 7.2) m: column 1 (2.06–4.12 m), row 2 (service line–70 %): zone 9.
        try phone.drag(at: try screen(phone, 3.0, 7.2), dx: 0, dy: 0, pointer: "touch")
        let frame = try XCTUnwrap(simulator.wait(from: from, timeout: 20) { $0.isStart }, "the machine received no frame after the tap")
        // The default table: wheels 50 + 10·(zone mod 4) and 50 + 10·(zone div 4); pitch 30 + 5·level (70 mph: level 5);
        // yaw 45 + 15·spin (extreme topspin: 2).
        XCTAssertTrue(frame.text.contains("UW=60") && frame.text.contains("LW=70") && frame.text.contains("pitch=55") && frame.text.contains("yaw=75"),
                      frame.text)
        try phone.wait("the shot's outcome", ##"return document.getElementById("shot").textContent.startsWith("Fired at zone 9");"##)
        let shot = try phone.text("#shot")
        XCTAssertTrue(shot.contains("70 mph extreme topspin"), shot)
        // The keyboard: the court is one Tab stop (zone 0); two right arrows, then Enter fires at zone 2's
        // centre (wheels 70 and 50).
        from = simulator.lines.count
        XCTAssertEqual(try phone.run(##"return [...document.querySelectorAll('#court .zone[tabindex="0"]')].map((z) => z.dataset.zone).join();"##).stringValue, "0")
        try phone.run(##"document.querySelector('#court .zone[tabindex="0"]').focus();"##)
        try phone.press("\u{E014}")
        try phone.press("\u{E014}")
        try phone.press("\u{E007}")
        let keyed = try XCTUnwrap(simulator.wait(from: from, timeout: 20) { $0.isStart }, "the machine received no frame after Enter")
        XCTAssertTrue(keyed.text.contains("UW=70") && keyed.text.contains("LW=50"), keyed.text)
        try phone.wait("the keyed shot's outcome", ##"return document.getElementById("shot").textContent.startsWith("Fired at zone 2");"##)
        XCTAssertEqual(try phone.run("return document.activeElement.dataset.zone;").stringValue, "2", "the focus stays on the zone")
        try phone.scrollIntoView("#court")
        try phone.screenshot(to: shots.appendingPathComponent("tennis-shot-375x812.png"))
        try phone.assertQuietConsole("the tennis panel, a shot")

        // 2. A drill: each launch shows in the page while the drill runs, then the landing picture.
        from = simulator.lines.count
        try phone.click(##"button[data-drill="four"]"##)
        try phone.wait("the Stop bar", ##"return !document.getElementById("running").hidden;"##)
        try phone.wait("a launch shown while the drill runs", ##"return document.querySelectorAll("#launches li").length >= 2 && !document.getElementById("running").hidden;"##)
        let shownWhileRunning = try phone.run(##"return document.querySelectorAll("#launches li").length;"##).intValue ?? 0
        XCTAssertLessThan(shownWhileRunning, 4, "the launches appear one by one, not at the end")
        // Each launch shown is one the machine received (its report line may trail the page by a moment).
        XCTAssertNotNil(simulator.wait(from: from, timeout: 2) { _ in simulator.lines.dropFirst(from).filter(\.isStart).count >= shownWhileRunning })
        try phone.screenshot(to: shots.appendingPathComponent("tennis-running-375x812.png"))
        try phone.wait("the drill's end", timeout: 30, ##"return document.getElementById("running").hidden && document.getElementById("run-summary").textContent.includes("Session");"##)
        XCTAssertEqual(simulator.lines.dropFirst(from).filter(\.isStart).count, 4)
        let summary = try phone.text("#run-summary")
        XCTAssertTrue(summary.hasPrefix("4 of 4 balls launched, 4 completed"), summary)
        XCTAssertEqual(try phone.run(##"return document.querySelectorAll("#court .ball.launched").length;"##).intValue, 4)
        XCTAssertEqual(try phone.text("#launches li:first-child"), "Ball 1 of 4 → zone 12: at the baseline, far left, 50 mph topspin")
        try phone.scrollIntoView("#court")
        try phone.screenshot(to: shots.appendingPathComponent("tennis-landing-375x812.png"))
        try phone.assertQuietConsole("the tennis panel, a drill")

        // 3. Stop: from the click in the page to the stop command at the machine.
        let (stopMs, clickMs) = try stopDrill(phone, simulator: simulator)
        try phone.wait("the stopped drill", timeout: 20, ##"return document.getElementById("run-summary").textContent.startsWith("Stopped by you");"##)
        let stopped = try phone.text("#run-summary")   // "Stopped by you after N of 12 balls."
        XCTAssertTrue(stopped.range(of: #"^Stopped by you after ([1-9]|1[01]) of 12 balls\.$"#, options: .regularExpression) != nil, stopped)
        try phone.wait("the stored session", timeout: 20, ##"return (document.querySelector("#sessions li") || {}).textContent?.includes("long rally");"##)
        try phone.assertQuietConsole("the tennis panel, Stop")

        // 4. A tab closed during a drill stops the machine.
        try open(desk, "1280x800")
        let first = try desk.windowHandle()
        try desk.openTab()
        try open(desk, "1280x800 (tab)")
        from = simulator.lines.count
        try desk.click(##"button[data-drill="long rally"]"##)
        try desk.wait("the first launch", TennisPanelEndToEndTests.firstLaunch)
        let closedAt = monotonicNanoseconds()
        try desk.closeTab(then: first)
        let stop = try XCTUnwrap(simulator.wait(from: from, timeout: 10) { $0.isStop }, "the machine got no stop after the tab closed")
        let closeMs = (Double(stop.at) - Double(closedAt)) / 1e6
        let after = simulator.lines.dropFirst(from)
        XCTAssertFalse(after.contains { $0.isStart && $0.at > stop.at }, "a ball after the stop")
        XCTAssertLessThan(after.filter(\.isStart).count, 12)

        // 5. The connection lost during a drill (the browser offline): the machine stops — the call's connection
        // fails, or its lease lapses — and the page says so; back online, the live events resume.
        try desk.run("location.reload();")
        try desk.wait("the drills again", ##"return document.querySelectorAll("#drills button[data-drill]").length === 2;"##)
        try desk.wait("the closed tab's session", timeout: 20, ##"return [...document.querySelectorAll("#sessions li")].filter((l) => l.textContent.includes("long rally")).length === 2;"##)
        try desk.wait("the live events", ##"return document.getElementById("live").dataset.state === "open";"##)
        from = simulator.lines.count
        try desk.click(##"button[data-drill="long rally"]"##)
        try desk.wait("the first launch", TennisPanelEndToEndTests.firstLaunch)
        let offlineAt = monotonicNanoseconds()
        try desk.offline(true)
        let lostStop = try XCTUnwrap(simulator.wait(from: from, timeout: 15) { $0.isStop }, "the machine got no stop after the connection was lost")
        let lostMs = (Double(lostStop.at) - Double(offlineAt)) / 1e6
        // (Chrome's offline mode fails new requests — the lease's renewals — and keeps the drill's connection:
        // the lease lapses after its 5 s and the host cancels the call.)
        try desk.wait("the page's word on the lost connection", timeout: 15, ##"return document.getElementById("running").hidden && /^The host stopped the drill after \d+ of 12 balls/.test(document.getElementById("run-summary").textContent);"##)
        let lostLine = try desk.text("#run-summary")
        XCTAssertTrue(lostLine.hasSuffix("it did not hear from this page (the connection was lost)."), lostLine)
        try desk.offline(false)
        try desk.wait("the live events again", timeout: 30, ##"return document.getElementById("live").dataset.state === "open";"##)
        // Only the lost connection's own failures were logged meanwhile.
        let offlineEntries = try desk.consoleEntries().filter { entry in
            entry.level == "SEVERE" && !entry.message.contains("ERR_INTERNET_DISCONNECTED")
                && !(entry.message.contains("/api/tennis/drills/long%20rally/run") && entry.message.contains("status of 499"))
        }
        XCTAssertTrue(offlineEntries.isEmpty, "\(offlineEntries)")
        try desk.click(##"button[data-drill="four"]"##)
        try desk.wait("the drill's end", timeout: 30, ##"return document.getElementById("running").hidden && document.getElementById("run-summary").textContent.includes("Session");"##)
        try desk.screenshot(to: shots.appendingPathComponent("tennis-1280x800.png"))
        try desk.assertQuietConsole("the tennis panel on a desktop")

        // 6. A drill started by another client (a coach's token over the HTTP API) shows on the open panel
        // within a second, with each ball; a shot meanwhile is refused (the machine has one user at a time);
        // Stop in the panel stops it — the machine gets its stop command — and the panel clears.
        let token = try XCTUnwrap(try c.succeed(["--config", config, "--json", "token", "create", "--name", "coach", "--scope", "tennis:*"])
            .json()["token"]?.stringValue)
        let auth = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        from = simulator.lines.count
        let elsewhere = DrillElsewhere(port: server.port, headers: auth)
        let startedAt = monotonicNanoseconds()
        try desk.wait("the drill started elsewhere", timeout: 5, ##"return !document.getElementById("running").hidden && document.getElementById("run-title").textContent === "Running “long rally” (started elsewhere)";"##)
        let shownMs = (Double(monotonicNanoseconds()) - Double(startedAt)) / 1e6
        XCTAssertLessThan(shownMs, 1000, "the panel showed the drill \(shownMs) ms after it was started elsewhere")
        try desk.wait("its first ball", timeout: 10, ##"return document.querySelectorAll("#launches li").length >= 1 && /^“long rally”, started elsewhere: Ball 1 of 12/.test(document.getElementById("running-text").textContent);"##)
        XCTAssertEqual(try desk.run(##"return document.querySelector('#drills button[data-drill="four"]').disabled;"##), .bool(true), "no drill starts beside it")
        let refused = try httpRequest(port: server.port, "POST", "/api/tennis/send", headers: auth, body: Array(#"{"zone": 3}"#.utf8))
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(try JSONParser.parse(bytes: refused.body)["error"]?["message"]?.stringValue,
                       "the ball machine 'ballmachine' is running drill \"long rally\" (ball 1 of 12); stop it first (Stop in the tennis panel, POST /api/tennis/stop) or wait for it to end")
        let running = try JSONParser.parse(bytes: try httpRequest(port: server.port, "GET", "/api/tennis/running", headers: auth).body)
        XCTAssertEqual(running["running"]?["drill"]?.stringValue, "long rally")
        try desk.screenshot(to: shots.appendingPathComponent("tennis-elsewhere-1280x800.png"))
        try desk.run(##"document.getElementById("stop").addEventListener("click", () => { window.stopClickedAt = performance.timeOrigin + performance.now(); }, {capture: true, once: true});"##)
        let wallMinusMonotonicMs = Date().timeIntervalSince1970 * 1000 - Double(monotonicNanoseconds()) / 1e6
        try desk.click("#stop")
        let remoteStop = try XCTUnwrap(simulator.wait(from: from, timeout: 5) { $0.isStop }, "the machine got no stop after Stop for a drill started elsewhere")
        let remoteClickedAt = try XCTUnwrap(try desk.run("return window.stopClickedAt;").doubleValue)
        let remoteStopMs = Double(remoteStop.at) / 1e6 + wallMinusMonotonicMs - remoteClickedAt
        XCTAssertFalse(simulator.lines.dropFirst(from).contains { $0.isStart && $0.at > remoteStop.at }, "a ball after the stop")
        let answer = try elsewhere.wait()
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(try JSONParser.parse(bytes: answer.body)["stoppedElsewhere"]?.boolValue, true)
        try desk.wait("the panel cleared", timeout: 5, ##"return document.getElementById("running").hidden && /^Stopped after [1-9]\d* of 12 balls \(the drill was started elsewhere\)\.$/.test(document.getElementById("run-summary").textContent) && !document.querySelector('#drills button[data-drill="four"]').disabled;"##)
        let idle = try JSONParser.parse(bytes: try httpRequest(port: server.port, "GET", "/api/tennis/running", headers: auth).body)
        XCTAssertEqual(idle["running"], .null)
        let nothing = try httpRequest(port: server.port, "POST", "/api/tennis/stop", headers: auth, body: Array("{}".utf8))
        XCTAssertEqual(try JSONParser.parse(bytes: nothing.body)["stopped"]?.boolValue, false, nothing.text)
        // The command line says the same of its own host (a terminal's drill is its own process).
        XCTAssertEqual(try c.succeed(["--config", config, "tennis", "stop"]).stdout, "nothing to stop: the ball machine is idle\n")
        XCTAssertEqual(try c.succeed(["--config", config, "tennis", "running"]).stdout, "the ball machine is idle\n")
        try desk.assertQuietConsole("the tennis panel, a drill started elsewhere")
        print("TennisPanelEndToEndTests: first render: \(renders.joined(separator: ", ")); Stop → stop command at the machine: \(String(format: "%.1f", stopMs)) ms from the click in the page (\(String(format: "%.1f", clickMs)) ms from the WebDriver click); tab closed → stop command: \(String(format: "%.1f", closeMs)) ms; offline → stop command: \(String(format: "%.1f", lostMs)) ms; a drill started elsewhere shown: \(String(format: "%.0f", shownMs)) ms after its request, its Stop → stop command: \(String(format: "%.1f", remoteStopMs)) ms from the click in the page")
        XCTAssertLessThanOrEqual(stopMs, 200, "Stop took \(stopMs) ms to reach the machine")
        XCTAssertLessThanOrEqual(remoteStopMs, 200, "Stop of a drill started elsewhere took \(remoteStopMs) ms to reach the machine")
    }

    /// The long drill run by another client over the HTTP API (its own thread), its response kept.
    final class DrillElsewhere: @unchecked Sendable {
        // Safe: `response` and `error` are written once by the thread, read after `done` is signalled.
        var response: RawHTTPResponse?
        var error: Error?
        let done = DispatchSemaphore(value: 0)

        init(port: UInt16, headers: [(String, String)]) {
            Thread.detachNewThread { [self] in
                do {
                    response = try httpRequest(port: port, "POST", "/api/tennis/drills/long%20rally/run", headers: headers, body: Array("{}".utf8), timeout: 60)
                } catch {
                    self.error = error
                }
                done.signal()
            }
        }

        func wait() throws -> RawHTTPResponse {
            guard done.wait(timeout: .now() + 20) == .success else { throw HTTPTestError("the drill started elsewhere did not end") }
            if let error { throw error }
            guard let response else { throw HTTPTestError("no response") }
            return response
        }
    }

    /// Runs the long drill, waits for its first launch, clicks Stop: the milliseconds from the click in the
    /// page (a listener the test adds) and from the WebDriver command to the stop command at the machine.
    func stopDrill(_ browser: BrowserSession, simulator: StampedSimulator) throws -> (Double, Double) {
        let from = simulator.lines.count
        try browser.click(##"button[data-drill="long rally"]"##)
        try browser.wait("the first launch", TennisPanelEndToEndTests.firstLaunch)
        try browser.run(##"document.getElementById("stop").addEventListener("click", () => { window.stopClickedAt = performance.timeOrigin + performance.now(); }, {capture: true, once: true});"##)
        // The page's clock is the wall clock; the simulator's stamps are CLOCK_MONOTONIC.
        let wallMinusMonotonicMs = Date().timeIntervalSince1970 * 1000 - Double(monotonicNanoseconds()) / 1e6
        let clickAt = monotonicNanoseconds()
        try browser.click("#stop")
        let stop = try XCTUnwrap(simulator.wait(from: from, timeout: 10) { $0.isStop }, "the machine got no stop after Stop")
        let clickedAt = try XCTUnwrap(try browser.run("return window.stopClickedAt;").doubleValue)
        let after = simulator.lines.dropFirst(from)
        XCTAssertFalse(after.contains { $0.isStart && $0.at > stop.at }, "a ball after the stop")
        return (Double(stop.at) / 1e6 + wallMinusMonotonicMs - clickedAt, (Double(stop.at) - Double(clickAt)) / 1e6)
    }
}
