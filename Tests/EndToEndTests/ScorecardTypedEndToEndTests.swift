// Scorecard on typed arguments and typed rows: an argument error reads as a flag on the command line
// and as the argument's name over JSON-RPC (the host words the plugin's `--NAME` label for its
// caller), and a stored row that does not fit is refused with one line instead of read as 0.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class ArgumentWordingEndToEndTests: XCTestCase {
    func testAnArgumentErrorIsAFlagOnTheCommandLineAndAnArgumentOverJSONRPC() throws {
        let c = try Clubhouse()
        try c.fail(["scorecard", "differential", "--ags", "90", "--rating", "72.0", "--slope", "160"], exitCode: 2,
                   contains: ["--slope 160 is outside 55–155"])
        try c.fail(["scorecard", "index-from", "--differentials", "12.0,abc"], exitCode: 2,
                   contains: ["differential 2 of --differentials 'abc' is not a decimal with at most one digit after the point"])
        let calls = [
            #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"scorecard","command":"differential","arguments":{"ags":90,"rating":72.0,"slope":160}}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"scorecard","command":"score","arguments":{"round":7,"player":"Ann","hole":1,"strokes":4}}}"#,
        ]
        let errors = try c.rpcErrors(calls)
        XCTAssertEqual(errors[1]?["code"]?.intValue, -32602)
        XCTAssertEqual(errors[1]?["message"]?.stringValue, "argument 'slope' 160 is outside 55–155")
        XCTAssertEqual(errors[2]?["message"]?.stringValue, "no round '7' — see 'scorecard rounds' for round ids",
                       "a message that does not begin with an argument is left as the plugin wrote it")
    }

    func testAnArgumentErrorNamesTheParameterOverHTTP() throws {
        let c = try Clubhouse()
        let out = c.path("demo")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try c.succeed(["scorecard", "demo", "--out", out])
        let token = try XCTUnwrap(try c.succeed(["--json", "token", "create", "--name", "board", "--scope", "scorecard:write"])
            .json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: [])
        defer { server.stop() }
        let started = try httpRequest(port: server.port, "POST", "/api/scorecard/rounds",
                                      headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                      body: Array(#"{"course": "Heron Bay Links", "tee": "White", "players": ["Maren Holt"], "holes": 12}"#.utf8))
        XCTAssertEqual(started.status, 400, started.text)
        XCTAssertEqual(try JSONParser.parse(started.text)["error"]?["message"]?.stringValue,
                       "parameter 'holes' 12 is not possible — a round is 9 or 18 holes")
    }
}

final class ScorecardRowsEndToEndTests: XCTestCase {
    func testAStoredRowThatDoesNotFitIsRefusedNamingTableAndColumn() throws {
        let c = try Clubhouse()
        let out = c.path("demo")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try c.succeed(["scorecard", "demo", "--out", out])
        try c.damageDatabase(of: "org.clubhouse.scorecard",
                             "PRAGMA ignore_check_constraints = 1; UPDATE tees SET slope = 'steep' WHERE id = (SELECT min(id) FROM tees);")
        try c.fail(["scorecard", "course", "list"], exitCode: 1,
                   contains: [#"a row of tees in the scorecard database does not fit: column 'slope' holds text("steep"), not an integer that fits Int; restore a backup"#])
    }
}
