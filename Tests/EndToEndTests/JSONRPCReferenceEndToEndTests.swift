// Host/JSON-RPC.md is checked against the server: the methods it documents are the ones a live
// `clubhouse serve` answers (and names when asked for an unknown one), the params it lists for
// each are the ones the server takes (it names them when refusing another), the error codes in its
// table are the ones the server's sources send, and its notifications are the ones the server emits.

import ClubhouseJSON
import Foundation
import XCTest

final class JSONRPCReferenceEndToEndTests: XCTestCase {
    static let reference = Clubhouse.repositoryRoot.appendingPathComponent("Host/JSON-RPC.md")

    /// The names of "### `NAME`" headings in the section titled `section`.
    func headings(_ text: String, section: String) -> [String] {
        var inside = false
        var names: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inside = line.hasPrefix("## \(section)") }
            if inside, line.hasPrefix("### `"), line.hasSuffix("`") { names.append(String(line.dropFirst(5).dropLast())) }
        }
        return names
    }

    /// The names in backticks on the "Params:" line of a method's section, up to " — " ("none": []).
    func params(_ text: String, method: String) -> [String] {
        let section = text.components(separatedBy: "### `\(method)`").dropFirst().first?.components(separatedBy: "\n### ").first ?? ""
        guard let line = section.split(separator: "\n").first(where: { $0.hasPrefix("Params: ") }) else { return ["(no Params line)"] }
        let head = line.dropFirst(8).components(separatedBy: " — ").first ?? ""
        if head.hasPrefix("none") { return [] }
        return head.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            .filter { $0.allSatisfy { $0.isLetter || $0 == "_" } }
    }

    func testTheReferenceNamesEveryMethodErrorAndNotificationTheServerHas() throws {
        let text = try String(contentsOf: Self.reference, encoding: .utf8)
        let methods = headings(text, section: "Methods")
        XCTAssertEqual(methods.count, 8, "\(methods)")
        let c = try Clubhouse()
        var lines = methods.enumerated().map { i, m in #"{"jsonrpc":"2.0","id":\#(i + 1),"method":"\#(m)","params":{}}"# }
        lines.append(#"{"jsonrpc":"2.0","id":99,"method":"clubhouse.nope"}"#)
        let result = try c.succeed(["serve"], stdin: lines.joined(separator: "\n") + "\n")
        var responses: [Int: JSONValue] = [:]
        for line in result.stdout.split(separator: "\n") {
            let v = try JSONParser.parse(String(line))
            if let id = v["id"]?.intValue { responses[id] = v }
        }
        for (i, method) in methods.enumerated() {
            let response = try XCTUnwrap(responses[i + 1], "no response to \(method)")
            XCTAssertNotEqual(response["error"]?["code"]?.intValue, -32601, "the server does not know the documented \(method)")
        }
        // The server's own list, as it names it for an unknown method, is the documented one.
        let unknown = try XCTUnwrap(responses[99]?["error"]?["message"]?.stringValue)
        XCTAssertEqual(unknown, "method not found: clubhouse.nope (methods: \(methods.joined(separator: ", ")))")

        // Params: each method's "Params:" line lists exactly what the server takes.
        var probes: [String] = []
        for (i, method) in methods.enumerated() {
            probes.append(#"{"jsonrpc":"2.0","id":\#(100 + i),"method":"\#(method)","params":{"zz_not_a_param":1}}"#)
        }
        let refusals = try c.succeed(["serve"], stdin: probes.joined(separator: "\n") + "\n")
        var taken: [Int: [String]] = [:]
        for line in refusals.stdout.split(separator: "\n") {
            let v = try JSONParser.parse(String(line))
            guard let id = v["id"]?.intValue, v["error"]?["data"]?["unknown"] == ["zz_not_a_param"] else { continue }
            taken[id] = v["error"]?["data"]?["params"]?.arrayValue?.compactMap(\.stringValue)
        }
        for (i, method) in methods.enumerated() {
            let server = try XCTUnwrap(taken[100 + i], "\(method) did not refuse an unknown param by name")
            XCTAssertEqual(Set(params(text, method: method)), Set(server), "\(method): documented params vs the server's")
        }

        // Error codes: the table's are exactly those the server's sources send.
        let documented = Set(text.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("| -32") else { return nil }
            return Int(line.dropFirst(2).prefix { $0 != " " })
        })
        var sent = Set<Int>()
        for file in ["JSONRPCServer.swift", "ServeTransport.swift", "RPCSubscriptions.swift"] {
            let source = try String(contentsOf: Clubhouse.repositoryRoot.appendingPathComponent("Host/Sources/FrontEnds/Server/\(file)"), encoding: .utf8)
            var rest = Substring(source)
            while let range = rest.range(of: "-32") {
                let digits = rest[range.lowerBound...].dropFirst().prefix { $0.isNumber }
                if digits.count == 5, let code = Int("-" + digits) { sent.insert(code) }
                rest = rest[range.upperBound...]
            }
        }
        XCTAssertEqual(documented, sent, "documented \(documented.sorted()), sent \(sent.sorted())")

        // Notifications: the documented ones are the methods the server sends on its own.
        let notifications = headings(text, section: "Notifications")
        XCTAssertEqual(notifications, ["clubhouse.progress", "clubhouse.event", "clubhouse.unsubscribed"])
        var sources = ""
        for file in ["JSONRPCServer.swift", "RPCSubscriptions.swift"] {
            sources += try String(contentsOf: Clubhouse.repositoryRoot.appendingPathComponent("Host/Sources/FrontEnds/Server/\(file)"), encoding: .utf8)
        }
        // Every notification the server sends, however it writes it ("method": "…" or, pre-encoded, "method":"…").
        let notified = Set(sources.components(separatedBy: #""method":"#).dropFirst().compactMap { rest -> String? in
            let quoted = rest.drop { $0 == " " || $0 == "\\" }
            guard quoted.hasPrefix("\"") || quoted.hasPrefix("\\\"") else { return nil }
            return String(quoted.drop { $0 == "\"" || $0 == "\\" }.prefix { $0 != "\"" && $0 != "\\" })
        })
        XCTAssertEqual(notified, Set(notifications), "the notifications the sources send vs the documented ones")
    }
}
