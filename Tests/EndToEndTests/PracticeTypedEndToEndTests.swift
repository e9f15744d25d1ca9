// Practice on typed arguments and typed rows: an argument error reads as a flag on the command line,
// as the argument's name over JSON-RPC and as the parameter's over HTTP (the core names the field, the
// adapter the flag, the host its front end's word), and a stored row that does not fit is refused with
// one line naming the table and the column.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class PracticeArgumentWordingEndToEndTests: XCTestCase {
    func testAnArgumentErrorIsAFlagOnTheCommandLineAnArgumentOverJSONRPCAndAParameterOverHTTP() throws {
        let c = try Clubhouse()
        try c.fail(["practice", "trends", "--club", "mashie"], exitCode: 2, contains: ["--club 'mashie' is not a known club; "])
        let calls = [
            #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"practice","command":"trends","arguments":{"club":"mashie"}}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"practice","command":"regrade","arguments":{"template":"x","session":1,"all":true}}}"#,
        ]
        let errors = try c.rpcErrors(calls)
        XCTAssertEqual(errors[1]?["code"]?.intValue, -32602)
        XCTAssertTrue(errors[1]?["message"]?.stringValue?.hasPrefix("argument 'club' 'mashie' is not a known club; ") == true, "\(errors)")
        XCTAssertEqual(errors[2]?["message"]?.stringValue, "give either --session ID or --all, not both",
                       "a message that does not begin with an argument names the flags")

        let token = try XCTUnwrap(try c.succeed(["--json", "token", "create", "--name", "range", "--scope", "practice:read"])
            .json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: [])
        defer { server.stop() }
        let trends = try httpRequest(port: server.port, "GET", "/api/practice/trends?club=mashie",
                                     headers: [("Authorization", "Bearer \(token)")])
        XCTAssertEqual(trends.status, 400, trends.text)
        let message = try XCTUnwrap(try JSONParser.parse(trends.text)["error"]?["message"]?.stringValue)
        XCTAssertTrue(message.hasPrefix("parameter 'club' 'mashie' is not a known club; "), message)
    }
}

final class PracticeRowsEndToEndTests: XCTestCase {
    func testAStoredRowThatDoesNotFitIsRefusedNamingTableAndColumn() throws {
        let c = try Clubhouse()
        let header = #""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle","Carry Distance""#
        let rows = (0..<6).map { "\"7i\",\"\(100 + $0)\",\"1.33\",\"5000\",\"45\",\"\(150 + $0)\"" }
        let csv = try c.write("range.csv", ([header] + rows).joined(separator: "\n") + "\n")
        try c.succeed(["practice", "import", csv, "--date", "2026-03-02"])
        // Another program drops the guard on the facts and writes bytes where a row number belongs (a blob keeps
        // its type in an INTEGER column).
        try c.damageDatabase(of: "org.clubhouse.practice",
                             "DROP TRIGGER shots_no_update; UPDATE shots SET row_index = X'01' WHERE id = (SELECT min(id) FROM shots);")
        try c.fail(["practice", "session", "1", "--shots"], exitCode: 1,
                   contains: ["a row of shots in the practice database does not fit: column 'row_index' holds blob([1]), "
                       + "not an integer that fits Int; restore a backup"])
    }
}
