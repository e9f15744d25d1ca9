// ClubhouseStrings: the string searches the product's modules use without `_StringProcessing`
// (Package.swift, productSettings) mean what `_StringProcessing`'s do.

@testable import ClubhouseStrings
import XCTest

final class StringSearchTests: XCTestCase {
    func testContainsFindsWholeCharactersOnly() {
        XCTAssertTrue(StringSearch.firstRange(of: "does not", in: "relation does not exist") != nil)
        XCTAssertNil(StringSearch.firstRange(of: "xyz", in: "relation does not exist"))
        XCTAssertNotNil(StringSearch.firstRange(of: "", in: "abc"))
        XCTAssertNil(StringSearch.firstRange(of: "abcd", in: "abc"))
        // "é" as e + a combining accent is one character: "e" alone is not in it, as for `Character`s.
        XCTAssertNil(StringSearch.firstRange(of: "e", in: "cafe\u{301}"))
        XCTAssertNotNil(StringSearch.firstRange(of: "caf", in: "cafe\u{301}"))
        XCTAssertNotNil(StringSearch.firstRange(of: "\u{E9}", in: "cafe\u{301}"), "canonically equal characters match")
        XCTAssertTrue("a..b".contains(".."))
        XCTAssertTrue(("x password y" as Substring).contains("password"))
    }

    func testRangesReplacingAndSplitGoLeftToRightWithoutOverlap() {
        let text = "aaa-LINE 1-LINE 22"
        let offsets = StringSearch.ranges(of: "LINE ", in: text[...]).map { text.distance(from: text.startIndex, to: $0.lowerBound) }
        XCTAssertEqual(offsets, [4, 11])
        XCTAssertEqual(StringSearch.ranges(of: "aa", in: "aaaa").count, 2)
        XCTAssertEqual(StringSearch.replacing("aa", with: "b", in: "aaaaa"), "bba")
        XCTAssertEqual(StringSearch.replacing("'", with: "''", in: "it's 'x'"), "it''s ''x''")
        XCTAssertEqual(StringSearch.replacing("~1", with: "/", in: "a~1b~0"), "a/b~0")
        XCTAssertEqual(StringSearch.replacing("-", with: "_", in: "ü-ö"), "ü_ö")
        XCTAssertEqual(StringSearch.split("a~0b~0~0c", separator: "~0", omittingEmptySubsequences: false), ["a", "b", "", "c"])
        XCTAssertEqual(StringSearch.split("~0a~0", separator: "~0", omittingEmptySubsequences: true), ["a"])
        XCTAssertEqual(StringSearch.split("", separator: "~0", omittingEmptySubsequences: false), [""])
        let found = StringSearch.firstRange(of: "://", in: "postgres://host/db")
        XCTAssertEqual(found.map { String("postgres://host/db"[$0.upperBound...]) }, "host/db")
    }

    /// A long text split by lines: each search from further on used to look again at the whole rest of the
    /// text for non-ASCII bytes (a 4 MB standard error split by "\n" took minutes in a debug build).
    func testALongTextIsSplitIntoEveryLineAndANonASCIIHeadStillMatchesByCharacter() {
        let lines = (0..<20_000).map { "line \($0) of a runner's standard error" }
        let text = lines.joined(separator: "\n")
        XCTAssertEqual(text.split(separator: "\n").map(String.init), lines)
        XCTAssertEqual(text.ranges(of: "standard error").count, 20_000)
        let mixed = "é\n" + text
        XCTAssertEqual(mixed.split(separator: "\n").count, 20_001)
        XCTAssertEqual(mixed.replacing("line ", with: "").ranges(of: "line").count, 0)
    }
}
