import ClubhouseJSON
import ClubhousePlatform
import XCTest
@testable import ClubhouseHost

final class CommandLineParserTests: XCTestCase {
    /// A command name's rule (words separated by single spaces, none empty, none starting with '-', no whitespace)
    /// decides in bytes for ASCII names as it does by Characters: every ASCII byte in every position of a few
    /// shapes, and the usual names and mistakes.
    func testCommandNamesAreCheckedInBytesAsByCharacters() {
        func byCharacters(_ name: String) -> Bool {
            let words = name.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            return !words.contains(where: { $0.isEmpty || $0.hasPrefix("-") || $0.contains(where: \.isWhitespace) })
        }
        var names = ["", " ", "a", "ab", "a b", "a  b", " a", "a ", "-a", "a -b", "a-b", "a b-", "player list", "round score add",
                     "a\tb", "a\r\nb", "é", "a é", "a\u{A0}b", "a\u{2028}b", "-é", "é -x"]
        for byte in UInt8(0)..<0x80 {
            let c = String(decoding: [byte], as: UTF8.self)
            names += [c, "a" + c, c + "a", "a " + c, "a" + c + "b", c + " a"]
        }
        for name in names { XCTAssertEqual(CommandCatalog.isWordSequence(name), byCharacters(name), name.debugDescription) }
    }

    let catalogue: CommandCatalog = {
        let json = """
        {"commands": [
          {"name": "bestline", "summary": "s", "arguments": [
            {"name": "course", "type": "string", "required": true},
            {"name": "hole", "type": "integer", "required": true},
            {"name": "ball", "type": "point", "help": "Ball X,Z in feet"},
            {"name": "stimp", "type": "number", "default": 10},
            {"name": "model", "type": "choice", "choices": ["compat", "physics"], "default": "physics"},
            {"name": "async", "type": "flag"},
            {"name": "template", "type": "list"},
            {"name": "extra", "type": "json"}]},
          {"name": "template add", "summary": "s", "arguments": [{"name": "file", "type": "path", "positional": true, "required": true}]},
          {"name": "template list", "summary": "s", "arguments": []},
          {"name": "project", "summary": "s", "arguments": [{"name": "xy", "type": "point", "positional": true, "required": true}]}
        ]}
        """
        guard case .success(let c) = CommandCatalog.parse(Array(json.utf8), plugin: "t") else { fatalError("catalogue") }
        return c
    }()

    private func parse(_ words: [String]) throws -> JSONObject {
        guard case .success(let (command, rest)) = CommandLineParser.selectCommand(words, in: catalogue, plugin: "t") else {
            throw UsageError("no command")
        }
        return try CommandLineParser.parse(rest, for: command, plugin: "t")
    }

    private func usageError(_ words: [String]) -> String {
        switch CommandLineParser.selectCommand(words, in: catalogue, plugin: "t") {
        case .failure(let e): return e.message
        case .success(let (command, rest)):
            do {
                _ = try CommandLineParser.parse(rest, for: command, plugin: "t")
                return ""
            } catch {
                return error.message
            }
        }
    }

    func testTypesDefaultsFlagsListsAndPoints() throws {
        let a = try parse(["bestline", "--course", "presidio", "--hole=3", "--ball", "-1.5,2", "--async",
                           "--template", "a,b", "--template", "c", "--extra", #"{"k":[1]}"#])
        XCTAssertEqual(a["course"], "presidio")
        XCTAssertEqual(a["hole"], .int(3))
        XCTAssertEqual(a["ball"]?.arrayValue?.compactMap(\.doubleValue), [-1.5, 2])
        XCTAssertEqual(a["stimp"]?.doubleValue, 10)
        XCTAssertEqual(a["model"], "physics")
        XCTAssertEqual(a["async"], true)
        XCTAssertEqual(a["template"], ["a", "b", "c"])
        XCTAssertEqual(a["extra"]?["k"], [1])
    }

    func testMultiWordCommandsPositionalsAndPaths() throws {
        let a = try parse(["template", "add", "rel/file.json"])
        XCTAssertEqual(a["file"]?.stringValue, FileSystem.absolute("rel/file.json"))
        XCTAssertEqual(try parse(["template", "add", "-"])["file"], "-")
        XCTAssertEqual(try parse(["project", "-3,4.5"])["xy"]?.arrayValue?.compactMap(\.doubleValue), [-3, 4.5])
    }

    func testUsageErrorsNameTheArgument() {
        XCTAssertEqual(usageError(["bestline", "--hole", "3"]), "'t bestline' needs --course; see clubhouse t bestline --help")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "three"]), "--hole must be an integer, got 'three'")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "1", "--model", "fast"]),
                       "--model must be one of compat, physics, got 'fast'")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "1", "--ball", "1"]),
                       "--ball must be a point X,Y (two numbers), got '1'")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "1", "--stimp", "NaN"]), "--stimp must be a number, got 'NaN'")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--course", "y", "--hole", "1"]), "option --course is given twice")
        // Issue 30, Why 10: a decimal comma, and a unit typed after the number, get a hint.
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "1", "--ball", "0,5,-5,9"]),
                       "--ball must be a point X,Y (two numbers), got '0,5,-5,9'; numbers take a decimal point, not a comma: did you mean '0.5,-5.9'?")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "1", "--stimp", "10,5"]),
                       "--stimp must be a number, got '10,5'; numbers take a decimal point, not a comma: did you mean '10.5'?")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "1", "--ball", "2m,-1.8 m"]),
                       "--ball must be a point X,Y (two numbers), got '2m,-1.8 m'; give plain numbers in feet, without a unit: that is '6.562,-5.906' in feet")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "1", "--ball", "3ft,4ft"]),
                       "--ball must be a point X,Y (two numbers), got '3ft,4ft'; give plain numbers, without a unit: '3,4' (Ball X,Z in feet)")
        XCTAssertEqual(usageError(["bestline", "--course", "x", "--hole", "1", "--ball", "1,2,3"]),
                       "--ball must be a point X,Y (two numbers), got '1,2,3'")
        XCTAssertTrue(usageError(["bestline", "--cours", "x"]).hasPrefix("unknown option '--cours' for 't bestline'; did you mean '--course'?"))
        XCTAssertEqual(usageError(["bestline", "--async=maybe", "--course", "x", "--hole", "1"]),
                       "flag --async takes no value (or =true/=false), got 'maybe'")
        XCTAssertTrue(usageError(["template"]).hasPrefix("'t template' needs one of: add, list"))
        XCTAssertTrue(usageError(["templates", "add"]).hasPrefix("unknown command 'templates add' for plugin 't'"))
        XCTAssertTrue(usageError(["template", "add", "-x"]).hasPrefix("unknown option '-x'"))
        XCTAssertTrue(usageError(["template", "add", "a", "b"]).hasPrefix("unexpected argument 'b'"))
    }

    func testValidateTypesJSONArgumentsLikeTheCommandLine() throws {
        guard let spec = catalogue.command(named: "bestline") else { return XCTFail() }
        let a = try CommandLineParser.validate(["course": "c", "hole": 2.0, "ball": "1,2", "template": "x,y"], for: spec, plugin: "t")
        XCTAssertEqual(a["hole"], .int(2))
        XCTAssertEqual(a["ball"]?.arrayValue?.compactMap(\.doubleValue), [1, 2])
        XCTAssertEqual(a["template"], ["x", "y"])
        XCTAssertThrowsError(try CommandLineParser.validate(["course": "c", "hole": "two"], for: spec, plugin: "t")) {
            XCTAssertEqual(($0 as? UsageError)?.message, "argument 'hole' of 't bestline' must be an integer, got a string")
        }
        for lexeme in ["9.3e18", "9223372036854775808", "2.5"] {
            let huge = try JSONParser.parse(lexeme)
            XCTAssertThrowsError(try CommandLineParser.validate(["course": "c", "hole": huge], for: spec, plugin: "t")) {
                XCTAssertEqual(($0 as? UsageError)?.message,
                               "argument 'hole' of 't bestline' must be a whole number from \(Int.min) to \(Int.max), got \(lexeme)")
            }
        }
        XCTAssertThrowsError(try CommandLineParser.validate(["course": "c", "hole": 1, "colour": "red"], for: spec, plugin: "t")) {
            XCTAssertEqual(($0 as? UsageError)?.message, "unknown argument 'colour' for 't bestline'")
        }
    }

    func testCatalogueProblemsAreAllListed() {
        let bad = #"{"commands": [{"name": "-x"}, {"name": "a", "summary": "s", "arguments": [{"name": "json", "type": "flag"}, {"name": "c", "type": "choice"}, {"name": "f", "type": "flag", "positional": true}]}, {"name": "a", "summary": "s"}]}"#
        guard case .failure(let e) = CommandCatalog.parse(Array(bad.utf8), plugin: "t") else { return XCTFail() }
        XCTAssertEqual(e.problems, [
            "command '-x': a name is words separated by single spaces, none starting with '-'",
            "command '-x' has no \"summary\"",
            "command 'a': argument '--json' clashes with the host's global option of that name",
            "command 'a': choice argument 'c' lists no \"choices\"",
            "command 'a': flag 'f' cannot be positional",
            "command 'a' is declared twice",
        ])
    }

    /// Topic names beginning with `clubhouse.` are the host's (SSE's and JSON-RPC's
    /// `clubhouse.missed`): a catalogue declaring one is a bad catalogue, with the topic named.
    func testTopicsBeginningWithClubhouseAreTheHosts() {
        let bad = #"{"commands": [{"name": "a", "summary": "s"}], "topics": [{"name": "score"}, {"name": "clubhouse.missed"}, {"name": "clubhouse.x"}]}"#
        guard case .failure(let e) = CommandCatalog.parse(Array(bad.utf8), plugin: "t") else { return XCTFail("a reserved topic was accepted") }
        XCTAssertEqual(e.problems, [
            "topic 'clubhouse.missed': names beginning with 'clubhouse.' are the host's own signals to subscribers (such as clubhouse.missed); rename the topic",
            "topic 'clubhouse.x': names beginning with 'clubhouse.' are the host's own signals to subscribers (such as clubhouse.missed); rename the topic",
        ])
        let good = #"{"commands": [{"name": "a", "summary": "s"}], "topics": [{"name": "clubhouse"}, {"name": "score.clubhouse.missed"}]}"#
        guard case .success(let c) = CommandCatalog.parse(Array(good.utf8), plugin: "t") else { return XCTFail("a plain topic was refused") }
        XCTAssertEqual(c.topics.map(\.name), ["clubhouse", "score.clubhouse.missed"])
    }

    /// A path argument declares the access the files service gives the plugin; anything else is listed.
    func testPathAccessIsReadByDefaultAndOnlyForPaths() {
        let good = #"{"commands": [{"name": "a", "summary": "s", "arguments": [{"name": "in", "type": "path"}, {"name": "out", "type": "path", "access": "write"}]}]}"#
        guard case .success(let c) = CommandCatalog.parse(Array(good.utf8), plugin: "t") else { return XCTFail() }
        XCTAssertEqual(c.commands[0].arguments.map(\.access), [.read, .write])
        let bad = #"{"commands": [{"name": "a", "summary": "s", "arguments": [{"name": "n", "type": "string", "access": "read"}, {"name": "p", "type": "path", "access": "execute"}]}]}"#
        guard case .failure(let e) = CommandCatalog.parse(Array(bad.utf8), plugin: "t") else { return XCTFail() }
        XCTAssertEqual(e.problems, [
            "command 'a': argument 'n' declares \"access\", which only a path argument has",
            "command 'a': path argument 'p' has \"access\": \"execute\"; use \"read\" or \"write\"",
        ])
    }
}
