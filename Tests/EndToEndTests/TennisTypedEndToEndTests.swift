// Tennis on typed arguments and typed rows: an argument error reads as a flag on the command line, as
// the argument's name over JSON-RPC and as the parameter's over HTTP; a stored row that does not fit is
// refused with one line naming the table and the column, never skipped.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class TennisArgumentWordingEndToEndTests: XCTestCase {
    func testAnArgumentErrorIsAFlagOnTheCommandLineAnArgumentOverJSONRPCAndAParameterOverHTTP() throws {
        let c = try Clubhouse()
        let drill = try c.write("deep.json", #"{"name": "Deep", "steps": [{"zone": 6, "speed": 50, "spin": "topspin", "delay": 3}]}"#)
        try c.succeed(["tennis", "drill", "save", drill])
        try c.fail(["tennis", "drill", "show", "Deep", "--seed", "-1"], exitCode: 2, contains: ["--seed must be 0 or more"])
        let pairs = try c.write("pairs.json", #"{"pairs": []}"#)
        let call = #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"tennis","command":"homography","arguments":{"pairs":"\#(pairs)","method":"ransac","threshold":-1}}}"#
        let errors = try c.rpcErrors([call])
        XCTAssertEqual(errors[1]?["code"]?.intValue, -32602, "\(errors)")
        XCTAssertEqual(errors[1]?["message"]?.stringValue, "argument 'threshold' must be a positive number of metres")

        let token = try XCTUnwrap(try c.succeed(["--json", "token", "create", "--name", "court", "--scope", "tennis:read"])
            .json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: [])
        defer { server.stop() }
        let show = try httpRequest(port: server.port, "GET", "/api/tennis/drills/Deep?seed=-1", headers: [("Authorization", "Bearer \(token)")])
        XCTAssertEqual(show.status, 400, show.text)
        XCTAssertEqual(try JSONParser.parse(show.text)["error"]?["message"]?.stringValue, "parameter 'seed' must be 0 or more")
    }
}

final class TennisRowsEndToEndTests: XCTestCase {
    func testAStoredRowThatDoesNotFitIsRefusedNamingTableAndColumn() throws {
        let c = try Clubhouse()
        let drill = try c.write("deep.json", #"{"name": "Deep", "steps": [{"zone": 6, "speed": 50, "spin": "topspin", "delay": 3}]}"#)
        try c.succeed(["tennis", "drill", "save", drill])
        // Another program writes bytes where the drill's ball count belongs (a blob keeps its type in an INTEGER column).
        try c.damageDatabase(of: "org.clubhouse.tennis", "PRAGMA ignore_check_constraints = 1; UPDATE drills SET balls = X'01';")
        try c.fail(["tennis", "drill", "list"], exitCode: 1,
                   contains: ["a row of drills in the tennis database does not fit: column 'balls' holds blob([1]), "
                       + "not an integer that fits Int; restore a backup"])
    }
}
