// The practice panel in a real browser (headless Chromium through chromedriver) against a real
// `clubhouse serve --http`: a launch monitor's export is uploaded (progress in bytes) and the session's
// A/B/C per club is the CLI's; an upload cancelled half-way (the browser's upload throttled) stores
// nothing and leaves no file; the trend and dispersion charts are drawn from the plugin's numbers; the
// templates are renamed, duplicated, activated and hidden from the page as the CLI then lists them.
// Any console error or failed request fails the test; nothing may move when data arrives (layout shift).
// Screenshots at 375×812 and 1280×800 go to the folder printed (CLUBHOUSE_SCREENSHOTS, else
// $TMPDIR/clubhouse-screenshots). Skipped, saying why, without chromium and chromedriver.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class PracticePanelEndToEndTests: XCTestCase {
    static let panel = "Plugins/Practice/web"

    func uiFolder(_ c: Clubhouse) throws -> URL {
        let ui = c.scratch.appendingPathComponent("ui")
        try FileManager.default.createDirectory(at: ui, withIntermediateDirectories: true)
        for (alias, source) in ["_": "Host/Web", "practice": PracticePanelEndToEndTests.panel] {
            try FileManager.default.copyItem(at: Clubhouse.repositoryRoot.appendingPathComponent(source), to: ui.appendingPathComponent(alias))
        }
        return ui
    }

    func testThePanelsFilesAreSmallAndSelfContained() throws {
        let folder = Clubhouse.repositoryRoot.appendingPathComponent(PracticePanelEndToEndTests.panel)
        var total = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            total += data.count
            let text = String(decoding: data, as: UTF8.self)
            XCTAssertFalse(text.contains("https://") || (text.contains("http://") && !text.contains("http://www.w3.org/")), "\(name) names another host")
            if name.hasSuffix(".html") {
                XCTAssertNil(text.range(of: "<script>"), "\(name) has an inline script")
                XCTAssertNil(text.range(of: " style=\""), "\(name) has an inline style")
                XCTAssertNil(text.range(of: " on[a-z]+=\"", options: .regularExpression), "\(name) has an inline handler")
            }
        }
        XCTAssertLessThanOrEqual(total, 150 * 1024, "the practice panel is \(total) bytes; at most 150 KB")
    }

    /// An MLM2PRO export of `shots` 7-iron shots (about 95 bytes each), written by the test.
    static func bigExport(shots: Int) -> String {
        var text = #""Club Type","Club Brand","Club Model","Carry Distance","Total Distance","Ball Speed","Launch Angle","Launch Direction","Apex","Side Carry","Club Speed","Smash Factor","Descent Angle","Attack Angle","Club Path","Club Data Est Type","Spin Rate","Spin Axis""# + "\n"
        for i in 0..<shots {
            text += #""7i",,,"\#(130 + i % 30).\#(i % 10)","\#(140 + i % 30).0","\#(95 + i % 15).5","24.0","-1.0","92.0","\#(i % 13 - 6).5","77.0","1.3\#(i % 10)","48.0","-1.0","-2.0",0,"\#(5000 + i % 900)","2.0""# + "\n"
        }
        return text
    }

    func testThePracticePanelInABrowser() throws {
        let c = try Clubhouse()
        let shots = WebPanelsEndToEndTests.screenshots
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let driver = try WebDriver.start(folder: c.scratch)
        defer { driver.stop() }
        print("PracticePanelEndToEndTests: screenshots in \(shots.path)")

        // Launch-monitor exports from the project's own generator (`practice demo`, at a site of its own):
        // the site under test imports all but the last by the CLI (history for the trends); the browser
        // uploads the last.
        let generator = try Clubhouse()
        try generator.succeed(["practice", "demo", "--out", generator.path("demo")])
        let exports = try FileManager.default.contentsOfDirectory(atPath: generator.path("demo")).filter { $0.hasSuffix(".csv") }.sorted()
        XCTAssertGreaterThanOrEqual(exports.count, 3, "\(exports)")
        for name in exports.dropLast() { try c.succeed(["practice", "import", generator.path("demo/\(name)"), "--location", "Home range"]) }
        let last = try XCTUnwrap(exports.last)
        let uploaded = c.path("upload/\(last)")
        try FileManager.default.createDirectory(atPath: c.path("upload"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: generator.path("demo/\(last)"), toPath: uploaded)
        let big = try c.write("upload/big-session.csv", PracticePanelEndToEndTests.bigExport(shots: 16_000))

        let server = try HTTPServerProcess(c, arguments: [], options: ["--ui-dir", try uiFolder(c).path])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        var timings: [String] = []
        func pair(_ browser: BrowserSession, _ name: String) throws {
            let code = try XCTUnwrap(try c.succeed(["--json", "token", "pair", "--scope", "practice:*", "--name", name]).json()["code"]?.stringValue)
            try browser.open(base + "/pair#code=" + code.replacingOccurrences(of: "-", with: ""))
            try browser.wait("pairing", #"return document.getElementById("pairing").hidden && document.getElementById("who").textContent.length > 0;"#)
        }
        func open(_ browser: BrowserSession, _ fragment: String, _ size: String) throws {
            try browser.open("about:blank")   // a new document each time (a fragment alone would not load the page)
            try browser.open(base + "/ui/practice/" + fragment)
            try browser.wait("the practice panel", #"return document.body.dataset.ready === "1";"#)
            let ms = try browser.run(#"return performance.getEntriesByName("clubhouse:rendered")[0].startTime;"#).doubleValue ?? .nan
            timings.append("\(fragment.isEmpty ? "#sessions" : fragment) \(size) \(Int(ms.rounded())) ms")
        }
        /// The layout shift of the page so far (the CLS sum; data arriving must not move what is shown).
        func layoutShift(_ browser: BrowserSession) throws -> Double {
            try browser.run(#"""
                return new Promise((done) => {
                  new PerformanceObserver((list) => {
                    done(list.getEntries().filter((e) => !e.hadRecentInput).reduce((s, e) => s + e.value, 0));
                  }).observe({ type: "layout-shift", buffered: true });
                  setTimeout(() => done(0), 300);
                });
                """#).doubleValue ?? .nan
        }

        /// Clicks in the middle of the viewport (the sticky tabs cover the top).
        func press(_ browser: BrowserSession, _ css: String) throws {
            try browser.scrollIntoView(css)
            try browser.click(css)
        }
        let phone = try driver.session(width: 375, height: 812, mobile: true)
        defer { phone.close() }
        let desk = try driver.session(width: 1280, height: 800, mobile: false)
        defer { desk.close() }
        try pair(phone, "phone")
        try pair(desk, "desk")

        // Upload from the phone: the bytes go up, the session opens with its grades.
        try open(phone, "", "375x812")
        XCTAssertLessThan(try layoutShift(phone), 0.05, "the sessions view moved while its data arrived")
        XCTAssertEqual(try phone.run(#"return document.querySelectorAll('#sessions a').length;"#).intValue, exports.count - 1)
        try phone.type("#csv", uploaded)
        try phone.type("#location", "Range")
        try press(phone, "#upload")
        try phone.wait("the import", #"return document.getElementById("upload-form").dataset.state === "done";"#)
        XCTAssertEqual(try phone.run(#"return Number(document.getElementById("progress").dataset.sent);"#).intValue,
                       try FileManager.default.attributesOfItem(atPath: uploaded)[.size] as? Int)
        try phone.wait("the new session", #"return location.hash.startsWith('#session=') && document.querySelectorAll('#detail-body .club').length > 0;"#)
        let id = String((try phone.run("return location.hash;").stringValue ?? "").dropFirst("#session=".count))
        let cli = try c.succeed(["--json", "practice", "session", id]).json()
        XCTAssertEqual(cli["session"]?["location"]?.stringValue, "Range")
        XCTAssertEqual((cli["session"]?["source_name"]?.stringValue ?? "").split(separator: "/").last.map(String.init), last)
        let clubs = cli["clubs"]?.arrayValue ?? []
        XCTAssertFalse(clubs.isEmpty)
        for club in clubs {
            let a = try XCTUnwrap(club["analysis"])
            let name = a["club"]?.stringValue ?? ""
            let shown = try phone.text(#"#detail-body .club[data-club="\#(name)"] .counts"#)
            if let count = a["a_count"]?.intValue {
                XCTAssertTrue(shown.hasPrefix("A \(count) · B \(a["b_count"]?.intValue ?? -1) · C \(a["c_count"]?.intValue ?? -1)"), "\(name): \(shown)")
            } else {
                XCTAssertEqual(shown, "not graded", name)
            }
        }
        let imported = try phone.text("#progress-text")
        XCTAssertTrue(imported.hasPrefix("Imported session \(id):"), imported)
        XCTAssertEqual(try phone.lowContrast(), [], "the session view")
        try phone.screenshot(to: shots.appendingPathComponent("practice-session-375x812.png"))
        try phone.assertQuietConsole("the practice panel's upload")

        // The same file again: refused where the upload was, nothing doubled.
        try phone.type("#csv", uploaded)
        try press(phone, "#upload")
        try phone.wait("the second import's refusal", #"return document.getElementById("upload-form").dataset.state === "failed";"#)
        // Under the Upload button, worded as the CLI words it, naming the file as it was chosen.
        let refusal = try phone.text("#upload-error")
        XCTAssertTrue(refusal.hasPrefix("clubhouse: \(last): already imported as session \(id) "), refusal)
        XCTAssertEqual(try phone.text("#progress-text"), "\(last) was not imported.")
        let sessionsAfter = try c.succeed(["--json", "practice", "sessions"]).json()["sessions"]?.arrayValue?.count
        XCTAssertEqual(sessionsAfter, exports.count)
        _ = try phone.consoleEntries()   // a refused import is an expected failed request

        // A file over the route's 64 MiB is not sent at all (a sparse file: no disk is used).
        let huge = c.path("upload/huge.csv")
        XCTAssertTrue(FileManager.default.createFile(atPath: huge, contents: Data("Club Type\n".utf8)))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try handle.truncate(atOffset: 70 << 20)
        try handle.close()
        try phone.type("#csv", huge)
        try press(phone, "#upload")
        try phone.wait("the size refused", #"return document.getElementById("upload-form").dataset.state === "failed";"#)
        XCTAssertEqual(try phone.text("#upload-error"),
                       "clubhouse: huge.csv is 73.4 MB; at most 67.1 MB (64 MiB) go in one upload — split the export by date")
        try phone.assertQuietConsole("the file over the limit (nothing sent)")

        // Cancel half-way: the browser's upload is throttled so that the bytes take seconds to go up.
        try phone.command("POST", "/goog/cdp/execute", ["cmd": "Network.enable", "params": [:]])
        try phone.command("POST", "/goog/cdp/execute", ["cmd": "Network.emulateNetworkConditions", "params": [
            "offline": false, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 200_000]])
        try phone.type("#csv", big)
        try press(phone, "#upload")
        try phone.wait("some bytes sent", #"return Number(document.getElementById("progress").dataset.sent) > 0;"#)
        let sent = try phone.run(#"return Number(document.getElementById("progress").dataset.sent);"#).intValue ?? 0
        let size = try FileManager.default.attributesOfItem(atPath: big)[.size] as? Int ?? 0
        XCTAssertLessThan(sent, size, "the upload was still going when it was cancelled")
        let sending = try phone.text("#progress-text")
        XCTAssertTrue(sending.hasPrefix("Sending big-session.csv: ") && sending.hasSuffix(" of \(String(format: "%.1f", Double(size) / 1e6)) MB"), sending)
        try phone.screenshot(to: shots.appendingPathComponent("practice-upload-375x812.png"))
        try press(phone, "#cancel")
        try phone.wait("the cancel", #"return document.getElementById("upload-form").dataset.state === "cancelled";"#)
        XCTAssertEqual(try phone.text("#progress-text"), "Cancelled: nothing was stored.")
        try phone.command("POST", "/goog/cdp/execute", ["cmd": "Network.emulateNetworkConditions", "params": [
            "offline": false, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1]])
        XCTAssertEqual(try c.succeed(["--json", "practice", "sessions"]).json()["sessions"]?.arrayValue?.count, exports.count)
        // No body is left in the host's folder for uploads.
        let leftovers = FileManager.default.enumerator(atPath: c.dataDirectory.path)?.compactMap { $0 as? String }
            .filter { $0.contains(".http-uploads-") && !$0.hasSuffix(".http-uploads-" + String($0.split(separator: "-").last ?? "")) } ?? []
        XCTAssertEqual(leftovers, [], "files left in the uploads folder")
        try phone.assertQuietConsole("the cancelled upload")

        // The desktop opens the session the phone uploaded.
        try open(desk, "#session=\(id)", "1280x800")
        try desk.wait("the session", #"return document.querySelectorAll('#detail-body .club').length > 0;"#)
        XCTAssertLessThan(try layoutShift(desk), 0.05, "the session view moved while its data arrived")
        try desk.screenshot(to: shots.appendingPathComponent("practice-session-1280x800.png"))

        // Trends: one point per graded session of the club, the dispersion's shots as the plugin lists them.
        let trend = try c.succeed(["--json", "practice", "trends", "--club", "7i"]).json()
        let points = (trend["points"]?.arrayValue ?? []).filter { $0["a_percent"]?.doubleValue != nil }
        let dispersion = try c.succeed(["--json", "practice", "dispersion", "--club", "7i"]).json()
        for (browser, size) in [(phone, "375x812"), (desk, "1280x800")] {
            try open(browser, "#trends&club=7i", size)
            try browser.wait("the charts", #"return document.querySelectorAll('#trend-chart .point').length > 0;"#)
            XCTAssertEqual(try browser.run(#"return document.querySelectorAll('#trend-chart .point').length;"#).intValue, points.count)
            let landed = dispersion["shots"]?.arrayValue ?? []
            XCTAssertEqual(try browser.run(#"return document.querySelectorAll('#dispersion-chart .shot, #dispersion-chart .mishit').length;"#).intValue,
                           landed.count)
            XCTAssertEqual(try browser.run(#"return document.querySelectorAll('#dispersion-chart .mishit').length;"#).intValue,
                           landed.filter { $0["mishit"]?.boolValue == true }.count)
            XCTAssertLessThan(try layoutShift(browser), 0.05, "the trends view moved while its data arrived")
            XCTAssertEqual(try browser.lowContrast(), [], "the trends view (\(size))")
            try browser.screenshot(to: shots.appendingPathComponent("practice-trends-\(size).png"))
            try browser.assertQuietConsole("the trends (\(size))")
        }

        // The A shots' carry over the sessions: each point's label is the CLI's mean (`trends --a-only`).
        let carry = try c.succeed(["--json", "practice", "trends", "--club", "7i", "--a-only", "--metric", "carry"]).json()
        let means = (carry["points"]?.arrayValue ?? []).compactMap { $0["a_only_averages"]?["means"]?["carry"]?.doubleValue }
        try open(desk, "#trends&club=7i&show=carry", "1280x800")
        try desk.wait("the carry trend", #"return document.getElementById("trend-title").textContent.startsWith("Carry") && document.querySelectorAll('#trend-chart .point').length > 0;"#)
        XCTAssertEqual(try desk.run(#"return [...document.querySelectorAll('#trend-chart .value')].map((t) => t.textContent).join(" ");"#).stringValue,
                       means.map { String(format: "%.1f", $0) }.joined(separator: " "))
        XCTAssertEqual(try desk.run(#"return document.getElementById("show").value;"#).stringValue, "carry")
        try desk.screenshot(to: shots.appendingPathComponent("practice-trend-carry-1280x800.png"))
        try desk.assertQuietConsole("the carry trend")

        // Templates: rename the 7-iron's active template, duplicate it, activate the copy, hide the original.
        func templates() throws -> [JSONValue] {
            try c.succeed(["--json", "practice", "template", "list", "--all"]).json()["templates"]?.arrayValue ?? []
        }
        let original = try XCTUnwrap(try templates().first { $0["club"]?.stringValue == "7i" && $0["active"]?.boolValue == true })
        let hash = try XCTUnwrap(original["hash"]?.stringValue)
        try open(desk, "#templates", "1280x800")
        let card = #"#templates li[data-hash="\#(hash)"]"#
        try desk.wait("the templates", #"return !!document.querySelector(arguments[0]);"#, [.string(card)])
        try press(desk, card + " button[data-focus-key$=':rename']")
        try desk.run(#"document.querySelector(arguments[0] + ' form input').value = "";"#, [.string(card)])
        try desk.type(card + " form input", "My 7-iron")
        try press(desk, card + " form button[type=submit]")
        try desk.wait("the new name", #"return document.querySelector(arguments[0] + ' h3').textContent.startsWith("My 7-iron");"#, [.string(card)])
        XCTAssertEqual(try templates().first { $0["hash"]?.stringValue == hash }?["display_name"]?.stringValue, "My 7-iron")
        XCTAssertEqual(try desk.run("return document.activeElement.dataset.focusKey || '';").stringValue, "\(hash):rename", "focus stays on the action")

        let before = try templates().count
        try press(desk, card + " button[data-focus-key$=':duplicate']")
        try desk.run(#"document.querySelector(arguments[0] + ' form input').value = "";"#, [.string(card)])
        try desk.type(card + " form input", "Stricter 7-iron")
        try press(desk, card + " form button[type=submit]")
        try desk.wait("the copy", #"return document.querySelectorAll('#templates > li').length === arguments[0];"#, [.int(before + 1)])
        let copy = try XCTUnwrap(try templates().first { !($0["hash"]?.stringValue == hash) && $0["club"]?.stringValue == "7i"
            && ($0["display_name"]?.stringValue ?? "").isEmpty == false && $0["hash"]?.stringValue != hash
            && (try? JSONWriter.compact($0).contains("Stricter 7-iron")) == true })
        let copyHash = try XCTUnwrap(copy["hash"]?.stringValue)
        let copyCard = #"#templates li[data-hash="\#(copyHash)"]"#
        try press(desk, copyCard + " button[data-focus-key$=':activate']")
        try desk.wait("the copy active", #"return document.querySelector(arguments[0] + ' .badge.active') !== null;"#, [.string(copyCard)])
        XCTAssertEqual(try templates().first { $0["hash"]?.stringValue == copyHash }?["active"]?.boolValue, true)
        try press(desk, card + " button[data-focus-key$=':hide']")
        try desk.wait("the original hidden", #"return !document.querySelector(arguments[0]);"#, [.string(card)])
        XCTAssertEqual(try templates().first { $0["hash"]?.stringValue == hash }?["hidden"]?.boolValue, true)
        try press(desk, "#show-hidden")
        try desk.wait("the hidden one listed", #"return !!document.querySelector(arguments[0] + ' .badge.hidden');"#, [.string(card)])
        try desk.run(#"const s = document.getElementById("template-club"); s.value = "7i"; s.dispatchEvent(new Event("change"));"#)
        try desk.wait("the 7-iron's templates", #"return [...document.querySelectorAll('#templates li[data-hash]')].every((li) => li.querySelector(".sub").textContent.startsWith("7i "));"#)
        XCTAssertEqual(try desk.lowContrast(), [], "the templates view")
        try desk.screenshot(to: shots.appendingPathComponent("practice-templates-1280x800.png"))
        try desk.assertQuietConsole("the templates")
        // An action that fails says so on its own card (here: the connection is gone), and changes nothing.
        try desk.command("POST", "/goog/cdp/execute", ["cmd": "Network.enable", "params": [:]])
        try desk.command("POST", "/goog/cdp/execute", ["cmd": "Network.emulateNetworkConditions", "params": [
            "offline": true, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1]])
        try press(desk, copyCard + " button[data-focus-key$=':hide']")
        try desk.wait("the card's error", #"const e = document.querySelector(arguments[0] + " .error"); return !!e && !e.hidden;"#, [.string(copyCard)])
        XCTAssertEqual(try desk.text(copyCard + " .error"),
                       "clubhouse: the host cannot be reached; check the connection and try again")
        try desk.command("POST", "/goog/cdp/execute", ["cmd": "Network.emulateNetworkConditions", "params": [
            "offline": false, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1]])
        XCTAssertEqual(try templates().first { $0["hash"]?.stringValue == copyHash }?["hidden"]?.boolValue, false)
        _ = try desk.consoleEntries()   // the offline attempt's failed requests are expected
        try open(phone, "#templates", "375x812")
        try phone.wait("the templates", #"return document.querySelectorAll('#templates li[data-hash]').length > 0;"#)
        try phone.screenshot(to: shots.appendingPathComponent("practice-templates-375x812.png"))
        try phone.assertQuietConsole("the templates (phone)")
        print("PracticePanelEndToEndTests: first render: \(timings.joined(separator: ", "))")
    }
}
