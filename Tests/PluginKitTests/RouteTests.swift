// PluginKit's route table (Route.swift): merged into the catalogue each command's "http", "access" and
// "public"; a route naming no command makes describe fail, naming it.

import CClubhouse
import ClubhouseJSON
import XCTest
@testable import PluginKit

final class Routed: Plugin {
    static let info = PluginInfo(id: "org.tests.routed", version: "1.0.0", name: "Routed", summary: "Has routes")
    static let commands: [Command<Routed>] = [
        Command("show", summary: "Show", arguments: [.string("id", required: true)]) { _, _ in Reply() },
        Command("save", summary: "Save", arguments: [.path("file", required: true), .path("svg", access: .write)]) { _, _ in Reply() },
        Command("quiet", summary: "No route") { _, _ in Reply() },
    ]
    static let routes: [Route] = [
        .get("/things/{id}", command: "show", isPublic: true),
        .post("/things", command: "save", body: .file("file", types: ["application/json"]), output: .file("svg", type: "image/svg+xml"),
              acceptedIf: "job", maxBody: 4096),
        Route(.get, "/old/{key}", command: "show", params: ["key": "id"], mount: true, set: [:], prefixArgument: nil),
    ]
    init(context: PluginContext) throws {}
}

final class Misrouted: Plugin {
    static let info = PluginInfo(id: "org.tests.misrouted", version: "1.0.0", name: "Misrouted", summary: "A route to nothing")
    static let commands: [Command<Misrouted>] = [Command("show", summary: "Show") { _, _ in Reply() }]
    static let routes: [Route] = [.get("/x", command: "shwo")]
    init(context: PluginContext) throws {}
}

final class RouteTests: XCTestCase {
    func describe<P: Plugin>(_ type: P.Type) -> (Int32, String) {
        let descriptor = export(type, nil)
        var collected: [UInt8] = []
        let status = withUnsafeMutablePointer(to: &collected) { sink -> Int32 in
            var reply = clubhouse_reply(struct_size: UInt32(MemoryLayout<clubhouse_reply>.size), caller_data: sink, write: { reply, bytes, length in
                guard let reply, let bytes, let data = reply.pointee.caller_data else { return }
                data.assumingMemoryBound(to: [UInt8].self).pointee += UnsafeRawBufferPointer(start: bytes, count: length)
            })
            return descriptor?.pointee.describe?(descriptor, &reply) ?? -1
        }
        return (status, String(decoding: collected, as: UTF8.self))
    }

    func testRoutesAreMergedIntoTheirCommands() throws {
        let (status, text) = describe(Routed.self)
        XCTAssertEqual(status, Int32(CLUBHOUSE_OK), text)
        let commands = try XCTUnwrap(try JSONParser.parse(text)["commands"]?.arrayValue)
        let show = commands[0], save = commands[1], quiet = commands[2]
        XCTAssertEqual(show["access"], "read")
        XCTAssertEqual(show["public"], true)
        XCTAssertEqual(show["http"], [["method": "GET", "path": "/things/{id}"],
                                      ["method": "GET", "path": "/old/{key}", "params": ["key": "id"], "mount": true]])
        XCTAssertEqual(save["access"], "write")
        XCTAssertNil(save["public"])
        XCTAssertEqual(save["http"], ["method": "POST", "path": "/things", "body": ["file": "file", "types": ["application/json"]],
                                      "output": ["file": "svg", "type": "image/svg+xml"], "accepted_if": "job", "max_body": 4096])
        XCTAssertNil(quiet["http"])
        XCTAssertNil(quiet["access"])
    }

    func testARouteToNoCommandFailsDescribe() {
        let (status, text) = describe(Misrouted.self)
        XCTAssertEqual(status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(text, "route GET /x names command 'shwo', which Misrouted does not declare")
    }
}
