// Putting on typed arguments and typed rows: an argument error reads as a flag on the command line, as
// the argument's name over JSON-RPC and as the parameter's over HTTP; a stored row that does not fit is
// refused with one line naming the table and the column, never read as an empty name or a zero.

import ClubhouseJSON
import Foundation
import TestSupport
import XCTest

final class PuttingArgumentWordingEndToEndTests: XCTestCase {
    func testAnArgumentErrorIsAFlagOnTheCommandLineAnArgumentOverJSONRPCAndAParameterOverHTTP() throws {
        let c = try Clubhouse()
        let svg = c.path("green.svg")
        try c.fail(["putting", "render", "--course", "links", "--hole", "1", "--svg", svg, "--width", "50"], exitCode: 2,
                   contains: ["--width 50 must be 100–8000 pixels"])
        let call = #"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"putting","command":"render","arguments":{"course":"links","hole":1,"svg":"\#(svg)","width":50}}}"#
        let errors = try c.rpcErrors([call])
        XCTAssertEqual(errors[1]?["code"]?.intValue, -32602, "\(errors)")
        XCTAssertEqual(errors[1]?["message"]?.stringValue, "argument 'width' 50 must be 100–8000 pixels")

        let token = try XCTUnwrap(try c.succeed(["--json", "token", "create", "--name", "green", "--scope", "putting:read"])
            .json()["token"]?.stringValue)
        let server = try HTTPServerProcess(c, arguments: [])
        defer { server.stop() }
        let green = try httpRequest(port: server.port, "GET", "/api/putting/courses/links/holes/1/green.svg?width=50",
                                    headers: [("Authorization", "Bearer \(token)")])
        XCTAssertEqual(green.status, 400, green.text)
        XCTAssertEqual(try JSONParser.parse(green.text)["error"]?["message"]?.stringValue, "parameter 'width' 50 must be 100–8000 pixels")
    }
}

final class PuttingRowsEndToEndTests: XCTestCase {
    func testAStoredRowThatDoesNotFitIsRefusedNamingTableAndColumn() throws {
        let c = try Clubhouse()
        try c.succeed(["putting", "courses"])
        // Another program writes bytes where a course's name belongs (a blob keeps its type in a TEXT column).
        try c.damageDatabase(of: "org.clubhouse.putting", "INSERT INTO courses (id, name) VALUES ('links', X'00');")
        try c.fail(["putting", "courses"], exitCode: 1,
                   contains: ["a row of courses in the putting database does not fit: column 'name' holds blob([0]), not text; restore a backup"])
    }
}
