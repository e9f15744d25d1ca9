// Typed commands (TypedArguments.swift): the catalogue's arguments made from a Decodable struct, the
// handler given the decoded struct (choices as enum cases, flags false when not given), a struct no
// catalogue can describe refused at describe naming the command and the field, and ArgumentError's
// one-line message.

import CClubhouse
import ClubhouseJSON
import Foundation
import XCTest
@testable import PluginKit

enum Tee: String, ArgumentChoice {
    case white, yellow, red
}

struct Entry: CommandArguments {
    var round: Int
    var player: String
    var tee: Tee?
    var players: [String]
    var holes: Int
    var nine: Tee
    var yes: Bool
    var ball: ArgumentPoint?
    var svg: String?
    var pcc: Double?
    var extra: JSONValue?

    static let fields = [
        ArgumentField("round", help: "Round id", positional: true),
        ArgumentField("holes", help: "9 or 18", default: 18),
        ArgumentField("nine", default: "white"),
        .path("svg", help: "Picture", access: .write),
    ]
}

final class Typed: Plugin {
    static let info = PluginInfo(id: "org.tests.typed", version: "1.0.0", name: "Typed", summary: "Typed arguments")
    static let commands: [Command<Typed>] = [
        Command("enter", summary: "Enter", arguments: Entry.self) { _, entry, _ in
            var o = JSONObject()
            o["round"] = .int(entry.round)
            o["player"] = .string(entry.player)
            o["tee"] = entry.tee.map { JSONValue.string($0.rawValue) } ?? .null
            o["players"] = .array(entry.players.map { JSONValue.string($0) })
            o["holes"] = .int(entry.holes)
            o["nine"] = .string(entry.nine.rawValue)
            o["yes"] = .bool(entry.yes)
            o["ball"] = entry.ball.map { JSONValue.array([.double($0.x), .double($0.y)]) } ?? .null
            return Reply(data: .object(o))
        },
        Command("strokes", summary: "Refuse a score", arguments: [.integer("strokes")]) { _, call in
            throw ArgumentError("strokes", "must be 1–20, got \(try call.arguments.int("strokes"))")
        },
    ]
    init(context: PluginContext) throws {}
}

/// A struct with a property no argument kind takes.
struct Holes: CommandArguments { var holes: [Int] }
/// Fields that name no property, and a default of the wrong kind.
struct Misdescribed: CommandArguments {
    var round: Int
    var tee: Tee?
    static let fields = [ArgumentField("rund", help: "typo"), ArgumentField("round", default: "one"), ArgumentField("tee", default: "blue")]
}

final class Untyped: Plugin {
    static let info = PluginInfo(id: "org.tests.untyped", version: "1.0.0", name: "Untyped", summary: "Broken typed arguments")
    static let commands: [Command<Untyped>] = [
        Command("holes", summary: "Holes", arguments: Holes.self) { _, _, _ in Reply() },
        Command("typo", summary: "Typo", arguments: Misdescribed.self) { _, _, _ in Reply() },
    ]
    init(context: PluginContext) throws {}
}

/// How often each arguments type's `init(from:)` ran, reflection and decoding alike.
/// @unchecked Sendable: `counts` is read and written under `lock`.
final class DecodeCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func add(_ name: String) { lock.withLock { counts[name, default: 0] += 1 } }
    var now: [String: Int] { lock.withLock { counts } }
}

struct FirstArguments: CommandArguments {
    static let decodes = DecodeCounts()
    var count: Int
    enum CodingKeys: String, CodingKey { case count }
    init(from decoder: any Decoder) throws {
        FirstArguments.decodes.add("first")
        count = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .count)
    }
}

struct SecondArguments: CommandArguments {
    var picture: String?
    enum CodingKeys: String, CodingKey { case picture }
    static let fields = [ArgumentField.path("picture", access: .write)]
    init(from decoder: any Decoder) throws {
        FirstArguments.decodes.add("second")
        picture = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .picture)
    }
}

/// Two typed commands, for what is reflected when (used by one test only: the shapes are kept per process).
final class LazyShapes: Plugin {
    static let info = PluginInfo(id: "org.tests.lazy", version: "1.0.0", name: "Lazy", summary: "Typed arguments made when needed")
    static let commands: [Command<LazyShapes>] = [
        Command("first", summary: "First", arguments: FirstArguments.self) { _, first, _ in Reply(data: .int(first.count)) },
        Command("second", summary: "Second", arguments: SecondArguments.self) { _, _, _ in Reply() },
    ]
    init(context: PluginContext) throws {}
}

final class TypedArgumentsTests: XCTestCase {
    func describe<P: Plugin>(_ type: P.Type) throws -> (status: Int32, text: String) {
        let d = try XCTUnwrap(export(type, nil))
        let reply = ReplyBuffer()
        let status = reply.withSink { d.pointee.describe?(d, $0) } ?? -1
        return (status, reply.text)
    }

    /// create → invoke → destroy through the descriptor, as the host does.
    func invoke(_ command: String, _ arguments: String) throws -> (status: Int32, reply: String) {
        invokeThroughDescriptor(try XCTUnwrap(export(Typed.self, nil)), command, #"{"arguments":\#(arguments),"cwd":"/"}"#)
    }

    func testTheCatalogueIsMadeFromTheStructInDeclarationOrder() throws {
        let (status, text) = try describe(Typed.self)
        XCTAssertEqual(status, Int32(CLUBHOUSE_OK), text)
        let catalogue = try JSONParser.parse(bytes: Array(text.utf8))
        let arguments = catalogue["commands"]?.arrayValue?.first?["arguments"] ?? .null
        XCTAssertEqual(JSONWriter.compact(arguments), "["
            + #"{"name":"round","type":"integer","help":"Round id","required":true,"positional":true},"#
            + #"{"name":"player","type":"string","required":true},"#
            + #"{"name":"tee","type":"choice","choices":["white","yellow","red"]},"#
            + #"{"name":"players","type":"list","required":true},"#
            + #"{"name":"holes","type":"integer","help":"9 or 18","default":18},"#
            + #"{"name":"nine","type":"choice","default":"white","choices":["white","yellow","red"]},"#
            + #"{"name":"yes","type":"flag"},"#
            + #"{"name":"ball","type":"point"},"#
            + #"{"name":"svg","type":"path","help":"Picture","access":"write"},"#
            + #"{"name":"pcc","type":"number"},"#
            + #"{"name":"extra","type":"json"}]"#)
    }

    func testATypedCommandCarriesItsConcurrentMark() throws {
        let command = Command<Typed>("stop", summary: "Stop", arguments: Holes.self, concurrent: true) { _, _, _ in Reply() }
        XCTAssertTrue(command.concurrent)
        XCTAssertEqual(command.catalogueEntry["concurrent"], .bool(true))
        XCTAssertFalse(Command<Typed>("enter", summary: "Enter", arguments: Holes.self) { _, _, _ in Reply() }.concurrent)
    }

    func testTheHandlerGetsTheStructWithEnumsListsAndFlags() throws {
        let r = try invoke("enter", #"{"round":3,"player":"Ann","tee":"yellow","players":["Ann","Bob"],"#
                                + #""holes":9,"nine":"red","ball":[1.5,-2]}"#)
        XCTAssertEqual(r.status, Int32(CLUBHOUSE_OK), r.reply)
        XCTAssertEqual(r.reply, #"{"data":{"round":3,"player":"Ann","tee":"yellow","players":["Ann","Bob"],"holes":9,"nine":"red","#
                       + #""yes":false,"ball":[1.5,-2.0]}}"#)
        let flagged = try invoke("enter", #"{"round":3,"player":"Ann","players":["Ann"],"holes":18,"nine":"white","yes":true}"#)
        XCTAssertEqual(flagged.reply, #"{"data":{"round":3,"player":"Ann","tee":null,"players":["Ann"],"holes":18,"nine":"white","#
                       + #""yes":true,"ball":null}}"#)
    }

    func testArgumentsThatDoNotFitAreAUsageErrorNamingTheField() throws {
        let r = try invoke("enter", #"{"round":"three","player":"Ann","players":["Ann"],"holes":18,"nine":"white"}"#)
        XCTAssertEqual(r.status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(r.reply, "arguments do not fit Entry: round: expected an integer, found a string")
        let choice = try invoke("enter", #"{"round":3,"player":"Ann","players":["Ann"],"holes":18,"nine":"blue"}"#)
        XCTAssertEqual(choice.status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertTrue(choice.reply.hasPrefix("arguments do not fit Entry: nine: "), choice.reply)
    }

    func testAStructNoCatalogueCanDescribeFailsDescribeNamingCommandAndField() throws {
        let (status, text) = try describe(Untyped.self)
        XCTAssertEqual(status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(text, "command 'holes': Holes: property 'holes' has type Array<Int>, which no argument kind takes "
            + "(String, Int, Double, ArgumentDecimal, Bool, [String], an ArgumentChoice enum, ArgumentPoint or JSONValue); "
            + "command 'typo': Misdescribed: field 'rund' is described but Misdescribed has no property decoded by that name; "
            + #"field 'round': the default "one" is not an integer; field 'tee': the default "blue" is not one of white, yellow, red"#)
    }

    /// A process that runs one command reflects that command's arguments type alone, once; `describe`
    /// makes the others (issue 33: the command line's `describe` and `create` reflected every type).
    func testATypedCommandsArgumentsAreMadeFromItsTypeOnlyWhenNeeded() throws {
        let d = try XCTUnwrap(export(LazyShapes.self, nil))
        XCTAssertEqual(FirstArguments.decodes.now, [:], "declaring and exporting reflects nothing")
        let r = invokeThroughDescriptor(d, "first", #"{"arguments":{"count":4},"cwd":"/"}"#)
        XCTAssertEqual(r.reply, #"{"data":4}"#)
        XCTAssertEqual(FirstArguments.decodes.now, ["first": 2], "its shape made once, its arguments decoded once")
        _ = invokeThroughDescriptor(d, "first", #"{"arguments":{"count":5},"cwd":"/"}"#)
        XCTAssertEqual(FirstArguments.decodes.now, ["first": 3])
        let reply = ReplyBuffer()
        XCTAssertEqual(reply.withSink { d.pointee.describe?(d, $0) }, Int32(CLUBHOUSE_OK), reply.text)
        XCTAssertEqual(FirstArguments.decodes.now, ["first": 3, "second": 1])
        XCTAssertEqual(reply.text, #"{"commands":[{"name":"first","summary":"First","#
            + #""arguments":[{"name":"count","type":"integer","required":true}]},"#
            + #"{"name":"second","summary":"Second","arguments":[{"name":"picture","type":"path","access":"write"}]}]}"#)
    }

    func testAnArgumentErrorNamesTheArgumentAsTheCommandLineDoes() throws {
        let r = try invoke("strokes", #"{"strokes":25}"#)
        XCTAssertEqual(r.status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(r.reply, "--strokes must be 1–20, got 25")
        XCTAssertEqual(ArgumentError("lat", "must be -90–90", status: .notFound).pluginError.status, .notFound)
    }
}

/// The README's typed command (ServiceExamples/TypedCommandExample.swift, shown verbatim there).
final class TypedCommandExampleTests: XCTestCase {
    func testTheReadmeShowsTheCompiledExampleAndItRuns() throws {
        let readme = try ServiceDocsTests.text("PluginSDK/README.md")
        let example = ServiceDocsTests.example(try ServiceDocsTests.text("Tests/PluginKitTests/ServiceExamples/TypedCommandExample.swift"))
        XCTAssertTrue(ServiceDocsTests.blocks(readme, language: "swift").contains(example),
                      "PluginSDK/README.md does not show ServiceExamples/TypedCommandExample.swift verbatim")
        let d = try XCTUnwrap(export(Scorer.self, nil))
        let reply = ReplyBuffer()
        XCTAssertEqual(reply.withSink { d.pointee.describe?(d, $0) }, Int32(CLUBHOUSE_OK), reply.text)
        let arguments = try JSONParser.parse(bytes: reply.bytes)["commands"]?.arrayValue?.first?["arguments"]?.arrayValue ?? []
        XCTAssertEqual(arguments.compactMap { $0["name"]?.stringValue }, ["round", "player", "strokes", "nine", "markers", "yes"])
        XCTAssertEqual(arguments.compactMap { $0["type"]?.stringValue }, ["integer", "string", "integer", "choice", "list", "flag"])
        XCTAssertEqual(arguments[3]["choices"], ["front", "back"])
    }
}
