// `clubhouse token create|list|revoke|pair` as an administrator runs them, and what they make
// working through the access layer the HTTP server asks (AccessControl over the same data dir):
// a printed token authorizes within its scopes and stops at its revocation; a printed pairing code
// (and its QR code, read back by zbarimg where installed) pairs one browser. Every error is one line
// with the README's exit code.

import ClubhouseHost
import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class TokenEndToEndTests: XCTestCase {
    func access(_ c: Clubhouse, site: String = "default") throws -> AccessControl {
        let configuration = try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "plugins.json", baseDirectory: nil)
        return try AccessControl(dataDirectory: c.dataDirectory.path, site: try configuration.site(named: site))
    }

    func request(_ method: String = "GET", alias: String?, access: RouteAccess = .read, bearer: String? = nil, cookie: String? = nil,
                 origin: String? = nil) -> AccessRequest {
        AccessRequest(site: "default", method: method, path: "/api/\(alias ?? "_")/x", alias: alias, access: access, isPublic: false,
                      authorization: bearer.map { "Bearer \($0)" }, apiKey: nil, cookie: cookie, origin: origin, host: "127.0.0.1:8080",
                      clientAddress: "127.0.0.1", secure: false, requestID: "e2e")
    }

    func status(_ decision: AccessDecision) -> Int {
        switch decision {
        case .allow: return 200
        case .deny(let status, _, _): return status
        }
    }

    func testATokenIsPrintedOnceListedWithoutItsSecretAndRevoked() throws {
        let c = try Clubhouse()
        let created = try c.succeed(["token", "create", "--name", "Ann's phone", "--scope", "putting:read,scorecard:write"])
        let token = try XCTUnwrap(created.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("chtok_") }.map(String.init))
        XCTAssertEqual(created.stdout.components(separatedBy: "chtok_").count, 2, "printed once:\n\(created.stdout)")
        XCTAssertTrue(created.stdout.contains("Token 'Ann's phone' for site 'default' (putting:read, scorecard:write)"), created.stdout)
        XCTAssertTrue(created.stdout.contains("clubhouse --site default token revoke 'Ann'\\''s phone'"), created.stdout)
        let web = try c.succeed(["--json", "token", "create", "--name", "web", "--scope", "globe:*"]).json()
        XCTAssertEqual(web["scopes"], ["globe:*"])
        XCTAssertEqual(web["kind"]?.stringValue, "token")
        let webToken = try XCTUnwrap(web["token"]?.stringValue)

        // What the server asks, on the same data directory: scopes hold, write includes read.
        let door = try access(c)
        XCTAssertEqual(status(door.authorize(request(alias: "putting", bearer: token))), 200)
        XCTAssertEqual(status(door.authorize(request("POST", alias: "scorecard", access: .write, bearer: token))), 200)
        XCTAssertEqual(status(door.authorize(request("POST", alias: "putting", access: .write, bearer: token))), 403)
        XCTAssertEqual(status(door.authorize(request(alias: "globe", bearer: token))), 403)
        XCTAssertEqual(status(door.authorize(request("DELETE", alias: "globe", access: .write, bearer: webToken))), 200)

        let list = try c.succeed(["token", "list"]).stdout
        XCTAssertFalse(list.contains("chtok_"), "no secret in the list:\n\(list)")
        XCTAssertTrue(list.contains("NAME"), list)
        let annRow = try XCTUnwrap(list.split(separator: "\n").first { $0.hasPrefix("Ann's phone") })
        XCTAssertTrue(annRow.contains("token") && annRow.contains("putting:read,scorecard:write"), String(annRow))
        XCTAssertFalse(annRow.hasSuffix("never"), "last used is set once it was used: \(annRow)")
        let json = try c.succeed(["--json", "token", "list"]).json()
        let rows = try XCTUnwrap(json["credentials"]?.arrayValue)
        XCTAssertEqual(rows.compactMap { $0["name"]?.stringValue }, ["Ann's phone", "web"])
        XCTAssertEqual(rows.first?["scopes"], ["putting:read", "scorecard:write"])
        XCTAssertNotNil(rows.first?["last_used"]?.stringValue)
        XCTAssertEqual(json["pairing_codes"]?.arrayValue?.count, 0)
        XCTAssertFalse(JSONWriter.compact(json).contains("chtok_"))

        // Revoked by name, then by id: the next request is refused.
        let revoked = try c.succeed(["token", "revoke", "Ann's phone"]).stdout
        XCTAssertTrue(revoked.hasPrefix("Revoked token 'Ann's phone' (id "), revoked)
        XCTAssertEqual(status(door.authorize(request(alias: "putting", bearer: token))), 401)
        let webID = try XCTUnwrap(rows.last?["id"]?.stringValue)
        XCTAssertEqual(try c.succeed(["--json", "token", "revoke", webID]).json()["revoked"]?["name"]?.stringValue, "web")
        XCTAssertEqual(status(door.authorize(request(alias: "globe", bearer: webToken))), 401)
        XCTAssertTrue(try c.succeed(["token", "list"]).stdout.hasPrefix("No tokens, browser sessions or pairing codes at site 'default'"))
        // Each site has its own: the token of one is nothing at another.
        let other = try c.succeed(["--json", "--site", "presidio-golf-club", "token", "create", "--name", "Ann's phone", "--scope", "putting:read"]).json()
        XCTAssertEqual(status(door.authorize(request(alias: "putting", bearer: other["token"]?.stringValue))), 401)
    }

    func testAPairingCodeAndItsQRCodePairOneBrowser() throws {
        let c = try Clubhouse()
        let paired = try c.succeed(["--json", "token", "pair", "--scope", "scorecard:write", "--name", "kitchen tablet",
                                    "--url", "http://192.168.1.20:8080/", "--svg", "qr.svg", "--minutes", "5"]).json()
        let code = try XCTUnwrap(paired["code"]?.stringValue)
        XCTAssertNotNil(code.wholeMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/), code)
        let url = try XCTUnwrap(paired["url"]?.stringValue)
        XCTAssertEqual(url, "http://192.168.1.20:8080/pair#code=" + code.replacingOccurrences(of: "-", with: ""))
        XCTAssertEqual(paired["svg"]?.stringValue, c.path("qr.svg"))
        XCTAssertEqual(paired["name"]?.stringValue, "kitchen tablet")
        let svg = try String(contentsOfFile: c.path("qr.svg"), encoding: .utf8)
        XCTAssertTrue(svg.hasPrefix("<?xml") && svg.contains("<title>Pair with default: \(url)</title>"), svg)
        // What a phone's camera reads from it (rsvg-convert renders it; zbarimg reads it; skipped without them).
        if RenderedPicture.renderer != nil && QRCodeReader.decoder != nil {
            XCTAssertEqual(try QRCodeReader.read([try RenderedPicture.check(c.path("qr.svg"), minimumBytes: 200)]), [url])
        } else {
            print("the QR code is not read back: \(RenderedPicture.renderer == nil ? RenderedPicture.missingReason : QRCodeReader.missingReason)")
        }

        let list = try c.succeed(["token", "list"]).stdout
        XCTAssertTrue(list.contains("kitchen tablet  pairing code"), list)
        XCTAssertFalse(list.contains(code) || list.contains(code.replacingOccurrences(of: "-", with: "")), "the code is not listed:\n\(list)")

        // The browser posts the code (as typed, in lower case): it gets a session cookie, once.
        let door = try access(c)
        let result = door.exchangePairingCode(code.lowercased(), request: request("POST", alias: nil, origin: "http://127.0.0.1:8080"))
        XCTAssertEqual(result.status, 200, result.message)
        let cookie = String(try XCTUnwrap(result.setCookie).prefix { $0 != ";" })
        XCTAssertEqual(status(door.authorize(request("POST", alias: "scorecard", access: .write, cookie: cookie, origin: "http://127.0.0.1:8080"))), 200)
        XCTAssertEqual(door.exchangePairingCode(code, request: request("POST", alias: nil)).status, 401)
        let sessions = try c.succeed(["--json", "token", "list"]).json()
        XCTAssertEqual(sessions["credentials"]?.arrayValue?.first?["kind"]?.stringValue, "browser")
        XCTAssertEqual(sessions["credentials"]?.arrayValue?.first?["name"]?.stringValue, "kitchen tablet")
        XCTAssertEqual(sessions["pairing_codes"]?.arrayValue?.count, 0)
        XCTAssertTrue(try c.succeed(["token", "revoke", "kitchen tablet"]).stdout.hasPrefix("Revoked browser session 'kitchen tablet'"))
        XCTAssertEqual(status(door.authorize(request(alias: "scorecard", cookie: cookie))), 401)

        // Text output: the code as shown, the URL; a waiting code can be revoked.
        let text = try c.succeed(["token", "pair", "--scope", "putting:read"]).stdout
        XCTAssertTrue(text.contains("Pairing code for site 'default' (putting:read), for one browser, until "), text)
        XCTAssertTrue(text.contains("Open http://127.0.0.1:8080/pair#code="), text)
        XCTAssertTrue(text.contains("(This URL assumes `serve --http 127.0.0.1:8080`; for another address or port, or for a phone, give --url with the address the browser opens, eg: --url http://192.168.1.20:8181.)"), text)
        XCTAssertFalse(try c.succeed(["token", "pair", "--scope", "putting:read", "--url", "http://10.0.0.2:8181"]).stdout.contains("This URL assumes"))
        let waiting = try XCTUnwrap(try c.succeed(["--json", "token", "list"]).json()["pairing_codes"]?.arrayValue?.first?["id"]?.stringValue)
        XCTAssertTrue(try c.succeed(["token", "revoke", waiting]).stdout.hasPrefix("Revoked pairing code \(waiting) at site 'default'"))
    }

    func testEveryMistakeIsOneLineWithTheRightExitCode() throws {
        let c = try Clubhouse()
        try c.succeed(["token", "create", "--name", "Ann's phone", "--scope", "putting:read"])
        let wrong: [([String], String)] = [
            (["token", "create", "--name", "x", "--scope", "putting:rw"], "--scope 'putting:rw': the access 'rw' must be read, write or * (write includes read)"),
            (["token", "create", "--name", "x", "--scope", "puttin:read"],
             "--scope 'puttin:read': site 'default' has no plugin 'puttin'; did you mean 'putting'? (its plugins: putting, globe, tennis, practice, scorecard, notes, greeter)"),
            (["token", "create", "--name", "x", "--scope", "putting"], "--scope 'putting' needs an access after a colon"),
            (["token", "create", "--name", "x", "--scope", ","], "--scope needs at least one ALIAS:read, ALIAS:write or ALIAS:*"),
            (["token", "create", "--name", "x"], "'clubhouse token create' needs --scope"),
            (["token", "create", "--name", "ann's PHONE", "--scope", "globe:read"], "a token named 'ann's PHONE' already exists at this site"),
            (["token", "create", "--name", "", "--scope", "globe:read"], "--name is empty"),
            (["token", "create", "--name", "a\tb", "--scope", "globe:read"], "--name holds a control character"),
            (["token", "revoke", "nobody"], "site 'default' has no token, browser session or pairing code named 'nobody' (nor with that id); clubhouse token list --site default shows them"),
            (["--site", "nowhere", "token", "list"], "no site 'nowhere' in <embedded plugins.json>; sites are: default, presidio-golf-club, riverside-tennis-academy, courtside; choose one with --site"),
            (["token", "pair", "--scope", "putting:read", "--minutes", "0"], "--minutes must be 1 to 60 (a pairing code is short-lived), got 0"),
            (["token", "pair", "--scope", "putting:read", "--minutes", "ten"], "--minutes must be an integer, got 'ten'"),
            (["token", "pair", "--scope", "putting:read", "--url", "192.168.1.20:8080"],
             "--url must be the http:// or https:// address a browser opens to reach the host, eg: http://192.168.1.20:8080, got '192.168.1.20:8080'"),
            (["token", "pair", "--scope", "putting:read", "--name", "Ann's phone"], "a token named 'Ann's phone' already exists at this site"),
            (["token", "pair", "--scope", "golf:read"], "site 'default' has no plugin 'golf'"),
        ]
        for (arguments, message) in wrong { try c.fail(arguments, exitCode: 2, contains: [message]) }
        let json = try c.run(["--json", "token", "revoke", "nobody"])
        XCTAssertEqual(json.exitCode, 2)
        XCTAssertEqual(try json.json()["error"]?["status"]?.stringValue, "not-found")

        // Failures of the world: exit 1, and nothing half made.
        try c.fail(["token", "pair", "--scope", "putting:read", "--svg", c.path("no/such/folder/qr.svg")], exitCode: 1,
                   contains: ["no/such/folder/qr.svg: cannot write the QR code", "no pairing code was made"])
        XCTAssertEqual(try c.succeed(["--json", "token", "list"]).json()["pairing_codes"]?.arrayValue?.count, 0)
        let file = try c.write("not-a-folder", "x")
        c.environment["CLUBHOUSE_DATA_DIR"] = file
        try c.fail(["token", "list"], exitCode: 1, contains: ["\(file)/default/_host/access.sqlite: cannot create the folder for the access database"])
    }

    func testHelpShowsTheTokenCommands() throws {
        let c = try Clubhouse()
        let overview = try c.succeed(["--help", "--no-pager"]).stdout
        for line in ["token create --name NAME --scope SCOPE", "token list", "token revoke NAME",
                     "token pair --scope SCOPE [--name NAME] [--url URL] [--svg PATH] [--minutes N]"] {
            XCTAssertTrue(overview.contains("  " + line), "--help lacks \(line)")
        }
        let pair = try c.succeed(["token", "pair", "--help", "--no-pager"]).stdout
        XCTAssertTrue(pair.contains("--minutes N    how long the code is valid, 1-60 [default: 10]"), pair)
    }
}
