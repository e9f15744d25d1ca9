// Issue 32, "serve's contract": a param a method does not take is an error naming it (a per-call
// "site" used to do nothing); `clubhouse.call` gives the plugin's text beside its data when asked;
// after a cancel, the last progress notification of the call says so and counts what was done.

import ClubhouseJSON
import Foundation
import XCTest

/// `clubhouse serve` on stdio, read line by line as the lines come.
private final class StdioServer: @unchecked Sendable {
    // Safe: `lines` is guarded by `condition`; the pipes are used by one thread each.
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var lines: [JSONValue] = []
    private var ended = false

    init(_ c: Clubhouse, arguments: [String] = []) throws {
        process.executableURL = Clubhouse.executable
        process.arguments = arguments + ["serve"]
        process.environment = c.childEnvironment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = pending[pending.startIndex..<newline]
                    pending = Data(pending[(newline + 1)...])
                    if let value = try? JSONParser.parse(String(decoding: line, as: UTF8.self)) {
                        condition.lock(); lines.append(value); condition.broadcast(); condition.unlock()
                    }
                }
            }
            condition.lock(); ended = true; condition.broadcast(); condition.unlock()
        }
    }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    /// Waits until a received message satisfies `match`; returns every message so far.
    func wait(timeout: TimeInterval = 30, until match: (JSONValue) -> Bool) throws -> [JSONValue] {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !lines.contains(where: match) {
            if ended || !condition.wait(until: deadline) { throw ServeTestFailure(description: "no such message; got \(lines)") }
        }
        return lines
    }

    func response(_ id: Int, timeout: TimeInterval = 30) throws -> JSONValue {
        try wait(timeout: timeout) { $0["id"]?.intValue == id && $0["method"] == nil }.first { $0["id"]?.intValue == id && $0["method"] == nil } ?? .null
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

final class ServeContractEndToEndTests: XCTestCase {
    func testAParamAMethodDoesNotTakeIsRefusedWithItsName() throws {
        let c = try Clubhouse()
        let server = try StdioServer(c)
        defer { server.stop() }
        server.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"greeter","command":"hello","site":"courtside"}}"#)
        let refused = try server.response(1)
        XCTAssertEqual(refused["error"]?["code"]?.intValue, -32602, "\(refused)")
        XCTAssertEqual(refused["error"]?["message"]?.stringValue,
                       "invalid params: clubhouse.call takes no 'site' (its params: plugin, command, arguments, progress, text); the site is the server's, chosen when it starts: clubhouse --site NAME serve")
        XCTAssertEqual(refused["error"]?["data"]?["unknown"], ["site"])
        server.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.version","params":{"verbose":true,"x":1}}"#)
        XCTAssertEqual(try server.response(2)["error"]?["message"]?.stringValue,
                       "invalid params: clubhouse.version takes no 'verbose', 'x' (its params: none)")
        server.send(#"{"jsonrpc":"2.0","id":3,"method":"clubhouse.call","params":{"plugin":"greeter","command":"hello","text":"yes"}}"#)
        XCTAssertEqual(try server.response(3)["error"]?["message"]?.stringValue, "invalid params: text must be true or false")
    }

    func testACallGivesTheTextBesideTheDataWhenAsked() throws {
        let c = try Clubhouse()
        let server = try StdioServer(c)
        defer { server.stop() }
        server.send(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"greeter","command":"hello","arguments":{"name":"Ada"},"text":true}}"#)
        XCTAssertEqual(try server.response(1)["result"], ["data": ["greeting": "Hello, Ada!"], "text": "Hello, Ada!\n"])
        // Without it the result is the data, as before.
        server.send(#"{"jsonrpc":"2.0","id":2,"method":"clubhouse.call","params":{"plugin":"greeter","command":"hello","arguments":{"name":"Ada"}}}"#)
        XCTAssertEqual(try server.response(2)["result"], ["greeting": "Hello, Ada!"])
        // A C plugin's text too (notes writes it whatever the flags say).
        server.send(#"{"jsonrpc":"2.0","id":3,"method":"clubhouse.call","params":{"plugin":"notes","command":"add","arguments":{"text":"x"},"text":true}}"#)
        XCTAssertEqual(try server.response(3)["result"]?["text"], "added note 1\n")
    }

    func testTheLastProgressOfACancelledCallSaysCancelled() throws {
        let c = try Clubhouse()
        let server = try StdioServer(c)
        defer { server.stop() }
        server.send(#"{"jsonrpc":"2.0","id":7,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":300,"step-ms":10},"progress":true}}"#)
        _ = try server.wait { $0["method"] == "clubhouse.progress" && ($0["params"]?["done"]?.intValue ?? 0) > 5 }
        server.send(#"{"jsonrpc":"2.0","id":8,"method":"clubhouse.cancel","params":{"id":7}}"#)
        let response = try server.response(7)
        XCTAssertEqual(response["error"]?["data"]?["status"], "cancelled", "\(response)")
        let all = try server.wait { $0["id"]?.intValue == 7 && $0["method"] == nil }
        let progress = all.filter { $0["method"] == "clubhouse.progress" && $0["params"]?["id"]?.intValue == 7 }
        let last = try XCTUnwrap(progress.last?["params"])
        XCTAssertEqual(last["finished"], true, "\(last)")
        XCTAssertEqual(last["cancelled"], true, "\(last)")
        XCTAssertEqual(last["total"]?.intValue, 300)
        let done = try XCTUnwrap(last["done"]?.intValue)
        XCTAssertTrue(done > 5 && done < 300, "done counts what was done before the cancel: \(last)")
        XCTAssertEqual(progress.filter { $0["params"]?["finished"] == true }.count, 1, "one last notification")

        // A call that runs to its end still finishes at its total, not cancelled.
        server.send(#"{"jsonrpc":"2.0","id":9,"method":"clubhouse.call","params":{"plugin":"greeter","command":"countdown","arguments":{"from":3,"step-ms":1},"progress":true}}"#)
        let finished = try server.wait { $0["id"]?.intValue == 9 && $0["method"] == nil }
            .filter { $0["method"] == "clubhouse.progress" && $0["params"]?["id"]?.intValue == 9 }.last?["params"]
        XCTAssertEqual(finished?["done"]?.intValue, 3)
        XCTAssertEqual(finished?["finished"], true)
        XCTAssertNil(finished?["cancelled"])
    }
}
