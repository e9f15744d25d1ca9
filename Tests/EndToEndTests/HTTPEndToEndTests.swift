// `clubhouse serve --http` as an administrator runs it, against hostile clients: limits on the request
// line, the head, the headers and the body; a slowloris, a slow body, a reader that never reads and one
// that reads a byte at a time (others are served meanwhile); ten thousand idle connections; path
// traversal on the panels' files; a route parameter carrying JSON; a plugin whose routes leave its prefix
// or collide with another's; the loopback rule; and `clubhouse routes` and `--help`.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

/// A `clubhouse serve --http 127.0.0.1:0 …` process; its port is read from the line it prints.
final class HTTPServerProcess {
    let process = Process()
    let errorPath: String
    private(set) var port: UInt16 = 0

    init(_ c: Clubhouse, arguments: [String], options: [String] = [], waitForPort: Bool = true) throws {
        errorPath = c.path("http-\(UUID().uuidString.prefix(8)).err")
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = Clubhouse.executable
        process.arguments = arguments + ["serve", "--http", "127.0.0.1:0"] + options
        var env = ProcessInfo.processInfo.environment
        env["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
        env["XDG_CACHE_HOME"] = c.path("cache")
        env.removeValue(forKey: "CLUBHOUSE_CONFIG")
        env.removeValue(forKey: "CLUBHOUSE_SITE")
        process.environment = env
        process.currentDirectoryURL = c.scratch
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard waitForPort else { return }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let range = stderr.range(of: "serving HTTP/1.1 on http://127.0.0.1:") {
                let digits = stderr[range.upperBound...].prefix { $0.isNumber }
                if let p = UInt16(digits) { port = p; return }
            }
            if !process.isRunning { throw HTTPTestError("the server exited: \(stderr)") }
            usleep(20_000)
        }
        stop()
        throw HTTPTestError("the server did not say where it listens: \(stderr)")
    }

    var pid: Int32 { process.processIdentifier }
    var stderr: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Open descriptors of the server (nil when /proc cannot be read).
    var descriptors: Int? { try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count }

    func stop() { stopServer(process) }

    /// The JSON error of a response, checked for its one-line shape.
    static func error(_ response: RawHTTPResponse, file: StaticString = #filePath, line: UInt = #line) -> (status: String, message: String)? {
        guard let value = try? JSONParser.parse(bytes: response.body), let e = value["error"],
              let status = e["status"]?.stringValue, let message = e["message"]?.stringValue else {
            XCTFail("not {\"error\": {\"status\", \"message\"}}: \(response.text)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(response.text.filter { $0 == "\n" }.count, 1, "one line", file: file, line: line)
        return (status, message)
    }
}

final class HTTPEndToEndTests: XCTestCase {
    /// The fourth outside attack (b19): the server's folder for request bodies (`<data>/<site>/.http-uploads-XXXXXX`)
    /// stayed, empty, after 2 of 4 stops by SIGTERM or Ctrl-C. It goes when the server stops, with or without an
    /// upload in flight.
    func testTheUploadsFolderGoesWhenTheServerStops() throws {
        let c = try Clubhouse()
        let token = try XCTUnwrap(try c.succeed(["--json", "token", "create", "--name", "up", "--scope", "practice:write"]).json()["token"]?.stringValue)
        func folders() -> [String] {
            (FileManager.default.enumerator(atPath: c.dataDirectory.path)?.compactMap { $0 as? String } ?? [])
                .filter { ($0 as NSString).lastPathComponent.hasPrefix(".http-uploads-") }
        }
        for (signal, upload) in [(SIGTERM, false), (SIGINT, true), (SIGTERM, true), (SIGINT, false)] {
            let server = try HTTPServerProcess(c, arguments: [])
            XCTAssertEqual(folders().count, 1, "the server made its folder")
            var client: RawHTTPConnection?
            if upload {
                client = try RawHTTPConnection(port: server.port)
                XCTAssertTrue(client?.send("POST /api/practice/sessions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                                           + "Content-Type: text/csv\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "x", count: 50_000)) ?? false)
                usleep(300_000)
            }
            kill(server.pid, signal)
            server.process.waitUntilExit()
            XCTAssertEqual(folders(), [], "signal \(signal), upload in flight: \(upload): the folder outlived the server: \(server.stderr)")
            for left in folders() { try? FileManager.default.removeItem(atPath: c.dataDirectory.appendingPathComponent(left).path) }
            _ = client
        }
    }

    func testLimitsOnTheRequestAreNamedAndEnforced() throws {
        let c = try Clubhouse()
        let server = try HTTPServerProcess(c, arguments: [], options: ["--http-max-request-line", "200", "--http-max-header-bytes", "1024",
                                                                       "--http-max-headers", "8"])
        defer { server.stop() }
        func refused(_ request: String) throws -> RawHTTPResponse {
            let connection = try RawHTTPConnection(port: server.port)
            connection.send(request)
            let response = try connection.response()
            XCTAssertEqual(response.header("connection"), "close")
            XCTAssertTrue(connection.closesWithin(5))
            return response
        }
        let line = try refused("GET /" + String(repeating: "a", count: 300) + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertEqual(line.status, 414)
        XCTAssertEqual(HTTPServerProcess.error(line)?.message, "the request line is longer than 200 bytes")
        let head = try refused("GET / HTTP/1.1\r\nHost: localhost\r\nCookie: " + String(repeating: "c", count: 2000) + "\r\n\r\n")
        XCTAssertEqual(head.status, 431)
        XCTAssertEqual(HTTPServerProcess.error(head)?.status, "too-large")
        let many = try refused("GET / HTTP/1.1\r\nHost: localhost\r\n" + (1...9).map { "X-\($0): y\r\n" }.joined() + "\r\n")
        XCTAssertEqual(many.status, 431)
        // The pairing exchange takes at most 4 KiB.
        let body = try refused("POST /api/_/pair HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5000\r\n\r\n")
        XCTAssertEqual(body.status, 413)
        XCTAssertEqual(HTTPServerProcess.error(body)?.message, "the body (5000 bytes) is too large: at most 4096 bytes here")
        // Without the access layer's consent nothing else is served, and it says so as JSON.
        let closed = try httpRequest(port: server.port, "GET", "/api/putting/courses")
        XCTAssertEqual(closed.status, 401)
        XCTAssertNotNil(HTTPServerProcess.error(closed))
        XCTAssertTrue(server.stderr.isEmpty == false)
    }

    /// The fifth outside attack (a21, a22): pipelined requests on one keep-alive connection were answered about one
    /// a second after the second (the loop noted the next request only on its one-second sweep): 5 took 3–4 s, 300
    /// got 30 answers in 30 s. Twelve pipelined requests are answered, in order, as quickly as sequential ones.
    func testPipelinedRequestsAreAnsweredWithoutWaitingForTheLoopsSweep() throws {
        let c = try Clubhouse()
        let server = try HTTPServerProcess(c, arguments: [])
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        // Alternating answers show the order: "/" is 404 (no panel), "/api/globe/countries" 401 (no token).
        let paths = (1...12).map { $0 % 2 == 0 ? "/" : "/api/globe/countries" }
        let started = Date()
        XCTAssertTrue(connection.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: localhost\r\n\r\n" }.joined()))
        for path in paths {
            let response = try connection.response(timeout: 10)
            XCTAssertEqual(response.status, path == "/" ? 404 : 401, "answered out of order at \(path)")
        }
        let took = Date().timeIntervalSince(started)
        XCTAssertLessThan(took, 2.5, "12 pipelined requests took \(took) s: the loop waited for its sweep between them")
    }

    func testSlowClientsAreTimedOutWhileOthersAreServed() throws {
        let c = try Clubhouse()
        let ui = c.scratch.appendingPathComponent("ui/_")
        try FileManager.default.createDirectory(at: ui, withIntermediateDirectories: true)
        try Data(repeating: 0x61, count: 12 << 20).write(to: ui.appendingPathComponent("big.txt"))
        try "hello".write(to: ui.appendingPathComponent("small.txt"), atomically: true, encoding: .utf8)
        let server = try HTTPServerProcess(c, arguments: [], options: [
            "--ui-dir", c.scratch.appendingPathComponent("ui").path, "--http-header-timeout-ms", "800", "--http-body-timeout-ms", "800",
            "--http-idle-timeout-ms", "800", "--http-send-timeout-ms", "1500", "--write-timeout-ms", "3000"])
        defer { server.stop() }
        let port = server.port
        func servedMeanwhile() throws {
            let ok = try httpRequest(port: port, "GET", "/ui/_/small.txt", timeout: 5)
            XCTAssertEqual(ok.status, 200)
            XCTAssertEqual(ok.text, "hello")
        }
        // A slowloris: the head a byte at a time.
        let loris = try RawHTTPConnection(port: port)
        let bodySlow = try RawHTTPConnection(port: port)
        bodySlow.send("POST /api/_/pair HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{")
        let started = Date()
        for byte in "GET /ui/_/small.txt HTTP/1.1\r\nHo".utf8 {
            guard loris.send([byte]) else { break }
            try servedMeanwhile()
            usleep(100_000)
            if Date().timeIntervalSince(started) > 1.5 { break }
        }
        let timedOut = try loris.response(timeout: 5)
        XCTAssertEqual(timedOut.status, 408)
        XCTAssertEqual(HTTPServerProcess.error(timedOut)?.message, "the request's head did not arrive within 800 ms")
        XCTAssertTrue(loris.closesWithin(5))
        let bodyTimedOut = try bodySlow.response(timeout: 5)
        XCTAssertEqual(bodyTimedOut.status, 408)
        XCTAssertTrue(bodySlow.closesWithin(5))
        // Idle after a response: closed quietly.
        let idle = try RawHTTPConnection(port: port)
        XCTAssertEqual(try idle.request("GET", "/ui/_/small.txt").status, 200)
        XCTAssertTrue(idle.closesWithin(5))

        // A reader that never reads, and one that reads steadily but too slowly: each is dropped (with a
        // reset) at the send timeout. Others are served all along. (Small receive buffers, so that the kernel
        // does not take the whole response off the server's hands.)
        let stuck = try RawHTTPConnection(port: port, receiveBuffer: 4096)
        stuck.send("GET /ui/_/big.txt HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let trickle = try RawHTTPConnection(port: port, receiveBuffer: 65536)
        trickle.send("GET /ui/_/big.txt HTTP/1.1\r\nHost: localhost\r\n\r\n")
        var closed = false
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            // 64 KiB every 20 ms at most: progress, but 12 MiB takes longer than the send timeout.
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(trickle.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { closed = true; break }
            if Int(Date().timeIntervalSince(deadline) * 50) % 10 == 0 { try servedMeanwhile() }
            usleep(20_000)
        }
        XCTAssertTrue(closed, "a slow reader holds no slot for ever")
        XCTAssertTrue(stuck.closesWithin(10))
        try servedMeanwhile()
        usleep(100_000)
        XCTAssertEqual(server.stderr.components(separatedBy: "took more than 1500 ms to read a response").count - 1, 2, server.stderr)
    }

    func testTenThousandIdleConnectionsDoNotShutOthersOut() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let wanted: rlim_t = 10_300
        if limit.rlim_cur < wanted {
            guard limit.rlim_max >= wanted else {
                throw XCTSkip("this test needs 10,300 descriptors and the hard limit is \(limit.rlim_max)")
            }
            limit.rlim_cur = wanted
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let c = try Clubhouse()
        try FileManager.default.createDirectory(at: c.scratch.appendingPathComponent("ui/_"), withIntermediateDirectories: true)
        try "hello".write(to: c.scratch.appendingPathComponent("ui/_/small.txt"), atomically: true, encoding: .utf8)
        let server = try HTTPServerProcess(c, arguments: [], options: ["--ui-dir", c.scratch.appendingPathComponent("ui").path])
        defer { server.stop() }
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = server.port.bigEndian
        _ = inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        for _ in 0..<10_000 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { break }
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            idle.append(fd)
        }
        XCTAssertEqual(idle.count, 10_000)
        usleep(500_000)
        // Others are served (the idlest connections make room), and the server's descriptors stay bounded.
        // The promise is an answer, not its speed: a request waits behind the thousands of connections
        // still in the listen queue (and the kernel resends a SYN it dropped from a full queue only after
        // 1, 3, 7 s), which a loaded machine can stretch past 10 s: 30 s, the client's default.
        for _ in 0..<5 {
            let ok = try httpRequest(port: server.port, "GET", "/ui/_/small.txt", timeout: 30)
            XCTAssertEqual(ok.status, 200)
        }
        if let count = server.descriptors { XCTAssertLessThan(count, 1200, "descriptors of the server") }
        XCTAssertTrue(server.process.isRunning)
    }

    func testPanelsFilesAreServedWithTypesTagsAndPolicyAndNothingOutside() throws {
        let c = try Clubhouse()
        let ui = c.scratch.appendingPathComponent("ui")
        try FileManager.default.createDirectory(at: ui.appendingPathComponent("putting/js"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: ui.appendingPathComponent("_"), withIntermediateDirectories: true)
        try "<!doctype html><title>green</title><script type=module src=js/app.js></script>".write(to: ui.appendingPathComponent("putting/index.html"), atomically: true, encoding: .utf8)
        try "export const x = 1;\n".write(to: ui.appendingPathComponent("putting/js/app.js"), atomically: true, encoding: .utf8)
        try "<svg xmlns='http://www.w3.org/2000/svg'/>".write(to: ui.appendingPathComponent("putting/flag.svg"), atomically: true, encoding: .utf8)
        try "export function call() {}\n".write(to: ui.appendingPathComponent("_/clubhouse.js"), atomically: true, encoding: .utf8)
        try "secret".write(to: ui.appendingPathComponent("putting/.env"), atomically: true, encoding: .utf8)
        try "secret".write(to: c.scratch.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: ui.appendingPathComponent("putting/escape.txt").path,
                                                   withDestinationPath: c.scratch.appendingPathComponent("secret.txt").path)
        let server = try HTTPServerProcess(c, arguments: [], options: ["--ui-dir", ui.path])
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        let page = try connection.request("GET", "/ui/putting/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("content-type"), "text/html; charset=utf-8")
        XCTAssertEqual(page.header("cache-control"), "no-cache")
        XCTAssertEqual(page.header("x-content-type-options"), "nosniff")
        let policy = try XCTUnwrap(page.header("content-security-policy"))
        XCTAssertTrue(policy.contains("default-src 'self'") && policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"), policy)
        let etag = try XCTUnwrap(page.header("etag"))
        let again = try connection.request("GET", "/ui/putting/index.html", headers: [("If-None-Match", etag)])
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(try connection.request("GET", "/ui/putting/index.html", headers: [("If-None-Match", "\"other\", W/\(etag)")]).status, 304)
        XCTAssertEqual(try connection.request("GET", "/ui/putting/index.html", headers: [("If-None-Match", "\"other\"")]).status, 200)
        let head = try connection.request("HEAD", "/ui/putting/index.html")
        XCTAssertEqual(head.header("content-length"), String(page.body.count))
        XCTAssertEqual(try connection.request("GET", "/ui/putting/js/app.js").header("content-type"), "text/javascript; charset=utf-8")
        XCTAssertEqual(try connection.request("GET", "/ui/putting/flag.svg").header("content-type"), "image/svg+xml")
        XCTAssertEqual(try connection.request("GET", "/ui/_/clubhouse.js").status, 200)
        let redirect = try connection.request("GET", "/ui/putting")
        XCTAssertEqual(redirect.status, 308)
        XCTAssertEqual(redirect.header("location"), "/ui/putting/")
        // Nothing outside the panel's folder: '..' raw or encoded, a link leaving it, a hidden file.
        for path in ["/ui/putting/../_/clubhouse.js", "/ui/putting/%2e%2e/_/clubhouse.js", "/ui/putting/%2E%2E%2Fsecret.txt", "/ui/putting/..%2fsecret.txt"] {
            let r = try httpRequest(port: server.port, "GET", path)
            XCTAssertEqual(r.status, 400, path)
            XCTAssertEqual(HTTPServerProcess.error(r)?.status, "invalid-argument")
        }
        XCTAssertEqual(try connection.request("GET", "/ui/putting/escape.txt").status, 404)
        XCTAssertEqual(try connection.request("GET", "/ui/putting/.env").status, 404)
        XCTAssertEqual(try connection.request("GET", "/ui/globe/").status, 404)
        let post = try connection.request("POST", "/ui/putting/index.html")
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.header("allow"), "GET, HEAD, OPTIONS")
        // Every response names its request; the log line carries the same id.
        let id = try XCTUnwrap(post.header("x-request-id"))
        XCTAssertFalse(server.stderr.contains(id), "the request log is at -v")
    }

    func testAListenerBeyondLoopbackMustBeAskedFor() throws {
        let c = try Clubhouse()
        try c.fail(["serve", "--http", "0.0.0.0:0"], exitCode: 2,
                   contains: ["serve: --http 0.0.0.0:0 is not a loopback address", "docs/reverse-proxy.md", "add --allow-remote"])
        try c.fail(["serve", "--http", "club.example:80"], exitCode: 2, contains: ["'club.example' is not an IP address"])
        try c.fail(["serve", "--http", "127.0.0.1:http"], exitCode: 2, contains: ["the port must be a number from 0 to 65535"])
        try c.fail(["serve", "--http", "127.0.0.1:0", "--trusted-proxy", "proxy"], exitCode: 2, contains: ["--trusted-proxy proxy: give the proxy's IP address"])
        try c.fail(["serve", "--http-header-timeout-ms", "5"], exitCode: 2, contains: ["--http-header-timeout-ms is an option of --http ADDR:PORT"])
        let server = try HTTPServerProcess(c, arguments: ["-v"], options: ["--allow-remote"])
        defer { server.stop() }
        XCTAssertTrue(server.process.isRunning)
        let r = try httpRequest(port: server.port, "GET", "/nothing")
        let id = try XCTUnwrap(r.header("x-request-id"))
        usleep(200_000)
        XCTAssertTrue(server.stderr.contains("http \(id) 127.0.0.1 \"GET /nothing\" 401"), server.stderr)
    }

    func testRoutesOutsideThePrefixOrCollidingAreRefusedNamingThem() throws {
        let c = try Clubhouse()
        let outside = try FixturePlugins.build("OUTSIDE", file: "hostile_routes.c")
        let clash = try FixturePlugins.build("SELFCLASH", file: "hostile_routes.c")
        let mounted = try FixturePlugins.build("MOUNTED", file: "hostile_routes.c")
        let config = try c.write("plugins.json", """
        {"sites": {
          "outside": {"plugins": {"sneaky": {"path": "\(outside)", "isolation": "process"}}},
          "clash": {"plugins": {"clashy": {"path": "\(clash)", "isolation": "process"}}},
          "two": {"http": {"mount": {"putting": "/", "other": "/"}},
                  "plugins": {"putting": {"id": "org.clubhouse.putting", "grants": ["storage"]},
                              "other": {"path": "\(mounted)", "isolation": "process"}}},
          "apart": {"http": {"mount": {"putting": "/", "other": "/elsewhere"}},
                    "plugins": {"putting": {"id": "org.clubhouse.putting", "grants": ["storage"]},
                                "other": {"path": "\(mounted)", "isolation": "process"}}}
        }}
        """)
        let refused = try c.run(["--config", config, "--site", "outside", "routes"])
        XCTAssertEqual(refused.exitCode, 0)
        XCTAssertTrue(refused.stdout.contains("unavailable: sneaky: plugin 'sneaky' (\(outside)): bad command catalogue: command 'sneak': route GET /../putting/courses: a '..' segment would leave the route's prefix"), refused.stdout)
        let selfClash = try c.run(["--config", config, "--site", "clash", "routes"])
        XCTAssertTrue(selfClash.stdout.contains("command 'new': route GET /things/new collides with route GET /things/{id} of command 'one'"), selfClash.stdout)
        try c.fail(["--config", config, "--site", "two", "routes"], exitCode: 1,
                   contains: ["plugin 'other': route GET /courses/{id} (mounted at /) collides with plugin 'putting''s route GET /courses/{courseId} (mounted at /)"])
        try c.fail(["--config", config, "--site", "two", "serve", "--http", "127.0.0.1:0"], exitCode: 1,
                   contains: ["serve: plugin 'other': route GET /courses/{id} (mounted at /) collides with plugin 'putting''s route GET /courses/{courseId}"])
        let apart = try c.succeed(["--config", config, "--site", "apart", "--json", "routes"]).json()
        let paths = apart["routes"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        XCTAssertTrue(paths.contains("/elsewhere/courses/{id}"), "\(paths)")
        XCTAssertTrue(paths.contains("/courses/{courseId}/holes/{holeNum}/bestline/{jobId}"), "\(paths)")
        // The site's "http" object is checked like the rest of plugins.json.
        let bad = try c.write("bad.json", #"{"sites": {"s": {"http": {"mount": {"putting": "/api/gr"}}, "plugins": {"putting": {"id": "org.clubhouse.putting"}}}}}"#)
        try c.fail(["config", "validate", bad], exitCode: 2, contains: ["bad.json:1:", "mount point '/api/gr' of 'putting': /api/ belongs to the host"])
    }

    func testARouteParameterCarryingJSONIsAValue() throws {
        let c = try Clubhouse()
        let echo = try FixturePlugins.build("ECHO", file: "hostile_routes.c")
        let config = try c.write("plugins.json", """
        {"sites": {"s": {"http": {"public_routes": true}, "plugins": {"echo": {"path": "\(echo)", "isolation": "process"}}}}}
        """)
        let server = try HTTPServerProcess(c, arguments: ["--config", config, "--site", "s"])
        defer { server.stop() }
        let injected = #"x","id":"root"},"cwd":"etc"#
        var encoded = ""
        for byte in injected.utf8 { encoded += String(format: "%%%02X", byte) }
        let r = try httpRequest(port: server.port, "GET", "/api/echo/echo/\(encoded)")
        XCTAssertEqual(r.status, 200, r.text)
        let request = try XCTUnwrap(try JSONParser.parse(bytes: r.body)["request"])
        XCTAssertEqual(request["arguments"]?["text"]?.stringValue, injected)
        XCTAssertNil(request["arguments"]?["id"])
        XCTAssertNotEqual(request["cwd"]?.stringValue, "etc")
        let query = try httpRequest(port: server.port, "GET", "/api/echo/echo/a?id=%22%7D")
        XCTAssertEqual(try JSONParser.parse(bytes: query.body)["request"]?["arguments"]?["id"]?.stringValue, "\"}")
    }

    /// The third outside attack (a10): `GET /api/tennis/drills/{drill}` with a read token named files of the
    /// server's folder (`plugins.json` came back whole; others told whether they exist). A call over HTTP is
    /// marked CLUBHOUSE_CALL_NETWORK and PluginKit's Files then reaches only the call's path arguments, so the
    /// name is a stored drill's name, whatever files lie where the server runs. The command line still reads
    /// a drill file.
    func testARouteParameterNamesNoFileOfTheHost() throws {
        let c = try Clubhouse()
        let config = try c.write("plugins.json", #"{"sites": {"s": {"plugins": {"tennis": {"id": "org.clubhouse.tennis", "grants": ["storage"]}}}}}"#)
        let drill = #"{"name": "secret", "steps": [{"zone": 5, "speed": 50, "delay": 2, "repeat": 3}]}"#
        let file = try c.write("secret.json", drill)
        try c.succeed(["--config", config, "tennis", "drill", "save", try c.write("saved.json", drill.replacing("secret", with: "saved"))])
        XCTAssertTrue(try c.succeed(["--config", config, "tennis", "drill", "show", file]).stdout.contains("secret"), "a file, on the command line")
        let token = try XCTUnwrap(try c.succeed(["--config", config, "--json", "token", "create", "--name", "reader", "--scope", "tennis:read"])
            .json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: ["--config", config, "--site", "s"])
        defer { server.stop() }
        let bearer = [("Authorization", "Bearer \(token)")]
        XCTAssertEqual(try httpRequest(port: server.port, "GET", "/api/tennis/drills/saved", headers: bearer).status, 200)
        for name in ["secret.json", "plugins.json", "nothing.json", "%2Fetc%2Fpasswd", "..%2Fplugins.json", file.replacing("/", with: "%2F")] {
            let r = try httpRequest(port: server.port, "GET", "/api/tennis/drills/\(name)", headers: bearer)
            XCTAssertTrue(r.status == 404 || r.status == 400, "\(name): \(r.text)")
            XCTAssertFalse(r.text.contains("sites") || r.text.contains("steps") || r.text.contains("root:"), "\(name): \(r.text)")
        }
    }

    func testRoutesAndHelpShowWhereACommandIsServed() throws {
        let c = try Clubhouse()
        let routes = try c.succeed(["routes"])
        XCTAssertTrue(routes.stdout.contains("POST    /api/putting/courses/{course}/holes/{hole}/bestline"), routes.stdout)
        XCTAssertTrue(routes.stdout.contains("putting declares 9 compatibility routes, not mounted at this site"), routes.stdout)
        let help = try c.succeed(["putting", "bestline", "--help"])
        XCTAssertTrue(help.stdout.contains("HTTP (clubhouse serve --http; write):\n  POST /api/putting/courses/{course}/holes/{hole}/bestline\n"), help.stdout)
        let compat = try c.succeed(["putting", "greenreader", "job", "--help"])
        XCTAssertTrue(compat.stdout.contains("GET /courses/{courseId}/holes/{holeNum}/bestline/{jobId}  (compatibility route, where the site mounts 'putting')"), compat.stdout)
        let json = try c.succeed(["--json", "routes"]).json()
        let first = try XCTUnwrap(json["routes"]?.arrayValue?.first)
        XCTAssertEqual(first, ["method": "GET", "path": "/api/putting/courses", "plugin": "putting", "command": "courses", "access": "read",
                               "public": false, "mountedAt": nil])
    }
}
