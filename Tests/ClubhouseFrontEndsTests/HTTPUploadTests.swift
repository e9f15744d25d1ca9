// Uploads over `serve --http` (Host/HTTP.md, "Uploads"): a route that takes its body as a file gets it
// written to a private folder in the site's data folder, under the client's file name, handed to the
// plugin as its path argument and removed afterwards. The hostile ones first: a body over the route's
// limit, bytes that are not a CSV, a file name that tries to be a path, an upload that stops half-way —
// each refused with its line and nothing left behind, nothing stored.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

final class HTTPUploadTests: XCTestCase {
    static let header = #""Club Type","Club Brand","Club Model","Carry Distance","Total Distance","Ball Speed","Launch Angle","Launch Direction","Apex","Side Carry","Club Speed","Smash Factor","Descent Angle","Attack Angle","Club Path","Club Data Est Type","Spin Rate","Spin Axis""#

    /// A small MLM2PRO export written here: six 7-iron shots.
    static var csv: String {
        let rows = (0..<6).map { i in
            #""7i",,,"\#(140 + i).2","\#(150 + i).0","\#(100 + i).5","24.0","-1.0","92.0","\#(i - 3).5","77.0","1.3\#(i)","48.0","-1.0","-2.0",0,"5500","2.0""#
        }
        return ([header] + rows).joined(separator: "\n") + "\n"
    }

    func server(configure: (inout HTTPOptions) -> Void = { _ in }) throws -> InProcessHTTPServer {
        let access = TestAccess()
        access.addToken("phone", name: "Ann's phone", scopes: ["practice:*"])
        access.addToken("watch", name: "Ann's watch", scopes: ["practice:read"])
        access.addToken("tablet", name: "Bob's tablet", scopes: ["practice:*"])
        return try InProcessHTTPServer(plugins: ["practice": "PracticePlugin"], access: access, configure: configure)
    }

    /// This process's resident memory (kB), from /proc/self/status.
    static func residentKilobytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// The attack round's A5: clients with no token (or the wrong scope, or no route) start 64 MiB uploads.
    /// Each is answered on its head alone, at once, before a byte of its body is sent (no 100 Continue), and
    /// its connection closed; what it sends afterwards is dropped, so the host does not grow by it.
    func testUploadsRefusedOnTheHeadAreAnsweredBeforeTheirBodiesAndTheHostDoesNotGrow() throws {
        let server = try server()
        defer { server.stop() }
        let before = HTTPUploadTests.residentKilobytes()
        // (No route's limit is the default 1 MiB: a body over it there is 413, also on the head.)
        let cases: [(credential: String, target: String, declared: Int, status: Int)] = [
            ("", "/api/practice/sessions", 64 << 20, 401), ("", "/api/practice/sessions", 64 << 20, 401),
            ("", "/api/practice/sessions", 64 << 20, 401), ("Authorization: Bearer nobody\r\n", "/api/practice/sessions", 64 << 20, 401),
            ("Authorization: Bearer watch\r\n", "/api/practice/sessions", 64 << 20, 403),
            ("Authorization: Bearer phone\r\n", "/api/practice/nowhere", 1 << 20, 404),
        ]
        var open: [RawHTTPConnection] = []
        for (i, item) in cases.enumerated() {
            let c = try RawHTTPConnection(port: server.port)
            let expect = i == 0 ? "Expect: 100-continue\r\n" : ""
            XCTAssertTrue(c.send("POST \(item.target) HTTP/1.1\r\nHost: localhost\r\n\(item.credential)\(expect)Content-Type: text/csv\r\n"
                                 + "Content-Length: \(item.declared)\r\n\r\n"))
            // Answered without the body: a server that waited for it would not answer for 10 s and more.
            let answered = try c.response(timeout: 3)
            XCTAssertEqual(answered.status, item.status, "\(item.target): \(answered.text)")
            XCTAssertEqual(answered.header("Connection")?.lowercased(), "close")
            XCTAssertNotNil(try answered.json()["error"]?["message"]?.stringValue)
            if item.status == 401 { XCTAssertNotNil(answered.header("WWW-Authenticate")) }
            open.append(c)
        }
        // The clients send 8 MiB of their bodies anyway: read and dropped while the refusals linger, not kept.
        let chunk = [UInt8](repeating: UInt8(ascii: "7"), count: 1 << 20)
        for c in open { for _ in 0..<8 { if !c.send(chunk) { break } } }
        let grown = HTTPUploadTests.residentKilobytes() - before
        XCTAssertLessThan(grown, 24 << 10, "the host grew by \(grown) kB for refused uploads")
        open.removeAll()
        try assertNothingKept(server)
        // An upload with a token still works.
        let done = try upload(server, Array(HTTPUploadTests.csv.utf8), name: "range.csv")
        XCTAssertEqual(done.status, 200, done.text)
    }

    /// Bodies held in memory at once are bounded server-wide (--http-max-body-memory): an upload that would go
    /// over is refused with 503 on its head, and the bound is given back when a response is queued.
    func testBodiesInMemoryAreBoundedAcrossClients() throws {
        let csv = Array(HTTPUploadTests.csv.utf8)
        let server = try server { $0.limits.bodyMemoryBytes = csv.count + 100 }
        defer { server.stop() }
        let head = "POST /api/practice/sessions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer phone\r\nContent-Type: text/csv\r\n"
            + "Content-Disposition: attachment; filename=\"a.csv\"\r\nContent-Length: \(csv.count)\r\n\r\n"
        let first = try RawHTTPConnection(port: server.port)
        XCTAssertTrue(first.send(Array(head.utf8) + csv.prefix(csv.count / 2)))
        Thread.sleep(forTimeInterval: 0.2)
        let second = try RawHTTPConnection(port: server.port)
        XCTAssertTrue(second.send(head))
        let busy = try second.response(timeout: 3)
        XCTAssertEqual(busy.status, 503, busy.text)
        XCTAssertEqual(busy.header("Retry-After"), "1")
        let message = try busy.json()["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.hasPrefix("server busy: request bodies held in memory would exceed \(csv.count + 100) bytes (--http-max-body-memory)"), message)
        XCTAssertFalse(message.contains("\n"))
        XCTAssertTrue(first.send(Array(csv.suffix(from: csv.count / 2))))
        let stored = try first.response()
        XCTAssertEqual(stored.status, 200, stored.text)
        // Given back: the next upload fits.
        let again = try upload(server, Array(HTTPUploadTests.csv.replacingOccurrences(of: "\"5500\"", with: "\"5600\"").utf8), name: "b.csv")
        XCTAssertEqual(again.status, 200, again.text)
    }

    /// The fourth outside attack (b15): one phone declared four 64 MiB uploads, sent nothing more, and every
    /// other client's write got 503 for up to an hour. One caller holds a share of the bound only (429 past
    /// it), and a body from which no byte arrives for the body timeout loses its slot whatever it declared.
    func testOneCallerCannotHoldEveryOthersBodies() throws {
        let server = try server { $0.limits.bodyTimeoutMilliseconds = 800 }
        defer { server.stop() }
        let share = server.front.bodyMemoryLimits().share
        XCTAssertEqual(share, 64 << 20, "a quarter of the default bound, 4 x the practice route's 64 MiB")
        func start(_ token: String, declared: Int) throws -> RawHTTPConnection {
            let c = try RawHTTPConnection(port: server.port)
            XCTAssertTrue(c.send("POST /api/practice/sessions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                                 + "Content-Type: text/csv\r\nContent-Disposition: attachment; filename=\"a.csv\"\r\nContent-Length: \(declared)\r\n\r\n"))
            return c
        }
        let hog = try start("phone", declared: 64 << 20)
        XCTAssertTrue(hog.send(Array("\"Club Type\"".utf8)))
        Thread.sleep(forTimeInterval: 0.2)
        let more = try start("phone", declared: 1024)
        let refused = try more.response(timeout: 3)
        XCTAssertEqual(refused.status, 429, refused.text)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        let message = try refused.json()["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.hasPrefix("too many request bodies at once from token 'Ann's phone': 67108864 bytes held, at most 67108864 per caller"), message)
        // Another caller's upload goes through meanwhile.
        let csv = Array(HTTPUploadTests.csv.utf8)
        let other = try httpRequest(port: server.port, "POST", "/api/practice/sessions",
                                    headers: [("Authorization", "Bearer tablet"), ("Content-Type", "text/csv"),
                                              ("Content-Disposition", "attachment; filename=\"b.csv\"")], body: csv)
        XCTAssertEqual(other.status, 200, other.text)
        // The hog sent 11 bytes and then nothing: dropped after the body timeout, not after the hour its
        // 64 MiB would be allowed at 16 KiB/s.
        let dropped = try hog.response(timeout: 5)
        XCTAssertEqual(dropped.status, 408, dropped.text)
        let why = try dropped.json()["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(why.hasPrefix("no byte of the request's body (11 of 67108864 bytes received) arrived for 800 ms (--http-body-timeout-ms)"), why)
        // Its share is given back: the phone uploads again.
        let again = try upload(server, Array(HTTPUploadTests.csv.replacingOccurrences(of: "\"5500\"", with: "\"5600\"").utf8), name: "c.csv")
        XCTAssertEqual(again.status, 200, again.text)
        try assertNothingKept(server)
    }

    let auth = [("Authorization", "Bearer phone")]

    func upload(_ server: InProcessHTTPServer, _ body: [UInt8], name: String? = nil, disposition: String? = nil,
                type: String = "text/csv") throws -> RawHTTPResponse {
        var headers = auth + [("Content-Type", type)]
        if let disposition { headers.append(("Content-Disposition", disposition)) }
        else if let name { headers.append(("Content-Disposition", "attachment; filename=\"\(name)\"")) }
        return try httpRequest(port: server.port, "POST", "/api/practice/sessions", headers: headers, body: body)
    }

    func sessions(_ server: InProcessHTTPServer) throws -> [JSONValue] {
        let listed = try httpRequest(port: server.port, "GET", "/api/practice/sessions", headers: auth)
        XCTAssertEqual(listed.status, 200, listed.text)
        return try listed.json()["sessions"]?.arrayValue ?? []
    }

    /// Nothing of any request is left in the host's folder for bodies.
    func assertNothingKept(_ server: InProcessHTTPServer, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: server.front.scratch), [], file: file, line: line)
    }

    func testTheBodyIsKeptInTheSitesDataFolderUnderTheClientsNameAndRemoved() throws {
        let server = try server()
        defer { server.stop() }
        // The folder is private and in the site's data folder.
        let site = server.scratch.appendingPathComponent("data/club").path
        XCTAssertTrue(server.front.scratch.hasPrefix(site + "/.http-uploads-"), server.front.scratch)
        let mode = (try FileManager.default.attributesOfItem(atPath: server.front.scratch)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o700)

        let done = try upload(server, Array(HTTPUploadTests.csv.utf8), name: "range day.csv")
        XCTAssertEqual(done.status, 200, done.text)
        let stored = try done.json()["session"]
        XCTAssertEqual(stored?["shot_count"]?.intValue, 6)
        // The upload's own name, never the host's folder (the third outside attack, a23: `source_name` and the
        // federation record's `source` held …/.http-uploads-XXXXXX/<request>/range day.csv).
        XCTAssertEqual(stored?["source_name"]?.stringValue, "range day.csv")
        try assertNothingKept(server)
        // RFC 8187's form wins over the plain one, and may say anything UTF-8 can.
        let other = HTTPUploadTests.csv.replacingOccurrences(of: "\"5500\"", with: "\"5600\"")
        let again = try upload(server, Array(other.utf8),
                               disposition: "attachment; filename=\"plain.csv\"; filename*=UTF-8''s%C3%A9ance%20%E2%9B%B3.csv")
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(try again.json()["session"]?["source_name"]?.stringValue, "séance ⛳.csv")
        try assertNothingKept(server)
    }

    /// The same export uploaded again is the request's fault: 409 `constraint`, the CLI's message, nothing doubled.
    func testTheSameExportAgainIsAConstraint() throws {
        let server = try server()
        defer { server.stop() }
        let first = try upload(server, Array(HTTPUploadTests.csv.utf8), name: "range.csv")
        XCTAssertEqual(first.status, 200, first.text)
        let id = try first.json()["session"]?["id"]?.intValue ?? 0
        let again = try upload(server, Array(HTTPUploadTests.csv.utf8), name: "range.csv")
        XCTAssertEqual(again.status, 409, again.text)
        XCTAssertEqual(try again.json()["error"]?["status"]?.stringValue, "constraint")
        let message = try again.json()["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("already imported as session \(id) "), message)
        XCTAssertTrue(message.hasSuffix("see it with `practice session \(id)`, or delete it (`practice session delete \(id)`) to import the file anew"), message)
        XCTAssertEqual(try sessions(server).count, 1)
        try assertNothingKept(server)
    }

    func testABodyOverTheRoutesLimitIsRefusedBeforeAnythingIsWritten() throws {
        let server = try server()
        defer { server.stop() }
        // 64 MiB + 1 declared: refused on the head, the body never read.
        let c = try RawHTTPConnection(port: server.port)
        c.send("POST /api/practice/sessions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer phone\r\nContent-Type: text/csv\r\n"
               + "Content-Length: \(64 << 20 + 1)\r\n\r\n" + HTTPUploadTests.header + "\n")
        let refused = try c.response()
        XCTAssertEqual(refused.status, 413, refused.text)
        XCTAssertEqual(try refused.json()["error"]?["status"]?.stringValue, "too-large")
        try assertNothingKept(server)
        XCTAssertEqual(try sessions(server).count, 0)
    }

    func testBytesThatAreNotACSVAreRefusedNamingTheFileAsTheClientNamedIt() throws {
        let server = try server()
        defer { server.stop() }
        var generator = SystemRandomNumberGenerator()
        var garbage = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        garbage[0] = 0xFF   // never valid UTF-8
        for (body, name) in [(garbage, "garbage.csv"), (Array("hello,world\n1,2\n".utf8), "notes.csv"), ([], "empty.csv")] {
            let refused = try upload(server, body, name: name)
            XCTAssertEqual(refused.status, 400, "\(name): \(refused.text)")
            let message = try refused.json()["error"]?["message"]?.stringValue ?? ""
            XCTAssertTrue(message.hasPrefix(name) || message.contains(" \(name)") || message.contains("'\(name)'"), "\(name): \(message)")
            XCTAssertFalse(message.contains(".http-uploads"), "the host's private folder leaks: \(message)")
            try assertNothingKept(server)
        }
        XCTAssertEqual(try sessions(server).count, 0)
    }

    func testAFileNameThatIsAPathIsRefusedAndNothingIsWrittenAnywhere() throws {
        let server = try server()
        defer { server.stop() }
        let site = server.scratch.appendingPathComponent("data/club")
        let before = try FileManager.default.contentsOfDirectory(atPath: site.path).sorted()
        let hostile = ["attachment; filename=\"../../escaped.csv\"", "attachment; filename*=UTF-8''..%2F..%2Fescaped.csv",
                       "attachment; filename=\"a\\\\b.csv\"", "attachment; filename=\".profile\"", "attachment; filename=\"..\"",
                       "attachment; filename*=UTF-8''a%0Ab.csv", "attachment; filename*=UTF-8''%FF.csv", "attachment; filename=\"\"",
                       "attachment; filename=\"" + String(repeating: "x", count: 201) + "\""]
        for disposition in hostile {
            let refused = try upload(server, Array(HTTPUploadTests.csv.utf8), disposition: disposition)
            XCTAssertEqual(refused.status, 400, "\(disposition): \(refused.text)")
            XCTAssertEqual(try refused.json()["error"]?["status"]?.stringValue, "invalid-argument")
            try assertNothingKept(server)
        }
        let traversal = try upload(server, Array(HTTPUploadTests.csv.utf8), disposition: hostile[0])
        XCTAssertEqual(try traversal.json()["error"]?["message"]?.stringValue,
                       "the upload's file name '../../escaped.csv' is not a plain file name (no '/', '\\', control characters or leading '.'); "
                       + "send the file's name alone, e.g. Content-Disposition: attachment; filename=\"session.csv\"")
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.scratch.appendingPathComponent("data/escaped.csv").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: site.appendingPathComponent("escaped.csv").path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: site.path).sorted(), before)
        XCTAssertEqual(try sessions(server).count, 0)
    }

    func testAnUploadThatStopsHalfWayLeavesNothingBehind() throws {
        let server = try server()
        defer { server.stop() }
        let body = Array(HTTPUploadTests.csv.utf8)
        for cut in [0, body.count / 2, body.count - 1] {
            let c = try RawHTTPConnection(port: server.port)
            c.send("POST /api/practice/sessions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer phone\r\nContent-Type: text/csv\r\n"
                   + "Content-Disposition: attachment; filename=\"half.csv\"\r\nContent-Length: \(body.count)\r\n\r\n"
                   + String(decoding: body.prefix(cut), as: UTF8.self))
            usleep(100_000)
            close(c.fd)
        }
        // The server goes on; nothing was kept and nothing imported.
        usleep(200_000)
        try assertNothingKept(server)
        XCTAssertEqual(try sessions(server).count, 0)
        let whole = try upload(server, body, name: "half.csv")
        XCTAssertEqual(whole.status, 200, whole.text)
        XCTAssertEqual(try sessions(server).count, 1)
        try assertNothingKept(server)
    }

    func testContentDispositionParameters() {
        XCTAssertEqual(try UploadName.parse(contentDisposition: nil).get(), nil)
        XCTAssertEqual(try UploadName.parse(contentDisposition: "attachment").get(), nil)
        XCTAssertEqual(try UploadName.parse(contentDisposition: "attachment; filename=s.csv").get(), "s.csv")
        XCTAssertEqual(try UploadName.parse(contentDisposition: "form-data; name=\"f\"; filename=\"a \\\"b\\\".csv\"").get(), "a \"b\".csv")
        XCTAssertEqual(try UploadName.parse(contentDisposition: "attachment; filename*=utf-8''%E2%82%AC.csv; filename=e.csv").get(), "€.csv")
        XCTAssertThrowsError(try UploadName.parse(contentDisposition: "attachment; filename*=ISO-8859-1''a.csv").get())
    }
}
