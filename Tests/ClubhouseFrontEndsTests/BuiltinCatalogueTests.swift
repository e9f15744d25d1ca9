// The host's own commands are declared like a plugin's (ClubhouseABI's CommandDeclaration): the
// declarations pass the checks a plugin's catalogue gets, help and serve read them, and each is
// dispatched from its declaration.

import ClubhouseABI
import ClubhouseHost
import ClubhouseJSON
import XCTest
@testable import ClubhouseFrontEnds

final class BuiltinCatalogueTests: XCTestCase {
    func testTheDeclarationParsesAndNamesEveryBuiltIn() {
        let names = BuiltinCatalogue.catalogue.commands.map(\.name)
        XCTAssertEqual(names, ["plugins list", "plugins info", "plugin validate", "plugin validate list", "plugin pack", "plugin keygen", "plugin verify", "plugin install",
                               "plugin list", "plugin remove", "plugin rollback", "plugin backups", "plugin adopt", "plugin new", "lock", "config validate", "config schema",
                               "demo", "serve", "routes", "outbox", "federation init", "federation push", "federation migrate", "federation pull", "token create", "token list", "token revoke", "token pair", "device simulate", "version", "help"])
        XCTAssertEqual(BuiltinCatalogue.groups, ["plugins", "plugin", "config", "demo", "serve", "routes", "device", "version", "help", "lock", "token", "outbox", "federation"])
        XCTAssertEqual(BuiltinCatalogue.groups, Set(BuiltinCatalogue.catalogue.commands.compactMap(\.words.first)),
                       "the written-out groups are the declaration's first words")
    }

    /// Written in Swift, the declarations get the checks a plugin's catalogue gets when it loads
    /// (reserved option names, choices, defaults of paths, flags that are not positional…).
    func testTheDeclarationsPassTheChecksOfAPluginsCatalogue() throws {
        let entries = BuiltinCatalogue.commands.map(\.declaration.catalogueEntry)
        let bytes = Array(JSONWriter.compact(["commands": .array(entries)]).utf8)
        switch CommandCatalog.parse(bytes, plugin: BuiltinCatalogue.name) {
        case .success(let parsed):
            XCTAssertEqual(parsed.commands.map(\.name), BuiltinCatalogue.catalogue.commands.map(\.name))
            XCTAssertEqual(parsed.commands.map { $0.arguments.map(\.name) }, BuiltinCatalogue.catalogue.commands.map { $0.arguments.map(\.name) })
        case .failure(let e): XCTFail("the built-in declarations fail a plugin's checks: \(e)")
        }
    }

    /// `serve` reads its parsed options (no second parse of words): the declaration's types, then the ranges.
    func testServeReadsItsParsedOptions() throws {
        let serve = try XCTUnwrap(BuiltinCatalogue.catalogue.command(named: "serve"))
        let parsed = try CommandLineParser.parse(["--workers", "3", "--http", "127.0.0.1:0", "--http-max-headers", "12",
                                                  "--http-allowed-host", "a.example,B.example", "--allow-remote"],
                                                 for: serve, plugin: BuiltinCatalogue.name)
        let options = try ServeOptions(parsed)
        XCTAssertEqual(options.limits.workers, 3)
        XCTAssertEqual(options.http?.port, 0)
        XCTAssertEqual(options.http?.limits.headerCount, 12)
        XCTAssertEqual(options.http?.allowedHosts, ["a.example", "b.example"])
        XCTAssertEqual(options.http?.allowRemote, true)
        XCTAssertNil(options.socketPath)
        XCTAssertThrowsError(try ServeOptions(CommandLineParser.parse(["--max-connections", "0"], for: serve, plugin: BuiltinCatalogue.name))) {
            XCTAssertEqual(($0 as? CLIError)?.message, "serve: --max-connections needs a whole number ≥ 1, not '0'")
        }
        XCTAssertThrowsError(try ServeOptions(CommandLineParser.parse(["--http", ":0", "--http-max-headers", "0"], for: serve, plugin: BuiltinCatalogue.name))) {
            XCTAssertEqual(($0 as? CLIError)?.message, "serve: --http-max-headers needs a whole number from 1 to 10000, not '0'")
        }
        XCTAssertThrowsError(try ServeOptions(CommandLineParser.parse(["--ui-dir", "/tmp"], for: serve, plugin: BuiltinCatalogue.name))) {
            XCTAssertEqual(($0 as? CLIError)?.message, "serve: --ui-dir is an option of --http ADDR:PORT; add --http 127.0.0.1:8080")
        }
    }

    func testHelpAndServeDescribeTheSameDeclaration() throws {
        let validate = try XCTUnwrap(BuiltinCatalogue.catalogue.command(named: "plugin validate"))
        XCTAssertEqual(HelpText.synopsis(validate), "plugin validate PATH [--timeout X] [--only ONLY] [--isolation in-process|process|sandbox]")
        XCTAssertTrue(HelpText.command(validate, plugin: nil).contains("Usage: clubhouse plugin validate PATH [--timeout X] [--only ONLY] [--isolation in-process|process|sandbox]"))
        let described = JSONRPCServer.describe(BuiltinCatalogue.catalogue).arrayValue ?? []
        XCTAssertEqual(described.compactMap { $0["name"]?.stringValue }, BuiltinCatalogue.catalogue.commands.map(\.name))
        XCTAssertEqual(described[2]["arguments"]?.arrayValue?[1]["default"]?.intValue, 30)
    }

    func testBuiltInArgumentsAreCheckedLikeAPluginsArguments() throws {
        let simulate = try XCTUnwrap(BuiltinCatalogue.catalogue.command(named: "device simulate"))
        XCTAssertThrowsError(try CommandLineParser.parse(["ballmachine", "--listen", "tcp:127.0.0.1:9", "--latency", "soon"],
                                                       for: simulate, plugin: BuiltinCatalogue.name)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--latency must be an integer, got 'soon'")
        }
        XCTAssertThrowsError(try CommandLineParser.parse(["ballmachine"], for: simulate, plugin: BuiltinCatalogue.name)) { error in
            XCTAssertTrue((error as? UsageError)?.message.contains("see clubhouse device simulate --help") ?? false, "\(error)")
        }
    }
}
