// `serve --http`'s reply cache (a read its plugin declares "cache" for, ABI 1.7; Host/HTTP.md "Cached replies"),
// attacked first: a kept reply is answered only after every access check (no credential, another plugin's
// scope, a revoked token), never to another credential, never after a write — through this host (HTTP, pipelined
// on the same connection), from another process straight into the plugin's database, or a change the database
// does not see (the plugin's memory) — with HEAD and If-None-Match, and not at all with
// `--http-reply-cache-bytes 0`. The fixture's replies count how often the plugin ran (`served`), so a kept reply
// is told from a new one.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class HTTPReplyCacheEndToEndTests: XCTestCase {
    func site(_ c: Clubhouse, isolation: String? = nil) throws -> [String] {
        let faulty = Clubhouse.productsDirectory.appendingPathComponent("libFaultyPlugin.so").path
        let chosen = isolation.map { #", "isolation": "\#($0)""# } ?? ""
        let config = try c.write("plugins.json", """
        {"sites": {"club": {"plugins": {
          "faulty": {"path": "\(faulty)", "grants": ["storage"]\(chosen)},
          "greeter": {"id": "org.example.greeter"}}}}}
        """)
        return ["--config", config, "--site", "club"]
    }

    func token(_ c: Clubhouse, _ site: [String], _ name: String, _ scope: String) throws -> [(String, String)] {
        let made = try c.succeed(site + ["--json", "token", "create", "--name", name, "--scope", scope]).json()
        return [("Authorization", "Bearer \(try XCTUnwrap(made["token"]?.stringValue))")]
    }

    func json(_ r: RawHTTPResponse, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        XCTAssertEqual(r.status, 200, r.text, file: file, line: line)
        return try JSONParser.parse(bytes: r.body)
    }

    func testAKeptReplyIsAnsweredOnlyAfterEveryCheckAndNeverAfterAChange() throws {
        let c = try Clubhouse()
        let site = try site(c)
        let reader = try token(c, site, "reader", "faulty:read")
        let other = try token(c, site, "other", "faulty:read")
        let writer = try token(c, site, "writer", "faulty:write")
        let elsewhere = try token(c, site, "elsewhere", "greeter:read")
        let server = try HTTPServerProcess(c, arguments: site)
        defer { server.stop() }
        let port = server.port

        // The plugin's first call creates its database: nothing is kept from before there is one to watch.
        XCTAssertEqual(try json(try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader))["served"]?.intValue, 1)
        let first = try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader)
        XCTAssertEqual(try json(first)["served"]?.intValue, 2)
        XCTAssertEqual(try json(first)["note"], .null)
        let etag = try XCTUnwrap(first.header("etag"), "a cached read carries its ETag")
        XCTAssertEqual(first.header("cache-control"), "no-store")
        // Answered again from what was kept: the plugin did not run.
        let again = try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader)
        XCTAssertEqual(again.body, first.body)
        XCTAssertEqual(again.header("etag"), etag)
        let head = try httpRequest(port: port, "HEAD", "/api/faulty/note", headers: reader)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.body, [])
        XCTAssertEqual(head.header("content-length"), String(first.body.count))
        XCTAssertEqual(head.header("etag"), etag)
        let unchanged = try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader + [("If-None-Match", etag)])
        XCTAssertEqual(unchanged.status, 304, unchanged.text)
        XCTAssertEqual(unchanged.body, [])
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader + [("If-None-Match", "\"other\"")]).body, first.body)

        // Every access check still runs before a kept reply: no credential, a wrong one, another plugin's scope.
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/faulty/note").status, 401)
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/faulty/note", headers: [("Authorization", "Bearer ch_nonsense")]).status, 401)
        let scoped = try httpRequest(port: port, "GET", "/api/faulty/note", headers: elsewhere)
        XCTAssertEqual(scoped.status, 403, scoped.text)
        XCTAssertNil(scoped.header("etag"))
        // Another credential never gets the reply kept for the first: the plugin answers it.
        XCTAssertEqual(try json(try httpRequest(port: port, "GET", "/api/faulty/note", headers: other))["served"]?.intValue, 3)

        // A write through the host, pipelined on the same connection as the read after it: the read sees it.
        let connection = try RawHTTPConnection(port: port)
        let body = #"{"text": "first"}"#
        let auth = "Bearer " + String(writer[0].1.dropFirst("Bearer ".count))
        XCTAssertTrue(connection.send("POST /api/faulty/note HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(auth)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            + "GET /api/faulty/note HTTP/1.1\r\nHost: 127.0.0.1\r\n\(reader[0].0): \(reader[0].1)\r\n\r\n"))
        XCTAssertEqual(try connection.response().status, 200)
        let afterWrite = try json(try connection.response())
        XCTAssertEqual(afterWrite["note"]?.stringValue, "first")
        XCTAssertEqual(afterWrite["served"]?.intValue, 4)
        XCTAssertEqual(try json(try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader))["served"]?.intValue, 4, "kept again")

        // A write by another process straight into the plugin's database (the CLI): the next read sees it.
        try c.succeed(site + ["faulty", "note", "set", "--text", "second"])
        let afterCLI = try json(try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader))
        XCTAssertEqual(afterCLI["note"]?.stringValue, "second")
        XCTAssertEqual(afterCLI["served"]?.intValue, 5)

        // A change only in the plugin's memory (no commit to watch): any other command of the plugin ends what was kept.
        XCTAssertEqual(try json(try httpRequest(port: port, "GET", "/api/faulty/tally", headers: reader))["tally"]?.intValue, 0)
        XCTAssertEqual(try json(try httpRequest(port: port, "GET", "/api/faulty/tally", headers: reader))["served"]?.intValue, 6, "kept")
        XCTAssertEqual(try httpRequest(port: port, "POST", "/api/faulty/tally", headers: writer).status, 200)
        let bumped = try json(try httpRequest(port: port, "GET", "/api/faulty/tally", headers: reader))
        XCTAssertEqual(bumped["tally"]?.intValue, 1)
        XCTAssertEqual(bumped["served"]?.intValue, 7)

        // Revoked while the server runs and its reply is kept: refused from the next request.
        XCTAssertEqual(try json(try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader))["served"]?.intValue, 8)
        XCTAssertEqual(try json(try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader))["served"]?.intValue, 8, "kept")
        try c.succeed(site + ["token", "revoke", "reader"])
        let revoked = try httpRequest(port: port, "GET", "/api/faulty/note", headers: reader)
        XCTAssertEqual(revoked.status, 401, revoked.text)
        XCTAssertFalse(revoked.text.contains("second"), revoked.text)

        // Answers from what was kept are audited as any other.
        let audit = c.dataDirectory.appendingPathComponent("club/_host/audit.log").path
        var lines: [String] = []
        for _ in 0..<50 {
            lines = ((try? String(contentsOfFile: audit, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
                .filter { $0.contains("/api/faulty/note") && $0.contains("\"reader\"") }
            if lines.count >= 10 { break }
            usleep(100_000)
        }
        XCTAssertGreaterThanOrEqual(lines.count, 10, lines.joined(separator: "\n"))
    }

    /// The sixth outside attack: an isolated plugin whose runner ended without a command ending — killed while idle
    /// (`kill -9`, the OOM killer), or crashing in another cached read — restarted with empty memory, yet its kept
    /// replies were answered until their max_age_ms. The stamp now holds the runner's generation (bumped at each
    /// start and at each death the host notices, SiteRuntime.replyStamp); a reload ends them too.
    func testAKeptReplyEndsWithItsRunner() throws {
        let c = try Clubhouse()
        let site = try site(c, isolation: "process")
        let reader = try token(c, site, "reader", "faulty:read")
        let socket = c.path("rpc.sock")
        let server = try HTTPServerProcess(c, arguments: site, options: ["--socket", socket])
        defer { server.stop() }
        func served(_ target: String = "/api/faulty/tally", file: StaticString = #filePath, line: UInt = #line) throws -> Int? {
            try json(try httpRequest(port: server.port, "GET", target, headers: reader), file: file, line: line)["served"]?.intValue
        }
        /// The runner's first reply is not kept (made under the stamp from before it started); the next is.
        func keptAfterAFreshStart(_ why: String, line: UInt = #line) throws {
            XCTAssertEqual(try served(line: line), 1, why, line: line)
            XCTAssertEqual(try served(line: line), 2, line: line)
            XCTAssertEqual(try served(line: line), 2, "kept", line: line)
        }
        try keptAfterAFreshStart("the first runner")

        // Killed while idle: the next read is the new runner's, not what the dead one answered.
        let runner = try XCTUnwrap(runnerProcess(of: server.pid), "no runner process of the server")
        XCTAssertEqual(kill(runner, SIGKILL), 0)
        for _ in 0..<250 where !["Z", "X", nil].contains(processState(runner)) { usleep(20_000) }
        try keptAfterAFreshStart("a runner killed while idle took its memory with it")
        XCTAssertTrue(server.stderr.contains("plugin 'faulty' crashed (killed by signal 9, SIGKILL) while idle; the host starts it again for the next call"),
                      server.stderr)

        // A crash in another cached read (another target): the reply kept of the first goes with the runner.
        let crashed = try httpRequest(port: server.port, "GET", "/api/faulty/tally?crash=true", headers: reader)
        XCTAssertEqual(crashed.status / 100, 5, crashed.text)
        try keptAfterAFreshStart("a runner that crashed in a cached read took its memory with it")

        // A reload (clubhouse.reload on the server's socket) starts a new runner too.
        let client = try RPCSocketClient(path: socket)
        client.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.reload","params":{"plugin":"faulty"}}"#)
        let (reloaded, _) = try client.response(id: 1)
        XCTAssertEqual(reloaded["result"]?.arrayValue?.first?["outcome"]?.stringValue, "restarts", "\(reloaded)")
        try keptAfterAFreshStart("a reloaded plugin")
    }

    /// A keyed write whose isolated runner dies after its write was committed, before it answered (the eighth outside
    /// attack, a25: kill -9, out of memory, past its time): its 5xx was not kept, so the repeat ran the write again.
    /// The host brokers the runner's storage and sees the commit: the repeat is told the write was committed and its
    /// answer lost (409 `already-done`), not run. A runner that dies before it committed anything leaves the key
    /// unkept: the repeat runs.
    func testAKeyedWriteWhoseRunnerDiesAfterItsCommitIsNotRunAgain() throws {
        let c = try Clubhouse()
        let site = try site(c, isolation: "process")
        let writer = try token(c, site, "writer", "faulty:*")
        let server = try HTTPServerProcess(c, arguments: site)
        defer { server.stop() }
        func write(_ body: String, key: String) throws -> RawHTTPResponse {
            try httpRequest(port: server.port, "POST", "/api/faulty/note", headers: writer + [("Content-Type", "application/json"), ("Idempotency-Key", key)],
                            body: Array(body.utf8))
        }
        let died = try write(#"{"text": "committed", "crash": true}"#, key: "after-commit")
        XCTAssertEqual(died.status / 100, 5, died.text)
        let repeated = try write(#"{"text": "committed", "crash": true}"#, key: "after-commit")
        XCTAssertEqual(repeated.status, 409, "the write was run again: \(repeated.text)")
        XCTAssertEqual(try JSONParser.parse(bytes: repeated.body)["error"]?["message"]?.stringValue,
                       "the request with Idempotency-Key 'after-commit' already ran and committed its write, but its answer was lost (the plugin failed before it answered): read the resource to see the result instead of sending the request again")
        XCTAssertEqual(try json(try httpRequest(port: server.port, "GET", "/api/faulty/note", headers: writer))["note"]?.stringValue, "committed")
        // Died before it wrote anything: nothing kept, the repeat runs (and dies again: 5xx, not 409).
        let early = try write(#"{"text": "never", "early": true}"#, key: "before-commit")
        XCTAssertEqual(early.status / 100, 5, early.text)
        let again = try write(#"{"text": "never", "early": true}"#, key: "before-commit")
        XCTAssertEqual(again.status / 100, 5, "a write that committed nothing was not run again: \(again.text)")
    }

    /// The server's child running `clubhouse __runner` (/proc).
    private func runnerProcess(of server: pid_t) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.first { candidate in
            guard let text = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return false }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == server,
                  let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(candidate)/cmdline")) else { return false }
            return String(decoding: command, as: UTF8.self).contains("__runner")
        }
    }

    /// A process's state letter (R, S, Z …), nil once it is gone.
    private func processState(_ pid: pid_t) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ").first.map(String.init)
    }

    func testNothingIsKeptWithABoundOfZero() throws {
        let c = try Clubhouse()
        let site = try site(c)
        let reader = try token(c, site, "reader", "faulty:read")
        let server = try HTTPServerProcess(c, arguments: site, options: ["--http-reply-cache-bytes", "0"])
        defer { server.stop() }
        for expected in 1...3 {
            let r = try httpRequest(port: server.port, "GET", "/api/faulty/note", headers: reader)
            XCTAssertEqual(try json(r)["served"]?.intValue, expected)
        }
    }
}
