// The putting panel's "what if", 3D view and green book in a real browser (headless Chromium through
// chromedriver) against a real `clubhouse serve --http` with the putting plugin and its panel (the ball
// and flag drag and the best line are WebPanelsEndToEndTests'). A what-if stroke draws its path and
// result, and they are the CLI's `putting roll` for the same aim point and pace; the 3D view draws the
// green (pixels read back from WebGL), turns when dragged and rolls the ball; a green book followed as a
// call shows its progress, can be cancelled, and draws the heat map with as many squares as the CLI's
// book has positions; without WebGL the 3D view says so. Any console error or failed request fails the
// test. Screenshots at 375×812 and 1280×800 go to the folder printed (CLUBHOUSE_SCREENSHOTS, else
// $TMPDIR/clubhouse-screenshots). Skipped, saying why, without chromium and chromedriver.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class PuttingPanelEndToEndTests: XCTestCase {
    func uiFolder(_ c: Clubhouse) throws -> URL {
        let ui = c.scratch.appendingPathComponent("ui")
        try FileManager.default.createDirectory(at: ui, withIntermediateDirectories: true)
        for (alias, source) in ["_": "Host/Web", "putting": "Plugins/Putting/web"] {
            try FileManager.default.copyItem(at: Clubhouse.repositoryRoot.appendingPathComponent(source), to: ui.appendingPathComponent(alias))
        }
        return ui
    }

    /// Pixels of the 3D canvas read back from WebGL: how many differ from the sky, how many colours, a checksum.
    static let pixels = #"""
        const c = document.getElementById("view3d");
        const gl = c.getContext("webgl") || c.getContext("experimental-webgl");
        if (!gl || c.hidden) return null;
        const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight, d = new Uint8Array(w * h * 4);
        gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, d);
        let drawn = 0, sum = 0; const colours = new Set();
        for (let i = 0; i < d.length; i += 4) {
          if (Math.abs(d[i] - 222) + Math.abs(d[i + 1] - 235) + Math.abs(d[i + 2] - 242) > 12) drawn++;
          if (i % 40 === 0) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
          sum = (sum * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) % 1000000007;
        }
        return [drawn / (w * h), colours.size, sum];
        """#

    func testWhatIfThe3DViewAndTheGreenBookInABrowser() throws {
        let c = try Clubhouse()
        let shots = WebPanelsEndToEndTests.screenshots
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let driver = try WebDriver.start(folder: c.scratch)
        defer { driver.stop() }
        print("PuttingPanelEndToEndTests: screenshots in \(shots.path)")
        try c.succeed(["putting", "demo", "--out", c.path("putting-demo")])
        let server = try HTTPServerProcess(c, arguments: [], options: ["--ui-dir", try uiFolder(c).path])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"

        let phone = try driver.session(width: 375, height: 812, mobile: true)
        defer { phone.close() }
        let desk = try driver.session(width: 1280, height: 800, mobile: false)
        defer { desk.close() }
        for (browser, name) in [(phone, "phone"), (desk, "desk")] {
            let code = try XCTUnwrap(try c.succeed(["--json", "token", "pair", "--scope", "putting:*", "--name", name]).json()["code"]?.stringValue)
            try browser.open(base + "/pair#code=" + code.replacingOccurrences(of: "-", with: ""))
            try browser.wait("pairing", #"return document.getElementById("pairing").hidden && document.getElementById("who").textContent.length > 0;"#)
        }

        for (index, (browser, size, pointer)) in [(phone, "375x812", "touch"), (desk, "1280x800", "mouse")].enumerated() {
            try browser.open(base + "/ui/putting/#course=demo&hole=1")
            try browser.wait("the first best line", #"return document.getElementById("speed").textContent !== "–";"#)
            // The ball by keyboard: half a foot west, and the best line from there.
            let ballBefore = try browser.run(#"document.getElementById("ball").focus(); return document.getElementById("ball-at").textContent;"#).stringValue ?? ""
            try browser.press("\u{E012}")   // arrow left
            try browser.wait("the ball moved by a key", #"return document.getElementById("ball-at").textContent !== arguments[0] && document.getElementById("speed").textContent !== "–" && !document.getElementById("green").hasAttribute("aria-busy");"#,
                             [.string(ballBefore)])

            // What if: my stroke from the best line's aim at 1.5 ft past, then the aim dragged and a firmer pace.
            try browser.click("#whatif-on")
            let outcome = #"return document.getElementById("wi-outcome").textContent !== "–" && !document.getElementById("whatif-result").hasAttribute("aria-busy");"#
            try browser.wait("the what-if roll", outcome)
            try browser.drag("#target .hit", dx: 14, dy: -10, pointer: pointer)
            try browser.wait("the roll after the aim moved", outcome)
            try browser.run(#"const p = document.getElementById("pace"); p.value = "4"; p.dispatchEvent(new Event("input")); p.dispatchEvent(new Event("change"));"#)
            try browser.wait("the roll at the new pace", #"return document.getElementById("pace-out").textContent === "4.0 ft past the hole" && "# + outcome.dropFirst("return ".count))
            // The aim by keyboard: the focused marker moves half a foot a press and the stroke is rolled again.
            let aimBefore = try browser.run(#"const t = document.getElementById("target"); t.focus(); return t.getAttribute("aria-valuetext");"#).stringValue ?? ""
            try browser.press("\u{E013}")   // arrow up
            try browser.wait("the aim moved by a key", #"return document.getElementById("target").getAttribute("aria-valuetext") !== arguments[0] && "# + outcome.dropFirst("return ".count),
                             [.string(aimBefore)])
            try browser.wait("the what-if path", #"return (document.getElementById("whatif-path").getAttribute("points") || "").split(" ").length > 10;"#)
            let shown = try browser.run(#"""
                const t = (id) => document.getElementById(id).textContent;
                return [t("ball-at"), t("flag-at"), document.querySelector("#target").getAttribute("aria-valuetext"), t("wi-outcome"), t("wi-speed"),
                        document.getElementById("whatif-path").getAttribute("points")];
                """#).arrayValue?.compactMap(\.stringValue) ?? []
            XCTAssertEqual(shown.count, 6)
            func xz(_ text: String) -> String { text.replacingOccurrences(of: " ft", with: "").replacingOccurrences(of: " ", with: "") }
            let roll = try XCTUnwrap(try c.succeed(["--json", "putting", "roll", "--course", "demo", "--hole", "1", "--ball=\(xz(shown[0]))",
                                                    "--flag=\(xz(shown[1]))", "--aim-point=\(xz(shown[2]))", "--pace", "4", "--stimp", "10"]).json()["roll"])
            XCTAssertEqual(shown[4], String(format: "%.2f ft/s", roll["speedFps"]?.doubleValue ?? .nan), "\(size): the speed is the CLI's")
            if roll["holed"]?.boolValue == true {
                XCTAssertEqual(shown[3], "holed")
            } else {
                XCTAssertTrue(shown[3].contains(String(format: "by %.1f ft", roll["missFt"]?.doubleValue ?? .nan)), "\(shown[3]) against \(roll)")
            }
            let last = shown[5].split(separator: " ").last.map(String.init) ?? ""
            let xs = roll["pathXFt"]?.arrayValue ?? [], zs = roll["pathZFt"]?.arrayValue ?? []
            XCTAssertEqual(last, String(format: "%.2f,%.2f", xs.last?.doubleValue ?? .nan, -(zs.last?.doubleValue ?? .nan)), "the path ends where the CLI's does")
            // The green with the stroke (and, on a desktop, the result beside it).
            try browser.run(#"document.getElementById(arguments[0]).scrollIntoView({block: arguments[1]});"#,
                            index == 0 ? ["summary", "end"] : ["pick", "start"])
            try browser.screenshot(to: shots.appendingPathComponent("putting-whatif-\(size).png"))
            try browser.assertQuietConsole("the what-if stroke (\(pointer))")

            // The 3D view: drawn (pixels read back), turned by a drag, the what-if stroke rolled to its end.
            try browser.scrollIntoView("#view3d")
            if try browser.run(#"return document.getElementById("view3d-fallback").hidden;"#) == .bool(false) {
                XCTFail("\(size): WebGL is unavailable in this headless Chromium; the page says: \(try browser.text("#view3d-fallback"))")
            } else {
                try browser.wait("the 3D green", "const p = (() => {\(PuttingPanelEndToEndTests.pixels)})(); return !!p && p[0] > 0.3 && p[1] > 40;")
                let before = try browser.run(PuttingPanelEndToEndTests.pixels).arrayValue ?? []
                let note = try browser.text("#view3d-note")
                XCTAssertTrue(note.hasPrefix("Heights ×"), note)
                try browser.drag("#view3d", dx: 90, dy: 25, pointer: pointer)
                try browser.wait("the green turned", "const p = (() => {\(PuttingPanelEndToEndTests.pixels)})(); return !!p && p[2] !== arguments[0];",
                                 [before.last ?? .null])
                try browser.click("#roll3d")
                try browser.wait("the ball rolled", timeout: 30, #"return ["Holed.", "Stopped."].includes(document.getElementById("view3d-state").textContent);"#)
                let after = try browser.run(PuttingPanelEndToEndTests.pixels).arrayValue ?? []
                XCTAssertGreaterThan(after.first?.doubleValue ?? 0, 0.3, "\(size): the 3D view covers the canvas: \(after)")
                try browser.screenshot(to: shots.appendingPathComponent("putting-3d-\(size).png"))
                // Zoom in: two fingers spread on the phone, the wheel on the desktop; the green fills more of the canvas.
                let centre = try browser.centre("#view3d")
                if pointer == "touch" { try browser.pinch(at: centre, from: 30, to: 90) } else { try browser.wheel(at: centre, deltaY: -300) }
                try browser.wait("the zoom", "const p = (() => {\(PuttingPanelEndToEndTests.pixels)})(); return !!p && p[0] > arguments[0] + 0.03;",
                                 [.double(after.first?.doubleValue ?? 1)])
            }
            try browser.assertQuietConsole("the 3D view (\(pointer))")

            // The green book for the pin: followed with its progress, then the heat map and its legend.
            if index == 0 {
                // Cancelled half-way: the page says so, and the Make button comes back.
                try browser.run(#"document.getElementById("book-spacing").value = "2";"#)
                try browser.click("#book-start")
                try browser.wait("the book's progress", timeout: 60, #"return document.getElementById("book-progress").value > 0;"#)
                try browser.click("#book-cancel")
                try browser.wait("the cancel", timeout: 30, #"return document.getElementById("book-state").textContent.startsWith("Cancelled") && !document.getElementById("book-start").disabled;"#)
                // The host's own last progress said it stopped (not the page giving up on the stream).
                let stopped = try browser.text("#book-state")
                XCTAssertNotNil(stopped.range(of: #"^Cancelled: the host stopped the book at \d+ %\. The positions solved so far are kept"#, options: .regularExpression), stopped)
                XCTAssertEqual(try browser.run(#"return document.getElementById("green").dataset.bookCells;"#), "0")
            }
            try browser.run(#"document.getElementById("book-spacing").value = "8";"#)
            try browser.click("#book-start")
            try browser.wait("the green book", timeout: 120, #"return Number(document.getElementById("green").dataset.bookCells) > 0 && !document.getElementById("book-legend").hidden;"#)
            let cells = try browser.run(#"return Number(document.getElementById("green").dataset.bookCells);"#).intValue ?? 0
            let flag = xz(try browser.text("#flag-at"))
            let book = try XCTUnwrap(try c.succeed(["--json", "putting", "book", "--course", "demo", "--hole", "1", "--flag=\(flag)", "--spacing", "8",
                                                    "--stimp", "10"]).json()["book"])
            XCTAssertEqual(cells, book["entries"]?.arrayValue?.count, "\(size): one square per position of the CLI's book")
            XCTAssertEqual(book["cached"]?.intValue, cells, "the browser's book stored every position")
            XCTAssertEqual(try browser.run(##"return document.querySelectorAll("#book-cells rect").length;"##).intValue, cells)
            let ready = try browser.text("#book-state")
            XCTAssertTrue(ready.hasPrefix("The book is ready: \(cells) spots"), ready)
            try browser.run(#"document.getElementById("book-legend").scrollIntoView({block: "end"});"#)
            try browser.screenshot(to: shots.appendingPathComponent("putting-book-\(size).png"))
            // Aim offset instead of make probability: the legend says so.
            try browser.run(#"const s = document.getElementById("book-show"); s.value = "aim"; s.dispatchEvent(new Event("change"));"#)
            let legend = try browser.text("#book-legend-title")
            XCTAssertTrue(legend.hasPrefix("Aim offset at the hole (inches)"), legend)
            try browser.screenshot(to: shots.appendingPathComponent("putting-book-aim-\(size).png"))
            try browser.assertQuietConsole("the green book (\(pointer))")
            // Nothing the page showed moved when a roll, a line or the book arrived (the CLS sum, input excluded).
            let shift = try browser.run(#"""
                return new Promise((done) => {
                  new PerformanceObserver((list) => {
                    done(list.getEntries().filter((e) => !e.hadRecentInput).reduce((s, e) => s + e.value, 0));
                  }).observe({ type: "layout-shift", buffered: true });
                  setTimeout(() => done(0), 300);
                });
                """#).doubleValue ?? .nan
            XCTAssertLessThan(shift, 0.05, "\(size): layout shift \(shift)")

            if index == 1 {
                // An aim behind the ball is refused where it was set, worded as the CLI words it.
                try browser.drag("#target .hit", dx: -150, dy: 0, pointer: pointer)
                try browser.wait("the refused aim", #"return !document.getElementById("whatif-error").hidden;"#)
                let refused = try browser.text("#whatif-error")
                XCTAssertTrue(refused.hasPrefix("clubhouse: aim (toward the aim point)") && refused.contains("is out of range: it must be within ±90 degrees of the line to the hole"), refused)
                XCTAssertEqual(try browser.text("#wi-outcome"), "–")
                try browser.click("#roll3d")   // the what-if path, refused: nothing to roll
                XCTAssertEqual(try browser.text("#view3d-state"), "Nothing to roll: this path has no line yet (see the message above the green or under What if).")
                // The flag moved: the book was for the old pin and goes away, saying so.
                try browser.drag("#flag .hit", dx: 0, dy: 30, pointer: pointer)
                try browser.wait("the book gone with the pin", #"return document.getElementById("green").dataset.bookCells === "0";"#)
                XCTAssertEqual(try browser.text("#book-state"), "The flag moved: make the book again for the new pin.")
                try browser.wait("the last roll answered", #"return !document.getElementById("whatif-result").hasAttribute("aria-busy") && !document.getElementById("whatif-error").hidden;"#)
                _ = try browser.consoleEntries()   // the refused rolls' 400s (the aim stays behind the ball) are expected failures
            }
        }

        // Without WebGL (the page's getContext answers null, as a browser with WebGL turned off does).
        try desk.command("POST", "/goog/cdp/execute", ["cmd": "Page.addScriptToEvaluateOnNewDocument", "params": [
            "source": #"const real = HTMLCanvasElement.prototype.getContext; HTMLCanvasElement.prototype.getContext = function (kind, ...rest) { return /webgl/.test(kind) ? null : real.call(this, kind, ...rest); };"#]])
        try desk.open("about:blank")
        try desk.open(base + "/ui/putting/#course=demo&hole=1")
        try desk.wait("the fallback", #"return !document.getElementById("view3d-fallback").hidden && document.getElementById("view3d").hidden && document.getElementById("roll3d").disabled;"#)
        let fallback = try desk.text("#view3d-fallback")
        XCTAssertTrue(fallback.hasPrefix("This browser cannot draw in 3D"), fallback)
        try desk.wait("the best line without 3D", #"return document.getElementById("speed").textContent !== "–";"#)
        try desk.assertQuietConsole("the panel without WebGL")
    }
}

extension BrowserSession {
    /// Two fingers pressed `from` pixels either side of `point` (left and right) that spread to `to` pixels, and lift.
    func pinch(at point: (x: Int, y: Int), from: Int, to: Int) throws {
        func finger(_ id: String, _ side: Int) -> JSONValue {
            var moves: [JSONValue] = [["type": "pointerMove", "duration": 0, "origin": "viewport", "x": .int(point.x + side * from), "y": .int(point.y)],
                                      ["type": "pointerDown", "button": 0]]
            for step in 1...5 {
                moves.append(["type": "pointerMove", "duration": 40, "origin": "viewport", "x": .int(point.x + side * (from + (to - from) * step / 5)), "y": .int(point.y)])
            }
            moves.append(["type": "pointerUp", "button": 0])
            return ["type": "pointer", "id": .string(id), "parameters": ["pointerType": "touch"], "actions": .array(moves)]
        }
        try command("POST", "/actions", ["actions": [finger("finger-1", -1), finger("finger-2", 1)]])
        try command("DELETE", "/actions")
    }

    /// A mouse wheel turned over `point` (negative `deltaY`: away from the user, to zoom in).
    func wheel(at point: (x: Int, y: Int), deltaY: Int) throws {
        try command("POST", "/actions", ["actions": [["type": "wheel", "id": "wheel", "actions": [
            ["type": "scroll", "x": .int(point.x), "y": .int(point.y), "deltaX": 0, "deltaY": .int(deltaY), "duration": 100, "origin": "viewport"]]]]])
        try command("DELETE", "/actions")
    }
}
