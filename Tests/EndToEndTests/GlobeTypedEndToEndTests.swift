// Globe on typed arguments: an argument error reads as a flag on the command line, as the argument's
// name over JSON-RPC and as the parameter's over HTTP (the core names the field, the adapter the flag,
// the host its front end's word); a stored row that does not fit is refused naming table and column.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class GlobeArgumentWordingEndToEndTests: XCTestCase {
    func testAnArgumentErrorIsAFlagOnTheCommandLineAnArgumentOverJSONRPCAndAParameterOverHTTP() throws {
        let c = try Clubhouse()
        try c.fail(["globe", "where", "--lat", "91", "--lon", "0"], exitCode: 2,
                   contains: ["--lat: latitude 91.0 is outside [-90, 90]; give degrees north as a number, e.g. 48.86"])
        let calls = [
            #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"globe","command":"where","arguments":{"lat":91,"lon":0}}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"globe","command":"silhouette","arguments":{"country":"IT","svg":"\#(c.path("it.svg"))","size":0}}}"#,
        ]
        let errors = try c.rpcErrors(calls)
        XCTAssertEqual(errors[1]?["code"]?.intValue, -32602)
        XCTAssertEqual(errors[1]?["message"]?.stringValue,
                       "argument 'lat': latitude 91.0 is outside [-90, 90]; give degrees north as a number, e.g. 48.86")
        XCTAssertEqual(errors[2]?["message"]?.stringValue, "argument 'size' 0.0 is not a number of pixels from 16 to 10000")

        let token = try XCTUnwrap(try c.succeed(["--json", "token", "create", "--name", "map", "--scope", "globe:read"])
            .json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: [])
        defer { server.stop() }
        let map = try httpRequest(port: server.port, "GET", "/api/globe/map.svg?width=50", headers: [("Authorization", "Bearer \(token)")])
        XCTAssertEqual(map.status, 400, map.text)
        XCTAssertEqual(try JSONParser.parse(map.text)["error"]?["message"]?.stringValue,
                       "parameter 'width' 50.0 is not a number of pixels from 100 to 20000")
    }
}

final class GlobeRowsEndToEndTests: XCTestCase {
    func testAStoredRowThatDoesNotFitIsRefusedNamingTableAndColumn() throws {
        let c = try Clubhouse()
        try c.succeed(["globe", "visit", "FR", "--user", "ana"])
        // Bytes where a country code belongs (a blob keeps its type in a TEXT column).
        try c.damageDatabase(of: "org.clubhouse.globe", "PRAGMA ignore_check_constraints = 1; UPDATE travel_marks SET code = X'4652' WHERE user = 'ana';")
        try c.fail(["globe", "list", "--visited", "--user", "ana"], exitCode: 1,
                   contains: ["a row of travel_marks in the globe database does not fit: column 'code' holds blob([70, 82]), not text; restore a backup"])
    }
}
