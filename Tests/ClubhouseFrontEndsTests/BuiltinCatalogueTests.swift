// The host's own commands are declared like a plugin's: the declaration parses, help and serve read it.

import ClubhouseHost
import ClubhouseJSON
import XCTest
@testable import ClubhouseFrontEnds

final class BuiltinCatalogueTests: XCTestCase {
    func testTheDeclarationParsesAndNamesEveryBuiltIn() {
        let names = BuiltinCatalogue.catalogue.commands.map(\.name)
        XCTAssertEqual(names, ["plugins list", "plugins info", "plugin validate", "plugin validate list", "plugin pack", "plugin keygen", "plugin verify", "plugin install",
                               "plugin list", "plugin remove", "plugin rollback", "plugin backups", "plugin new", "lock", "config validate", "config schema",
                               "demo", "serve", "routes", "outbox", "federation init", "federation push", "federation migrate", "federation pull", "token create", "token list", "token revoke", "token pair", "device simulate", "version", "help"])
        XCTAssertEqual(BuiltinCatalogue.groups, ["plugins", "plugin", "config", "demo", "serve", "routes", "device", "version", "help", "lock", "token", "outbox", "federation"])
        XCTAssertEqual(BuiltinCatalogue.groups, Set(BuiltinCatalogue.catalogue.commands.compactMap(\.words.first)),
                       "the written-out groups are the declaration's first words")
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
