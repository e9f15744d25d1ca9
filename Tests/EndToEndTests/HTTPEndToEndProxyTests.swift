// The supported way to face the internet (docs/reverse-proxy.md): nginx from Debian's packages terminating
// TLS in front of `clubhouse serve --http 127.0.0.1:PORT --trusted-proxy 127.0.0.1`, with exactly the
// configuration in docs/nginx/clubhouse.conf (its ports, certificate and paths replaced), started on
// loopback. curl makes the requests over TLS. Skipped, saying why, where nginx, openssl or curl is absent
// (.ci/deps installs them).

import Foundation
import TestSupport
import XCTest

final class HTTPEndToEndProxyTests: XCTestCase {
    static func tool(_ name: String) -> String? {
        for dir in ["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"] {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// A port nothing listens on now.
    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        _ = inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testNginxTerminatesTLSInFrontOfTheHost() throws {
        guard let nginx = Self.tool("nginx") else { throw XCTSkip("nginx is not installed (.ci/deps installs Debian's nginx)") }
        guard let openssl = Self.tool("openssl") else { throw XCTSkip("openssl is not installed (.ci/deps installs it)") }
        guard let curl = Self.tool("curl") else { throw XCTSkip("curl is not installed") }
        let c = try Clubhouse()
        try FileManager.default.createDirectory(at: c.scratch.appendingPathComponent("ui/_"), withIntermediateDirectories: true)
        try "hello through TLS".write(to: c.scratch.appendingPathComponent("ui/_/hello.txt"), atomically: true, encoding: .utf8)
        let host = try HTTPServerProcess(c, arguments: ["-v"], options: ["--trusted-proxy", "127.0.0.1", "--ui-dir", c.scratch.appendingPathComponent("ui").path])
        defer { host.stop() }

        // A certificate for 127.0.0.1, as certbot would give one for the club's name.
        let certificate = c.path("fullchain.pem"), key = c.path("privkey.pem")
        let made = try Self.run(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                          "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate])
        XCTAssertEqual(made.status, 0, made.output)

        // docs/nginx/clubhouse.conf with this run's ports and paths: every replaced text must be there.
        var site = try String(contentsOf: Clubhouse.repositoryRoot.appendingPathComponent("docs/nginx/clubhouse.conf"), encoding: .utf8)
        let tlsPort = Self.freePort(), plainPort = Self.freePort()
        for (from, to) in [("server 127.0.0.1:8080;", "server 127.0.0.1:\(host.port);"),
                           ("listen 443 ssl;", "listen 127.0.0.1:\(tlsPort) ssl;"),
                           ("listen 80;", "listen 127.0.0.1:\(plainPort);"),
                           ("/etc/letsencrypt/live/club.example.org/fullchain.pem", certificate),
                           ("/etc/letsencrypt/live/club.example.org/privkey.pem", key)] {
            XCTAssertTrue(site.contains(from), "docs/nginx/clubhouse.conf no longer says \(from)")
            site = site.replacingOccurrences(of: from, with: to)
        }
        let temp = c.path("nginx")
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
        let main = """
        \(getuid() == 0 ? "user root;" : "")
        daemon off;
        pid \(temp)/nginx.pid;
        error_log \(temp)/error.log info;
        events { worker_connections 64; }
        http {
            access_log \(temp)/access.log;
            client_body_temp_path \(temp)/body;
            proxy_temp_path \(temp)/proxy;
            fastcgi_temp_path \(temp)/fastcgi;
            uwsgi_temp_path \(temp)/uwsgi;
            scgi_temp_path \(temp)/scgi;
            \(site)
        }
        """
        let config = try c.write("nginx.conf", main)
        let checked = try Self.run(nginx, ["-t", "-c", config, "-p", temp, "-e", "\(temp)/error.log"])
        XCTAssertEqual(checked.status, 0, checked.output)
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: nginx)
        proxy.arguments = ["-c", config, "-p", temp, "-e", "\(temp)/error.log"]
        proxy.standardOutput = FileHandle.nullDevice
        proxy.standardError = FileHandle.nullDevice
        try proxy.run()
        defer {
            if proxy.isRunning { proxy.terminate() }
            proxy.waitUntilExit()
        }
        func curlGet(_ path: String, _ extra: [String] = []) throws -> (status: Int, headers: String, body: String) {
            let headers = c.path("headers-\(UUID().uuidString.prefix(6))")
            var result: (status: Int32, output: String) = (0, "")
            for _ in 0..<50 {
                result = try Self.run(curl, ["-s", "--cacert", certificate, "-D", headers, "--max-time", "20"] + extra + ["https://127.0.0.1:\(tlsPort)\(path)"])
                if result.status != 7 { break }  // 7: nginx not listening yet
                usleep(100_000)
            }
            XCTAssertEqual(result.status, 0, "curl: \(result.output)")
            let head = (try? String(contentsOfFile: headers, encoding: .utf8)) ?? ""
            let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
            return (status, head.lowercased(), result.output)
        }
        let hello = try curlGet("/ui/_/hello.txt", ["-H", "X-Forwarded-For: 203.0.113.5"])
        XCTAssertEqual(hello.status, 200, hello.headers)
        XCTAssertEqual(hello.body, "hello through TLS")
        // nginx's $request_id (32 hex digits) is the host's request id: the trusted proxy's word is taken.
        let id = try XCTUnwrap(hello.headers.split(separator: "\r\n").first { $0.hasPrefix("x-request-id:") }?.dropFirst(13)
            .trimmingCharacters(in: .whitespaces))
        XCTAssertEqual(id.count, 32, id)
        XCTAssertTrue(id.allSatisfy(\.isHexDigit), id)
        usleep(200_000)
        // The log line names the client nginx saw forwarded, not the proxy.
        XCTAssertTrue(host.stderr.contains("http \(id) 203.0.113.5 \"GET /ui/_/hello.txt\" 200"), host.stderr)
        // An API call without a credential: the host's JSON 401, through the proxy.
        let refused = try curlGet("/api/putting/courses")
        XCTAssertEqual(refused.status, 401)
        XCTAssertTrue(refused.body.hasPrefix("{\"error\":{\"status\":\"unauthenticated\""), refused.body)
        // Pairing through TLS, the code sent chunked: nginx hands the host a Content-Length, and the
        // cookie is Secure because the trusted proxy says HTTPS.
        let code = try XCTUnwrap(try c.succeed(["--json", "token", "pair", "--scope", "putting:read"]).json()["code"]?.stringValue)
        let paired = try curlGet("/api/_/pair", ["-X", "POST", "-H", "Transfer-Encoding: chunked", "-H", "Content-Type: application/json",
                                                 "--data-binary", #"{"code": "\#(code)"}"#])
        XCTAssertEqual(paired.status, 200, paired.body)
        let cookie = try XCTUnwrap(paired.headers.split(separator: "\r\n").first { $0.hasPrefix("set-cookie:") })
        XCTAssertTrue(cookie.contains("secure") && cookie.contains("httponly") && cookie.contains("samesite=strict"), String(cookie))
        // Plain HTTP is sent to HTTPS.
        let plain = try Self.run(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "http://127.0.0.1:\(plainPort)/ui/_/hello.txt"])
        XCTAssertTrue(plain.output.hasPrefix("301 https://127.0.0.1"), plain.output)
    }
}
