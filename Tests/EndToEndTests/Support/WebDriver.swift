// A headless Chromium driven through chromedriver's W3C WebDriver protocol (HTTP + JSON on loopback),
// for the web panels' browser tests. No client library: the protocol's few calls are written here.
// `WebDriver.start()` throws XCTSkip, saying what is missing, when chromium or chromedriver is absent
// (.ci/deps installs them: chromium, chromium-driver).

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class WebDriver {
    let process = Process()
    let port: UInt16
    let folder: URL

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let chromedriver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts chromedriver on a free loopback port.
    static func start(folder: URL) throws -> WebDriver {
        guard chromium != nil else { throw XCTSkip("chromium is not installed (apt-get install chromium; .ci/deps installs it)") }
        guard chromedriver != nil else { throw XCTSkip("chromedriver is not installed (apt-get install chromium-driver; .ci/deps installs it)") }
        return try WebDriver(folder: folder)
    }

    private init(folder: URL) throws {
        self.folder = folder
        port = try freePort()
        process.executableURL = URL(fileURLWithPath: WebDriver.chromedriver ?? "")
        process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1", "--log-path=\(folder.appendingPathComponent("chromedriver.log").path)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let status = try? httpRequest(port: port, "GET", "/status", timeout: 2), status.status == 200 { return }
            usleep(50_000)
        }
        stop()
        throw HTTPTestError("chromedriver did not answer on port \(port)")
    }

    func stop() { stopServer(process) }

    /// One WebDriver command: its `value`, or an error naming the command and chromedriver's message.
    @discardableResult
    func command(_ method: String, _ path: String, _ body: JSONValue? = nil, timeout: Double = 60) throws -> JSONValue {
        var bytes: [UInt8] = []
        if let body { bytes = Array(JSONWriter.compact(body).utf8) }
        let response = try httpRequest(port: port, method, path, headers: [("Content-Type", "application/json")], body: bytes, timeout: timeout)
        let parsed = try JSONParser.parse(bytes: response.body)
        let value = parsed["value"] ?? .null
        if response.status != 200 {
            throw HTTPTestError("webdriver \(method) \(path): \(value["error"]?.stringValue ?? "?"): \(value["message"]?.stringValue ?? response.text)")
        }
        return value
    }

    /// A new browser session (its own profile: its own cookies), with the browser's console log kept.
    func session(width: Int, height: Int, mobile: Bool) throws -> BrowserSession {
        let profile = folder.appendingPathComponent("profile-\(UUID().uuidString.prefix(8))")
        let options: JSONValue = [
            "binary": .string(WebDriver.chromium ?? ""),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
                     .string("--user-data-dir=\(profile.path)"), .string("--window-size=\(width),\(height)")],
        ]
        let capabilities: JSONValue = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome", "goog:chromeOptions": options, "goog:loggingPrefs": ["browser": "ALL"],
            "pageLoadStrategy": "normal"]]]
        let value = try command("POST", "/session", capabilities, timeout: 90)
        guard let id = value["sessionId"]?.stringValue else { throw HTTPTestError("no session id: \(value)") }
        let session = BrowserSession(driver: self, id: id)
        try session.resize(width: width, height: height, mobile: mobile)
        return session
    }
}

final class BrowserSession {
    let driver: WebDriver
    let id: String
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    init(driver: WebDriver, id: String) {
        self.driver = driver
        self.id = id
    }

    @discardableResult
    func command(_ method: String, _ path: String, _ body: JSONValue? = nil) throws -> JSONValue {
        try driver.command(method, "/session/\(id)\(path)", body)
    }

    func close() { _ = try? driver.command("DELETE", "/session/\(id)") }

    /// The page's viewport: `width`×`height` CSS pixels (a phone's when `mobile`).
    func resize(width: Int, height: Int, mobile: Bool) throws {
        try command("POST", "/goog/cdp/execute", ["cmd": "Emulation.setDeviceMetricsOverride", "params": [
            "width": .int(width), "height": .int(height), "deviceScaleFactor": 1, "mobile": .bool(mobile)]])
    }

    func open(_ url: String) throws { try command("POST", "/url", ["url": .string(url)]) }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page and answers its value.
    @discardableResult
    func run(_ script: String, _ args: [JSONValue] = []) throws -> JSONValue {
        try command("POST", "/execute/sync", ["script": .string(script), "args": .array(args)])
    }

    func element(_ css: String) throws -> String {
        let value = try command("POST", "/element", ["using": "css selector", "value": .string(css)])
        guard let id = value[BrowserSession.elementKey]?.stringValue else { throw HTTPTestError("no element id for \(css)") }
        return id
    }

    /// Clicks the element at `css`. Finding it and clicking it are two commands: a panel that redraws in
    /// between (a live event arrived) leaves the reference stale, and the element is found again (a finger
    /// would have tapped the new one).
    func click(_ css: String) throws {
        for attempt in 1...3 {
            do {
                try command("POST", "/element/\(try element(css))/click", [:])
                return
            } catch let error as HTTPTestError where attempt < 3 && "\(error)".contains("stale element reference") {
                usleep(50_000)
            }
        }
    }

    func type(_ css: String, _ text: String) throws {
        try command("POST", "/element/\(try element(css))/value", ["text": .string(text)])
    }

    func text(_ css: String) throws -> String {
        try run("const n = document.querySelector(arguments[0]); return n ? n.textContent : null;", [.string(css)]).stringValue ?? ""
    }

    /// Waits until `script` answers true (polls every 50 ms), else fails with `what` and the page's error line.
    func wait(_ what: String, timeout: Double = 20, _ script: String, _ args: [JSONValue] = []) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try run(script, args) == .bool(true) { return }
            usleep(50_000)
        }
        let error = (try? text(".error:not([hidden])")) ?? ""
        throw HTTPTestError("timed out waiting for \(what)\(error.isEmpty ? "" : " (the page says: \(error))")")
    }

    /// The centre of the element at `css` in viewport pixels (after scrolling it into view).
    func centre(_ css: String) throws -> (x: Int, y: Int) {
        try scrollIntoView(css)
        let value = try run("const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];",
                            [.string(css)])
        let xy = (value.arrayValue ?? []).map { $0.doubleValue ?? 0 }
        guard xy.count == 2 else { throw HTTPTestError("no box for \(css)") }
        return (Int(xy[0].rounded()), Int(xy[1].rounded()))
    }

    /// Presses at (x, y) of the viewport, moves by (dx, dy) in five steps and lifts, as a finger or a mouse.
    func drag(at point: (x: Int, y: Int), dx: Int, dy: Int, pointer: String) throws {
        var moves: [JSONValue] = [["type": "pointerMove", "duration": 0, "origin": "viewport", "x": .int(point.x), "y": .int(point.y)],
                                  ["type": "pointerDown", "button": 0]]
        if dx != 0 || dy != 0 {
            for step in 1...5 {
                moves.append(["type": "pointerMove", "duration": 30, "origin": "viewport",
                              "x": .int(point.x + dx * step / 5), "y": .int(point.y + dy * step / 5)])
            }
        }
        moves.append(["type": "pointerUp", "button": 0])
        try command("POST", "/actions", ["actions": [["type": "pointer", "id": .string("p-\(pointer)"),
                                                       "parameters": ["pointerType": .string(pointer)], "actions": .array(moves)]]])
        try command("DELETE", "/actions")
    }

    /// Drags from the centre of the element at `css` by (dx, dy) CSS pixels.
    func drag(_ css: String, dx: Int, dy: Int, pointer: String) throws {
        try drag(at: try centre(css), dx: dx, dy: dy, pointer: pointer)
    }

    /// Scrolls the element at `css` to the middle of the viewport (pointer actions do not scroll).
    func scrollIntoView(_ css: String) throws {
        try run("document.querySelector(arguments[0]).scrollIntoView({block: 'center', inline: 'center'});", [.string(css)])
    }

    /// Writes a PNG of the viewport.
    func screenshot(to url: URL) throws {
        let value = try command("GET", "/screenshot")
        guard let base64 = value.stringValue, let data = Data(base64Encoded: base64) else { throw HTTPTestError("no screenshot") }
        try data.write(to: url)
    }

    /// The browser's console entries since the last call (errors, failed requests, CSP refusals).
    func consoleEntries() throws -> [(level: String, message: String)] {
        let value = try command("POST", "/se/log", ["type": "browser"])
        return (value.arrayValue ?? []).map { ($0["level"]?.stringValue ?? "", $0["message"]?.stringValue ?? "") }
    }

    /// Presses and releases a key (a WebDriver key code such as "\u{E007}", Enter) on the focused element.
    func press(_ key: String) throws {
        try command("POST", "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": [
            ["type": "keyDown", "value": .string(key)], ["type": "keyUp", "value": .string(key)]]]]])
        try command("DELETE", "/actions")
    }

    /// Takes the browser off the network (or back): new requests fail as on a phone that left the Wi-Fi.
    func offline(_ off: Bool) throws {
        if off {
            try command("POST", "/chromium/network_conditions", ["network_conditions": [
                "offline": true, "latency": 0, "download_throughput": -1, "upload_throughput": -1]])
        } else {
            try command("DELETE", "/chromium/network_conditions")
        }
    }

    /// The current tab's handle.
    func windowHandle() throws -> String { try command("GET", "/window").stringValue ?? "" }

    /// Opens a new tab and makes it current; answers its handle.
    @discardableResult
    func openTab() throws -> String {
        let handle = try command("POST", "/window/new", ["type": "tab"])["handle"]?.stringValue ?? ""
        try command("POST", "/window", ["handle": .string(handle)])
        return handle
    }

    /// Closes the current tab (its page goes away as when a person closes it) and makes `next` current.
    func closeTab(then next: String) throws {
        try command("DELETE", "/window")
        try command("POST", "/window", ["handle": .string(next)])
    }

    /// Fails the test on any console error or failed request since the last check.
    /// `except`: messages containing it are expected (e.g. requests made while the browser was offline,
    /// whose failures the console may report after it came back).
    func assertQuietConsole(_ page: String, except expected: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let severe = try consoleEntries().filter { ($0.level == "SEVERE" || $0.level == "ERROR") && !(expected.map($0.message.contains) ?? false) }
        XCTAssertTrue(severe.isEmpty, "console errors on \(page): \(severe.map(\.message))", file: file, line: line)
    }
}

extension Clubhouse {
    /// The host's pages and the named panels (alias → source folder in the repository), copied to a folder
    /// as `serve --ui-dir` serves them.
    func uiFolder(_ panels: [String: String]) throws -> URL {
        let ui = scratch.appendingPathComponent("ui")
        try FileManager.default.createDirectory(at: ui, withIntermediateDirectories: true)
        for (alias, source) in panels.merging(["_": "Host/Web"], uniquingKeysWith: { a, _ in a }) {
            try FileManager.default.copyItem(at: Clubhouse.repositoryRoot.appendingPathComponent(source), to: ui.appendingPathComponent(alias))
        }
        return ui
    }
}
