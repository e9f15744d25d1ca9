// The one line a failing core call shows on the command line: the core's error with each argument it
// names worded as a flag, as the adapter words it (ScorecardError.replyMessage).

import ScorecardCore

func message(_ body: () throws -> Void) -> String {
    do {
        try body()
        return "no error"
    } catch let error as ScorecardError {
        return error.message(naming: { "--" + $0 })
    } catch {
        return "\(error)"
    }
}

import XCTest

/// The core names an argument by its name; only a front end turns it into a flag.
final class ArgumentNamingTests: XCTestCase {
    func testACoreErrorNamesItsArgumentAndAFrontEndWordsIt() {
        let error = ScorecardError.outOfRange(argument: "slope", value: "160", range: "55–155")
        XCTAssertEqual(error.argument, "slope")
        XCTAssertEqual(error.description, "slope 160 is outside 55–155")
        XCTAssertEqual(error.message(naming: { "--" + $0 }), "--slope 160 is outside 55–155")
        let item = ScorecardError.item("differential 2", .invalidNumber(argument: "differentials", text: "abc", expected: "a number"))
        XCTAssertNil(item.argument, "an item's error does not begin with its argument")
        XCTAssertEqual(item.message(naming: { "argument '\($0)'" }), "differential 2 of argument 'differentials' 'abc' is not a number")
        XCTAssertEqual(ScorecardError.noPlayers.description, "a round needs at least one player — pass players A,B")
    }
}
